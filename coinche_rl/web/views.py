"""What the page is sent (``coinche_rl.web.views``): JSON-ready views of a deal, of
every rule family (four players in two teams; belote for two players).

Two kinds of view, built from two different sources on purpose:

* :func:`seat_view`, for a person playing: the public facts of the deal (the auction or
  the prise, the tricks, the points won, the face-up table cards and where face-down
  ones lie) and the seat's own knowledge, read **only** from what the family says the
  seat knows (:func:`coinche_rl.envs.family.EnvFamily.knowledge`: the four-player
  :class:`~coinche_rl.envs.infoset.InformationSet`, the two-player
  :class:`~coinche_rl.two_player.TwoPlayerView`): its hand, the cards of the other hand
  it knows, the declarations shown. No card of another hand and no face-down card can
  get into it while the deal is on; once it is over, :func:`result_view` adds the
  scoring (and, with four players, the hands as dealt, as the terminal game prints them).
* :func:`table_view`, for replay and analysis of a record: every hand (the record holds
  them all), with ``show`` choosing which hands to send; the face-down cards of belote
  for two players stay covered until the game turns them up, as the game shows them.

The same keys for every family (``n_players``, ``hand_sizes``, ``auction``: the bidding
actions, the four-player auction or the two-player prise and exchange; ``tricks``,
``tricks_won`` and ``points_won`` per side...); ``table`` (each seat's stacks: a face-up
card or None, and whether a face-down card lies under it) and ``known`` are None where
the family has no table cards. Cards are sent as their text (``"JH"``,
:func:`coinche_rl.cards.format_card`) and actions as ``{"id", "text"}``
(:mod:`coinche_rl.actions`); :func:`meta` gives the page the deck, the suits, the strains
and the presets with their families, so the page never re-types a rule table or an
encoding.

>>> from coinche_rl.game import Deal
>>> deal = Deal("ffb", seed=1, dealer=3)
>>> v = seat_view(deal, 0)
>>> len(v["hand"]), v["phase"], v["to_act"], [a["text"] for a in v["legal"]][:2]
(8, 'auction', 0, ['pass', '80S'])
>>> table_view(deal, show=[2])["hands"][0] is None
True
>>> from coinche_rl.two_player import TwoPlayerDeal
>>> v = seat_view(TwoPlayerDeal("belote_decouverte", seed=7, dealer=1), 0)
>>> v["n_players"], v["hand"], len(v["table"][1]), v["table"][1][0]["down"]
(2, [], 8, True)
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

from .. import actions as A
from .. import engine as E
from ..agents.base import agent_view
from ..cards import N_CARDS, N_SUITS, RANK_NAMES, RANKS, SUIT_NAMES, SUITS, cards_of, format_card
from ..engine.family import FAMILIES, family_of
from ..envs.family import env_family
from ..rules import (CARD_ORDER, FAMILY_PRESETS, NT, STRAIN_LONG_NAMES, STRAIN_NAMES,
                     rules_label)

__all__ = ["meta", "seat_view", "table_view", "result_view", "sorted_cards", "action_item",
           "agent_view", "relative_name", "contract_label", "bidding", "RELATIVE_NAMES",
           "SUIT_SYMBOLS"]

#: the seats' names seen from a chair, by ``(seat - me) % n_players`` (as
#: ``coinche-rl play``), for each number of players
RELATIVE_NAMES = {4: ("you", "right", "partner", "left"), 2: ("you", "opponent")}
#: how the page draws each suit of :data:`coinche_rl.cards.SUITS` (S H D C): presentation
#: only, no rule
SUIT_SYMBOLS = ("\u2660", "\u2665", "\u2666", "\u2663")


def relative_name(seat: int, me: int, n_players: int) -> str:
    """``seat`` seen from ``me``: ``"you"``, ``"partner"``, ``"opponent"``..."""
    return RELATIVE_NAMES[n_players][(seat - me) % n_players]


def meta() -> Dict[str, Any]:
    """The notation the page draws with: the 32 cards (id, text, suit, rank), the suits,
    the strains, the presets with their family and players, all from
    :mod:`coinche_rl.cards`, :mod:`coinche_rl.rules` and the families
    (:mod:`coinche_rl.engine.family`)."""
    presets = [p for f in FAMILIES for p in FAMILY_PRESETS[f]]
    return {
        "cards": [{"id": c, "text": format_card(c), "suit": c >> 3, "rank": RANKS[c & 7],
                   "rank_name": RANK_NAMES[c & 7]} for c in range(N_CARDS)],
        "suits": [{"letter": SUITS[s], "name": SUIT_NAMES[s], "symbol": SUIT_SYMBOLS[s]}
                  for s in range(N_SUITS)],
        "strains": [{"id": i, "text": STRAIN_NAMES[i], "name": STRAIN_LONG_NAMES[i]}
                    for i in range(len(STRAIN_NAMES))],
        "presets": presets,
        "families": {p: {"family": family_of(p).name, "n_players": family_of(p).n_players,
                         "side": env_family(p).match.SIDE} for p in presets},
        "relative_names": {str(n): list(v) for n, v in RELATIVE_NAMES.items()},
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


def _trump(deal) -> Optional[int]:
    """The contract's strain (the trump suit with two players), None before."""
    c = getattr(deal, "contract", None)
    if c is not None:
        return c.strain
    return getattr(deal, "trump", None)


