PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: serve test lint install bench clean

$(BIN)/python:
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip

$(STAMP): pyproject.toml | $(BIN)/python
	$(BIN)/pip install -q -e '.[test]'
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

bench: $(STAMP)
	$(BIN)/python -m benchmarks.http_load

clean:
	rm -rf $(VENV) fieldhouse-data
