"""The numba engine: one deal as a fixed-size int64 state vector, stepped by kernels.

Everything that runs per card or per bid is here, in one module, because it is one
call graph (numba caches per module and does not notice edits in other modules).
Kernels take the state ``S`` (int64, shape ``(STATE_SIZE,)``), the rule vector ``P``
(int64, :func:`coinche_rl.rules.params_vector`) and plain ints; they never raise and
never allocate Python objects. Randomness comes in as a seed (splitmix64 streams).

State layout (slots ``S_*``, offsets derived from :data:`STATE_LAYOUT`; all masks are
32-bit card masks held in int64; the sentinels have names: :data:`NO_SEAT`,
:data:`NO_CARD`, :data:`DECL_UNRESOLVED`, :data:`DECL_NOBODY`, ``MADE_*``):

=====================  ====  ===========================================================
slot                   size  meaning
=====================  ====  ===========================================================
``S_HAND``             4     cards still held by each seat
``S_INIT_HAND``        4     hands as dealt
``S_DEALER``           1     dealer seat
``S_PHASE``            1     ``AUCTION`` 0, ``PLAY`` 1, ``DONE`` 2
``S_CUR``              1     seat to act (-1 when done)
``S_BID_VALUE``        1     highest bid value (0: none; 250 for capot)
``S_BID_STRAIN``       1     its strain (0..5)
``S_BID_SEAT``         1     its seat (-1: none)
``S_CAPOT``            1     1 if the contract is a capot bid
``S_COINCHE``          1     0, 1 coinched, 2 surcoinched
``S_COINCHE_SEAT``     1     seat that coinched (-1)
``S_PASSES``           1     passes in a row since the last bid or coinche
``S_N_AUCTION``        1     auction actions so far
``S_VOID``             1     1 if all four passed (void deal)
``S_TRICK_NO``         1     current trick 0..7
``S_LEADER``           1     leader of the current trick
``S_TRICK_N``          1     cards in the current trick (0..3)
``S_WIN_CARD``         1     card winning the current trick
``S_WIN_SEAT``         1     seat that played it
``S_PLAYED``           1     mask of cards played
``S_POINTS``           2     card points won per team (raw, with dix de der)
``S_TRICKS``           2     tricks won per team
``S_SEAT_TRICKS``      4     tricks won per seat (générale)
``S_DECL_PTS``         4     each seat's best combination of declarations (points)
``S_DECL_KEY``         4     each seat's best single declaration (sort key)
``S_DECL_CARDS``       4     cards used by each seat's declarations
``S_DECL_LOW``         1     bit per seat: holds a carré of 7s or 8s
``S_DECLARED``         1     bit per seat: has declared
``S_DECL_DECIDED``     1     bit per seat: has made the declare choice
``S_DECL_WINNER``      1     -2 unresolved, -1 nobody, else the team scoring declarations
``S_TEAM_DECL``        2     declaration points scored per team
``S_BELOTE_CARDS``     1     K and Q of every announced belote
``S_BELOTE_SEATS``     1     bit per seat: holds a belote
``S_BELOTE_DECIDED``   1     bit per seat: has made the belote choice
``S_BELOTE_ON``        1     bit per seat: announces its belote
``S_TEAM_BELOTE``      2     belote points per team
``S_SCORE``            2     deal score per team (rounded)
``S_RAW_SCORE``        2     deal score per team before rounding
``S_MADE``             1     1 made, 0 failed (-1 not scored)
``S_TOTAL``            2     totals used for the made conditions
``S_CARD_POINTS``      2     final card points per team (dix de der, capot, AT scaling)
``S_GENERALE``         1     seat that took all 8 tricks (-1)
``S_TRICK_LEADERS``    8     leader of each trick
``S_TRICK_WINNERS``    8     winner of each trick (-1 until played)
``S_PLAYS``            32    cards in the order played
``S_AUCTION``          64    auction action ids in order (the prise in the classic family)
``S_RETOURNE``         1     classic: the turned-up card (-1 in the coinche family)
``S_PRISE_ROUND``      1     classic: prise round (1 or 2)
``S_LITIGE``           1     classic: the takers' total held aside after a litige (else 0)
``S_DECK``             32    classic: the cards in dealing order (-1 in the coinche family)
=====================  ====  ===========================================================

``S_MADE`` is 1 (made), 0 (failed / dedans) or 2 (classic litige), -1 before scoring.

Other modules should not need the slots: :func:`public_view_into` gives what a seat may
know and :func:`determinize_into` the full state back from it, the hidden hands and
the hidden private choices (``tests/test_engine_state.py`` lists the modules that still
read slots directly).
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.extending import intrinsic

from . import actions as A
from . import rules as R
from .cards import BELOTE_PAIRS

# ------------------------------------------------------------------ state layout
AUCTION, PLAY, DONE = 0, 1, 2

#: auction actions the state records (``S_AUCTION``)
MAX_AUCTION = 64

#: The state layout: ``(slot name, size)`` in order. The ``S_*`` offsets and
#: :data:`STATE_SIZE` are derived from it at import (module-level ints, as numba reads
#: them); the slots are documented in the module docstring.
STATE_LAYOUT = (
    ("S_HAND", 4), ("S_INIT_HAND", 4), ("S_DEALER", 1), ("S_PHASE", 1), ("S_CUR", 1),
    ("S_BID_VALUE", 1), ("S_BID_STRAIN", 1), ("S_BID_SEAT", 1), ("S_CAPOT", 1),
    ("S_COINCHE", 1), ("S_COINCHE_SEAT", 1), ("S_PASSES", 1), ("S_N_AUCTION", 1),
    ("S_VOID", 1), ("S_TRICK_NO", 1), ("S_LEADER", 1), ("S_TRICK_N", 1), ("S_WIN_CARD", 1),
    ("S_WIN_SEAT", 1), ("S_PLAYED", 1), ("S_POINTS", 2), ("S_TRICKS", 2),
    ("S_SEAT_TRICKS", 4), ("S_DECL_PTS", 4), ("S_DECL_KEY", 4), ("S_DECL_CARDS", 4),
    ("S_DECL_LOW", 1), ("S_DECLARED", 1), ("S_DECL_DECIDED", 1), ("S_DECL_WINNER", 1),
    ("S_TEAM_DECL", 2), ("S_BELOTE_CARDS", 1), ("S_BELOTE_SEATS", 1),
    ("S_BELOTE_DECIDED", 1), ("S_BELOTE_ON", 1), ("S_TEAM_BELOTE", 2), ("S_SCORE", 2),
    ("S_RAW_SCORE", 2), ("S_MADE", 1), ("S_TOTAL", 2), ("S_CARD_POINTS", 2),
    ("S_GENERALE", 1), ("S_TRICK_LEADERS", 8), ("S_TRICK_WINNERS", 8), ("S_PLAYS", 32),
    ("S_AUCTION", MAX_AUCTION),
    ("S_RETOURNE", 1),        # classic family: the turned-up card
    ("S_PRISE_ROUND", 1),     # classic family: prise round 1 or 2
    ("S_LITIGE", 1),          # classic family: the takers' points held aside on a litige
    ("S_DECK", 32),           # classic family: the 32 cards in dealing order
)


def _state_offsets(layout):
    """``{name: offset}`` of ``layout`` (slots back to back from 0), and the total size."""
    offsets = {}
    k = 0
    for name, size in layout:
        offsets[name] = k
        k += size
    return offsets, k


STATE_OFFSETS, STATE_SIZE = _state_offsets(STATE_LAYOUT)   # STATE_SIZE: 215
globals().update(STATE_OFFSETS)

# sentinel values of the slots
NO_SEAT = -1              # S_BID_SEAT, S_COINCHE_SEAT, S_WIN_SEAT, S_GENERALE, trick leaders / winners
NO_CARD = -1              # S_WIN_CARD, S_PLAYS, S_RETOURNE and S_DECK (coinche family)
NO_ACTION = -1            # S_AUCTION past the actions taken
DECL_UNRESOLVED = -2      # S_DECL_WINNER before the declarations are resolved
DECL_NOBODY = -1          # S_DECL_WINNER: no team scores declarations
NOT_COINCHED, COINCHED, SURCOINCHED = 0, 1, 2        # S_COINCHE
MADE_UNSCORED, MADE_FAILED, MADE_MADE, MADE_LITIGE = -1, 0, 1, 2   # S_MADE

# --------------------------------------------------------- constants for kernels
PASS = A.PASS
BID_BASE = A.BID_BASE
CAPOT_BASE = A.CAPOT_BASE
COINCHE = A.COINCHE
SURCOINCHE = A.SURCOINCHE
CARD_BASE = A.CARD_BASE
TAKE = A.TAKE
NAME_BASE = A.NAME_BASE
DECLARE = A.DECLARE
NO_DECLARE = A.NO_DECLARE
BELOTE = A.BELOTE
NO_BELOTE = A.NO_BELOTE
N_ACTIONS = A.N_ACTIONS
MIN_BID_VALUE = R.MIN_BID_VALUE
N_BID_VALUES = R.N_BID_VALUES
CAPOT_VALUE = R.CAPOT_VALUE
DIX_DE_DER = R.DIX_DE_DER
BELOTE_POINTS = R.BELOTE_POINTS
DEAL_POINTS = R.DEAL_POINTS
CAPOT_POINTS = R.CAPOT_POINTS
CAPOT_BONUS = R.CAPOT_BONUS
SCALED_AT_DEAL_POINTS = R.SCALED_AT_DEAL_POINTS
NT = R.NT
AT = R.AT

CARD_ORDER = R.CARD_ORDER
ABOVE = R.ABOVE
TRUMP_SUIT_MASK = R.TRUMP_SUIT_MASK
ALL_CARD_POINTS = R.ALL_CARD_POINTS
SEQ_POINTS = R.SEQ_POINTS
SEQ_KEY = R.SEQ_KEY
SEQ_USED = R.SEQ_USED
SEQ_POINTS_SHARE = R.SEQ_POINTS_SHARE
SEQ_KEY_SHARE = R.SEQ_KEY_SHARE
SEQ_USED_SHARE = R.SEQ_USED_SHARE
CARRE_PTS = R.CARRE_PTS
CARRE_KEYS = R.CARRE_KEYS

P_FAMILY = R.P_FAMILY
P_NT_AT = R.P_NT_AT
P_MIN_BID = R.P_MIN_BID
P_MAX_BID = R.P_MAX_BID
P_BID_STEP = R.P_BID_STEP
P_CAPOT_AFTER_COINCHE = R.P_CAPOT_AFTER_COINCHE
P_MULT_COINCHE = R.P_MULT_COINCHE
P_MULT_SURCOINCHE = R.P_MULT_SURCOINCHE
P_DECLARATIONS = R.P_DECLARATIONS
P_DECL_SHARE = R.P_DECL_SHARE
P_CARRE_LOW_CANCELS = R.P_CARRE_LOW_CANCELS
P_OPTIONAL_DECLARE = R.P_OPTIONAL_DECLARE
P_OPTIONAL_BELOTE = R.P_OPTIONAL_BELOTE
P_BELOTE_TAKEABLE = R.P_BELOTE_TAKEABLE
P_COUNT_BELOTE = R.P_COUNT_BELOTE
P_COUNT_DECLARATIONS = R.P_COUNT_DECLARATIONS
P_BID_ONLY = R.P_BID_ONLY
P_FAIL_BASE = R.P_FAIL_BASE
P_COINCHE_SCORING = R.P_COINCHE_SCORING
SCORING_FFB, SCORING_CARDS_PLUS_BID, SCORING_ALL_PLUS_BID = 0, 1, 2
P_AT_TABLE = R.P_AT_TABLE
P_GENERALE_BONUS = R.P_GENERALE_BONUS
P_PLAY_RULES = R.P_PLAY_RULES
P_ROUNDING = R.P_ROUNDING
P_BID_LADDER = R.P_BID_LADDER
AT_SCALED_INDEX = R.AT_TABLE_NAMES.index("scaled")

#: Decorator of the kernels that take arrays but never allocate: compiled without numba's
#: reference counting, which otherwise costs ~30 ns of atomic increments and decrements
#: per call (measured: 31 ns -> 0.4 ns for the declare/belote check).
kernel = njit(cache=True, _nrt=False)

# ------------------------------------------------------------------ bit helpers
# The hardware's bit counts (POPCNT, TZCNT, LZCNT where the CPU has them) through LLVM's
# intrinsics: shorter and faster than table tricks in the solver's inner loops.
def _bit_count(emit):
    """An intrinsic ``f(x)`` for integer ``x`` whose code is ``emit(builder, x)``."""
    @intrinsic
    def count(typingctx, x):
        if not isinstance(x, types.Integer):
            return None

        def codegen(context, builder, signature, args):
            return emit(builder, args[0])
        return x(x), codegen
    return count


_NOT_UNDEF = ir.Constant(ir.IntType(1), 0)     # cttz / ctlz of 0: the bit width
_llvm_ctpop = _bit_count(lambda builder, x: builder.ctpop(x))
_llvm_cttz = _bit_count(lambda builder, x: builder.cttz(x, _NOT_UNDEF))
_llvm_ctlz = _bit_count(lambda builder, x: builder.ctlz(x, _NOT_UNDEF))


@njit(cache=True, inline="always")
def popcount(x):
    """Number of set bits of a 32-bit mask held in an int64."""
    return _llvm_ctpop(np.int64(x) & 0xFFFFFFFF)


@njit(cache=True, inline="always")
def lowest_card(m):
    """Index of the lowest set bit of a non-zero 32-bit mask (0 for 0)."""
    return _llvm_cttz(np.int64(m)) & 63


@njit(cache=True, inline="always")
def highest_card(m):
    """Index of the highest set bit of a non-zero 32-bit mask (-1 for 0)."""
    return 63 - _llvm_ctlz(np.int64(m))


@njit(cache=True, inline="always")
def nth_card(m, k):
    """Index of the k-th (0-based) set bit of ``m``, counting from the lowest."""
    for _ in range(k):
        m &= m - 1
    return lowest_card(m)


# ------------------------------------------------------------------------- rng
@kernel
def rng_next(rng):
    """splitmix64 step on ``rng`` (uint64 array of 1); returns a uint64."""
    z = rng[0] + np.uint64(0x9E3779B97F4A7C15)
    rng[0] = z
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@kernel
def rng_below(rng, n):
    """Uniform int in ``0..n-1`` (n < 2**32)."""
    return np.int64(((rng_next(rng) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@kernel
def rng_seed(rng, seed, stream):
    """Seed ``rng`` for sub-stream ``stream`` of ``seed`` (independent of chunking)."""
    rng[0] = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(stream) * np.uint64(0xD1B54A32D192ED03)
    rng_next(rng)


def seed_int64(seed: int) -> int:
    """``seed`` as the int64 the kernels see (two's complement of its low 64 bits)."""
    s = int(seed) % (1 << 64)
    return s - (1 << 64) if s >= (1 << 63) else s


@njit(cache=True, _nrt=False, inline="always")
def shuffle(rng, a, n):
    """Fisher-Yates shuffle of ``a[0:n]`` in place (``a[i]`` swapped with
    ``a[rng_below(rng, i + 1)]`` for ``i = n - 1 .. 1``)."""
    for i in range(n - 1, 0, -1):
        j = rng_below(rng, i + 1)
        t = a[i]
        a[i] = a[j]
        a[j] = t


@kernel
def random_deal(rng, hands, deck):
    """Shuffle the 32 cards (Fisher-Yates) and fill ``hands`` (int64[4]) with 8 each;
    ``deck`` (int64[32]) is scratch space."""
    for i in range(32):
        deck[i] = i
    shuffle(rng, deck, 32)
    for s in range(4):
        m = 0
        for k in range(8):
            m |= 1 << deck[8 * s + k]
        hands[s] = m


@kernel
def hands_from_deck_into(deck, dealer, hands):
    """Deal the 32 cards of ``deck`` as a coinche-family dealer does: in packets of
    ``rules.DEAL_PACKETS`` (3-2-3) from the seat after ``dealer``, into ``hands``
    (int64[4]). The one copy of that deal (``game.hands_from_deck``, the arena's deal
    sets)."""
    for s in range(4):
        hands[s] = 0
    i = 0
    for packet in R.DEAL_PACKETS:
        for j in range(4):
            seat = (dealer + 1 + j) & 3
            for _ in range(packet):
                hands[seat] |= np.int64(1) << deck[i]
                i += 1


@njit(cache=True, _nrt=False, inline="always")
def deal_into(S, P, rng, dealer, hands, deck):
    """A fresh random deal into ``S`` from the stream ``rng``: :func:`random_deal`, then
    the dealer (``dealer``, or a random seat drawn after the cards when -1), then
    :func:`reset_classic` (classic family) or :func:`reset_state`. The one seed -> deal
    map of the kernels (``hands`` int64[4], ``deck`` int64[32]: scratch and result)."""
    random_deal(rng, hands, deck)
    d = dealer if dealer >= 0 else rng_below(rng, 4)
    if P[P_FAMILY] != 0:
        reset_classic(S, deck, d)
    else:
        reset_state(S, hands, d)


# ------------------------------------------------------------------- card play
@njit(cache=True, inline="always")
def beats(c, w, strain):
    """True when card ``c`` beats the card ``w`` currently winning the trick."""
    if (c >> 3) == (w >> 3):
        return CARD_ORDER[strain, c] > CARD_ORDER[strain, w]
    return (TRUMP_SUIT_MASK[strain] >> c) & 1 == 1


#: which rule of RULES.md §6 decided :func:`legal_cards_rule`'s mask (for messages)
RULE_FREE = 0            # no obligation: leading, or a free discard
RULE_FOLLOW = 1          # must follow the led suit
RULE_OVERTRUMP_LED = 2   # trump led: must play a higher trump
RULE_BEAT = 3            # all trumps: must beat the winning card of the led suit
RULE_TRUMP = 4           # void in the led suit: must trump
RULE_OVERTRUMP = 5       # void in the led suit: must trump higher than the winning trump
RULE_UNDERTRUMP = 6      # void in the led suit, unable to overtrump: must undertrump


@njit(cache=True, _nrt=False, inline="always")
def card_play_rule(hand, led_suit, win_card, beats_win, partner_master, strain, play_rules):
    """``(mask, rule)``: the cards of ``hand`` that may follow in a trick already led
    (RULES.md §6), and the ``RULE_*`` obligation that decided it. **The one copy of the
    card-play rules of the kernels**: :func:`legal_cards_rule` (engine card ids) and the
    solver (its renumbered ids) call it, and the inferences of voids and ceilings
    (:func:`inferred_voids_ceilings`) derive from it.

    ``led_suit``: the suit led; ``win_card``: the card winning the trick, played by the
    partner when ``partner_master``; ``beats_win``: the cards of ``win_card``'s suit that
    beat it (in the caller's card numbering; only suits are read from the card ids);
    ``play_rules``: the bits ``PLAY_*`` of ``rules.PLAY_RULE_BITS`` (read here as
    ``R.PLAY_*``: a card-play variant adds its bit in ``rules.py`` and its branch here).
    """
    overtrump_partner = (play_rules & R.PLAY_OVERTRUMP_PARTNER) != 0
    insuit = hand & (0xFF << (8 * led_suit))
    if strain < 4:
        if insuit != 0:
            if led_suit == strain:
                if partner_master and not overtrump_partner:
                    return insuit, RULE_FOLLOW
                up = insuit & beats_win
                if up != 0:
                    return up, RULE_OVERTRUMP_LED
            return insuit, RULE_FOLLOW
        if partner_master:
            return hand, RULE_FREE
        trumps = hand & (0xFF << (8 * strain))
        if trumps == 0:
            return hand, RULE_FREE
        if (win_card >> 3) != strain:
            return trumps, RULE_TRUMP
        up = trumps & beats_win
        if up != 0:
            return up, RULE_OVERTRUMP
        if (play_rules & R.PLAY_MUST_UNDERTRUMP) != 0:
            return trumps, RULE_UNDERTRUMP
        return hand, RULE_FREE
    if insuit == 0:
        return hand, RULE_FREE
    if strain == AT and not (partner_master and not overtrump_partner):
        up = insuit & beats_win
        if up != 0:
            return up, RULE_BEAT
    return insuit, RULE_FOLLOW


@njit(cache=True, _nrt=False, inline="always")
def legal_cards_rule(hand, n_in_trick, led_suit, win_card, partner_master, strain, play_rules):
    """``(mask, rule)``: :func:`legal_cards`'s mask and the ``RULE_*`` obligation that
    produced it (RULES.md §6): leading is free, following is :func:`card_play_rule`."""
    if n_in_trick == 0:
        return hand, RULE_FREE
    return card_play_rule(hand, led_suit, win_card, ABOVE[strain, win_card], partner_master,
                          strain, play_rules)


@kernel
def legal_cards(hand, n_in_trick, led_suit, win_card, partner_master, strain, play_rules):
    """Mask of the cards of ``hand`` that may be played (RULES.md §6).

    ``n_in_trick`` cards are already in the trick, the first of suit ``led_suit``;
    ``win_card`` is winning it, played by the partner when ``partner_master``;
    ``play_rules``: the card-play options, ``P[P_PLAY_RULES]``.
    """
    return legal_cards_rule(hand, n_in_trick, led_suit, win_card, partner_master, strain,
                            play_rules)[0]


# -------------------------------------------------------------- declarations
@kernel
def hand_declarations(hand, strain, share):
    """Best combination of declarations of one hand (RULES.md §5).

    Returns ``(points, key, cards, low_carre)``: the points of the best combination of
    non-overlapping declarations (every declaration when ``share``), the sort key of
    its strongest declaration (0 if none), the cards it uses, and whether the hand holds
    a carré of 7s or 8s.
    """
    low = 0
    nc = 0
    cr0 = -1
    cr1 = -1
    carres = hand & (hand >> 8) & (hand >> 16) & (hand >> 24) & 0xFF   # ranks held 4 times
    while carres:
        r = lowest_card(carres)
        carres &= carres - 1
        if CARRE_PTS[strain, r] == 0:
            low = 1
        elif cr0 < 0:
            cr0 = r
            nc = 1
        else:
            cr1 = r
            nc = 2
    best_pts = 0
    best_key = 0
    best_used = 0
    if share:
        pts = 0
        key = 0
        used = 0
        for k in range(nc):
            r = cr0 if k == 0 else cr1
            pts += CARRE_PTS[strain, r]
            if CARRE_KEYS[strain, r] > key:
                key = CARRE_KEYS[strain, r]
            used |= 0x01010101 << r
        for s in range(4):
            m = (hand >> (8 * s)) & 0xFF
            pts += SEQ_POINTS_SHARE[m]
            k2 = SEQ_KEY_SHARE[m]
            if k2 > 0 and s == strain:
                k2 += 1
            if k2 > key:
                key = k2
            used |= SEQ_USED_SHARE[m] << (8 * s)
        return pts, key, used, low
    for sub in range(1 << nc):
        pts = 0
        key = 0
        removed = 0
        for k in range(nc):
            if (sub >> k) & 1:
                r = cr0 if k == 0 else cr1
                pts += CARRE_PTS[strain, r]
                if CARRE_KEYS[strain, r] > key:
                    key = CARRE_KEYS[strain, r]
                removed |= 0x01010101 << r
        rest = hand & ~removed
        used = removed
        for s in range(4):
            m = (rest >> (8 * s)) & 0xFF
            pts += SEQ_POINTS[m]
            k2 = SEQ_KEY[m]
            if k2 > 0 and s == strain:
                k2 += 1
            if k2 > key:
                key = k2
            used |= SEQ_USED[m] << (8 * s)
        if pts > best_pts or (pts == best_pts and key > best_key):
            best_pts = pts
            best_key = key
            best_used = used
    return best_pts, best_key, best_used, low


@kernel
def resolve_declarations(S, P):
    """Decide which team scores its declarations (RULES.md §5); fills S_DECL_WINNER and
    S_TEAM_DECL."""
    S[S_TEAM_DECL] = 0
    S[S_TEAM_DECL + 1] = 0
    if P[P_DECLARATIONS] == 0:
        S[S_DECL_WINNER] = DECL_NOBODY
        return
    declared = S[S_DECLARED]
    if P[P_CARRE_LOW_CANCELS] and (declared & S[S_DECL_LOW]) != 0:
        S[S_DECL_WINNER] = DECL_NOBODY
        return
    k0 = 0
    k1 = 0
    for seat in range(4):
        if (declared >> seat) & 1:
            k = S[S_DECL_KEY + seat]
            if seat & 1:
                if k > k1:
                    k1 = k
            elif k > k0:
                k0 = k
    if k0 == k1:
        S[S_DECL_WINNER] = DECL_NOBODY
        return
    t = 0 if k0 > k1 else 1
    S[S_DECL_WINNER] = t
    tot = 0
    for seat in range(t, 4, 2):
        if (declared >> seat) & 1:
            tot += S[S_DECL_PTS + seat]
    S[S_TEAM_DECL + t] = tot


# -------------------------------------------------------------------- auction
@kernel
def reset_state(S, hands, dealer):
    """Start a coinche-family deal: ``hands`` (int64[4]) dealt by ``dealer``; the auction
    begins."""
    _clear_state(S, dealer)
    for s in range(4):
        S[S_HAND + s] = hands[s]
        S[S_INIT_HAND + s] = hands[s]


@kernel
def _clear_state(S, dealer):
    """Every slot to its value before the deal, hands empty."""
    for k in range(STATE_SIZE):
        S[k] = 0
    S[S_DEALER] = dealer
    S[S_PHASE] = AUCTION
    S[S_CUR] = (dealer + 1) % 4
    S[S_BID_SEAT] = NO_SEAT
    S[S_COINCHE_SEAT] = NO_SEAT
    S[S_DECL_WINNER] = DECL_UNRESOLVED
    S[S_MADE] = MADE_UNSCORED
    S[S_GENERALE] = NO_SEAT
    S[S_WIN_SEAT] = NO_SEAT
    S[S_WIN_CARD] = NO_CARD
    for i in range(8):
        S[S_TRICK_LEADERS + i] = NO_SEAT
        S[S_TRICK_WINNERS + i] = NO_SEAT
    for i in range(32):
        S[S_PLAYS + i] = NO_CARD
    for i in range(MAX_AUCTION):
        S[S_AUCTION + i] = NO_ACTION
    S[S_RETOURNE] = NO_CARD
    for i in range(32):
        S[S_DECK + i] = NO_CARD


@kernel
def reset_classic(S, deck, dealer):
    """Start a classic-family deal (RULES.md §11) from ``deck`` (int64[32], the cards in
    dealing order): 3 then 2 cards to each seat from the one after ``dealer``, the next
    card turned up (the retourne); the other 11 wait for the end of the prise."""
    _clear_state(S, dealer)
    i = 0
    for packet in (3, 2):
        for k in range(4):
            seat = (dealer + 1 + k) & 3
            for _ in range(packet):
                S[S_HAND + seat] |= 1 << deck[i]
                i += 1
    for s in range(4):
        S[S_INIT_HAND + s] = S[S_HAND + s]
    S[S_RETOURNE] = deck[20]
    S[S_PRISE_ROUND] = 1
    for k in range(32):
        S[S_DECK + k] = deck[k]


@kernel
def _classic_distribute(S):
    """End of the prise: the taker receives the retourne and 2 cards, every other seat
    3, from the seat after the dealer on (the remaining 11 cards in dealing order)."""
    taker = S[S_BID_SEAT]
    S[S_HAND + taker] |= 1 << S[S_RETOURNE]
    i = 21
    for k in range(4):
        seat = (S[S_DEALER] + 1 + k) & 3
        n = 2 if seat == taker else 3
        for _ in range(n):
            S[S_HAND + seat] |= 1 << S[S_DECK + i]
            i += 1
    for s in range(4):
        S[S_INIT_HAND + s] = S[S_HAND + s]


@kernel
def prise_options(S, P):
    """Classic prise: mask of the legal actions besides pass, bit ``a - TAKE`` for action
    ``a`` (round 1: take; round 2: name another suit, or NT / AT when allowed)."""
    if S[S_PRISE_ROUND] == 1:
        return 1
    m = 0
    rs = S[S_RETOURNE] >> 3
    for st in range(6):
        if st != rs and _strain_allowed(P, st):
            m |= 2 << st
    return m


@kernel
def _strain_allowed(P, strain):
    return strain < 4 or P[P_NT_AT] != 0


@kernel
def _pending_choice(S, P):
    """0: none; 1: the seat to act must choose to declare or not; 2: belote or not."""
    if S[S_PHASE] != PLAY or S[S_TRICK_NO] != 0:
        return 0
    seat = S[S_CUR]
    bit = 1 << seat
    if P[P_OPTIONAL_DECLARE] and (S[S_DECL_DECIDED] & bit) == 0:
        if S[S_DECL_PTS + seat] > 0 or (P[P_CARRE_LOW_CANCELS] and (S[S_DECL_LOW] & bit) != 0):
            return 1
    if P[P_OPTIONAL_BELOTE] and (S[S_BELOTE_DECIDED] & bit) == 0 and (S[S_BELOTE_SEATS] & bit) != 0:
        return 2
    return 0


@njit(cache=True, _nrt=False, inline="always")
def legal_play_rule(S, P):
    """``(mask, rule)`` of :func:`legal_cards_rule` for the seat to act: the mask of
    :func:`legal_play_mask` and the rule that decided it (``(0, RULE_FREE)`` outside the
    play phase or while a declare / belote choice is pending)."""
    if S[S_PHASE] != PLAY or _pending_choice(S, P) != 0:
        return 0, RULE_FREE
    cur = S[S_CUR]
    n = S[S_TRICK_N]
    if n == 0:
        return S[S_HAND + cur], RULE_FREE
    led = S[S_PLAYS + 4 * S[S_TRICK_NO]] >> 3
    return legal_cards_rule(S[S_HAND + cur], n, led, S[S_WIN_CARD],
                            S[S_WIN_SEAT] == ((cur + 2) & 3), S[S_BID_STRAIN],
                            P[P_PLAY_RULES])


@kernel
def legal_play_mask(S, P):
    """Mask of the cards the seat to act may play (0 outside the play phase or while a
    declare / belote choice is pending)."""
    return legal_play_rule(S, P)[0]


@kernel
def legal_actions_into(S, P, out):
    """Fill ``out`` (uint8/bool, shape (N_ACTIONS,)) with the legal-action mask; return
    the number of legal actions."""
    out[:] = 0
    phase = S[S_PHASE]
    if phase == DONE:
        return 0
    cur = S[S_CUR]
    if phase == PLAY:
        pend = _pending_choice(S, P)
        if pend == 1:
            out[DECLARE] = 1
            out[NO_DECLARE] = 1
            return 2
        if pend == 2:
            out[BELOTE] = 1
            out[NO_BELOTE] = 1
            return 2
        m = legal_play_mask(S, P)
        cnt = 0
        while m:
            c = lowest_card(m)
            out[CARD_BASE + c] = 1
            cnt += 1
            m &= m - 1
        return cnt
    # auction
    out[PASS] = 1
    cnt = 1
    if P[P_FAMILY] != 0:
        m = prise_options(S, P)
        while m:
            b = lowest_card(m)
            m &= m - 1
            out[TAKE + b] = 1
            cnt += 1
        return cnt
    bid_seat = S[S_BID_SEAT]
    coinche = S[S_COINCHE]
    capot = S[S_CAPOT]
    if coinche == 0:
        if capot == 0:
            values = open_bid_values(S, P)
            while values:
                vi = lowest_card(values)
                values &= values - 1
                for st in range(6):
                    if _strain_allowed(P, st):
                        out[BID_BASE + 6 * vi + st] = 1
                        cnt += 1
            for st in range(6):
                if _strain_allowed(P, st):
                    out[CAPOT_BASE + st] = 1
                    cnt += 1
        if bid_seat >= 0 and ((bid_seat ^ cur) & 1) == 1:
            out[COINCHE] = 1
            cnt += 1
    elif coinche == 1:
        if ((bid_seat ^ cur) & 1) == 0:
            out[SURCOINCHE] = 1
            cnt += 1
        if P[P_CAPOT_AFTER_COINCHE] and capot == 0:
            for st in range(6):
                if _strain_allowed(P, st):
                    out[CAPOT_BASE + st] = 1
                    cnt += 1
    return cnt


@kernel
def _auction_is_legal(S, P, a):
    """Legality of auction action ``a`` without building the whole mask."""
    if a == PASS:
        return True
    cur = S[S_CUR]
    bid_seat = S[S_BID_SEAT]
    coinche = S[S_COINCHE]
    capot = S[S_CAPOT]
    if a < CAPOT_BASE:
        if coinche != 0 or capot != 0:
            return False
        st = (a - BID_BASE) % 6
        vi = (a - BID_BASE) // 6
        return _strain_allowed(P, st) and (open_bid_values(S, P) >> vi) & 1 == 1
    if a < COINCHE:
        if capot != 0 or not _strain_allowed(P, a - CAPOT_BASE):
            return False
        return coinche == 0 or (coinche == 1 and P[P_CAPOT_AFTER_COINCHE] != 0)
    if a == COINCHE:
        return coinche == 0 and bid_seat >= 0 and ((bid_seat ^ cur) & 1) == 1
    if a == SURCOINCHE:
        return coinche == 1 and ((bid_seat ^ cur) & 1) == 0
    return False


@kernel
def is_legal(S, P, a):
    """True when action id ``a`` is legal in state ``S``."""
    if a < 0 or a >= N_ACTIONS:
        return False
    phase = S[S_PHASE]
    if phase == AUCTION:
        if P[P_FAMILY] != 0:
            if a == PASS:
                return True
            return a >= TAKE and a < DECLARE and (prise_options(S, P) >> (a - TAKE)) & 1 == 1
        if a >= TAKE:
            return False
        return _auction_is_legal(S, P, a)
    if phase != PLAY:
        return False
    pend = _pending_choice(S, P)
    if pend == 1:
        return a == DECLARE or a == NO_DECLARE
    if pend == 2:
        return a == BELOTE or a == NO_BELOTE
    if a < CARD_BASE or a >= CARD_BASE + 32:
        return False
    return (legal_play_mask(S, P) >> (a - CARD_BASE)) & 1 == 1


@njit(cache=True, _nrt=False, inline="always")
def belote_pairs(h, strain):
    """``(mask, count)`` of the belotes held in ``h`` under ``strain``: the K + Q pairs
    (:data:`~coinche_rl.cards.BELOTE_PAIRS`) of the trump suit, of every suit at AT,
    of none at NT."""
    pairs = 0
    n = 0
    if strain == NT:
        return pairs, n
    for s in range(4):
        if strain == AT or strain == s:
            kq = BELOTE_PAIRS[s]
            if h & kq == kq:
                pairs |= kq
                n += 1
    return pairs, n


@njit(cache=True, _nrt=False, inline="always")
def scale_at_points(x):
    """The takers' card points ``x`` under the ``scaled`` AT table (the trump table at
    every suit: :data:`SCALED_AT_DEAL_POINTS` with the dix de der) brought back to
    :data:`DEAL_POINTS`, rounded half up."""
    return (x * DEAL_POINTS * 2 + SCALED_AT_DEAL_POINTS) // (2 * SCALED_AT_DEAL_POINTS)


@kernel
def _start_play(S, P):
    """Auction over: compute declarations and belotes, first trick led by the seat after
    the dealer."""
    S[S_PHASE] = PLAY
    leader = (S[S_DEALER] + 1) % 4
    S[S_LEADER] = leader
    S[S_CUR] = leader
    S[S_TRICK_NO] = 0
    S[S_TRICK_N] = 0
    S[S_TRICK_LEADERS] = leader
    strain = S[S_BID_STRAIN]
    if P[P_DECLARATIONS]:
        share = P[P_DECL_SHARE]
        for seat in range(4):
            pts, key, used, low = hand_declarations(S[S_HAND + seat], strain, share)
            S[S_DECL_PTS + seat] = pts
            S[S_DECL_KEY + seat] = key
            S[S_DECL_CARDS + seat] = used
            if low:
                S[S_DECL_LOW] |= 1 << seat
    # belote: K and Q of a trump suit in one hand (every suit at AT, none at NT)
    for seat in range(4):
        pairs, npairs = belote_pairs(S[S_HAND + seat], strain)
        if npairs:
            S[S_BELOTE_SEATS] |= 1 << seat
            if P[P_OPTIONAL_BELOTE] == 0:
                S[S_BELOTE_ON] |= 1 << seat
                S[S_BELOTE_CARDS] |= pairs
                S[S_TEAM_BELOTE + (seat & 1)] += BELOTE_POINTS * npairs


@kernel
def _end_auction_void(S):
    S[S_PHASE] = DONE
    S[S_VOID] = 1
    S[S_CUR] = NO_SEAT
    S[S_MADE] = MADE_UNSCORED


@kernel
def apply_action(S, P, a):
    """Apply action id ``a`` if it is legal; return 0, or 1 (and leave ``S`` unchanged)
    when it is not."""
    if not is_legal(S, P, a):
        return 1
    return apply_legal_action(S, P, a)


@kernel
def apply_legal_action(S, P, a):
    """Apply action id ``a``, known to be legal (no check: callers that drew ``a`` from
    the legal set use this). Returns 0."""
    phase = S[S_PHASE]
    cur = S[S_CUR]
    if phase == AUCTION:
        n = S[S_N_AUCTION]
        if n < MAX_AUCTION:
            S[S_AUCTION + n] = a
        S[S_N_AUCTION] = n + 1
        if P[P_FAMILY] != 0:
            _apply_prise(S, P, a)
            return 0
        if a == PASS:
            S[S_PASSES] += 1
            if S[S_BID_SEAT] < 0:
                if S[S_PASSES] == 4:
                    _end_auction_void(S)
                    return 0
            elif S[S_PASSES] == 3:
                _start_play(S, P)
                return 0
        elif a < CAPOT_BASE:
            vi = (a - BID_BASE) // 6
            S[S_BID_VALUE] = MIN_BID_VALUE + 10 * vi
            S[S_BID_STRAIN] = (a - BID_BASE) % 6
            S[S_BID_SEAT] = cur
            S[S_PASSES] = 0
        elif a < COINCHE:
            S[S_BID_VALUE] = CAPOT_VALUE
            S[S_BID_STRAIN] = a - CAPOT_BASE
            S[S_BID_SEAT] = cur
            S[S_CAPOT] = 1
            S[S_COINCHE] = NOT_COINCHED
            S[S_COINCHE_SEAT] = NO_SEAT
            S[S_PASSES] = 0
        elif a == COINCHE:
            S[S_COINCHE] = COINCHED
            S[S_COINCHE_SEAT] = cur
            S[S_PASSES] = 0
        else:  # surcoinche ends the auction at once
            S[S_COINCHE] = SURCOINCHED
            _start_play(S, P)
            return 0
        S[S_CUR] = (cur + 1) % 4
        return 0
    # play phase
    bit = 1 << cur
    if a == DECLARE or a == NO_DECLARE:
        S[S_DECL_DECIDED] |= bit
        if a == DECLARE:
            S[S_DECLARED] |= bit
        return 0
    if a == BELOTE or a == NO_BELOTE:
        S[S_BELOTE_DECIDED] |= bit
        if a == BELOTE:
            S[S_BELOTE_ON] |= bit
            pairs, npairs = belote_pairs(S[S_HAND + cur], S[S_BID_STRAIN])
            S[S_BELOTE_CARDS] |= pairs
            S[S_TEAM_BELOTE + (cur & 1)] += BELOTE_POINTS * npairs
        return 0
    c = a - CARD_BASE
    trick = S[S_TRICK_NO]
    n = S[S_TRICK_N]
    strain = S[S_BID_STRAIN]
    if trick == 0 and P[P_DECLARATIONS] and P[P_OPTIONAL_DECLARE] == 0:
        if S[S_DECL_PTS + cur] > 0 or (P[P_CARRE_LOW_CANCELS] and (S[S_DECL_LOW] & bit) != 0):
            S[S_DECLARED] |= bit
    if trick == 1 and n == 0:
        resolve_declarations(S, P)
    S[S_HAND + cur] &= ~(1 << c)
    S[S_PLAYED] |= 1 << c
    S[S_PLAYS + 4 * trick + n] = c
    if n == 0 or beats(c, S[S_WIN_CARD], strain):
        S[S_WIN_CARD] = c
        S[S_WIN_SEAT] = cur
    n += 1
    if n < 4:
        S[S_TRICK_N] = n
        S[S_CUR] = (cur + 1) % 4
        return 0
    # trick complete
    pts_table = ALL_CARD_POINTS[P[P_AT_TABLE], strain]
    pts = 0
    for i in range(4):
        pts += pts_table[S[S_PLAYS + 4 * trick + i]]
    w = S[S_WIN_SEAT]
    t = w & 1
    S[S_POINTS + t] += pts
    S[S_TRICKS + t] += 1
    S[S_SEAT_TRICKS + w] += 1
    S[S_TRICK_WINNERS + trick] = w
    S[S_TRICK_N] = 0
    if trick == 7:
        S[S_POINTS + t] += DIX_DE_DER
        score_deal(S, P)
        return 0
    S[S_TRICK_NO] = trick + 1
    S[S_LEADER] = w
    S[S_TRICK_LEADERS + trick + 1] = w
    S[S_CUR] = w
    S[S_WIN_SEAT] = -1
    S[S_WIN_CARD] = -1
    return 0


@kernel
def _apply_prise(S, P, a):
    """Classic prise (RULES.md §11): take the retourne's suit, name a strain, or pass."""
    cur = S[S_CUR]
    if a == PASS:
        S[S_PASSES] += 1
        if S[S_PASSES] == 4:
            if S[S_PRISE_ROUND] == 1:
                S[S_PRISE_ROUND] = 2
                S[S_PASSES] = 0
            else:
                _end_auction_void(S)
                return
        S[S_CUR] = (cur + 1) & 3
        return
    S[S_BID_STRAIN] = (S[S_RETOURNE] >> 3) if a == TAKE else a - NAME_BASE
    S[S_BID_SEAT] = cur
    _classic_distribute(S)
    _start_play(S, P)


# ------------------------------------------------------- what a seat may know
# The state holds everything; a seat knows part of it. public_view_into hides the rest;
# determinize_into puts it back from the hidden hands (and, in the classic family, the
# deck) and the other seats' private declare / belote choices: for the true hidden
# values, determinize_into(public_view_into(S, seat)) == S (tests/test_engine_state.py).

#: ``deck`` for :func:`determinize_into` that keeps the public view's dealing order
NO_DECK = np.full(32, NO_CARD, dtype=np.int64)


@kernel
def played_by(S, seat):
    """Mask of the cards ``seat`` has played so far."""
    m = 0
    for t in range(8):
        leader = S[S_TRICK_LEADERS + t]
        if leader < 0:
            break
        for i in range(4):
            c = S[S_PLAYS + 4 * t + i]
            if c < 0:
                break
            if ((leader + i) & 3) == seat:
                m |= np.int64(1) << c
    return m


@kernel
def played_first_trick(S, p):
    """True when seat ``p`` has played its card of the first trick (so has made its
    declare / belote choices)."""
    if S[S_TRICK_NO] > 0:
        return True
    return ((p - S[S_TRICK_LEADERS]) & 3) < S[S_TRICK_N]


@kernel
def announced_belotes(S, strain):
    """Bit per seat of the belotes announced so far (as the first of K / Q of a trump
    suit was played), and the mask of their K and Q."""
    seats = 0
    cards = 0
    if strain == NT:
        return seats, cards
    bel = S[S_BELOTE_CARDS]
    seen = 0                                  # suits whose first K / Q was played
    for t in range(8):
        leader = S[S_TRICK_LEADERS + t]
        if leader < 0:
            break
        for i in range(4):
            c = S[S_PLAYS + 4 * t + i]
            if c < 0:
                break
            suit = c >> 3
            r = c & 7
            if (r == 5 or r == 6) and (strain == AT or strain == suit) and not (seen >> suit) & 1:
                seen |= 1 << suit
                kq = BELOTE_PAIRS[suit]
                if bel & kq == kq:
                    seats |= 1 << ((leader + i) & 3)
                    cards |= kq
    return seats, cards


@kernel
def shown_declarers(S):
    """Bit per seat whose declarations are public: the declared seats of the team that
    scores them, once resolved (0 before, or when nobody scores)."""
    w = S[S_DECL_WINNER]
    if w >= 0:
        return S[S_DECLARED] & ((1 << w) | (1 << (w + 2)))
    return 0


@kernel
def public_view_into(S, P, seat, out):
    """Copy ``S`` into ``out`` with what ``seat`` cannot know zeroed: other seats' hands
    (now and as dealt), the classic deck, other seats' declarations until resolved (then
    the scoring team's declared seats stay), other seats' declare / belote choices and
    belote holdings until announced, and the team belote points not yet announced.
    Everything else is public. The inverse: :func:`determinize_into`."""
    for k in range(STATE_SIZE):
        out[k] = S[k]
    bit = 1 << seat
    for p in range(4):
        if p != seat:
            out[S_HAND + p] = 0
            out[S_INIT_HAND + p] = 0
    if S[S_DECK] >= 0:
        for k in range(32):
            out[S_DECK + k] = 0
    # declarations: public once resolved, for the scoring team's declared seats
    w = S[S_DECL_WINNER]
    keep = bit | shown_declarers(S)
    for p in range(4):
        if not (keep >> p) & 1:
            out[S_DECL_PTS + p] = 0
            out[S_DECL_KEY + p] = 0
            out[S_DECL_CARDS + p] = 0
    out[S_DECL_LOW] = S[S_DECL_LOW] & bit
    out[S_DECLARED] = S[S_DECLARED] & keep
    out[S_DECL_DECIDED] = S[S_DECL_DECIDED] & bit
    if w == DECL_UNRESOLVED:
        out[S_TEAM_DECL] = 0
        out[S_TEAM_DECL + 1] = 0
    # belote: the seat's own, and those announced by a card played
    strain = S[S_BID_STRAIN]
    ann_seats = 0
    ann_cards = 0
    if S[S_PHASE] != AUCTION and S[S_VOID] == 0:
        ann_seats, ann_cards = announced_belotes(S, strain)
    own_cards = 0
    if (S[S_BELOTE_SEATS] >> seat) & 1:
        own_cards = S[S_BELOTE_CARDS] & S[S_INIT_HAND + seat]
    out[S_BELOTE_CARDS] = (S[S_BELOTE_CARDS] & ann_cards) | own_cards
    seats = ann_seats | bit
    out[S_BELOTE_SEATS] = S[S_BELOTE_SEATS] & seats
    out[S_BELOTE_DECIDED] = S[S_BELOTE_DECIDED] & seats
    out[S_BELOTE_ON] = S[S_BELOTE_ON] & seats
    if S[S_PHASE] != DONE:
        b0 = 0
        b1 = 0
        for p in range(4):
            if ((ann_seats >> p) & 1) or (p == seat and (S[S_BELOTE_ON] >> p) & 1):
                if p & 1:
                    b1 += BELOTE_POINTS
                else:
                    b0 += BELOTE_POINTS
        out[S_TEAM_BELOTE] = b0
        out[S_TEAM_BELOTE + 1] = b1


def public_view(S: np.ndarray, P: np.ndarray, seat: int) -> np.ndarray:
    """A new array: :func:`public_view_into` of ``S`` for ``seat``."""
    out = np.empty(STATE_SIZE, dtype=np.int64)
    public_view_into(S, P, int(seat), out)
    return out


@kernel
def determinize_into(pub, P, seat, hands, deck, decl_decided, declared, belote_decided,
                     belote_on, out):
    """The full state from ``seat``'s public view ``pub`` (:func:`public_view_into`) and
    what it hides, written into ``out``, exactly as the engine holds it:

    * ``hands`` (int64[4]): every seat's cards now (the seat's own is taken from
      ``pub``); the hands as dealt are these plus the cards each seat played;
    * ``deck`` (int64[32]): the classic family's dealing order, or :data:`NO_DECK`
      (``deck[0] < 0``) to keep the view's;
    * the other seats' private choices, bit per seat: ``decl_decided`` / ``declared``
      (``optional_declare``: has made the declare choice / chose to declare) and
      ``belote_decided`` / ``belote_on`` (``optional_belote``: has made the belote choice /
      announces). Where the rules make these automatic the engine's own rules set them
      (declaring at the first card; every belote announced) and the arguments are not
      read; what the view shows (the scoring team's declarations, the belotes announced
      by a card played) is kept.

    Declarations and belotes are computed from the hands as dealt as ``_start_play``
    does, once the card play has started."""
    for k in range(STATE_SIZE):
        out[k] = pub[k]
    for p in range(4):
        if p != seat:
            out[S_HAND + p] = hands[p]
            out[S_INIT_HAND + p] = hands[p] | played_by(pub, p)
    if deck[0] >= 0:
        for k in range(32):
            out[S_DECK + k] = deck[k]
    phase = pub[S_PHASE]
    if phase == AUCTION or pub[S_VOID] != 0:
        return
    strain = pub[S_BID_STRAIN]
    # declarations (_start_play, apply_legal_action's automatic declaring)
    if P[P_DECLARATIONS] != 0:
        shown = shown_declarers(pub)
        optional = P[P_OPTIONAL_DECLARE] != 0
        for p in range(4):
            if p == seat:
                continue
            bit = np.int64(1) << p
            pts, key, used, low = hand_declarations(out[S_INIT_HAND + p], strain, P[P_DECL_SHARE])
            if low:
                out[S_DECL_LOW] |= bit
            if (shown & bit) == 0:
                out[S_DECL_PTS + p] = pts
                out[S_DECL_KEY + p] = key
                out[S_DECL_CARDS + p] = used
            if optional:
                out[S_DECL_DECIDED] |= decl_decided & bit
                out[S_DECLARED] |= declared & bit
            elif (shown & bit) != 0 or pts > 0 or (P[P_CARRE_LOW_CANCELS] != 0 and low != 0):
                if played_first_trick(pub, p):
                    out[S_DECLARED] |= bit
    # belote (_start_play; the BELOTE action under optional_belote)
    seats = 0
    on = 0
    decided = 0
    cards = 0
    tb0 = 0
    tb1 = 0
    optional_b = P[P_OPTIONAL_BELOTE] != 0
    for p in range(4):
        pairs, npairs = belote_pairs(out[S_INIT_HAND + p], strain)
        if npairs == 0:
            continue
        bit = np.int64(1) << p
        seats |= bit
        if p == seat:
            is_on = (pub[S_BELOTE_ON] & bit) != 0
            dec = (pub[S_BELOTE_DECIDED] & bit) != 0
        elif not optional_b:
            is_on = True
            dec = False
        else:
            is_on = ((belote_on | pub[S_BELOTE_ON]) & bit) != 0
            dec = ((belote_decided | pub[S_BELOTE_DECIDED]) & bit) != 0
        if dec:
            decided |= bit
        if is_on:
            on |= bit
            cards |= pairs
            if p & 1:
                tb1 += BELOTE_POINTS * npairs
            else:
                tb0 += BELOTE_POINTS * npairs
    out[S_BELOTE_SEATS] = seats
    out[S_BELOTE_ON] = on
    out[S_BELOTE_DECIDED] = decided
    out[S_BELOTE_CARDS] = cards
    if phase != DONE:
        out[S_TEAM_BELOTE] = tb0
        out[S_TEAM_BELOTE + 1] = tb1


def private_choices(S: np.ndarray):
    """The declare / belote choices made in ``S``, bit per seat: ``(decl_decided,
    declared, belote_decided, belote_on)`` (has made the declare choice, has declared,
    has made the belote choice, announces a belote; automatic ones included)."""
    return (int(S[S_DECL_DECIDED]), int(S[S_DECLARED]), int(S[S_BELOTE_DECIDED]),
            int(S[S_BELOTE_ON]))


def private_info(S: np.ndarray):
    """What the public views of ``S`` hide, as :func:`determinize` takes it:
    ``(hands, deck, choices)`` with the :func:`private_choices` (bit per seat)."""
    S = np.asarray(S, dtype=np.int64)
    hands = S[S_HAND:S_HAND + 4].copy()
    deck = S[S_DECK:S_DECK + 32].copy()
    return hands, deck, private_choices(S)


def determinize(public: np.ndarray, params: np.ndarray, seat: int, hands, deck=None,
                choices=(0, 0, 0, 0)) -> np.ndarray:
    """A new array: :func:`determinize_into` of the public view ``public`` of ``seat``,
    the four ``hands`` (masks), the classic ``deck`` (None: the view's) and the private
    ``choices`` ``(decl_decided, declared, belote_decided, belote_on)``."""
    h = np.asarray([int(x) for x in hands], dtype=np.int64)
    d = NO_DECK if deck is None else np.asarray(deck, dtype=np.int64)
    out = np.empty(STATE_SIZE, dtype=np.int64)
    c = [int(x) for x in choices]
    determinize_into(np.asarray(public, dtype=np.int64), np.asarray(params, dtype=np.int64),
                     int(seat), h, d, c[0], c[1], c[2], c[3], out)
    return out


#: kinds of :func:`set_outcome`, from the side of the team it is given for
OUTCOME_CAPOT_AGAINST, OUTCOME_NORMAL, OUTCOME_CAPOT, OUTCOME_GENERALE = -1, 0, 1, 2


@kernel
def set_outcome(S, X, kind, e, raw, gseat):
    """Give ``S`` the card play of a synthetic finished deal seen from team ``X``, for
    :func:`score_deal`: ``kind`` :data:`OUTCOME_CAPOT_AGAINST` (every trick and the
    ``raw`` points to the other team, 4 tricks to each of its seats),
    :data:`OUTCOME_NORMAL` (``X`` wins ``e`` of the ``raw`` points, 4 tricks each team,
    2 per seat), :data:`OUTCOME_CAPOT` (every trick to ``X``, 4 per seat) or
    :data:`OUTCOME_GENERALE` (every trick to seat ``gseat``)."""
    Y = 1 - X
    for s in range(4):
        S[S_SEAT_TRICKS + s] = 0
    if kind == OUTCOME_CAPOT_AGAINST:
        S[S_POINTS + X] = 0
        S[S_POINTS + Y] = raw
        S[S_TRICKS + X] = 0
        S[S_TRICKS + Y] = 8
        S[S_SEAT_TRICKS + Y] = 4
        S[S_SEAT_TRICKS + Y + 2] = 4
    elif kind == OUTCOME_NORMAL:
        S[S_POINTS + X] = e
        S[S_POINTS + Y] = raw - e
        S[S_TRICKS + X] = 4
        S[S_TRICKS + Y] = 4
        for s in range(4):
            S[S_SEAT_TRICKS + s] = 2
    else:
        S[S_POINTS + X] = raw
        S[S_POINTS + Y] = 0
        S[S_TRICKS + X] = 8
        S[S_TRICKS + Y] = 0
        if kind == OUTCOME_CAPOT:
            S[S_SEAT_TRICKS + X] = 4
            S[S_SEAT_TRICKS + X + 2] = 4
        else:
            S[S_SEAT_TRICKS + gseat] = 8


@kernel
def round10(x, rounding):
    """Nearest ten, halves up (85 -> 90, 84 -> 80), or ``x`` when rounding is off."""
    if rounding == 0:
        return x
    return (x + 5) // 10 * 10


@kernel
def score_deal(S, P):
    """Score a finished deal (RULES.md §7-§8, §11 for the classic family); fills the
    result slots and ends the deal."""
    S[S_PHASE] = DONE
    S[S_CUR] = -1
    if S[S_DECL_WINNER] == DECL_UNRESOLVED:
        resolve_declarations(S, P)
    T = S[S_BID_SEAT] & 1
    D = 1 - T
    cp0 = S[S_POINTS]
    cp1 = S[S_POINTS + 1]
    capot_team = -1
    if S[S_TRICKS] == 8:
        capot_team = 0
    elif S[S_TRICKS + 1] == 8:
        capot_team = 1
    generale = -1
    for seat in range(4):
        if S[S_SEAT_TRICKS + seat] == 8:
            generale = seat
    S[S_GENERALE] = generale
    strain = S[S_BID_STRAIN]
    if strain == AT and P[P_AT_TABLE] == AT_SCALED_INDEX and capot_team < 0:
        # trump table at every suit (258 with dix de der) scaled to 162; the takers'
        # share is rounded half up and the defenders get the rest
        sT = scale_at_points(S[S_POINTS + T])
        cp0 = sT if T == 0 else DEAL_POINTS - sT
        cp1 = DEAL_POINTS - cp0
    if capot_team >= 0:
        cp0 = CAPOT_POINTS if capot_team == 0 else 0
        cp1 = CAPOT_POINTS - cp0
    # générale: one player of the takers won every trick; the deal's cards count
    # generale_bonus (350) for the takers instead of a capot's 252
    gen_T = P[P_GENERALE_BONUS] > 0 and generale >= 0 and (generale & 1) == T
    if gen_T:
        if T == 0:
            cp0 = P[P_GENERALE_BONUS]
        else:
            cp1 = P[P_GENERALE_BONUS]
    cpT = cp0 if T == 0 else cp1
    cpD = cp1 if T == 0 else cp0
    S[S_CARD_POINTS] = cp0
    S[S_CARD_POINTS + 1] = cp1
    bel0 = S[S_TEAM_BELOTE]
    bel1 = S[S_TEAM_BELOTE + 1]
    belT = bel0 if T == 0 else bel1
    belD = bel1 if T == 0 else bel0
    decT = S[S_TEAM_DECL + T]
    decD = S[S_TEAM_DECL + D]
    classic = P[P_FAMILY] != 0
    if classic:
        # classic family: a team that won no trick loses its declarations (§11)
        if capot_team == T:
            S[S_TEAM_DECL + D] = 0
            decD = 0
        elif capot_team == D:
            S[S_TEAM_DECL + T] = 0
            decT = 0
    totT = cpT
    totD = cpD
    if P[P_COUNT_BELOTE]:
        totT += belT
        totD += belD
    if P[P_COUNT_DECLARATIONS]:
        totT += decT
        totD += decD
    S[S_TOTAL + T] = totT
    S[S_TOTAL + D] = totD
    if classic:
        _score_classic(S, P, T, cpT, cpD, belT, belD, decT, decD, totT, totD, capot_team)
        return
    all_T = capot_team == T
    if S[S_CAPOT]:
        cond1 = all_T
        bid_val = CAPOT_VALUE
    else:
        cond1 = totT >= S[S_BID_VALUE]
        bid_val = S[S_BID_VALUE]
    made = cond1 and (P[P_BID_ONLY] != 0 or totT > totD)
    coinche = S[S_COINCHE]
    m = 1
    if coinche == 1:
        m = P[P_MULT_COINCHE]
    elif coinche == 2:
        m = P[P_MULT_SURCOINCHE]
    base = P[P_FAIL_BASE]
    scoring = P[P_COINCHE_SCORING]
    takeable = P[P_BELOTE_TAKEABLE] != 0
    if made:
        if m == 1 or scoring == SCORING_CARDS_PLUS_BID:
            sT = cpT + belT + decT + bid_val * m
            sD = cpD + belD
            if all_T:
                sT += decD          # the defenders' declarations change hands
            else:
                sD += decD
        elif scoring == SCORING_FFB:
            B = base
            if gen_T:
                B = P[P_GENERALE_BONUS]
            elif all_T:
                B = CAPOT_VALUE
            sT = (B + decT + belT + decD + bid_val) * m
            sD = belD
        else:   # all_plus_bid: the takers take the base and every other point
            B = base
            if gen_T:
                B = P[P_GENERALE_BONUS]
            elif all_T:
                B = CAPOT_POINTS
            sT = B + bid_val * m + belT + decT + decD
            sD = belD
            if takeable:
                sT += belD
                sD = 0
    else:
        extra = 0
        sT = belT
        if takeable:
            sT = 0
            extra = belT
        if scoring == SCORING_FFB:
            sD = (base + decD + belD + decT + bid_val + extra) * m
        else:
            sD = base + bid_val * m + belD + decD + decT + extra
    S[S_MADE] = MADE_MADE if made else MADE_FAILED
    S[S_RAW_SCORE + T] = sT
    S[S_RAW_SCORE + D] = sD
    S[S_SCORE + T] = round10(sT, P[P_ROUNDING])
    S[S_SCORE + D] = round10(sD, P[P_ROUNDING])


@kernel
def _score_classic(S, P, T, cpT, cpD, belT, belD, decT, decD, totT, totD, capot_team):
    """Classic-family scoring (RULES.md §11): takers above the defenders: each team
    scores its own total; below: *dedans*, the defenders score 162 (252 when the takers
    are capot) + all declarations + their belote, the takers keep their belote; equal:
    *litige*, the defenders score their total, the takers their belote, and the rest of
    the takers' total is held aside (``S_LITIGE``) for the winner of the next deal. A
    capot team has already lost its declarations (``decT`` / ``decD``); ``totT`` /
    ``totD`` are the totals for the comparison."""
    D = 1 - T
    fullT = cpT + belT + decT
    fullD = cpD + belD + decD
    if totT > totD:
        S[S_MADE] = MADE_MADE
        sT = fullT
        sD = fullD
    elif totT < totD:
        S[S_MADE] = MADE_FAILED
        extra = 0
        sT = belT
        if P[P_BELOTE_TAKEABLE]:
            sT = 0
            extra = belT
        base = P[P_FAIL_BASE] + (CAPOT_BONUS if capot_team == D else 0)
        sD = base + decT + decD + belD + extra
    else:
        # litige: the takers keep their belote (it stays with its team, RULES.md §5);
        # their other points wait for the winner of the next deal
        S[S_MADE] = MADE_LITIGE
        sT = belT
        sD = fullD
        S[S_LITIGE] = fullT - belT
    S[S_RAW_SCORE + T] = sT
    S[S_RAW_SCORE + D] = sD
    S[S_SCORE + T] = round10(sT, P[P_ROUNDING])
    S[S_SCORE + D] = round10(sD, P[P_ROUNDING])


@kernel
def match_winner(totals, target, taker_team, made, tricks0, tricks1, belote_cannot_win):
    """Winner of a match after a deal (RULES.md §9): 0, 1, or -1 to play on.

    ``totals``: match scores after the deal. With ``belote_cannot_win`` (FFB), a team
    reaches the target only if it was neither the failing taker nor capot on this deal:
    such a team scores at most its belote, which alone cannot win the match. Both teams
    over: the higher wins; equal, another deal.
    """
    ok0 = totals[0] >= target
    ok1 = totals[1] >= target
    if taker_team >= 0 and belote_cannot_win:
        if taker_team == 0 and made != 1:
            ok0 = False
        if taker_team == 1 and made != 1:
            ok1 = False
        if tricks0 == 0:
            ok0 = False
        if tricks1 == 0:
            ok1 = False
    if ok0 and ok1:
        if totals[0] > totals[1]:
            return 0
        if totals[1] > totals[0]:
            return 1
        return -1
    if ok0:
        return 0
    if ok1:
        return 1
    return -1


# ------------------------------------------------------------ batched simulation
@kernel
def _auction_flags(S, P):
    """``(bids_open, capot_ok, coinche_ok, surcoinche_ok, n_strains)`` for the seat to
    act in the auction."""
    cur = S[S_CUR]
    bid_seat = S[S_BID_SEAT]
    coinche = S[S_COINCHE]
    capot = S[S_CAPOT]
    ns = 6 if P[P_NT_AT] != 0 else 4
    bids_open = coinche == 0 and capot == 0
    capot_ok = capot == 0 and (coinche == 0 or (coinche == 1 and P[P_CAPOT_AFTER_COINCHE] != 0))
    coinche_ok = coinche == 0 and bid_seat >= 0 and ((bid_seat ^ cur) & 1) == 1
    surcoinche_ok = coinche == 1 and ((bid_seat ^ cur) & 1) == 0
    return bids_open, capot_ok, coinche_ok, surcoinche_ok, ns


@kernel
def open_bid_values(S, P):
    """Mask of the numeric bids still open: bit i = value ``80 + 10 i`` is on the rule
    set's ladder and above the current bid."""
    ladder = P[P_BID_LADDER]
    cur_val = S[S_BID_VALUE]
    if cur_val >= MIN_BID_VALUE:
        ladder &= ~((2 << ((cur_val - MIN_BID_VALUE) // 10)) - 1)
    return ladder


@njit(cache=True, inline="always")
def _auction_kth_other(k, values, ns, capot_ok, coinche_ok):
    """The ``k``-th legal auction action other than pass, in increasing id order: the
    open bids (``values`` x ``ns`` strains), the capots, coinche, surcoinche."""
    nb = ns * popcount(values)
    if k < nb:
        if ns == 4:
            j = k >> 2
            st = k & 3
        else:
            j = k // 6
            st = k - 6 * j
        return BID_BASE + 6 * nth_card(values, j) + st
    k -= nb
    if capot_ok:
        if k < ns:
            return CAPOT_BASE + k
        k -= ns
    if coinche_ok:
        if k == 0:
            return COINCHE
        k -= 1
    return SURCOINCHE


@kernel
def _random_action(S, P, rng, buf, pass_prob):
    """A random legal action: cards uniformly; in the auction pass with probability
    ``pass_prob`` and otherwise any other legal action uniformly (uniform over every
    legal action when ``pass_prob < 0``)."""
    phase = S[S_PHASE]
    if phase == PLAY:
        m = legal_play_mask(S, P)
        if m != 0:
            return CARD_BASE + nth_card(m, rng_below(rng, popcount(m)))
        cnt = legal_actions_into(S, P, buf)    # a declare / belote choice
        k = rng_below(rng, cnt)
        for a in range(N_ACTIONS):
            if buf[a]:
                if k == 0:
                    return a
                k -= 1
        return -1
    if P[P_FAMILY] != 0:
        m = prise_options(S, P)
        cnt = 1 + popcount(m)
        if pass_prob >= 0.0:
            u = (rng_next(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
            if u < pass_prob:
                return PASS
            return TAKE + nth_card(m, rng_below(rng, cnt - 1))
        k = rng_below(rng, cnt)
        if k == 0:
            return PASS
        return TAKE + nth_card(m, k - 1)
    # auction: count the legal actions, draw one, and find it, sharing the flags
    bids_open, capot_ok, coinche_ok, surcoinche_ok, ns = _auction_flags(S, P)
    values = open_bid_values(S, P) if bids_open else 0
    nb = ns * popcount(values)
    cnt = 1 + nb + (ns if capot_ok else 0) + (1 if coinche_ok else 0) + (1 if surcoinche_ok else 0)
    if pass_prob >= 0.0:
        u = (rng_next(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)
        if u < pass_prob or cnt == 1:
            return PASS
        k = rng_below(rng, cnt - 1)
    else:
        k = rng_below(rng, cnt) - 1
        if k < 0:
            return PASS
    return _auction_kth_other(k, values, ns, capot_ok, coinche_ok)


@kernel
def play_out_stepwise(S, P, rng, buf, pass_prob):
    """Play random legal actions from ``S`` until the deal is over, one
    :func:`apply_legal_action` at a time."""
    while S[S_PHASE] != DONE:
        a = _random_action(S, P, rng, buf, pass_prob)
        apply_legal_action(S, P, a)


@kernel
def play_out(S, P, rng, buf, pass_prob):
    """Play random legal actions from ``S`` until the deal is over.

    Draws exactly the same random numbers, and leaves exactly the same final state, as
    :func:`play_out_stepwise` (tested), but the cards are played by
    :func:`_play_cards_fast` once no declare / belote choice can come up any more.
    """
    no_choices = P[P_OPTIONAL_DECLARE] == 0 and P[P_OPTIONAL_BELOTE] == 0
    while S[S_PHASE] != DONE:
        if S[S_PHASE] == PLAY and (no_choices or S[S_TRICK_NO] >= 1):
            _play_cards_fast(S, P, rng)
            return
        a = _random_action(S, P, rng, buf, pass_prob)
        apply_legal_action(S, P, a)


@njit(cache=True, _nrt=False, inline="always")
def _random_card(rng, hand, seat, n, led, win_card, win_seat, strain, play_rules):
    """One uniformly random legal card of ``hand`` for ``seat``, the ``n``-th card of the
    trick; returns ``(card, led suit, winning card, winning seat)`` after it."""
    m = legal_cards(hand, n, led, win_card, win_seat == ((seat + 2) & 3), strain, play_rules)
    c = nth_card(m, rng_below(rng, popcount(m)))
    if n == 0:
        return c, c >> 3, c, seat
    if beats(c, win_card, strain):
        return c, led, c, seat
    return c, led, win_card, win_seat


@kernel
def _play_cards_fast(S, P, rng):
    """Random legal cards to the end of the deal, trick state in local variables.

    Precondition: play phase, and no declare / belote choice can come up (the options
    are off, or the first trick is over). Writes every slot that
    :func:`apply_legal_action` would (automatic declaring in the first trick, resolution
    at the first card of the second), then scores the deal with :func:`score_deal`.
    """
    auto_declare = P[P_DECLARATIONS] != 0 and P[P_OPTIONAL_DECLARE] == 0
    low_cancels = P[P_CARRE_LOW_CANCELS] != 0
    strain = S[S_BID_STRAIN]
    play_rules = P[P_PLAY_RULES]
    pts_table = ALL_CARD_POINTS[P[P_AT_TABLE], strain]
    trick = S[S_TRICK_NO]
    n = S[S_TRICK_N]
    cur = S[S_CUR]
    win_card = S[S_WIN_CARD]
    win_seat = S[S_WIN_SEAT]
    played = S[S_PLAYED]
    led = 0
    if n > 0:
        led = S[S_PLAYS + 4 * trick] >> 3
    while True:
        if trick <= 1:
            if trick == 0:
                if auto_declare and (S[S_DECL_PTS + cur] > 0 or
                                     (low_cancels and (S[S_DECL_LOW] >> cur) & 1 != 0)):
                    S[S_DECLARED] |= 1 << cur
            elif n == 0:
                resolve_declarations(S, P)
        hand = S[S_HAND + cur]
        c, led, win_card, win_seat = _random_card(rng, hand, cur, n, led, win_card, win_seat,
                                                  strain, play_rules)
        S[S_HAND + cur] = hand & ~(1 << c)
        played |= 1 << c
        S[S_PLAYS + 4 * trick + n] = c
        n += 1
        if n < 4:
            cur = (cur + 1) & 3
            continue
        base = S_PLAYS + 4 * trick
        pts = (pts_table[S[base]] + pts_table[S[base + 1]] + pts_table[S[base + 2]]
               + pts_table[S[base + 3]])
        t = win_seat & 1
        S[S_POINTS + t] += pts
        S[S_TRICKS + t] += 1
        S[S_SEAT_TRICKS + win_seat] += 1
        S[S_TRICK_WINNERS + trick] = win_seat
        n = 0
        if trick == 7:
            S[S_POINTS + t] += DIX_DE_DER
            S[S_PLAYED] = played
            S[S_TRICK_N] = 0
            S[S_WIN_CARD] = win_card
            S[S_WIN_SEAT] = win_seat
            score_deal(S, P)
            return
        trick += 1
        cur = win_seat
        S[S_TRICK_LEADERS + trick] = win_seat
        S[S_TRICK_NO] = trick
        S[S_LEADER] = win_seat
        win_card = -1
        win_seat = -1


@njit(cache=True)
def simulate_random_deals(P, n, seed, dealer, pass_prob, contract, out_scores, out_info):
    """Play ``n`` random full deals; deal ``i`` uses sub-stream ``i`` of ``seed``.

    ``contract`` (int64[4]): ``(value, strain, coinche, taker)`` to skip the auction with
    that contract (value 250 = capot), or ``value < 0`` for a random legal auction.
    Writes ``out_scores`` (int64, (n, 2): rounded deal scores per team) and ``out_info``
    (int64, (n, 9): bid value (0 void or classic), strain, coinche level, taker seat,
    made (``S_MADE``), card points team 0, card points team 1, tricks team 0, void).
    """
    S = np.empty(STATE_SIZE, dtype=np.int64)
    hands = np.empty(4, dtype=np.int64)
    deck = np.empty(32, dtype=np.int64)
    buf = np.zeros(N_ACTIONS, dtype=np.uint8)
    rng = np.empty(1, dtype=np.uint64)
    for i in range(n):
        rng_seed(rng, seed, i)
        deal_into(S, P, rng, dealer, hands, deck)
        if contract[0] >= 0:
            set_contract(S, P, contract[0], contract[1], contract[2], contract[3])
        play_out(S, P, rng, buf, pass_prob)
        out_scores[i, 0] = S[S_SCORE]
        out_scores[i, 1] = S[S_SCORE + 1]
        out_info[i, 0] = 0 if S[S_VOID] else S[S_BID_VALUE]
        out_info[i, 1] = S[S_BID_STRAIN]
        out_info[i, 2] = S[S_COINCHE]
        out_info[i, 3] = S[S_BID_SEAT]
        out_info[i, 4] = S[S_MADE]
        out_info[i, 5] = S[S_CARD_POINTS]
        out_info[i, 6] = S[S_CARD_POINTS + 1]
        out_info[i, 7] = S[S_TRICKS]
        out_info[i, 8] = S[S_VOID]


@kernel
def set_contract(S, P, value, strain, coinche, taker):
    """Skip the auction of a freshly reset state: the contract is ``value`` (250 for a
    capot bid) in ``strain``, coinche level ``coinche`` (0, 1, 2), taken by ``taker``;
    the auction record is left empty. Play starts as after a real auction.

    Classic family: ``value`` and ``coinche`` must be 0; the taker receives the retourne
    and the remaining cards are dealt as after a real prise."""
    if P[P_FAMILY] != 0:
        S[S_BID_STRAIN] = strain
        S[S_BID_SEAT] = taker
        _classic_distribute(S)
        _start_play(S, P)
        return
    S[S_BID_VALUE] = value
    S[S_BID_STRAIN] = strain
    S[S_BID_SEAT] = taker
    S[S_CAPOT] = 1 if value == CAPOT_VALUE else 0
    S[S_COINCHE] = coinche
    S[S_COINCHE_SEAT] = ((taker + 1) & 3) if coinche > 0 else -1
    _start_play(S, P)


@njit(cache=True)
def random_playouts(S0, P, n, seed, pass_prob, out_scores):
    """``n`` random playouts from state ``S0`` (not modified): rounded deal scores per
    team into ``out_scores`` (int64, (n, 2)). Playout ``i`` uses sub-stream ``i``."""
    S = np.empty(STATE_SIZE, dtype=np.int64)
    buf = np.zeros(N_ACTIONS, dtype=np.uint8)
    rng = np.empty(1, dtype=np.uint64)
    for i in range(n):
        rng_seed(rng, seed, i)
        for k in range(STATE_SIZE):
            S[k] = S0[k]
        play_out(S, P, rng, buf, pass_prob)
        out_scores[i, 0] = S[S_SCORE]
        out_scores[i, 1] = S[S_SCORE + 1]


@njit(cache=True)
def random_play_phase(P, n, seed, strain, out_points):
    """The play phase alone, as fast as the rules allow: ``n`` random deals, each played
    with 32 uniformly random legal cards under ``strain`` (seat 0 leads); card points won
    by team 0 (with dix de der) into ``out_points`` (int64, (n,)).

    Uses the same :func:`legal_cards` and :func:`beats` as the state machine, without
    auction, declarations or scoring.
    """
    hands = np.empty(4, dtype=np.int64)
    deck = np.empty(32, dtype=np.int64)
    rng = np.empty(1, dtype=np.uint64)
    pts_table = ALL_CARD_POINTS[P[P_AT_TABLE], strain]
    play_rules = P[P_PLAY_RULES]
    for i in range(n):
        rng_seed(rng, seed, i)
        random_deal(rng, hands, deck)
        leader = 0
        pts0 = 0
        for trick in range(8):
            win_card = -1
            win_seat = -1
            led = 0
            pts = 0
            for k in range(4):
                seat = (leader + k) & 3
                c, led, win_card, win_seat = _random_card(rng, hands[seat], seat, k, led, win_card,
                                                          win_seat, strain, play_rules)
                hands[seat] &= ~(1 << c)
                pts += pts_table[c]
            if trick == 7:
                pts += DIX_DE_DER
            if (win_seat & 1) == 0:
                pts0 += pts
            leader = win_seat
        out_points[i] = pts0


# ------------------------------------------------------------------- accessors
# Named reads and writes of the state's slots, for the modules outside the engine (issue
# 16): inlined into numba callers (the same code as the slot read it replaces), callable
# from Python too. The layout stays the engine's business.
@njit(cache=True, _nrt=False, inline="always")
def current_seat(S):
    """The seat to act (``S_CUR``)."""
    return S[S_CUR]


@njit(cache=True, _nrt=False, inline="always")
def set_current_seat(S, seat):
    """Make ``seat`` the seat to act (``S_CUR``)."""
    S[S_CUR] = seat


@njit(cache=True, _nrt=False, inline="always")
def phase_of(S):
    """The phase: ``AUCTION``, ``PLAY`` or ``DONE`` (``S_PHASE``)."""
    return S[S_PHASE]


@njit(cache=True, _nrt=False, inline="always")
def dealer_of(S):
    """The dealer (``S_DEALER``)."""
    return S[S_DEALER]


@njit(cache=True, _nrt=False, inline="always")
def hand_of(S, seat):
    """The card mask ``seat`` holds now (``S_HAND``)."""
    return S[S_HAND + seat]


@njit(cache=True, _nrt=False, inline="always")
def contract_of(S):
    """``(value, strain, bidder)`` of the current bid or contract (``S_BID_VALUE``,
    ``S_BID_STRAIN``, ``S_BID_SEAT``; bidder ``NO_SEAT`` before any bid)."""
    return S[S_BID_VALUE], S[S_BID_STRAIN], S[S_BID_SEAT]


@njit(cache=True, _nrt=False, inline="always")
def contract_strain(S):
    """The strain of the current bid or contract (``S_BID_STRAIN``)."""
    return S[S_BID_STRAIN]


@njit(cache=True, _nrt=False, inline="always")
def auction_length(S):
    """The number of auction actions so far (``S_N_AUCTION``)."""
    return S[S_N_AUCTION]


@njit(cache=True, _nrt=False, inline="always")
def auction_action(S, i):
    """The ``i``-th action of the auction (``S_AUCTION``; from the seat after the dealer)."""
    return S[S_AUCTION + i]


@njit(cache=True, _nrt=False, inline="always")
def retourne_of(S):
    """Classic family: the turned-up card (``S_RETOURNE``; ``NO_CARD`` otherwise)."""
    return S[S_RETOURNE]


@njit(cache=True, _nrt=False, inline="always")
def prise_round(S):
    """Classic family: the round of the prise, 1 or 2 (``S_PRISE_ROUND``)."""
    return S[S_PRISE_ROUND]


@njit(cache=True, _nrt=False, inline="always")
def seat_declaration_points(S, seat):
    """The points of ``seat``'s best declaration (``S_DECL_PTS``)."""
    return S[S_DECL_PTS + seat]


@njit(cache=True, _nrt=False, inline="always")
def low_carre_seats(S):
    """Bit per seat: holds a carré of 7s or 8s (``S_DECL_LOW``)."""
    return S[S_DECL_LOW]


@njit(cache=True, _nrt=False, inline="always")
def declare_decided_seats(S):
    """Bit per seat: its declare choice is made (``S_DECL_DECIDED``)."""
    return S[S_DECL_DECIDED]


@njit(cache=True, _nrt=False, inline="always")
def mark_declared(S, bits):
    """Add the seats of ``bits`` to the declaring seats (``S_DECLARED``)."""
    S[S_DECLARED] |= bits


@njit(cache=True, _nrt=False, inline="always")
def belote_holder_seats(S):
    """Bit per seat: holds K and Q of a trump suit (``S_BELOTE_SEATS``)."""
    return S[S_BELOTE_SEATS]


@njit(cache=True, _nrt=False, inline="always")
def belote_decided_seats(S):
    """Bit per seat: its belote choice is made (``S_BELOTE_DECIDED``)."""
    return S[S_BELOTE_DECIDED]


@njit(cache=True, _nrt=False, inline="always")
def belote_announced_seats(S):
    """Bit per seat: announced its belote (``S_BELOTE_ON``)."""
    return S[S_BELOTE_ON]


@njit(cache=True, _nrt=False, inline="always")
def deal_made(S):
    """Whether the contract was made: ``MADE_UNSCORED``, ``MADE_FAILED``, ``MADE_MADE``
    or ``MADE_LITIGE`` (``S_MADE``)."""
    return S[S_MADE]


@njit(cache=True, _nrt=False, inline="always")
def team_score(S, team):
    """The deal score of ``team`` (``S_SCORE``)."""
    return S[S_SCORE + team]


@njit(cache=True, _nrt=False, inline="always")
def team_card_points(S, team):
    """The card points ``team`` won (``S_CARD_POINTS``)."""
    return S[S_CARD_POINTS + team]


# the deal, the auction and the tricks; setters for the neural agents' canonical states
@njit(cache=True, _nrt=False, inline="always")
def set_hand(S, seat, mask):
    """Make ``mask`` the cards ``seat`` holds now (``S_HAND``)."""
    S[S_HAND + seat] = mask


@njit(cache=True, _nrt=False, inline="always")
def initial_hand(S, seat):
    """The card mask ``seat`` was dealt (``S_INIT_HAND``)."""
    return S[S_INIT_HAND + seat]


@njit(cache=True, _nrt=False, inline="always")
def set_initial_hand(S, seat, mask):
    """Make ``mask`` the cards ``seat`` was dealt (``S_INIT_HAND``)."""
    S[S_INIT_HAND + seat] = mask


@njit(cache=True, _nrt=False, inline="always")
def set_auction_action(S, i, a):
    """Make ``a`` the ``i``-th action of the auction (``S_AUCTION``)."""
    S[S_AUCTION + i] = a


@njit(cache=True, _nrt=False, inline="always")
def set_contract_strain(S, strain):
    """Make ``strain`` the strain of the current bid or contract (``S_BID_STRAIN``)."""
    S[S_BID_STRAIN] = strain


@njit(cache=True, _nrt=False, inline="always")
def set_retourne(S, card):
    """Classic family: make ``card`` the turned-up card (``S_RETOURNE``)."""
    S[S_RETOURNE] = card


@njit(cache=True, _nrt=False, inline="always")
def contract_is_capot(S):
    """Whether the current bid or contract is a capot (``S_CAPOT``, 0 or 1)."""
    return S[S_CAPOT]


@njit(cache=True, _nrt=False, inline="always")
def coinche_level(S):
    """``NOT_COINCHED``, ``COINCHED`` or ``SURCOINCHED`` (``S_COINCHE``)."""
    return S[S_COINCHE]


@njit(cache=True, _nrt=False, inline="always")
def trick_number(S):
    """The number of the trick being played, 0 to 7 (``S_TRICK_NO``)."""
    return S[S_TRICK_NO]


@njit(cache=True, _nrt=False, inline="always")
def team_points_won(S, team):
    """The card points ``team`` has won in tricks so far, dix de der included
    (``S_POINTS``)."""
    return S[S_POINTS + team]


@njit(cache=True, _nrt=False, inline="always")
def team_tricks_won(S, team):
    """The number of tricks ``team`` has won (``S_TRICKS``)."""
    return S[S_TRICKS + team]


@njit(cache=True, _nrt=False, inline="always")
def seat_tricks_won(S, seat):
    """The number of tricks ``seat`` has won (``S_SEAT_TRICKS``)."""
    return S[S_SEAT_TRICKS + seat]


@njit(cache=True)
def current_seats(states, rows):
    """The seat to act in each game ``states[rows[j]]`` (``S_CUR``; int64 array)."""
    out = np.empty(rows.shape[0], dtype=np.int64)
    for j in range(rows.shape[0]):
        out[j] = states[rows[j], S_CUR]
    return out


@njit(cache=True)
def phases_of(states, rows):
    """The phase of each game ``states[rows[j]]`` (``S_PHASE``; int64 array)."""
    out = np.empty(rows.shape[0], dtype=np.int64)
    for j in range(rows.shape[0]):
        out[j] = states[rows[j], S_PHASE]
    return out


@njit(cache=True, _nrt=False, inline="always")
def deal_void(S):
    """1 when the deal is void (the auction ended without a contract), else 0 (``S_VOID``)."""
    return S[S_VOID]


@njit(cache=True, _nrt=False, inline="always")
def cards_in_trick(S):
    """The number of cards played to the current trick so far (``S_TRICK_N``)."""
    return S[S_TRICK_N]


@njit(cache=True, _nrt=False, inline="always")
def trick_leader(S, t):
    """The seat that led trick ``t`` (``S_TRICK_LEADERS``; ``NO_SEAT`` before it starts)."""
    return S[S_TRICK_LEADERS + t]


@njit(cache=True, _nrt=False, inline="always")
def trick_card(S, t, k):
    """The ``k``-th card played to trick ``t``, from its leader (``S_PLAYS``; ``NO_CARD``
    before it is played)."""
    return S[S_PLAYS + 4 * t + k]


@njit(cache=True, _nrt=False, inline="always")
def played_cards(S):
    """The mask of the cards played so far, by every seat (``S_PLAYED``)."""
    return S[S_PLAYED]


@njit(cache=True, _nrt=False, inline="always")
def winning_card(S):
    """The card winning the current trick so far (``S_WIN_CARD``; ``NO_CARD`` before its
    lead)."""
    return S[S_WIN_CARD]


@njit(cache=True, _nrt=False, inline="always")
def winning_seat(S):
    """The seat winning the current trick so far (``S_WIN_SEAT``; ``NO_SEAT`` before its
    lead)."""
    return S[S_WIN_SEAT]


@njit(cache=True, _nrt=False, inline="always")
def current_leader(S):
    """The seat that leads (or led) the current trick (``S_LEADER``)."""
    return S[S_LEADER]


@njit(cache=True, _nrt=False, inline="always")
def trick_winner(S, t):
    """The seat that won trick ``t`` (``S_TRICK_WINNERS``; ``NO_SEAT`` until it is over)."""
    return S[S_TRICK_WINNERS + t]


@njit(cache=True, _nrt=False, inline="always")
def declaration_winner(S):
    """The team that scores the declarations: 0 or 1, ``DECL_NOBODY``, or
    ``DECL_UNRESOLVED`` before they are compared (``S_DECL_WINNER``)."""
    return S[S_DECL_WINNER]


@njit(cache=True, _nrt=False, inline="always")
def declaration_cards(S, seat):
    """The cards of ``seat``'s declarations (``S_DECL_CARDS``)."""
    return S[S_DECL_CARDS + seat]


@kernel
def outcome_score(S, P, X, kind, e, raw, gseat):
    """Score the synthetic finished deal :func:`set_outcome` makes of ``S`` (``kind``,
    ``e``, ``raw``, ``gseat`` as there, seen from team ``X``) with :func:`score_deal`;
    returns team ``X``'s final card points and its deal score minus the other team's
    (``S_CARD_POINTS``, ``S_SCORE``)."""
    set_outcome(S, X, kind, e, raw, gseat)
    score_deal(S, P)
    return S[S_CARD_POINTS + X], S[S_SCORE + X] - S[S_SCORE + 1 - X]
