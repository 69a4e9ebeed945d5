"""TPC-H and TPC-DS query fixtures from a sqlglot source tree (MIT licence), for the SQL engine.

    python3 bench/sql-tpc-fixtures.py SQLGLOT_SRC OUT_DIR LABEL

SQLGLOT_SRC is a sqlglot checkout or unpacked sdist (it needs tests/helpers.py and
tests/fixtures/optimizer/tpc-{h,ds}/tpc-{h,ds}.sql); OUT_DIR receives
{tpc-h,tpc-ds}/{schema.sql,queries/qNN.sql,SOURCE}. Only the input queries (each fixture holds an
input query followed by sqlglot's optimized rendering) and DDL built from the schema
dictionaries are written. LABEL names the source (a version or commit) in SOURCE.
"""
import ast
import os
import shutil
import sys

src, out, label = sys.argv[1], sys.argv[2], sys.argv[3]

# Column types of the fixture schemas, as PostgreSQL types. sqlglot's executor reads CSV, so its
# schemas type dates as "string" and money as "double"; the TPC-H and TPC-DS specifications
# declare those columns DATE and DECIMAL, and the queries compare them with dates and round
# them as decimals (round(double precision, integer) does not exist in PostgreSQL).
PG_TYPES = {"bigint": "bigint", "int": "integer", "double": "decimal(15,2)", "string": "text", "date": "date"}


def pg_type(column, t):
    if t == "string" and column.endswith("date"):
        return "date"
    return PG_TYPES[t]


def schemas():
    tree = ast.parse(open(os.path.join(src, "tests", "helpers.py"), encoding="utf-8").read())
    found = {}
    for node in tree.body:
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            if node.targets[0].id in ("TPCH_SCHEMA", "TPCDS_SCHEMA"):
                found[node.targets[0].id] = ast.literal_eval(node.value)
    return found


def input_queries(path):
    # Same split as sqlglot's own load_sql_fixture_pairs: comment lines dropped, split at ';',
    # statements alternate input / expected output; leading '# key: value' lines are metadata.
    text = open(path, encoding="utf-8").read()
    text = "\n".join(l for l in text.splitlines() if l and not l.startswith("--"))
    parts = text.split(";")
    queries = []
    for i in range(0, len(parts) - 1, 2):
        lines = parts[i].strip().split("\n")
        while lines and lines[0].startswith("#"):
            lines.pop(0)
        queries.append("\n".join(lines).strip() + "\n")
    return queries


s = schemas()
for name, key, fixture in (("tpc-h", "TPCH_SCHEMA", "tpc-h/tpc-h.sql"), ("tpc-ds", "TPCDS_SCHEMA", "tpc-ds/tpc-ds.sql")):
    d = os.path.join(out, name)
    shutil.rmtree(d, ignore_errors=True)
    os.makedirs(os.path.join(d, "queries"))
    ddl = []
    for table, cols in s[key].items():
        body = ",\n".join(f"  {c} {pg_type(c, t)}" for c, t in cols.items())
        ddl.append(f"CREATE TABLE {table} (\n{body}\n);\n")
    open(os.path.join(d, "schema.sql"), "w").write("\n".join(ddl))
    qs = input_queries(os.path.join(src, "tests", "fixtures", "optimizer", fixture))
    for n, q in enumerate(qs, 1):
        open(os.path.join(d, "queries", f"q{n:02d}.sql"), "w").write(q)
    open(os.path.join(d, "SOURCE"), "w").write(
        f"sqlglot {label} (MIT licence, Copyright (c) Toby Mao): tests/fixtures/optimizer/{fixture} "
        f"(input queries only), DDL built from tests/helpers.py {key} by bench/sql-tpc-fixtures.py\n")
    print(f"{name}: {len(qs)} queries, {len(s[key])} tables -> {d}")
