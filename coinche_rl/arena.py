"""Tournaments between agents (``coinche_rl.arena``): duplicate matchups, round robins
with ratings, individual formats, and executors from one core to a Ray cluster.

**Deal sets.** Deal ``i`` of a deal set is a function of ``(rules, seed, i)`` alone: the
cards, the dealer and the four agents' seeds come from a splitmix64 stream keyed by
``(seed, i)`` (:class:`DealSet`), so any subset of a deal set can be rebuilt anywhere,
in any order, by any worker.

**Duplicate.** Two teams X and Y (an agent spec, or two specs for partners) play every
deal twice with the same dealer: X at seats 0 and 2 (N-S) and Y at 1 and 3, then the
other way round, the agent at each seat drawing from the seed of ``(deal, seat)`` in both
seatings. The margin of a deal pair is the mean over the two seatings of X's deal score
minus Y's; :func:`run_duplicate` reports its mean with a 95% Student-t interval, the
paired standard deviation and the deal win rate (a pair counts as won when the margin is
positive, a tie as half). Identical deterministic agents play identical deals in both
seatings, so their margin is exactly 0. ``match=True`` plays pairs of matches to the
rule set's target instead (deal ``k`` of match ``j`` is the same in both seatings) and
reports the match win rate; ``frozen_contract`` skips the auction with a contract drawn
per deal (``"longest"``: a seat drawn at random takes the minimum bid in its longest suit,
ties to the suit with more trump points, the retourne's suit in the classic family;
``"uniform"``: the strain drawn among the allowed ones), identical in both seatings.

**Tournaments.** :func:`run_round_robin` plays a duplicate between every pair of agents
and fits ratings (:mod:`coinche_rl.ratings`): additive points per deal and Bradley-Terry
on the Elo scale, with 95% intervals. The individual formats judge each agent with
changing partners: :func:`run_rotating` (every split of every four players into two
partnerships, each a duplicate, and per-player ratings from the team model: a team's
strength is the mean of its members') and :func:`run_knockout` (the vipbelote
tournament of seed text 004: 16 or 8 players, tables of four, games to 501 points of at
most 7 deals, the winning pairs go through and partnerships are redrawn before every
round).

**Executors.** ``backend="serial"`` plays in this process; ``"pool"`` in ``workers``
spawned processes (the numba cache is warmed first, so workers load instead of
compiling; the pool is kept for later calls until :func:`shutdown_pool` or exit; a
script that uses it needs the ``if __name__ == "__main__":`` guard of spawned
processes); ``"ray"`` as Ray tasks on a local instance (started with ``workers`` CPUs
and left running) or, with ``address``, an existing cluster (``pip install
coinche-rl[ray]``; every node needs coinche-rl installed). Work is split in chunks of
deal indices, and every result depends only on the indices, so the same seeds give the
same results with every executor.

**Results files.** With ``out=PATH`` every finished deal pair (match pair, knockout
tournament) is appended to a JSON-lines file and flushed: a line ``{"type": "run", "run":
ID, "config": {...}}`` once per configuration, then rows such as ``{"type": "pair",
"run": ID, "i": 17, "dealer": 2, "scores": [[x1, y1], [x2, y2]], "contracts": [[value,
strain, taker, coinche, made], [...]], "margin": m}`` (scores from X's and Y's side in each
seating; a void deal has taker -1). Running again with the same file skips what it
holds, so a killed run loses nothing it had finished; a half-written last line is
dropped. :func:`format_summary` prints the tables (with rich when installed) and
:func:`plot_results` draws the margins' distribution and the ratings with their error
bars (matplotlib; ``pip install coinche-rl[arena]``).

>>> r = run_duplicate("random", "random", 20, seed=3)
>>> r.mean, r.win_rate, r.n
(0.0, 0.5, 20)
"""

from __future__ import annotations

import hashlib
import io
import itertools
import json
import math
import os
import time
from dataclasses import dataclass, field
from typing import Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import engine as E
from .game import Deal, score_into_match
from .ratings import Estimate, Ratings, fit_bradley_terry, fit_points, mean_ci, team_design
from .rules import PRESETS, STRAIN_NAMES, TRUMP_POINTS, RuleSet, get_rules, params_vector

__all__ = ["ArenaError", "ResultsFileError", "DealSet", "DuplicateResult", "TournamentResult",
           "KnockoutResult", "run_duplicate", "run_round_robin", "run_rotating", "run_knockout",
           "default_roster", "format_summary", "print_summary", "plot_results", "replay_pair",
           "load_results", "warmup", "shutdown_pool", "BACKENDS", "FROZEN_MODES"]

BACKENDS = ("serial", "pool", "ray")
#: ``frozen_contract`` values: how the contract of a frozen-auction deal is drawn
FROZEN_MODES = ("longest", "uniform")
#: rows of a results file
ROW_TYPES = ("pair", "match", "knockout")
_FORMAT_VERSION = 1


class ArenaError(ValueError):
    """A tournament that cannot be run as asked (the message says what would be right)."""


class ResultsFileError(ArenaError):
    """A results file that is not what :func:`run_duplicate` writes."""


# ======================================================================= deal sets
_U = np.uint64
_GOLDEN = _U(0x9E3779B97F4A7C15)
_C1, _C2, _C3 = _U(0xBF58476D1CE4E5B9), _U(0x94D049BB133111EB), _U(0xD1B54A32D192ED03)
#: draws per deal: 32 shuffle keys, dealer, 4 agent seeds, frozen taker and strain
_N_DRAWS = 39
_D_DEALER, _D_SEEDS, _D_TAKER, _D_STRAIN = 32, 33, 37, 38
#: separate streams for the deal sets, match deals and knockout games of one seed
_SALT_DEALS, _SALT_MATCH, _SALT_KNOCKOUT = 0, 1, 2
#: deals per match in the match-deal stream (Match.max_deals is 1000)
_MATCH_STRIDE = 4096
_MAX_MATCH_DEALS = 1000

# deal positions 0..31 -> receiver (0 = the seat after the dealer), packets 3-2-3
_RECEIVER = np.array([k for packet in (3, 2, 3) for k in range(4) for _ in range(packet)],
                     dtype=np.int64)
_BYTE_COUNT = np.array([bin(b).count("1") for b in range(256)], dtype=np.int64)
_BYTE_TRUMP = np.array([sum(TRUMP_POINTS[r] for r in range(8) if b >> r & 1) for b in range(256)],
                       dtype=np.int64)


def _mix(z: np.ndarray) -> np.ndarray:
    """The splitmix64 output function (uint64 arrays, wrapping arithmetic)."""
    z = z + _GOLDEN
    z = (z ^ (z >> _U(30))) * _C1
    z = (z ^ (z >> _U(27))) * _C2
    return z ^ (z >> _U(31))


def _draws(seed: int, salt: int, streams) -> np.ndarray:
    """``(n, _N_DRAWS)`` uint64: a splitmix64 stream per ``(seed, salt, stream)``."""
    base = _mix(np.array([int(seed) % (1 << 64)], dtype=np.uint64))
    base = _mix(base + np.array([salt], dtype=np.uint64) * _C3)
    s = np.asarray(streams, dtype=np.uint64).reshape(-1)
    h = _mix(base + s * _C3)
    return _mix(h[:, None] + np.arange(1, _N_DRAWS + 1, dtype=np.uint64)[None, :] * _GOLDEN)


_CLEARED = None


def _cleared_states() -> np.ndarray:
    """``(4, STATE_SIZE)``: a coinche-family state before the deal, per dealer."""
    global _CLEARED
    if _CLEARED is None:
        c = np.empty((4, E.STATE_SIZE), dtype=np.int64)
        for dealer in range(4):
            E.reset_state(c[dealer], np.zeros(4, dtype=np.int64), dealer)
        _CLEARED = c
    return _CLEARED


def _frozen_mode(frozen) -> str:
    if frozen is None or frozen is False or frozen == "" or frozen == "none":
        return ""
    if frozen is True:
        return "longest"
    if frozen in FROZEN_MODES:
        return frozen
    raise ArenaError(f"frozen_contract={frozen!r}: expected False, True, or one of "
                     f"{', '.join(map(repr, FROZEN_MODES))}")


