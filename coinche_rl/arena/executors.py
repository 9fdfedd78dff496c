"""Executors (``coinche_rl.arena.executors``): the tasks of :mod:`.tasks` played in this
process (``serial``), in a kept pool of spawned processes (``pool``) or as Ray tasks
(``ray``), with the workers' set-up (``sys.path`` of import-path agents, hints in their
errors) and the agents' rule checks and seating before anything is played."""

from __future__ import annotations

import json
import os
from typing import Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from ..agents import AgentSpecError
from ..agents.registry import spec_module
from ..records import rules_from_record
from .errors import ArenaError
from .tasks import _run_task, cfg_family, pair_play, warmup

__all__ = ["BACKENDS", "RAY_CONNECT_TIMEOUT", "shutdown_pool"]

BACKENDS = ("serial", "pool", "ray")


#: what a worker adds to an unknown-agent error (an agent registered under the guard)
_WORKER_REGISTRY_HINT = (
    " (in a worker process: workers import coinche-rl afresh, so an agent registered in "
    "your script under `if __name__ == \"__main__\":` or in the interactive session is "
    "unknown there; register it at the top level of a module the workers import, e.g. "
    "the script's own top level or your package, or use backend='serial')")


#: what a worker adds to an import-path agent whose module it cannot import
_WORKER_IMPORT_HINT = (
    " (in a worker process: the module must be importable there too; the pool's workers "
    "and a local Ray's are given the folders this process imported it from, and a Ray "
    "cluster that this process connects to (address=...) the module itself, as the job's "
    "runtime_env py_modules; if you called ray.init yourself, pass it "
    "runtime_env={'py_modules': [...]} or install the module on every node)")


def _extend_sys_path(folders: Sequence[str]) -> None:
    """Put ``folders`` on this process's ``sys.path`` (after its entries) where missing."""
    import importlib
    import sys
    new = [f for f in folders if f not in sys.path]
    if new:
        sys.path.extend(new)
        importlib.invalidate_caches()


def one_blas_thread():
    """A context in which numpy's BLAS (the matrix products of the networks of ``nn``,
    ``nnsearch``, the belief) runs on one thread, restored on exit. A pool worker or a
    Ray task is one of as many processes as cores: a BLAS that starts a thread per core in
    each of them oversubscribes the cores (a 2-worker pool of ``nnsearch`` ran 5 times
    slower than with one thread each)."""
    from threadpoolctl import threadpool_limits
    return threadpool_limits(limits=1, user_api="blas")


def _run_task_in_worker(task, folders: Sequence[str] = ()) -> dict:
    """:func:`.tasks._run_task` in a worker process, with one BLAS thread
    (:func:`one_blas_thread`); ``folders``: where the parent imported the modules of
    import-path agents from (see :func:`_agent_modules`), added to the worker's
    ``sys.path`` first (a pool kept from an earlier call, a Ray worker)."""
    _extend_sys_path(folders)
    try:
        with one_blas_thread():
            return _run_task(task, warm=False)
    except AgentSpecError as e:
        text = str(e)
        if text.startswith("unknown agent"):
            raise AgentSpecError(text + _WORKER_REGISTRY_HINT) from None
        if "no module named" in text or "importing module" in text:
            raise AgentSpecError(text + _WORKER_IMPORT_HINT) from None
        raise


def _task_specs(tasks) -> List[str]:
    """The distinct agent specs of ``tasks`` (pair / match: teams x and y; knockout:
    players), in order."""
    specs: Dict[str, None] = {}
    for _, cfg, _ in tasks:
        for spec in list(cfg.get("x", ())) + list(cfg.get("y", ())) + list(cfg.get("players", ())):
            specs[spec] = None
    return list(specs)


def _check_agents_rules(tasks) -> None:
    """Before anything is played: every agent that declares ``check_rules(rules)`` (the
    colver agents) accepts the rule set of its tasks, and every agent can be seated
    under it (``reset``, which loads what it needs: the ``nn`` agent's weights, checked
    against the rules), so that a missing or wrong weights file is one message here,
    not a traceback from a worker.

    :raises ArenaError: naming the agent, the rules, and what is wrong (and what the
        agent's own message says would be right).
    """
    seen = set()
    for _, cfg, _ in tasks:
        rules_key = json.dumps(cfg["rules"], sort_keys=True)
        for spec in _task_specs([(None, cfg, None)]):
            if (spec, rules_key) in seen:
                continue
            seen.add((spec, rules_key))
            rules = rules_from_record(cfg["rules"])
            agent = pair_play(rules.family).agent(spec)
            check = getattr(agent, "check_rules", None)
            if check is not None:
                try:
                    check(rules)
                except ValueError as e:
                    raise ArenaError(f"agent {spec!r} cannot play the rule set {rules.name!r}: "
                                     f"{e}") from None
            try:
                agent.reset(0, rules, 0)
            except (ValueError, OSError) as e:      # NeuralError, WeightsError, a user's
                raise ArenaError(f"agent {spec!r} cannot be seated under the rule set "
                                 f"{rules.name!r}: {e}") from None


