# Two commands do all of the set-up on a fresh machine: `make demo` and `make test`.
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check

.PHONY: install install-dev demo test lint bench clean

$(PY):
	python3 -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

install: $(PY)
	$(PIP) install --quiet -e .

install-dev: $(PY)
	$(PIP) install --quiet -e ".[dev]"

demo: install
	$(VENV)/bin/wacky recommend --point-reads 0.2 --zero-reads 0.2 --writes 0.6

lint: install-dev
	$(VENV)/bin/ruff check .

test: lint
	$(VENV)/bin/python -m pytest
	$(VENV)/bin/python -m pytest --nbmake notebooks

bench: install-dev
	for b in benchmarks/bench_*.py; do $(PY) $$b || exit 1; done

clean:
	rm -rf build $(VENV) .pytest_cache .ruff_cache
