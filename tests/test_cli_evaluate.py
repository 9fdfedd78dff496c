"""``coinche-rl evaluate``: the Monte Carlo hand evaluation on the command line (text and
JSON output, the same numbers as the Python API, clear errors)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from coinche_rl.agents.evaluation import evaluate_hand
from coinche_rl.cli import main

REPO = Path(__file__).resolve().parents[1]
HAND = "JH 9H AH TH 7S 8D KC QC"


def test_text_output(capsys):
    assert main(["evaluate", HAND, "--samples", "3", "--strains", "H,C", "--seed", "2"]) == 0
    out = capsys.readouterr().out
    for text in ("card points of the team", "P(make), double-dummy", "P(make), heuristic play",
                 "expected deal score", "suggested bid:", "worlds/s", "capot"):
        assert text in out
    lines = out.splitlines()
    header = next(i for i, line in enumerate(lines) if line.startswith("P(make), double-dummy"))
    assert lines[header + 1].split() == ["strain", "80", "90", "100", "110", "120", "130", "140",
                                         "150", "160", "capot"]
    assert lines[header + 2].split()[0] == "H" and lines[header + 3].split()[0] == "C"


def test_json_equals_the_python_api(capsys):
    args = ["evaluate", HAND, "--seat", "1", "--dealer", "0", "--samples", "4", "--seed", "5",
            "--method", "heuristic", "--preset", "ffb_sa_ta", "--holds", "3:AS", "--holds",
            "3:KS", "--lacks", "2:JS,9S", "--auction", "80D", "--json"]
    assert main(args) == 0
    d = json.loads(capsys.readouterr().out)
    ev = evaluate_hand("ffb_sa_ta", 1, HAND, 0, samples=4, seed=5, method="heuristic",
                       holds={3: "AS KS"}, lacks={2: "JS 9S"}, auction=["80D"])
    assert d["strains"] == ["S", "H", "D", "C", "NT", "AT"]
    assert d["levels"] == ev.levels.tolist() and d["primary"] == "heuristic"
    np.testing.assert_allclose(d["p_make"], ev.p_make)
    np.testing.assert_allclose(d["expected_score"], ev.expected_score)
    np.testing.assert_allclose(d["heur_points"], ev.heur_points)
    assert d["dd_points"] is None and d["p_make_dd"] is None
    assert d["auction"] == ["80D"] and d["legal"][0][0] is False
    assert d["suggested_bid"] == (None if ev.suggested_bid is None else {
        "value": ev.suggested_bid[0], "strain": "SHDC"[ev.suggested_bid[1]] if ev.suggested_bid[1] < 4
        else ("NT", "AT")[ev.suggested_bid[1] - 4], "text": d["suggested_bid"]["text"]})


def test_classic_prise(capsys):
    assert main(["evaluate", "JH 9H AH TH 7S", "--preset", "classic", "--retourne", "8H",
                 "--samples", "2", "--method", "heuristic", "--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    assert d["levels"] == [0] and d["retourne"] == "8H"
    assert d["legal"] == [[False], [True], [False], [False]]


@pytest.mark.parametrize("args,message", [
    (["JH 9H AH"], "has 3 cards: a 'ffb' hand has 8 cards, e.g."),
    (["JH 9H AH TH 7S 8D KC 1C"], "hand: "),
    ([HAND, "--strains", "NT"], "strain NT is not allowed by rules 'ffb'"),
    ([HAND, "--holds", "AS"], "expected SEAT:CARDS"),
    ([HAND, "--holds", "2:JH"], "holds[2]"),
    ([HAND, "--auction", "80H 80S"], "auction[1]"),
    ([HAND, "--auction", "80H pass pass pass"], "the auction is over"),
    (["JH 9H AH TH 7S", "--preset", "classic"], "needs the retourne"),
])
def test_errors(args, message, capsys):
    assert main(["evaluate", *args, "--samples", "2", "--method", "heuristic"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("coinche-rl: error: ") and message in err


@pytest.mark.parametrize("args,message", [
    ([HAND, "--preset", "belotte"], "unknown rule preset 'belotte': valid presets are"),
    ([HAND, "--samples", "0"], "argument --samples: must be at least 1, got 0"),
    ([HAND, "--method", "mc"], "invalid choice: 'mc'"),
    ([HAND, "--threads", "0"], "argument --threads: must be at least 1, got 0"),
    ([HAND, "--seat", "5"], "argument --seat: must be 0..3, got 5"),
    ([HAND, "--dealer", "9"], "argument --dealer: must be 0..3, got 9"),
])
def test_argument_errors(args, message, capsys):
    with pytest.raises(SystemExit) as e:
        main(["evaluate", *args])
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: coinche-rl evaluate ") and message in err


@pytest.mark.slow
def test_as_a_subprocess():
    env = dict(os.environ)
    env["PYTHONPATH"] = str(REPO) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    r = subprocess.run([sys.executable, "-m", "coinche_rl.cli", "evaluate", HAND, "--samples", "2",
                        "--method", "heuristic", "--strains", "H", "--json"], capture_output=True,
                       text=True, env=env, timeout=300)
    assert r.returncode == 0, r.stderr
    d = json.loads(r.stdout)
    assert d["strains"] == ["H"] and len(d["heur_points"][0]) == 2
    r = subprocess.run([sys.executable, "-m", "coinche_rl.cli", "evaluate", "JH 9H"],
                       capture_output=True, text=True, env=env, timeout=300)
    assert r.returncode == 2 and "has 2 cards" in r.stderr


def test_two_player_prise(capsys):
    """`--rules belote_a_deux`: the prise options of one player through the one path (the
    same numbers as the Python API, `evaluate_hand` as for four players); the options the
    prise has not are refused in one line, as a bad option of any family."""
    args = ["evaluate", "JH 9H AH 7S 8D KC", "--rules", "belote_a_deux", "--retourne", "TH",
            "--seat", "1", "--dealer", "0", "--samples", "30", "--seed", "3"]
    assert main(args) == 0
    out = capsys.readouterr().out
    for text in ("Monte Carlo evaluation, method both", "strain  take", "pass: expected",
                 "suggested bid:", "heuristic play: 30 worlds x 4 strains x 1 level",
                 "worlds/s, 1 thread)"):
        assert text in out
    assert main(args + ["--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    ev = evaluate_hand("belote_a_deux", 1, "JH 9H AH 7S 8D KC", 0, retourne="TH",
                       samples=30, seed=3)
    assert d["expected_score"] == ev.expected_score.tolist()
    assert d["pass"]["expected_score"] == ev.pass_expected
    # the default dealer: the player before --seat, who then speaks first; --prise is
    # --auction, the prise so far
    assert main(args[:-6] + ["--samples", "30", "--seed", "3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["expected_score"] == d["expected_score"]
    assert main(["evaluate", "JH 9H AH 7S 8D KC", "--rules", "belote_a_deux", "--retourne",
                 "TH", "--seat", "0", "--dealer", "0", "--prise", "pass", "--samples", "4",
                 "--json"]) == 0
    capsys.readouterr()
    assert main(["evaluate", "JH 9H AH 7S 8D KC", "--rules", "belote_decouverte"]) == 2
    assert "8 face-up cards" in capsys.readouterr().err
    assert main(args + ["--strains", "H", "--method", "dd"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("coinche-rl: error: strains, method 'dd': not for belote for two "
                          "players") and err.count("\n") == 1
    assert main(["evaluate", HAND, "--other-up", "8H 7H KH 8S 9D AC 8C TH", "--samples", "2"]) == 2
    assert "other_up is for belote_decouverte" in capsys.readouterr().err


def test_two_player_prise_with_the_network(capsys):
    """`--method nn` with two players: the same worlds, the cards played by the shipped
    card-play network (the same numbers as the Python API)."""
    args = ["evaluate", "JH 9H AH 7S 8D KC", "--rules", "belote_a_deux", "--retourne", "TH",
            "--seat", "1", "--dealer", "0", "--samples", "20", "--seed", "3", "--method", "nn"]
    assert main(args) == 0
    out = capsys.readouterr().out
    for text in ("method nn (the card-play network plays the cards of every world, a shipped prise "
                 "network the rest of the prise)",
                 "P(make), network play", "pass: expected", "suggested bid:",
                 "network play: 20 worlds x 4 strains x 1 level"):
        assert text in out
    assert "bidding network" not in out
    assert main(args + ["--json"]) == 0
    d = json.loads(capsys.readouterr().out)
    ev = evaluate_hand("belote_a_deux", 1, "JH 9H AH 7S 8D KC", 0, retourne="TH",
                       samples=20, seed=3, method="nn")
    assert d["expected_score"] == ev.expected_score.tolist() and d["method"] == "nn"
    assert main(["evaluate", "JH 9H AH 7S 8D KC QC 7C", "--rules", "belote_decouverte",
                 "--other-up", "8H 7H KH 8S 9D AC 8C TH", "--seat", "1", "--dealer", "0",
                 "--samples", "4", "--method", "nn", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["primary"] == "nn"
    assert main(args + ["--nn-player", "heuristic"]) == 2
    err = capsys.readouterr().err
    assert "nn_player 'heuristic': not for belote" in err and err.count("\n") == 1
