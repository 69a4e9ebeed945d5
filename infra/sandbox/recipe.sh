#!/usr/bin/env bash
# The sandbox image recipe. Everything that decides the image's content lives in this file
# and in packages.txt; their content hash is the image tag (see setup.sh and
# activities/sandbox/runner.ts), so editing either one yields a new tag and a rebuild.
#
#   recipe.sh rootfs <debian-mirror> <out.tar> [deb-cache-dir]   build the root filesystem tarball
#   recipe.sh import <rootfs.tar> <tag> <recipe-hash>            docker import it as <tag>
#
# Runs as root on Debian 12. No image is ever pulled: the rootfs comes from Debian packages.
set -euo pipefail

HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
SUITE=bookworm
KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
# The unprivileged user the sandboxed code runs as (runner.ts uses the same ids).
SANDBOX_UID=10001
SANDBOX_GID=10001

log() { echo "sandbox recipe: $*" >&2; }

# Unmount anything debootstrap left mounted under $1 (proc, sys, a bind-mounted /dev),
# deepest first, so that deleting the build directory can never reach the host.
unmount_below() {
  local root="$1" mnt
  [ -d "$root" ] || return 0
  root="$(cd "$root" && pwd -P)"
  awk -v r="$root" '$2 == r || index($2, r "/") == 1 { print $2 }' /proc/mounts | sort -r |
    while read -r mnt; do umount -l "$mnt" 2>/dev/null || true; done
}

BUILD_WORK=""
cleanup_build() {
  if [ -n "$BUILD_WORK" ]; then
    unmount_below "$BUILD_WORK"
    rm -rf --one-file-system "$BUILD_WORK"
    BUILD_WORK=""
  fi
}

# packages.txt without comments and blank lines.
package_lines() { sed -e 's/#.*//' -e 's/[[:space:]]//g' "$HERE/packages.txt" | grep -v '^$' || true; }
# The packages to install, joined with commas for --include.
package_list() { package_lines | grep -v '^-' | paste -sd, -; }
# The packages to purge after the bootstrap, one per line.
purge_list() { package_lines | grep '^-' | cut -c2- || true; }

build_rootfs() {
  local mirror="$1" out="$2" cache="${3:-}"
  local parent work rootfs
  parent="$(dirname "$out")"
  mkdir -p "$parent"
  work="$(mktemp -d "$parent/build.XXXXXX")"
  rootfs="$work/rootfs"
  BUILD_WORK="$work"
  trap cleanup_build EXIT

  local args=(--variant=minbase "--include=$(package_list)" --keyring="$KEYRING")
  if [ -n "$cache" ]; then
    mkdir -p "$cache"
    args+=("--cache-dir=$(cd "$cache" && pwd -P)")
  fi
  log "debootstrap ${args[*]} $SUITE $rootfs $mirror"
  if ! debootstrap "${args[@]}" "$SUITE" "$rootfs" "$mirror" >"$work/debootstrap.log" 2>&1; then
    tail -n 30 "$work/debootstrap.log" >&2
    [ -f "$rootfs/debootstrap/debootstrap.log" ] && tail -n 30 "$rootfs/debootstrap/debootstrap.log" >&2
    log "debootstrap failed"
    return 1
  fi
  unmount_below "$rootfs"

  local purge
  purge="$(purge_list | tr '\n' ' ')"
  if [ -n "$purge" ]; then
    log "purging build-only packages: $purge"
    # shellcheck disable=SC2086 # one word per package
    DEBIAN_FRONTEND=noninteractive chroot "$rootfs" dpkg --purge --force-depends $purge >"$work/purge.log" 2>&1 ||
      { tail -n 30 "$work/purge.log" >&2; log "dpkg --purge failed"; return 1; }
  fi
  # What must still work after the purge: every shared object of the Python packages links,
  # and the scientific stack imports.
  local missing
  missing="$(chroot "$rootfs" sh -c 'find /usr/lib/python3/dist-packages /usr/lib/python3.11 -name "*.so" -exec ldd {} + 2>&1' | grep 'not found' || true)"
  if [ -n "$missing" ]; then
    echo "$missing" | sort -u | head -n 20 >&2
    log "shared libraries missing after the purge"
    return 1
  fi
  chroot "$rootfs" /usr/bin/python3 -I -c \
    'import numpy, pandas, scipy, scipy.stats, scipy.optimize, scipy.linalg, scipy.special, scipy.integrate, scipy.interpolate, scipy.signal, scipy.sparse' ||
    { log "the scientific stack does not import"; return 1; }

  # Non-root user of the sandbox; its home exists (owned by it) so that a write there proves
  # the read-only root filesystem, not a permission bit, is what refuses it.
  echo "sandbox:x:$SANDBOX_UID:$SANDBOX_GID:sandbox:/home/sandbox:/usr/sbin/nologin" >>"$rootfs/etc/passwd"
  echo "sandbox:x:$SANDBOX_GID:" >>"$rootfs/etc/group"
  echo "sandbox:!:19000:0:99999:7:::" >>"$rootfs/etc/shadow"
  mkdir -p "$rootfs/home/sandbox"
  chown "$SANDBOX_UID:$SANDBOX_GID" "$rootfs/home/sandbox"
  chmod 0755 "$rootfs/home/sandbox"

  # Shrink: package caches and indexes, docs, man pages, locales, logs, the test suites of
  # the scientific packages (never imported at run time).
  rm -rf "$rootfs"/var/cache/apt/* "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/debconf/*-old \
    "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* \
    "$rootfs"/usr/share/lintian "$rootfs"/usr/share/linda "$rootfs"/var/log/* \
    "$rootfs"/tmp/* "$rootfs"/var/tmp/* "$rootfs"/debootstrap
  find "$rootfs/usr/share/locale" -mindepth 1 -maxdepth 1 ! -name 'locale.alias' -exec rm -rf {} + 2>/dev/null || true
  local pkg
  for pkg in pandas numpy scipy; do
    [ -d "$rootfs/usr/lib/python3/dist-packages/$pkg" ] &&
      find "$rootfs/usr/lib/python3/dist-packages/$pkg" -depth -type d -name tests -exec rm -rf {} +
  done
  # Defence in depth beside no-new-privileges: no setuid/setgid program in the image at all.
  find "$rootfs" -xdev -type f -perm /6000 -exec chmod ug-s {} +
  # A fresh machine id per container is not needed; an empty file keeps tools quiet.
  : >"$rootfs/etc/machine-id"

  log "writing $out"
  tar --numeric-owner -C "$rootfs" -cf "$out" .
  cleanup_build
  trap - EXIT
}

import_rootfs() {
  local tar="$1" tag="$2" hash="$3"
  log "docker import $tar as $tag"
  docker import \
    --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
    --change 'ENV LANG=C.UTF-8' \
    --change "USER $SANDBOX_UID:$SANDBOX_GID" \
    --change 'WORKDIR /tmp' \
    --change 'CMD ["/usr/bin/python3"]' \
    --change "LABEL svc.sandbox.recipe=$hash" \
    - "$tag" <"$tar" >/dev/null
}

case "${1:-}" in
  rootfs) shift; build_rootfs "$@" ;;
  import) shift; import_rootfs "$@" ;;
  *) echo "usage: $0 rootfs <mirror> <out.tar> [deb-cache-dir] | import <rootfs.tar> <tag> <hash>" >&2; exit 2 ;;
esac
