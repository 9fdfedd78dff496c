"""Duplicate tournaments of belote for two players (``coinche_rl.arena.two_player``).

**Deal set.** Deal ``i`` is a function of ``(rules, seed, i)`` alone: the deck (the
engine's one shuffle, ``engine.two.two_random_deal``), the dealer and the two players'
agent seeds come from sub-stream ``i`` of ``seed`` of the engine's splitmix64 generator
(:class:`TwoDealSet`), so any chunk of a deal set can be rebuilt by any worker.

**Duplicate.** Agents A and B play every deal twice, on the same deck with the same
dealer: A as player 0 and B as player 1, then the other way round; the agent as player
``p`` draws from the seed of ``(deal, p)`` in both seatings. A deal pair's margin is A's
score minus B's, summed over the two seatings and halved, so that it reads in points
per deal like the four-player tables (the pair's sum is twice it);
:func:`run_two_player_duplicate` reports its mean with a 95% Student-t interval, the
paired standard deviation and the pair win rate in a
:class:`~coinche_rl.arena.results.DuplicateResult` (``x = (A, A)``, ``y = (B, B)``;
``contracts[k, t]`` holds ``(0, trump, taker, 0, made)``, the taker a player, -1 on a
void deal; ``made`` is ``T_MADE``: 1 made, 0 failed, 2 litige), so that
:func:`~coinche_rl.arena.format_summary`, :func:`~coinche_rl.arena.print_summary` and
:func:`~coinche_rl.arena.plot_results` show it as they show a four-player matchup.
Identical deterministic agents play identical deals in both seatings: their margin is
exactly 0. :func:`run_two_player_round_robin` plays every two of several agents on the
same deal set and fits the ratings (a
:class:`~coinche_rl.arena.results.TournamentResult`).

**Executors.** ``backend="serial"`` plays in this process, ``"pool"`` in ``workers``
spawned processes (a script that uses it needs the ``if __name__ == "__main__":``
guard); both give the same results, chunk by chunk. When both agents have numba bots
(``random``, ``heuristic``) a chunk is played entirely in numba
(:func:`~coinche_rl.agents.two_player_bots.two_play_deals`), otherwise through the
agents' ``act`` on :class:`~coinche_rl.two_player.TwoPlayerView` objects (``fast=False``
forces that path: the same choices, slower).

>>> r = run_two_player_duplicate("heuristic", "heuristic", 50, "belote_a_deux", seed=1)
>>> r.mean, r.n
(0.0, 50)
>>> r = run_two_player_duplicate("heuristic", "random", 200, "belote_decouverte", seed=1)
>>> r.mean > 40 and r.mean - r.ci95 > 0
True
"""

from __future__ import annotations

import math
import os
import time
from typing import Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
from numba import njit

from ..agents import two_player_bots
from ..agents.two_player import TwoPlayerAgent, make_two_player_agent, play_two_deal
from ..agents.two_player_bots import two_play_deals
from ..engine.bits import rng_next, rng_seed
from ..engine.two import (T_CUR, T_DEALER, T_MADE, T_SCORE, T_TAKER, T_TRUMP, T_VOID,
                          TWO_STATE_SIZE, two_random_deal)
from ..game import IllegalActionError
from ..progress import Progress
from ..records import rules_from_record, rules_record
from ..rules import RuleSet, get_rules, params_vector
from ..two_player import TwoPlayerDeal, two_player_rules
from .dealsets import _check_indices, _check_seed
from .errors import ArenaError
from .executors import _agent_modules, _chunks, _extend_sys_path
from .results import DuplicateResult, TournamentResult
from .store import _run_id

__all__ = ["TwoDealSet", "run_two_player_duplicate", "run_two_player_round_robin",
           "TWO_PLAYER_BACKENDS", "warmup"]

#: the executors of the two-player tournaments
TWO_PLAYER_BACKENDS = ("serial", "pool")


# ------------------------------------------------------------------------ deal sets
@njit(cache=True)
def _two_deals(P, seed, indices, states, decks, dealers, seeds):
    """Deal ``indices[k]`` of ``seed``: sub-stream ``indices[k]`` shuffles the deck and
    draws the dealer (``engine.two.two_random_deal``), then the two agent seeds."""
    rng = np.zeros(1, dtype=np.uint64)
    for k in range(len(indices)):
        rng_seed(rng, seed, indices[k])
        two_random_deal(states[k], P, rng, -1, decks[k])
        dealers[k] = states[k][T_DEALER]
        for p in range(2):
            seeds[k, p] = np.int64(rng_next(rng) >> np.uint64(1))


def _seed64(seed: int) -> np.int64:
    s = int(seed) % (1 << 64)
    return np.int64(s - (1 << 64) if s >= (1 << 63) else s)


