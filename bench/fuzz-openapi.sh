#!/usr/bin/env bash
# Fuzzes the running stack from its own /openapi.json with schemathesis (PyPI, pinned, installed
# into the git-ignored .tools/ folder on first use). Passes only with 0 responses of 500 (or any
# other 5xx) and 0 responses that violate the schema declared for their status. See docs/openapi.md.
#
#   eval "$(npx tsx bench/fuzz-tenant.ts http://127.0.0.1:8000 mongodb://127.0.0.1:27017/svc)"
#   bench/fuzz-openapi.sh [base-url]                 (default http://127.0.0.1:8000)
#
#   SVC_API_KEY=…          an enterprise API key of the stack under test (required)
#   SVC_BEARER_TOKEN=…     the same tenant's JWT, so the JWT-only routes are exercised (optional)
#   SVC_FUZZ_EXAMPLES=…    examples per operation and phase (default 120: ≥ 5,000 requests over 54 operations;
#                          the audit-trail reports take fewer, bench/fuzz-schemathesis.toml)
#   SVC_FUZZ_WORKERS=…     concurrent workers (default 1: with more, hypothesis' concurrent ast.parse trips a
#                          CPython 3.11 bug, "AST constructor recursion depth mismatch", and the run errors)
#   SVC_FUZZ_PHASES=…      schemathesis phases (default examples,coverage,fuzzing; see below)
#   SVC_FUZZ_REPORT_DIR=…  keep the HAR and JSON reports there (default: a temporary folder)
#   SVC_FUZZ_SEED=…        reproduce a run
# Use an enterprise key (no plan rate limit) on a dev or test stack, never on production data.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SCHEMATHESIS_VERSION="4.32.5"
VENV="$ROOT/.tools/venv-schemathesis-$SCHEMATHESIS_VERSION"
PY="$VENV/bin/python3"
BASE="${1:-${SVC_BASE_URL:-http://127.0.0.1:8000}}"
EXAMPLES="${SVC_FUZZ_EXAMPLES:-120}"
WORKERS="${SVC_FUZZ_WORKERS:-1}"
PHASES="${SVC_FUZZ_PHASES:-examples,coverage,fuzzing}"
# Rotating or revoking a key is fuzzed last, in a pass of its own: schemathesis reuses ids it saw
# in responses (GET /auth/api-keys lists the fuzzer's own key), so POST /admin/keys/rotate and
# DELETE /auth/api-keys/{key_id} revoke the fuzzer's key (correct behaviour), and every later
# request would be a 401 that tests nothing. The stateful phase is off for the same reason.
DESTRUCTIVE=(rotateApiKey revokeApiKey)
: "${SVC_API_KEY:?set SVC_API_KEY to an enterprise API key of the stack under test}"

# Checked by importing the package (the venv's console scripts carry the absolute path of the
# folder the venv was created in, so they break when .tools/ is shared or moved).
if ! "$PY" -c 'import schemathesis' 2>/dev/null; then
  echo "[fuzz] installing schemathesis $SCHEMATHESIS_VERSION into $VENV" >&2
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
fi

OUT="${SVC_FUZZ_REPORT_DIR:-}"
if [[ -z "$OUT" ]]; then
  OUT="$(mktemp -d)"
  trap 'rm -rf "$OUT"' EXIT
fi
mkdir -p "$OUT"
curl -fsS "$BASE/openapi.json" -o "$OUT/openapi.json"

headers=(--header "X-API-Key: $SVC_API_KEY")
if [[ -n "${SVC_BEARER_TOKEN:-}" ]]; then headers+=(--header "Authorization: Bearer $SVC_BEARER_TOKEN"); fi
seed=()
if [[ -n "${SVC_FUZZ_SEED:-}" ]]; then seed=(--seed "$SVC_FUZZ_SEED"); fi

run_pass() { # <name> <schemathesis filter options…>
  local name="$1"
  shift
  # Only the two checks the contract promises: no server error, and every response matches the
  # schema its status declares. Status codes the document does not list are counted below.
  (cd "$OUT" && "$PY" -m schemathesis.cli --config-file "$ROOT/bench/fuzz-schemathesis.toml" run "$OUT/openapi.json" \
    --url "$BASE" \
    "${headers[@]}" \
    --checks not_a_server_error,response_schema_conformance \
    --phases "$PHASES" \
    --max-examples "$EXAMPLES" \
    --workers "$WORKERS" \
    --request-timeout 60 \
    "${seed[@]}" "$@" \
    --report har,json --report-har-path "$OUT/$name.har" --report-json-path "$OUT/$name.json" \
    --no-color)
}

start=$(date +%s)
set +e
exclude=()
include=()
for op in "${DESTRUCTIVE[@]}"; do exclude+=(--exclude-operation-id "$op"); include+=(--include-operation-id "$op"); done
run_pass main "${exclude[@]}"
rc=$?
run_pass keys "${include[@]}"
rc_keys=$?
set -e
echo "[fuzz] duration: $(($(date +%s) - start)) s (schemathesis exit $rc, key pass $rc_keys)"
[[ $rc_keys -ne 0 ]] && rc=$rc_keys

# Every recorded response re-checked against the document: requests, statuses, 5xx, violations, per operation.
summary=0
"$PY" "$ROOT/bench/fuzz_summary.py" "$OUT/openapi.json" "$OUT/main.har" "$OUT/keys.har" "$OUT/main.json" "$OUT/keys.json" || summary=$?
if [[ $rc -ne 0 || $summary -ne 0 ]]; then
  echo "[fuzz] FAILED: see the failures above"
  exit 1
fi
echo "[fuzz] passed: 0 server errors, 0 schema violations"
