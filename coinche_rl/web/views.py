"""What the page is sent (``coinche_rl.web.views``): JSON-ready views of a deal.

Two kinds of view, built from two different sources on purpose:

* :func:`seat_view`, for a person playing: built **only** from the seat's
  :class:`~coinche_rl.envs.infoset.InformationSet` (its own hand, the public history,
  the declarations shown, the belotes announced) and public figures of the deal (tricks
  and card points won, who is winning the trick). Nothing of another seat's hand can get
  into it while the deal is on; once it is over, :func:`result_view` adds the hands as
  dealt, as the terminal game prints them.
* :func:`table_view`, for replay and analysis of a record: everything, every hand
  included (the record holds them all), with ``show`` choosing which hands to send.

Cards are sent as their text (``"JH"``, :func:`coinche_rl.cards.format_card`) and
actions as ``{"id", "text"}`` (:mod:`coinche_rl.actions`); :func:`meta` gives the page
the deck, the suits, the strains and the presets, so the page never re-types a rule
table or an encoding.

>>> from coinche_rl.game import Deal
>>> deal = Deal("ffb", seed=1, dealer=3)
>>> v = seat_view(deal, 0)
>>> len(v["hand"]), v["phase"], v["to_act"], [a["text"] for a in v["legal"]][:2]
(8, 'auction', 0, ['pass', '80S'])
>>> table_view(deal, show=[2])["hands"][0] is None
True
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

from .. import actions as A
from .. import engine as E
from ..cards import N_CARDS, N_SUITS, RANK_NAMES, RANKS, SUIT_NAMES, SUITS, cards_of, format_card
from ..game import Deal
from ..rules import (CARD_ORDER, FOUR_PLAYER_PRESETS, N_SEATS, N_TRICKS, NT, STRAIN_LONG_NAMES,
                     STRAIN_NAMES, rules_label)
from ..envs.infoset import information_set

__all__ = ["meta", "seat_view", "table_view", "result_view", "sorted_cards", "action_item",
           "RELATIVE_NAMES", "SUIT_SYMBOLS"]

#: the seats' names seen from a chair, by ``seat_after(seat, -me)`` (as ``coinche-rl play``)
RELATIVE_NAMES = ("you", "right", "partner", "left")
#: how the page draws each suit of :data:`coinche_rl.cards.SUITS` (S H D C): presentation
#: only, no rule
SUIT_SYMBOLS = ("\u2660", "\u2665", "\u2666", "\u2663")


def meta() -> Dict[str, Any]:
    """The notation the page draws with: the 32 cards (id, text, suit, rank), the suits,
    the strains and the presets, all from :mod:`coinche_rl.cards` and
    :mod:`coinche_rl.rules`."""
    return {
        "cards": [{"id": c, "text": format_card(c), "suit": c >> 3, "rank": RANKS[c & 7],
                   "rank_name": RANK_NAMES[c & 7]} for c in range(N_CARDS)],
        "suits": [{"letter": SUITS[s], "name": SUIT_NAMES[s], "symbol": SUIT_SYMBOLS[s]}
                  for s in range(N_SUITS)],
        "strains": [{"id": i, "text": STRAIN_NAMES[i], "name": STRAIN_LONG_NAMES[i]}
                    for i in range(len(STRAIN_NAMES))],
        "presets": list(FOUR_PLAYER_PRESETS),     # the page plays four players
        "relative_names": list(RELATIVE_NAMES),
    }


def action_item(a: int) -> Dict[str, Any]:
    """``{"id", "text"}`` of an action id."""
    return {"id": int(a), "text": A.action_to_str(int(a))}


def sorted_cards(mask: int, strain: Optional[int]) -> List[str]:
    """The cards of ``mask`` as the page shows a hand: by suit (S H D C), strongest first
    (trump order in a trump suit once the contract is known, ``CARD_ORDER``; the plain
    card-play order before)."""
    order = CARD_ORDER[NT if strain is None else strain]
    cards = sorted(cards_of(int(mask)), key=lambda c: (c >> 3, -int(order[c])))
    return [format_card(c) for c in cards]


def _contract(c) -> Optional[Dict[str, Any]]:
    if c is None:
        return None
    return {"text": c.bid_text, "taker": c.taker, "strain": STRAIN_NAMES[c.strain],
            "coinche": c.coinche, "label": str(c)}


def _highest_bid(deal: Deal) -> Optional[Dict[str, Any]]:
    hb = deal.highest_bid
    if hb is None or deal.phase != "auction":
        return None
    capot = bool(E.py.contract_is_capot(deal.state))
    text = A.action_to_str(A.capot_action(hb[1]) if capot else A.bid_action(hb[0], hb[1]))
    return {"text": text, "seat": hb[2], "coinche": int(E.py.coinche_level(deal.state))}


def _trick(trick: Sequence) -> List[Dict[str, Any]]:
    return [{"seat": int(s), "card": format_card(c)} for s, c in trick]


def _tricks(deal: Deal, tricks, winners) -> Dict[str, Any]:
    """The current trick (with who is winning it) and the last complete one."""
    done = len(winners)
    current = list(tricks[done]) if len(tricks) > done else []
    out: Dict[str, Any] = {"number": min(done + 1, N_TRICKS), "current": _trick(current),
                           "winning": None, "last": None}
    if current:
        out["winning"] = int(E.py.winning_seat(deal.state))
    if done:
        out["last"] = {"cards": _trick(tricks[done - 1]), "winner": int(winners[done - 1]),
                       "number": done}
    return out


def result_view(deal: Deal) -> Optional[Dict[str, Any]]:
    """The scoring breakdown of a finished deal (None before its end), with the hands
    as dealt."""
    res = deal.result
    if res is None:
        return None
    teams = [{"card_points": t.card_points, "dix_de_der": t.dix_de_der, "belote": t.belote,
              "declarations": t.declarations, "total": t.total, "raw_score": t.raw_score,
              "score": t.score} for t in res.teams]
    outcome = "void" if res.void else ("litige" if res.litige else
                                       ("made" if res.made else "failed"))
    return {"void": res.void, "outcome": outcome, "contract": _contract(res.contract),
            "multiplier": res.multiplier, "teams": teams, "scores": list(res.scores),
            "table": res.table(),
            "hands": [sorted_cards(h, None if res.contract is None else res.contract.strain)
                      for h in deal.initial_hands]}


def _belotes(belotes) -> List[Dict[str, Any]]:
    return [{"seat": int(s), "suit": SUITS[int(suit)]} for s, suit in belotes]


def seat_view(deal: Deal, seat: int, match: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """What seat ``seat`` may see of ``deal`` now (see the module docstring): its hand,
    the auction, the contract, the current and the last trick, the tricks and card points
    won, the declarations shown and the belotes announced, its legal actions when it is
    to act; when the deal is over, its result with the hands as dealt. ``match``: the
    running match figures to pass through (``{"scores", "target", ...}``)."""
    info = information_set(deal, seat)
    strain = None if info.contract is None else info.contract.strain
    to_act = info.current_player
    view: Dict[str, Any] = {
        "seat": int(seat), "dealer": info.dealer, "phase": info.phase, "to_act": to_act,
        "rules": rules_label(info.rules),
        "hand": sorted_cards(info.hand, strain), "hand_sizes": [int(n) for n in info.hand_sizes],
        "auction": [{"seat": int(s), "action": A.action_to_str(a)} for s, a in info.auction],
        "highest_bid": _highest_bid(deal),
        "contract": _contract(info.contract),
        "retourne": None if info.retourne is None else format_card(info.retourne),
        "tricks": _tricks(deal, info.tricks, info.trick_winners),
        "tricks_won": list(deal.tricks_won), "points_won": list(deal.card_points_won),
        "belotes": _belotes(info.belotes),
        "declarations": None,
        "legal": ([action_item(a) for a in deal.legal_actions()] if to_act == seat else []),
        "match": match,
        "result": None,
    }
    if info.declarations_resolved:
        view["declarations"] = {
            "winner": info.declaration_winner,
            "shown": [sorted_cards(m, strain) for m in info.shown]}
    if deal.is_terminal:
        view["result"] = result_view(deal)
    return view


def table_view(deal: Deal, show: Sequence[int] = tuple(range(N_SEATS))) -> Dict[str, Any]:
    """The whole table of ``deal`` (replay and analysis of a record): the hands of the
    seats in ``show`` (None for the others; the counts are always there), the auction,
    the contract, the tricks, the points, the legal actions of the seat to act, the
    result once over."""
    strain = None if deal.contract is None else deal.contract.strain
    shown = set(int(s) for s in show)
    declarations = None
    if deal.phase != "auction" and not deal.is_void and deal.declarations_resolved:
        declarations = {"winner": deal.declaration_winner,
                        "shown": [sorted_cards(deal.seat_declarations(s)[1], strain)
                                  if deal.declared[s] else [] for s in range(N_SEATS)]}
    public = information_set(deal, 0)           # the public parts are the same for every seat
    to_act = deal.current_player
    return {
        "dealer": deal.dealer, "phase": deal.phase, "to_act": to_act,
        "rules": rules_label(deal.rules),
        "hands": [sorted_cards(h, strain) if s in shown else None
                  for s, h in enumerate(deal.hands)],
        "hand_sizes": [bin(int(h)).count("1") for h in deal.hands],
        "auction": [{"seat": int(s), "action": A.action_to_str(a)} for s, a in public.auction],
        "highest_bid": _highest_bid(deal),
        "contract": _contract(deal.contract),
        "retourne": None if deal.retourne is None else format_card(deal.retourne),
        "tricks": _tricks(deal, deal.tricks, deal.trick_winners),
        "tricks_won": list(deal.tricks_won), "points_won": list(deal.card_points_won),
        "belotes": _belotes(public.belotes),
        "declarations": declarations,
        "legal": [action_item(a) for a in deal.legal_actions()] if to_act is not None else [],
        "result": result_view(deal),
    }

