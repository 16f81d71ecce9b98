"""The tests mirror the tree: fieldhouse/a/b.py is tested in tests/a/test_b.py.

A module counts as mirrored when tests/<same folder>/test_<module>.py exists, or a file
test_<module>_<aspect>.py beside it (tests/http/routes/test_records_list.py is the list half
of fieldhouse/http/routes/records.py's tests). A package's __init__.py that holds logic is
mirrored by tests/<parent>/test_<package>.py. Run this file as a script to print the table.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = ROOT / "fieldhouse"
TESTS = ROOT / "tests"

# Modules that need no test file of their own: each entry says why.
TRIVIAL = {
    "__main__.py": "two lines calling console.main",
    "commands.py": "the admin commands and serve's preparation of the store, apart from cli.py "
    "only to be imported late (tests/test_cli*.py and the serve tests run them through main)",
    "actors/__init__.py": "re-exports",
    "agents/__init__.py": "docstring only",
    "agents/contract.py": "the dataclasses and Protocol between the run loop and the tools",
    "agents/tools/__init__.py": "re-exports",
    "model/operators.py": "one tuple of operator names (used by tests of listquery and rollup)",
    "http/__init__.py": "docstring only",
    "http/wire/__init__.py": "docstring only (tests/http/wire/test_private_names.py checks the "
    "names it lists)",
    "http/routes/__init__.py": "the ROUTES list, data",
    "model/__init__.py": "docstring only",
    "model/fields/kind.py": "the operator tables and the FilterKind dataclass",
    "model/schema.py": "the stored schema's dataclasses",
    "model/values/__init__.py": "re-exports",
    "model/templates/__init__.py": "the template list, data",
    "model/templates/_helpers.py": "field-definition shorthands used by the template data",
    "model/templates/companies.py": "template data (tests/model/test_templates.py checks all)",
    "model/templates/contacts.py": "template data (tests/model/test_templates.py checks all)",
    "model/templates/deals.py": "template data (tests/model/test_templates.py checks all)",
    "model/templates/tasks.py": "template data (tests/model/test_templates.py checks all)",
    "services.py": "one frozen dataclass of the running services (its agent runtime, built at "
    "first use, is run by tests/agents; tests/test_worker.py checks a worker loads it late)",
    "storage/__init__.py": "re-exports",
    "storage/urls.py": "one exception class and a one-line URL scheme check (tests/storage/"
    "test_open.py and test_backend.py meet both)",
    "storage/base.py": "storage errors, row dataclasses, one-line Stmt constructors and the "
    "Driver protocol (the driver and store tests run them)",
    "__init__.py": "the version string",
}


def modules() -> list[str]:
    return sorted(p.relative_to(PACKAGE).as_posix() for p in PACKAGE.rglob("*.py"))


def mirror_of(module: str) -> tuple[Path, str]:
    """The folder a module's test lives in and the name its test file starts with."""
    path = Path(module)
    if path.name == "__init__.py":
        return TESTS / path.parent.parent, f"test_{path.parent.name}"
    return TESTS / path.parent, f"test_{path.stem}"


def mirrored(module: str) -> bool:
    folder, stem = mirror_of(module)
    return (folder / f"{stem}.py").is_file() or any(folder.glob(f"{stem}_*.py"))


def test_every_module_with_logic_has_a_mirrored_test() -> None:
    missing = [m for m in modules() if m not in TRIVIAL and not mirrored(m)]
    assert missing == [], f"modules without tests/<path>/test_<module>.py: {missing}"


def test_trivial_list_is_current() -> None:
    everything = set(modules())
    gone = sorted(m for m in TRIVIAL if m not in everything)
    assert gone == [], f"remove from TRIVIAL (module gone): {gone}"


def module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def imports_of(path: Path, known: set[str]) -> set[str]:
    """The fieldhouse modules a module imports anywhere in it (a deferred import inside a
    function counts: it only hides a cycle)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                # "from package import submodule" imports the submodule; a name, the module
                sub = f"{node.module}.{alias.name}"
                found.add(sub if sub in known else node.module)
    return found & known


def import_cycles() -> list[list[str]]:
    """Each cycle of module imports inside fieldhouse, as the path that closes it."""
    paths = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    graph = {name: imports_of(path, set(paths)) for name, path in paths.items()}
    cycles: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done

    def visit(name: str, trail: list[str]) -> None:
        state[name] = 1
        for target in sorted(graph[name] - {name}):
            if state.get(target) == 1:
                cycles.append([*trail[trail.index(target) :], target])
            elif target not in state:
                visit(target, [*trail, target])
        state[name] = 2

    for name in sorted(graph):
        if name not in state:
            visit(name, [name])
    return cycles


def test_no_import_cycles() -> None:
    assert import_cycles() == []


def test_the_actors_import_nothing_from_the_agents() -> None:
    """The actors run any message without knowing it (each handles itself): the agents' writes
    live in agents/, which builds on the actors, never the other way round."""
    paths = {module_name(p): p for p in PACKAGE.rglob("*.py")}
    known = set(paths)
    wrong = {
        name: sorted(t for t in imports_of(path, known) if t.startswith("fieldhouse.agents"))
        for name, path in paths.items()
        if name.startswith("fieldhouse.actors")
    }
    assert {name: found for name, found in wrong.items() if found} == {}


def main() -> None:
    rows = modules()
    for m in rows:
        mark = "yes" if mirrored(m) else ("trivial" if m in TRIVIAL else "NO")
        print(f"{mark:8} fieldhouse/{m}")
    done = sum(mirrored(m) for m in rows)
    print(f"{done} of {len(rows)} modules have a mirrored test; {len(TRIVIAL)} trivial")


if __name__ == "__main__":
    sys.exit(main())
