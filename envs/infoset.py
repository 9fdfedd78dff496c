"""Information sets: what one seat knows at a point of a deal.

:func:`information_set` turns a :class:`~coinche_rl.game.Deal` and a seat into an
:class:`InformationSet`: a frozen, hashable value built **only** from public information
and the seat's own cards. Two deals that differ in the other seats' cards but agree on
every public event give equal information sets (``tests/test_infoset.py`` checks this on
random pairs of deals), so the object can key a table, feed an observation encoder or
drive a determinization sampler without leaking hidden cards.

What counts as public (RULES.md, docs/rules-decisions.md):

* the rule set, the dealer, the phase and whose turn it is;
* every auction action, with its seat (§4; the classic prise and its retourne, §11);
* every card played, with its seat, and the trick winners (§6);
* a belote, as the first of its K / Q is played (§5): who holds the other card;
* the resolution of the declarations, when the first card of the second trick is
  played (§5): which team scores them, and that team's declared cards, shown to all.

Simplification (documented, deliberate): the *kind* of each declaration announced
during the first trick is not modelled; nor are the other seats' declare / belote
choices (``optional_declare`` / ``optional_belote``), which stay private until their
public effect (the cards shown at resolution, the belote announced as a card is
played). The seat's own choices are part of what it knows.

Inferences from the rules of play (RULES.md §6), each one for the seat that played,
at the moment of the play, and therefore still true of its (smaller) hand afterwards.
They are :func:`~coinche_rl.inference.voids_ceilings_into`, which derives
them from the legality kernel; under the presets' rules they read:

* **not following the led suit** -> void in that suit (every strain);
* **suit contract, trump led**, the player followed with a trump *lower* than the
  winning trump while obliged to overtrump (always, except when his partner is master
  and ``overtrump_partner`` is False) -> no trump above the winning trump (a ceiling);
* **suit contract, void in the led suit, partner not master**:

  - the trick held no trump and he did not trump -> void in trumps;
  - an opponent's trump was winning, he played a *lower* trump -> trump ceiling (he
    would have had to overtrump);
  - an opponent's trump was winning, he did not trump -> ``must_undertrump``: void in
    trumps; FFB (*on ne pisse pas*): no trump above the winning one (a ceiling, not a
    void);

* **AT**: followed with a card lower than the winning card of the led suit while
  obliged to beat it (same partner exception) -> ceiling in the led suit;
* **NT**: only voids.

Further public inferences folded into :attr:`InformationSet.possible` (and from there
into :attr:`InformationSet.known`):

* **automatic belote** (``optional_belote`` False), strain with trumps: a seat that plays
  the first of K / Q of a trump suit *without* announcing belote does not hold the
  other one;
* **elimination**: a seat whose possible cards are exactly as many as its cards holds
  them all; once every card not yet played is in some hand, a card possible for one
  seat only is in that seat's hand; cards known in one hand are impossible elsewhere.
  Repeated to a fixed point.

The sets are *sound* (the true hands always satisfy them) but not *complete*: a world
that :meth:`InformationSet.is_consistent` accepts may still be impossible in ways these
constraints do not see (e.g. a shown declaration is the best combination of its hand).

>>> from coinche_rl.cards import format_hand
>>> from coinche_rl.game import Deal
>>> deal = Deal("ffb", hands=["JH 9H AH TH KS QS 7D 8D", "JS 9S AS TS KH QH 7C 8C",
...                           "JD 9D AD TD KC QC 7H 8H", "JC 9C AC TC KD QD 7S 8S"],
...             dealer=3).with_contract(80, 1, taker=0)       # 80 hearts by seat 0
>>> for c in ["7D", "KH"]:      # seat 1, void in diamonds, trumps: "belote"
...     deal.apply(c)
>>> info = information_set(deal, 2)
>>> info.voids[1], info.belotes, format_hand(info.known[1])
(4, ((1, 1),), 'QH')
>>> info.is_consistent(deal.hands), info.hand_sizes
(True, (7, 7, 8, 8))
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Sequence, Tuple

import numpy as np

from ..actions import BELOTE, CARD_BASE, DECLARE, NO_BELOTE, NO_DECLARE
from ..cards import BELOTE_PAIRS, FULL_DECK, N_SUITS, SUIT_MASKS, popcount
from ..engine import private_choices
from ..inference import NO_CEILING, voids_ceilings_into
from ..game import Contract, Deal
from ..rules import (AT, CARD_ORDER, CARDS_PER_HAND, CLASSIC_FIRST_HAND, N_SEATS, NT, RuleSet,
                     partner, seat_after)

__all__ = ["InformationSet", "information_set", "NO_CEILING", "ALL_CARDS", "SUIT_MASK"]

#: every card as a mask (:data:`coinche_rl.cards.FULL_DECK`)
ALL_CARDS = FULL_DECK
#: ``SUIT_MASK[s]``: the eight cards of suit ``s`` (:data:`coinche_rl.cards.SUIT_MASKS`
#: as Python ints)
SUIT_MASK = tuple(int(m) for m in SUIT_MASKS)
Masks4 = Tuple[int, int, int, int]


@dataclass(frozen=True)
class InformationSet:
    """What ``seat`` knows at one point of a deal (see the module docstring).

    Masks are 32-bit card masks (``coinche_rl.cards``); suit masks have bit ``s`` for
    suit ``s`` (S H D C). Every field is a plain int, str, bool, None, tuple or a frozen
    value (:class:`~coinche_rl.rules.RuleSet`, :class:`~coinche_rl.game.Contract`), so
    the object is hashable and compares by value.
    """

    #: the observing seat
    seat: int
    rules: RuleSet
    dealer: int
    #: ``"auction"`` (the prise in the classic family), ``"play"`` or ``"done"``
    phase: str
    #: seat to act (None when the deal is over)
    current_player: Optional[int]
    #: the seat's cards now
    hand: int
    #: action ids applied so far: every auction action and card, and the seat's own
    #: declare / belote choices (placed right before its first card); other seats'
    #: choices are private and left out
    public_history: Tuple[int, ...]
    #: ``(seat, action)`` of each auction (prise) action, in order
    auction: Tuple[Tuple[int, int], ...]
    #: the contract (None during the auction and for a void deal)
    contract: Optional[Contract]
    #: classic family: the turned-up card (public from the deal on); None otherwise
    retourne: Optional[int]
    #: tricks so far as ``((seat, card), ...)``, the current (possibly partial) one last
    tricks: Tuple[Tuple[Tuple[int, int], ...], ...]
    #: winner of each completed trick
    trick_winners: Tuple[int, ...]
    #: cards played so far
    played: int
    #: how many cards each seat holds now (classic family during the prise: 5 each,
    #: the retourne on the table and 11 cards still undealt)
    hand_sizes: Masks4
    #: ``(seat, suit)`` of each belote announced so far (as its first card was played)
    belotes: Tuple[Tuple[int, int], ...]
    #: True once the declarations are resolved (first card of the second trick)
    declarations_resolved: bool
    #: team scoring its declarations (None: unresolved, tie, or nobody declared)
    declaration_winner: Optional[int]
    #: per seat, the declared cards shown at resolution (played ones included)
    shown: Masks4
    #: per seat, cards known to be in its hand now: the own hand for ``seat``; for the
    #: others the other card of an announced belote, the shown declared cards, the
    #: classic taker's retourne, and what elimination proves — none of them played yet
    known: Masks4
    #: per seat, suits it is known to hold no card of, inferred from its plays (§6);
    #: for ``seat`` itself too (what the table knows of it; its real hand is ``hand``)
    voids: Masks4
    #: ``ceilings[p][s] = k``: seat ``p`` holds no card of suit ``s`` of strength ``k``
    #: or more (strength = ``CARD_ORDER[strain, card]``, 0..7 under the contract's
    #: strain); ``k`` is always the strength of a card already played, so "above" and
    #: "from" coincide. ``NO_CEILING`` (8): nothing known. Public inferences, like voids
    ceilings: Tuple[Tuple[int, int, int, int], ...]
    #: per seat, cards that may be in its hand now: exactly ``hand`` for ``seat``; for
    #: the others every card neither played, nor in ``hand``, nor known elsewhere (nor
    #: the retourne on the table), less what voids, ceilings and the belote rule
    #: exclude, plus its known cards
    possible: Masks4

    # ------------------------------------------------------------------ queries
    @property
    def strain(self) -> Optional[int]:
        """The contract's strain (None without a contract)."""
        return None if self.contract is None else self.contract.strain

    @property
    def unknown_cards(self) -> int:
        """Cards whose place ``seat`` does not know: neither played, nor in its hand,
        nor known in another hand, nor the retourne on the table (during the classic
        prise the 11 undealt cards are unknown too)."""
        m = FULL_DECK & ~self.played & ~self.hand
        for s in range(N_SEATS):
            m &= ~self.known[s]
        if self.retourne is not None and self.contract is None:
            m &= ~(1 << self.retourne)
        return m

    def is_consistent(self, hands: Sequence[int]) -> bool:
        """True when the four hands (masks) could be the real ones as far as this
        information set tells: the seat's own hand is ``hand``, each hand has its size,
        holds its known cards and only possible ones, no card is in two hands, and no
        played card (nor the retourne on the table) is held."""
        if len(hands) != N_SEATS:
            return False
        hs = [int(h) for h in hands]
        if hs[self.seat] != self.hand:
            return False
        seen = self.played
        if self.retourne is not None and self.contract is None:
            seen |= 1 << self.retourne
        for s, h in enumerate(hs):
            if h < 0 or h > FULL_DECK or h & seen:
                return False
            seen |= h
            if popcount(h) != self.hand_sizes[s]:
                return False
            if self.known[s] & ~h or h & ~self.possible[s]:
                return False
        return True

    def no_card_above(self, seat: int, suit: int) -> int:
        """Cards of ``suit`` that ``seat`` cannot hold by its ceiling (a mask)."""
        k = self.ceilings[seat][suit]
        if k >= NO_CEILING or self.strain is None:
            return 0
        return _above_mask(self.strain, suit, k)


