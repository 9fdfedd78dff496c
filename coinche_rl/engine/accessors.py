"""The named reads and writes of the state's slots. Generated from
``layout.ACCESSORS`` by ``layout.write_accessors()``: do not edit.
"""

from types import SimpleNamespace

import numpy as np
from numba import njit

from ..rules import N_SEATS
from .layout import (S_AUCTION, S_BELOTE_CARDS, S_BELOTE_DECIDED, S_BELOTE_ON, S_BELOTE_SEATS,
                     S_BID_SEAT, S_BID_STRAIN, S_BID_VALUE, S_CAPOT, S_CARD_POINTS, S_COINCHE,
                     S_CUR, S_DEALER, S_DECK, S_DECLARED, S_DECL_CARDS, S_DECL_DECIDED, S_DECL_LOW,
                     S_DECL_PTS, S_DECL_WINNER, S_GENERALE, S_HAND, S_INIT_HAND, S_LEADER, S_LITIGE,
                     S_MADE, S_N_AUCTION, S_PHASE, S_PLAYED, S_PLAYS, S_POINTS, S_PRISE_ROUND,
                     S_RAW_SCORE, S_RETOURNE, S_SCORE, S_SEAT_TRICKS, S_TEAM_BELOTE, S_TEAM_DECL,
                     S_TOTAL, S_TRICKS, S_TRICK_LEADERS, S_TRICK_N, S_TRICK_NO, S_TRICK_WINNERS,
                     S_VOID, S_WIN_CARD, S_WIN_SEAT)

__all__ = ["current_seat", "set_current_seat", "phase_of", "dealer_of", "hand_of", "set_hand",
           "initial_hand", "set_initial_hand", "contract_of", "contract_strain",
           "set_contract_strain", "contract_is_capot", "coinche_level", "auction_length",
           "auction_action", "set_auction_action", "deal_void", "retourne_of", "set_retourne",
           "prise_round", "deck_card", "litige_points", "seat_declaration_points",
           "declaration_cards", "low_carre_seats", "declare_decided_seats", "mark_declared",
           "declared_seats", "declaration_winner", "team_declaration_points", "belote_cards",
           "belote_holder_seats", "belote_decided_seats", "belote_announced_seats",
           "team_belote_points", "trick_number", "cards_in_trick", "current_leader", "winning_card",
           "winning_seat", "played_cards", "trick_leader", "trick_winner", "trick_card",
           "team_points_won", "team_tricks_won", "seat_tricks_won", "deal_made", "team_score",
           "team_raw_score", "team_total", "team_card_points", "generale_seat", "current_seats",
           "phases_of"]


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
def deck_card(S, i):
    """Classic family: the ``i``-th card in dealing order (``NO_CARD`` in the coinche family). Slot
    ``S_DECK``."""
    return S[S_DECK + i]


@njit(cache=True, _nrt=False, inline="always")
def litige_points(S):
    """Classic family: the takers' total held aside after a litige (else 0). Slot ``S_LITIGE``."""
    return S[S_LITIGE]


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
def declared_seats(S):
    """Bit per seat: has declared. Slot ``S_DECLARED``."""
    return S[S_DECLARED]


@njit(cache=True, _nrt=False, inline="always")
def declaration_winner(S):
    """The team that scores the declarations: 0 or 1, ``DECL_NOBODY``, or ``DECL_UNRESOLVED`` before
    they are compared. Slot ``S_DECL_WINNER``."""
    return S[S_DECL_WINNER]


@njit(cache=True, _nrt=False, inline="always")
def team_declaration_points(S, team):
    """The declaration points ``team`` scores (0 when the other team scores them). Slot
    ``S_TEAM_DECL``."""
    return S[S_TEAM_DECL + team]


@njit(cache=True, _nrt=False, inline="always")
def belote_cards(S):
    """The mask of the K and Q of every announced belote. Slot ``S_BELOTE_CARDS``."""
    return S[S_BELOTE_CARDS]


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
def team_belote_points(S, team):
    """The belote points ``team`` announced. Slot ``S_TEAM_BELOTE``."""
    return S[S_TEAM_BELOTE + team]


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
def team_raw_score(S, team):
    """The deal score of ``team`` before rounding. Slot ``S_RAW_SCORE``."""
    return S[S_RAW_SCORE + team]


@njit(cache=True, _nrt=False, inline="always")
def team_total(S, team):
    """The total of ``team`` that the made conditions compare. Slot ``S_TOTAL``."""
    return S[S_TOTAL + team]


@njit(cache=True, _nrt=False, inline="always")
def team_card_points(S, team):
    """The card points ``team`` won. Slot ``S_CARD_POINTS``."""
    return S[S_CARD_POINTS + team]


@njit(cache=True, _nrt=False, inline="always")
def generale_seat(S):
    """The seat that took every trick (a générale), else ``NO_SEAT``. Slot ``S_GENERALE``."""
    return S[S_GENERALE]


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


#: The same accessors as plain Python functions (each kernel's ``py_func``, the same
#: code), for the callers that run in Python: no numba dispatch and no compilation
#: per accessor.
py = SimpleNamespace(
    current_seat=current_seat.py_func,
    set_current_seat=set_current_seat.py_func,
    phase_of=phase_of.py_func,
    dealer_of=dealer_of.py_func,
    hand_of=hand_of.py_func,
    set_hand=set_hand.py_func,
    initial_hand=initial_hand.py_func,
    set_initial_hand=set_initial_hand.py_func,
    contract_of=contract_of.py_func,
    contract_strain=contract_strain.py_func,
    set_contract_strain=set_contract_strain.py_func,
    contract_is_capot=contract_is_capot.py_func,
    coinche_level=coinche_level.py_func,
    auction_length=auction_length.py_func,
    auction_action=auction_action.py_func,
    set_auction_action=set_auction_action.py_func,
    deal_void=deal_void.py_func,
    retourne_of=retourne_of.py_func,
    set_retourne=set_retourne.py_func,
    prise_round=prise_round.py_func,
    deck_card=deck_card.py_func,
    litige_points=litige_points.py_func,
    seat_declaration_points=seat_declaration_points.py_func,
    declaration_cards=declaration_cards.py_func,
    low_carre_seats=low_carre_seats.py_func,
    declare_decided_seats=declare_decided_seats.py_func,
    mark_declared=mark_declared.py_func,
    declared_seats=declared_seats.py_func,
    declaration_winner=declaration_winner.py_func,
    team_declaration_points=team_declaration_points.py_func,
    belote_cards=belote_cards.py_func,
    belote_holder_seats=belote_holder_seats.py_func,
    belote_decided_seats=belote_decided_seats.py_func,
    belote_announced_seats=belote_announced_seats.py_func,
    team_belote_points=team_belote_points.py_func,
    trick_number=trick_number.py_func,
    cards_in_trick=cards_in_trick.py_func,
    current_leader=current_leader.py_func,
    winning_card=winning_card.py_func,
    winning_seat=winning_seat.py_func,
    played_cards=played_cards.py_func,
    trick_leader=trick_leader.py_func,
    trick_winner=trick_winner.py_func,
    trick_card=trick_card.py_func,
    team_points_won=team_points_won.py_func,
    team_tricks_won=team_tricks_won.py_func,
    seat_tricks_won=seat_tricks_won.py_func,
    deal_made=deal_made.py_func,
    team_score=team_score.py_func,
    team_raw_score=team_raw_score.py_func,
    team_total=team_total.py_func,
    team_card_points=team_card_points.py_func,
    generale_seat=generale_seat.py_func,
    current_seats=current_seats.py_func,
    phases_of=phases_of.py_func) 