"""The named reads and writes of the state's slots. Generated from
``two_layout.TWO_ACCESSORS`` by ``two_layout.write_two_accessors()``: do not edit.
"""

from types import SimpleNamespace

from numba import njit

from .two_layout import (N_PLAYERS, N_STACKS, T_BELOTE, T_CAPOT, T_CARD_POINTS, T_CUR, T_DEALER,
                         T_DECK, T_DECL_CARDS, T_DECL_PTS, T_DECL_WINNER, T_DOWN, T_EXCHANGE,
                         T_HAND, T_LEADER, T_LITIGE, T_MADE, T_N_PRISE, T_PHASE, T_PLAYED, T_PLAYS,
                         T_POINTS, T_PRISE, T_RETOURNE, T_ROUND, T_SCORE, T_STACK_DOWN, T_STACK_UP,
                         T_TAKER, T_TRICKS, T_TRICK_LEADERS, T_TRICK_N, T_TRICK_NO, T_TRICK_WINNERS,
                         T_TRUMP, T_UNDER, T_UP, T_VOID, T_WIN_CARD)

__all__ = ["dealer_of", "phase_of", "current_player", "deck_cards", "hand_of", "set_hand",
           "face_up_cards", "face_down_cards", "set_face_down_cards", "add_face_down_cards",
           "stack_face_up", "stack_face_down", "set_stack_face_down", "cards_under",
           "set_card_under", "prise_round", "prise_length", "prise_action", "retourne_of",
           "trump_of", "taker_of", "exchange_choice", "deal_void", "trick_number", "current_leader",
           "cards_in_trick", "led_card", "played_cards", "trick_leader", "trick_winner",
           "trick_card", "card_points_won", "tricks_won", "declaration_points", "declaration_cards",
           "declaration_winner", "belote_points", "final_card_points", "capot_player", "deal_made",
           "litige_points", "deal_score", "deal_scores", "void_deals", "trumps", "takers",
           "deals_made"]


@njit(cache=True, _nrt=False, inline="always")
def dealer_of(S):
    """The dealer. Slot ``T_DEALER``."""
    return S[T_DEALER]


@njit(cache=True, _nrt=False, inline="always")
def phase_of(S):
    """The phase: ``PRISE``, ``EXCHANGE_PHASE``, ``PLAY`` or ``DONE``. Slot ``T_PHASE``."""
    return S[T_PHASE]


@njit(cache=True, _nrt=False, inline="always")
def current_player(S):
    """The player to act (``NO_PLAYER`` when done). Slot ``T_CUR``."""
    return S[T_CUR]


@njit(cache=True, inline="always")
def deck_cards(S):
    """The 32 cards in dealing order (a view). Slot ``T_DECK``."""
    return S[T_DECK:T_DECK + 32]


@njit(cache=True, _nrt=False, inline="always")
def hand_of(S, player):
    """The cards in ``player``'s hand (a mask). Slot ``T_HAND``."""
    return S[T_HAND + player]


@njit(cache=True, _nrt=False, inline="always")
def set_hand(S, player, mask):
    """Make ``mask`` the cards in ``player``'s hand. Slot ``T_HAND``."""
    S[T_HAND + player] = mask


@njit(cache=True, _nrt=False, inline="always")
def face_up_cards(S, player):
    """``player``'s face-up table cards (a mask; all playable). Slot ``T_UP``."""
    return S[T_UP + player]


@njit(cache=True, _nrt=False, inline="always")
def face_down_cards(S, player):
    """``player``'s face-down table cards (a mask; unknown to both players). Slot ``T_DOWN``."""
    return S[T_DOWN + player]


@njit(cache=True, _nrt=False, inline="always")
def set_face_down_cards(S, player, mask):
    """Make ``mask`` ``player``'s face-down table cards. Slot ``T_DOWN``."""
    S[T_DOWN + player] = mask


@njit(cache=True, _nrt=False, inline="always")
def add_face_down_cards(S, player, mask):
    """Add the cards of ``mask`` to ``player``'s face-down table cards. Slot ``T_DOWN``."""
    S[T_DOWN + player] |= mask


@njit(cache=True, _nrt=False, inline="always")
def stack_face_up(S, player, k):
    """The face-up card dealt on ``player``'s stack ``k`` (``NO_CARD``: no stack). Slot
    ``T_STACK_UP``."""
    return S[T_STACK_UP + N_STACKS * player + k]


@njit(cache=True, _nrt=False, inline="always")
def stack_face_down(S, player, k):
    """The face-down card dealt under ``player``'s stack ``k`` (``NO_CARD``: none; ``HIDDEN_CARD``
    in a view while face down). Slot ``T_STACK_DOWN``."""
    return S[T_STACK_DOWN + N_STACKS * player + k]


