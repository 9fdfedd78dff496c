"""Belote for two players: the state layout (one deal as a fixed-size int64 vector
``T``), its dimensions and sentinels, and the table of the named accessors of its slots.

Slots ``T_*`` (offsets derived from :data:`TWO_LAYOUT`; masks are 32-bit card masks):

=======================  ====  =========================================================
slot                     size  meaning
=======================  ====  =========================================================
``T_HAND``               2     cards in each player's hand
``T_UP``                 2     each player's face-up table cards (all playable)
``T_DOWN``               2     each player's face-down table cards (unknown to both)
``T_STACK_UP``           16    ``[player * 8 + k]``: the face-up card dealt on stack k
                               (-1: no stack)
``T_STACK_DOWN``         16    the face-down card dealt under it (-1: none, the bergère)
``T_UNDER``              32    ``[card]``: the face-down card under that face-up card (-1)
``T_DEALER``             1     the dealer
``T_PHASE``              1     ``PRISE`` 0, ``PLAY`` 1, ``DONE`` 2, ``EXCHANGE`` 3
``T_CUR``                1     the player to act (-1 when done)
``T_ROUND``              1     prise round (1 or 2)
``T_N_PRISE``            1     prise actions so far (0..4)
``T_PRISE``              4     the prise actions in order
``T_RETOURNE``           1     the turned-up card
``T_TRUMP``              1     the trump suit (-1 before the prise ends)
``T_TAKER``              1     the taker (-1)
``T_EXCHANGE``           1     -1 not offered (round-2 prise, découverte), 0 kept (or no
                               7 of trump to exchange), 1 exchanged
``T_VOID``               1     1 when both passed twice
``T_DECK``               32    the 32 cards in dealing order
``T_TRICK_NO``           1     current trick 0..15
``T_LEADER``             1     leader of the current trick
``T_TRICK_N``            1     cards in the current trick (0 or 1)
``T_WIN_CARD``           1     the card led (the one to beat)
``T_PLAYED``             1     mask of the cards played
``T_POINTS``             2     card points won (with the dix de der)
``T_TRICKS``             2     tricks won
``T_DECL_PTS``           2     each player's best single declaration (points)
``T_DECL_KEY``           2     its sort key (0: none)
``T_DECL_CARDS``         2     its cards
``T_DECL_WINNER``        1     -2 unresolved, -1 nobody, else the player who scores it
``T_BELOTE_OWNER``       1     the player owning trump K + Q (-1: nobody or no belote)
``T_BELOTE``             2     belote points credited
``T_CARD_POINTS``        2     final card points (252 for a capot)
``T_CAPOT``              1     the player who won all 16 tricks (-1)
``T_MADE``               1     -1 unscored, 0 failed, 1 made, 2 litige
``T_LITIGE``             1     points held aside on a litige
``T_SCORE``              2     the deal's score per player
``T_TRICK_LEADERS``      16    leader of each trick
``T_TRICK_WINNERS``      16    winner of each trick (-1 until played)
``T_PLAYS``              32    cards in the order played
=======================  ====  =========================================================

No module outside the engine reads a slot (``tests/test_two_player_slots.py`` checks
it): the others go through the accessors (:mod:`.two_accessors`, generated from
:data:`TWO_ACCESSORS` below by the four-player family's generator,
:func:`.layout.accessors_source`) and :func:`.two.two_public_view_into` (what a player may
know). Numba kernels call the accessors themselves (inlined: the same code as the slot
read); Python code calls their plain-Python functions, ``two_accessors.py`` (re-exported
as ``engine.two.py``): ``E2.py.hand_of(T, 0)``, no numba dispatch and no compilation.
"""

from __future__ import annotations

from ..cards import N_CARDS
from .layout import accessors_source, blank_state, slot_offsets

#: the family's dimensions
N_PLAYERS = 2
N_TRICKS_TWO = 16
#: stacks per player (the most a preset deals: belote découverte's 8)
N_STACKS = 8
#: the cards each player owns (hand, face-up and face-down, played)
CARDS_PER_PLAYER = N_CARDS // N_PLAYERS
#: prise actions at most (two rounds of two players)
MAX_PRISE = 4

PRISE, PLAY, DONE, EXCHANGE_PHASE = 0, 1, 2, 3
NO_PLAYER = -1
NO_CARD = -1
#: in a player's view: a face-down card is there (its identity hidden)
HIDDEN_CARD = -2
DECL_UNRESOLVED = -2
DECL_NOBODY = -1
MADE_UNSCORED, MADE_FAILED, MADE_MADE, MADE_LITIGE = -1, 0, 1, 2


def other(player):
    """The other player (plain Python; the kernels call its inlined numba version,
    :func:`.two.other`)."""
    return 1 - player


