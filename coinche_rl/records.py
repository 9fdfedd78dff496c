"""Game records: a documented JSON format for a deal and a match, save / load / replay.

Deal record (``"format": "coinche-rl/deal"``, version 1)::

    {
      "format": "coinche-rl/deal", "version": 1,
      "rules": {"preset": "ffb", "overrides": {"target": 2000}},
      "dealer": 3,
      "hands": ["KS QS AH TH JH 9H 8D 7D", ...],      # as dealt, seat 0..3
      "contract_given": null,                          # or {"value", "strain", "coinche", "taker"}
                                                       #   when the auction was skipped
      "auction": ["pass", "100H", "pass", ...],        # from the seat after the dealer
      "plays": ["JH", "7H", ...],                      # cards (and declare / belote choices)
      "contract": {"value": 100, "strain": "H", "capot": false, "coinche": 0, "taker": 0},
      "declarations": {"seats": [{"seat": 0, "points": 20, "cards": "AH KH QH", "declared": true}, ...],
                       "winner": 0},                   # team scoring them, null for nobody
      "belote": [20, 0],
      "result": {"void": false, "made": true, "multiplier": 1, "generale": null,
                 "teams": [{"card_points": 98, "dix_de_der": 10, "belote": 20, "declarations": 0,
                            "total": 118, "raw_score": 218, "score": 220}, {...}],
                 "scores": [220, 60]}
    }

Match record (``"format": "coinche-rl/match"``): ``rules``, ``first_dealer``, ``deals``
(deal records without their own ``rules``), ``scores`` (match totals) and ``winner``.

One format for every family, written and replayed by one path: every deal record holds
``format``, ``version``, ``rules``, ``dealer``, the list of bidding actions named after
the family's bidding phase (:class:`~coinche_rl.engine.family.Family` ``phases[0]``:
``auction``, or ``prise`` for belote for two players, its exchange choice included) and
``plays``, then the figures replay checks (``contract``, ``declarations``, ``belote``,
``result``) in the game's own terms; the cards are the game's: the hands as dealt (and
the deck in the classic family), or the deck alone in belote for two players, whose
hands, stacks and retourne follow from it::

    {
      "format": "coinche-rl/deal", "version": 1,
      "rules": {"preset": "belote_a_deux", "overrides": {}},
      "dealer": 1,
      "deck": "QH 8S ...",                             # the 32 cards in dealing order
      "prise": ["take", "no-exchange"],                # from the non-dealer
      "plays": ["AS", "7S", ...],
      "contract": {"trump": "H", "taker": 0, "exchanged": false},
      "declarations": {"points": [20, 0], "winner": 0},
      "belote": [20, 0],
      "result": {"void": false, "made": true, "capot": null, "card_points": [98, 64],
                 "litige": false, "litige_points": 0, "scores": [138, 64]}
    }

and a match record's deals alternate dealers from ``first_dealer``.

Replaying a record applies every action through the engine and compares every stored
derived field (contract, declarations, belote, result, match scores and winner) with what
the engine computes. Any difference or illegal action raises :class:`RecordError`
naming the first bad field, and so does a stored field the replay cannot reach (a deal
record whose plays were cut short but which still carries its result).
"""

from __future__ import annotations

import json
from typing import Any, Callable, Dict, NamedTuple, Optional, Union

from . import actions as A
from .cards import InvalidNotationError, format_card, format_hand, parse_hand
from .engine.family import family_of
from .files import atomic_write_text
from .game import BaseDeal, Deal, IllegalActionError, Match, score_into_match
from .two_player import TwoPlayerDeal, TwoPlayerMatch
from .rules import (N_SEATS, PRESETS, STRAIN_NAMES, InvalidRulesError, RuleSet, UnknownPresetError,
                    get_rules)

__all__ = ["RecordError", "game_classes", "deal_to_record", "match_to_record", "replay_deal",
           "replay_match", "replay", "save_record", "load_record", "DEAL_FORMAT", "MATCH_FORMAT", "VERSION"]

DEAL_FORMAT = "coinche-rl/deal"
MATCH_FORMAT = "coinche-rl/match"
VERSION = 1


