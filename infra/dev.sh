#!/usr/bin/env bash
# One command brings up the whole service on a fresh machine: installs what it needs
# (node modules, temporal CLI, FerretDB, the Docker sandbox), then starts Temporal, the
# store, the worker and the API, prints their URLs, and stops them all on Ctrl-C.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
# The Docker sandbox of /verify/stats and the consensus Python engine (docs/sandbox.md). Without
# it the service still starts, and those endpoints fail closed (503 sandbox unavailable). It
# needs nothing from the installs, so the two run side by side.
bash infra/sandbox/setup.sh >/dev/null &
sandbox_pid=$!
bash infra/install-tools.sh all
if ! wait "$sandbox_pid"; then
  echo "" >&2
  echo "[dev] WARNING: the Docker sandbox could not be set up (see the message above)." >&2
  echo "[dev] WARNING: /verify/stats and /verify/consensus (high, maximum) will answer 503 'sandbox unavailable'." >&2
  echo "" >&2
fi
exec node --import tsx infra/stack.ts up
