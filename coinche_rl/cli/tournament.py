"""``coinche-rl tournament``: duplicate round robins, rotating partnerships and knockouts
(:mod:`coinche_rl.arena`), with the warm-up, the estimate, the progress and the report."""

from __future__ import annotations

import importlib
import os
import re
import sys
import time
from typing import List, Optional

from ..agents import AgentSpecError
from ..rules import get_rules, rules_label
from .common import RULES_HELP, cwd_on_sys_path, nonnegative_int, output_problem, positive_int, rules_arg
from .warmup import compile_in_processes


def _fill(agents: List[str], n: int) -> List[str]:
    """``agents`` repeated in turn to ``n`` players."""
    return [agents[i % len(agents)] for i in range(n)]


#: the plot formats accepted by --plot (matplotlib's common raster and vector formats)
PLOT_FORMATS = (".png", ".pdf", ".svg", ".jpg", ".jpeg")


def _plot_path(path):
    """``(path, problem)``: a plot file name with a known format; no extension means
    PNG (the path returned ends in .png)."""
    ext = os.path.splitext(path)[1].lower()
    if not ext:
        path = path + ".png"
    elif ext not in PLOT_FORMATS:
        return path, (f"--plot {path}: unknown plot format {ext!r}; use one of "
                      f"{', '.join(PLOT_FORMATS)} (no extension: .png)")
    return path, output_problem(path, "--plot")


def _warm_agents(arena, agents, family: Optional[str] = None, python: bool = True,
                 matches: bool = True) -> None:
    """Compile (or load) the kernels of the tournament and of its agents before the
    progress bar starts, saying so: on a fresh numba cache this takes half a minute or
    more, and a bar standing still at 0 looks like a hang. ``family``: the rules' (the
    tournament's kernels and the agents' registry are the family's); ``python``: some
    deals go through the Python agents' path; ``matches``: the tournament plays
    matches (:func:`coinche_rl.arena.warmup`)."""
    print("preparing the numba kernels (half a minute or more on a fresh cache, then "
          "seconds from the cache)...", flush=True)
    t0 = time.perf_counter()
    play = arena.tasks.pair_play(family)
    # what the family's tournament warm-up (arena.warmup) compiles itself; the first in a
    # process of its own on a fresh cache
    own = (play.process_warmup, "coinche_rl.agents.numba_bots")
    modules: dict = {}                       # module -> the agents whose kernels it warms
    for spec in dict.fromkeys(agents):
        for name in play.agent(spec).kernel_modules():
            modules.setdefault(name, []).append(spec)
    # on a fresh cache, the package's kernels compile in parallel processes first
    compile_in_processes([own[0]] + [
        m for m in modules if m.startswith("coinche_rl.") and m not in own
        and hasattr(sys.modules[m], "warmup")], None, here=True)
    arena.warmup(family, python=python, matches=matches)
    for name, specs in modules.items():
        fn = getattr(importlib.import_module(name), "warmup", None)
        if fn is not None and name not in own:
            t1 = time.perf_counter()
            fn()
            print(f"  {', '.join(specs)}: ready in {time.perf_counter() - t1:.1f} s",
                  flush=True)
    print(f"(kernels ready in {time.perf_counter() - t0:.1f} s)", flush=True)


def _estimate(arena, args, family: Optional[str] = None):
    """The ``on_start`` of the duplicate formats: once the results file is read, print
    the expected playing time of the pairs left (none of a finished run: nothing is
    printed) when it is long, with the options that would shorten it: --python-deals
    when matchups play through Python, and --backend pool only when that Python play is
    long. Matchups in numba kernels (numba bots, nn) are not sent to the pool: there its
    workers' start-up and kernel loading cost more than they save (nn against the
    heuristic, 30,000 deal pairs on two cores: 16.8 s with the pool, 10.6-12.5 s
    serial)."""
    def on_start(pairs, left) -> None:
        fast = not args.no_numba
        workers = 1 if args.backend == "serial" else (args.workers or os.cpu_count() or 1)
        seconds = arena.estimate_seconds(pairs, left, workers, family)
        if seconds < 30:
            return
        python = [k for k, (x, y) in enumerate(pairs)
                  if not (fast and arena.formats._is_fast([*x, *y], family))]
        hints = []
        if python:
            hints.append("--python-deals caps the deal pairs of the matchups that play "
                         "through Python")
            python_seconds = arena.estimate_seconds([pairs[k] for k in python],
                                                    [left[k] for k in python], 1, family)
            if args.backend == "serial" and (os.cpu_count() or 1) > 1 and python_seconds >= 30:
                hints.append("--backend pool plays them on every core")
        print(f"(estimated playing time: about {seconds / 60:.1f} min on {workers} core(s)"
              + (f" for the {sum(left)} pairs left" if getattr(args, "out", None) else "")
              + "".join(f"; {h}" for h in hints) + ")", flush=True)
    return on_start


