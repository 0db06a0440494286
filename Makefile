# Every target creates and uses the local virtual environment .venv.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup demo test e2e lint format bench docs clean

# compat editable mode: a path entry instead of an import finder that every interpreter start
# (so every hook process) would load.
$(STAMP): pyproject.toml
	$(PY) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[dev]' --config-settings editable_mode=compat
	touch $(STAMP)

setup: $(STAMP)

demo: $(STAMP)
	$(BIN)/python -m agentstyle.demo

test: $(STAMP)
	$(BIN)/pytest

# The end-to-end suite: the real Claude Code, Codex and Gemini CLI (pinned in
# tests/e2e/clients.json, installed once into .e2e-cache/) against mock model APIs.
e2e: $(STAMP)
	$(BIN)/python tests/e2e/install_clients.py
	$(BIN)/pytest tests/e2e

lint: $(STAMP)
	$(BIN)/ruff check agentstyle tests bench docs/hooks
	$(BIN)/ruff format --check agentstyle tests bench docs/hooks
	$(BIN)/mypy

format: $(STAMP)
	$(BIN)/ruff format agentstyle tests bench docs/hooks
	$(BIN)/ruff check --fix agentstyle tests bench docs/hooks

bench: $(STAMP)
	$(BIN)/python -m bench.run

# The user documentation (docs/, mkdocs.yml) as a site in site/; warnings fail the build.
docs: $(STAMP)
	$(BIN)/mkdocs build --strict --site-dir site

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache site
