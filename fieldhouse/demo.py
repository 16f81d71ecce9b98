"""``fieldhouse serve --demo``: on an empty database, a demo workspace with a small, realistic
data set, so that every endpoint (lists, filters, search, references, rollups, activity, the
agent) has something to show, and its API key printed once.

The data is fixed (no randomness; dates are counted from today), written through the
workspace actor like any API write, so it meets the same validation and lands in the search
index and the activity log: 8 companies (one a subsidiary of another), 24 contacts at them,
12 deals between them across every stage, and 16 tasks on those deals.
"""

# ruff: noqa: E501  (the data tables below read best one record a line)
from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

from fieldhouse.actors.batch_ops import BatchItem, BatchWrite
from fieldhouse.actors.bootstrap import init_workspace
from fieldhouse.actors.record_ops import UpdateRecord
from fieldhouse.actors.system import ActorSystem
from fieldhouse.config import Settings
from fieldhouse.model.principal import SystemActor

NAME = "Demo workspace"

# name, domain, industry, employees, revenue (USD), phone, city, state, zip, health
COMPANIES = (
    ("Northwind Traders", "northwind", "retail", 420, 58_000_000, "+14155550101", "San Francisco", "CA", "94107", 4),
    ("Contoso Health", "contoso-health", "healthcare", 1800, 240_000_000, "+12125550102", "New York", "NY", "10013", 3),
    ("Fabrikam Software", "fabrikam", "software", 260, 31_000_000, "+14155550103", "Oakland", "CA", "94612", 5),
    ("Tailspin Finance", "tailspin", "financial-services", 95, 12_500_000, "+12125550104", "Brooklyn", "NY", "11201", 2),
    ("Adventure Works", "adventure-works", "manufacturing", 3100, 410_000_000, "+14155550105", "San Jose", "CA", "95113", 4),
    ("Litware Labs", "litware", "software", 40, 3_200_000, "+12125550106", "Jersey City", "NJ", "07302", 3),
    ("Wide World Importers", "wideworld", "retail", 730, 96_000_000, "+14155550107", "Sacramento", "CA", "95814", 4),
    ("Fabrikam Cloud", "fabrikam-cloud", "software", 70, 8_800_000, "+14155550108", "Oakland", "CA", "94607", 5),
)  # fmt: skip
#: Fabrikam Cloud is a subsidiary of Fabrikam Software
PARENTS = {"Fabrikam Cloud": "Fabrikam Software"}

# first, last, job title, company, lifecycle, tags
CONTACTS = (
    ("Ada", "Lovelace", "Head of Engineering", "Fabrikam Software", "customer", ("vip", "decision-maker")),
    ("Grace", "Hopper", "CTO", "Contoso Health", "customer", ("decision-maker",)),
    ("Alan", "Turing", "Research Lead", "Litware Labs", "qualified", ("champion",)),
    ("Katherine", "Johnson", "VP Finance", "Tailspin Finance", "lead", ("decision-maker",)),
    ("Linus", "Svensson", "IT Manager", "Northwind Traders", "customer", ("champion",)),
    ("Margaret", "Hamilton", "Director of Operations", "Adventure Works", "qualified", ("vip",)),
    ("José", "Núñez", "Procurement Lead", "Wide World Importers", "lead", ("newsletter",)),
    ("Zoë", "Ångström", "Product Manager", "Fabrikam Cloud", "customer", ("champion", "newsletter")),
    ("Barbara", "Liskov", "Chief Architect", "Fabrikam Software", "customer", ("decision-maker",)),
    ("Dennis", "Ritchie", "Platform Engineer", "Fabrikam Cloud", "qualified", ()),
    ("Frances", "Allen", "Data Scientist", "Contoso Health", "subscriber", ("newsletter",)),
    ("Edsger", "Dijkstra", "Consultant", "Litware Labs", "churned", ()),
    ("Radia", "Perlman", "Network Architect", "Northwind Traders", "qualified", ("champion",)),
    ("Tim", "Berners", "Head of Digital", "Wide World Importers", "customer", ("vip",)),
    ("Hedy", "Lamarr", "Innovation Lead", "Adventure Works", "lead", ()),
    ("John", "McCarthy", "CFO", "Tailspin Finance", "qualified", ("decision-maker",)),
    ("Shafi", "Goldwasser", "Security Officer", "Tailspin Finance", "lead", ()),
    ("Ken", "Thompson", "Operations Engineer", "Adventure Works", "customer", ()),
    ("Adele", "Goldberg", "Head of Design", "Northwind Traders", "subscriber", ("newsletter",)),
    ("Donald", "Knuth", "Advisor", "Litware Labs", "customer", ("vip",)),
    ("Sophie", "Wilson", "Hardware Lead", "Adventure Works", "qualified", ("champion",)),
    ("Leslie", "Lamport", "Distributed Systems Lead", "Contoso Health", "lead", ()),
    ("Mary", "Jackson", "Quality Manager", "Wide World Importers", "customer", ()),
    ("Niklaus", "Wirth", "Procurement Director", "Northwind Traders", "churned", ()),
)  # fmt: skip