def _print_estimate(arena, agents, args, family: Optional[str] = None) -> None:
    """:func:`_estimate`'s line for a whole round robin of ``agents`` (one agent:
    against itself), before any results file is read."""
    distinct = list(dict.fromkeys(agents))
    specs = distinct if len(distinct) > 1 else distinct * 2
    pairs, ns, _ = arena.formats.round_robin_plan(specs, args.deals, args.python_deals,
                                                  not args.no_numba, family)
    _estimate(arena, args, family)(pairs, ns)


def _roster_note(skipped: List[str]) -> str:
    """The note on the agents left out of the default roster (``"name: reason"`` lines
    of :func:`coinche_rl.arena.default_roster`): one line per distinct reason. An agent
    whose optional package is not installed (colver) is no fault to explain at length:
    its line names the package and its install command only."""
    groups: dict = {}
    for line in skipped:
        name, _, reason = line.partition(": ")
        groups.setdefault(reason, []).append(name)
    lines = []
    for reason, names in groups.items():
        kind = reason.split(":", 1)[0]
        command = re.search(r"pip install ([\w.\-\[\]']+)", reason)
        if command and (kind.endswith("NotInstalledError")
                        or kind in ("ImportError", "ModuleNotFoundError")):
            lines.append(f"(skipped {', '.join(names)}: the optional package "
                         f"{command.group(1)} is not installed; {command.group(0)} adds them)")
        else:
            lines.append(f"(skipped {', '.join(names)}: {reason})")
    return "\n".join(lines)


def _play_and_report(args, arena, play, problem: Optional[str] = None) -> int:
    """Check the outputs (``--out``, ``--plot``) before anything is played (a long run
    must not fail at its end; ``problem``: the caller's own objection), run ``play()``
    (``(result, its duplicate matchups or None, seconds of play)``) and report as
    ``coinche-rl tournament`` does: the tables, the matchups that played fewer pairs
    than ``--deals``, the results file, the plot; an interruption or a bad agent or
    argument in one line."""
    problem = problem or output_problem(args.out, "--out")
    if problem is None and args.plot:
        args.plot, problem = _plot_path(args.plot)
    if problem:
        print(f"coinche-rl: error: {problem}", file=sys.stderr)
        return 2
    try:
        result, matchups, seconds = play()
        arena.print_summary(result)
        if matchups is not None and any(m.n < args.deals for m in matchups):
            what = "match pairs" if getattr(args, "match", False) else "deal pairs"
            print(f"(matchups with an agent that has no numba kernel played --python-deals "
                  f"{args.python_deals} {what}"
                  + ("; give --deals to play more" if not args.deals_given else "") + ")")
        print(f"done in {seconds:.1f} s" + (f"; results in {args.out} (run again to resume)"
                                             if args.out else ""))
        if args.plot:
            arena.plot_results(result, args.plot)
            print(f"plot written to {args.plot}")
    except KeyboardInterrupt:
        print("\ninterrupted" + (f": the finished deal pairs are in {args.out}; the same command "
                                 f"resumes" if args.out else ""), file=sys.stderr)
        return 130
    except (AgentSpecError, arena.ArenaError) as e:
        print(f"coinche-rl: error: {e}", file=sys.stderr)
        return 2
    return 0


