"""Numba's on-disk cache: survive a read-only install, and never run stale code.

Numba caches compiled kernels next to the source (``__pycache__``) or, when that is not
writable, in a per-user folder. When neither is writable (a read-only install with a
read-only home, a locked-down container) ``@njit(cache=True)`` would fail at import.
:func:`ensure_writable_cache` checks before any kernel module is imported and, if
needed, points numba at a private folder in the system temp dir. An explicit
``NUMBA_CACHE_DIR`` always wins.

Numba checks a cached kernel only against the source file that defines it, yet the
machine code also holds every kernel it calls from other modules (the solver calls the
engine, PIMC the solver and the sampler). After an edit of the engine the solver's
cached code would still run the old engine. :func:`install_package_stamp` makes the
stamp of every kernel defined in this package cover the sources of the whole package
(``coinche_rl``, ``coinche_rl.engine``, ``coinche_rl.agents``, ``coinche_rl.envs``): an
edit anywhere in it
recompiles every kernel once, and other libraries' kernels are untouched.
"""

from __future__ import annotations

import functools
import hashlib
import os
import tempfile

_PKG_DIR = os.path.dirname(os.path.abspath(__file__))


def _writable(folder: str) -> bool:
    """True if files can be created in ``folder`` (created if missing)."""
    try:
        os.makedirs(folder, exist_ok=True)
        fd, path = tempfile.mkstemp(dir=folder, prefix=".coinche-rl-probe-")
    except OSError:
        return False
    os.close(fd)
    try:
        os.remove(path)
    except OSError:
        pass
    return True


def fallback_cache_dir() -> str:
    return os.path.join(tempfile.gettempdir(), f"coinche-rl-numba-cache-{os.getuid() if hasattr(os, 'getuid') else 'user'}")


def ensure_writable_cache() -> str | None:
    """Make sure numba has a writable cache folder; return the folder chosen, or None
    when numba's own choice (next to the sources) works."""
    explicit = os.environ.get("NUMBA_CACHE_DIR")
    if explicit and _writable(explicit):
        return explicit
    if not explicit and all(_writable(os.path.join(d, "__pycache__"))
                            for d in (_PKG_DIR, os.path.join(_PKG_DIR, "engine"))):
        return None
    folder = fallback_cache_dir()
    if not _writable(folder):
        folder = tempfile.mkdtemp(prefix="coinche-rl-numba-cache-")
    os.environ["NUMBA_CACHE_DIR"] = folder
    try:  # numba may already be imported: update its live config too
        import numba.core.config as cfg
        cfg.CACHE_DIR = folder
    except Exception:  # pragma: no cover - numba always importable in practice
        pass
    return folder


# ------------------------------------------------------------------ package-wide stamps
def package_dirs() -> list:
    """The folders of the package's modules: ``coinche_rl`` and the ``engine``,
    ``agents``, ``agents.neural`` and ``envs`` sub-packages (inside it when installed,
    beside it in the source tree)."""
    out = [_PKG_DIR]
    for sub in ("engine", "agents", "envs", os.path.join("agents", "neural")):
        for cand in (os.path.join(_PKG_DIR, sub), os.path.join(os.path.dirname(_PKG_DIR), sub)):
            if os.path.isfile(os.path.join(cand, "__init__.py")):
                out.append(cand)
                break
    return out


def _in_package(py_file: str) -> bool:
    folder = os.path.realpath(os.path.dirname(os.path.abspath(py_file)))
    return folder in {os.path.realpath(d) for d in package_dirs()}


@functools.lru_cache(maxsize=8)
def _stamp_of(files: tuple) -> bytes:
    h = hashlib.sha256()
    for path, _mtime, _size in files:
        h.update(os.path.basename(path).encode())
        with open(path, "rb") as f:
            h.update(f.read())
    return h.digest()


def package_stamp() -> bytes:
    """SHA-256 of every ``.py`` source of the package (re-read when a file's mtime or
    size changes)."""
    files = []
    for d in package_dirs():
        for name in sorted(os.listdir(d)):
            if name.endswith(".py"):
                path = os.path.join(d, name)
                st = os.stat(path)
                files.append((path, st.st_mtime_ns, st.st_size))
    return _stamp_of(tuple(files))


def _package_locator(base):
    class PackageLocator(base):
        """``base`` for kernels defined in this package, stamped with the whole
        package's sources (see the module docstring)."""

        @classmethod
        def from_function(cls, py_func, py_file):
            if not _in_package(py_file):
                return None
            return super().from_function(py_func, py_file)

        def get_source_stamp(self):
            return (super().get_source_stamp(), package_stamp())

    PackageLocator.__name__ = PackageLocator.__qualname__ = "CoincheRL" + base.__name__
    return PackageLocator


