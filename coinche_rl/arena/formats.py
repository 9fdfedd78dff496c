"""Tournament formats (``coinche_rl.arena.formats``): :func:`run_duplicate`,
:func:`run_round_robin`, :func:`run_rotating`, :func:`run_knockout`, their checks, the
resume from a results file, :func:`estimate_seconds` and :func:`default_roster`.

Every format takes the rule sets of every family (:func:`check_format` refuses what a
game has not: partners, an auction to skip)."""

from __future__ import annotations

import itertools
import math
import os
import time
from typing import Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from ..agents import available_agents, roster_agents
from ..progress import Progress
from ..ratings import Ratings, fit_bradley_terry, team_design
from ..records import rules_record
from ..engine.family import FAMILIES, family_of
from ..rules import N_SEATS, RuleSet, get_rules
from .dealsets import DealSet, _check_seed, _frozen_mode
from .errors import ArenaError
from .executors import BACKENDS, _chunks, _execute
from .results import DuplicateResult, KnockoutResult, TournamentResult
from .store import (_FORMAT_VERSION, ResultsFile, RunBook, _check_store, _code_key, _exclusive,
                    _run_id)
from .tasks import pair_play

__all__ = ["run_duplicate", "run_round_robin", "run_rotating", "run_knockout",
           "estimate_seconds", "default_roster", "check_format", "FORMATS", "CHUNK_SECONDS"]

#: the playing time a chunk of deal (match) pairs of Python agents aims at, from the
#: agents' ``seconds_per_deal``: the progress bar moves about this often
CHUNK_SECONDS = 2.0


def _canonical_spec(spec, family: Optional[str] = None) -> str:
    if not isinstance(spec, str):
        raise ArenaError(f"an agent is given by its spec string (e.g. 'heuristic'), so that "
                         f"every worker can build it, not {type(spec).__name__}")
    return pair_play(family).agent(spec).spec


def _team(agent, family: Optional[str] = None) -> Tuple[str, str]:
    if isinstance(agent, str):
        s = _canonical_spec(agent, family)
        return (s, s)
    if isinstance(agent, (tuple, list)) and len(agent) == 2:
        if _players(family) < N_SEATS and agent[0] != agent[1]:
            raise ArenaError(f"a game of {_players(family)} players has no partners: a team "
                             f"is one agent spec, not {agent!r}")
        return (_canonical_spec(agent[0], family), _canonical_spec(agent[1], family))
    if isinstance(agent, (tuple, list)):
        raise ArenaError(f"a team is an agent spec or a pair of specs (partners), not {agent!r}")
    raise ArenaError(f"an agent is given by its spec string (e.g. 'heuristic'), so that every "
                     f"worker can build it, not {type(agent).__name__}; register a custom agent "
                     f"with coinche_rl.agents.register_agent")


def _players(family: Optional[str]) -> int:
    """The players at the table of rule family ``family`` (None: four)."""
    return FAMILIES[family or "coinche"].n_players


def _is_fast(specs: Sequence[str], family: Optional[str] = None) -> bool:
    play = pair_play(family)
    return all(play.fast(play.agent(s)) for s in specs)


def _seconds_per_pair(x, y, family: Optional[str] = None,
                      cost: Optional[Dict[str, float]] = None) -> float:
    """The agents' ``seconds_per_deal`` summed over the places of both seatings of teams
    ``x`` and ``y`` (numba bots count as free)."""
    play = pair_play(family)
    cost = {} if cost is None else cost
    total = 0.0
    for seating in play.seatings(x, y):
        for spec in seating:
            if spec not in cost:
                cost[spec] = float(getattr(play.agent(spec), "seconds_per_deal", None) or 0.0)
            total += cost[spec]
    return total


def _check_common(n, backend, workers):
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 1:
        raise ArenaError(f"the number of deals must be a positive integer, not {n!r}")
    if backend not in BACKENDS:
        raise ArenaError(f"unknown backend {backend!r}: expected one of {', '.join(BACKENDS)}")
    if workers is not None and (isinstance(workers, bool) or not isinstance(workers, (int, np.integer))
                                or workers < 1):
        raise ArenaError(f"workers must be a positive integer, not {workers!r}")


def _rules_of(preset) -> RuleSet:
    try:
        return preset if isinstance(preset, RuleSet) else get_rules(preset)
    except ValueError as e:                     # UnknownPresetError, InvalidRulesError
        raise ArenaError(str(e)) from None


#: the formats, by their command-line name, and how the errors name them
FORMATS = {"duplicate": "duplicate matchups", "rotating": "rotating partners",
           "knockout": "the knockout"}


