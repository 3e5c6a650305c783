#!/usr/bin/env bash
# Disk full on the embedded database, for real (README, Faults and outages). Needs root (mounts a tmpfs)
# and a build (`npm run build`). Boots the API with DATA_DIR on a small tmpfs, fills the file system,
# and checks: writes answer 507 STORAGE_FULL (never 500), /health says degraded, reads still answer;
# after space is freed, writes succeed again.
set -euo pipefail
SIZE_MB=${DISK_FULL_TMPFS_MB:-160}
PORT=${DISK_FULL_PORT:-3927}
MNT=$(mktemp -d)
LOG=$(mktemp)
mount -t tmpfs -o size="${SIZE_MB}m" arbiter-disk-full "$MNT"
trap 'kill -9 "${PID:-0}" 2>/dev/null || true; sleep 0.5; umount "$MNT" 2>/dev/null || umount -l "$MNT"; rm -rf "$MNT" "$LOG" "${BODY:-}"' EXIT
DATA_DIR="$MNT/data" PORT="$PORT" HOST=127.0.0.1 LOG_LEVEL=warn node dist/apps/api/src/main.js >>"$LOG" 2>&1 &
PID=$!
for _ in $(seq 1 120); do curl -sf "http://127.0.0.1:$PORT/health" >/dev/null 2>&1 && break; sleep 0.5; done
curl -sf "http://127.0.0.1:$PORT/health" >/dev/null || { cat "$LOG"; echo "disk-full: API did not start"; exit 1; }
KEY=$(node -e "console.log(require('$MNT/data/demo-credentials.json').apiKeys.client)")
OP=$(node -e "console.log(require('$MNT/data/demo-credentials.json').apiKeys.operator)")
echo "disk-full: booted; $(df -h "$MNT" | tail -1)"
# Fill what is left, in one file we can delete later.
dd if=/dev/zero of="$MNT/filler" bs=1M status=none 2>/dev/null || true
echo "disk-full: filled; $(df -h "$MNT" | tail -1)"
declare -A seen=()
BODY=$(mktemp)
for i in $(seq 1 40); do
  node -e "console.log(JSON.stringify({domain:'fill',filePath:'fill/$i.md',title:'filler $i',content:'填充 第$i段 '.repeat(40000)}))" >"$BODY"
  code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$PORT/admin/knowledge/documents" -H "X-Api-Key: $OP" -H 'content-type: application/json' --data-binary @"$BODY")
  seen[$code]=$(( ${seen[$code]:-0} + 1 ))
  [ "$code" = 507 ] && break
done
for code in "${!seen[@]}"; do echo "disk-full: knowledge upserts answered $code × ${seen[$code]}"; done
[ -z "${seen[500]:-}" ] || { tail -50 "$LOG"; echo "disk-full: FAIL — a write answered 500"; exit 1; }
[ -n "${seen[507]:-}" ] || { echo "disk-full: FAIL — no 507 after 40 large writes"; exit 1; }
curl -s -X POST "http://127.0.0.1:$PORT/api/sessions" -H "X-Api-Key: $KEY" -H 'content-type: application/json' -d '{"query":"q","answer":"a","status":"SUCCESS"}' -o /dev/null -w 'disk-full: a session ingest answered %{http_code}\n'
health=$(curl -s "http://127.0.0.1:$PORT/health"); echo "disk-full: /health → $health"
echo "$health" | grep -q '"status":"degraded"' || { echo "disk-full: FAIL — /health not degraded"; exit 1; }
rm -f "$MNT/filler"
code=$(curl -s -o /dev/null -w '%{http_code}' -X POST "http://127.0.0.1:$PORT/api/sessions" -H "X-Api-Key: $KEY" -H 'content-type: application/json' -d '{"query":"after","answer":"a","status":"SUCCESS"}')
echo "disk-full: after freeing space, a session ingest answered $code"
[ "$code" = 201 ] || { tail -50 "$LOG"; echo "disk-full: FAIL — writes did not recover"; exit 1; }
echo "disk-full: ok"
