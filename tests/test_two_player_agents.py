"""Agents and duplicate tournaments of belote for two players: legality over random
deals, the heuristic reads only the view, seeded reproducibility, the numba and Python
paths agree, duplicate pairs are mirrors, serial == pool, the command line, and the
heuristic beats random by a margin that cannot be luck."""

from __future__ import annotations

import numpy as np
import pytest

from coinche_rl import arena, cli
from coinche_rl.agents import Agent, AgentSpecError, make_agent, play_deal
from coinche_rl.agents.numba_bots import (BOT_HEURISTIC, BOT_RANDOM, TwoHeuristicAgent,
                                          play_deals)
from coinche_rl.agents.random_agent import RandomAgent
from coinche_rl.engine import two as E2
from coinche_rl.game import IllegalActionError
from coinche_rl.rules import get_rules
from coinche_rl.two_player import IllegalPlayError, TwoPlayerDeal

from two_player_cases import hidden_cards_permuted

PRESETS = ("belote_a_deux", "belote_decouverte")


@pytest.mark.parametrize("preset", PRESETS)
@pytest.mark.parametrize("specs", [("heuristic", "random"), ("random", "heuristic"),
                                   ("heuristic", "heuristic:{prise}=0")])
def test_agents_play_only_legal_actions_through_the_views(preset, specs):
    """play_deal checks every action against the view's legal mask."""
    prise = "prise" if preset == "belote_a_deux" else "prise_decouverte"   # the one it reads
    agents = [make_agent(s.format(prise=prise), "two") for s in specs]
    for seed in range(40):
        deal = TwoPlayerDeal(preset, seed=seed)
        result = play_deal(deal, agents, seeds=[seed, seed + 1000])
        assert deal.is_terminal and result.scores == deal.scores


@pytest.mark.parametrize("preset", PRESETS)
def test_numba_bots_play_only_legal_actions_over_many_deals(preset):
    ds = arena.DealSet(preset, seed=3)
    states, seeds = ds.states(np.arange(3000))
    for bots in ([BOT_HEURISTIC, BOT_RANDOM], [BOT_RANDOM, BOT_HEURISTIC],
                 [BOT_HEURISTIC, BOT_HEURISTIC]):
        st = states.copy()
        assert play_deals(ds.params, st, np.array(bots), seeds) == 0
        assert (st[:, E2.T_PHASE] == E2.DONE).all()


def test_the_python_agents_and_the_numba_loop_make_the_same_choices():
    for preset in PRESETS:
        ds = arena.DealSet(preset, seed=5)
        states, seeds = ds.states(np.arange(25))
        st = states.copy()
        # a prise margin off its default (it travels in the bot id)
        margin = {"prise": 4.5} if preset == "belote_a_deux" else {"prise_decouverte": 3.25}
        bots = [TwoHeuristicAgent(**margin).numba_bot, RandomAgent().numba_bot]
        play_deals(ds.params, st, np.array(bots), seeds)
        for i in range(25):
            deal = ds.deal(i)
            play_deal(deal, [TwoHeuristicAgent(**margin), RandomAgent()], list(seeds[i]))
            assert (deal.state == st[i]).all()


class _Spy(TwoHeuristicAgent):
    """The heuristic, recording the actions it chose."""

    def reset(self, player, rules, seed):
        super().reset(player, rules, seed)
        self.chosen = []

    def act(self, view):
        a = super().act(view)
        self.chosen.append(a)
        return a


@pytest.mark.parametrize("prise", [["take", "no-exchange"], ["pass", "pass", "name"]])
def test_the_heuristic_reads_only_the_view(prise):
    """Two worlds that differ only in the cards a player cannot see (the other hand's
    unknown cards and every face-down card, permuted among their places): the heuristic
    chooses the same action in both, at the start of the play and at every decision of
    the deal while the worlds still agree on what it sees."""
    rng = np.random.default_rng(4)
    compared = 0
    for trial in range(40):
        deck = [int(c) for c in rng.permutation(32)]
        dealer = trial % 2
        d = TwoPlayerDeal("belote_a_deux", deck=deck, dealer=dealer)
        for a in prise:
            d.apply(a if a != "name" else d.legal_actions()[1])
        if d.trump is None:
            continue
        p = d.current_player
        o = 1 - p
        deck2 = hidden_cards_permuted(d, deck, dealer, rng)
        d2 = TwoPlayerDeal("belote_a_deux", deck=deck2, dealer=dealer)
        try:
            for a in prise:
                d2.apply(a if a != "name" else d2.legal_actions()[1])
        except IllegalPlayError:
            continue                    # the 7 of trump moved: another prise there
        agent = TwoHeuristicAgent()
        agent.reset(p, d.rules, 0)
        # follow the first world's play while p's views agree; p's choices must agree
        other_agent = RandomAgent()
        other_agent.reset(o, d.rules, trial)
        while not d.is_terminal:
            q = d.current_player
            if q == p:
                v1, v2 = d.view(p), d2.view(p)
                if not (v1.state == v2.state).all():
                    break
                a1, a2 = agent.act(v1), agent.act(v2)
                assert a1 == a2
                compared += 1
            else:
                a1 = other_agent.act(d.view(q))
                if not d2.is_legal(a1):
                    break
            d.apply(a1)
            d2.apply(a1)
    assert compared > 20


