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
void deal; ``made`` is the engine's ``deal_made``: 1 made, 0 failed, 2 litige), so that
:func:`~coinche_rl.arena.format_summary`, :func:`~coinche_rl.arena.print_summary` and
:func:`~coinche_rl.arena.plot_results` show it as they show a four-player matchup.
Identical deterministic agents play identical deals in both seatings: their margin is
exactly 0. :func:`run_two_player_round_robin` plays every two of several agents on the
same deal set and fits the ratings (a
:class:`~coinche_rl.arena.results.TournamentResult`).

**Results files.** ``out=`` keeps the deal pairs in a JSON-lines results file as the
four-player formats do (``format: "two_pair"`` runs, the same rows): rows are appended
as they finish, a run with the same configuration and code resumes from them,
:func:`~coinche_rl.arena.results_from_file` rebuilds the result and
:func:`replay_two_player_pair` replays a pair through the agents.

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
from ..engine.two import N_PLAYERS, TWO_STATE_SIZE, dealer_of, py, two_random_deal
from ..engine.two_layout import other as other_player
from ..game import IllegalActionError
from ..records import rules_from_record, rules_record
from ..rules import RuleSet, get_rules, params_vector
from ..two_player import TwoPlayerDeal, two_player_rules
from .dealsets import _check_indices, _check_seed
from .errors import ArenaError
from . import executors
from .executors import _chunks
from .results import DuplicateResult, TournamentResult
from .store import _FORMAT_VERSION, RunBook, _code_key, _exclusive, _run_id, stored_pair

__all__ = ["TwoDealSet", "run_two_player_duplicate", "run_two_player_round_robin",
           "TWO_PLAYER_BACKENDS", "TWO_PAIR", "replay_two_player_pair", "warmup"]

#: the executors of the two-player tournaments
TWO_PLAYER_BACKENDS = ("serial", "pool")
#: the ``format`` of a two-player deal-pair run in a results file
TWO_PAIR = "two_pair"


# ------------------------------------------------------------------------ deal sets
@njit(cache=True)
def _two_deals(P, seed, indices, states, decks, dealers, seeds):
    """Deal ``indices[k]`` of ``seed``: sub-stream ``indices[k]`` shuffles the deck and
    draws the dealer (``engine.two.two_random_deal``), then the two agent seeds."""
    rng = np.zeros(1, dtype=np.uint64)
    for k in range(len(indices)):
        rng_seed(rng, seed, indices[k])
        two_random_deal(states[k], P, rng, np.int64(-1), decks[k])
        dealers[k] = dealer_of(states[k])
        for p in range(N_PLAYERS):
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
        seeds = np.empty((n, N_PLAYERS), dtype=np.int64)
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
            p = int(py.current_player(states[bad - 1]))
            raise ArenaError(f"agent {specs[p]!r} (a numba bot) as player {p} played an "
                             f"illegal action in {where(bad - 1)}")
        return
    for i in range(len(states)):
        deal = TwoPlayerDeal(rules, deck=[int(c) for c in decks[i]], dealer=int(dealers[i]))
        _play_or_name(deal, agents, specs, [int(s) for s in seeds[i]], lambda: where(i))
        states[i] = deal.state


def _play_or_name(deal: TwoPlayerDeal, agents, specs, seeds, where) -> None:
    """:func:`play_two_deal`; an illegal action raises ArenaError naming the agent, the
    action and ``where()`` the deal is."""
    try:
        play_two_deal(deal, agents, seeds)
    except IllegalActionError as e:
        p = getattr(e, "player", None)
        if p is None:
            raise
        raise ArenaError(f"agent {specs[p]!r} as player {p} played the illegal action "
                         f"{e.action!r} in {where()}; legal: {e.legal}") from None


