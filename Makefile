# Two commands: `make demo` and `make test`. Both create or refresh .venv first.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# one stamp per install: the demo needs the package and its tables (rich) only; the
# tests need the dev, arena, ray, nn (torch, tyro) and web extras
DEMO   := $(VENV)/.installed-demo
STAMP  := $(VENV)/.installed

.PHONY: demo test venv bench soak clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Reinstall when the package metadata or the pinned versions change. --no-compile: pip
# does not byte-compile every installed module (torch, ray and sympy hold thousands; on a
# 2-core VM that took 46 of the install's 80 s); Python compiles the ones it imports, once.
# The demo's install keeps pip's default: its packages are few, and its first run starts
# processes that would each compile the same modules.
$(STAMP): $(BIN)/python pyproject.toml constraints.txt
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q --no-compile -c constraints.txt -e '.[dev,arena,ray,nn,web,sb3,torchrl]'
	touch $(STAMP) $(DEMO)

# The demo's install says one line: pip's and setuptools' notices (dozens of lines) go to
# a log, printed whole, errors included, only when the install fails.
$(DEMO): $(BIN)/python pyproject.toml constraints.txt
	@echo "installing coinche-rl with its arena extra into $(VENV) (log: $(VENV)/install-demo.log)"
	@{ $(BIN)/python -m pip install -q --upgrade pip && \
	   $(BIN)/python -m pip install -q -c constraints.txt -e '.[arena]'; } \
	   > $(VENV)/install-demo.log 2>&1 || { cat $(VENV)/install-demo.log; \
	   echo "make: the install failed: the log above is in $(VENV)/install-demo.log" >&2; exit 1; }
	@touch $(DEMO)

venv: $(STAMP)

# A duplicate tournament: random against heuristic and every other registered agent
# (agents without a numba kernel, such as pimc, play 20 deal pairs per matchup).
demo: $(DEMO)
	$(BIN)/coinche-rl tournament

# A fresh numba cache for every test run: numba does not notice edits in other
# modules, so a stale cache could hide a change. The kernels are compiled into it once,
# in parallel processes (tests/conftest.py), then shared by pytest-xdist workers, one
# per core. The folder is removed at the end, whatever the outcome (the status stays
# pytest's).
# The suite starts about a hundred Python processes (pools, Ray, the command line, the
# README's examples). Where PYTHONDONTWRITEBYTECODE is set, each of them compiled torch,
# ray, numba and the package from source again (a fresh clone: 283 s of tests instead of
# 208 s). So the test run writes bytecode after all, but into a temporary
# folder of its own (PYTHONPYCACHEPREFIX), removed at the end like the numba cache:
# nothing lands in the tree or the venv, as the setting asked.
FRESH_CACHE = cache=$$(mktemp -d "$${TMPDIR:-/tmp}/coinche-rl-numba.XXXXXX") || exit 1; \
	pyc=""; trap 'rm -rf "$$cache" $${pyc:+"$$pyc"}' EXIT; trap 'exit 130' INT TERM; \
	if [ -n "$${PYTHONDONTWRITEBYTECODE:-}" ]; then \
	pyc=$$(mktemp -d "$${TMPDIR:-/tmp}/coinche-rl-bytecode.XXXXXX") || exit 1; \
	unset PYTHONDONTWRITEBYTECODE; export PYTHONPYCACHEPREFIX="$$pyc"; fi; \
	NUMBA_CACHE_DIR="$$cache"

test: $(STAMP)
	@$(FRESH_CACHE) $(BIN)/python -m pytest -q -n auto --durations=15

bench: $(STAMP)
	$(BIN)/coinche-rl bench

soak: $(STAMP)
	@$(FRESH_CACHE) COINCHE_SOAK=1000000 $(BIN)/python -m pytest -q -m soak tests

clean:
	rm -rf $(VENV) build *.egg-info
