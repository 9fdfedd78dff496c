"""``coinche-rl replay FILE --pair I`` on a results file that holds several runs (issue
44, point 3): the runs are listed with their agents and rules, the options named as
typed, and ``--run`` (an id or its start) or ``--match`` (the matchup) chooses one."""

import pytest

from coinche_rl.arena.replay import pair_runs
from coinche_rl.cli import main

AGG = "heuristic:aggression=20"


@pytest.fixture(scope="module")
def results(tmp_path_factory):
    """A round robin of three numba agents: three runs of three deal pairs."""
    out = tmp_path_factory.mktemp("replay") / "rr.jsonl"
    assert main(["tournament", "--agents", "random", "heuristic", AGG, "--deals", "3",
                 "--seed", "5", "--out", str(out), "--no-progress"]) == 0
    return out


def _run_of(results, x, y) -> str:
    (run,) = [r.run for r in pair_runs(results) if r.teams == (x, y)]
    return run


def test_several_runs_are_listed_with_their_agents_and_the_options_as_typed(results, capsys):
    capsys.readouterr()
    assert main(["replay", str(results), "--pair", "1"]) == 2
    err = capsys.readouterr().err
    assert f"{results} holds 3 runs of deal pairs: choose one with --run ID or --match X:Y" in err
    assert "run=" not in err
    runs = pair_runs(results)
    assert {r.teams for r in runs} == {("random", "heuristic"), ("random", AGG),
                                       ("heuristic", AGG)}
    for r in runs:
        assert f"  {r.run}  {r.teams[0]} vs {r.teams[1]}: rules ffb, seed 5, 3 deal pairs" in err


@pytest.mark.parametrize("how, teams", [
    (["--match", "random:heuristic"], ("random", "heuristic")),
    (["--match", "heuristic", "random"], ("random", "heuristic")),       # either order
    (["--match", f"{AGG}:random"], ("random", AGG)),                    # a spec with colons
    (["--match", f"heuristic:{AGG}"], ("heuristic", AGG)),
])
def test_a_matchup_chooses_its_run(results, capsys, how, teams):
    capsys.readouterr()
    assert main(["replay", str(results), "--pair", "2", *how]) == 0
    out = capsys.readouterr().out
    assert f": run {_run_of(results, *teams)}, deal pair 2" in out
    assert "stored scores reproduced" in out


def test_a_run_id_or_its_start_chooses_the_run(results, capsys):
    run = _run_of(results, "heuristic", AGG)
    for given in (run, run[:6]):
        capsys.readouterr()
        assert main(["replay", str(results), "--pair", "0", "--run", given]) == 0
        assert f": run {run}, deal pair 0" in capsys.readouterr().out


@pytest.mark.parametrize("how, message", [
    (["--match", "random:nn"], "--match random:nn: no run of {file} plays this matchup; its runs:"),
    # no spec as typed: by name, two runs pit random against a heuristic
    (["--match", "random:heuristic:aggression=5"],
     "--match random:heuristic:aggression=5: 2 runs of {file} play this matchup: choose one "
     "with --run ID:"),
    (["--run", "feedbeef"], "--run feedbeef: no run of {file} has this id; its runs:"),
    (["--match", "a", "b", "c"], "--match: expected X:Y or X Y (two agents), got 'a b c'"),
    (["--match", "random:heuristic", "--run", "0"], "--run and --match both choose the run"),
])
def test_a_choice_that_names_no_single_run_says_so(results, capsys, how, message):
    capsys.readouterr()
    assert main(["replay", str(results), "--pair", "0", *how]) == 2
    err = capsys.readouterr().err
    assert f"coinche-rl: error: {message.format(file=results)}" in err
    if "2 runs" in message:
        assert err.count(" vs ") == 2 and f"random vs {AGG}" in err
