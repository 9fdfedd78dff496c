"""Estimates and progress of a tournament (issue 44, point 4): the work left when a run
resumes from a results file, progress that moves every few seconds with slow agents
(chunks sized by the agents' ``seconds_per_deal``), and the agents the default roster
leaves out named as the skipped ones are. One path for both families (issue 43)."""

from __future__ import annotations

import pytest

from coinche_rl import arena
from coinche_rl.agents import Agent, register_agent
from coinche_rl.agents.registry import _REGISTRY
from coinche_rl.cli import main


class Slow(Agent):
    """Says it takes a second a deal (it plays the first legal action at once)."""

    seconds_per_deal = 1.0

    def act(self, view):
        return int(view.legal_actions[0])


class TwoSlow(Agent):
    """The same for belote for two players."""

    FAMILIES = ("two",)

    seconds_per_deal = 1.0

    def act(self, view):
        return int(view.legal_actions[0])


@pytest.fixture
def slow():
    register_agent("estimates_slow", Slow, doc="a slow agent, on paper")
    register_agent("estimates_slow", TwoSlow)                 # the same name, family two
    yield "estimates_slow"
    for key in [k for k in _REGISTRY if k[1] == "estimates_slow"]:
        del _REGISTRY[key]


@pytest.mark.parametrize("preset, agent", [("ffb", "heuristic"), ("belote_a_deux", "heuristic")])
def test_a_resumed_run_reports_only_the_work_left(tmp_path, preset, agent):
    out = tmp_path / "r.jsonl"
    seen = []

    def on_start(pairs, left):
        seen.append((pairs, left))

    arena.run_duplicate(agent, "random", 12, preset, seed=3, out=out, on_start=on_start)
    arena.run_duplicate(agent, "random", 12, preset, seed=3, out=out, on_start=on_start)
    arena.run_duplicate(agent, "random", 20, preset, seed=3, out=out, on_start=on_start)
    assert [left for _, left in seen] == [[12], [0], [8]]
    assert seen[0][0] == [((agent, agent), ("random", "random"))]
    # what the command line estimates from: nothing left is no time
    assert arena.estimate_seconds(seen[0][0], seen[1][1]) == 0.0


def test_the_progress_moves_pair_by_pair_with_slow_agents(slow):
    """Four seconds a deal pair (on paper): every pair is its own chunk, so that the bar
    moves at each, instead of once per 16 pairs."""
    done = []
    r = arena.run_duplicate(slow, "random", 12, seed=1,
                            progress=lambda d, total: done.append((d, total)))
    assert r.n == 12 and done == [(k, 12) for k in range(1, 13)]
    assert arena.formats._chunk_size((slow, slow), ("random", "random"), None, "pair", True,
                                     12, 1, None, {}) == 1
    # fast Python agents keep their chunks of 16, numba bots their thousands
    assert arena.formats._chunk_size(("pimc:worlds=1",) * 2, ("random",) * 2, None, "pair",
                                     False, 100, 1, None, {}) <= 16
    assert arena.formats._chunk_size(("heuristic",) * 2, ("random",) * 2, "two", "pair", True,
                                     10_000, 1, None, {}) == 4096


class Unsaid(Slow):
    """A Python agent that does not say what a deal costs it."""

    seconds_per_deal = None


def test_an_agent_of_unknown_cost_gets_growing_chunks():
    register_agent("estimates_unsaid", Unsaid, doc="no cost said")
    try:
        done = []
        arena.run_duplicate("estimates_unsaid", "random", 40, seed=1,
                            progress=lambda d, total: done.append(d))
    finally:
        for key in [k for k in _REGISTRY if k[1] == "estimates_unsaid"]:
            del _REGISTRY[key]
    assert done == [1, 3, 7, 15, 31, 40]            # 1, 2, 4, 8, 16, then the rest


def test_the_default_roster_names_the_agents_it_leaves_out():
    roster, skipped = arena.default_roster("ffb")
    assert "nnsearch" not in roster
    assert f"nnsearch: {arena.formats.ROSTER_LEFT_OUT}" in skipped
    two, _ = arena.default_roster("belote_a_deux")
    assert two[:2] == ["random", "heuristic"]


def test_the_searches_of_both_families_say_what_a_deal_costs():
    """pimc says its cost in both families, so that a tournament with it is estimated
    (belote for two players printed no estimate before issue 43)."""
    for family in ("coinche", "two"):
        seconds = arena.estimate_seconds([(("pimc", "pimc"), ("heuristic", "heuristic"))],
                                         [100], 1, family)
        assert 10 < seconds < 100, (family, seconds)
    assert arena.estimate_seconds([(("pimc:worlds=64",) * 2, ("heuristic",) * 2)], [100], 1,
                                  "two") == pytest.approx(2 * seconds)


@pytest.mark.parametrize("preset, deals, minutes", [("ffb", 10, 0.7), ("belote_a_deux", 20, 0.7)])
def test_the_command_line_estimates_only_the_work_left(tmp_path, capsys, slow, preset, deals,
                                                       minutes):
    """Re-running a finished --out tournament prints no estimate (there is nothing left to
    play); an extended one estimates the pairs it adds. The same for both families."""
    out = tmp_path / "r.jsonl"
    args = ["tournament", "--rules", preset, "--agents", slow, "random", "--no-progress",
            "--out", str(out), "--deals"]
    assert main(args + [str(deals)]) == 0
    first = capsys.readouterr().out
    assert (f"estimated playing time: about {minutes} min on 1 core(s) for the {deals} pairs "
            f"left") in first
    assert main(args + [str(deals)]) == 0
    assert "estimated playing time" not in capsys.readouterr().out
    assert main(args + [str(2 * deals)]) == 0
    assert f"for the {deals} pairs left" in capsys.readouterr().out


def test_the_command_line_names_the_roster_it_leaves_out():
    """The default roster's note (on stderr before the tournament) names nnsearch as it
    names the colver bots."""
    from coinche_rl.cli import tournament
    roster, skipped = arena.default_roster("ffb")
    note = tournament._roster_note(skipped)
    assert f"(skipped nnsearch: {arena.formats.ROSTER_LEFT_OUT})" in note.splitlines()