def check_format(format: str, preset, *, match: bool = False, frozen_contract=False,
                 target: Optional[int] = None) -> RuleSet:
    """The rule set of tournament format ``format`` (``"duplicate"``, ``"rotating"``,
    ``"knockout"``) under ``preset``, of any family (``target`` overrides its target);
    what the game does not have is refused in one line, before anything is prepared:
    rotating partners need partners (four players), a frozen contract an auction to skip.

    >>> check_format("duplicate", "belote_a_deux", match=True, target=500).target
    500
    >>> check_format("rotating", "belote_a_deux")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    coinche_rl.arena.errors.ArenaError: rotating partners (--format rotating) need partners: ...

    :raises ArenaError: an unknown preset or format, or an option the game lacks.
    """
    if format not in FORMATS:
        raise ArenaError(f"unknown tournament format {format!r}: expected one of "
                         f"{', '.join(FORMATS)}")
    rules = _rules_of(preset)
    family = family_of(rules)
    if format == "rotating" and family.n_players < N_SEATS:
        raise ArenaError(f"{FORMATS[format]} (--format {format}) need partners: rules "
                         f"{rules.name!r} are a game of {family.n_players} players without "
                         f"partners (--format duplicate or knockout)")
    # the deal set refuses a frozen contract the game cannot take, in its words
    DealSet(rules, 0, frozen_contract)
    if target is not None:
        try:
            rules = rules.replace(target=int(target))
        except ValueError as e:                 # InvalidRulesError
            raise ArenaError(str(e)) from None
    return rules


def _duplicate_rules(preset, target, match: bool, frozen: str) -> RuleSet:
    """The rule set of a duplicate format, of any family (:func:`check_format`)."""
    return check_format("duplicate", preset, match=match, frozen_contract=frozen,
                        target=target)


def _run_matchups(pairs: Sequence[Tuple[Tuple[str, str], Tuple[str, str]]], ns: Sequence[int],
                  rules: RuleSet, seed: int, frozen: str, match: bool, backend: str,
                  workers, address, out, progress, fast: bool = True,
                  chunk: Optional[int] = None, append: bool = False,
                  on_start=None) -> List[DuplicateResult]:
    """Play every matchup ``pairs[k]`` on ``ns[k]`` deal (match) pairs."""
    family = rules.family
    code = _code_key([s for x, y in pairs for s in (*x, *y)], family)
    with _exclusive(out):
        return _play_matchups(pairs, ns, rules, seed, frozen, match, backend, workers, address,
                              out, progress, fast, chunk, append, code, on_start)


def _chunk_size(x, y, family, kind: str, fast: bool, n_missing: int, n_workers: int,
                chunk: Optional[int], cost: Dict[str, float]) -> int:
    """Deal (match) pairs per task: ``chunk`` when given; in numba, the family's
    ``numba_chunk`` (64 match pairs); through Python agents, as many as the agents'
    ``seconds_per_deal`` say take :data:`CHUNK_SECONDS` (1 to 16 deal pairs, 1 or 2
    match pairs), so that the progress moves every few seconds with slow agents; with
    several workers, at most a quarter of each worker's share."""
    if chunk:
        size = int(chunk)
    elif fast and _is_fast([*x, *y], family):
        size = pair_play(family).numba_chunk if kind == "pair" else 64
    else:
        per_pair = _seconds_per_pair(x, y, family, cost)
        if kind == "pair":
            size = 16 if per_pair <= 0 else max(1, min(16, int(CHUNK_SECONDS / per_pair)))
        else:                                   # a match is ten deals or so
            size = 2 if per_pair * 10 <= CHUNK_SECONDS else 1
    if n_workers > 1:
        size = max(1, min(size, math.ceil(n_missing / (4 * n_workers))))
    return size


def _ramp(indices: np.ndarray, size: int):
    """Chunks of 1, 2, 4, ... deal pairs up to ``size``, then ``size``: the chunks of
    Python agents that do not say what a deal costs them, so that the progress moves (and
    its remaining time shows) after the first pair however slow they are."""
    k, step = 0, 1
    while k < len(indices):
        yield indices[k:k + step]
        k += step
        step = min(size, 2 * step)


