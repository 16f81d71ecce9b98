"""The CLI's arguments: numbers out of range are refused by argparse, naming the option."""

from __future__ import annotations

import pytest

from fieldhouse.cli_args import build_parser, settings_from_args


@pytest.mark.parametrize(
    ("option", "value", "says"),
    [
        ("--port", "70000", "expected an integer from 0 to 65535, not '70000'"),
        ("--port", "http", "expected an integer, not 'http'"),
        ("--workers", "0", "expected an integer from 1 to 256, not '0'"),
        ("--rate-limit", "-1", "expected an integer at least 1, not '-1'"),
    ],
)
def test_an_out_of_range_number_is_refused_by_name(
    option: str, value: str, says: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exited:
        build_parser().parse_args(["serve", option, value])
    assert exited.value.code == 2
    assert f"argument {option}: {says}" in capsys.readouterr().err


def test_flags_override_the_settings(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("FIELDHOUSE_PORT", "9000")
    args = build_parser().parse_args(["serve", "--workers", "3", "--rate-limit", "5"])
    settings = settings_from_args(args)
    assert (settings.port, settings.workers, settings.rate_limit) == (9000, 3, 5)
