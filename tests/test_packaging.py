"""Packaging: envs/ and agents/ (top-level folders of the repository) are installed as
``coinche_rl.envs`` and ``coinche_rl.agents``, never as top-level ``envs`` / ``agents``;
a built wheel holds nothing but ``coinche_rl/`` and its ``.dist-info``."""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]

#: the interpreter that builds the wheel (default: the one running the tests)
BUILD_PYTHON = os.environ.get("COINCHE_RL_BUILD_PYTHON", sys.executable)


def _clean_env():
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return env


def test_subpackages_import_from_repo_folders():
    envs = importlib.import_module("coinche_rl.envs")
    agents = importlib.import_module("coinche_rl.agents")
    assert Path(envs.__file__).resolve() == (REPO / "envs" / "__init__.py").resolve()
    assert Path(agents.__file__).resolve() == (REPO / "agents" / "__init__.py").resolve()
    assert envs.__name__ == "coinche_rl.envs" and agents.__name__ == "coinche_rl.agents"


@pytest.mark.slow
def test_subpackages_import_in_fresh_interpreter(tmp_path):
    code = ("import coinche_rl.envs, coinche_rl.agents, json; "
            "print(json.dumps([coinche_rl.envs.__file__, coinche_rl.agents.__file__]))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       cwd=tmp_path, env=_clean_env(), timeout=120)
    if r.returncode != 0 and "No module named 'coinche_rl'" in r.stderr:
        pytest.skip("coinche_rl is not installed in this interpreter (only importable from the repo)")
    assert r.returncode == 0, r.stderr
    import json
    envs_file, agents_file = json.loads(r.stdout)
    assert Path(envs_file).resolve() == (REPO / "envs" / "__init__.py").resolve()
    assert Path(agents_file).resolve() == (REPO / "agents" / "__init__.py").resolve()


@pytest.mark.slow
def test_no_top_level_envs_or_agents(tmp_path):
    code = ("import importlib.util, json; "
            "print(json.dumps([importlib.util.find_spec(n) is None for n in ('envs', 'agents')]))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       cwd=tmp_path, env=_clean_env(), timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[true, true]", (
        "'envs' or 'agents' is importable as a top-level module outside the repository")


def test_pyproject_maps_subpackages():
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        pytest.skip("tomllib needs Python 3.11")
    cfg = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    st = cfg["tool"]["setuptools"]
    assert sorted(st["packages"]) == ["coinche_rl", "coinche_rl.agents",
                                     "coinche_rl.agents.neural",
                                     "coinche_rl.agents.neural.weights", "coinche_rl.arena",
                                     "coinche_rl.cli", "coinche_rl.engine", "coinche_rl.envs", "coinche_rl.train",
                                     "coinche_rl.web",
                                     "coinche_rl.web.static"]
    assert st["package-dir"]["coinche_rl.agents.neural"] == "agents/neural"
    # the weights folder is listed as a (data-only) package: no setuptools warning
    assert "*.npz" in st["package-data"]["coinche_rl.agents.neural.weights"]
    # the page of coinche-rl serve ships as package data
    assert "*.js" in st["package-data"]["coinche_rl.web.static"]
    assert st["package-dir"]["coinche_rl.envs"] == "envs"
    assert st["package-dir"]["coinche_rl.agents"] == "agents"
    assert cfg["project"]["scripts"]["coinche-rl"] == "coinche_rl.cli:main"


def _setuptools_problem():
    """Why the build interpreter cannot build this project without network access,
    or None."""
    code = "import setuptools; print(setuptools.__version__)"
    r = subprocess.run([BUILD_PYTHON, "-c", code], capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        return f"setuptools is not importable in {BUILD_PYTHON}"
    have = r.stdout.strip()
    try:
        import tomllib
        from packaging.requirements import Requirement
        from packaging.version import Version
    except ModuleNotFoundError:
        return None
    reqs = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["build-system"]["requires"]
    for text in reqs:
        req = Requirement(text)
        if req.name == "setuptools" and not req.specifier.contains(Version(have), prereleases=True):
            return (f"setuptools {have} in {BUILD_PYTHON} does not satisfy the build requirement "
                    f"{text!r} of pyproject.toml (a build without isolation would fail)")
    return None


@pytest.mark.slow
def test_wheel_has_only_coinche_rl(tmp_path):
    problem = _setuptools_problem()
    if problem:
        pytest.skip(problem)
    # build from a clean copy of the sources, so no build/ or egg-info lands in the repo
    src = tmp_path / "src"
    src.mkdir()
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", "*.nbi", "*.nbc", "*.egg-info")
    for name in ("pyproject.toml", "README.md", "LICENSE", "setup.py", "setup.cfg", "MANIFEST.in"):
        if (REPO / name).exists():
            shutil.copy2(REPO / name, src / name)
    for name in ("coinche_rl", "envs", "agents"):
        shutil.copytree(REPO / name, src / name, ignore=ignore)
    out = tmp_path / "wheels"
    r = subprocess.run([BUILD_PYTHON, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation",
                        "-w", str(out), str(src)], capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, f"pip wheel failed:\n{r.stdout[-3000:]}\n{r.stderr[-3000:]}"
    # no setuptools warning about the package configuration (the weights folder)
    assert "Package would be ignored" not in r.stdout + r.stderr, r.stderr[-3000:]
    wheels = list(out.glob("coinche_rl-*.whl"))
    assert len(wheels) == 1, list(out.iterdir())
    with zipfile.ZipFile(wheels[0]) as z:
        names = z.namelist()
    top = {n.split("/")[0] for n in names}
    dist_info = {t for t in top if t.endswith(".dist-info")}
    assert len(dist_info) == 1 and next(iter(dist_info)).startswith("coinche_rl-")
    assert top - dist_info == {"coinche_rl"}, f"unexpected top-level entries: {sorted(top)}"
    assert "coinche_rl/envs/__init__.py" in names
    assert "coinche_rl/agents/__init__.py" in names
    assert "coinche_rl/agents/neural/__init__.py" in names
    assert "coinche_rl/agents/neural/weights/ffb_play.npz" in names
    assert "coinche_rl/engine/__init__.py" in names and "coinche_rl/engine/play.py" in names
    assert "coinche_rl/arena/__init__.py" in names and "coinche_rl/arena/formats.py" in names
    for page in ("index.html", "app.js", "style.css"):
        assert f"coinche_rl/web/static/{page}" in names
    assert not any(n.startswith(("envs/", "agents/", "tests/")) for n in names)
    # the console script is declared
    ep = next(n for n in names if n.endswith(".dist-info/entry_points.txt"))
    with zipfile.ZipFile(wheels[0]) as z:
        assert "coinche-rl = coinche_rl.cli:main" in z.read(ep).decode()
