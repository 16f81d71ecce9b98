#!/usr/bin/env bash
# RSS of each process of `fieldhouse serve --workers N`, idle (20 s after the first 200) and
# 10 s after a mixed record load: 8 connections x 60 contact creates (e-mail, phone, rich-text
# notes), with a list, a search or a filtered list after most of them. Shows what a worker
# costs, idle and in use, and what the embedding process keeps after a burst.
# usage: bash benchmarks/worker_rss.sh [CHECKOUT] [PORT] [WORKERS]   (run it from outside the
# checkout, e.g. /tmp, so the checkout's own code runs; needs its .venv: make install)
set -u
proj=$(cd "${1:-$(dirname "$0")/..}" && pwd); port=${2:-18470}; workers=${3:-2}
fh=$proj/.venv/bin/fieldhouse
d=$(mktemp -d /tmp/leanrss.XXXX)
key=$("$fh" init --data-dir "$d/data" | python3 -c 'import json,sys; print(json.load(sys.stdin)["apiKey"])')
"$fh" serve --data-dir "$d/data" --port "$port" --workers "$workers" --rate-limit 100000000 >"$d/serve.log" 2>&1 & pid=$!
tree() { local p=$1; echo "$p"; for c in $(pgrep -P "$p"); do tree "$c"; done; }
cleanup() { all=$(tree $pid); kill $pid 2>/dev/null; for _ in $(seq 30); do kill -0 $pid 2>/dev/null || break; sleep 0.5; done; for k in $all; do kill -9 $k 2>/dev/null; done; rm -rf "$d"; }
trap cleanup EXIT
for _ in $(seq 1200); do [[ $(curl -s -o /dev/null -w %{http_code} -H "Authorization: Bearer $key" "http://127.0.0.1:$port/v1/me") == 200 ]] && break; sleep 0.05; done
sleep 20
show() {
  local tot=0
  for p in $(tree $pid); do r=$(awk '/VmRSS/{print int($2/1024)}' /proc/$p/status 2>/dev/null); c=$(tr '\0' ' ' </proc/$p/cmdline 2>/dev/null | awk '{print $NF}'); printf '%s:%s ' "$c" "$r"; tot=$((tot+r)); done
  echo " total=$tot"
}
echo -n "idle: "; show
"$proj/.venv/bin/python" - "$port" "$key" <<'P'
import sys, trio, httpx, uuid
port, key = sys.argv[1], sys.argv[2]
base = f"http://127.0.0.1:{port}/v1/modules/contacts/records"
H = {"Authorization": f"Bearer {key}"}
async def client(n):
    async with httpx.AsyncClient(headers=H, timeout=60, limits=httpx.Limits(max_keepalive_connections=0)) as c:
        for i in range(n):
            w = "lw" + uuid.uuid4().hex[:8]
            r = await c.post(base, json={"displayName": f"{w} Person", "fields": {"first-name": w, "last-name": "Load", "emails": [{"value": f"{w}@example.com"}], "phones": [{"value": "+14155550123"}], "notes": f"<p>met <b>{w}</b></p>"}})
            assert r.status_code == 201, r.text
            if i % 3 == 0:
                assert (await c.get(base, params={"pageSize": 50})).status_code == 200
            if i % 3 == 1:
                assert (await c.get(base, params={"search": w})).status_code == 200
            if i % 5 == 2:
                assert (await c.get(base, params={"filter[last-name]": "Load", "pageSize": 20})).status_code == 200
async def main():
    async with trio.open_nursery() as n:
        for _ in range(8): n.start_soon(client, 60)
trio.run(main)
P
sleep 10
echo -n "after load: "; show
