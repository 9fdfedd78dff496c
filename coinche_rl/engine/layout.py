"""The state layout: one deal as a fixed-size int64 vector, its sentinels, and the named
accessors of its slots.

Slots ``S_*``, offsets derived from :data:`STATE_LAYOUT` (all masks are 32-bit card masks
held in int64; the sentinels have names: :data:`NO_SEAT`, :data:`NO_CARD`,
:data:`DECL_UNRESOLVED`, :data:`DECL_NOBODY`, ``MADE_*``):

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

No module outside the engine reads a slot (``game.py``, the engine's Python face,
excepted; ``tests/test_engine_state.py`` checks it): the others go through the accessors
at the end of this module, :func:`~coinche_rl.engine.views.public_view_into` (what a
seat may know) and :func:`~coinche_rl.engine.views.determinize_into` (the full state back
from it, the hidden hands and the hidden private choices).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..cards import N_CARDS
from ..rules import N_SEATS, N_TEAMS, N_TRICKS


AUCTION, PLAY, DONE = 0, 1, 2
#: auction actions the state records (``S_AUCTION``)
MAX_AUCTION = 64
#: The state layout: ``(slot name, size)`` in order. The ``S_*`` offsets and
#: :data:`STATE_SIZE` are derived from it at import (module-level ints, as numba reads
#: them); the slots are documented in the module docstring.
STATE_LAYOUT = (
    ("S_HAND", N_SEATS), ("S_INIT_HAND", N_SEATS), ("S_DEALER", 1), ("S_PHASE", 1),
    ("S_CUR", 1), ("S_BID_VALUE", 1), ("S_BID_STRAIN", 1), ("S_BID_SEAT", 1), ("S_CAPOT", 1),
    ("S_COINCHE", 1), ("S_COINCHE_SEAT", 1), ("S_PASSES", 1), ("S_N_AUCTION", 1),
    ("S_VOID", 1), ("S_TRICK_NO", 1), ("S_LEADER", 1), ("S_TRICK_N", 1), ("S_WIN_CARD", 1),
    ("S_WIN_SEAT", 1), ("S_PLAYED", 1), ("S_POINTS", N_TEAMS), ("S_TRICKS", N_TEAMS),
    ("S_SEAT_TRICKS", N_SEATS), ("S_DECL_PTS", N_SEATS), ("S_DECL_KEY", N_SEATS),
    ("S_DECL_CARDS", N_SEATS), ("S_DECL_LOW", 1), ("S_DECLARED", 1), ("S_DECL_DECIDED", 1),
    ("S_DECL_WINNER", 1), ("S_TEAM_DECL", N_TEAMS), ("S_BELOTE_CARDS", 1),
    ("S_BELOTE_SEATS", 1), ("S_BELOTE_DECIDED", 1), ("S_BELOTE_ON", 1),
    ("S_TEAM_BELOTE", N_TEAMS), ("S_SCORE", N_TEAMS), ("S_RAW_SCORE", N_TEAMS), ("S_MADE", 1),
    ("S_TOTAL", N_TEAMS), ("S_CARD_POINTS", N_TEAMS), ("S_GENERALE", 1),
    ("S_TRICK_LEADERS", N_TRICKS), ("S_TRICK_WINNERS", N_TRICKS), ("S_PLAYS", N_CARDS),
    ("S_AUCTION", MAX_AUCTION),
    ("S_RETOURNE", 1),        # classic family: the turned-up card
    ("S_PRISE_ROUND", 1),     # classic family: prise round 1 or 2
    ("S_LITIGE", 1),          # classic family: the takers' points held aside on a litige
    ("S_DECK", N_CARDS),      # classic family: the 32 cards in dealing order
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


# Named reads and writes of the state's slots, for the modules outside the engine:
# inlined into numba callers (the same code as the slot read it replaces), callable from
# Python too. The layout stays the engine's business.
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
    return S[S_PLAYS + N_SEATS * t + k]


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
