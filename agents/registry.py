"""Agents built from spec strings (``coinche_rl.agents.registry``).

A spec is an agent name, optionally followed by ``:`` and comma-separated
``key=value`` parameters: ``"random"``, ``"heuristic"``, ``"pimc:worlds=32"``. The name
is, in this order of precedence:

1. a name registered with :func:`register_agent`;
2. a **built-in** agent (``random``, ``heuristic``, ``pimc``, ``nn``, ``colver:maxi``, ...):
   the entry points of the group ``coinche_rl.agents`` that this package declares in its
   ``pyproject.toml``, the one list of them;
3. the name of an **entry point** in that group of another installed package
   (``name = "package.module:Object"`` in its ``pyproject.toml``);
4. an **import path** ``module:Object`` (``my_agents:Greedy``, ``pkg.bots:make_bot``;
   ``Object`` may be dotted), so ``"my_agents:Greedy:depth=3"`` builds ``Greedy(depth=3)``
   from ``my_agents.py``. The module must be importable: on ``sys.path`` (the
   ``coinche-rl`` command puts the current directory there, as ``python -m`` does).

A built-in or entry-point agent is imported the first time it is built or described.
The object of an entry point or import path is an :class:`~coinche_rl.agents.base.Agent`
subclass or a factory (any callable) returning an Agent; anything else is an
:class:`AgentSpecError` that says what would be right. Its parameters are passed as
keyword arguments: typed and checked as for a registered agent when the object declares
``PARAMS = {"name": Param(type, default, doc, ...)}`` (every declared parameter is then
passed, defaults included; a subclass of a built-in agent declares its own, else it goes
by its signature); otherwise by its signature: a key must be one of its keyword
parameters (any key with ``**kwargs``), and the text is converted to ``int``, ``float``,
``bool`` or ``str`` after the parameter's annotation or, without one, its default's type
(other parameters receive the text; parameters not given keep their Python defaults).

The built-in agents declare their parameters so (and ``DESCRIPTION``, ``ROSTER``:
:class:`~coinche_rl.agents.base.Agent`): :func:`make_agent` rejects unknown names, unknown
parameters and bad values with a message that says what would be right, and
:func:`describe_agents` lists them.

These are the four-player agents. Belote for two players has agents of its own, with a
registry of their own (:mod:`coinche_rl.agents.two_player`: ``random``, ``heuristic``,
``pimc``):
``make_agent(spec, family="two")`` builds them, and each registry refuses the other
family's agents with a message that says so.

>>> from coinche_rl.agents import make_agent, available_agents
>>> "random" in available_agents()
True
>>> make_agent("random").spec
'random'
>>> make_agent("coinche_rl.agents.random_agent:RandomAgent").spec
'coinche_rl.agents.random_agent:RandomAgent'
>>> make_agent("randm")
Traceback (most recent call last):
...
coinche_rl.agents.base.AgentSpecError: unknown agent 'randm'; available: ...
"""

from __future__ import annotations

import importlib
import inspect
import re
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Tuple

from .base import Agent, AgentSpecError, Param

__all__ = ["AgentSpecError", "Param", "register_agent", "make_agent", "available_agents",
           "describe_agents", "parse_spec", "spec_module", "ENTRY_POINT_GROUP",
           "FOUR_PLAYER_FAMILIES", "make_two_player_agent", "register_two_player_agent",
           "available_two_player_agents", "describe_two_player_agents"]

#: the entry-point group in which installed packages register agents (name -> object)
ENTRY_POINT_GROUP = "coinche_rl.agents"


class _Required:
    def __repr__(self) -> str:
        return "required"


#: the default of a parameter that must be given (an import-path agent's parameter
#: without a Python default)
REQUIRED = _Required()


@dataclass(frozen=True)
class _Entry:
    factory: Callable[..., Agent]
    params: Dict[str, Param]
    doc: str
    #: an entry point's or import path's object ("module:attr"), checked to return an Agent
    path: str = ""
    #: pass every parameter, defaults included (registered agents, PARAMS); else only
    #: those given (parameters read from a signature)
    all_params: bool = True
    #: the factory takes ``**kwargs``: keys outside ``params`` are passed as text
    any_key: bool = False
    #: seated in the default tournament roster (``coinche-rl tournament`` without
    #: ``--agents``)
    roster: bool = True


