"""The field-type protocol: everything the server knows about one ``dataType``, in one object.

A :class:`FieldType` answers for its type: how a value is validated and normalised, whether a
normalised value counts as blank, how a field definition's ``config`` is checked, how filters and
sorts read the stored value (its :class:`FilterKind`), which filter operators it allows,
which words of a value search indexes, the OpenAPI schema of a value, a configured default, and
the records or users a value links to. Callers ask ``field_type(f.data_type)`` instead of testing
type names (see ``fieldhouse.model.fields`` for the registry).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass
from typing import Any, ClassVar, Literal

from fieldhouse.model.errors import Issue
from fieldhouse.model.fields._base import Result
from fieldhouse.model.fields.kind import ALLOWED_OPS, FilterKind
from fieldhouse.model.schema import FieldDef, ModuleSchema


@dataclass(frozen=True)
class ReferenceCheck:
    """Records the caller must find (not deleted) in the same workspace."""

    field_slug: str
    record_ids: tuple[str, ...]
    allowed_module_slugs: tuple[str, ...]  # empty = any module


@dataclass(frozen=True)
class ParentCheck:
    """A parent the caller must find in the same module, within max_depth and without a cycle."""

    field_slug: str
    record_id: str
    max_depth: int


@dataclass(frozen=True)
class UserCheck:
    """Users the caller must find in the workspace."""

    field_slug: str
    user_ids: tuple[str, ...]


LinkCheck = ReferenceCheck | ParentCheck | UserCheck

#: How a CSV cell of a type is read: as the text it is, a number, true/false, a comma-separated
#: list, or the JSON an export writes (a bare value otherwise).
CellKind = Literal["string", "number", "boolean", "comma_list", "json"]
#: How an aggregate groups records by a field of a type (None: it cannot group).
Grouping = Literal["choice", "boolean", "reference", "user", "date"]
#: How a client shows a value of the type (the web console has one renderer for each word).
ShownAs = Literal[
    "plain",  # its text (an object as JSON)
    "amount",  # a number in the reader's language
    "percent",  # a number out of 100
    "money",  # {amount, currency}
    "day",  # a calendar date
    "clock_time",  # a time of day
    "days",  # {start, end}
    "hours",  # seconds, as hours and minutes
    "yes_no",
    "option",  # a configured option's label
    "options",
    "record_link",  # links to the records of the field's module reference
    "parent_link",  # a link to a record of the same module
    "users",
    "mail_links",
    "web_links",
    "lines",  # each entry on a line of its own
    "formula_result",  # a number, yes/no or text
    "amount_or_text",
    "image_names",
    "html_as_text",  # sanitised HTML, shown as its text only
    "prose",  # text with its line breaks
]
#: How a client's form edits a value of the type.
EditedAs = Literal[
    "line",  # one line of text (no control for a value that is an object)
    "paragraph",  # long text
    "amount",
    "money",  # an amount and a currency among the allowed ones
    "day",
    "clock_time",
    "days",
    "checkbox",
    "option",
    "options",
    "record_picker",  # records of the module reference, searched on the server
    "address_parts",  # street, city, state, zip, country
    "entries",  # one value, or several separated by commas when the config makes a list
]
#: Which filter a client's records table offers for a field of the type.
FilteredAs = Literal["choice", "flag", "range", "dates", "link"]


@dataclass(frozen=True)
class ListSwitch:
    """The config member that makes a field's value a list: ``config[section][key]`` equal
    to ``value`` (of the same JSON type)."""

    section: str
    key: str
    value: str | bool

    def holds(self, config: Mapping[str, Any]) -> bool:
        section = config.get(self.section) if isinstance(config, Mapping) else None
        found = section.get(self.key) if isinstance(section, Mapping) else None
        return type(found) is type(self.value) and found == self.value


#: How the offline agent planner reads a value of a type said in a chat message: words as they
#: are, a web address, an e-mail, a phone number, a number, an amount of money, a date, one or
#: more choice options, yes/no, a record named, or a user.
Spoken = Literal[
    "text", "url", "email", "phone", "number", "money", "date", "choice", "choices", "flag",
    "record", "user",
]  # fmt: skip


@dataclass(frozen=True)
class ModuleLink:
    """The module a field's values link records of: ``target`` None means any module."""

    target: str | None
    multi: bool


