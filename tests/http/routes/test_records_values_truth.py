"""Values over HTTP tell the truth: no 500 on any value, people and references carry the
names of what they point at, and bodies that are not what they claim are refused."""

from __future__ import annotations

from typing import Any

import httpx
from hypothesis import Phase, given, settings
from hypothesis import strategies as st

from fieldhouse.model.fields import DATA_TYPES
from fieldhouse.runtime import Runtime
from tests.conftest import Workspace, add_user
from tests.http.routes.test_records_values import CASES
from tests.http.test_auth import assert_envelope
from tests.http.test_records_crud import BASE_FIELDS, create, records_url


async def post(
    client: httpx.AsyncClient, ws: Workspace, module: str, fields: Any
) -> httpx.Response:
    body = {"displayName": "R", "fields": {**BASE_FIELDS[module], **fields}}
    return await client.post(records_url(module), headers=ws.headers, json=body)


def field_issue(resp: httpx.Response, slug: str) -> dict[str, Any]:
    assert resp.status_code == 400, resp.text
    error = resp.json()["error"]
    assert error["code"] == "validation_error"
    found = [i for i in error["issues"] if i["path"][:2] == ["fields", slug]]
    assert found, error
    return dict(found[0])


async def test_huge_numbers_are_400_naming_the_field(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    for huge in (1e20, 2**64, 18446744073709551616, -1e300):
        resp = await post(client, ws, "companies", {"employees": huge})
        assert field_issue(resp, "employees")["code"] in ("too_big", "too_small")
    resp = await post(client, ws, "deals", {"sales-cycle": 1e30})
    assert field_issue(resp, "sales-cycle")["code"] == "too_big"
    resp = await post(client, ws, "deals", {"sales-cycle": "99999999999999:00"})
    assert field_issue(resp, "sales-cycle")["code"] == "too_big"
    resp = await post(client, ws, "deals", {"amount": {"amount": 1e20, "currency": "USD"}})
    assert field_issue(resp, "amount")["path"] == ["fields", "amount", "amount"]


async def test_iso_times_and_durations(client: httpx.AsyncClient, ws: Workspace) -> None:
    record = await create(client, ws, "tasks", {"due-time": "09:30:00.250", "estimate": "PT1H30M"})
    assert record["fields"]["due-time"] == "09:30:00.250"
    assert record["fields"]["estimate"] == 5400


async def test_phone_numbers_are_real(client: httpx.AsyncClient, ws: Workspace) -> None:
    resp = await post(client, ws, "companies", {"phone": "+999999999999"})
    assert field_issue(resp, "phone")["code"] == "invalid_string"


async def test_person_values_carry_the_users_name_and_email(
    client: httpx.AsyncClient, runtime: Runtime, ws: Workspace
) -> None:
    member = await add_user(runtime, ws, "member")
    user = await runtime.store.get_user(ws.account_id, member.owner_id)
    assert user is not None and user.display_name and user.email
    supplied = {"userId": member.owner_id, "displayName": "Someone Else", "email": None}
    record = await create(client, ws, "deals", {"owner": supplied})
    expected = {
        "userId": member.owner_id,
        "displayName": user.display_name,
        "email": user.email,
        "avatar": None,
    }
    assert record["fields"]["owner"] == expected
    resp = await client.get(records_url("deals", record["recordId"]), headers=ws.headers)
    assert resp.json()["record"]["fields"]["owner"] == expected


async def test_references_follow_a_renamed_target(client: httpx.AsyncClient, ws: Workspace) -> None:
    company = await create(client, ws, "companies", name="Acme Inc")
    contact = await create(client, ws, "contacts", {"company": company["recordId"]})
    assert contact["fields"]["company"]["displayName"] == "Acme Inc"
    resp = await client.patch(
        records_url("companies", company["recordId"]),
        headers=ws.headers,
        json={"displayName": "Acme Holdings"},
    )
    assert resp.status_code == 200, resp.text
    one = await client.get(records_url("contacts", contact["recordId"]), headers=ws.headers)
    assert one.json()["record"]["fields"]["company"]["displayName"] == "Acme Holdings"
    listed = await client.get(records_url("contacts"), headers=ws.headers)
    names = {
        r["recordId"]: r["fields"].get("company", {}).get("displayName")
        for r in listed.json()["records"]
    }
    assert names[contact["recordId"]] == "Acme Holdings"


async def test_blank_strings_are_not_values(client: httpx.AsyncClient, ws: Workspace) -> None:
    resp = await client.post(
        records_url("companies"),
        headers=ws.headers,
        json={"displayName": "   ", "fields": BASE_FIELDS["companies"]},
    )
    assert_envelope(resp, 400, "validation_error")
    assert [i["path"] for i in resp.json()["error"]["issues"]] == [["displayName"]]
    record = await create(client, ws, "companies")
    resp = await client.patch(
        records_url("companies", record["recordId"]),
        headers=ws.headers,
        json={"displayName": "\t \n"},
    )
    assert_envelope(resp, 400, "validation_error")
    resp = await client.post("/v1/search", headers=ws.headers, json={"query": "   "})
    assert_envelope(resp, 400, "validation_error")
    assert [i["path"] for i in resp.json()["error"]["issues"]] == [["query"]]


async def test_a_boolean_is_not_a_limit(client: httpx.AsyncClient, ws: Workspace) -> None:
    resp = await client.post("/v1/search", headers=ws.headers, json={"query": "a", "limit": True})
    assert_envelope(resp, 400, "validation_error")
    issue = resp.json()["error"]["issues"][0]
    assert issue["path"] == ["limit"] and issue["code"] == "invalid_type"


async def test_a_body_that_is_not_json_is_415(client: httpx.AsyncClient, ws: Workspace) -> None:
    body = '{"displayName": "Acme", "fields": {"name": "Acme"}}'
    headers = {**ws.headers, "Content-Type": "text/plain"}
    resp = await client.post(records_url("companies"), headers=headers, content=body)
    assert_envelope(resp, 415, "unsupported_media_type")
    listed = await client.get(records_url("companies"), headers=ws.headers)
    assert listed.json()["total"] == 0
    headers = {**ws.headers, "Content-Type": "application/json; charset=utf-8"}
    resp = await client.post(records_url("companies"), headers=headers, content=body)
    assert resp.status_code == 201, resp.text


#: (module, slug) of one field of every writable type in the built-in templates
WRITABLE = [(c.module, c.slug) for c in CASES]
numbers = (
    st.integers(min_value=-(2**70), max_value=2**70)
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.sampled_from([1e20, 2**53, 2**53 - 1, -(2**63), 0.1, 1e-300])
)
values = st.recursive(
    numbers | st.none() | st.booleans() | st.text(max_size=12),
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(["amount", "currency", "start", "end", "url"]), inner)
    ),
    max_leaves=5,
)


