"""Playing (``coinche_rl.arena.tasks``): the per-chunk tasks ``(kind, config, indices)``
that every executor ships (deal pairs, match pairs, knockout tournaments), the agents
seated in this process, and :func:`warmup`. Everything here is a function of the task
alone, so any worker gives the same result."""

from __future__ import annotations

import time
from typing import Callable, Dict, Optional, Sequence, Tuple

import numpy as np

from .. import engine as E
from ..actions import action_to_str
from ..agents import BatchedAgent, make_agent, numba_bots, play_deal
from ..agents.neural.batch_play import play_states
from ..agents.numba_bots import play_deals
from ..game import Deal, IllegalActionError, score_into_match
from ..records import rules_from_record
from ..rules import N_SEATS, SEAT_MASK, RuleSet, params_vector, partner, seat_after
from .dealsets import (_MATCH_STRIDE, _MAX_MATCH_DEALS, _SALT_DEALS, _SALT_KNOCKOUT, _SALT_MATCH,
                       DealSet, _deals)
from .errors import ArenaError

__all__ = ["warmup"]

_AGENTS: Dict[Tuple[str, int], object] = {}


def _seat_agents(specs4: Sequence[str]):
    """This process's agent for each seat (one instance per (spec, seat), reused)."""
    out = []
    for seat, spec in enumerate(specs4):
        key = (spec, seat)
        a = _AGENTS.get(key)
        if a is None:
            a = _AGENTS[key] = make_agent(spec)
        out.append(a)
    return out


def _numba_bots(agents) -> Optional[np.ndarray]:
    bots = [a.numba_bot for a in agents]
    if any(b is None for b in bots):
        return None
    return np.array(bots, dtype=np.int64)


def _batched_seats(agents, rules: RuleSet):
    """``(bots, nets, bid_nets)`` when every agent is a numba bot or a
    :class:`~coinche_rl.agents.base.BatchedAgent` (the ``nn`` agent: networks, and a numba
    bot for its other decisions), else None."""
    bots, nets, bid_nets = [], [], []
    for a in agents:
        if a.numba_bot is not None:
            bots.append(a.numba_bot)
            nets.append(None)
            bid_nets.append(None)
        elif isinstance(a, BatchedAgent):
            bots.append(a.other_bot)
            nets.append(a.play_net(rules))
            bid_nets.append(a.bid_net(rules))
        else:
            return None
    return bots, nets, bid_nets


def _illegal(spec: str, seat: int, action, legal: str, where: str) -> ArenaError:
    """The error of an agent that played an illegal action: the agent, its seat, the
    action, the legal ones and the deal (to replay it)."""
    try:
        shown = f"{action_to_str(int(action))} ({int(action)})"
    except (ValueError, TypeError, IndexError):
        shown = repr(action)
    return ArenaError(f"agent {spec!r} at seat {seat} played the illegal action {shown} in "
                      f"{where}; legal: {legal}")


def _deal_where(rules: RuleSet, seed: int, frozen: str, index: int, seating: int) -> str:
    """Where a deal pair's deal is: its index in the deal set and how to rebuild it."""
    frozen_arg = f", frozen_contract={frozen!r}" if frozen else ""
    return (f"deal {index} of the deal set (rules {rules.name}, seed {seed}{frozen_arg}), "
            f"seating {seating + 1}; rebuild it with coinche_rl.arena.DealSet({rules.name!r}, "
            f"{seed}{frozen_arg}).deal({index}), the agents' seeds .seeds({index})")


def _play_states(rules: RuleSet, P: np.ndarray, states: np.ndarray, seeds: np.ndarray,
                 specs4: Sequence[str], fast: bool = True, matches=None,
                 where: Optional[Callable[[int], str]] = None) -> None:
    """Play every state of ``states`` (in place) to its end, ``specs4[seat]`` at each seat,
    seat ``s`` of row ``i`` seeded with ``seeds[i, s]``: in numba when every agent has a
    numba kernel (and ``fast``), else through :func:`coinche_rl.agents.play_deal`.

    :raises ArenaError: an agent played an illegal action: the agent, its seat, the
        action and ``where(i)`` (the deal, so that it can be replayed).
    """
    agents = _seat_agents(specs4)
    where = where or (lambda i: f"row {i} of the chunk")
    bots = _numba_bots(agents) if fast else None
    if bots is not None and len(states):
        bad = play_deals(P, states, bots, seeds)
        if bad:
            S = states[bad - 1]
            seat = int(E.py.current_seat(S))
            raise ArenaError(f"agent {specs4[seat]!r} (a numba bot) at seat {seat} played an "
                             f"illegal action in {where(bad - 1)}")
        return
    batched = _batched_seats(agents, rules) if fast and matches is None else None
    if batched is not None and len(states):
        play_states(rules, states, seeds, *batched)
        return
    for i in range(len(states)):
        deal = Deal.from_state(rules, states[i])
        if deal.is_terminal:
            continue
        try:
            play_deal(deal, agents, [int(s) for s in seeds[i]],
                      match=None if matches is None else matches[i])
        except IllegalActionError as e:
            seat = getattr(e, "seat", None)
            if seat is None:
                raise
            raise _illegal(specs4[seat], seat, e.action, e.legal, where(i)) from None
        states[i] = deal.state


@E.kernel
def _contracts_into(states, out):
    """``out[i]``: value, strain, taker, coinche, made of finished state ``states[i]``
    (void: 0, 0, -1, 0, -1)."""
    for i in range(states.shape[0]):
        S = states[i]
        if E.deal_void(S) == 1:
            out[i, 0], out[i, 1], out[i, 2], out[i, 3], out[i, 4] = 0, 0, -1, 0, -1
        else:
            out[i, 0], out[i, 1], out[i, 2] = E.contract_of(S)
            out[i, 3] = E.coinche_level(S)
            out[i, 4] = E.deal_made(S)


