"""The cycle collector under create load: the server as it runs, next to CPython's defaults.

    python -m benchmarks.gc_pauses [--duration 10] [--connections 16]

A worker freezes its start-up heap once serving and raises the collector's first threshold
(``fieldhouse.worker.settle_heap``). This runs ``fieldhouse serve --workers 1`` (search off)
twice in one run under the same wrk create load: as it is, and with CPython's defaults put
back (``gc.unfreeze()``, thresholds 700/10/10) once it is serving. A ``sitecustomize`` hook,
put on the server's ``PYTHONPATH`` by this script only, times every collection with
``gc.callbacks`` while the load runs; it prints per generation the collections, the seconds
spent in them and the objects they found, with req/s and p99. Needs wrk (Debian: wrk).
"""

from __future__ import annotations

import argparse
import json
import os
import tempfile
import time
from collections.abc import Sequence
from functools import partial
from pathlib import Path

from benchmarks.harness import format_table
from benchmarks.hot_path import wrk
from benchmarks.servers import start_server

#: written into a temporary directory on the server's PYTHONPATH; it acts only in a process
#: started with FH_GC_STATS (this benchmark's server), on the files it names
HOOK = """
import gc, json, os, threading, time

_dir = os.environ.get("FH_GC_STATS")
if _dir:
    _on = [False]
    _t0 = [0.0]
    _stats = {g: {"collections": 0, "seconds": 0.0, "collected": 0} for g in (0, 1, 2)}

    def _timed(phase, info):
        if not _on[0]:
            return
        if phase == "start":
            _t0[0] = time.perf_counter()
            return
        s = _stats[info["generation"]]
        s["collections"] += 1
        s["seconds"] += time.perf_counter() - _t0[0]
        s["collected"] += info["collected"]

    def _watch():
        def at(name):
            while not os.path.exists(os.path.join(_dir, name)):
                time.sleep(0.05)
        at("defaults")  # optional: CPython's defaults back (another file says "as it is")
        if os.path.exists(os.path.join(_dir, "use-defaults")):
            gc.unfreeze()
            gc.set_threshold(700, 10, 10)
        at("start")
        _on[0] = True
        at("stop")
        _on[0] = False
        out = {"threshold": gc.get_threshold(), "frozen": gc.get_freeze_count(), "gens": _stats}
        with open(os.path.join(_dir, "stats.json"), "w") as f:
            json.dump(out, f)

    gc.callbacks.append(_timed)
    threading.Thread(target=_watch, daemon=True).start()
"""

LUA = """
wrk.method = "POST"
wrk.headers["Content-Type"] = "application/json"
local counter = 0
request = function()
  counter = counter + 1
  local n = string.format("gc-%d-%d", counter, math.random(1, 1000000000))
  local body = string.format('{"displayName":"%s","fields":{"name":"%s","amount":'
    .. '{"amount":%d.%02d,"currency":"USD"},"stage":"lead","close-date":"2026-01-02"}}',
    n, n, math.random(0, 9999), math.random(0, 99))
  return wrk.format(nil, nil, nil, body)
end
"""


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    p.add_argument("--duration", type=float, default=10.0)
    p.add_argument("--connections", type=int, default=16)
    return p.parse_args(argv)


def run(variant: str, args: argparse.Namespace, tmp: Path) -> dict[str, object]:
    hook_dir = tmp / "hook"
    hook_dir.mkdir(exist_ok=True)
    (hook_dir / "sitecustomize.py").write_text(HOOK)
    signals = tmp / f"signals-{variant}"
    signals.mkdir()
    env = {
        "FIELDHOUSE_SEARCH": "off",
        "FIELDHOUSE_WORKERS": "1",
        "FH_GC_STATS": str(signals),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(hook_dir), os.environ.get("PYTHONPATH")])),
    }
    script = tmp / "create.lua"
    script.write_text(LUA)
    server = start_server(tmp / f"fh-{variant}", extra_env=env)
    try:
        if variant == "CPython defaults":
            (signals / "use-defaults").touch()
        (signals / "defaults").touch()
        url = f"{server.base_url}/v1/modules/deals/records"
        auth = [f"Authorization: Bearer {server.api_key}"]
        load = partial(wrk, url, connections=args.connections, server=server, headers=auth)
        load(duration=2, script=script)  # warm
        (signals / "start").touch()
        result = load(duration=args.duration, script=script)
        (signals / "stop").touch()
        deadline = time.monotonic() + 10
        while not (signals / "stats.json").exists() and time.monotonic() < deadline:
            time.sleep(0.05)
        stats = json.loads((signals / "stats.json").read_text())
    finally:
        server.stop()
    gens = stats["gens"]
    per = args.duration
    return {
        "server": variant,
        "req/s": f"{result.rps:,.0f}",
        "p99 ms": f"{result.p99_ms:.1f}",
        "collections (gen 0/1/2)": "/".join(str(gens[g]["collections"]) for g in "012"),
        "s in collector per s": f"{sum(gens[g]['seconds'] for g in '012') / per:.3f}",
        "s in full collections per s": f"{gens['2']['seconds'] / per:.3f}",
        "objects found (gen 0/1/2)": "/".join(str(gens[g]["collected"]) for g in "012"),
        "threshold": "/".join(str(t) for t in stats["threshold"]),
        "frozen objects": f"{stats['frozen']:,}",
        "non-2xx": result.non_2xx,
    }


def main(argv: Sequence[str] | None = None) -> int:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="fh-gc-") as tmp:
        rows = [run(v, args, Path(tmp)) for v in ("as it runs", "CPython defaults")]
    print(
        f"The cycle collector under create load (wrk, {args.connections} connections, "
        f"{args.duration:.0f} s; 1 worker, SQLite, search off)\n"
    )
    print(format_table(rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
