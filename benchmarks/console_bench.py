"""The console's records page with 100,000 contacts, in Chromium, over a real server.

    .venv/bin/python -m benchmarks.console_bench [--records 100000] [--runs 7]
        [--database-url postgresql://postgres@127.0.0.1:5432/console_bench]

(a PostgreSQL database of its own: the contacts are left in it.)

Seeds one workspace's contacts in bulk through the store's write transactions (names, a job
title, an e-mail, a lifecycle stage, tags), serves the app on a loopback port, signs in with
headless Chromium (Debian's /usr/bin/chromium and chromedriver) and times, in milliseconds:

- ``first load``: opening /console#/modules/contacts in a new page until the table is drawn
  (the page's own clock from navigation start: HTML, the ES modules, GET /v1/me, the module's
  schema, the first page of records with its total);
- then going to each of a few table states inside the page until the new table is drawn
  (a later page, a sort, a filter built from a select field, a search in the module).

Each is the median (and the slowest) of ``--runs`` runs. Paging, sorting and filtering are the
server's: the page asks for 25 records and only the fields of its columns.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
import uuid
from collections.abc import Sequence
from functools import partial
from pathlib import Path
from typing import Any

import trio
from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.remote.webdriver import WebDriver
from selenium.webdriver.support.ui import WebDriverWait

from fieldhouse.actors.bootstrap import init_workspace
from fieldhouse.config import Settings
from fieldhouse.http.wire.server import serve_app
from fieldhouse.model.records import RecordRow
from fieldhouse.runtime import open_runtime

AT = "2026-01-01T00:00:00.000000Z"
BATCH = 2000
FIRST = ("Ada", "Grace", "Alan", "Katherine", "Linus", "Margaret", "José", "Zoë", "Barbara")
LAST = ("Lovelace", "Hopper", "Turing", "Johnson", "Svensson", "Hamilton", "Núñez", "Liskov")
STAGES = ("subscriber", "lead", "qualified", "customer", "churned")
TAGS = ("vip", "decision-maker", "champion", "newsletter")
#: table states reached inside the page (hash routes)
STATES = (
    ("a page in the middle", "#/modules/contacts?page={middle}"),
    ("sorted by last name", "#/modules/contacts?sort=last-name&dir=asc"),
    ("filter lifecycle=customer", "#/modules/contacts?f.lifecycle=customer"),
    ("search for one e-mail address", "#/modules/contacts?q=c{one}%40example.com"),
)
#: resolves with the milliseconds from setting the route until its table is drawn
GO = """
const [route, done] = arguments;
const view = () => document.getElementById("view");
const before = Number(view().dataset.turn);
const t0 = performance.now();
const drawn = () => {
  const v = view();
  return v && v.dataset.ready === "true" && Number(v.dataset.turn) > before;
};
const watch = new MutationObserver(() => {
  if (drawn()) { watch.disconnect(); done(performance.now() - t0); }
});
watch.observe(document.body, { subtree: true, childList: true, attributes: true });
location.hash = route;
"""


def parse_args(argv: Sequence[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n", 1)[0])
    p.add_argument("--records", type=int, default=100_000)
    p.add_argument("--runs", type=int, default=7)
    p.add_argument("--database-url", default=None)
    return p.parse_args(argv)


def _contact(n: int, rng: random.Random) -> tuple[str, dict[str, Any]]:
    first, last = rng.choice(FIRST), f"{rng.choice(LAST)} {n}"
    fields = {
        "first-name": first,
        "last-name": last,
        "full-name": f"{first} {last}",
        "job-title": rng.choice(("Engineer", "CTO", "Buyer", "Analyst")),
        "emails": [
            {
                "id": str(uuid.UUID(int=rng.getrandbits(128), version=4)),
                "value": f"c{n}@example.com",
                "label": "work",
                "isPrimary": True,
            }
        ],
        "lifecycle": rng.choice(STAGES),
        "tags": rng.sample(TAGS, rng.randint(0, 2)),
        "do-not-contact": False,
    }
    return f"{first} {last}", fields


def _browser() -> WebDriver:
    options = webdriver.ChromeOptions()
    options.binary_location = "/usr/bin/chromium"
    for flag in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu"):
        options.add_argument(flag)
    options.add_argument("--window-size=1280,800")
    return webdriver.Chrome(options=options, service=Service("/usr/bin/chromedriver"))


def _measure(base: str, key: str, runs: int, records: int) -> dict[str, list[float]]:
    middle = max(2, records // 50)
    driver = _browser()
    wait = WebDriverWait(driver, 120, poll_frequency=0.02)
    timings: dict[str, list[float]] = {"first load": []}
    try:
        driver.get(f"{base}/console")
        wait.until(lambda d: d.find_element(By.ID, "api-key")).send_keys(key)
        driver.find_element(By.ID, "sign-in").click()
        wait.until(lambda d: d.find_elements(By.CSS_SELECTOR, "#view[data-ready=true]"))
        for _ in range(runs):
            driver.get("about:blank")
            driver.get(f"{base}/console#/modules/contacts")
            table = wait.until(
                lambda d: d.find_elements(By.CSS_SELECTOR, "#view[data-ready=true] #records-table")
            )
            rows = table[0].find_elements(By.CSS_SELECTOR, "tbody tr")
            assert len(rows) == 25, len(rows)
            ready = driver.find_element(By.ID, "view").get_attribute("data-ready-at")
            timings["first load"].append(float(ready or "nan"))
            for name, route in STATES:
                target = route.format(middle=middle, one=records // 3)
                took = driver.execute_async_script(GO, target)
                assert driver.find_elements(By.ID, "records-table"), name
                timings.setdefault(name, []).append(float(took))
        total = driver.find_element(By.ID, "records-total").text
        print(f"the last table said: {total}")
    finally:
        driver.quit()
    return timings


async def run(args: argparse.Namespace, data_dir: Path) -> None:
    settings = Settings(
        data_dir=data_dir,
        rate_limit=1_000_000,
        port=0,
        embedding_process=False,
        search_enabled=False,
        database_url=args.database_url or "",
    )
    async with open_runtime(settings) as rt, trio.open_nursery() as nursery:
        made, key = await init_workspace(rt.actors, "Bench", None)
        account = made.account_id
        _, schemas = await rt.store.load_schemas(account)
        module_id = schemas["contacts"].module.module_id
        rng = random.Random(34)
        started = time.perf_counter()
        for start in range(0, args.records, BATCH):
            async with rt.store.write(account) as txn:
                for n in range(start, min(args.records, start + BATCH)):
                    name, fields = _contact(n, rng)
                    rid = str(uuid.UUID(int=rng.getrandbits(128), version=4))
                    row = RecordRow(rid, account, module_id, name, fields, AT, AT, None, None)
                    await txn.insert_record(row)
        print(f"seeded {args.records:,} contacts in {time.perf_counter() - started:.1f} s")
        stop = trio.Event()
        binds = await nursery.start(partial(serve_app, rt, shutdown_trigger=stop.wait))
        timings = await trio.to_thread.run_sync(
            _measure, binds[0], key.api_key, args.runs, args.records
        )
        stop.set()
    engine = "postgres" if args.database_url else "sqlite"
    print(f"{engine}, {args.records:,} contacts, {args.runs} runs (ms: median, slowest)")
    for name, samples in timings.items():
        print(f"  {name}: {statistics.median(samples):.0f}, {max(samples):.0f}")


def main(argv: Sequence[str] | None = None) -> None:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp:
        trio.run(run, args, Path(tmp) / "data")


if __name__ == "__main__":
    main()
