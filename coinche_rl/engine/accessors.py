"""The named reads and writes of the state's slots. Generated from
``layout.ACCESSORS`` by ``layout.write_accessors()``: do not edit.
"""

import numpy as np
from numba import njit

from ..rules import N_SEATS
from .layout import (S_AUCTION, S_BELOTE_DECIDED, S_BELOTE_ON, S_BELOTE_SEATS, S_BID_SEAT,
                     S_BID_STRAIN, S_BID_VALUE, S_CAPOT, S_CARD_POINTS, S_COINCHE, S_CUR, S_DEALER,
                     S_DECLARED, S_DECL_CARDS, S_DECL_DECIDED, S_DECL_LOW, S_DECL_PTS,
                     S_DECL_WINNER, S_HAND, S_INIT_HAND, S_LEADER, S_MADE, S_N_AUCTION, S_PHASE,
                     S_PLAYED, S_PLAYS, S_POINTS, S_PRISE_ROUND, S_RETOURNE, S_SCORE, S_SEAT_TRICKS,
                     S_TRICKS, S_TRICK_LEADERS, S_TRICK_N, S_TRICK_NO, S_TRICK_WINNERS, S_VOID,
                     S_WIN_CARD, S_WIN_SEAT)

__all__ = ["current_seat", "set_current_seat", "phase_of", "dealer_of", "hand_of", "set_hand",
           "initial_hand", "set_initial_hand", "contract_of", "contract_strain",
           "set_contract_strain", "contract_is_capot", "coinche_level", "auction_length",
           "auction_action", "set_auction_action", "deal_void", "retourne_of", "set_retourne",
           "prise_round", "seat_declaration_points", "declaration_cards", "low_carre_seats",
           "declare_decided_seats", "mark_declared", "declaration_winner", "belote_holder_seats",
           "belote_decided_seats", "belote_announced_seats", "trick_number", "cards_in_trick",
           "current_leader", "winning_card", "winning_seat", "played_cards", "trick_leader",
           "trick_winner", "trick_card", "team_points_won", "team_tricks_won", "seat_tricks_won",
           "deal_made", "team_score", "team_card_points", "current_seats", "phases_of"]


@njit(cache=True, _nrt=False, inline="always")
def current_seat(S):
    """The seat to act. Slot ``S_CUR``."""
    return S[S_CUR]


@njit(cache=True, _nrt=False, inline="always")
def set_current_seat(S, seat):
    """Make ``seat`` the seat to act. Slot ``S_CUR``."""
    S[S_CUR] = seat


@njit(cache=True, _nrt=False, inline="always")
def phase_of(S):
    """The phase: ``AUCTION``, ``PLAY`` or ``DONE``. Slot ``S_PHASE``."""
    return S[S_PHASE]


@njit(cache=True, _nrt=False, inline="always")
def dealer_of(S):
    """The dealer. Slot ``S_DEALER``."""
    return S[S_DEALER]


@njit(cache=True, _nrt=False, inline="always")
def hand_of(S, seat):
    """The card mask ``seat`` holds now. Slot ``S_HAND``."""
    return S[S_HAND + seat]


@njit(cache=True, _nrt=False, inline="always")
def set_hand(S, seat, mask):
    """Make ``mask`` the cards ``seat`` holds now. Slot ``S_HAND``."""
    S[S_HAND + seat] = mask


@njit(cache=True, _nrt=False, inline="always")
def initial_hand(S, seat):
    """The card mask ``seat`` was dealt. Slot ``S_INIT_HAND``."""
    return S[S_INIT_HAND + seat]


@njit(cache=True, _nrt=False, inline="always")
def set_initial_hand(S, seat, mask):
    """Make ``mask`` the cards ``seat`` was dealt. Slot ``S_INIT_HAND``."""
    S[S_INIT_HAND + seat] = mask


@njit(cache=True, _nrt=False, inline="always")
def contract_of(S):
    """``(value, strain, bidder)`` of the current bid or contract (bidder ``NO_SEAT`` before any
    bid). Slots ``S_BID_VALUE``, ``S_BID_STRAIN``, ``S_BID_SEAT``."""
    return S[S_BID_VALUE], S[S_BID_STRAIN], S[S_BID_SEAT]


