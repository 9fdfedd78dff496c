"""The layers of the package (issue 16): every module imports only modules of its own
layer or of a lower one,

    engine (coinche_rl core) < envs (coinche_rl.envs) < agents (coinche_rl.agents)
        < tools (coinche_rl.arena, coinche_rl.terminal) < web (coinche_rl.web)
        < cli (coinche_rl.cli)

checked on the source (``ast``): top-level imports, imports inside functions, and
``importlib.import_module("coinche_rl....")`` / ``__import__`` calls with a literal name.
An import that goes up a layer is either fixed or listed in :data:`KNOWN_EXCEPTIONS`
with the reason; a listed exception that no longer occurs fails too, so the list stays
true. The optional heavy dependencies of the envs (PettingZoo, Gymnasium) are checked in
fresh interpreters: importing what does not use them must not import them, and so is the
web extra (Starlette, uvicorn): only ``coinche_rl.web.app`` imports it, never the command
line or the library."""

from __future__ import annotations

import ast
import importlib.util
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Dict, Iterator, List, Optional, Set, Tuple

import pytest

REPO = Path(__file__).resolve().parents[1]

#: package -> the folder of its source (envs/ and agents/ sit at the top of the
#: repository and are installed as coinche_rl.envs and coinche_rl.agents)
ROOTS = {"coinche_rl": REPO / "coinche_rl", "coinche_rl.envs": REPO / "envs",
         "coinche_rl.agents": REPO / "agents"}

ENGINE, ENVS, AGENTS, TOOLS, WEB, CLI = range(6)
LAYER_NAMES = ("engine", "envs", "agents", "tools", "web", "cli")

#: the layer of a module: the entry of the longest prefix of its name
LAYERS = {
    # the core: rules, cards, actions, engine, solver, game, records, simulate, reference,
    # the numba cache, and the package itself
    "coinche_rl": ENGINE,
    # statistics of results (points and Bradley-Terry fits, intervals): numpy only, knows
    # nothing of agents or tournaments, so the engine layer; the arena builds on it
    "coinche_rl.ratings": ENGINE,
    "coinche_rl.envs": ENVS,
    "coinche_rl.agents": AGENTS,
    "coinche_rl.arena": TOOLS,
    "coinche_rl.terminal": TOOLS,
    # the web page (coinche-rl serve): above the arena, whose results files it shows;
    # only the command line imports it
    "coinche_rl.web": WEB,
    "coinche_rl.cli": CLI,
}

#: (importing module, imported module) -> why it is allowed although it goes up a layer
KNOWN_EXCEPTIONS: Dict[Tuple[str, str], str] = {
    ("coinche_rl.agents.neural.train_play", "coinche_rl.arena"):
        "the training loop of the play network scores its checkpoints with a duplicate "
        "match (arena.run_duplicate, imported inside the evaluation function); to be "
        "moved above the arena (e.g. an evaluation callback passed in by the cli)",
    ("coinche_rl.agents.neural.train_bid", "coinche_rl.arena"):
        "as train_play: the bidding network's checkpoints are scored with "
        "arena.run_duplicate (imported inside the evaluation function)",
}

_IMPORT_FUNCTIONS = ("import_module", "__import__")


def layer_of(module: str) -> int:
    best = max((k for k in LAYERS if module == k or module.startswith(k + ".")), key=len)
    return LAYERS[best]


def package_modules() -> Dict[str, Path]:
    """Every module of the package: name -> source file."""
    out: Dict[str, Path] = {}
    for package, root in ROOTS.items():
        for path in sorted(root.rglob("*.py")):
            rel = path.relative_to(root)
            parts = list(rel.parts[:-1])
            if any(p == "__pycache__" or not p.isidentifier() for p in parts):
                continue
            if package == "coinche_rl" and parts and (f"coinche_rl.{parts[0]}" in ROOTS):
                continue
            if rel.name == "__init__.py":
                name = ".".join([package] + parts)
            else:
                name = ".".join([package] + parts + [rel.stem])
            out[name] = path
    return out


MODULES = package_modules()


def _resolve(module: str, path: Path, level: int, name: Optional[str]) -> str:
    """The absolute name of ``from <level dots><name> import ...`` in ``module``."""
    parts = module.split(".")
    if path.name != "__init__.py":
        parts = parts[:-1]
    if level > 1:
        parts = parts[:len(parts) - (level - 1)]
    return ".".join(parts + ([name] if name else []))


