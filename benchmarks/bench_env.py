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
* ``aec_vs_connect_four`` / ``aec_vs_colver_py`` / ``vector_vs_colver_py``: ratios of
  the figures (null when a side is missing).

Usage: ``python benchmarks/bench_env.py [--quick] [--repeats K]``. The last line of
output is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time

import numpy as np
from numba import njit

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_engine import machine  # noqa: E402


def best_rate(fn, repeats: int) -> float:
    """Steps per second of ``fn()`` (which returns its step count): best of ``repeats``."""
    best = 0.0
    for _ in range(repeats):
        t = time.perf_counter()
        n = fn()
        best = max(best, n / (time.perf_counter() - t))
    return best


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


def coinche_aec(episodes: int):
    from coinche_rl.envs import coinche_v0
    return lambda: aec_loop(lambda: coinche_v0.env(rules="ffb"), episodes)


def single_agent(episodes: int):
    import gymnasium
    import coinche_rl.envs.single_agent  # noqa: F401  (registers the id)

    def run() -> int:
        env = gymnasium.make("coinche_rl/Coinche-v0", rules="ffb", seat=0)
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


def vector_rates(batch: int, steps: int):
    """(env-only agent-steps/s, agent-steps/s with the picker) of ``VectorCoinche``."""
    from coinche_rl.envs.vector import VectorCoinche
    venv = VectorCoinche(batch, rules="ffb", seed=1)
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
    """Learner steps/s of ``CoincheVectorEnv`` against random opponents (env time only)."""
    from coinche_rl.envs.vector import CoincheVectorEnv
    env = CoincheVectorEnv(batch, seat=0, seed=1, copy=False)
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


def ratio(a, b):
    return None if a is None or b is None else round(a / b, 3)


def optional_rate(label: str, fn_why, repeats: int):
    """Rate of a peer's loop ``(fn, why)``, or None (printed with the reason) when the
    peer is unavailable."""
    fn, why = fn_why
    if fn is None:
        print(f"{label.split(',')[0]}: unavailable ({why}); figure null")
        return None
    fn()
    rate = best_rate(fn, repeats)
    print(f"{label} {rate:12,.0f}")
    return rate


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="fewer episodes (a few seconds)")
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args(argv)
    n_deals = 100 if args.quick else 1_000          # coinche deals (AEC and single-agent)
    n_c4 = 200 if args.quick else 2_000             # connect-four games
    n_colver = 2_000 if args.quick else 20_000      # colver deals

    print(f"machine: {machine()}")
    aec_loop_fn = coinche_aec(n_deals)
    aec_loop_fn()                                   # warm-up (numba cache, imports)
    aec = best_rate(aec_loop_fn, args.repeats)
    print(f"AEC coinche_v0.env (default wrappers), env.step calls/s  {aec:12,.0f}")

    sa_fn = single_agent(n_deals)
    sa_fn()
    sa = best_rate(sa_fn, args.repeats)
    print(f"single-agent Gymnasium adapter, learner steps/s          {sa:12,.0f}")

    c4 = optional_rate("PettingZoo connect_four_v3, env.step calls/s            ",
                       connect_four(n_c4), args.repeats)
    cv = optional_rate("colver Python step loop (no observations), steps/s       ",
                       colver_py(n_colver), args.repeats)

    raw_fn = lambda: aec_loop(lambda: __import__("coinche_rl.envs.coinche_v0",  # noqa: E731
                                                 fromlist=["x"]).raw_env(rules="ffb"), n_deals)
    raw_fn()
    aec_raw = best_rate(raw_fn, args.repeats)
    print(f"AEC coinche_v0.raw_env (no wrappers), env.step calls/s   {aec_raw:12,.0f}")

    batch = 4096
    v_steps = 20 if args.quick else 200
    best = (0.0, 0.0)
    for _ in range(args.repeats):
        best = max(best, vector_rates(batch, v_steps))
    vec, vec_pick = best
    print(f"vector env, batch {batch}, agent-steps/s (env only)     {vec:12,.0f}")
    print(f"vector env, batch {batch}, agent-steps/s with the picker {vec_pick:12,.0f}")
    lrn = max(learner_rate(batch, v_steps) for _ in range(args.repeats))
    print(f"vector learner env, batch {batch}, learner steps/s      {lrn:12,.0f}")

    r_c4, r_cv = ratio(aec, c4), ratio(aec, cv)
    r_vec = ratio(vec, cv)
    print(f"AEC vs connect_four: {'n/a' if r_c4 is None else f'{r_c4:.3f}x'}   "
          f"AEC vs colver Python loop: {'n/a' if r_cv is None else f'{r_cv:.3f}x'}   "
          f"vector vs colver Python loop: {'n/a' if r_vec is None else f'{r_vec:.1f}x'}")

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
        "aec_vs_connect_four": r_c4,
        "aec_vs_colver_py": r_cv,
        "vector_vs_colver_py": r_vec,
    }
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
