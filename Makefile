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

# The install is incremental. A stamp in the venv records it, so a second `make demo` or
# `make test` skips pip while nothing the C++ modules are built from has changed (the Python
# code is installed editable: its changes need no install). When something has, pip rebuilds
# without build isolation, with the build tools installed in the venv, in one persistent
# directory (build/venv), so CMake and Ninja recompile only what changed. A plain
# `pip install -e .` still works as before (isolated, in build/{wheel_tag}).
STAMP := $(VENV)/.wacky-installed
DEV_STAMP := $(VENV)/.wacky-installed-dev
BUILD_TOOLS := "scikit-build-core>=0.9" "pybind11>=2.12" "cmake>=3.18" ninja
NATIVE_INPUTS := pyproject.toml CMakeLists.txt $(wildcard native_engine/src/* rocksdb_bridge/src/*)
# Whether librocksdb-dev was there when the modules were built: the bridge is built only if so.
ROCKSDB_STATE := $(VENV)/.wacky-rocksdb-$(if $(wildcard /usr/include/rocksdb/db.h),yes,no)
EDITABLE = $(PIP) install --quiet --no-build-isolation -C build-dir=build/venv -e

# The stamps are made by a second make, which looks for librocksdb-dev after rocksdb-dev ran.
install: $(PY) rocksdb-dev
	@$(PY) -c "import native_engine._engine" 2>/dev/null || rm -f $(STAMP) $(DEV_STAMP)
	@$(MAKE) --no-print-directory -q $(STAMP) && echo "the install is up to date" || \
	  $(MAKE) --no-print-directory $(STAMP)

install-dev: $(PY) rocksdb-dev
	@$(PY) -c "import native_engine._engine" 2>/dev/null || rm -f $(STAMP) $(DEV_STAMP)
	@$(MAKE) --no-print-directory -q $(DEV_STAMP) && echo "the install is up to date" || \
	  $(MAKE) --no-print-directory $(DEV_STAMP)

$(STAMP): $(NATIVE_INPUTS) $(ROCKSDB_STATE)
	$(PIP) install --quiet $(BUILD_TOOLS)
	$(EDITABLE) .
	touch $@

$(DEV_STAMP): $(NATIVE_INPUTS) $(ROCKSDB_STATE)
	$(PIP) install --quiet $(BUILD_TOOLS)
	$(EDITABLE) ".[dev]"
	touch $@ $(STAMP)

$(VENV)/.wacky-rocksdb-%:
	rm -f $(VENV)/.wacky-rocksdb-*
	touch $@

# Debian's librocksdb-dev for the RocksDB bridge (rocksdb_bridge), installed with apt when it is
# missing and apt can run (it says so first); otherwise the bridge is not built and says how
# to install it.
rocksdb-dev:
	@if [ ! -f /usr/include/rocksdb/db.h ]; then \
	  if command -v apt-get >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	    echo "installing Debian's librocksdb-dev with apt-get (for the RocksDB bridge)"; \
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

# The tests run JOBS at a time (pytest-xdist workers, ctest jobs): one a core unless told, as
# in `make test JOBS=1`. --dist loadfile runs each test file on one worker, so a module-scoped
# fixture (a Dask cluster, an executed notebook, engine runs) is built once, not once a worker
# (xdist 3.8's loadgroup does not group under pytest 9.2, whose nodeids it cannot suffix). A
# notebook cell may take 900 s, as in tests/test_notebook_export.py (nbmake's default is 300 s,
# which notebook 05's engine runs come near on a busy 2-core machine).
JOBS ?= $(shell nproc 2>/dev/null || echo 2)

test: lint ctest
	$(VENV)/bin/python -m pytest -n $(JOBS) --dist loadfile
	$(VENV)/bin/python -m pytest -n $(JOBS) --nbmake --nbmake-timeout=900 notebooks

# The engine's C++ unit tests (native_engine/src/*_test.cc); no Python needed.
ctest: $(CMAKE)
	$(CMAKE) -S . -B build/cpp-tests -DWACKY_BUILD_TESTS=ON >/dev/null
	$(CMAKE) --build build/cpp-tests --parallel
	cd build/cpp-tests && $(CTEST) --output-on-failure --parallel $(JOBS)

# The same tests built with AddressSanitizer and UndefinedBehaviorSanitizer; any report fails.
sanitize: $(CMAKE)
	$(CMAKE) -S . -B build/sanitize -DWACKY_BUILD_TESTS=ON -DWACKY_SANITIZE=ON >/dev/null
	$(CMAKE) --build build/sanitize --parallel
	cd build/sanitize && ASAN_OPTIONS=detect_leaks=1 \
		UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1 $(CTEST) --output-on-failure \
		--parallel $(JOBS)

$(abspath $(VENV))/bin/cmake: | $(PY)
	$(PIP) install --quiet cmake

bench: install-dev
	for b in benchmarks/bench_*.py; do $(PY) $$b || exit 1; done

clean:
	rm -rf build $(VENV) .pytest_cache .ruff_cache
