"""Cards, hands and their text notation.

A card is an ``int`` in ``0..31``: ``card = suit * 8 + rank`` with

* ``suit``: 0 spades ``S``, 1 hearts ``H``, 2 diamonds ``D``, 3 clubs ``C``;
* ``rank``: 0..7 for ``7 8 9 T J Q K A`` (the natural order, used for sequences).

A hand (any set of cards) is a ``uint32`` bit mask: bit ``card`` is set when the card is
in the set. Suit ``s`` occupies bits ``8*s .. 8*s+7``, so ``(mask >> 8*s) & 0xFF`` is the
rank mask of that suit.

Text notation (RULES.md §1): a card is rank + suit, ``JH``, ``TS``; ``10S`` is accepted
on input, as are lower-case letters. A hand is cards separated by spaces or commas.

>>> parse_card("JH")
12
>>> format_card(12)
'JH'
>>> format_hand(parse_hand("AS 10s jh 7C"))
'AS TS JH 7C'
"""

from __future__ import annotations

from typing import Iterable, Iterator, List, NamedTuple

import numpy as np

__all__ = [
    "SUITS", "RANKS", "SUIT_NAMES", "RANK_NAMES", "N_SUITS", "N_RANKS", "N_CARDS",
    "FULL_DECK",
    "SUIT_MASKS", "BELOTE_PAIRS", "InvalidNotationError", "card", "card_suit", "card_rank",
    "card_bit",
    "parse_card", "format_card", "parse_hand", "format_hand", "mask_of", "cards_of",
    "popcount", "cards_mask", "CardSet", "Declaration",
]

SUITS = "SHDC"
RANKS = "789TJQKA"
SUIT_NAMES = ("spades", "hearts", "diamonds", "clubs")
RANK_NAMES = ("7", "8", "9", "10", "jack", "queen", "king", "ace")
#: The deck's dimensions (the seats, teams and tricks are in :mod:`coinche_rl.rules`).
N_SUITS = 4                  # suits, 0..3 for S H D C
N_RANKS = 8                  # ranks of a suit, 0..7 for 7..A
N_CARDS = N_SUITS * N_RANKS  # 32
assert len(SUITS) == N_SUITS == len(SUIT_NAMES) and len(RANKS) == N_RANKS == len(RANK_NAMES)
FULL_DECK = 0xFFFFFFFF
#: ``SUIT_MASKS[s]``: the eight cards of suit ``s`` as a mask.
SUIT_MASKS = np.array([0xFF << (N_RANKS * s) for s in range(N_SUITS)], dtype=np.uint32)
#: ``BELOTE_PAIRS[s]``: the queen and king of suit ``s`` as a mask (int64; the belote
#: when ``s`` is trump). The kernels and the Python code read this one table.
BELOTE_PAIRS = np.array([(1 << (N_RANKS * s + 5)) | (1 << (N_RANKS * s + 6))
                         for s in range(N_SUITS)], dtype=np.int64)


class InvalidNotationError(ValueError):
    """Text that is not valid card, hand, bid or action notation."""


def card(rank: int, suit: int) -> int:
    """The card of ``rank`` (0..7 for 7..A) and ``suit`` (0..3 for S H D C)."""
    return suit * N_RANKS + rank


def card_suit(c: int) -> int:
    return c >> 3


def card_rank(c: int) -> int:
    return c & 7


def card_bit(c: int) -> int:
    return 1 << c


def parse_card(text: str) -> int:
    """Parse ``'JH'``, ``'10s'``, ``'ts'`` into a card index.

    :raises InvalidNotationError: naming the bad token.
    """
    t = text.strip().upper()
    if t.startswith("10"):
        t = "T" + t[2:]
    if len(t) != 2 or t[0] not in RANKS or t[1] not in SUITS:
        raise InvalidNotationError(
            f"invalid card {text!r}: expected rank (7 8 9 T/10 J Q K A) + suit (S H D C), e.g. 'JH' or '10S'")
    return card(RANKS.index(t[0]), SUITS.index(t[1]))


def format_card(c: int) -> str:
    """``12 -> 'JH'``."""
    c = int(c)
    if not 0 <= c < N_CARDS:
        raise ValueError(f"card index out of range: {c!r} (expected 0..31)")
    return RANKS[c & 7] + SUITS[c >> 3]


def mask_of(cards: Iterable[int]) -> int:
    """The mask of an iterable of card indices."""
    m = 0
    for c in cards:
        m |= 1 << int(c)
    return m


def cards_of(mask: int) -> List[int]:
    """The card indices of a mask, in increasing index order."""
    mask = int(mask)
    out = []
    while mask:
        low = mask & -mask
        out.append(low.bit_length() - 1)
        mask ^= low
    return out


