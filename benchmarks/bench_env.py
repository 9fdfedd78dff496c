"""Environment throughput on one core: the PettingZoo AEC env, the single-agent
Gymnasium adapter, and two reference points.

Figures (best of ``--repeats`` timed runs after a warm-up; single thread; uniformly
random legal actions everywhere):

* ``aec_steps_per_s``: ``coinche_v0.env(rules="ffb")`` with its default wrappers, the
  usual ``agent_iter`` / ``last`` / ``step`` loop, one deal per episode, counting
  ``env.step`` calls (including the final ``None`` steps of finished agents).
* ``single_agent_steps_per_s``: ``gymnasium.make("coinche_rl/Coinche-v0")``, seat 0
  against random legal play, counting the learner's ``step`` calls.
* ``pz_connect_four_steps_per_s``: PettingZoo's ``classic.connect_four_v3`` in the same
  loop, for scale (null when it cannot be imported: it needs ``pygame``).
* ``colver_py_steps_per_s``: the colver engine driven from Python one action at a time
  (``colver.Env.deal(seed=i)``, then ``env.step(random.choice(env.legal_actions()))``
  until ``env.phase() == 2``), counting steps: a compiled engine behind a Python loop,
  without observations (null when colver is not installed).
* ``aec_raw_steps_per_s``: the same loop over ``coinche_v0.raw_env`` (no wrappers), to
  show what PettingZoo's wrappers cost per step.
* ``vector_steps_per_s``: ``VectorCoinche(4096)`` (every seat driven by the caller):
  agent-steps per second of ``step`` (apply one action in each game, autoreset, and the
  observation and legal mask of the next seat to act), timed alone; the random legal
  actions are drawn by a small numba kernel between steps, whose time is excluded and
  reported with it as ``vector_steps_per_s_with_picker``.
* ``vector_learner_steps_per_s``: ``CoincheVectorEnv(4096, copy=False)``, a learning
  seat against random opponents played inside numba: learner steps per second (each
  also steps about three opponent actions).
* ``vector_match_steps_per_s``, ``vector_match_learner_steps_per_s``: the same two in
  match mode (``mode="match"``: whole matches to the target, the match bookkeeping in
  numba at each deal's end).
* ``aec_vs_connect_four`` / ``aec_vs_colver_py`` / ``vector_vs_colver_py`` /
  ``vector_vs_connect_four``: ratios of the figures (null when a side is missing:
  ``pip install pygame`` for connect four, ``pip install colver`` for colver).

Usage: ``python benchmarks/bench_env.py [--quick] [--repeats K]``. The last line of
output is one JSON object.
"""

from __future__ import annotations

import json
import os
import random
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_engine import machine  # noqa: E402
from bench_lib import (aec_loop, bench_arguments, caller_vector_rates,  # noqa: E402
                       learner_vector_rate, single_agent_loop, vector_figures, warm_best_rate)


def coinche_aec(episodes: int):
    from coinche_rl.envs import coinche_v0
    return lambda: aec_loop(lambda: coinche_v0.env(rules="ffb"), episodes)


def single_agent(episodes: int):
    return single_agent_loop("coinche_rl.envs.single_agent", "coinche_rl/Coinche-v0",
                             episodes, rules="ffb", seat=0)


def connect_four(episodes: int):
    """The connect-four loop, or (None, reason) when PettingZoo's classic envs are missing."""
    try:
        from pettingzoo.classic import connect_four_v3
    except ImportError as exc:          # it imports pygame
        return None, f"{type(exc).__name__}: {exc}"
    return (lambda: aec_loop(connect_four_v3.env, episodes)), None


def colver_py(deals: int):
    try:
        import colver
    except ImportError as exc:
        return None, f"{type(exc).__name__}: {exc}"

    def run() -> int:
        rnd = random.Random(0)
        steps = 0
        for i in range(deals):
            env = colver.Env.deal(seed=i)
            while env.phase() != 2:
                env.step(rnd.choice(env.legal_actions()))
                steps += 1
        return steps
    return run, None


def vector_rates(batch: int, steps: int, mode: str = "deal"):
    """(env-only agent-steps/s, agent-steps/s with the picker) of ``VectorCoinche``."""
    from coinche_rl.envs.vector import VectorCoinche
    return caller_vector_rates(lambda: VectorCoinche(batch, rules="ffb", seed=1, mode=mode),
                               steps)


