"""The README's first screen, run as written: `fieldhouse serve --demo` (what `make serve`
runs once installed), then its shell blocks in a second "terminal" with the printed key.

Only the address (a free port instead of 8080) and the key's placeholder are replaced."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.test_console import Server

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"


def first_screen_blocks() -> list[str]:
    """The ```sh blocks of "The first minute", in order."""
    text = README.read_text()
    section = text[text.index("## The first minute") :]
    section = section[: section.index("\n## ", 1)]
    return re.findall(r"```sh\n(.*?)```", section, flags=re.S)


def _documents(text: str) -> list[Any]:
    """The JSON documents curl printed one after another (without newlines between them)."""
    decoder = json.JSONDecoder()
    out, at = [], 0
    while at < len(text.strip()):
        while text[at].isspace():
            at += 1
        value, at = decoder.raw_decode(text, at)
        out.append(value)
    return out


def test_the_readme_first_screen_works_as_written(tmp_path: Path) -> None:
    serve, api, cli, tools = first_screen_blocks()
    assert serve.strip() == "make serve"
    makefile = (ROOT / "Makefile").read_text()
    assert "$(BIN)/fieldhouse serve --demo" in makefile  # what make serve runs once installed
    assert "make test" in tools

    server = Server(tmp_path / "data", workers=2, search=True)
    try:
        key_line = server.wait_for("API key (shown once, keep it): ")
        key = key_line.rsplit(" ", 1)[1].strip()
        ready = server.wait_for("Ready: http://")
        base = ready.split()[1]
        env = {**os.environ, "PATH": f"{Path(sys.executable).parent}:{os.environ['PATH']}"}

        def run(block: str) -> str:
            script = block.replace("sk_live_...", key).replace("http://127.0.0.1:8080", base)
            script = script.replace(". .venv/bin/activate", ": activated")  # PATH has it
            done = subprocess.run(
                ["bash", "-e", "-c", script],
                capture_output=True,
                text=True,
                env={**env, "FIELDHOUSE_DATA_DIR": str(tmp_path / "data")},
                timeout=120,
                check=False,
            )
            assert done.returncode == 0, done.stdout + done.stderr
            return done.stdout

        created, won, found, answer = _documents(run(api))
        assert created["record"]["displayName"] == "Mae Jemison"
        assert created["record"]["fields"]["emails"][0]["value"] == "mae@example.com"
        assert won["total"] == 3
        assert {r["fields"]["stage"] for r in won["records"]} == {"won"}
        assert "Contoso records migration" in {r["title"] for r in found["results"]}
        assert answer["success"] is True
        assert answer["response"].startswith("Found 3 deals record(s)")
        (listed,) = _documents(run(cli))
        assert [w["name"] for w in listed["workspaces"]] == ["Demo workspace"]
    finally:
        server.stop()