#: the package's own distribution, whose entry points are the built-in agents
DISTRIBUTION = "coinche-rl"

_REGISTRY: Dict[str, _Entry] = {}
#: the built-in agents' entry points (name -> EntryPoint), read once
_BUILTINS: Optional[Dict[str, Any]] = None
#: import-path agents already resolved (name -> entry); not listed by available_agents
_IMPORTED: Dict[str, _Entry] = {}
#: entry points of ENTRY_POINT_GROUP (name -> EntryPoint), read once
_ENTRY_POINTS: Optional[Dict[str, Any]] = None


def register_agent(name: str, factory: Callable[..., Agent], params: Dict[str, Param] = None,
                   doc: str = "", roster: bool = True) -> None:
    """Register ``factory(**params) -> Agent`` under ``name`` (letters, digits, ``_``,
    ``-`` and ``:`` namespaces such as ``colver:maxi`` are allowed). ``roster=False``
    keeps a slow agent out of the default tournament roster (it is still a spec)."""
    if not name or any(ch in name for ch in ",= "):
        raise ValueError(f"invalid agent name {name!r}")
    _REGISTRY[name] = _Entry(factory, dict(params or {}), doc, roster=bool(roster))


def parse_spec(spec: str) -> Tuple[str, Dict[str, str]]:
    """Split ``"name:k=v,k2=v2"`` into the name and the raw parameter texts. A name may
    itself contain ``:`` (``"colver:maxi"``, ``"my_agents:Greedy"``): the parameters start
    after the last ``:`` that is followed by a ``key=value``."""
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


def _builtins() -> Dict[str, Any]:
    """The built-in agents: the entry points of :data:`ENTRY_POINT_GROUP` that this
    package declares (read once per process, listed without importing them)."""
    global _BUILTINS
    if _BUILTINS is None:
        from importlib.metadata import distribution
        eps = distribution(DISTRIBUTION).entry_points
        _BUILTINS = {ep.name: ep for ep in eps if ep.group == ENTRY_POINT_GROUP}
    return _BUILTINS


def _load_builtin(name: str) -> _Entry:
    """Import the built-in agent ``name`` and register it (once)."""
    obj = _builtins()[name].load()
    doc = obj.DESCRIPTION or (inspect.getdoc(obj) or "").split("\n\n")[0].replace("\n", " ")
    entry = _REGISTRY[name] = _Entry(obj, dict(obj.PARAMS or {}), doc, roster=bool(obj.ROSTER))
    return entry


# ------------------------------------------------------------ entry points, import paths
def _entry_points() -> Dict[str, Any]:
    """The entry points of :data:`ENTRY_POINT_GROUP` by name (read once per process; a
    name registered with :func:`register_agent` hides an entry point of that name)."""
    global _ENTRY_POINTS
    if _ENTRY_POINTS is None:
        from importlib.metadata import entry_points
        found: Dict[str, Any] = {}
        for ep in entry_points(group=ENTRY_POINT_GROUP):
            if ep.name and not any(ch in ep.name for ch in ",= ") and ep.name not in found:
                found[ep.name] = ep
        _ENTRY_POINTS = found
    return _ENTRY_POINTS


_IDENT = r"[A-Za-z_][A-Za-z0-9_]*"
_IMPORT_PATH = re.compile(rf"({_IDENT}(?:\.{_IDENT})*):({_IDENT}(?:\.{_IDENT})*)")
_TYPES = {"int": int, "float": float, "bool": bool, "str": str}


def _split_import_path(name: str) -> Optional[Tuple[str, str]]:
    m = _IMPORT_PATH.fullmatch(name)
    return (m.group(1), m.group(2)) if m else None


def _param_type(p: inspect.Parameter) -> type:
    ann = p.annotation
    if isinstance(ann, str):
        ann = _TYPES.get(ann.strip(), inspect.Parameter.empty)
    if ann in (int, float, bool, str):
        return ann
    if p.default is not inspect.Parameter.empty and type(p.default) in (int, float, bool, str):
        return type(p.default)
    return str


