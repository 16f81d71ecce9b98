"""fieldhouse import | export: rows through the API's validation, rejected rows reported."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.test_cli import run


def test_import_reports_rejected_rows_and_export_round_trips(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    d = ["--data-dir", str(tmp_path / "data")]
    workspace = str(run(capsys, "init", *d)["accountId"])
    source = tmp_path / "contacts.csv"
    source.write_text(
        "first-name,last-name,do-not-contact\n"
        "Ada,Lovelace,true\n"
        ",Nameless,false\n"
        "Bob,Smith,maybe\n"
        "Cy,Young,false\n"
    )
    target = ["--workspace", workspace, "--module", "contacts", "--no-progress"]
    report = run(capsys, "import", *d, *target, str(source))
    assert report["imported"] == 2
    rejected = report["rejected"]
    assert [r["line"] for r in rejected] == [3, 4]  # type: ignore[index, union-attr]
    assert rejected[0]["issues"][0]["path"] == ["fields", "first-name"]  # type: ignore[index]
    assert rejected[1]["issues"][0]["path"] == ["fields", "do-not-contact"]  # type: ignore[index]
    out = tmp_path / "out.jsonl"
    assert run(capsys, "export", *d, *target, str(out))["exported"] == 2
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert sorted(r["fields"]["first-name"] for r in lines) == ["Ada", "Cy"]
    assert {r["fields"]["do-not-contact"] for r in lines} == {True, False}
    # the export imports again (JSON Lines), each record once more
    again = run(capsys, "import", *d, *target, str(out))
    assert again["imported"] == 2 and again["rejected"] == []
    csv_out = tmp_path / "all.csv"
    assert run(capsys, "export", *d, *target, str(csv_out))["exported"] == 4
    assert csv_out.read_text().splitlines()[0].startswith("recordId,displayName,first-name")
