"""The CLI prints one JSON object per admin command, with the exact keys other tools read."""

from __future__ import annotations

import argparse
import json
import socket
import sqlite3
from pathlib import Path

import pytest

from fieldhouse import __version__
from fieldhouse.cli import build_parser, main


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> dict[str, object]:
    assert main(list(argv)) == 0
    out = capsys.readouterr().out.strip().splitlines()
    assert len(out) == 1
    return json.loads(out[0])  # type: ignore[no-any-return]


def test_admin_commands(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = ["--data-dir", str(tmp_path)]
    made = run(capsys, "init", *d, "--name", "Acme", "--template", "deals")
    assert set(made) == {"accountId", "userId", "apiKey", "apiKeyId"}
    assert str(made["apiKey"]).startswith("sk_live_")
    account = str(made["accountId"])
    ws = run(capsys, "workspace", "create", *d, "--name", "Other")
    assert set(ws) == {"accountId", "userId"}
    user = run(
        capsys,
        "user",
        "create",
        *d,
        "--workspace",
        account,
        "--email",
        "v@example.com",
        "--display-name",
        "Vee",
        "--role",
        "viewer",
    )
    assert set(user) == {"userId"}
    role = run(
        capsys,
        "role",
        "create",
        *d,
        "--workspace",
        account,
        "--slug",
        "sales",
        "--can-view",
        "deals,companies",
        "--can-edit",
        "deals",
    )
    assert role == {"roleSlug": "sales"}
    key = run(
        capsys,
        "key",
        "create",
        *d,
        "--workspace",
        account,
        "--user",
        str(user["userId"]),
        "--scopes",
        "records:read,workspace:read",
        "--name",
        "ci",
    )
    assert set(key) == {"apiKey", "apiKeyId"}
    revoked = run(capsys, "key", "revoke", *d, str(key["apiKeyId"]))
    assert revoked["revoked"] is True
    token = run(capsys, "token", *d, "--workspace", account, "--user", str(made["userId"]))
    assert str(token["token"]).count(".") == 2
    installed = run(capsys, "template", "install", *d, "--workspace", account, "contacts")
    assert installed["moduleSlug"] == "contacts"
    label = run(
        capsys, "label", "create", *d, "--workspace", account, "--name", "VIP", "--color", "gold"
    )
    assert set(label) == {"labelId"}
    typ = run(
        capsys,
        "type",
        "create",
        *d,
        "--workspace",
        account,
        "--name",
        "Partner",
        "--module",
        "deals",
    )
    assert set(typ) == {"typeId"}
    # keys are stored only as hashes: the database file never holds a secret
    raw = b"".join(p.read_bytes() for p in tmp_path.glob("fieldhouse.sqlite3*"))
    for secret in (made["apiKey"], key["apiKey"]):
        assert str(secret).encode() not in raw
    with sqlite3.connect(tmp_path / "fieldhouse.sqlite3") as db:
        hashes = [row[0] for row in db.execute("SELECT key_hash FROM api_keys")]
    assert len(hashes) == 2 and all(len(h) == 64 for h in hashes)


def test_errors_are_json_on_stderr(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    d = ["--data-dir", str(tmp_path)]
    assert main(["template", "install", *d, "--workspace", "nope", "deals"]) == 1
    err = json.loads(capsys.readouterr().err.strip().splitlines()[-1])
    assert err["error"]["code"] == "not_found"
    assert main(["init", *d, "--template", "nonexistent"]) == 1
    capsys.readouterr()
    # a failed init leaves no half-made workspace behind
    with sqlite3.connect(tmp_path / "fieldhouse.sqlite3") as db:
        assert db.execute("SELECT count(*) FROM accounts").fetchone()[0] == 0
    made = run(capsys, "init", *d)
    account = str(made["accountId"])
    assert (
        main(
            [
                "user",
                "create",
                *d,
                "--workspace",
                account,
                "--email",
                "a@b.co",
                "--display-name",
                "A",
                "--role",
                "wizard",
            ]
        )
        == 1
    )
    assert "Unknown role" in capsys.readouterr().err


def test_global_options_are_honoured_before_or_after_the_subcommand(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("FIELDHOUSE_DATA_DIR", raising=False)
    monkeypatch.delenv("FIELDHOUSE_DATABASE_URL", raising=False)
    before, after = tmp_path / "before", tmp_path / "after"
    made = run(capsys, "--data-dir", str(before), "init", "--name", "Before")
    run(capsys, "init", "--data-dir", str(after), "--name", "After")
    run(capsys, "--data-dir", str(before), "workspace", "create", "--name", "Second")
    assert (before / "fieldhouse.sqlite3").exists() and (after / "fieldhouse.sqlite3").exists()
    assert not (tmp_path / "fieldhouse-data").exists()
    listed = run(capsys, "--data-dir", str(before), "workspace", "list")
    assert [w["name"] for w in listed["workspaces"]] == ["Before", "Second"]  # type: ignore[index]
    assert listed["workspaces"][0]["accountId"] == made["accountId"]  # type: ignore[index]
    listed = run(capsys, "workspace", "list", "--data-dir", str(after))
    assert [w["name"] for w in listed["workspaces"]] == ["After"]  # type: ignore[index]


def test_every_command_and_option_has_help_and_there_is_a_version(
    capsys: pytest.CaptureFixture[str],
) -> None:
    missing: list[str] = []

    def walk(parser: argparse.ArgumentParser, where: str) -> None:
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                helps = {c.dest: c.help for c in action._choices_actions}
                for name, child in action.choices.items():
                    if not helps.get(name):
                        missing.append(f"{where} {name}")
                    walk(child, f"{where} {name}")
            elif not action.help:
                missing.append(f"{where} {'/'.join(action.option_strings) or action.dest}")

    walk(build_parser(), "fieldhouse")
    assert missing == []
    with pytest.raises(SystemExit) as info:
        main(["--version"])
    assert info.value.code == 0
    assert capsys.readouterr().out.strip() == f"fieldhouse {__version__}"


def one_error_line(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    assert "Traceback" not in err[0]
    return str(json.loads(err[0])["error"]["message"])


def test_wrong_input_is_one_line_and_a_failing_status(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    d = ["--data-dir", str(tmp_path)]
    monkeypatch.setenv("FIELDHOUSE_PORT", "abc")
    assert main([*d, "workspace", "list"]) == 2
    assert one_error_line(capsys) == "FIELDHOUSE_PORT must be an integer, not 'abc'"
    monkeypatch.delenv("FIELDHOUSE_PORT")

    unreachable = "postgresql://postgres:hunter2@127.0.0.1:1/nowhere"
    assert main(["--database-url", unreachable, "workspace", "list"]) == 2
    message = one_error_line(capsys)
    assert message.startswith("cannot open the database postgresql://postgres:***@127.0.0.1:1")
    assert "hunter2" not in message

    account = str(run(capsys, *d, "init", "--template", "deals")["accountId"])
    role = ["role", "create", "--workspace", account, "--slug", "sales", "--can-view"]
    assert main([*d, *role, "deals,nope"]) == 1
    assert "--can-view: no module 'nope'" in one_error_line(capsys)

    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        for workers in ("1", "2"):
            serve = ["serve", "--port", str(port), "--workers", workers]
            assert main([*d, *serve]) == 2
            err = capsys.readouterr().err.strip().splitlines()
            assert "Traceback" not in "\n".join(err)
            message = json.loads(err[-1])["error"]["message"]
            assert message == f"cannot listen on 127.0.0.1:{port}: the address is in use"


def test_list_users_and_keys_without_secrets_or_hashes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    d = ["--data-dir", str(tmp_path)]
    made = run(capsys, *d, "init")
    account = str(made["accountId"])
    extra = run(capsys, *d, "key", "create", "--workspace", account, "--scopes", "records:read")
    users = run(capsys, *d, "user", "list", "--workspace", account)
    assert [(u["userId"], u["role"]) for u in users["users"]] == [  # type: ignore[attr-defined]
        (made["userId"], "owner")
    ]
    keys = run(capsys, *d, "key", "list", "--workspace", account)["apiKeys"]
    assert [k["apiKeyId"] for k in keys] == [made["apiKeyId"], extra["apiKeyId"]]  # type: ignore[attr-defined]
    assert keys[1]["scopes"] == ["records:read"]  # type: ignore[index]
    assert str(extra["apiKey"]).startswith(keys[1]["prefix"])  # type: ignore[index]
    with sqlite3.connect(tmp_path / "fieldhouse.sqlite3") as db:
        hashes = [row[0] for row in db.execute("SELECT key_hash FROM api_keys")]
    printed = json.dumps(keys)
    for secret in (made["apiKey"], extra["apiKey"], *hashes):
        assert str(secret) not in printed


def test_each_configuration_error_is_one_line_naming_where_it_was_set(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    d = ["--data-dir", str(tmp_path)]
    monkeypatch.setenv("FIELDHOUSE_LOG_LEVEL", "LOUD")
    assert main([*d, "workspace", "list"]) == 2
    assert one_error_line(capsys).startswith("FIELDHOUSE_LOG_LEVEL='LOUD': expected one of")
    monkeypatch.delenv("FIELDHOUSE_LOG_LEVEL")

    blocked = tmp_path / "file"
    blocked.write_text("not a directory")
    assert main(["--data-dir", str(blocked / "data"), "workspace", "list"]) == 2
    assert "(--data-dir or FIELDHOUSE_DATA_DIR)" in one_error_line(capsys)

    assert main(["--database-url", "mysql://db/x", "workspace", "list"]) == 2
    message = one_error_line(capsys)
    assert "FIELDHOUSE_DATABASE_URL" in message and "'mysql'" in message

    serve = ["serve", "--host", "no-such-host.invalid", "--port", "0", "--workers", "1"]
    assert main([*d, *serve]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert "Traceback" not in "\n".join(err)
    assert "(--host or FIELDHOUSE_HOST)" in json.loads(err[-1])["error"]["message"]