#: each family's game API: ``(deal class, match class)`` (:func:`game_classes`)
_GAME_CLASSES = {"coinche": (Deal, Match), "classic": (Deal, Match),
                 "two": (TwoPlayerDeal, TwoPlayerMatch)}


def game_classes(rules) -> tuple:
    """``(deal class, match class)`` of the game API for ``rules``' family (a rule set, a
    preset name or a rule vector): the one place the layers above choose them (the
    match class's ``SIDE`` names who wins a match: a team, a player).

    >>> [c.__name__ for c in game_classes("belote_a_deux")], game_classes("ffb")[1].SIDE
    (['TwoPlayerDeal', 'TwoPlayerMatch'], 'team')
    """
    return _GAME_CLASSES[family_of(rules).name]


class RecordError(ValueError):
    """A malformed, illegal or inconsistent record; the message names the first bad field."""


# ------------------------------------------------------------------------ write
def rules_record(rules: RuleSet) -> Dict[str, Any]:
    """``{"preset", "overrides"}``; a rule set whose name is not a preset is stored as
    ``ffb`` plus its differences, its name among the overrides. The form of the rules in
    game records and in the arena's results files (:func:`rules_from_record` reads it).

    >>> rec = rules_record(get_rules("ffb", target=2000))
    >>> rec
    {'preset': 'ffb', 'overrides': {'target': 2000}}
    >>> rules_from_record(rec) == get_rules("ffb", target=2000)
    True
    """
    if rules.name in PRESETS:
        return {"preset": rules.name, "overrides": rules.overrides()}
    return {"preset": "ffb", "overrides": {"name": rules.name, **rules.overrides()}}


def rules_from_record(obj: Dict[str, Any]) -> RuleSet:
    """The rule set of a :func:`rules_record` (no checks of its own: a bad preset or
    override raises what :func:`~coinche_rl.rules.get_rules` raises)."""
    return get_rules(obj["preset"], **obj.get("overrides", {}))


def _contract_record(c) -> Optional[Dict[str, Any]]:
    if c is None:
        return None
    return {"value": c.value, "strain": STRAIN_NAMES[c.strain], "capot": c.capot,
            "coinche": c.coinche, "taker": c.taker}


#: the derived fields of a deal record that only some phases have (``_derived``)
DERIVED_FIELDS = ("contract", "declarations", "belote", "result")


def _derived(deal: Deal) -> Dict[str, Any]:
    """The fields of a record that replay recomputes and checks."""
    out: Dict[str, Any] = {}
    if deal.deck is not None:          # classic family: the hands follow from the deck
        out["hands"] = [format_hand(h) for h in deal.initial_hands]
        out["retourne"] = format_card(deal.retourne)
    out["contract"] = _contract_record(deal.contract)
    if deal.phase != "auction" and not deal.is_void:
        seats = []
        for s in range(N_SEATS):
            pts, cards = deal.seat_declarations(s)
            seats.append({"seat": s, "points": pts, "cards": format_hand(cards),
                          "declared": deal.declared[s]})
        out["declarations"] = {"seats": seats, "winner": deal.declaration_winner}
        out["belote"] = list(deal.team_belote)
    res = deal.result
    if res is not None:
        out["result"] = {
            "void": res.void, "made": res.made, "multiplier": res.multiplier,
            "generale": res.generale,
            "teams": [dict(card_points=t.card_points, dix_de_der=t.dix_de_der, belote=t.belote,
                           declarations=t.declarations, total=t.total, raw_score=t.raw_score,
                           score=t.score) for t in res.teams],
            "scores": list(res.scores)}
        if res.litige:
            out["result"]["litige_points"] = res.litige_points
    return out


def _is_bidding(a: int) -> bool:
    """An action of the bidding phase of every family: the auction's (pass, bids, coinche,
    surcoinche; the classic prise's take and name) and the two-player prise's and
    exchange's; never a card, a declaration or a belote choice."""
    return a < A.CARD_BASE or A.TAKE <= a < A.DECLARE or a >= A.EXCHANGE


