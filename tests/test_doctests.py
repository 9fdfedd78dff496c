"""Every example in every module's docstrings runs and prints what it says (a stale
docstring is a failing test), module by module across the whole package."""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

PACKAGES = ("coinche_rl", "coinche_rl.engine", "coinche_rl.envs", "coinche_rl.agents",
            "coinche_rl.agents.neural", "coinche_rl.arena", "coinche_rl.train", "coinche_rl.web")


def _modules():
    names = []
    for pkg in PACKAGES:
        names.append(pkg)
        for m in pkgutil.iter_modules(importlib.import_module(pkg).__path__):
            if not m.ispkg:
                names.append(f"{pkg}.{m.name}")
    return names


MODULES = _modules()


def test_every_module_is_found():
    assert {"coinche_rl.engine", "coinche_rl.engine.play", "coinche_rl.envs.vector",
            "coinche_rl.agents.pimc", "coinche_rl.arena.formats",
            "coinche_rl.agents.neural.net", "coinche_rl.web.views"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_module_doctests(name):
    if name == "coinche_rl.web.app":
        pytest.importorskip("starlette", reason="the web extra is not installed")
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples of {name} failed"
