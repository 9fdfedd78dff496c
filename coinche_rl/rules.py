"""Rule tables and rule sets: the one source of truth for card order, card points,
declaration values and every parameter of RULES.md §10 (docs/RULES.md, the rule book).

Strains (what a contract names):

======  =====  ======================================
value   name   meaning
======  =====  ======================================
0..3    S H D C  that suit is trump
4       NT     sans atout: no trump
5       AT     tout atout: every suit is trump
======  =====  ======================================

Tables are built at import from the short definitions below and shared by the numba
kernels, the Python game API and the environments; nothing retypes them.

>>> int(card_points_table(get_rules("ffb"))[HEARTS, 12])   # jack of hearts, hearts trump
20
>>> int(card_points_table(get_rules("ffb_sa_ta"))[AT].sum())
152
"""

from __future__ import annotations

import dataclasses
import typing
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Dict, Mapping, Optional, Tuple

import numpy as np
from numba import njit

from .cards import N_CARDS
from .values import format_value, parse_value

# ------------------------------------------------------------------ the table
#: The game's dimensions, read by every kernel under these names (seat arithmetic is
#: modulo :data:`N_SEATS`, a power of two; the teams alternate around the table).
N_SEATS = 4                 # seats, 0..3 in playing order
N_TEAMS = 2                 # teams: seats 0 and 2, seats 1 and 3
N_TRICKS = 8                # tricks of a deal
CARDS_PER_HAND = 8          # cards dealt to each seat
SEAT_MASK = N_SEATS - 1     # ``x & SEAT_MASK``: ``x`` modulo N_SEATS, negatives included

#: The classic family's deal (RULES.md §11): packets of 3 then 2 cards to each seat from
#: the one after the dealer, the next card turned up (the retourne), the stock dealt after
#: the prise (the taker 2 cards beside the retourne, every other seat 3).
CLASSIC_PACKETS = (3, 2)
CLASSIC_FIRST_HAND = 5                                   # cards held during the prise
CLASSIC_RETOURNE_AT = N_SEATS * CLASSIC_FIRST_HAND       # its place in the deck (20)
CLASSIC_STOCK = N_SEATS * CARDS_PER_HAND - CLASSIC_RETOURNE_AT - 1   # after it (11)
CLASSIC_REST = CARDS_PER_HAND - CLASSIC_FIRST_HAND       # to each other seat (3)
CLASSIC_TAKER_REST = CLASSIC_REST - 1                    # to the taker (2)


@njit(cache=True)
def team(seat):
    """Team of a seat: 0 for seats 0 and 2, 1 for seats 1 and 3."""
    return seat & (N_TEAMS - 1)


@njit(cache=True)
def partner(seat):
    """The partner of ``seat``: the seat across the table."""
    return (seat + N_TEAMS) & SEAT_MASK


@njit(cache=True)
def seat_after(seat, k):
    """The seat ``k`` places after ``seat`` in playing order (``k`` may be negative)."""
    return (seat + k) & SEAT_MASK

# --------------------------------------------------------------------------- strains
SPADES, HEARTS, DIAMONDS, CLUBS, NT, AT = range(6)
N_STRAINS = 6
STRAIN_NAMES = ("S", "H", "D", "C", "NT", "AT")
STRAIN_LONG_NAMES = ("spades", "hearts", "diamonds", "clubs", "no trump", "all trump")

# ranks by index: 0..7 = 7 8 9 T J Q K A
R7, R8, R9, RT, RJ, RQ, RK, RA = range(8)

#: order inside a trump suit, weakest first: 7 8 Q K 10 A 9 J
TRUMP_ORDER_WEAK_FIRST = (R7, R8, RQ, RK, RT, RA, R9, RJ)
#: order inside a plain suit (and at NT), weakest first: 7 8 9 J Q K 10 A
PLAIN_ORDER_WEAK_FIRST = (R7, R8, R9, RJ, RQ, RK, RT, RA)

#: card points by rank index (7 8 9 T J Q K A)
TRUMP_POINTS = (0, 0, 14, 10, 20, 3, 4, 11)       # 62 per suit
PLAIN_POINTS = (0, 0, 0, 10, 2, 3, 4, 11)         # 30 per suit
NT_POINTS = (0, 0, 0, 10, 2, 3, 4, 19)            # 38 per suit
AT_POINTS_TABLES = {
    "ffb": (0, 0, 9, 5, 13, 2, 3, 6),             # J13 9 9 A6 T5 K3 Q2: 38 per suit
    "vip": (0, 0, 9, 5, 14, 1, 3, 6),             # J14 9 9 A6 T5 K3 Q1: 38 per suit
    "scaled": TRUMP_POINTS,                        # trump table, deal scaled by 162/258
}
DIX_DE_DER = 10
CAPOT_DIX_DE_DER = 100
CAPOT_VALUE = 250           # value of a capot contract for scoring
BELOTE_POINTS = 20
#: packets of a coinche-family deal from a deck, each round from the seat after the
#: dealer on: 3, 2 then 3 cards (the classic family deals the first two rounds, then
#: turns up the retourne)
DEAL_PACKETS = (3, 2, 3)
#: points of the 32 cards under every 162-point table (suit contracts, NT, AT ffb / vip)
CARDS_POINTS = sum(TRUMP_POINTS) + 3 * sum(PLAIN_POINTS)                  # 152
#: card points of a deal with the dix de der
DEAL_POINTS = CARDS_POINTS + DIX_DE_DER                                   # 162
#: card points of a capot (the dix de der counts 100)
CAPOT_POINTS = CARDS_POINTS + CAPOT_DIX_DE_DER                            # 252
#: what a capot adds to a deal's card points
CAPOT_BONUS = CAPOT_POINTS - DEAL_POINTS                                  # 90
#: raw points of a deal under the ``scaled`` AT table (the trump table at every suit),
#: brought back to :data:`DEAL_POINTS`
SCALED_AT_DEAL_POINTS = 4 * sum(TRUMP_POINTS) + DIX_DE_DER                # 258
assert (CARDS_POINTS, DEAL_POINTS, CAPOT_POINTS, SCALED_AT_DEAL_POINTS) == (152, 162, 252, 258)
assert all(4 * sum(t) == CARDS_POINTS for k, t in AT_POINTS_TABLES.items() if k != "scaled")
assert 4 * sum(NT_POINTS) == CARDS_POINTS

