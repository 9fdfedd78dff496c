"""``coinche-rl warmup``: compile every numba kernel of the package (or load it from the
cache), in parallel chains of warm-ups on a fresh cache; the tournament and the test
session use the same chains."""

from __future__ import annotations

import importlib
import logging
import os
import subprocess
import sys
import time
from typing import List, Optional

from .. import _numba_cache as nc
from .common import positive_int


#: modules whose warmup() compiles kernels, in dependency order (absent ones are skipped)
WARMUP_MODULES = ("coinche_rl.simulate", "coinche_rl.envs.kernels", "coinche_rl.envs.vector",
                  "coinche_rl.solver", "coinche_rl.agents.numba_bots", "coinche_rl.agents.sampler",
                  "coinche_rl.agents.evaluation", "coinche_rl.agents.pimc",
                  "coinche_rl.agents.neural.agent", "coinche_rl.agents.neural.labels",
                  "coinche_rl.agents.neural.bid_labels", "coinche_rl.agents.neural.belief",
                  "coinche_rl.agents.neural.search", "coinche_rl.agents.neural.selfplay",
                  "coinche_rl.arena", "coinche_rl.arena.dealsets",
                  "coinche_rl.engine.two", "coinche_rl.agents.two_player_bots",
                  "coinche_rl.envs.two_player_kernels", "coinche_rl.envs.two_player_vector",
                  "coinche_rl.solver_two", "coinche_rl.agents.two_player_pimc",
                  "coinche_rl.agents.two_player_evaluation")


#: how the warm-up processes share WARMUP_MODULES: chains of modules that build on each
#: other's kernels (each chain in one process, in this order). The solver's call graph is
#: deep (each kernel waits for its callees), so it starts first, alone in its chain, from
#: its argument types (``solver:warmup_search``: no position, so none of the engine's
#: kernels); the modules that use it come after it there. Meanwhile the second chain
#: compiles the networks' and the sampler's kernels (with the engine's that they call),
#: which PIMC's warm-up uses when the first chain reaches it; the environments' load the
#: engine's from the cache
WARMUP_CHAINS = (("coinche_rl.solver:warmup_search", "coinche_rl.solver",
                  "coinche_rl.agents.evaluation", "coinche_rl.agents.pimc"),
                 ("coinche_rl.envs.kernels", "coinche_rl.envs.vector",
                  "coinche_rl.agents.neural.agent", "coinche_rl.agents.sampler",
                  "coinche_rl.agents.neural.labels", "coinche_rl.agents.neural.bid_labels",
                  "coinche_rl.agents.neural.belief", "coinche_rl.agents.neural.search",
                  "coinche_rl.agents.neural.selfplay"),
                 # belote for two players: its own chain, never the last one (a module of no
                 # chain joins the last); no four-player command, the demo included, asks for
                 # these modules, so warmup_chains drops it there
                 ("coinche_rl.engine.two", "coinche_rl.agents.two_player_bots",
                  "coinche_rl.envs.two_player_kernels", "coinche_rl.envs.two_player_vector",
                  "coinche_rl.solver_two", "coinche_rl.agents.two_player_pimc",
                  "coinche_rl.agents.two_player_evaluation", "coinche_rl.arena.dealsets"),
                 ("coinche_rl.simulate", "coinche_rl.agents.numba_bots", "coinche_rl.arena"))


#: modules whose kernels call those of other modules with a long compile of their own:
#: warming one up warms these first, in their own chain's place (the solver in the first
#: process while the others compile the rest, instead of inside the PIMC loop's compile)
#: PIMC's own warm-up compiles the sampler's kernels that it calls (not the others), in
#: the solver's process: the other process (the tournament's, in the demo) has more to do
_SEARCH_NEEDS = ("coinche_rl.solver:warmup_search", "coinche_rl.agents.sampler")


WARMUP_NEEDS = {"coinche_rl.agents.pimc": ("coinche_rl.solver:warmup_search",),
                "coinche_rl.agents.evaluation": _SEARCH_NEEDS,
                "coinche_rl.agents.neural.search": _SEARCH_NEEDS}


def warmup_chains(modules) -> List[List[str]]:
    """``modules`` and what they need (:data:`WARMUP_NEEDS`) split as
    :data:`WARMUP_CHAINS`, in the chains' order; a module of no chain goes to the end of
    the last one, in the order given; empty chains dropped."""
    wanted = list(dict.fromkeys(m for name in modules
                                for m in (*WARMUP_NEEDS.get(name, ()), name)))
    chains = [[m for m in chain if m in wanted] for chain in WARMUP_CHAINS]
    chains[-1] += [m for m in wanted if not any(m in c for c in WARMUP_CHAINS)]
    return [c for c in chains if c]


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
    seconds = compile_in_processes(WARMUP_MODULES, args.jobs)
    if seconds is not None:
        print(f"compiled in {seconds:.1f} s; loading:", flush=True)
    for name in WARMUP_MODULES:
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