def _above_mask(strain: int, suit: int, k: int) -> int:
    """Cards of ``suit`` of strength ``k`` or more under ``strain``."""
    m = 0
    for c in range(8 * suit, 8 * suit + 8):
        if int(CARD_ORDER[strain, c]) >= k:
            m |= 1 << c
    return m


def _public_history(deal: Deal, seat: int, auction, plays) -> Tuple[int, ...]:
    """Auction actions, cards in the order played, and the seat's own declare / belote
    choices right before its first card of the first trick (where the engine asks for
    them), or at the end while that card is still to come. Rebuilt from the state so
    that it also works for a deal wrapped with ``Deal.from_state``."""
    decl_decided, declared, belote_decided, belote_on = private_choices(deal.state)
    bit = 1 << seat
    own = []
    if decl_decided & bit:
        own.append(DECLARE if declared & bit else NO_DECLARE)
    if belote_decided & bit:
        own.append(BELOTE if belote_on & bit else NO_BELOTE)
    out = [a for _, a in auction]
    placed = not own
    for i, (p, c) in enumerate(plays):
        if not placed and p == seat and i < N_SEATS:
            out.extend(own)
            placed = True
        out.append(CARD_BASE + c)
    if not placed:
        out.extend(own)
    return tuple(out)


def information_set(deal: Deal, seat: int) -> InformationSet:
    """What ``seat`` knows now in ``deal``: public events and its own cards only.

    The engine state is read for the seat's own hand, for public facts (auction,
    tricks, contract, retourne) and for exactly the public part of the belote and
    declaration slots: announced belote pairs of which a card was played, and the
    declared cards of the team that won the declarations once resolved.

    :raises ValueError: for a seat outside 0..3.
    """
    if isinstance(seat, bool) or not 0 <= int(seat) < N_SEATS:
        raise ValueError(f"seat must be 0..3, not {seat!r}")
    seat = int(seat)
    rules = deal.rules
    classic = rules.family == "classic"
    dealer = deal.dealer
    hand = deal.hands[seat]
    contract = deal.contract
    strain = None if contract is None else contract.strain

    auction = tuple((seat_after(dealer, 1 + i), a) for i, a in enumerate(deal.auction))
    tricks = tuple(tuple((int(p), int(c)) for p, c in t) for t in deal.tricks)
    plays = [pc for t in tricks for pc in t]
    played = 0
    n_played = [0] * N_SEATS
    for p, c in plays:
        played |= 1 << c
        n_played[p] += 1
    retourne = deal.retourne if classic else None
    # classic family: during the prise (and in a void deal) the retourne lies on the
    # table and each seat holds 5 cards; after it, 8 each as in the coinche family
    on_table = 0
    if classic and contract is None:
        sizes = (CLASSIC_FIRST_HAND,) * N_SEATS
        if retourne is not None:
            on_table = 1 << retourne
    else:
        sizes = tuple(CARDS_PER_HAND - n_played[s] for s in range(N_SEATS))

    known = [0] * N_SEATS
    excluded = [0] * N_SEATS          # cards a seat cannot hold (belote rule)
    belotes = []

    # classic: the taker received the retourne (§11); known until played
    if classic and contract is not None and retourne is not None:
        known[contract.taker] |= (1 << retourne) & ~played

    # belote (§5): announced as the first of K / Q of a trump suit is played
    if strain is not None and strain != NT:
        belote_cards = deal.belote_cards
        first = {}
        for i, (p, c) in enumerate(plays):
            suit = c >> 3
            if (strain == AT or strain == suit) and (1 << c) & int(BELOTE_PAIRS[suit]) and suit not in first:
                first[suit] = (i, p, c)
        for suit, (i, p, c) in sorted(first.items(), key=lambda kv: kv[1][0]):
            kq = int(BELOTE_PAIRS[suit])
            other = kq & ~(1 << c)
            if belote_cards & kq == kq:
                belotes.append((p, suit))
                known[p] |= other & ~played
            elif not rules.optional_belote:
                # automatic belote: a holder of both would have announced it
                excluded[p] |= other

    # declarations (§5): shown by the winning team at resolution
    resolved = deal.declarations_resolved
    decl_winner = deal.declaration_winner
    shown = [0] * N_SEATS
    if decl_winner is not None:
        declared = deal.declared
        for p in (decl_winner, partner(decl_winner)):
            if declared[p]:
                shown[p] = deal.seat_declarations(p)[1]
                known[p] |= shown[p] & ~played

    # voids and ceilings from the rules of play (§6)
    voids = [0] * N_SEATS
    ceil = [[NO_CEILING] * 4 for _ in range(N_SEATS)]
    if strain is not None:
        v = np.empty(N_SEATS, dtype=np.int64)
        c = np.empty((N_SEATS, 4), dtype=np.int64)
        voids_ceilings_into(deal.state, deal.params, strain, v, c)
        voids, ceil = v.tolist(), c.tolist()

    known[seat] = hand
    possible = _possible(seat, hand, played | on_table, sizes, strain, known, excluded,
                         voids, ceil, all_dealt=not (classic and contract is None))

    return InformationSet(
        seat=seat, rules=rules, dealer=dealer, phase=deal.phase,
        current_player=deal.current_player, hand=hand,
        public_history=_public_history(deal, seat, auction, plays),
        auction=auction, contract=contract, retourne=retourne, tricks=tricks,
        trick_winners=tuple(deal.trick_winners), played=played, hand_sizes=sizes,
        belotes=tuple(belotes), declarations_resolved=resolved,
        declaration_winner=decl_winner, shown=tuple(shown), known=tuple(known[:N_SEATS]),
        voids=tuple(voids), ceilings=tuple(tuple(c) for c in ceil),
        possible=tuple(possible))


