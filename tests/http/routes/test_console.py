"""The web console at /console (issue 34): its files and headers, and the app itself driven in a
real headless Chromium against the real server on a loopback port, seeded with the demo data.

The browser tests need Debian's chromium and chromium-driver (`make browser`), as
test_ops_docs does; they share one server and one browser (module-scoped) to stay fast.
FIELDHOUSE_SCREENSHOTS=docs/screenshots writes the README's screenshots there (otherwise
they go to a temporary folder: the phone-width layout is checked either way).
"""

from __future__ import annotations

import json
import os
import queue
import shutil
import threading
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from fnmatch import fnmatch
from functools import partial
from importlib.resources import files
from pathlib import Path
from typing import Any

import httpx
import pytest
import trio
from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.remote.webelement import WebElement
from selenium.webdriver.support.ui import Select, WebDriverWait

from fieldhouse.actors import admin_ops as ops
from fieldhouse.config import Settings
from fieldhouse.demo import create_demo
from fieldhouse.http.auth import issue_token
from fieldhouse.http.routes.console import CSP
from fieldhouse.http.wire.server import serve_app
from fieldhouse.model.fields import FIELD_TYPES
from fieldhouse.model.principal import SystemActor
from fieldhouse.runtime import open_runtime
from tests.conftest import Workspace

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
ROOT = Path(__file__).resolve().parents[3]
#: how long a view may take to render (polled, not slept on)
DEADLINE = 20
DESKTOP = (1280, 800)
PHONE = (390, 844)
#: the page shows ranges ("1-10 of 24") with an en dash, not a hyphen
DASH = "\u2013"
JWT_SECRET = "console-test-secret-" + "x" * 32
MAIL = "send an email to bob@example.com about Pricing"

browser_only = pytest.mark.skipif(
    not (shutil.which(CHROMIUM) and shutil.which(CHROMEDRIVER)),
    reason="needs Debian's chromium and chromium-driver: make browser",
)


# --- the files and their headers (in process, both backends)


def _console_files() -> list[str]:
    folder = files("fieldhouse.http").joinpath("static", "console")
    return sorted(e.name for e in folder.iterdir() if e.is_file())


def test_every_file_ships_in_the_package() -> None:
    """The files are found through importlib.resources, and pyproject's package-data takes
    each of them into the wheel (a file left out would be missing from an installed server)."""
    names = _console_files()
    assert {"index.html", "app.js", "api.js", "style.css"} <= set(names)
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    globs = config["tool"]["setuptools"]["package-data"]["fieldhouse.http"]
    for name in names:
        assert any(fnmatch(f"static/console/{name}", g) for g in globs), name