#: ``ORDER[r]``: strength of rank r inside a trump suit / a plain suit (0 weakest .. 7).
TRUMP_RANK_ORDER = np.zeros(8, dtype=np.int64)
PLAIN_RANK_ORDER = np.zeros(8, dtype=np.int64)
for _i, _r in enumerate(TRUMP_ORDER_WEAK_FIRST):
    TRUMP_RANK_ORDER[_r] = _i
for _i, _r in enumerate(PLAIN_ORDER_WEAK_FIRST):
    PLAIN_RANK_ORDER[_r] = _i


def _build_order_tables():
    """``CARD_ORDER[strain, card]``: strength of the card inside its own suit under the
    strain (trump order for a trump suit and at AT, plain order otherwise);
    ``TRUMP_SUIT_MASK[strain]``: cards that beat any non-trump card (none at NT and AT,
    where only the led suit can win); ``ABOVE[strain, card]``: cards of the same suit
    that beat ``card`` under the strain."""
    order = np.zeros((N_STRAINS, 32), dtype=np.int64)
    above = np.zeros((N_STRAINS, 32), dtype=np.int64)
    trump_mask = np.zeros(N_STRAINS, dtype=np.int64)
    for strain in range(N_STRAINS):
        for c in range(32):
            s, r = c >> 3, c & 7
            trump_like = strain == AT or strain == s
            order[strain, c] = TRUMP_RANK_ORDER[r] if trump_like else PLAIN_RANK_ORDER[r]
        for c in range(32):
            s = c >> 3
            m = 0
            for d in range(s * 8, s * 8 + 8):
                if order[strain, d] > order[strain, c]:
                    m |= 1 << d
            above[strain, c] = m
        if strain < 4:
            trump_mask[strain] = 0xFF << (8 * strain)
    return order, above, trump_mask


CARD_ORDER, ABOVE, TRUMP_SUIT_MASK = _build_order_tables()

# ------------------------------------------------------------------- declarations
#: carré points by rank index (7 8 9 T J Q K A): suit contracts and AT / NT.
CARRE_POINTS_SUIT = (0, 0, 150, 100, 200, 100, 100, 100)
CARRE_POINTS_NT = (0, 0, 100, 150, 100, 100, 100, 200)
SEQUENCE_POINTS = {3: 20, 4: 50, 5: 100}          # 5 or more: cent
TIERCE, CINQUANTE, CENT, CARRE = 1, 2, 3, 4
DECLARATION_NAMES = {TIERCE: "tierce", CINQUANTE: "cinquante", CENT: "cent", CARRE: "carré"}


def sequence_points(length: int) -> int:
    if length < 3:
        return 0
    return SEQUENCE_POINTS[min(length, 5)]


def carre_points(rank: int, strain: int) -> int:
    return (CARRE_POINTS_NT if strain == NT else CARRE_POINTS_SUIT)[rank]


def _run_splits(lo: int, hi: int):
    """All ways to cut the run of ranks lo..hi-1 into disjoint declared sequences
    (length >= 3), as lists of (start, length)."""
    n = hi - lo
    if n < 3:
        yield []
        return
    # first position either not used, or starts a sequence of length L
    for rest in _run_splits(lo + 1, hi):
        yield rest
    for length in range(3, n + 1):
        for rest in _run_splits(lo + length, hi):
            yield [(lo, length)] + rest


def _build_sequence_tables():
    """For each 8-bit rank mask of one suit: the best set of sequences.

    ``SEQ_POINTS[m]``, ``SEQ_KEY[m]`` (sort key of the best single sequence, 0 if none,
    without the trump bit), ``SEQ_USED[m]`` (rank mask of the cards used) for the FFB rule
    (a card counts in one declaration only: runs may be cut, the split that scores most is
    taken, then the one whose best sequence ranks highest) and the ``_SHARE`` variants
    (each maximal run is one declaration scored by its length).
    """
    pts = np.zeros(256, dtype=np.int64)
    key = np.zeros(256, dtype=np.int64)
    used = np.zeros(256, dtype=np.int64)
    pts_s = np.zeros(256, dtype=np.int64)
    key_s = np.zeros(256, dtype=np.int64)
    used_s = np.zeros(256, dtype=np.int64)
    for m in range(256):
        runs = []
        r = 0
        while r < 8:
            if m >> r & 1:
                start = r
                while r < 8 and m >> r & 1:
                    r += 1
                runs.append((start, r))
            else:
                r += 1
        # combine per-run best splits (runs are independent)
        total, bestkey, usedmask = 0, 0, 0
        for lo, hi in runs:
            cand = (0, 0, 0)
            for split in _run_splits(lo, hi):
                p = sum(sequence_points(L) for _, L in split)
                k = max((sequence_key(L, s + L - 1) for s, L in split), default=0)
                u = 0
                for s, L in split:
                    u |= ((1 << L) - 1) << s
                if (p, k) > cand[:2]:
                    cand = (p, k, u)
            total += cand[0]
            bestkey = max(bestkey, cand[1])
            usedmask |= cand[2]
        pts[m], key[m], used[m] = total, bestkey, usedmask
        total, bestkey, usedmask = 0, 0, 0
        for lo, hi in runs:
            L = hi - lo
            if L >= 3:
                total += sequence_points(L)
                bestkey = max(bestkey, sequence_key(L, hi - 1))
                usedmask |= ((1 << L) - 1) << lo
        pts_s[m], key_s[m], used_s[m] = total, bestkey, usedmask
    return pts, key, used, pts_s, key_s, used_s


