"""Test-suite settings.

Hypothesis draws new examples on every run by default. Under CI (``CI`` set, as
``.ci/run`` runs) it is derandomized, so a submission's result does not depend on luck;
locally it keeps exploring. ``HYPOTHESIS_PROFILE=dev`` / ``ci`` chooses explicitly.

With pytest-xdist workers (``make test`` runs ``pytest -n auto``), the session first
compiles the package's kernels once, in parallel processes (``coinche-rl warmup``'s
chains), into the numba cache the workers share (``NUMBA_CACHE_DIR``): the workers then
load them instead of each compiling the same kernels. On a warm cache this step costs
nothing; ``COINCHE_TEST_WARMUP=0`` skips it (a few test files after an edit of the
package: only what they use compiles).
"""

import os
import time

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
settings.register_profile("dev", print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))


def pytest_sessionstart(session):
    """The xdist controller (before its workers start): compile the kernels once."""
    config = session.config
    workers = getattr(config.option, "numprocesses", None)
    if hasattr(config, "workerinput") or not isinstance(workers, int) or workers < 2 \
            or os.environ.get("COINCHE_TEST_WARMUP") == "0":
        return
    from coinche_rl.cli import warmup
    t0 = time.perf_counter()
    seconds = warmup.compile_in_processes(warmup.kernel_modules(), workers, say=False)
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if seconds is not None and reporter is not None:
        reporter.write_line(f"numba kernels compiled once for the {workers} workers in "
                            f"{time.perf_counter() - t0:.0f} s (NUMBA_CACHE_DIR="
                            f"{os.environ.get('NUMBA_CACHE_DIR', 'the default')})")
