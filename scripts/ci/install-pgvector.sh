#!/usr/bin/env bash
# Installs pgvector into the local PostgreSQL (Debian bookworm ships no package): builds Debian's
# own trixie source package against the running major version. Idempotent: exits at once when the
# extension is already available.
set -euo pipefail

PGURL=${TEST_POSTGRES_URL:-postgres://postgres@127.0.0.1:5432/postgres}
if [ -z "${PGVECTOR_FORCE:-}" ] && psql "$PGURL" -Atc "SELECT 1 FROM pg_available_extensions WHERE name = 'vector'" 2>/dev/null | grep -q 1; then
  echo "pgvector: already available"
  exit 0
fi

PG_MAJOR=$(psql "$PGURL" -Atc "SHOW server_version_num" | cut -c1-2)
echo "pgvector: building for PostgreSQL $PG_MAJOR from Debian's source package"

SRC_LIST=/etc/apt/sources.list.d/arbiter-trixie-src.sources
if ! grep -rqsE "^Suites:.*\btrixie\b" /etc/apt/sources.list.d/ && ! grep -qsE "^deb-src .* trixie" /etc/apt/sources.list; then
  # Reuse the mirror and keyring of the configured Debian entries.
  MIRROR=$(grep -rhoE '^URIs: *\S+' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n1 | awk '{print $2}')
  [ -n "$MIRROR" ] || MIRROR=$(grep -hoE '^deb +\S+' /etc/apt/sources.list 2>/dev/null | head -n1 | awk '{print $2}')
  [ -n "$MIRROR" ] || MIRROR=http://deb.debian.org/debian
  KEYRING=$(grep -rhoE '^Signed-By: *\S+' /etc/apt/sources.list.d/*.sources 2>/dev/null | head -n1 | awk '{print $2}')
  [ -n "$KEYRING" ] || KEYRING=/usr/share/keyrings/debian-archive-keyring.gpg
  printf 'Types: deb-src\nURIs: %s\nSuites: trixie\nComponents: main\nSigned-By: %s\n' "$MIRROR" "$KEYRING" > "$SRC_LIST"
fi

export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq "postgresql-server-dev-$PG_MAJOR" dpkg-dev make gcc >/dev/null

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
cd "$WORK"
apt-get source -qq pgvector >/dev/null 2>&1 || apt-get source pgvector
cd pgvector-*/
make -s PG_CONFIG="/usr/lib/postgresql/$PG_MAJOR/bin/pg_config" with_llvm=no
make -s PG_CONFIG="/usr/lib/postgresql/$PG_MAJOR/bin/pg_config" with_llvm=no install

# The dev package may have upgraded the server's minor version: restart so the running server matches.
pg_ctlcluster --skip-systemctl-redirect "$PG_MAJOR" main restart 2>/dev/null || pg_ctlcluster "$PG_MAJOR" main restart
for _ in $(seq 1 30); do
  psql "$PGURL" -Atc 'SELECT 1' >/dev/null 2>&1 && break
  sleep 1
done
psql "$PGURL" -Atc "SELECT 1 FROM pg_available_extensions WHERE name = 'vector'" | grep -q 1
echo "pgvector: installed"
