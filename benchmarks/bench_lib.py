"""Measurement helpers shared by the benchmark scripts (and by their tests), kept out of
the library: the library's modules describe behaviour, these functions time and
compare it. Figures they produced are recorded in ``benchmarks/RESULTS.md``.

* :func:`sampler_throughput`: worlds per second of the exact uniform sampler
  (``bench_solver.py``, key ``sampler_worlds_per_s``);
* :func:`evaluation_throughput`: worlds per second of
  :func:`coinche_rl.agents.evaluation.evaluate_hand` for one method;
* :func:`duplicate_margin`: a duplicate comparison of two numba bots, all in numba
  (:func:`coinche_rl.agents.numba_bots.play_deals`), with its own timing; the arena
  (:mod:`coinche_rl.arena`) is the library's tournament.

Import from a benchmark script or a test with ``benchmarks/`` on ``sys.path``::

    sys.path.insert(0, "benchmarks")
    from bench_lib import sampler_throughput

>>> from coinche_rl.agents.numba_bots import BOT_HEURISTIC
>>> r = duplicate_margin(BOT_HEURISTIC, BOT_HEURISTIC, n_deals=50, seed=1)
>>> r["margin"], r["sd"]
(0.0, 0.0)
"""

from __future__ import annotations

import math
import time
from typing import Dict, Union

import numpy as np

from coinche_rl.agents.evaluation import evaluate_hand
from coinche_rl.agents.numba_bots import deal_states, play_deals
from coinche_rl.agents.sampler import WorldSampler
from coinche_rl.engine import S_SCORE
from coinche_rl.rules import RuleSet, get_rules, params_vector

__all__ = ["benchmark_infosets", "sampler_throughput", "evaluation_throughput",
           "duplicate_margin"]


# ------------------------------------------------------------------ sampler
def benchmark_infosets(rules: str, n_deals: int, seed: int):
    """Information sets of the seat to play at every card of ``n_deals`` random deals
    (random contract, uniformly random legal play)."""
    from coinche_rl.envs.infoset import information_set
    from coinche_rl.game import Deal
    rng = np.random.default_rng(seed)
    r = get_rules(rules)
    strains = sorted(r.allowed_strains)
    out = []
    for _ in range(n_deals):
        d = Deal(r, seed=int(rng.integers(2 ** 31)), dealer=int(rng.integers(4)))
        taker = int(rng.integers(4))
        strain = strains[int(rng.integers(len(strains)))]
        if r.family == "classic":
            d.with_contract(0, strain, taker=taker)
        else:
            d.with_contract(80, strain, taker=taker)
        while not d.is_terminal:
            legal = d.legal_actions()
            out.append(information_set(d, d.current_player))
            d.apply(legal[int(rng.integers(len(legal)))])
    return out


def sampler_throughput(rules: str = "ffb", worlds: int = 200_000, *, n_deals: int = 4,
                       seed: int = 0, repeats: int = 3, with_tables: bool = False) -> float:
    """Worlds per second on one core (benchmark key ``sampler_worlds_per_s``): uniform
    worlds drawn with :meth:`WorldSampler.sample` from the information sets of the seat
    to play at every card of ``n_deals`` random deals (about ``worlds`` in all, the
    same number from each), best of ``repeats``. ``with_tables=True`` also times
    building each sampler from its information set (the per-decision cost of a PIMC bot).
    """
    infos = benchmark_infosets(rules, n_deals, seed)
    per = max(1, worlds // len(infos))
    samplers = [WorldSampler(i) for i in infos]
    samplers[0].sample(2, 0)
    best = 0.0
    for rep in range(repeats):
        t = time.perf_counter()
        total = 0
        for j, info in enumerate(infos):
            s = WorldSampler(info) if with_tables else samplers[j]
            total += len(s.sample(per, seed + rep))
        best = max(best, total / (time.perf_counter() - t))
    return best


# ------------------------------------------------------------------ hand evaluation
def evaluation_throughput(method: str = "dd", rules: str = "ffb", samples: int = 40, *,
                          hand: str = "JH 9H AH TH 7S 8D KC QC", seed: int = 0,
                          threads: int = 1) -> float:
    """Worlds per second of :func:`~coinche_rl.agents.evaluation.evaluate_hand` (every
    strain of ``rules``, every level) for one method, kernels warm (benchmark key
    ``evaluation_<method>_worlds_per_s``)."""
    evaluate_hand(rules, 0, hand, 3, samples=2, seed=seed + 1, method=method, threads=threads)
    t = time.perf_counter()
    evaluate_hand(rules, 0, hand, 3, samples=samples, seed=seed, method=method, threads=threads)
    return samples / (time.perf_counter() - t)


# ------------------------------------------------------------------ numba bots
def _team_diff(states: np.ndarray) -> np.ndarray:
    return (states[:, S_SCORE] - states[:, S_SCORE + 1]).astype(np.float64)


def duplicate_margin(bot_a: int, bot_b: int, rules: Union[str, RuleSet] = "ffb",
                     n_deals: int = 10000, seed: int = 0) -> Dict[str, float]:
    """Duplicate comparison of two numba bots: each of ``n_deals`` random deals is played
    twice, ``bot_a`` at seats 0 and 2 then at seats 1 and 3 (same deal, same dealer,
    same per-seat seeds). For each pair, the margin is the mean over the two seatings of
    ``bot_a``'s team score minus ``bot_b``'s.

    Returns a dict: ``margin`` (mean per deal, points), ``ci95`` (half-width of its 95%
    confidence interval, normal approximation), ``sd`` (standard deviation of the
    per-pair margins), ``pairs``, ``deals_per_s`` (both seatings, all four seats in
    numba, timed around :func:`~coinche_rl.agents.numba_bots.play_deals` only; warm the
    kernels first).
    """
    rules = get_rules(rules)
    P = params_vector(rules)
    s1 = deal_states(rules, n_deals, seed)
    s2 = s1.copy()
    seeds = np.random.default_rng(seed).integers(0, 2 ** 62, size=(n_deals, 4), dtype=np.int64)
    t0 = time.perf_counter()
    bad1 = play_deals(P, s1, np.array([bot_a, bot_b, bot_a, bot_b], dtype=np.int64), seeds)
    bad2 = play_deals(P, s2, np.array([bot_b, bot_a, bot_b, bot_a], dtype=np.int64), seeds)
    elapsed = time.perf_counter() - t0
    if bad1 or bad2:
        raise RuntimeError(f"a bot chose an illegal action (deal {max(bad1, bad2) - 1})")
    pair = (_team_diff(s1) - _team_diff(s2)) / 2.0
    n = len(pair)
    sd = float(pair.std(ddof=1)) if n > 1 else 0.0
    return {"margin": float(pair.mean()) if n else 0.0,
            "ci95": 1.96 * sd / math.sqrt(n) if n else 0.0,
            "sd": sd, "pairs": n,
            "deals_per_s": 2 * n / elapsed if elapsed > 0 else float("inf")}
