#!/usr/bin/env bash
# Makes the code-execution sandbox ready: Docker installed and running, and the sandbox image
# svc-sandbox:<recipe hash> present locally. Idempotent and cheap when everything is already
# there, so it is safe to run on every start and in CI (as root, on Debian 12).
#
# stdout: the image tag and nothing else (logs go to stderr); the tag is also written to
# .data/sandbox-image. Exit status non-zero, with a message, when Docker cannot be installed
# or started or the image cannot be built: the service then fails closed (sandbox unavailable).
#
# Environment:
#   SVC_SANDBOX_MIRROR   Debian mirror for debootstrap (default: the one apt is configured with)
#   SVC_DOCKERD_WAIT     seconds to wait for a dockerd started here to answer (default 60)
#   DOCKER_HOST          a remote/other daemon to use; then no local dockerd is started
#   SVC_DOCKERD_PIDFILE  where a running dockerd's pid is found (default /var/run/docker.pid; tests)
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
REPO="$(cd "$HERE/../.." && pwd)"
DATA_DIR="$REPO/.data"
TOOLS_DIR="$REPO/.tools/sandbox"
DEFAULT_SOCKET=/var/run/docker.sock
DOCKERD_WAIT="${SVC_DOCKERD_WAIT:-60}"
DOCKERD_PIDFILE="${SVC_DOCKERD_PIDFILE:-/var/run/docker.pid}"

log() { echo "sandbox setup: $*" >&2; }
die() { echo "sandbox setup: ERROR: $*" >&2; exit 1; }

mkdir -p "$DATA_DIR" "$TOOLS_DIR"

# One setup at a time (the service start, a test run and CI may race on this machine).
exec 9>"$DATA_DIR/sandbox-setup.lock"
flock -w 1800 9 || die "timed out waiting for another sandbox setup to finish"

APT_UPDATED=0
apt_install() {
  [ "$(id -u)" -eq 0 ] || die "need root to install $* (apt-get)"
  command -v apt-get >/dev/null || die "apt-get not found: cannot install $*"
  if [ "$APT_UPDATED" -eq 0 ]; then
    log "apt-get update"
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 update -qq >&2 || die "apt-get update failed"
    APT_UPDATED=1
  fi
  log "apt-get install $*"
  DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "$@" >&2 ||
    die "apt-get install $* failed"
}

daemon_answers() { timeout 10 docker info >/dev/null 2>&1; }

local_daemon_wanted() {
  [ -z "${DOCKER_HOST:-}" ] || [ "${DOCKER_HOST}" = "unix://$DEFAULT_SOCKET" ]
}

