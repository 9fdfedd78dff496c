"""What the subcommands share: the range-checked option types (argparse calls them on the
option's text; an ArgumentTypeError becomes the usage error ``coinche-rl SUBCOMMAND:
error: argument --deals: must be at least 1, got 0``, exit 2), the ``--rules`` type and
help, and the checks and notices of several commands."""

from __future__ import annotations

import argparse
import os
import sys
from typing import Optional

from .._numba_cache import compile_notice
from ..rules import N_SEATS, InvalidRulesError, UnknownPresetError, parse_rules


def rules_arg(text: str):
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


def output_problem(path, option: str):
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


def engine_notice(command: str) -> None:
    """Say when the engine kernels of a light command (demo, replay, random-deal,
    random-match) are about to compile (called once its input is checked): on a fresh
    numba cache, seconds of silence before anything is printed. The heavier commands
    (tournament, evaluate, play, the trainers) say so for their own kernels."""
    from .. import engine as E
    game = (E.game_step, E.game_legal_mask)   # what the game API's deals of every family call
    kernels = {"demo": (E.simulate_random_deals,), "replay": game,
               "random-deal": game}.get(command)
    if kernels:
        compile_notice("the engine", kernels, "about 10-30 s")


def cwd_on_sys_path() -> None:
    """Put the current directory first on ``sys.path``, as ``python -m`` does (the
    console script has only its own folder there), so that an agent given by its import
    path (``--agents my_agents:Greedy``) is found in the directory the command runs from,
    by this process and by the pool's and a local Ray's workers."""
    cwd = os.getcwd()
    if not any(p in ("", cwd) for p in sys.path):
        sys.path.insert(0, cwd)