def cmd_tournament(args) -> int:
    """One path for every family: the family's own part is the arena's (its agents'
    registry, how its deal pairs are played); an option its rules do not have is refused
    in one line before anything is prepared (:func:`coinche_rl.arena.formats.check_format`)."""
    from .. import arena                            # lazy: see the imports at the top
    # the knockout of the seeds is a vipbelote tournament: vip_classic unless --preset
    knockout_default = args.format == "knockout" and not args.preset_given
    rules = get_rules("vip_classic") if knockout_default else args.preset
    family = rules.family
    progress = not args.no_progress
    duplicate = args.format == "duplicate"

    def play():
        arena.formats.check_format(args.format, rules, match=args.match,
                                   frozen_contract=args.frozen_contract, target=args.target)
        if args.agents:
            agents = list(args.agents)
            for spec in agents:                     # a bad spec fails before the kernels load
                arena.tasks.pair_play(family).agent(spec)
        else:
            agents, skipped = arena.default_roster(rules)
            if skipped:
                print(_roster_note(skipped), file=sys.stderr)
        print(f"coinche-rl tournament: {args.format}, rules {rules_label(rules)!r}, seed {args.seed}, "
              f"backend {args.backend}" + (f" x{args.workers}" if args.workers else "")
              + f", agents: {', '.join(agents)}", flush=True)
        _warm_agents(arena, agents, family,
                     python=args.no_numba or not duplicate
                     or not arena.formats._is_fast(agents, family),
                     matches=bool(args.match) or not duplicate)
        common = dict(seed=args.seed, backend=args.backend, workers=args.workers, out=args.out,
                      append=args.append,
                      address=args.address, progress=progress, fast=not args.no_numba)
        if args.format != "knockout" and not args.match:
            common["on_start"] = _estimate(arena, args, family)
        t0 = time.perf_counter()
        if args.format == "knockout":
            players = agents if len(agents) in (8, 16) else _fill(agents, args.players)
            result = arena.run_knockout(players, args.tournaments, preset=rules,
                                        target=args.target if args.target else 501,
                                        max_deals=args.max_deals, **common)
        elif args.format == "rotating":
            players = agents if len(agents) >= 4 else _fill(agents, 4)
            result = arena.run_rotating(players, args.deals, preset=rules,
                                        frozen_contract=args.frozen_contract, **common)
        else:
            distinct = list(dict.fromkeys(agents))
            if len(distinct) < 2:
                n = arena.formats.round_robin_plan(distinct * 2, args.deals, args.python_deals,
                                                   not args.no_numba, family)[1][0]
                result = arena.run_duplicate(distinct[0], distinct[0], n, preset=rules,
                                             match=args.match, target=args.target,
                                             frozen_contract=args.frozen_contract, **common)
            else:
                result = arena.run_round_robin(distinct, args.deals, preset=rules,
                                               match=args.match, target=args.target,
                                               frozen_contract=args.frozen_contract,
                                               python_deals=args.python_deals, **common)
        matchups = None
        if duplicate:
            matchups = result.matchups if hasattr(result, "matchups") else [result]
        return result, matchups, time.perf_counter() - t0

    return _play_and_report(args, arena, play)


#: deal pairs per matchup of a tournament without --deals, and then the cap of the
#: matchups that play through Python (an explicit --deals is played in full)
TOURNAMENT_DEALS = 10_000


PYTHON_DEALS = 20


def _tournament_deals(args) -> None:
    """Resolve --deals and --python-deals: without --deals, ``TOURNAMENT_DEALS`` deal
    pairs per matchup and, unless --python-deals says otherwise, ``PYTHON_DEALS`` for the
    matchups without numba kernels; an explicit --deals is honoured in full (capped only
    by an explicit --python-deals)."""
    if args.deals is None:
        args.deals = TOURNAMENT_DEALS
        if args.python_deals is None:
            args.python_deals = PYTHON_DEALS


