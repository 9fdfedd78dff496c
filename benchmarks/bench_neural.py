"""Speed and strength of the neural card player (``coinche_rl.agents.neural``).

Figures (one core unless said; CPU figures of a shared 2-core VM move by 30 % or more
from minute to minute, so compare ratios measured in the same run):

* ``train_labelled_decisions_per_s``: labelled card decisions per second of the label
  generator with the shipped run's settings (heuristic or frozen auctions, heuristic play
  with exploration, every legal card scored: the solver from ``solver_cards`` cards left,
  heuristic playouts before); ``train_agent_steps_per_s``: the decisions of the labelled
  deals themselves per second (auction, declare / belote choices and cards at all four
  seats: the environment steps of the data), and ``train_playout_steps_per_s`` the
  decisions taken inside the heuristic playouts that score the cards;
  ``train_rollout_*``: the same figures with playout targets only (``solver_cards=0``).
* ``train_updates_per_s``: optimiser updates per second on one torch thread with the
  shipped architecture and batch size (null without torch); ``train_samples_per_s`` is
  that times the batch size.
* ``nn_decision_us_batch1``: one decision from the engine state (observation, canonical
  order, network input, forward, best legal card), median; ``nn_forward_us_batch1``:
  the forward pass alone; ``nn_decisions_per_s_batched``: the same for batches of 1,024
  positions.
* ``nn_tournament_deals_per_s``: ``nn`` against ``heuristic``, whole deals, duplicate,
  through the arena, end to end (both seatings counted), one process.
* ``nn_vs_heuristic_frozen`` (and ``_ci95``, ``_pairs``): frozen-auction duplicate
  against the heuristic on the deal set of seed 0 (the one PIMC's +31.4 was measured
  on); ``nn_vs_heuristic_full``: whole deals (the nn agent bids as the heuristic);
  ``nn_vs_random_frozen``; ``nn_vs_pimc_frozen``: against ``pimc`` (32 worlds), frozen
  auction, 300 pairs on ``--workers`` processes (null with ``--quick``).
* ``training_minutes`` and the manifest's training facts of the shipped weights.

Usage: ``python benchmarks/bench_neural.py [--quick] [--workers K] [--weights FILE]``; the
last line of output is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

# one core: numpy's BLAS would otherwise use every core for the forward passes
for _var in ("OPENBLAS_NUM_THREADS", "OMP_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

import numpy as np  # noqa: E402

from bench_arena import machine  # noqa: E402
from coinche_rl import engine as E  # noqa: E402
from coinche_rl.agents.neural.agent import NetInputs, load_play_net  # noqa: E402
from coinche_rl.agents.neural.agent import warmup as nn_warmup  # noqa: E402
from coinche_rl.agents.neural.labels import label_chunk  # noqa: E402
from coinche_rl.agents.neural.labels import warmup as labels_warmup  # noqa: E402
from coinche_rl.agents.numba_bots import (BOT_HEURISTIC, bot_action, deal_states,  # noqa: E402
                                          play_deals)
from coinche_rl.arena import run_duplicate, shutdown_pool, warmup  # noqa: E402
from coinche_rl.rules import get_rules, params_vector  # noqa: E402

#: (frozen pairs vs heuristic, full pairs, pairs vs random, pairs vs pimc, label deals,
#: tournament pairs, timing repeats)
SIZES = {"quick": (500, 500, 200, 0, 256, 500, 2000),
         "full": (5000, 5000, 1000, 300, 2048, 4000, 20000)}


def _positions(rules, n: int, seed: int = 0) -> np.ndarray:
    """Up to ``n`` card-play states (heuristic deals) where the seat to act has a choice
    of cards, at a random point of the play."""
    P = params_vector(rules)
    rng = np.random.default_rng(seed)
    buf = np.zeros(118, dtype=np.uint8)
    rngb = np.zeros(1, dtype=np.uint64)
    out = []
    for S in deal_states(rules, n, seed=seed):
        stop = int(rng.integers(0, 28))
        k = 0
        while S[E.S_PHASE] != E.DONE:
            if S[E.S_PHASE] == E.PLAY and E._pending_choice(S, P) == 0:
                if k >= stop and bin(int(E.legal_play_mask(S, P))).count("1") >= 2:
                    out.append(S.copy())
                    break
                k += 1
            E.apply_legal_action(S, P, bot_action(BOT_HEURISTIC, S, P, int(S[E.S_CUR]), rngb, buf))
    return np.array(out)


def _train_updates_per_s(net_hidden, batch: int, seconds: float = 5.0):
    try:
        import torch
    except ModuleNotFoundError:
        return None
    from coinche_rl.agents.neural.canonical import FEATURE_SIZE
    from coinche_rl.agents.neural.torch_net import PlayNet
    from coinche_rl.agents.neural.train_play import Args, play_loss
    torch.set_num_threads(1)
    torch.manual_seed(0)
    model = PlayNet(net_hidden)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    rng = np.random.default_rng(0)
    pool_x = rng.random((20000, FEATURE_SIZE)).astype(np.float16)
    pool_m = rng.random((20000, 32)) < 0.2
    pool_m[:, 0] = True
    pool_t = rng.normal(0, 50, (20000, 32)).astype(np.float32)
    args = Args()
    n = 0
    t0 = time.perf_counter()
    while time.perf_counter() - t0 < seconds:
        idx = rng.integers(0, len(pool_t), batch)     # the trainer's own sampling path
        x = torch.from_numpy(pool_x[idx].astype(np.float32))
        m = torch.from_numpy(pool_m[idx])
        t = torch.from_numpy(pool_t[idx]) / 100.0
        loss, _ = play_loss(model(x), m, t, args)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        opt.step()
        n += 1
    return n / (time.perf_counter() - t0)


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="small numbers (a few minutes)")
    ap.add_argument("--workers", type=int, default=2, help="processes for the PIMC matchup")
    ap.add_argument("--weights", default="", help="weights file (default: the shipped ffb)")
    ap.add_argument("--seed", type=int, default=0, help="the deal sets")
    args = ap.parse_args(argv)
    n_frozen, n_full, n_random, n_pimc, n_label, n_tour, n_rep = \
        SIZES["quick" if args.quick else "full"]
    rules = get_rules("ffb")
    t_all = time.perf_counter()
    t0 = time.perf_counter()
    warmup()
    nn_warmup()
    labels_warmup()
    warm_s = time.perf_counter() - t0
    net = load_play_net(args.weights, rules)
    m = net.manifest
    targs = m.get("training", {}).get("args", {})
    spec = "nn" + (f":weights={args.weights}" if args.weights else "")
    out = {"bench": "neural", "quick": args.quick, "machine": machine(),
           "warmup_s": round(warm_s, 2), "weights": args.weights or "shipped ffb",
           "architecture": m.get("architecture"), "n_params": net.n_params}

    # ---- label generation (one core)
    solver_cards = int(targs.get("solver_cards", 28))
    for key, sc in (("train", solver_cards), ("train_rollout", 0)):
        ch = label_chunk(rules, 12345, 0, n_label, 1, float(targs.get("frozen", 0.5)),
                         float(targs.get("epsilon", 0.1)), sc)
        out[f"{key}_labelled_decisions_per_s"] = round(len(ch) / ch.seconds, 0)
        out[f"{key}_agent_steps_per_s"] = round(ch.agent_steps / ch.seconds, 0)
        out[f"{key}_playout_steps_per_s"] = round(ch.playout_steps / ch.seconds, 0)
        out[f"{key}_deals_per_s"] = round(ch.deals / ch.seconds, 1)
    out["train_solver_cards"] = solver_cards
    ups = _train_updates_per_s(net.hidden, int(targs.get("batch_size", 512)),
                               2.0 if args.quick else 10.0)
    out["train_updates_per_s"] = None if ups is None else round(ups, 1)
    batch = int(targs.get("batch_size", 512))
    out["train_samples_per_s"] = None if ups is None else round(ups * batch)

    # ---- inference
    pos = _positions(rules, 256, seed=args.seed)
    inputs = NetInputs(rules, 1024)
    one = np.zeros(1, dtype=np.int64)
    times = []
    for r in range(n_rep):
        j = r % len(pos)
        S = pos[j:j + 1]
        t = time.perf_counter()
        feats, legal, perms = inputs.compute(S, one)
        net.best(feats, legal)
        times.append(time.perf_counter() - t)
    out["nn_decision_us_batch1"] = round(float(np.median(times)) * 1e6, 1)
    feats, legal, _ = inputs.compute(pos[:1], one)
    x = feats.copy()
    times = []
    for _ in range(n_rep):
        t = time.perf_counter()
        net.forward(x)
        times.append(time.perf_counter() - t)
    out["nn_forward_us_batch1"] = round(float(np.median(times)) * 1e6, 1)
    big = np.concatenate([pos] * 4)[:1024]
    idx = np.arange(len(big), dtype=np.int64)
    reps = 5 if args.quick else 20
    t = time.perf_counter()
    for _ in range(reps):
        feats, legal, perms = inputs.compute(big, idx)
        net.best(feats, legal)
    out["nn_decisions_per_s_batched"] = round(reps * len(big) / (time.perf_counter() - t))

    # ---- tournaments
    def duel(opponent, n, frozen, backend="serial", workers=None):
        r = run_duplicate(spec, opponent, n, preset="ffb", seed=args.seed, frozen_contract=frozen,
                          backend=backend, workers=workers)
        print(f"{spec} vs {opponent} ({'frozen auction' if frozen else 'whole deals'}): "
              f"{r.mean:+.1f} ± {r.ci95:.1f} per deal over {r.n} pairs, win rate "
              f"{r.win_rate:.3f}, {r.wall_seconds:.1f} s", file=sys.stderr, flush=True)
        return r

    duel("heuristic", 50, False)                  # load the agents in this process first
    r = duel("heuristic", n_tour, False)
    out["nn_tournament_deals_per_s"] = round(2 * r.n / r.wall_seconds, 0)
    # the same matchup between numba bots only, for the ratio
    st = deal_states(rules, 2 * n_tour, seed=1)
    t = time.perf_counter()
    play_deals(params_vector(rules), st, np.full(4, BOT_HEURISTIC, dtype=np.int64),
               np.zeros((len(st), 4), dtype=np.int64))
    out["heuristic_only_deals_per_s"] = round(len(st) / (time.perf_counter() - t), 0)
    for key, opp, n, frozen in (("nn_vs_heuristic_frozen", "heuristic", n_frozen, True),
                                ("nn_vs_heuristic_full", "heuristic", n_full, False),
                                ("nn_vs_random_frozen", "random", n_random, True)):
        r = duel(opp, n, frozen)
        out[key] = round(r.mean, 2)
        out[key + "_ci95"] = round(r.ci95, 2)
        out[key + "_pairs"] = r.n
        out[key + "_win_rate"] = round(r.win_rate, 4)
    if n_pimc:
        try:
            backend = "serial" if args.workers <= 1 else "pool"
            r = duel("pimc", n_pimc, True, backend, None if args.workers <= 1 else args.workers)
            out["nn_vs_pimc_frozen"] = round(r.mean, 2)
            out["nn_vs_pimc_frozen_ci95"] = round(r.ci95, 2)
            out["nn_vs_pimc_frozen_pairs"] = r.n
            out["nn_vs_pimc_frozen_seconds"] = round(r.wall_seconds, 1)
        finally:
            shutdown_pool()
    else:
        out["nn_vs_pimc_frozen"] = None
        out["nn_vs_pimc_frozen_ci95"] = None
        out["nn_vs_pimc_frozen_pairs"] = 0
    tr = m.get("training", {})
    out["training_minutes"] = tr.get("minutes")
    out["training_updates"] = tr.get("updates")
    out["training_labelled_decisions"] = tr.get("labelled_decisions")
    out["goals"] = {
        "nn_vs_heuristic_frozen_ge_25": bool(out["nn_vs_heuristic_frozen"] >= 25
                                             and out["nn_vs_heuristic_frozen"]
                                             - out["nn_vs_heuristic_frozen_ci95"] > 0),
        "nn_decision_us_batch1_le_50": out["nn_decision_us_batch1"] <= 50,
        "nn_tournament_deals_per_s_ge_2000": out["nn_tournament_deals_per_s"] >= 2000,
        "train_agent_steps_per_s_ge_30000": out["train_agent_steps_per_s"] >= 30000,
        "training_minutes_le_120": (out["training_minutes"] or 1e9) <= 120,
    }
    out["wall_s"] = round(time.perf_counter() - t_all, 1)
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
