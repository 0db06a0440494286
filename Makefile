# Every target creates and uses the local virtual environment .venv.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
# the peer guard `make corpus` measures beside STYLE (npm registry), and where it is installed
CCSN_VERSION := 2.4.5
CORPUS_CACHE := .corpus-cache
CCSN := $(CORPUS_CACHE)/.installed-cc-safety-net-$(CCSN_VERSION)

.PHONY: setup demo test test-typer e2e lint format bench bench-hook bench-compare bench-history docs readme-layout corpus sweep-output clean

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

# The suite on every core (pytest-xdist). `loadfile`: a worker takes a whole module at a time,
# so a module's shared fixture is built once (`worksteal` can split a module between workers,
# and each builds the fixture, some of which run all of a module's hook processes); in the
# order collected (`--no-loadscope-reorder`: not by test count), which puts the slowest modules
# first (tests/conftest.py SLOW_FIRST). The HTML report's test renders in Debian's Chromium,
# which scripts/ensure-chromium installs when it is missing (or says in one line why it
# cannot), while the venv is set up: on a fresh machine both are mostly downloads.
TEST_WORKERS ?= auto
test:
	@scripts/ensure-chromium & browser=$$!; \
	$(MAKE) --no-print-directory setup; venv=$$?; \
	wait $$browser && exit $$venv
	$(BIN)/pytest -n $(TEST_WORKERS) --dist loadfile --no-loadscope-reorder

# The CLI tests against the lowest and the newest typer that pyproject.toml allows, each in a
# small venv of its own (the package, its runtime dependencies and pytest; pip's cache makes a
# rerun quick). `--upgrade-strategy eager`: the other dependencies as a fresh install gets them.
TYPER_RANGE := $(shell sed -n 's/^ *"typer\([^"]*\)",$$/\1/p' pyproject.toml)
TYPER_LOWEST := $(shell sed -n 's/^ *"typer>=\([0-9.]*\).*/\1/p' pyproject.toml)
CLI_TESTS := $(wildcard tests/test_cli*.py)

define typer_venv
	test -x $(1)/bin/python || ($(PY) -m venv $(1) && $(1)/bin/pip install -q --upgrade pip)
	$(1)/bin/pip install -q --upgrade --upgrade-strategy eager -e . "$(2)" pytest \
		--config-settings editable_mode=compat
	$(1)/bin/python -c 'import typer; print("CLI tests with typer", typer.__version__)'
	$(1)/bin/pytest $(CLI_TESTS)
endef

test-typer:
	$(call typer_venv,.venv-typer-lowest,typer==$(TYPER_LOWEST))
	$(call typer_venv,.venv-typer-newest,typer$(TYPER_RANGE))

# The end-to-end suite: the real Claude Code, Codex and Gemini CLI (pinned in
# tests/e2e/clients.json, installed once into .e2e-cache/) against mock model APIs.
e2e: $(STAMP)
	$(BIN)/python tests/e2e/install_clients.py
	$(BIN)/pytest tests/e2e

lint: $(STAMP)
	$(BIN)/ruff check agentstyle tests bench docs/hooks scripts
	$(BIN)/ruff format --check agentstyle tests bench docs/hooks scripts
	$(BIN)/mypy

format: $(STAMP)
	$(BIN)/ruff format agentstyle tests bench docs/hooks scripts
	$(BIN)/ruff check --fix agentstyle tests bench docs/hooks scripts

bench: $(STAMP) $(CCSN)
	$(BIN)/python -m bench.run

# The engine's answer against the bundled guards beside an earlier checkout with its own .venv
# (bench/compare_bench.py): make bench-compare REF=../ref
bench-compare: $(STAMP)
	$(BIN)/python -m bench.compare_bench $(REF)

# The hook latency bench alone (bench/hook_bench.py): its section of bench/RESULTS.md rewritten,
# the rest of the file left as the last `make bench` wrote it. On a machine other work loads:
#   STYLE_BENCH_NICE=-10 make bench-hook   (as root: the bench and its engines ahead of the rest)
bench-hook: $(STAMP)
	$(BIN)/python -m bench.run hook

# The history bench alone (bench/history_bench.py: 0 to 10M events, 10 machines; the built
# histories are cached in .bench-cache/). A quick run:
#   STYLE_BENCH_HISTORY=0,100000 STYLE_BENCH_MACHINES=2 STYLE_BENCH_TEAM_EVENTS=100000 make bench-history
bench-history: $(STAMP)
	$(BIN)/python -m bench.history_bench

# The user documentation (docs/, mkdocs.yml) as a site in site/; warnings fail the build.
docs: $(STAMP)
	$(BIN)/mkdocs build --strict --site-dir site

# The README's Layout, written from each module's docstring (its first line) by
# scripts/readme_layout.py; tests/test_readme_layout.py fails while it is stale.
readme-layout: $(STAMP)
	$(BIN)/python scripts/readme_layout.py

# The guard corpus: STYLE's precision and recall per category and form, and beside it
# cc-safety-net (CCSN_VERSION, installed from the npm registry into the git-ignored
# .corpus-cache/ when missing), into bench/RESULTS.md (`make bench` writes the same section with
# the rest). `python -m bench.corpus --help` for the options (STYLE only, the gaps list). Then the
# secret-output corpus: guard-secrets-output's precision and recall on tool outputs, its own section.
$(CCSN):
	npm install --prefix $(CORPUS_CACHE) --no-audit --no-fund --loglevel=error \
		cc-safety-net@$(CCSN_VERSION)
	touch $(CCSN)

corpus: $(STAMP) $(CCSN)
	$(BIN)/python -m bench.corpus
	$(BIN)/python -m bench.corpus.secrets

# Unlabeled real text on this machine through guard-secrets-output, every change it would make
# listed to judge by eye (bench/corpus/sweep.py): false alarms no labelled corpus holds.
sweep-output: $(STAMP)
	$(BIN)/python -m bench.corpus.sweep

clean:
	rm -rf $(VENV) .venv-typer-lowest .venv-typer-newest .pytest_cache .mypy_cache .ruff_cache site \
		$(CORPUS_CACHE)
