"""What the offline planner knows of a workspace's schema: its modules (slug, name, the words
people use for them) and each module's fields (slug, label, type, a choice field's options).

It reads modules in the shape GET /v1/modules gives (``slug``, ``name``, ``fields`` with
``slug``, ``label``, ``dataType``, ``config``); without one, the built-in templates every
workspace's standard modules are made from.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from fieldhouse.model.fields import field_type
from fieldhouse.model.fields.base import Spoken
from fieldhouse.model.schema import FieldDef

#: everyday words for the standard modules, by module slug (a module's own name, singular and
#: plural, always counts)
MODULE_WORDS: Mapping[str, tuple[str, ...]] = {
    "contacts": ("person", "people", "persons", "contact", "anyone", "someone", "anybody"),
    "companies": ("organisation", "organization", "org", "account", "firm", "business", "co"),
    "deals": ("opportunity", "opportunities", "opp", "opps", "pipeline", "deal"),
    "tasks": (
        "to-do", "to-dos", "todo", "todos", "to do", "task", "activity", "activities",
        "ticket", "tickets",
    ),
}  # fmt: skip
#: everyday words for fields, by field slug
FIELD_WORDS: Mapping[str, tuple[str, ...]] = {
    "employees": ("headcount", "staff count", "employee count", "number of employees", "emp"),
    "emails": ("email", "e-mail", "mail", "email address"),
    "phones": ("phone", "phone number", "mobile", "cell", "number"),
    "phone": ("phone", "phone number"),
    "job-title": ("title", "role", "position", "job", "designation"),
    "close-date": (
        "close date",
        "closing date",
        "closing",
        "close",
        "closes",
        "closed",
        "expected close",
    ),
    "due-date": ("due", "deadline", "due date"),
    "amount": ("value", "worth", "size"),
    "probability": ("chance", "odds", "likelihood", "prob"),
    "tags": ("tag", "tagged", "label", "labelled"),
    "owner": ("owner", "owned by", "assigned to"),
    "assignee": ("assigned to", "assignee", "owner"),
    "lost-reason": ("reason",),
    "website": ("site", "url", "domain", "web"),
    "industry": ("sector", "vertical"),
    "company": ("company", "works at", "employer"),
    "related-deal": ("deal", "on the deal", "for the deal"),
}
#: words that count what a number field counts, said after the number ("~120 ppl", "900
#: staff"), by field slug: they name the field only right after a number
FIELD_UNITS: Mapping[str, tuple[str, ...]] = {
    "employees": ("people", "ppl", "staff", "heads", "employee", "workers", "persons"),
    "probability": ("percent", "per cent", "pct", "%"),
}
#: everyday words for choice options, by option value
OPTION_WORDS: Mapping[str, tuple[str, ...]] = {
    "done": ("completed", "complete", "finished"),
    "in-progress": ("ongoing", "underway", "in flight", "started"),
    "follow-up": ("followup", "follow up"),
    "urgent": ("critical", "asap"),
    "won": ("closed won", "close won", "win"),
    "lost": ("closed lost", "lose"),
}
#: generic one-word suffixes of labels that name no field on their own
_GENERIC = {"name", "number", "date", "type", "value", "count", "time", "stage", "period"}


def words(text: str) -> str:
    """Lower case, hyphens and underscores as spaces, runs of space collapsed."""
    return " ".join(re.sub(r"[-_/]", " ", text.lower().replace("\u2019", "'")).split())


def plural(word: str) -> str:
    if word.endswith("y") and not word.endswith(("ay", "ey", "oy", "uy")):
        return word[:-1] + "ies"
    if word.endswith(("s", "x", "ch", "sh")):
        return word + "es"
    return word + "s"


def singular(word: str) -> str:
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


@dataclass(frozen=True)
class Option:
    value: str
    label: str

    def phrases(self) -> set[str]:
        said = {words(self.value), words(self.label)}
        said |= {words(w) for w in OPTION_WORDS.get(self.value, ())}
        return said | {plural(p) for p in said if " " not in p} | {singular(p) for p in said}


@dataclass(frozen=True)
class Field:
    slug: str
    label: str
    type: str
    options: tuple[Option, ...] = ()
    #: a reference field's target module
    target: str | None = None
    required: bool = False
    display: bool = False
    #: how a value said in a message is read (the field type's ``spoken``), None: not at all
    reads: Spoken | None = None
    #: the server computes the value (the field type is read-only)
    computed: bool = False
    #: the value is a list of entries (several e-mails or phones)
    many: bool = False

    def phrases(self) -> set[str]:
        label = words(self.label)
        said = {label, words(self.slug), singular(words(self.slug)), singular(label)}
        parts = label.split()
        for i in range(1, len(parts)):
            tail = " ".join(parts[i:])
            if tail not in _GENERIC:
                said.add(tail)
        said |= {words(w) for w in FIELD_WORDS.get(self.slug, ())}
        return {s for s in said if s}

    def units(self) -> set[str]:
        """Words that name the field when said right after a number ("120 people")."""
        return {words(w) for w in FIELD_UNITS.get(self.slug, ())}


@functools.lru_cache(maxsize=256)
def _phrases(f: Field) -> frozenset[str]:
    """A field's names, worked out once: a message in code matches each key against every
    field (a 4,000-character one took 0.15 s to read without this, 0.02 s with it)."""
    return frozenset(f.phrases())


@dataclass(frozen=True)
class Module:
    slug: str
    name: str
    fields: tuple[Field, ...]
    synonyms: tuple[str, ...] = field(default=())

    def phrases(self) -> set[str]:
        base = {words(self.slug), words(self.name)} | {words(s) for s in self.synonyms}
        return base | {singular(b) for b in base} | {plural(b) for b in base if " " not in b}

    @property
    def display_fields(self) -> list[Field]:
        shown = [f for f in self.fields if f.display]
        return shown or [f for f in self.fields if f.reads == "text"][:1]

    def field(self, slug: str) -> Field | None:
        return next((f for f in self.fields if f.slug == slug), None)

    def field_said(self, said: str, among: Iterable[Field] | None = None) -> Field | None:
        """The first field (of ``among``, else of the module) that ``said`` (in
        :func:`words`) names exactly: one of its names, or their singular."""
        for f in self.fields if among is None else among:
            phrases = _phrases(f)
            if said in phrases or singular(said) in phrases:
                return f
        return None

    def fields_of(self, *reads: Spoken) -> list[Field]:
        """The fields whose values are read as one of ``reads`` (the field types' ``spoken``)."""
        return [f for f in self.fields if f.reads in reads]


@dataclass(frozen=True)
class Workspace:
    modules: tuple[Module, ...]

    def module(self, slug: str) -> Module | None:
        return next((m for m in self.modules if m.slug == slug), None)

    @functools.cached_property
    def module_words(self) -> frozenset[str]:
        """The words that name a module ("contact", "deals"), worked out once."""
        return frozenset(p for m in self.modules for p in m.phrases())

    @classmethod
    def from_modules(cls, modules: Iterable[Mapping[str, Any]]) -> Workspace:
        """From module objects as GET /v1/modules returns them (with their fields)."""
        made = []
        for module in modules:
            slug = str(module.get("slug") or module.get("moduleSlug") or "")
            fields = tuple(_field(f) for f in module.get("fields") or [])
            name = str(module.get("name") or module.get("moduleName") or slug)
            made.append(Module(slug, name, fields, MODULE_WORDS.get(slug, ())))
        return cls(tuple(made))


def _field(raw: Mapping[str, Any]) -> Field:
    config = raw.get("config") or {}
    options = []
    for option in config.get("options") or []:
        if isinstance(option, Mapping):
            value = str(option.get("value") or option.get("slug") or "")
            options.append(Option(value, str(option.get("label") or value)))
        else:
            options.append(Option(str(option), str(option)))
    reference = config.get("reference") or {}
    allowed: Sequence[str] = reference.get("allowedModuleSlugs") or []
    slug = str(raw.get("slug") or "")
    data_type = str(raw.get("dataType") or raw.get("data_type") or "text")
    kind = field_type(data_type)
    definition = FieldDef("", "", slug, slug, slug, data_type, config)
    return Field(
        slug=slug,
        label=str(raw.get("label") or raw.get("name") or slug),
        type=data_type,
        options=tuple(options),
        target=allowed[0] if allowed else None,
        required=bool(raw.get("isRequired") or raw.get("is_required")),
        display=bool(config.get("isDisplayField")),
        reads=kind.spoken if kind else None,
        computed=kind.read_only if kind else False,
        many=kind.holds_list(definition) if kind else False,
    )


def builtin() -> Workspace:
    """The standard modules, from the built-in templates."""
    from fieldhouse.model.templates import BUILTIN_TEMPLATES

    return Workspace.from_modules(
        {
            "slug": t.module_slug,
            "name": t.module_name,
            "fields": [
                {
                    "slug": f.slug,
                    "label": f.label,
                    "dataType": f.data_type,
                    "config": f.config,
                    "isRequired": f.is_required,
                }
                for f in t.fields
            ],
        }
        for t in BUILTIN_TEMPLATES
    )