@njit(cache=True, _nrt=False, inline="always")
def set_stack_face_down(S, player, k, card):
    """Make ``card`` the face-down card under ``player``'s stack ``k``. Slot ``T_STACK_DOWN``."""
    S[T_STACK_DOWN + N_STACKS * player + k] = card


@njit(cache=True, inline="always")
def cards_under(S):
    """``[card]``: the face-down card under each face-up card (``NO_CARD``: none; a view). Slot
    ``T_UNDER``."""
    return S[T_UNDER:T_UNDER + 32]


@njit(cache=True, _nrt=False, inline="always")
def set_card_under(S, card, down):
    """Make ``down`` the face-down card under the face-up ``card``. Slot ``T_UNDER``."""
    S[T_UNDER + card] = down


@njit(cache=True, _nrt=False, inline="always")
def prise_round(S):
    """The round of the prise, 1 or 2. Slot ``T_ROUND``."""
    return S[T_ROUND]


@njit(cache=True, _nrt=False, inline="always")
def prise_length(S):
    """The number of prise actions so far. Slot ``T_N_PRISE``."""
    return S[T_N_PRISE]


@njit(cache=True, _nrt=False, inline="always")
def prise_action(S, i):
    """The ``i``-th action of the prise. Slot ``T_PRISE``."""
    return S[T_PRISE + i]


@njit(cache=True, _nrt=False, inline="always")
def retourne_of(S):
    """The turned-up card (it proposes trump). Slot ``T_RETOURNE``."""
    return S[T_RETOURNE]


@njit(cache=True, _nrt=False, inline="always")
def trump_of(S):
    """The trump suit (-1 before the prise ends). Slot ``T_TRUMP``."""
    return S[T_TRUMP]


@njit(cache=True, _nrt=False, inline="always")
def taker_of(S):
    """The taker (``NO_PLAYER`` before the prise ends). Slot ``T_TAKER``."""
    return S[T_TAKER]


@njit(cache=True, _nrt=False, inline="always")
def exchange_choice(S):
    """-1 when the exchange was not offered (yet), 0 kept (or no 7 of trump), 1 exchanged. Slot
    ``T_EXCHANGE``."""
    return S[T_EXCHANGE]


@njit(cache=True, _nrt=False, inline="always")
def deal_void(S):
    """1 when both players passed twice, else 0. Slot ``T_VOID``."""
    return S[T_VOID]


@njit(cache=True, _nrt=False, inline="always")
def trick_number(S):
    """The number of the trick being played, 0 to 15 (16 once the deal is over). Slot
    ``T_TRICK_NO``."""
    return S[T_TRICK_NO]


@njit(cache=True, _nrt=False, inline="always")
def current_leader(S):
    """The player who leads (or led) the current trick. Slot ``T_LEADER``."""
    return S[T_LEADER]


@njit(cache=True, _nrt=False, inline="always")
def cards_in_trick(S):
    """The number of cards played to the current trick, 0 or 1. Slot ``T_TRICK_N``."""
    return S[T_TRICK_N]


@njit(cache=True, _nrt=False, inline="always")
def led_card(S):
    """The card led to the current trick, the one to beat (``NO_CARD`` before its lead). Slot
    ``T_WIN_CARD``."""
    return S[T_WIN_CARD]


@njit(cache=True, _nrt=False, inline="always")
def played_cards(S):
    """The mask of the cards played so far. Slot ``T_PLAYED``."""
    return S[T_PLAYED]


@njit(cache=True, _nrt=False, inline="always")
def trick_leader(S, t):
    """The player who led trick ``t`` (``NO_PLAYER`` before it starts). Slot ``T_TRICK_LEADERS``."""
    return S[T_TRICK_LEADERS + t]


@njit(cache=True, _nrt=False, inline="always")
def trick_winner(S, t):
    """The player who won trick ``t`` (``NO_PLAYER`` until it is over). Slot ``T_TRICK_WINNERS``."""
    return S[T_TRICK_WINNERS + t]


@njit(cache=True, _nrt=False, inline="always")
def trick_card(S, t, k):
    """The ``k``-th card played to trick ``t``, from its leader (``NO_CARD`` before it is played).
    Slot ``T_PLAYS``."""
    return S[T_PLAYS + N_PLAYERS * t + k]


@njit(cache=True, _nrt=False, inline="always")
def card_points_won(S, player):
    """The card points ``player`` has won in tricks so far, dix de der included. Slot
    ``T_POINTS``."""
    return S[T_POINTS + player]


@njit(cache=True, _nrt=False, inline="always")
def tricks_won(S, player):
    """The number of tricks ``player`` has won. Slot ``T_TRICKS``."""
    return S[T_TRICKS + player]


@njit(cache=True, _nrt=False, inline="always")
def declaration_points(S, player):
    """The points of ``player``'s best single declaration. Slot ``T_DECL_PTS``."""
    return S[T_DECL_PTS + player]


