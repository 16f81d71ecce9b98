"""The CLI prints one JSON object per admin command, with the exact keys other tools read."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from fieldhouse.cli import main


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