class TwoDealSet:
    """The deals of a two-player tournament: deal ``i`` depends on ``(rules, seed, i)``
    only.

    >>> ds = TwoDealSet("belote_a_deux", seed=1)
    >>> states, seeds = ds.states([0, 5])
    >>> bool((ds.states([5])[0][0] == states[1]).all()), seeds.shape
    (True, (2, 2))
    >>> ds.deal(5).phase
    'prise'
    """

    def __init__(self, rules: Union[str, RuleSet] = "belote_a_deux", seed: int = 0):
        try:
            self.rules = two_player_rules(rules)
        except ValueError as e:             # InvalidRulesError, UnknownPresetError
            raise ArenaError(str(e)) from None
        self.params = params_vector(self.rules)
        self.seed = _check_seed(seed)

    def _deal(self, indices):
        idx = _check_indices(indices)
        n = len(idx)
        states = np.empty((n, TWO_STATE_SIZE), dtype=np.int64)
        decks = np.empty((n, 32), dtype=np.int64)
        dealers = np.empty(n, dtype=np.int64)
        seeds = np.empty((n, 2), dtype=np.int64)
        _two_deals(self.params, _seed64(self.seed), idx, states, decks, dealers, seeds)
        return states, decks, dealers, seeds

    def states(self, indices) -> Tuple[np.ndarray, np.ndarray]:
        """``(states, seeds)``: the engine states of deals ``indices`` before their first
        action, int64 ``(n, TWO_STATE_SIZE)``, and the agents' seeds, int64 ``(n, 2)``."""
        states, _, _, seeds = self._deal(indices)
        return states, seeds

    def decks(self, indices) -> Tuple[np.ndarray, np.ndarray]:
        """``(decks, dealers)``: ``TwoPlayerDeal(rules, deck=decks[k], dealer=dealers[k])``
        is deal ``indices[k]``."""
        _, decks, dealers, _ = self._deal(indices)
        return decks, dealers

    def deal(self, index: int) -> TwoPlayerDeal:
        """Deal ``index`` as a :class:`~coinche_rl.two_player.TwoPlayerDeal`."""
        decks, dealers = self.decks([index])
        return TwoPlayerDeal(self.rules, deck=[int(c) for c in decks[0]], dealer=int(dealers[0]))

    def seeds(self, index: int) -> List[int]:
        """The two agents' seeds of deal ``index`` (player 0, player 1)."""
        return [int(s) for s in self.states([index])[1][0]]


# ------------------------------------------------------------------------ playing
_AGENTS: Dict[Tuple[str, int], TwoPlayerAgent] = {}


def _seat(specs: Sequence[str]) -> List[TwoPlayerAgent]:
    """This process's agent for each player (one instance per (spec, player), reused)."""
    out = []
    for p, spec in enumerate(specs):
        a = _AGENTS.get((spec, p))
        if a is None:
            a = _AGENTS[(spec, p)] = make_two_player_agent(spec)
        out.append(a)
    return out


def _where(cfg: dict, index: int, seating: int) -> str:
    name = rules_from_record(cfg["rules"]).name
    return (f"deal {index} of the two-player deal set (rules {name}, seed {cfg['seed']}), "
            f"seating {seating + 1}; rebuild it with coinche_rl.arena.TwoDealSet({name!r}, "
            f"{cfg['seed']}).deal({index})")


def _play(rules: RuleSet, P, states, decks, dealers, seeds, specs, fast: bool, where) -> None:
    """Play every deal of ``states`` (in place) with ``specs[p]`` as player ``p``."""
    agents = _seat(specs)
    if fast and all(a.two_bot is not None for a in agents):
        bots = np.array([a.two_bot for a in agents], dtype=np.int64)
        W = np.stack([a.two_weights for a in agents])
        bad = two_play_deals(P, states, bots, W, seeds)
        if bad:
            p = int(states[bad - 1][T_CUR])
            raise ArenaError(f"agent {specs[p]!r} (a numba bot) as player {p} played an "
                             f"illegal action in {where(bad - 1)}")
        return
    for i in range(len(states)):
        deal = TwoPlayerDeal(rules, deck=[int(c) for c in decks[i]], dealer=int(dealers[i]))
        try:
            play_two_deal(deal, agents, [int(s) for s in seeds[i]])
        except IllegalActionError as e:
            p = getattr(e, "player", None)
            if p is None:
                raise
            raise ArenaError(f"agent {specs[p]!r} as player {p} played the illegal action "
                             f"{e.action!r} in {where(i)}; legal: {e.legal}") from None
        states[i] = deal.state


