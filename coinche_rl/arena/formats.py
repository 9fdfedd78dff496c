"""Tournament formats (``coinche_rl.arena.formats``): :func:`run_duplicate`,
:func:`run_round_robin`, :func:`run_rotating`, :func:`run_knockout`, their checks, the
resume from a results file, :func:`estimate_seconds` and :func:`default_roster`."""

from __future__ import annotations

import itertools
import math
import os
import time
from typing import Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from ..agents import BatchedAgent, make_agent, roster_agents
from ..progress import Progress
from ..ratings import Ratings, fit_bradley_terry, team_design
from ..records import rules_record
from ..rules import N_SEATS, RuleSet, four_player_rules
from .dealsets import _check_seed, _frozen_mode
from .errors import ArenaError
from .executors import BACKENDS, _chunks, _execute
from .results import DuplicateResult, KnockoutResult, TournamentResult
from .store import (_FORMAT_VERSION, ResultsFile, RunBook, _check_store, _code_key, _exclusive,
                    _run_id)

__all__ = ["run_duplicate", "run_round_robin", "run_rotating", "run_knockout",
           "estimate_seconds", "default_roster"]


def _canonical_spec(spec) -> str:
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
    agents = [make_agent(s) for s in specs]
    return all(a.numba_bot is not None or isinstance(a, BatchedAgent) for a in agents)


def _check_common(n, backend, workers):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ArenaError(f"the number of deals must be a positive integer, not {n!r}")
    if backend not in BACKENDS:
        raise ArenaError(f"unknown backend {backend!r}: expected one of {', '.join(BACKENDS)}")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, (int, np.integer))
                                or workers < 1):
        raise ArenaError(f"workers must be a positive integer, not {workers!r}")


def _rules_for(preset, target) -> RuleSet:
    rules = four_player_rules(preset)
    if target is not None:
        rules = rules.replace(target=int(target))
    return rules


def _run_matchups(pairs: Sequence[Tuple[Tuple[str, str], Tuple[str, str]]], ns: Sequence[int],
                  rules: RuleSet, seed: int, frozen: str, match: bool, backend: str,
                  workers, address, out, progress, fast: bool = True,
                  chunk: Optional[int] = None, append: bool = False) -> List[DuplicateResult]:
    """Play every matchup ``pairs[k]`` on ``ns[k]`` deal (match) pairs."""
    code = _code_key([s for x, y in pairs for s in (*x, *y)])
    with _exclusive(out):
        return _play_matchups(pairs, ns, rules, seed, frozen, match, backend, workers, address,
                              out, progress, fast, chunk, append, code)


def _play_matchups(pairs, ns, rules, seed, frozen, match, backend, workers, address, out,
                   progress, fast, chunk, append, code) -> List[DuplicateResult]:
    kind = "match" if match else "pair"
    runs: Dict[str, dict] = {}
    want: Dict[str, int] = {}
    ids = []
    for (x, y), n in zip(pairs, ns):
        cfg = {"version": _FORMAT_VERSION, "format": kind, "x": list(x), "y": list(y),
               "rules": rules_record(rules), "seed": seed, "frozen": frozen,
               "code": dict(code, agents={s: code["agents"][s] for s in sorted({*x, *y})})}
        run = _run_id(cfg)
        ids.append(run)
        runs[run] = cfg
        want[run] = max(want.get(run, 0), int(n))
    book = RunBook(out, runs, want, kind, append)
    tasks = []
    n_workers = 1 if backend == "serial" else (workers or os.cpu_count() or 1)
    for run, cfg in runs.items():
        missing = book.missing[run]
        if not len(missing):
            continue
        specs = cfg["x"] + cfg["y"]
        numba = fast and _is_fast(specs)
        size = chunk or ((2048 if numba else 16) if kind == "pair" else (64 if numba else 2))
        size = max(1, min(size, math.ceil(len(missing) / (4 * n_workers)))) if n_workers > 1 else size
        task_cfg = dict(cfg, fast=fast, run=run)
        tasks += [(kind, task_cfg, c) for c in _chunks(missing, size)]
    # spread the matchups over the run instead of finishing one after the other
    tasks.sort(key=lambda t: int(t[2][0]))
    wall = book.play(tasks, lambda ts, done: _execute(ts, backend, workers, address, done),
                     progress, "deal pairs" if kind == "pair" else "match pairs")
    results = []
    for run, (x, y), n in zip(ids, pairs, ns):
        arrays = book.arrays(run, n)
        results.append(DuplicateResult(
            x=tuple(x), y=tuple(y), rules=rules, seed=seed, frozen=frozen, match=match, run=run,
            index=arrays["index"], dealer=arrays["dealer"], scores=arrays["scores"],
            contracts=arrays.get("contracts"), won=arrays.get("won"), deals=arrays.get("deals"),
            seconds=book.seconds[run], new=book.new[run], played=book.played[run],
            wall_seconds=wall))
    return results