def test_the_heuristic_decides_from_the_public_view_only():
    """Its kernel called on the raw state and on the view can differ (the raw state
    holds hidden cards); the agent is only ever given the view: TwoPlayerView.state has
    no deck, no face-down card and no unknown card of the other hand."""
    deal = TwoPlayerDeal("belote_a_deux", seed=2, dealer=0)
    view = deal.view(deal.current_player)
    assert (view.state[E2.T_DECK:E2.T_DECK + 32] == -1).all()
    assert view.state[E2.T_HAND + 1 - view.player] == view.known_other


def test_agents_are_reproducible_from_their_seed():
    for spec in ("random", "heuristic"):
        results = []
        for _ in range(2):
            deal = TwoPlayerDeal("belote_a_deux", seed=11, dealer=1)
            play_deal(deal, [make_agent(spec, "two"), make_agent("random", "two")],
                      seeds=[7, 8])
            results.append(deal.history)
        assert results[0] == results[1]
    a, b = TwoPlayerDeal("belote_decouverte", seed=1), TwoPlayerDeal("belote_decouverte", seed=1)
    play_deal(a, [RandomAgent(), RandomAgent()], [1, 2])
    play_deal(b, [RandomAgent(), RandomAgent()], [3, 4])
    assert a.history != b.history


def test_specs_and_the_family_checks():
    h = make_agent("heuristic:prise=3.5", "two")
    assert isinstance(h, TwoHeuristicAgent) and h.spec == "heuristic:prise=3.5"
    assert make_agent("random", family="two").spec == "random"
    with pytest.raises(AgentSpecError, match="'colver:maxi' plays the family coinche, not "
                                             "the family 'two'.*agents of the family 'two': "
                                             "heuristic, nn, nnsearch, pimc, random"):
        make_agent("colver:maxi", "two")
    assert make_agent("pimc:worlds=8", "two").worlds == 8
    assert type(make_agent("coinche_rl.agents.random_agent:RandomAgent", "two")) is RandomAgent
    with pytest.raises(AgentSpecError, match="plays the family two, not the family 'coinche'"):
        make_agent("coinche_rl.agents.numba_bots:TwoHeuristicAgent")
    with pytest.raises(AgentSpecError, match="no parameter 'depth'"):
        make_agent("heuristic:depth=2", "two")
    with pytest.raises(ValueError, match="plays the family two, not the rules 'ffb' "
                                         r"\(family 'coinche'\)"):
        h.reset(0, __import__("coinche_rl.rules").rules.get_rules("ffb"), 0)


class _Cheater(Agent):
    FAMILIES = ("two",)

    def act(self, view):
        return 75                       # a card (7 of spades) during the prise


def test_an_illegal_action_is_reported(monkeypatch):
    deal = TwoPlayerDeal("belote_decouverte", seed=1)
    with pytest.raises(IllegalActionError, match="_Cheater.* chose the illegal action 75"):
        play_deal(deal, [_Cheater(), _Cheater()], [0, 0])
    # in a tournament: the arena's one error, naming the agent, its player and the deal
    from coinche_rl.agents import register_agent
    from coinche_rl.agents.registry import _REGISTRY
    before = dict(_REGISTRY)
    register_agent("cheater_two", _Cheater)
    monkeypatch.setattr("coinche_rl.arena.tasks._AGENTS", {})
    try:
        with pytest.raises(arena.ArenaError, match=r"agent 'cheater_two' at player [01] played "
                                                   r"the illegal action 7S \(75\) in deal 0 of "
                                                   r"the deal set \(rules belote_decouverte"):
            arena.run_duplicate("cheater_two", "random", 2, "belote_decouverte")
    finally:
        _REGISTRY.clear()
        _REGISTRY.update(before)


