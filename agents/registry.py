"""Agents built from spec strings (``coinche_rl.agents.registry``).

A spec is a registered name, optionally followed by ``:`` and comma-separated
``key=value`` parameters: ``"random"``, ``"heuristic"``, ``"pimc:worlds=32"``. Each
registered agent declares its parameters with a type, a default and a description, so
:func:`make_agent` can reject unknown names, unknown parameters and bad values with a
message that says what would be right, and :func:`describe_agents` can list them.

>>> from coinche_rl.agents import make_agent, available_agents
>>> "random" in available_agents()
True
>>> make_agent("random").spec
'random'
>>> make_agent("randm")
Traceback (most recent call last):
...
coinche_rl.agents.registry.AgentSpecError: unknown agent 'randm'; available: ...
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Tuple

from .base import Agent

__all__ = ["AgentSpecError", "Param", "register_agent", "make_agent", "available_agents",
           "describe_agents", "parse_spec"]


class AgentSpecError(ValueError):
    """A malformed spec, an unknown agent name, or a bad parameter."""


@dataclass(frozen=True)
class Param:
    """One parameter of a registered agent: its type (int, float, str or bool), default,
    description, and optional bounds / choices."""

    type: type
    default: Any
    doc: str
    min: Any = None
    max: Any = None
    choices: Tuple = ()

    def parse(self, agent: str, key: str, text: str):
        try:
            if self.type is bool:
                low = text.lower()
                if low not in ("1", "0", "true", "false", "yes", "no"):
                    raise ValueError
                value = low in ("1", "true", "yes")
            else:
                value = self.type(text)
        except ValueError:
            raise AgentSpecError(f"{agent}: parameter {key}={text!r} is not a valid "
                                 f"{self.type.__name__}") from None
        if self.min is not None and value < self.min:
            raise AgentSpecError(f"{agent}: parameter {key}={value!r} is below its minimum "
                                 f"{self.min!r}")
        if self.max is not None and value > self.max:
            raise AgentSpecError(f"{agent}: parameter {key}={value!r} is above its maximum "
                                 f"{self.max!r}")
        if self.choices and value not in self.choices:
            raise AgentSpecError(f"{agent}: parameter {key}={value!r} must be one of "
                                 f"{', '.join(map(repr, self.choices))}")
        return value


@dataclass(frozen=True)
class _Entry:
    factory: Callable[..., Agent]
    params: Dict[str, Param]
    doc: str


_REGISTRY: Dict[str, _Entry] = {}


def register_agent(name: str, factory: Callable[..., Agent], params: Dict[str, Param] = None,
                   doc: str = "") -> None:
    """Register ``factory(**params) -> Agent`` under ``name`` (letters, digits, ``_``,
    ``-`` and ``:`` namespaces such as ``colver:maxi`` are allowed)."""
    if not name or any(ch in name for ch in ",= "):
        raise ValueError(f"invalid agent name {name!r}")
    _REGISTRY[name] = _Entry(factory, dict(params or {}), doc)


def parse_spec(spec: str) -> Tuple[str, Dict[str, str]]:
    """Split ``"name:k=v,k2=v2"`` into the name and the raw parameter texts. A name may
    itself contain ``:`` (``"colver:maxi"``): the parameters start after the last ``:``
    that is followed by a ``key=value``."""
    if not isinstance(spec, str) or not spec.strip():
        raise AgentSpecError(f"an agent spec must be a non-empty string, not {spec!r}")
    spec = spec.strip()
    name, params_text = spec, ""
    if "=" in spec:
        head, _, tail = spec.partition("=")
        cut = head.rfind(":")
        if cut < 0:
            raise AgentSpecError(f"malformed agent spec {spec!r}: expected "
                                 f"'name' or 'name:key=value,key=value'")
        name, params_text = spec[:cut], spec[cut + 1:]
    params: Dict[str, str] = {}
    if params_text:
        for item in params_text.split(","):
            key, eq, value = item.partition("=")
            key, value = key.strip(), value.strip()
            if not eq or not key or not value:
                raise AgentSpecError(f"malformed parameter {item!r} in agent spec {spec!r}: "
                                     f"expected key=value")
            if key in params:
                raise AgentSpecError(f"parameter {key!r} given twice in agent spec {spec!r}")
            params[key] = value
    return name, params


def _load_builtin() -> None:
    # registering modules import this one; importing them here fills the registry
    from . import random_agent  # noqa: F401
    for mod in ("numba_bots", "pimc", "neural.agent", "colver_bots"):
        try:
            __import__(f"{__package__}.{mod}")
        except ModuleNotFoundError as e:
            if e.name != f"{__package__}.{mod}":
                raise


def available_agents() -> List[str]:
    """The registered names, sorted."""
    _load_builtin()
    return sorted(_REGISTRY)


def describe_agents() -> str:
    """A text listing of every agent with its parameters, defaults and descriptions."""
    _load_builtin()
    lines = []
    for name in sorted(_REGISTRY):
        e = _REGISTRY[name]
        lines.append(f"{name}: {e.doc}")
        for key, p in e.params.items():
            lines.append(f"    {key} ({p.type.__name__}, default {p.default!r}): {p.doc}")
    return "\n".join(lines)


def make_agent(spec: str) -> Agent:
    """A new agent from its spec string (see the module docstring).

    :raises AgentSpecError: unknown name, unknown parameter, bad value.
    """
    name, raw = parse_spec(spec)
    _load_builtin()
    if name not in _REGISTRY:
        raise AgentSpecError(f"unknown agent {name!r}; available: "
                             f"{', '.join(sorted(_REGISTRY))}")
    entry = _REGISTRY[name]
    kwargs = {}
    for key, text in raw.items():
        if key not in entry.params:
            known = ", ".join(entry.params) or "none"
            raise AgentSpecError(f"agent {name!r} has no parameter {key!r}; "
                                 f"its parameters: {known}")
        kwargs[key] = entry.params[key].parse(name, key, text)
    full = {k: kwargs.get(k, p.default) for k, p in entry.params.items()}
    agent = entry.factory(**full)
    agent.name = name
    agent.spec = name + (":" + ",".join(f"{k}={raw[k]}" for k in raw) if raw else "")
    return agent
