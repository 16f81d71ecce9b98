#!/usr/bin/env bash
# Seconds from `fieldhouse serve` (defaults: SQLite, a worker per core) to the first 200 of
# GET /v1/me, on a fresh data directory each run (issue 31: "serve to first 200 within 2 s").
# usage: bash benchmarks/ready.sh CHECKOUT PORT [N]   (the checkout's .venv: make install)
# prints one line per run. This machine's speed drifts with whatever else runs: compare two
# checkouts alternately, several runs each (prefix `chrt -f 1` as root to keep other load off).
proj=$1; port=$2; n=${3:-3}; fh=$proj/.venv/bin/fieldhouse
for i in $(seq $n); do
d=$(mktemp -d /tmp/ready.XXXX)
key=$("$fh" init --data-dir "$d/data" | python3 -c 'import json,sys; print(json.load(sys.stdin)["apiKey"])')
t0=$(date +%s.%N)
"$fh" serve --data-dir "$d/data" --port "$port" --rate-limit 100000000 >"$d/serve.log" 2>&1 & pid=$!
for _ in $(seq 1200); do [[ $(curl -s -o /dev/null -w %{http_code} -H "Authorization: Bearer $key" "http://127.0.0.1:$port/v1/me") == 200 ]] && break; sleep 0.02; done
python3 -c "import time; print(round(time.time() - $t0, 2))"
kill $pid; wait $pid 2>/dev/null; rm -rf $d
done
