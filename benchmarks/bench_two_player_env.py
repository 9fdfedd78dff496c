"""Throughput of the environments of belote for two players on one core
(``coinche_rl.envs.two_player_v0``, ``two_player_single_agent``, ``two_player_vector``).

Figures (best of ``--repeats`` timed runs after a warm-up; single thread; uniformly
random legal actions everywhere; preset ``belote_a_deux``):

* ``aec_steps_per_s``: ``two_player_v0.env()`` with its default wrappers, the usual
  ``agent_iter`` / ``last`` / ``step`` loop, one deal per episode, counting ``env.step``
  calls (including the final ``None`` steps of finished agents).
* ``single_agent_steps_per_s``: ``gymnasium.make("coinche_rl/TwoPlayer-v0")``, player 0
  against random legal play, counting the learner's ``step`` calls.
* ``vector_steps_per_s``: ``VectorTwoPlayer(4096)`` (both players driven by the caller):
  agent-steps per second of ``step`` (apply one action in each game, autoreset, the
  observation and legal mask of the next player to act), timed alone; the random legal
  actions are drawn by a small numba kernel between steps (``bench_env.pick_random_legal``),
  whose time is excluded and reported with it as ``vector_steps_per_s_with_picker``.
* ``vector_learner_steps_per_s``: ``TwoPlayerVectorEnv(4096, copy=False)``, a learning
  player against a random opponent played inside numba: learner steps per second (each
  also steps about one opponent action).

Usage: ``python benchmarks/bench_two_player_env.py [--quick] [--repeats K]``. The last
line of output is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_engine import machine  # noqa: E402
from bench_env import aec_loop, best_rate, pick_random_legal  # noqa: E402

RULES = "belote_a_deux"


def two_player_aec(episodes: int):
    from coinche_rl.envs import two_player_v0
    return lambda: aec_loop(lambda: two_player_v0.env(rules=RULES), episodes)


def single_agent(episodes: int):
    import gymnasium
    import coinche_rl.envs.two_player_single_agent  # noqa: F401  (registers the id)

    def run() -> int:
        env = gymnasium.make("coinche_rl/TwoPlayer-v0", rules=RULES, seat=0)
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


def vector_rates(batch: int, steps: int):
    """(env-only agent-steps/s, agent-steps/s with the picker) of ``VectorTwoPlayer``."""
    from coinche_rl.envs.two_player_vector import VectorTwoPlayer
    venv = VectorTwoPlayer(batch, rules=RULES, seed=1)
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


def learner_rate(batch: int, steps: int) -> float:
    """Learner steps/s of ``TwoPlayerVectorEnv`` against a random opponent (env time only)."""
    from coinche_rl.envs.two_player_vector import TwoPlayerVectorEnv
    env = TwoPlayerVectorEnv(batch, seat=0, rules=RULES, seed=1, copy=False)
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


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer episodes (a few seconds)")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    n_deals = 50 if args.quick else 500
    batch = 4096
    v_steps = 20 if args.quick else 200

    print(f"machine: {machine()}")
    aec_fn = two_player_aec(n_deals)
    aec_fn()                                        # warm-up (numba cache, imports)
    aec = best_rate(aec_fn, args.repeats)
    print(f"AEC two_player_v0.env (default wrappers), env.step calls/s  {aec:12,.0f}")

    sa_fn = single_agent(n_deals)
    sa_fn()
    sa = best_rate(sa_fn, args.repeats)
    print(f"single-agent Gymnasium adapter, learner steps/s             {sa:12,.0f}")

    best = (0.0, 0.0)
    for _ in range(args.repeats):
        best = max(best, vector_rates(batch, v_steps))
    vec, vec_pick = best
    print(f"vector env, batch {batch}, agent-steps/s (env only)        {vec:12,.0f}")
    print(f"vector env, batch {batch}, agent-steps/s with the picker    {vec_pick:12,.0f}")
    lrn = max(learner_rate(batch, v_steps) for _ in range(args.repeats))
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
