"""A first run that must compile the environment's kernels says so, instead of standing
still for seconds (issue 15); a run that loads the kernels from the cache says nothing.

The child process's cache is a copy of the session's (``NUMBA_CACHE_DIR``, which ``make
test`` fills before the tests start) without the environment's folder: the notice is
about the environment's kernels, and the engine's, loaded from the copy, need not compile
again (about 4 s of compiling instead of 17). Without a session cache it starts empty."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys

import pytest


SCRIPT = """
import numpy as np
from coinche_rl.envs import coinche_v0
env = coinche_v0.env()
env.reset(seed=0)
env.step(int(np.flatnonzero(env.observe(env.agent_selection)["action_mask"])[0]))
env = coinche_v0.env()                     # once per process
env.reset(seed=1)
print("stepped")
"""


def _run(cache):
    env = dict(os.environ, NUMBA_CACHE_DIR=str(cache), OPENBLAS_NUM_THREADS="1")
    return subprocess.run([sys.executable, "-c", SCRIPT], env=env, capture_output=True,
                          text=True, timeout=600)


def _cache_without_the_environment(cache):
    """``cache``: a copy of the session's numba cache, less the environment's folder (and
    less the temporary files numba writes an entry into, then renames, while other test
    workers compile)."""
    from coinche_rl.envs import kernels
    session = os.environ.get("NUMBA_CACHE_DIR")
    if session and os.path.isdir(session):
        envs = os.path.basename(kernels._encode._cache._cache_path)
        assert envs.startswith("envs_"), envs
        shutil.copytree(session, cache, ignore=lambda folder, names: [
            n for n in names if (folder == session and n == envs) or ".tmp." in n])
        assert not (cache / envs).exists()
    return cache


@pytest.mark.slow
def test_the_environment_says_when_it_compiles(tmp_path):
    cold = _run(_cache_without_the_environment(tmp_path / "cache"))
    assert cold.returncode == 0, cold.stderr
    assert cold.stdout.strip() == "stepped"
    notices = [line for line in cold.stderr.splitlines() if "compiling the numba kernels" in line]
    assert notices == ["coinche_rl: compiling the numba kernels of the environment (about 10-20 s, "
                       "once: later runs load them from the cache; `coinche-rl warmup` compiles "
                       "everything ahead)"]
    warm = _run(tmp_path / "cache")
    assert warm.returncode == 0 and "compiling" not in warm.stderr


def test_the_notice_is_silent_for_compiled_kernels():
    from coinche_rl._numba_cache import _must_compile, compile_notice
    from coinche_rl.envs import kernels
    from coinche_rl.envs.coinche_v0 import env
    e = env()
    e.reset(seed=0)
    e.observe(e.agent_selection)
    assert not _must_compile(kernels._encode)          # compiled in this process
    assert compile_notice("a test probe", [kernels._encode], "0 s") is False
    assert _must_compile(object()) is False             # cannot tell: says nothing