def _outcomes(states: np.ndarray, a_player: int) -> Tuple[np.ndarray, np.ndarray]:
    """``(scores, contracts)`` of finished states: (A's, B's) score with A as player
    ``a_player``; (0, trump, taker, 0, made) with taker -1 on a void deal."""
    sc = states[:, T_SCORE:T_SCORE + 2]
    scores = np.stack([sc[:, a_player], sc[:, 1 - a_player]], axis=1)
    void = states[:, T_VOID] == 1
    n = len(states)
    contracts = np.zeros((n, 5), dtype=np.int64)
    contracts[:, 1] = np.where(void, 0, states[:, T_TRUMP])
    contracts[:, 2] = np.where(void, -1, states[:, T_TAKER])
    contracts[:, 4] = np.where(void, -1, states[:, T_MADE])
    return scores, contracts


def _task_two_pairs(cfg: dict, indices) -> dict:
    """Deal pairs ``indices`` of a two-player duplicate configuration."""
    t0 = time.perf_counter()
    rules = rules_from_record(cfg["rules"])
    ds = TwoDealSet(rules, cfg["seed"])
    idx = np.asarray(indices, dtype=np.int64)
    states, decks, dealers, seeds = ds._deal(idx)
    other = states.copy()
    a, b = cfg["x"][0], cfg["y"][0]
    fast = cfg.get("fast", True)
    for t, (st, specs) in enumerate(((states, (a, b)), (other, (b, a)))):
        _play(rules, ds.params, st, decks, dealers, seeds, specs, fast,
              lambda i, t=t: _where(cfg, int(idx[i]), t))
    s0, c0 = _outcomes(states, 0)
    s1, c1 = _outcomes(other, 1)
    return {"index": idx, "dealer": dealers, "scores": np.stack([s0, s1], axis=1),
            "contracts": np.stack([c0, c1], axis=1), "seconds": time.perf_counter() - t0}


def _task_in_worker(task, folders: Sequence[str] = ()) -> dict:
    """:func:`_task_two_pairs` in a pool worker (``folders``: where the parent imported
    the modules of import-path agents from)."""
    _extend_sys_path(folders)
    _, cfg, indices = task
    return _task_two_pairs(cfg, indices)


def _execute(tasks, backend: str, workers: Optional[int], on_done) -> None:
    if backend == "serial":
        for t in tasks:
            on_done(t, _task_two_pairs(t[1], t[2]))
        return
    import multiprocessing as mp
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool
    folders = _agent_modules(tasks)[0]
    warmup()                    # fill the numba cache before the workers load it
    n = min(workers or os.cpu_count() or 1, len(tasks))
    with ProcessPoolExecutor(max_workers=n, mp_context=mp.get_context("spawn")) as ex:
        futures = {ex.submit(_task_in_worker, t, folders): t for t in tasks}
        try:
            for f in as_completed(futures):
                on_done(futures[f], f.result())
        except BrokenProcessPool as e:
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


# ------------------------------------------------------------------------ formats
def _rules(preset) -> RuleSet:
    try:
        return two_player_rules(preset if isinstance(preset, RuleSet) else get_rules(preset))
    except ValueError as e:                 # InvalidRulesError, UnknownPresetError
        raise ArenaError(str(e)) from None


def _spec(spec) -> str:
    if not isinstance(spec, str):
        raise ArenaError(f"an agent is given by its spec string (e.g. 'heuristic'), so that "
                         f"every worker can build it, not {type(spec).__name__}")
    return make_two_player_agent(spec).spec


def _check(n, backend, workers) -> None:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ArenaError(f"the number of deals must be a positive integer, not {n!r}")
    if backend not in TWO_PLAYER_BACKENDS:
        raise ArenaError(f"backend {backend!r}: two-player tournaments run on "
                         f"{' or '.join(TWO_PLAYER_BACKENDS)}")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, (int, np.integer))
                                or workers < 1):
        raise ArenaError(f"workers must be a positive integer, not {workers!r}")


def _is_fast(specs: Sequence[str]) -> bool:
    return all(make_two_player_agent(s).two_bot is not None for s in specs)


