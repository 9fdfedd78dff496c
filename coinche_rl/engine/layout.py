"""The state layout: one deal as a fixed-size int64 vector, its sentinels, and the table
of the named accessors of its slots.

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

No module outside the engine reads a slot, ``game.py`` (the engine's Python face) and the
benchmarks included (``tests/test_engine_state.py`` checks it): they go through the
accessors (:mod:`.accessors`, generated from :data:`ACCESSORS` at the end of this module),
:func:`~coinche_rl.engine.views.public_view_into` (what a seat may know) and
:func:`~coinche_rl.engine.views.determinize_into` (the full state back from it, the
hidden hands and the hidden private choices).

Each accessor comes twice from its one line of the table: a numba kernel
(``engine.hand_of``, inlined into numba callers: the same code as the slot read it
replaces) and the same function in plain Python, ``engine.py.hand_of`` (the kernel's
``py_func``), which is what code running in Python (``game.py``, the benchmarks' Python
loops) calls: calling a kernel from Python costs a dispatch per call and a compilation
per accessor on first use.
"""

from __future__ import annotations

import numpy as np

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


class FlatLayout:
    """The layout of a flat array (the state, the solver's workspace, the sampler's table):
    blocks back to back from 0, each declared with its size, its offset following from
    those before it. ``block(size)`` is the offset of the next block (a module-level int,
    as numba reads it), ``words(n)`` the offsets of ``n`` one-entry blocks, ``spare(size)``
    skips entries no one uses, and ``size`` is the total so far."""

    def __init__(self):
        self.size = 0

    def block(self, size: int) -> int:
        if size < 0:
            raise ValueError(f"a block of {size} entries")
        start = self.size
        self.size += size
        return start

    def words(self, n: int) -> range:
        return range(self.block(n), self.size)

    def spare(self, size: int) -> None:
        self.block(size)


def slot_offsets(layout):
    """``{name: offset}`` of ``layout`` (slots back to back from 0), and the total size."""
    flat = FlatLayout()
    offsets = {name: flat.block(size) for name, size in layout}
    return offsets, flat.size


def blank_state(layout, fill):
    """The state of ``layout`` before a deal (int64, read by the kernels as a constant
    they copy): every slot 0 but those named in ``fill`` (``{slot: value}``), whose whole
    block holds the value. The reset of every family is this copy plus the slots the deal
    decides (dealer, player to act, cards)."""
    offsets, size = slot_offsets(layout)
    sizes = dict(layout)
    state = np.zeros(size, dtype=np.int64)
    for name, value in fill.items():
        state[offsets[name]:offsets[name] + sizes[name]] = value
    state.flags.writeable = False
    return state


STATE_OFFSETS, STATE_SIZE = slot_offsets(STATE_LAYOUT)   # STATE_SIZE: 215
globals().update(STATE_OFFSETS)
# sentinel values of the slots
NO_SEAT = -1              # S_BID_SEAT, S_COINCHE_SEAT, S_WIN_SEAT, S_GENERALE, trick leaders / winners
NO_CARD = -1              # S_WIN_CARD, S_PLAYS, S_RETOURNE and S_DECK (coinche family)
NO_ACTION = -1            # S_AUCTION past the actions taken
DECL_UNRESOLVED = -2      # S_DECL_WINNER before the declarations are resolved
DECL_NOBODY = -1          # S_DECL_WINNER: no team scores declarations
NOT_COINCHED, COINCHED, SURCOINCHED = 0, 1, 2        # S_COINCHE
MADE_UNSCORED, MADE_FAILED, MADE_MADE, MADE_LITIGE = -1, 0, 1, 2   # S_MADE
#: the state before a deal, hands empty (:func:`.deal.reset_state` copies it)
STATE_BLANK = blank_state(STATE_LAYOUT, dict(
    S_PHASE=AUCTION, S_BID_SEAT=NO_SEAT, S_COINCHE_SEAT=NO_SEAT, S_DECL_WINNER=DECL_UNRESOLVED,
    S_MADE=MADE_UNSCORED, S_GENERALE=NO_SEAT, S_WIN_SEAT=NO_SEAT, S_WIN_CARD=NO_CARD,
    S_TRICK_LEADERS=NO_SEAT, S_TRICK_WINNERS=NO_SEAT, S_PLAYS=NO_CARD, S_AUCTION=NO_ACTION,
    S_RETOURNE=NO_CARD, S_DECK=NO_CARD))