def add_parser(sub) -> None:
    t = sub.add_parser(
        "tournament", help="duplicate tournaments between agents, with ratings",
        description="Duplicate tournaments (coinche_rl.arena). With no option: random, "
                    "heuristic and every other registered agent that can play the preset, "
                    "in a duplicate round robin on a built-in deal set.")
    t.add_argument("--agents", nargs="+", metavar="SPEC",
                   help="agent specs such as random, heuristic, pimc:worlds=32, or an agent of "
                        "your own by import path, my_agents:MyAgent[:key=value] (the current "
                        "directory is on the module path) (default: the registered agents; see "
                        "coinche-rl agents)")
    t.add_argument("--format", choices=("duplicate", "rotating", "knockout"), default="duplicate",
                   help="duplicate: a round robin of duplicate matchups (default); rotating: "
                        "every split of every four players into partnerships (four-player "
                        "games); knockout: the vipbelote individual knockout (seed 004; "
                        "tables of two in belote for two players)")
    t.add_argument("--deals", type=positive_int, default=None,
                   help=f"deals of the deal set per matchup, each played in both seatings "
                        f"(match pairs with --match; default {TOURNAMENT_DEALS}); given, it is "
                        f"played in full by every matchup unless --python-deals caps it")
    t.add_argument("--python-deals", type=positive_int, default=None,
                   help=f"deal cap of the matchups with an agent that has no numba kernel, "
                        f"such as pimc or an agent of your own (default: {PYTHON_DEALS}, a "
                        f"couple of minutes, when --deals is not given; none when it is)")
    t.add_argument("--match", action="store_true",
                   help="play pairs of matches to the preset's target (match win rates)")
    t.add_argument("--target", type=positive_int,
                   help="match target (default: the preset's; knockout 501)")
    t.add_argument("--frozen-contract", nargs="?", const="longest", choices=("longest", "uniform"),
                   help="skip the auction: a contract drawn per deal, the same in both "
                        "seatings (longest, the default: a random seat takes the minimum bid "
                        "in its longest suit; uniform: the strain drawn at random)")
    t.add_argument("--preset", "--rules", dest="preset", type=rules_arg, default=None,
                   help=RULES_HELP.format(default="ffb; knockout: vip_classic"))
    t.add_argument("--seed", type=nonnegative_int, default=0, help="deal set seed (default 0)")
    t.add_argument("--out", help="append results to this JSON-lines file, resuming from it "
                                 "(rows of the same configuration and code only)")
    t.add_argument("--append", action="store_true",
                   help="add this run to an --out file that holds other runs (refused "
                        "otherwise: results of other settings or of changed code never mix "
                        "silently)")
    t.add_argument("--plot", metavar="FILE",
                   help="write a plot of the margins and the ratings (.png, .pdf, .svg, "
                        ".jpg; no extension: .png)")
    t.add_argument("--backend", choices=("serial", "pool", "ray"), default="serial",
                   help="serial: this process (default); pool: a process pool on this "
                        "machine, for agents without numba kernels (pimc, your own; matchups "
                        "in numba kernels, nn included, are usually faster serial: the "
                        "workers' start-up costs more than it saves); ray: Ray, local or "
                        "--address (the same results with each)")
    t.add_argument("--workers", type=positive_int,
                   help="processes (pool) or CPUs (local Ray) (default: every core)")
    t.add_argument("--address", help="address of an existing Ray cluster (--backend ray)")
    t.add_argument("--tournaments", type=positive_int, default=100,
                   help="knockout: tournaments (default 100)")
    t.add_argument("--players", type=int, choices=(8, 16), default=16,
                   help="knockout: players, the agents repeated in turn (default 16)")
    t.add_argument("--max-deals", type=positive_int, default=7,
                   help="knockout: deals per game at most (default 7)")
    t.add_argument("--no-progress", action="store_true", help="no progress bar")
    t.add_argument("--no-numba", action="store_true",
                   help="play through the Python agents even where numba kernels exist (slower; "
                        "the same results, a cross-check)")
    t.set_defaults(func=cmd_tournament, prepare=prepare)


def prepare(args, error) -> None:
    """The checks and defaults that involve several options (``error``: the subcommand's
    usage error)."""
    args.preset_given = args.preset is not None
    args.deals_given = args.deals is not None
    _tournament_deals(args)
    if args.preset is None:
        args.preset = get_rules("ffb")
    if args.address and args.backend != "ray":
        error(f"--address is for --backend ray, not --backend {args.backend}")
    cwd_on_sys_path()