async def test_console_routes_serve_files_with_headers(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    page = await client.get("/console")
    assert page.status_code == 200
    assert page.headers["content-type"] == "text/html; charset=utf-8"
    assert page.headers["content-security-policy"] == CSP
    assert "script-src 'self';" in CSP and "unsafe-inline" not in CSP
    assert page.headers["x-content-type-options"] == "nosniff"
    assert page.headers["x-frame-options"] == "DENY"
    assert page.headers["cache-control"] == "no-cache"
    assert '<script type="module" src="/console/assets/app.js">' in page.text
    assert "<script>" not in page.text and "style=" not in page.text  # nothing inline
    for name in _console_files():
        if name == "index.html":
            continue
        asset = await client.get(f"/console/assets/{name}")
        assert asset.status_code == 200, name
        kind = "text/javascript" if name.endswith(".js") else "text/css"
        assert asset.headers["content-type"] == f"{kind}; charset=utf-8"
        assert asset.headers["x-content-type-options"] == "nosniff"
        etag = asset.headers["etag"]
        again = await client.get(f"/console/assets/{name}", headers={"If-None-Match": etag})
        assert again.status_code == 304 and again.content == b""
        # the app never touches localStorage (the key stays in memory or sessionStorage)
        assert "localStorage." not in asset.text
    for missing in ("secrets.txt", "..%2Fconsole.py", "index.html", "%2E%2E"):
        gone = await client.get(f"/console/assets/{missing}")
        assert gone.status_code == 404, missing
        assert gone.json()["error"]["code"] == "not_found"
    # served under /v1 as well, as every path outside it is (the assets' URLs are absolute)
    assert (await client.get("/v1/console")).headers["content-security-policy"] == CSP
    # the console is not an API operation
    assert "/console" not in (await client.get("/openapi.json")).json()["paths"]


async def test_the_field_type_facts_are_written_from_the_registry(
    client: httpx.AsyncClient, ws: Workspace
) -> None:
    """field-types.js, the one module not in the folder: each dataType's facts from its type
    object, which the scripts read instead of naming types (a new type needs no script edit)."""
    asset = await client.get("/console/assets/field-types.js")
    assert asset.status_code == 200
    assert asset.headers["content-type"] == "text/javascript; charset=utf-8"
    again = await client.get(
        "/console/assets/field-types.js", headers={"If-None-Match": asset.headers["etag"]}
    )
    assert again.status_code == 304
    assert "export default {" in asset.text
    facts = json.loads(asset.text[asset.text.index("{") : asset.text.rindex("}") + 1])
    assert facts == {t: kind.client_facts() for t, kind in FIELD_TYPES.items()}
    assert facts["reference"]["filteredAs"] == "link"
    assert facts["phone"]["inputMode"] == "tel"


# --- the real server, seeded with the demo data


@dataclass(frozen=True)
class Served:
    base: str
    owner: str
    member: str
    viewer: str
    token: str
    contacts_total: int
    customers: int


async def _serve(data_dir: Path, handoff: queue.Queue[Any]) -> None:
    settings = Settings(
        data_dir=data_dir,
        port=0,
        rate_limit=100_000,
        embedding_process=False,
        embedder="wordllama-256",
        jwt_secret=JWT_SECRET,
        webhook_allow_hosts=("127.0.0.1",),
    )
    async with open_runtime(settings) as runtime, trio.open_nursery() as nursery:
        demo = await create_demo(runtime.actors)
        account = demo.account_id
        keys = {}
        for role in ("member", "viewer"):
            user = await runtime.actors.ask(
                ops.CreateUser(
                    f"{role}@example.com", role.title(), role, by=SystemActor(account, "test")
                )
            )
            keys[role] = await runtime.actors.ask(
                ops.CreateApiKey(user, None, role, by=SystemActor(account, "test"))
            )
        owner_id = await runtime.store.owner_user_id(account)
        assert owner_id is not None
        stop = trio.Event()
        binds = await nursery.start(partial(serve_app, runtime, shutdown_trigger=stop.wait))
        member = {"Authorization": f"Bearer {keys['member'].api_key}"}
        owner = {"Authorization": f"Bearer {demo.api_key}"}
        async with httpx.AsyncClient(base_url=binds[0], timeout=30) as http:
            # two calls waiting for an owner: the member's agent asked to send e-mails
            for subject in ("Pricing", "Renewal"):
                asked = await http.post(
                    "/v1/agents/messages",
                    headers=member,
                    json={"message": MAIL.replace("Pricing", subject)},
                )
                assert asked.json()["pendingApprovals"], asked.text
            url = "/v1/modules/contacts/records"
            total = (await http.get(url, headers=owner)).json()["total"]
            customers = (
                await http.get(url, params={"filter[lifecycle]": "customer"}, headers=owner)
            ).json()["total"]
        served = Served(
            base=binds[0],
            owner=demo.api_key,
            member=keys["member"].api_key,
            viewer=keys["viewer"].api_key,
            token=issue_token(JWT_SECRET, account, owner_id, 3600),
            contacts_total=total,
            customers=customers,
        )
        handoff.put((served, trio.lowlevel.current_trio_token(), stop))
        await stop.wait()


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """One real server (its own trio loop in a thread) for the module's browser tests."""
    handoff: queue.Queue[Any] = queue.Queue()
    failed: list[BaseException] = []

    def run() -> None:
        try:
            trio.run(_serve, tmp_path_factory.mktemp("console") / "data", handoff)
        except BaseException as exc:  # handed to the test thread
            failed.append(exc)
            handoff.put(None)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    got = handoff.get(timeout=120)
    if got is None:
        raise failed[0]
    server, token, stop = got
    yield server
    trio.from_thread.run_sync(stop.set, trio_token=token)
    thread.join(timeout=30)
    if failed:
        raise failed[0]


@pytest.fixture(scope="module")
def browser() -> Iterator[WebDriver]:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
        options.add_argument(flag)
    options.add_argument("--lang=en-US")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))
    driver.set_window_size(*DESKTOP)
    try:
        yield driver
    finally:
        driver.quit()