def _bidding(rules: RuleSet) -> str:
    """The name of a record's list of bidding actions: the family's bidding phase
    (``auction``; ``prise`` with two players, whose exchange choice it holds too)."""
    return family_of(rules).phases[0]


def deal_to_record(deal: Union[Deal, TwoPlayerDeal], *, include_rules: bool = True) -> Dict[str, Any]:
    """The JSON-ready record of a deal (finished or not), of every family."""
    game = _GAMES[family_of(deal.rules).name]
    hist = deal.history
    n_bidding = next((i for i, a in enumerate(hist) if not _is_bidding(a)), len(hist))
    rec: Dict[str, Any] = {"format": DEAL_FORMAT, "version": VERSION}
    if include_rules:
        rec["rules"] = rules_record(deal.rules)
    rec.update(game.cards(deal))
    rec[_bidding(deal.rules)] = [A.action_to_str(a) for a in hist[:n_bidding]]
    rec["plays"] = [A.action_to_str(a) for a in hist[n_bidding:]]
    rec.update(game.derived(deal))
    return rec


def _four_cards(deal: Deal) -> Dict[str, Any]:
    """The four-player game's cards: the deck (classic family), the dealer, the hands as
    dealt, and the contract given when the auction was skipped."""
    given = None
    if deal.phase != "auction" and not deal.auction and not deal.is_void:
        c = deal.contract
        given = {"value": c.value, "strain": STRAIN_NAMES[c.strain], "coinche": c.coinche,
                 "taker": c.taker}
    out: Dict[str, Any] = {}
    if deal.deck is not None:
        out["deck"] = " ".join(format_card(c) for c in deal.deck)
    out.update({"dealer": deal.dealer, "hands": [format_hand(h) for h in deal.initial_hands],
                "contract_given": given})
    return out


def _two_cards(deal: TwoPlayerDeal) -> Dict[str, Any]:
    """Belote for two players' cards: the dealer and the deck in dealing order (the
    hands, the stacks and the retourne follow from it)."""
    return {"dealer": deal.dealer, "deck": " ".join(format_card(c) for c in deal.deck)}


def _two_derived(deal: TwoPlayerDeal) -> Dict[str, Any]:
    """The fields of a two-player record that replay recomputes and checks."""
    out: Dict[str, Any] = {}
    if deal.taker is not None:
        out["contract"] = {"trump": STRAIN_NAMES[deal.trump], "taker": deal.taker,
                           "exchanged": deal.exchanged}
    if deal.declaration_winner is not None or deal.trick_number > 0 or deal.is_terminal:
        if not deal.is_void:
            out["declarations"] = {"points": [p for p, _ in deal.declarations],
                                   "winner": deal.declaration_winner}
    res = deal.result
    if res is not None:
        if not res.void:
            out["belote"] = list(res.belote)
        out["result"] = {"void": res.void, "made": res.made, "capot": res.capot,
                         "card_points": list(res.card_points), "litige": res.litige,
                         "litige_points": res.litige_points, "scores": list(res.scores)}
    return out


def match_to_record(match: Union[Match, TwoPlayerMatch]) -> Dict[str, Any]:
    deals = list(match.deals)
    if not match.is_terminal and match.deal.history:
        deals.append(match.deal)
    return {"format": MATCH_FORMAT, "version": VERSION, "rules": rules_record(match.rules),
            "first_dealer": match.first_dealer,
            "deals": [deal_to_record(d, include_rules=False) for d in deals],
            "scores": list(match.scores), "pot": match.pot, "winner": match.winner}


def save_record(record_or_game, path: str) -> None:
    """Write a record (or a Deal / Match, converted) as JSON, atomically
    (:func:`coinche_rl.files.atomic_write`: the previous file or the new one, never half
    of one)."""
    rec = record_or_game
    if isinstance(rec, BaseDeal):
        rec = deal_to_record(rec)
    elif isinstance(rec, Match):
        rec = match_to_record(rec)
    atomic_write_text(path, json.dumps(rec, indent=1, ensure_ascii=False) + "\n")