# Named reads and writes of the state's slots, for the modules outside the engine. They
# are generated from this table into :mod:`.accessors` (:func:`write_accessors` writes
# it; tests/test_engine_state.py checks that it is current):
# inlined into numba callers (the same code as the slot read it replaces), and the same
# functions in plain Python, the namespace ``py`` of :mod:`.accessors` (each ``py_func``)
# for Python callers. The layout stays the engine's business.
#: ``(name, operation, slot(s), arguments after S, doc)``; operations: ``get`` (the slot
#: at the sum of the arguments, or ``N_SEATS * t + k`` for two), ``set`` and ``or`` (the
#: last argument is the value), ``rows`` (the slot of each ``states[rows[j]]``)
ACCESSORS = (
    ("current_seat", "get", "S_CUR", (), "The seat to act."),
    ("set_current_seat", "set", "S_CUR", ("seat",), "Make ``seat`` the seat to act."),
    ("phase_of", "get", "S_PHASE", (), "The phase: ``AUCTION``, ``PLAY`` or ``DONE``."),
    ("dealer_of", "get", "S_DEALER", (), "The dealer."),
    ("hand_of", "get", "S_HAND", ("seat",), "The card mask ``seat`` holds now."),
    ("set_hand", "set", "S_HAND", ("seat", "mask"),
     "Make ``mask`` the cards ``seat`` holds now."),
    ("initial_hand", "get", "S_INIT_HAND", ("seat",), "The card mask ``seat`` was dealt."),
    ("set_initial_hand", "set", "S_INIT_HAND", ("seat", "mask"),
     "Make ``mask`` the cards ``seat`` was dealt."),
    ("contract_of", "get", ("S_BID_VALUE", "S_BID_STRAIN", "S_BID_SEAT"), (),
     "``(value, strain, bidder)`` of the current bid or contract (bidder ``NO_SEAT`` "
     "before any bid)."),
    ("contract_strain", "get", "S_BID_STRAIN", (), "The strain of the current bid or contract."),
    ("set_contract_strain", "set", "S_BID_STRAIN", ("strain",),
     "Make ``strain`` the strain of the current bid or contract."),
    ("contract_is_capot", "get", "S_CAPOT", (),
     "Whether the current bid or contract is a capot (0 or 1)."),
    ("coinche_level", "get", "S_COINCHE", (),
     "``NOT_COINCHED``, ``COINCHED`` or ``SURCOINCHED``."),
    ("auction_length", "get", "S_N_AUCTION", (), "The number of auction actions so far."),
    ("auction_action", "get", "S_AUCTION", ("i",),
     "The ``i``-th action of the auction (from the seat after the dealer)."),
    ("set_auction_action", "set", "S_AUCTION", ("i", "a"),
     "Make ``a`` the ``i``-th action of the auction."),
    ("deal_void", "get", "S_VOID", (),
     "1 when the deal is void (the auction ended without a contract), else 0."),
    ("retourne_of", "get", "S_RETOURNE", (),
     "Classic family: the turned-up card (``NO_CARD`` otherwise)."),
    ("set_retourne", "set", "S_RETOURNE", ("card",),
     "Classic family: make ``card`` the turned-up card."),
    ("prise_round", "get", "S_PRISE_ROUND", (), "Classic family: the round of the prise, 1 or 2."),
    ("deck_card", "get", "S_DECK", ("i",),
     "Classic family: the ``i``-th card in dealing order (``NO_CARD`` in the coinche family)."),
    ("litige_points", "get", "S_LITIGE", (),
     "Classic family: the takers' total held aside after a litige (else 0)."),
    ("seat_declaration_points", "get", "S_DECL_PTS", ("seat",),
     "The points of ``seat``'s best declaration."),
    ("declaration_cards", "get", "S_DECL_CARDS", ("seat",),
     "The cards of ``seat``'s declarations."),
    ("low_carre_seats", "get", "S_DECL_LOW", (), "Bit per seat: holds a carré of 7s or 8s."),
    ("declare_decided_seats", "get", "S_DECL_DECIDED", (),
     "Bit per seat: its declare choice is made."),
    ("mark_declared", "or", "S_DECLARED", ("bits",),
     "Add the seats of ``bits`` to the declaring seats."),
    ("declared_seats", "get", "S_DECLARED", (), "Bit per seat: has declared."),
    ("declaration_winner", "get", "S_DECL_WINNER", (),
     "The team that scores the declarations: 0 or 1, ``DECL_NOBODY``, or "
     "``DECL_UNRESOLVED`` before they are compared."),
    ("team_declaration_points", "get", "S_TEAM_DECL", ("team",),
     "The declaration points ``team`` scores (0 when the other team scores them)."),
    ("belote_cards", "get", "S_BELOTE_CARDS", (),
     "The mask of the K and Q of every announced belote."),
    ("belote_holder_seats", "get", "S_BELOTE_SEATS", (),
     "Bit per seat: holds K and Q of a trump suit."),
    ("belote_decided_seats", "get", "S_BELOTE_DECIDED", (),
     "Bit per seat: its belote choice is made."),
    ("belote_announced_seats", "get", "S_BELOTE_ON", (), "Bit per seat: announced its belote."),
    ("team_belote_points", "get", "S_TEAM_BELOTE", ("team",),
     "The belote points ``team`` announced."),
    ("trick_number", "get", "S_TRICK_NO", (), "The number of the trick being played, 0 to 7."),
    ("cards_in_trick", "get", "S_TRICK_N", (),
     "The number of cards played to the current trick so far."),
    ("current_leader", "get", "S_LEADER", (), "The seat that leads (or led) the current trick."),
    ("winning_card", "get", "S_WIN_CARD", (),
     "The card winning the current trick so far (``NO_CARD`` before its lead)."),
    ("winning_seat", "get", "S_WIN_SEAT", (),
     "The seat winning the current trick so far (``NO_SEAT`` before its lead)."),
    ("played_cards", "get", "S_PLAYED", (), "The mask of the cards played so far, by every seat."),
    ("trick_leader", "get", "S_TRICK_LEADERS", ("t",),
     "The seat that led trick ``t`` (``NO_SEAT`` before it starts)."),
    ("trick_winner", "get", "S_TRICK_WINNERS", ("t",),
     "The seat that won trick ``t`` (``NO_SEAT`` until it is over)."),
    ("trick_card", "get", "S_PLAYS", ("t", "k"),
     "The ``k``-th card played to trick ``t``, from its leader (``NO_CARD`` before it "
     "is played)."),
    ("team_points_won", "get", "S_POINTS", ("team",),
     "The card points ``team`` has won in tricks so far, dix de der included."),
    ("team_tricks_won", "get", "S_TRICKS", ("team",), "The number of tricks ``team`` has won."),
    ("seat_tricks_won", "get", "S_SEAT_TRICKS", ("seat",),
     "The number of tricks ``seat`` has won."),
    ("deal_made", "get", "S_MADE", (),
     "Whether the contract was made: ``MADE_UNSCORED``, ``MADE_FAILED``, ``MADE_MADE`` "
     "or ``MADE_LITIGE``."),
    ("team_score", "get", "S_SCORE", ("team",), "The deal score of ``team``."),
    ("team_raw_score", "get", "S_RAW_SCORE", ("team",),
     "The deal score of ``team`` before rounding."),
    ("team_total", "get", "S_TOTAL", ("team",),
     "The total of ``team`` that the made conditions compare."),
    ("team_card_points", "get", "S_CARD_POINTS", ("team",), "The card points ``team`` won."),
    ("generale_seat", "get", "S_GENERALE", (),
     "The seat that took every trick (a générale), else ``NO_SEAT``."),
    ("current_seats", "rows", "S_CUR", (),
     "The seat to act in each game ``states[rows[j]]`` (int64 array)."),
    ("phases_of", "rows", "S_PHASE", (),
     "The phase of each game ``states[rows[j]]`` (int64 array)."),
)