def run_duplicate(agent_a, agent_b, n_deals: int = 1000, preset: Union[str, RuleSet] = "ffb",
                  seed: int = 0, backend: str = "serial", workers: Optional[int] = None,
                  out=None, match: bool = False, frozen_contract: Union[bool, str] = False,
                  address: Optional[str] = None, progress=False, target: Optional[int] = None,
                  fast: bool = True, chunk: Optional[int] = None,
                  append: bool = False) -> DuplicateResult:
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
        already there are reused (resume) when they come from the same configuration and
        the same code (package version, agents' code and weights); the file is locked
        while the run writes it.
    :param append: add this run to a results file that holds other runs (refused
        otherwise, so that results of another configuration or of changed code never
        mix with these silently).
    :param match: play pairs of matches to the target instead of single deals.
    :param frozen_contract: skip the auction with a contract drawn per deal
        (``True``/``"longest"`` or ``"uniform"``, see the :mod:`coinche_rl.arena` docstring).
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
                         out, progress, fast, chunk, append)[0]


def estimate_seconds(pairs: Sequence[Tuple[Sequence[str], Sequence[str]]], ns: Sequence[int],
                     workers: int = 1) -> float:
    """A rough wall time for playing matchup ``pairs[k]`` (two teams of two specs) on
    ``ns[k]`` deal pairs with ``workers`` processes, from the agents'
    ``seconds_per_deal`` (numba bots count as free); compile time not included.

    >>> estimate_seconds([(("pimc", "pimc"), ("random", "random"))], [10]) > 1
    True
    """
    cost: Dict[str, float] = {}
    total = 0.0
    for (x, y), n in zip(pairs, ns):
        per_deal = 0.0
        for spec in (*x, *y):
            if spec not in cost:
                cost[spec] = float(make_agent(spec).seconds_per_deal or 0.0)
            per_deal += cost[spec]
        total += 2 * int(n) * per_deal
    return total / max(1, int(workers))


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


def round_robin_plan(specs: Sequence[str], n_deals: int, python_deals: Optional[int] = None,
                     fast: bool = True):
    """``(pairs, ns, teams)`` of a round robin between ``specs`` (canonical, distinct):
    every two agents as two teams, the deal pairs of each matchup (``python_deals`` caps
    the matchups that cannot run in numba) and the members of each team."""
    pairs, ns, teams = [], [], []
    for i, j in itertools.combinations(range(len(specs)), 2):
        pairs.append(((specs[i], specs[i]), (specs[j], specs[j])))
        n = int(n_deals)
        if python_deals is not None and not (fast and _is_fast([specs[i], specs[j]])):
            n = min(n, int(python_deals))
        ns.append(n)
        teams.append(((i,), (j,)))
    return pairs, ns, teams


def run_round_robin(agents: Sequence[str], n_deals: int = 1000,
                    preset: Union[str, RuleSet] = "ffb", seed: int = 0,
                    backend: str = "serial", workers: Optional[int] = None, out=None,
                    match: bool = False, frozen_contract: Union[bool, str] = False,
                    address: Optional[str] = None, progress=False,
                    target: Optional[int] = None, python_deals: Optional[int] = None,
                    fast: bool = True, append: bool = False) -> TournamentResult:
    """A duplicate between every two of ``agents`` (specs, at least two distinct), all on
    the same deal set, and their ratings (points per deal and Bradley-Terry Elo).

    ``python_deals`` caps the deals of the matchups that cannot run in numba.
    """
    _check_common(n_deals, backend, workers)
    specs = [_canonical_spec(a) for a in agents]
    if len(set(specs)) < 2 or len(specs) != len(set(specs)):
        raise ArenaError(f"a round robin needs at least two agents, each once; got {list(agents)!r}")
    rules = _rules_for(preset, target)
    pairs, ns, teams = round_robin_plan(specs, n_deals, python_deals, fast)
    t0 = time.perf_counter()
    results = _run_matchups(pairs, ns, rules, _check_seed(seed), _frozen_mode(frozen_contract),
                            bool(match), backend, workers, address, out, progress, fast,
                            append=append)
    return TournamentResult.from_matchups("round_robin", specs, specs, results, teams,
                                          time.perf_counter() - t0)