@pytest.fixture
def shots(tmp_path: Path) -> Path:
    where = os.environ.get("FIELDHOUSE_SCREENSHOTS")
    folder = ROOT / where if where else tmp_path
    folder.mkdir(parents=True, exist_ok=True)
    return folder


# --- driving the page


def _wait(driver: WebDriver) -> WebDriverWait[WebDriver]:
    # a check that reads elements the view is redrawing meets them gone (stale): it looks
    # again, as it does when they are not there yet (seen on a slow machine, reading the
    # company picker's options while its search answered)
    return WebDriverWait(driver, DEADLINE, ignored_exceptions=[StaleElementReferenceException])


def _turn(driver: WebDriver) -> int:
    return int(
        driver.execute_script(
            "const v = document.getElementById('view'); return v ? Number(v.dataset.turn) : 0"
        )
    )


def _settled(driver: WebDriver, after: int) -> bool:
    return bool(
        driver.execute_script(
            "const v = document.getElementById('view');"
            "return !!v && v.dataset.ready === 'true' && Number(v.dataset.turn) > arguments[0]",
            after,
        )
    )


def go(driver: WebDriver, route: str) -> None:
    """Open a console route (#/...) and wait until its view has rendered."""
    before = _turn(driver)
    driver.execute_script("location.hash = arguments[0]", route)
    _wait(driver).until(lambda d: _settled(d, before))


def follow(driver: WebDriver, element: WebElement) -> None:
    """Click a link or button that changes the route, and wait for the new view."""
    before = _turn(driver)
    element.click()
    _wait(driver).until(lambda d: _settled(d, before))


def find(driver: WebDriver, css: str) -> WebElement:
    return _wait(driver).until(lambda d: d.find_element(By.CSS_SELECTOR, css))


def text_of(driver: WebDriver, css: str) -> str:
    return find(driver, css).text


def unfold(driver: WebDriver, css: str) -> None:
    """Open a panel (a <details>) unless it is open already: panels stay open as views redraw."""
    panel = find(driver, css)
    if panel.get_attribute("open") is None:
        summary = panel.find_element(By.CSS_SELECTOR, "summary")
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", summary)
        summary.click()


def until(driver: WebDriver, check: Callable[[WebDriver], Any]) -> Any:
    return _wait(driver).until(check)


def sign_in(driver: WebDriver, base: str, key: str) -> None:
    """A fresh page signed in with ``key`` (the tab forgets the last key first: the app reads
    it once, when it starts)."""
    driver.get(f"{base}/console")
    driver.execute_script("sessionStorage.clear()")
    driver.refresh()
    box = find(driver, "#api-key")
    box.clear()
    box.send_keys(key)
    driver.find_element(By.ID, "sign-in").click()
    until(driver, lambda d: _settled(d, 0))


def errors(driver: WebDriver, *expected: int) -> list[str]:
    """The browser's SEVERE console lines, but the API answers the test provoked (by status)."""
    found = []
    for entry in driver.get_log("browser"):
        if entry["level"] != "SEVERE":
            continue
        message = entry["message"]
        if any(f"status of {status}" in message for status in expected):
            continue
        found.append(message)
    return found


