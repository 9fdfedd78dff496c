"""Numba's on-disk cache must survive a read-only install (coinche_rl/_numba_cache.py).

End to end, in subprocesses: the package imported from a read-only copy with a
read-only home and no NUMBA_CACHE_DIR picks a writable fallback folder and runs a
kernel; an unusable explicit NUMBA_CACHE_DIR falls back too; a usable one is kept, and a
second process with the same folder loads the kernels from the cache.

Tests run as root in CI, and root ignores file permissions, so "read-only" is then
simulated with paths that nobody can create: a folder under a regular *file*
(``<file>/sub``). The package's ``__pycache__`` becomes a regular file, and HOME a path
under a file. As a non-root user the copy is also ``chmod -R a-w``.

Unit tests call ``ensure_writable_cache()`` in-process with the environment, the temp
folder and numba's live config monkeypatched (and restored).
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from coinche_rl import _numba_cache as NC

REPO = Path(__file__).resolve().parents[1]
IS_ROOT = hasattr(os, "geteuid") and os.geteuid() == 0
UID = os.getuid() if hasattr(os, "getuid") else "user"

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX permissions and paths")

#: the deck of seed 1, stream 0: run in the child and in this process
DECK_OF_SEED_1 = """
def deck_of_seed_1():
    import numpy as np
    from coinche_rl import engine as E
    rng = np.zeros(1, dtype=np.uint64)
    E.rng_seed(rng, np.int64(1), np.int64(0))
    deck = np.empty(32, dtype=np.int64)
    E.random_deck(rng, deck)
    return deck.tolist()
"""

#: run in the child: probe the read-only premise, import, run a kernel of the package,
#: report. The kernel is the engine's shuffle (``engine.random_deck``, with the
#: ``rng_seed`` it calls): small, so that a cold cache costs a second, not the engine's
#: whole call graph; what is checked is where the package's kernels are cached
CHILD = r"""
import json, os, sys, glob
probe = {}
for name, folder in (("pkg", sys.argv[1]), ("home", os.path.expanduser("~/.cache"))):
    try:
        os.makedirs(folder, exist_ok=True)
        with open(os.path.join(folder, ".probe"), "w"):
            pass
        probe[name] = True
    except OSError:
        probe[name] = False
env_before = os.environ.get("NUMBA_CACHE_DIR")
import coinche_rl
env_after = os.environ.get("NUMBA_CACHE_DIR")
import numba.core.config as cfg
from coinche_rl import engine as E
""" + DECK_OF_SEED_1 + r"""
deck = deck_of_seed_1()
st = E.random_deck.stats
print(json.dumps({
    "file": coinche_rl.__file__, "probe": probe, "env_before": env_before,
    "env_after": env_after, "cfg": cfg.CACHE_DIR, "deck": deck,
    "cache_path": st.cache_path, "hits": sum(st.cache_hits.values()),
    "misses": sum(st.cache_misses.values()),
}))
"""


def _make_unwritable_dir(base: Path, name: str) -> Path:
    """A folder path nobody can create, root included: under a regular file."""
    blocker = base / f"{name}-is-a-file"
    blocker.write_text("not a folder\n")
    return blocker / "sub"


def _chmod_tree(path: Path, writable: bool) -> None:
    for root, dirs, files in os.walk(path):
        for p in [root] + [os.path.join(root, f) for f in files]:
            if os.path.islink(p):
                continue
            mode = os.stat(p).st_mode
            mode = mode | stat.S_IWUSR if writable else mode & ~(stat.S_IWUSR | stat.S_IWGRP | stat.S_IWOTH)
            os.chmod(p, mode)


def run_child(env_over: dict, pythonpath: Path, pkg_dir: Path, cwd: Path) -> dict:
    env = {k: v for k, v in os.environ.items()
           if k not in ("NUMBA_CACHE_DIR", "XDG_CACHE_HOME", "PYTHONPATH", "TMPDIR")}
    env["PYTHONPATH"] = str(pythonpath)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    env.update(env_over)
    r = subprocess.run([sys.executable, "-c", CHILD, str(pkg_dir / "__pycache__")],
                       capture_output=True, text=True, env=env, cwd=str(cwd), timeout=600)
    assert r.returncode == 0, f"child failed:\nstdout:\n{r.stdout}\nstderr:\n{r.stderr}"
    return json.loads(r.stdout.strip().splitlines()[-1])


def _check_kernel_ran(out: dict) -> None:
    """The child's shuffle is the deck of seed 1, stream 0, as this process deals it."""
    here = {}
    exec(DECK_OF_SEED_1, here)
    assert sorted(out["deck"]) == list(range(32))
    assert out["deck"] == here["deck_of_seed_1"]()