def _build_states(rules: RuleSet, P: np.ndarray, d: np.ndarray, dealers, frozen: str):
    """Initial states, agent seeds and dealers from the draws ``d`` (one row per deal)."""
    n = len(d)
    decks = np.argsort(d[:, :32], axis=1, kind="stable").astype(np.int64)
    drawn = (d[:, _D_DEALER] >> _U(62)).astype(np.int64)
    dealers = drawn if dealers is None else np.asarray(dealers, dtype=np.int64)
    seeds = np.ascontiguousarray((d[:, _D_SEEDS:_D_SEEDS + 4] >> _U(1)).astype(np.int64))
    states = np.empty((n, E.STATE_SIZE), dtype=np.int64)
    classic = rules.family == "classic"
    if classic:
        for i in range(n):
            E.reset_classic(states[i], decks[i], int(dealers[i]))
    else:
        # reset_state is the cleared state of the dealer plus the hands: build the four
        # cleared states once and fill in the hands (a test compares with Deal(deck=...))
        seat = (dealers[:, None] + 1 + _RECEIVER[None, :]) & 3
        bits = np.left_shift(np.int64(1), decks)
        hands = np.stack([(bits * (seat == s)).sum(axis=1) for s in range(4)], axis=1)
        states[:] = _cleared_states()[dealers]
        states[:, E.S_HAND:E.S_HAND + 4] = hands
        states[:, E.S_INIT_HAND:E.S_INIT_HAND + 4] = hands
    if frozen:
        takers = (d[:, _D_TAKER] >> _U(62)).astype(np.int64)
        strains_allowed = rules.allowed_strains
        if frozen == "uniform":
            k = len(strains_allowed)
            pick = ((d[:, _D_STRAIN] >> _U(32)) * _U(k)) >> _U(32)
            strains = np.array(strains_allowed, dtype=np.int64)[pick.astype(np.int64)]
        elif classic:
            strains = states[:, E.S_RETOURNE] >> 3
        else:
            hand = states[np.arange(n), E.S_HAND + takers]
            key = np.stack([_BYTE_COUNT[(hand >> (8 * s)) & 0xFF] * 64
                            + _BYTE_TRUMP[(hand >> (8 * s)) & 0xFF] for s in range(4)], axis=1)
            strains = np.argmax(key, axis=1).astype(np.int64)
        value = 0 if classic else rules.min_bid
        for i in range(n):
            E.set_contract(states[i], P, value, int(strains[i]), 0, int(takers[i]))
    return states, seeds, dealers, decks


class DealSet:
    """The deals of a tournament: deal ``i`` depends on ``(rules, seed, i)`` only.

    >>> ds = DealSet("ffb", seed=1)
    >>> states, seeds = ds.states([0, 5])
    >>> bool((ds.states([5])[0][0] == states[1]).all()), seeds.shape
    (True, (2, 4))
    >>> ds.deal(5).phase, DealSet("ffb", 1, frozen_contract=True).deal(5).phase
    ('auction', 'play')
    """

    def __init__(self, rules: Union[str, RuleSet] = "ffb", seed: int = 0,
                 frozen_contract: Union[bool, str] = False):
        self.rules = get_rules(rules)
        self.params = params_vector(self.rules)
        self.seed = _check_seed(seed)
        self.frozen = _frozen_mode(frozen_contract)

    def states(self, indices) -> Tuple[np.ndarray, np.ndarray]:
        """``(states, seeds)``: int64 ``(n, STATE_SIZE)`` initial states of the deals
        ``indices`` and int64 ``(n, 4)`` agent seeds per (deal, seat)."""
        idx = _check_indices(indices)
        d = _draws(self.seed, _SALT_DEALS, idx)
        states, seeds, _, _ = _build_states(self.rules, self.params, d, None, self.frozen)
        return states, seeds

    def decks(self, indices) -> Tuple[np.ndarray, np.ndarray]:
        """``(decks, dealers)``: the dealing order (int64 ``(n, 32)``) and dealer of each
        deal: ``Deal(rules, deck=decks[k], dealer=dealers[k])`` is deal ``indices[k]``."""
        idx = _check_indices(indices)
        d = _draws(self.seed, _SALT_DEALS, idx)
        decks = np.argsort(d[:, :32], axis=1, kind="stable").astype(np.int64)
        return decks, (d[:, _D_DEALER] >> _U(62)).astype(np.int64)

    def deal(self, index: int) -> Deal:
        """Deal ``index`` as a :class:`~coinche_rl.game.Deal` (before its first action)."""
        states, _ = self.states([index])
        return Deal.from_state(self.rules, states[0])

    def seeds(self, index: int) -> List[int]:
        """The four agents' seeds of deal ``index``."""
        return [int(s) for s in self.states([index])[1][0]]


def _check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ArenaError(f"seed must be a non-negative integer, not {seed!r}")
    return int(seed)


def _check_indices(indices) -> np.ndarray:
    idx = np.asarray(indices, dtype=np.int64).reshape(-1)
    if len(idx) and idx.min() < 0:
        raise ArenaError("deal indices must be >= 0")
    return idx


# ===================================================================== playing
_AGENTS: Dict[Tuple[str, int], object] = {}


def _seat_agents(specs4: Sequence[str]):
    """This process's agent for each seat (one instance per (spec, seat), reused)."""
    from .agents import make_agent
    out = []
    for seat, spec in enumerate(specs4):
        key = (spec, seat)
        a = _AGENTS.get(key)
        if a is None:
            a = _AGENTS[key] = make_agent(spec)
        out.append(a)
    return out


def _numba_bots(agents) -> Optional[np.ndarray]:
    bots = [getattr(a, "numba_bot", None) for a in agents]
    if any(b is None for b in bots):
        return None
    return np.array(bots, dtype=np.int64)


def _batched_seats(agents, rules: RuleSet):
    """``(bots, nets, bid_nets)`` when every agent is a numba bot or plays with networks
    (``play_net`` / ``bid_net``, the ``nn`` agent) and its other decisions with a numba
    bot (``other_bot``), else None."""
    bots, nets, bid_nets = [], [], []
    for a in agents:
        if getattr(a, "numba_bot", None) is not None:
            bots.append(a.numba_bot)
            nets.append(None)
            bid_nets.append(None)
        elif hasattr(a, "play_net") and getattr(a, "other_bot", None) is not None:
            bots.append(a.other_bot)
            nets.append(a.play_net(rules))
            bid_nets.append(a.bid_net(rules) if hasattr(a, "bid_net") else None)
        else:
            return None
    return bots, nets, bid_nets


def _play_states(rules: RuleSet, P: np.ndarray, states: np.ndarray, seeds: np.ndarray,
                 specs4: Sequence[str], fast: bool = True, matches=None) -> None:
    """Play every state of ``states`` (in place) to its end, ``specs4[seat]`` at each seat,
    seat ``s`` of row ``i`` seeded with ``seeds[i, s]``: in numba when every agent has a
    numba kernel (and ``fast``), else through :func:`coinche_rl.agents.play_deal`."""
    agents = _seat_agents(specs4)
    bots = _numba_bots(agents) if fast else None
    if bots is not None and len(states):
        from .agents.numba_bots import play_deals
        play_deals(P, states, bots, seeds)
        return
    batched = _batched_seats(agents, rules) if fast and matches is None else None
    if batched is not None and len(states):
        from .agents.neural.agent import play_states
        play_states(rules, states, seeds, *batched)
        return
    from .agents import play_deal
    for i in range(len(states)):
        deal = Deal.from_state(rules, states[i])
        if deal.is_terminal:
            continue
        play_deal(deal, agents, [int(s) for s in seeds[i]],
                  match=None if matches is None else matches[i])
        states[i] = deal.state


def _contracts(states: np.ndarray) -> np.ndarray:
    """``(n, 5)``: value, strain, taker, coinche, made of finished states (void: taker -1)."""
    out = np.empty((len(states), 5), dtype=np.int64)
    out[:, 0] = states[:, E.S_BID_VALUE]
    out[:, 1] = states[:, E.S_BID_STRAIN]
    out[:, 2] = states[:, E.S_BID_SEAT]
    out[:, 3] = states[:, E.S_COINCHE]
    out[:, 4] = states[:, E.S_MADE]
    void = states[:, E.S_VOID] == 1
    out[void] = (0, 0, -1, 0, -1)
    return out


def _seatings(x, y):
    """Seat specs of the two seatings: X at 0/2 then at 1/3."""
    return (x[0], y[0], x[1], y[1]), (y[0], x[0], y[1], x[1])


def _task_pairs(cfg: dict, indices: np.ndarray) -> dict:
    """Deal pairs ``indices`` of a duplicate configuration."""
    rules = _rules_from_json(cfg["rules"])
    P = params_vector(rules)
    d = _draws(cfg["seed"], _SALT_DEALS, indices)
    states, seeds, dealers, _ = _build_states(rules, P, d, None, cfg["frozen"])
    other = states.copy()
    s1, s2 = _seatings(cfg["x"], cfg["y"])
    fast = cfg.get("fast", True)
    _play_states(rules, P, states, seeds, s1, fast)
    _play_states(rules, P, other, seeds, s2, fast)
    n = len(indices)
    scores = np.empty((n, 2, 2), dtype=np.int64)
    scores[:, 0, 0], scores[:, 0, 1] = states[:, E.S_SCORE], states[:, E.S_SCORE + 1]
    scores[:, 1, 0], scores[:, 1, 1] = other[:, E.S_SCORE + 1], other[:, E.S_SCORE]
    return {"index": np.asarray(indices, dtype=np.int64), "dealer": dealers, "scores": scores,
            "contracts": np.stack([_contracts(states), _contracts(other)], axis=1)}