def _outcomes(states: np.ndarray, a_player: int) -> Tuple[np.ndarray, np.ndarray]:
    """``(scores, contracts)`` of finished states: (A's, B's) score with A as player
    ``a_player``; (0, trump, taker, 0, made) with taker -1 on a void deal."""
    scores = np.stack([py.deal_scores(states, a_player),
                       py.deal_scores(states, other_player(a_player))], axis=1)
    void = py.void_deals(states) == 1
    n = len(states)
    contracts = np.zeros((n, 5), dtype=np.int64)
    contracts[:, 1] = np.where(void, 0, py.trumps(states))
    contracts[:, 2] = np.where(void, -1, py.takers(states))
    contracts[:, 4] = np.where(void, -1, py.deals_made(states))
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


def _execute(tasks, backend: str, workers: Optional[int], on_done) -> None:
    """The four-player executors' serial or pool run, with the two-player task and
    warm-up (a pool kept from a four-player run is reused, this warm-up run first)."""
    executors._execute(tasks, backend, workers, None, on_done, runner=_task_of,
                       warm=warmup)


def _task_of(task) -> dict:
    """A task ``(kind, cfg, indices)`` of the executors: :func:`_task_two_pairs`."""
    _, cfg, indices = task
    return _task_two_pairs(cfg, indices)


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
              backend: str, workers, progress, fast: bool, chunk: Optional[int], out=None,
              append: bool = False) -> List[DuplicateResult]:
    """Play matchup ``pairs[k]`` (A, B) on ``ns[k]`` deal pairs of the deal set, keeping
    the rows in results file ``out`` (resumed, as four-player runs are)."""
    for spec in dict.fromkeys(s for pair in pairs for s in pair):
        try:
            make_two_player_agent(spec).check_rules(rules)     # before anything is played
        except ValueError as e:
            raise ArenaError(f"agent {spec!r}: {e}") from None
    code = _code_key([s for pair in pairs for s in pair], "two")
    with _exclusive(out):
        return _play_matchups(pairs, ns, rules, seed, backend, workers, progress, fast, chunk,
                              out, append, code)


def _play_matchups(pairs, ns, rules, seed, backend, workers, progress, fast, chunk, out,
                   append, code) -> List[DuplicateResult]:
    n_workers = 1 if backend == "serial" else (workers or os.cpu_count() or 1)
    runs: Dict[str, dict] = {}
    want: Dict[str, int] = {}
    ids = []
    for (a, b), n in zip(pairs, ns):
        cfg = {"version": _FORMAT_VERSION, "format": TWO_PAIR, "x": [a, a], "y": [b, b],
               "rules": rules_record(rules), "seed": seed,
               "code": dict(code, agents={s: code["agents"][s] for s in sorted({a, b})})}
        run = _run_id(cfg)
        ids.append(run)
        runs[run] = cfg
        want[run] = max(want.get(run, 0), int(n))
    book = RunBook(out, runs, want, "pair", append)
    tasks = []
    for run, cfg in runs.items():
        missing = book.missing[run]
        if not len(missing):
            continue
        numba = fast and _is_fast([cfg["x"][0], cfg["y"][0]])
        size = chunk or (4096 if numba else 16)
        if n_workers > 1:
            size = max(1, min(size, math.ceil(len(missing) / (4 * n_workers))))
        tasks += [(TWO_PAIR, dict(cfg, run=run, fast=fast), c) for c in _chunks(missing, size)]
    tasks.sort(key=lambda t: int(t[2][0]))
    wall = book.play(tasks, lambda ts, done: _execute(ts, backend, workers, done), progress,
                     "deal pairs")
    out_results = []
    for run, (a, b), n in zip(ids, pairs, ns):
        arrays = book.arrays(run, n)
        out_results.append(DuplicateResult(
            x=(a, a), y=(b, b), rules=rules, seed=seed, frozen="", match=False, run=run,
            index=arrays["index"], dealer=arrays["dealer"], scores=arrays["scores"],
            contracts=arrays["contracts"], seconds=book.seconds[run], new=book.new[run],
            played=book.played[run], wall_seconds=wall))
    return out_results


