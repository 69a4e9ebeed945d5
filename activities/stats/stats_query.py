# Evaluates one whitelisted statistical operation on data.csv, inside the sandbox.
#
# The operation arrives on stdin as JSON ({"op", "columns", "comparator", "value"}), built by
# engines/stats/query.ts from the caller's query; nothing the caller wrote is run
# as code. Output: one JSON object on stdout, either
#   {"ok": true, "observed": <number>, "holds": <bool or null>, "rows": n, "used_values": n}
# or {"ok": false, "kind": "validation" | "execution", "message": str}.
import json
import math
import sys

spec = json.load(sys.stdin)


def finish(obj):
    sys.stdout.write(json.dumps(obj, allow_nan=False))
    sys.stdout.flush()
    sys.exit(0)


def fail(kind, message):
    finish({"ok": False, "kind": kind, "message": message})


try:
    import pandas as pd
except ImportError as exc:  # the image lacks pandas: the runtime, not the data, is at fault
    sys.stderr.write("runtime_unavailable: %s\n" % exc)
    sys.exit(3)

try:
    # Every cell as text first: the numeric conversion below is explicit and per column.
    df = pd.read_csv(
        "data.csv",
        dtype=str,
        keep_default_na=True,
        skip_blank_lines=True,
        encoding="utf-8-sig",
        encoding_errors="replace",
    )
except Exception as exc:  # noqa: BLE001 - any reader failure is an execution failure
    fail("execution", "The CSV could not be read: %s" % type(exc).__name__)


def numeric(name):
    if name not in df.columns:
        fail("validation", "Unknown column %r." % name)
    raw = df[name]
    values = pd.to_numeric(raw, errors="coerce")
    bad = values.isna() & raw.notna()
    if bool(bad.any()):
        first = raw[bad].iloc[0]
        fail("validation", "Column %r is not numeric (value %r)." % (name, str(first)[:40]))
    return values


op = spec["op"]
cols = spec["columns"]
observed = None
used = 0

if op == "count":
    if cols:
        if cols[0] not in df.columns:
            fail("validation", "Unknown column %r." % cols[0])
        observed = int(df[cols[0]].notna().sum())
    else:
        observed = int(len(df))
    used = observed
elif op == "corr":
    a = numeric(cols[0])
    b = numeric(cols[1])
    pair = pd.concat([a, b], axis=1).dropna()
    used = int(len(pair))
    if used < 2:
        fail("validation", "corr needs at least 2 rows where both columns have a value.")
    observed = float(pair.iloc[:, 0].corr(pair.iloc[:, 1]))
else:
    values = numeric(cols[0]).dropna()
    used = int(len(values))
    need = 2 if op in ("stdev", "variance") else 1
    if used < need:
        fail("validation", "%s needs at least %d numeric value(s) in column %r." % (op, need, cols[0]))
    if op == "mean":
        observed = float(values.mean())
    elif op == "median":
        observed = float(values.median())
    elif op == "stdev":
        observed = float(values.std(ddof=1))
    elif op == "variance":
        observed = float(values.var(ddof=1))
    elif op == "min":
        observed = float(values.min())
    elif op == "max":
        observed = float(values.max())
    elif op == "sum":
        observed = float(values.sum())
    else:
        fail("validation", "Unsupported operation.")

if isinstance(observed, float) and not math.isfinite(observed):
    fail("execution", "The result is undefined (%s)." % observed)

holds = None
comparator = spec.get("comparator")
if comparator:
    claimed = float(spec["value"])
    if comparator == "==":
        holds = math.isclose(observed, claimed, rel_tol=1e-9, abs_tol=1e-12)
    elif comparator == "!=":
        holds = not math.isclose(observed, claimed, rel_tol=1e-9, abs_tol=1e-12)
    elif comparator == ">":
        holds = observed > claimed
    elif comparator == ">=":
        holds = observed >= claimed
    elif comparator == "<":
        holds = observed < claimed
    elif comparator == "<=":
        holds = observed <= claimed
    holds = bool(holds)

finish({"ok": True, "observed": observed, "holds": holds, "rows": int(len(df)), "used_values": used})