# name, company, contacts (last names), stage, amount (USD), probability, close in days
DEALS = (
    ("Fabrikam platform renewal", "Fabrikam Software", ("Lovelace", "Liskov"), "won", 48_000, 100, -20),
    ("Contoso records migration", "Contoso Health", ("Hopper",), "negotiation", 125_000, 70, 14),
    ("Litware pilot", "Litware Labs", ("Turing",), "proposal", 9_500, 40, 30),
    ("Tailspin analytics", "Tailspin Finance", ("Johnson", "McCarthy"), "qualified", 32_000, 25, 45),
    ("Northwind store rollout", "Northwind Traders", ("Svensson", "Perlman"), "won", 76_500, 100, -45),
    ("Adventure Works factory sensors", "Adventure Works", ("Hamilton", "Wilson"), "negotiation", 210_000, 60, 21),
    ("Wide World import portal", "Wide World Importers", ("Núñez", "Berners"), "lead", 18_000, 10, 60),
    ("Fabrikam Cloud expansion", "Fabrikam Cloud", ("Ångström", "Ritchie"), "proposal", 27_000, 50, 28),
    ("Contoso data science seats", "Contoso Health", ("Allen",), "lost", 14_000, 0, -10),
    ("Litware advisory", "Litware Labs", ("Knuth",), "won", 12_000, 100, -5),
    ("Tailspin security review", "Tailspin Finance", ("Goldwasser",), "lead", 6_000, 10, 75),
    ("Northwind design system", "Northwind Traders", ("Goldberg",), "qualified", 22_000, 30, 40),
)  # fmt: skip

# title, type, status, priority, due in days, deal
TASKS = (
    ("Send the renewal invoice", "to-do", "done", "medium", -18, "Fabrikam platform renewal"),
    ("Call Grace about the migration plan", "call", "todo", "high", 1, "Contoso records migration"),
    ("Review the redlined contract", "to-do", "in-progress", "urgent", 3, "Contoso records migration"),
    ("Pilot kickoff with Alan", "meeting", "todo", "medium", 5, "Litware pilot"),
    ("Prepare the analytics demo", "to-do", "in-progress", "high", 7, "Tailspin analytics"),
    ("Follow up on the rollout survey", "follow-up", "todo", "low", 10, "Northwind store rollout"),
    ("Sensor site visit", "meeting", "todo", "high", 4, "Adventure Works factory sensors"),
    ("Price the extra sensors", "to-do", "blocked", "medium", 6, "Adventure Works factory sensors"),
    ("Intro call with José", "call", "todo", "medium", 2, "Wide World import portal"),
    ("Send the expansion proposal", "follow-up", "done", "high", -2, "Fabrikam Cloud expansion"),
    ("Ask why the seats were lost", "follow-up", "todo", "low", 8, "Contoso data science seats"),
    ("Book the advisory sessions", "to-do", "done", "medium", -4, "Litware advisory"),
    ("Security questionnaire", "to-do", "todo", "medium", 12, "Tailspin security review"),
    ("Design system workshop", "meeting", "todo", "medium", 9, "Northwind design system"),
    ("Quarterly check-in with Ada", "call", "todo", "low", 30, "Fabrikam platform renewal"),
    ("Draft the migration timeline", "to-do", "todo", "high", 5, "Contoso records migration"),
)  # fmt: skip


@dataclass(frozen=True)
class Demo:
    """The demo workspace: its id and the API key (shown once)."""

    account_id: str
    api_key: str
    counts: Mapping[str, int]


async def create_demo(system: ActorSystem, today: date | None = None) -> Demo:
    """Create the demo workspace (every built-in template) and its records."""
    today = today or date.today()
    workspace, key = await init_workspace(system, NAME, None)
    account, owner = workspace.account_id, workspace.user_id
    _, schemas = await system.store.load_schemas(account)
    module = {slug: schema.module.module_id for slug, schema in schemas.items()}
    demo, as_owner = SystemActor(account, "demo"), SystemActor(account, "demo", owner)

    async def write(slug: str, items: Sequence[tuple[str, dict[str, Any]]]) -> dict[str, str]:
        batch = tuple(BatchItem(name, fields) for name, fields in items)
        outcome = await system.ask(BatchWrite(module[slug], batch, by=as_owner))
        return {row.display_name: row.record_id for _, row, _ in outcome.written}

    companies = await write("companies", [_company(c) for c in COMPANIES])
    for child, parent in PARENTS.items():
        fields = {"parent-company": companies[parent]}
        await system.ask(UpdateRecord(module["companies"], companies[child], None, fields, by=demo))
    contacts = await write("contacts", [_contact(c, companies) for c in CONTACTS])
    by_last = {c[1]: contacts[f"{c[0]} {c[1]}"] for c in CONTACTS}
    deals = await write("deals", [_deal(d, companies, by_last, owner, today) for d in DEALS])
    for name, company_id in companies.items():
        theirs = [deals[d[0]] for d in DEALS if d[1] == name]
        if theirs:
            update = UpdateRecord(module["companies"], company_id, None, {"deals": theirs}, by=demo)
            await system.ask(update)
    tasks = await write("tasks", [_task(t, deals, owner, today) for t in TASKS])
    counts = {"companies": len(companies), "contacts": len(contacts)}
    counts |= {"deals": len(deals), "tasks": len(tasks)}
    return Demo(account, key.api_key, counts)