def _declared_params(obj) -> Optional[Dict[str, Param]]:
    """``obj.PARAMS``, unless a class inherits it from a built-in agent (a subclass of
    ``HeuristicAgent`` with other parameters goes by its own signature)."""
    if not inspect.isclass(obj):
        return getattr(obj, "PARAMS", None)
    for klass in obj.__mro__:
        if "PARAMS" in vars(klass):
            if klass is not obj and klass.__module__.startswith(__package__ + "."):
                return None
            return vars(klass)["PARAMS"]
    return None


def _entry_for_object(obj, path: str, origin: str) -> _Entry:
    """The registry entry of an entry point's or import path's object ``obj``.

    :raises AgentSpecError: ``obj`` is not an Agent subclass or a callable.
    """
    what = ("an Agent subclass (class MyAgent(coinche_rl.agents.Agent) with an act(view) "
            "method) or a function returning an Agent")
    if isinstance(obj, Agent):
        raise AgentSpecError(f"{origin}: {path} is an Agent instance; give its class (or a "
                             f"function returning a new Agent): every seat and every worker "
                             f"process builds its own agent")
    if inspect.isclass(obj) and getattr(obj, "FAMILY", None) == "two":
        raise AgentSpecError(f"{origin}: {path} is an agent of belote for two players "
                             f"(family 'two'), not of the four-player game; seat it with "
                             f"two-player rules (belote_a_deux, belote_decouverte)")
    if inspect.isclass(obj) and not issubclass(obj, Agent):
        raise AgentSpecError(f"{origin}: {path} is the class {obj.__qualname__}, which does "
                             f"not derive from coinche_rl.agents.Agent; expected {what}")
    if not callable(obj):
        raise AgentSpecError(f"{origin}: {path} is a {type(obj).__name__}, not an Agent; "
                             f"expected {what}")
    doc = (inspect.getdoc(obj) or "").strip().split("\n\n")[0].replace("\n", " ")
    declared = _declared_params(obj)
    if declared is not None:
        if not isinstance(declared, dict) or not all(
                isinstance(k, str) and isinstance(v, Param) for k, v in declared.items()):
            raise AgentSpecError(f"{origin}: {path}.PARAMS must be a dict of parameter names "
                                 f"to coinche_rl.agents.Param, not {declared!r}")
        return _Entry(obj, dict(declared), doc, path=path)
    params: Dict[str, Param] = {}
    any_key = False
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):     # no signature (a builtin): texts, any key
        return _Entry(obj, {}, doc, path=path, all_params=False, any_key=True)
    for p in sig.parameters.values():
        if p.kind is p.VAR_KEYWORD:
            any_key = True
        elif p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            default = REQUIRED if p.default is p.empty else p.default
            params[p.name] = Param(_param_type(p), default, "")
    return _Entry(obj, params, doc, path=path, all_params=False, any_key=any_key)


def _import_error(origin: str, module: str, e: BaseException) -> AgentSpecError:
    if isinstance(e, ModuleNotFoundError) and e.name and (
            module == e.name or module.startswith(e.name + ".")):
        return AgentSpecError(
            f"{origin}: no module named {e.name!r} to import. An import path "
            f"module:Object needs the module on Python's path: a file {module.split('.')[0]}.py "
            f"or a package folder in the current directory (the coinche-rl command adds it; a "
            f"script adds its own folder), on PYTHONPATH, or installed (coinche-rl agents lists the "
            f"registered agents)")
    return AgentSpecError(f"{origin}: importing module {module!r} failed: "
                          f"{type(e).__name__}: {e}")


def _resolve_import_path(name: str) -> Optional[_Entry]:
    """The entry of an import path ``module:attr``, or None if ``name`` is not one."""
    if name in _IMPORTED:
        return _IMPORTED[name]
    split = _split_import_path(name)
    if split is None:
        return None
    module, attr = split
    origin = f"agent {name!r}"
    try:
        mod = importlib.import_module(module)
    except Exception as e:
        raise _import_error(origin, module, e) from e
    obj = mod
    for part in attr.split("."):
        if not hasattr(obj, part):
            where = getattr(mod, "__file__", None) or module
            candidates = sorted(
                k for k, v in vars(mod).items()
                if inspect.isclass(v) and issubclass(v, Agent) and v is not Agent
                and getattr(v, "__module__", None) == mod.__name__)
            hint = (f"; its Agent classes: {', '.join(f'{module}:{c}' for c in candidates)}"
                    if candidates else "; it defines no Agent subclass")
            raise AgentSpecError(f"{origin}: module {module!r} ({where}) has no attribute "
                                 f"{attr!r}{hint}")
        obj = getattr(obj, part)
    entry = _IMPORTED[name] = _entry_for_object(obj, name, origin)
    return entry


