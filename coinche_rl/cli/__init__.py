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
    coinche-rl replay RESULTS.jsonl --pair I [--run ID | --match X:Y]  # one deal pair again
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
players on the same path as the four-player game (:mod:`coinche_rl.arena`: the same
options, estimate, progress, results file and replay): duplicate matchups or match
pairs (``--match``, ``--target``) of the two-player agents, or the knockout at tables of
two; what the game has not (partners: ``--format rotating``; an auction to skip:
``--frozen-contract``) is refused in one line before anything is prepared. ``evaluate
--rules belote_a_deux`` values the prise's options through the same evaluation
(``--auction``, or ``--prise``: the prise so far).

``tournament`` with no option plays ``random`` against ``heuristic`` and every other
registered agent that can play the preset (a duplicate round robin on a built-in deal
set, :mod:`coinche_rl.arena`), with a progress bar and the results table. With ``--out``
it appends one JSON line per finished deal pair and resumes from what the file holds.

One module of this package per subcommand (:mod:`.demo`, :mod:`.replay`,
:mod:`.random_game`, :mod:`.presets`, :mod:`.tournament`, :mod:`.evaluate`, :mod:`.play`,
:mod:`.serve`, :mod:`.agents`, :mod:`.warmup`, :mod:`.train`, :mod:`.bench`), each with its
``add_parser(sub)`` and its ``cmd_*``; :mod:`.common` holds the option types they share.
Every subcommand is one path for every family: what differs is read from the family
description (:class:`coinche_rl.engine.family.Family`) or the game API's classes
(:func:`coinche_rl.records.game_classes`), in the layers below. ``coinche-rl warmup`` finds the
kernel modules by scanning the package's sources (:mod:`.warmup`).

Errors print ``coinche-rl: error: ...`` on stderr and exit non-zero. Usage errors (an
unknown option, a value out of its range: every count is at least 1, every seed at least
0, a probability in [0, 1], a seat 0..3) print the subcommand's usage and ``coinche-rl
SUBCOMMAND: error: argument --OPTION: must be at least 1, got 0`` and exit 2.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import List, Optional

# The layers below the command line (see tests/test_layers.py) are imported by the
# subcommands' modules; the arena (which loads every agent's kernels module, the neural
# ones with the envs kernels and Gymnasium: about a quarter of a second), the hand
# evaluation (the solver) and the trainers (torch) only inside the commands that use
# them, so that `coinche-rl --help` and the light subcommands do not pay for them.
from .. import __version__
from ..rules import InvalidRulesError, UnknownPresetError
from . import (agents, bench, demo, evaluate, play, presets, random_game, replay, serve,
               tournament, train, warmup)

#: the subcommands' modules, in the order of ``coinche-rl --help``
COMMANDS = (demo, replay, random_game, presets, tournament, evaluate, play, serve, agents,
            warmup, train, bench)


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="coinche-rl", description="coinche-rl: Coinche research toolkit")
    p.add_argument("--version", action="version", version=f"coinche-rl {__version__}")
    sub = p.add_subparsers(dest="command", required=True)
    for module in COMMANDS:
        module.add_parser(sub)
    return p


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
    # checks that involve several options are the subcommand's ``prepare``, whose errors
    # are usage errors of the subcommand
    prepare = getattr(args, "prepare", None)
    if prepare is not None:
        prepare(args, _subparser(parser, args.command).error)
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