# Declaration sort keys: larger is stronger (RULES.md §5). Carrés rank above every
# sequence, by points then by plain rank order; sequences by length, then top card,
# then trump (the trump bit is added by the kernel: key + 1).
CARRE_KEY_BASE = 1 << 20
SEQ_KEY_BASE = 1 << 10


def sequence_key(length: int, top_rank: int) -> int:
    """Sort key of a sequence (without the trump bit): length, then top card."""
    return SEQ_KEY_BASE + length * 32 + top_rank * 2


def carre_key(rank: int, strain: int) -> int:
    return CARRE_KEY_BASE + carre_points(rank, strain) * 16 + int(PLAIN_RANK_ORDER[rank])


(SEQ_POINTS, SEQ_KEY, SEQ_USED,
 SEQ_POINTS_SHARE, SEQ_KEY_SHARE, SEQ_USED_SHARE) = _build_sequence_tables()
#: ``RUN_POINTS[length]``: points of one run of ``length`` cards (0..8) declared as one
#: declaration (tierce 20, cinquante 50, cent 100 for 5 or more)
RUN_POINTS = np.array([sequence_points(n) for n in range(9)], dtype=np.int64)
#: ``CARRE_PTS[strain, rank]`` and ``CARRE_KEYS[strain, rank]`` (0 for 7s and 8s)
CARRE_PTS = np.array([[carre_points(r, s) for r in range(8)] for s in range(N_STRAINS)],
                     dtype=np.int64)
CARRE_KEYS = np.array([[carre_key(r, s) if carre_points(r, s) else 0 for r in range(8)]
                       for s in range(N_STRAINS)], dtype=np.int64)

# ------------------------------------------------------------------------ rule sets
_CHOICES = {
    "family": ("coinche", "classic", "two"),
    "strains": ("suits", "suits_nt_at"),
    "contract_counts": ("cards", "cards+belote", "cards+declarations",
                        "cards+belote+declarations"),
    "made_conditions": ("both", "bid_only"),
    "coinche_scoring": ("ffb", "cards_plus_bid", "all_plus_bid"),
    "at_points": tuple(AT_POINTS_TABLES),
    "rounding": ("nearest10", "none"),
}


class UnknownPresetError(ValueError):
    """A rule-set preset name that does not exist."""


class InvalidRulesError(ValueError):
    """A rule-set parameter with a wrong type, an out-of-range value, or a contradiction."""


