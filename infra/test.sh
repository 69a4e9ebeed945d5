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
# The static checks run beside vitest (the type check needs one core for ~30 s while the stack
# starts; the linter, type-aware, about as long; the format check a few seconds, after the lint);
# a failed check still fails the run, after the tests.
echo "[test] type-checking, linting and checking the format (beside vitest; output in .data/tsc.log, .data/lint.log)"
npx tsc --noEmit -p tsconfig.json > .data/tsc.log 2>&1 &
tsc_pid=$!
( status=0
  npx eslint . > .data/lint.log 2>&1 || status=1
  npx prettier --check . > .data/format.log 2>&1 || status=$((status | 2))
  exit $status ) &
lint_pid=$!
echo "[test] running vitest"
set +e
npx vitest run --reporter=default --reporter=json --outputFile.json=.data/vitest-report.json "$@"
status=$?
if ! wait "$tsc_pid"; then
  cat .data/tsc.log
  echo "[test] ERROR: the type check failed (npx tsc --noEmit -p tsconfig.json)" >&2
  status=1
fi
wait "$lint_pid"
lint_status=$?
if (( lint_status & 1 )); then
  cat .data/lint.log
  echo "[test] ERROR: the linter failed (npm run lint)" >&2
  status=1
fi
if (( lint_status & 2 )); then
  grep -v '^Checking formatting' .data/format.log
  echo "[test] ERROR: files are not formatted (npm run format:check; npm run format writes them)" >&2
  status=1
fi
set -e
# A plain closing line that any CI reader understands.
node -e '
  const r = JSON.parse(require("fs").readFileSync(".data/vitest-report.json", "utf8"));
  console.log(`${r.numPassedTests} passed, ${r.numFailedTests} failed`);
' || true
exit $status
