# Teorema: `make run` sets everything up and starts the app; `make test` runs every test.
SHELL := /bin/bash
VENV := .venv
PY := $(VENV)/bin/python
HOST ?= 127.0.0.1
PORT ?= 8000
# llama-cpp-python compiles from source (about 5 minutes on 2 cores, once).
export CMAKE_BUILD_PARALLEL_LEVEL ?= 2

.PHONY: run setup test lint format bench docs clean

$(VENV)/bin/python:
	"$$(scripts/find-python)" -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

$(VENV)/.installed: requirements.txt | $(VENV)/bin/python
	$(PY) -m pip install -r requirements.txt
	touch $@

$(VENV)/.installed-dev: requirements.txt requirements-dev.txt $(VENV)/.installed
	$(PY) -m pip install -r requirements-dev.txt
	touch $@

# The coding-agent CLIs the tests seat as panelists (package.json, pinned by package-lock.json). Not
# `npm ci`: the lock names optional packages for other platforms that the registry does not have, which
# ci refuses. No install script runs but Claude Code's, which puts its native binary in place.
node_modules/.installed: package.json package-lock.json
	npm install --no-save --ignore-scripts --no-audit --no-fund
	node node_modules/@anthropic-ai/claude-code/install.cjs
	touch $@

setup: $(VENV)/.installed
	$(PY) manage.py migrate --no-input
	$(PY) manage.py bootstrap

# The server migrates and bootstraps itself first (--prepare): one Django start, not three.
run: $(VENV)/.installed
	@echo "Teorema is starting: open http://$(HOST):$(PORT)/ (this machine's browser is signed in as $${TEOREMA_LOCAL_USER-admin}; the admin is at /admin/)."
	TEOREMA_LOCAL_USER=$${TEOREMA_LOCAL_USER-admin} $(PY) -m teorema.serve --prepare -b $(HOST) -p $(PORT) teorema.asgi:application

test: $(VENV)/.installed-dev node_modules/.installed
	scripts/ensure-chromium
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .
	$(VENV)/bin/mypy
	@echo "Blocks of radon's grade D or worse (a figure, not a gate):"; $(VENV)/bin/radon cc -n D -s debates; $(VENV)/bin/radon cc -a debates | tail -n 1
	$(VENV)/bin/mkdocs build --strict --quiet --site-dir "$$(mktemp -d)"
	$(VENV)/bin/pytest

lint: $(VENV)/.installed-dev
	$(VENV)/bin/ruff check --fix .
	$(VENV)/bin/ruff format .

docs: $(VENV)/.installed-dev
	$(VENV)/bin/mkdocs build --strict
	@echo "The reference is in site/index.html (or: $(VENV)/bin/mkdocs serve)."

bench: $(VENV)/.installed-dev
	for script in bench/bench_*.py; do $(PY) $$script || exit 1; done

clean:
	rm -rf $(VENV) staticfiles site .pytest_cache .ruff_cache .mypy_cache