def _installed_folder(folder: str) -> bool:
    """Is ``folder`` a site-packages or standard-library folder (its modules installed)?"""
    import site
    import sysconfig
    roots = list(getattr(site, "getsitepackages", lambda: [])())
    user = getattr(site, "getusersitepackages", lambda: None)()
    roots += [user] if isinstance(user, str) else []
    paths = sysconfig.get_paths()
    roots += [paths[k] for k in ("stdlib", "platstdlib", "purelib", "platlib") if k in paths]
    real = os.path.realpath(folder)
    return any(real == os.path.realpath(r) for r in roots)


def _agent_modules(tasks) -> Tuple[List[str], List[str]]:
    """``(folders, modules)`` for the import-path agents (``my_agents:Greedy``) of
    ``tasks``: the ``sys.path`` folders their top-level modules were imported from in
    this process (for the workers' ``sys.path``), and those modules' files or package
    folders that are not installed (shipped to a Ray cluster as ``py_modules``)."""
    import importlib
    import sys
    folders: List[str] = []
    modules: List[str] = []
    for spec in _task_specs(tasks):
        name = spec_module(spec)
        if name is None:
            continue
        top = name.split(".")[0]
        mod = sys.modules.get(top) or importlib.import_module(top)
        file = getattr(mod, "__file__", None)
        if file:
            base = os.path.basename(file)
            target = os.path.dirname(file) if base.split(".")[0] == "__init__" else file
        else:                                       # a namespace package
            locations = list(getattr(mod, "__path__", None) or ())
            if not locations:
                continue
            target = locations[0]
        target = os.path.abspath(target)
        folder = os.path.dirname(target)
        if folder not in folders:
            folders.append(folder)
        if not _installed_folder(folder) and target not in modules:
            modules.append(target)
    return folders, modules


#: seconds to wait for a Ray cluster given by its address to answer (the environment
#: variable COINCHE_RL_RAY_TIMEOUT overrides it)
RAY_CONNECT_TIMEOUT = 30.0


def _ray_timeout() -> float:
    text = os.environ.get("COINCHE_RL_RAY_TIMEOUT")
    if text:
        try:
            value = float(text)
        except ValueError:
            raise ArenaError(f"COINCHE_RL_RAY_TIMEOUT={text!r}: expected a number of "
                             f"seconds") from None
        if value > 0:
            return value
    return float(RAY_CONNECT_TIMEOUT)


def _no_ray_cluster(address: str, why: str) -> str:
    return (f"no Ray cluster answered at the address {address!r}: {why}. Start one on that "
            f"machine with `ray start --head` (it prints the address to give; its default "
            f"port is 6379), or leave out --address (address=None) to play on a local Ray "
            f"instance that this process starts with --workers CPUs")


def _probe_ray_address(address: str, timeout: float) -> None:
    """A TCP connection to ``host:port`` of ``address`` (``ray://`` client addresses
    too), so that an address where nothing listens fails at once instead of having
    ``ray.init`` retry forever; ``auto``, ``local`` and other forms are left to Ray."""
    import socket
    text = address.strip()
    if "://" in text:
        text = text.split("://", 1)[1]
    host, sep, port = text.rstrip("/").rpartition(":")
    if not sep or not port.isdigit():
        return
    host = host.strip("[]") or "127.0.0.1"
    try:
        with socket.create_connection((host, int(port)), timeout=min(timeout, 10.0)):
            pass
    except socket.gaierror as e:
        raise ArenaError(_no_ray_cluster(address, f"unknown host {host!r} ({e})")) from None
    except ConnectionRefusedError:
        raise ArenaError(_no_ray_cluster(
            address, f"nothing listens on {host} port {port} (connection refused)")) from None
    except OSError as e:        # socket.timeout, unreachable network
        raise ArenaError(_no_ray_cluster(
            address, f"connecting to {host} port {port} failed within "
                     f"{min(timeout, 10.0):g} s ({type(e).__name__}: {e})")) from None


class _NoThreadWarning:
    """Drops Ray's "SIGTERM handler is not set because current thread is not the main
    thread" (ray.init runs in a thread here so that it can be timed out)."""

    @staticmethod
    def filter(record) -> bool:
        return "not the main thread" not in record.getMessage()