def _possible(seat, hand, gone, sizes, strain, known, excluded, voids, ceil, all_dealt):
    """Possible (and, by elimination, known) cards of each seat; ``known`` is updated
    in place. ``gone``: cards played or on the table; ``all_dealt``: every card not
    gone is in some hand (false during the classic prise)."""
    others = [s for s in range(N_SEATS) if s != seat]
    free = FULL_DECK & ~gone & ~hand
    possible = [0] * N_SEATS
    possible[seat] = hand
    for s in others:
        m = free & ~excluded[s]
        for suit in range(N_SUITS):
            if voids[s] >> suit & 1:
                m &= ~SUIT_MASK[suit]
            elif ceil[s][suit] < NO_CEILING and strain is not None:
                m &= ~_above_mask(strain, suit, ceil[s][suit])
        possible[s] = m
    changed = True
    while changed:
        changed = False
        for s in others:
            elsewhere = 0
            for t in range(N_SEATS):
                if t != s:
                    elsewhere |= known[t]
            p = (possible[s] & ~elsewhere) | known[s]
            if popcount(p) == sizes[s]:
                k = p
            else:
                k = known[s]
            if popcount(k) == sizes[s]:
                p = k
            if p != possible[s] or k != known[s]:
                possible[s], known[s] = p, k
                changed = True
        if all_dealt:
            # a card still to be played lies in some hand: alone possible -> known
            for s in others:
                rest = 0
                for t in others:
                    if t != s:
                        rest |= possible[t]
                only = possible[s] & free & ~rest & ~known[s]
                if only:
                    known[s] |= only
                    changed = True
    return possible
