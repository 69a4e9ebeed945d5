#!/usr/bin/env bash
# Regenerates test/fixtures/math/identities.json with SymPy (pinned, installed into .tools/) as
# the oracle, then prints the engine's completeness and soundness on it.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
SYMPY_VERSION="1.14.0"
VENV="$ROOT/.tools/venv-sympy-$SYMPY_VERSION"
if [[ ! -x "$VENV/bin/python" ]] || ! "$VENV/bin/python" -c "import sympy" 2>/dev/null; then
  python3 -m venv "$VENV"
  "$VENV/bin/pip" install --quiet --disable-pip-version-check "sympy==$SYMPY_VERSION"
fi
cd "$ROOT"
"$VENV/bin/python" bench/math_identities_oracle.py test/fixtures/math/identities.json "${1:-20261123}"
npx tsx bench/math-identities.ts test/fixtures/math/identities.json