@dataclass(frozen=True)
class ConfigContext:
    """What a config check may look at besides the config: the module and the field's place."""

    schema: ModuleSchema
    self_slug: str
    #: the field's stored config when it is being changed, None on create
    stored: Mapping[str, Any] | None
    #: slugs of the module's other fields whose values link records (rollup sources)
    linking_slugs: frozenset[str]

    @property
    def other_slugs(self) -> set[str]:
        return {f.slug for f in self.schema.fields if f.slug != self.self_slug}


#: Mapping keys inside values that are ids, never words (search skips them).
_ID_KEYS = frozenset({"recordId", "userId", "avatar", "id"})


def strings_of(value: Any) -> Iterator[str]:
    """Every string inside a JSON value, skipping id-like members."""
    if isinstance(value, str):
        yield value
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if key not in _ID_KEYS:
                yield from strings_of(item)
    elif isinstance(value, list | tuple):
        for item in value:
            yield from strings_of(item)


def is_empty(value: Any) -> bool:
    """True for null, a blank string, an empty list, or an object whose members are all empty.

    ``False`` and ``0`` are values, not emptiness.
    """
    stack = [value]
    while stack:
        item = stack.pop()
        if item is None:
            continue
        if isinstance(item, str):
            if item.strip():
                return False
        elif isinstance(item, list | tuple | set | frozenset):
            if item:
                return False
        elif isinstance(item, Mapping):
            stack.extend(item.values())
        else:
            return False
    return True


