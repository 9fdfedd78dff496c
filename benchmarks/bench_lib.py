"""Measurement helpers shared by the benchmark scripts (and by their tests), kept out of
the library: the library's modules describe behaviour, these functions time and
compare it. Figures they produced are recorded in ``benchmarks/RESULTS.md``.

* :func:`sampler_throughput`: worlds per second of the exact uniform sampler
  (``bench_solver.py``, key ``sampler_worlds_per_s``);
* :func:`evaluation_throughput`: worlds per second of
  :func:`coinche_rl.agents.evaluation.evaluate_hand` for one method;
* :func:`benchmark_positions`, :func:`pimc_world_ms`, :func:`pimc_decision_ms`: card-play
  positions and the CPU time of one PIMC world / one PIMC decision
  (:mod:`coinche_rl.agents.pimc`; ``bench_solver.py``, ``bench_strength.py``);
* :func:`duplicate_margin`: a duplicate comparison of two numba bots, all in numba
  (:func:`coinche_rl.agents.numba_bots.play_deals`), with its own timing; the arena
  (:mod:`coinche_rl.arena`) is the library's tournament.
* :func:`bench_arguments`, :func:`timed`, :func:`best_rate`, :func:`warm_best_rate`: a
  script's ``--quick`` / ``--repeats`` command line and the best of repeated timed runs;
* :func:`aec_loop`, :func:`single_agent_loop`, :func:`caller_vector_rates`,
  :func:`learner_vector_rate`, :func:`vector_figures`, :func:`pick_random_legal`: random
  legal play through the environments of either family (``bench_env.py``,
  ``bench_two_player_env.py``).

Import from a benchmark script or a test with ``benchmarks/`` on ``sys.path``::

    sys.path.insert(0, "benchmarks")
    from bench_lib import sampler_throughput

>>> from coinche_rl.agents.numba_bots import BOT_HEURISTIC
>>> r = duplicate_margin(BOT_HEURISTIC, BOT_HEURISTIC, n_deals=50, seed=1)
>>> r["margin"], r["sd"]
(0.0, 0.0)
"""

from __future__ import annotations

import argparse
import importlib
import math
import time
from typing import Callable, Dict, List, Optional, Tuple, Union

import numpy as np
from numba import njit

from coinche_rl.actions import N_ACTIONS
from coinche_rl.agents.base import PlayerView
from coinche_rl.agents.evaluation import evaluate_hand
from coinche_rl.agents.numba_bots import deal_states, play_deals
from coinche_rl.agents.pimc import PIMCAgent, PIMCError, draw_worlds_into, world_sums_into
from coinche_rl.agents.sampler import WorldSampler, build_table, new_table
from coinche_rl.engine import STATE_SIZE, py, rng_seed
from coinche_rl.game import Deal
from coinche_rl.rules import N_SEATS, N_TRICKS, RuleSet, check_int, get_rules, params_vector, team
from coinche_rl.solver import SCORE, keep_table, new_workspace

__all__ = ["benchmark_infosets", "sampler_throughput", "evaluation_throughput",
           "benchmark_positions", "pimc_world_ms", "pimc_decision_ms", "duplicate_margin",
           "bench_arguments", "timed", "best_rate", "warm_best_rate", "aec_loop",
           "single_agent_loop", "pick_random_legal", "caller_vector_rates",
           "learner_vector_rate", "vector_figures"]


# ------------------------------------------------------------------ scripts and timing
def bench_arguments(doc: str, argv=None, *, quick: str = "fewer deals (a few seconds)",
                    repeats: Optional[int] = None) -> argparse.Namespace:
    """A benchmark script's command line: ``--quick`` (help ``quick``) and ``--repeats K``
    (default ``repeats``), described by the first paragraph of ``doc``."""
    ap = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help=quick)
    ap.add_argument("--repeats", type=int, default=repeats)
    return ap.parse_args(argv)


def timed(repeats: int, fn):
    """(best seconds, last result) of ``repeats`` calls."""
    best, res = float("inf"), None
    for _ in range(repeats):
        t0 = time.perf_counter()
        res = fn()
        best = min(best, time.perf_counter() - t0)
    return best, res


def best_rate(fn, repeats: int) -> float:
    """Steps per second of ``fn()`` (which returns its step count): best of ``repeats``."""
    best = 0.0
    for _ in range(repeats):
        t = time.perf_counter()
        n = fn()
        best = max(best, n / (time.perf_counter() - t))
    return best


def warm_best_rate(fn, repeats: int) -> float:
    """One call of ``fn`` (the warm-up: numba cache, imports), then :func:`best_rate`."""
    fn()
    return best_rate(fn, repeats)