TWO_LAYOUT = (
    ("T_HAND", N_PLAYERS), ("T_UP", N_PLAYERS), ("T_DOWN", N_PLAYERS),
    ("T_STACK_UP", N_PLAYERS * N_STACKS), ("T_STACK_DOWN", N_PLAYERS * N_STACKS),
    ("T_UNDER", N_CARDS),
    ("T_DEALER", 1), ("T_PHASE", 1), ("T_CUR", 1), ("T_ROUND", 1), ("T_N_PRISE", 1),
    ("T_PRISE", MAX_PRISE), ("T_RETOURNE", 1), ("T_TRUMP", 1), ("T_TAKER", 1),
    ("T_EXCHANGE", 1), ("T_VOID", 1), ("T_DECK", N_CARDS), ("T_TRICK_NO", 1),
    ("T_LEADER", 1), ("T_TRICK_N", 1), ("T_WIN_CARD", 1), ("T_PLAYED", 1),
    ("T_POINTS", N_PLAYERS), ("T_TRICKS", N_PLAYERS), ("T_DECL_PTS", N_PLAYERS),
    ("T_DECL_KEY", N_PLAYERS), ("T_DECL_CARDS", N_PLAYERS), ("T_DECL_WINNER", 1),
    ("T_BELOTE_OWNER", 1), ("T_BELOTE", N_PLAYERS), ("T_CARD_POINTS", N_PLAYERS),
    ("T_CAPOT", 1), ("T_MADE", 1), ("T_LITIGE", 1), ("T_SCORE", N_PLAYERS),
    ("T_TRICK_LEADERS", N_TRICKS_TWO), ("T_TRICK_WINNERS", N_TRICKS_TWO), ("T_PLAYS", N_CARDS),
)

TWO_OFFSETS, TWO_STATE_SIZE = slot_offsets(TWO_LAYOUT)
globals().update(TWO_OFFSETS)
#: the state before a deal, no card dealt (:func:`.two.two_reset` copies it)
TWO_BLANK = blank_state(TWO_LAYOUT, dict(
    T_STACK_UP=NO_CARD, T_STACK_DOWN=NO_CARD, T_UNDER=NO_CARD, T_PHASE=PRISE, T_ROUND=1,
    T_PRISE=-1, T_TRUMP=-1, T_TAKER=NO_PLAYER, T_EXCHANGE=-1, T_WIN_CARD=NO_CARD,
    T_DECL_WINNER=DECL_UNRESOLVED, T_BELOTE_OWNER=NO_PLAYER, T_CAPOT=NO_PLAYER,
    T_MADE=MADE_UNSCORED, T_TRICK_LEADERS=NO_PLAYER, T_TRICK_WINNERS=NO_PLAYER, T_PLAYS=NO_CARD))


