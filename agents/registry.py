"""Agents built from spec strings (``coinche_rl.agents.registry``), for a rule family.

A spec is an agent name, optionally followed by ``:`` and comma-separated
``key=value`` parameters: ``"random"``, ``"heuristic"``, ``"pimc:worlds=32"``. It is
built for a rule family (``RuleSet.family``: ``coinche`` and ``classic``, the
four-player game, or ``two``, belote for two players): :func:`make_agent` ``(spec,
family)``, where a RuleSet stands for its family and the default is ``coinche``. Every
agent declares the families it plays (:attr:`Agent.FAMILIES
<coinche_rl.agents.base.Agent.FAMILIES>`), and a spec of another family is refused with
a message naming the families the agent plays and the agents of the family asked.

The name is, in this order of precedence:

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

**One name, several families.** An entry point ``name`` serves the families its object
declares. A name whose families are played by different classes has one entry per
family that differs, its name qualified by the family: ``heuristic`` is the four-player
heuristic, ``heuristic@two`` the heuristic of belote for two players, and the spec
``"heuristic"`` builds the one of the family asked (the ``@family`` entry first). A spec
never carries the qualifier: the family comes with the rules.

A built-in or entry-point agent is imported the first time it is built or described.
The object of an entry point or import path is an :class:`~coinche_rl.agents.base.Agent`
subclass or a factory (any callable) returning an Agent; anything else is an
:class:`AgentSpecError` that says what would be right. Its parameters are passed as
keyword arguments: typed and checked as for a registered agent when the object declares
``PARAMS = {"name": Param(type, doc=...)}`` (every declared parameter is then passed,
defaults included, a Param's default being the constructor's unless given; a subclass
of a built-in agent declares its own, else it goes by its signature); otherwise by its
signature: a key must be one of its keyword parameters (any key with ``**kwargs``), and
the text is converted to ``int``, ``float``, ``bool`` or ``str`` after the parameter's
annotation or, without one, its default's type (other parameters receive the text;
parameters not given keep their Python defaults). Texts are read as the rule overrides
are (:func:`coinche_rl.values.parse_value`: a switch is true/false, yes/no, on/off, 1/0).

The built-in agents declare their parameters so (and ``DESCRIPTION``, ``ROSTER``:
:class:`~coinche_rl.agents.base.Agent`): :func:`make_agent` rejects unknown names, unknown
parameters and bad values with a message that says what would be right, and
:func:`describe_agents` lists the agents of a family (``coinche-rl agents --rules
PRESET``).

>>> from coinche_rl.agents import make_agent, available_agents
>>> "random" in available_agents()
True
>>> make_agent("random").spec
'random'
>>> type(make_agent("heuristic", "two")).__name__
'TwoHeuristicAgent'
>>> make_agent("coinche_rl.agents.random_agent:RandomAgent").spec
'coinche_rl.agents.random_agent:RandomAgent'
>>> make_agent("randm")
Traceback (most recent call last):
...
coinche_rl.agents.base.AgentSpecError: unknown agent 'randm'; available: ...
>>> make_agent("colver:rule", "two")
Traceback (most recent call last):
...
coinche_rl.agents.base.AgentSpecError: agent 'colver:rule' plays the family coinche, not the family 'two' ...
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import re
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

from ..rules import FAMILY_PRESETS, RuleSet
from .base import FROM_SIGNATURE, Agent, AgentSpecError, Marker, Param, family_error

__all__ = ["AgentSpecError", "Param", "register_agent", "make_agent", "available_agents",
           "describe_agents", "roster_agents", "parse_spec", "spec_module",
           "agent_families", "ENTRY_POINT_GROUP", "DEFAULT_FAMILY"]

#: the entry-point group in which installed packages register agents (name -> object)
ENTRY_POINT_GROUP = "coinche_rl.agents"
#: the family of :func:`make_agent` without one (that of the default rules, ``ffb``)
DEFAULT_FAMILY = "coinche"
#: the separator of an entry point's family qualifier (``heuristic@two``)
_AT = "@"
#: the families of an object that declares none (a factory function)
_FOUR_PLAYER = Agent.FAMILIES


#: the default of a parameter that must be given (an import-path agent's parameter
#: without a Python default)
REQUIRED = Marker("required")


@dataclass(frozen=True)
class _Entry:
    factory: Callable[..., Agent]
    params: Dict[str, Param]
    doc: str
    #: the rule families it plays
    families: Tuple[str, ...] = _FOUR_PLAYER
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

#: the agents built or registered so far, by (family, name)
_REGISTRY: Dict[Tuple[str, str], _Entry] = {}
#: the built-in agents' entry points (name -> EntryPoint), read once
_BUILTINS: Optional[Dict[str, Any]] = None
#: import-path agents already resolved (name -> entry); not listed by available_agents
_IMPORTED: Dict[str, _Entry] = {}
#: entry points of ENTRY_POINT_GROUP (name -> EntryPoint), read once
_ENTRY_POINTS: Optional[Dict[str, Any]] = None


def _family(family: Union[str, RuleSet, None]) -> str:
    """The family name of ``family`` (a name, a RuleSet, or None: the default)."""
    if family is None:
        return DEFAULT_FAMILY
    fam = getattr(family, "family", family)
    if fam not in FAMILY_PRESETS:
        raise AgentSpecError(f"unknown rule family {fam!r}: expected one of "
                             f"{', '.join(FAMILY_PRESETS)} (or a RuleSet)")
    return fam


def _families(obj, default=None) -> Tuple[str, ...]:
    """The families ``obj`` declares (``FAMILIES``), else ``default``, else the
    four-player ones."""
    fams = getattr(obj, "FAMILIES", None) or default or _FOUR_PLAYER
    return tuple(fams)


def register_agent(name: str, factory: Callable[..., Agent], params: Dict[str, Param] = None,
                   doc: str = "", roster: bool = True, families=None) -> None:
    """Register ``factory(**params) -> Agent`` under ``name`` (letters, digits, ``_``,
    ``-`` and ``:`` namespaces such as ``colver:maxi`` are allowed) for ``families``
    (default: the factory's ``FAMILIES``, else the four-player ones). ``roster=False``
    keeps a slow agent out of the default tournament roster (it is still a spec). A
    Param without a default takes the factory's."""
    if not name or any(ch in name for ch in ",= " + _AT):
        raise ValueError(f"invalid agent name {name!r}")
    fams = tuple(families) if families else _families(factory)
    for f in fams:
        _family(f)
    entry = _Entry(factory, _signature_defaults(factory, params or {}), doc, fams,
                   roster=bool(roster))
    for f in fams:
        _REGISTRY[(f, name)] = entry


def _signature_defaults(factory, params: Dict[str, Param]) -> Dict[str, Param]:
    """``params`` with each missing default read from ``factory``'s signature (else
    :data:`REQUIRED`)."""
    if not any(p.default is FROM_SIGNATURE for p in params.values()):
        return dict(params)
    try:
        sig = inspect.signature(factory).parameters
    except (TypeError, ValueError):
        sig = {}
    out = {}
    for k, p in params.items():
        if p.default is FROM_SIGNATURE:
            sp = sig.get(k)
            default = REQUIRED if sp is None or sp.default is sp.empty else sp.default
            p = dataclasses.replace(p, default=default)
        out[k] = p
    return out


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


def _unqualified(key: str) -> str:
    return key.split(_AT, 1)[0]


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


def _entry_for_object(obj, path: str, origin: str, families=None) -> _Entry:
    """The registry entry of an entry point's or import path's object ``obj``.

    :raises AgentSpecError: ``obj`` is not an Agent subclass or a callable.
    """
    what = ("an Agent subclass (class MyAgent(coinche_rl.agents.Agent) with an act(view) "
            "method) or a function returning an Agent")
    if isinstance(obj, Agent):
        raise AgentSpecError(f"{origin}: {path} is an Agent instance; give its class (or a "
                             f"function returning a new Agent): every seat and every worker "
                             f"process builds its own agent")
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
        return _Entry(obj, _signature_defaults(obj, declared), doc, _families(obj, families),
                      path=path)
    params: Dict[str, Param] = {}
    any_key = False
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):     # no signature (a builtin): texts, any key
        return _Entry(obj, {}, doc, _families(obj, families), path=path, all_params=False,
                      any_key=True)
    for p in sig.parameters.values():
        if p.kind is p.VAR_KEYWORD:
            any_key = True
        elif p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY):
            default = REQUIRED if p.default is p.empty else p.default
            params[p.name] = Param(_param_type(p), default, "")
    return _Entry(obj, params, doc, _families(obj, families), path=path, all_params=False,
                  any_key=any_key)


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