@njit(cache=True, _nrt=False, inline="always")
def contract_strain(S):
    """The strain of the current bid or contract. Slot ``S_BID_STRAIN``."""
    return S[S_BID_STRAIN]


@njit(cache=True, _nrt=False, inline="always")
def set_contract_strain(S, strain):
    """Make ``strain`` the strain of the current bid or contract. Slot ``S_BID_STRAIN``."""
    S[S_BID_STRAIN] = strain


@njit(cache=True, _nrt=False, inline="always")
def contract_is_capot(S):
    """Whether the current bid or contract is a capot (0 or 1). Slot ``S_CAPOT``."""
    return S[S_CAPOT]


@njit(cache=True, _nrt=False, inline="always")
def coinche_level(S):
    """``NOT_COINCHED``, ``COINCHED`` or ``SURCOINCHED``. Slot ``S_COINCHE``."""
    return S[S_COINCHE]


@njit(cache=True, _nrt=False, inline="always")
def auction_length(S):
    """The number of auction actions so far. Slot ``S_N_AUCTION``."""
    return S[S_N_AUCTION]


@njit(cache=True, _nrt=False, inline="always")
def auction_action(S, i):
    """The ``i``-th action of the auction (from the seat after the dealer). Slot ``S_AUCTION``."""
    return S[S_AUCTION + i]


@njit(cache=True, _nrt=False, inline="always")
def set_auction_action(S, i, a):
    """Make ``a`` the ``i``-th action of the auction. Slot ``S_AUCTION``."""
    S[S_AUCTION + i] = a


@njit(cache=True, _nrt=False, inline="always")
def deal_void(S):
    """1 when the deal is void (the auction ended without a contract), else 0. Slot ``S_VOID``."""
    return S[S_VOID]


@njit(cache=True, _nrt=False, inline="always")
def retourne_of(S):
    """Classic family: the turned-up card (``NO_CARD`` otherwise). Slot ``S_RETOURNE``."""
    return S[S_RETOURNE]


@njit(cache=True, _nrt=False, inline="always")
def set_retourne(S, card):
    """Classic family: make ``card`` the turned-up card. Slot ``S_RETOURNE``."""
    S[S_RETOURNE] = card


@njit(cache=True, _nrt=False, inline="always")
def prise_round(S):
    """Classic family: the round of the prise, 1 or 2. Slot ``S_PRISE_ROUND``."""
    return S[S_PRISE_ROUND]


@njit(cache=True, _nrt=False, inline="always")
def seat_declaration_points(S, seat):
    """The points of ``seat``'s best declaration. Slot ``S_DECL_PTS``."""
    return S[S_DECL_PTS + seat]


@njit(cache=True, _nrt=False, inline="always")
def declaration_cards(S, seat):
    """The cards of ``seat``'s declarations. Slot ``S_DECL_CARDS``."""
    return S[S_DECL_CARDS + seat]


@njit(cache=True, _nrt=False, inline="always")
def low_carre_seats(S):
    """Bit per seat: holds a carré of 7s or 8s. Slot ``S_DECL_LOW``."""
    return S[S_DECL_LOW]


@njit(cache=True, _nrt=False, inline="always")
def declare_decided_seats(S):
    """Bit per seat: its declare choice is made. Slot ``S_DECL_DECIDED``."""
    return S[S_DECL_DECIDED]


@njit(cache=True, _nrt=False, inline="always")
def mark_declared(S, bits):
    """Add the seats of ``bits`` to the declaring seats. Slot ``S_DECLARED``."""
    S[S_DECLARED] |= bits


@njit(cache=True, _nrt=False, inline="always")
def declaration_winner(S):
    """The team that scores the declarations: 0 or 1, ``DECL_NOBODY``, or ``DECL_UNRESOLVED`` before
    they are compared. Slot ``S_DECL_WINNER``."""
    return S[S_DECL_WINNER]


@njit(cache=True, _nrt=False, inline="always")
def belote_holder_seats(S):
    """Bit per seat: holds K and Q of a trump suit. Slot ``S_BELOTE_SEATS``."""
    return S[S_BELOTE_SEATS]


@njit(cache=True, _nrt=False, inline="always")
def belote_decided_seats(S):
    """Bit per seat: its belote choice is made. Slot ``S_BELOTE_DECIDED``."""
    return S[S_BELOTE_DECIDED]


