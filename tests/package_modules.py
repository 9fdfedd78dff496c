"""Every module of the package, by name (``coinche_rl`` with its subpackages, ``agents/``
and ``envs/`` imported as ``coinche_rl.agents`` and ``coinche_rl.envs``): the one list the
tests that walk the package share."""

import importlib
import pkgutil

PACKAGES = ("coinche_rl", "coinche_rl.engine", "coinche_rl.envs", "coinche_rl.agents",
            "coinche_rl.agents.neural", "coinche_rl.arena", "coinche_rl.train", "coinche_rl.web")


def _module_names():
    names = []
    for pkg in PACKAGES:
        names.append(pkg)
        for m in pkgutil.iter_modules(importlib.import_module(pkg).__path__):
            if not m.ispkg:
                names.append(f"{pkg}.{m.name}")
    return names


MODULES = _module_names()


def import_modules():
    """The modules of :data:`MODULES` that import here (an optional extra that is not
    installed leaves its modules out)."""
    mods = []
    for name in MODULES:
        try:
            mods.append(importlib.import_module(name))
        except ImportError:
            continue
    return mods