@dataclass(frozen=True)
class RuleSet:
    """An immutable set of rule parameters (RULES.md §10), validated on construction.

    >>> RuleSet().name, RuleSet().max_bid
    ('ffb', 160)
    >>> get_rules("ffb", target=2000).target
    2000
    >>> RuleSet(min_bid=170)
    Traceback (most recent call last):
    ...
    coinche_rl.rules.InvalidRulesError: min_bid=170 must not exceed max_bid=160
    """

    #: preset this rule set was derived from (informational; records store it)
    name: str = "ffb"
    #: ``coinche`` (8 cards dealt, §4 auction), ``classic`` (§11, the retourne) or
    #: ``two`` (belote for two players, §12: a hand and stacks of cards on the table)
    family: str = "coinche"
    #: ``suits`` or ``suits_nt_at`` (adds NT and AT contracts)
    strains: str = "suits"
    min_bid: int = 80
    max_bid: int = 160
    bid_step: int = 10
    #: a capot bid is still allowed after a coinche (it cancels the coinche)
    capot_after_coinche: bool = False
    #: (coinche, surcoinche) multipliers
    multipliers: Tuple[int, int] = (2, 4)
    declarations: bool = True
    #: a card may serve several declarations (each maximal run is one declaration)
    declarations_share_cards: bool = False
    #: a carré of 7s or 8s cancels every declaration of the deal
    carre_low_cancels: bool = False
    #: a player may decline to declare / to announce belote
    optional_declare: bool = False
    optional_belote: bool = False
    #: belote goes to the defenders when its holders fail (default: imprenable)
    belote_takeable: bool = False
    #: which points count for the made conditions
    contract_counts: str = "cards+belote+declarations"
    #: ``both`` (total >= bid and > defenders) or ``bid_only`` (contrée)
    made_conditions: str = "both"
    #: base the defenders get on a failed contract (and the takers on a coinched make)
    fail_base: int = 160
    #: ``ffb`` ((base + everything) x multiplier), ``cards_plus_bid`` (card points + bid x
    #: multiplier), ``all_plus_bid`` (coinched and made: base + bid x multiplier + every
    #: belote and declaration to the takers; colver)
    coinche_scoring: str = "ffb"
    #: AT point table: ``ffb`` 13/9/6/5/3/2, ``vip`` 14/9/6/5/3/1, ``scaled`` 162/258
    at_points: str = "ffb"
    #: card value of a générale (one player of the takers takes all 8 tricks) instead of
    #: the capot's 252; 0 = no générale
    generale_bonus: int = 0
    must_undertrump: bool = False
    overtrump_partner: bool = True
    rounding: str = "nearest10"
    target: int = 1000
    shuffle_between_deals: bool = True
    #: FFB §9: a team that failed or was capot cannot win the match on that deal (its
    #: belote alone must not make it win)
    belote_cannot_win: bool = True
    #: gather-cut-deal: after this many void deals in a row, shuffle (0: never)
    reshuffle_after_voids: int = 0
    #: gather-cut-deal: each part of the cut holds at least this many cards
    min_cut: int = 3
    #: a tie (the takers' total equal to the defenders') is a *litige*: the takers'
    #: points are held aside for the winner of the next deal (always in the classic
    #: family, never in the coinche family, an option of the two family)
    litige: bool = False
    #: the belote (trump K + Q in one player's cards) scores; off only in the two
    #: family (``belote_decouverte``)
    belote: bool = True
    #: two family: the seed's deal, a hand plus stacks on the table (``belote_a_deux``);
    #: False: every card on the table, no hand (``belote_decouverte``)
    hand_cards: bool = True

    def __post_init__(self):
        for fname, choices in _CHOICES.items():
            v = getattr(self, fname)
            if v not in choices:
                raise InvalidRulesError(
                    f"{fname}={v!r} is not valid: expected one of {', '.join(map(repr, choices))}")
        for fname in ("min_bid", "max_bid", "bid_step", "fail_base", "generale_bonus", "target",
                      "reshuffle_after_voids", "min_cut"):
            v = getattr(self, fname)
            if isinstance(v, bool) or not isinstance(v, (int, np.integer)):
                raise InvalidRulesError(f"{fname}={v!r} must be an integer")
        for f in dataclasses.fields(self):
            if f.type in ("bool", bool) and not isinstance(getattr(self, f.name), (bool, np.bool_)):
                raise InvalidRulesError(f"{f.name}={getattr(self, f.name)!r} must be True or False")
        if self.bid_step <= 0 or self.bid_step % 10:
            raise InvalidRulesError(f"bid_step={self.bid_step} must be a positive multiple of 10")
        if self.min_bid < 80 or self.min_bid % 10:
            raise InvalidRulesError(f"min_bid={self.min_bid} must be a multiple of 10, at least 80")
        if self.max_bid > MAX_BID_VALUE:
            raise InvalidRulesError(
                f"max_bid={self.max_bid} exceeds {MAX_BID_VALUE}, the largest value of the action encoding")
        if self.min_bid > self.max_bid:
            raise InvalidRulesError(f"min_bid={self.min_bid} must not exceed max_bid={self.max_bid}")
        if (self.max_bid - self.min_bid) % self.bid_step:
            raise InvalidRulesError(
                f"max_bid={self.max_bid} is not reachable from min_bid={self.min_bid} in steps of {self.bid_step}")
        m = self.multipliers
        if (not isinstance(m, tuple) or len(m) != 2
                or not all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) for x in m)
                or not 1 < m[0] < m[1]):
            raise InvalidRulesError(
                f"multipliers={m!r} must be a tuple (coinche, surcoinche) of integers with 1 < coinche < surcoinche")
        if self.target <= 0:
            raise InvalidRulesError(f"target={self.target} must be positive")
        if not 1 <= self.min_cut <= 16:
            raise InvalidRulesError(f"min_cut={self.min_cut} must be in 1..16 (cards in each part of the cut)")
        if self.reshuffle_after_voids < 0:
            raise InvalidRulesError(f"reshuffle_after_voids={self.reshuffle_after_voids} must be >= 0")
        if self.fail_base not in (160, 162):
            raise InvalidRulesError(f"fail_base={self.fail_base} must be 160 or 162")
        if self.generale_bonus not in (0, 350):
            raise InvalidRulesError(f"generale_bonus={self.generale_bonus} must be 0 (none) or 350")
        if self.strains == "suits" and self.at_points != "ffb":
            raise InvalidRulesError(
                f"at_points={self.at_points!r} has no effect without AT contracts: set strains='suits_nt_at'")
        if not self.declarations:
            for opt in ("declarations_share_cards", "carre_low_cancels", "optional_declare"):
                if getattr(self, opt):
                    raise InvalidRulesError(f"{opt}=True contradicts declarations=False")
            if "declarations" in self.contract_counts:
                raise InvalidRulesError(
                    f"contract_counts={self.contract_counts!r} counts declarations but declarations=False")
        if self.family != "coinche":
            # the prise (classic, two) has no bids, capot or coinche: those switches must
            # keep their defaults, so that a rule set never carries a setting with no effect
            base = RuleSet()
            for opt in ("capot_after_coinche", "min_bid", "max_bid", "bid_step", "multipliers",
                        "made_conditions", "coinche_scoring", "generale_bonus"):
                if getattr(self, opt) != getattr(base, opt):
                    raise InvalidRulesError(
                        f"{opt}={getattr(self, opt)!r} needs family='coinche': the {self.family} "
                        f"prise has no bids, capot or coinche (keep the default {getattr(base, opt)!r})")
        if self.family == "two":
            fixed = dict(strains="suits", contract_counts="cards", fail_base=162, rounding="none",
                         declarations_share_cards=False, carre_low_cancels=False,
                         optional_declare=False, optional_belote=False, belote_takeable=False,
                         must_undertrump=False, overtrump_partner=True, belote_cannot_win=False,
                         at_points="ffb", shuffle_between_deals=True, reshuffle_after_voids=0,
                         min_cut=3)
            for opt, v in fixed.items():
                if getattr(self, opt) != v:
                    raise InvalidRulesError(
                        f"{opt}={getattr(self, opt)!r} is not a rule of belote for two players "
                        f"(RULES.md §12): family='two' needs {opt}={v!r}")
        else:
            for opt in ("belote", "hand_cards"):
                if not getattr(self, opt):
                    raise InvalidRulesError(
                        f"{opt}=False needs family='two' (belote for two players, RULES.md §12)")
            need = self.family == "classic"
            if self.litige != need:
                raise InvalidRulesError(
                    f"litige={self.litige!r}: the {self.family} family "
                    f"{'always has' if need else 'has no'} litige (it is an option of family='two')")


    # ------------------------------------------------------------------ helpers
    def replace(self, **overrides) -> "RuleSet":
        """A copy with some parameters changed (validated).

        :raises InvalidRulesError: for an unknown parameter name or a bad value.
        """
        names = {f.name for f in dataclasses.fields(self)}
        bad = sorted(set(overrides) - names)
        if bad:
            raise InvalidRulesError(
                f"unknown rule parameter(s) {', '.join(map(repr, bad))}: valid ones are {', '.join(sorted(names))}")
        if "multipliers" in overrides and isinstance(overrides["multipliers"], list):
            overrides["multipliers"] = tuple(overrides["multipliers"])
        return dataclasses.replace(self, **overrides)

    def overrides(self) -> Dict[str, object]:
        """Parameters that differ from the preset named by ``self.name``."""
        try:
            base = PRESETS[self.name]
        except KeyError:
            base = RuleSet()
        out = {}
        for f in dataclasses.fields(self):
            if f.name == "name":
                continue
            v = getattr(self, f.name)
            if v != getattr(base, f.name):
                out[f.name] = list(v) if isinstance(v, tuple) else v
        return out

    def to_dict(self) -> Dict[str, object]:
        return {f.name: (list(getattr(self, f.name)) if isinstance(getattr(self, f.name), tuple)
                         else getattr(self, f.name)) for f in dataclasses.fields(self)}

    @property
    def allowed_strains(self) -> Tuple[int, ...]:
        return (0, 1, 2, 3) if self.strains == "suits" else (0, 1, 2, 3, NT, AT)

    @property
    def bid_values(self) -> Tuple[int, ...]:
        return tuple(range(self.min_bid, self.max_bid + 1, self.bid_step))


