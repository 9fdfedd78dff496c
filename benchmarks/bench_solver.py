"""Double-dummy solver speed on one core, side by side with colver's solver when installed.

Figures (CPU time of this single-threaded process, ``time.process_time``, so that other
jobs on a shared host do not count; per-position medians):

* ``root_solve_ms_median``: the exact value of every first card of a full deal
  (``Solver.move_values``, objective ``"points"``, a fresh table per deal), over
  ``--deals`` seeded deals per suit strain under the ``colver`` preset, contract 90 by
  seat 0, dealer 0: the like-for-like counterpart of colver's ``Env.solve_scores()``.
  ``root_solve_ms_median_by_strain`` adds NT and AT (preset ``ffb_sa_ta``, same hands).
* ``colver_root_solve_ms_median``: colver's ``solve_scores()`` on the same deals and
  contracts, timed in turn with ours (null when colver is not importable). The values
  of the two solvers are compared on every deal (``colver_values_equal``).
* ``nodes_per_s``: search nodes per second over the root solves.
* ``sampler_worlds_per_s``: worlds per second of the exact uniform information-set
  sampler (``bench_lib.sampler_throughput``, ffb).
* ``pimc_world_ms_median`` / ``pimc32_decision_ms_median`` (and ``_p90``): one PIMC
  world as the agent solves it (``bench_lib.pimc_world_ms``) and one whole
  ``pimc:worlds=32`` decision at trick 1 (``bench_lib.pimc_decision_ms``: information
  set, sampler, 32 solves), CPU time like the rest (they were wall time before
  2026-11-30). ``pimc32_decision_nodes_median``: the solver's nodes per decision, the
  same on every host (compare search changes with it; the time moves with the load).
* ``world_solve_ms_median``: one PIMC world: every legal card's exact value for the
  deal score (objective ``"score"``, what PIMC maximises) in the first trick, after 0 to
  3 random cards of it; every strain (``ffb_sa_ta``), a random contract (value on the
  ladder, taker, coinche 0 / 1 / 2 with probabilities 0.6 / 0.3 / 0.1).
  ``world_solve_points_ms_median``: the same positions with the card points objective.

Adding figures: write a function ``f(args) -> dict`` and register it with
``@measure("name")``; every registered measurement runs in order and its keys join the
final JSON object (PIMC and sampler figures can live here too).

``two_*``: belote for two players (``coinche_rl.solver_two``), each preset, CPU time:
``two_<preset>_solve_whole_ms_median`` (and ``_p90``, ``_nodes_median``) a whole deal
solved from its first card (the heuristic's prise); the same with 12 and 8 tricks left
(``_solve_12_left_``, ``_solve_8_left_``); ``two_<preset>_pimc32_first_trick_decision_ms_median``
a PIMC-32 decision at the first trick (``solve_from=0``; 3 positions with ``--quick``, 8
without), ``_trick3_`` one at trick 3 (0-based, ``solve_from=3``, the default) and
``_trick4_`` one at trick 4 (``solve_from=4``, the default until 2026-12-07).
``two_player_run`` takes the solver and PIMC classes, so that an older copy can be timed
in the same run.

Usage: ``python benchmarks/bench_solver.py [--quick] [--deals N] [--only NAME ...]``. The
last line of output is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from typing import Callable, Dict

import numpy as np

from coinche_rl import engine as E
from coinche_rl.game import Deal
from coinche_rl.cards import N_CARDS
from coinche_rl.rules import N_SEATS, STRAIN_NAMES
from coinche_rl.solver import Solver, warmup

MEASURES: Dict[str, Callable] = {}


def measure(name: str):
    """Register a measurement: ``fn(args) -> dict`` of figures for the JSON line."""
    def deco(fn):
        MEASURES[name] = fn
        return fn
    return deco


sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_engine import machine  # noqa: E402  (one machine description for every benchmark)


def cpu_ms(fn) -> float:
    t = time.process_time()
    fn()
    return (time.process_time() - t) * 1000.0


# colver numbers its ranks 7 8 9 J Q K 10 A inside a suit; ours are 7 8 9 10 J Q K A
_TO_COLVER_RANK = (0, 1, 2, 6, 3, 4, 5, 7)


def to_colver(card: int) -> int:
    return (card >> 3) * 8 + _TO_COLVER_RANK[card & 7]


def colver_env(hands, strain):
    """A colver position with our hands, contract 90 in ``strain`` by team 0, dealer 0;
    None when colver is not importable."""
    try:
        import colver
    except ImportError:
        return None
    env = colver.Env.deal_with_hands(0, [[to_colver(c) for c in range(N_CARDS) if h >> c & 1]
                                         for h in hands])
    env.set_contract(strain, 90, 0, 0)
    env.set_phase_playing()
    return env


@measure("root")
def root_solves(args) -> dict:
    """All first cards' exact values on full deals, ours and colver's, in turn."""
    solver = Solver(args.tt_bits)
    ours, theirs, by_strain = [], [], {}
    nodes, seconds, equal, compared = 0, 0.0, True, 0
    for strain in range(6):
        times = []
        for i in range(args.deals):
            preset = "colver" if strain < 4 else "ffb_sa_ta"
            d = Deal(preset, dealer=0, seed=1000 * strain + i).with_contract(90, strain, taker=0)
            solver.reset_nodes()
            res = {}
            ms = cpu_ms(lambda: res.setdefault("v", solver.move_values(d, "points", team=0)))
            times.append(ms)
            nodes += solver.nodes
            seconds += ms / 1000.0
            if strain < 4:
                ours.append(ms)
                env = colver_env(d.hands, strain)
                if env is not None:
                    out = {}
                    theirs.append(cpu_ms(lambda: out.setdefault("r", env.solve_scores())))
                    a, v = res["v"]
                    mine = sorted((to_colver(int(x) - E.CARD_BASE), int(y)) for x, y in zip(a, v))
                    equal &= mine == sorted(tuple(p) for p in out["r"]["scores"])
                    compared += 1
        by_strain[STRAIN_NAMES[strain]] = round(float(np.median(times)), 2)
        print(f"strain {strain}: root solve median {np.median(times):8.2f} ms  "
              f"mean {np.mean(times):8.2f} ms  max {np.max(times):8.1f} ms", flush=True)
    out = {
        "root_solve_ms_median": round(float(np.median(ours)), 2),
        "root_solve_ms_mean": round(float(np.mean(ours)), 2),
        "root_solve_ms_median_by_strain": by_strain,
        "nodes_per_s": round(nodes / seconds),
        "colver_root_solve_ms_median": round(float(np.median(theirs)), 2) if theirs else None,
        "colver_root_solve_ms_mean": round(float(np.mean(theirs)), 2) if theirs else None,
        "colver_values_equal": equal if compared else None,
    }
    print(f"root solve (suits, colver preset): ours {out['root_solve_ms_median']} ms median, "
          f"colver {out['colver_root_solve_ms_median']} ms; same values: {out['colver_values_equal']}; "
          f"{out['nodes_per_s']:,} nodes/s", flush=True)
    return out


def world_positions(n: int, seed: int):
    """PIMC-like positions: full deals in the first trick, random contracts."""
    rng = np.random.default_rng(seed)
    ladder = list(range(80, 170, 10))
    for i in range(n):
        d = Deal("ffb_sa_ta", dealer=int(rng.integers(N_SEATS)), seed=int(rng.integers(1 << 30)))
        d.with_contract(int(rng.choice(ladder)), int(rng.integers(6)),
                        taker=int(rng.integers(N_SEATS)),
                        coinche=int(rng.choice(3, p=[0.6, 0.3, 0.1])))
        for _ in range(int(rng.integers(N_SEATS))):     # 0 to 3 cards of the first trick
            d.apply(int(rng.choice(d.legal_actions())))
        yield d


@measure("world")
def world_solves(args) -> dict:
    """Every legal card's value in the first trick (one PIMC world), both objectives."""
    solver = Solver(args.tt_bits)
    score, points = [], []
    for d in world_positions(6 * args.deals, seed=7):
        score.append(cpu_ms(lambda: solver.move_values(d, "score")))
        points.append(cpu_ms(lambda: solver.move_values(d, "points")))
    out = {
        "world_solve_ms_median": round(float(np.median(score)), 3),
        "world_solve_ms_p90": round(float(np.percentile(score, 90)), 3),
        "world_solve_points_ms_median": round(float(np.median(points)), 3),
        "world_solve_points_ms_p90": round(float(np.percentile(points, 90)), 3),
    }
    print(f"PIMC world (first trick, every legal card): score objective median "
          f"{out['world_solve_ms_median']} ms (p90 {out['world_solve_ms_p90']}), points "
          f"{out['world_solve_points_ms_median']} ms (p90 {out['world_solve_points_ms_p90']})",
          flush=True)
    return out


