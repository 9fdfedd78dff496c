"""Playing (``coinche_rl.arena.tasks``): the per-chunk tasks ``(kind, config, indices)``
that every executor ships (deal pairs, match pairs, knockout tournaments), the agents
seated in this process, and :func:`warmup`. Everything here is a function of the task
alone, so any worker gives the same result.

**Families.** Every task is written once for every family: what differs between the
four-player game and belote for two players is read from the family description
(:class:`~coinche_rl.engine.family.Family`: players, sides), the game API of the family
(:func:`~coinche_rl.records.game_classes`: its deal class; one
:func:`~coinche_rl.game.score_into_match` keeps a match's books)
and the engine's entry points (the score of a side, the seat to act). A
:class:`PairPlay` per family (:func:`pair_play`) holds its registry and its seatings. The
formats, executors, results files, progress and reports are the same for both."""

from __future__ import annotations

import time
from typing import Callable, Dict, Optional, Sequence, Tuple

import numpy as np

from .. import engine as E
from ..actions import action_to_str
from ..agents import BatchedAgent, make_agent, numba_bots, play_deal
from ..agents.neural.batch_play import play_states
from ..agents.numba_bots import play_deals
from ..engine.family import FAMILIES, family_of
from ..game import IllegalActionError, score_into_match
from ..records import game_classes, rules_from_record
from ..rules import N_SEATS, RuleSet, params_vector
from .dealsets import (FROZEN_MODES, _MATCH_STRIDE, _MAX_MATCH_DEALS, _SALT_KNOCKOUT, _SALT_MATCH, DealSet,
                       _deals)
from .errors import ArenaError

__all__ = ["warmup", "PairPlay", "pair_play"]

_AGENTS: Dict[Tuple[str, int, Optional[str]], object] = {}


def _seat_agents(specs: Sequence[str], family: Optional[str] = None):
    """This process's agent for each seat (one instance per (spec, seat, family),
    reused); ``family``: the rule family whose registry builds them (None: the
    four-player game's)."""
    out = []
    for seat, spec in enumerate(specs):
        key = (spec, seat, family)
        a = _AGENTS.get(key)
        if a is None:
            a = _AGENTS[key] = make_agent(spec, family)
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


def _illegal(spec: str, seat: int, action, legal: str, where: str,
             unit: str = "seat") -> ArenaError:
    """The error of an agent that played an illegal action: the agent, its seat (or
    player: ``unit``), the action, the legal ones and the deal (to replay it)."""
    try:
        shown = f"{action_to_str(int(action))} ({int(action)})"
    except (ValueError, TypeError, IndexError):
        shown = repr(action)
    return ArenaError(f"agent {spec!r} at {unit} {seat} played the illegal action {shown} in "
                      f"{where}; legal: {legal}")


def _deal_where(rules: RuleSet, seed: int, frozen: str, index: int, seating: int) -> str:
    """Where a deal pair's deal is: its index in the deal set and how to rebuild it."""
    frozen_arg = f", frozen_contract={frozen!r}" if frozen else ""
    return (f"deal {index} of the deal set (rules {rules.name}, seed {seed}{frozen_arg}), "
            f"seating {seating + 1}; rebuild it with coinche_rl.arena.DealSet({rules.name!r}, "
            f"{seed}{frozen_arg}).deal({index}), the agents' seeds .seeds({index})")


def _play_states(rules: RuleSet, P: np.ndarray, states: np.ndarray, seeds: np.ndarray,
                 specs: Sequence[str], fast: bool = True, matches=None,
                 where: Optional[Callable[[int], str]] = None) -> None:
    """Play every state of ``states`` (in place) to its end, ``specs[seat]`` at each seat
    (player), seat ``s`` of row ``i`` seeded with ``seeds[i, s]``: in numba when every
    agent has a numba kernel (and ``fast``), else through
    :func:`coinche_rl.agents.play_deal`; every family (its deal class wraps the states).

    :raises ArenaError: an agent played an illegal action: the agent, its seat, the
        action and ``where(i)`` (the deal, so that it can be replayed).
    """
    family = family_of(rules)
    unit = family.who
    seeds = np.ascontiguousarray(seeds[:, :family.n_players])
    agents = _seat_agents(specs, family.name)
    where = where or (lambda i: f"row {i} of the chunk")
    bots = _numba_bots(agents) if fast else None
    if bots is not None and len(states):
        bad = play_deals(P, states, bots, seeds)
        if bad:
            seat = int(E.game_to_act(states[bad - 1], P))
            raise ArenaError(f"agent {specs[seat]!r} (a numba bot) at {unit} {seat} played "
                             f"an illegal action in {where(bad - 1)}")
        return
    batched = _batched_seats(agents, rules) if fast and matches is None else None
    if batched is not None and len(states):
        play_states(rules, states, seeds, *batched)
        return
    deal_class = game_classes(rules)[0]
    for i in range(len(states)):
        deal = deal_class.from_state(rules, states[i])
        if deal.is_terminal:
            continue
        try:
            play_deal(deal, agents, [int(s) for s in seeds[i]],
                      match=None if matches is None else matches[i])
        except IllegalActionError as e:
            seat = getattr(e, "seat", None)
            if seat is None:
                raise
            raise _illegal(specs[seat], seat, e.action, e.legal, where(i), unit) from None
        states[i] = deal.state