def _load_entry_point(name: str) -> _Entry:
    """Import the entry point ``name`` and register it (once)."""
    ep = _entry_points()[name]
    dist = getattr(getattr(ep, "dist", None), "name", None)
    origin = (f"agent {name!r} (entry point {name} = {ep.value!r} in group "
              f"{ENTRY_POINT_GROUP!r}" + (f" of the package {dist}" if dist else "") + ")")
    module = ep.value.split(":", 1)[0].strip()
    try:
        obj = ep.load()
    except AttributeError as e:
        raise AgentSpecError(f"{origin}: {e}; the value must name an Agent subclass or a "
                             f"factory as module:Object") from e
    except Exception as e:
        raise _import_error(origin, module, e) from e
    if inspect.ismodule(obj):
        # a module that registers its agents with register_agent when imported
        if name not in _REGISTRY:
            raise AgentSpecError(f"{origin}: importing the module {module!r} registered no "
                                 f"agent {name!r}; point the entry point at an Agent subclass "
                                 f"or factory (module:Object), or register_agent({name!r}, ...) "
                                 f"in that module")
        return _REGISTRY[name]
    _REGISTRY[name] = _entry_for_object(obj, ep.value, origin)
    return _REGISTRY[name]


def _lookup(name: str) -> _Entry:
    if name in _REGISTRY:
        return _REGISTRY[name]
    if name in _builtins():
        return _load_builtin(name)
    if name in _entry_points():
        return _load_entry_point(name)
    entry = _resolve_import_path(name)
    if entry is None:
        hint = ""
        if "." in name and ":" not in name:
            module, _, attr = name.rpartition(".")
            hint = f" (an import path separates the module from the object with ':': {module}:{attr})"
        raise AgentSpecError(f"unknown agent {name!r}; available: "
                             f"{', '.join(available_agents())}; or your own Agent subclass or "
                             f"factory by its import path, module:Object[:key=value,...]{hint}")
    return entry


def spec_module(spec: str) -> Optional[str]:
    """The module an import-path spec (``"my_agents:Greedy:depth=2"``) imports, or None
    for a registered or entry-point agent (no import, no check that the module exists)."""
    name, _ = parse_spec(spec)
    if name in _REGISTRY or name in _builtins() or name in _entry_points():
        return None
    split = _split_import_path(name)
    return split[0] if split else None


# ------------------------------------------------------------------------------- API
def available_agents() -> List[str]:
    """The registered names and those of the installed packages' entry points, sorted
    (import-path agents are not listed: any ``module:Object`` may be given)."""
    return sorted(set(_REGISTRY) | set(_builtins()) | set(_entry_points()))


def roster_agents() -> List[str]:
    """:func:`available_agents` less those registered with ``roster=False`` or declaring
    ``ROSTER = False`` (slow searchers a default tournament would spend minutes on)."""
    for name in _builtins():
        if name not in _REGISTRY:
            _load_builtin(name)
    return [n for n in available_agents() if n not in _REGISTRY or _REGISTRY[n].roster]


def describe_agents() -> str:
    """A text listing of every agent with its parameters, defaults and descriptions
    (entry-point agents are imported to be described; one that fails says why)."""
    lines = []
    for name in available_agents():
        try:
            e = _lookup(name)
        except AgentSpecError as err:
            lines.append(f"{name}: (cannot be loaded: {err})")
            continue
        origin = f" [{e.path}]" if e.path else ""
        lines.append(f"{name}: {e.doc}{origin}")
        for key, p in e.params.items():
            lines.append(f"    {key} ({p.type.__name__}, " + (
                "required" if p.default is REQUIRED else f"default {p.default!r}")
                + (f"): {p.doc}" if p.doc else ")"))
    return "\n".join(lines)


#: the rule families of the four-player game (``RuleSet.family``)
FOUR_PLAYER_FAMILIES = ("coinche", "classic")


