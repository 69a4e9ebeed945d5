#!/usr/bin/env bash
# Third-party labelled code corpus for the code scanner, installed at bench time, never committed.
# Installs the pinned packages named in test/fixtures/code/third-party/manifest.json into the
# git-ignored .tools/corpora/code/<package>/ with their registries' ordinary clients, then runs
# bench/code-corpus.ts (precision / recall per language, files blocked, own corpus check).
#   bash bench/code-corpus.sh [--install-only]
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
OUT="$ROOT/.tools/corpora/code"
DL="$ROOT/.tools/corpora/dl"
PY="${PYTHON:-python3}"
BANDIT_VERSION=1.9.4
ESLINT_PLUGIN_SECURITY_VERSION=4.1.0
STRYKER_CORE_VERSION=10.1.1
AJV_VERSION=8.20.0
ZOD_VERSION=4.6.7
RUBOCOP_DEB_VERSION=1.39.0+dfsg-1
FINDSECBUGS_VERSION=1.14.0
GOLANG_SRC_DEB=golang-1.19-src=1.19.8-2
BASH_COMPLETION_DEB=bash-completion=1:2.11-6
PYTHON_STDLIB_DEB=libpython3.11-stdlib=3.11.2-6+deb12u9
PHP_CODESNIFFER_DEB=php-codesniffer=3.7.1-2
mkdir -p "$OUT" "$DL"

# PyPI sdist (Apache-2.0): examples/*.py
if [ ! -d "$OUT/bandit/bandit-$BANDIT_VERSION" ]; then
  [ -f "$DL/bandit-$BANDIT_VERSION.tar.gz" ] || "$PY" -m pip download --quiet --no-deps --no-binary :all: "bandit==$BANDIT_VERSION" -d "$DL"
  mkdir -p "$OUT/bandit" && tar xzf "$DL/bandit-$BANDIT_VERSION.tar.gz" -C "$OUT/bandit"
fi

# npm tarballs, fetched with npm pack (the machine's npm configuration names the registry).
npm_extract() { # <name> <version> <dir>
  [ -d "$OUT/$3/package" ] && return 0
  local tgz
  tgz="$DL/$(printf '%s' "${1#@}" | tr / -)-$2.tgz"
  [ -f "$tgz" ] || (cd "$DL" && npm pack --silent "$1@$2" >/dev/null)
  mkdir -p "$OUT/$3" && tar xzf "$tgz" -C "$OUT/$3"
}
# eslint-plugin-security (Apache-2.0): test/rules/*.js
npm_extract eslint-plugin-security "$ESLINT_PLUGIN_SECURITY_VERSION" eslint-plugin-security
# TypeScript sources shipped in the tarball: @stryker-mutator/core (Apache-2.0) src/**.ts starts
# processes (child_process, execa through dependency injection); ajv (MIT) lib/**.ts and zod
# (MIT) src/v4/core/*.ts compile generated code with the Function constructor.
npm_extract @stryker-mutator/core "$STRYKER_CORE_VERSION" stryker-core
npm_extract ajv "$AJV_VERSION" ajv
npm_extract zod "$ZOD_VERSION" zod

# Debian binary packages: the Go 1.19 standard library and tools (BSD-3-Clause), Python 3.11's
# standard library (PSF-2.0) and PHP_CodeSniffer (BSD-3-Clause), real code that starts
# processes; bash-completion (GPL-2+), real shell code that evaluates computed text.
debian_extract() { # <package=version> <dir>
  local name="${1%%=*}" version="${1#*=}"
  [ -d "$OUT/$2/usr" ] && return 0
  local deb
  deb=$(ls "$DL/${name}_"*"${version#*:}"_*.deb 2>/dev/null | head -1 || true)
  if [ -z "$deb" ]; then
    (cd "$DL" && apt-get download "$1" 2>/dev/null) || true
    deb=$(ls "$DL/${name}_"*"${version#*:}"_*.deb 2>/dev/null | head -1 || true)
  fi
  if [ -n "$deb" ]; then
    mkdir -p "$OUT/$2" && dpkg-deb -x "$deb" "$OUT/$2"
  else
    echo "$1: apt-get download failed (run apt-get update first?); skipped" >&2
  fi
}
debian_extract "$GOLANG_SRC_DEB" golang-src
debian_extract "$BASH_COMPLETION_DEB" bash-completion
debian_extract "$PYTHON_STDLIB_DEB" python-stdlib
debian_extract "$PHP_CODESNIFFER_DEB" php-codesniffer

# Debian binary package (MIT/Expat): the @example comments of lib/rubocop/cop/**.rb
if [ ! -d "$OUT/rubocop/usr" ]; then
  DEB="$DL/rubocop_${RUBOCOP_DEB_VERSION}_all.deb"
  if [ ! -f "$DEB" ]; then
    (cd "$DL" && apt-get download "rubocop=$RUBOCOP_DEB_VERSION" 2>/dev/null) || {
      echo "rubocop $RUBOCOP_DEB_VERSION: apt-get download failed (run apt-get update first?); ruby part skipped" >&2
    }
  fi
  [ -f "$DEB" ] && dpkg-deb -x "$DEB" "$OUT/rubocop"
fi

# Maven Central jar (LGPL-3.0): messages.xml, whose bug descriptions carry Java code examples
if [ ! -f "$OUT/findsecbugs/messages.xml" ]; then
  M2="$ROOT/.tools/corpora/m2"
  JAR="$M2/com/h3xstream/findsecbugs/findsecbugs-plugin/$FINDSECBUGS_VERSION/findsecbugs-plugin-$FINDSECBUGS_VERSION.jar"
  [ -f "$JAR" ] || mvn -q -Dmaven.repo.local="$M2" dependency:get -Dtransitive=false \
    -Dartifact="com.h3xstream.findsecbugs:findsecbugs-plugin:$FINDSECBUGS_VERSION" >/dev/null || true
  if [ -f "$JAR" ]; then
    mkdir -p "$OUT/findsecbugs" && unzip -o -q "$JAR" messages.xml -d "$OUT/findsecbugs"
  else
    echo "findsecbugs-plugin $FINDSECBUGS_VERSION: download failed; java part skipped" >&2
  fi
fi

[ "${1:-}" = "--install-only" ] && exit 0
cd "$ROOT" && exec npx tsx bench/code-corpus.ts