def _match_deals(cfg, rules, P, j: np.ndarray, k: int, first_dealers):
    streams = j.astype(np.uint64) * _U(_MATCH_STRIDE) + _U(k)
    d = _draws(cfg["seed"], _SALT_MATCH, streams)
    dealers = None if first_dealers is None else (first_dealers + k) & 3
    return _build_states(rules, P, d, dealers, cfg["frozen"])


def _task_matches(cfg: dict, indices: np.ndarray) -> dict:
    """Match pairs ``indices``: both seatings play deal ``k`` of match ``j`` alike."""
    rules = _rules_from_json(cfg["rules"])
    P = params_vector(rules)
    fast = cfg.get("fast", True)
    idx = np.asarray(indices, dtype=np.int64)
    n = len(idx)
    seatings = _seatings(cfg["x"], cfg["y"])
    scores = [[[0, 0] for _ in range(2)] for _ in range(n)]
    pots = [[0, 0] for _ in range(n)]
    winner = np.full((n, 2), -1, dtype=np.int64)
    n_deals = np.zeros((n, 2), dtype=np.int64)
    first = None
    k = 0
    while (winner < 0).any():
        if k >= _MAX_MATCH_DEALS:
            raise ArenaError(f"a match was not decided after {_MAX_MATCH_DEALS} deals")
        live = np.flatnonzero((winner < 0).any(axis=1))
        states, seeds, dealers, _ = _match_deals(cfg, rules, P, idx[live], k,
                                                 None if first is None else first[live])
        if first is None:
            first = dealers.copy()
        for t in (0, 1):
            rows = np.flatnonzero(winner[live, t] < 0)
            if not len(rows):
                continue
            st = states[rows].copy()
            info = [{"scores": list(scores[live[r]][t]), "target": rules.target,
                     "pot": pots[live[r]][t]} for r in rows]
            _play_states(rules, P, st, np.ascontiguousarray(seeds[rows]), seatings[t], fast, info)
            for r, s in zip(rows, st):
                m = live[r]
                deal = Deal.from_state(rules, s)
                sc, pot, w = score_into_match(scores[m][t], pots[m][t], deal)
                scores[m][t], pots[m][t] = sc, pot
                n_deals[m, t] += 1
                if w is not None:
                    winner[m, t] = w
        k += 1
    out = np.empty((n, 2, 2), dtype=np.int64)
    won = np.empty((n, 2), dtype=np.int64)
    for m in range(n):
        out[m, 0] = scores[m][0]
        out[m, 1] = scores[m][1][::-1]
        won[m, 0] = winner[m, 0] == 0
        won[m, 1] = winner[m, 1] == 1
    return {"index": idx, "dealer": first if first is not None else np.zeros(0, np.int64),
            "scores": out, "won": won, "deals": n_deals}


def _play_game(rules, P, cfg, specs4, t: int, rnd: int, table: int) -> dict:
    """One knockout game: deals to the target, at most ``max_deals`` (then the higher
    score wins; a tie plays on)."""
    scores, pot, w = [0, 0], 0, None
    base = ((t * 8 + rnd) * 16 + table) * _MATCH_STRIDE
    fast = cfg.get("fast", True)
    first = None
    k = 0
    while w is None:
        if k >= _MAX_MATCH_DEALS:
            raise ArenaError(f"a knockout game was not decided after {_MAX_MATCH_DEALS} deals")
        d = _draws(cfg["seed"], _SALT_KNOCKOUT, [base + k])
        states, seeds, dealers, _ = _build_states(
            rules, P, d, None if first is None else [(first + k) & 3], "")
        if first is None:
            first = int(dealers[0])
        _play_states(rules, P, states, seeds, specs4, fast,
                     [{"scores": list(scores), "target": rules.target, "pot": pot}])
        scores, pot, w = score_into_match(scores, pot, Deal.from_state(rules, states[0]))
        k += 1
        if w is None and k >= cfg["max_deals"] and scores[0] != scores[1]:
            w = 0 if scores[0] > scores[1] else 1
    return {"seats": None, "scores": [int(scores[0]), int(scores[1])], "winner": int(w),
            "deals": k}


