"""What determines an agent's play, as a short hash (``coinche_rl.agents.fingerprint``).

A tournament's results file is reused when a run is started again (resume), so the run's
key must change whenever the play could: :func:`agent_fingerprint` hashes

* the **code** the agent runs: the source of its class's module and of every module of
  the package that module imports, directly or not (found by reading the ``import``
  statements, not by importing, so the set is the same in every process), plus a user
  module's own file;
* the **data** it reads: the shipped network weights when the code loads networks, and
  every file named by one of its parameters (``nn:weights=run/play.npz``);
* the **versions** of the package and of the other distributions that code imports
  (``colver``, ``numba``, ...);
* what an agent says of itself by ``fingerprint_data() -> bytes`` where it has one: a
  :class:`~coinche_rl.agents.PolicyAgent`'s policy (its weights live in a closure or a
  model object, not in a file of the package).

Editing a comment changes the hash too: a fingerprint cannot tell which edits matter, so
it errs on the side of not reusing.

>>> from coinche_rl.agents import make_agent
>>> fp = agent_fingerprint(make_agent("heuristic"))
>>> sorted(fp), len(fp["code"])
(['code', 'data', 'package', 'versions'], 16)
>>> fp == agent_fingerprint(make_agent("heuristic"))
True
"""

from __future__ import annotations

import ast
import hashlib
import importlib.metadata
import importlib.util
import os
import sys
from functools import lru_cache
from typing import Dict, FrozenSet, List, Set, Tuple

from .. import __version__
from .base import Agent

__all__ = ["agent_fingerprint", "module_closure"]

_PACKAGE = "coinche_rl"
_NET_MODULE = "coinche_rl.agents.neural.net"


def _origin(name: str):
    """The source file of module ``name``, or None (built-in, namespace, not found)."""
    try:
        spec = importlib.util.find_spec(name)
    except (ImportError, ValueError):
        return None
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        return None
    return spec.origin


def _import_statements(body):
    """Every ``import`` and ``from ... import`` statement in the statement list ``body``,
    at any depth (inside functions, classes, ``if``, ``try``, ``with``, ``match``).
    Only statements are visited: an import is a statement, so no expression can hold one,
    and skipping them is what makes this several times faster than ``ast.walk``."""
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node
            continue
        for value in vars(node).values():         # bodies, ``else``, ``finally``, clauses
            if not (isinstance(value, list) and value):
                continue
            if isinstance(value[0], ast.stmt):
                yield from _import_statements(value)
            elif isinstance(value[0], (ast.excepthandler, ast.match_case)):
                for clause in value:                # an ``except`` clause or a ``case``
                    yield from _import_statements(clause.body)


@lru_cache(maxsize=None)
def _imports(name: str, path: str) -> Tuple[FrozenSet[str], FrozenSet[str]]:
    """(modules of the package, other top-level modules) imported anywhere in ``path``.
    Read once per process, like :func:`module_closure`: the closures of the arena's
    modules and of every agent share most of their files."""
    with open(path, "rb") as f:
        tree = ast.parse(f.read(), filename=path)
    is_pkg = os.path.basename(path) == "__init__.py"
    base = name.split(".") if is_pkg else name.split(".")[:-1]
    inside, outside = set(), set()

    def add(mod: str, names=()):
        top = mod.split(".")[0]
        if top != _PACKAGE:
            outside.add(top)
            return
        inside.add(mod)
        for n in names:                      # ``from pkg import submodule``
            if _origin(f"{mod}.{n}") is not None:
                inside.add(f"{mod}.{n}")

    for node in _import_statements(tree.body):
        if isinstance(node, ast.Import):
            for a in node.names:
                add(a.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                parts = base[:len(base) - node.level + 1] if node.level > 1 else base
                mod = ".".join(parts + ([node.module] if node.module else []))
            else:
                mod = node.module or ""
            if mod:
                add(mod, [a.name for a in node.names if a.name != "*"])
    return frozenset(inside), frozenset(outside)


@lru_cache(maxsize=None)
def module_closure(root: str) -> Tuple[FrozenSet[Tuple[str, str]], FrozenSet[str]]:
    """The package modules ``root`` imports, directly or not, with ``root`` itself, as
    ``(name, file)`` pairs, and the other top-level modules they import."""
    seen: Dict[str, str] = {}
    others: Set[str] = set()
    todo = [root]
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        path = _origin(name)
        if path is None:
            continue
        seen[name] = path
        parts = name.split(".")
        for k in range(1, len(parts)):        # importing a module runs its packages
            if parts[0] == _PACKAGE:
                todo.append(".".join(parts[:k]))
        inside, outside = _imports(name, path)
        if parts[0] == _PACKAGE:
            todo.extend(inside)
            others |= outside
    return frozenset(seen.items()), frozenset(others)


def _digest(paths: List[str]) -> str:
    h = hashlib.sha256()
    for p in sorted(set(paths)):
        h.update(os.path.basename(p).encode() + b"\0")
        with open(p, "rb") as f:
            h.update(f.read())
        h.update(b"\0")
    return h.hexdigest()[:16]


def _versions(tops) -> Dict[str, str]:
    out = {}
    stdlib = getattr(sys, "stdlib_module_names", frozenset())
    for top in sorted(tops):
        if top in stdlib or top == "__future__":
            continue
        try:
            out[top] = importlib.metadata.version(top)
        except importlib.metadata.PackageNotFoundError:
            continue
    return out


def agent_fingerprint(agent: Agent) -> Dict[str, object]:
    """``{"package", "code", "data", "versions"}`` for ``agent`` (see the module
    docstring): equal fingerprints mean the same code, weights and versions."""
    root = type(agent).__module__
    modules, others = module_closure(root)
    files = [p for _, p in modules]
    main = getattr(sys.modules.get("__main__"), "__file__", None) if root == "__main__" else None
    if main and os.path.isfile(main):       # an agent defined in the running script
        files.append(main)
    if not root.startswith(_PACKAGE + ".") and root != "__main__":
        others = others | {root.split(".")[0]}
    data = []
    if any(name == _NET_MODULE for name, _ in modules):
        folder = os.path.join(os.path.dirname(dict(modules)[_NET_MODULE]), "weights")
        if os.path.isdir(folder):
            data += [os.path.join(folder, f) for f in os.listdir(folder) if f.endswith(".npz")]
    spec = getattr(agent, "spec", "")
    _, _, params = spec.rpartition(":") if "=" in spec else ("", "", "")
    for item in params.split(","):
        value = item.partition("=")[2].strip()
        if value and os.path.isfile(value):
            data.append(value)
    own = getattr(agent, "fingerprint_data", None)
    own = own() if callable(own) else None
    if own is not None:
        h = hashlib.sha256(_digest(data).encode() if data else b"")
        h.update(b"\0" + own)
        digest = h.hexdigest()[:16]
    else:
        digest = _digest(data) if data else None
    return {"package": __version__, "code": _digest(files),
            "data": digest, "versions": _versions(others)}