def run_rotating(players: Sequence[str], n_deals: int = 1000,
                 preset: Union[str, RuleSet] = "ffb", seed: int = 0, backend: str = "serial",
                 workers: Optional[int] = None, out=None,
                 frozen_contract: Union[bool, str] = False, address: Optional[str] = None,
                 progress=False, fast: bool = True, append: bool = False) -> TournamentResult:
    """Rotating partners: for every four of ``players`` (specs; one may enter several
    times), each of the three splits into two partnerships plays a duplicate on the same
    deal set. Per-player ratings come from the team model (a team is the mean of its
    members), which separates a player's strength from its partners'.
    """
    _check_common(n_deals, backend, workers)
    specs = [_canonical_spec(p) for p in players]
    if len(specs) < N_SEATS:
        raise ArenaError(f"rotating partners need at least 4 players, got {len(specs)}")
    rules = _rules_for(preset, None)
    names = _unique_names(specs)
    pairs, teams = [], []
    for a, b, c, d in itertools.combinations(range(len(specs)), N_SEATS):
        for tx, ty in (((a, b), (c, d)), ((a, c), (b, d)), ((a, d), (b, c))):
            pairs.append(((specs[tx[0]], specs[tx[1]]), (specs[ty[0]], specs[ty[1]])))
            teams.append((tx, ty))
    t0 = time.perf_counter()
    results = _run_matchups(pairs, [int(n_deals)] * len(pairs), rules, _check_seed(seed),
                            _frozen_mode(frozen_contract), False, backend, workers, address,
                            out, progress, fast, append=append)
    return TournamentResult.from_matchups("rotating", names, specs, results, teams,
                                          time.perf_counter() - t0)


def run_knockout(players: Sequence[str], n_tournaments: int = 100,
                 preset: Union[str, RuleSet] = "vip_classic", seed: int = 0,
                 max_deals: int = 7, target: Optional[int] = 501, backend: str = "serial",
                 workers: Optional[int] = None, out=None, address: Optional[str] = None,
                 progress=False, fast: bool = True, append: bool = False) -> KnockoutResult:
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
    if k < N_SEATS or k & (k - 1) or k % N_SEATS:
        raise ArenaError(f"a knockout needs 4 * 2**k players (8 or 16 in the vipbelote format), "
                         f"got {k}")
    if isinstance(max_deals, bool) or not isinstance(max_deals, int) or max_deals < 1:
        raise ArenaError(f"max_deals must be a positive integer, not {max_deals!r}")
    rules = _rules_for(preset, target)
    seed = _check_seed(seed)
    cfg = {"version": _FORMAT_VERSION, "format": "knockout", "players": specs,
           "rules": rules_record(rules), "seed": seed, "max_deals": max_deals,
           "code": _code_key(specs)}
    with _exclusive(out):
        return _play_knockout(cfg, specs, rules, seed, max_deals, n_tournaments, backend,
                              workers, address, out, progress, fast, append)


def _play_knockout(cfg, specs, rules, seed, max_deals, n_tournaments, backend, workers,
                   address, out, progress, fast, append) -> KnockoutResult:
    run = _run_id(cfg)
    store = ResultsFile(out) if out is not None else None
    _check_store(store, {run: cfg}, append)
    done = dict(store.done(run)) if store is not None else {}
    if store is not None:
        store.begin(run, cfg)
    rows = {i: r for i, r in done.items() if i < n_tournaments}
    missing = np.array([i for i in range(n_tournaments) if i not in rows], dtype=np.int64)
    n_workers = 1 if backend == "serial" else (workers or os.cpu_count() or 1)
    size = max(1, min(16, math.ceil(len(missing) / (4 * n_workers)))) if len(missing) else 1
    tasks = [("knockout", dict(cfg, fast=fast), c) for c in _chunks(missing, size)]
    bar = Progress(progress, n_tournaments, len(rows), "tournaments")
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
    rules = four_player_rules(preset)
    names = roster_agents()
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