#: largest numeric bid value the action encoding holds (bids 80..180 by 10)
MIN_BID_VALUE = 80
MAX_BID_VALUE = 180
N_BID_VALUES = (MAX_BID_VALUE - MIN_BID_VALUE) // 10 + 1

_CLASSIC = dict(family="classic", declarations=False, contract_counts="cards+belote",
                fail_base=162, rounding="none", must_undertrump=True, target=1000,
                belote_cannot_win=False, litige=True)
_TWO = dict(family="two", contract_counts="cards", fail_base=162, rounding="none",
            belote_cannot_win=False)
_PRESETS: Dict[str, RuleSet] = {
    "ffb": RuleSet(name="ffb"),
    "ffb_sa_ta": RuleSet(name="ffb_sa_ta", strains="suits_nt_at"),
    "funbelote": RuleSet(name="funbelote", strains="suits_nt_at", capot_after_coinche=True,
                         generale_bonus=350, overtrump_partner=False, target=1501),
    "coinche_x3": RuleSet(name="coinche_x3", strains="suits_nt_at", multipliers=(2, 3),
                          declarations_share_cards=True, carre_low_cancels=True,
                          optional_declare=True, contract_counts="cards", made_conditions="bid_only",
                          fail_base=162, coinche_scoring="cards_plus_bid", target=1000),
    "ludiclub_coinche": RuleSet(name="ludiclub_coinche", strains="suits_nt_at", at_points="scaled",
                                optional_belote=True, target=3000, shuffle_between_deals=False,
                                reshuffle_after_voids=4, min_cut=2),
    "ludiclub_contree": RuleSet(name="ludiclub_contree", strains="suits_nt_at", at_points="scaled",
                                declarations=False, optional_belote=True,
                                contract_counts="cards+belote", made_conditions="bid_only",
                                target=3000, shuffle_between_deals=False,
                                reshuffle_after_voids=4, min_cut=2),
    "colver": RuleSet(name="colver", multipliers=(2, 3), declarations=False, belote_takeable=True,
                      contract_counts="cards+belote", made_conditions="bid_only", fail_base=162,
                      coinche_scoring="all_plus_bid", target=2000, belote_cannot_win=False),
    "classic": RuleSet(name="classic", **_CLASSIC),
    "classic_declarations": RuleSet(name="classic_declarations", **{
        **_CLASSIC, "declarations": True, "contract_counts": "cards+belote+declarations"}),
    "vip_classic": RuleSet(name="vip_classic", **{
        **_CLASSIC, "strains": "suits_nt_at", "at_points": "vip", "target": 501}),
    "belote_a_deux": RuleSet(name="belote_a_deux", **_TWO),
    "belote_decouverte": RuleSet(name="belote_decouverte", **{
        **_TWO, "hand_cards": False, "declarations": False, "belote": False}),
}
#: every preset by name (read-only)
PRESETS: Mapping[str, RuleSet] = MappingProxyType(_PRESETS)