# ------------------------------------------------------------------------- duplicate
def test_duplicate_pairs_are_mirrors():
    r = arena.run_duplicate("heuristic", "random", 40, "belote_a_deux", seed=9)
    ds = arena.DealSet("belote_a_deux", 9)
    decks, dealers = ds.decks(r.index)
    assert (dealers == r.dealer).all()
    states, seeds = ds.states(r.index)
    for k in range(5):
        i = int(r.index[k])
        for t, agents in enumerate(([TwoHeuristicAgent(), RandomAgent()],
                                    [RandomAgent(), TwoHeuristicAgent()])):
            deal = TwoPlayerDeal("belote_a_deux", deck=list(decks[k]), dealer=int(dealers[k]))
            assert deal.deck == [int(c) for c in decks[k]]       # the same cards, both seatings
            play_deal(deal, agents, list(seeds[k]))
            a_player = t
            assert tuple(r.scores[k, t]) == (deal.scores[a_player], deal.scores[1 - a_player])
        assert i == k
    # identical deterministic agents: exactly 0
    same = arena.run_duplicate("heuristic", "heuristic", 100, "belote_decouverte", seed=2)
    assert same.mean == 0.0 and (same.margins == 0).all()


def test_serial_and_pool_give_the_same_results():
    kw = dict(preset="belote_a_deux", seed=4, chunk=50)
    serial = arena.run_duplicate("heuristic", "random", 300, backend="serial", **kw)
    pool = arena.run_duplicate("heuristic", "random", 300, backend="pool", workers=2, **kw)
    assert (serial.index == pool.index).all() and (serial.scores == pool.scores).all()
    assert (serial.contracts == pool.contracts).all() and serial.mean == pool.mean
    python = arena.run_duplicate("heuristic", "random", 30, fast=False, **kw)
    assert (python.scores == serial.scores[:30]).all()


def test_the_heuristic_beats_random_by_far_more_than_luck():
    for preset, floor in (("belote_a_deux", 80.0), ("belote_decouverte", 60.0)):
        r = arena.run_duplicate("heuristic", "random", 2000, preset, seed=123)
        assert r.mean - r.ci95 > floor, r
        assert r.win_interval[0] > 0.85, r


def test_duplicate_errors():
    with pytest.raises(AgentSpecError, match="'colver:maxi' plays the family coinche"):
        arena.run_duplicate("colver:maxi", "random", 10, "belote_a_deux")
    # the arena's one path: what the game lacks (partners, an auction to skip) is refused
    # in one line; matches, targets and the knockout are the formats of every family
    # (tests/test_arena.py)
    with pytest.raises(arena.ArenaError, match="frozen_contract.*has a prise"):
        arena.run_duplicate("heuristic", "random", 10, "belote_a_deux", frozen_contract=True)
    with pytest.raises(arena.ArenaError, match="no partners"):
        arena.run_duplicate(("heuristic", "random"), "random", 10, "belote_a_deux")
    with pytest.raises(arena.ArenaError, match="need partners"):
        arena.run_rotating(["heuristic"] * 8, 2, "belote_a_deux")
    with pytest.raises(arena.ArenaError, match="frozen_contract"):
        arena.DealSet("belote_a_deux", 0, frozen_contract=True)


