"""PIMC for belote for two players: its worlds are consistent with the view (the view
of every sampled world is the player's own view; the other hand respects the voids, the
trump ceilings and the announced declaration), it plays legal, reproducible cards, and
with nothing hidden it plays the solver's best card."""

from __future__ import annotations

from itertools import takewhile

import numpy as np
import pytest

from coinche_rl.actions import CARD_BASE
from coinche_rl.agents import make_agent, play_deal
from coinche_rl.agents.sampler import MAX_REDRAWS, hand_constraints, sample_world
from coinche_rl.cards import popcount
from coinche_rl.engine import two as E2
from coinche_rl.engine.bits import rng_seed
from coinche_rl.engine.declarations import best_single_declaration
from coinche_rl.rules import params_vector
from coinche_rl.solver_two import TwoPlayerSolver
from coinche_rl.two_player import TwoPlayerDeal


def mid_deal(preset, seed, cards):
    d = TwoPlayerDeal(preset, seed=seed)
    heur = [make_agent("heuristic", "two"), make_agent("heuristic", "two")]
    for p in (0, 1):
        heur[p].reset(p, d.rules, seed + p)
    while not d.is_terminal and len(d.plays) < cards:
        d.apply(heur[d.current_player].act(d.view(d.current_player)))
    return d


@pytest.mark.parametrize("preset", ["belote_a_deux", "belote_decouverte"])
def test_every_sampled_world_shows_the_players_own_view(preset):
    checked = 0
    for seed in range(40):
        d = mid_deal(preset, seed, 4 + seed % 20)
        if d.is_terminal or d.phase != "play":
            continue
        me = d.current_player
        o = 1 - me
        v = d.view(me)
        P = params_vector(d.rules)
        allowed = hand_constraints(v.state, me)
        assert d.hands[o] & ~allowed == 0                # the truth is always allowed
        hand_size = v.other_hand_size - popcount(v.known_other)
        rng = np.zeros(1, np.uint64)
        rng_seed(rng, seed, 0)
        T = np.empty_like(v.state)
        scratch = np.empty(32, np.int64)
        for _ in range(20):
            redraws = sample_world(v.state, P, me, np.int64(v.unseen), np.int64(hand_size),
                                   allowed, rng, T, scratch)
            V2 = np.empty_like(T)
            E2.two_public_view_into(T, P, me, V2)
            assert (V2 == v.state).all()
            w = TwoPlayerDeal.from_state(d.rules, T)
            assert w.hands[me] == d.hands[me] and w.table_up == d.table_up
            assert popcount(w.hands[o]) == popcount(d.hands[o])
            assert w.hands[o] & ~(allowed | v.known_other) == 0
            owned = [w.hands[p] | w.table_up[p] | w.table_down[p] | sum(
                1 << c for q, c in w.plays if q == p) for p in (0, 1)]
            assert owned[0] | owned[1] == 0xFFFFFFFF and owned[0] & owned[1] == 0
            if d.rules.declarations and len([1 for q, _ in d.plays if q == o]) \
                    and redraws < MAX_REDRAWS:
                start = w.hands[o] | sum(1 << c for q, c in w.plays if q == o) | w.table_up[o]
                for k in range(E2.N_STACKS):
                    dn = int(T[E2.T_STACK_DOWN + E2.N_STACKS * o + k])
                    if dn >= 0 and not w.table_down[o] >> dn & 1:
                        start &= ~(1 << dn)
                assert best_single_declaration(start, d.trump)[0] == d.declarations[o][0]
        checked += 1
    assert checked >= 15


def test_the_other_hand_respects_a_void():
    # find a position where the other player failed to follow a suit, then sample
    for seed in range(200):
        d = mid_deal("belote_a_deux", seed, 20)
        if d.is_terminal:
            continue
        me = d.current_player
        o = 1 - me
        voids = [t[0][1] >> 3 for t in d.tricks if len(t) == 2 and t[0][0] == me
                 and t[1][1] >> 3 != t[0][1] >> 3]
        if not voids:
            continue
        allowed = hand_constraints(d.view(me).state, me)
        for s in voids:
            assert allowed >> (8 * s) & 0xFF == 0
        return
    pytest.fail("no void found")


@pytest.mark.parametrize("preset", ["belote_a_deux", "belote_decouverte"])
def test_pimc_plays_legal_reproducible_deals(preset):
    histories = []
    for _ in range(2):
        d = TwoPlayerDeal(preset, seed=13)     # a deal that is taken under both presets
        play_deal(d, [make_agent("pimc:worlds=4,solve_from=6", "two"),
                      make_agent("heuristic", "two")], [11, 12])
        histories.append(d.history)
    assert histories[0] == histories[1] and len(histories[0]) > 30