@measure("sampler")
def sampler_figures(args) -> dict:
    """Worlds per second of the exact uniform sampler (``agents.sampler``), ffb."""
    from bench_lib import sampler_throughput
    from coinche_rl.agents.sampler import warmup
    warmup()
    rate = sampler_throughput("ffb", repeats=3 if args.quick else 5)
    print(f"sampler: {rate:,.0f} worlds/s")
    return {"sampler_worlds_per_s": round(rate)}


@measure("pimc")
def pimc_figures(args) -> dict:
    """One PIMC world (every legal card's value for the deal score, a world drawn from
    the information set, trick 1) and one PIMC-32 decision at trick 1 (``act``, end to
    end), medians over seeded positions."""
    from bench_lib import pimc_decision_ms, pimc_world_ms
    n = 30 if args.quick else 100
    world = pimc_world_ms(n_positions=4 * n, seed=1)
    nodes = []
    decision = pimc_decision_ms(n_positions=n, worlds=32, seed=1, nodes=nodes)
    out = {"pimc_world_ms_median": round(float(np.median(world)), 3),
           "pimc32_decision_ms_median": round(float(np.median(decision)), 2),
           "pimc32_decision_ms_p90": round(float(np.percentile(decision, 90)), 2),
           "pimc32_decision_nodes_median": int(np.median(nodes))}
    print(f"PIMC world {out['pimc_world_ms_median']} ms, PIMC-32 decision "
          f"{out['pimc32_decision_ms_median']} ms (median)")
    return out


