# Two commands do all the set-up: `make lab` and `make test`. Both create .venv on first use.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# `make lab` always starts on the offline mock; to use a real endpoint say so here, e.g.
#   make lab BASE_URL=http://localhost:11434/v1 MODEL=llama3.2
BASE_URL ?=
MODEL ?=
PYTEST_ARGS ?=

.PHONY: lab lite lite-serve test lint i18n bench bench-quick bench-class serve clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip

$(VENV)/.core-installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e .
	touch $@

$(VENV)/.lab-installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[lab]'
	touch $@ $(VENV)/.core-installed

$(VENV)/.lite-installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[lite]'
	touch $@ $(VENV)/.core-installed

# The test extra includes the lab and lite extras.
$(VENV)/.test-installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[test]'
	touch $@ $(VENV)/.core-installed $(VENV)/.lab-installed $(VENV)/.lite-installed

$(VENV)/.bench-installed: pyproject.toml | $(BIN)/python
	$(BIN)/python -m pip install --quiet -e '.[bench,test]'
	touch $@ $(VENV)/.core-installed $(VENV)/.lab-installed $(VENV)/.lite-installed $(VENV)/.test-installed

# Jupyter refuses to run as root without --allow-root (a container, a cloud VM): pass it only then.
AS_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root,)
LAB_ARGS ?=

lab: $(VENV)/.lab-installed
	OPENAI_BASE_URL="$(BASE_URL)" WHENTOSTOP_MODEL="$(MODEL)" \
		$(BIN)/jupyter lab $(AS_ROOT) --ServerApp.root_dir=notebooks \
		--LabApp.default_url=/lab/tree/00_start_here.ipynb $(LAB_ARGS)

# The lesson as a static JupyterLite site in build/lite: Pyodide, the wheels and the notebooks,
# nothing to install for a learner. Downloads (npm, PyPI) are cached in build/lite-cache.
LITE_OUT ?= build/lite
LITE_PORT ?= 8000

lite: $(VENV)/.lite-installed
	$(BIN)/python lite/build.py --out $(LITE_OUT)

lite-serve: lite
	$(BIN)/python lite/serve.py $(LITE_OUT) --port $(LITE_PORT)

# axe-core for the accessibility tests, from npm at the version the lock file names (when npm is
# there: without it those tests skip locally; .ci/run installs npm, so CI always has them)
AXE := tests/a11y/node_modules/axe-core/axe.min.js
$(AXE): tests/a11y/package.json tests/a11y/package-lock.json
	cd tests/a11y && npm ci --no-fund --no-audit --loglevel=error
	touch $@

test: $(VENV)/.test-installed $(if $(shell command -v npm),$(AXE),)
	$(BIN)/python -m pytest $(PYTEST_ARGS)

# ruff (lint; the rules and why are in pyproject.toml) and mypy (strict on the loop's core)
lint: $(VENV)/.test-installed
	$(BIN)/ruff check src tests bench tools lite
	$(BIN)/mypy

# extract the learner-facing words, merge them into each language's catalogue, compile; then the
# same for the lesson's paragraphs, and build the Portuguese notebooks and guide from them
i18n: $(VENV)/.test-installed
	$(BIN)/python tools/i18n.py update
	$(BIN)/python tools/lesson_i18n.py update

bench: $(VENV)/.bench-installed
	$(BIN)/python lite/build.py --out $(LITE_OUT)  # section 8 measures the site in Chromium
	$(BIN)/python bench/run.py

bench-quick: $(VENV)/.bench-installed
	$(BIN)/python bench/run.py --quick --out $(VENV)/bench-quick.md  # smoke numbers: never over RESULTS.md

# A class on one JupyterHub, measured (bench/class_sim.py): N learners at once, then the same
# class on one shared `python -m whentostop serve`. Writes its section of bench/RESULTS.md.
# JupyterHub's proxy comes from npm: the one on PATH (CI installs it), else one put in .venv.
N ?= 20
CLASS_ARGS ?=
CHP_DIR := $(VENV)/node
bench-class: $(VENV)/.bench-installed
	@command -v configurable-http-proxy >/dev/null 2>&1 \
		|| test -x $(CHP_DIR)/node_modules/.bin/configurable-http-proxy \
		|| npm install --prefix $(CHP_DIR) --no-fund --no-audit --loglevel=error configurable-http-proxy@5.2.0 \
		|| { echo "JupyterHub needs configurable-http-proxy, from npm: apt-get install nodejs npm"; exit 1; }
	PATH="$$PATH:$(abspath $(CHP_DIR))/node_modules/.bin" $(BIN)/python bench/class_sim.py --learners $(N) $(CLASS_ARGS)

serve: $(VENV)/.core-installed
	$(BIN)/python -m whentostop serve

clean:
	rm -rf $(VENV) build dist .pytest_cache