def load_record(path: str) -> Dict[str, Any]:
    """Read a JSON record. :raises RecordError: if the file is not valid JSON."""
    try:
        with open(path, encoding="utf-8") as f:
            rec = json.load(f)
    except json.JSONDecodeError as e:
        raise RecordError(f"{path}: not valid JSON: {e}") from None
    except UnicodeDecodeError as e:
        raise RecordError(f"{path}: not UTF-8 text (byte {e.start}): a record is a JSON file") from None
    except OSError as e:
        raise RecordError(f"{path}: cannot read: {e.strerror}") from None
    if not isinstance(rec, dict):
        raise RecordError(f"{path}: a record must be a JSON object, not {type(rec).__name__}")
    return rec


# ----------------------------------------------------------------------- replay
def _need(rec: Dict[str, Any], key: str, typ, where: str):
    if key not in rec:
        raise RecordError(f"{where}{key}: missing field")
    v = rec[key]
    if not isinstance(v, typ) or (typ is int and isinstance(v, bool)):
        tn = typ.__name__ if isinstance(typ, type) else "/".join(t.__name__ for t in typ)
        raise RecordError(f"{where}{key}: expected {tn}, got {v!r}")
    return v


def _rules_from(rec: Dict[str, Any], where: str) -> RuleSet:
    r = _need(rec, "rules", dict, where)
    preset = _need(r, "preset", str, where + "rules.")
    overrides = r.get("overrides", {})
    if not isinstance(overrides, dict):
        raise RecordError(f"{where}rules.overrides: expected an object, got {overrides!r}")
    try:
        return rules_from_record({"preset": preset, "overrides": overrides})
    except (UnknownPresetError, InvalidRulesError) as e:
        raise RecordError(f"{where}rules: {e}") from None


def _compare(stored: Any, computed: Any, where: str) -> None:
    if isinstance(computed, dict):
        if not isinstance(stored, dict):
            raise RecordError(f"{where}: expected an object, got {stored!r}")
        for k, v in computed.items():
            if k not in stored:
                raise RecordError(f"{where}.{k}: missing field (replay gives {v!r})")
            _compare(stored[k], v, f"{where}.{k}")
    elif isinstance(computed, list):
        if not isinstance(stored, list) or len(stored) != len(computed):
            raise RecordError(f"{where}: stored {stored!r}, replay gives {computed!r}")
        for i, (s, c) in enumerate(zip(stored, computed)):
            _compare(s, c, f"{where}[{i}]")
    elif stored != computed or type(stored) is not type(computed) and not (
            isinstance(stored, (int, float)) and isinstance(computed, int) and not isinstance(stored, bool)):
        raise RecordError(f"{where}: stored {stored!r}, replay gives {computed!r}")


def replay_deal(rec: Dict[str, Any], rules: Optional[RuleSet] = None, *, where: str = "",
                check: bool = True) -> BaseDeal:
    """Rebuild a deal of any family from its record, checking every action and every
    stored result.

    :raises RecordError: naming the first malformed, illegal or inconsistent field.
    """
    if not isinstance(rec, dict):
        raise RecordError(f"{where or 'record'}: expected an object, got {type(rec).__name__}")
    if rules is None:
        fmt = rec.get("format")
        if fmt != DEAL_FORMAT:
            raise RecordError(f"{where}format: expected {DEAL_FORMAT!r}, got {fmt!r}")
        if rec.get("version") != VERSION:
            raise RecordError(f"{where}version: expected {VERSION}, got {rec.get('version')!r}")
        rules = _rules_from(rec, where)
    dealer = _need(rec, "dealer", int, where)
    n = family_of(rules).n_players
    if not 0 <= dealer < n:
        seats = "a player 0 or 1" if n == 2 else f"a seat 0..{n - 1}"
        raise RecordError(f"{where}dealer: expected {seats}, got {dealer!r}")
    game = _GAMES[family_of(rules).name]
    deal = game.start(rec, rules, dealer, where)
    if game.given:
        _give_contract(deal, rec, where)
    bidding = _bidding(rules)
    _apply_lists(deal, rec, where, bidding, lambda d: d.phase not in ("play", "done"))
    if check:
        n_bid = next((i for i, a in enumerate(deal.history) if not _is_bidding(a)),
                     len(deal.history))
        n = len(deal.plays)
        _check_derived(rec, deal, game.derived(deal), where, bidding,
                       f"{n_bid} {bidding} actions and {n} card{'s' if n != 1 else ''}")
    return deal


