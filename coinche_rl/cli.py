"""The ``coinche-rl`` command line.

::

    coinche-rl demo [--deals N] [--rules ffb] [--seed S]   # random deals, summary table
    coinche-rl replay FILE                                  # check a record, print scoring
    coinche-rl random-deal [--seed S] [--rules R] [-o FILE] # a random deal record
    coinche-rl random-match [--seed S] [--rules R] [-o FILE]
    coinche-rl presets                                      # rule presets and parameters
    coinche-rl tournament [--agents SPEC ...] [--format duplicate|rotating|knockout]
                          [--deals N] [--preset P] [--seed S] [--out FILE] [--plot FILE]
                          [--backend serial|pool|ray] [--workers N] [--address ADDR]
    coinche-rl replay RESULTS.jsonl --pair I                # replay one duplicate deal pair
    coinche-rl agents                                       # registered agents, parameters
    coinche-rl play [--seat 0] [--partner SPEC] [--opponents SPEC [SPEC]] [--rules ffb]
                    [--seed S] [--deals N | --match] [--save FILE]   # play against the bots
    coinche-rl play --rules belote_a_deux|belote_decouverte [--opponent SPEC] [--seat 0|1]
                    [--seed S] [--deals N | --match] [--save FILE]   # two players: you, a bot
    coinche-rl warmup                                       # compile every numba kernel
    coinche-rl serve [--host 127.0.0.1] [--port 8000] [--rules ffb] [--records DIR]
                     [--results FILE ...]   # the web page: play, replay, analyse (web extra)
    coinche-rl bench [engine|env|arena ...] [--full]        # the benchmark scripts
    coinche-rl train play [--rules ffb] [--minutes 120] [--out runs/NAME] [--resume]
    coinche-rl train bid [--rules ffb] [--minutes 60] [--out runs/NAME] [--resume]
    coinche-rl train export runs/NAME -o weights.npz        # torch-free weights of a run
    coinche-rl evaluate "JH 9H AH TH 7S 8D KC QC" [--seat 0] [--dealer 3] [--samples 500]
                        [--preset ffb] [--seed 0] [--method both|dd|heuristic|nn] [--strains H,S]
                        [--holds 2:AS] [--lacks 1:JS] [--auction "80H pass"] [--json]

``evaluate`` is the Monte Carlo hand evaluation of :mod:`coinche_rl.agents.evaluation`:
for each strain, the team's expected card points under double-dummy and heuristic play,
the probability of making each bid (80 ... 160, capot) and the expected deal score, and
the suggested bid (the contract with the best expected score, when positive; the
highest contract with a positive expectation is shown beside it when they differ);
``--method nn`` asks the bidding network instead (no worlds: microseconds); ``--json``
prints the arrays.

``tournament --rules belote_a_deux`` (or ``belote_decouverte``) plays belote for two
players: duplicate matchups of the two-player agents (:mod:`coinche_rl.arena.two_player`);
the options of the four-player formats are refused there with one line.

``tournament`` with no option plays ``random`` against ``heuristic`` and every other
registered agent that can play the preset (a duplicate round robin on a built-in deal
set, :mod:`coinche_rl.arena`), with a progress bar and the results table. With ``--out``
it appends one JSON line per finished deal pair and resumes from what the file holds.

Errors print ``coinche-rl: error: ...`` on stderr and exit non-zero. Usage errors (an
unknown option, a value out of its range: every count is at least 1, every seed at least
0, a probability in [0, 1], a seat 0..3) print the subcommand's usage and ``coinche-rl
SUBCOMMAND: error: argument --OPTION: must be at least 1, got 0`` and exit 2.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import logging
import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import List, Optional

import numpy as np

# The layers below the command line (see tests/test_layers.py): the engine modules, the
# agents, and the tools (the arena, the terminal game). The arena (which loads every
# agent's kernels module, the neural ones with the envs kernels and Gymnasium: about a
# quarter of a second), the hand evaluation (the solver) and the trainers (torch) are
# imported by the subcommands that use them, so that `coinche-rl --help` and the light
# subcommands do not pay for them.
from ._numba_cache import compile_notice, needs_compiling, usable_cores, warm_in_processes
from .agents import AgentSpecError, describe_agents, make_agent
from .game import Deal, IllegalActionError, Match
from .records import (DEAL_FORMAT, MATCH_FORMAT, RecordError, deal_to_record, load_record,
                      match_to_record, replay_deal, replay_match)
from . import __version__
from .rules import (N_SEATS, N_TEAMS, PRESETS, STRAIN_NAMES, InvalidRulesError, UnknownPresetError,
                    get_rules, parse_rules, presets_markdown, rules_label)
from .simulate import simulate_deals
from .simulate import warmup as engine_warmup
from .terminal import PlaySetupError, TerminalGame


def _rules_arg(text: str):
    """An argparse type: a preset with optional overrides, ``ffb:must_undertrump=true,
    target=2000`` (:func:`coinche_rl.rules.parse_rules`: every RuleSet field, typed and
    validated by the RuleSet)."""
    try:
        return parse_rules(text)
    except (UnknownPresetError, InvalidRulesError) as e:
        raise argparse.ArgumentTypeError(str(e)) from None


#: the help of every --rules option
RULES_HELP = ("rule preset (default {default}; coinche-rl presets lists them), optionally "
              "with overrides of its parameters: PRESET:FIELD=VALUE,... such as "
              "ffb:must_undertrump=true,target=2000")


# ------------------------------------------------------------------ range-checked option types
# argparse calls these on the option's text; an ArgumentTypeError becomes the usage error
# ``coinche-rl SUBCOMMAND: error: argument --deals: must be at least 1, got 0`` (exit 2),
# printed under the subcommand's usage line.
def int_range(lo: int, hi: Optional[int] = None):
    """An argparse type: an integer in ``lo..hi`` (no upper bound when ``hi`` is None)."""
    def parse(text: str) -> int:
        try:
            v = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
        if v < lo or (hi is not None and v > hi):
            raise argparse.ArgumentTypeError(f"must be {lo}..{hi}, got {v}" if hi is not None
                                             else f"must be at least {lo}, got {v}")
        return v
    parse.__name__ = f"int_{lo}_{hi}"
    return parse


#: a count (deals, samples, workers, threads ...): 1 or more
positive_int = int_range(1)
#: a seed or an index: 0 or more
nonnegative_int = int_range(0)
#: a seat or a dealer: 0..3
seat_int = int_range(0, N_SEATS - 1)


def probability(text: str) -> float:
    """An argparse type: a number in [0, 1]."""
    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None
    if not 0.0 <= v <= 1.0:             # NaN fails too
        raise argparse.ArgumentTypeError(f"must be a probability in [0, 1], got {text}")
    return v


def value_bands(rules) -> List[tuple]:
    """``(lo, hi, label)`` of the contract-value rows of the demo table: the rule set's
    bid values in three bands (low, middle, high: 80-100, 110-130, 140-160 under ffb),
    each labelled by the values it holds, then capot. The classic prise has no values."""
    if rules.family == "classic":
        return []
    values = list(rules.bid_values)
    bands = []
    for lo, hi in ((values[0], 100), (110, 130), (140, values[-1])):
        held = [v for v in values if lo <= v <= hi]
        if held:
            label = f"{held[0]}-{held[-1]}" if len(held) > 1 else f"{held[0]}"
            bands.append((held[0], held[-1], label))
    return bands + [(250, 250, "capot")]


def summary_table(res, seconds: float, rules=None) -> str:
    """A text summary of a :class:`~coinche_rl.simulate.SimulationResult` under
    ``rules`` (default ffb; the value bands are read from its bids)."""
    rules = get_rules("ffb") if rules is None else rules
    n = len(res)
    played = res.played
    lines = [f"{n:,} random deals in {seconds:.2f} s ({n / max(seconds, 1e-9):,.0f} deals/s, one core)",
             f"void deals (all passed): {np.mean(~played):.1%}", ""]
    lines.append(f"{'contract':14s}{'deals':>9s}{'share':>8s}{'made':>8s}{'takers':>9s}{'defenders':>11s}")
    taker_team = res.taker & (N_TEAMS - 1)      # rules.team, on the array

    def row(label, sel):
        k = int(sel.sum())
        if k == 0:
            return
        tt = taker_team[sel]
        sc = res.scores[sel]
        takers = np.where(tt == 0, sc[:, 0], sc[:, 1]).mean()
        defenders = np.where(tt == 0, sc[:, 1], sc[:, 0]).mean()
        lines.append(f"{label:14s}{k:9,d}{k / n:8.1%}{(res.made[sel] == 1).mean():8.1%}{takers:9.1f}{defenders:11.1f}")

    for lo, hi, label in value_bands(rules):
        row(label, played & (res.value >= lo) & (res.value <= hi))
    if (res.made == 2).any():
        row("litige", played & (res.made == 2))
    for s in sorted(set(res.strain[played].tolist())):
        row(f"strain {STRAIN_NAMES[s]}", played & (res.strain == s))
    row("coinched", played & (res.coinche == 1))
    row("surcoinched", played & (res.coinche == 2))
    row("all contracts", played)
    lines.append("")
    lines.append(f"mean deal score per team: team 0 {res.scores[:, 0].mean():.1f}, team 1 {res.scores[:, 1].mean():.1f}")
    return "\n".join(lines)


def cmd_demo(args) -> int:
    _engine_notice("demo")
    t0 = time.perf_counter()
    engine_warmup()
    t1 = time.perf_counter()
    res = simulate_deals(args.deals, rules=args.rules, seed=args.seed, pass_prob=args.pass_prob)
    t2 = time.perf_counter()
    print(f"coinche-rl demo: rules {rules_label(args.rules)!r}, seed {args.seed}, "
          f"auction: pass with probability {args.pass_prob}, else a uniformly random legal bid")
    print(f"(kernels ready in {t1 - t0:.1f} s)\n")
    print(summary_table(res, t2 - t1, args.rules))
    return 0


def _is_results_file(path: str) -> bool:
    """A tournament results file (JSON lines starting with a ``run`` line)?"""
    if path.endswith(".jsonl"):
        return True
    try:
        with open(path, "rb") as f:
            first = f.readline(4096)
        return json.loads(first).get("type") == "run"
    except (OSError, ValueError, AttributeError):
        return False


def cmd_replay_pair(args) -> int:
    from .arena import ArenaError, replay_pair     # lazy: see the imports at the top
    if args.pair is None:
        print(f"coinche-rl: error: {args.file} is a tournament results file: give the deal "
              f"pair to replay with --pair I", file=sys.stderr)
        return 2
    from .arena import two_player
    from .arena.store import stored_pair
    try:
        cfg, row = stored_pair(args.file, args.pair, args.run)      # the run, either family
        replay = (two_player.replay_two_player_pair if cfg["format"] == two_player.TWO_PAIR
                  else replay_pair)
        deals, row, cfg = replay(args.file, args.pair, row["run"])
    except (ArenaError, RecordError, OSError) as e:
        print(f"coinche-rl: error: {e}", file=sys.stderr)
        return 1
    x, y = cfg["x"], cfg["y"]
    print(f"{args.file}: run {row['run']}, deal pair {args.pair} (rules {cfg['rules']['preset']}, "
          f"seed {cfg['seed']}{', frozen contract ' + cfg['frozen'] if cfg.get('frozen') else ''})")
    ok = True
    for t, deal in enumerate(deals):
        if cfg["format"] == two_player.TWO_PAIR:     # A and B, one player each
            seats = (x[0], y[0]) if t == 0 else (y[0], x[0])
            where = "player"
        else:
            seats = (x[0], y[0], x[1], y[1]) if t == 0 else (y[0], x[0], y[1], x[1])
            where = "seat"
        print(f"\nseating {t + 1}: " + ", ".join(f"{where} {s} {spec}" for s, spec in enumerate(seats)))
        print(deal.render())
        xs, ys = (deal.scores if t == 0 else deal.scores[::-1])
        if [xs, ys] != row["scores"][t]:
            ok = False
            print(f"MISMATCH: replayed scores (X, Y) = ({xs}, {ys}), stored {row['scores'][t]}")
    print(f"\nmargin X - Y per deal: {row['margin']:+g}")
    if not ok:
        print("coinche-rl: error: the replay through the Python agents differs from the stored "
              "row", file=sys.stderr)
        return 1
    print("stored scores reproduced")
    return 0


def cmd_replay(args) -> int:
    if args.pair is not None or _is_results_file(args.file):
        return cmd_replay_pair(args)
    try:
        rec = load_record(args.file)
    except RecordError as e:                 # its message starts with the file's name
        print(f"coinche-rl: error: {e}", file=sys.stderr)
        return 1
    try:
        fmt = rec.get("format")
        family = "coinche"
        if isinstance(rec.get("rules"), dict) and isinstance(rec["rules"].get("preset"), str):
            family = getattr(PRESETS.get(rec["rules"]["preset"]), "family", "coinche")
        _engine_notice("replay", family)
        if fmt == DEAL_FORMAT:
            deal = replay_deal(rec)
            print(f"{args.file}: deal record OK ({len(deal.history)} actions checked)")
            print(deal.render())
        elif fmt == MATCH_FORMAT:
            m = replay_match(rec)
            print(f"{args.file}: match record OK ({len(m['deals'])} deals, rules {rules_label(m['rules'])!r}, "
                  f"target {m['rules'].target})")
            for i, d in enumerate(m["deals"]):
                r = d.result
                if r is None:
                    print(f"  deal {i + 1}: unfinished")
                elif r.void:
                    print(f"  deal {i + 1}: dealer {d.dealer}, void")
                else:
                    what = r.contract if hasattr(r, "contract") else \
                        f"player {r.taker} took {STRAIN_NAMES[r.trump]}"
                    print(f"  deal {i + 1}: dealer {d.dealer}, {what}, "
                          f"{'litige' if r.litige else 'made' if r.made else 'failed'}, "
                          f"{r.scores[0]} - {r.scores[1]}")
            side = "player" if m["rules"].family == "two" else "team"
            print(f"final scores {m['scores'][0]} - {m['scores'][1]}; winner: "
                  + ("none yet" if m["winner"] is None else f"{side} {m['winner']}"))
            if m["deals"] and m["deals"][-1].is_terminal and not m["deals"][-1].is_void:
                print("\nlast deal:\n" + m["deals"][-1].result.table())
        else:
            raise RecordError(f"format: expected {DEAL_FORMAT!r} or {MATCH_FORMAT!r}, got {fmt!r}")
    except RecordError as e:
        print(f"coinche-rl: error: {args.file}: {e}", file=sys.stderr)
        return 1
    return 0


def _random_game(args, match: bool):
    _engine_notice("random-deal", args.rules.family)
    rng = np.random.default_rng(args.seed)
    if args.rules.family == "two":
        from .two_player import TwoPlayerDeal, TwoPlayerMatch
        game = TwoPlayerMatch(args.rules, seed=args.seed) if match else TwoPlayerDeal(args.rules, seed=args.seed)
    else:
        game = Match(args.rules, seed=args.seed) if match else Deal(args.rules, seed=args.seed)
    while not game.is_terminal:
        legal = game.legal_actions()
        # auction: pass 70% of the time, else any legal action; play: any legal card
        if legal[0] == 0 and rng.random() < 0.7:
            game.apply(0)
        else:
            game.apply(legal[int(rng.integers(len(legal)))])
    rec = match_to_record(game) if match else deal_to_record(game)
    text = json.dumps(rec, indent=1, ensure_ascii=False)
    if args.output:
        try:
            with open(args.output, "w", encoding="utf-8") as f:
                f.write(text + "\n")
        except OSError as e:
            print(f"coinche-rl: error: cannot write {args.output!r}: {e.strerror}",
                  file=sys.stderr)
            return 2
        print(f"wrote {args.output}")
    else:
        print(text)
    return 0


def cmd_presets(args) -> int:
    if args.markdown:
        print(presets_markdown())
        return 0
    print(presets_table())
    return 0


def presets_table(width: int = 100) -> str:
    """Every preset with every parameter, as text at most ``width`` columns wide: the
    presets in groups of columns that fit, one table per group, each under the parameter
    names, the columns separated by `` | ``."""
    names = list(PRESETS)
    values = {n: {k: str(v) for k, v in PRESETS[n].to_dict().items() if k != "name"}
              for n in names}
    fields = list(values[names[0]])
    label = max(map(len, fields + ["parameter"]))
    col = {n: max(len(n), *map(len, values[n].values())) for n in names}
    groups, used = [[]], label
    for n in names:
        if groups[-1] and used + 3 + col[n] > width:
            groups.append([])
            used = label
        groups[-1].append(n)
        used += 3 + col[n]
    blocks = []
    for group in groups:
        rows = [f"{'parameter':{label}s} | " + " | ".join(f"{n:{col[n]}s}" for n in group),
                "-" * label + "-+-" + "-+-".join("-" * col[n] for n in group)]
        rows += [f"{f:{label}s} | " + " | ".join(f"{values[n][f]:{col[n]}s}" for n in group)
                 for f in fields]
        blocks.append("\n".join(r.rstrip() for r in rows))
    return (f"{len(names)} rule presets (coinche-rl presets --markdown: one markdown table);\n"
            f"--rules changes any parameter: --rules ffb:must_undertrump=true,target=2000\n\n"
            + "\n\n".join(blocks))


# ------------------------------------------------------------------ tournaments
def _fill(agents: List[str], n: int) -> List[str]:
    """``agents`` repeated in turn to ``n`` players."""
    return [agents[i % len(agents)] for i in range(n)]


#: the plot formats accepted by --plot (matplotlib's common raster and vector formats)
PLOT_FORMATS = (".png", ".pdf", ".svg", ".jpg", ".jpeg")


def _output_problem(path, option: str):
    """Why ``path`` cannot be written (its folder is missing or read-only), or None."""
    if not path:
        return None
    folder = os.path.dirname(os.path.abspath(path)) or "."
    if not os.path.isdir(folder):
        return f"{option} {path}: the folder {folder} does not exist"
    if not os.access(folder, os.W_OK):
        return f"{option} {path}: the folder {folder} is not writable"
    if os.path.isdir(path):
        return f"{option} {path} is a folder, not a file"
    return None


def _plot_path(path):
    """``(path, problem)``: a plot file name with a known format; no extension means
    PNG (the path returned ends in .png)."""
    ext = os.path.splitext(path)[1].lower()
    if not ext:
        path = path + ".png"
    elif ext not in PLOT_FORMATS:
        return path, (f"--plot {path}: unknown plot format {ext!r}; use one of "
                      f"{', '.join(PLOT_FORMATS)} (no extension: .png)")
    return path, _output_problem(path, "--plot")


def _warm_agents(arena, agents) -> None:
    """Compile (or load) the kernels of the tournament and of its agents before the
    progress bar starts, saying so: on a fresh numba cache this takes half a minute or
    more, and a bar standing still at 0 looks like a hang."""
    print("preparing the numba kernels (half a minute or more on a fresh cache, then "
          "seconds from the cache)...", flush=True)
    t0 = time.perf_counter()
    modules: dict = {}                       # module -> the agents it defines
    for spec in dict.fromkeys(agents):
        modules.setdefault(type(make_agent(spec)).__module__, []).append(spec)
    # on a fresh cache, the package's kernels compile in parallel processes first
    _compile_in_processes(["coinche_rl.arena"] + [
        m for m in modules if m.startswith("coinche_rl.") and m != "coinche_rl.agents.numba_bots"
        and hasattr(sys.modules[m], "warmup")], None, here=True)
    arena.warmup()
    for name, specs in modules.items():
        fn = getattr(importlib.import_module(name), "warmup", None)
        if fn is not None and name != "coinche_rl.agents.numba_bots":
            t1 = time.perf_counter()
            fn()
            print(f"  {', '.join(specs)}: ready in {time.perf_counter() - t1:.1f} s",
                  flush=True)
    print(f"(kernels ready in {time.perf_counter() - t0:.1f} s)", flush=True)


def _print_estimate(arena, agents, args) -> None:
    """Print the expected playing time of a duplicate round robin when it is long, with
    the options that would shorten it: --python-deals when matchups play through Python,
    and --backend pool only when that Python play is long. Matchups in numba kernels
    (numba bots, nn) are not sent to the pool: there its workers' start-up and kernel
    loading cost more than they save (nn against the heuristic, 30,000 deal pairs on
    two cores: 16.8 s with the pool, 10.6-12.5 s serial)."""
    distinct = list(dict.fromkeys(agents))
    specs = distinct if len(distinct) > 1 else distinct * 2     # one agent: against itself
    fast = not args.no_numba
    pairs, ns, _ = arena.formats.round_robin_plan(specs, args.deals, args.python_deals, fast)
    workers = 1 if args.backend == "serial" else (args.workers or os.cpu_count() or 1)
    seconds = arena.estimate_seconds(pairs, ns, workers)
    if seconds < 30:
        return
    python = [k for k, (x, y) in enumerate(pairs) if not (fast and arena.formats._is_fast([*x, *y]))]
    hints = []
    if python:
        hints.append("--python-deals caps the deal pairs of the matchups that play through "
                     "Python")
        python_seconds = arena.estimate_seconds([pairs[k] for k in python], [ns[k] for k in python])
        if args.backend == "serial" and (os.cpu_count() or 1) > 1 and python_seconds >= 30:
            hints.append("--backend pool plays them on every core")
    print(f"(estimated playing time: about {seconds / 60:.1f} min on {workers} core(s)"
          + "".join(f"; {h}" for h in hints) + ")", flush=True)


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


#: the tournament options of the four-player game only: (attribute, option, its default)
FOUR_PLAYER_TOURNAMENT_OPTIONS = (
    ("match", "--match", False), ("target", "--target", None),
    ("frozen_contract", "--frozen-contract", None), ("address", "--address", None),
    ("tournaments", "--tournaments", 100), ("players", "--players", 16),
    ("max_deals", "--max-deals", 7))


def _two_player_option_problem(args, rules) -> Optional[str]:
    """The first option given that belote for two players does not have, as one line."""
    what = f"not available with the two-player rules {rules_label(rules)!r}"
    if args.format != "duplicate":
        return (f"--format {args.format} is a four-player format, {what} (belote for two "
                f"players plays duplicate matchups)")
    if args.backend == "ray":
        return f"--backend ray is {what} (use serial or pool)"
    for attr, option, default in FOUR_PLAYER_TOURNAMENT_OPTIONS:
        if getattr(args, attr, default) != default:
            return f"{option} is a four-player tournament option, {what}"
    return None


def _two_player_tournament(args, rules) -> int:
    """``coinche-rl tournament`` under two-player rules: a duplicate round robin of
    :mod:`coinche_rl.arena.two_player` (each deal played twice, the players swapped)."""
    from . import arena                            # lazy: see the imports at the top
    from .agents.two_player import available_two_player_agents, make_two_player_agent

    def play():
        if args.agents:
            agents = list(args.agents)
        else:
            names = available_two_player_agents()
            agents = [n for n in ("random", "heuristic") if n in names] + \
                [n for n in names if n not in ("random", "heuristic")]
        for spec in agents:                        # a bad spec fails before the kernels load
            make_two_player_agent(spec)
        print(f"coinche-rl tournament: duplicate for two players, rules {rules_label(rules)!r}, "
              f"seed {args.seed}, backend {args.backend}"
              + (f" x{args.workers}" if args.workers else "") + f", agents: {', '.join(agents)}",
              flush=True)
        print("preparing the numba kernels (half a minute or more on a fresh cache, then "
              "seconds from the cache)...", flush=True)
        t0 = time.perf_counter()
        arena.two_player.warmup()
        print(f"(kernels ready in {time.perf_counter() - t0:.1f} s)", flush=True)
        common = dict(preset=rules, seed=args.seed, backend=args.backend, workers=args.workers,
                      progress=not args.no_progress, fast=not args.no_numba, out=args.out,
                      append=args.append)
        t0 = time.perf_counter()
        distinct = list(dict.fromkeys(agents))
        if len(distinct) < 2:
            n = args.deals
            if args.python_deals is not None and not (
                    not args.no_numba and arena.two_player._is_fast(distinct)):
                n = min(n, args.python_deals)
            result = arena.run_two_player_duplicate(distinct[0], distinct[0], n, **common)
            return result, [result], time.perf_counter() - t0
        result = arena.run_two_player_round_robin(distinct, args.deals,
                                                  python_deals=args.python_deals, **common)
        return result, result.matchups, time.perf_counter() - t0

    return _play_and_report(args, arena, play, _two_player_option_problem(args, rules))


def _play_and_report(args, arena, play, problem: Optional[str] = None) -> int:
    """Check the outputs (``--out``, ``--plot``) before anything is played (a long run
    must not fail at its end; ``problem``: the caller's own objection), run ``play()``
    (``(result, its duplicate matchups or None, seconds of play)``) and report as
    ``coinche-rl tournament`` does: the tables, the matchups that played fewer pairs
    than ``--deals``, the results file, the plot; an interruption or a bad agent or
    argument in one line."""
    problem = problem or _output_problem(args.out, "--out")
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
    if args.preset.family == "two":
        return _two_player_tournament(args, args.preset)
    from . import arena                            # lazy: see the imports at the top
    # the knockout of the seeds is a vipbelote tournament: vip_classic unless --preset
    knockout_default = args.format == "knockout" and not args.preset_given
    rules = get_rules("vip_classic") if knockout_default else args.preset
    progress = not args.no_progress

    def play():
        if args.agents:
            agents = list(args.agents)
        else:
            agents, skipped = arena.default_roster(rules)
            if skipped:
                print(_roster_note(skipped), file=sys.stderr)
        print(f"coinche-rl tournament: {args.format}, rules {rules_label(rules)!r}, seed {args.seed}, "
              f"backend {args.backend}" + (f" x{args.workers}" if args.workers else "")
              + f", agents: {', '.join(agents)}", flush=True)
        _warm_agents(arena, agents)
        if args.format == "duplicate" and not args.match:
            _print_estimate(arena, agents, args)
        common = dict(seed=args.seed, backend=args.backend, workers=args.workers, out=args.out,
                      append=args.append,
                      address=args.address, progress=progress, fast=not args.no_numba)
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
                                                   not args.no_numba)[1][0]
                result = arena.run_duplicate(distinct[0], distinct[0], n, preset=rules,
                                             match=args.match, target=args.target,
                                             frozen_contract=args.frozen_contract, **common)
            else:
                result = arena.run_round_robin(distinct, args.deals, preset=rules,
                                               match=args.match, target=args.target,
                                               frozen_contract=args.frozen_contract,
                                               python_deals=args.python_deals, **common)
        matchups = None
        if args.format == "duplicate":
            matchups = result.matchups if hasattr(result, "matchups") else [result]
        return result, matchups, time.perf_counter() - t0

    return _play_and_report(args, arena, play)


def cmd_agents(args) -> int:
    print(describe_agents())
    return 0


#: modules whose warmup() compiles kernels, in dependency order (absent ones are skipped)
WARMUP_MODULES = ("coinche_rl.simulate", "coinche_rl.envs.kernels", "coinche_rl.envs.vector",
                  "coinche_rl.solver", "coinche_rl.agents.numba_bots", "coinche_rl.agents.sampler",
                  "coinche_rl.agents.evaluation", "coinche_rl.agents.pimc",
                  "coinche_rl.agents.neural.agent", "coinche_rl.agents.neural.labels",
                  "coinche_rl.agents.neural.bid_labels", "coinche_rl.agents.neural.belief",
                  "coinche_rl.agents.neural.search", "coinche_rl.agents.neural.selfplay",
                  "coinche_rl.arena", "coinche_rl.arena.two_player",
                  "coinche_rl.engine.two", "coinche_rl.agents.two_player_bots",
                  "coinche_rl.envs.two_player_kernels", "coinche_rl.envs.two_player_vector",
                  "coinche_rl.solver_two", "coinche_rl.agents.two_player_pimc",
                  "coinche_rl.agents.two_player_evaluation")

#: how the warm-up processes share WARMUP_MODULES: chains of modules that build on each
#: other's kernels (each chain in one process, in this order). The solver's call graph is
#: deep (each kernel waits for its callees), so it starts first, alone in its chain, from
#: its argument types (``solver:warmup_search``: no position, so none of the engine's
#: kernels); the modules that use it come after it there. Meanwhile the second chain
#: compiles the networks' and the sampler's kernels (with the engine's that they call),
#: which PIMC's warm-up uses when the first chain reaches it; the environments' load the
#: engine's from the cache
WARMUP_CHAINS = (("coinche_rl.solver:warmup_search", "coinche_rl.solver",
                  "coinche_rl.agents.evaluation", "coinche_rl.agents.pimc"),
                 ("coinche_rl.envs.kernels", "coinche_rl.envs.vector",
                  "coinche_rl.agents.neural.agent", "coinche_rl.agents.sampler",
                  "coinche_rl.agents.neural.labels", "coinche_rl.agents.neural.bid_labels",
                  "coinche_rl.agents.neural.belief", "coinche_rl.agents.neural.search",
                  "coinche_rl.agents.neural.selfplay"),
                 # belote for two players: its own chain, never the last one (a module of no
                 # chain joins the last); no four-player command, the demo included, asks for
                 # these modules, so warmup_chains drops it there
                 ("coinche_rl.engine.two", "coinche_rl.agents.two_player_bots",
                  "coinche_rl.envs.two_player_kernels", "coinche_rl.envs.two_player_vector",
                  "coinche_rl.solver_two", "coinche_rl.agents.two_player_pimc",
                  "coinche_rl.agents.two_player_evaluation", "coinche_rl.arena.two_player"),
                 ("coinche_rl.simulate", "coinche_rl.agents.numba_bots", "coinche_rl.arena"))

#: modules whose kernels call those of other modules with a long compile of their own:
#: warming one up warms these first, in their own chain's place (the solver in the first
#: process while the others compile the rest, instead of inside the PIMC loop's compile)
#: PIMC's own warm-up compiles the sampler's kernels that it calls (not the others), in
#: the solver's process: the other process (the tournament's, in the demo) has more to do
_SEARCH_NEEDS = ("coinche_rl.solver:warmup_search", "coinche_rl.agents.sampler")
WARMUP_NEEDS = {"coinche_rl.agents.pimc": ("coinche_rl.solver:warmup_search",),
                "coinche_rl.agents.evaluation": _SEARCH_NEEDS,
                "coinche_rl.agents.neural.search": _SEARCH_NEEDS}


def warmup_chains(modules) -> List[List[str]]:
    """``modules`` and what they need (:data:`WARMUP_NEEDS`) split as
    :data:`WARMUP_CHAINS`, in the chains' order; a module of no chain goes to the end of
    the last one, in the order given; empty chains dropped."""
    wanted = list(dict.fromkeys(m for name in modules
                                for m in (*WARMUP_NEEDS.get(name, ()), name)))
    chains = [[m for m in chain if m in wanted] for chain in WARMUP_CHAINS]
    chains[-1] += [m for m in wanted if not any(m in c for c in WARMUP_CHAINS)]
    return [c for c in chains if c]


def _start_warm_child(chain) -> subprocess.Popen:
    """A child interpreter that runs the warm-ups of ``chain`` (as
    :func:`~coinche_rl._numba_cache.warm_in_processes` starts them), writing this
    process's numba cache folder."""
    import numba.core.config as cfg
    from ._numba_cache import _WARM_CHILD
    env = dict(os.environ)
    if cfg.CACHE_DIR:
        env["NUMBA_CACHE_DIR"] = cfg.CACHE_DIR
    env.setdefault("OMP_NUM_THREADS", "1")
    env.setdefault("OPENBLAS_NUM_THREADS", "1")
    return subprocess.Popen([sys.executable, "-c", _WARM_CHILD, *chain], env=env,
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL)


def _warm_here_and_in_processes(chains, jobs: int) -> None:
    """Compile ``chains`` (lists of ``"module"`` or ``"module:function"`` warm-ups) on
    ``jobs`` cores: the first ``jobs - 1`` chains in child interpreters, the others one
    after the other in this process meanwhile, which has imported numba and the package
    already (a child's start costs a second or more of the same core). A warm-up that
    fails here is left to the caller's own warm-ups, which raise its error in their
    place (as a child's failure loses time, never correctness)."""
    children = [_start_warm_child(c) for c in chains[:jobs - 1]]
    try:
        for spec in [s for c in chains[jobs - 1:] for s in c]:
            mod, _, fn = spec.partition(":")
            try:
                getattr(importlib.import_module(mod), fn or "warmup")()
            except Exception as e:      # the caller's own warm-up raises it in its place
                logging.getLogger("coinche_rl").debug("warm-up %s failed here: %r", spec, e)
        for p in children:
            p.wait()
    finally:
        for p in children:  # interrupted: leave no child compiling behind
            if p.poll() is None:
                p.kill()
                p.wait()


def _compile_in_processes(modules, jobs: Optional[int], say: bool = True,
                          here: bool = False) -> Optional[float]:
    """Compile the kernels of ``modules`` (importable names whose ``warmup()`` compiles
    them) in parallel processes when none of them is cached yet (saying so on stdout
    when ``say``); returns the seconds it took, or None when nothing was started (a warm
    cache, one core, one chain). With ``here``, this process compiles its share itself
    (:func:`_warm_here_and_in_processes`) instead of waiting for children."""
    present = []
    for name in modules:
        try:
            importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name != name:
                raise
            continue
        present.append(name)
    chains = warmup_chains(present)
    jobs = usable_cores() if jobs is None else jobs
    if jobs < 2 or len(chains) < 2 or not any(needs_compiling(m) for m in present):
        return None
    if say:
        print(f"compiling in {min(jobs, len(chains))} processes (once: later runs load the "
              f"kernels from the numba cache)...", flush=True)
    t0 = time.perf_counter()
    if here:
        _warm_here_and_in_processes(chains, jobs)
    else:
        warm_in_processes(chains, jobs)
    return time.perf_counter() - t0


def cmd_warmup(args) -> int:
    total = time.perf_counter()
    seconds = _compile_in_processes(WARMUP_MODULES, args.jobs)
    if seconds is not None:
        print(f"compiled in {seconds:.1f} s; loading:", flush=True)
    for name in WARMUP_MODULES:
        try:
            mod = importlib.import_module(name)
        except ModuleNotFoundError as e:
            if e.name == name:
                print(f"{name:32s} not present")
                continue
            raise
        fn = getattr(mod, "warmup", None)
        if fn is None:
            print(f"{name:32s} no kernels to warm")
            continue
        t0 = time.perf_counter()
        fn()
        print(f"{name:32s} ready in {time.perf_counter() - t0:6.2f} s", flush=True)
    print(f"every kernel compiled or loaded from the numba cache in "
          f"{time.perf_counter() - total:.1f} s")
    return 0


# ------------------------------------------------------------------ hand evaluation
def _seat_cards(text: str, option: str):
    """``"2:AS KS"`` -> ``(2, "AS KS")`` (a seat, a colon, its cards)."""
    seat, sep, cards = text.partition(":")
    if not sep or seat.strip() not in ("0", "1", "2", "3") or not cards.strip():
        raise ValueError(f"{option} {text!r}: expected SEAT:CARDS with a seat 0..3, e.g. "
                         f"{option} '2:AS KS'")
    return int(seat), cards.replace(",", " ")


def cmd_evaluate(args) -> int:
    from .agents.evaluation import evaluate_hand   # lazy: see the top
    if args.preset.family == "two":
        return _evaluate_two_player(args)
    try:
        holds, lacks = {}, {}
        for option, items, out in (("--holds", args.holds, holds), ("--lacks", args.lacks, lacks)):
            for text in items or ():
                seat, cards = _seat_cards(text, option)
                out[seat] = (out[seat] + " " + cards) if seat in out else cards
    except ValueError as e:
        print(f"coinche-rl: error: {e}", file=sys.stderr)
        return 2
    threads = args.threads or max(1, len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                                  else (os.cpu_count() or 1))
    _compile_evaluation(args.method)
    progress = not args.no_progress and sys.stderr.isatty()
    ev = _evaluation(lambda: evaluate_hand(
        args.preset, args.seat, args.hand, args.dealer, samples=args.samples, seed=args.seed,
        strains=args.strains, method=args.method, holds=holds or None, lacks=lacks or None,
        auction=args.auction or (), progress=progress, coinche=args.coinche,
        retourne=args.retourne, min_suit_length=args.min_suit_length, threads=threads,
        bid_weights=args.bid_weights or "", nn_player=args.nn_player), args.json)
    if isinstance(ev, int):
        return ev
    if args.method == "nn":
        print("coinche-rl evaluate: the bidding network's evaluation (no worlds: learned from "
              "real deals under real card play)")
    else:
        print(f"coinche-rl evaluate: Monte Carlo evaluation, method {args.method}")
    print(ev.table())
    if "nn" in ev.seconds:
        print(f"bidding network: {len(ev.strains) * len(ev.levels)} contracts in "
              f"{ev.seconds['nn'] * 1e3:.2f} ms")
    n_contracts = len(ev.strains) * len(ev.levels)
    for m, label in (("dd", "double-dummy"), ("heuristic", "heuristic play")):
        if m in ev.seconds:
            sec = ev.seconds[m]
            ns, nl = len(ev.strains), len(ev.levels)
            print(f"{label}: {ev.samples} worlds x {ns} strain{'s' if ns > 1 else ''} x {nl} "
                  f"level{'s' if nl > 1 else ''} ({ev.samples * n_contracts} contracts) in {sec:.2f} s "
                  f"({ev.samples / max(sec, 1e-9):,.1f} worlds/s, {threads} thread"
                  f"{'s' if threads > 1 else ''})")
    return 0


def _evaluation(run, as_json: bool):
    """``run()``'s evaluation, or the exit status when it is done: an EvaluationError in
    one line (2), an interruption (130), the JSON printed (0)."""
    from .agents.evaluation import EvaluationError
    try:
        ev = run()
    except EvaluationError as e:
        print(f"coinche-rl: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)
        return 130
    if as_json:
        print(json.dumps(ev.to_dict()))
        return 0
    return ev


def _evaluate_two_player(args) -> int:
    """``coinche-rl evaluate --rules belote_a_deux``: the prise options of one player
    (coinche_rl.agents.two_player_evaluation); the four-player options are refused in
    one line."""
    from .agents import two_player_evaluation
    four = [opt for opt, given in (("--holds", args.holds), ("--lacks", args.lacks),
                                   ("--auction", args.auction), ("--strains", args.strains),
                                   ("--bid-weights", args.bid_weights),
                                   ("--min-suit-length", args.min_suit_length),
                                   ("--coinche", args.coinche), ("--threads", args.threads))
            if given]
    if args.method not in ("both", "heuristic"):
        four.append(f"--method {args.method}")
    if four:
        print(f"coinche-rl: error: {', '.join(four)}: not for belote for two players (its "
              f"evaluation: --seat 0|1, --dealer 0|1, --retourne, --other-up, --prise, "
              f"--samples, --seed; heuristic play only)", file=sys.stderr)
        return 2
    dealer = 1 - args.seat if args.dealer == 3 else args.dealer    # default: he speaks first
    compile_notice("the two-player hand evaluation", (two_player_evaluation._evaluate_worlds,),
                   "about 10-30 s")
    ev = _evaluation(lambda: two_player_evaluation.evaluate_two_player_hand(
        args.preset, args.seat, args.hand, dealer, retourne=args.retourne,
        other_up=args.other_up, prise=(args.prise or "").replace(",", " ").split(),
        samples=args.samples, seed=args.seed), args.json)
    if isinstance(ev, int):
        return ev
    print("coinche-rl evaluate: belote for two players, Monte Carlo evaluation of the prise "
          "(heuristic play at both players)")
    print(ev.table())
    print(f"{ev.samples} worlds x {len(ev.options)} options in {ev.seconds:.2f} s "
          f"({ev.samples / max(ev.seconds, 1e-9):,.1f} worlds/s)")
    return 0


def _compile_evaluation(method: str) -> None:
    """On a fresh numba cache, compile the kernels of ``--method both`` (double-dummy
    and heuristic play) in two processes at once, saying so."""
    from .agents import evaluation
    if method != "both" or usable_cores() < 2 or not needs_compiling(evaluation.__name__):
        return
    compile_notice("the hand evaluation", (evaluation._dd_chunk, evaluation._heur_chunk),
                   "about 30-60 s in two processes")
    warm_in_processes([[f"{evaluation.__name__}:warmup_dd"],
                       [f"{evaluation.__name__}:warmup_heuristic"]])


def _add_evaluate(sub) -> None:
    e = sub.add_parser(
        "evaluate", help="Monte Carlo evaluation of a hand: P(make) and expected score by bid",
        description="Monte Carlo hand evaluation (coinche_rl.agents.evaluation): uniformly "
                    "random deals of the other cards; in each, every strain and bid level "
                    "played out double-dummy (the exact solver) and by the heuristic bot at "
                    "all four seats, scored by the engine, as if the seat's team took the "
                    "contract now.")
    e.add_argument("hand", help="the seat's cards, e.g. 'JH 9H AH TH 7S 8D KC QC' (classic "
                                "family: 5 cards with --retourne during the prise, or 8; "
                                "belote_a_deux: the 6 cards in hand with --retourne; "
                                "belote_decouverte: the 8 face-up cards with --other-up)")
    e.add_argument("--seat", type=seat_int, default=0, help="the seat holding the hand, 0..3 "
                                                       "(default 0)")
    e.add_argument("--dealer", type=seat_int, default=3,
                   help="the dealer, 0..3 (default 3: seat 0 leads the first trick)")
    e.add_argument("--samples", type=positive_int, default=500,
                   help="random deals of the other hands (default 500)")
    e.add_argument("--preset", "--rules", dest="preset", type=_rules_arg, default=get_rules("ffb"),
                   help=RULES_HELP.format(default="ffb"))
    e.add_argument("--seed", type=nonnegative_int, default=0, help="seed of the deals (default 0)")
    e.add_argument("--method", choices=("both", "dd", "heuristic", "nn"), default="both",
                   help="dd: double-dummy play; heuristic: the heuristic bot at every seat; "
                        "both (default); nn: the bidding network (no worlds, microseconds)")
    e.add_argument("--bid-weights", help="--method nn: a bidding weights file (default: the "
                                         "weights shipped for the preset)")
    e.add_argument("--nn-player", choices=("nn", "heuristic"), default="nn",
                   help="--method nn: the card player the values are for (default nn)")
    e.add_argument("--strains", help="strains to evaluate, e.g. H,S (default: every strain of "
                                     "the preset)")
    e.add_argument("--holds", action="append", metavar="SEAT:CARDS",
                   help="cards a seat is known to hold, e.g. 2:AS (repeatable)")
    e.add_argument("--lacks", action="append", metavar="SEAT:CARDS",
                   help="cards a seat is known not to hold, e.g. '1:JS 9S' (repeatable)")
    e.add_argument("--auction", help="the auction so far, from the seat after the dealer, "
                                     "e.g. '80H pass'")
    e.add_argument("--min-suit-length", type=int_range(0, 8), default=0,
                   help="every other seat that bid a suit in --auction holds at least this "
                        "many cards of it (default 0: no inference)")
    e.add_argument("--coinche", type=int, default=0, choices=(0, 1, 2),
                   help="evaluate coinched (1) or surcoinched (2) contracts (default 0: "
                        "neither)")
    e.add_argument("--retourne", help="classic family and belote_a_deux: the turned-up card, "
                                      "e.g. 8H")
    e.add_argument("--other-up", help="belote_decouverte: the other player's 8 face-up cards "
                                      "(the hand argument: the player's own 8)")
    e.add_argument("--prise", help="belote for two players: the prise so far, e.g. 'pass'")
    e.add_argument("--threads", type=positive_int, help="threads (default: every core)")
    e.add_argument("--json", action="store_true", help="print the results as JSON")
    e.add_argument("--no-progress", action="store_true", help="no progress bar")
    e.set_defaults(func=cmd_evaluate)


BENCHMARKS = {"engine": "bench_engine.py", "env": "bench_env.py", "arena": "bench_arena.py",
              "solver": "bench_solver.py", "strength": "bench_strength.py",
              "neural": "bench_neural.py", "belief": "bench_belief.py",
              "selfplay": "bench_selfplay.py", "web": "bench_web.py",
              "two_player": "bench_two_player.py", "two_player_env": "bench_two_player_env.py"}


def cmd_bench(args) -> int:
    folder = Path(__file__).resolve().parents[1] / "benchmarks"
    if not folder.is_dir():
        print("coinche-rl: error: the benchmark scripts live in benchmarks/ of a source "
              "checkout, which this installation does not have", file=sys.stderr)
        return 2
    bad = [n for n in args.names if n not in BENCHMARKS]
    if bad:
        print(f"coinche-rl: error: unknown benchmark {bad[0]!r}: expected "
              f"{', '.join(BENCHMARKS)}", file=sys.stderr)
        return 2
    names = args.names or [n for n, f in BENCHMARKS.items() if (folder / f).exists()]
    status = 0
    for name in names:
        script = folder / BENCHMARKS[name]
        if not script.exists():
            print(f"coinche-rl: error: {script} does not exist", file=sys.stderr)
            return 2
        cmd = [sys.executable, str(script)] + ([] if args.full else ["--quick"])
        print("$ " + " ".join(cmd), flush=True)
        if args.dry_run:
            continue
        rc = subprocess.call(cmd)
        if rc:
            print(f"coinche-rl: error: {script.name} exited with status {rc}", file=sys.stderr)
            status = 1
    return status


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


def _add_tournament(sub) -> None:
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
                        "every split of every four players into partnerships; knockout: the "
                        "vipbelote individual knockout (seed 004)")
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
    t.add_argument("--preset", "--rules", dest="preset", type=_rules_arg, default=None,
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
    t.set_defaults(func=cmd_tournament)


def cmd_train(args) -> int:
    """``coinche-rl train play|bid|belief ...`` / ``coinche-rl train export ...`` (torch
    needed)."""
    problem = _train_rules_problem(args.rest) if args.what != "export" else None
    if problem:
        print(f"coinche-rl: error: {problem}", file=sys.stderr)
        return 2
    try:
        import torch  # noqa: F401
        if importlib.util.find_spec("tyro") is None:    # the trainers' command lines
            raise ModuleNotFoundError("no tyro", name="tyro")
    except ModuleNotFoundError as e:
        print(f"coinche-rl: error: training needs torch and tyro, the nn extra ({e.name} is "
              "missing): pip install -e '.[nn]' in the coinche-rl clone, or make venv (the CPU "
              "build: pip install torch==2.13.0 tyro)", file=sys.stderr)
        return 2
    from .train import belief, bid, play          # here: the command line starts without them
    if args.what in ("play", "bid", "belief"):
        trainer = {"play": play, "bid": bid, "belief": belief}[args.what]
        try:
            targs = trainer.parse_args(args.rest)
            res = trainer.train(targs)
        except (ValueError, FileExistsError, FileNotFoundError) as e:
            print(f"coinche-rl: error: {e}", file=sys.stderr)
            return 2
        print(json.dumps({k: v for k, v in res.items() if k != "history"}))
        if res["interrupted"]:
            print(f"interrupted: checkpoint saved in {targs.out}; the same command with "
                  f"--resume continues", file=sys.stderr)
            return 130
        return 0
    ep = argparse.ArgumentParser(prog="coinche-rl train export",
                                 description="write the torch-free weights of a run's checkpoint")
    ep.add_argument("run", help="the run folder (holds checkpoint.pt)")
    ep.add_argument("-o", "--output", required=True,
                    help="the weights file to write (.npz, in an existing folder)")
    ep.add_argument("--float32", action="store_true", help="float32 instead of float16")
    ea = ep.parse_args(args.rest)
    try:
        path = _export_run(ea.run, ea.output, ea.float32)
    except (ValueError, FileNotFoundError) as e:
        print(f"coinche-rl: error: {e}", file=sys.stderr)
        return 2
    print(f"weights written to {path}")
    return 0


def _train_rules_problem(rest: List[str]) -> Optional[str]:
    """Why the ``--rules`` of a ``train play|bid|belief`` command line cannot be trained, or
    None: a network is trained for a preset (its weights' manifest names it, and the
    agents check it), so overrides (``ffb:target=2000``), which the other commands
    take, are refused here with a message rather than as an unknown preset."""
    for i, word in enumerate(rest):
        if word == "--":
            break
        if word == "--rules" and i + 1 < len(rest):
            value = rest[i + 1]
        elif word.startswith("--rules="):
            value = word.split("=", 1)[1]
        else:
            continue
        if ":" in value or "=" in value:
            preset = value.split(":", 1)[0]
            return (f"train --rules {value}: a network is trained for a preset's rules, "
                    f"without overrides: give a preset name such as --rules {preset} "
                    f"(coinche-rl presets lists them)")
    return None


def _export_run(run: str, output: str, float32: bool) -> str:
    """Export a card-play, bidding or belief run, by the kind its checkpoint stores
    (:func:`coinche_rl.train.common.run_kind`, which tells the runs written before
    checkpoints stored it by what they hold)."""
    import torch
    from .train import belief, bid, common, play   # here: the command line starts without them
    common.check_output_path(output)               # before reading anything
    ckpt = os.path.join(run, "checkpoint.pt")
    if not os.path.isfile(ckpt):
        raise FileNotFoundError(f"no checkpoint.pt in {run!r}: not a training run folder")
    kind = common.run_kind(torch.load(ckpt, weights_only=True))
    trainer = {"play": play, "bid": bid, "belief": belief}[kind]
    return trainer.export_run(run, output, float32=float32)


# ------------------------------------------------------------------ play in the terminal
def cmd_play(args) -> int:
    """``coinche-rl play``: a person at one seat against agents (coinche_rl.terminal)."""
    problem = _output_problem(args.save, "--save")
    if problem is None and args.save and os.path.exists(args.save) \
            and not os.access(args.save, os.W_OK):
        problem = f"--save {args.save}: the file is not writable"
    if problem:
        print(f"coinche-rl: error: {problem}", file=sys.stderr)
        return 2
    try:
        if args.rules.family == "two":
            game = _two_player_game(args)
        else:
            game = TerminalGame(seat=args.seat, partner=args.partner or "heuristic",
                                opponents=args.opponents, rules=args.rules, seed=args.seed,
                                deals=args.deals, match=args.match, dealer=args.dealer,
                                target=args.target, save=args.save)
    except (AgentSpecError, PlaySetupError) as e:
        print(f"coinche-rl: error: {e}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        print("\ninterrupted before the first deal", file=sys.stderr)
        return 130
    try:
        return game.run().status
    except IllegalActionError as e:          # a bot chose an illegal action
        print(f"coinche-rl: error: {e}", file=sys.stderr)
        return 1


def _two_player_game(args):
    """The terminal game of belote for two players (coinche_rl.terminal_two): you against
    one bot, ``--opponent SPEC``; the four-player seats' options are refused in one line."""
    from .terminal_two import TwoPlayerTerminalGame      # lazy: the two-player agents
    what = f"belote for two players (rules {rules_label(args.rules)!r})"
    if args.partner is not None:
        raise PlaySetupError(f"--partner: {what} has no partner; --opponent SPEC names the bot")
    if len(args.opponents) != 1:
        raise PlaySetupError(f"--opponent: {what} has one opponent: give one agent spec, "
                             f"not {len(args.opponents)}")
    return TwoPlayerTerminalGame(player=args.seat, opponent=args.opponents[0], rules=args.rules,
                                 seed=args.seed, deals=args.deals, match=args.match,
                                 dealer=args.dealer, target=args.target, save=args.save)


def cmd_serve(args) -> int:
    """``coinche-rl serve``: the web page (coinche_rl.web), with the web extra."""
    from . import web                       # lazy: the web layer and its extra
    missing = web.missing_extra()
    if missing:
        print(f"coinche-rl: error: coinche-rl serve needs the web extra ({missing} is not "
              f"installed): {web.INSTALL_HINT}", file=sys.stderr)
        return 2
    for path in args.results:
        if not os.path.exists(path):
            print(f"coinche-rl: error: --results {path}: no such file or folder", file=sys.stderr)
            return 2
    if args.records and os.path.exists(args.records) and not os.path.isdir(args.records):
        print(f"coinche-rl: error: --records {args.records}: not a folder", file=sys.stderr)
        return 2
    try:
        web.serve(args.host, args.port, args.rules, records=args.records or None,
                  results=args.results, searches=args.searches, worlds=args.worlds)
    except KeyboardInterrupt:
        return 130
    except OSError as e:                    # the port is taken, say
        print(f"coinche-rl: error: cannot serve on {args.host}:{args.port}: {e}", file=sys.stderr)
        return 1
    return 0


def _add_serve(sub) -> None:
    sv = sub.add_parser(
        "serve", help="serve the web page: play the bots, replay and analyse records, browse "
                      "tournament results (needs the web extra)",
        description="Serve one web page (open the address it prints): play against agents, "
                    "replay and analyse records (double-dummy, PIMC and nn values of every "
                    "legal action), browse tournament results files. Needs the web extra: "
                    "pip install -e '.[web]' in the clone.")
    sv.add_argument("--host", default="127.0.0.1", help="address to listen on (default 127.0.0.1)")
    sv.add_argument("--port", type=int_range(1, 65535), default=8000, help="port (default 8000)")
    sv.add_argument("--rules", "--preset", dest="rules", type=_rules_arg, default=get_rules("ffb"),
                    help=RULES_HELP.format(default="ffb") + "; the rules a new game starts with")
    sv.add_argument("--records", default="coinche-rl-records", metavar="DIR",
                    help="folder where every game's record is saved and whose records (.json) "
                         "and results files (.jsonl) the page lists (default "
                         "coinche-rl-records; '' saves nothing)")
    sv.add_argument("--results", nargs="+", default=[], metavar="FILE",
                    help="tournament results files (coinche-rl tournament --out) or folders of "
                         "them to browse")
    sv.add_argument("--searches", type=int_range(1, 16), default=2,
                    help="searches (analyses, branches, deal pairs) running at once (default 2)")
    sv.add_argument("--worlds", type=int_range(1, 256), default=16,
                    help="PIMC worlds of an analysis unless the page asks otherwise (default 16)")
    sv.set_defaults(func=cmd_serve)


def _add_play(sub) -> None:
    pl = sub.add_parser(
        "play", help="play against the bots in the terminal (you take one seat)",
        description="Play Coinche in the terminal: you take one seat, agents (see coinche-rl "
                    "agents) the partner's and the opponents'. Answer with the number of a "
                    "choice or its text (80H, pass, coinche, JH; any case); quit or Ctrl-D "
                    "leaves (what was played is still saved with --save). With --rules "
                    "belote_a_deux or belote_decouverte: belote for two players, you against "
                    "one bot (--opponent SPEC; take, pass, nameH, exchange, no-exchange, JH).")
    pl.add_argument("--seat", type=seat_int, default=0,
                    help="your seat, 0..3 (default 0; team 0 = seats 0 and 2); belote for two "
                         "players: your player, 0 or 1")
    pl.add_argument("--partner", default=None, metavar="SPEC",
                    help="your partner's agent spec (default heuristic)")
    pl.add_argument("--opponents", "--opponent", nargs="+", default=["heuristic"], metavar="SPEC",
                    help="one agent spec for both opponents, or two: the seat after you "
                         "(right), then the seat before you (left) (default heuristic); belote "
                         "for two players: the one opponent's two-player agent spec")
    pl.add_argument("--rules", "--preset", dest="rules", type=_rules_arg, default=get_rules("ffb"),
                    help=RULES_HELP.format(default="ffb"))
    pl.add_argument("--seed", type=int_range(0), default=0,
                    help="seed of the deals, the first dealer and the bots (default 0)")
    how = pl.add_mutually_exclusive_group()
    how.add_argument("--deals", type=int_range(1), default=1,
                     help="deals to play, scored as a match (it ends earlier if a team reaches "
                          "the target; default 1)")
    how.add_argument("--match", action="store_true", help="play a whole match to the target")
    pl.add_argument("--target", type=int_range(1), help="match target (default: the preset's)")
    pl.add_argument("--dealer", type=seat_int,
                    help="the first dealer, 0..3 (0 or 1 for two players; default: drawn "
                         "from the seed)")
    pl.add_argument("--save", metavar="FILE",
                    help="save the game as a record (one deal: a deal record, else a match "
                         "record) that coinche-rl replay checks")
    pl.set_defaults(func=cmd_play)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="coinche-rl", description="coinche-rl: Coinche research toolkit")
    p.add_argument("--version", action="version", version=f"coinche-rl {__version__}")
    sub = p.add_subparsers(dest="command", required=True)
    d = sub.add_parser("demo", help="simulate random deals and print a summary table",
                       description="Simulate random deals in numba (random legal auctions "
                                   "and card play) and print a table of the contracts, how "
                                   "often they are made and the mean scores.")
    d.add_argument("--deals", type=positive_int, default=100_000,
                   help="deals to simulate (default 100000)")
    d.add_argument("--rules", type=_rules_arg, default=get_rules("ffb"),
                   help=RULES_HELP.format(default="ffb"))
    d.add_argument("--seed", type=nonnegative_int, default=0,
                   help="seed of the deals and the auctions (default 0)")
    d.add_argument("--pass-prob", type=probability, default=0.6,
                   help="probability that a seat passes in the auction, else it takes a "
                        "uniformly random legal bid (default 0.6)")
    d.set_defaults(func=cmd_demo)
    r = sub.add_parser("replay", help="replay a deal or match record, checking every action and score")
    r.add_argument("file", help="a deal or match record (JSON), or a tournament results file "
                                "(JSON lines, with --pair)")
    r.add_argument("--pair", type=nonnegative_int,
                   help="results file: the deal pair to replay (0, 1, ...)")
    r.add_argument("--run", help="results file: the run id, when it holds several")
    r.set_defaults(func=cmd_replay)
    for name, match in (("random-deal", False), ("random-match", True)):
        what = "match" if match else "deal"
        g = sub.add_parser(name, help=f"play a random {what} and write its record",
                           description=f"Play a random {what} (in the auction each seat passes "
                                       f"with probability 0.7, else takes a random legal "
                                       f"action; random legal cards) and print or write its "
                                       f"record, which coinche-rl replay checks.")
        g.add_argument("--seed", type=nonnegative_int, default=0,
                       help=f"seed of the {what} and of the random play (default 0)")
        g.add_argument("--rules", type=_rules_arg, default=get_rules("ffb"),
                       help=RULES_HELP.format(default="ffb"))
        g.add_argument("-o", "--output", metavar="FILE",
                       help="write the record (JSON) to FILE (default: print it)")
        g.set_defaults(func=lambda a, m=match: _random_game(a, m))
    pr = sub.add_parser("presets", help="list rule presets and their parameters")
    pr.add_argument("--markdown", action="store_true", help="print the table as markdown")
    pr.set_defaults(func=cmd_presets)
    _add_tournament(sub)
    _add_evaluate(sub)
    _add_play(sub)
    _add_serve(sub)
    a = sub.add_parser("agents", help="list the registered agents and their parameters")
    a.set_defaults(func=cmd_agents)
    w = sub.add_parser("warmup", help="compile every numba kernel (or load it from the cache)")
    w.add_argument("--jobs", type=positive_int,
                   help="processes compiling at once on a fresh cache (default: every core)")
    w.set_defaults(func=cmd_warmup)
    tr = sub.add_parser("train", help="train a network (play, bid, belief) or export a run's "
                                      "weights (export); needs the nn extra (torch)")
    tr.add_argument("what", choices=("play", "bid", "belief", "export"),
                    help="play: the card-play trainer, bid: the bidding trainer, belief: the "
                         "card-inference net for PIMC (train play --help etc. list their "
                         "options); export RUN -o FILE: a run's torch-free weights")
    tr.add_argument("rest", nargs=argparse.REMAINDER, metavar="...",
                    help="the trainer's options (train play --help, train bid --help, train "
                         "belief --help), or for export: RUN -o FILE [--float32]")
    tr.set_defaults(func=cmd_train)
    b = sub.add_parser("bench", help="run the benchmark scripts of benchmarks/ (--quick)")
    b.add_argument("names", nargs="*", metavar="NAME",
                   help=f"which: {', '.join(BENCHMARKS)} (default: all)")
    b.add_argument("--full", action="store_true", help="full size instead of --quick")
    b.add_argument("--dry-run", action="store_true", help="print the commands only")
    b.set_defaults(func=cmd_bench)
    return p


def _cwd_on_sys_path() -> None:
    """Put the current directory first on ``sys.path``, as ``python -m`` does (the
    console script has only its own folder there), so that an agent given by its import
    path (``--agents my_agents:Greedy``) is found in the directory the command runs from,
    by this process and by the pool's and a local Ray's workers."""
    cwd = os.getcwd()
    if not any(p in ("", cwd) for p in sys.path):
        sys.path.insert(0, cwd)


def _engine_notice(command: str, family: str = "coinche") -> None:
    """Say when the engine kernels of a light command (demo, replay, random-deal,
    random-match) are about to compile (called once its input is checked): on a fresh
    numba cache, seconds of silence before anything is printed. The heavier commands
    (tournament, evaluate, play, the trainers) say so for their own kernels."""
    from . import engine as E
    from .engine import two as E2
    if family == "two":
        kernels = (E2.two_apply, E2.two_is_legal) if command in ("replay", "random-deal") else None
    else:
        kernels = {"demo": (E.simulate_random_deals,),
                   "replay": (E.apply_action, E.legal_actions_into),
                   "random-deal": (E.apply_action, E.legal_actions_into)}.get(command)
    if kernels:
        compile_notice("the engine", kernels, "about 10-30 s")


def _subparser(parser: argparse.ArgumentParser, name: str) -> argparse.ArgumentParser:
    """The parser of subcommand ``name`` (its ``error`` prints that subcommand's usage)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction) and name in action.choices:
            return action.choices[name]
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    # numeric options are range-checked by their types (int_range, probability); the
    # checks that involve several options are here, as usage errors of the subcommand
    if args.command == "tournament":
        args.preset_given = args.preset is not None
        args.deals_given = args.deals is not None
        _tournament_deals(args)
        if args.preset is None:
            args.preset = get_rules("ffb")
        if args.address and args.backend != "ray":
            _subparser(parser, "tournament").error(
                f"--address is for --backend ray, not --backend {args.backend}")
    if args.command in ("tournament", "replay"):
        _cwd_on_sys_path()
    try:
        return args.func(args)
    except (InvalidRulesError, UnknownPresetError) as e:
        print(f"coinche-rl: error: {e}", file=sys.stderr)
        return 2
    except BrokenPipeError:
        # the reader went away (`coinche-rl presets | head`): stop quietly; Python would
        # otherwise complain again when it flushes stdout at exit
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return 1


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