#: the warm-up that compiles a family's tournament kernels in a process of its own on a
#: fresh cache (``coinche-rl tournament``, beside the agents' warm-ups), by the players
#: at the table: the module whose ``warmup()`` does it, the four-player game's whole
#: tournament warm-up (:func:`warmup`), belote for two players' deal sets
#: (:func:`.dealsets.warmup`, the chain of belote for two players)
_PROCESS_WARMUPS = {N_SEATS: "coinche_rl.arena", 2: "coinche_rl.arena.dealsets"}


class PairPlay:
    """How the rule family ``family`` (:class:`~coinche_rl.engine.family.Family`) plays a
    chunk of deal pairs: its seatings, its registry, the deals (in numba when it can),
    their outcomes, the replay of one pair and its kernels' warm-up; the same code for
    every family, which it reads from the family description (:func:`pair_play` gives a
    family's).

    ``unit`` (what sits at a place: ``"seat"``, ``"player"``), ``numba_chunk`` (deal pairs
    per task when every agent plays in numba: a deal of two players is cheaper),
    ``process_warmup`` (the module whose ``warmup()`` compiles the family's tournament
    kernels in a process of its own)."""

    def __init__(self, family: str = "coinche"):
        self.spec = FAMILIES[family]
        #: the registry's family name (:func:`~coinche_rl.agents.make_agent`)
        self.family = family
        self.unit = self.spec.who
        self.numba_chunk = 2048 * N_SEATS // self.spec.n_players
        self.process_warmup = _PROCESS_WARMUPS[self.spec.n_players]

    def agent(self, spec: str):
        """A fresh agent of ``spec`` (this family's registry)."""
        return make_agent(spec, self.family)

    def seatings(self, x, y) -> Tuple[Tuple[str, ...], Tuple[str, ...]]:
        """The specs at each place in the two seatings of teams ``x`` and ``y``: X at the
        places of side 0 then of side 1 (four players: X at 0/2 then at 1/3; two: A as
        player 0 then as player 1)."""
        return _seatings(x, y, self.spec)

    def fast(self, agent) -> bool:
        """Does ``agent`` play in numba (its deals need no Python agent)?"""
        return agent.numba_bot is not None or isinstance(agent, BatchedAgent)

    def play(self, cfg: dict, indices: np.ndarray) -> dict:
        """Deal pairs ``indices`` of a duplicate configuration: ``index``, ``dealer``,
        ``scores`` ``(n, 2, 2)`` (X's and Y's score in each seating) and ``contracts``
        ``(n, 2, 5)``."""
        rules = rules_from_record(cfg["rules"])
        ds = DealSet(rules, cfg["seed"], cfg["frozen"])
        idx = np.asarray(indices, dtype=np.int64)
        states, seeds, dealers, _ = ds._deal(idx, ds.frozen)
        other = states.copy()
        fast = cfg.get("fast", True)
        for t, (st, specs) in enumerate(zip((states, other), self.seatings(cfg["x"], cfg["y"]))):
            _play_states(rules, ds.params, st, seeds, specs, fast,
                         where=lambda i, t=t: _deal_where(rules, cfg["seed"], cfg["frozen"],
                                                          int(idx[i]), t))
        # seating t puts X at side t: X's score then Y's, read from the states' slots
        scores = np.stack([np.stack([self.spec.scores(st, t), self.spec.scores(st, 1 - t)], axis=1)
                           for t, st in enumerate((states, other))], axis=1)
        return {"index": idx, "dealer": dealers, "scores": scores,
                "contracts": np.stack([self.spec.contracts(states),
                                       self.spec.contracts(other)], axis=1)}

    def replay(self, cfg: dict, index: int) -> list:
        """Deal pair ``index`` played again through the Python agents
        (:func:`~coinche_rl.agents.play_deal`, every family): the two finished deals
        (seating 1 first).

        :raises ArenaError: an illegal action (naming the agent, the action and the deal).
        """
        rules = rules_from_record(cfg["rules"])
        frozen = cfg.get("frozen", "")
        ds = DealSet(rules, cfg["seed"], frozen)
        deals = []
        for t, specs in enumerate(self.seatings(cfg["x"], cfg["y"])):
            deal = ds.deal(int(index))
            self._play_deal(deal, _seat_agents(specs, self.family), specs,
                            ds.seeds(int(index)),
                            lambda: _deal_where(rules, cfg["seed"], frozen, int(index), t))
            deals.append(deal)
        return deals

    def _play_deal(self, deal, agents, specs, seeds, where) -> None:
        """:func:`~coinche_rl.agents.play_deal`; an illegal action raises ArenaError
        naming the agent, its place, the action and ``where()`` the deal is."""
        try:
            play_deal(deal, agents, seeds)
        except IllegalActionError as e:
            seat = getattr(e, "seat", None)
            if seat is None:
                raise
            raise _illegal(specs[seat], seat, e.action, e.legal, where(), self.unit) from None

    def warmup(self, python: bool = True, matches: bool = True) -> None:
        """Compile (or load from the numba cache) the kernels a tournament of the family
        uses: the numba bots' (whole deals in numba), the deal states of :mod:`.dealsets`
        (deal pairs; frozen contracts where it has an auction); with ``matches`` the match
        streams, with ``python`` the Python path of agents without kernels (a deal through
        :func:`~coinche_rl.agents.play_deal`); not the random simulator's, which no
        tournament plays. The outcomes need no kernel: :meth:`play` reads them from the
        states' slots (:meth:`~coinche_rl.engine.family.Family.scores`)."""
        # the first preset of every family of as many players (the four-player families
        # share their kernels): a frozen contract where the game has an auction to skip
        presets = [f.presets[0] for f in FAMILIES.values() if f.n_players == self.spec.n_players]
        numba_bots.warmup(presets)
        frozen = FROZEN_MODES if self.spec.n_players == N_SEATS else ("",) * len(presets)
        for preset, mode in zip(presets, frozen):
            ds = DealSet(preset, 0, mode)
            ds.states([0])
            if matches:                          # the match streams, the later deals' dealer given
                for dealers in (None, [0]):
                    _deals(ds.rules, ds.params, 0, _SALT_MATCH, [0], dealers)
            if python:
                deal = game_classes(preset)[0](preset, seed=0)
                play_deal(deal, [make_agent("random", self.family)
                                 for _ in range(self.spec.n_players)],
                          seeds=list(range(self.spec.n_players)))
                score_into_match([0, 0], 0, deal)        # the match's books