def _matchups(pairs: Sequence[Tuple[str, str]], ns: Sequence[int], rules: RuleSet, seed: int,
              backend: str, workers, progress, fast: bool,
              chunk: Optional[int]) -> List[DuplicateResult]:
    """Play matchup ``pairs[k]`` (A, B) on ``ns[k]`` deal pairs of the deal set."""
    n_workers = 1 if backend == "serial" else (workers or os.cpu_count() or 1)
    tasks, runs = [], []
    for (a, b), n in zip(pairs, ns):
        cfg = {"format": "two_pair", "x": [a, a], "y": [b, b], "rules": rules_record(rules),
               "seed": seed, "fast": fast}
        run = _run_id(cfg)
        runs.append(run)
        numba = fast and _is_fast([a, b])
        size = chunk or (4096 if numba else 16)
        if n_workers > 1:
            size = max(1, min(size, math.ceil(n / (4 * n_workers))))
        tasks += [("two_pair", dict(cfg, run=run), c)
                  for c in _chunks(np.arange(n, dtype=np.int64), size)]
    tasks.sort(key=lambda t: int(t[2][0]))
    parts: Dict[str, list] = {run: [] for run in runs}
    secs = {run: 0.0 for run in runs}
    bar = Progress(progress, sum(ns), 0, "deal pairs")

    def on_done(task, res):
        parts[task[1]["run"]].append(res)
        secs[task[1]["run"]] += res["seconds"]
        bar.advance(len(res["index"]))

    t0 = time.perf_counter()
    try:
        _execute(tasks, backend, workers, on_done)
    finally:
        bar.close()
    wall = time.perf_counter() - t0
    out = []
    for run, (a, b), n in zip(runs, pairs, ns):
        arrays = {k: np.concatenate([r[k] for r in parts[run]]) for k in
                  ("index", "dealer", "scores", "contracts")}
        order = np.argsort(arrays["index"], kind="stable")
        arrays = {k: v[order] for k, v in arrays.items()}
        out.append(DuplicateResult(
            x=(a, a), y=(b, b), rules=rules, seed=seed, frozen="", match=False, run=run,
            index=arrays["index"], dealer=arrays["dealer"], scores=arrays["scores"],
            contracts=arrays["contracts"], seconds=secs[run], new=n, played=2 * n,
            wall_seconds=wall))
    return out


def run_two_player_duplicate(agent_a: str, agent_b: str, n_deals: int = 1000,
                             preset: Union[str, RuleSet] = "belote_a_deux", seed: int = 0,
                             backend: str = "serial", workers: Optional[int] = None,
                             progress=False, fast: bool = True,
                             chunk: Optional[int] = None) -> DuplicateResult:
    """A duplicate matchup of belote for two players: ``agent_a`` against ``agent_b``
    (specs of :func:`~coinche_rl.agents.two_player.make_two_player_agent`) on
    ``n_deals`` deals, each played in both seatings (module docstring).

    :param preset: ``belote_a_deux``, ``belote_decouverte`` or a two-family RuleSet.
    :param backend: ``"serial"`` or ``"pool"`` (``workers`` processes).
    :param progress: ``True`` for a progress bar on stderr, or ``f(done, total)``.
    :param fast: ``False`` plays through the agents' ``act`` even when both have numba
        bots.
    :param chunk: deal pairs per task (default: 4096 in numba, 16 in Python).
    :raises coinche_rl.agents.AgentSpecError: a bad agent spec, a four-player agent.
    :raises ArenaError: four-player rules, any other bad argument.
    """
    _check(n_deals, backend, workers)
    rules = _rules(preset)
    return _matchups([(_spec(agent_a), _spec(agent_b))], [int(n_deals)], rules,
                     _check_seed(seed), backend, workers, progress, bool(fast), chunk)[0]


def run_two_player_round_robin(agents: Sequence[str], n_deals: int = 1000,
                               preset: Union[str, RuleSet] = "belote_a_deux", seed: int = 0,
                               backend: str = "serial", workers: Optional[int] = None,
                               progress=False, fast: bool = True,
                               python_deals: Optional[int] = None) -> TournamentResult:
    """A two-player duplicate between every two of ``agents`` (at least two distinct
    specs), all on the same deal set, and their ratings; ``python_deals`` caps the deal
    pairs of the matchups that cannot run in numba."""
    _check(n_deals, backend, workers)
    specs = [_spec(a) for a in agents]
    if len(set(specs)) < 2 or len(specs) != len(set(specs)):
        raise ArenaError(f"a round robin needs at least two agents, each once; got {list(agents)!r}")
    rules = _rules(preset)
    pairs, ns, teams = [], [], []
    for i in range(len(specs)):
        for j in range(i + 1, len(specs)):
            n = int(n_deals)
            if python_deals is not None and not (fast and _is_fast([specs[i], specs[j]])):
                n = min(n, int(python_deals))
            pairs.append((specs[i], specs[j]))
            ns.append(n)
            teams.append(((i,), (j,)))
    t0 = time.perf_counter()
    results = _matchups(pairs, ns, rules, _check_seed(seed), backend, workers, progress,
                        bool(fast), None)
    return TournamentResult.from_matchups("round_robin", specs, specs, results, teams,
                                          time.perf_counter() - t0)


def warmup() -> None:
    """Compile (or load from the numba cache) the deal sets and the two-player bots."""
    two_player_bots.warmup()
    for name in ("belote_a_deux", "belote_decouverte"):
        TwoDealSet(name, 0).states([0])
