# Two commands do all of the set-up on a fresh machine: `make demo` and `make test`.
VENV ?= .venv
PY := $(VENV)/bin/python
PIP := $(PY) -m pip --disable-pip-version-check
# cmake and ctest from the system, or else pip's cmake package inside the venv.
CMAKE ?= $(shell command -v cmake 2>/dev/null || echo $(abspath $(VENV))/bin/cmake)
CTEST ?= $(shell command -v ctest 2>/dev/null || echo $(abspath $(VENV))/bin/ctest)

.PHONY: install install-dev demo test lint ctest sanitize bench clean rocksdb-dev

$(PY):
	python3 -m venv $(VENV)
	$(PIP) install --quiet --upgrade pip

install: $(PY) rocksdb-dev
	$(PIP) install --quiet -e .

install-dev: $(PY) rocksdb-dev
	$(PIP) install --quiet -e ".[dev]"

# Debian's librocksdb-dev for the RocksDB bridge (rocksdb_bridge), installed with apt when it is
# missing and apt can run; otherwise the bridge is not built and says how to install it.
rocksdb-dev:
	@if [ ! -f /usr/include/rocksdb/db.h ]; then \
	  if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	    export DEBIAN_FRONTEND=noninteractive; \
	    apt-get install -y -qq --no-install-recommends librocksdb-dev >/dev/null 2>&1 || \
	      { apt-get update -qq && apt-get install -y -qq --no-install-recommends \
	          librocksdb-dev >/dev/null; } || \
	      echo "note: could not install librocksdb-dev; the RocksDB bridge will not be built"; \
	  else \
	    echo "note: librocksdb-dev is missing; the RocksDB bridge will not be built" \
	         "(sudo apt-get install librocksdb-dev, then make install)"; \
	  fi; \
	fi

demo: install
	$(VENV)/bin/wacky recommend --point-reads 0.2 --zero-reads 0.2 --writes 0.6

lint: install-dev
	$(VENV)/bin/ruff check .

test: lint ctest
	$(VENV)/bin/python -m pytest
	$(VENV)/bin/python -m pytest --nbmake notebooks

# The engine's C++ unit tests (native_engine/src/*_test.cc); no Python needed.
ctest: $(CMAKE)
	$(CMAKE) -S . -B build/cpp-tests -DWACKY_BUILD_TESTS=ON >/dev/null
	$(CMAKE) --build build/cpp-tests --parallel
	cd build/cpp-tests && $(CTEST) --output-on-failure

# The same tests built with AddressSanitizer and UndefinedBehaviorSanitizer; any report fails.
sanitize: $(CMAKE)
	$(CMAKE) -S . -B build/sanitize -DWACKY_BUILD_TESTS=ON -DWACKY_SANITIZE=ON >/dev/null
	$(CMAKE) --build build/sanitize --parallel
	cd build/sanitize && ASAN_OPTIONS=detect_leaks=1 \
		UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 $(CTEST) --output-on-failure

$(abspath $(VENV))/bin/cmake: | $(PY)
	$(PIP) install --quiet cmake

bench: install-dev
	for b in benchmarks/bench_*.py; do $(PY) $$b || exit 1; done

clean:
	rm -rf build $(VENV) .pytest_cache .ruff_cache
