#!/bin/bash
# The newcomer's first minute, timed as the README tells it: a fresh clone of CHECKOUT, `make
# serve`, the key it prints, `Ready:`, then the README's own create command (a contact).
# usage: bash benchmarks/newcomer.sh [CHECKOUT]   (port 8080 must be free; default: this clone)
# prints: clone, key printed, Ready and the first 201, in seconds from the start
set -u
SRC=${1:-$(cd "$(dirname "$0")/.." && pwd)}
D=/tmp/nc.$$; rm -rf $D
t0=$(date +%s.%N)
git clone -q "$SRC" $D && cd $D
t1=$(date +%s.%N)
(make serve > $D/serve.log 2>&1 &)
key=""; ready=""
for i in $(seq 1 1200); do
  [ -z "$key" ] && key=$(grep -o 'sk_live_[A-Za-z0-9_-]*' $D/serve.log | head -1) && [ -n "$key" ] && tk=$(date +%s.%N)
  if grep -q "Ready:" $D/serve.log; then ready=$(date +%s.%N); break; fi
  sleep 0.05
done
auth="Authorization: Bearer $key"
code=$(curl -sS -o /dev/null -w '%{http_code}' -H "$auth" -H 'Content-Type: application/json' -d '{"displayName": "Mae Jemison", "fields": {"first-name": "Mae", "last-name": "Jemison", "emails": [{"value": "mae@example.com"}]}}' http://127.0.0.1:8080/v1/modules/contacts/records)
t2=$(date +%s.%N)
python3 -c "t0,t1,tk,tr,t2=$t0,$t1,${tk:-0},${ready:-0},$t2; print(f'clone {t1-t0:.1f}s  key printed {tk-t0:.1f}s  Ready {tr-t0:.1f}s  first create at {t2-t0:.1f}s')"
echo "create status: $code; load: $(cut -d' ' -f1-3 /proc/loadavg)"
grep -E "install|Ready|Starting|starting" $D/serve.log | head -5
pkill -INT -f "$D/.venv"; sleep 4; pkill -9 -f "$D/.venv"; rm -rf "$D"
