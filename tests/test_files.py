"""Files a user keeps are written whole (:mod:`coinche_rl.files`): a writer killed in the
middle of a record leaves the previous file, a write that fails leaves it too (and no
temporary file), the new file keeps the old one's permissions; and every writer of the
package goes through the one helper (results files are appended whole lines instead)."""

from __future__ import annotations

import ast
import json
import os
import signal
import stat
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from coinche_rl.files import atomic_write, atomic_write_text
from coinche_rl.records import load_record, save_record

REPO = Path(__file__).resolve().parents[1]


def _big_record(tag: str, n: int = 20000):
    """A JSON object of about a megabyte (a record's size does not matter to the write)."""
    return {"format": "coinche-rl/deal", "tag": tag, "notes": [f"{tag}-{k}" for k in range(n)]}


# A writer that stops in the middle of the new file's bytes and says so: the parent
# kills it there (SIGKILL: no handler, no cleanup runs).
_STALLING_WRITER = textwrap.dedent("""
    import os, sys, time
    from coinche_rl.records import save_record

    real_fdopen = os.fdopen

    class Stall:
        def __init__(self, f):
            self.f = f
        def write(self, data):
            self.f.write(data[:len(data) // 2])
            self.f.flush()
            print("half", flush=True)
            time.sleep(60)
        def __getattr__(self, name):
            return getattr(self.f, name)
        def __enter__(self):
            return self
        def __exit__(self, *exc):
            self.f.close()

    os.fdopen = lambda *a, **k: Stall(real_fdopen(*a, **k))
    save_record({"format": "coinche-rl/deal", "tag": "new",
                 "notes": ["new-%d" % k for k in range(20000)]}, sys.argv[1])
""")


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="POSIX signals")
def test_a_writer_killed_in_the_middle_of_a_record_leaves_the_previous_one(tmp_path):
    path = tmp_path / "game.json"
    save_record(_big_record("old"), str(path))
    before = path.read_bytes()
    proc = subprocess.Popen([sys.executable, "-c", _STALLING_WRITER, str(path)],
                            stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "half"
        half = [p for p in tmp_path.iterdir() if p.name != "game.json"]
        assert len(half) == 1 and half[0].name.startswith(".game.json.")     # hidden temp
        assert 0 < half[0].stat().st_size < len(before)                        # half written
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.kill()
        proc.wait(30)
        proc.stdout.close()
    assert proc.returncode == -signal.SIGKILL
    assert path.read_bytes() == before and load_record(str(path))["tag"] == "old"
    save_record(_big_record("new"), str(path))          # the next save replaces it whole
    assert load_record(str(path))["tag"] == "new"


def test_a_write_that_fails_halfway_leaves_the_file_and_no_temporary(tmp_path):
    path = tmp_path / "r.json"
    atomic_write_text(path, "old\n")

    def write(f):
        f.write(b"new, half of i")
        raise OSError(28, "No space left on device")
    with pytest.raises(OSError, match="No space left"):
        atomic_write(path, write)
    assert path.read_text() == "old\n" and os.listdir(tmp_path) == ["r.json"]
    with pytest.raises(KeyboardInterrupt):             # an interrupt too
        atomic_write(path, lambda f: (f.write(b"x"), (_ for _ in ()).throw(KeyboardInterrupt)))
    assert path.read_text() == "old\n" and os.listdir(tmp_path) == ["r.json"]


def test_a_rewrite_keeps_the_mode_and_a_new_file_gets_the_umask(tmp_path):
    old = os.umask(0o022)
    try:
        fresh = tmp_path / "fresh.json"
        save_record({"a": 1}, str(fresh))
        assert stat.S_IMODE(fresh.stat().st_mode) == 0o644
        private = tmp_path / "private.json"
        private.write_text("{}")
        private.chmod(0o600)
        save_record({"a": 2}, str(private))
        assert stat.S_IMODE(private.stat().st_mode) == 0o600
        assert json.loads(private.read_text()) == {"a": 2}
    finally:
        os.umask(old)
    with pytest.raises(FileNotFoundError):              # no folder: said, nothing made
        save_record({"a": 1}, str(tmp_path / "nothere" / "r.json"))


# Writes that are not whole-file replacements, each for its reason.
ALLOWED = {
    "coinche_rl/files.py": "the helper itself",
    "coinche_rl/arena/store.py": "results files: whole lines appended, a cut last line "
                                 "dropped on opening",
    "coinche_rl/train/common.py": "metrics.jsonl: one whole line appended per update",
    "coinche_rl/train/rllib_selfplay.py": "curve.csv and the Ray nodes' log: streamed while "
                                          "the run goes, whole rows flushed (its weights "
                                          "and summary go through the helper)",
    "coinche_rl/engine/layout.py": "generates the accessors' source (a developer's tool)",
    "coinche_rl/engine/two_layout.py": "generates the accessors' source (a developer's tool)",
}


def _writes(tree: ast.AST):
    """Line numbers of calls that write a file other than through the helper: ``open``
    with a mode that writes, ``os.open``, ``write_text``/``write_bytes``, and
    ``savefig``/``torch.save``/``np.save*`` to anything but the helper's file ``f``."""
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        f = node.func
        owner = getattr(f.value, "id", None) if isinstance(f, ast.Attribute) else None
        name = f.attr if isinstance(f, ast.Attribute) else getattr(f, "id", None)
        if name == "open" and owner == "os":
            if not (node.args and getattr(node.args[0], "attr", None) == "devnull"):
                yield node.lineno                         # flags, not a mode: look at it
        elif name == "open" and owner != "zf":            # zf: a member of a zip file
            mode = node.args[1] if len(node.args) > 1 else next(
                (k.value for k in node.keywords if k.arg == "mode"), None)
            if isinstance(mode, ast.Constant) and isinstance(mode.value, str) and \
                    set(mode.value) & set("wax+"):
                yield node.lineno
        elif name in ("write_text", "write_bytes"):
            yield node.lineno
        else:
            at = {"savefig": 0, "savez": 0, "savez_compressed": 0}.get(name)
            if name == "save":
                at = {"torch": 1, "np": 0}.get(owner)
            if at is not None:
                target = node.args[at] if len(node.args) > at else None
                if not (isinstance(target, ast.Name) and target.id == "f"):
                    yield node.lineno


def test_every_file_the_package_writes_goes_through_the_one_helper():
    found = {}
    for root in ("coinche_rl", "envs", "agents"):
        for src in sorted((REPO / root).rglob("*.py")):
            rel = src.relative_to(REPO).as_posix()
            lines = list(_writes(ast.parse(src.read_text(encoding="utf-8"))))
            if lines and rel not in ALLOWED:
                found[rel] = lines
    assert not found, f"files written without coinche_rl.files.atomic_write: {found}"