# ------------------------------------------------------------------ environments
def aec_loop(make_env, episodes: int, seed: int = 0) -> int:
    """Random legal play through an AEC env for ``episodes`` episodes; env.step calls."""
    env = make_env()
    rng = np.random.default_rng(seed)
    steps = 0
    for ep in range(episodes):
        env.reset(seed=seed + ep)
        for agent in env.agent_iter():
            obs, reward, termination, truncation, info = env.last()
            if termination or truncation:
                action = None
            else:
                legal = np.flatnonzero(obs["action_mask"])
                action = int(legal[rng.integers(len(legal))])
            env.step(action)
            steps += 1
    env.close()
    return steps


def single_agent_loop(module: str, env_id: str, episodes: int, **kwargs) -> Callable[[], int]:
    """A function playing ``episodes`` episodes of the Gymnasium env ``env_id``
    (registered by importing ``module``; made with ``kwargs``), the learner playing
    uniformly random legal actions; it returns the learner's ``step`` calls."""
    import gymnasium
    importlib.import_module(module)

    def run() -> int:
        env = gymnasium.make(env_id, **kwargs)
        rng = np.random.default_rng(0)
        steps = 0
        for ep in range(episodes):
            env.reset(seed=ep)
            done = False
            while not done:
                legal = np.flatnonzero(env.unwrapped.action_masks())
                _, _, done, _, _ = env.step(int(legal[rng.integers(len(legal))]))
                steps += 1
        env.close()
        return steps
    return run


@njit(cache=True)
def pick_random_legal(masks, out, seed):
    """A uniformly random legal action per row of ``masks`` (an LCG: the agent's cost,
    kept tiny and out of the env's timing)."""
    x = seed
    for i in range(masks.shape[0]):
        n = 0
        for a in range(masks.shape[1]):
            n += masks[i, a]
        x = (x * 6364136223846793005 + 1442695040888963407) & 0x7FFFFFFFFFFFFFFF
        k = (x >> 20) % n
        for a in range(masks.shape[1]):
            if masks[i, a]:
                if k == 0:
                    out[i] = a
                    break
                k -= 1


def caller_vector_rates(make_venv, steps: int) -> Tuple[float, float]:
    """(env-only agent-steps/s, agent-steps/s with the picker) of ``steps`` steps of the
    caller-driven vector env ``make_venv()`` (after 20 steps of warm-up)."""
    venv = make_venv()
    batch = venv.num_envs
    ts = venv.reset()
    acts = np.zeros(batch, dtype=np.int64)
    for k in range(20):                                 # warm-up, compiles
        pick_random_legal(ts.action_mask, acts, k)
        ts = venv.step(acts)
    env_time = 0.0
    t0 = time.perf_counter()
    for k in range(steps):
        pick_random_legal(ts.action_mask, acts, k + 100)
        t = time.perf_counter()
        ts = venv.step(acts)
        env_time += time.perf_counter() - t
    total = time.perf_counter() - t0
    return batch * steps / env_time, batch * steps / total


def learner_vector_rate(make_env, steps: int) -> float:
    """Learner steps/s of ``steps`` steps of the learner vector env ``make_env()`` (env
    time only, after 10 steps of warm-up)."""
    env = make_env()
    batch = env.num_envs
    env.reset()
    acts = np.zeros(batch, dtype=np.int64)
    masks = env._b.masks
    for k in range(10):
        pick_random_legal(masks, acts, k)
        env.step(acts)
    env_time = 0.0
    for k in range(steps):
        pick_random_legal(masks, acts, k + 100)
        t = time.perf_counter()
        env.step(acts)
        env_time += time.perf_counter() - t
    return batch * steps / env_time


def vector_figures(vector_rates, learner_rate, batch: int, steps: int,
                   repeats: int) -> Tuple[float, float, float]:
    """A family's vector env figures, each the best of ``repeats`` runs: env-only and
    with-picker agent-steps/s (``vector_rates(batch, steps)``, as
    :func:`caller_vector_rates` returns them) and learner steps/s
    (``learner_rate(batch, steps)``)."""
    best = (0.0, 0.0)
    for _ in range(repeats):
        best = max(best, vector_rates(batch, steps))
    lrn = max(learner_rate(batch, steps) for _ in range(repeats))
    return best[0], best[1], lrn


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
        d = Deal(r, seed=int(rng.integers(2 ** 31)), dealer=int(rng.integers(N_SEATS)))
        taker = int(rng.integers(N_SEATS))
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