def _task_knockout(cfg: dict, indices: np.ndarray) -> dict:
    """Knockout tournaments ``indices`` (rows as dicts)."""
    rules = _rules_from_json(cfg["rules"])
    P = params_vector(rules)
    players = cfg["players"]
    rows = []
    for t in (int(i) for i in indices):
        rng = np.random.default_rng([cfg["seed"], t])
        alive = list(range(len(players)))
        rounds = []
        rnd = 0
        while True:
            order = [alive[i] for i in rng.permutation(len(alive))]
            games, next_alive = [], []
            for table in range(len(order) // 4):
                seats = order[4 * table:4 * table + 4]
                g = _play_game(rules, P, cfg, [players[p] for p in seats], t, rnd, table)
                g["seats"] = [int(p) for p in seats]
                games.append(g)
                next_alive += [seats[g["winner"]], seats[g["winner"] + 2]]
            rounds.append(games)
            if len(order) == 4:
                g = games[0]
                champions = [g["seats"][g["winner"]], g["seats"][g["winner"] + 2]]
                finalists = [g["seats"][1 - g["winner"]], g["seats"][3 - g["winner"]]]
                break
            alive = next_alive
            rnd += 1
        rows.append({"i": t, "rounds": rounds, "champions": [int(c) for c in champions],
                     "finalists": [int(f) for f in finalists]})
    return {"index": np.asarray(indices, dtype=np.int64), "rows": rows}


_TASKS = {"pair": _task_pairs, "match": _task_matches, "knockout": _task_knockout}


def _run_task(task, warm: bool = True) -> dict:
    """Run one chunk ``(kind, config, indices)`` (the unit every executor ships).
    ``warm``: compile every kernel first, so that ``seconds`` times the play alone
    (workers skip it and load the kernels they use from the cache as they go)."""
    kind, cfg, indices = task
    if warm:
        _ensure_warm()
    t0 = time.perf_counter()
    out = _TASKS[kind](cfg, np.asarray(indices, dtype=np.int64))
    out["seconds"] = time.perf_counter() - t0
    return out


# ================================================================== executors
_WARM = False


def warmup() -> None:
    """Compile (or load from the numba cache) every kernel a tournament uses: the
    engine's, the numba bots' when present, and the states this module builds."""
    global _WARM
    from .simulate import warmup as engine_warmup
    engine_warmup()
    try:
        from .agents import numba_bots
    except ModuleNotFoundError as e:
        if e.name != "coinche_rl.agents.numba_bots":
            raise
    else:
        numba_bots.warmup()
    for preset, frozen in (("ffb", "longest"), ("classic", "uniform")):
        DealSet(preset, 0, frozen).states([0])
    _WARM = True


def _ensure_warm() -> None:
    if not _WARM:
        warmup()


#: what a worker adds to an unknown-agent error (issue 15: registered under the guard)
_WORKER_REGISTRY_HINT = (
    " (in a worker process: workers import coinche-rl afresh, so an agent registered in "
    "your script under `if __name__ == \"__main__\":` or in the interactive session is "
    "unknown there; register it at the top level of a module the workers import, e.g. "
    "the script's own top level or your package, or use backend='serial')")


def _run_task_in_worker(task) -> dict:
    from .agents.registry import AgentSpecError
    try:
        return _run_task(task, warm=False)
    except AgentSpecError as e:
        if str(e).startswith("unknown agent"):
            raise AgentSpecError(str(e) + _WORKER_REGISTRY_HINT) from None
        raise


def _chunks(indices: np.ndarray, size: int):
    for k in range(0, len(indices), size):
        yield indices[k:k + size]


_RAY_TASK = None
_POOL = None


def _pool(n: int):
    """The process pool of ``n`` spawned workers, started on first use and kept for the
    next calls (:func:`shutdown_pool` stops it; it stops at exit)."""
    global _POOL
    if _POOL is not None and _POOL[0] != n:
        shutdown_pool()
    if _POOL is None:
        import atexit
        import multiprocessing as mp
        from concurrent.futures import ProcessPoolExecutor
        warmup()                      # fill the numba cache before the workers load it
        ex = ProcessPoolExecutor(max_workers=n, mp_context=mp.get_context("spawn"))
        if not _POOL_ATEXIT:
            atexit.register(shutdown_pool)
            _POOL_ATEXIT.append(True)
        _POOL = (n, ex)
    return _POOL[1]


_POOL_ATEXIT: list = []


def shutdown_pool() -> None:
    """Stop the worker processes of ``backend="pool"`` (they are otherwise kept between
    calls, so that a series of tournaments starts them once)."""
    global _POOL
    if _POOL is not None:
        _POOL[1].shutdown(wait=True, cancel_futures=True)
        _POOL = None


def _execute(tasks: list, backend: str, workers: Optional[int], address: Optional[str],
             on_done: Callable) -> None:
    """Run ``tasks`` on ``backend``, calling ``on_done(task, result)`` as each finishes
    (in completion order)."""
    if not tasks:
        return
    if backend == "serial":
        for t in tasks:
            on_done(t, _run_task(t))
        return
    if backend == "pool":
        from concurrent.futures import as_completed
        from concurrent.futures.process import BrokenProcessPool
        ex = _pool(workers or os.cpu_count() or 1)
        futures = {ex.submit(_run_task_in_worker, t): t for t in tasks}
        try:
            for f in as_completed(futures):
                on_done(futures[f], f.result())
        except BrokenProcessPool as e:
            shutdown_pool()
            raise ArenaError(
                "the pool's worker processes died while running the tournament. Started from "
                "a script, the pool's workers re-import it (Python's spawn start method): its "
                "top-level code must be under `if __name__ == \"__main__\":`; otherwise a "
                "worker was killed (out of memory?). backend='serial' plays in this "
                "process") from e
        except BaseException:
            for f in futures:
                f.cancel()
            raise
        return
    if backend == "ray":
        try:
            import ray
        except ModuleNotFoundError:
            raise ArenaError("backend 'ray' needs Ray: pip install 'coinche-rl[ray]'") from None
        global _RAY_TASK
        if not ray.is_initialized():
            import logging
            kw = dict(include_dashboard=False, logging_level=logging.WARNING, log_to_driver=False)
            if address:
                ray.init(address=address, **kw)
            else:
                warmup()
                ray.init(num_cpus=workers or os.cpu_count() or 1, **kw)
        if _RAY_TASK is None:
            _RAY_TASK = ray.remote(_run_task_in_worker)
        pending = {_RAY_TASK.remote(t): t for t in tasks}
        try:
            while pending:
                done, _ = ray.wait(list(pending), num_returns=1)
                for ref in done:
                    on_done(pending.pop(ref), ray.get(ref))
        except BaseException:
            for ref in pending:
                ray.cancel(ref)
            raise
        return
    raise ArenaError(f"unknown backend {backend!r}: expected one of {', '.join(BACKENDS)}")


# =============================================================== results files
def _rules_to_json(rules: RuleSet) -> dict:
    if rules.name in PRESETS:
        return {"preset": rules.name, "overrides": rules.overrides()}
    return {"preset": "ffb", "overrides": {"name": rules.name, **rules.overrides()}}


def _rules_from_json(obj: dict) -> RuleSet:
    return get_rules(obj["preset"], **obj.get("overrides", {}))


def _run_id(cfg: dict) -> str:
    text = json.dumps(cfg, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


class ResultsFile:
    """A JSON-lines results file: the runs it describes and the rows it holds.

    Opening drops a half-written last line (a killed run); :meth:`append` writes whole
    lines and flushes them to the disk.
    """

    def __init__(self, path: Union[str, os.PathLike]):
        self.path = os.fspath(path)
        self.runs: Dict[str, dict] = {}
        self.rows: Dict[str, Dict[int, dict]] = {}
        if os.path.exists(self.path):
            self._load()

    def _load(self) -> None:
        with open(self.path, "rb") as f:
            data = f.read()
        end = data.rfind(b"\n") + 1
        if end < len(data):                       # a line cut by a killed run
            with open(self.path, "r+b") as f:
                f.truncate(end)
        for lineno, line in enumerate(data[:end].split(b"\n"), 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except ValueError:
                raise ResultsFileError(f"{self.path}:{lineno}: not a JSON line "
                                       f"(a results file holds one JSON object per line)") from None
            kind = obj.get("type") if isinstance(obj, dict) else None
            if kind == "run" and isinstance(obj.get("config"), dict):
                self.runs[str(obj["run"])] = obj["config"]
            elif kind in ROW_TYPES and "run" in obj and "i" in obj:
                i = obj["i"]
                if isinstance(i, bool) or not isinstance(i, int) or i < 0:
                    raise ResultsFileError(
                        f"{self.path}:{lineno}: row index 'i' must be a deal index >= 0, "
                        f"got {i!r} (the file was edited or is not a coinche-rl results file)")
                self.rows.setdefault(str(obj["run"]), {})[i] = obj
            else:
                raise ResultsFileError(
                    f"{self.path}:{lineno}: expected a 'run' line or a row of type "
                    f"{', '.join(map(repr, ROW_TYPES))} with 'run' and 'i', got {line[:80]!r}")

    def done(self, run: str) -> Dict[int, dict]:
        return self.rows.get(run, {})

    def begin(self, run: str, config: dict) -> None:
        if run not in self.runs:
            self.runs[run] = config
            self.append([{"type": "run", "run": run, "config": config}])

    def append(self, objs: Sequence[dict]) -> None:
        text = "".join(json.dumps(o, separators=(",", ":")) + "\n" for o in objs)
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())


def load_results(path) -> ResultsFile:
    """Read a results file (see the module docstring)."""
    if not os.path.exists(path):
        raise ResultsFileError(f"{path}: no such results file")
    return ResultsFile(path)


def _pair_rows(run: str, arrays: dict) -> List[dict]:
    rows = []
    for k in range(len(arrays["index"])):
        sc = arrays["scores"][k]
        row = {"type": "pair", "run": run, "i": int(arrays["index"][k]),
               "dealer": int(arrays["dealer"][k]), "scores": sc.tolist(),
               "contracts": arrays["contracts"][k].tolist(),
               "margin": float((sc[0, 0] - sc[0, 1]) + (sc[1, 0] - sc[1, 1])) / 2}
        rows.append(row)
    return rows


def _match_rows(run: str, arrays: dict) -> List[dict]:
    return [{"type": "match", "run": run, "i": int(arrays["index"][k]),
             "dealer": int(arrays["dealer"][k]), "scores": arrays["scores"][k].tolist(),
             "won": arrays["won"][k].tolist(), "deals": arrays["deals"][k].tolist()}
            for k in range(len(arrays["index"]))]


def _arrays_from_rows(kind: str, rows: Sequence[dict]) -> dict:
    n = len(rows)
    out = {"index": np.array([r["i"] for r in rows], dtype=np.int64).reshape(n),
           "dealer": np.array([r["dealer"] for r in rows], dtype=np.int64).reshape(n),
           "scores": np.array([r["scores"] for r in rows], dtype=np.int64).reshape(n, 2, 2)}
    if kind == "pair":
        out["contracts"] = np.array([r["contracts"] for r in rows], dtype=np.int64).reshape(n, 2, 5)
    else:
        out["won"] = np.array([r["won"] for r in rows], dtype=np.int64).reshape(n, 2)
        out["deals"] = np.array([r["deals"] for r in rows], dtype=np.int64).reshape(n, 2)
    return out


def _concat(parts: List[dict], keys) -> dict:
    out = {}
    for k in keys:
        arrs = [p[k] for p in parts if len(p["index"])]
        out[k] = np.concatenate(arrs) if arrs else None
    return out


# ==================================================================== progress
class _Progress:
    """A progress bar (rich) on stderr, a callback ``f(done, total)``, or nothing."""

    def __init__(self, progress, total: int, done: int, description: str):
        self.total, self.done = total, done
        self.callback = progress if callable(progress) else None
        self.bar = None
        if progress is True:
            try:
                from rich.console import Console
                from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                                           TimeElapsedColumn, TimeRemainingColumn)
            except ModuleNotFoundError:
                self.bar = None
            else:
                self.bar = Progress(TextColumn("{task.description}"), BarColumn(),
                                    MofNCompleteColumn(), TimeElapsedColumn(), TimeRemainingColumn(),
                                    console=Console(stderr=True), transient=False)
                self.task = self.bar.add_task(description, total=total, completed=done)
                self.bar.start()

    def advance(self, k: int) -> None:
        self.done += k
        if self.bar is not None:
            self.bar.update(self.task, advance=k)
        if self.callback is not None:
            self.callback(self.done, self.total)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


# ===================================================================== results
def _team_label(team: Tuple[str, str]) -> str:
    return team[0] if team[0] == team[1] else f"{team[0]}+{team[1]}"


@dataclass
class DuplicateResult:
    """The result of one duplicate matchup (team X against team Y).

    ``scores[k, t]`` holds (X's score, Y's score) of pair ``k`` in seating ``t`` (X at
    seats 0/2 in seating 0, at 1/3 in seating 1); in deal mode ``contracts[k, t]`` is
    (value, strain, taker seat, coinche, made); in match mode ``won[k, t]`` is 1 when X won
    that match and ``deals[k, t]`` its length. ``margins`` are the per-pair margins (X - Y,
    mean of the two seatings; per deal, or per match), ``estimate`` their mean with its
    95% interval.
    """

    x: Tuple[str, str]
    y: Tuple[str, str]
    rules: RuleSet
    seed: int
    frozen: str
    match: bool
    run: str
    index: np.ndarray
    dealer: np.ndarray
    scores: np.ndarray
    contracts: Optional[np.ndarray] = None
    won: Optional[np.ndarray] = None
    deals: Optional[np.ndarray] = None
    seconds: float = 0.0
    new: int = 0
    played: int = 0
    wall_seconds: float = 0.0
    margins: np.ndarray = field(init=False)
    estimate: Estimate = field(init=False)

    def __post_init__(self):
        sc = self.scores.astype(np.float64)
        self.margins = ((sc[:, 0, 0] - sc[:, 0, 1]) + (sc[:, 1, 0] - sc[:, 1, 1])) / 2.0
        self.estimate = mean_ci(self.margins) if len(self.margins) else Estimate(
            math.nan, math.nan, math.nan, 0)

    # ------------------------------------------------------------- the figures
    @property
    def label_x(self) -> str:
        return _team_label(self.x)

    @property
    def label_y(self) -> str:
        return _team_label(self.y)

    @property
    def n(self) -> int:
        """Deal pairs (match pairs in match mode)."""
        return len(self.index)

    @property
    def mean(self) -> float:
        """Mean margin of X over Y: points per deal (per match in match mode)."""
        return self.estimate.mean

    @property
    def ci95(self) -> float:
        """Half-width of the 95% interval of :attr:`mean`."""
        return self.estimate.half_width

    @property
    def paired_sd(self) -> float:
        """Standard deviation of the per-pair margins."""
        return self.estimate.sd

    @property
    def wins(self) -> int:
        return int((self._outcomes() == 1.0).sum())

    @property
    def draws(self) -> int:
        return int((self._outcomes() == 0.5).sum())

    @property
    def losses(self) -> int:
        return int((self._outcomes() == 0.0).sum())

    def _outcomes(self) -> np.ndarray:
        """Per pair: X's share of the pair (1, 0.5, 0); in match mode the share of the
        two matches X won."""
        if self.match:
            return self.won.sum(axis=1) / 2.0
        return np.where(self.margins > 0, 1.0, np.where(self.margins < 0, 0.0, 0.5))

    @property
    def win_rate(self) -> float:
        """Deal win rate of X (pairs won + half the tied ones), or its match win rate."""
        return float(self._outcomes().mean()) if self.n else math.nan

    @property
    def win_ci95(self) -> float:
        """Half-width of the 95% interval of :attr:`win_rate` (over pairs)."""
        return mean_ci(self._outcomes()).half_width if self.n > 1 else math.inf

    @property
    def deals_per_s(self) -> float:
        """Deals played per second of compute in this call (both seatings counted; the
        time is summed over workers, so it is a per-core figure; NaN when nothing new
        was played)."""
        if not self.played or self.seconds <= 0:
            return math.nan
        return self.played / self.seconds

    @property
    def rows(self) -> List[dict]:
        """The results-file rows of this matchup, by pair index."""
        arrays = {"index": self.index, "dealer": self.dealer, "scores": self.scores,
                  "contracts": self.contracts, "won": self.won, "deals": self.deals}
        return (_match_rows if self.match else _pair_rows)(self.run, arrays)

    def ratings(self) -> Tuple[Ratings, Ratings]:
        """(points, Elo) ratings of the two teams from this matchup alone."""
        return _fit_matchups([self], [self.label_x, self.label_y], [((0,), (1,))])

    def summary(self) -> dict:
        """The headline figures as a JSON-able dict."""
        return {"x": self.label_x, "y": self.label_y, "n": self.n, "mean": self.mean,
                "ci95": self.ci95, "paired_sd": self.paired_sd, "win_rate": self.win_rate,
                "win_ci95": self.win_ci95, "wins": self.wins, "draws": self.draws,
                "losses": self.losses, "match": self.match, "frozen": self.frozen or None,
                "rules": self.rules.name, "seed": self.seed, "run": self.run}

    def __repr__(self) -> str:
        unit = "match" if self.match else "deal"
        return (f"<DuplicateResult {self.label_x} vs {self.label_y}: {self.mean:+.2f} ± "
                f"{self.ci95:.2f} per {unit}, win rate {self.win_rate:.3f}, n={self.n}>")


def _fit_matchups(results: Sequence[DuplicateResult], names, teams) -> Tuple[Ratings, Ratings]:
    """Points and Bradley-Terry ratings of ``names`` from matchups; ``teams[k]`` gives
    the member indices of result ``k``'s X and Y."""
    t1 = [tx for tx, _ in teams]
    t2 = [ty for _, ty in teams]
    X = team_design(t1, t2, len(names))
    margins = np.array([r.mean for r in results])
    variances = np.array([(r.paired_sd ** 2 / r.n) if r.n > 1 else 0.0 for r in results])
    variances = np.nan_to_num(variances)
    outcomes = [r._outcomes() for r in results]
    wins = np.array([o.sum() for o in outcomes])
    games = np.array([float(len(o)) for o in outcomes])
    return (fit_points(X, margins, variances, names),
            fit_bradley_terry(X, wins, games, names))


@dataclass
class TournamentResult:
    """A round robin (``kind="round_robin"``) or a rotating-partner round robin
    (``kind="rotating"``): every matchup's :class:`DuplicateResult` and the ratings."""

    kind: str
    names: List[str]
    specs: List[str]
    matchups: List[DuplicateResult]
    teams: List[Tuple[Tuple[int, ...], Tuple[int, ...]]]
    points: Ratings
    elo: Ratings
    seconds: float

    @property
    def rules(self) -> RuleSet:
        return self.matchups[0].rules

    def summary(self) -> dict:
        return {"kind": self.kind, "names": self.names, "points": self.points.as_dict(),
                "elo": self.elo.as_dict(), "matchups": [m.summary() for m in self.matchups],
                "seconds": self.seconds}


@dataclass
class KnockoutResult:
    """Knockout tournaments (seed text 004): ``rows[t]`` is tournament ``t`` (rounds of
    games with their seats, scores, winner and length; champions and finalists as
    player indices), and per agent spec the titles and a team Bradley-Terry rating over
    every game."""

    players: List[str]
    rules: RuleSet
    seed: int
    max_deals: int
    run: str
    rows: List[dict]
    elo: Ratings
    seconds: float

    @property
    def specs(self) -> List[str]:
        """The distinct agent specs, in order of first entry."""
        return list(dict.fromkeys(self.players))

    def entrants(self, spec: str) -> int:
        return self.players.count(spec)

    def titles(self, spec: str) -> float:
        """Champion places won by entrants of ``spec`` (two per tournament), / 2."""
        return sum(self.players[c] == spec for r in self.rows for c in r["champions"]) / 2.0

    def title_share(self, spec: str) -> float:
        """Share of the champion places held by ``spec`` (``entrants / players`` when
        every player is as strong)."""
        return self.titles(spec) / len(self.rows) if self.rows else math.nan

    def mean_rounds_won(self, spec: str) -> float:
        """Rounds won per entrant of ``spec`` and tournament."""
        won = 0
        for r in self.rows:
            for games in r["rounds"]:
                for g in games:
                    w = g["winner"]
                    won += sum(self.players[g["seats"][s]] == spec for s in (w, w + 2))
        return won / (self.entrants(spec) * len(self.rows)) if self.rows else math.nan

    def summary(self) -> dict:
        return {"kind": "knockout", "players": self.players, "tournaments": len(self.rows),
                "titles": {s: self.titles(s) for s in self.specs},
                "title_share": {s: self.title_share(s) for s in self.specs},
                "elo": self.elo.as_dict(), "seconds": self.seconds}


# ===================================================================== running
def _canonical_spec(spec) -> str:
    from .agents import make_agent
    if not isinstance(spec, str):
        raise ArenaError(f"an agent is given by its spec string (e.g. 'heuristic'), so that "
                         f"every worker can build it, not {type(spec).__name__}")
    return make_agent(spec).spec


def _team(agent) -> Tuple[str, str]:
    if isinstance(agent, str):
        s = _canonical_spec(agent)
        return (s, s)
    if isinstance(agent, (tuple, list)) and len(agent) == 2:
        return (_canonical_spec(agent[0]), _canonical_spec(agent[1]))
    if isinstance(agent, (tuple, list)):
        raise ArenaError(f"a team is an agent spec or a pair of specs (partners), not {agent!r}")
    raise ArenaError(f"an agent is given by its spec string (e.g. 'heuristic'), so that every "
                     f"worker can build it, not {type(agent).__name__}; register a custom agent "
                     f"with coinche_rl.agents.register_agent")


def _is_fast(specs: Sequence[str]) -> bool:
    from .agents import make_agent
    agents = [make_agent(s) for s in specs]
    return all(getattr(a, "numba_bot", None) is not None or hasattr(a, "play_net")
               for a in agents)


def _check_common(n, backend, workers):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ArenaError(f"the number of deals must be a positive integer, not {n!r}")
    if backend not in BACKENDS:
        raise ArenaError(f"unknown backend {backend!r}: expected one of {', '.join(BACKENDS)}")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, (int, np.integer))
                                or workers < 1):
        raise ArenaError(f"workers must be a positive integer, not {workers!r}")


