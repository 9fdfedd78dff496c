"""Observation encoding of belote for two players (``coinche_rl.envs.observation_two``),
version 1.

:func:`encode` turns a :class:`~coinche_rl.two_player.TwoPlayerView` (what one player
knows: ``deal.view(player)``, built from the engine's public view, which holds no
face-down card and no card of the other hand beyond ``known_other``) and, in match mode,
the public match score into a flat ``float32`` vector. It reads nothing else, so it
cannot leak. The environments compute the identical vector with the numba kernel
:func:`coinche_rl.envs.encoder_two.encode_view`, which reads only the public view
vector ``deal.public_state(player)`` (tested equal at every step of random games of both
presets). :func:`decode` gives the readable values back.

Players are **relative to the observer**: index 0 = me, 1 = the other player. Cards are
``suit * 8 + rank`` (``coinche_rl.cards``), suits 0..3 = S H D C.

===========================  ======  ===================================================
slice                        size    content
===========================  ======  ===================================================
``hand``                     32      own hand now
``known_other``              32      the other hand's cards I know (the retourne he took,
                                     the 7 of trump after an exchange, his winning
                                     declaration's cards): ``TwoPlayerView.known_other``
``table_up``                 2 x 32  face-up table cards of me / the other (all playable)
``covers``                   2 x 32  those face-up cards with a face-down card under them
                                     (per stack: its face-up card, whether a face-down
                                     card lies under it)
``face_down``                2       face-down cards of me / the other, count / 8 (a card
                                     whose cover was played in the current trick counts
                                     until the trick is collected)
``hand_size``                2       hand sizes me / other / 10
``dealer``                   2       the dealer, me / other
``phase``                    4       prise / exchange / play / done
``to_act``                   2       the player to act (zeros when done)
``prise``                    4 x 6   the prise actions in order (the non-dealer speaks
                                     first): pass, take, name S, name H, name D, name C
``prise_round``              2       during the prise: round 1 / round 2
``retourne``                 32      the turned-up card (proposes trump)
``retourne_holder``          2       who received the retourne in his hand (the taker, or
                                     the non-taker after an exchange; ``belote_a_deux``)
``trump``                    4       the trump suit (zeros before the prise ends, void)
``taker``                    2       me / other
``exchange``                 2       the non-taker kept (no-exchange) / exchanged the 7
                                     of trump (zeros when no choice was made)
``played_by``                32 x 2  for each card played, who played it (me / other)
``played_when``              32      for each card played, (trick index + 1) / 16
``current_trick``            32      the card led in the current trick (play phase)
``leader``                   2       the leader of the current trick (play phase)
``trick_no``                 16      the current trick, one-hot (play phase)
``points``                   2       card points won me / other / 162 (dix de der once
                                     the 16th trick is played)
``tricks``                   2       tricks won me / other / 16
``declared``                 2       declared points (best single declaration) me /
                                     other / 200; the other's once he has declared (at his
                                     first card)
``declarations_resolved``    1       1 once the first trick is complete
``declaration_winner``       2       me / other (the one scoring his declaration)
``declaration_cards``        2 x 32  my declaration's cards; the other's once it won
``belote``                   2       belote credited to me / the other
``match``                    5       match mode flag, my score / target, his / target,
                                     target / 1000, litige pot / 162 (zeros in deal mode;
                                     each clipped to ``HIGH``)
``rules``                    4       hand_cards, declarations, belote, litige
===========================  ======  ===================================================

:data:`LAYOUT` maps each name to its ``(start, stop)``; :data:`OBSERVATION_SIZE` (502) is
the total; :data:`HIGH` the per-element upper bound (1 except the ``match`` ratios);
every value is >= 0.

>>> from coinche_rl.two_player import TwoPlayerDeal
>>> deal = TwoPlayerDeal("belote_a_deux", seed=7, dealer=1)
>>> deal.apply("take")
>>> v = encode(deal.view(1))
>>> d = decode(v, observer=1)
>>> v.shape == (OBSERVATION_SIZE,), d["phase"], d["taker"], d["prise"]
(True, 'exchange', 0, [(0, 'take')])
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Optional

import numpy as np

from .. import actions as A
from ..cards import popcount
from ..engine import two as E2
from ..engine.two_layout import MAX_PRISE, N_PLAYERS, N_STACKS, N_TRICKS_TWO, other
from ..rules import DEAL_POINTS
from .observation import _bits, _mask, layout_offsets, layout_size, slice_layout

__all__ = ["VERSION", "LAYOUT", "OBSERVATION_SIZE", "HIGH", "PHASES", "PRISE_ACTIONS",
           "encode", "decode"]

VERSION = 1

#: the phases, in the order of the ``phase`` slice
PHASES = ("prise", "exchange", "play", "done")
#: the prise actions, in the order of each row of the ``prise`` slice
PRISE_ACTIONS = ("pass", "take", "nameS", "nameH", "nameD", "nameC")
#: divisors of the count slices
FACE_DOWN_SCALE = float(N_STACKS)
HAND_SCALE = 10.0
TRICKS_SCALE = float(N_TRICKS_TWO)
DECLARATION_SCALE = 200.0

_PARTS = [
    ("hand", 32), ("known_other", 32), ("table_up", N_PLAYERS * 32),
    ("covers", N_PLAYERS * 32), ("face_down", N_PLAYERS), ("hand_size", N_PLAYERS),
    ("dealer", N_PLAYERS), ("phase", 4), ("to_act", N_PLAYERS),
    ("prise", MAX_PRISE * len(PRISE_ACTIONS)), ("prise_round", 2), ("retourne", 32),
    ("retourne_holder", N_PLAYERS), ("trump", 4), ("taker", N_PLAYERS), ("exchange", 2),
    ("played_by", 32 * N_PLAYERS), ("played_when", 32), ("current_trick", 32),
    ("leader", N_PLAYERS), ("trick_no", N_TRICKS_TWO), ("points", N_PLAYERS),
    ("tricks", N_PLAYERS), ("declared", N_PLAYERS), ("declarations_resolved", 1),
    ("declaration_winner", N_PLAYERS), ("declaration_cards", N_PLAYERS * 32),
    ("belote", N_PLAYERS), ("match", 5), ("rules", 4),
]


#: name -> (start, stop) of each slice, in order
LAYOUT: "OrderedDict[str, tuple]" = slice_layout(_PARTS)
#: length of the observation vector
OBSERVATION_SIZE = layout_size(LAYOUT)
#: the offsets of :data:`LAYOUT`'s slices, also module-level names ``O_*``
OFFSETS = layout_offsets(LAYOUT)
globals().update(OFFSETS)

#: per-element upper bound of the observation (lower bound 0 everywhere)
HIGH = np.ones(OBSERVATION_SIZE, dtype=np.float32)
HIGH[slice(*LAYOUT["match"])] = (1.0, 10.0, 10.0, 10.0, 10.0)


def _sl(name):
    return slice(*LAYOUT[name])


def _at(name, i=0) -> int:
    return LAYOUT[name][0] + i


def prise_index(a: int) -> int:
    """Column of prise action ``a`` in a row of the ``prise`` slice."""
    if a == A.PASS:
        return 0
    if a == A.TAKE:
        return 1
    return 2 + a - A.NAME_BASE


def encode(view, match: Optional[dict] = None) -> np.ndarray:
    """The observation of ``view.player`` (see the module docstring), shape
    ``(OBSERVATION_SIZE,)``, float32.

    :param view: ``deal.view(player)`` (:class:`~coinche_rl.two_player.TwoPlayerView`).
    :param match: match mode: ``{"scores": (player 0, player 1), "target": int, "pot":
        int}`` (public); None in deal mode.
    """
    me = view.player
    o = other(me)
    rules = view.rules

    def rel(p):
        return 0 if p == me else 1

    v = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    v[_sl("hand")] = _bits(view.hand)
    v[_sl("known_other")] = _bits(view.known_other)
    for p in (me, o):
        r = rel(p)
        v[_at("table_up", 32 * r):_at("table_up", 32 * r + 32)] = _bits(view.table_up[p])
        for up, down in view.stacks[p]:
            if up >= 0 and down:
                v[_at("covers", 32 * r + up)] = 1.0
        v[_at("face_down", r)] = view.face_down[p] / FACE_DOWN_SCALE
    v[_at("hand_size", 0)] = popcount(view.hand) / HAND_SCALE
    v[_at("hand_size", 1)] = view.other_hand_size / HAND_SCALE
    v[_at("dealer", rel(view.dealer))] = 1.0
    v[_at("phase", PHASES.index(view.phase))] = 1.0
    if view.current_player is not None:
        v[_at("to_act", rel(view.current_player))] = 1.0

    # the prise, the retourne, the exchange
    for i, a in enumerate(view.prise):
        v[_at("prise", 6 * i + prise_index(a))] = 1.0
    if view.phase == "prise":
        v[_at("prise_round", 0 if len(view.prise) < 2 else 1)] = 1.0
    v[_at("retourne", view.retourne)] = 1.0
    if rules.hand_cards and view.taker is not None and view.phase != "exchange":
        holder = other(view.taker) if view.exchanged else view.taker
        v[_at("retourne_holder", rel(holder))] = 1.0
    if view.trump is not None:
        v[_at("trump", view.trump)] = 1.0
    if view.taker is not None:
        v[_at("taker", rel(view.taker))] = 1.0
    if view.exchanged is not None:
        v[_at("exchange", int(view.exchanged))] = 1.0

    # the card play
    for i, (p, card) in enumerate(view.plays):
        v[_at("played_by", 2 * card + rel(p))] = 1.0
        v[_at("played_when", card)] = (i // 2 + 1) / TRICKS_SCALE
    if view.phase == "play":
        n_done = len(view.trick_winners)
        if len(view.plays) > 2 * n_done:
            leader, card = view.plays[-1]
            v[_at("current_trick", card)] = 1.0
        else:
            leader = view.current_player
        v[_at("leader", rel(leader))] = 1.0
        v[_at("trick_no", n_done)] = 1.0
    for p in (me, o):
        v[_at("points", rel(p))] = view.card_points_won[p] / DEAL_POINTS
        v[_at("tricks", rel(p))] = sum(1 for w in view.trick_winners if w == p) / TRICKS_SCALE

    # declarations and belote
    for p in (me, o):
        r = rel(p)
        v[_at("declared", r)] = view.declarations[p] / DECLARATION_SCALE
        v[_at("declaration_cards", 32 * r):_at("declaration_cards", 32 * r + 32)] = \
            _bits(E2.py.declaration_cards(view.state, p))
        if E2.py.belote_points(view.state, p) > 0:
            v[_at("belote", r)] = 1.0
    if E2.py.declaration_winner(view.state) != E2.DECL_UNRESOLVED:
        v[_at("declarations_resolved")] = 1.0
    if view.declaration_winner is not None:
        v[_at("declaration_winner", rel(view.declaration_winner))] = 1.0

    if match is not None:
        target = float(match["target"])
        scores = match["scores"]
        v[_sl("match")] = (1.0, scores[me] / target, scores[o] / target, target / 1000.0,
                           match.get("pot", 0) / DEAL_POINTS)
    v[_sl("rules")] = (float(rules.hand_cards), float(rules.declarations),
                       float(rules.belote), float(rules.litige))
    np.clip(v, 0.0, HIGH, out=v)
    return v


def decode(vec: np.ndarray, observer: int = 0) -> dict:
    """Readable values of an observation of player ``observer`` (absolute players
    again).

    Keys: ``hand``, ``known_other`` (masks), ``table_up``, ``covers`` (per player,
    masks), ``face_down``, ``hand_size`` (per player), ``dealer``, ``phase``, ``to_act``
    (None when done), ``prise`` (``[(player, text)]`` in order), ``prise_round``,
    ``retourne``, ``retourne_holder``, ``trump``, ``taker``, ``exchanged`` (None / False
    / True), ``played`` (``[(card, player, trick)]`` in card order), ``current_trick``
    (card or None), ``leader``, ``trick_no``, ``points``, ``tricks``, ``declared`` (per
    player), ``declarations_resolved``, ``declaration_winner``, ``declaration_cards``
    (per player, masks), ``belote`` (per player, bool), ``match`` (dict or None),
    ``rules`` (the 4 floats).
    """
    v = np.asarray(vec, dtype=np.float32)
    if v.shape != (OBSERVATION_SIZE,):
        raise ValueError(f"expected an observation of shape ({OBSERVATION_SIZE},), got {v.shape!r}")
    me = int(observer)

    def seg(name):
        return v[_sl(name)]

    def who(bits):
        nz = np.flatnonzero(bits > 0.5)
        return None if not len(nz) else (me if nz[0] == 0 else other(me))

    def first(bits):
        nz = np.flatnonzero(bits > 0.5)
        return int(nz[0]) if len(nz) else None

    def per_player(values):
        return (values[0], values[1]) if me == 0 else (values[1], values[0])

    out = {"hand": _mask(seg("hand")), "known_other": _mask(seg("known_other"))}
    out["table_up"] = per_player([_mask(seg("table_up")[32 * r:32 * r + 32])
                                  for r in range(N_PLAYERS)])
    out["covers"] = per_player([_mask(seg("covers")[32 * r:32 * r + 32])
                                for r in range(N_PLAYERS)])
    out["face_down"] = per_player([int(round(x * FACE_DOWN_SCALE)) for x in seg("face_down")])
    out["hand_size"] = per_player([int(round(x * HAND_SCALE)) for x in seg("hand_size")])
    out["dealer"] = who(seg("dealer"))
    out["phase"] = PHASES[int(np.argmax(seg("phase")))]
    out["to_act"] = who(seg("to_act"))
    rows = seg("prise").reshape(MAX_PRISE, len(PRISE_ACTIONS))
    non_dealer = None if out["dealer"] is None else other(out["dealer"])
    out["prise"] = [((non_dealer if i % 2 == 0 else out["dealer"]), PRISE_ACTIONS[int(np.argmax(rows[i]))])
                    for i in range(MAX_PRISE) if rows[i].any()]
    pr = first(seg("prise_round"))
    out["prise_round"] = None if pr is None else pr + 1
    out["retourne"] = first(seg("retourne"))
    out["retourne_holder"] = who(seg("retourne_holder"))
    out["trump"] = first(seg("trump"))
    out["taker"] = who(seg("taker"))
    ex = first(seg("exchange"))
    out["exchanged"] = None if ex is None else bool(ex)
    by = seg("played_by").reshape(32, 2)
    when = seg("played_when")
    out["played"] = [(card, who(by[card]), int(round(when[card] * TRICKS_SCALE)) - 1)
                     for card in range(32) if by[card].any()]
    out["current_trick"] = first(seg("current_trick"))
    out["leader"] = who(seg("leader"))
    out["trick_no"] = first(seg("trick_no"))
    out["points"] = per_player([int(round(x * DEAL_POINTS)) for x in seg("points")])
    out["tricks"] = per_player([int(round(x * TRICKS_SCALE)) for x in seg("tricks")])
    out["declared"] = per_player([int(round(x * DECLARATION_SCALE)) for x in seg("declared")])
    out["declarations_resolved"] = bool(seg("declarations_resolved")[0] > 0.5)
    out["declaration_winner"] = who(seg("declaration_winner"))
    out["declaration_cards"] = per_player([_mask(seg("declaration_cards")[32 * r:32 * r + 32])
                                           for r in range(N_PLAYERS)])
    out["belote"] = per_player([bool(x > 0.5) for x in seg("belote")])
    m = seg("match")
    if m[0] > 0.5:
        target = int(round(m[3] * 1000))
        mine, his = int(round(m[1] * target)), int(round(m[2] * target))
        out["match"] = dict(scores=per_player([mine, his]), target=target,
                            pot=int(round(m[4] * DEAL_POINTS)))
    else:
        out["match"] = None
    out["rules"] = [float(x) for x in seg("rules")]
    return out
