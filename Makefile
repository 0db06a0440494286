# Every target creates and uses the local virtual environment .venv.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed

.PHONY: setup demo test lint format bench corpus clean

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

lint: $(STAMP)
	$(BIN)/ruff check agentstyle tests bench
	$(BIN)/ruff format --check agentstyle tests bench
	$(BIN)/mypy

format: $(STAMP)
	$(BIN)/ruff format agentstyle tests bench
	$(BIN)/ruff check --fix agentstyle tests bench

bench: $(STAMP)
	$(BIN)/python -m bench.run

# The guard corpus alone: precision and recall per category and form, into bench/RESULTS.md
# (`make bench` writes the same section with the rest).
corpus: $(STAMP)
	$(BIN)/python -m bench.corpus

clean:
	rm -rf $(VENV) .pytest_cache .mypy_cache .ruff_cache