def _index_files(folder: str) -> list:
    return sorted(Path(folder).rglob("*.nbi"))


# ------------------------------------------------------- read-only install
@pytest.fixture(scope="module")
def readonly_install(tmp_path_factory):
    """A read-only copy of coinche_rl/, a read-only HOME and a private TMPDIR."""
    base = tmp_path_factory.mktemp("ro")
    site = base / "site"
    site.mkdir()
    pkg = site / "coinche_rl"
    shutil.copytree(REPO / "coinche_rl", pkg,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.nbi", "*.nbc"))
    if IS_ROOT:
        # root can write anywhere: make __pycache__ impossible to create
        (pkg / "__pycache__").write_text("a file, so no folder can be made here\n")
        (pkg / "engine" / "__pycache__").write_text("a file, so no folder can be made here\n")
        home = _make_unwritable_dir(base, "home")
    else:
        home = base / "home"
        home.mkdir()
    tmpdir = base / "tmp"
    tmpdir.mkdir()
    _chmod_tree(site, writable=False)
    if not IS_ROOT:
        os.chmod(home, 0o555)
    yield {"site": site, "pkg": pkg, "home": home, "tmp": tmpdir, "base": base}
    _chmod_tree(site, writable=True)
    if not IS_ROOT:
        os.chmod(home, 0o755)


@pytest.mark.slow
def test_readonly_install_falls_back_to_writable_cache(readonly_install):
    ro = readonly_install
    out = run_child({"HOME": str(ro["home"]), "TMPDIR": str(ro["tmp"])},
                    ro["site"], ro["pkg"], ro["base"])
    # the child imported the read-only copy, and the premise holds: neither the
    # package's __pycache__ nor the user cache folder can be written
    assert Path(out["file"]).resolve().parent == ro["pkg"].resolve()
    assert out["probe"] == {"pkg": False, "home": False}
    assert out["env_before"] is None
    expected = os.path.join(str(ro["tmp"]), f"coinche-rl-numba-cache-{UID}")
    assert out["env_after"] == expected
    assert out["cfg"] == expected
    assert out["cache_path"].startswith(expected)
    _check_kernel_ran(out)
    assert _index_files(expected), "no numba cache index (*.nbi) in the fallback folder"


@pytest.mark.slow
def test_unusable_explicit_cache_dir_falls_back(readonly_install, tmp_path):
    ro = readonly_install
    bad = _make_unwritable_dir(tmp_path, "cache")
    out = run_child({"HOME": str(ro["home"]), "TMPDIR": str(ro["tmp"]),
                     "NUMBA_CACHE_DIR": str(bad)}, ro["site"], ro["pkg"], ro["base"])
    assert out["env_before"] == str(bad)
    assert out["env_after"] != str(bad)
    assert out["env_after"].startswith(str(ro["tmp"]))
    assert out["cfg"] == out["env_after"]
    assert out["cache_path"].startswith(out["env_after"])
    assert not Path(str(bad)).exists()
    _check_kernel_ran(out)


# ----------------------------------------------------- usable explicit folder
@pytest.fixture(scope="module")
def explicit_cache(tmp_path_factory):
    """One process run with a fresh, usable NUMBA_CACHE_DIR (the normal install)."""
    base = tmp_path_factory.mktemp("explicit")
    cache = base / "numba-cache"
    out = run_child({"NUMBA_CACHE_DIR": str(cache), "TMPDIR": str(base)}, REPO,
                    REPO / "coinche_rl", base)
    return cache, out


@pytest.mark.slow
def test_usable_explicit_cache_dir_is_kept(explicit_cache):
    cache, out = explicit_cache
    assert Path(out["file"]).resolve().parent == (REPO / "coinche_rl").resolve()
    assert out["env_before"] == out["env_after"] == str(cache)
    assert out["cfg"] == str(cache)
    assert out["cache_path"].startswith(str(cache))
    _check_kernel_ran(out)
    # first run in a fresh folder: compiled, then written to the cache
    assert out["misses"] >= 1
    assert _index_files(str(cache)), "no *.nbi index files after the first run"
    assert list(Path(cache).rglob("*.nbc")), "no *.nbc data files after the first run"


@pytest.mark.slow
def test_second_process_reuses_the_cache(explicit_cache):
    cache, first = explicit_cache
    before = {p: p.stat().st_mtime_ns for p in Path(cache).rglob("*.nbi")}
    assert before
    out = run_child({"NUMBA_CACHE_DIR": str(cache), "TMPDIR": str(cache.parent)}, REPO,
                    REPO / "coinche_rl", cache.parent)
    assert out["env_after"] == str(cache)
    assert out["cache_path"] == first["cache_path"]
    _check_kernel_ran(out)
    assert out["hits"] >= 1 and out["misses"] == 0, out
    assert out["deck"] == first["deck"]
    # nothing new had to be compiled and indexed for this kernel
    after = {p: p.stat().st_mtime_ns for p in Path(cache).rglob("*.nbi")}
    assert set(after) == set(before)


#: the solver's values of every first card of two deals
SOLVER_DEALS = ((5, 1), (6, 4))

#: the values, run in the child and in this process
SOLVER_VALUES = """
def solver_values(deals):
    from coinche_rl import solver as SV
    from coinche_rl.game import Deal
    out = []
    for seed, strain in deals:
        deal = Deal("ffb_sa_ta", dealer=3, seed=seed).with_contract(90, strain, taker=0)
        a, v = SV.move_values(deal, "score")
        out.append([a.tolist(), v.tolist()])
    return out
"""

#: run in the child: the solver's values of SOLVER_DEALS, with the kernels' cache counts
SOLVER_CHILD = r"""
import json, sys
from coinche_rl import solver as SV
""" + SOLVER_VALUES + r"""
out = solver_values(json.loads(sys.argv[1]))
st = SV.move_values_into.stats
print(json.dumps({"values": out, "hits": sum(st.cache_hits.values()),
                  "misses": sum(st.cache_misses.values()), "cache_path": st.cache_path}))
"""


@pytest.mark.slow
def test_solver_kernels_run_from_the_cache(tmp_path):
    """The solver's recursive kernels loaded from the cache by a new process give the
    values this process computes (a mutually recursive call graph once crashed on
    loading while it ran fine when just compiled).

    The cache is the session's (``NUMBA_CACHE_DIR``: ``make test`` fills it before the
    workers start), so the child loads what another process compiled; on a cold cache
    (no warm-up, or no NUMBA_CACHE_DIR: a private folder) a first child compiles the
    kernels and a second one loads them, with the same values."""
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "TMPDIR")}
    env.setdefault("NUMBA_CACHE_DIR", str(tmp_path / "numba-cache"))

    def child() -> dict:
        r = subprocess.run([sys.executable, "-c", SOLVER_CHILD, json.dumps(SOLVER_DEALS)],
                           capture_output=True, text=True, env=env, cwd=str(tmp_path),
                           timeout=600)
        assert r.returncode == 0, f"child failed ({r.returncode}):\n{r.stdout}\n{r.stderr}"
        out = json.loads(r.stdout.strip().splitlines()[-1])
        assert out["cache_path"].startswith(env["NUMBA_CACHE_DIR"])
        return out

    out = child()
    if out["misses"]:                        # a cold cache: this child compiled them
        compiled, out = out, child()
        assert out["values"] == compiled["values"]
    assert out["misses"] == 0 and out["hits"] >= 1, out
    here = {}
    exec(SOLVER_VALUES, here)
    assert out["values"] == here["solver_values"](SOLVER_DEALS)