def _rules_for(preset, target) -> RuleSet:
    rules = get_rules(preset)
    if target is not None:
        rules = rules.replace(target=int(target))
    return rules


def _run_matchups(pairs: Sequence[Tuple[Tuple[str, str], Tuple[str, str]]], ns: Sequence[int],
                  rules: RuleSet, seed: int, frozen: str, match: bool, backend: str,
                  workers, address, out, progress, fast: bool = True,
                  chunk: Optional[int] = None) -> List[DuplicateResult]:
    """Play every matchup ``pairs[k]`` on ``ns[k]`` deal (match) pairs."""
    kind = "match" if match else "pair"
    store = ResultsFile(out) if out is not None else None
    runs: Dict[str, dict] = {}
    want: Dict[str, int] = {}
    ids = []
    for (x, y), n in zip(pairs, ns):
        cfg = {"version": _FORMAT_VERSION, "format": kind, "x": list(x), "y": list(y),
               "rules": _rules_to_json(rules), "seed": seed, "frozen": frozen}
        run = _run_id(cfg)
        ids.append(run)
        runs[run] = cfg
        want[run] = max(want.get(run, 0), int(n))
    parts: Dict[str, list] = {run: [] for run in runs}
    secs = {run: 0.0 for run in runs}
    new = {run: 0 for run in runs}
    played = {run: 0 for run in runs}
    tasks = []
    n_workers = 1 if backend == "serial" else (workers or os.cpu_count() or 1)
    have = 0
    for run, cfg in runs.items():
        done = store.done(run) if store is not None else {}
        if done:
            rows = [done[i] for i in sorted(done) if i < want[run]]
            parts[run].append(_arrays_from_rows(kind, rows))
            have += len(rows)
        if store is not None:
            store.begin(run, cfg)
        missing = np.array([i for i in range(want[run]) if i not in done], dtype=np.int64)
        if not len(missing):
            continue
        specs = cfg["x"] + cfg["y"]
        numba = fast and _is_fast(specs)
        size = chunk or ((2048 if numba else 16) if kind == "pair" else (64 if numba else 2))
        size = max(1, min(size, math.ceil(len(missing) / (4 * n_workers)))) if n_workers > 1 else size
        task_cfg = dict(cfg, fast=fast, run=run)
        tasks += [(kind, task_cfg, c) for c in _chunks(missing, size)]
    total = sum(want.values())
    # spread the matchups over the run instead of finishing one after the other
    tasks.sort(key=lambda t: int(t[2][0]))
    bar = _Progress(progress, total, have, "deal pairs" if kind == "pair" else "match pairs")

    def on_done(task, res):
        run = task[1]["run"]
        parts[run].append(res)
        secs[run] += res["seconds"]
        new[run] += len(res["index"])
        played[run] += int(res["deals"].sum()) if kind == "match" else 2 * len(res["index"])
        if store is not None:
            store.append((_pair_rows if kind == "pair" else _match_rows)(run, res))
        bar.advance(len(res["index"]))

    t0 = time.perf_counter()
    try:
        _execute(tasks, backend, workers, address, on_done)
    finally:
        bar.close()
    wall = time.perf_counter() - t0
    keys = ("index", "dealer", "scores") + (("contracts",) if kind == "pair" else ("won", "deals"))
    results = []
    for run, (x, y), n in zip(ids, pairs, ns):
        arrays = _concat(parts[run], keys)
        order = np.argsort(arrays["index"], kind="stable")
        arrays = {k: v[order] for k, v in arrays.items()}
        keep = arrays["index"] < n
        arrays = {k: v[keep] for k, v in arrays.items()}
        results.append(DuplicateResult(
            x=tuple(x), y=tuple(y), rules=rules, seed=seed, frozen=frozen, match=match, run=run,
            index=arrays["index"], dealer=arrays["dealer"], scores=arrays["scores"],
            contracts=arrays.get("contracts"), won=arrays.get("won"), deals=arrays.get("deals"),
            seconds=secs[run], new=new[run], played=played[run], wall_seconds=wall))
    return results


