"""schemathesis over a real server's own /openapi.json, as an attacker's fuzzer would run it:
every check (`--checks all`), for a time budget, on SQLite or PostgreSQL.

    python -m benchmarks.fuzz_api --backend sqlite --seconds 540
    python -m benchmarks.fuzz_api --backend postgres --seconds 540 \
        --database-url postgresql://postgres@127.0.0.1:5432/test

On PostgreSQL a database of its own is created beside the one named (and dropped after).
GET /v1/events is left out: it is an endless stream by design (tests/http/routes/test_events.py
and tests/reliability/test_events_stream.py cover it). Prints schemathesis's summary and the
server errors the server logged; exits with schemathesis's code.
"""

from __future__ import annotations

import argparse
import os
import secrets
import subprocess
import sys
import tempfile
from pathlib import Path
from urllib.parse import urlsplit

from benchmarks.servers import running_server, total_timeout


def _admin(url: str, sql: str) -> None:
    subprocess.run(["psql", url, "-qc", sql], check=True)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", choices=["sqlite", "postgres"], default="sqlite")
    parser.add_argument("--seconds", type=int, default=540)
    parser.add_argument("--database-url", default="postgresql://postgres@127.0.0.1:5432/test")
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    env: dict[str, str] = {"FIELDHOUSE_LOG_LEVEL": "WARNING"}
    dropped: str | None = None
    if args.backend == "postgres":
        name = f"fh_fuzz_{secrets.token_hex(4)}"
        _admin(args.database_url, f"CREATE DATABASE {name}")
        dropped = name
        env["FIELDHOUSE_DATABASE_URL"] = (
            urlsplit(args.database_url)._replace(path=f"/{name}").geturl()
        )
    os.environ.update(env)  # fieldhouse init reads the same settings
    code = 1
    try:
        with (
            total_timeout(args.seconds + 180),
            tempfile.TemporaryDirectory() as tmp,
            running_server(Path(tmp) / "data", extra_env=env) as server,
        ):
            report = Path(tmp) / "junit.xml"
            command = [
                sys.executable, "-m", "schemathesis.cli", "run", server.base_url + "/openapi.json",
                "--checks", "all",
                "--max-time", str(args.seconds),
                "--workers", str(args.workers),
                "--exclude-path", "/events",
                "--request-timeout", "30",
                "--header", f"Authorization: Bearer {server.api_key}",
                "--report", "junit", "--report-junit-path", str(report),
                "--no-color",
            ]  # fmt: skip
            done = subprocess.run(command, check=False)
            code = done.returncode
            log = server.log_path.read_text(errors="replace")
            errors = [line for line in log.splitlines() if " ERROR " in line or '"ERROR"' in line]
            print(f"\nbackend {args.backend}, {args.seconds} s: schemathesis exit {code}; "
                  f"server log ERROR lines: {len(errors)}")  # fmt: skip
            for line in errors[:20]:
                print("  " + line[:300])
    finally:
        if dropped:
            _admin(args.database_url, f"DROP DATABASE IF EXISTS {dropped} WITH (FORCE)")
    return code


if __name__ == "__main__":
    raise SystemExit(main())
