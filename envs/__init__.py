"""Environments (installed as ``coinche_rl.envs``).

One class of each kind plays every family, which comes from the rules (or ``family=``)
and whose parts are described in ``family`` (:class:`~coinche_rl.envs.family.EnvFamily`):
the PettingZoo AEC env ``coinche_v0``, the single-agent Gymnasium adapter
``single_agent``, the numba vector envs ``vector`` (kernels in ``kernels``, written once
over the engine's entry points). Belote for two players is these classes with the two
family's rules (``coinche_v0.env(rules="belote_a_deux")``, or ``family="two"``); its own
parts are its observation, ``observation_two``, and that observation's numba encoder,
``encoder_two``.

Importing this package is light: it loads its submodules (``coinche_v0``, ``family``,
``observation``, ``single_agent``, ``vector``, ``kernels``, ``infoset``,
``observation_two``, ``encoder_two``) on first use, and registers the Gymnasium ids ``coinche_rl/Coinche-v0`` and
``coinche_rl/TwoPlayer-v0`` (:func:`register_gymnasium_envs`, string entry points)
without importing gymnasium itself: at once when gymnasium is already imported, else
through a one-shot import hook the moment gymnasium is imported, so the import order
does not matter (``import coinche_rl.envs, gymnasium`` works as well as the other
order). So the search agents, which use ``infoset`` and ``kernels``, import neither
gymnasium nor pettingzoo.

Gymnasium plugin: ``pyproject.toml`` declares ``register_gymnasium_envs`` in the entry
point group ``gymnasium.envs`` under the name ``coinche_rl`` (the id's namespace).
Gymnasium 0.2x/0.29 calls it on ``import gymnasium``, so ``gymnasium.make(
"coinche_rl/Coinche-v0")`` works in a fresh interpreter without importing coinche_rl.
Gymnasium 1.0 removed plugin loading; there, name the module in the id (gymnasium
imports it first): ``gymnasium.make("coinche_rl.envs:coinche_rl/Coinche-v0")``, or
``import coinche_rl.envs`` (before or after ``import gymnasium``).

Agent plugins (:func:`load_plugins`): the environments never import
``coinche_rl.agents`` (the layers are engine < envs < agents). Where an env takes an
agent by its spec string (``CoincheSingleAgentEnv(opponents="heuristic")``,
``CoincheVectorEnv(opponents="nn")``), it finds the agents layer through a Python entry
point that the agents side declares (plugin inversion):

* group ``coinche_rl.env_opponents``: ``factory(spec, rules) -> opponent``, where
  ``spec`` is an agent spec string of ``coinche_rl.agents.make_agent`` (or an agent
  object), built for the family of the env's ``rules`` (a ``RuleSet``), and the
  opponent has ``reset(seat, rules, seed)``, ``observe(seat, action)`` (every action of
  the deal, in order; the opponent itself hides the others' private declare / belote
  choices) and ``act(deal, seat, match) -> action id`` (``deal`` the engine
  :class:`~coinche_rl.game.Deal` or the two-player deal, ``match`` ``{"scores",
  "target", "pot"}`` or None).
  This project's entry: ``coinche_rl = coinche_rl.agents.env_plugins:env_opponent``.
* group ``coinche_rl.vector_opponents``: ``factory(spec, rules) -> policy``, a batched
  policy ``policy(public_states, params, seats) -> actions`` for
  :class:`~coinche_rl.envs.vector.CoincheVectorEnv`. This project's entry:
  ``coinche_rl = coinche_rl.agents.env_plugins:vector_opponent``.

A factory raises ``ValueError`` for a spec it does not know (naming those it does);
with several plugins in a group, each is tried in turn (``coinche_rl`` first).
"""

from __future__ import annotations

import importlib
import importlib.abc
import importlib.util
import sys
from importlib import metadata
from typing import Any, List

__all__ = ["coinche_v0", "family", "observation", "single_agent", "vector", "ENV_ID",
           "observation_two", "TWO_PLAYER_ENV_ID", "register_gymnasium_envs", "load_plugins", "resolve_plugin",
           "ENV_OPPONENTS_GROUP", "VECTOR_OPPONENTS_GROUP"]