def popcount(mask: int) -> int:
    return bin(int(mask) & 0xFFFFFFFF).count("1")


def parse_hand(text: str) -> int:
    """Parse a space- or comma-separated list of cards into a mask.

    Duplicate cards are an error. An empty string is the empty hand.

    :raises InvalidNotationError: naming the bad or repeated token.
    """
    m = 0
    for tok in text.replace(",", " ").split():
        c = parse_card(tok)
        if m >> c & 1:
            raise InvalidNotationError(f"card {tok!r} appears twice in hand {text!r}")
        m |= 1 << c
    return m


def cards_mask(value, what: str = "cards", error: type = InvalidNotationError) -> int:
    """The mask of a set of cards given as a 32-bit mask, hand text (``'JH 9H'``) or a
    sequence of cards (indices or text): the argument checks of the public APIs that take
    a hand. Raises ``error`` (a ``ValueError`` class), its message starting with ``what``,
    on anything else or on a repeated card.

    >>> cards_mask(["JH", 13]) == parse_hand("JH QH")
    True
    """
    if isinstance(value, str):
        try:
            return parse_hand(value)
        except InvalidNotationError as e:
            raise error(f"{what}: {e} (expected cards such as 'JH 9H AH')") from None
    if isinstance(value, (int, np.integer)) and not isinstance(value, bool):
        if not 0 <= value <= FULL_DECK:
            raise error(f"{what}: {value!r} is not a 32-bit card mask")
        return int(value)
    try:
        cards = list(value)
    except TypeError:
        raise error(f"{what}: expected a card mask, text such as 'JH 9H AH' or a list of "
                    f"cards, not {value!r}") from None
    m = 0
    for c in cards:
        if isinstance(c, str):
            try:
                c = parse_card(c)
            except InvalidNotationError as e:
                raise error(f"{what}: {e}") from None
        if isinstance(c, bool) or not isinstance(c, (int, np.integer)) or not 0 <= c < N_CARDS:
            raise error(f"{what}: {c!r} is not a card (0..31 or text such as 'JH')")
        if m >> int(c) & 1:
            raise error(f"{what}: card {format_card(int(c))!r} appears twice")
        m |= 1 << int(c)
    return m


def format_hand(mask: int) -> str:
    """Cards of a mask by suit (S H D C), in plain order within a suit (A 10 K Q J 9 8 7)."""
    mask = int(mask)
    parts = []
    for s in range(N_SUITS):
        for r in _PLAIN_DESC:
            c = card(r, s)
            if mask >> c & 1:
                parts.append(format_card(c))
    return " ".join(parts)


_PLAIN_DESC = (7, 3, 6, 5, 4, 2, 1, 0)   # A T K Q J 9 8 7 as rank indices


class CardSet:
    """A read-only, printable view of a card mask (for people; kernels use the mask).

    >>> CardSet.parse("KH QH 7S")
    CardSet.parse('7S KH QH')
    >>> len(CardSet.parse("KH QH 7S")), 'QH' in CardSet.parse("KH QH")
    (3, True)
    """

    __slots__ = ("mask",)

    def __init__(self, mask: int = 0):
        self.mask = int(mask) & 0xFFFFFFFF

    @classmethod
    def parse(cls, text: str) -> "CardSet":
        return cls(parse_hand(text))

    def __iter__(self) -> Iterator[int]:
        return iter(cards_of(self.mask))

    def __len__(self) -> int:
        return popcount(self.mask)

    def __contains__(self, item) -> bool:
        c = parse_card(item) if isinstance(item, str) else int(item)
        return bool(self.mask >> c & 1)

    def __eq__(self, other) -> bool:
        return isinstance(other, CardSet) and other.mask == self.mask

    def __hash__(self) -> int:
        return hash(self.mask)

    def __str__(self) -> str:
        return format_hand(self.mask)

    def __repr__(self) -> str:
        return f"CardSet.parse({format_hand(self.mask)!r})"

    def sorted_text(self) -> str:
        """Cards in index order (suit S H D C, rank 7..A)."""
        return " ".join(format_card(c) for c in cards_of(self.mask))


class Declaration(NamedTuple):
    """One declaration, as the pure-Python references (:mod:`coinche_rl.reference`,
    :mod:`coinche_rl.reference_two`) record it: ``kind`` ``"carre"`` or ``"run"``, its
    ``points``, the ``mask`` of its cards, ``rank`` (the carré's rank, or the run's top
    rank; natural order 0..7 = 7..A), ``suit`` (the run's suit; -1 for a carré) and
    ``length`` (the number of cards). A record only: each reference finds and scores the
    declarations by its own rules."""
    kind: str
    points: int
    mask: int
    rank: int
    suit: int
    length: int
