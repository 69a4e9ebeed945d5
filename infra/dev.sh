#!/usr/bin/env bash
# One command brings up the whole service on a fresh machine: installs what it needs
# (node modules, temporal CLI, FerretDB, the Docker sandbox), then starts Temporal, the
# store, the worker and the API, prints their URLs, and stops them all on Ctrl-C.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
bash infra/install-tools.sh all
exec node --import tsx infra/stack.ts up
