"""Throughput of the environments of belote for two players on one core
(``coinche_rl.envs.coinche_v0``, ``single_agent`` and ``vector`` with its rules).

Figures (best of ``--repeats`` timed runs after a warm-up; single thread; uniformly
random legal actions everywhere; preset ``belote_a_deux``):

* ``aec_steps_per_s``: ``coinche_v0.env(rules="belote_a_deux")`` with its default wrappers, the usual
  ``agent_iter`` / ``last`` / ``step`` loop, one deal per episode, counting ``env.step``
  calls (including the final ``None`` steps of finished agents).
* ``single_agent_steps_per_s``: ``gymnasium.make("coinche_rl/TwoPlayer-v0")``, player 0
  against random legal play, counting the learner's ``step`` calls.
* ``vector_steps_per_s``: ``VectorCoinche(4096, rules="belote_a_deux")`` (both players driven by the caller):
  agent-steps per second of ``step`` (apply one action in each game, autoreset, the
  observation and legal mask of the next player to act), timed alone; the random legal
  actions are drawn by a small numba kernel between steps (``bench_lib.pick_random_legal``),
  whose time is excluded and reported with it as ``vector_steps_per_s_with_picker``.
* ``vector_learner_steps_per_s``: ``CoincheVectorEnv(4096, rules="belote_a_deux", copy=False)``, a learning
  player against a random opponent played inside numba: learner steps per second (each
  also steps about one opponent action).

Usage: ``python benchmarks/bench_two_player_env.py [--quick] [--repeats K]``. The last
line of output is one JSON object.
"""

from __future__ import annotations

import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_engine import machine  # noqa: E402
from bench_lib import (aec_loop, bench_arguments, caller_vector_rates,  # noqa: E402
                       learner_vector_rate, single_agent_loop, vector_figures, warm_best_rate)

RULES = "belote_a_deux"


def two_player_aec(episodes: int):
    from coinche_rl.envs import coinche_v0
    return lambda: aec_loop(lambda: coinche_v0.env(rules=RULES), episodes)


def single_agent(episodes: int):
    return single_agent_loop("coinche_rl.envs.single_agent",
                             "coinche_rl/TwoPlayer-v0", episodes, rules=RULES, seat=0)


def vector_rates(batch: int, steps: int):
    """(env-only agent-steps/s, agent-steps/s with the picker) of ``VectorCoinche``."""
    from coinche_rl.envs.vector import VectorCoinche
    return caller_vector_rates(lambda: VectorCoinche(batch, rules=RULES, seed=1), steps)


def learner_rate(batch: int, steps: int) -> float:
    """Learner steps/s of ``CoincheVectorEnv`` against a random opponent (env time only)."""
    from coinche_rl.envs.vector import CoincheVectorEnv
    return learner_vector_rate(
        lambda: CoincheVectorEnv(batch, seat=0, rules=RULES, seed=1, copy=False), steps)


def main(argv=None) -> dict:
    args = bench_arguments(__doc__, argv, quick="fewer episodes (a few seconds)", repeats=3)
    n_deals = 50 if args.quick else 500
    batch = 4096
    v_steps = 20 if args.quick else 200

    print(f"machine: {machine()}")
    aec = warm_best_rate(two_player_aec(n_deals), args.repeats)
    print(f"AEC coinche_v0.env two-player (default wrappers), env.step calls/s  {aec:12,.0f}")

    sa = warm_best_rate(single_agent(n_deals), args.repeats)
    print(f"single-agent Gymnasium adapter, learner steps/s             {sa:12,.0f}")

    vec, vec_pick, lrn = vector_figures(vector_rates, learner_rate, batch, v_steps, args.repeats)
    print(f"vector env, batch {batch}, agent-steps/s (env only)        {vec:12,.0f}")
    print(f"vector env, batch {batch}, agent-steps/s with the picker    {vec_pick:12,.0f}")
    print(f"vector learner env, batch {batch}, learner steps/s         {lrn:12,.0f}")

    result = {
        "machine": machine(),
        "quick": args.quick,
        "rules": RULES,
        "aec_steps_per_s": round(aec),
        "single_agent_steps_per_s": round(sa),
        "vector_batch": batch,
        "vector_steps_per_s": round(vec),
        "vector_steps_per_s_with_picker": round(vec_pick),
        "vector_learner_steps_per_s": round(lrn),
    }
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