def _contract(deal) -> Optional[Dict[str, Any]]:
    """``{"text", "taker", "strain", "coinche", "label"}`` of the deal's contract (with
    two players: the trump taken), None before it is known or on a void deal."""
    c = getattr(deal, "contract", None)
    if c is not None:
        return {"text": c.bid_text, "taker": c.taker, "strain": STRAIN_NAMES[c.strain],
                "coinche": c.coinche, "label": str(c)}
    if getattr(deal, "taker", None) is None:
        return None
    return {"text": STRAIN_NAMES[deal.trump], "taker": deal.taker,
            "strain": STRAIN_NAMES[deal.trump], "coinche": 0, "label": contract_label(deal)}


def contract_label(deal) -> Optional[str]:
    """The contract in words (``"90H by seat 1"``; with two players ``"hearts taken by
    player 0"``), None before it is known or on a void deal."""
    c = getattr(deal, "contract", None)
    if c is not None:
        return str(c)
    if getattr(deal, "taker", None) is None:
        return None
    return (f"{STRAIN_LONG_NAMES[deal.trump]} taken by player {deal.taker}"
            + (" (7 exchanged)" if deal.exchanged else ""))


def _highest_bid(deal) -> Optional[Dict[str, Any]]:
    hb = getattr(deal, "highest_bid", None)
    if hb is None or deal.phase != "auction":
        return None
    capot = bool(E.py.contract_is_capot(deal.state))
    text = A.action_to_str(A.capot_action(hb[1]) if capot else A.bid_action(hb[0], hb[1]))
    return {"text": text, "seat": hb[2], "coinche": int(E.py.coinche_level(deal.state))}


def bidding(deal, know=None) -> List[Dict[str, Any]]:
    """The public actions before the play, ``{"seat", "action"}`` in order: the
    four-player auction (read from ``know``, a seat's information set, when given), or
    the two-player prise and the exchange choice (who speaks follows from the dealer: the
    non-dealer first, the exchange by the non-taker)."""
    if hasattr(deal, "auction"):
        public = know if know is not None else env_family(deal.rules).knowledge(deal, 0)
        return [{"seat": int(s), "action": A.action_to_str(a)} for s, a in public.auction]
    n = family_of(deal.rules).n_players
    first = (deal.dealer + 1) % n
    out = [{"seat": (first + k) % n, "action": A.action_to_str(a)}
           for k, a in enumerate(deal.prise)]
    if deal.exchanged is not None:
        out.append({"seat": (deal.taker + 1) % n,
                    "action": A.action_to_str(A.EXCHANGE if deal.exchanged else A.NO_EXCHANGE)})
    return out


