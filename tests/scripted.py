"""Shared helpers of the hand-built-deal tests (``from scripted import ...``): one copy
of the strain names, of a deal with a contract set, of playing written-out cards and of
the legal cards as text.

Deals are written out in full (four hands of eight cards, or 32 cards); the contract is
set with :meth:`~coinche_rl.game.Deal.with_contract`, dealer seat 3 by default, so seat
0 speaks and leads first.
"""

from __future__ import annotations

from coinche_rl.cards import format_hand, parse_hand
from coinche_rl.game import Deal
from coinche_rl.rules import AT, CLUBS, DIAMONDS, HEARTS, NT, SPADES

#: the strains, as the tests write them
S, H, D, C = SPADES, HEARTS, DIAMONDS, CLUBS
__all__ = ["S", "H", "D", "C", "NT", "AT", "deal_with", "play", "play_any", "legal", "cards"]


def deal_with(hands, strain=H, rules="ffb", taker=0, value=80, coinche=0, dealer=3) -> Deal:
    """A deal of ``hands`` (dealer seat 3) with the contract ``value`` ``strain`` of
    seat ``taker`` already set (``coinche`` 0, 1 coinched, 2 surcoinched)."""
    return Deal(rules, hands=hands, dealer=dealer).with_contract(value, strain, taker=taker,
                                                                  coinche=coinche)


def play(deal: Deal, actions: str) -> Deal:
    """Apply the space-separated action texts (cards ``"JH"``, ``"declare"``, ...)."""
    for a in actions.split():
        deal.apply(a)
    return deal


def play_any(deal: Deal, n: int) -> Deal:
    """Play ``n`` actions, each time the first legal one."""
    for _ in range(n):
        deal.apply(deal.legal_actions()[0])
    return deal


def legal(deal: Deal) -> str:
    """The legal cards, as text (suits S H D C, plain order inside a suit)."""
    return format_hand(deal.legal_cards())


def cards(text: str) -> str:
    """``text`` in the same normal form as :func:`legal`."""
    return format_hand(parse_hand(text))
