"""The arena's command line: ``coinche-rl tournament``, ``replay`` of a results file,
``agents``, ``warmup`` and ``bench``; a tournament killed with SIGKILL resumes without
losing a finished deal pair."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from coinche_rl import cli
from coinche_rl.cli import tournament, warmup
from coinche_rl.arena import run_duplicate
from coinche_rl.cli import main


REPO = Path(__file__).resolve().parents[1]

def _env():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    return env


def _rows(path):
    return [json.loads(line) for line in Path(path).read_text().splitlines()]


@pytest.mark.parametrize("command", ["tournament", "agents", "warmup", "bench", "replay"])
def test_help(command, capsys):
    with pytest.raises(SystemExit) as ei:
        main([command, "--help"])
    assert ei.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: coinche-rl " + command)


def test_tournament_help_lists_the_options(capsys):
    with pytest.raises(SystemExit):
        main(["tournament", "--help"])
    out = capsys.readouterr().out
    for opt in ("--agents", "--format", "--deals", "--seed", "--preset", "--out", "--workers",
                "--backend", "--address", "--match", "--frozen-contract", "--plot"):
        assert opt in out


def test_tournament_writes_resumes_and_replays(tmp_path, capsys):
    out, png = tmp_path / "t.jsonl", tmp_path / "t.png"
    args = ["tournament", "--agents", "random", "heuristic", "--deals", "300", "--seed", "4",
            "--out", str(out), "--no-progress"]
    assert main(args + ["--plot", str(png)]) == 0
    text = capsys.readouterr().out
    assert "random" in text and "heuristic" in text and "Elo" in text and "300" in text
    assert png.read_bytes()[:4] == b"\x89PNG"
    rows = _rows(out)
    assert rows[0]["type"] == "run" and len(rows) == 301
    assert main(args) == 0                     # resumed: nothing left to play
    again = capsys.readouterr().out
    assert "(resumed)" in again and len(_rows(out)) == 301
    assert main(["replay", str(out), "--pair", "17"]) == 0
    rep = capsys.readouterr().out
    assert "stored scores reproduced" in rep and "seating 2" in rep and "trick 8" in rep
    # a tampered row is caught
    rows[18]["scores"][0][0] += 10
    out.write_text("".join(json.dumps(r) + "\n" for r in rows))
    assert main(["replay", str(out), "--pair", str(rows[18]["i"])]) == 1
    cap = capsys.readouterr()
    assert "MISMATCH" in cap.out and "differs from the stored row" in cap.err
    assert main(["replay", str(out)]) == 2
    assert "--pair" in capsys.readouterr().err


def test_tournament_formats(tmp_path, capsys):
    assert main(["tournament", "--agents", "heuristic", "random", "--format", "knockout",
                 "--tournaments", "2", "--players", "8", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "Knockout: 2 tournament(s) of 8 players" in out and "vip_classic" in out
    # the header names the rules actually played (vip_classic), not the default ffb
    header = out.splitlines()[0]
    assert "rules 'vip_classic'" in header and "'ffb'" not in header, header
    assert main(["tournament", "--agents", "heuristic", "random", "--format", "rotating",
                 "--deals", "40", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "heuristic#2" in out and "rotating partners" in out
    assert main(["tournament", "--agents", "heuristic", "random", "--match", "--deals", "4",
                 "--target", "300", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "matches to 300" in out and "match pairs" in out
    assert main(["tournament", "--agents", "heuristic", "random", "--deals", "50",
                 "--frozen-contract", "--preset", "classic", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "frozen contracts (longest)" in out and "rules classic" in out


def test_tournament_errors(capsys):
    assert main(["tournament", "--agents", "randm", "heuristic", "--deals", "10",
                 "--no-progress"]) == 2
    err = capsys.readouterr().err
    assert "coinche-rl: error: unknown agent 'randm'; available:" in err
    assert main(["tournament", "--agents", "random:x=1", "--deals", "10", "--no-progress"]) == 2
    assert "has no parameter 'x'" in capsys.readouterr().err
    for bad, msg in ((["--deals", "0"], "argument --deals: must be at least 1, got 0"),
                     (["--workers", "0"], "argument --workers: must be at least 1, got 0"),
                     (["--address", "127.0.0.1:6379"], "--address is for --backend ray"),
                     (["--backend", "gpu"], "invalid choice: 'gpu'"),
                     (["--preset", "nosuch"], "unknown rule preset 'nosuch'")):
        with pytest.raises(SystemExit) as ei:
            main(["tournament", *bad])
        assert ei.value.code == 2
        assert msg in capsys.readouterr().err


def test_agents_lists_the_registry(capsys):
    assert main(["agents"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("colver") or "random: uniformly random legal action" in out
    assert "random:" in out


def test_warmup_imports_what_exists(monkeypatch, capsys):
    monkeypatch.setattr(warmup, "kernel_modules", lambda: (
        "coinche_rl.simulate", "coinche_rl.no_such_module", "coinche_rl.ratings", "coinche_rl.arena"))
    assert main(["warmup"]) == 0
    out = capsys.readouterr().out
    assert "coinche_rl.simulate" in out and "ready in" in out
    assert "coinche_rl.no_such_module" in out and "not present" in out
    assert "no kernels to warm" in out and "every kernel compiled" in out


def test_warmup_finds_every_kernel_module():
    assert warmup.kernel_modules()[0] == "coinche_rl.simulate"      # the root package's first
    assert {"coinche_rl.agents.numba_bots", "coinche_rl.solver", "coinche_rl.agents.sampler",
            "coinche_rl.arena.tasks"} <= set(warmup.kernel_modules())


def test_bench_runs_the_scripts(capsys):
    assert main(["bench", "--dry-run"]) == 0
    out = capsys.readouterr().out
    for name in ("bench_engine.py --quick", "bench_arena.py --quick"):
        assert name in out
    assert main(["bench", "arena", "--full", "--dry-run"]) == 0
    out = capsys.readouterr().out
    assert "bench_arena.py" in out and "--quick" not in out and "bench_engine" not in out
    assert main(["bench", "nosuch"]) == 2
    assert "unknown benchmark 'nosuch'" in capsys.readouterr().err


@pytest.mark.slow
def test_killed_run_resumes_without_losing_a_pair(tmp_path):
    """SIGKILL in the middle of a tournament (played through the Python agents, in
    chunks of 16 pairs), then the same command: every deal pair once, and the results
    of an uninterrupted run."""
    out = tmp_path / "k.jsonl"
    n = 1500
    cmd = [sys.executable, "-m", "coinche_rl.cli", "tournament", "--agents", "heuristic", "random",
           "--deals", str(n), "--python-deals", str(n), "--seed", "11", "--out", str(out),
           "--no-progress"]
    proc = subprocess.Popen(cmd + ["--no-numba"], env=_env(), stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    deadline = time.monotonic() + 240
    try:
        while time.monotonic() < deadline:
            if out.exists() and len(out.read_bytes().splitlines()) > 40:
                break
            if proc.poll() is not None:
                pytest.fail(f"the run ended before it was killed: {proc.stderr.read().decode()}")
            time.sleep(0.05)
        else:
            pytest.fail("no results appeared in time")
        proc.send_signal(signal.SIGKILL)
    finally:
        proc.wait(timeout=60)
    text = out.read_bytes()
    done = {json.loads(line)["i"] for line in text.split(b"\n")[1:] if line.strip().endswith(b"}")}
    assert 0 < len(done) < n
    r = subprocess.run(cmd, env=_env(), capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    rows = [row for row in _rows(out) if row["type"] == "pair"]
    assert sorted(row["i"] for row in rows) == list(range(n))
    ref = run_duplicate("heuristic", "random", n, seed=11)
    by_index = {row["i"]: row for row in rows}
    assert [by_index[i]["scores"] for i in range(n)] == ref.scores.tolist()
    assert [by_index[i]["contracts"] for i in range(n)] == ref.contracts.tolist()


@pytest.mark.parametrize("opt, name, word", [
    ("--out", "missing/dir/r.jsonl", "does not exist"),
    ("--plot", "missing/dir/p.png", "does not exist"),
    ("--plot", "out.xyz", "unknown plot format")])
def test_bad_outputs_are_refused_before_anything_is_played(tmp_path, capsys, monkeypatch,
                                                          opt, name, word):
    from coinche_rl import arena
    played = []
    monkeypatch.setattr(arena, "warmup", lambda: played.append(True))
    rc = main(["tournament", "--agents", "random", "random", "--deals", "2", "--no-progress",
               opt, str(tmp_path / name)])
    assert rc == 2 and not played
    err = capsys.readouterr().err
    assert word in err and name.split("/")[-1] in err


def test_a_plot_name_without_extension_is_written_as_png_and_said_so(tmp_path, capsys):
    path = tmp_path / "noext"
    assert main(["tournament", "--agents", "random", "heuristic", "--deals", "20",
                 "--no-progress", "--plot", str(path)]) == 0
    assert f"plot written to {path}.png" in capsys.readouterr().out
    assert (tmp_path / "noext.png").read_bytes()[:4] == b"\x89PNG"


# ------------------------------------------- --deals and --python-deals (issue 23)
FIRST_LEGAL = '''
from coinche_rl.agents import Agent


class FirstLegal(Agent):
    def act(self, view):
        return int(view.legal_actions[0])
'''


def _pairs_per_run(path):
    runs = {r["run"]: r["config"]["x"][0] + " vs " + r["config"]["y"][0]
            for r in _rows(path) if r["type"] == "run"}
    counts = dict.fromkeys(runs.values(), 0)
    for r in _rows(path):
        if r["type"] == "pair":
            counts[runs[r["run"]]] += 1
    return counts


def test_an_explicit_deals_is_played_in_full_by_python_matchups(tmp_path, capsys, monkeypatch):
    # issue 23: `--agents my_agents:FirstLegal heuristic --deals 200` played 20 pairs, and
    # so did `--no-numba --deals 50`
    (tmp_path / "deals_agents.py").write_text(FIRST_LEGAL)
    monkeypatch.syspath_prepend(str(tmp_path))
    out = tmp_path / "a.jsonl"
    assert main(["tournament", "--agents", "deals_agents:FirstLegal", "heuristic", "--deals", "23",
                 "--out", str(out), "--no-progress"]) == 0
    text = capsys.readouterr().out
    assert _pairs_per_run(out) == {"deals_agents:FirstLegal vs heuristic": 23}
    assert "--python-deals" not in text
    out = tmp_path / "b.jsonl"
    assert main(["tournament", "--agents", "random", "heuristic", "--no-numba", "--deals", "23",
                 "--out", str(out), "--no-progress"]) == 0
    assert _pairs_per_run(out) == {"random vs heuristic": 23}
    capsys.readouterr()
    # an explicit --python-deals still caps those matchups, and says so
    out = tmp_path / "c.jsonl"
    assert main(["tournament", "--agents", "deals_agents:FirstLegal", "heuristic", "random",
                 "--deals", "23", "--python-deals", "4", "--out", str(out), "--no-progress"]) == 0
    assert _pairs_per_run(out) == {"deals_agents:FirstLegal vs heuristic": 4,
                                   "deals_agents:FirstLegal vs random": 4, "heuristic vs random": 23}
    assert "played --python-deals 4 deal pairs)" in capsys.readouterr().out


def test_without_deals_the_python_matchups_keep_the_short_default(tmp_path, capsys):
    out = tmp_path / "d.jsonl"
    assert main(["tournament", "--agents", "random", "heuristic", "--no-numba", "--out", str(out),
                 "--no-progress"]) == 0
    assert _pairs_per_run(out) == {"random vs heuristic": tournament.PYTHON_DEALS}
    assert (f"played --python-deals {tournament.PYTHON_DEALS} deal pairs; give --deals to play more)"
            in capsys.readouterr().out)
    args = cli.build_parser().parse_args(["tournament", "--deals", "50"])
    tournament._tournament_deals(args)
    assert (args.deals, args.python_deals) == (50, None)
    args = cli.build_parser().parse_args(["tournament"])
    tournament._tournament_deals(args)
    assert (args.deals, args.python_deals) == (tournament.TOURNAMENT_DEALS, tournament.PYTHON_DEALS)


# ------------------------------------------------- nn weights problems (issue 23)
def _weights_problems(tmp_path):
    from coinche_rl.agents.neural.net import default_weights_path
    bad_json = tmp_path / "weights.json"
    bad_json.write_text('{"layers": []}')
    bid = default_weights_path("ffb", "bid")
    return [(["nn", "random", "--rules", "classic"],
             "agent 'nn' cannot be seated under the rule set 'classic': no shipped card-play "
             "weights for preset 'classic'"),
            (["nn:weights=/nonexistent.npz", "random"],
             "agent 'nn:weights=/nonexistent.npz' cannot be seated under the rule set 'ffb': "
             "no weights file at '/nonexistent.npz'"),
            ([f"nn:weights={bid}", "random"], "manifest field kind is 'bid', this code expects 'play'"),
            ([f"nn:weights={bad_json}", "random"], f"{bad_json}: not a readable .npz weights file")]


@pytest.mark.parametrize("backend", ["serial", "pool"])
def test_nn_weights_problems_are_one_line_not_a_traceback(tmp_path, capsys, backend):
    # issue 23: each printed a 45-line traceback (serial and pool)
    for agents, message in _weights_problems(tmp_path):
        rules = agents[agents.index("--rules"):] if "--rules" in agents else []
        agents = [a for a in agents if a not in rules]
        assert main(["tournament", "--agents", *agents, *rules, "--deals", "3", "--backend", backend,
                     "--workers", "1", "--no-progress"]) == 2, agents
        err = capsys.readouterr().err
        assert err.startswith("coinche-rl: error: ") and message in err, err
        assert err.count("\n") == 1 and "Traceback" not in err