#: where each preset comes from (RULES.md §10, files in shared/seeds/)
PRESET_SOURCES: Mapping[str, str] = MappingProxyType({
    "ffb": "FFB official rules (seed 000, first part)",
    "ffb_sa_ta": "FFB, variant Sans Atout / Tout Atout (000, §11)",
    "funbelote": "FunBelote (000, later part)",
    "coinche_x3": "'3e mode' (000) and vipbelote coinche (004)",
    "ludiclub_coinche": "Ludiclub, coinche with declarations (003)",
    "ludiclub_contree": "Ludiclub, contrée without declarations (003)",
    "colver": "the colver engine (PyPI colver, colver's own docs/RULES.md)",
    "classic": "classic belote (002)",
    "classic_declarations": "classic belote with declarations (002 option, 004)",
    "vip_classic": "vipbelote classic with NT/AT in round 2 (004)",
    "belote_a_deux": "belote for two players, hand and table (000; RULES.md §12)",
    "belote_decouverte": "belote découverte for two players, every card on the table (RULES.md §12)",
})

#: the presets of each family, in :data:`PRESETS` order
FAMILY_PRESETS: Mapping[str, Tuple[str, ...]] = MappingProxyType({
    fam: tuple(n for n, r in _PRESETS.items() if r.family == fam) for fam in _CHOICES["family"]})
#: the presets of the four-player families (coinche and classic)
FOUR_PLAYER_PRESETS: Tuple[str, ...] = tuple(n for n, r in _PRESETS.items() if r.family != "two")


def presets_markdown() -> str:
    """The table of every preset and every parameter value (docs/presets.md holds it;
    a test keeps the two equal)."""
    names = list(PRESETS)

    def cell(v):
        if isinstance(v, bool):
            return "T" if v else "F"
        if isinstance(v, tuple):
            return "(" + ",".join(map(str, v)) + ")"
        return str(v)

    lines = ["| parameter | " + " | ".join(names) + " |", "|---" * (len(names) + 1) + "|"]
    for f in dataclasses.fields(RuleSet):
        if f.name == "name":
            continue
        lines.append(f"| {f.name} | " + " | ".join(cell(getattr(PRESETS[n], f.name)) for n in names) + " |")
    return "\n".join(lines)


def get_rules(rules="ffb", **overrides) -> RuleSet:
    """A rule set from a preset name (or a RuleSet) plus parameter overrides.

    >>> get_rules("ffb_sa_ta").strains
    'suits_nt_at'
    >>> get_rules("belotte")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    coinche_rl.rules.UnknownPresetError: unknown rule preset 'belotte': valid presets are 'ffb', 'ffb_sa_ta', ...

    :raises UnknownPresetError: for an unknown name (the message lists the valid ones).
    :raises InvalidRulesError: for a bad override.
    """
    if isinstance(rules, RuleSet):
        base = rules
    elif isinstance(rules, str):
        try:
            base = PRESETS[rules]
        except KeyError:
            raise UnknownPresetError(
                f"unknown rule preset {rules!r}: valid presets are {', '.join(map(repr, PRESETS))}") from None
    else:
        raise TypeError(f"rules must be a preset name or a RuleSet, not {type(rules).__name__}")
    return base.replace(**overrides) if overrides else base


def four_player_rules(rules="ffb", **overrides) -> RuleSet:
    """:func:`get_rules` for the four-player families (coinche, classic): a rule set of
    belote for two players is refused with the API that plays it.

    >>> four_player_rules("belote_a_deux")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    coinche_rl.rules.InvalidRulesError: rules 'belote_a_deux' are belote for two players (family='two'): ...
    """
    r = get_rules(rules, **overrides)
    if r.family == "two":
        raise InvalidRulesError(
            f"rules {r.name!r} are belote for two players (family='two'): play them with "
            f"coinche_rl.two_player.TwoPlayerDeal / TwoPlayerMatch; this API is for four "
            f"players ({', '.join(FOUR_PLAYER_PRESETS)})")
    return r




def _split_top(text: str, sep: str = ","):
    """``text`` split at ``sep`` outside parentheses (``multipliers=(2,3)`` stays one)."""
    parts, depth, cur = [], 0, []
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
        if ch == sep and depth == 0:
            parts.append("".join(cur))
            cur = []
        else:
            cur.append(ch)
    parts.append("".join(cur))
    return parts


def _typed_value(field_name: str, kind, text: str, spec: str):
    """The text of an override as the value of the RuleSet field (typed from the
    field's type); an :class:`InvalidRulesError` naming the field, the value and the
    accepted form otherwise."""
    t = text.strip()

    def bad(expected: str):
        return InvalidRulesError(f"rules {spec!r}: {field_name}={text!r}: expected {expected}")

    if kind in (bool, int, str):
        # the one parser of key=value texts, shared with the agents' spec parameters
        try:
            return parse_value(t, kind, _CHOICES.get(field_name, ()) if kind is str else ())
        except ValueError as e:
            raise bad(str(e).removeprefix("expected ")) from None
    # Tuple[int, int]: (coinche, surcoinche) multipliers, written 2/4 or (2,4)
    items = [x for x in t.strip("()").replace("/", ",").replace("x", ",").split(",") if x.strip()]
    try:
        values = tuple(int(x) for x in items)
    except ValueError:
        values = ()
    if len(values) != 2:
        raise bad("two integers, coinche/surcoinche, such as 2/4")
    return values


