"""Every subcommand over both rule families, with the same options (issue 43: one CLI path
per subcommand). Each command is run in-process on a preset of each family and on a
small size; what it prints or writes is read back (a record replays, a results file
replays its pair, the agents listed are the family's)."""

import io
import json
import sys

import pytest

from coinche_rl.cli import main
from coinche_rl.records import load_record

#: a preset of each family and a hand the evaluation of that preset takes
FAMILIES = {
    "ffb": {"hand": ["JH 9H AH TH 7S 8D KC QC"], "players": 4},
    "classic": {"hand": ["JH 9H AH TH 7S", "--retourne", "8H"], "players": 4},
    "belote_a_deux": {"hand": ["JH 9H AH 7S 8D KC", "--retourne", "TH", "--seat", "1",
                                "--dealer", "0"],
                      "players": 2},
    "belote_decouverte": {"hand": ["JH 9H AH 7S 8D KC QC 7C", "--other-up",
                                   "8H 7H KH 8S 9D AC 8C TH", "--seat", "1", "--dealer", "0"],
                          "players": 2},
}


@pytest.mark.parametrize("preset", sorted(FAMILIES))
def test_every_command_serves_the_family(preset, tmp_path, monkeypatch, capsys):
    fam = FAMILIES[preset]
    # agents: the family's agents, with their parameters
    assert main(["agents", "--rules", preset]) == 0
    out = capsys.readouterr().out
    assert "heuristic" in out and "random" in out
    assert ("'two'" in out) == (fam["players"] == 2)

    # random-deal and random-match write records that replay
    deal_path, match_path = tmp_path / "deal.json", tmp_path / "match.json"
    assert main(["random-deal", "--rules", preset, "--seed", "3", "-o", str(deal_path)]) == 0
    assert main(["random-match", "--rules", preset, "--seed", "3", "-o", str(match_path)]) == 0
    for path in (deal_path, match_path):
        assert load_record(str(path))["rules"]["preset"] == preset
        assert main(["replay", str(path)]) == 0
    capsys.readouterr()

    # tournament: a results file whose pair replays
    results = tmp_path / "results.jsonl"
    assert main(["tournament", "--rules", preset, "--agents", "random", "heuristic",
                 "--deals", "4", "--seed", "2", "--out", str(results), "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "heuristic" in out and "random" in out
    runs = [json.loads(line) for line in results.read_text().splitlines()]
    assert runs and all(r.get("rules", {}).get("preset", preset) == preset for r in runs
                        if isinstance(r.get("rules"), dict))
    assert main(["replay", str(results), "--pair", "0"]) == 0
    capsys.readouterr()

    # evaluate: the hand's options valued over a few sampled deals
    assert main(["evaluate", *fam["hand"], "--rules", preset, "--samples", "4",
                 "--seed", "1", "--method", "heuristic", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)

    # play: one deal in the terminal, answered by the first choice every time
    saved = tmp_path / "played.json"
    monkeypatch.setattr(sys, "stdin", io.StringIO("1\n" * 60))
    assert main(["play", "--rules", preset, "--seed", "4", "--save", str(saved)]) == 0
    assert load_record(str(saved))["rules"]["preset"] == preset
    assert main(["replay", str(saved)]) == 0


@pytest.mark.parametrize("preset", sorted(FAMILIES))
def test_every_command_refuses_an_unknown_agent_alike(preset, capsys):
    """The same wrong spec gets the same one-line error and exit status 2 in every family
    (argparse's exit or main's return value: the shell sees the same)."""
    try:
        status = main(["tournament", "--rules", preset, "--agents", "random", "nosuchagent",
                       "--deals", "2", "--no-progress"])
    except SystemExit as e:
        status = e.code
    assert status == 2
    err = capsys.readouterr().err
    assert err.startswith("coinche-rl: error: unknown agent 'nosuchagent'; available: ")
    assert "heuristic" in err and err.count("\n") == 1


@pytest.mark.parametrize("preset", ["ffb", "belote_a_deux", "belote_decouverte"])
def test_tournament_formats_take_every_family(preset, tmp_path, capsys):
    """The options that were four-player only: match pairs to a --target, and the
    knockout (tables of the family's players), with the same tables and results file."""
    results = tmp_path / "matches.jsonl"
    assert main(["tournament", "--rules", preset, "--agents", "heuristic", "random", "--match",
                 "--target", "300", "--deals", "3", "--out", str(results),
                 "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "match pairs" in out and "matches to 300" in out
    rows = [json.loads(line) for line in results.read_text().splitlines()]
    assert sum(r.get("type") == "match" for r in rows) == 3
    assert main(["replay", str(results), "--pair", "0"]) == 1     # only deal pairs replay
    assert "holds no deal-pair run (its runs: match): only deal pairs replay" in \
        capsys.readouterr().err
    assert main(["tournament", "--rules", preset, "--agents", "heuristic", "random",
                 "--format", "knockout", "--tournaments", "2", "--players", "8",
                 "--target", "300", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "Knockout: 2 tournament(s) of 8 players" in out and f"rules {preset}" in out
    assert "games to 300" in out


@pytest.mark.parametrize("options, says", [
    (["--format", "rotating"], "rotating partners (--format rotating) need partners: rules "
                               "'belote_a_deux' are a game of 2 players without partners"),
    (["--frozen-contract"], "belote for two players (rules 'belote_a_deux') has a prise, "
                            "not an auction to skip"),
])
def test_what_the_game_lacks_is_one_line(options, says, capsys):
    """What belote for two players has not (partners, an auction to skip) is refused in
    one line with exit status 2, as a bad option of any family."""
    try:
        status = main(["tournament", "--rules", "belote_a_deux", "--agents", "heuristic",
                       "random", "--deals", "2", "--no-progress", *options])
    except SystemExit as e:
        status = e.code
    assert status == 2
    err = capsys.readouterr().err
    assert err.startswith("coinche-rl: error: ") and says in err and err.count("\n") == 1