def make_agent(spec: str, family: Optional[str] = None):
    """A new agent from its spec string (see the module docstring).

    ``family``: the rule family the agent is for; ``None`` (or ``"coinche"``,
    ``"classic"``) builds a four-player :class:`~coinche_rl.agents.base.Agent`, ``"two"``
    a :class:`~coinche_rl.agents.two_player.TwoPlayerAgent` for belote for two players
    (:func:`~coinche_rl.agents.two_player.make_two_player_agent`).

    :raises AgentSpecError: unknown name, unknown parameter, bad value; an import path or
        entry point whose module cannot be imported, whose object is missing or is not an
        Agent subclass / factory; an agent of the other family.
    """
    if family == "two":
        return make_two_player_agent(spec)
    if family is not None and family not in FOUR_PLAYER_FAMILIES:
        raise AgentSpecError(f"unknown rule family {family!r}: expected one of "
                             f"{', '.join(FOUR_PLAYER_FAMILIES + ('two',))}")
    name, raw = parse_spec(spec)
    entry = _lookup(name)
    kwargs = {}
    for key, text in raw.items():
        if key in entry.params:
            kwargs[key] = entry.params[key].parse(name, key, text)
        elif entry.any_key:
            kwargs[key] = text
        else:
            known = ", ".join(entry.params) or "none"
            raise AgentSpecError(f"agent {name!r} has no parameter {key!r}; "
                                 f"its parameters: {known}")
    if entry.all_params:
        full = {k: kwargs.get(k, p.default) for k, p in entry.params.items()}
    else:
        missing = [k for k, p in entry.params.items() if p.default is REQUIRED and k not in kwargs]
        if missing:
            raise AgentSpecError(f"agent {name!r} needs the parameter(s) {', '.join(missing)}: "
                                 f"{name}:" + ",".join(f"{k}=..." for k in missing))
        full = kwargs
    if entry.path:
        try:
            agent = entry.factory(**full)
        except (TypeError, ValueError) as e:
            raise AgentSpecError(f"agent {name!r}: {entry.path}(" + ", ".join(
                f"{k}={v!r}" for k, v in full.items()) + f") failed: {type(e).__name__}: {e}") from e
        if getattr(agent, "FAMILY", None) == "two":
            raise AgentSpecError(f"agent {name!r}: {entry.path}(...) returned an agent of "
                                 f"belote for two players (family 'two'), not of the "
                                 f"four-player game")
        if not isinstance(agent, Agent):
            raise AgentSpecError(f"agent {name!r}: {entry.path}(...) returned an "
                                 f"object of type {type(agent).__name__}, not an Agent; a factory must return "
                                 f"an instance of a coinche_rl.agents.Agent subclass")
    else:
        agent = entry.factory(**full)
    agent.name = name
    agent.spec = name + (":" + ",".join(f"{k}={raw[k]}" for k in raw) if raw else "")
    return agent


# ------------------------------------------------------- belote for two players
# The agents of the two family (coinche_rl.agents.two_player) have a table of their own:
# the built-in ones by import path (imported when first built, so that this module does
# not import the module that imports it), then those registered.
_TWO_BUILTINS = {"random": "coinche_rl.agents.two_player:TwoRandomAgent",
                 "heuristic": "coinche_rl.agents.two_player:TwoHeuristicAgent",
                 "pimc": "coinche_rl.agents.two_player_pimc:TwoPimcAgent"}
_TWO_REGISTRY: Dict[str, Callable[..., Any]] = {}


def register_two_player_agent(name: str, factory: Callable[..., Any]) -> None:
    """Register ``factory(**params) -> TwoPlayerAgent`` under ``name`` for belote for two
    players (its ``PARAMS``, when it declares them, type and check the spec's
    parameters)."""
    if not name or any(ch in name for ch in ",= "):
        raise ValueError(f"invalid agent name {name!r}")
    _TWO_REGISTRY[name] = factory


def available_two_player_agents() -> List[str]:
    """The two-player agents' names, sorted."""
    return sorted(set(_TWO_BUILTINS) | set(_TWO_REGISTRY))