# ---------------------------------------------------------------------- command line
def test_cli_tournament_with_two_player_rules(capsys):
    assert cli.main(["tournament", "--rules", "belote_decouverte", "--agents", "heuristic",
                     "random", "--deals", "300", "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert "tournament: duplicate, rules 'belote_decouverte'" in out
    assert "X - Y per deal" in out and "heuristic" in out and "95% CI" in out


@pytest.mark.parametrize("options, says", [
    (["--format", "rotating"], "(--format rotating) need partners"),
    (["--out", "/nonexistent/x.jsonl"], "--out /nonexistent/x.jsonl"),
    (["--frozen-contract"], "has a prise, not an auction to skip"),
    (["--agents", "colver:maxi", "random"], "agent 'colver:maxi' plays the family coinche, "
                                            "not the family 'two'"),
])
def test_cli_two_player_errors_are_one_line(capsys, options, says):
    assert cli.main(["tournament", "--rules", "belote_a_deux", "--deals", "5",
                     "--no-progress"] + options) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("coinche-rl: error: ") and says in err and "\n" not in err


# ------------------------------------------------------------------- results files
def test_results_file_resumes_and_replays(tmp_path, capsys):
    """``out=``: the rows of a run are kept, a longer run resumes from them with the same
    figures as one run, the file rebuilds the result, a pair replays through the agents,
    and a file of another configuration is refused; the same from the command line."""
    path = tmp_path / "two.jsonl"
    first = arena.run_duplicate("heuristic", "random", 40, "belote_a_deux", seed=4,
                                           out=path)
    more = arena.run_duplicate("heuristic", "random", 100, "belote_a_deux", seed=4,
                                          out=path)
    whole = arena.run_duplicate("heuristic", "random", 100, "belote_a_deux", seed=4)
    assert first.new == 40 and more.new == 60 and more.n == 100
    assert np.array_equal(more.scores, whole.scores) and more.mean == whole.mean
    back = arena.results_from_file(path)
    assert back.n == 100 and back.mean == whole.mean and back.x == ("heuristic", "heuristic")
    deals, row, cfg = arena.replay_pair(path, 7)
    assert cfg["format"] == "pair" and row["i"] == 7         # the four-player runs' format
    assert [list(deals[0].scores), list(deals[1].scores[::-1])] == row["scores"]
    same, _, _ = arena.replay_pair(path, 7, row["run"])      # one replay for both families
    assert [d.scores for d in same] == [d.scores for d in deals]
    old = tmp_path / "old.jsonl"       # a file of the two-player arena before the one path
    old.write_text(path.read_text().replace('"format":"pair"', '"format":"two_pair"'))
    assert arena.results_from_file(old).mean == whole.mean
    assert [d.scores for d in arena.replay_pair(old, 7)[0]] == [d.scores for d in deals]
    with pytest.raises(arena.ArenaError, match="holds results of another run"):
        arena.run_duplicate("heuristic", "random", 10, "belote_decouverte", out=path)
    lines = path.read_text().splitlines()
    assert sum('"type":"pair"' in x for x in lines) == 100
    path.write_text("\n".join(lines[:60]) + "\n" + lines[60][:20])      # killed mid-line
    again = arena.run_duplicate("heuristic", "random", 100, "belote_a_deux", seed=4,
                                           out=path)
    assert again.new == 41 and np.array_equal(again.scores, whole.scores)
    out2 = tmp_path / "cli.jsonl"
    args = ["tournament", "--rules", "belote_a_deux", "--agents", "heuristic", "random",
            "--deals", "30", "--no-progress", "--out", str(out2)]
    assert cli.main(args) == 0
    assert f"results in {out2} (run again to resume)" in capsys.readouterr().out
    assert cli.main(["replay", str(out2), "--pair", "3"]) == 0
    out = capsys.readouterr().out
    assert "player 0 heuristic, player 1 random" in out and "stored scores reproduced" in out


@pytest.mark.parametrize("spec, preset, says", [
    ("heuristic:prise=3", "belote_decouverte", "prise is not read under the rules 'belote_decouverte'"),
    ("heuristic:prise_decouverte=2", "belote_a_deux", "prise_decouverte is not read"),
])
def test_a_prise_margin_the_rules_never_read_is_refused(spec, preset, says, capsys):
    """A heuristic parameter of the other preset would change nothing (the tournament
    would report two identical agents): refused by the agent, the arena and the CLI."""
    agent = make_agent(spec, "two")
    with pytest.raises(ValueError, match=says):
        agent.reset(0, get_rules(preset), 1)
    with pytest.raises(arena.ArenaError, match=f"agent '{spec}' cannot play the rule set "
                                               f"'{preset}': heuristic: " + says.split(" ")[0]):
        arena.run_duplicate(spec, "random", 4, preset)
    assert cli.main(["tournament", "--rules", preset, "--agents", spec, "random", "--deals", "4",
                     "--no-progress"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("coinche-rl: error: ") and says in err and "\n" not in err
    # its own preset reads it
    other = "belote_a_deux" if preset == "belote_decouverte" else "belote_decouverte"
    agent.reset(0, get_rules(other), 1)


def test_a_prise_margin_is_read_to_the_hundredth():
    with pytest.raises(ValueError, match="prise must be a number in -20..30 given to the "
                                         "hundredth"):
        TwoHeuristicAgent(prise=3.333)
