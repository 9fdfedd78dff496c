"""Numba's on-disk cache must survive a read-only install.

Numba caches compiled kernels next to the source (``__pycache__``) or, when that is not
writable, in a per-user folder. When neither is writable (a read-only install with a
read-only home, a locked-down container) ``@njit(cache=True)`` would fail at import.
This module checks before any kernel module is imported and, if needed, points numba
at a private folder in the system temp dir. An explicit ``NUMBA_CACHE_DIR`` always wins.
"""

from __future__ import annotations

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
    if not explicit and _writable(os.path.join(_PKG_DIR, "__pycache__")):
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