def api(served: Served, key: str) -> httpx.Client:
    return httpx.Client(base_url=served.base, headers={"Authorization": f"Bearer {key}"})


# --- item 1: sign-in


@browser_only
def test_sign_in_keeps_the_key_in_the_tab_only(served: Served, browser: WebDriver) -> None:
    browser.get(f"{served.base}/console")
    browser.execute_script("sessionStorage.clear()")
    browser.refresh()
    find(browser, "#api-key").send_keys("sk_live_not-a-key")
    browser.find_element(By.ID, "sign-in").click()
    assert "401" in text_of(browser, "#sign-in-status .notice.error")
    sign_in(browser, served.base, served.owner)
    names = [a.text for a in browser.find_elements(By.CSS_SELECTOR, "ul.cards a")]
    assert names == ["Contacts", "Companies", "Deals", "Tasks"]
    assert browser.find_element(By.ID, "who").text == "owner"
    stored = browser.execute_script("return [sessionStorage.length, localStorage.length]")
    assert stored == [1, 0]
    assert browser.execute_script("return Object.values(sessionStorage)") == [served.owner]
    browser.find_element(By.ID, "sign-out").click()
    find(browser, "#api-key")
    assert browser.execute_script("return [sessionStorage.length, localStorage.length]") == [0, 0]
    # a session token (JWT) signs in as well
    sign_in(browser, served.base, served.token)
    go(browser, "#/settings")
    assert "a session token" in text_of(browser, "#identity")
    assert errors(browser, 401) == []


# --- item 2: modules, the records table, the record page, create/edit/delete


@browser_only
def test_records_table_filters_sorts_pages_and_picks_columns(
    served: Served, browser: WebDriver
) -> None:
    sign_in(browser, served.base, served.owner)
    go(browser, "#/modules/contacts")
    assert text_of(browser, "#records-total") == f"{served.contacts_total} records"
    # a filter built from the select field's options, done by the server
    unfold(browser, "details.filters")
    before = _turn(browser)
    browser.find_element(By.CSS_SELECTOR, "#filter-lifecycle option[value=customer]").click()
    until(browser, lambda d: _settled(d, before))
    assert text_of(browser, "#records-total") == f"{served.customers} records"
    stages = {
        td.text
        for td in browser.find_elements(By.CSS_SELECTOR, "#records-table td[data-field=lifecycle]")
    }
    assert stages == {"Customer"}
    # sorted by name, descending after a second click
    follow(browser, find(browser, "button.sort[data-sort=displayName]"))
    follow(browser, find(browser, "button.sort[data-sort=displayName]"))
    names = [a.text for a in browser.find_elements(By.CSS_SELECTOR, "#records-table tbody th a")]
    assert names == sorted(names, reverse=True) and len(names) == served.customers
    # pages of 10 with the total
    go(browser, "#/modules/contacts?size=10")
    assert text_of(browser, "#page-info").startswith(f"1{DASH}10 of {served.contacts_total}")
    follow(browser, find(browser, "#page-next"))
    assert text_of(browser, "#page-info").startswith(f"11{DASH}20 of {served.contacts_total}")
    # column picking: the emails column goes, and the next request asks for fewer fields
    unfold(browser, "details.menu")
    follow(browser, find(browser, "#col-emails"))
    headers = [th.text for th in browser.find_elements(By.CSS_SELECTOR, "#records-table thead th")]
    assert "Email addresses" not in headers and "Company" in headers
    # a reference's records, found by the picker's server-side search as one types
    go(browser, "#/modules/contacts")
    unfold(browser, "details.filters")
    find(browser, "#filter-company-search").send_keys("Fabrikam Soft")
    option = "#filter-company option:not([value=''])"
    until(
        browser,
        lambda d: (
            [o.text for o in d.find_elements(By.CSS_SELECTOR, option)] == ["Fabrikam Software"]
        ),
    )
    follow(browser, browser.find_element(By.CSS_SELECTOR, option))
    rows = browser.find_elements(By.CSS_SELECTOR, "#records-table td[data-field=company]")
    assert rows and {td.text for td in rows} == {"Fabrikam Software"}
    assert "Fabrikam Software" in find(browser, "#filter-company").text  # named in the route
    # a number range on deals (currency amounts from 50,000)
    go(browser, "#/modules/deals?f.amount=50000..")
    with api(served, served.owner) as http:
        big = http.get(
            "/v1/modules/deals/records",
            params={
                "advancedFilter": '{"root": {"id": "r", "conjunction": "AND", "conditions": '
                '[{"id": "a", "fieldSlug": "amount", "operator": "gte", "value": 50000}]}}'
            },
        ).json()["total"]
    assert 0 < big < 12
    assert text_of(browser, "#records-total") == f"{big} records"
    assert browser.find_element(By.ID, "filter-amount-min").get_attribute("value") == "50000"
    assert errors(browser) == []


