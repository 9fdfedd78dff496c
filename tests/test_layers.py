"""The layers of the package: every module imports only modules of its own layer or of a
lower one,

    engine (coinche_rl's core modules) < envs < agents < arena, terminal < train < web < cli

checked by import-linter (the contracts in ``pyproject.toml``: the layers, and the engine
and the envs never importing torch, ray or tyro) on the package as it is installed: envs/ and
agents/ are ``coinche_rl.envs`` and ``coinche_rl.agents``, so the test lays the sources
out so in a temporary folder first. Every import counts, those inside functions too.
The same import graph must have no cycle between modules. The optional heavy
dependencies (PettingZoo, Gymnasium, the web extra) are checked in fresh interpreters:
importing what does not use them must not import them."""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Dict, List, Set

import pytest

REPO = Path(__file__).resolve().parents[1]


#: package -> the folder of its source (pyproject.toml's package-dir)
ROOTS = {"coinche_rl": REPO / "coinche_rl", "coinche_rl.envs": REPO / "envs",
         "coinche_rl.agents": REPO / "agents"}


@pytest.fixture(scope="module")
def tree(tmp_path_factory) -> Path:
    """The package's sources laid out as installed (``coinche_rl/agents/...``)."""
    root = tmp_path_factory.mktemp("layout")
    for pkg, folder in ROOTS.items():
        dest = root.joinpath(*pkg.split("."))
        for src in folder.rglob("*.py"):
            rel = src.relative_to(folder)
            if "__pycache__" in rel.parts or (pkg == "coinche_rl" and rel.parts[0] in
                                               ("envs", "agents")):
                continue
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy(src, dest / rel)
    return root


def _run(tree: Path, code: List[str]) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    return subprocess.run(code, capture_output=True, text=True, cwd=str(tree), env=env,
                          timeout=300)


def test_the_layout_holds_every_package(tree):
    for name in ("coinche_rl/engine", "coinche_rl/cli", "coinche_rl/envs/coinche_v0.py",
                 "coinche_rl/agents/pimc.py", "coinche_rl/agents/neural/agent.py",
                 "coinche_rl/train/play.py", "coinche_rl/web/app.py"):
        assert (tree / name).exists() or (tree / (name + ".py")).exists(), name


def test_the_import_contracts_are_kept(tree):
    """``lint-imports``: the layers (every module of coinche_rl in one) and the
    forbidden imports of pyproject.toml."""
    r = _run(tree, [sys.executable, "-c", "import sys; from importlinter.cli import "
                    "lint_imports_command; sys.exit(lint_imports_command())",
                    str(REPO / "pyproject.toml"), "--no-cache"])
    assert r.returncode == 0, r.stdout + r.stderr
    assert "0 broken" in r.stdout and "Contracts: 3 kept" in r.stdout, r.stdout
    # the graph is the copy's, not the installed package's
    where = _run(tree, [sys.executable, "-c", "import importlib.util as u; "
                        "print(u.find_spec('coinche_rl').origin)"]).stdout
    assert where.startswith(str(tree)), where


def test_the_engine_sub_layers_catch_an_upward_import_and_a_shared_oracle(tree, tmp_path):
    """The engine layer's own contract breaks when a kernel module imports the Python face
    above it, or when a reference (an independent oracle) imports the kernels."""
    copy = tmp_path / "tree"
    shutil.copytree(tree, copy)
    entry = copy / "coinche_rl" / "engine" / "entry.py"
    entry.write_text(entry.read_text() + "\n\ndef _upward():\n    from .. import records\n")
    ref = copy / "coinche_rl" / "reference_two.py"
    ref.write_text(ref.read_text() + "\n\ndef _shared():\n    from .engine import two\n")
    r = _run(copy, [sys.executable, "-c", "import sys; from importlinter.cli import "
                    "lint_imports_command; sys.exit(lint_imports_command())",
                    str(REPO / "pyproject.toml"), "--no-cache"])
    assert r.returncode != 0 and "1 broken" in r.stdout, r.stdout
    assert "coinche_rl.engine.entry -> coinche_rl.records" in r.stdout, r.stdout
    assert "coinche_rl.reference_two -> coinche_rl.engine.two" in r.stdout, r.stdout