@njit(cache=True, _nrt=False, inline="always")
def belote_announced_seats(S):
    """Bit per seat: announced its belote. Slot ``S_BELOTE_ON``."""
    return S[S_BELOTE_ON]


@njit(cache=True, _nrt=False, inline="always")
def trick_number(S):
    """The number of the trick being played, 0 to 7. Slot ``S_TRICK_NO``."""
    return S[S_TRICK_NO]


@njit(cache=True, _nrt=False, inline="always")
def cards_in_trick(S):
    """The number of cards played to the current trick so far. Slot ``S_TRICK_N``."""
    return S[S_TRICK_N]


@njit(cache=True, _nrt=False, inline="always")
def current_leader(S):
    """The seat that leads (or led) the current trick. Slot ``S_LEADER``."""
    return S[S_LEADER]


@njit(cache=True, _nrt=False, inline="always")
def winning_card(S):
    """The card winning the current trick so far (``NO_CARD`` before its lead). Slot
    ``S_WIN_CARD``."""
    return S[S_WIN_CARD]


@njit(cache=True, _nrt=False, inline="always")
def winning_seat(S):
    """The seat winning the current trick so far (``NO_SEAT`` before its lead). Slot
    ``S_WIN_SEAT``."""
    return S[S_WIN_SEAT]


@njit(cache=True, _nrt=False, inline="always")
def played_cards(S):
    """The mask of the cards played so far, by every seat. Slot ``S_PLAYED``."""
    return S[S_PLAYED]


@njit(cache=True, _nrt=False, inline="always")
def trick_leader(S, t):
    """The seat that led trick ``t`` (``NO_SEAT`` before it starts). Slot ``S_TRICK_LEADERS``."""
    return S[S_TRICK_LEADERS + t]


@njit(cache=True, _nrt=False, inline="always")
def trick_winner(S, t):
    """The seat that won trick ``t`` (``NO_SEAT`` until it is over). Slot ``S_TRICK_WINNERS``."""
    return S[S_TRICK_WINNERS + t]


@njit(cache=True, _nrt=False, inline="always")
def trick_card(S, t, k):
    """The ``k``-th card played to trick ``t``, from its leader (``NO_CARD`` before it is played).
    Slot ``S_PLAYS``."""
    return S[S_PLAYS + N_SEATS * t + k]


@njit(cache=True, _nrt=False, inline="always")
def team_points_won(S, team):
    """The card points ``team`` has won in tricks so far, dix de der included. Slot ``S_POINTS``."""
    return S[S_POINTS + team]


@njit(cache=True, _nrt=False, inline="always")
def team_tricks_won(S, team):
    """The number of tricks ``team`` has won. Slot ``S_TRICKS``."""
    return S[S_TRICKS + team]


@njit(cache=True, _nrt=False, inline="always")
def seat_tricks_won(S, seat):
    """The number of tricks ``seat`` has won. Slot ``S_SEAT_TRICKS``."""
    return S[S_SEAT_TRICKS + seat]


@njit(cache=True, _nrt=False, inline="always")
def deal_made(S):
    """Whether the contract was made: ``MADE_UNSCORED``, ``MADE_FAILED``, ``MADE_MADE`` or
    ``MADE_LITIGE``. Slot ``S_MADE``."""
    return S[S_MADE]


@njit(cache=True, _nrt=False, inline="always")
def team_score(S, team):
    """The deal score of ``team``. Slot ``S_SCORE``."""
    return S[S_SCORE + team]


@njit(cache=True, _nrt=False, inline="always")
def team_card_points(S, team):
    """The card points ``team`` won. Slot ``S_CARD_POINTS``."""
    return S[S_CARD_POINTS + team]


@njit(cache=True)
def current_seats(states, rows):
    """The seat to act in each game ``states[rows[j]]`` (int64 array). Slot ``S_CUR``."""
    out = np.empty(rows.shape[0], dtype=np.int64)
    for j in range(rows.shape[0]):
        out[j] = states[rows[j], S_CUR]
    return out


@njit(cache=True)
def phases_of(states, rows):
    """The phase of each game ``states[rows[j]]`` (int64 array). Slot ``S_PHASE``."""
    out = np.empty(rows.shape[0], dtype=np.int64)
    for j in range(rows.shape[0]):
        out[j] = states[rows[j], S_PHASE]
    return out 