@browser_only
def test_record_page_and_edit_with_a_validation_issue_by_its_field(
    served: Served, browser: WebDriver
) -> None:
    sign_in(browser, served.base, served.owner)
    go(browser, "#/modules/contacts?q=Lovelace")
    follow(browser, find(browser, "#records-table tbody th a"))
    assert text_of(browser, "#record-title") == "Ada Lovelace"
    company = find(browser, "#record-fields [data-field=company] a")
    assert company.text == "Fabrikam Software"
    assert company.get_attribute("href").split("#")[1].startswith("/records/companies/")
    assert "Record created" in text_of(browser, "#record-activity")
    follow(browser, find(browser, "#edit-record"))
    emails = find(browser, "#field-emails")
    emails.clear()
    emails.send_keys("ada-at-fabrikam")
    browser.find_element(By.ID, "save-record").click()
    issue = until(
        browser,
        lambda d: d.find_element(By.CSS_SELECTOR, ".field-error[data-for=emails]").text or None,
    )
    assert "Invalid email address" in issue
    assert emails.get_attribute("aria-invalid") == "true"
    assert "400 validation_error" in text_of(browser, "#form-status")
    emails.clear()
    emails.send_keys("ada@fabrikam.example, ada@home.example")
    follow(browser, browser.find_element(By.ID, "save-record"))
    shown = text_of(browser, "#record-fields [data-field=emails]")
    assert "ada@fabrikam.example" in shown and "ada@home.example" in shown
    assert "Record updated" in text_of(browser, "#record-activity")
    with api(served, served.owner) as http:
        listed = http.get("/v1/modules/contacts/records", params={"search": "Lovelace"}).json()
    (record,) = listed["records"]
    assert [e["value"] for e in record["fields"]["emails"]] == [
        "ada@fabrikam.example",
        "ada@home.example",
    ]
    assert record["fields"]["company"]["displayName"] == "Fabrikam Software"  # untouched
    assert errors(browser, 400) == []


@browser_only
def test_create_and_delete_a_record(served: Served, browser: WebDriver) -> None:
    sign_in(browser, served.base, served.owner)
    go(browser, "#/modules/contacts")
    follow(browser, find(browser, "#new-record"))
    browser.find_element(By.ID, "save-record").click()
    issue = until(
        browser,
        lambda d: (
            d.find_element(By.CSS_SELECTOR, ".field-error[data-for=displayName]").text or None
        ),
    )
    assert "displayName" in issue or "at least 1" in issue
    browser.find_element(By.ID, "field-displayName").send_keys("Mae Jemison")
    browser.find_element(By.ID, "field-first-name").send_keys("Mae")
    browser.find_element(By.CSS_SELECTOR, "#field-lifecycle option[value=lead]").click()
    follow(browser, browser.find_element(By.ID, "save-record"))
    assert text_of(browser, "#record-title") == "Mae Jemison"
    assert text_of(browser, "#record-fields [data-field=lifecycle] dd") == "Lead"
    record_id = browser.current_url.rsplit("/", 1)[1]
    browser.find_element(By.ID, "delete-record").click()
    follow(browser, find(browser, "#delete-yes"))
    assert "/modules/contacts" in browser.current_url
    with api(served, served.owner) as http:
        gone = http.get(f"/v1/modules/contacts/records/{record_id}")
    assert gone.status_code == 404
    assert errors(browser, 400) == []