def _trick(trick: Sequence) -> List[Dict[str, Any]]:
    return [{"seat": int(s), "card": format_card(c)} for s, c in trick]


def _tricks(deal) -> Dict[str, Any]:
    """The current trick (with who is winning it) and the last complete one."""
    tricks, winners = deal.tricks, deal.trick_winners
    done = len(winners)
    n_tricks = family_of(deal.rules).n_tricks
    current = list(tricks[done]) if len(tricks) > done else []
    out: Dict[str, Any] = {"number": min(done + 1, n_tricks), "of": n_tricks,
                           "current": _trick(current), "winning": None, "last": None}
    if len(current) == 1:
        out["winning"] = int(current[0][0])              # the lead wins so far
    elif current:
        out["winning"] = int(E.py.winning_seat(deal.state))
    if done:
        out["last"] = {"cards": _trick(tricks[done - 1]), "winner": int(winners[done - 1]),
                       "number": done}
    return out


def _table(deal) -> Optional[List[List[Dict[str, Any]]]]:
    """Each seat's table stacks, ``{"up": card or None, "down": bool}`` (a face-down card
    lies there, unknown to both players), None where the family has no table cards: the
    face-down cards' places only, never which cards they are."""
    stacks = getattr(deal, "stacks", None)
    if stacks is None:
        return None
    return [[{"up": format_card(u) if u >= 0 else None, "down": d >= 0} for u, d in row]
            for row in stacks]


def result_view(deal) -> Optional[Dict[str, Any]]:
    """The scoring breakdown of a finished deal (None before its end): per side its
    figures (``rows``: which, in what words), the outcome and the scores; with four
    players the hands as dealt."""
    res = deal.result
    if res is None:
        return None
    outcome = "void" if res.void else ("litige" if res.litige else
                                       ("made" if res.made else "failed"))
    out = {"void": res.void, "outcome": outcome, "contract": _contract(deal),
           "multiplier": getattr(res, "multiplier", 1), "scores": list(res.scores),
           "table": res.table(), "hands": None}
    if hasattr(res, "teams"):
        out["teams"] = [{"card_points": t.card_points, "dix_de_der": t.dix_de_der,
                         "belote": t.belote, "declarations": t.declarations, "total": t.total,
                         "raw_score": t.raw_score, "score": t.score} for t in res.teams]
        out["rows"] = [["card points", "card_points"], ["belote", "belote"],
                       ["declarations", "declarations"], ["total", "total"],
                       ["deal score", "score"]]
        out["hands"] = [sorted_cards(h, None if res.contract is None else res.contract.strain)
                        for h in deal.initial_hands]
    else:
        out["teams"] = [{"card_points": res.card_points[p], "belote": res.belote[p],
                         "declarations": res.declarations[p] if res.declaration_winner == p else 0,
                         "score": res.scores[p]} for p in range(2)]
        out["rows"] = [["card points", "card_points"], ["declaration", "declarations"],
                       ["belote", "belote"], ["deal score", "score"]]
        out["capot"] = res.capot
    return out


def _belotes(deal, belotes=None) -> List[Dict[str, Any]]:
    if belotes is None:                         # two players: the points credited, public
        trump = _trump(deal)
        return [{"seat": p, "suit": SUITS[trump]} for p, pts in enumerate(deal.belote_points)
                if pts]
    return [{"seat": int(s), "suit": SUITS[int(suit)]} for s, suit in belotes]


def _public(deal, know=None) -> Dict[str, Any]:
    """What every seat sees of ``deal`` (both views' common part); ``know``: a seat's
    knowledge, to read the auction from."""
    fam = family_of(deal.rules)
    side = [fam.side(s) for s in range(fam.n_players)]
    won = [sum(1 for w in deal.trick_winners if side[w] == k) for k in range(fam.n_sides)]
    retourne = deal.retourne
    return {
        "n_players": fam.n_players, "side_word": env_family(deal.rules).match.SIDE,
        "bidding_word": fam.phases[0],
        "dealer": deal.dealer, "phase": deal.phase, "to_act": deal.current_player,
        "rules": rules_label(deal.rules),
        "hand_sizes": [bin(int(h)).count("1") for h in deal.hands],
        "auction": bidding(deal, know), "highest_bid": _highest_bid(deal),
        "contract": _contract(deal),
        "retourne": None if retourne is None else format_card(retourne),
        "tricks": _tricks(deal), "tricks_won": won,
        "points_won": [int(x) for x in deal.card_points_won],
        "table": _table(deal), "known": None,
        "result": result_view(deal),
    }