def test_no_module_imports_itself_back(tree):
    """No cycle of imports between the package's modules (inside functions too)."""
    code = """
import json, sys, grimp
g = grimp.build_graph("coinche_rl", cache_dir=None)
edges = {m: sorted(g.find_modules_directly_imported_by(m)) for m in g.modules}
print(json.dumps(edges))
"""
    r = _run(tree, [sys.executable, "-c", code])
    assert r.returncode == 0, r.stderr
    edges: Dict[str, List[str]] = json.loads(r.stdout)
    assert "coinche_rl.agents.registry" in edges and "coinche_rl.train.common" in edges
    # Tarjan's strongly connected components, iteratively
    index: Dict[str, int] = {}
    low: Dict[str, int] = {}
    stack: List[str] = []
    on: Set[str] = set()
    cycles = []
    for root in sorted(edges):
        if root in index:
            continue
        work = [(root, iter(edges[root]))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(edges.get(w, ()))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    cycles.append(sorted(comp))
    assert not cycles, f"modules that import each other (directly or round a circle): {cycles}"


def test_the_arena_imports_the_package_at_the_top():
    """The arena's imports of the package are at the top of its modules (its layers are
    visible there); only optional extras (rich, matplotlib, ray) are imported where used."""
    late = []
    for path in sorted((REPO / "coinche_rl" / "arena").rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top = {id(n) for n in tree.body}
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) not in top:
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                    [("." * node.level) + (node.module or "")]
                if any(n.startswith((".", "coinche_rl")) for n in names):
                    late.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert not late, f"package imports inside functions: {late}"


def test_only_the_trainers_import_tyro():
    """tyro (the nn extra) turns the trainers' settings into their command lines: no
    module outside ``coinche_rl/train`` imports it, inside functions or not."""
    found = []
    for folder in ROOTS.values():
        for path in sorted(folder.rglob("*.py")):
            if (REPO / "coinche_rl" / "train") in path.parents:
                continue
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                    [node.module or ""] if isinstance(node, ast.ImportFrom) and not node.level \
                    else []
                if any(n.split(".")[0] == "tyro" for n in names):
                    found.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert not found, f"tyro imported outside coinche_rl/train: {found}"


# ------------------------------------------------------- optional heavy dependencies
def _loaded_after(statement: str, prefixes=("pettingzoo", "gymnasium")) -> Set[str]:
    """The top-level modules among ``prefixes`` loaded by ``statement`` in a fresh
    interpreter."""
    code = (f"import sys; {statement}; import json; "
            f"print(json.dumps(sorted({{m.split('.')[0] for m in sys.modules}} & {set(prefixes)!r})))")
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       cwd=str(REPO), env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    return set(json.loads(r.stdout.strip().splitlines()[-1]))


@pytest.mark.slow
def test_the_command_line_and_the_web_views_do_not_import_the_web_extra():
    """``coinche-rl`` (and its serve subcommand's error without the extra) works without
    Starlette and uvicorn; only the application module imports them."""
    extra = ("starlette", "uvicorn")
    assert not _loaded_after("import coinche_rl.cli; import coinche_rl.web, "
                             "coinche_rl.web.play, coinche_rl.web.analysis", extra)
    if all(importlib.util.find_spec(m) for m in extra):
        assert "starlette" in _loaded_after("import coinche_rl.web.app", extra)


@pytest.mark.slow
def test_importing_the_envs_does_not_import_pettingzoo():
    assert "pettingzoo" not in _loaded_after("import coinche_rl.envs")


@pytest.mark.slow
def test_the_pettingzoo_env_imports_pettingzoo_when_used():
    assert "pettingzoo" in _loaded_after("import coinche_rl.envs as e; e.coinche_v0")


@pytest.mark.slow
@pytest.mark.parametrize("module", ["coinche_rl.agents.sampler", "coinche_rl.agents.pimc",
                                    "coinche_rl.agents.evaluation"])
@pytest.mark.parametrize("dependency", ["pettingzoo", "gymnasium"])
def test_the_search_agents_do_not_import_the_env_libraries(module, dependency):
    assert dependency not in _loaded_after(f"import {module}")