def _ray_init(ray, address: Optional[str], workers: Optional[int],
              modules: Sequence[str], warms: Sequence[Callable] = (warmup,)) -> None:
    """Start a local Ray instance (``workers`` CPUs; ``warms`` fill the numba cache first)
    or connect to ``address`` within :func:`_ray_timeout` seconds; ``modules`` (user
    agents' modules) go to the workers as the job's ``runtime_env`` ``py_modules``.

    :raises ArenaError: the address does not answer, or Ray refuses it.
    """
    import logging
    import threading
    kw = dict(include_dashboard=False, logging_level=logging.WARNING, log_to_driver=False)
    if modules:
        kw["runtime_env"] = {"py_modules": list(modules)}
    if not address:
        for warm in warms:
            warm()
        ray.init(num_cpus=workers or os.cpu_count() or 1, **kw)
        return
    timeout = _ray_timeout()
    _probe_ray_address(address, timeout)
    box: dict = {}

    def connect():
        try:
            ray.init(address=address, **kw)
        except BaseException as e:          # handed to the caller
            box["error"] = e

    log = logging.getLogger("ray._private.worker")
    log.addFilter(_NoThreadWarning)
    try:
        thread = threading.Thread(target=connect, name="coinche-rl ray.init", daemon=True)
        thread.start()
        thread.join(timeout)
    finally:
        log.removeFilter(_NoThreadWarning)
    if thread.is_alive():
        raise ArenaError(_no_ray_cluster(
            address, f"ray.init did not connect within {timeout:g} s (something answers "
                     f"there, but not a Ray cluster that accepts this process; set "
                     f"COINCHE_RL_RAY_TIMEOUT to wait longer)"))
    if "error" in box:
        e = box["error"]
        raise ArenaError(_no_ray_cluster(address, f"{type(e).__name__}: {e}")) from e


def _chunks(indices: np.ndarray, size: int):
    for k in range(0, len(indices), size):
        yield indices[k:k + size]


_RAY_TASK = None
_POOL = None


def _pool(n: int, warms: Sequence[Callable] = (warmup,)):
    """The process pool of ``n`` spawned workers, started on first use and kept for the
    next calls (:func:`shutdown_pool` stops it; it stops at exit). ``warms`` (the
    families' warm-ups of the tasks) fill the numba cache first, so that the workers load
    it: once per pool and warm-up (a pool kept from a four-player run, then given
    two-player tasks, runs the two-player warm-up then)."""
    global _POOL
    if _POOL is not None and _POOL[0] != n:
        shutdown_pool()
    for warm in warms:
        if _POOL is None or warm not in _POOL[2]:
            warm()
    if _POOL is None:
        import atexit
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor
        ex = ProcessPoolExecutor(max_workers=n, mp_context=mp.get_context("spawn"))
        if not _POOL_ATEXIT:
            atexit.register(shutdown_pool)
            _POOL_ATEXIT.append(True)
        _POOL = (n, ex, set())
    _POOL[2].update(warms)
    return _POOL[1]


_POOL_ATEXIT: list = []


def shutdown_pool() -> None:
    """Stop the worker processes of ``backend="pool"`` (they are otherwise kept between
    calls, so that a series of tournaments starts them once)."""
    global _POOL
    if _POOL is not None:
        _POOL[1].shutdown(wait=True, cancel_futures=True)
        _POOL = None


def _warmups(tasks) -> List[Callable]:
    """The warm-ups of the rule families of ``tasks`` (:meth:`.tasks.PairPlay.warmup`)."""
    plays = dict.fromkeys(pair_play(cfg_family(cfg)) for _, cfg, _ in tasks)
    return [p.warmup for p in plays]


def _execute(tasks: list, backend: str, workers: Optional[int], address: Optional[str],
             on_done: Callable) -> None:
    """Run ``tasks`` on ``backend``, calling ``on_done(task, result)`` as each finishes
    (in completion order). Before anything is played, every agent that declares
    ``check_rules`` checks the tasks' rules (:func:`_check_agents_rules`)."""
    if not tasks:
        return
    _check_agents_rules(tasks)
    if backend == "serial":
        for t in tasks:
            on_done(t, _run_task(t))
        return
    if backend == "pool":
        from concurrent.futures import as_completed
        from concurrent.futures.process import BrokenProcessPool
        folders = _agent_modules(tasks)[0]
        ex = _pool(workers or os.cpu_count() or 1, _warmups(tasks))
        futures = {ex.submit(_run_task_in_worker, t, folders): t for t in tasks}
        try:
            for f in as_completed(futures):
                on_done(futures[f], f.result())
        except BrokenProcessPool as e:
            shutdown_pool()
            raise ArenaError(
                "the pool's worker processes died while running the tournament. Started from "
                "a script, the pool's workers re-import it (Python's spawn start method): its "
                "top-level code must be under `if __name__ == \"__main__\":`; otherwise a "
                "worker was killed (out of memory?). backend='serial' plays in this "
                "process") from e
        except BaseException:
            for f in futures:
                f.cancel()
            raise
        return
    if backend == "ray":
        try:
            import ray
        except ModuleNotFoundError:
            raise ArenaError("backend 'ray' needs Ray: pip install -e '.[ray]' in the clone (or make venv)") from None
        global _RAY_TASK
        folders, modules = _agent_modules(tasks)
        if not ray.is_initialized():
            _ray_init(ray, address, workers, modules, _warmups(tasks))
        if _RAY_TASK is None:
            _RAY_TASK = ray.remote(_run_task_in_worker)
        pending = {_RAY_TASK.remote(t, folders): t for t in tasks}
        try:
            while pending:
                done, _ = ray.wait(list(pending), num_returns=1)
                for ref in done:
                    on_done(pending.pop(ref), ray.get(ref))
        except BaseException:
            for ref in pending:
                ray.cancel(ref)
            raise
        return
    raise ArenaError(f"unknown backend {backend!r}: expected one of {', '.join(BACKENDS)}")
