"""Every example in every module's docstrings runs and prints what it says (a stale
docstring is a failing test), module by module across the whole package."""

from __future__ import annotations

import doctest
import importlib

import pytest

from package_modules import MODULES


def test_every_module_is_found():
    assert {"coinche_rl.engine", "coinche_rl.engine.play", "coinche_rl.envs.vector",
            "coinche_rl.agents.pimc", "coinche_rl.arena.formats",
            "coinche_rl.agents.neural.net", "coinche_rl.web.views"} <= set(MODULES)


@pytest.mark.parametrize("name", MODULES)
def test_module_doctests(name):
    if name == "coinche_rl.web.app":
        pytest.importorskip("starlette", reason="the web extra is not installed")
    if name == "coinche_rl.train.rllib":
        pytest.importorskip("ray.rllib", reason="RLlib is not installed (make rllib-venv)")
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples of {name} failed"
