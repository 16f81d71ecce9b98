"""`fieldhouse module ...` and `fieldhouse field ...` on both backends: a module made from a
JSON file is a module of the API at once; a field added, archived and brought back; refusals
are one line with the API's envelope."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from fieldhouse.cli import main

MODULE = {
    "slug": "projects",
    "name": "Projects",
    "fields": [
        {"label": "Title", "slug": "title", "dataType": "text", "isRequired": True},
        {"label": "Phase", "dataType": "select", "config": {"options": ["planned", "done"]}},
    ],
}


@pytest.fixture
def where(tmp_path: Path, backend: str, request: pytest.FixtureRequest) -> list[str]:
    """The global options naming the store of this backend."""
    if backend == "postgres":
        return ["--data-dir", str(tmp_path), "--database-url", request.getfixturevalue("pg_url")]
    return ["--data-dir", str(tmp_path)]


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, Any]:
    assert main(list(argv)) == 0, capsys.readouterr().err
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1
    return json.loads(out[0])  # type: ignore[no-any-return]


def refused(capsys: pytest.CaptureFixture[str], status: int, *argv: str) -> dict[str, Any]:
    assert main(list(argv)) == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "Traceback" not in err[0]
    error: dict[str, Any] = json.loads(err[0])["error"]
    assert error["statusCode"] == status
    return error


def write(tmp_path: Path, name: str, value: Any) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(value))
    return str(path)


def test_module_and_field_commands(
    tmp_path: Path, where: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    made = run(capsys, *where, "init", "--name", "Acme", "--template", "companies")
    ws = ["--workspace", str(made["accountId"])]
    module_file = write(tmp_path, "module.json", MODULE)

    created = run(capsys, *where, "module", "create", *ws, "--file", module_file)
    assert created["module"]["slug"] == "projects"
    assert created["module"]["vendorManaged"] is False
    assert [f["slug"] for f in created["fields"]] == ["title", "phase"]
    again = refused(capsys, 409, *where, "module", "create", *ws, "--file", module_file)
    assert again["data"]["slug"] == "projects"
    bad = write(tmp_path, "bad.json", {**MODULE, "slug": "Projects!"})
    error = refused(capsys, 400, *where, "module", "create", *ws, "--file", bad)
    assert error["issues"][0]["path"] == ["slug"]

    field_file = write(tmp_path, "field.json", {"label": "Budget", "dataType": "number"})
    added = run(capsys, *where, "field", "add", *ws, "--module", "projects", "--file", field_file)
    assert added["field"]["slug"] == "budget" and added["field"]["dataType"] == "number"
    for verb, archived in (("archive", True), ("unarchive", False)):
        done = run(capsys, *where, "field", verb, *ws, "--module", "projects", "phase")
        assert done["field"]["archived"] is archived

    gone = run(capsys, *where, "module", "archive", *ws, "projects")
    assert gone["module"]["isActive"] is False
    listed = run(capsys, *where, "module", "list", *ws)
    states = {m["slug"]: m["isActive"] for m in listed["modules"]}
    assert states == {"companies": True, "projects": False}
    missing = refused(
        capsys, 404, *where, "field", "add", *ws, "--module", "projects", "--file", field_file
    )
    assert "archived" in missing["message"]
    back = run(capsys, *where, "module", "unarchive", *ws, "projects")
    assert back["module"]["isActive"] is True


def test_a_file_that_is_not_json_is_named(
    tmp_path: Path, where: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    made = run(capsys, *where, "init", "--name", "Acme", "--template", "companies")
    path = tmp_path / "module.json"
    path.write_text("{slug: projects")
    error = refused(
        capsys,
        400,
        *where,
        "module",
        "create",
        "--workspace",
        str(made["accountId"]),
        "--file",
        str(path),
    )
    assert str(path) in error["message"]
    assert (
        main(
            [
                *where,
                "module",
                "create",
                "--workspace",
                str(made["accountId"]),
                "--file",
                str(tmp_path / "nope.json"),
            ]
        )
        == 2
    )
    assert "nope.json" in capsys.readouterr().err


def test_an_export_leaves_archived_fields_out_and_imports_again(
    tmp_path: Path, where: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    made = run(capsys, *where, "init", "--name", "Acme", "--template", "companies")
    ws = ["--workspace", str(made["accountId"])]
    run(capsys, *where, "module", "create", *ws, "--file", write(tmp_path, "m.json", MODULE))
    rows = tmp_path / "in.jsonl"
    rows.write_text(json.dumps({"displayName": "A", "fields": {"title": "A", "phase": "done"}}))
    assert (
        run(capsys, *where, "import", *ws, "--module", "projects", "--no-progress", str(rows))[
            "imported"
        ]
        == 1
    )
    run(capsys, *where, "field", "archive", *ws, "--module", "projects", "phase")
    out = tmp_path / "out.jsonl"
    run(capsys, *where, "export", *ws, "--module", "projects", "--no-progress", str(out))
    (line,) = [json.loads(x) for x in out.read_text().splitlines()]
    assert line["fields"] == {"title": "A"}
    again = run(capsys, *where, "import", *ws, "--module", "projects", "--no-progress", str(out))
    assert again["imported"] == 1 and again["rejected"] == []