def _play_matchups(pairs, ns, rules, seed, frozen, match, backend, workers, address, out,
                   progress, fast, chunk, append, code, on_start=None) -> List[DuplicateResult]:
    kind = "match" if match else "pair"
    family = rules.family
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
    if on_start is not None:
        on_start([(tuple(x), tuple(y)) for x, y in pairs],
                 [int(np.sum(book.missing[run] < n)) for run, n in zip(ids, ns)])
    tasks = []
    n_workers = 1 if backend == "serial" else (workers or os.cpu_count() or 1)
    cost: Dict[str, float] = {}
    for run, cfg in runs.items():
        missing = book.missing[run]
        if not len(missing):
            continue
        size = _chunk_size(cfg["x"], cfg["y"], family, kind, fast, len(missing), n_workers,
                           chunk, cost)
        task_cfg = dict(cfg, fast=fast, run=run)
        ramp = (not chunk and kind == "pair" and size > 1
                and not (fast and _is_fast([*cfg["x"], *cfg["y"]], family))
                and _seconds_per_pair(cfg["x"], cfg["y"], family, cost) <= 0)
        tasks += [(kind, task_cfg, c) for c in (_ramp(missing, size) if ramp
                                                else _chunks(missing, size))]
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
                  append: bool = False, on_start=None) -> DuplicateResult:
    """A duplicate matchup: ``agent_a`` (team X) against ``agent_b`` (team Y).

    :param agent_a: an agent spec (``"heuristic"``) or a pair of specs (partners).
    :param n_deals: deals of the deal set, each played in both seatings (in match
        mode: match pairs).
    :param preset: rule preset name or :class:`~coinche_rl.rules.RuleSet`, of any family
        (belote for two players: A plays player 0 then player 1; no partners, matches,
        frozen contracts or target); ``target`` overrides its target (match mode).
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
    :param chunk: deal pairs per task (default: 2048 in numba, 4096 for two players;
        through Python agents, what takes about :data:`CHUNK_SECONDS` by their
        ``seconds_per_deal``, 16 at most).
    :param on_start: ``f(pairs, left)``, called once the results file is read and before
        anything is played: the matchups' teams and the pairs each has left to play (the
        work to estimate).
    :raises coinche_rl.agents.AgentSpecError: a bad agent spec (an agent of the other
        family).
    :raises ArenaError: any other bad argument.
    """
    _check_common(n_deals, backend, workers)
    frozen = _frozen_mode(frozen_contract)
    rules = _duplicate_rules(preset, target, bool(match), frozen)
    x, y = _team(agent_a, rules.family), _team(agent_b, rules.family)
    return _run_matchups([(x, y)], [int(n_deals)], rules, _check_seed(seed), frozen,
                         bool(match), backend, workers, address, out, progress, fast, chunk,
                         append, on_start)[0]


def estimate_seconds(pairs: Sequence[Tuple[Sequence[str], Sequence[str]]], ns: Sequence[int],
                     workers: int = 1, family: Optional[str] = None) -> float:
    """A rough wall time for playing matchup ``pairs[k]`` (two teams of two specs) on
    ``ns[k]`` deal pairs with ``workers`` processes, from the agents'
    ``seconds_per_deal`` (numba bots count as free); compile time not included.
    ``family``: the rule family (None: the four-player game's); the pairs left to play
    of a run that resumes from a results file come to ``on_start`` of the formats.

    >>> estimate_seconds([(("pimc", "pimc"), ("random", "random"))], [10]) > 1
    True
    """
    cost: Dict[str, float] = {}
    total = 0.0
    for (x, y), n in zip(pairs, ns):
        total += int(n) * _seconds_per_pair(x, y, family, cost)
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
                     fast: bool = True, family: Optional[str] = None):
    """``(pairs, ns, teams)`` of a round robin between ``specs`` (canonical, distinct):
    every two agents as two teams, the deal pairs of each matchup (``python_deals`` caps
    the matchups that cannot run in numba) and the members of each team."""
    pairs, ns, teams = [], [], []
    for i, j in itertools.combinations(range(len(specs)), 2):
        pairs.append(((specs[i], specs[i]), (specs[j], specs[j])))
        n = int(n_deals)
        if python_deals is not None and not (fast and _is_fast([specs[i], specs[j]], family)):
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
                    fast: bool = True, append: bool = False, on_start=None) -> TournamentResult:
    """A duplicate between every two of ``agents`` (specs, at least two distinct), all on
    the same deal set, and their ratings (points per deal and Bradley-Terry Elo); rules
    of every family, options as :func:`run_duplicate`'s.

    ``python_deals`` caps the deals of the matchups that cannot run in numba.
    """
    _check_common(n_deals, backend, workers)
    frozen = _frozen_mode(frozen_contract)
    rules = _duplicate_rules(preset, target, bool(match), frozen)
    specs = [_canonical_spec(a, rules.family) for a in agents]
    if len(set(specs)) < 2 or len(specs) != len(set(specs)):
        raise ArenaError(f"a round robin needs at least two agents, each once; got {list(agents)!r}")
    pairs, ns, teams = round_robin_plan(specs, n_deals, python_deals, fast, rules.family)
    t0 = time.perf_counter()
    results = _run_matchups(pairs, ns, rules, _check_seed(seed), frozen, bool(match), backend,
                            workers, address, out, progress, fast, append=append,
                            on_start=on_start)
    return TournamentResult.from_matchups("round_robin", specs, specs, results, teams,
                                          time.perf_counter() - t0)