def accessors_source(table=None, layout=None, *, origin=("layout", "ACCESSORS",
                     "STATE_LAYOUT", "write_accessors"), imports=("from ..rules import N_SEATS",),
                     also_import=(), stride="N_SEATS", plain_python=True) -> str:
    """The source of :mod:`.accessors`, generated from :data:`ACCESSORS`; or, with the
    arguments, of another state's accessors (the two-player family's,
    :mod:`.two_layout`): ``table`` in the format of :data:`ACCESSORS` (with two more
    operations: ``block``, the slot's whole block as a view, and ``column``, the slot in
    every row of a 2-D ``states``), ``layout`` its ``(name, size)`` layout, ``origin`` the
    engine module that holds them, the names of the table and the layout and its writer,
    ``imports`` lines above the slots' import, ``also_import`` more names from ``origin``,
    ``stride`` the row length of the two-index slots (or ``{slot: name}``), and
    ``plain_python``: add ``py``, a namespace of the accessors' plain-Python functions
    (for Python callers: no numba dispatch, no compilation)."""
    table = ACCESSORS if table is None else table
    offsets = STATE_OFFSETS if layout is None else slot_offsets(layout)[0]
    sizes = dict(STATE_LAYOUT if layout is None else layout)
    module, table_name, layout_name, writer = origin
    slots = sorted({x for _, _, slot, _, _ in table
                    for x in ((slot,) if isinstance(slot, str) else slot)})
    unknown = [x for x in slots if x not in offsets]
    if unknown:
        raise ValueError(f"{table_name} names slots not in {layout_name}: {unknown}")
    names = [a[0] for a in table]
    out = ['"""The named reads and writes of the state\'s slots. Generated from',
           f"``{module}.{table_name}`` by ``{module}.{writer}()``: do not edit.",
           '"""', ""]
    out += ["from types import SimpleNamespace", ""] if plain_python else []
    out += ["import numpy as np"] if any(a[1] == "rows" for a in table) else []
    out += ["from numba import njit", "", *imports,
            _wrapped(f"from .{module} import (", [*also_import, *slots], ")"), "",
            _wrapped("__all__ = [", [f'"{n}"' for n in names], "]")]
    for name, op, slot, args, doc in table:
        many = not isinstance(slot, str)
        where = ", ".join(f"``{x}``" for x in (slot if many else (slot,)))
        text = _wrapped('    """', [f"{doc} Slot{'s' if many else ''} {where}."], '"""', sep="")
        if op == "rows":
            out += ["", "@njit(cache=True)", f"def {name}(states, rows):", text,
                    "    out = np.empty(rows.shape[0], dtype=np.int64)",
                    "    for j in range(rows.shape[0]):",
                    f"        out[j] = states[rows[j], {slot}]", "    return out"]
            continue
        if op in ("block", "column"):
            first = "S" if op == "block" else "states"
            body = (f"return S[{slot}:{slot} + {sizes[slot]}]" if op == "block" else
                    f"return states[:, {slot}{''.join(f' + {a}' for a in args)}]")
            out += ["", "@njit(cache=True)" if op == "column" else
                    "@njit(cache=True, inline=\"always\")",
                    f"def {name}({', '.join((first,) + tuple(args))}):", text, "    " + body]
            continue
        index = args[:-1] if op in ("set", "or") else args
        row_length = stride if isinstance(stride, str) else stride.get(slot)
        offset = (f" + {row_length} * {index[0]} + {index[1]}" if len(index) == 2
                  else "".join(f" + {a}" for a in index))
        if isinstance(slot, str):
            target = f"S[{slot}{offset}]"
        else:
            target = ", ".join(f"S[{x}]" for x in slot)
        body = (f"return {target}" if op == "get" else
                f"{target} {'=' if op == 'set' else '|='} {args[-1]}")
        out += ["", "@njit(cache=True, _nrt=False, inline=\"always\")",
                f"def {name}({', '.join(('S',) + tuple(args))}):", text, "    " + body]
    if plain_python:
        out += ["", "", "#: The same accessors as plain Python functions (each kernel's "
                "``py_func``, the same", "#: code), for the callers that run in Python: no "
                "numba dispatch and no compilation", "#: per accessor.", "py = SimpleNamespace("]
        out += [f"    {name}={name}.py_func," for name in names]
        out[-1] = out[-1][:-1] + ")"
    return "\n".join(out).replace("\n\n@njit", "\n\n\n@njit") + " "


def _wrapped(opening: str, items, closing: str, sep: str = ", ") -> str:
    """``opening`` + the items joined by ``sep`` + ``closing``, wrapped at 100 columns
    under the opening (a docstring: under its quotes' indent)."""
    import textwrap
    indent = opening.rstrip('"') if opening.endswith('"""') else " " * len(opening)
    return textwrap.fill(sep.join(items) + closing, 100, initial_indent=opening,
                         subsequent_indent=indent, break_on_hyphens=False)


def write_accessors() -> None:
    """Write :mod:`.accessors` from :data:`ACCESSORS` (after an edit of the table)."""
    from pathlib import Path
    Path(__file__).with_name("accessors.py").write_text(accessors_source(), encoding="utf-8")