# ------------------------------------------------------------------ PIMC
def benchmark_positions(n_positions: int, preset: str = "ffb", seed: int = 0,
                        trick: int = 1) -> List:
    """``n_positions`` card-play positions of the ``trick``-th trick (1 = the first): a
    random deal and dealer, a contract of 80 in a random allowed strain by a random
    taker (the classic family: that strain, no value), then random legal actions up to
    a random place in that trick (the opening lead included), kept when the seat to act
    has a choice (two legal actions or more). Returns Deals."""
    rules = get_rules(preset)
    check_int(trick, "trick", 1, N_TRICKS, error=PIMCError)
    rng = np.random.default_rng(seed)
    strains = sorted(rules.allowed_strains)
    out = []
    while len(out) < n_positions:
        d = Deal(rules, seed=int(rng.integers(2 ** 31)), dealer=int(rng.integers(N_SEATS)))
        st = strains[int(rng.integers(len(strains)))]
        d.with_contract(0 if rules.family == "classic" else 80, st, taker=int(rng.integers(N_SEATS)))
        cards = N_SEATS * (trick - 1) + int(rng.integers(N_SEATS))
        while not d.is_terminal and (N_SEATS * int(py.trick_number(d.state))
                                     + int(py.cards_in_trick(d.state))) < cards:
            legal = d.legal_actions()
            d.apply(int(legal[int(rng.integers(len(legal)))]))
        if not d.is_terminal and len(d.legal_actions()) >= 2:
            out.append(d)
    return out


def pimc_world_ms(n_positions: int = 40, seed: int = 0, preset: str = "ffb",
                  trick: int = 1) -> List[float]:
    """CPU milliseconds (``time.process_time``: this single-threaded process's time on its
    core, so that other jobs on a shared host do not count) to solve one world (the exact
    value of every legal action) at :func:`benchmark_positions` of the ``trick``-th trick,
    one world sampled from the information set of the seat to act; a fresh table each
    time (benchmark key ``pimc_world_ms``: the median)."""
    positions = benchmark_positions(n_positions, preset, seed, trick)
    W = new_workspace(17)
    keep_table(W, 0)
    a = np.zeros(32, dtype=np.int64)
    v = np.zeros(32, dtype=np.int64)
    sums = np.zeros(N_ACTIONS, dtype=np.int64)
    rng = np.zeros(1, dtype=np.uint64)
    table = new_table()
    hands = np.zeros(N_SEATS, dtype=np.int64)
    Sw = np.zeros((1, STATE_SIZE), dtype=np.int64)
    no_weights, no_q = np.zeros(1), np.zeros(1)
    out = []
    for i, d in enumerate(positions):
        view = PlayerView.from_deal(d)
        info = view.information_set
        build_table(table, view.seat, np.array(info.hand_sizes, dtype=np.int64),
                    np.array(info.known, dtype=np.int64), np.array(info.possible, dtype=np.int64),
                    np.int64(info.played))
        rng_seed(rng, seed, i)
        pub = view.public_state
        t = time.process_time()
        draw_worlds_into(table, pub, view.params, view.seat, 1, False, rng, hands, no_weights,
                         no_q, False, 0.0, Sw)
        world_sums_into(W, Sw, 1, view.params, SCORE, team(view.seat), a, v, sums)
        out.append(1000 * (time.process_time() - t))
    return out


def pimc_decision_ms(n_positions: int = 20, worlds: int = 32, seed: int = 0,
                     preset: str = "ffb", trick: int = 1,
                     nodes: Optional[List[int]] = None, spec: str = "") -> List[float]:
    """CPU milliseconds (``time.process_time``) of one PIMC decision
    (``pimc:worlds=<worlds>``'s :meth:`act`, from the view to the card: information set,
    sampler table, ``worlds`` solves) at :func:`benchmark_positions` of the ``trick``-th
    trick, one agent keeping its table between positions as in play (benchmark key
    ``pimc32_decision_ms``: the median). When ``nodes`` is a list, the solver's search
    nodes of each decision are appended to it (deterministic, unlike the time: a
    host-independent measure of the search's work). ``spec``: another PIMC agent spec
    (its own worlds)."""
    positions = benchmark_positions(n_positions, preset, seed, trick)
    if spec:
        from coinche_rl.agents import make_agent
        agent = make_agent(spec)
    else:
        agent = PIMCAgent(worlds=worlds)
    out = []
    for i, d in enumerate(positions):
        view = PlayerView.from_deal(d)
        agent.reset(view.seat, d.rules, seed + i)
        n0 = getattr(agent, "search_nodes", 0)
        t = time.process_time()
        agent.act(view)
        out.append(1000 * (time.process_time() - t))
        if nodes is not None:
            nodes.append(agent.search_nodes - n0)
    return out


# ------------------------------------------------------------------ numba bots
def _team_diff(states: np.ndarray) -> np.ndarray:
    return np.array([py.team_score(S, 0) - py.team_score(S, 1) for S in states],
                    dtype=np.float64)


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