@E.kernel
def _scores_into(states, first, out):
    """``out[i]``: the deal scores of team ``first`` then of the other team in state
    ``states[i]``."""
    for i in range(states.shape[0]):
        out[i, 0] = E.team_score(states[i], first)
        out[i, 1] = E.team_score(states[i], 1 - first)


def _contracts(states: np.ndarray) -> np.ndarray:
    """``(n, 5)``: value, strain, taker, coinche, made of finished states (void: taker -1)."""
    out = np.empty((len(states), 5), dtype=np.int64)
    _contracts_into(states, out)
    return out


def _seatings(x, y):
    """Seat specs of the two seatings: X at 0/2 then at 1/3."""
    return (x[0], y[0], x[1], y[1]), (y[0], x[0], y[1], x[1])


def _task_pairs(cfg: dict, indices: np.ndarray) -> dict:
    """Deal pairs ``indices`` of a duplicate configuration."""
    rules = rules_from_record(cfg["rules"])
    P = params_vector(rules)
    states, seeds, dealers, _ = _deals(rules, P, cfg["seed"], _SALT_DEALS, indices, None,
                                       cfg["frozen"])
    other = states.copy()
    s1, s2 = _seatings(cfg["x"], cfg["y"])
    fast = cfg.get("fast", True)
    for t, (st, specs4) in enumerate(((states, s1), (other, s2))):
        _play_states(rules, P, st, seeds, specs4, fast,
                     where=lambda i, t=t: _deal_where(rules, cfg["seed"], cfg["frozen"],
                                                      int(indices[i]), t))
    n = len(indices)
    scores = np.empty((n, 2, 2), dtype=np.int64)
    _scores_into(states, 0, scores[:, 0])
    _scores_into(other, 1, scores[:, 1])
    return {"index": np.asarray(indices, dtype=np.int64), "dealer": dealers, "scores": scores,
            "contracts": np.stack([_contracts(states), _contracts(other)], axis=1)}


def _match_deals(cfg, rules, P, j: np.ndarray, k: int, first_dealers):
    streams = j.astype(np.uint64) * np.uint64(_MATCH_STRIDE) + np.uint64(k)
    dealers = None if first_dealers is None else (first_dealers + k) & SEAT_MASK
    return _deals(rules, P, cfg["seed"], _SALT_MATCH, streams, dealers, cfg["frozen"])


def _task_matches(cfg: dict, indices: np.ndarray) -> dict:
    """Match pairs ``indices``: both seatings play deal ``k`` of match ``j`` alike."""
    rules = rules_from_record(cfg["rules"])
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
            _play_states(rules, P, st, np.ascontiguousarray(seeds[rows]), seatings[t], fast, info,
                         where=lambda i, t=t, rows=rows: (
                             f"deal {k} of match pair {int(idx[live[rows[i]]])} (rules "
                             f"{rules.name}, seed {cfg['seed']}), seating {t + 1}"))
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
        states, seeds, dealers, _ = _deals(rules, P, cfg["seed"], _SALT_KNOCKOUT, [base + k],
                                           None if first is None else [seat_after(first, k)])
        if first is None:
            first = int(dealers[0])
        _play_states(rules, P, states, seeds, specs4, fast,
                     [{"scores": list(scores), "target": rules.target, "pot": pot}],
                     where=lambda i: (f"deal {k} of the game at table {table}, round {rnd}, "
                                      f"of knockout tournament {t} (rules {rules.name}, seed "
                                      f"{cfg['seed']})"))
        scores, pot, w = score_into_match(scores, pot, Deal.from_state(rules, states[0]))
        k += 1
        if w is None and k >= cfg["max_deals"] and scores[0] != scores[1]:
            w = 0 if scores[0] > scores[1] else 1
    return {"seats": None, "scores": [int(scores[0]), int(scores[1])], "winner": int(w),
            "deals": k}


def _task_knockout(cfg: dict, indices: np.ndarray) -> dict:
    """Knockout tournaments ``indices`` (rows as dicts)."""
    rules = rules_from_record(cfg["rules"])
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
            for table in range(len(order) // N_SEATS):
                seats = order[N_SEATS * table:N_SEATS * table + N_SEATS]
                g = _play_game(rules, P, cfg, [players[p] for p in seats], t, rnd, table)
                g["seats"] = [int(p) for p in seats]
                games.append(g)
                next_alive += [seats[g["winner"]], seats[partner(g["winner"])]]
            rounds.append(games)
            if len(order) == N_SEATS:
                g = games[0]
                champions = [g["seats"][g["winner"]], g["seats"][partner(g["winner"])]]
                finalists = [g["seats"][1 - g["winner"]], g["seats"][partner(1 - g["winner"])]]
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


_WARM = False


def warmup() -> None:
    """Compile (or load from the numba cache) the kernels a tournament uses: the numba
    bots' (whole deals in numba), the deal states of :mod:`.dealsets`, the Python path
    of agents without kernels (a deal through :func:`~coinche_rl.agents.play_deal`) and
    the match's bookkeeping; not the random simulator's, which no tournament plays."""
    global _WARM
    numba_bots.warmup()
    for preset, frozen in (("ffb", "longest"), ("classic", "uniform")):
        DealSet(preset, 0, frozen).states([0])
    for preset in ("ffb", "classic"):
        play_deal(Deal(preset, seed=0), [make_agent("random") for _ in range(N_SEATS)], seeds=[0, 1, 2, 3])
    E.match_winner(np.zeros(2, dtype=np.int64), 1000, 0, 1, 4, 4, 1)
    _WARM = True


def _ensure_warm() -> None:
    if not _WARM:
        warmup()
