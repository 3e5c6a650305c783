#!/usr/bin/env bash
# Installs Citus into the local PostgreSQL 15 (Debian packages no Citus): builds the source tarball
# from CITUS_SOURCE (default ../shared/citus/citus-13.2.2.tar.gz next to the repository) in a
# temporary folder, since the source folder may be read-only. Idempotent: exits at once when the
# extension is already available. Also makes sure pgvector is installed (scripts/ci/install-pgvector.sh),
# which every node of the cluster needs. Runs as root. See docs/SCALING.md "Running on Citus".
set -euo pipefail

REPO=$(cd "$(dirname "$0")/../.." && pwd)
PG_MAJOR=${PG_MAJOR:-15}
PG_CONFIG=${PG_CONFIG:-/usr/lib/postgresql/$PG_MAJOR/bin/pg_config}
CITUS_SOURCE=${CITUS_SOURCE:-$REPO/../shared/citus/citus-13.2.2.tar.gz}

available() {
  # An extension is available when its control file and library are installed for this major version.
  [ -x "$PG_CONFIG" ] &&
    [ -f "$("$PG_CONFIG" --sharedir)/extension/$1.control" ] &&
    [ -f "$("$PG_CONFIG" --pkglibdir)/$1.so" ]
}

if ! available vector; then
  "$REPO/scripts/ci/install-pgvector.sh"
fi

if [ -z "${CITUS_FORCE:-}" ] && available citus; then
  echo "citus: already available"
  exit 0
fi

if [ ! -f "$CITUS_SOURCE" ]; then
  echo "citus: source not found: $CITUS_SOURCE (set CITUS_SOURCE)" >&2
  exit 1
fi
CITUS_SOURCE=$(cd "$(dirname "$CITUS_SOURCE")" && pwd)/$(basename "$CITUS_SOURCE")
echo "citus: building from $CITUS_SOURCE for PostgreSQL $PG_MAJOR"

export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "postgresql-server-dev-$PG_MAJOR" liblz4-dev libzstd-dev libcurl4-openssl-dev \
  libkrb5-dev make gcc >/dev/null

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
tar -xzf "$CITUS_SOURCE" -C "$WORK"
cd "$WORK"/citus-*/
./configure -q PG_CONFIG="$PG_CONFIG" >/dev/null
# No LLVM bitcode for JIT inlining (halves the build; like scripts/ci/install-pgvector.sh).
make -s -j2 with_llvm=no >/dev/null
make -s with_llvm=no install >/dev/null

available citus
echo "citus: installed"