dockerd_pid() {
  local pid
  pid="$(cat "$DOCKERD_PIDFILE" 2>/dev/null || true)"
  # A pid file left by a dockerd that died names a pid the system may have given to another
  # process since: only a live process whose name is dockerd counts.
  if [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null && [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = dockerd ]; then
    echo "$pid"
  fi
}

# Starts dockerd in the background and sets STARTED_PID. Called directly, never in `$(...)`: the
# dockerd stays this shell's child, so this shell reaps it if it exits and `kill -0` fails at once
# (an orphan's zombie, under a container init that does not reap, kept its pid and name and the
# wait below ran to its end; session 22 review).
start_dockerd() {
  [ "$(id -u)" -eq 0 ] || die "dockerd is not running and only root can start it"
  log "starting dockerd (log: $DATA_DIR/dockerd.log)"
  # Own session, no terminal, detached from this script's pipes: it outlives the caller.
  setsid dockerd >>"$DATA_DIR/dockerd.log" 2>&1 </dev/null 9>&- &
  STARTED_PID=$!
}

ensure_docker() {
  if ! command -v docker >/dev/null; then apt_install docker.io; fi
  if daemon_answers; then return 0; fi
  local_daemon_wanted || die "Docker at DOCKER_HOST=$DOCKER_HOST does not answer"
  if ! command -v dockerd >/dev/null; then apt_install docker.io; fi
  command -v dockerd >/dev/null || die "dockerd not found after installing docker.io"

  local pid ours=0 waited=0
  pid="$(dockerd_pid)"
  if [ -z "$pid" ]; then
    start_dockerd
    pid=$STARTED_PID
    ours=1
  else
    log "dockerd (pid $pid) is running; waiting for it to answer"
  fi
  until daemon_answers; do
    if ! kill -0 "$pid" 2>/dev/null && [ -z "$(dockerd_pid)" ]; then
      # A dockerd started by someone else (a service manager, an earlier setup) that exits while
      # we wait (clean clone 66) is replaced by one of our own, once; our own exiting is the end.
      if [ "$ours" -eq 0 ]; then
        log "the dockerd it waited on (pid $pid) exited before answering; starting its own"
        start_dockerd
        pid=$STARTED_PID
        ours=1
        waited=0
        continue
      fi
      tail -n 20 "$DATA_DIR/dockerd.log" >&2 || true
      die "dockerd exited during start-up (see $DATA_DIR/dockerd.log)"
    fi
    [ "$waited" -lt "$DOCKERD_WAIT" ] || die "dockerd did not answer within ${DOCKERD_WAIT}s (see $DATA_DIR/dockerd.log)"
    sleep 1
    waited=$((waited + 1))
  done
  log "dockerd answers"
}

# The Debian mirror apt uses for bookworm: deb822 .sources first, then one-line .list files.
find_mirror() {
  if [ -n "${SVC_SANDBOX_MIRROR:-}" ]; then echo "$SVC_SANDBOX_MIRROR"; return; fi
  local f uri
  for f in /etc/apt/sources.list.d/*.sources /etc/apt/sources.list; do
    [ -f "$f" ] || continue
    uri="$(awk '
      function flush() {
        if (types ~ /(^|[ \t])deb([ \t]|$)/ && suites ~ /(^|[ \t])bookworm([ \t]|$)/ && enabled !~ /^[ \t]*no/ && uris != "") {
          n = split(uris, u, /[ \t]+/); for (i = 1; i <= n; i++) if (u[i] ~ /^https?:\/\//) { print u[i]; found = 1; exit }
        }
        types = ""; suites = ""; uris = ""; enabled = ""
      }
      /^[ \t]*#/ { next }
      /^[ \t]*$/ { flush(); next }
      tolower($1) == "types:" { sub(/^[^:]*:[ \t]*/, ""); types = $0; next }
      tolower($1) == "uris:" { sub(/^[^:]*:[ \t]*/, ""); uris = $0; next }
      tolower($1) == "suites:" { sub(/^[^:]*:[ \t]*/, ""); suites = $0; next }
      tolower($1) == "enabled:" { sub(/^[^:]*:[ \t]*/, ""); enabled = $0; next }
      END { if (!found) flush() }
    ' "$f")"
    if [ -n "$uri" ]; then echo "$uri"; return; fi
  done
  for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
    [ -f "$f" ] || continue
    uri="$(awk '$1 == "deb" {
        i = 2; if ($i ~ /^\[/) { while ($i !~ /\]$/ && i < NF) i++; i++ }
        if ($(i) ~ /^https?:\/\// && $(i + 1) == "bookworm") { print $(i); exit }
      }' "$f")"
    if [ -n "$uri" ]; then echo "$uri"; return; fi
  done
  # No mirror is named in the project: apt's own configuration (or SVC_SANDBOX_MIRROR) decides.
  log "ERROR: no bookworm mirror found in apt sources; set SVC_SANDBOX_MIRROR to a Debian mirror"
  return 1
}

# Content hash of the recipe; activities/sandbox/runner.ts computes the very same value
# (sha256 over the `sha256sum` lines of the recipe files, in this order, first 16 hex digits).
recipe_hash() {
  (cd "$HERE" && sha256sum packages.txt recipe.sh) | sha256sum | cut -c1-16
}

ensure_docker
HASH="$(recipe_hash)"
TAG="svc-sandbox:$HASH"
TARBALL="$TOOLS_DIR/rootfs-$HASH.tar"

if docker image inspect "$TAG" >/dev/null 2>&1; then
  log "image $TAG present"
else
  started=$SECONDS
  if [ -s "$TARBALL" ]; then
    log "using cached rootfs $TARBALL"
  else
    command -v debootstrap >/dev/null || apt_install debootstrap
    MIRROR="$(find_mirror)" || die "no Debian mirror for debootstrap (apt sources name none for bookworm; set SVC_SANDBOX_MIRROR)"
    rm -f "$TARBALL.partial"
    bash "$HERE/recipe.sh" rootfs "$MIRROR" "$TARBALL.partial" "$TOOLS_DIR/debs" || die "building the sandbox rootfs failed"
    mv "$TARBALL.partial" "$TARBALL"
  fi
  bash "$HERE/recipe.sh" import "$TARBALL" "$TAG" "$HASH" || die "docker import of $TARBALL failed"
  log "built $TAG in $((SECONDS - started))s"
  # Older recipes' tarballs are dead weight; their images go too unless a container uses one.
  find "$TOOLS_DIR" -maxdepth 1 -name 'rootfs-*.tar' ! -name "rootfs-$HASH.tar" -delete
  docker image ls --format '{{.Repository}}:{{.Tag}}' svc-sandbox | grep -vx "$TAG" |
    xargs -r docker image rm >/dev/null 2>&1 || true
fi

# The image must actually run: a broken import must not be reported as ready.
docker run --rm --network none --read-only --user 10001:10001 "$TAG" \
  python3 -I -c 'import numpy, pandas, scipy' >&2 || die "image $TAG does not run its self-check"

echo "$TAG" >"$DATA_DIR/sandbox-image"
echo "$TAG"