def _load_two(name: str):
    if name not in _TWO_REGISTRY:
        module, attr = _TWO_BUILTINS[name].split(":")
        _TWO_REGISTRY[name] = getattr(importlib.import_module(module), attr)
    return _TWO_REGISTRY[name]


def describe_two_player_agents() -> str:
    """One line per two-player agent and per parameter."""
    lines = []
    for name in available_two_player_agents():
        f = _load_two(name)
        doc = getattr(f, "DESCRIPTION", "") or (inspect.getdoc(f) or "").split("\n\n")[0]
        lines.append(f"{name}: {doc}")
        for key, p in (getattr(f, "PARAMS", None) or {}).items():
            lines.append(f"    {key} ({p.type.__name__}, default {p.default!r}): {p.doc}")
    return "\n".join(lines)


def _two_family(obj) -> bool:
    return getattr(obj, "FAMILY", None) == "two"


def _wrong_family(name: str, what: str) -> AgentSpecError:
    return AgentSpecError(
        f"agent {name!r} plays the four-player game ({what}), not belote for two players "
        f"(rules family 'two'); two-player agents: {', '.join(available_two_player_agents())}, "
        f"or a TwoPlayerAgent subclass of your own by import path module:Object")


def _resolve_two(name: str):
    """The factory of the two-player agent ``name``: registered, built in, or an import
    path ``module:Object``."""
    if name in _TWO_REGISTRY or name in _TWO_BUILTINS:
        return _load_two(name)
    split = _split_import_path(name)
    if split is None:
        try:
            four = available_agents()
        except Exception:                   # an uninstalled checkout: no entry points
            four = []
        if name in four:
            raise _wrong_family(name, "a coinche / classic agent")
        raise AgentSpecError(f"unknown two-player agent {name!r}; available: "
                             f"{', '.join(available_two_player_agents())}; or your own "
                             f"TwoPlayerAgent subclass or factory by its import path, "
                             f"module:Object[:key=value,...]")
    module, attr = split
    try:
        obj = importlib.import_module(module)
    except Exception as e:
        raise _import_error(f"agent {name!r}", module, e) from e
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise AgentSpecError(f"agent {name!r}: module {module!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if inspect.isclass(obj) and issubclass(obj, Agent):
        raise _wrong_family(name, "a coinche_rl.agents.Agent subclass")
    if inspect.isclass(obj) and not _two_family(obj):
        raise AgentSpecError(f"agent {name!r}: {obj.__qualname__} does not derive from "
                             f"coinche_rl.agents.two_player.TwoPlayerAgent")
    if not callable(obj) or isinstance(obj, Agent) or (_two_family(obj) and not inspect.isclass(obj)):
        raise AgentSpecError(f"agent {name!r}: {name} is not a TwoPlayerAgent subclass or a "
                             f"function returning one")
    return obj


def make_two_player_agent(spec: str):
    """A new agent of belote for two players
    (:class:`~coinche_rl.agents.two_player.TwoPlayerAgent`) from its spec
    (``"heuristic"``, ``"heuristic:prise=4"``, ``"my_module:MyBot:depth=2"``).

    :raises AgentSpecError: unknown name, a four-player agent, unknown parameter, bad
        value, an import path that is not a TwoPlayerAgent.
    """
    name, raw = parse_spec(spec)
    factory = _resolve_two(name)
    declared = getattr(factory, "PARAMS", None)
    kwargs = {}
    for key, text in raw.items():
        if declared is not None:
            if key not in declared:
                known = ", ".join(declared) or "none"
                raise AgentSpecError(f"agent {name!r} has no parameter {key!r}; its "
                                     f"parameters: {known}")
            kwargs[key] = declared[key].parse(name, key, text)
        else:
            kwargs[key] = text
    try:
        agent = factory(**kwargs)
    except TypeError as e:
        raise AgentSpecError(f"agent {name!r}: {e}") from e
    if isinstance(agent, Agent):
        raise _wrong_family(name, "it returned a coinche_rl.agents.Agent")
    if not _two_family(agent):
        raise AgentSpecError(f"agent {name!r} returned a {type(agent).__name__}, not a "
                             f"TwoPlayerAgent")
    agent.name = name
    agent.spec = name + (":" + ",".join(f"{k}={raw[k]}" for k in raw) if raw else "")
    return agent
