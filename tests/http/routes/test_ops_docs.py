"""The interactive API docs at /docs, in a real headless Chromium against the real server.

Needs Debian's chromium and chromium-driver (`make browser` installs them: apt-get install
chromium chromium-driver); selenium drives them through /usr/bin/chromedriver.
"""

from __future__ import annotations

import shutil
from functools import partial
from pathlib import Path

import httpx
import pytest
import trio
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import WebDriverWait

from fieldhouse.config import Settings
from fieldhouse.demo import create_demo
from fieldhouse.http.wire.server import serve_app
from fieldhouse.runtime import open_runtime
from tests.conftest import make_workspace

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
#: how long the page may take to render (the condition is polled, not slept on)
RENDER_DEADLINE = 60
#: the table of the answer Swagger UI received for GET /me
LIVE = "#operations-identity-get_me .live-responses-table"

pytestmark = pytest.mark.skipif(
    not (shutil.which(CHROMIUM) and shutil.which(CHROMEDRIVER)),
    reason="needs Debian's chromium and chromium-driver: make browser",
)


def _browser() -> WebDriver:
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
        options.add_argument(flag)
    return webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))


def _use_the_docs(base: str, api_key: str) -> tuple[list[str], str, str]:
    """Open /docs, list the rendered operations, authorize with the key, try GET /me."""
    driver = _browser()
    try:
        wait = WebDriverWait(driver, RENDER_DEADLINE)
        driver.get(f"{base}/docs")
        wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, ".opblock-summary-path")))
        paths = [
            e.get_attribute("data-path") or e.text
            for e in driver.find_elements(By.CSS_SELECTOR, ".opblock-summary-path")
        ]
        driver.find_element(By.CSS_SELECTOR, "button.authorize").click()
        key_box = wait.until(
            ec.visibility_of_element_located((By.CSS_SELECTOR, ".auth-container input"))
        )
        key_box.send_keys(api_key)
        driver.find_element(By.CSS_SELECTOR, ".auth-container button.authorize").click()
        driver.find_element(By.CSS_SELECTOR, "button.btn-done").click()
        operation = driver.find_element(By.ID, "operations-identity-get_me")
        operation.find_element(By.CSS_SELECTOR, ".opblock-summary-control").click()
        execute = wait.until(
            ec.element_to_be_clickable((By.CSS_SELECTOR, "#operations-identity-get_me .execute"))
        )
        execute.click()
        status = wait.until(
            ec.visibility_of_element_located(
                (
                    By.CSS_SELECTOR,
                    f"{LIVE} tr.response .response-col_status",
                )
            )
        )
        body = driver.find_element(By.CSS_SELECTOR, f"{LIVE} tr.response .microlight")
        return paths, status.text.strip(), body.text
    finally:
        driver.quit()


async def test_docs_render_every_operation_and_the_key_works(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data", port=0, search_enabled=False)
    async with open_runtime(settings) as runtime, trio.open_nursery() as nursery:
        ws = await make_workspace(runtime)
        stop = trio.Event()
        binds = await nursery.start(partial(serve_app, runtime, shutdown_trigger=stop.wait))
        base = binds[0]
        async with httpx.AsyncClient(base_url=base) as client:
            page = await client.get("/docs")
            assert page.status_code == 200
            assert "swagger-ui-bundle.js" in page.text
            asset = await client.get("/docs/assets/swagger-ui-bundle.js")
            assert asset.status_code == 200
            assert "javascript" in asset.headers["content-type"]
            assert (await client.get("/docs/assets/secrets.txt")).status_code == 404
            documented = (await client.get("/v1/openapi.json")).json()["paths"]
        paths, status, body = await trio.to_thread.run_sync(_use_the_docs, base, ws.key)
        stop.set()
    for path in ("/me", "/modules/{moduleSlug}/records", "/search", "/healthz"):
        assert path in paths
    assert set(paths) == set(documented)
    assert status.startswith("200")
    assert ws.account_id in body


# --- issue 33 item 3: "Try it out" works with the document's examples; keys kept only if asked

LIST_OP = "#operations-records-list_records"
CREATE_OP = "#operations-records-create_record"


def _try(driver: WebDriver, wait: WebDriverWait[WebDriver], op: str) -> tuple[str, str, str]:
    """Open an operation, Execute it with its examples: (request URL, status, body)."""
    driver.find_element(By.CSS_SELECTOR, f"{op} .opblock-summary-control").click()
    # the page opens operations ready to try (tryItOutEnabled): the examples are in the fields
    wait.until(ec.element_to_be_clickable((By.CSS_SELECTOR, f"{op} .execute"))).click()
    live = f"{op} .live-responses-table tr.response"
    status = wait.until(
        ec.visibility_of_element_located((By.CSS_SELECTOR, f"{live} .response-col_status"))
    )
    body = driver.find_element(By.CSS_SELECTOR, f"{live} .microlight").text
    url = driver.find_element(By.CSS_SELECTOR, f"{op} .request-url pre").text
    return url, status.text.strip(), body


def _authorize(driver: WebDriver, wait: WebDriverWait[WebDriver], api_key: str) -> None:
    wait.until(ec.element_to_be_clickable((By.CSS_SELECTOR, "button.authorize"))).click()
    key_box = wait.until(
        ec.visibility_of_element_located((By.CSS_SELECTOR, ".auth-container input"))
    )
    key_box.send_keys(api_key)
    driver.find_element(By.CSS_SELECTOR, ".auth-container button.authorize").click()
    driver.find_element(By.CSS_SELECTOR, "button.btn-done").click()


def _try_list_and_create(base: str, api_key: str) -> dict[str, object]:
    driver = _browser()
    try:
        wait = WebDriverWait(driver, RENDER_DEADLINE)
        driver.get(f"{base}/docs")
        wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, LIST_OP)))
        _authorize(driver, wait, api_key)
        listed = _try(driver, wait, LIST_OP)
        created = _try(driver, wait, CREATE_OP)
        kept = driver.execute_script("return window.localStorage.getItem('authorized')")
        driver.get(f"{base}/docs?persist=1")
        wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, LIST_OP)))
        _authorize(driver, wait, api_key)
        asked = driver.execute_script("return window.localStorage.getItem('authorized')")
        driver.get(f"{base}/docs")
        wait.until(ec.presence_of_element_located((By.CSS_SELECTOR, LIST_OP)))
        dropped = driver.execute_script("return window.localStorage.getItem('authorized')")
        return {"list": listed, "create": created, "kept": kept, "asked": asked, "dropped": dropped}
    finally:
        driver.quit()


async def test_try_it_out_lists_with_a_filter_and_creates(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "data", port=0, search_enabled=False)
    async with open_runtime(settings) as runtime, trio.open_nursery() as nursery:
        demo = await create_demo(runtime.actors)
        stop = trio.Event()
        binds = await nursery.start(partial(serve_app, runtime, shutdown_trigger=stop.wait))
        seen = await trio.to_thread.run_sync(_try_list_and_create, binds[0], demo.api_key)
        stop.set()
    url, status, body = seen["list"]  # type: ignore[misc]
    assert status == "200", body
    assert "filter%5Blifecycle%5D=customer" in url or "filter[lifecycle]=customer" in url
    assert "Ada Lovelace" in body
    url, status, body = seen["create"]  # type: ignore[misc]
    assert status == "201", body
    assert "Mae Jemison" in body
    # the key stays in the tab unless the page was opened to keep it
    assert seen["kept"] is None
    assert demo.api_key in str(seen["asked"])
    assert seen["dropped"] is None