def parse_rules(spec: str) -> RuleSet:
    """A rule set from its text, as the command line takes it: a preset name, then
    optionally a colon and ``FIELD=VALUE`` overrides separated by commas, each value
    typed from the :class:`RuleSet` field's type (``true``/``false`` for a switch, an
    integer, one of a choice's words, ``2/4`` for the multipliers) and the whole checked
    by the RuleSet's own validation.

    >>> r = parse_rules("ffb:must_undertrump=true,target=2000")
    >>> r.name, r.must_undertrump, r.target
    ('ffb', True, 2000)
    >>> parse_rules("coinche_x3:multipliers=2/4").multipliers
    (2, 4)
    >>> parse_rules("ffb:trget=2000")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    coinche_rl.rules.InvalidRulesError: rules 'ffb:trget=2000': unknown field 'trget': valid fields are family, strains, ...

    :raises UnknownPresetError: for an unknown preset (the message lists the valid ones).
    :raises InvalidRulesError: for a malformed override, an unknown field, a value of the
        wrong type, or a rule set the RuleSet's validation refuses; the one-line message
        names the field and the value.
    """
    if not isinstance(spec, str):
        raise TypeError(f"a rules text must be a string, not {type(spec).__name__}")
    preset, colon, rest = spec.strip().partition(":")
    preset = preset.strip()
    if not colon and "=" in preset:
        raise InvalidRulesError(
            f"rules {spec!r}: give the preset first, then the overrides after a colon, "
            f"e.g. ffb:{preset}")
    base = get_rules(preset)
    if not colon:
        return base
    hints = typing.get_type_hints(RuleSet)
    fields = [f.name for f in dataclasses.fields(RuleSet) if f.name != "name"]
    overrides: Dict[str, object] = {}
    for item in _split_top(rest):
        if not item.strip():
            raise InvalidRulesError(
                f"rules {spec!r}: an empty override: write PRESET:FIELD=VALUE,FIELD=VALUE")
        key, eq, value = item.partition("=")
        key = key.strip()
        if not eq or not key:
            raise InvalidRulesError(
                f"rules {spec!r}: {item.strip()!r} is not FIELD=VALUE (e.g. ffb:target=2000)")
        if key == "name":
            raise InvalidRulesError(
                f"rules {spec!r}: name is the preset, given before the colon; valid fields "
                f"are {', '.join(fields)}")
        if key not in fields:
            raise InvalidRulesError(
                f"rules {spec!r}: unknown field {key!r}: valid fields are {', '.join(fields)}")
        if key in overrides:
            raise InvalidRulesError(f"rules {spec!r}: {key} is given twice")
        kind = hints[key]
        kind = kind if kind in (bool, int, str) else tuple
        overrides[key] = _typed_value(key, kind, value, spec)
    try:
        return base.replace(**overrides)
    except InvalidRulesError as e:
        raise InvalidRulesError(f"rules {spec!r}: {e}") from None


def rules_label(rules: RuleSet) -> str:
    """The rule set as :func:`parse_rules` reads it: the preset's name, then its
    overrides (``'ffb:must_undertrump=true,target=2000'``; ``'ffb'`` without any).

    >>> rules_label(parse_rules("ffb:target=2000,must_undertrump=yes"))
    'ffb:must_undertrump=true,target=2000'
    """
    items = []
    for k, v in rules.overrides().items():
        if isinstance(v, (list, tuple)):
            v = "/".join(map(str, v))
        else:
            v = format_value(v)
        items.append(f"{k}={v}")
    return rules.name + (":" + ",".join(items) if items else "")


# ----------------------------------------------------- kernel parameter vectors
# The kernels take a RuleSet as a small int64 vector; these are its slots.
P_FAMILY, P_NT_AT, P_MIN_BID, P_MAX_BID, P_BID_STEP, P_CAPOT_AFTER_COINCHE, \
    P_MULT_COINCHE, P_MULT_SURCOINCHE, P_DECLARATIONS, P_DECL_SHARE, P_CARRE_LOW_CANCELS, \
    P_OPTIONAL_DECLARE, P_OPTIONAL_BELOTE, P_BELOTE_TAKEABLE, P_COUNT_BELOTE, \
    P_COUNT_DECLARATIONS, P_BID_ONLY, P_FAIL_BASE, P_COINCHE_SCORING, P_AT_TABLE, \
    P_GENERALE_BONUS, P_PLAY_RULES, P_ROUNDING, P_TARGET, P_SHUFFLE, P_BID_LADDER, \
    P_LITIGE, P_BELOTE, P_HAND_CARDS = range(29)
N_PARAMS = 29
#: ``P[P_FAMILY]``: the family's id (the four-player kernels read ``!= FAMILY_COINCHE`` as
#: classic; a two-family rule set never reaches them)
FAMILY_COINCHE, FAMILY_CLASSIC, FAMILY_TWO = range(3)

#: The card-play options of RULES.md §6 as bits of one word, ``P[P_PLAY_RULES]``, the
#: only rule parameter the legality kernel reads (``engine.card_play_rule``). A card-play
#: variant is a ``RuleSet`` field, its bit here, and its branch in that kernel; the
#: solver, the random play-outs and the inferences of voids and ceilings derive from it.
PLAY_MUST_UNDERTRUMP = 1        # void, unable to overtrump: must still trump lower
PLAY_OVERTRUMP_PARTNER = 2      # must overtrump (or, trump led, play higher) over the partner
#: ``(RuleSet field, bit)`` of each card-play option
PLAY_RULE_BITS = (("must_undertrump", PLAY_MUST_UNDERTRUMP),
                  ("overtrump_partner", PLAY_OVERTRUMP_PARTNER))