def _two_declarations(deal) -> Optional[Dict[str, Any]]:
    """Two players: each player's declared points (public from his first card) and who
    scores (from the end of the first trick); the cards, once public, are in ``known``."""
    if not deal.rules.declarations or deal.phase == "prise" or not deal.plays:
        return None
    points = [pts if any(p == q for q, _ in deal.plays) else 0
              for p, (pts, _) in enumerate(deal.declarations)]
    return {"points": points, "shown": None,
            "winner": deal.declaration_winner if deal.trick_winners else None}


def seat_view(deal, seat: int, match: Optional[Dict[str, Any]] = None) -> Dict[str, Any]:
    """What seat ``seat`` may see of ``deal`` now (see the module docstring): its hand,
    the cards of other hands it knows, the bidding, the contract, the current and the
    last trick, the tricks and card points won, the table cards as the game shows them,
    the declarations shown and the belotes announced, its legal actions when it is to
    act; when the deal is over, its result. ``match``: the running match figures to pass
    through (``{"scores", "target", ...}``)."""
    know = env_family(deal.rules).knowledge(deal, seat)
    strain = _trump(deal)
    view = _public(deal, know)
    view.update({
        "seat": int(seat), "hand": sorted_cards(know.hand, strain),
        "legal": ([action_item(a) for a in deal.legal_actions()]
                  if deal.current_player == seat else []),
        "match": match,
    })
    if view["table"] is not None:                   # two players: the view's own stacks
        other = [int(know.known_other) if s != seat else 0 for s in range(2)]
        view["known"] = [sorted_cards(m, strain) for m in other]
        view["table"] = [[{"up": format_card(u) if u >= 0 else None, "down": bool(d)}
                          for u, d in row] for row in know.stacks]
        view["belotes"] = _belotes(deal)
        view["declarations"] = _two_declarations(deal)
    else:
        view["belotes"] = _belotes(deal, know.belotes)
        view["declarations"] = None
        if know.declarations_resolved:
            view["declarations"] = {"winner": know.declaration_winner,
                                    "shown": [sorted_cards(m, strain) for m in know.shown]}
    return view


def table_view(deal, show: Optional[Sequence[int]] = None) -> Dict[str, Any]:
    """The whole table of ``deal`` (replay and analysis of a record): the hands of the
    seats in ``show`` (default all; None for the others, the counts are always there),
    the bidding, the contract, the tricks, the points, the table cards as the game shows
    them, the legal actions of the seat to act, the result once over."""
    strain = _trump(deal)
    n = family_of(deal.rules).n_players
    shown = set(range(n) if show is None else (int(s) for s in show))
    public = env_family(deal.rules).knowledge(deal, 0) if n == 4 else None
    view = _public(deal, public)
    view["hands"] = [sorted_cards(h, strain) if s in shown else None
                     for s, h in enumerate(deal.hands)]
    to_act = deal.current_player
    view["legal"] = [action_item(a) for a in deal.legal_actions()] if to_act is not None else []
    if view["table"] is not None:
        view["belotes"] = _belotes(deal)
        view["declarations"] = _two_declarations(deal)
    else:
        view["belotes"] = _belotes(deal, public.belotes)
        view["declarations"] = None
        if deal.phase != "auction" and not deal.is_void and deal.declarations_resolved:
            view["declarations"] = {
                "winner": deal.declaration_winner,
                "shown": [sorted_cards(deal.seat_declarations(s)[1], strain)
                          if deal.declared[s] else [] for s in range(n)]}
    return view
