"""coinche-rl: an AI research toolkit for Coinche (belote coinchée) and the Belote family."""
from ._numba_cache import ensure_writable_cache as _ensure_writable_cache
from ._numba_cache import install_package_stamp as _install_package_stamp

_ensure_writable_cache()
_install_package_stamp()

__version__ = "0.1.0"
