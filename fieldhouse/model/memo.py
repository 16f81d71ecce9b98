"""What is worked out once from a schema and a request's text, then remembered.

A client repeats its queries: the same list query against the same module schema parses and
compiles to the same thing every time (about 30 us of a list request's CPU). A schema that
changes is a new object (the schema cache hands out frozen snapshots), so entries are filed by
the schema's identity, and one for an older schema is never found again; it ages out.
"""

from __future__ import annotations

from collections import OrderedDict
from collections.abc import Callable, Hashable
from typing import Generic, TypeVar

V = TypeVar("V")


class SchemaMemo(Generic[V]):
    """Values made from a schema object and a hashable key; the ``size`` most recently used
    are kept. An entry holds its schema, so the id it is filed under cannot be reused by
    another object while the entry is kept. What ``make`` raises is not remembered."""

    def __init__(self, size: int) -> None:
        self._size = size
        self._entries: OrderedDict[tuple[int, Hashable], tuple[object, V]] = OrderedDict()

    def get(self, schema: object, key: Hashable, make: Callable[[], V]) -> V:
        slot = (id(schema), key)
        found = self._entries.get(slot)
        if found is not None and found[0] is schema:
            self._entries.move_to_end(slot)
            return found[1]
        made = make()
        self._entries[slot] = (schema, made)
        if len(self._entries) > self._size:
            self._entries.popitem(last=False)
        return made

    def __len__(self) -> int:
        return len(self._entries)