def run_duplicate(agent_a, agent_b, n_deals: int = 1000, preset: Union[str, RuleSet] = "ffb",
                  seed: int = 0, backend: str = "serial", workers: Optional[int] = None,
                  out=None, match: bool = False, frozen_contract: Union[bool, str] = False,
                  address: Optional[str] = None, progress=False, target: Optional[int] = None,
                  fast: bool = True, chunk: Optional[int] = None) -> DuplicateResult:
    """A duplicate matchup: ``agent_a`` (team X) against ``agent_b`` (team Y).

    :param agent_a: an agent spec (``"heuristic"``) or a pair of specs (partners).
    :param n_deals: deals of the deal set, each played in both seatings (in match
        mode: match pairs).
    :param preset: rule preset name or :class:`~coinche_rl.rules.RuleSet`; ``target``
        overrides its target (match mode).
    :param seed: the deal set (cards, dealers, agents' seeds, frozen contracts).
    :param backend: ``"serial"``, ``"pool"`` or ``"ray"`` (``workers`` processes / CPUs;
        ``address`` of an existing Ray cluster).
    :param out: a JSON-lines results file: rows are appended as they finish and rows
        already there are reused (resume).
    :param match: play pairs of matches to the target instead of single deals.
    :param frozen_contract: skip the auction with a contract drawn per deal
        (``True``/``"longest"`` or ``"uniform"``, see the module docstring).
    :param progress: ``True`` for a progress bar on stderr, or ``f(done, total)``.
    :param fast: ``False`` plays through the Python agents even when numba kernels exist.
    :param chunk: deal pairs per task (default: 2048 in numba, 16 in Python).
    :raises coinche_rl.agents.AgentSpecError: a bad agent spec.
    :raises ArenaError: any other bad argument.
    """
    _check_common(n_deals, backend, workers)
    rules = _rules_for(preset, target)
    x, y = _team(agent_a), _team(agent_b)
    return _run_matchups([(x, y)], [int(n_deals)], rules, _check_seed(seed),
                         _frozen_mode(frozen_contract), bool(match), backend, workers, address,
                         out, progress, fast, chunk)[0]


def _unique_names(specs: Sequence[str]) -> List[str]:
    counts: Dict[str, int] = {}
    for s in specs:
        counts[s] = counts.get(s, 0) + 1
    seen: Dict[str, int] = {}
    names = []
    for s in specs:
        if counts[s] == 1:
            names.append(s)
        else:
            seen[s] = seen.get(s, 0) + 1
            names.append(f"{s}#{seen[s]}")
    return names


def run_round_robin(agents: Sequence[str], n_deals: int = 1000,
                    preset: Union[str, RuleSet] = "ffb", seed: int = 0,
                    backend: str = "serial", workers: Optional[int] = None, out=None,
                    match: bool = False, frozen_contract: Union[bool, str] = False,
                    address: Optional[str] = None, progress=False,
                    target: Optional[int] = None, python_deals: Optional[int] = None,
                    fast: bool = True) -> TournamentResult:
    """A duplicate between every two of ``agents`` (specs, at least two distinct), all on
    the same deal set, and their ratings (points per deal and Bradley-Terry Elo).

    ``python_deals`` caps the deals of the matchups that cannot run in numba.
    """
    _check_common(n_deals, backend, workers)
    specs = [_canonical_spec(a) for a in agents]
    if len(set(specs)) < 2 or len(specs) != len(set(specs)):
        raise ArenaError(f"a round robin needs at least two agents, each once; got {list(agents)!r}")
    rules = _rules_for(preset, target)
    pairs, ns, teams = [], [], []
    for i, j in itertools.combinations(range(len(specs)), 2):
        pairs.append(((specs[i], specs[i]), (specs[j], specs[j])))
        n = int(n_deals)
        if python_deals is not None and not (fast and _is_fast([specs[i], specs[j]])):
            n = min(n, int(python_deals))
        ns.append(n)
        teams.append(((i,), (j,)))
    t0 = time.perf_counter()
    results = _run_matchups(pairs, ns, rules, _check_seed(seed), _frozen_mode(frozen_contract),
                            bool(match), backend, workers, address, out, progress, fast)
    points, elo = _fit_matchups(results, specs, teams)
    return TournamentResult("round_robin", specs, specs, results, teams, points, elo,
                            time.perf_counter() - t0)


