#!/usr/bin/env bash
# Starts the built API on a fresh embedded database, ingests a session, kills the process with -9,
# starts it again on the same DATA_DIR and reads the session back.
set -euo pipefail
DATA_DIR=$(mktemp -d)
PORT=${SMOKE_PORT:-3917}
LOG=$(mktemp)
trap 'kill -9 "${PID:-0}" 2>/dev/null || true; rm -rf "$DATA_DIR" "$LOG"' EXIT

start() {
  DATA_DIR="$DATA_DIR" PORT="$PORT" HOST=127.0.0.1 LOG_LEVEL=warn node dist/apps/api/src/main.js >>"$LOG" 2>&1 &
  PID=$!
  for _ in $(seq 1 120); do
    curl -sf "http://127.0.0.1:$PORT/health" >/dev/null 2>&1 && return 0
    kill -0 "$PID" 2>/dev/null || { cat "$LOG"; echo "smoke: API exited during boot"; exit 1; }
    sleep 0.5
  done
  cat "$LOG"; echo "smoke: API did not become healthy"; exit 1
}

start
grep -q "Swagger:  http://127.0.0.1:$PORT/docs" "$LOG" || { cat "$LOG"; echo "smoke: start-up banner missing"; exit 1; }
KEY=$(node -e "console.log(require('$DATA_DIR/demo-credentials.json').apiKeys.client)")
SESSION=$(curl -sf -X POST "http://127.0.0.1:$PORT/api/sessions" -H "X-Api-Key: $KEY" -H 'content-type: application/json' \
  -d '{"query":"kill -9 survivor?","status":"SUCCESS","answer":"yes"}' | node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.parse(s).id))")
kill -9 "$PID"; wait "$PID" 2>/dev/null || true
start
curl -sf "http://127.0.0.1:$PORT/api/sessions/$SESSION" -H "X-Api-Key: $KEY" | grep -q 'kill -9 survivor?'
curl -sf "http://127.0.0.1:$PORT/docs-json" | grep -q '"/api/sessions"'
# The operator console is built by `npm run build` and served by the same process.
curl -sf "http://127.0.0.1:$PORT/console/" | grep -q '<div id="root">' || { echo "smoke: /console/ does not serve the console"; exit 1; }
grep -q "Console:  http://127.0.0.1:$PORT/console/" "$LOG" || { cat "$LOG"; echo "smoke: console line missing from the banner"; exit 1; }
kill -TERM "$PID"; wait "$PID" 2>/dev/null || true
echo "smoke: embedded boot, kill -9 and restart kept the session"