def _from_hands(rec: Dict[str, Any], rules: RuleSet, dealer: int, where: str) -> Deal:
    """The deal a record starts from its hands (the coinche family)."""
    hands = _need(rec, "hands", list, where)
    if len(hands) != N_SEATS or not all(isinstance(h, str) for h in hands):
        raise RecordError(f"{where}hands: expected {N_SEATS} hand strings, got {hands!r}")
    masks = []
    for seat, h in enumerate(hands):
        try:
            masks.append(parse_hand(h))
        except InvalidNotationError as e:
            raise RecordError(f"{where}hands[{seat}]: {e}") from None
    try:
        return Deal(rules, hands=masks, dealer=dealer)
    except ValueError as e:
        raise RecordError(f"{where}hands: {e}") from None


def _from_deck(rec: Dict[str, Any], rules: RuleSet, dealer: int, where: str) -> BaseDeal:
    """The deal a record starts from its deck, in dealing order (the classic family,
    belote for two players): the family's deal class deals it."""
    deck = _need(rec, "deck", str, where)
    try:
        return game_classes(rules)[0](rules, deck=deck, dealer=dealer)
    except ValueError as e:
        raise RecordError(f"{where}deck: {e}") from None


def _give_contract(deal: Deal, rec: Dict[str, Any], where: str) -> None:
    """The contract given to a four-player deal whose auction was skipped."""
    given = rec.get("contract_given")
    if given is None:
        return
    if not isinstance(given, dict):
        raise RecordError(f"{where}contract_given: expected an object or null, got {given!r}")
    try:
        strain = given["strain"]
        if not isinstance(strain, str):
            raise ValueError(f"strain: expected its text (S H D C NT AT), got {strain!r}")
        deal.with_contract(int(given["value"]), strain, taker=int(given["taker"]),
                           coinche=int(given.get("coinche", 0)))
    except (KeyError, TypeError, ValueError) as e:
        raise RecordError(f"{where}contract_given: {e}") from None


class _GameRecord(NamedTuple):
    """What a deal record of one game holds beside the fields of every family (format,
    version, rules, the bidding list named after the family's bidding phase, plays):
    its cards as written (``cards(deal)``), the fields replay recomputes and checks
    (``derived(deal)``), how its deal starts (``start(rec, rules, dealer, where)``: from
    the hands or from the deck) and whether a contract may be given (``given``: the
    four-player game's skipped auction)."""
    cards: Callable
    derived: Callable
    start: Callable
    given: bool


#: each family's record terms (the one table: the writer and the replay are shared)
_GAMES = {"coinche": _GameRecord(_four_cards, _derived, _from_hands, True),
          "classic": _GameRecord(_four_cards, _derived, _from_deck, True),
          "two": _GameRecord(_two_cards, _two_derived, _from_deck, False)}


def _apply_lists(deal, rec: Dict[str, Any], where: str, first: str, in_first) -> None:
    """Apply the record's action lists ``first`` (the auction, or the two-player prise)
    then ``plays`` to ``deal``; ``in_first(deal)``: the deal is still in that phase. A
    list that runs past its phase or stops before its end is named."""
    for key in (first, "plays"):
        seq = _need(rec, key, list, where)
        for i, text in enumerate(seq):
            field = f"{where}{key}[{i}]"
            if not isinstance(text, str):
                raise RecordError(f"{field}: expected an action string, got {text!r}")
            if key == first and not in_first(deal):
                raise RecordError(f"{field}: {text!r} after the end of the {first}")
            if key == "plays" and in_first(deal):
                raise RecordError(f"{field}: {text!r} before the end of the {first} "
                                  f"(the {first} list stops too early)")
            try:
                deal.apply(text)
            except (InvalidNotationError, IllegalActionError) as e:
                raise RecordError(f"{field}: {e}") from None


