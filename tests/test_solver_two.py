"""The two-player double-dummy solver (coinche_rl.solver_two) against exhaustive minimax
through the engine on endgames, and its loading from the numba cache."""

from __future__ import annotations

import os
import subprocess
import sys

import numpy as np
import pytest

from coinche_rl import actions as A
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


def test_the_solver_refuses_a_deal_before_its_play():
    with pytest.raises(ValueError, match="play phase"):
        TwoPlayerSolver().solve(TwoPlayerDeal(seed=1).state)


def test_the_solver_loads_from_the_numba_cache():
    """numba cannot cache a recursive function (numba issues 6061, 6713: a segfault in
    the process that loads it): the search is iterative. Two processes on the suite's
    cache: the first compiles what the tests above have not cached, the second loads it."""
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