# ------------------------------------------------------------------ unit level
@pytest.fixture
def isolated(monkeypatch, tmp_path):
    """No NUMBA_CACHE_DIR, a private temp folder, numba's live config restored."""
    import numba.core.config as cfg
    monkeypatch.delenv("NUMBA_CACHE_DIR", raising=False)
    tmp = tmp_path / "tmp"
    tmp.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp))
    monkeypatch.setattr(cfg, "CACHE_DIR", cfg.CACHE_DIR)
    return tmp


def test_writable_probe(tmp_path):
    assert NC._writable(str(tmp_path / "new" / "folder"))
    assert (tmp_path / "new" / "folder").is_dir()
    assert list((tmp_path / "new" / "folder").iterdir()) == []     # probe removed
    assert not NC._writable(str(_make_unwritable_dir(tmp_path, "x")))


def test_unit_explicit_usable_kept(isolated, monkeypatch, tmp_path):
    folder = tmp_path / "mine"
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(folder))
    assert NC.ensure_writable_cache() == str(folder)
    assert os.environ["NUMBA_CACHE_DIR"] == str(folder)


def test_unit_explicit_unusable_falls_back(isolated, monkeypatch, tmp_path):
    import numba.core.config as cfg
    bad = _make_unwritable_dir(tmp_path, "cache")
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(bad))
    got = NC.ensure_writable_cache()
    assert got == NC.fallback_cache_dir()
    assert got.startswith(str(isolated))
    assert os.environ["NUMBA_CACHE_DIR"] == got and cfg.CACHE_DIR == got
    assert NC._writable(got)


def test_unit_package_writable_keeps_numba_default(isolated, monkeypatch, tmp_path):
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    monkeypatch.setattr(NC, "_PKG_DIR", str(pkg))
    assert NC.ensure_writable_cache() is None
    assert "NUMBA_CACHE_DIR" not in os.environ


