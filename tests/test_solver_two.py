"""The two-player double-dummy solver (coinche_rl.solver_two) against exhaustive minimax
through the engine on endgames, every search option against the plain alpha-beta on
middle games, whole deals against their own card values, and its loading from the
numba cache."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from coinche_rl import actions as A
from coinche_rl import solver_two as S2
from coinche_rl.solver_two import TwoPlayerSolver
from coinche_rl.two_player import TwoPlayerDeal


def brute(d):
    """Card points player 0 wins in the whole deal, both playing perfectly (minimax over
    the engine's legal actions)."""
    if d.is_terminal:
        return d.card_points_won[0]
    p = d.current_player
    vals = []
    for a in d.legal_actions():
        c = d.clone()
        c.apply(a)
        vals.append(brute(c))
    return max(vals) if p == 0 else min(vals)


def endgame(preset, seed, cards_played):
    d = TwoPlayerDeal(preset, seed=seed)
    while d.phase != "play" and not d.is_terminal:
        la = d.legal_actions()
        d.apply(la[-1] if d.phase == "prise" else la[0])     # take / name, no exchange
    rng = np.random.default_rng(seed)
    while not d.is_terminal and len(d.plays) < cards_played:
        la = d.legal_actions()
        d.apply(la[int(rng.integers(len(la)))])
    return d


@pytest.mark.parametrize("preset", ["belote_a_deux", "belote_decouverte"])
def test_solver_matches_minimax_on_endgames(preset):
    solver = TwoPlayerSolver()
    checked = 0
    for seed in range(25):
        d = endgame(preset, seed, 25 + seed % 4)              # 3 or 4 tricks left, mid-trick too
        if d.is_terminal:
            continue
        assert solver.solve(d.state) == brute(d)
        vals = solver.card_values(d.state)
        me = d.current_player
        for a in d.legal_actions():
            c = d.clone()
            c.apply(a)
            v0 = brute(c)
            assert vals[a - A.CARD_BASE] == (v0 if me == 0 else 162 - v0)
        assert (vals >= 0).sum() == len(d.legal_actions())
        checked += 1
    assert checked >= 20


#: option sets that must give the same values: the default, the plain alpha-beta (no
#: table, no null-window tests, no ordering: every enhancement off), the default with
#: moves in a pseudo-random order, with the low cards renumbered in the table's keys
#: (in both orders), and each enhancement alone off
OPTION_SETS = [S2.OPT_DEFAULT, 0, S2.OPT_DEFAULT | S2.OPT_SHUFFLE,
               S2.OPT_DEFAULT | S2.OPT_CANON, S2.OPT_DEFAULT | S2.OPT_CANON | S2.OPT_SHUFFLE,
               S2.OPT_DEFAULT | S2.OPT_SHARE] + [
    S2.OPT_DEFAULT & ~bit for bit in (S2.OPT_TT, S2.OPT_EQUIV, S2.OPT_SURE, S2.OPT_ORDER,
                                      S2.OPT_MTD, S2.OPT_ETC, S2.OPT_QUICK)]


@pytest.mark.parametrize("preset", ["belote_a_deux", "belote_decouverte"])
def test_every_option_set_gives_the_same_values(preset):
    """Six or seven tricks left (the plain alpha-beta stays affordable there), at a
    trick's start and after its lead: the whole position's value and every card's."""
    solvers = [TwoPlayerSolver(options=o) for o in OPTION_SETS]
    for seed in range(6):
        d = endgame(preset, 100 + seed, 18 + seed % 3)
        if d.is_terminal:
            continue
        solves = [s.solve(d.state) for s in solvers]
        assert len(set(solves)) == 1, (seed, solves)
        values = [s.card_values(d.state) for s in solvers]
        for v in values[1:]:
            assert (v == values[0]).all(), seed


def test_a_position_the_previous_solver_got_wrong():
    """Eleven tricks left in belote découverte: player 0 wins 90 card points in the deal
    (the solver before the canonical-form table answered 88 from the whole position
    while its card values said 90)."""
    d = TwoPlayerDeal("belote_decouverte", seed=905)
    for a in [0, 107, 85, 86, 79, 75, 103, 102, 81, 77, 82, 104]:
        d.apply(a)
    assert d.current_player == 1 and d.card_points_won == (46, 14)
    assert TwoPlayerSolver().solve(d.state) == 90
    assert TwoPlayerSolver(options=S2.OPT_TT | S2.OPT_ORDER).solve(d.state) == 90
    assert TwoPlayerSolver().card_values(d.state).max() == 162 - 90


@pytest.mark.parametrize("preset, seed", [("belote_a_deux", 4), ("belote_decouverte", 0)])
def test_whole_deals_agree_with_their_card_values(preset, seed):
    """A whole deal from its first card (deals that solve in about 0.1 s): the value of
    the position is the best card's, and playing that card leaves the same value."""
    solver = TwoPlayerSolver()
    d = endgame(preset, seed, 0)
    assert d.phase == "play" and not d.plays
    value = solver.solve(d.state)
    vals = solver.card_values(d.state)
    me = d.current_player
    best = int(vals.max())
    assert value == (best if me == 0 else 162 - best)
    d.apply(int(np.argmax(vals)) + A.CARD_BASE)
    assert solver.solve(d.state) == value


def test_a_lead_worse_than_the_quick_tricks_is_valued_exactly():
    """The leader's quick tricks bound the position, not one given lead: a lead that
    gives up a trick the quick tricks would have won is worth less than the bound (the
    solver once answered the bound for it under the null-window tests: 62 for three
    cards worth 51-55, and notebook 07's 10 of clubs 95 for 84)."""
    d = endgame("belote_a_deux", 1028, 24)
    assert len(d.plays) % 2 == 0                      # a trick's start: the quick tricks apply
    vals = TwoPlayerSolver().card_values(d.state)
    me = d.current_player
    spread = set()
    for a in d.legal_actions():
        c = d.clone()
        c.apply(a)
        v0 = brute(c)
        assert vals[a - A.CARD_BASE] == (v0 if me == 0 else 162 - v0), a
        spread.add(int(vals[a - A.CARD_BASE]))
    assert len(spread) > 1


@pytest.mark.parametrize("preset", ["belote_a_deux", "belote_decouverte"])
def test_the_quick_tricks_bound_never_exceeds_the_leaders_points(preset):
    """At a trick's start with 2 to 4 tricks left, the points the leader surely wins by
    cashing his quick tricks are at most what he wins with both playing perfectly
    (exhaustive minimax), and the bound is reached in some positions; also where it
    owes its points to the plain suits the other must follow (the bound is then above
    the one computed as if the other had no playable plain card)."""
    tight = checked = plain = 0
    work = S2.new_tables(10)[1]
    for seed in range(60):
        d = endgame(preset, 400 + seed, 24 + 2 * (seed % 3))
        if d.is_terminal or len(d.plays) % 2:
            continue
        av0, av1, dn0, dn1, rem, leader, lead = S2._setup(work, d.state)
        strain = int(work[S2.W_STRAIN])
        own = (av0 | dn0, av1 | dn1)
        av = (av0, av1)
        args = (strain, 32 * strain, bin(own[0]).count("1"), rem)
        q = S2._quick_tricks(av[leader], own[1 - leader], av[1 - leader], *args)
        q_trumps = S2._quick_tricks(av[leader], own[1 - leader],
                                    av[1 - leader] & (0xFF << (8 * strain)), *args)
        v0 = brute(d)
        mine = (v0 if leader == 0 else 162 - v0) - d.card_points_won[leader]
        assert 0 <= q <= mine, (seed, q, mine)
        tight += q == mine and q > 0
        plain += q == mine and q > q_trumps
        checked += 1
    assert checked >= 30 and tight >= 1 and plain >= 1


def test_positions_with_few_face_down_cards_are_shared_by_the_worlds():
    """One solver on several worlds of one decision (a new generation each: the entries
    of positions with at most five face-down cards left, keyed by the card under each
    cover, are kept and shared) gives each world's values of a fresh solver."""
    from coinche_rl.agents import make_agent
    from coinche_rl.agents.sampler import hand_constraints, sample_world
    from coinche_rl.engine.bits import rng_seed
    from coinche_rl.rules import params_vector
    for preset in ("belote_a_deux", "belote_decouverte"):
        for seed in range(40):                     # the first deal taken
            d = TwoPlayerDeal(preset, seed=seed)
            heur = [make_agent("heuristic", "two") for _ in range(2)]
            for p in (0, 1):
                heur[p].reset(p, d.rules, seed + p)
            while not d.is_terminal and (d.phase != "play" or len(d.plays) < 16):
                d.apply(heur[d.current_player].act(d.view(d.current_player)))
            if not d.is_terminal:
                break
        assert not d.is_terminal
        me = d.current_player
        v = d.view(me)
        rng = np.zeros(1, np.uint64)
        rng_seed(rng, seed, 0)
        T = np.empty_like(v.state)
        shared = TwoPlayerSolver(options=S2.OPT_DEFAULT | S2.OPT_SHARE)
        for _ in range(8):
            sample_world(v.state, params_vector(d.rules), me, np.int64(v.unseen),
                         np.int64(v.other_hand_size - bin(v.known_other).count("1")),
                         hand_constraints(v.state, me), rng, T, np.empty(32, np.int64))
            assert (shared.card_values(T) == TwoPlayerSolver().card_values(T)).all()
            assert shared.solve(T) == TwoPlayerSolver().solve(T)


def test_one_solver_on_positions_of_several_deals():
    """The world-free keys name the deal's covers: one solver on late positions of
    several deals in turn, back and forth, gives a fresh solver's values."""
    positions = []
    for preset in ("belote_a_deux", "belote_decouverte", "belote_a_deux"):
        for seed in range(3):
            d = endgame(preset, 500 + seed, 14 + 2 * seed)
            if not d.is_terminal:
                positions.append(d)
    assert len(positions) >= 6
    shared = TwoPlayerSolver(options=S2.OPT_DEFAULT | S2.OPT_SHARE)
    for d in positions + positions[::-1]:
        assert shared.solve(d.state) == TwoPlayerSolver().solve(d.state)
        assert (shared.card_values(d.state) == TwoPlayerSolver().card_values(d.state)).all()


def test_bad_tables_and_options_are_refused():
    with pytest.raises(ValueError, match="tt_bits"):
        TwoPlayerSolver(tt_bits=40)
    with pytest.raises(ValueError, match="options"):
        TwoPlayerSolver(options=S2.OPT_MAX + 1)


def test_the_solver_refuses_a_deal_before_its_play():
    with pytest.raises(ValueError, match="play phase"):
        TwoPlayerSolver().solve(TwoPlayerDeal(seed=1).state)


def test_the_solver_loads_from_the_numba_cache():
    """numba's cache once failed on recursive kernels (numba issues 6061, 6713: a
    segfault in the process that loads it); the search is one self-recursive kernel, as
    the four-player solver's. Two processes on the suite's cache: the first compiles
    what the tests above have not cached, the second loads it."""
    code = ("from coinche_rl.two_player import TwoPlayerDeal\n"
            "from coinche_rl.solver_two import TwoPlayerSolver\n"
            "d = TwoPlayerDeal('belote_decouverte', seed=2, dealer=0)\n"
            "d.apply('take')\n"
            "for _ in range(16):\n"
            "    d.apply(d.legal_actions()[0])\n"
            "print(TwoPlayerSolver().solve(d.state))\n")
    env = dict(os.environ, OPENBLAS_NUM_THREADS="1")
    outs = [subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                           timeout=300) for _ in range(2)]
    assert [o.returncode for o in outs] == [0, 0], outs[1].stderr[-500:]
    assert outs[0].stdout == outs[1].stdout and int(outs[0].stdout) >= 0


def test_the_benchmark_positions():
    """bench_solver's two-player positions: a deal at its first card, or the first
    decision with a choice from the asked trick on."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from bench_solver import two_player_positions
    for d in two_player_positions("belote_a_deux", 2, 800):
        assert d.phase == "play" and not d.plays
    for d in two_player_positions("belote_decouverte", 2, 950, trick=4):
        assert d.trick_number >= 4 and len(d.legal_actions()) >= 2