#: the Gymnasium id of :class:`coinche_rl.envs.single_agent.CoincheSingleAgentEnv`
ENV_ID = "coinche_rl/Coinche-v0"
#: the Gymnasium id of :class:`coinche_rl.envs.single_agent.CoincheSingleAgentEnv` with the
#: rules of belote for two players (``family="two"``)
TWO_PLAYER_ENV_ID = "coinche_rl/TwoPlayer-v0"
#: entry point group of the single-agent env's opponents (see the module docstring)
ENV_OPPONENTS_GROUP = "coinche_rl.env_opponents"
#: entry point group of the vector env's batched opponents (see the module docstring)
VECTOR_OPPONENTS_GROUP = "coinche_rl.vector_opponents"

_SUBMODULES = ("coinche_v0", "family", "observation", "single_agent", "vector", "kernels", "infoset",
               "observation_two", "encoder_two")


def register_gymnasium_envs() -> None:
    """Register ``coinche_rl/Coinche-v0`` and ``coinche_rl/TwoPlayer-v0`` with Gymnasium
    (idempotent). The ``gymnasium.envs`` entry point of this package (Gymnasium < 1.0
    calls it on import)."""
    from gymnasium.envs.registration import register, registry
    if ENV_ID not in registry:
        register(id=ENV_ID, entry_point="coinche_rl.envs.single_agent:CoincheSingleAgentEnv")
    if TWO_PLAYER_ENV_ID not in registry:
        register(id=TWO_PLAYER_ENV_ID,
                 entry_point="coinche_rl.envs.single_agent:CoincheSingleAgentEnv",
                 kwargs={"rules": "belote_a_deux", "family": "two"})


def load_plugins(group: str) -> List[Any]:
    """The loaded objects of the entry points in ``group``, ``coinche_rl``'s first, then
    by name.

    :raises RuntimeError: none is declared (coinche-rl's own entry points are missing:
        reinstall it so that its metadata is written).
    """
    eps = sorted(metadata.entry_points(group=group),
                 key=lambda ep: (ep.name != "coinche_rl", ep.name))
    if not eps:
        raise RuntimeError(
            f"no plugin is declared in the entry point group {group!r}, so agent specs "
            f"cannot be resolved: coinche-rl declares one in its pyproject.toml; reinstall "
            f"it (pip install -e . in a checkout) so that its entry points are registered, "
            f"or pass a policy callable instead of a spec")
    return [ep.load() for ep in eps]


def resolve_plugin(group: str, what: str, *args) -> Any:
    """``factory(*args)`` of the first plugin in ``group`` that accepts ``args``; a
    ``ValueError`` naming ``what`` and every plugin's reason when none does."""
    errors = []
    for factory in load_plugins(group):
        try:
            return factory(*args)
        except ValueError as e:
            errors.append(e)
    if len(errors) == 1:
        raise ValueError(f"{what}: {errors[0]}") from errors[0]
    raise ValueError(f"{what}: " + "; ".join(str(e) for e in errors)) from errors[-1]


def __getattr__(name: str):
    if name in _SUBMODULES:
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


class _RegisterWhenGymnasiumLoads(importlib.abc.MetaPathFinder):
    """A one-shot import hook: when ``gymnasium`` is imported after this package, register
    the ids as soon as its ``__init__`` has run (the same outcome as the other order)."""

    def find_spec(self, fullname, path=None, target=None):
        if fullname != "gymnasium":
            return None
        if self in sys.meta_path:
            sys.meta_path.remove(self)
        spec = importlib.util.find_spec(fullname)      # the other finders (we left)
        if spec is None or spec.loader is None:
            return spec
        spec.loader = _RegisteringLoader(spec.loader)
        return spec


class _RegisteringLoader(importlib.abc.Loader):
    """Runs ``gymnasium``'s own loader, gives the module its loader back, then
    registers."""

    def __init__(self, loader):
        self.loader = loader

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        module.__loader__ = module.__spec__.loader = self.loader
        self.loader.exec_module(module)
        register_gymnasium_envs()


# Registering imports gymnasium, which the search agents (which use ``infoset`` and
# ``kernels``) do not need: register now where gymnasium is already imported, else
# when it is (a one-shot import hook), so that the import order does not matter.
if "gymnasium" in sys.modules:
    register_gymnasium_envs()
elif not any(isinstance(f, _RegisterWhenGymnasiumLoads) for f in sys.meta_path):
    sys.meta_path.insert(0, _RegisterWhenGymnasiumLoads())
