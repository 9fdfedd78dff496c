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
  on); ``nn_vs_heuristic_full``: whole deals, ``nn:bidding=heuristic`` (the card
  player alone: the auction is the heuristic's);
  ``nn_vs_random_frozen``; ``nn_vs_pimc_frozen``: against ``pimc`` (32 worlds), frozen
  auction, 300 pairs on ``--workers`` processes (null with ``--quick``).
* ``training_minutes`` and the manifest's training facts of the shipped weights.

Bidding (``--section bid`` or ``all``; whole deals, duplicate, both seatings, the deal set
of ``--seed``):

* ``nn_bid_heuristic_play_vs_heuristic``: ``nn:play=heuristic`` (the network bids, the
  heuristic plays) against the heuristic; ``nn_full_vs_heuristic``: ``nn`` (the network
  bids and plays); ``nn_heuristic_bid_vs_heuristic``: ``nn:bidding=heuristic``, the same
  card player with the heuristic's auction, for the ratio; ``nn_full_vs_pimc`` (against
  PIMC-32 bidding from its hand evaluation, ``bid_method=heuristic``) and
  ``pimc_nnbid_vs_heuristic`` (``pimc:bid_method=nn``) on ``--workers`` processes;
  ``nn_vs_colver_*`` on the ``colver`` preset when ``colver`` is installed (else null).
* ``bid_flip_rate_suit_renaming``: over random auction positions of ``ffb`` and every
  renaming of the suits, the share of decisions whose renamed decision is not the renamed
  action (two suits the seat cannot tell apart are not a flip: the engine says which).
* ``capot_bid_rate_on_sure_capots``: opening hands whose team makes every trick in at
  least 95 % of 100 heuristic playouts (``evaluate_hand``): the share whose auction (the
  ``nn`` team against the heuristic) ends in the team's capot.
* ``pmade_calibration_max_error``: the network's P(made) of every contract at held-out
  auction positions against the contract's outcome on the real deal, by decile of the
  prediction (bins of at least 200): the largest gap.