def _check_derived(rec: Dict[str, Any], deal, computed: Dict[str, Any], where: str,
                   first: str, reached: str) -> None:
    """Every figure the replay computes equals the stored one (a finished deal stores
    them all), and every stored figure is one the replay reaches (a record cut short
    that still carries its result is an inconsistency too); ``reached``: how far the
    replay got, in words."""
    for k, v in computed.items():
        if k not in rec:
            if deal.is_terminal:
                raise RecordError(f"{where}{k}: missing field (replay gives {v!r})")
            continue
        _compare(rec[k], v, f"{where}{k}")
    for k in DERIVED_FIELDS:
        if k in rec and k not in computed and rec[k] is not None:
            raise RecordError(
                f"{where}{k}: the record stores it, but its replay stops before the deal "
                f"reaches it ({deal.phase}, after {reached}): the {first} or plays list is "
                f"cut short")


def replay_match(rec: Dict[str, Any], *, check: bool = True) -> Dict[str, Any]:
    """Replay a match record: every deal, dealer rotation, scores and the winner (four
    players, or two: the dealer then alternates).

    Returns ``{"rules", "deals", "scores", "pot", "winner"}``. :raises RecordError:.
    """
    if not isinstance(rec, dict):
        raise RecordError(f"record: expected an object, got {type(rec).__name__}")
    if rec.get("format") != MATCH_FORMAT:
        raise RecordError(f"format: expected {MATCH_FORMAT!r}, got {rec.get('format')!r}")
    if rec.get("version") != VERSION:
        raise RecordError(f"version: expected {VERSION}, got {rec.get('version')!r}")
    rules = _rules_from(rec, "")
    # the deals' rotation (the family's players), the one match scoring, the winner's side
    n_dealers = family_of(rules).n_players
    score_into, side = score_into_match, game_classes(rules)[1].SIDE
    rotation = "alternating" if n_dealers == 2 else "rotation"
    first = _need(rec, "first_dealer", int, "")
    deal_recs = _need(rec, "deals", list, "")
    scores, pot, winner, deals = [0, 0], 0, None, []
    for i, drec in enumerate(deal_recs):
        where = f"deals[{i}]."
        if winner is not None:
            raise RecordError(f"deals[{i}]: a deal after the end of the match ({side} {winner} won)")
        expected_dealer = (first + i) % n_dealers
        if isinstance(drec, dict) and drec.get("dealer") != expected_dealer:
            raise RecordError(f"{where}dealer: expected {expected_dealer} ({rotation} from "
                              f"first_dealer {first}), got {drec.get('dealer')!r}")
        deal = replay_deal(drec, rules, where=where, check=check)
        deals.append(deal)
        if not deal.is_terminal:
            if i != len(deal_recs) - 1:
                raise RecordError(f"deals[{i}]: unfinished deal before the last one")
            break
        scores, pot, winner = score_into(scores, pot, deal)
    if check:
        _compare(rec.get("scores"), scores, "scores")
        if rec.get("pot", 0) != pot:
            raise RecordError(f"pot: stored {rec.get('pot')!r}, replay gives {pot!r}")
        if rec.get("winner") != winner:
            raise RecordError(f"winner: stored {rec.get('winner')!r}, replay gives {winner!r}")
    return {"rules": rules, "deals": deals, "scores": scores, "pot": pot, "winner": winner}


def replay(rec_or_path: Union[str, Dict[str, Any]]) -> Union[Deal, Dict[str, Any]]:
    """Replay a deal or match record (or a path to one)."""
    rec = load_record(rec_or_path) if isinstance(rec_or_path, str) else rec_or_path
    if not isinstance(rec, dict):
        raise RecordError(f"record: expected an object, got {type(rec).__name__}")
    fmt = rec.get("format")
    if fmt == DEAL_FORMAT:
        return replay_deal(rec)
    if fmt == MATCH_FORMAT:
        return replay_match(rec)
    raise RecordError(f"format: expected {DEAL_FORMAT!r} or {MATCH_FORMAT!r}, got {fmt!r}")