#: the number of distinct words (the bits are powers of two, each used once)
N_PLAY_WORDS = 1 << len(PLAY_RULE_BITS)
assert sorted(bit for _, bit in PLAY_RULE_BITS) == [1 << i for i in range(len(PLAY_RULE_BITS))]


def play_rules_word(rules: RuleSet) -> int:
    """The card-play options of ``rules`` as the bits of ``PLAY_RULE_BITS``.

    >>> play_rules_word(get_rules("ffb")), play_rules_word(get_rules("ffb", must_undertrump=True))
    (2, 3)
    """
    return sum(bit for name, bit in PLAY_RULE_BITS if getattr(rules, name))


def params_vector(rules: RuleSet) -> np.ndarray:
    """The rule set as the int64 vector the kernels read (slots ``P_*``)."""
    p = np.zeros(N_PARAMS, dtype=np.int64)
    p[P_FAMILY] = _CHOICES["family"].index(rules.family)
    p[P_NT_AT] = rules.strains == "suits_nt_at"
    p[P_MIN_BID], p[P_MAX_BID], p[P_BID_STEP] = rules.min_bid, rules.max_bid, rules.bid_step
    p[P_CAPOT_AFTER_COINCHE] = rules.capot_after_coinche
    p[P_MULT_COINCHE], p[P_MULT_SURCOINCHE] = rules.multipliers
    p[P_DECLARATIONS] = rules.declarations
    p[P_DECL_SHARE] = rules.declarations_share_cards
    p[P_CARRE_LOW_CANCELS] = rules.carre_low_cancels
    p[P_OPTIONAL_DECLARE] = rules.optional_declare
    p[P_OPTIONAL_BELOTE] = rules.optional_belote
    p[P_BELOTE_TAKEABLE] = rules.belote_takeable
    p[P_COUNT_BELOTE] = "belote" in rules.contract_counts
    p[P_COUNT_DECLARATIONS] = "declarations" in rules.contract_counts
    p[P_BID_ONLY] = rules.made_conditions == "bid_only"
    p[P_FAIL_BASE] = rules.fail_base
    p[P_COINCHE_SCORING] = _CHOICES["coinche_scoring"].index(rules.coinche_scoring)
    p[P_AT_TABLE] = AT_TABLE_NAMES.index(rules.at_points)
    p[P_GENERALE_BONUS] = rules.generale_bonus
    p[P_PLAY_RULES] = play_rules_word(rules)
    p[P_ROUNDING] = rules.rounding == "nearest10"
    p[P_TARGET] = rules.target
    p[P_SHUFFLE] = rules.shuffle_between_deals
    # bit i set: the numeric bid MIN_BID_VALUE + 10 * i is on the rule set's ladder
    p[P_BID_LADDER] = sum(1 << ((v - MIN_BID_VALUE) // 10) for v in rules.bid_values)
    p[P_LITIGE] = rules.litige
    p[P_BELOTE] = rules.belote
    p[P_HAND_CARDS] = rules.hand_cards
    return p


def card_points_table(rules: RuleSet) -> np.ndarray:
    """``points[strain, card]`` (int64, shape (6, 32)) under the rule set's AT table."""
    return ALL_CARD_POINTS[AT_TABLE_NAMES.index(rules.at_points)]


def _build_card_points(at_table: str) -> np.ndarray:
    at = AT_POINTS_TABLES[at_table]
    t = np.zeros((N_STRAINS, 32), dtype=np.int64)
    for strain in range(N_STRAINS):
        for c in range(32):
            s, r = c >> 3, c & 7
            if strain == NT:
                t[strain, c] = NT_POINTS[r]
            elif strain == AT:
                t[strain, c] = at[r]
            else:
                t[strain, c] = TRUMP_POINTS[r] if s == strain else PLAIN_POINTS[r]
    return t


AT_TABLE_NAMES = tuple(AT_POINTS_TABLES)
#: ``ALL_CARD_POINTS[at_table, strain, card]``: card points for each AT table choice
ALL_CARD_POINTS = np.stack([_build_card_points(n) for n in AT_TABLE_NAMES])


def is_int(v) -> bool:
    """An ``int`` or a numpy integer, and not a ``bool``."""
    return isinstance(v, (int, np.integer)) and not isinstance(v, bool)


def check_int(v, name: str, lo: int, hi: Optional[int] = None, *, error=ValueError,
              message: str = "{name}={value!r} must be an int {range}",
              span: str = "in {lo}..{hi}") -> int:
    """``int(v)`` when ``v`` is an int (:func:`is_int`) in ``lo..hi`` (no upper bound when
    ``hi`` is None); else raise ``error`` with ``message``, whose ``{range}`` is ``span``
    or ``>= {lo}``. Modules fix ``error`` and the wording with ``functools.partial``.

    >>> check_int(3, "n", 1, 8)
    3
    >>> check_int(True, "n", 0)
    Traceback (most recent call last):
    ...
    ValueError: n=True must be an int >= 0
    """
    if not is_int(v) or v < lo or (hi is not None and v > hi):
        rng = span.format(lo=lo, hi=hi) if hi is not None else f">= {lo}"
        raise error(message.format(name=name, value=v, range=rng))
    return int(v)


def strain_name(strain: int) -> str:
    return STRAIN_NAMES[strain]


assert N_SEATS * CARDS_PER_HAND == N_CARDS and sum(DEAL_PACKETS) == CARDS_PER_HAND
assert N_TRICKS == CARDS_PER_HAND and N_SEATS & SEAT_MASK == 0