def learner_rate(batch: int, steps: int, mode: str = "deal") -> float:
    """Learner steps/s of ``CoincheVectorEnv`` against random opponents (env time only)."""
    from coinche_rl.envs.vector import CoincheVectorEnv
    return learner_vector_rate(lambda: CoincheVectorEnv(batch, seat=0, seed=1, copy=False,
                                                        mode=mode),
                               steps)


def ratio(a, b):
    return None if a is None or b is None else round(a / b, 3)


def optional_rate(label: str, fn_why, repeats: int):
    """Rate of a peer's loop ``(fn, why)``, or None (printed with the reason) when the
    peer is unavailable."""
    fn, why = fn_why
    if fn is None:
        print(f"{label.split(',')[0]}: unavailable ({why}); figure null")
        return None
    rate = warm_best_rate(fn, repeats)
    print(f"{label} {rate:12,.0f}")
    return rate


def main(argv=None) -> dict:
    args = bench_arguments(__doc__, argv, quick="fewer episodes (a few seconds)", repeats=3)
    n_deals = 100 if args.quick else 1_000          # coinche deals (AEC and single-agent)
    n_c4 = 200 if args.quick else 2_000             # connect-four games
    n_colver = 2_000 if args.quick else 20_000      # colver deals

    print(f"machine: {machine()}")
    aec = warm_best_rate(coinche_aec(n_deals), args.repeats)
    print(f"AEC coinche_v0.env (default wrappers), env.step calls/s  {aec:12,.0f}")

    sa = warm_best_rate(single_agent(n_deals), args.repeats)
    print(f"single-agent Gymnasium adapter, learner steps/s          {sa:12,.0f}")

    c4 = optional_rate("PettingZoo connect_four_v3, env.step calls/s            ",
                       connect_four(n_c4), args.repeats)
    cv = optional_rate("colver Python step loop (no observations), steps/s       ",
                       colver_py(n_colver), args.repeats)

    raw_fn = lambda: aec_loop(lambda: __import__("coinche_rl.envs.coinche_v0",  # noqa: E731
                                                 fromlist=["x"]).raw_env(rules="ffb"), n_deals)
    aec_raw = warm_best_rate(raw_fn, args.repeats)
    print(f"AEC coinche_v0.raw_env (no wrappers), env.step calls/s   {aec_raw:12,.0f}")

    batch = 4096
    v_steps = 20 if args.quick else 200
    vec, vec_pick, lrn = vector_figures(vector_rates, learner_rate, batch, v_steps, args.repeats)
    print(f"vector env, batch {batch}, agent-steps/s (env only)     {vec:12,.0f}")
    print(f"vector env, batch {batch}, agent-steps/s with the picker {vec_pick:12,.0f}")
    print(f"vector learner env, batch {batch}, learner steps/s      {lrn:12,.0f}")
    m_vec, _, m_lrn = vector_figures(lambda b, s: vector_rates(b, s, "match"),
                                     lambda b, s: learner_rate(b, s, "match"), batch, v_steps,
                                     args.repeats)
    print(f"vector env, match mode, agent-steps/s (env only)      {m_vec:12,.0f}")
    print(f"vector learner env, match mode, learner steps/s       {m_lrn:12,.0f}")

    r_c4, r_cv = ratio(aec, c4), ratio(aec, cv)
    r_vec, r_vec_c4 = ratio(vec, cv), ratio(vec, c4)
    print(f"AEC vs connect_four: {'n/a' if r_c4 is None else f'{r_c4:.3f}x'}   "
          f"AEC vs colver Python loop: {'n/a' if r_cv is None else f'{r_cv:.3f}x'}   "
          f"vector vs colver Python loop: {'n/a' if r_vec is None else f'{r_vec:.1f}x'}   "
          f"vector vs connect_four: {'n/a' if r_vec_c4 is None else f'{r_vec_c4:.1f}x'}")

    result = {
        "machine": machine(),
        "quick": args.quick,
        "aec_steps_per_s": round(aec),
        "single_agent_steps_per_s": round(sa),
        "pz_connect_four_steps_per_s": None if c4 is None else round(c4),
        "colver_py_steps_per_s": None if cv is None else round(cv),
        "aec_raw_steps_per_s": round(aec_raw),
        "vector_batch": batch,
        "vector_steps_per_s": round(vec),
        "vector_steps_per_s_with_picker": round(vec_pick),
        "vector_learner_steps_per_s": round(lrn),
        "vector_match_steps_per_s": round(m_vec),
        "vector_match_learner_steps_per_s": round(m_lrn),
        "aec_vs_connect_four": r_c4,
        "aec_vs_colver_py": r_cv,
        "vector_vs_colver_py": r_vec,
        "vector_vs_connect_four": r_vec_c4,
    }
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