def run_rotating(players: Sequence[str], n_deals: int = 1000,
                 preset: Union[str, RuleSet] = "ffb", seed: int = 0, backend: str = "serial",
                 workers: Optional[int] = None, out=None,
                 frozen_contract: Union[bool, str] = False, address: Optional[str] = None,
                 progress=False, fast: bool = True) -> TournamentResult:
    """Rotating partners: for every four of ``players`` (specs; one may enter several
    times), each of the three splits into two partnerships plays a duplicate on the same
    deal set. Per-player ratings come from the team model (a team is the mean of its
    members), which separates a player's strength from its partners'.
    """
    _check_common(n_deals, backend, workers)
    specs = [_canonical_spec(p) for p in players]
    if len(specs) < 4:
        raise ArenaError(f"rotating partners need at least 4 players, got {len(specs)}")
    rules = _rules_for(preset, None)
    names = _unique_names(specs)
    pairs, teams = [], []
    for a, b, c, d in itertools.combinations(range(len(specs)), 4):
        for tx, ty in (((a, b), (c, d)), ((a, c), (b, d)), ((a, d), (b, c))):
            pairs.append(((specs[tx[0]], specs[tx[1]]), (specs[ty[0]], specs[ty[1]])))
            teams.append((tx, ty))
    t0 = time.perf_counter()
    results = _run_matchups(pairs, [int(n_deals)] * len(pairs), rules, _check_seed(seed),
                            _frozen_mode(frozen_contract), False, backend, workers, address,
                            out, progress, fast)
    points, elo = _fit_matchups(results, names, teams)
    return TournamentResult("rotating", names, specs, results, teams, points, elo,
                            time.perf_counter() - t0)


def run_knockout(players: Sequence[str], n_tournaments: int = 100,
                 preset: Union[str, RuleSet] = "vip_classic", seed: int = 0,
                 max_deals: int = 7, target: Optional[int] = 501, backend: str = "serial",
                 workers: Optional[int] = None, out=None, address: Optional[str] = None,
                 progress=False, fast: bool = True) -> KnockoutResult:
    """Knockout tournaments in the format of seed text 004 (vipbelote): 16 players (3
    rounds) or 8 (2 rounds) - any 4 * 2**k - seated at random at tables of four with
    partnerships drawn before every round; each table plays a game to ``target`` points
    (501) of at most ``max_deals`` deals (7; then the higher score wins, a tie plays
    another deal), and the winning pair goes through. Ratings: a team Bradley-Terry fit
    per agent spec over every game.
    """
    _check_common(n_tournaments, backend, workers)
    specs = [_canonical_spec(p) for p in players]
    k = len(specs)
    if k < 4 or k & (k - 1) or k % 4:
        raise ArenaError(f"a knockout needs 4 * 2**k players (8 or 16 in the vipbelote format), "
                         f"got {k}")
    if isinstance(max_deals, bool) or not isinstance(max_deals, int) or max_deals < 1:
        raise ArenaError(f"max_deals must be a positive integer, not {max_deals!r}")
    rules = _rules_for(preset, target)
    seed = _check_seed(seed)
    cfg = {"version": _FORMAT_VERSION, "format": "knockout", "players": specs,
           "rules": _rules_to_json(rules), "seed": seed, "max_deals": max_deals}
    run = _run_id(cfg)
    store = ResultsFile(out) if out is not None else None
    done = dict(store.done(run)) if store is not None else {}
    if store is not None:
        store.begin(run, cfg)
    rows = {i: r for i, r in done.items() if i < n_tournaments}
    missing = np.array([i for i in range(n_tournaments) if i not in rows], dtype=np.int64)
    n_workers = 1 if backend == "serial" else (workers or os.cpu_count() or 1)
    size = max(1, min(16, math.ceil(len(missing) / (4 * n_workers)))) if len(missing) else 1
    tasks = [("knockout", dict(cfg, fast=fast), c) for c in _chunks(missing, size)]
    bar = _Progress(progress, n_tournaments, len(rows), "tournaments")
    secs = [0.0]

    def on_done(task, res):
        new_rows = [dict(r, type="knockout", run=run) for r in res["rows"]]
        for r in new_rows:
            rows[r["i"]] = r
        secs[0] += res["seconds"]
        if store is not None:
            store.append(new_rows)
        bar.advance(len(new_rows))

    t0 = time.perf_counter()
    try:
        _execute(tasks, backend, workers, address, on_done)
    finally:
        bar.close()
    ordered = [rows[i] for i in sorted(rows)]
    uniq = list(dict.fromkeys(specs))
    t1, t2, wins = [], [], []
    for r in ordered:
        for games in r["rounds"]:
            for g in games:
                s = [uniq.index(specs[p]) for p in g["seats"]]
                t1.append((s[0], s[2]))
                t2.append((s[1], s[3]))
                wins.append(1.0 if g["winner"] == 0 else 0.0)
    if len(uniq) >= 2 and t1:
        X = team_design(t1, t2, len(uniq))
        elo = fit_bradley_terry(X, np.array(wins), np.ones(len(wins)), uniq)
    else:
        elo = Ratings("elo", tuple(uniq), np.zeros(len(uniq)), np.zeros(len(uniq)))
    return KnockoutResult(specs, rules, seed, max_deals, run, ordered, elo,
                          time.perf_counter() - t0)


def default_roster(preset: Union[str, RuleSet] = "ffb") -> Tuple[List[str], List[str]]:
    """The default tournament roster: ``random`` and ``heuristic`` first, then every
    other registered agent that can be built and seated under ``preset``, in registry
    order. Returns ``(specs, skipped)`` where ``skipped`` says why an agent was left out.
    """
    from .agents import available_agents, make_agent
    rules = get_rules(preset)
    names = available_agents()
    first = [n for n in ("random", "heuristic") if n in names]
    roster, skipped = [], []
    for name in first + [n for n in names if n not in first]:
        try:
            agent = make_agent(name)
            agent.reset(0, rules, 0)
        except Exception as e:            # an optional dependency, or other rules
            skipped.append(f"{name}: {type(e).__name__}: {e}")
            continue
        roster.append(agent.spec)
    return roster, skipped


# =============================================================== tables, plots
def _fmt(v: float, spec: str = "+.1f") -> str:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "-"
    return format(v, spec)


def _rate(v: float) -> str:
    """A speed for the tables: whole numbers from 10 up, two significant digits below (a
    slow agent's 0.4 deals/s is not "0").

    >>> _rate(134183.2), _rate(12.6), _rate(0.43), _rate(0.0)
    ('134,183', '13', '0.43', '0')
    """
    if not math.isfinite(v):
        return "(resumed)"
    if v >= 10 or v == 0:
        return f"{v:,.0f}"
    return f"{v:.2g}"