def run_rotating(players: Sequence[str], n_deals: int = 1000,
                 preset: Union[str, RuleSet] = "ffb", seed: int = 0, backend: str = "serial",
                 workers: Optional[int] = None, out=None,
                 frozen_contract: Union[bool, str] = False, address: Optional[str] = None,
                 progress=False, fast: bool = True, append: bool = False,
                 on_start=None) -> TournamentResult:
    """Rotating partners: for every four of ``players`` (specs; one may enter several
    times), each of the three splits into two partnerships plays a duplicate on the same
    deal set. Per-player ratings come from the team model (a team is the mean of its
    members), which separates a player's strength from its partners'.
    """
    _check_common(n_deals, backend, workers)
    rules = check_format("rotating", preset, frozen_contract=frozen_contract)
    specs = [_canonical_spec(p, rules.family) for p in players]
    if len(specs) < N_SEATS:
        raise ArenaError(f"rotating partners need at least 4 players, got {len(specs)}")
    names = _unique_names(specs)
    pairs, teams = [], []
    for a, b, c, d in itertools.combinations(range(len(specs)), N_SEATS):
        for tx, ty in (((a, b), (c, d)), ((a, c), (b, d)), ((a, d), (b, c))):
            pairs.append(((specs[tx[0]], specs[tx[1]]), (specs[ty[0]], specs[ty[1]])))
            teams.append((tx, ty))
    t0 = time.perf_counter()
    results = _run_matchups(pairs, [int(n_deals)] * len(pairs), rules, _check_seed(seed),
                            _frozen_mode(frozen_contract), False, backend, workers, address,
                            out, progress, fast, append=append, on_start=on_start)
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
    rules = check_format("knockout", preset, target=target)
    n = family_of(rules).n_players
    specs = [_canonical_spec(p, rules.family) for p in players]
    k = len(specs)
    if k < n or k & (k - 1) or k % n:
        raise ArenaError(f"a knockout needs {n} * 2**k players (tables of {n}; "
                         f"{'8 or 16 in the vipbelote format' if n == N_SEATS else 'e.g. 4 or 8'}),"
                         f" got {k}")
    if isinstance(max_deals, bool) or not isinstance(max_deals, int) or max_deals < 1:
        raise ArenaError(f"max_deals must be a positive integer, not {max_deals!r}")
    seed = _check_seed(seed)
    cfg = {"version": _FORMAT_VERSION, "format": "knockout", "players": specs,
           "rules": rules_record(rules), "seed": seed, "max_deals": max_deals,
           "code": _code_key(specs, rules.family)}
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
    family = family_of(rules)
    for r in ordered:
        for games in r["rounds"]:
            for g in games:
                s = [uniq.index(specs[p]) for p in g["seats"]]
                t1.append(tuple(x for i, x in enumerate(s) if family.side(i) == 0))
                t2.append(tuple(x for i, x in enumerate(s) if family.side(i) == 1))
                wins.append(1.0 if g["winner"] == 0 else 0.0)
    if len(uniq) >= 2 and t1:
        X = team_design(t1, t2, len(uniq))
        elo = fit_bradley_terry(X, np.array(wins), np.ones(len(wins)), uniq)
    else:
        elo = Ratings("elo", tuple(uniq), np.zeros(len(uniq)), np.zeros(len(uniq)))
    return KnockoutResult(specs, rules, seed, max_deals, run, ordered, elo,
                          time.perf_counter() - t0)


#: the reason :func:`default_roster` gives for an agent registered out of the roster
ROSTER_LEFT_OUT = ("a slow search, left out of the default roster (name it with --agents, "
                   "or in the agents given, to play it)")


def default_roster(preset: Union[str, RuleSet] = "ffb") -> Tuple[List[str], List[str]]:
    """The default tournament roster of ``preset``'s family: ``random`` and
    ``heuristic`` first, then every other registered agent that can be built and seated
    under ``preset``, in registry order. Returns ``(specs, skipped)`` where ``skipped``
    says why an agent was left out (``"name: reason"``): it cannot be built or seated
    (an optional package missing, other rules), or it is registered out of the roster
    (``roster=False``, ``ROSTER = False``: :data:`ROSTER_LEFT_OUT`).
    """
    rules = _rules_of(preset)
    play = pair_play(rules.family)
    names = roster_agents(rules.family)
    left_out = [n for n in available_agents(rules.family) if n not in names]
    first = [n for n in ("random", "heuristic") if n in names]
    roster, skipped = [], []
    for name in first + [n for n in names if n not in first]:
        try:
            agent = play.agent(name)
            agent.reset(0, rules, 0)
        except Exception as e:            # an optional dependency, or other rules
            skipped.append(f"{name}: {type(e).__name__}: {e}")
            continue
        roster.append(agent.spec)
    skipped += [f"{name}: {ROSTER_LEFT_OUT}" for name in left_out]
    return roster, skipped