def install_package_stamp() -> bool:
    """Put the package-wide locators first in numba's list (once). Returns False, and
    leaves numba as it is, when its caching internals are not the expected ones."""
    try:
        from numba.core import caching
        impl = caching.CacheImpl
        bases = [caching.UserProvidedCacheLocator, caching.InTreeCacheLocator,
                 caching.UserWideCacheLocator]
    except (ImportError, AttributeError):  # pragma: no cover - other numba versions
        return False
    current = list(impl._locator_classes)
    if any(c.__name__.startswith("CoincheRL") for c in current):
        return True
    impl._locator_classes = [_package_locator(b) for b in bases] + current
    return True


# ------------------------------------------------------------------ compile notices
_NOTICED: set = set()


def _must_compile(dispatcher) -> bool:
    """True when the first call of numba ``dispatcher`` will compile: nothing compiled
    in this process and no valid entry in the cache (numba's private cache API, read
    defensively: when it cannot tell, it answers False and nothing is said)."""
    try:
        if dispatcher.signatures:
            return False
        return not dispatcher._cache._cache_file._load_index()
    except Exception:
        return False


def compile_notice(what: str, dispatchers, seconds: str) -> bool:
    """Say on the ``coinche_rl`` logger (a warning: shown on stderr unless logging is
    configured otherwise) that ``dispatchers`` (the main kernels of ``what``) are about
    to be compiled, once per process and ``what``. Returns whether it spoke."""
    if what in _NOTICED:
        return False
    _NOTICED.add(what)
    if not any(_must_compile(d) for d in dispatchers):
        return False
    import logging
    logging.getLogger("coinche_rl").warning(
        "coinche_rl: compiling the numba kernels of %s (%s, once: later runs load them "
        "from the cache; `coinche-rl warmup` compiles everything ahead)", what, seconds)
    return True


# ------------------------------------------------------------------ parallel warm-up
#: what a warm-up child runs: each argument ``module`` or ``module:function`` in turn
#: (a module that is not installed, such as an optional one, is skipped)
_WARM_CHILD = ("import importlib, sys\n"
               "for spec in sys.argv[1:]:\n"
               "    mod, _, fn = spec.partition(':')\n"
               "    try:\n"
               "        m = importlib.import_module(mod)\n"
               "    except ModuleNotFoundError as e:\n"
               "        if e.name == mod:\n"
               "            continue\n"
               "        raise\n"
               "    getattr(m, fn or 'warmup')()\n")


def needs_compiling(module: str) -> bool:
    """True when no kernel defined in ``module`` (an imported module, or a package with
    its imported submodules) is compiled in this process or cached: a fresh cache, or one
    made stale by an edit of the package. A module with some kernels cached counts as
    warm (its warm-up compiles the rest), so a warm cache never pays for parallel
    warm-up processes; False too when it cannot tell (see :func:`_must_compile`)."""
    import sys
    kernels = []
    for name, mod in list(sys.modules.items()):
        if mod is None or not (name == module or name.startswith(module + ".")):
            continue
        for value in list(vars(mod).values()):
            if getattr(getattr(value, "py_func", None), "__module__", None) == name \
                    and hasattr(value, "_cache"):
                kernels.append(value)
    return bool(kernels) and all(_must_compile(k) for k in kernels)


def usable_cores() -> int:
    """The cores this process may run on (its affinity where the platform tells)."""
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except AttributeError:  # pragma: no cover - macOS, Windows
        return max(1, os.cpu_count() or 1)


def warm_in_processes(chains, jobs=None) -> int:
    """Compile kernels in parallel: each chain (a list of ``"module"`` or
    ``"module:function"`` names, default function ``warmup``) runs in order in a child
    interpreter, at most ``jobs`` children at once (default: the usable cores), all of
    them writing this process's numba cache folder. Numba compiles one kernel on one
    core; children use every core, and a kernel that one of them finds in the cache is
    loaded, not compiled again.

    This only fills the cache: the caller then runs the same warm-ups itself, which load
    what the children compiled (and compile whatever a failed child left out, so a child's
    failure loses time, never correctness). With one job or one chain nothing is started
    (the caller compiles in its own process as fast). Returns the number of chains whose
    child succeeded."""
    import subprocess
    import sys
    chains = [list(c) for c in chains if c]
    jobs = usable_cores() if jobs is None else int(jobs)
    if jobs < 2 or len(chains) < 2:
        return 0
    env = dict(os.environ)
    import numba.core.config as cfg   # the folder numba uses here (maybe our fallback)
    if cfg.CACHE_DIR:
        env["NUMBA_CACHE_DIR"] = cfg.CACHE_DIR
    env.setdefault("OMP_NUM_THREADS", "1")
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    waiting, running, ok = list(chains), [], 0
    try:
        while waiting or running:
            while waiting and len(running) < jobs:
                running.append(subprocess.Popen(
                    [sys.executable, "-c", _WARM_CHILD, *waiting.pop(0)], env=env,
                    stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL))
            done = running.pop(0) if len(running) == 1 else None
            if done is None:
                import time
                while done is None:
                    for p in running:
                        if p.poll() is not None:
                            done = p
                            break
                    else:
                        time.sleep(0.05)
                running.remove(done)
            ok += done.wait() == 0
    finally:
        for p in running:  # interrupted: leave no child compiling behind
            p.kill()
            p.wait()
    return ok