def imports_of(module: str, path: Path) -> Iterator[Tuple[str, int]]:
    """``(imported module, line)`` for every import of a ``coinche_rl`` module in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    for node in ast.walk(tree):
        targets: List[str] = []
        if isinstance(node, ast.Import):
            targets = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = _resolve(module, path, node.level, node.module) if node.level else (node.module or "")
            for a in node.names:                 # ``from pkg import submodule``
                sub = f"{base}.{a.name}"
                targets.append(sub if sub in MODULES else base)
        elif isinstance(node, ast.Call) and node.args:
            f = node.func
            fname = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
            arg = node.args[0]
            if fname in _IMPORT_FUNCTIONS and isinstance(arg, ast.Constant) \
                    and isinstance(arg.value, str):
                targets = [arg.value]
        for t in targets:
            if t == "coinche_rl" or t.startswith("coinche_rl."):
                yield t, node.lineno


def upward_imports() -> Dict[Tuple[str, str], List[str]]:
    """(module, imported module) -> ["file:line", ...] for imports that go up a layer."""
    found: Dict[Tuple[str, str], List[str]] = {}
    for module, path in MODULES.items():
        for target, line in imports_of(module, path):
            if layer_of(target) > layer_of(module):
                found.setdefault((module, target), []).append(
                    f"{path.relative_to(REPO)}:{line}")
    return found


def test_the_module_list_covers_the_package():
    for name in ("coinche_rl", "coinche_rl.engine", "coinche_rl.cli", "coinche_rl.terminal",
                 "coinche_rl.arena", "coinche_rl.arena.formats", "coinche_rl.envs",
                 "coinche_rl.envs.coinche_v0", "coinche_rl.agents", "coinche_rl.agents.pimc",
                 "coinche_rl.agents.neural.agent", "coinche_rl.web", "coinche_rl.web.app",
                 "coinche_rl.web.views"):
        assert name in MODULES, name
    assert layer_of("coinche_rl.web.play") == WEB > layer_of("coinche_rl.arena.replay")
    assert layer_of("coinche_rl.cli") > WEB
    assert layer_of("coinche_rl.arena.store") == TOOLS
    assert layer_of("coinche_rl.agents.neural.net") == AGENTS
    assert layer_of("coinche_rl.ratings") == ENGINE == layer_of("coinche_rl.engine")


def test_the_import_finder_sees_every_kind_of_import(tmp_path):
    src = tmp_path / "x.py"
    src.write_text("from .. import engine\nfrom ..agents import make_agent\nimport coinche_rl.cli\n"
                   "def f():\n    import importlib\n    from . import store\n"
                   "    return importlib.import_module('coinche_rl.terminal')\n")
    got = {t for t, _ in imports_of("coinche_rl.arena.x", src)}
    assert got == {"coinche_rl.engine", "coinche_rl.agents", "coinche_rl.cli",
                   "coinche_rl.arena.store", "coinche_rl.terminal"}


def test_imports_go_to_the_same_or_a_lower_layer():
    found = upward_imports()
    bad = {k: v for k, v in found.items() if k not in KNOWN_EXCEPTIONS}
    assert not bad, "imports that go up a layer (%s):\n%s" % (
        " < ".join(LAYER_NAMES),
        "\n".join(f"  {src} ({LAYER_NAMES[layer_of(src)]}) imports {dst} "
                  f"({LAYER_NAMES[layer_of(dst)]}) at {', '.join(where)}"
                  for (src, dst), where in sorted(bad.items())))


def test_the_known_exceptions_still_occur():
    """A listed exception that was fixed must leave the list."""
    found = upward_imports()
    stale = [k for k in KNOWN_EXCEPTIONS if k not in found]
    assert not stale, f"no longer imported, remove from KNOWN_EXCEPTIONS: {stale}"


def test_the_arena_imports_the_package_at_the_top():
    """The arena's imports of the package are at the top of its modules (its layers are
    visible there); only optional extras (rich, matplotlib, ray) are imported where used."""
    late = []
    for module, path in MODULES.items():
        if layer_of(module) != TOOLS or not module.startswith("coinche_rl.arena"):
            continue
        tree = ast.parse(path.read_text(encoding="utf-8"))
        top = {id(n) for n in tree.body}
        for node in ast.walk(tree):
            if isinstance(node, (ast.Import, ast.ImportFrom)) and id(node) not in top:
                names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
                    [("." * node.level) + (node.module or "")]
                if any(n.startswith((".", "coinche_rl")) for n in names):
                    late.append(f"{path.relative_to(REPO)}:{node.lineno}")
    assert not late, f"package imports inside functions: {late}"


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
