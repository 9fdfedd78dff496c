"""The network input of belote for two players (``coinche_rl.agents.neural.canonical_two``):
the family's canonical suit order and features, what :mod:`.canonical` is for four players.

The card-play network of the ``two`` family reads what the player to act may know and
nothing else: his **public view** (:func:`coinche_rl.engine.two.two_public_view_into`: no
face-down card, the other hand only where it was shown), encoded by the family's
observation (:func:`coinche_rl.envs.encoder_two.encode_view`,
:mod:`coinche_rl.envs.observation_two`), its legal cards computed from that view too.
Every kernel here starts from the view, so the input cannot leak
(``tests/test_neural_two.py`` changes the face-down cards and the other hand and checks
that the input does not move).

The canonical order: the trump suit goes to slot 0, the three other suits after it by
their order key (larger first): the player's *starting holding* in the suit (his hand,
his face-up table cards and the cards he played: count, then the rank pattern in plain
order), then every suit-indexed entry of the observation (each card slice's cards of the
suit, the names of the prise). The key covers every suit-dependent entry, so suits whose
keys tie are interchangeable and the canonical observation does not depend on how the tie
is broken: the network is exactly equivariant to renaming the suits, as for four players.
The permutation tables are :data:`PERMS` of :mod:`.canonical` (shared), the observation's
map :data:`OBS_DST` is built from the family's slices (:func:`.canonical.card_obs_dst`).

The network input (:data:`FEATURE_SIZE`, layout :data:`FEATURE_LAYOUT`): the canonical
observation, then features derived from it alone: the cards not seen (face down or in
the other hand unseen), the cards the player can still play (hand and face-up table
cards), the other's cards he can see (shown, face-up), the led suit and the led card's
points. The outputs: the 32 canonical cards.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ... import actions as A
from ...cards import N_CARDS, N_RANKS, N_SUITS
from ...engine import kernel, popcount
from ...engine.two import (DONE, PLAY, TWO_STATE_SIZE, current_player, phase_of, retourne_of,
                           two_apply, two_is_legal, two_legal_cards, two_legal_mask,
                           two_public_view_into)
from ...envs import observation_two as O
from ...envs.observation import layout_size, layout_starts
from ...envs.encoder_two import encode_view
from ...rules import ALL_CARD_POINTS, CARD_ORDER
from ..numba_bots import _bot_action_two
from . import canonical as C
from .bid_actions import BID_SPACES

__all__ = ["CANON_VERSION", "OBS_DST", "FEATURE_SIZE", "FEATURE_LAYOUT", "feature_layout_hash",
           "suit_order", "view_inputs", "state_inputs", "input_scratch", "prise_inputs",
           "views_prise_inputs"]

#: version of the family's canonical order and features (in every weights manifest)
CANON_VERSION = 1

N_OBS = O.OBSERVATION_SIZE
L = O.LAYOUT
_NT = 4
#: the card points under a trump in slot 0 (the canonical trump)
_POINTS0 = np.ascontiguousarray(ALL_CARD_POINTS[0][0], dtype=np.int64)


def _a(name):
    return L[name][0]


#: the suit-dependent slices of the observation (:func:`.canonical.card_obs_dst`)
CARD_BLOCKS = ((_a("hand"), 1), (_a("known_other"), 1), (_a("table_up"), 2), (_a("covers"), 2),
               (_a("retourne"), 1), (_a("played_when"), 1), (_a("current_trick"), 1),
               (_a("declaration_cards"), 2))
CARD_MAJOR = ((_a("played_by"), 2),)
#: the prise's name columns (pass, take, then the four suits) and the trump
SUIT_COLS = ((_a("prise") + 2, (L["prise"][1] - L["prise"][0]) // 6, 6), (_a("trump"), 1, 4))

#: the physical action of each prise output under each renaming
_PRISE_SRC = BID_SPACES["two"].src
#: ``OBS_DST[p, j]``: the canonical position of observation entry ``j`` under renaming ``p``
OBS_DST = np.stack([C.card_obs_dst(N_OBS, C.PERMS[p], CARD_BLOCKS, CARD_MAJOR, SUIT_COLS)
                    for p in range(24)])


def _key_sources():
    """``KEY_SRC[suit, k]``: the observation entries of a suit's key after its starting
    holding (every suit-dependent entry, each card slice's cards of the suit in rank
    order)."""
    rows = []
    for s in range(N_SUITS):
        idx = []
        for a, blocks in CARD_BLOCKS:
            idx += [a + N_CARDS * b + 8 * s + r for b in range(blocks) for r in range(N_RANKS)]
        for a, inner in CARD_MAJOR:
            idx += [a + inner * (8 * s + r) + i for r in range(N_RANKS) for i in range(inner)]
        for a, rows_, stride in SUIT_COLS:
            idx += [a + stride * row + s for row in range(rows_)]
        rows.append(idx)
    return np.array(rows, dtype=np.int64)


KEY_SRC = _key_sources()
KEY_SIZE = 2 + KEY_SRC.shape[1]

_PARTS = [("observation", N_OBS), ("unseen", N_CARDS), ("mine", N_CARDS), ("theirs", N_CARDS),
          ("led_suit", N_SUITS), ("led_points", 1)]
#: name -> (start, stop) of the network input
FEATURE_LAYOUT = O.slice_layout(_PARTS)
#: length of the network input
FEATURE_SIZE = layout_size(FEATURE_LAYOUT)
F_UNSEEN, F_MINE, F_THEIRS, F_LED, F_LED_POINTS = layout_starts(
    FEATURE_LAYOUT, "unseen", "mine", "theirs", "led_suit", "led_points")
O_HAND, O_KNOWN, O_UP, O_PLAYED_BY = _a("hand"), _a("known_other"), _a("table_up"), _a("played_by")
O_TRICK, O_TRUMP = _a("current_trick"), _a("trump")


def feature_layout_hash() -> str:
    """A short hash of the family's observation layout, its canonical order's version
    and the feature layout: a weights file records it and loading refuses another."""
    return C.layout_hash("two-", O, CANON_VERSION, FEATURE_LAYOUT)


# ======================================================================= kernels
@kernel
def _trump(obs):
    for s in range(N_SUITS):
        if obs[O_TRUMP + s] > 0.5:
            return s
    return -1


@kernel
def _suit_order(obs, keys, order):
    return _suit_order_from(obs, keys, order, _trump(obs))


@kernel
def _suit_order_from(obs, keys, order, first):
    """The renaming with suit ``first`` in slot 0 (-1: none), the others by their keys."""
    for s in range(N_SUITS):
        count = 0
        pattern = 0
        for r in range(N_RANKS):
            c = 8 * s + r
            if obs[O_HAND + c] > 0.5 or obs[O_UP + c] > 0.5 or obs[O_PLAYED_BY + 2 * c] > 0.5:
                count += 1
                pattern += 1 << CARD_ORDER[_NT, c]
        keys[s, 0] = count
        keys[s, 1] = pattern
        for k in range(KEY_SRC.shape[1]):
            keys[s, 2 + k] = obs[KEY_SRC[s, k]]
    return C.order_code(keys, order, first)


@njit(cache=True)
def suit_order(obs):
    """The index ``p`` of the canonical renaming of observation ``obs``
    (``canonical.PERMS[p]`` gives each physical suit's slot)."""
    keys = np.empty((N_SUITS, KEY_SIZE), dtype=np.float32)
    order = np.empty(N_SUITS, dtype=np.int64)
    return _suit_order(obs, keys, order)


@kernel
def _features(cobs, out):
    for j in range(N_OBS):
        out[j] = cobs[j]
    for j in range(N_OBS, FEATURE_SIZE):
        out[j] = 0.0
    led = -1
    for c in range(N_CARDS):
        mine = cobs[O_HAND + c] > 0.5 or cobs[O_UP + c] > 0.5
        theirs = cobs[O_KNOWN + c] > 0.5 or cobs[O_UP + N_CARDS + c] > 0.5
        played = cobs[O_PLAYED_BY + 2 * c] > 0.5 or cobs[O_PLAYED_BY + 2 * c + 1] > 0.5
        if mine:
            out[F_MINE + c] = 1.0
        if theirs:
            out[F_THEIRS + c] = 1.0
        if not (mine or theirs or played):
            out[F_UNSEEN + c] = 1.0
        if cobs[O_TRICK + c] > 0.5:
            led = c
    if led >= 0:
        out[F_LED + (led >> 3)] = 1.0
        out[F_LED_POINTS] = _POINTS0[led] / 20.0


@kernel
def view_inputs(V, P, me, match, obs, mask, cobs, keys, order, feats, cards):
    """The network input of player ``me`` (to play a card) from his public view ``V``
    alone: ``feats`` (float32[FEATURE_SIZE]) and his legal canonical cards ``cards``
    (uint8[32]); returns the renaming ``p`` (``canonical.ACT_SRC[p, CARD_BASE + k]`` is
    canonical card ``k``'s action). ``obs``, ``mask``, ``cobs``, ``keys``, ``order`` are
    scratch (:func:`input_scratch`); ``match``: float64[5] (zeros in deal mode)."""
    encode_view(V, P, me, match, obs)
    two_legal_mask(V, P, mask)
    p = _suit_order(obs, keys, order)
    for j in range(N_OBS):
        cobs[OBS_DST[p, j]] = obs[j]
    _features(cobs, feats)
    for c in range(N_CARDS):
        cards[C.ACT_DST[p, A.CARD_BASE + c] - A.CARD_BASE] = mask[A.CARD_BASE + c]
    return p


@kernel
def prise_inputs(V, P, me, match, obs, mask, cobs, keys, order, feats, legal):
    """The prise network's input of player ``me`` (to take, name, pass or exchange)
    from his public view ``V`` alone: the features of :func:`view_inputs` in the
    canonical order that puts **the retourne's suit in slot 0** (the trump a take makes,
    the trump already in the exchange; the other suits by their keys, as in the play),
    and his legal outputs ``legal`` (uint8[N], over :data:`.bid_actions.PRISE_ACTIONS`).
    Every suit but the retourne's is interchangeable before the prise ends, so the input
    is equivariant to renaming them; returns the renaming ``p``."""
    encode_view(V, P, me, match, obs)
    two_legal_mask(V, P, mask)
    p = _suit_order_from(obs, keys, order, retourne_of(V) >> 3)
    for j in range(N_OBS):
        cobs[OBS_DST[p, j]] = obs[j]
    _features(cobs, feats)
    for j in range(_PRISE_SRC.shape[1]):
        legal[j] = mask[_PRISE_SRC[p, j]]
    return p


@njit(cache=True)
def prise_choices(V, P):
    """The number of legal actions of the player to act in ``V``."""
    mask = np.zeros(A.N_ACTIONS, dtype=np.uint8)
    return two_legal_mask(V, P, mask)


@njit(_nrt=False, inline="always")
def _views_with(inputs, views, P, players, match, feats, out, perms, scratch):
    """``perms[j] = inputs(views[j], ..., feats[j], out[j])`` for each public view
    ``views[j]`` of player ``players[j]``, with the scratch of :func:`input_scratch`:
    the batched form of :func:`view_inputs` and :func:`prise_inputs` (inlined into
    each, the input kernel an argument)."""
    _V, obs, mask, cobs, keys, order = scratch
    for j in range(views.shape[0]):
        perms[j] = inputs(views[j], P, players[j], match, obs, mask, cobs, keys, order,
                          feats[j], out[j])


@njit(cache=True)
def views_prise_inputs(views, P, players, match, feats, legal, perms):
    """:func:`prise_inputs` of ``views[j]`` (public views) for ``players[j]``."""
    _views_with(prise_inputs, views, P, players, match, feats, legal, perms, input_scratch())


@kernel
def state_inputs(S, P, me, match, V, obs, mask, cobs, keys, order, feats, cards):
    """:func:`view_inputs` of player ``me`` in the full state ``S``: his public view
    is written into the scratch ``V`` first, and only the view is read."""
    two_public_view_into(S, P, me, V)
    return view_inputs(V, P, me, match, obs, mask, cobs, keys, order, feats, cards)


@njit(cache=True)
def views_inputs(views, P, players, match, feats, cards, perms):
    """:func:`view_inputs` of ``views[j]`` (public views) for ``players[j]``."""
    _views_with(view_inputs, views, P, players, match, feats, cards, perms, input_scratch())


@njit(cache=True)
def input_scratch():
    """``(V, obs, mask, cobs, keys, order)``: the scratch of :func:`state_inputs` (of
    :func:`view_inputs` without ``V``)."""
    return (np.zeros(TWO_STATE_SIZE, dtype=np.int64), np.zeros(N_OBS, dtype=np.float32),
            np.zeros(A.N_ACTIONS, dtype=np.uint8), np.zeros(N_OBS, dtype=np.float32),
            np.zeros((N_SUITS, KEY_SIZE), dtype=np.float32), np.zeros(N_SUITS, dtype=np.int64))
