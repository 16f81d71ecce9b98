"""fieldhouse import | export: rows through the API's validation, rejected rows reported."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import httpx
import pytest

from fieldhouse.runtime import Runtime
from fieldhouse.transfer import export_records, import_records
from tests.conftest import Workspace
from tests.http.test_records_crud import create, records_url
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


# --- CSV formula escaping and malformed JSON Lines (issue 36 item 8) --------------------------

FORMULA_LIKE = [
    # displayName, first-name, last-name, job-title, balance
    ('=HYPERLINK("http://x.example","go")', "=1+1", "-minus", "'=already quoted", -5),
    ("@SUM(A1)", "+plus", "\tTab", "\rCR", -0.5),
    ("Plain", "O'Brien", "'tis", "''-two", 12),
]


async def test_csv_export_escapes_formulas_and_import_undoes_it(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace, tmp_path: Path
) -> None:
    modules = (await client.get("/v1/modules", headers=ws.headers)).json()["modules"]
    contacts = next(m["id"] for m in modules if m["slug"] == "contacts")
    field = {"label": "Balance", "dataType": "number", "config": {"decimals": 2}}
    made = await client.post(f"/api/modules/{contacts}/fields", headers=ws.headers, json=field)
    assert made.status_code == 201, made.text
    columns = ("first-name", "last-name", "job-title", "balance")
    for name, *values in FORMULA_LIKE:
        await create(client, ws, "contacts", dict(zip(columns, values, strict=True)), name=name)
    out = tmp_path / "contacts.csv"
    await export_records(runtime.actors, ws.account_id, "contacts", out, progress=False)
    with out.open(encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert [[r[c] for c in ("displayName", *columns)] for r in rows] == [
        ['\'=HYPERLINK("http://x.example","go")', "'=1+1", "'-minus", "''=already quoted", "-5"],
        ["'@SUM(A1)", "'+plus", "'\tTab", "'\rCR", "-0.5"],
        ["Plain", "O'Brien", "'tis", "'''-two", "12"],
    ]
    report = await import_records(runtime.actors, ws.account_id, "contacts", out, progress=False)
    assert report["imported"] == 3 and report["rejected"] == []
    records = (await client.get(records_url("contacts"), headers=ws.headers)).json()["records"]
    kept = [(r["displayName"], *(r["fields"].get(c) for c in columns)) for r in records]
    # each value twice, as written and as imported: the apostrophes are the escape's alone
    assert sorted(kept) == sorted(FORMULA_LIKE * 2)


async def test_a_malformed_json_line_is_a_rejected_row(
    runtime: Runtime, ws: Workspace, tmp_path: Path
) -> None:
    source = tmp_path / "contacts.jsonl"
    source.write_bytes(
        b'{"displayName": "Ada", "first-name": "Ada"}\n'
        b"{not json\n"
        b"[1, 2]\n"
        b"\n"
        b'{"displayName": "Bob", "fields": "Bob"}\n'
        b'{"displayName": 5, "first-name": "Five"}\n'
        b'{"first-name": "Cy", "last-name": "Young"}\n'
        b'{"first-name": "\xff"}\n'
    )
    report = await import_records(runtime.actors, ws.account_id, "contacts", source, progress=False)
    assert report["imported"] == 2
    rejected = [
        (r["line"], [(i["code"], i["path"]) for i in r["issues"]]) for r in report["rejected"]
    ]
    assert rejected == [
        (2, [("invalid_json", [])]),
        (3, [("invalid_type", [])]),
        (5, [("invalid_type", ["fields"])]),
        (6, [("invalid_type", ["displayName"])]),
        (8, [("invalid_json", [])]),
    ]
    assert report["rejected"][0]["issues"][0]["message"].startswith("The line is not valid JSON")
    assert report["rejected"][4]["issues"][0]["message"].startswith("The line is not UTF-8 text")