@njit(cache=True, _nrt=False, inline="always")
def declaration_cards(S, player):
    """The cards of ``player``'s best single declaration. Slot ``T_DECL_CARDS``."""
    return S[T_DECL_CARDS + player]


@njit(cache=True, _nrt=False, inline="always")
def declaration_winner(S):
    """The player who scores his declaration, ``DECL_NOBODY``, or ``DECL_UNRESOLVED`` before the
    first trick is complete. Slot ``T_DECL_WINNER``."""
    return S[T_DECL_WINNER]


@njit(cache=True, _nrt=False, inline="always")
def belote_points(S, player):
    """The belote points credited to ``player`` so far. Slot ``T_BELOTE``."""
    return S[T_BELOTE + player]


@njit(cache=True, _nrt=False, inline="always")
def final_card_points(S, player):
    """``player``'s card points in the scored deal (252 for a capot). Slot ``T_CARD_POINTS``."""
    return S[T_CARD_POINTS + player]


@njit(cache=True, _nrt=False, inline="always")
def capot_player(S):
    """The player who won all 16 tricks (``NO_PLAYER``: nobody). Slot ``T_CAPOT``."""
    return S[T_CAPOT]


@njit(cache=True, _nrt=False, inline="always")
def deal_made(S):
    """``MADE_UNSCORED``, ``MADE_FAILED``, ``MADE_MADE`` or ``MADE_LITIGE``. Slot ``T_MADE``."""
    return S[T_MADE]


@njit(cache=True, _nrt=False, inline="always")
def litige_points(S):
    """The points held aside on a litige (else 0). Slot ``T_LITIGE``."""
    return S[T_LITIGE]


@njit(cache=True, _nrt=False, inline="always")
def deal_score(S, player):
    """``player``'s score of the deal. Slot ``T_SCORE``."""
    return S[T_SCORE + player]


@njit(cache=True)
def deal_scores(states, player):
    """``player``'s score of the deal in every state ``states[i]`` (a view). Slot ``T_SCORE``."""
    return states[:, T_SCORE + player]


@njit(cache=True)
def void_deals(states):
    """1 for each void deal of ``states``, else 0 (a view). Slot ``T_VOID``."""
    return states[:, T_VOID]


@njit(cache=True)
def trumps(states):
    """The trump suit of each deal of ``states`` (a view). Slot ``T_TRUMP``."""
    return states[:, T_TRUMP]


@njit(cache=True)
def takers(states):
    """The taker of each deal of ``states`` (a view). Slot ``T_TAKER``."""
    return states[:, T_TAKER]


@njit(cache=True)
def deals_made(states):
    """``MADE_*`` of each deal of ``states`` (a view). Slot ``T_MADE``."""
    return states[:, T_MADE]


#: The same accessors as plain Python functions (each kernel's ``py_func``, the same
#: code), for the callers that run in Python: no numba dispatch and no compilation
#: per accessor.
py = SimpleNamespace(
    dealer_of=dealer_of.py_func,
    phase_of=phase_of.py_func,
    current_player=current_player.py_func,
    deck_cards=deck_cards.py_func,
    hand_of=hand_of.py_func,
    set_hand=set_hand.py_func,
    face_up_cards=face_up_cards.py_func,
    face_down_cards=face_down_cards.py_func,
    set_face_down_cards=set_face_down_cards.py_func,
    add_face_down_cards=add_face_down_cards.py_func,
    stack_face_up=stack_face_up.py_func,
    stack_face_down=stack_face_down.py_func,
    set_stack_face_down=set_stack_face_down.py_func,
    cards_under=cards_under.py_func,
    set_card_under=set_card_under.py_func,
    prise_round=prise_round.py_func,
    prise_length=prise_length.py_func,
    prise_action=prise_action.py_func,
    retourne_of=retourne_of.py_func,
    trump_of=trump_of.py_func,
    taker_of=taker_of.py_func,
    exchange_choice=exchange_choice.py_func,
    deal_void=deal_void.py_func,
    trick_number=trick_number.py_func,
    current_leader=current_leader.py_func,
    cards_in_trick=cards_in_trick.py_func,
    led_card=led_card.py_func,
    played_cards=played_cards.py_func,
    trick_leader=trick_leader.py_func,
    trick_winner=trick_winner.py_func,
    trick_card=trick_card.py_func,
    card_points_won=card_points_won.py_func,
    tricks_won=tricks_won.py_func,
    declaration_points=declaration_points.py_func,
    declaration_cards=declaration_cards.py_func,
    declaration_winner=declaration_winner.py_func,
    belote_points=belote_points.py_func,
    final_card_points=final_card_points.py_func,
    capot_player=capot_player.py_func,
    deal_made=deal_made.py_func,
    litige_points=litige_points.py_func,
    deal_score=deal_score.py_func,
    deal_scores=deal_scores.py_func,
    void_deals=void_deals.py_func,
    trumps=trumps.py_func,
    takers=takers.py_func,
    deals_made=deals_made.py_func) 