def test_with_nothing_hidden_pimc_plays_the_solvers_best_card():
    # belote_decouverte late in the deal: once every face-down card is turned up,
    # nothing is hidden and every world is the deal itself
    for seed in range(100):
        d = mid_deal("belote_decouverte", seed, 26)
        if d.is_terminal or d.table_down[0] | d.table_down[1] or len(d.legal_actions()) < 2:
            continue
        me = d.current_player
        agent = make_agent("pimc:worlds=3,solve_from=0", "two")
        agent.reset(me, d.rules, 1)
        a = agent.act(d.view(me))
        vals = TwoPlayerSolver().card_values(d.state)
        best = max(vals[c - CARD_BASE] for c in d.legal_actions())
        assert vals[a - CARD_BASE] == best
        return
    pytest.fail("no position without face-down cards found")


@pytest.mark.parametrize("preset", ["belote_a_deux", "belote_decouverte"])
def test_the_choice_is_the_best_sum_of_the_exact_card_sums(preset):
    """act's search (only what the choice needs: best_card_two) picks the card of the best
    exact sum over the same worlds (ties: the lowest card), and its bounds hold the exact
    values, at a trick's start and after its lead, in worlds of 5 to 9 tricks left; a
    second decision reuses the table (the entries of positions with no face-down card left
    are shared by every world)."""
    from coinche_rl import solver_two as S2
    from coinche_rl.agents.pimc import PIMC_GAMES
    from coinche_rl.solver_two import best_card_two, new_tables
    game = PIMC_GAMES["two"]
    checked = 0
    for seed in range(30):
        d = mid_deal(preset, 300 + seed, 14 + seed % 5)
        if d.is_terminal or len(d.legal_actions()) < 2:
            continue
        me = d.current_player
        v = d.view(me)
        agent = make_agent("pimc:worlds=6,solve_from=0", "two")
        agent.reset(me, d.rules, seed)
        rng = np.zeros(1, np.uint64)
        rng_seed(rng, agent._stream_seed, 1)
        cards, sums, n = agent.card_values(v, rng)        # the exact sums (the web page's)
        expected = max(zip(cards, sums), key=lambda x: (int(x[1]), -x[0]))[0]
        rng_seed(rng, agent._stream_seed, 1)
        assert agent.card_choice(v, rng)[0] == expected
        assert agent.act(v) == expected                   # the first decision: stream 1
        sums_by_card = np.full(32, -1, np.int64)
        sums_by_card[np.asarray(cards) - CARD_BASE] = sums
        lo = np.empty((6, 32), np.int64)
        hi = np.empty((6, 32), np.int64)
        share = S2.OPT_DEFAULT | S2.OPT_SHARE
        rng_seed(rng, agent._stream_seed, 1)
        assert game.draw(agent, v, rng) == n == 6         # the same worlds again
        cs = [c - CARD_BASE for c in cards]
        for tables in ((agent._tt, agent._work), new_tables(16, share), new_tables(16)):
            assert CARD_BASE + best_card_two(agent._worlds_two, n, *tables, lo, hi) == expected
            assert (lo <= hi).all() and (lo[:, cs] >= 0).all()
            assert (lo.sum(axis=0)[cs] <= sums_by_card[cs]).all()
            assert (hi.sum(axis=0)[cs] >= sums_by_card[cs]).all()
        checked += 1
        if checked == 10:
            break
    assert checked == 10


def test_the_four_player_parameters_are_refused_for_two_players_and_back():
    """One PIMC, one parameter table: a parameter of one game only is listed for its
    family and refused in the other, saying whose it is."""
    from coinche_rl.agents import AgentSpecError, describe_agents
    with pytest.raises(AgentSpecError, match=r"agent 'pimc': the parameter 'bid_samples' is for "
                                             r"the families coinche, classic, not the family "
                                             r"'two' .*; its parameters there: worlds, "
                                             r"solve_from, seed, worlds_from, uniform_share, "
                                             r"belief_weights"):
        make_agent("pimc:bid_samples=8", "two")
    with pytest.raises(AgentSpecError, match=r"the parameter 'solve_from' is for the family two, "
                                             r"not the family 'coinche'"):
        make_agent("pimc:solve_from=2")
    assert make_agent("pimc:solve_from=2,seed=3", "two").solve_from == 2
    # the arena's estimate is the family's, read before any deal (the family built for)
    assert make_agent("pimc", "two").seconds_per_deal == pytest.approx(0.4)
    assert make_agent("pimc").seconds_per_deal == pytest.approx(0.12)
    # an earlier search costs more (measured by solve_from), fewer worlds less
    costs = [make_agent(f"pimc:solve_from={s}", "two").seconds_per_deal for s in range(6)]
    assert costs == pytest.approx([8.0, 4.0, 2.0, 0.4, 0.2, 0.1])
    assert make_agent("pimc:worlds=16,solve_from=0", "two").seconds_per_deal == pytest.approx(4.0)
    two, four = (describe_agents(f).split("\npimc: ")[1].split("\n") for f in ("two", "coinche"))
    params = [[line.split()[0] for line in takewhile(lambda x: x.startswith("    "), text[1:])]
              for text in (two, four)]
    assert params[0] == ["worlds", "solve_from", "seed", "worlds_from", "uniform_share",
                         "belief_weights"]
    assert "bid_samples" in params[1] and "solve_from" not in params[1]
