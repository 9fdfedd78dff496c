"""``coinche-rl evaluate``: the Monte Carlo hand evaluation of
:mod:`coinche_rl.agents.evaluation`, one path for every family (belote for two players:
the prise's options)."""

from __future__ import annotations

import json
import os
import sys

from ..engine.family import family_of
from ..rules import get_rules
from .common import RULES_HELP, int_range, nonnegative_int, positive_int, rules_arg, seat_int


def _seat_cards(text: str, option: str):
    """``"2:AS KS"`` -> ``(2, "AS KS")`` (a seat, a colon, its cards)."""
    seat, sep, cards = text.partition(":")
    if not sep or seat.strip() not in ("0", "1", "2", "3") or not cards.strip():
        raise ValueError(f"{option} {text!r}: expected SEAT:CARDS with a seat 0..3, e.g. "
                         f"{option} '2:AS KS'")
    return int(seat), cards.replace(",", " ")


def cmd_evaluate(args) -> int:
    """One path for every family: :func:`coinche_rl.agents.evaluation.evaluate_hand` takes
    the rules of each (belote for two players: its prise's options, ``--auction`` the prise
    so far) and refuses in one line an option the game has not."""
    from ..agents.evaluation import evaluate_hand, prepare_evaluation   # lazy: see the top
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
    n_players = family_of(args.preset).n_players
    # default: the seat before --seat deals, so that --seat speaks first
    dealer = (args.seat - 1) % n_players if args.dealer is None else args.dealer
    prepare_evaluation(args.preset, args.method)   # on a fresh cache: the compile notice
    progress = not args.no_progress and sys.stderr.isatty()
    ev = _evaluation(lambda: evaluate_hand(
        args.preset, args.seat, args.hand, dealer, samples=args.samples, seed=args.seed,
        strains=args.strains, method=args.method, holds=holds or None, lacks=lacks or None,
        auction=args.auction or (), progress=progress, coinche=args.coinche,
        retourne=args.retourne, min_suit_length=args.min_suit_length, threads=threads,
        bid_weights=args.bid_weights or "", nn_player=args.nn_player,
        other_up=args.other_up), args.json)
    if isinstance(ev, int):
        return ev
    # the network's estimate plays worlds where it is a card-play network (nn_points)
    net_play = ev.nn_points is not None
    if args.method == "nn" and net_play:
        print("coinche-rl evaluate: Monte Carlo evaluation, method nn (the card-play network "
              "plays the cards of every world, a shipped prise network the rest of the prise)")
    elif args.method == "nn":
        print("coinche-rl evaluate: the bidding network's evaluation (no worlds: learned from "
              "real deals under real card play)")
    else:
        print(f"coinche-rl evaluate: Monte Carlo evaluation, method {args.method}")
    print(ev.table())
    ns, nl = len(ev.strains), len(ev.levels)
    n_contracts = ns * nl
    if "nn" in ev.seconds and not net_play:
        print(f"bidding network: {n_contracts} contracts in {ev.seconds['nn'] * 1e3:.2f} ms")
    for m, label in (("dd", "double-dummy"), ("heuristic", "heuristic play"),
                     ("nn", "network play")):
        if m in ev.seconds and (m != "nn" or net_play):
            sec = ev.seconds[m]
            print(f"{label}: {ev.samples} worlds x {ns} strain{'s' if ns > 1 else ''} x {nl} "
                  f"level{'s' if nl > 1 else ''} ({ev.samples * n_contracts} contracts) in "
                  f"{sec:.2f} s ({ev.samples / max(sec, 1e-9):,.1f} worlds/s, {ev.threads} "
                  f"thread{'s' if ev.threads > 1 else ''})")
    return 0


def _evaluation(run, as_json: bool):
    """``run()``'s evaluation, or the exit status when it is done: an EvaluationError in
    one line (2), an interruption (130), the JSON printed (0)."""
    from ..agents.evaluation import EvaluationError
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


def add_parser(sub) -> None:
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
    e.add_argument("--seat", type=seat_int, default=0,
                   help="the seat holding the hand, 0..3; a player 0 or 1 of belote for two "
                        "(default 0)")
    e.add_argument("--dealer", type=seat_int, default=None,
                   help="the dealer, 0..3 (0 or 1 for two players; default: the seat before "
                        "--seat, which speaks first: 3 for seat 0)")
    e.add_argument("--samples", type=positive_int, default=500,
                   help="random deals of the other hands (default 500)")
    e.add_argument("--preset", "--rules", dest="preset", type=rules_arg, default=get_rules("ffb"),
                   help=RULES_HELP.format(default="ffb"))
    e.add_argument("--seed", type=nonnegative_int, default=0, help="seed of the deals (default 0)")
    e.add_argument("--method", choices=("both", "dd", "heuristic", "nn"), default="both",
                   help="dd: double-dummy play; heuristic: the heuristic bot at every seat; "
                        "both (default); nn: the bidding network (no worlds, microseconds; "
                        "belote for two players: the worlds' cards played by the card-play "
                        "network); belote for two players: heuristic (= both) or nn")
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
    e.add_argument("--auction", "--prise", dest="auction",
                   help="the auction so far, from the seat after the dealer, e.g. '80H pass' "
                        "(belote for two players: the prise so far, e.g. 'pass')")
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
    e.add_argument("--threads", type=positive_int, help="threads (default: every core)")
    e.add_argument("--json", action="store_true", help="print the results as JSON")
    e.add_argument("--no-progress", action="store_true", help="no progress bar")
    e.set_defaults(func=cmd_evaluate)