def _tables(result) -> List[Tuple[str, List[str], List[List[str]]]]:
    """(title, headers, rows) of every table of ``result``."""
    out = []
    if isinstance(result, DuplicateResult):
        matchups = [result]
    elif isinstance(result, TournamentResult):
        matchups = result.matchups
    else:
        matchups = []
    if matchups:
        m0 = matchups[0]
        unit = "match" if m0.match else "deal"
        what = "match pairs" if m0.match else "deal pairs"
        mode = (f", frozen contracts ({m0.frozen})" if m0.frozen else "") + \
            (f", matches to {m0.rules.target}" if m0.match else "")
        title = f"Duplicate results: rules {m0.rules.name}, seed {m0.seed}{mode}"
        headers = ["team X", "team Y", what, f"X - Y per {unit}", "95% CI",
                   "X win rate" if not m0.match else "X match wins", "paired sd", "deals/s"]
        if isinstance(result, TournamentResult):
            title += " (each matchup from the side that leads)"
        rows = []
        for k, m in enumerate(matchups):
            lx, ly, mean, win = m.label_x, m.label_y, m.mean, m.win_rate
            if isinstance(result, TournamentResult):
                lx, ly = ("+".join(result.names[i] for i in team) for team in result.teams[k])
            if isinstance(result, TournamentResult) and mean < 0:
                lx, ly, mean, win = ly, lx, -mean, 1.0 - win
            rows.append([lx, ly, f"{m.n:,}", _fmt(mean, "+.2f"),
                         f"± {_fmt(m.ci95, '.2f')}", f"{_fmt(win, '.3f')} ± {_fmt(m.win_ci95, '.3f')}",
                         _fmt(m.paired_sd, ".1f"),
                         _rate(m.deals_per_s)])
        out.append((title, headers, rows))
    if isinstance(result, TournamentResult):
        title = ("Ratings (points per deal, field mean 0; Bradley-Terry Elo over deal pairs)"
                 if result.kind == "round_robin" else
                 "Per-player ratings with rotating partners (team = mean of its members)")
        headers = ["rank", "agent", "points/deal", "95% CI", "Elo", "95% CI"]
        rows = []
        for rank, i in enumerate(result.points.order(), 1):
            rows.append([str(rank), result.names[i], _fmt(result.points.rating[i], "+.2f"),
                         f"± {_fmt(result.points.half_width[i], '.2f')}",
                         _fmt(result.elo.rating[result.elo.names.index(result.names[i])], "+.0f"),
                         f"± {_fmt(result.elo.half_width[result.elo.names.index(result.names[i])], '.0f')}"])
        out.append((title, headers, rows))
    if isinstance(result, KnockoutResult):
        n = len(result.rows)
        title = (f"Knockout: {n} tournament(s) of {len(result.players)} players, rules "
                 f"{result.rules.name}, games to {result.rules.target} in at most "
                 f"{result.max_deals} deals")
        headers = ["agent", "entrants", "titles", "title share", "expected", "rounds won/entrant",
                   "team Elo", "95% CI"]
        rows = []
        for s in result.specs:
            k = result.elo.names.index(s)
            rows.append([s, str(result.entrants(s)), _fmt(result.titles(s), ".1f"),
                         _fmt(result.title_share(s), ".3f"),
                         _fmt(result.entrants(s) / len(result.players), ".3f"),
                         _fmt(result.mean_rounds_won(s), ".2f"),
                         _fmt(result.elo.rating[k], "+.0f"), f"± {_fmt(result.elo.half_width[k], '.0f')}"])
        out.append((title, headers, rows))
    return out


def format_summary(result, use_rich: Optional[bool] = None, width: int = 140) -> str:
    """The summary tables of a result as text (rich's tables when installed)."""
    tables = _tables(result)
    if use_rich is None:
        try:
            import rich  # noqa: F401
            use_rich = True
        except ModuleNotFoundError:
            use_rich = False
    if use_rich:
        from rich.console import Console
        buf = io.StringIO()
        console = Console(file=buf, width=width, color_system=None, force_terminal=False)
        for t in _rich_tables(tables):
            console.print(t)
        return buf.getvalue().rstrip("\n")
    lines = []
    for title, headers, rows in tables:
        widths = [max(len(h), *(len(r[c]) for r in rows)) for c, h in enumerate(headers)]
        lines.append(title)
        lines.append("  ".join(h.rjust(w) for h, w in zip(headers, widths)))
        for r in rows:
            lines.append("  ".join(v.rjust(w) for v, w in zip(r, widths)))
        lines.append("")
    return "\n".join(lines).rstrip("\n")


def _rich_tables(tables):
    from rich.table import Table
    out = []
    for title, headers, rows in tables:
        t = Table(title=title, title_justify="left")
        for c, h in enumerate(headers):
            if h in ("team X", "team Y", "agent"):
                t.add_column(h, justify="left", overflow="fold")
            else:
                t.add_column(h, justify="right", no_wrap=True)
        for r in rows:
            t.add_row(*r)
        out.append(t)
    return out


def print_summary(result, console=None) -> None:
    """Print the summary tables (rich, with colours on a terminal, when installed)."""
    try:
        from rich.console import Console
    except ModuleNotFoundError:
        print(format_summary(result, use_rich=False))
        return
    if console is None:
        console = Console()
        if not console.is_terminal:         # piped: rich would assume 80 columns
            console = Console(width=max(console.width, 140))
    for t in _rich_tables(_tables(result)):
        console.print(t)


def plot_results(result, path=None, bins: int = 60):
    """A figure: the distribution of the per-pair margins of every matchup (left) and
    the ratings with their 95% error bars (right; Elo for a knockout). Saved as PNG when
    ``path`` is given. Returns the :class:`matplotlib.figure.Figure`.

    :raises ArenaError: when matplotlib is not installed (``pip install coinche-rl[arena]``).
    """
    try:
        from matplotlib.figure import Figure
    except ModuleNotFoundError:
        raise ArenaError("plots need matplotlib: pip install 'coinche-rl[arena]'") from None
    fig = Figure(figsize=(12, 4.8), layout="constrained")
    left, right = fig.subplots(1, 2, width_ratios=(3, 2))
    if isinstance(result, KnockoutResult):
        games = [g for r in result.rows for gs in r["rounds"] for g in gs]
        left.hist([g["deals"] for g in games], bins=np.arange(0.5, max(g["deals"] for g in games) + 1.5),
                  color="tab:blue", rwidth=0.85)
        left.set_xlabel("deals per game")
        left.set_ylabel("games")
        left.set_title(f"{len(result.rows)} knockout tournament(s), {len(games)} games")
        ratings, xlabel = result.elo, "team Bradley-Terry rating (Elo)"
    else:
        matchups = [result] if isinstance(result, DuplicateResult) else result.matchups
        shown = matchups[:8]
        lo = min(float(m.margins.min()) for m in shown if m.n)
        hi = max(float(m.margins.max()) for m in shown if m.n)
        edges = np.linspace(lo, hi, bins + 1) if hi > lo else np.linspace(lo - 1, hi + 1, 3)
        for m in shown:
            if not m.n:
                continue
            line = left.hist(m.margins, bins=edges, histtype="step", linewidth=1.4,
                             label=f"{m.label_x} vs {m.label_y}: {m.mean:+.1f} ± {m.ci95:.1f}")
            left.axvline(m.mean, color=line[2][0].get_edgecolor(), linestyle="--", linewidth=1)
        unit = "match" if matchups[0].match else "deal"
        left.set_xlabel(f"margin per deal pair (team X - team Y, points per {unit})")
        left.set_ylabel("deal pairs")
        left.set_title("Duplicate margins" + (f" (first {len(shown)} matchups)" if len(matchups) > 8 else ""))
        left.legend(fontsize=8, loc="upper left")
        if isinstance(result, DuplicateResult):
            ratings = result.ratings()[0]
        else:
            ratings = result.points
        xlabel = "rating (points per deal, field mean 0)"
    order = ratings.order()[::-1]
    ypos = np.arange(len(order))
    right.errorbar(ratings.rating[order], ypos, xerr=ratings.half_width[order], fmt="o",
                   capsize=4, color="tab:red")
    right.set_yticks(ypos, [ratings.names[i] for i in order])
    right.axvline(0.0, color="grey", linewidth=0.8)
    right.set_xlabel(xlabel)
    right.set_title("Ratings with 95% intervals")
    if path is not None:
        fig.savefig(path, dpi=110)
    return fig


# ====================================================================== replay
def replay_pair(path, index: int, run: Optional[str] = None) -> Tuple[List[Deal], dict, dict]:
    """Replay deal pair ``index`` of a results file through the Python agents.

    Returns ``(deals, row, config)``: the two finished deals (seating 0: team X at
    seats 0/2), the stored row and the run's configuration. ``run`` picks the run when the
    file holds several pair runs.

    :raises ResultsFileError: no such run or pair, or several runs and none chosen.
    """
    store = load_results(path)
    pair_runs = [r for r, c in store.runs.items() if c.get("format") == "pair"]
    if run is None:
        if len(pair_runs) != 1:
            raise ResultsFileError(f"{path} holds {len(pair_runs)} deal-pair runs: choose one with "
                                   f"run= (one of {', '.join(pair_runs) or 'none'})")
        run = pair_runs[0]
    if run not in store.runs or store.runs[run].get("format") != "pair":
        raise ResultsFileError(f"{path}: no deal-pair run {run!r}; runs: {', '.join(pair_runs) or 'none'}")
    cfg = store.runs[run]
    row = store.done(run).get(int(index))
    if row is None:
        raise ResultsFileError(f"{path}: run {run} has no finished pair {index}")
    rules = _rules_from_json(cfg["rules"])
    ds = DealSet(rules, cfg["seed"], cfg["frozen"])
    from .agents import play_deal
    deals = []
    for specs4 in _seatings(cfg["x"], cfg["y"]):
        deal = ds.deal(int(index))
        play_deal(deal, _seat_agents(specs4), ds.seeds(int(index)))
        deals.append(deal)
    return deals, row, cfg