class FieldType:
    """One ``dataType``. Subclasses set :attr:`data_type` and override what differs."""

    #: The ``dataType`` identifier (snake_case); the registry keys the type by it.
    data_type: ClassVar[str]
    #: The server computes the value (formula, rollup, autonumber); a client never sets it.
    read_only: ClassVar[bool] = False
    #: The value is computed from other values (formula, rollup): a config change recomputes it.
    derived: ClassVar[bool] = False
    #: Values are words worth indexing for search (names, text, choices); numbers and dates not.
    searchable: ClassVar[bool] = False
    #: Values point at other records, kept in the links table (reference, parent_record).
    links_records: ClassVar[bool] = False
    #: A field of the type may be declared ``unique`` (its value is one string to look up).
    keeps_unique: ClassVar[bool] = False
    #: The field's config keeps a counter that each create advances (autonumber): storage
    #: reads such configs once per write transaction and writes them back with its flushes.
    counts: ClassVar[bool] = False
    #: How a CSV import reads a cell of the type (:data:`CellKind`).
    csv_cell: ClassVar[CellKind] = "json"
    #: How aggregates group by the type (:data:`Grouping`), None when they cannot.
    grouping: ClassVar[Grouping | None] = None
    #: How the offline planner reads a value said in a message (:data:`Spoken`), None when it
    #: does not read the type from text.
    spoken: ClassVar[Spoken | None] = None
    #: What a write may give in another shape than a read returns (OpenAPI's
    #: ``FieldValue_<dataType>`` description), None when writes and reads agree.
    write_form: ClassVar[str | None] = None
    #: A value a client may write (None for computed types), with a config that takes it:
    #: the registry-wide tests write it through the API for every type.
    example: ClassVar[Any] = None
    example_config: ClassVar[Mapping[str, Any]] = {}
    #: The config member that makes a value a list of entries, None when nothing does.
    list_switch: ClassVar[ListSwitch | None] = None
    #: How a client shows, edits and filters values (:meth:`client_facts`): the web console
    #: reads these instead of naming types. ``edited_as`` None: not edited in a form.
    shown_as: ClassVar[ShownAs] = "plain"
    edited_as: ClassVar[EditedAs | None] = "line"
    filtered_as: ClassVar[FilteredAs | None] = None
    #: The keyboard a phone offers for an ``entries`` value (HTML ``inputmode``).
    input_mode: ClassVar[str | None] = None

    # --- values -------------------------------------------------------------------------------

    def normalise(self, field: FieldDef, value: Any) -> Result:
        """Validate and normalise one non-null value; issue paths are relative to the value."""
        raise NotImplementedError(self.data_type)

    def is_unique(self, field: FieldDef) -> bool:
        """Whether the field is declared unique (only types that :attr:`keeps_unique`)."""
        return self.keeps_unique and bool(field.config.get("unique"))

    def next_number(
        self, config: Mapping[str, Any], sequence: str | None
    ) -> tuple[int, dict[str, Any]]:
        """For a type that :attr:`counts`: the number a new record takes from the counter in a
        field's stored ``config`` (``sequence`` names one of several), and the config advanced
        past it. ``config`` itself is left as it was (a savepoint may still hold it)."""
        raise NotImplementedError(self.data_type)

    def sequence(self, field: FieldDef, values: Mapping[str, Any]) -> str | None:
        """For a type that :attr:`counts`: the named counter a new record with ``values``
        draws from, None for the field's own."""
        return None

    def render(self, field: FieldDef, values: Mapping[str, Any], number: int) -> Any:
        """For a type that :attr:`counts`: the value a new record stores for its number."""
        raise NotImplementedError(self.data_type)

    def holds_list(self, field: FieldDef) -> bool:
        """Whether the field's config makes its value a list of entries (multi-entry)."""
        return self.list_switch is not None and self.list_switch.holds(field.config)

    def bare_item(self, text: str) -> Any:
        """One list entry written as bare text in a CSV cell."""
        return text

    def is_blank(self, value: Any) -> bool:
        """Whether a normalised value is empty for ``isRequired``."""
        return is_empty(value)

    def default(self, field: FieldDef) -> Any:
        """The value a create that leaves the field out gets, or None for none."""
        return None

    def value_schema(self) -> dict[str, Any]:
        """The JSON schema (OpenAPI 3.1) of a stored value, as records return it."""
        return {}

    def client_facts(self) -> dict[str, Any]:
        """What a client needs to show, edit and filter the type's values (JSON)."""
        switch = self.list_switch
        return {
            "shownAs": self.shown_as,
            "editedAs": None if self.read_only else self.edited_as,
            "filteredAs": self.filtered_as,
            "inputMode": self.input_mode,
            "listWhen": None if switch is None else asdict(switch),
        }

    # --- definitions --------------------------------------------------------------------------

    def check_config(
        self, config: dict[str, Any], ctx: ConfigContext
    ) -> tuple[dict[str, Any], list[Issue]]:
        """The config to store for a field definition of this type, and its problems."""
        return config, []

    # --- lists and search ---------------------------------------------------------------------

    def filter_kind(self, field: FieldDef) -> FilterKind:
        """How filters and sorts read the field's stored value (the storage kind)."""
        return FilterKind("opaque", field.slug)

    def operators(self, field: FieldDef) -> frozenset[str]:
        """The filter operators a condition on this field may use (what the list-query parser
        accepts). By default its kind's; a type overrides this to narrow or widen them."""
        return ALLOWED_OPS[self.filter_kind(field).base]

    def search_text(self, value: Any) -> Iterator[str]:
        """The words of a value for the search index (nothing unless :attr:`searchable`)."""
        if self.searchable:
            yield from strings_of(value)

    # --- links --------------------------------------------------------------------------------

    def reads_fields(self, field: FieldDef) -> frozenset[str]:
        """Slugs of the module's fields the definition reads (a formula's references, a
        rollup's linking field): changing or archiving one of them names this field."""
        return frozenset()

    def allowed_modules(self, field: FieldDef) -> tuple[str, ...]:
        """Modules (slugs) whose records the field's config names as link targets."""
        return ()

    def module_link(self, field: FieldDef, module_slug: str) -> ModuleLink | None:
        """The module reference the field carries (its module is ``module_slug``), if any."""
        return None

    def link_checks(self, field: FieldDef, value: Any) -> list[LinkCheck]:
        """Records or users a normalised value names, for the caller to verify in storage."""
        return []

    def link_targets(self, field: FieldDef, value: Any) -> list[str]:
        """Record ids a stored value points at (kept in the links table)."""
        return []

    def without_targets(self, field: FieldDef, value: Any, gone: set[str]) -> tuple[bool, Any]:
        """``(changed, value)`` with links to the ``gone`` records removed (None: no value)."""
        return False, value
