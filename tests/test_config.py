"""Settings: read from FIELDHOUSE_* variables, overridden by flags, handed to workers as JSON."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from fieldhouse.config import (
    Settings,
    SettingsError,
    cgroup_cpu_quota,
    default_workers,
    settings_from_env,
)


def test_variables_become_settings() -> None:
    settings = settings_from_env(
        {
            "FIELDHOUSE_DATABASE_URL": "postgresql://db/x",
            "FIELDHOUSE_DATA_DIR": "/srv/fh",
            "FIELDHOUSE_PORT": "9000",
            "FIELDHOUSE_WORKERS": "3",
            "FIELDHOUSE_LOG_FORMAT": " JSON ",
            "FIELDHOUSE_CORS_ORIGINS": "https://a.example/, https://b.example ,,",
            "FIELDHOUSE_SEARCH": "off",
            "FIELDHOUSE_EMBEDDING_PROCESS": " Off ",
            "FIELDHOUSE_ACTOR_SEND_TIMEOUT": "2.5",
            "FIELDHOUSE_SQLITE_SYNCHRONOUS": "Full",
        }
    )
    assert settings.database_url == "postgresql://db/x"
    assert settings.data_dir == Path("/srv/fh")
    assert (settings.port, settings.workers) == (9000, 3)
    assert settings.log_format == "json"
    assert settings.cors_origins == ("https://a.example", "https://b.example")
    assert settings.search_enabled is False
    assert settings.embedding_process is False
    assert settings_from_env({"FIELDHOUSE_EMBEDDING_PROCESS": "yes"}).embedding_process is True
    assert settings.actor_send_timeout == 2.5
    assert settings.sqlite_synchronous == "full"
    assert Settings().sqlite_synchronous == "normal"


def test_unset_and_empty_variables_keep_the_defaults() -> None:
    assert settings_from_env({"FIELDHOUSE_PORT": "", "FIELDHOUSE_SEARCH": ""}) == Settings()


@pytest.mark.parametrize(
    ("name", "value", "message"),
    [
        ("FIELDHOUSE_PORT", "eighty", "FIELDHOUSE_PORT must be an integer, not 'eighty'"),
        (
            "FIELDHOUSE_ACTOR_SEND_TIMEOUT",
            "soon",
            "FIELDHOUSE_ACTOR_SEND_TIMEOUT must be a number, not 'soon'",
        ),
        (
            "FIELDHOUSE_SQLITE_SYNCHRONOUS",
            "off",
            "FIELDHOUSE_SQLITE_SYNCHRONOUS='off': expected one of normal, full",
        ),
        (
            "FIELDHOUSE_LOG_FORMAT",
            "xml",
            "FIELDHOUSE_LOG_FORMAT='xml': expected one of json, text",
        ),
        (
            "FIELDHOUSE_EMBEDDING_PROCESS",
            "maybe",
            "FIELDHOUSE_EMBEDDING_PROCESS='maybe': expected one of 1, true, on, yes, 0, false,"
            " off, no",
        ),
    ],
)
def test_a_bad_variable_is_named_with_its_value(name: str, value: str, message: str) -> None:
    with pytest.raises(SettingsError) as caught:
        settings_from_env({name: value})
    assert str(caught.value) == message


def test_the_default_database_is_sqlite_under_the_data_dir(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path)
    assert settings.resolved_database_url == f"sqlite:///{tmp_path.resolve()}/fieldhouse.sqlite3"
    given = Settings(data_dir=tmp_path, database_url="postgresql://db/x")
    assert given.resolved_database_url == "postgresql://db/x"


def test_json_round_trip_keeps_every_setting() -> None:
    settings = Settings(
        data_dir=Path("/srv/fh"),
        cors_origins=("https://a.example",),
        worker_index=2,
        agent_api_key="sk-secret",
        search_enabled=False,
    )
    assert Settings.from_json(settings.to_json()) == settings


def test_overrides_skip_none() -> None:
    base = Settings(port=9000)
    assert base.with_overrides(port=None, host="0.0.0.0") == Settings(port=9000, host="0.0.0.0")


def test_the_agent_api_key_is_not_in_the_repr() -> None:
    assert "sk-secret" not in repr(Settings(agent_api_key="sk-secret"))


def test_the_webhook_allow_list_is_read_checked_and_handed_on() -> None:
    value = " Hooks.Example.com. , 127.0.0.1:8080,,[::1]:9000, ::1 "
    settings = settings_from_env({"FIELDHOUSE_WEBHOOK_ALLOW_HOSTS": value})
    written = ("hooks.example.com", "127.0.0.1:8080", "[::1]:9000", "[::1]")
    assert settings.webhook_allow_hosts == written
    assert Settings.from_json(json.loads(json.dumps(settings.to_json()))) == settings
    for bad, why in [
        ("127.0.0.1:http", "'127.0.0.1:http': the port must be a number from 1 to 65535"),
        ("a.example:0", "'a.example:0': the port must be a number from 1 to 65535"),
        ("http://a.example/", "'http://a.example/' is not host, host:port or [IPv6]:port"),
        ("[::1:80", "'[::1:80' is not host, host:port or [IPv6]:port"),
    ]:
        with pytest.raises(SettingsError) as caught:
            settings_from_env({"FIELDHOUSE_WEBHOOK_ALLOW_HOSTS": f"a.example,{bad}"})
        assert str(caught.value) == f"FIELDHOUSE_WEBHOOK_ALLOW_HOSTS: {why}"


# --- issue 33 item 5: every configuration error is one line naming the variable ---------------

BAD = [
    ("FIELDHOUSE_LOG_LEVEL", "LOUD", "expected one of debug, info, warning, error, critical"),
    ("FIELDHOUSE_PORT", "70000", "must be an integer from 0 to 65535"),
    ("FIELDHOUSE_PORT", "-1", "must be an integer from 0 to 65535"),
    ("FIELDHOUSE_WORKERS", "0", "must be an integer from 1 to 256"),
    ("FIELDHOUSE_RATE_LIMIT", "-5", "must be an integer at least 1"),
    ("FIELDHOUSE_MAX_BODY_BYTES", "0", "must be an integer at least 1"),
    ("FIELDHOUSE_ACTOR_MAILBOX_SIZE", "0", "must be an integer at least 1"),
    ("FIELDHOUSE_ACTOR_SEND_TIMEOUT", "-1", "must be a number above 0"),
    ("FIELDHOUSE_HEADER_TIMEOUT", "inf", "must be a number above 0"),
    ("FIELDHOUSE_EMBEDDER", "bogus", "expected one of minilm, minilm-int8, wordllama-256, none"),
    ("FIELDHOUSE_AGENT_PROVIDER", "bogus", "expected one of offline, openai, anthropic"),
    ("FIELDHOUSE_SEARCH", "maybe", "expected one of 1, true, on, yes, 0, false, off, no"),
    ("FIELDHOUSE_SMTP_URL", "garbage", "must be a URL of the form smtp://host[:port]"),
    ("FIELDHOUSE_AGENT_BASE_URL", "api.example", "must be a URL of the form http://host"),
    ("FIELDHOUSE_CORS_ORIGINS", "app.example.com", "is not an origin"),
]


@pytest.mark.parametrize(("name", "value", "says"), BAD)
def test_an_unusable_value_is_refused_by_name(name: str, value: str, says: str) -> None:
    with pytest.raises(SettingsError) as caught:
        settings_from_env({name: value})
    assert str(caught.value).startswith(name)
    assert says in str(caught.value)
    assert "\n" not in str(caught.value)


def test_a_url_with_a_password_is_not_repeated() -> None:
    with pytest.raises(SettingsError) as caught:
        settings_from_env({"FIELDHOUSE_SMTP_URL": "ftp://me:hunter2@mail.example"})
    assert "hunter2" not in str(caught.value)


def test_the_lists_of_choices_agree_with_their_owners() -> None:
    from fieldhouse.agents.providers import PROVIDERS
    from fieldhouse.config import AGENT_PROVIDERS, EMBEDDERS
    from fieldhouse.search.embedder import CHOICES

    assert (EMBEDDERS, AGENT_PROVIDERS) == (CHOICES, PROVIDERS)


def test_workers_follow_the_cgroup_cpu_quota(tmp_path: Path) -> None:
    # cgroup v2: a container limited to 1.5 CPUs (docker run --cpus 1.5) inside a slice of 4
    (tmp_path / "box").mkdir()
    (tmp_path / "cpu.max").write_text("400000 100000\n")
    (tmp_path / "box" / "cpu.max").write_text("150000 100000\n")
    assert cgroup_cpu_quota(tmp_path, "0::/box\n") == 1.5
    (tmp_path / "box" / "cpu.max").write_text("max 100000\n")
    assert cgroup_cpu_quota(tmp_path, "0::/box\n") == 4.0
    (tmp_path / "cpu.max").write_text("max 100000\n")
    assert cgroup_cpu_quota(tmp_path, "0::/box\n") is None
    # cgroup v1: cpu,cpuacct hierarchy with a quota of half a CPU
    v1 = tmp_path / "v1"
    (v1 / "cpu,cpuacct" / "docker" / "abc").mkdir(parents=True)
    (v1 / "cpu,cpuacct" / "docker" / "abc" / "cpu.cfs_quota_us").write_text("50000\n")
    (v1 / "cpu,cpuacct" / "docker" / "abc" / "cpu.cfs_period_us").write_text("100000\n")
    assert cgroup_cpu_quota(v1, "4:cpu,cpuacct:/docker/abc\n1:name=systemd:/x\n") == 0.5
    # the default: no more workers than the quota allows (rounded up), at least one
    (tmp_path / "cpu.max").write_text("50000 100000\n")
    assert default_workers(tmp_path) == 1
