"""coinche-rl: an AI research toolkit for Coinche (belote coinchée) and the Belote family."""
from ._numba_cache import ensure_writable_cache as _ensure_writable_cache

_ensure_writable_cache()

__version__ = "0.1.0"
