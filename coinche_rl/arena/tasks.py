"""Playing (``coinche_rl.arena.tasks``): the per-chunk tasks ``(kind, config, indices)``
that every executor ships (deal pairs, match pairs, knockout tournaments), the agents
seated in this process, and :func:`warmup`. Everything here is a function of the task
alone, so any worker gives the same result.

**Families.** What differs between the four-player game and belote for two players is
how a chunk of deal pairs is played, and nothing else: a :class:`PairPlay` per family
(:func:`pair_play`) seats the agents (its seatings, its registry), plays the deals (in
numba when it can), reads the outcomes, replays one pair and warms up its kernels. The
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
from ..engine.two import py as two_py
from ..engine.two_layout import other as other_player
from ..game import Deal, IllegalActionError, score_into_match
from ..records import rules_from_record
from ..rules import N_SEATS, SEAT_MASK, RuleSet, params_vector, partner, seat_after
from ..two_player import TwoPlayerDeal
from .dealsets import (_MATCH_STRIDE, _MAX_MATCH_DEALS, _SALT_DEALS, _SALT_KNOCKOUT, _SALT_MATCH,
                       DealSet, _deals)
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


class PairPlay:
    """How one rule family plays a chunk of deal pairs: the hooks the arena's one
    tournament path calls (:func:`pair_play` gives a family's).

    ``family`` (the registry's, for :func:`~coinche_rl.agents.make_agent`), ``unit`` (what
    sits at a place: ``"seat"``, ``"player"``), ``numba_chunk`` (deal pairs per task when
    every agent plays in numba)."""

    family: Optional[str] = None
    unit = "seat"
    numba_chunk = 2048

    def agent(self, spec: str):
        """A fresh agent of ``spec`` (this family's registry)."""
        return make_agent(spec, self.family)

    def seatings(self, x, y) -> Tuple[Tuple[str, ...], Tuple[str, ...]]:
        """The specs at each place in the two seatings of teams ``x`` and ``y``."""
        return _seatings(x, y)

    def fast(self, agent) -> bool:
        """Does ``agent`` play in numba (its deals need no Python agent)?"""
        return agent.numba_bot is not None or isinstance(agent, BatchedAgent)

    def play(self, cfg: dict, indices: np.ndarray) -> dict:
        """Deal pairs ``indices`` of a duplicate configuration: ``index``, ``dealer``,
        ``scores`` ``(n, 2, 2)`` (X's and Y's score in each seating) and ``contracts``
        ``(n, 2, 5)``."""
        rules = rules_from_record(cfg["rules"])
        P = params_vector(rules)
        states, seeds, dealers, _ = _deals(rules, P, cfg["seed"], _SALT_DEALS, indices, None,
                                           cfg["frozen"])
        other = states.copy()
        fast = cfg.get("fast", True)
        for t, (st, specs4) in enumerate(zip((states, other), self.seatings(cfg["x"], cfg["y"]))):
            _play_states(rules, P, st, seeds, specs4, fast,
                         where=lambda i, t=t: _deal_where(rules, cfg["seed"], cfg["frozen"],
                                                          int(indices[i]), t))
        n = len(indices)
        scores = np.empty((n, 2, 2), dtype=np.int64)
        _scores_into(states, 0, scores[:, 0])
        _scores_into(other, 1, scores[:, 1])
        return {"index": np.asarray(indices, dtype=np.int64), "dealer": dealers,
                "scores": scores,
                "contracts": np.stack([_contracts(states), _contracts(other)], axis=1)}

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

    def warmup(self) -> None:
        """Compile (or load from the numba cache) the kernels a tournament uses: the
        numba bots' (whole deals in numba), the deal states of :mod:`.dealsets`, the
        Python path of agents without kernels (a deal through
        :func:`~coinche_rl.agents.play_deal`) and the match's bookkeeping; not the random
        simulator's, which no tournament plays."""
        numba_bots.warmup()
        for preset, frozen in (("ffb", "longest"), ("classic", "uniform")):
            DealSet(preset, 0, frozen).states([0])
        for preset in ("ffb", "classic"):
            play_deal(Deal(preset, seed=0), [make_agent("random") for _ in range(N_SEATS)],
                      seeds=[0, 1, 2, 3])
        E.match_winner(np.zeros(2, dtype=np.int64), 1000, 0, 1, 4, 4, 1)


class _TwoPlayerPairs(PairPlay):
    """Belote for two players: agents A and B play every deal as player 0 then as player
    1 (``x = (A, A)``, ``y = (B, B)``); in numba (``engine``-level bots over the public
    view) when both agents have a bot, else through the agents' ``act``. ``contracts``
    hold ``(0, trump, taker, 0, made)``, the taker a player, -1 on a void deal."""

    family = "two"
    unit = "player"
    numba_chunk = 4096

    def seatings(self, x, y):
        return (x[0], y[0]), (y[0], x[0])

    def play(self, cfg: dict, indices: np.ndarray) -> dict:
        rules = rules_from_record(cfg["rules"])
        ds = DealSet(rules, cfg["seed"])
        idx = np.asarray(indices, dtype=np.int64)
        states, seeds, dealers, decks = ds._deal(idx)
        other = states.copy()
        fast = cfg.get("fast", True)
        for t, (st, specs) in enumerate(zip((states, other), self.seatings(cfg["x"], cfg["y"]))):
            self._play(rules, ds.params, st, decks, dealers, seeds, specs, fast,
                       lambda i, t=t: _deal_where(rules, cfg["seed"], "", int(idx[i]), t))

        def outcomes(st, a_player):
            scores = np.stack([two_py.deal_scores(st, a_player),
                               two_py.deal_scores(st, other_player(a_player))], axis=1)
            void = two_py.void_deals(st) == 1
            contracts = np.zeros((len(st), 5), dtype=np.int64)
            contracts[:, 1] = np.where(void, 0, two_py.trumps(st))
            contracts[:, 2] = np.where(void, -1, two_py.takers(st))
            contracts[:, 4] = np.where(void, -1, two_py.deals_made(st))
            return scores, contracts

        s0, c0 = outcomes(states, 0)
        s1, c1 = outcomes(other, 1)
        return {"index": idx, "dealer": dealers, "scores": np.stack([s0, s1], axis=1),
                "contracts": np.stack([c0, c1], axis=1)}

    def _play(self, rules, P, states, decks, dealers, seeds, specs, fast: bool, where) -> None:
        """Play every deal of ``states`` (in place) with ``specs[p]`` as player ``p``."""
        agents = _seat_agents(specs, self.family)
        if fast and all(a.numba_bot is not None for a in agents) and len(states):
            bots = np.array([a.numba_bot for a in agents], dtype=np.int64)
            bad = play_deals(P, states, bots, seeds)
            if bad:
                p = int(two_py.current_player(states[bad - 1]))
                raise ArenaError(f"agent {specs[p]!r} (a numba bot) as player {p} played an "
                                 f"illegal action in {where(bad - 1)}")
            return
        for i in range(len(states)):
            deal = TwoPlayerDeal(rules, deck=[int(c) for c in decks[i]], dealer=int(dealers[i]))
            self._play_deal(deal, agents, specs, [int(s) for s in seeds[i]], lambda: where(i))
            states[i] = deal.state

    def warmup(self) -> None:
        """Compile (or load from the numba cache) the deal sets and the two-player bots."""
        numba_bots.warmup_two()
        for name in ("belote_a_deux", "belote_decouverte"):
            DealSet(name, 0).states([0])


_FOUR, _TWO = PairPlay(), _TwoPlayerPairs()


def cfg_family(cfg: dict) -> str:
    """The rule family of a run configuration (its rules record)."""
    return rules_from_record(cfg["rules"]).family


def pair_play(family: Optional[str]) -> PairPlay:
    """The :class:`PairPlay` of rule family ``family`` (``RuleSet.family``; None: the
    four-player game's)."""
    return _TWO if family == "two" else _FOUR


def _task_pairs(cfg: dict, indices: np.ndarray) -> dict:
    """Deal pairs ``indices`` of a duplicate configuration, played by its family's
    :class:`PairPlay`."""
    return pair_play(cfg_family(cfg)).play(cfg, indices)


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
    ``warm``: compile the family's kernels first, so that ``seconds`` times the play
    alone (workers skip it and load the kernels they use from the cache as they go)."""
    kind, cfg, indices = task
    if warm:
        _ensure_warm(cfg_family(cfg))
    t0 = time.perf_counter()
    out = _TASKS[kind](cfg, np.asarray(indices, dtype=np.int64))
    out["seconds"] = time.perf_counter() - t0
    return out


_WARM: set = set()


def warmup(family: Optional[str] = None) -> None:
    """Compile (or load from the numba cache) the kernels a tournament of rule family
    ``family`` uses (:meth:`PairPlay.warmup`; None, ``"coinche"`` or ``"classic"``: the
    four-player game's, both families; ``"two"``: belote for two players')."""
    play = pair_play(family)
    play.warmup()
    _WARM.add(play)


def _ensure_warm(family: Optional[str]) -> None:
    if pair_play(family) not in _WARM:
        warmup(family)
