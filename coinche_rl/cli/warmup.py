"""``coinche-rl warmup``: compile every numba kernel of the package (or load it from the
cache), in parallel chains of warm-ups on a fresh cache; the tournament and the test
session use the same chains."""

from __future__ import annotations

import functools
import importlib
import importlib.util
import logging
import os
import re
import subprocess
import sys
import time
from typing import List, Optional, Tuple

from .. import _numba_cache as nc
from .common import positive_int


#: the order in which the chains of warm-ups start on a fresh cache, by the names the
#: modules declare (``WARMUP_CHAIN``). The solver's call graph is deep (each kernel waits
#: for its callees), so its chain starts first, with ``solver:warmup_search`` (from its
#: argument types: no position, so none of the engine's kernels) and then the modules that
#: use it. Meanwhile the networks' chain compiles the networks' and the sampler's kernels
#: (with the engine's that they call), which PIMC's warm-up uses when the first chain
#: reaches it. Belote for two players has its own chain, which no four-player command
#: asks for. A chain of another name comes after these, and the modules of no chain (the
#: engine's simulator, the numba bots, the arena: the engine's kernels) last, in one chain
CHAIN_ORDER = ("search", "networks", "two")

_WARMUP_DEF = re.compile(r"^def warmup\(", re.M)


def _package_folders() -> List[Tuple[str, str]]:
    """``(package name, folder)`` of coinche_rl and of each of its subpackages, found in
    the folders (none imported): inside ``coinche_rl/``, and beside it where the source
    tree keeps ``agents/`` and ``envs/`` (installed as ``coinche_rl.agents`` and
    ``coinche_rl.envs``: the package's own finder says where they are)."""
    import coinche_rl
    found = [("coinche_rl", os.path.realpath(p)) for p in coinche_rl.__path__]
    for parent in sorted({os.path.dirname(f) for _, f in found}):
        for entry in sorted(os.listdir(parent)):
            folder = os.path.realpath(os.path.join(parent, entry))
            if not (entry.isidentifier() and os.path.isfile(os.path.join(folder, "__init__.py"))):
                continue
            spec = importlib.util.find_spec(f"coinche_rl.{entry}")
            if spec is not None and folder in {os.path.realpath(p) for p in
                                               spec.submodule_search_locations or ()}:
                found.append((f"coinche_rl.{entry}", folder))
    out = dict(found)
    todo = list(found)
    while todo:
        name, folder = todo.pop()
        for e in os.listdir(folder):
            sub = os.path.join(folder, e)
            if f"{name}.{e}" not in out and e.isidentifier() \
                    and os.path.isfile(os.path.join(sub, "__init__.py")):
                out[f"{name}.{e}"] = sub
                todo.append((f"{name}.{e}", sub))
    return sorted(out.items())


@functools.lru_cache(maxsize=1)
def kernel_modules() -> Tuple[str, ...]:
    """Every module of the package whose source defines a top-level ``warmup()`` (which
    compiles its kernels), read from the sources, nothing imported: the root package's
    modules first, then each subpackage's, by the names of the packages and modules. ``coinche-rl warmup`` and the test
    session warm these up; no list of them is kept by hand."""
    names = []
    for package, folder in _package_folders():
        for entry in sorted(os.listdir(folder)):
            if not entry.endswith(".py"):
                continue
            with open(os.path.join(folder, entry), encoding="utf-8") as f:
                if _WARMUP_DEF.search(f.read()):
                    names.append(package if entry == "__init__.py" else f"{package}.{entry[:-3]}")
    return tuple(names)


def _declared(module: str, name: str, default):
    """What ``module`` declares as ``name`` (``WARMUP_CHAIN``, ``WARMUP_AFTER``), or
    ``default`` (also for a module that does not import here, such as a user's)."""
    try:
        return getattr(importlib.import_module(module), name, default)
    except ImportError:
        return default


def warmup_after(spec: str) -> Tuple[str, ...]:
    """The warm-ups that ``spec`` (``"module"`` or ``"module:function"``) builds on: its
    module's ``WARMUP_AFTER`` (the warm-ups that compile the kernels its kernels call,
    which come first and come with it); none for a module's other warm-up functions."""
    module, _, function = spec.partition(":")
    return () if function else tuple(_declared(module, "WARMUP_AFTER", ()))


def warmup_chain(spec: str, _seen: Tuple[str, ...] = ()) -> str:
    """The chain of ``spec``: its module's ``WARMUP_CHAIN``, else the chain of the first
    warm-up it builds on (one process compiles both), else ``""`` (the last chain)."""
    module = spec.partition(":")[0]
    chain = _declared(module, "WARMUP_CHAIN", None)
    after = warmup_after(module)
    if chain is None and after and module not in _seen:
        return warmup_chain(after[0], _seen + (module,))
    return chain or ""


