#!/usr/bin/env bash
# Third-party SQL workloads for bench/sql-workloads.ts from a pinned sqlglot sdist, into the
# git-ignored .tools/corpora/sql (which then takes precedence over the committed
# test/fixtures/sql/{tpc-h,tpc-ds}, written by the same bench/sql-tpc-fixtures.py from sqlglot's
# repository). Source: the sdist of sqlglot (MIT licence) from the Python package index, pinned below. Its test
# fixtures hold the 22 TPC-H and 99 TPC-DS queries (tests/fixtures/optimizer/tpc-{h,ds}/*.sql:
# each input query followed by sqlglot's optimized rendering; we keep the inputs) and both
# schemas with column types (tests/helpers.py: TPCH_SCHEMA, TPCDS_SCHEMA).
# Writes .tools/corpora/sql/{tpc-h,tpc-ds}/{schema.sql,queries/qNN.sql,SOURCE} and prints where.
#   bash bench/sql-corpus.sh && npx tsx bench/sql-workloads.ts
set -euo pipefail
SQLGLOT_VERSION=30.30.0
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
TOOLS="$ROOT/.tools/corpora"
DL="$TOOLS/dl"
OUT="$TOOLS/sql"
PY="${PYTHON:-python3}"
mkdir -p "$DL"
SDIST="$DL/sqlglot-$SQLGLOT_VERSION.tar.gz"
if [ ! -f "$SDIST" ]; then
  "$PY" -m pip download --quiet --no-deps --no-binary :all: "sqlglot==$SQLGLOT_VERSION" -d "$DL"
fi
SRC="$DL/sqlglot-$SQLGLOT_VERSION"
[ -d "$SRC" ] || tar xzf "$SDIST" -C "$DL"

"$PY" "$ROOT/bench/sql-tpc-fixtures.py" "$SRC" "$OUT" "$SQLGLOT_VERSION"
