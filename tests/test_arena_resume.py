"""Resuming from a results file: rows are reused only for the same configuration and the
same code (package version, agents' code, weights), another run is never mixed in
silently, and two processes never write one file (issue 15, item 1)."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
import textwrap

import pytest

from coinche_rl import arena
from coinche_rl.agents import make_agent, register_agent
from coinche_rl.agents.fingerprint import agent_fingerprint, module_closure
from coinche_rl.agents.neural.net import default_weights_path
from coinche_rl.arena import ArenaError, run_duplicate, run_knockout, run_round_robin
from coinche_rl.cli import main
from coinche_rl.rules import get_rules

_PROBE = '''
from coinche_rl.agents import Agent

class Probe(Agent):
    """Plays its CHOICE-th legal action (a stand-in for a user's agent)."""
    def act(self, view):
        legal = view.legal_actions
        return int(legal[min(CHOICE, len(legal) - 1)])

CHOICE = {choice}
'''


@pytest.fixture
def probe(tmp_path, monkeypatch):
    """A user agent ``probe`` whose module lives in a file the test can edit."""
    monkeypatch.syspath_prepend(str(tmp_path))
    path = tmp_path / "resume_probe_mod.py"
    path.write_text(_PROBE.format(choice=0))
    import importlib
    sys.modules.pop("resume_probe_mod", None)
    mod = importlib.import_module("resume_probe_mod")
    register_agent("resume_probe", mod.Probe, doc="test agent")
    yield path
    sys.modules.pop("resume_probe_mod", None)


def test_same_code_resumes_and_changed_agent_code_is_refused(tmp_path, probe):
    out = tmp_path / "r.jsonl"
    first = run_duplicate("resume_probe", "random", 6, seed=2, out=out)
    again = run_duplicate("resume_probe", "random", 6, seed=2, out=out)
    assert first.new == 6 and again.new == 0                  # resumed, nothing replayed
    assert (again.scores == first.scores).all()
    probe.write_text(_PROBE.format(choice=1))                   # the user edits the agent
    with pytest.raises(ArenaError, match=r"the code of agent 'resume_probe'.*--append"):
        run_duplicate("resume_probe", "random", 6, seed=2, out=out)
    assert len(arena.load_results(out).runs) == 1              # nothing written
    fresh = run_duplicate("resume_probe", "random", 6, seed=2, out=out, append=True)
    assert fresh.new == 6 and fresh.run != first.run           # played again, not reused
    assert len(arena.load_results(out).runs) == 2


def test_other_settings_and_versions_are_refused_with_what_differs(tmp_path, monkeypatch):
    out = tmp_path / "r.jsonl"
    run_duplicate("random", "heuristic", 4, seed=1, out=out)
    with pytest.raises(ArenaError, match=r"differs from the closest one there in seed \(1 -> 2\)"):
        run_duplicate("random", "heuristic", 4, seed=2, out=out)
    with pytest.raises(ArenaError, match=r"holds pair runs, this one is a knockout run"):
        run_knockout(["random"] * 8, 1, seed=1, out=out)
    monkeypatch.setattr(arena.store, "__version__", "9.9.9")
    with pytest.raises(ArenaError, match=r"the package version \(0\.1\.0 -> 9\.9\.9\)"):
        run_duplicate("random", "heuristic", 4, seed=1, out=out)
    # more deals of the same run is a resume, not another run
    monkeypatch.undo()
    assert run_duplicate("random", "heuristic", 7, seed=1, out=out).new == 3


def test_a_file_written_before_fingerprints_is_not_reused(tmp_path):
    out = tmp_path / "old.jsonl"
    run_duplicate("random", "random", 3, seed=5, out=out)
    lines = [json.loads(x) for x in out.read_text().splitlines()]
    lines[0]["config"].pop("code")
    lines[0]["config"]["version"] = 1
    old_id = arena.store._run_id(lines[0]["config"])                  # as the old code keyed it
    for x in lines:
        x["run"] = old_id
    out.write_text("".join(json.dumps(x) + "\n" for x in lines))
    with pytest.raises(ArenaError, match="predate code fingerprints"):
        run_duplicate("random", "random", 3, seed=5, out=out)


def test_a_results_file_as_first_written_still_loads_and_resumes(tmp_path):
    """The lines of a results file as the arena has written them since its format 2,
    typed out: the run's configuration (rules in their JSON form), keyed by the hash of
    that JSON, and its rows. The code fingerprint is today's (a file of other code is
    refused by design, above); the rows are reused, not replayed, and more deals extend
    them."""
    code = arena.store._code_key(["random"])
    config = ('{"version":2,"format":"pair","x":["random","random"],"y":["random","random"],'
              '"rules":{"preset":"ffb","overrides":{"name":"house","bid_step":20,"target":1200}},'
              '"seed":3,"frozen":"longest","code":%s}' % json.dumps(code, separators=(",", ":")))
    run = hashlib.sha256(json.dumps(json.loads(config), sort_keys=True,
                                    separators=(",", ":")).encode()).hexdigest()[:16]
    lines = ['{"type":"run","run":"%s","config":%s}' % (run, config)]
    for i in (0, 1):                     # scores no play gives: they can only be read back
        lines.append('{"type":"pair","run":"%s","i":%d,"dealer":%d,"scores":[[7,%d],[5,3]],'
                     '"contracts":[[80,1,0,0,1],[80,1,0,0,1]],"margin":%s}'
                     % (run, i, i + 1, i, (7 - i + 5 - 3) / 2))
    out = tmp_path / "old.jsonl"
    out.write_text("\n".join(lines) + "\n")
    assert list(arena.load_results(out).rows) == [run]
    house = get_rules("ffb", name="house", target=1200, bid_step=20)
    r = run_duplicate("random", "random", 3, preset=house, seed=3, frozen_contract=True, out=out)
    assert r.run == run and r.new == 1
    assert r.scores[:2].tolist() == [[[7, 0], [5, 3]], [[7, 1], [5, 3]]]
    assert r.dealer[:2].tolist() == [1, 2]
    fresh = run_duplicate("random", "random", 3, preset=house, seed=3, frozen_contract=True)
    assert (r.scores[2] == fresh.scores[2]).all() and r.dealer[2] == fresh.dealer[2]
    assert out.read_text().startswith("\n".join(lines) + "\n")       # kept as it was


def test_round_robin_with_a_new_agent_needs_append(tmp_path):
    out = tmp_path / "rr.jsonl"
    run_round_robin(["random", "heuristic"], 4, out=out)
    with pytest.raises(ArenaError, match="another run"):
        run_round_robin(["random", "heuristic", "nn"], 4, out=out)
    t = run_round_robin(["random", "heuristic", "nn"], 4, out=out, append=True)
    assert [m.new for m in t.matchups] == [0, 4, 4]            # the old matchup resumed


def test_fingerprint_follows_code_and_weights(tmp_path):
    heur = agent_fingerprint(make_agent("heuristic"))
    assert heur == agent_fingerprint(make_agent("heuristic"))
    names = {n for n, _ in module_closure("coinche_rl.agents.numba_bots")[0]}
    assert {"coinche_rl.engine", "coinche_rl.agents.numba_bots", "coinche_rl.rules"} <= names
    assert "coinche_rl.cli" not in names
    w = tmp_path / "play.npz"
    shutil.copy(default_weights_path("ffb"), w)
    before = agent_fingerprint(make_agent(f"nn:weights={w}"))
    assert before["data"] is not None and before["code"] != heur["code"]
    with open(w, "ab") as f:                                    # retrained weights
        f.write(b"\0")
    after = agent_fingerprint(make_agent(f"nn:weights={w}"))
    assert after["data"] != before["data"] and after["code"] == before["code"]


_NESTED_IMPORTS = """
import a
def f():
    import b
    class C:
        from c import d
try:
    import e
except ImportError:
    import f2
else:
    import g
finally:
    import h
if x:
    with y:
        import i
    import i2
elif x2:
    import i3
match z:
    case 1:
        import j
for k in l:
    import m
else:
    import m2
while n:
    n -= 1
else:
    import o
async def p():
    async with q:
        from . import r
@decorated(lambda: __import__("not_a_statement"))
class T:
    import t
"""


def test_the_import_reader_finds_every_import_statement():
    """The fingerprint reads imports by visiting statements only (the closure is read in
    every process that starts a tournament): it finds what a walk of the whole tree finds,
    on nested statements of every kind and on every module of the package."""
    import ast
    from coinche_rl.agents.fingerprint import _import_statements, _origin
    from package_modules import MODULES

    def walked(tree):
        return [ast.dump(n) for n in ast.walk(tree) if isinstance(n, (ast.Import, ast.ImportFrom))]

    tree = ast.parse(_NESTED_IMPORTS)
    found = [ast.dump(n) for n in _import_statements(tree.body)]
    assert sorted(found) == sorted(walked(tree)) and len(found) == 16
    for name in MODULES:
        with open(_origin(name), "rb") as f:
            tree = ast.parse(f.read())
        assert sorted(ast.dump(n) for n in _import_statements(tree.body)) == sorted(walked(tree)), name


@pytest.mark.slow
def test_two_processes_never_write_one_file(tmp_path):
    out = tmp_path / "r.jsonl"
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import fcntl, os, sys, time
            fd = os.open({str(out)!r}, os.O_RDWR | os.O_CREAT)
            fcntl.flock(fd, fcntl.LOCK_EX)
            print("locked", flush=True)
            sys.stdin.read()
        """)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "locked"
        with pytest.raises(ArenaError, match="another process is writing results file"):
            run_duplicate("random", "random", 3, out=out)
        assert out.read_text() == ""                            # nothing written
    finally:
        holder.stdin.close()
        holder.wait(10)
    assert run_duplicate("random", "random", 3, out=out).new == 3    # free again


def test_cli_refuses_another_run_and_appends_on_request(tmp_path, capsys):
    out = tmp_path / "t.jsonl"
    base = ["tournament", "--agents", "random", "heuristic", "--deals", "4", "--no-progress",
            "--out", str(out)]
    assert main(base) == 0
    capsys.readouterr()
    assert main(base + ["--seed", "3"]) == 2
    err = capsys.readouterr().err
    assert "holds results of another run" in err and "seed (0 -> 3)" in err and "--append" in err
    assert main(base + ["--seed", "3", "--append"]) == 0
    assert len(arena.load_results(out).runs) == 2


def test_module_doctest():
    import doctest
    from coinche_rl.agents import fingerprint
    assert doctest.testmod(fingerprint).failed == 0