async def demo_banner(system: ActorSystem, settings: Settings) -> str:
    """What ``serve --demo`` says now (the workspace it made, with its key, or the one that
    exists), and returns the text to print once the server answers (``{base}`` in it)."""
    accounts = await system.store.list_accounts()
    ready = "Ready: {base}  (API docs: {base}/docs)"
    if accounts:
        first = accounts[0]
        print(
            f"Workspace {first.name!r} ({first.account_id}) exists; its API key was printed "
            "when it was created. A new one: fieldhouse key create --workspace "
            f"{first.account_id}",
            flush=True,
        )
        return ready
    demo = await create_demo(system)
    made = ", ".join(f"{n} {slug}" for slug, n in demo.counts.items())
    print(f"Created the demo workspace {demo.account_id}: {made}.", flush=True)
    print(f"  API key (shown once, keep it): {demo.api_key}", flush=True)
    print(f"Starting the server ({_processes(settings)}); one moment ...", flush=True)
    return "\n".join(
        (
            ready,
            "In another terminal, as the README's first commands do:",
            f"  export FIELDHOUSE_KEY={demo.api_key}",
            '  curl -H "Authorization: Bearer $FIELDHOUSE_KEY" {base}/v1/modules/contacts/records',
        )
    )


def _processes(settings: Settings) -> str:
    if settings.workers <= 1:
        return "one process"
    return f"{settings.workers} worker processes"


def _company(row: tuple[Any, ...]) -> tuple[str, dict[str, Any]]:
    name, domain, industry, employees, revenue, phone, city, state, zip_code, health = row
    return name, {
        "name": name,
        "website": f"https://www.{domain}.example",
        "industry": industry,
        "employees": employees,
        "annual-revenue": {"amount": revenue, "currency": "USD"},
        "phone": phone,
        "headquarters": [
            {
                "value": {"street": "1 Market St", "city": city, "state": state, "zip": zip_code}
                | {"country": "US"},
                "label": "headquarters",
                "isPrimary": True,
            }
        ],
        "health": health,
        "description": f"{name}: a {industry.replace('-', ' ')} company in {city}.",
    }


def _contact(row: tuple[Any, ...], companies: Mapping[str, str]) -> tuple[str, dict[str, Any]]:
    first, last, title, company, lifecycle, tags = row
    domain = f"{company.split()[0].lower()}.example"
    email = f"{first.lower()}.{last.lower()}@{domain}"
    return f"{first} {last}", {
        "first-name": first,
        "last-name": last,
        "job-title": title,
        "emails": [{"value": email, "label": "work", "isPrimary": True}],
        "company": companies[company],
        "lifecycle": lifecycle,
        "tags": list(tags),
        "do-not-contact": lifecycle == "churned",
    }


def _deal(
    row: tuple[Any, ...],
    companies: Mapping[str, str],
    contacts: Mapping[str, str],
    owner: str,
    today: date,
) -> tuple[str, dict[str, Any]]:
    name, company, people, stage, amount, probability, close_in = row
    return name, {
        "name": name,
        "company": companies[company],
        "contacts": [contacts[last] for last in people],
        "stage": stage,
        "amount": {"amount": amount, "currency": "USD"},
        "probability": probability,
        "close-date": (today + timedelta(days=close_in)).isoformat(),
        "owner": owner,
        **({"lost-reason": "Chose an in-house tool"} if stage == "lost" else {}),
    }


def _task(
    row: tuple[Any, ...], deals: Mapping[str, str], owner: str, today: date
) -> tuple[str, dict[str, Any]]:
    title, kind, status, priority, due_in, deal = row
    return title, {
        "title": title,
        "task-type": kind,
        "status": status,
        "priority": priority,
        "due-date": (today + timedelta(days=due_in)).isoformat(),
        "assignee": owner,
        "related-deal": deals[deal],
        "done": status == "done",
        "estimate": 1800 if kind == "call" else 3600,
    }
