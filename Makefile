# Two commands: `make demo` and `make test`. Both create or refresh .venv first.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: demo test venv bench soak clean

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)

# Reinstall when the package metadata or the pinned versions change.
$(STAMP): $(BIN)/python pyproject.toml constraints.txt
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -c constraints.txt -e '.[dev,arena,ray,nn]'
	touch $(STAMP)

venv: $(STAMP)

# A duplicate tournament: random against heuristic and every other registered agent
# (agents without a numba kernel, such as pimc, play a few deal pairs only).
demo: $(STAMP)
	$(BIN)/coinche-rl tournament --python-deals 4

# A fresh numba cache for every test run: numba does not notice edits in other
# modules, so a stale cache could hide a change.
test: $(STAMP)
	NUMBA_CACHE_DIR=$$(mktemp -d) $(BIN)/python -m pytest -q

bench: $(STAMP)
	$(BIN)/coinche-rl bench

soak: $(STAMP)
	COINCHE_SOAK=1000000 NUMBA_CACHE_DIR=$$(mktemp -d) $(BIN)/python -m pytest -q -m soak tests

clean:
	rm -rf $(VENV) build *.egg-info