def two_player_positions(preset: str, n: int, seed: int, cards_played: int = 0,
                         trick: int = 0):
    """``n`` seeded deals of ``preset`` played by the heuristic (prise included) until
    ``cards_played`` cards are down, or until the first decision with a choice from
    ``trick`` (0-based) on when ``trick`` > 0; void deals are skipped."""
    from coinche_rl.agents import make_agent
    from coinche_rl.two_player import TwoPlayerDeal
    heur = [make_agent("heuristic", "two"), make_agent("heuristic", "two")]
    out, i = [], 0
    while len(out) < n:
        d = TwoPlayerDeal(preset, seed=seed + i)
        for p in (0, 1):
            heur[p].reset(p, d.rules, i + p)
        i += 1
        while not d.is_terminal and (d.phase != "play" or len(d.plays) < cards_played
                                     or d.trick_number < trick
                                     or (trick > 0 and len(d.legal_actions()) < 2)):
            d.apply(heur[d.current_player].act(d.view(d.current_player)))
        if not d.is_terminal:
            out.append(d)
    return out


def two_player_run(n: int, n_first: int, solver_cls, make_pimc) -> dict:
    """The two-player figures with the solver class ``solver_cls`` and the PIMC-32 agents
    ``make_pimc(solve_from)`` (the current ones, or an older copy to compare with in the
    same run): CPU-time medians over seeded positions of both presets (``n_first`` 0:
    no PIMC decision at the first trick); at tricks 3 and 4 both the decision (``act``) and
    every card's exact sum (``card_values``, the web page's analysis)."""
    solver = solver_cls()
    out = {}
    for preset in ("belote_a_deux", "belote_decouverte"):
        key = preset.split("_")[-1]
        # a whole deal from its first card (after the heuristic's prise), then the last
        # 12 and 8 tricks of played-out deals
        for left, seed in ((16, 800), (12, 900), (8, 900)):
            ms, nodes = [], []
            for d in two_player_positions(preset, n, seed, cards_played=2 * (16 - left)):
                ms.append(cpu_ms(lambda: solver.solve(d.state)))
                nodes.append(solver.nodes)
            name = "whole" if left == 16 else f"{left}_left"
            out[f"two_{key}_solve_{name}_ms_median"] = round(float(np.median(ms)), 2)
            out[f"two_{key}_solve_{name}_nodes_median"] = int(np.median(nodes))
            if left == 16:
                out[f"two_{key}_solve_whole_ms_p90"] = round(float(np.percentile(ms, 90)), 2)
        # a PIMC-32 decision at the first trick (searched: solve_from=0) and the first
        # one with a choice from trick 3 on (0-based, solve_from=3, the default), and from
        # trick 4 on (solve_from=4)
        for trick, count in ((0, n_first), (3, n), (4, n)):
            if count == 0:
                continue
            pimc = make_pimc(trick)
            ms = []
            for i, d in enumerate(two_player_positions(preset, count, 950, trick=trick)):
                if trick == 0:
                    while len(d.legal_actions()) < 2:
                        d.apply(d.legal_actions()[0])
                pimc.reset(d.current_player, d.rules, i)
                ms.append(cpu_ms(lambda: pimc.act(d.view(d.current_player))))
            name = "first_trick" if trick == 0 else f"trick{trick}"
            out[f"two_{key}_pimc32_{name}_decision_ms_median"] = round(float(np.median(ms)), 2)
            if trick > 0:
                # every card's exact sum over the same worlds (card_values: the web page's
                # analysis), where act needs only the best one
                ms = []
                for i, d in enumerate(two_player_positions(preset, count, 950, trick=trick)):
                    pimc.reset(d.current_player, d.rules, i)
                    ms.append(cpu_ms(lambda: pimc.card_values(d.view(d.current_player))))
                out[f"two_{key}_pimc32_{name}_sums_ms_median"] = round(float(np.median(ms)), 2)
    return out