def _load_entry_point(key: str, ep, family: str, builtin: bool) -> _Entry:
    """Import the entry point ``key`` (``name`` or ``name@family``) and register it for
    the families it plays (once)."""
    name = _unqualified(key)
    qualified = _AT in key
    dist = getattr(getattr(ep, "dist", None), "name", None)
    origin = (f"agent {name!r} (entry point {key} = {ep.value!r} in group "
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
        if (family, name) not in _REGISTRY:
            raise AgentSpecError(f"{origin}: importing the module {module!r} registered no "
                                 f"agent {name!r}; point the entry point at an Agent subclass "
                                 f"or factory (module:Object), or register_agent({name!r}, ...) "
                                 f"in that module")
        return _REGISTRY[(family, name)]
    default = (key.split(_AT, 1)[1],) if qualified else None
    if builtin:
        doc = obj.DESCRIPTION or (inspect.getdoc(obj) or "").split("\n\n")[0].replace("\n", " ")
        entry = _Entry(obj, dict(obj.PARAMS or {}), doc, _families(obj), roster=bool(obj.ROSTER))
    else:
        entry = _entry_for_object(obj, ep.value, origin, default)
    if qualified and key.split(_AT, 1)[1] not in entry.families:
        raise AgentSpecError(f"{origin}: its object plays the families "
                             f"{', '.join(entry.families)}, not the one of its name")
    for f in ((key.split(_AT, 1)[1],) if qualified else entry.families):
        _REGISTRY.setdefault((f, name), entry)
    return entry


def _sources(name: str, family: str):
    """The entry points that may hold ``name`` for ``family``: (key, ep, builtin),
    the qualified ``name@family`` first, the built-ins before the others."""
    out = []
    for key in (name + _AT + family, name):
        if key in _builtins():
            out.append((key, _builtins()[key], True))
        elif key in _entry_points():
            out.append((key, _entry_points()[key], False))
    return out


def _families_of_name(name: str) -> List[str]:
    """The families in which ``name`` is an agent (loading its entry points)."""
    return [f for f in FAMILY_PRESETS if _is_agent_of(name, f)]


def _is_agent_of(name: str, family: str) -> bool:
    """True when ``name`` is an agent of ``family`` (registered or an entry point)."""
    try:
        _lookup(name, family, quiet=True)
    except AgentSpecError:
        return False
    return True


def _lookup(name: str, family: str, quiet: bool = False) -> _Entry:
    if (family, name) in _REGISTRY:
        return _REGISTRY[(family, name)]
    entry = None
    for key, ep, builtin in _sources(name, family):
        entry = _load_entry_point(key, ep, family, builtin)
        if family in entry.families:
            return entry
    if entry is None and _AT not in name:
        entry = _resolve_import_path(name)
        if entry is not None and family in entry.families:
            return entry
    if entry is None and not quiet:
        known = [f for (f, n) in _REGISTRY if n == name]
        if known:
            entry = _REGISTRY[(known[0], name)]
    if entry is not None:
        if quiet:
            raise AgentSpecError(name)
        raise _wrong_family(name, entry.families, family)
    if quiet:
        raise AgentSpecError(name)
    hint = ""
    if "." in name and ":" not in name:
        module, _, attr = name.rpartition(".")
        hint = f" (an import path separates the module from the object with ':': {module}:{attr})"
    raise AgentSpecError(f"unknown agent {name!r}; available: "
                         f"{', '.join(available_agents(family))}; or your own Agent subclass or "
                         f"factory by its import path, module:Object[:key=value,...]{hint}")


def _wrong_family(name: str, families, family: str) -> AgentSpecError:
    others = [n for n in available_agents(family) if n != name]
    return AgentSpecError(
        family_error(f"agent {name!r}", families, family) + f"; agents of the family {family!r}: {', '.join(others) or 'none'}, or an Agent "
        f"subclass of your own declaring FAMILIES = ({family!r},), by its import path "
        f"module:Object")


def spec_module(spec: str) -> Optional[str]:
    """The module an import-path spec (``"my_agents:Greedy:depth=2"``) imports, or None
    for a registered or entry-point agent (no import, no check that the module exists)."""
    name, _ = parse_spec(spec)
    if name in _names():
        return None
    split = _split_import_path(name)
    return split[0] if split else None


# ------------------------------------------------------------------------------- API
def _names() -> set:
    """Every registered or entry-point name, unqualified (nothing imported)."""
    return ({n for (_, n) in _REGISTRY}
            | {_unqualified(k) for k in _builtins()} | {_unqualified(k) for k in _entry_points()})


def available_agents(family: Union[str, RuleSet, None] = None) -> List[str]:
    """The agents' names, sorted: those of ``family`` (a family name or a RuleSet:
    entry points are imported to read the families they play; one that cannot be
    imported is left out), or, with ``family=None``, every registered and entry-point
    name, of any family, without importing anything (import-path agents are not listed:
    any ``module:Object`` may be given)."""
    if family is None:
        return sorted(_names())
    fam = _family(family)
    return [name for name in sorted(_names()) if _is_agent_of(name, fam)]


def agent_families(name: str) -> List[str]:
    """The rule families in which the agent ``name`` (registered or an entry point) is
    played."""
    return _families_of_name(name)


def roster_agents(family: Union[str, RuleSet, None] = None) -> List[str]:
    """:func:`available_agents` of ``family`` (default: ``coinche``) less those
    registered with ``roster=False`` or declaring ``ROSTER = False`` (slow searchers a
    default tournament would spend minutes on)."""
    fam = _family(family)
    return [n for n in available_agents(fam) if _REGISTRY[(fam, n)].roster]


def describe_agents(family: Union[str, RuleSet, None] = None) -> str:
    """A text listing of the agents of ``family`` (a family name or a RuleSet; default
    ``coinche``) with their parameters, defaults and descriptions (entry points are
    imported to be described; one of no family that fails to load says why)."""
    fam = _family(family)
    lines = [f"agents of the rule family {fam!r} ({', '.join(FAMILY_PRESETS[fam])}):"]
    for name in sorted(_names()):
        try:
            e = _lookup(name, fam)
        except AgentSpecError as err:
            if "plays the famil" not in str(err):
                lines.append(f"{name}: (cannot be loaded: {err})")
            continue
        origin = f" [{e.path}]" if e.path else ""
        lines.append(f"{name}: {e.doc}{origin}")
        for key, p in _family_params(e, fam).items():
            lines.append(f"    {key} ({p.type.__name__}, " + (
                "required" if p.default is REQUIRED else f"default {p.default!r}")
                + (f"): {p.doc}" if p.doc else ")"))
    return "\n".join(lines)


def make_agent(spec: str, family: Union[str, RuleSet, None] = None) -> Agent:
    """A new agent from its spec string (see the module docstring), for the rule
    ``family`` (a family name, a RuleSet standing for its family, or None: ``coinche``;
    the four-player families share their agents).

    :raises AgentSpecError: unknown name, unknown parameter, bad value; an import path or
        entry point whose module cannot be imported, whose object is missing or is not an
        Agent subclass / factory; an agent that does not play ``family`` (the message
        names the families it plays and the agents of ``family``).
    """
    fam = _family(family)
    name, raw = parse_spec(spec)
    entry = _lookup(name, fam)
    params = _family_params(entry, fam)
    kwargs = {}
    for key, text in raw.items():
        if key in params:
            kwargs[key] = params[key].parse(name, key, text)
        elif key in entry.params:
            fams = entry.params[key].families
            raise AgentSpecError(
                f"agent {name!r}: the parameter {key!r} is for the "
                + family_error("", fams, fam).partition(" plays the ")[2]
                + f"; its parameters there: {', '.join(params) or 'none'}")
        elif entry.any_key:
            kwargs[key] = text
        else:
            known = ", ".join(params) or "none"
            raise AgentSpecError(f"agent {name!r} has no parameter {key!r}; "
                                 f"its parameters: {known}")
    full = ({k: kwargs.get(k, p.default) for k, p in params.items()}
            if entry.all_params else kwargs)
    missing = [k for k, p in params.items() if p.default is REQUIRED and k not in kwargs]
    if missing:
        raise AgentSpecError(f"agent {name!r} needs the parameter(s) {', '.join(missing)}: "
                             f"{name}:" + ",".join(f"{k}=..." for k in missing))
    if entry.path:
        try:
            agent = entry.factory(**full)
        except (TypeError, ValueError) as e:
            raise AgentSpecError(f"agent {name!r}: {entry.path}(" + ", ".join(
                f"{k}={v!r}" for k, v in full.items()) + f") failed: {type(e).__name__}: {e}") from e
        if not isinstance(agent, Agent):
            raise AgentSpecError(f"agent {name!r}: {entry.path}(...) returned an "
                                 f"object of type {type(agent).__name__}, not an Agent; a factory must return "
                                 f"an instance of a coinche_rl.agents.Agent subclass")
        if fam not in agent.FAMILIES:
            raise AgentSpecError(f"agent {name!r}: {entry.path}(...) returned "
                                 + family_error(type(agent).__name__, agent.FAMILIES, fam))
    else:
        agent = entry.factory(**full)
    agent.name = name
    agent.spec = name + (":" + ",".join(f"{k}={raw[k]}" for k in raw) if raw else "")
    agent.family = fam
    return agent


def _family_params(entry: _Entry, family: str) -> Dict[str, Param]:
    """The parameters of ``entry`` that mean something in ``family`` (:attr:`Param.families
    <coinche_rl.agents.base.Param.families>`)."""
    return {k: p for k, p in entry.params.items() if not p.families or family in p.families}
