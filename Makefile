# Two commands: `make demo` and `make test`. Both create or refresh .venv first.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
# one stamp per install: the demo needs the package and its tables (rich) only; the
# tests need the dev, arena, ray, nn (torch, tyro) and web extras
DEMO   := $(VENV)/.installed-demo
STAMP  := $(VENV)/.installed

.PHONY: demo test venv bench soak clean rllib-venv rllib-test rllib-selfplay

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

# RLlib in a venv of its own, .venv-rllib (RLlib pins its own gymnasium, 1.2.2, and more
# that the project's venv does not take): torch (CPU), ray[rllib] and the package, at
# the versions of constraints-rllib.txt.
RLLIB_VENV  := .venv-rllib
RLLIB_STAMP := $(RLLIB_VENV)/.installed
# the short run of make rllib-test (CI): two iterations of a tiny batch on a local
# cluster of two nodes with two env runners, four deal pairs per evaluation
RLLIB_SHORT := --iterations 2 --train-batch 200 --minibatch 64 --epochs 1 --hidden 64 \
	--league 2 --snapshot-every 1 --eval-every 1 --eval-deals 4

$(RLLIB_VENV)/bin/python:
	$(PYTHON) -m venv $(RLLIB_VENV)

$(RLLIB_STAMP): $(RLLIB_VENV)/bin/python pyproject.toml constraints-rllib.txt
	$(RLLIB_VENV)/bin/python -m pip install -q --upgrade pip
	$(RLLIB_VENV)/bin/python -m pip install -q --no-compile -c constraints-rllib.txt \
		torch 'ray[rllib]' pytest hypothesis -e .
	touch $(RLLIB_STAMP)

rllib-venv: $(RLLIB_STAMP)

# The adapter's tests with RLlib, then the short self-play run (its curve in a
# temporary folder, removed with the numba cache).
rllib-test: $(RLLIB_STAMP)
	@$(FRESH_CACHE) $(RLLIB_VENV)/bin/python -m pytest -q -p no:cacheprovider tests/test_rllib_env.py && \
	NUMBA_CACHE_DIR="$$cache" $(RLLIB_VENV)/bin/python -m coinche_rl.train.rllib_selfplay \
		$(RLLIB_SHORT) --out "$$cache/rllib_selfplay"

# Self-play with RLlib on a local Ray cluster (coinche_rl/train/rllib_selfplay.py);
# its settings: make rllib-selfplay ARGS="--iterations 40 --out runs/x"
rllib-selfplay: $(RLLIB_STAMP)
	$(RLLIB_VENV)/bin/python -m coinche_rl.train.rllib_selfplay $(ARGS)

clean:
	rm -rf $(VENV) $(RLLIB_VENV) build *.egg-info