def run_two_player_duplicate(agent_a: str, agent_b: str, n_deals: int = 1000,
                             preset: Union[str, RuleSet] = "belote_a_deux", seed: int = 0,
                             backend: str = "serial", workers: Optional[int] = None,
                             progress=False, fast: bool = True, chunk: Optional[int] = None,
                             out=None, append: bool = False) -> DuplicateResult:
    """A duplicate matchup of belote for two players: ``agent_a`` against ``agent_b``
    (specs of :func:`~coinche_rl.agents.two_player.make_two_player_agent`) on
    ``n_deals`` deals, each played in both seatings (module docstring).

    :param preset: ``belote_a_deux``, ``belote_decouverte`` or a two-family RuleSet.
    :param backend: ``"serial"`` or ``"pool"`` (``workers`` processes).
    :param progress: ``True`` for a progress bar on stderr, or ``f(done, total)``.
    :param fast: ``False`` plays through the agents' ``act`` even when both have numba
        bots.
    :param chunk: deal pairs per task (default: 4096 in numba, 16 in Python).
    :param out: a JSON-lines results file: rows are appended as they finish and rows
        already there are reused (resume) when they come from the same configuration and
        the same code; ``append`` adds this run to a file that holds other runs (as
        :func:`~coinche_rl.arena.run_duplicate`).
    :raises coinche_rl.agents.AgentSpecError: a bad agent spec, a four-player agent.
    :raises ArenaError: four-player rules, any other bad argument.
    """
    _check(n_deals, backend, workers)
    rules = _rules(preset)
    return _matchups([(_spec(agent_a), _spec(agent_b))], [int(n_deals)], rules,
                     _check_seed(seed), backend, workers, progress, bool(fast), chunk, out,
                     bool(append))[0]


def run_two_player_round_robin(agents: Sequence[str], n_deals: int = 1000,
                               preset: Union[str, RuleSet] = "belote_a_deux", seed: int = 0,
                               backend: str = "serial", workers: Optional[int] = None,
                               progress=False, fast: bool = True,
                               python_deals: Optional[int] = None, out=None,
                               append: bool = False) -> TournamentResult:
    """A two-player duplicate between every two of ``agents`` (at least two distinct
    specs), all on the same deal set, and their ratings; ``python_deals`` caps the deal
    pairs of the matchups that cannot run in numba; ``out`` and ``append`` as
    :func:`run_two_player_duplicate`'s."""
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
                        bool(fast), None, out, bool(append))
    return TournamentResult.from_matchups("round_robin", specs, specs, results, teams,
                                          time.perf_counter() - t0)


def replay_two_player_pair(path, index: int, run: Optional[str] = None):
    """Replay deal pair ``index`` of a two-player run of a results file through the
    agents' ``act``: ``(deals, row, config)``, the two finished
    :class:`~coinche_rl.two_player.TwoPlayerDeal` objects (seating 0: A as player 0),
    the stored row and the run's configuration; ``run`` picks the run when the file
    holds several two-player runs.

    :raises ResultsFileError: no such file, run or pair, or several runs and none chosen.
    :raises ArenaError: an agent that cannot be built now, or an illegal action.
    """
    cfg, row = stored_pair(path, index, run, (TWO_PAIR,))
    rules = rules_from_record(cfg["rules"])
    ds = TwoDealSet(rules, cfg["seed"])
    a, b = cfg["x"][0], cfg["y"][0]
    deals = []
    for t, specs in enumerate(((a, b), (b, a))):
        deal = ds.deal(int(index))
        try:
            _play_or_name(deal, [make_two_player_agent(s) for s in specs], specs,
                          ds.seeds(int(index)), lambda: _where(cfg, int(index), t))
        except (ValueError, OSError) as e:          # an agent's files gone or changed
            raise ArenaError(f"replaying deal pair {index} of {path}: {e}") from None
        deals.append(deal)
    return deals, row, cfg


def warmup() -> None:
    """Compile (or load from the numba cache) the deal sets and the two-player bots."""
    two_player_bots.warmup()
    for name in ("belote_a_deux", "belote_decouverte"):
        TwoDealSet(name, 0).states([0])