@measure("two_player")
def two_player_figures(args) -> dict:
    """Belote for two players (``coinche_rl.solver_two``): a whole solve from the first
    card, and of played-out positions with 12 and 8 tricks left (ms, nodes), a PIMC-32
    decision at the first trick (searched), at trick 3 (0-based, ``solve_from`` 3, the
    default) and at trick 4, both presets."""
    from coinche_rl.agents import make_agent
    from coinche_rl.solver_two import TwoPlayerSolver, warmup as two_warmup
    two_warmup()
    n = 6 if args.quick else 20
    out = two_player_run(n, 3 if args.quick else 8, TwoPlayerSolver,
                         lambda k: make_agent(f"pimc:solve_from={k}", "two"))
    print("two players: " + ", ".join(f"{k} {v}" for k, v in out.items()))
    return out


def main(argv=None) -> dict:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="20 deals per strain instead of 200")
    ap.add_argument("--deals", type=int, default=None, help="deals per strain")
    ap.add_argument("--tt-bits", type=int, default=17, help="TT size: 2**bits buckets")
    ap.add_argument("--only", nargs="+", choices=sorted(MEASURES), default=None,
                    help="run only these measures")
    args = ap.parse_args(argv)
    if args.deals is None:
        args.deals = 20 if args.quick else 200
    t = time.perf_counter()
    warmup()
    print(f"machine: {machine()}")
    print(f"warmup (compile or load the kernels): {time.perf_counter() - t:.2f} s", flush=True)
    result = {"machine": machine(), "quick": args.quick, "deals_per_strain": args.deals}
    for name, fn in MEASURES.items():
        if args.only is None or name in args.only:
            result.update(fn(args))
    print(json.dumps(result))
    return result


if __name__ == "__main__":
    main()
