"""SchemaMemo: made once per schema object and key, found by identity, bounded."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from fieldhouse.model.memo import SchemaMemo


@dataclass(frozen=True)
class Snapshot:
    version: int


def test_made_once_per_schema_object_and_key() -> None:
    memo: SchemaMemo[str] = SchemaMemo(8)
    made: list[str] = []

    def make(text: str) -> str:
        made.append(text)
        return text.upper()

    first = Snapshot(1)
    assert memo.get(first, "a", lambda: make("a")) == "A"
    assert memo.get(first, "a", lambda: make("a")) == "A"
    assert memo.get(first, "b", lambda: make("b")) == "B"
    # an equal snapshot is another object: a schema that changed and changed back
    assert memo.get(Snapshot(1), "a", lambda: make("a")) == "A"
    assert made == ["a", "b", "a"]


def test_keeps_the_most_recently_used() -> None:
    memo: SchemaMemo[int] = SchemaMemo(2)
    schema = Snapshot(1)
    calls: list[int] = []

    def make(n: int) -> int:
        calls.append(n)
        return n

    memo.get(schema, 1, lambda: make(1))
    memo.get(schema, 2, lambda: make(2))
    memo.get(schema, 1, lambda: make(1))  # 1 is used again: 2 is the oldest now
    memo.get(schema, 3, lambda: make(3))
    assert len(memo) == 2
    memo.get(schema, 1, lambda: make(1))
    memo.get(schema, 2, lambda: make(2))
    assert calls == [1, 2, 3, 2]


def test_what_make_raises_is_not_remembered() -> None:
    memo: SchemaMemo[int] = SchemaMemo(4)
    schema = Snapshot(1)

    def fail() -> int:
        raise ValueError("bad query")

    with pytest.raises(ValueError):
        memo.get(schema, "q", fail)
    assert memo.get(schema, "q", lambda: 7) == 7