def _seatings(x, y, family):
    """Seat specs of the two seatings: X at the places of side 0 (four players: 0/2),
    Y at side 1's, then the other way round."""
    places = [family.side(p) for p in range(family.n_players)]
    first = tuple((x, y)[side][p // 2] for p, side in enumerate(places))
    second = tuple((y, x)[side][p // 2] for p, side in enumerate(places))
    return first, second


#: each family's PairPlay, by its name (``RuleSet.family``); the four-player families'
#: registry is one (``make_agent(spec, None)``)
_PLAYS = {name: PairPlay(name) for name in FAMILIES}


def cfg_family(cfg: dict) -> str:
    """The rule family of a run configuration (its rules record)."""
    return rules_from_record(cfg["rules"]).family


def pair_play(family: Optional[str]) -> PairPlay:
    """The :class:`PairPlay` of rule family ``family`` (``RuleSet.family``; None: the
    four-player game's)."""
    return _PLAYS[family or "coinche"]


def _task_pairs(cfg: dict, indices: np.ndarray) -> dict:
    """Deal pairs ``indices`` of a duplicate configuration, played by its family's
    :class:`PairPlay`."""
    return pair_play(cfg_family(cfg)).play(cfg, indices)


def _match_deals(cfg, rules, P, j: np.ndarray, k: int, first_dealers):
    streams = j.astype(np.uint64) * np.uint64(_MATCH_STRIDE) + np.uint64(k)
    n = family_of(rules).n_players
    dealers = None if first_dealers is None else (first_dealers + k) % n
    return _deals(rules, P, cfg["seed"], _SALT_MATCH, streams, dealers, cfg["frozen"])


def _task_matches(cfg: dict, indices: np.ndarray) -> dict:
    """Match pairs ``indices``: both seatings play deal ``k`` of match ``j`` alike (every
    family: :func:`~coinche_rl.game.score_into_match` keeps the match's books)."""
    rules = rules_from_record(cfg["rules"])
    P = params_vector(rules)
    deal_class = game_classes(rules)[0]
    fast = cfg.get("fast", True)
    idx = np.asarray(indices, dtype=np.int64)
    n = len(idx)
    seatings = _seatings(cfg["x"], cfg["y"], family_of(rules))
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
                deal = deal_class.from_state(rules, s)
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


def _play_game(rules, P, cfg, specs, t: int, rnd: int, table: int) -> dict:
    """One knockout game: deals to the target, at most ``max_deals`` (then the higher
    score wins; a tie plays on)."""
    deal_class = game_classes(rules)[0]
    n_players = family_of(rules).n_players
    scores, pot, w = [0, 0], 0, None
    base = ((t * 8 + rnd) * 16 + table) * _MATCH_STRIDE
    fast = cfg.get("fast", True)
    first = None
    k = 0
    while w is None:
        if k >= _MAX_MATCH_DEALS:
            raise ArenaError(f"a knockout game was not decided after {_MAX_MATCH_DEALS} deals")
        states, seeds, dealers, _ = _deals(rules, P, cfg["seed"], _SALT_KNOCKOUT, [base + k],
                                           None if first is None else [(first + k) % n_players])
        if first is None:
            first = int(dealers[0])
        _play_states(rules, P, states, seeds, specs, fast,
                     [{"scores": list(scores), "target": rules.target, "pot": pot}],
                     where=lambda i: (f"deal {k} of the game at table {table}, round {rnd}, "
                                      f"of knockout tournament {t} (rules {rules.name}, seed "
                                      f"{cfg['seed']})"))
        scores, pot, w = score_into_match(scores, pot, deal_class.from_state(rules, states[0]))
        k += 1
        if w is None and k >= cfg["max_deals"] and scores[0] != scores[1]:
            w = 0 if scores[0] > scores[1] else 1
    return {"seats": None, "scores": [int(scores[0]), int(scores[1])], "winner": int(w),
            "deals": k}


def _task_knockout(cfg: dict, indices: np.ndarray) -> dict:
    """Knockout tournaments ``indices`` (rows as dicts): tables of the family's players,
    the winning side of each table going through."""
    rules = rules_from_record(cfg["rules"])
    P = params_vector(rules)
    family = family_of(rules)
    n = family.n_players
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
            for table in range(len(order) // n):
                seats = order[n * table:n * table + n]
                g = _play_game(rules, P, cfg, [players[p] for p in seats], t, rnd, table)
                g["seats"] = [int(p) for p in seats]
                games.append(g)
                next_alive += _side_of(seats, g["winner"], family)
            rounds.append(games)
            if len(order) == n:
                g = games[0]
                champions = _side_of(g["seats"], g["winner"], family)
                finalists = _side_of(g["seats"], 1 - g["winner"], family)
                break
            alive = next_alive
            rnd += 1
        rows.append({"i": t, "rounds": rounds, "champions": [int(c) for c in champions],
                     "finalists": [int(f) for f in finalists]})
    return {"index": np.asarray(indices, dtype=np.int64), "rows": rows}


def _side_of(seats, side: int, family) -> list:
    """The players at ``seats`` (in seat order) who play for ``side``."""
    return [p for s, p in enumerate(seats) if family.side(s) == side]


_TASKS = {"pair": _task_pairs, "match": _task_matches, "knockout": _task_knockout}


def _run_task(task, warm: bool = True) -> dict:
    """Run one chunk ``(kind, config, indices)`` (the unit every executor ships).
    ``warm``: compile the family's kernels first (those the chunk plays: a chunk of deal
    pairs whose agents all play in numba needs no Python path), so that ``seconds`` times
    the play alone (workers skip it and load the kernels they use from the cache as they
    go)."""
    kind, cfg, indices = task
    if warm:
        family = cfg_family(cfg)
        if kind == "pair":
            play = pair_play(family)
            fast = cfg.get("fast", True) and all(
                play.fast(play.agent(s)) for s in (*cfg["x"], *cfg["y"]))
            _ensure_warm(family, python=not fast, matches=False)
        else:
            _ensure_warm(family)
    t0 = time.perf_counter()
    out = _TASKS[kind](cfg, np.asarray(indices, dtype=np.int64))
    out["seconds"] = time.perf_counter() - t0
    return out


#: ``(PairPlay, part)`` already warm: ``"core"``, ``"python"``, ``"matches"``
_WARM: set = set()


def warmup(family: Optional[str] = None, python: bool = True, matches: bool = True) -> None:
    """Compile (or load from the numba cache) the kernels a tournament of rule family
    ``family`` uses (:meth:`PairPlay.warmup`; None, ``"coinche"`` or ``"classic"``: the
    four-player game's, both families; ``"two"``: belote for two players'); ``python``:
    the Python agents' path too, ``matches``: the match streams too."""
    play = pair_play(family)
    play.warmup(python=python, matches=matches)
    _WARM.update((play, part) for part, on in (("core", True), ("python", python),
                                               ("matches", matches)) if on)


def _ensure_warm(family: Optional[str], python: bool = True, matches: bool = True) -> None:
    play = pair_play(family)
    if any((play, part) not in _WARM for part, on in
           (("core", True), ("python", python), ("matches", matches)) if on):
        warmup(family, python, matches)