# Named reads and writes of the state's slots, for the modules outside the engine,
# generated from this table into :mod:`.two_accessors` (:func:`write_two_accessors`
# writes it; tests/test_two_player_slots.py checks that it is current). The format is
# :data:`.layout.ACCESSORS`'s, plus ``block`` (the slot's whole block, a view) and
# ``column`` (the slot of every row of ``states``, a view); the two-index slots are rows
# of :data:`_STRIDES`.
#: ``(name, operation, slot(s), arguments after T, doc)``
TWO_ACCESSORS = (
    ("dealer_of", "get", "T_DEALER", (), "The dealer."),
    ("phase_of", "get", "T_PHASE", (), "The phase: ``PRISE``, ``EXCHANGE_PHASE``, ``PLAY`` or "
     "``DONE``."),
    ("current_player", "get", "T_CUR", (), "The player to act (``NO_PLAYER`` when done)."),
    ("deck_cards", "block", "T_DECK", (), "The 32 cards in dealing order (a view)."),
    ("hand_of", "get", "T_HAND", ("player",), "The cards in ``player``'s hand (a mask)."),
    ("set_hand", "set", "T_HAND", ("player", "mask"),
     "Make ``mask`` the cards in ``player``'s hand."),
    ("face_up_cards", "get", "T_UP", ("player",),
     "``player``'s face-up table cards (a mask; all playable)."),
    ("face_down_cards", "get", "T_DOWN", ("player",),
     "``player``'s face-down table cards (a mask; unknown to both players)."),
    ("set_face_down_cards", "set", "T_DOWN", ("player", "mask"),
     "Make ``mask`` ``player``'s face-down table cards."),
    ("add_face_down_cards", "or", "T_DOWN", ("player", "mask"),
     "Add the cards of ``mask`` to ``player``'s face-down table cards."),
    ("stack_face_up", "get", "T_STACK_UP", ("player", "k"),
     "The face-up card dealt on ``player``'s stack ``k`` (``NO_CARD``: no stack)."),
    ("stack_face_down", "get", "T_STACK_DOWN", ("player", "k"),
     "The face-down card dealt under ``player``'s stack ``k`` (``NO_CARD``: none; "
     "``HIDDEN_CARD`` in a view while face down)."),
    ("set_stack_face_down", "set", "T_STACK_DOWN", ("player", "k", "card"),
     "Make ``card`` the face-down card under ``player``'s stack ``k``."),
    ("cards_under", "block", "T_UNDER", (),
     "``[card]``: the face-down card under each face-up card (``NO_CARD``: none; a view)."),
    ("set_card_under", "set", "T_UNDER", ("card", "down"),
     "Make ``down`` the face-down card under the face-up ``card``."),
    ("prise_round", "get", "T_ROUND", (), "The round of the prise, 1 or 2."),
    ("prise_length", "get", "T_N_PRISE", (), "The number of prise actions so far."),
    ("prise_action", "get", "T_PRISE", ("i",), "The ``i``-th action of the prise."),
    ("retourne_of", "get", "T_RETOURNE", (), "The turned-up card (it proposes trump)."),
    ("trump_of", "get", "T_TRUMP", (), "The trump suit (-1 before the prise ends)."),
    ("taker_of", "get", "T_TAKER", (), "The taker (``NO_PLAYER`` before the prise ends)."),
    ("exchange_choice", "get", "T_EXCHANGE", (),
     "-1 when the exchange was not offered (yet), 0 kept (or no 7 of trump), 1 exchanged."),
    ("deal_void", "get", "T_VOID", (), "1 when both players passed twice, else 0."),
    ("trick_number", "get", "T_TRICK_NO", (),
     "The number of the trick being played, 0 to 15 (16 once the deal is over)."),
    ("current_leader", "get", "T_LEADER", (), "The player who leads (or led) the current trick."),
    ("cards_in_trick", "get", "T_TRICK_N", (),
     "The number of cards played to the current trick, 0 or 1."),
    ("led_card", "get", "T_WIN_CARD", (),
     "The card led to the current trick, the one to beat (``NO_CARD`` before its lead)."),
    ("played_cards", "get", "T_PLAYED", (), "The mask of the cards played so far."),
    ("trick_leader", "get", "T_TRICK_LEADERS", ("t",),
     "The player who led trick ``t`` (``NO_PLAYER`` before it starts)."),
    ("trick_winner", "get", "T_TRICK_WINNERS", ("t",),
     "The player who won trick ``t`` (``NO_PLAYER`` until it is over)."),
    ("trick_card", "get", "T_PLAYS", ("t", "k"),
     "The ``k``-th card played to trick ``t``, from its leader (``NO_CARD`` before it is "
     "played)."),
    ("card_points_won", "get", "T_POINTS", ("player",),
     "The card points ``player`` has won in tricks so far, dix de der included."),
    ("tricks_won", "get", "T_TRICKS", ("player",), "The number of tricks ``player`` has won."),
    ("declaration_points", "get", "T_DECL_PTS", ("player",),
     "The points of ``player``'s best single declaration."),
    ("declaration_cards", "get", "T_DECL_CARDS", ("player",),
     "The cards of ``player``'s best single declaration."),
    ("declaration_winner", "get", "T_DECL_WINNER", (),
     "The player who scores his declaration, ``DECL_NOBODY``, or ``DECL_UNRESOLVED`` "
     "before the first trick is complete."),
    ("belote_points", "get", "T_BELOTE", ("player",),
     "The belote points credited to ``player`` so far."),
    ("final_card_points", "get", "T_CARD_POINTS", ("player",),
     "``player``'s card points in the scored deal (252 for a capot)."),
    ("capot_player", "get", "T_CAPOT", (),
     "The player who won all 16 tricks (``NO_PLAYER``: nobody)."),
    ("deal_made", "get", "T_MADE", (),
     "``MADE_UNSCORED``, ``MADE_FAILED``, ``MADE_MADE`` or ``MADE_LITIGE``."),
    ("litige_points", "get", "T_LITIGE", (), "The points held aside on a litige (else 0)."),
    ("deal_score", "get", "T_SCORE", ("player",), "``player``'s score of the deal."),
    ("deal_scores", "column", "T_SCORE", ("player",),
     "``player``'s score of the deal in every state ``states[i]`` (a view)."),
    ("void_deals", "column", "T_VOID", (),
     "1 for each void deal of ``states``, else 0 (a view)."),
    ("trumps", "column", "T_TRUMP", (), "The trump suit of each deal of ``states`` (a view)."),
    ("takers", "column", "T_TAKER", (), "The taker of each deal of ``states`` (a view)."),
    ("deals_made", "column", "T_MADE", (),
     "``MADE_*`` of each deal of ``states`` (a view)."),
)
#: the row length of each two-index slot
_STRIDES = {"T_STACK_UP": "N_STACKS", "T_STACK_DOWN": "N_STACKS", "T_PLAYS": "N_PLAYERS"}


def two_accessors_source() -> str:
    """The source of :mod:`.two_accessors`, generated from :data:`TWO_ACCESSORS`."""
    return accessors_source(
        TWO_ACCESSORS, TWO_LAYOUT, imports=(), also_import=("N_PLAYERS", "N_STACKS"),
        origin=("two_layout", "TWO_ACCESSORS", "TWO_LAYOUT", "write_two_accessors"),
        stride=_STRIDES, plain_python=True)


def write_two_accessors() -> None:
    """Write :mod:`.two_accessors` from :data:`TWO_ACCESSORS` (after an edit of the table)."""
    from pathlib import Path
    Path(__file__).with_name("two_accessors.py").write_text(two_accessors_source(),
                                                            encoding="utf-8")