# --- item 3: search


@browser_only
def test_search_across_modules(served: Served, browser: WebDriver) -> None:
    sign_in(browser, served.base, served.owner)
    go(browser, "#/search")
    find(browser, "#search-q").send_keys("Fabrikam engineering")
    follow(browser, browser.find_element(By.CSS_SELECTOR, "form[role=search] button"))
    results = find(browser, "#search-results").find_elements(By.CSS_SELECTOR, "li")
    assert results
    texts = [r.text for r in results]
    ada = next(t for t in texts if t.startswith("Ada Lovelace"))
    assert "Contacts" in ada and "score" in ada
    assert any("Companies" in t for t in texts)  # other modules are searched too
    link = results[texts.index(ada)].find_element(By.CSS_SELECTOR, "a")
    follow(browser, link)
    assert text_of(browser, "#record-title") == "Ada Lovelace"
    assert errors(browser) == []


# --- item 4: approvals, the agent chat, runs


@browser_only
def test_approve_with_edited_arguments_and_reject_with_a_reason(
    served: Served, browser: WebDriver
) -> None:
    sign_in(browser, served.base, served.owner)
    go(browser, "#/approvals")
    cards = browser.find_elements(By.CSS_SELECTOR, "#approvals article[data-status=pending]")
    assert len(cards) == 2
    by_subject = {c.find_element(By.CSS_SELECTOR, "dl.preview").text: c for c in cards}
    renewal = next(c for t, c in by_subject.items() if "Renewal" in t)
    pricing = next(c for t, c in by_subject.items() if "Pricing" in t)
    assert "bob@example.com" in pricing.text and "email.send" in pricing.text
    # approve with the subject edited
    pricing.find_element(By.CSS_SELECTOR, "details summary").click()
    editor = pricing.find_element(By.CSS_SELECTOR, "textarea")
    edited = editor.get_attribute("value").replace('"Pricing"', '"Pricing, revised"')
    assert edited != editor.get_attribute("value")
    editor.clear()
    editor.send_keys(edited)
    pricing.find_element(By.CSS_SELECTOR, "button.approve").click()
    until(browser, lambda d: pricing.get_attribute("data-status") == "executed")
    assert "executed" in pricing.find_element(By.CSS_SELECTOR, ".card-status").text
    # reject the other with a reason
    renewal.find_element(By.CSS_SELECTOR, "input").send_keys("Bob left the company")
    renewal.find_element(By.CSS_SELECTOR, "button.reject").click()
    until(browser, lambda d: renewal.get_attribute("data-status") == "rejected")
    with api(served, served.owner) as http:
        done = {a["status"]: a for a in http.get("/api/approvals").json()["approvals"]}
    assert done["executed"]["arguments"]["subject"] == "Pricing, revised"
    assert done["executed"]["originalArguments"]["subject"] == "Pricing"
    assert done["rejected"]["reason"] == "Bob left the company"
    go(browser, "#/approvals?status=executed")
    assert "Pricing, revised" in text_of(browser, "#approvals")
    # the member's run waited for that decision: the owner resumes it from the run list
    go(browser, "#/runs")
    waiting = next(
        li
        for li in browser.find_elements(By.CSS_SELECTOR, "#runs li.run[data-status=waiting]")
        if MAIL in li.text
    )
    waiting.find_element(By.CSS_SELECTOR, "button.resume").click()
    until(browser, lambda d: waiting.get_attribute("data-status") == "succeeded")
    assert waiting.find_element(By.CSS_SELECTOR, ".answer").text
    assert errors(browser) == []


