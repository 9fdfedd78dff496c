"""The Makefile's demo install: one line when it works, the whole log when it fails.

The recipe runs with a stand-in for the venv's python (``VENV``/``BIN`` overridden on
the make command line) that prints what pip and setuptools print, so the test needs no
network and no install."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

NOISE = "WARNING: Location 'file:///somewhere' is ignored"
SETUPTOOLS = "BuildBackendWarning: Editable installation."
ERROR = "ERROR: No matching distribution found for rich>=13"


def _fake_venv(folder: Path, rc: int) -> Path:
    """A venv folder whose ``bin/python`` prints pip-like noise (and an error with a
    non-zero ``rc``) and exits ``rc``."""
    (folder / "bin").mkdir(parents=True)
    py = folder / "bin" / "python"
    py.write_text("#!/bin/sh\n"
                  f"echo \"{NOISE}\"\n"
                  f"echo \"  {SETUPTOOLS}\" >&2\n"
                  + (f"echo \"{ERROR}\" >&2\n" if rc else "")
                  + f"exit {rc}\n")
    py.chmod(0o755)
    return folder


def _make_demo_install(venv: Path):
    make = shutil.which("make")
    assert make, "make is needed for `make demo` and `make test`"
    return subprocess.run([make, "-s", "-C", str(REPO), f"VENV={venv}", f"BIN={venv}/bin",
                           f"{venv}/.installed-demo"], capture_output=True, text=True,
                          timeout=120, env={**os.environ, "MAKEFLAGS": ""})


def test_the_demo_install_says_one_line(tmp_path):
    venv = _fake_venv(tmp_path / "venv", 0)
    r = _make_demo_install(venv)
    assert r.returncode == 0, r.stdout + r.stderr
    out = r.stdout + r.stderr
    assert out.strip().splitlines() == [
        f"installing coinche-rl with its arena extra into {venv} (log: {venv}/install-demo.log)"]
    assert NOISE in (venv / "install-demo.log").read_text()      # kept, in the log
    assert (venv / ".installed-demo").exists()


def test_a_failed_demo_install_shows_its_log(tmp_path):
    venv = _fake_venv(tmp_path / "venv", 1)
    r = _make_demo_install(venv)
    assert r.returncode != 0
    out = r.stdout + r.stderr
    assert ERROR in out and NOISE in out                       # the whole log, error included
    assert f"the install failed: the log above is in {venv}/install-demo.log" in out
    assert not (venv / ".installed-demo").exists()
