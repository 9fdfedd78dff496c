"""``make test`` (and ``make soak``): a fresh numba cache folder per run, handed to the
tests through NUMBA_CACHE_DIR, and removed at the end whatever the outcome, the exit
status staying the tests' (issue 23: every run left 30 MB in /tmp). The recipes run here
with a stub interpreter that records what it was given."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

STUB = """#!/bin/sh
printf '%s\\n' "$NUMBA_CACHE_DIR" > "{log}"
printf '%s\\n' "$*" >> "{log}"
printf '[%s]\\n' "$PYTHONDONTWRITEBYTECODE" >> "{log}"
printf '[%s]\\n' "$PYTHONPYCACHEPREFIX" >> "{log}"
[ -d "$NUMBA_CACHE_DIR" ] || exit 99
head -c 1000 /dev/zero > "$NUMBA_CACHE_DIR/kernel.nbc"
if [ -n "$PYTHONPYCACHEPREFIX" ]; then
    [ -d "$PYTHONPYCACHEPREFIX" ] || exit 98
    head -c 1000 /dev/zero > "$PYTHONPYCACHEPREFIX/module.pyc"
fi
exit {status}
"""


def _make(tmp_path, target: str, status: int, **environ):
    if shutil.which("make") is None:
        pytest.fail("make is not installed: the README's commands need it")
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    log = tmp_path / "log"
    stub = bin_dir / "python"
    stub.write_text(STUB.format(log=log, status=status))
    stub.chmod(0o755)
    stamp = tmp_path / "installed"      # newer than pyproject.toml: nothing to install
    stamp.touch()
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    env = dict(os.environ, TMPDIR=str(tmp))
    env.pop("NUMBA_CACHE_DIR", None)
    env.pop("MAKEFLAGS", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.pop("PYTHONPYCACHEPREFIX", None)
    env.update(environ)
    r = subprocess.run(["make", "-s", "-C", str(REPO), target, f"BIN={bin_dir}",
                        f"STAMP={stamp}"], env=env, capture_output=True, text=True, timeout=60)
    cache, args, dont_write, prefix = log.read_text().splitlines()
    bytecode = (dont_write.strip("[]"), prefix.strip("[]"))   # the two settings pytest got
    return r, Path(cache), args, tmp, bytecode


@pytest.mark.parametrize("target", ["test", "soak"])
@pytest.mark.parametrize("status", [0, 3])
def test_the_test_cache_is_fresh_and_removed_whatever_the_outcome(tmp_path, target, status):
    r, cache, args, tmp, _ = _make(tmp_path, target, status)
    assert cache.parent == tmp and cache.name.startswith("coinche-rl-numba.")
    assert not cache.exists() and list(tmp.iterdir()) == []
    if status == 0:
        assert r.returncode == 0, r.stderr
    else:                               # make reports the tests' status and fails
        assert r.returncode != 0 and "Error 3" in r.stderr
    if target == "test":
        assert args.startswith("-m pytest") and "-n auto" in args and "--durations" in args


@pytest.mark.parametrize("status", [0, 3])
def test_bytecode_goes_to_a_temporary_folder_where_writing_it_is_switched_off(tmp_path, status):
    """With PYTHONDONTWRITEBYTECODE set, each of the suite's processes compiled torch and
    ray from source again; the tests get a bytecode folder of their own instead, removed
    at the end like the numba cache. Without the setting, Python's default stays."""
    r, cache, _, tmp, (dont_write, prefix) = _make(tmp_path, "test", status,
                                                  PYTHONDONTWRITEBYTECODE="1")
    assert dont_write == "" and prefix
    assert Path(prefix).parent == tmp and Path(prefix).name.startswith("coinche-rl-bytecode.")
    assert not Path(prefix).exists() and not cache.exists() and list(tmp.iterdir()) == []
    assert (r.returncode == 0) == (status == 0), r.stderr

    other = tmp_path / "again"
    other.mkdir()
    _, _, _, tmp, bytecode = _make(other, "test", status)
    assert bytecode == ("", "")
    assert list(tmp.iterdir()) == []