* ``coinche_rate`` / ``coinche_success_rate`` (the ``nn`` team's coinches per deal and the
  share of coinched contracts that failed), ``contract_success_by_level`` and
  ``bids_by_strain_level`` (the ``nn`` team's contracts in ``nn_full_vs_heuristic``).

Serial against pool (``--section pool``; whole deals against the heuristic, duplicate,
deal set of seed 77, the same run for every figure, so that the ratios hold on a loaded
host): ``{nn,nnsearch}_serial_deals_per_s`` in this process with the BLAS's own threads
(as a script gets them), ``_serial_1blas_deals_per_s`` with one BLAS thread, and
``_pool_deals_per_s`` on a pool of ``--workers`` processes (each task runs its BLAS on
one thread: :func:`coinche_rl.arena.executors.one_blas_thread`); ``_pool_over_serial``
is the pool's speed over the serial one's.

Usage: ``python benchmarks/bench_neural.py [--quick] [--workers K] [--weights FILE]
[--bid-weights FILE] [--section play|bid|pool|all]``; the last line of output is one
JSON object. The play and bid figures run numpy's BLAS on one thread (one core); the
pool section leaves it as it is.
"""

from __future__ import annotations

import argparse
import json
import sys
import time

import numpy as np  # noqa: E402
from threadpoolctl import threadpool_info, threadpool_limits  # noqa: E402

from bench_arena import machine  # noqa: E402
from coinche_rl import engine as E  # noqa: E402
from coinche_rl.agents.neural.agent import load_play_net  # noqa: E402
from coinche_rl.agents.neural.batch_play import NetInputs  # noqa: E402
from coinche_rl.agents.neural.agent import warmup as nn_warmup  # noqa: E402
from coinche_rl.agents.neural.labels import label_chunk  # noqa: E402
from coinche_rl.agents.neural.labels import warmup as labels_warmup  # noqa: E402
from coinche_rl.agents.numba_bots import (BOT_HEURISTIC, bot_action, deal_states,  # noqa: E402
                                          play_deals)
from coinche_rl.arena import run_duplicate, shutdown_pool, warmup  # noqa: E402
from coinche_rl.cards import N_CARDS  # noqa: E402
from coinche_rl.rules import (CARDS_PER_HAND, N_SEATS, N_TEAMS, get_rules, params_vector,  # noqa: E402
                              seat_after, team)

#: (frozen pairs vs heuristic, full pairs, pairs vs random, pairs vs pimc, label deals,
#: tournament pairs, timing repeats)
SIZES = {"quick": (500, 500, 200, 0, 256, 500, 2000),
         "full": (5000, 5000, 1000, 300, 2048, 4000, 20000)}
#: bidding: (pairs vs heuristic, pairs nn vs pimc, pairs pimc+nn bids vs heuristic, pairs vs
#: each colver bot, renaming positions, sure-capot hands, calibration deals)
BID_SIZES = {"quick": (1000, 0, 0, 0, 40, 4, 200),
             "full": (10000, 500, 1000, 200, 400, 40, 3000)}


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
        while E.py.phase_of(S) != E.DONE:
            if E.py.phase_of(S) == E.PLAY and E.pending_choice(S, P) == 0:
                if k >= stop and bin(int(E.legal_play_mask(S, P))).count("1") >= 2:
                    out.append(S.copy())
                    break
                k += 1
            E.apply_legal_action(S, P, bot_action(BOT_HEURISTIC, S, P, int(E.py.current_seat(S)), rngb, buf))
    return np.array(out)


def _train_updates_per_s(net_hidden, batch: int, seconds: float = 5.0):
    try:
        import torch
    except ModuleNotFoundError:
        return None
    from coinche_rl.agents.neural.canonical import FEATURE_SIZE
    from coinche_rl.agents.neural.torch_net import PlayNet
    from coinche_rl.train.play import Args, play_loss
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
    ap.add_argument("--bid-weights", default="", help="bidding weights (default: shipped ffb)")
    ap.add_argument("--section", choices=("play", "bid", "pool", "all"), default="all",
                    help="card play figures, bidding figures, serial against pool speeds, or "
                         "all three (default)")
    ap.add_argument("--pimc-pairs", type=int, default=None,
                    help="override the pairs of the two PIMC bidding matchups")
    args = ap.parse_args(argv)
    if args.section == "pool":
        out = {"bench": "neural", "quick": args.quick, "machine": machine()}
        out.update(pool_figures(args))
        print(json.dumps(out))
        return out
    # one core: numpy's BLAS would otherwise use every core for the forward passes
    with threadpool_limits(limits=1, user_api="blas"):
        out = _one_core_figures(args)
    if args.section == "all":
        out.update(pool_figures(args))
    print(json.dumps(out))
    return out


def _one_core_figures(args) -> dict:
    """The play (and with ``all`` the bid) figures."""
    if args.section == "bid":
        out = {"bench": "neural", "quick": args.quick, "machine": machine()}
        out.update(bid_figures(args))
        return out
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
    def duel(opponent, n, frozen, backend="serial", workers=None, x=None):
        x = x or spec
        r = run_duplicate(x, opponent, n, preset="ffb", seed=args.seed, frozen_contract=frozen,
                          backend=backend, workers=workers)
        print(f"{x} vs {opponent} ({'frozen auction' if frozen else 'whole deals'}): "
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
    # whole deals with the heuristic's auction: the card player alone
    no_bid = spec + ("," if ":" in spec else ":") + "bidding=heuristic"
    for key, opp, n, frozen, x in (("nn_vs_heuristic_frozen", "heuristic", n_frozen, True, spec),
                                   ("nn_vs_heuristic_full", "heuristic", n_full, False, no_bid),
                                   ("nn_vs_random_frozen", "random", n_random, True, spec)):
        r = duel(opp, n, frozen, x=x)
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
    if args.section == "all":
        out.update(bid_figures(args))
    out["wall_s"] = round(time.perf_counter() - t_all, 1)
    return out


# ======================================================== serial against pool
#: pairs of (nn, nnsearch) against the heuristic
POOL_SIZES = {"quick": (1000, 8), "full": (4000, 30)}


def _blas_threads() -> int:
    return max((i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"),
               default=0)


def pool_figures(args) -> dict:
    """Serial (BLAS as it is, then one BLAS thread) and pool speeds of ``nn`` and
    ``nnsearch`` against the heuristic, whole deals (see the module docstring)."""
    n_nn, n_search = POOL_SIZES["quick" if args.quick else "full"]
    workers = max(2, args.workers)
    out = {"pool_workers": workers, "pool_blas_threads_default": _blas_threads(),
           "pool_pairs_nn": n_nn, "pool_pairs_nnsearch": n_search}
    seed = 77

    def rate(spec, n, **kw):
        r = run_duplicate(spec, "heuristic", n, preset="ffb", seed=seed, **kw)
        print(f"{spec} vs heuristic, {n} pairs, {kw or 'serial'}: {r.wall_seconds:.1f} s",
              file=sys.stderr, flush=True)
        return 2 * r.n / r.wall_seconds

    def sig(x):                                    # three significant digits
        return float(f"{x:.3g}")

    try:
        for name, n in (("nn", n_nn), ("nnsearch", n_search)):
            rate(name, 2)                          # compile, load the nets in this process
            serial = rate(name, n)
            with threadpool_limits(limits=1, user_api="blas"):
                serial_1 = rate(name, n)
            # start the workers and load the nets there (one pair per task)
            rate(name, 2 * workers, backend="pool", workers=workers, chunk=1)
            pool = rate(name, n, backend="pool", workers=workers)
            out[f"{name}_serial_deals_per_s"] = sig(serial)
            out[f"{name}_serial_1blas_deals_per_s"] = sig(serial_1)
            out[f"{name}_pool_deals_per_s"] = sig(pool)
            out[f"{name}_pool_over_serial"] = sig(pool / serial)
    finally:
        shutdown_pool()
    return out


# ====================================================================== bidding
def _team_contracts(r):
    """The contracts of team X (the first spec) in a DuplicateResult: rows (value, strain,
    made, coinched by the other team), and X's coinches of the other team's contracts
    (rows: value, made)."""
    taken, coinches = [], []
    for t in range(N_TEAMS):
        c = r.contracts[:, t]
        taker_team = c[:, 2] & (N_TEAMS - 1)          # rules.team, on the array
        ours = (c[:, 2] >= 0) & (taker_team == t)
        theirs = (c[:, 2] >= 0) & (taker_team != t)
        for v, st, _tk, co, made in c[ours]:
            taken.append((int(v), int(st), int(made), int(co)))
        for v, st, _tk, co, made in c[theirs & (c[:, 3] > 0)]:
            coinches.append((int(v), int(made)))
    return taken, coinches


def _flip_rate(bid_spec: str, n_positions: int, seed: int) -> dict:
    """Suit renamings of random ffb auction positions: flips of the agent's decision."""
    import itertools
    from coinche_rl import actions as A
    from coinche_rl.agents import make_agent
    from coinche_rl.agents.base import PlayerView
    from coinche_rl.envs.kernels import ObservationEncoder
    from coinche_rl.game import Deal
    rules = get_rules("ffb")
    enc = ObservationEncoder(rules)
    perms = list(itertools.permutations(range(4)))
    rng = np.random.default_rng(seed)
    agent = make_agent(bid_spec)
    heur = make_agent("heuristic")

    def ren_card(c, pi):
        return pi[c >> 3] * 8 + (c & 7)

    def ren_hand(h, pi):
        return sum(1 << ren_card(c, pi) for c in range(N_CARDS) if h >> c & 1)

    def ren_action(a, pi):
        if A.is_bid(a) or A.is_capot(a):
            st = A.bid_strain(a)
            st2 = pi[st] if st < 4 else st
            return A.capot_action(st2) if A.is_capot(a) else A.bid_action(A.bid_value(a), st2)
        return a

    def suit_of(a):
        if A.is_bid(a) or A.is_capot(a):
            st = A.bid_strain(a)
            return st if st < 4 else None
        return None

    def decide(d):
        agent.reset(d.current_player, rules, 0)
        return int(agent.act(PlayerView.from_deal(d)))

    decisions = flips = ties = 0
    for _ in range(n_positions):
        hands = Deal(rules, seed=int(rng.integers(2 ** 31))).hands
        dealer = int(rng.integers(N_SEATS))
        d = Deal(rules, hands=hands, dealer=dealer)
        prefix = []
        stop = int(rng.integers(0, 4))
        while d.phase == "auction" and len(prefix) < stop:       # a heuristic auction prefix
            heur.reset(d.current_player, rules, 0)
            a = int(heur.act(PlayerView.from_deal(d)))
            d.apply(a)
            prefix.append(a)
        if d.phase != "auction":
            continue
        a0 = decide(d)
        seat = d.current_player
        for pi in perms:
            rd = Deal(rules, hands=[ren_hand(h, pi) for h in hands], dealer=dealer)
            for a in prefix:
                rd.apply(ren_action(a, pi))
            decisions += 1
            ra = decide(rd)
            if ra == ren_action(a0, pi):
                continue
            inv = [0] * 4
            for s_, t_ in enumerate(pi):
                inv[t_] = s_
            back = ren_action(ra, inv)
            s1, s2 = suit_of(a0), suit_of(back)
            equivalent = False
            if s1 is not None and s2 is not None and s1 != s2:
                sw = list(range(4))
                sw[s1], sw[s2] = s2, s1
                sd = Deal(rules, hands=[ren_hand(h, sw) for h in hands], dealer=dealer)
                for a in prefix:
                    sd.apply(ren_action(a, sw))
                equivalent = np.array_equal(enc.encode(sd.state, seat), enc.encode(d.state, seat))
            if equivalent:
                ties += 1
            else:
                flips += 1
    return {"bid_flip_rate_suit_renaming": flips / max(1, decisions),
            "bid_flip_decisions": decisions, "bid_flip_ties": ties}


def _sure_capots(bid_spec: str, n_hands: int, seed: int) -> dict:
    """Opening hands that make every trick in >= 95 % of 100 heuristic playouts: how often
    the auction (the nn team at the hand's seats, the heuristic opposite) ends in the
    team's capot."""
    from coinche_rl.agents import make_agent
    from coinche_rl.agents.evaluation import evaluate_hand
    from coinche_rl.game import Deal
    rules = get_rules("ffb")
    rng = np.random.default_rng(seed)
    found = capots = tried = 0
    while found < n_hands and tried < 50 * n_hands:
        tried += 1
        # a candidate: the opener holds J 9 A of a suit, 3-5 more of it, and side aces
        # or tens; the others random (then kept only if the evaluation says >= 95 %)
        best = int(rng.integers(4))
        trumps = [8 * best + r for r in (4, 2, 7)]
        rest = [8 * best + r for r in (0, 1, 3, 5, 6)]
        trumps += [int(c) for c in rng.choice(rest, int(rng.integers(3, 6)), replace=False)]
        side = [8 * s + r for s in range(4) if s != best for r in (7, 3)]
        hand = trumps + [int(c) for c in rng.choice(side, CARDS_PER_HAND - len(trumps),
                                                    replace=False)]
        others = [c for c in rng.permutation(N_CARDS).tolist() if c not in hand]
        dealer = int(rng.integers(N_SEATS))
        seat = seat_after(dealer, 1)
        hands = [0] * N_SEATS
        hands[seat] = sum(1 << c for c in hand)
        for i, s in enumerate(x for x in range(N_SEATS) if x != seat):
            hands[s] = sum(1 << c for c in others[CARDS_PER_HAND * i:CARDS_PER_HAND * (i + 1)])
        d = Deal(rules, hands=hands, dealer=dealer)
        h = hands[seat]
        ev = evaluate_hand(rules, seat, h, dealer, samples=100, seed=found, strains=[best],
                           method="heuristic")
        if ev.p_make[0, -1] < 0.95:
            continue
        found += 1
        agents = [make_agent(bid_spec if team(s) == team(seat) else "heuristic")
                  for s in range(N_SEATS)]
        for s, a in enumerate(agents):
            a.reset(s, rules, s)
        from coinche_rl.agents.base import PlayerView
        while d.phase == "auction":
            d.apply(int(agents[d.current_player].act(PlayerView.from_deal(d))))
        c = d.contract
        capots += int(c is not None and c.value == 250 and team(c.taker) == team(seat))
    return {"capot_bid_rate_on_sure_capots": capots / max(1, found) if found else None,
            "sure_capot_hands": found, "sure_capot_candidates": tried}


def _calibration(bid_path: str, n_deals: int, seed: int) -> dict:
    """P(made) of the network against the outcome on the real deal, by decile."""
    from coinche_rl.agents.neural.agent import load_bid_net
    from coinche_rl.agents.neural.bid_labels import label_bid_chunk
    rules = get_rules("ffb")
    out = {}
    for player in ("nn", "heuristic"):
        net = load_bid_net(bid_path, rules, player)
        play_net = load_play_net("", rules) if player == "nn" else None
        ch = label_bid_chunk(rules, 424242 + seed, 0, n_deals, 0.0, (player,), play_net)
        _q, _ev, pm = net.heads(ch.feats.astype(np.float32))
        v = ch.ev_valid
        p = pm[v]
        y = ch.made[:, 0][v].astype(np.float64)
        edges = np.quantile(p, np.linspace(0, 1, 11))
        bins = np.clip(np.searchsorted(edges, p, side="right") - 1, 0, 9)
        curve = []
        for b in range(10):
            sel = bins == b
            if sel.sum() >= 200:
                curve.append((float(p[sel].mean()), float(y[sel].mean()), int(sel.sum())))
        err = max(abs(a - b) for a, b, _ in curve)
        out[f"pmade_calibration_max_error_{player}"] = round(err, 4)
        out[f"pmade_calibration_curve_{player}"] = [(round(a, 4), round(b, 4), n) for a, b, n in curve]
        # the contracts that matter: P(made) between 0.2 and 0.8
        mid = (p > 0.2) & (p < 0.8)
        out[f"pmade_calibration_mid_contracts_{player}"] = int(mid.sum())
    out["pmade_calibration_max_error"] = out["pmade_calibration_max_error_nn"]
    return out


def bid_figures(args) -> dict:
    from coinche_rl.agents.neural.agent import load_bid_net
    from coinche_rl.agents.neural.net import default_weights_path
    pairs, n_pimc, n_pimc_bid, n_colver, n_flip, n_capot, n_calib = \
        BID_SIZES["quick" if args.quick else "full"]
    if args.pimc_pairs is not None:
        n_pimc = n_pimc_bid = args.pimc_pairs
    rules = get_rules("ffb")
    bid_path = args.bid_weights or default_weights_path("ffb", "bid")
    bid = load_bid_net(bid_path, rules)
    wspec = f"bid_weights={args.bid_weights}" if args.bid_weights else ""

    def spec(*parts):
        ps = [p for p in (wspec, *parts) if p]
        return "nn" + (":" + ",".join(ps) if ps else "")

    out = {"bid_weights": args.bid_weights or "shipped ffb",
           "bid_architecture": bid.net.architecture(),
           "bid_training": {k: v for k, v in bid.net.manifest.get("training", {}).items()
                            if k not in ("args", "init")}}
    from coinche_rl.agents.neural.batch_play import DEFAULT_MARGIN
    out["bid_margin"] = DEFAULT_MARGIN

    def duel(key, x, y, n, backend="serial", workers=None, preset="ffb"):
        t = time.perf_counter()
        r = run_duplicate(x, y, n, preset=preset, seed=args.seed, backend=backend,
                          workers=workers)
        print(f"{x} vs {y} ({preset}, whole deals): {r.mean:+.1f} ± {r.ci95:.1f} per deal "
              f"over {r.n} pairs, {time.perf_counter() - t:.1f} s", file=sys.stderr, flush=True)
        out[key] = round(r.mean, 2)
        out[key + "_ci95"] = round(r.ci95, 2)
        out[key + "_pairs"] = r.n
        return r

    duel("nn_heuristic_bid_vs_heuristic", "nn:bidding=heuristic", "heuristic", pairs)
    duel("nn_bid_heuristic_play_vs_heuristic", spec("play=heuristic"), "heuristic", pairs)
    r = duel("nn_full_vs_heuristic", spec(), "heuristic", pairs)
    taken, coinches = _team_contracts(r)
    n_deals = 2 * r.n
    out["coinche_rate"] = round(len(coinches) / n_deals, 4)
    out["coinche_success_rate"] = (round(sum(1 for _v, m in coinches if m == 0) / len(coinches), 4)
                                   if coinches else None)
    by_level, by_sl = {}, {}
    from coinche_rl.rules import STRAIN_NAMES
    for v, st, made, _co in taken:
        by_level.setdefault(v, []).append(made == 1)
        k = f"{'capot' if v == 250 else v}{STRAIN_NAMES[st]}"
        by_sl[k] = by_sl.get(k, 0) + 1
    out["contract_success_by_level"] = {str(v): (round(float(np.mean(m)), 3), len(m))
                                        for v, m in sorted(by_level.items())}
    out["bids_by_strain_level"] = dict(sorted(by_sl.items()))
    out["nn_team_contract_rate"] = round(len(taken) / n_deals, 4)
    base = run_duplicate("heuristic", "heuristic", min(pairs, 2000), preset="ffb", seed=args.seed)
    _tk, base_coinches = _team_contracts(base)
    out["heuristic_coinche_rate"] = round(len(base_coinches) / (2 * base.n), 4)
    out["heuristic_coinche_success_rate"] = (
        round(sum(1 for _v, m in base_coinches if m == 0) / len(base_coinches), 4)
        if base_coinches else None)
    workers = None if args.workers <= 1 else args.workers
    backend = "serial" if args.workers <= 1 else "pool"
    try:
        if n_pimc:
            duel("nn_full_vs_pimc", spec(), "pimc:bid_method=heuristic", n_pimc, backend,
                 workers)
        if n_pimc_bid:
            duel("pimc_nnbid_vs_heuristic", "pimc:bid_method=nn"
                 + (f",bid_weights={args.bid_weights}" if args.bid_weights else ""),
                 "heuristic", n_pimc_bid, backend, workers)
    finally:
        shutdown_pool()
    for key in ("nn_full_vs_pimc", "pimc_nnbid_vs_heuristic"):
        out.setdefault(key, None)
    colver = None
    if n_colver:
        try:
            import colver  # noqa: F401
            colver = True
        except ModuleNotFoundError:
            colver = False
    out["colver_installed"] = colver
    if colver:
        for bot in ("heuristic", "maxi", "rule"):
            duel(f"nn_vs_colver_{bot}", spec("any_rules=true"), f"colver:{bot}", n_colver,
                 preset="colver")
    t = time.perf_counter()
    out.update(_flip_rate(spec(), n_flip, args.seed))
    out.update(_sure_capots(spec(), n_capot, args.seed))
    out.update(_calibration(bid_path, n_calib, args.seed))
    out["bid_diagnostics_s"] = round(time.perf_counter() - t, 1)
    out["bid_goals"] = {
        "nn_bid_heuristic_play_vs_heuristic_ge_15": out["nn_bid_heuristic_play_vs_heuristic"] >= 15,
        "nn_full_vs_heuristic_ge_40": out["nn_full_vs_heuristic"] >= 40,
        "bid_flip_rate_is_0": out["bid_flip_rate_suit_renaming"] == 0,
        "capot_bid_rate_ge_0.9": (out["capot_bid_rate_on_sure_capots"] or 0) >= 0.9,
        "pmade_calibration_max_error_le_0.03": out["pmade_calibration_max_error"] <= 0.03,
    }
    return out


if __name__ == "__main__":
    main()
