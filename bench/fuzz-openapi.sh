#!/usr/bin/env bash
# Fuzzes the running stack from its own /openapi.json with schemathesis (PyPI, pinned, installed
# into the git-ignored .tools/ folder on first use). Passes only with 0 responses of 500 and 0
# responses that violate the schema declared for their status. See docs/openapi.md.
#
#   SVC_API_KEY=svc_live_… bench/fuzz-openapi.sh [base-url]      (default http://127.0.0.1:8000)
#   SVC_FUZZ_EXAMPLES=…  examples per operation (default 120: ≥ 5,000 requests over 53 operations)
#   SVC_FUZZ_WORKERS=…   concurrent workers (default 2)
# Use an enterprise key (no plan rate limit) on a dev or test stack, never on production data.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SCHEMATHESIS_VERSION="4.32.5"
VENV="$ROOT/.tools/venv-schemathesis-$SCHEMATHESIS_VERSION"
BASE="${1:-${SVC_BASE_URL:-http://127.0.0.1:8000}}"
EXAMPLES="${SVC_FUZZ_EXAMPLES:-120}"
WORKERS="${SVC_FUZZ_WORKERS:-2}"
: "${SVC_API_KEY:?set SVC_API_KEY to an enterprise API key of the stack under test}"

if [[ ! -x "$VENV/bin/schemathesis" ]]; then
  echo "[fuzz] installing schemathesis $SCHEMATHESIS_VERSION into $VENV" >&2
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION"
fi

OUT="$(mktemp -d)"
trap 'rm -rf "$OUT"' EXIT
set +e
# Only the two checks the contract promises: no 500, and every response matches the schema its
# status declares. Status codes the document does not list are reported by the summary below.
"$VENV/bin/schemathesis" run "$BASE/openapi.json" \
  --url "$BASE" \
  --header "X-API-Key: $SVC_API_KEY" \
  --checks not_a_server_error,response_schema_conformance \
  --max-examples "$EXAMPLES" \
  --workers "$WORKERS" \
  --request-timeout 60 \
  --report har --report-dir "$OUT" \
  --no-color
rc=$?
set -e

python3 - "$OUT" <<'PY'
import json, pathlib, sys, collections
entries = []
for f in pathlib.Path(sys.argv[1]).glob('*.har'):
    entries += json.loads(f.read_text())['log']['entries']
status = collections.Counter(e['response']['status'] for e in entries)
print(f"[fuzz] requests: {len(entries)}")
print("[fuzz] by status: " + ", ".join(f"{k}: {v}" for k, v in sorted(status.items())))
print(f"[fuzz] responses of 500: {status.get(500, 0)}")
PY
if [[ $rc -eq 0 ]]; then echo "[fuzz] schema violations: 0 (schemathesis passed)"; else echo "[fuzz] schemathesis reported failures (exit $rc): see its output above"; fi
exit $rc