def draw_examples(count: int) -> list[tuple[tuple[str, str], Any]]:
    """``count`` (field, value) pairs drawn by Hypothesis (generation only: the server runs in
    the test's own trio run, which a Hypothesis example cannot re-enter)."""
    drawn: list[tuple[tuple[str, str], Any]] = []

    @settings(max_examples=count, database=None, phases=[Phase.generate], deadline=None)
    @given(target=st.sampled_from(WRITABLE), value=values)
    def collect(target: tuple[str, str], value: Any) -> None:
        drawn.append((target, value))

    collect()
    return drawn


async def test_any_value_is_stored_and_read_back_or_refused(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    for (module, slug), value in draw_examples(60):
        resp = await post(client, ws, module, {slug: value})
        if resp.status_code == 400:
            field_issue(resp, slug)
            continue
        assert resp.status_code == 201, (slug, value, resp.text)
        created = resp.json()["record"]
        got = await client.get(records_url(module, created["recordId"]), headers=ws.headers)
        assert got.status_code == 200
        assert got.json()["record"]["fields"].get(slug) == created["fields"].get(slug), value


async def test_openapi_describes_every_field_types_value(client: httpx.AsyncClient) -> None:
    schemas = (await client.get("/openapi.json")).json()["components"]["schemas"]
    for name in DATA_TYPES:
        assert schemas[f"FieldValue_{name}"]["description"].startswith("A record value")
    assert schemas["FieldValue_number"]["maximum"] == 2**53 - 1
    assert "CHF" in schemas["FieldValue_currency"]["properties"]["currency"]["enum"]
