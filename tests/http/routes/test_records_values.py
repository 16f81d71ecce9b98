"""Every dataType through POST and PATCH: one valid value (as stored) and invalid ones.

Each invalid value must give exactly one issue, at ``["fields", <slug>, ...]`` with its code.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from fieldhouse.model.fields import DATA_TYPES
from fieldhouse.model.templates import BUILTIN_TEMPLATES
from fieldhouse.runtime import Runtime
from tests.conftest import Workspace
from tests.http.test_auth import assert_envelope
from tests.http.test_records_crud import BASE_FIELDS, create, records_url

#: Stand-ins resolved per test: another record's id, the owner's user id, a random uuid.
COMPANY, DEAL, OWNER, RANDOM = "<company>", "<deal>", "<owner>", "<random>"
#: The owner's name and email: a person value carries the user's own, whatever was supplied.
OWNER_NAME, OWNER_EMAIL = "<owner name>", "<owner email>"


@dataclass(frozen=True)
class Case:
    data_type: str
    module: str
    slug: str
    valid: Any
    stored: Any
    #: (value, issue code, issue path below ["fields", slug])
    invalid: tuple[tuple[Any, str, tuple[str | int, ...]], ...]


CASES = (
    Case(
        "text",
        "contacts",
        "job-title",
        "Engineer",
        "Engineer",
        ((12, "invalid_type", ()), ("x" * 151, "too_big", ()), (["a"], "invalid_type", ())),
    ),
    Case(
        "textarea",
        "deals",
        "lost-reason",
        "Line one\nLine two",
        "Line one\nLine two",
        (("x" * 2001, "too_big", ()), ({"a": 1}, "invalid_type", ())),
    ),
    Case(
        "rich_text",
        "contacts",
        "notes",
        "<p>Hi <b>there</b><script>alert(1)</script></p>",
        "<p>Hi <b>there</b></p>",
        ((5, "invalid_type", ()), ("x" * 100_001, "too_big", ())),
    ),
    Case(
        "email",
        "contacts",
        "emails",
        [{"id": "e1", "value": "Ada@Example.COM", "label": "work", "isPrimary": True}],
        [{"id": "e1", "value": "Ada@example.com", "label": "work", "isPrimary": True}],
        (
            (["not-an-email"], "invalid_string", (0, "value")),
            ("ada@example.com", "invalid_type", ()),
            (
                [{"value": "a@b.co", "isPrimary": True}, {"value": "c@d.co", "isPrimary": True}],
                "custom",
                (1, "isPrimary"),
            ),
            ([{"value": "a@b.co", "kind": "x"}], "unrecognized_keys", (0, "kind")),
        ),
    ),
    Case(
        "url",
        "companies",
        "website",
        "https://acme.example/about",
        "https://acme.example/about",
        (
            ("ftp://acme.example", "invalid_string", ()),
            ("acme.example", "invalid_string", ()),
            (7, "invalid_type", ()),
        ),
    ),
    Case(
        "phone",
        "companies",
        "phone",
        "+14155550123",
        "+14155550123",
        (
            ("415-555-0123", "invalid_string", ()),
            ("+0123456", "invalid_string", ()),
            (4155550123, "invalid_type", ()),
        ),
    ),
    Case(
        "address",
        "contacts",
        "address",
        {"street": "1 Main St", "city": "Springfield", "country": "US", "lat": 39.8},
        {
            "street": "1 Main St",
            "street2": "",
            "city": "Springfield",
            "state": "",
            "zip": "",
            "country": "US",
            "lat": 39.8,
            "lng": None,
        },
        (
            ({"city": "X", "planet": "Mars"}, "unrecognized_keys", ("planet",)),
            ({"city": "X", "lat": 91}, "too_big", ("lat",)),
            ({"zip": "12345"}, "custom", ()),
            ("1 Main St", "invalid_type", ()),
        ),
    ),
    Case(
        "number",
        "companies",
        "employees",
        250,
        250,
        ((1.5, "custom", ()), ("12", "invalid_type", ()), (True, "invalid_type", ())),
    ),
    Case(
        "currency",
        "deals",
        "amount",
        {"amount": 10.25, "currency": "eur"},
        {"amount": 10.25, "currency": "EUR"},
        (
            ({"amount": 1.234}, "custom", ("amount",)),
            ({"amount": 1, "currency": "JPY"}, "invalid_enum_value", ("currency",)),
            ({"currency": "USD"}, "required", ("amount",)),
            (12, "invalid_type", ()),
        ),
    ),
    Case(
        "date",
        "contacts",
        "birthday",
        "1990-02-28",
        "1990-02-28",
        (
            ("1899-12-31", "too_small", ()),
            ("1990-02-30", "invalid_string", ()),
            ("28/02/1990", "invalid_string", ()),
        ),
    ),
    Case(
        "time",
        "tasks",
        "due-time",
        "09:30",
        "09:30:00",
        (("24:00", "invalid_string", ()), ("9am", "invalid_string", ()), (930, "invalid_type", ())),
    ),
    Case(
        "date_range",
        "deals",
        "contract-period",
        {"start": "2024-01-01", "end": "2024-12-31"},
        {"start": "2024-01-01", "end": "2024-12-31"},
        (
            ({"start": "2024-12-31", "end": "2024-01-01"}, "custom", ("end",)),
            ({"start": "2024-01-01"}, "required", ("end",)),
            ({"start": "soon", "end": "2024-01-01"}, "invalid_string", ("start",)),
        ),
    ),
    Case(
        "duration",
        "deals",
        "sales-cycle",
        "1h 30m",
        5400,
        ((-5, "too_small", ()), ("soon", "custom", ()), (True, "invalid_type", ())),
    ),
    Case(
        "select",
        "deals",
        "stage",
        "won",
        "won",
        (("closed", "invalid_enum_value", ()), (1, "invalid_type", ()), (None, "required", ())),
    ),
    Case(
        "multi_select",
        "contacts",
        "tags",
        ["vip", "champion", "vip", "met-at-expo"],
        ["vip", "champion", "met-at-expo"],
        (
            ([f"t{i}" for i in range(11)], "too_big", ()),
            (["vip", 3], "invalid_type", (1,)),
            ("vip", "invalid_type", ()),
        ),
    ),
    Case(
        "boolean",
        "tasks",
        "done",
        True,
        True,
        (("yes", "invalid_type", ()), (1, "invalid_type", ())),
    ),
    Case(
        "reference",
        "contacts",
        "company",
        COMPANY,
        {"recordId": COMPANY, "displayName": "Acme Inc"},
        (
            ("not-a-uuid", "invalid_string", ()),
            (RANDOM, "invalid_reference", ()),
            (DEAL, "invalid_reference", ()),
            ([COMPANY], "invalid_type", ()),
        ),
    ),
    Case(
        "person",
        "deals",
        "owner",
        OWNER,
        {"userId": OWNER, "displayName": OWNER_NAME, "email": OWNER_EMAIL, "avatar": None},
        (
            (RANDOM, "invalid_reference", ()),
            ({"userId": OWNER, "role": "x"}, "unrecognized_keys", ("role",)),
            (42, "invalid_type", ()),
        ),
    ),
    Case(
        "parent_record",
        "companies",
        "parent-company",
        {"recordId": COMPANY},
        COMPANY,
        (
            ("nope", "invalid_string", ()),
            (DEAL, "invalid_reference", ()),
            (RANDOM, "invalid_reference", ()),
        ),
    ),
    Case(
        "image",
        "companies",
        "logo",
        "https://cdn.example/logo.PNG",
        {"url": "https://cdn.example/logo.PNG", "name": None, "sizeKB": None, "format": "png"},
        (
            ("https://cdn.example/logo.bmp", "invalid_enum_value", ("url",)),
            ({"url": "https://cdn.example/a.png", "sizeKB": 2048}, "too_big", ("sizeKB",)),
            (["https://cdn.example/a.png"], "invalid_type", ()),
            ("https://cdn.example/logo", "custom", ("format",)),
        ),
    ),
    Case(
        "rating",
        "companies",
        "health",
        4,
        4,
        ((6, "too_big", ()), (3.5, "invalid_type", ()), (-1, "too_small", ())),
    ),
    Case(
        "progress",
        "deals",
        "probability",
        55.5,
        55.5,
        ((101, "too_big", ()), (-1, "too_small", ()), ("50", "invalid_type", ())),
    ),
    Case(
        "social_profile",
        "contacts",
        "linkedin",
        "https://www.linkedin.com/in/ada",
        {"url": "https://www.linkedin.com/in/ada", "platform": "linkedin"},
        (
            ("https://twitter.com/ada", "invalid_enum_value", ()),
            ("linkedin.com/in/ada", "invalid_string", ()),
            ({"platform": "linkedin"}, "required", ("url",)),
        ),
    ),
)
READ_ONLY = (("formula", "deals", "weighted-value"), ("rollup", "companies", "deal-count"))
READ_ONLY += (("autonumber", "deals", "deal-number"),)


def test_every_data_type_is_covered() -> None:
    covered = {c.data_type for c in CASES} | {t for t, _, _ in READ_ONLY}
    assert covered == {f.data_type for t in BUILTIN_TEMPLATES for f in t.fields}
    assert covered <= set(DATA_TYPES)
    assert {c.module for c in CASES} == set(MODULES)


def _resolve(value: Any, names: dict[str, str]) -> Any:
    if isinstance(value, str):
        return names.get(value, value)
    if isinstance(value, list):
        return [_resolve(v, names) for v in value]
    if isinstance(value, dict):
        return {k: _resolve(v, names) for k, v in value.items()}
    return value


async def _names(client: httpx.AsyncClient, ws: Workspace, runtime: Runtime) -> dict[str, str]:
    company = await create(client, ws, "companies", name="Acme Inc")
    deal = await create(client, ws, "deals")
    owner = await runtime.store.get_user(ws.account_id, ws.owner_id)
    assert owner is not None
    return {
        COMPANY: company["recordId"],
        DEAL: deal["recordId"],
        OWNER: ws.owner_id,
        OWNER_NAME: owner.display_name,
        OWNER_EMAIL: owner.email,
        RANDOM: str(uuid.uuid4()),
    }


def _one_issue(
    resp: httpx.Response, slug: str, code: str, path: tuple[str | int, ...], case: object
) -> None:
    error = assert_envelope(resp, 400, "validation_error")
    issues = error["issues"]
    assert isinstance(issues, list)
    assert [(i["code"], i["path"]) for i in issues] == [(code, ["fields", slug, *path])], case


async def _check(
    client: httpx.AsyncClient, ws: Workspace, case: Case, names: dict[str, str]
) -> None:
    """The valid value is stored as expected; each invalid one is refused on POST and PATCH."""
    made = await create(client, ws, case.module, {case.slug: _resolve(case.valid, names)})
    assert made["fields"][case.slug] == _resolve(case.stored, names), case.data_type
    url = records_url(case.module)
    target = records_url(case.module, made["recordId"])
    for raw, code, path in case.invalid:
        value = _resolve(raw, names)
        fields = {**BASE_FIELDS[case.module], case.slug: value}
        body = {"displayName": "R", "fields": fields}
        created = await client.post(url, headers=ws.headers, json=body)
        _one_issue(created, case.slug, code, path, (case.data_type, raw))
        patch = {"fields": {case.slug: value}}
        patched = await client.patch(target, headers=ws.headers, json=patch)
        _one_issue(patched, case.slug, code, path, (case.data_type, raw))
    after = await client.get(target, headers=ws.headers)
    assert after.json()["record"]["fields"] == made["fields"]


#: One workspace per module keeps the suite quick (each case still runs in full).
MODULES = ("contacts", "companies", "deals", "tasks")


@pytest.mark.parametrize("module", MODULES)
async def test_values_by_data_type(
    client: httpx.AsyncClient, ws: Workspace, runtime: Runtime, module: str
) -> None:
    names = await _names(client, ws, runtime)
    for case in CASES:
        if case.module == module:
            await _check(client, ws, case, names)


async def test_read_only_kinds(client: httpx.AsyncClient, ws: Workspace) -> None:
    for data_type, module, slug in READ_ONLY:
        made = await create(client, ws, module)
        for value in ("x", 1, None):
            body = {"displayName": "R", "fields": {**BASE_FIELDS[module], slug: value}}
            created = await client.post(records_url(module), headers=ws.headers, json=body)
            _one_issue(created, slug, "read_only", (), data_type)
            patch = {"fields": {slug: value}}
            url = records_url(module, made["recordId"])
            patched = await client.patch(url, headers=ws.headers, json=patch)
            _one_issue(patched, slug, "read_only", (), data_type)