@browser_only
def test_chat_streams_the_answer_and_lists_the_run(served: Served, browser: WebDriver) -> None:
    sign_in(browser, served.base, served.owner)
    go(browser, "#/chat")
    find(browser, "#chat-message").send_keys("find contacts named Ada")
    browser.find_element(By.ID, "chat-send").click()
    turn = until(browser, lambda d: d.find_element(By.CSS_SELECTOR, ".turn.agent[data-state=done]"))
    tools = [li.text for li in turn.find_elements(By.CSS_SELECTOR, "li.tool")]
    assert tools and tools[0].startswith("records.")
    answer = turn.find_element(By.CSS_SELECTOR, ".answer").text
    assert "Ada Lovelace" in answer
    assert "1 tool call ·" in turn.text
    follow(browser, browser.find_element(By.CSS_SELECTOR, ".chat-form a[href='#/runs']"))
    runs = browser.find_elements(By.CSS_SELECTOR, "#runs li.run")
    assert "find contacts named Ada" in runs[0].text
    # the owner sees the member's runs too
    assert any(MAIL in r.text for r in runs)
    assert errors(browser) == []


# --- item 5: settings


@browser_only
def test_settings_webhooks_and_activity(served: Served, browser: WebDriver) -> None:
    sign_in(browser, served.base, served.owner)
    go(browser, "#/settings")
    identity = text_of(browser, "#identity")
    assert "owner" in identity and "records:write" in identity
    assert "API keys" in text_of(browser, "#api-keys")
    go(browser, "#/settings?tab=webhooks")
    find(browser, "#webhook-url").send_keys(f"{served.base}/hooks/in")
    find(browser, "#webhook-types").send_keys("record_created")
    browser.find_element(By.CSS_SELECTOR, "#settings-webhooks form button").click()
    secret = until(browser, lambda d: d.find_element(By.CSS_SELECTOR, "#settings-webhooks .ok"))
    assert "shown once" in secret.text
    assert f"{served.base}/hooks/in" in text_of(browser, "#webhooks")
    # a new record is delivered (to a path of this server that answers 404): the log shows it
    with api(served, served.owner) as http:
        made = http.post(
            "/v1/modules/companies/records",
            json={"displayName": "Hook Ltd", "fields": {"name": "Hook Ltd"}},
        )
        assert made.status_code == 201, made.text

    def delivered(d: WebDriver) -> str | None:
        d.find_element(By.CSS_SELECTOR, "#webhooks button.log").click()
        rows = d.find_elements(By.CSS_SELECTOR, "#webhooks table.deliveries tbody tr")
        return rows[0].text if rows else None

    assert until(browser, delivered).startswith("record_created")
    go(browser, "#/settings?tab=activity")
    feed = text_of(browser, "#activity-feed")
    assert "record updated" in feed or "record created" in feed
    go(browser, "#/settings?tab=activity&types=approval_requested")
    items = browser.find_elements(By.CSS_SELECTOR, "#activity-feed li")
    assert items and all("approval requested" in li.text for li in items)
    assert errors(browser) == []