def test_unit_package_readonly_falls_back(isolated, monkeypatch, tmp_path):
    import numba.core.config as cfg
    monkeypatch.setattr(NC, "_PKG_DIR", str(_make_unwritable_dir(tmp_path, "pkg")))
    got = NC.ensure_writable_cache()
    assert got == os.path.join(str(isolated), f"coinche-rl-numba-cache-{UID}")
    assert os.environ["NUMBA_CACHE_DIR"] == got and cfg.CACHE_DIR == got
    assert os.path.isdir(got)


def test_unit_package_readonly_via_writable_patch(isolated, monkeypatch):
    """Same as above with ``_writable`` patched to refuse only the package folder."""
    real = NC._writable
    pkg_cache = os.path.join(NC._PKG_DIR, "__pycache__")
    monkeypatch.setattr(NC, "_writable", lambda f: f != pkg_cache and real(f))
    got = NC.ensure_writable_cache()
    assert got == NC.fallback_cache_dir() and got.startswith(str(isolated))


def test_unit_fallback_unusable_uses_fresh_temp_folder(isolated, monkeypatch, tmp_path):
    monkeypatch.setattr(NC, "_PKG_DIR", str(_make_unwritable_dir(tmp_path, "pkg")))
    # the usual fallback folder is taken by a regular file
    Path(NC.fallback_cache_dir()).write_text("in the way\n")
    got = NC.ensure_writable_cache()
    assert got != NC.fallback_cache_dir()
    assert os.path.basename(got).startswith("coinche-rl-numba-cache-")
    assert got.startswith(str(isolated)) and os.path.isdir(got)
    assert os.environ["NUMBA_CACHE_DIR"] == got


# ------------------------------------------------------- edits of called modules
STALE_CHILD = r"""
import json
import coinche_rl
from coinche_rl._probe_caller import caller
st = caller.stats
print(json.dumps({"file": coinche_rl.__file__, "value": int(caller()),
                  "hits": sum(st.cache_hits.values()), "misses": sum(st.cache_misses.values())}))
"""


@pytest.mark.slow
def test_an_edit_of_a_called_module_recompiles_its_callers(tmp_path):
    """Numba stamps a cached kernel with its own source file only; a kernel that calls a
    kernel of another module of the package must still be recompiled when that module
    changes (coinche_rl._numba_cache.install_package_stamp), instead of running the old
    callee's machine code."""
    site = tmp_path / "site"
    pkg = site / "coinche_rl"
    shutil.copytree(REPO / "coinche_rl", pkg,
                    ignore=shutil.ignore_patterns("__pycache__", "*.pyc", "*.nbi", "*.nbc"))
    (pkg / "_probe_callee.py").write_text(
        "from numba import njit\n\n\n@njit(cache=True)\ndef value():\n    return 1\n")
    (pkg / "_probe_caller.py").write_text(
        "from numba import njit\n\nfrom ._probe_callee import value\n\n\n"
        "@njit(cache=True)\ndef caller():\n    return value() + 10\n")
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "NUMBA_CACHE_DIR")}
    env.update(PYTHONPATH=str(site), PYTHONDONTWRITEBYTECODE="1",
               NUMBA_CACHE_DIR=str(tmp_path / "cache"))

    def child() -> dict:
        r = subprocess.run([sys.executable, "-c", STALE_CHILD], capture_output=True, text=True,
                           env=env, cwd=str(tmp_path), timeout=300)
        assert r.returncode == 0, r.stderr
        out = json.loads(r.stdout.strip().splitlines()[-1])
        assert Path(out["file"]).resolve() == (pkg / "__init__.py").resolve()
        return out

    first = child()
    assert first["value"] == 11 and first["misses"] == 1
    second = child()
    assert second["value"] == 11 and second["hits"] == 1 and second["misses"] == 0
    callee = pkg / "_probe_callee.py"
    callee.write_text(callee.read_text().replace("return 1", "return 2"))
    third = child()
    assert third["value"] == 12 and third["misses"] == 1, third
    fourth = child()
    assert fourth["value"] == 12 and fourth["hits"] == 1


def test_package_stamp_covers_the_sub_packages():
    """The stamp reads the sources of coinche_rl and of its engine, agents and envs
    sub-packages, and numba's locator list starts with the package's locators."""
    from numba.core import caching
    dirs = {Path(d).name for d in NC.package_dirs()}
    assert {"coinche_rl", "engine", "agents", "envs"} <= dirs
    assert len(NC.package_stamp()) == 32 and NC.package_stamp() == NC.package_stamp()
    names = [c.__name__ for c in caching.CacheImpl._locator_classes]
    assert names[0].startswith("CoincheRL") and NC.install_package_stamp()
    assert [c.__name__ for c in caching.CacheImpl._locator_classes] == names