def warmup_chains(modules) -> List[List[str]]:
    """``modules`` and what they build on (:func:`warmup_after`, transitively, each
    before the first that needs it), split into their chains (:func:`warmup_chain`), in
    the order of :data:`CHAIN_ORDER` (other names after, the modules of no chain last, in
    the order given); empty chains dropped."""
    wanted: List[str] = []

    def want(spec: str, path: Tuple[str, ...]) -> None:
        if spec in path:
            raise ValueError(f"warm-up cycle: {' -> '.join(path + (spec,))}")
        if spec not in wanted:
            for need in warmup_after(spec):
                want(need, path + (spec,))
            wanted.append(spec)

    for name in modules:
        want(name, ())
    chains: dict = {}
    for spec in wanted:
        chains.setdefault(warmup_chain(spec), []).append(spec)
    rank = {name: i for i, name in enumerate(CHAIN_ORDER)}
    order = sorted(chains, key=lambda c: (c == "", rank.get(c, len(rank)), c))
    return [chains[c] for c in order]


def _start_warm_child(chain) -> subprocess.Popen:
    """A child interpreter that runs the warm-ups of ``chain`` (as
    :func:`~coinche_rl._numba_cache.warm_in_processes` starts them), writing this
    process's numba cache folder."""
    import numba.core.config as cfg
    from .._numba_cache import _WARM_CHILD
    env = dict(os.environ)
    if cfg.CACHE_DIR:
        env["NUMBA_CACHE_DIR"] = cfg.CACHE_DIR
    env.setdefault("OMP_NUM_THREADS", "1")
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    return subprocess.Popen([sys.executable, "-c", _WARM_CHILD, *chain], env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def _warm_here_and_in_processes(chains, jobs: int) -> None:
    """Compile ``chains`` (lists of ``"module"`` or ``"module:function"`` warm-ups) on
    ``jobs`` cores: the first ``jobs - 1`` chains in child interpreters, the others one
    after the other in this process meanwhile, which has imported numba and the package
    already (a child's start costs a second or more of the same core). A warm-up that
    fails here is left to the caller's own warm-ups, which raise its error in their
    place (as a child's failure loses time, never correctness)."""
    children = [_start_warm_child(c) for c in chains[:jobs - 1]]
    try:
        for spec in [s for c in chains[jobs - 1:] for s in c]:
            mod, _, fn = spec.partition(":")
            try:
                getattr(importlib.import_module(mod), fn or "warmup")()
            except Exception as e:      # the caller's own warm-up raises it in its place
                logging.getLogger("coinche_rl").debug("warm-up %s failed here: %r", spec, e)
        for p in children:
            p.wait()
    finally:
        for p in children:  # interrupted: leave no child compiling behind
            if p.poll() is None:
                p.kill()
                p.wait()


def compile_in_processes(modules, jobs: Optional[int], say: bool = True,
                          here: bool = False) -> Optional[float]:
    """Compile the kernels of ``modules`` (importable names whose ``warmup()`` compiles
    them) in parallel processes when none of them is cached yet (saying so on stdout
    when ``say``); returns the seconds it took, or None when nothing was started (a warm
    cache, one core, one chain). With ``here``, this process compiles its share itself
    (:func:`_warm_here_and_in_processes`) instead of waiting for children."""
    present = []
    for name in modules:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name != name:
                raise
            continue
        present.append(name)
    chains = warmup_chains(present)
    jobs = nc.usable_cores() if jobs is None else jobs
    if jobs < 2 or len(chains) < 2 or not any(nc.needs_compiling(m) for m in present):
        return None
    if say:
        print(f"compiling in {min(jobs, len(chains))} processes (once: later runs load the "
              f"kernels from the numba cache)...", flush=True)
    t0 = time.perf_counter()
    if here:
        _warm_here_and_in_processes(chains, jobs)
    else:
        nc.warm_in_processes(chains, jobs)
    return time.perf_counter() - t0


def cmd_warmup(args) -> int:
    total = time.perf_counter()
    modules = kernel_modules()
    seconds = compile_in_processes(modules, args.jobs)
    if seconds is not None:
        print(f"compiled in {seconds:.1f} s; loading:", flush=True)
    for name in modules:
        try:
            mod = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name == name:
                print(f"{name:32s} not present")
                continue
            raise
        fn = getattr(mod, "warmup", None)
        if fn is None:
            print(f"{name:32s} no kernels to warm")
            continue
        t0 = time.perf_counter()
        fn()
        print(f"{name:32s} ready in {time.perf_counter() - t0:6.2f} s", flush=True)
    print(f"every kernel compiled or loaded from the numba cache in "
          f"{time.perf_counter() - total:.1f} s")
    return 0


def add_parser(sub) -> None:
    w = sub.add_parser("warmup", help="compile every numba kernel (or load it from the cache)")
    w.add_argument("--jobs", type=positive_int,
                   help="processes compiling at once on a fresh cache (default: every core)")
    w.set_defaults(func=cmd_warmup)