@browser_only
def test_settings_keys_create_once_use_and_revoke(
    served: Served, browser: WebDriver, shots: Path
) -> None:
    sign_in(browser, served.base, served.owner)
    go(browser, "#/settings")
    find(browser, "#key-name").send_keys("Console export")
    Select(find(browser, "#key-role")).select_by_value("viewer")
    for box in browser.find_elements(By.CSS_SELECTOR, ".key-scope"):
        if box.get_attribute("value") in ("workspace:read", "records:read"):
            box.click()
    find(browser, "#key-create").click()
    shown = until(browser, lambda d: d.find_element(By.ID, "new-key"))
    assert "you will not see it again" in shown.text
    secret = text_of(browser, "#new-key-secret")
    assert secret.startswith("sk_live_") and browser.find_element(By.ID, "copy-key")
    row = find(browser, "#keys-table tbody tr:last-child")
    assert "Console export" in row.text and "viewer" in row.text
    with api(served, secret) as http:
        assert http.get("/v1/modules/contacts/records").status_code == 200
        assert http.get("/v1/me").json()["roleSlugs"] == ["viewer"]
    for label, (width, height) in (("desktop", DESKTOP), ("phone", PHONE)):
        browser.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600},
        )
        width = browser.execute_script("return document.documentElement.clientWidth")
        assert browser.execute_script("return document.documentElement.scrollWidth") <= width
        browser.save_screenshot(str(shots / f"console-keys-{label}.png"))
    browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    # the secret is shown once: the list, drawn again, never has it
    go(browser, "#/settings?tab=webhooks")
    go(browser, "#/settings?tab=keys")
    find(browser, "#keys-table")
    assert secret not in browser.page_source
    row = find(browser, "#keys-table tbody tr:last-child")
    row.find_element(By.CSS_SELECTOR, "button.revoke").click()
    until(browser, lambda d: d.switch_to.alert).accept()
    last = "const r = document.querySelector('#keys-table tbody tr:last-child');"
    until(browser, lambda d: "revoked" in d.execute_script(last + "return r ? r.innerText : ''"))
    with api(served, secret) as http:
        assert http.get("/v1/me").status_code == 401
    # a member sees no key management (the API refuses it)
    sign_in(browser, served.base, served.member)
    go(browser, "#/settings")
    assert "owners and admins" in text_of(browser, "#api-keys")
    assert not browser.find_elements(By.ID, "key-form")
    assert errors(browser) == []


# --- a role that cannot edit


@browser_only
def test_a_viewer_sees_no_edit_and_a_forced_edit_shows_the_403(
    served: Served, browser: WebDriver
) -> None:
    sign_in(browser, served.base, served.viewer)
    assert browser.find_element(By.ID, "who").text == "viewer"
    assert not browser.find_elements(By.ID, "nav-approvals")
    go(browser, "#/modules/contacts")
    assert not browser.find_elements(By.ID, "new-record")
    follow(browser, find(browser, "#records-table tbody th a"))
    assert not browser.find_elements(By.ID, "edit-record")
    assert not browser.find_elements(By.ID, "delete-record")
    record_url = browser.current_url.split("#")[1]
    go(browser, f"#{record_url}/edit")
    assert "cannot change records" in text_of(browser, "#view .notice.warn")
    title = find(browser, "#field-job-title")
    title.send_keys(" (changed)")
    browser.find_element(By.ID, "save-record").click()
    refused = until(browser, lambda d: d.find_element(By.CSS_SELECTOR, "#form-status .error"))
    assert refused.text.startswith("403 forbidden")
    assert errors(browser, 403) == []


# --- good habits: both widths, no overflow, screenshots for the README


@browser_only
def test_screens_at_desktop_and_phone_width(
    served: Served, browser: WebDriver, shots: Path
) -> None:
    sign_in(browser, served.base, served.owner)
    views = {
        "records": "#/modules/deals",
        "record": None,
        "search": "#/search?q=Fabrikam%20engineering",
        "approvals": "#/approvals?status=executed",
        "chat": "#/chat",
    }
    try:
        for label, (width, height) in (("desktop", DESKTOP), ("phone", PHONE)):
            # the viewport itself, exactly (a window size counts the browser's frame)
            browser.execute_cdp_cmd(
                "Emulation.setDeviceMetricsOverride",
                {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": width < 600},
            )
            for name, route in views.items():
                if route is None:
                    go(browser, "#/modules/contacts?q=Lovelace")
                    follow(browser, find(browser, "#records-table tbody th a"))
                else:
                    go(browser, route)
                if name == "chat":
                    find(browser, "#chat-message").send_keys("find deals named Contoso")
                    browser.find_element(By.ID, "chat-send").click()
                    until(browser, lambda d: d.find_elements(By.CSS_SELECTOR, "[data-state=done]"))
                width = browser.execute_script("return document.documentElement.clientWidth")
                scroll = browser.execute_script("return document.documentElement.scrollWidth")
                assert scroll <= width, (name, label, scroll, width)
                browser.save_screenshot(str(shots / f"console-{name}-{label}.png"))
    finally:
        browser.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
    assert errors(browser) == []
