#!/usr/bin/env bash
# One command runs the whole test suite on a fresh machine: installs everything the suite
# uses, type-checks, then runs vitest (whose global setup starts a private stack on test
# ports: Temporal, FerretDB, worker and API, and stops it afterwards).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
mkdir -p .data
# The sandbox must work here: the suite exercises /verify/stats and consensus in Docker, so a
# failed setup fails the run instead of skipping those tests. It needs nothing from the
# installs below, so the two run side by side.
echo "[test] setting up the Docker sandbox (beside the installs)"
bash infra/sandbox/setup.sh >/dev/null &
sandbox_pid=$!
bash infra/install-tools.sh all
if ! wait "$sandbox_pid"; then
  echo "[test] ERROR: the Docker sandbox could not be set up (infra/sandbox/setup.sh); the sandboxed endpoints cannot be tested." >&2
  exit 1
fi
# The type check runs beside vitest (it needs one core for ~30 s while the stack starts); a
# type error still fails the run, after the tests.
echo "[test] type-checking (beside vitest; output in .data/tsc.log)"
npx tsc --noEmit -p tsconfig.json > .data/tsc.log 2>&1 &
tsc_pid=$!
echo "[test] running vitest"
set +e
npx vitest run --reporter=default --reporter=json --outputFile.json=.data/vitest-report.json "$@"
status=$?
if ! wait "$tsc_pid"; then
  cat .data/tsc.log
  echo "[test] ERROR: the type check failed (npx tsc --noEmit -p tsconfig.json)" >&2
  status=1
fi
set -e
# A plain closing line that any CI reader understands.
node -e '
  const r = JSON.parse(require("fs").readFileSync(".data/vitest-report.json", "utf8"));
  console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed`);
' || true
exit $status
