#!/usr/bin/env bash
# One command runs the whole test suite on a fresh machine: installs everything the suite
# uses, type-checks, then runs vitest (whose global setup starts a private stack on test
# ports: Temporal, FerretDB, worker and API, and stops it afterwards).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash infra/install-tools.sh all
echo "[test] type-checking"
npx tsc --noEmit -p tsconfig.json
echo "[test] running vitest"
exec npx vitest run "$@"
