"""Canonical suit order (``coinche_rl.agents.neural.canonical``): suit equivariance by
construction.

Renaming the suits of a deal (spades <-> hearts, say) changes nothing in the game: a
policy should answer a renamed position with the renamed action. Rather than teaching a
network this by 24x augmentation, every observation is mapped to a **canonical suit
order** before the network sees it, and the network's canonical action is mapped back:

* suit contract (card play): the trump suit goes to slot 0, the three side suits to
  slots 1..3 ordered by what the observer knows of them;
* NT / AT, and the auction (no trump yet): all four suits ordered that way.

The order key of a suit, compared lexicographically (larger first):

1. the observer's *starting holding* in the suit (its hand now plus the cards it
   played): number of cards, then the rank pattern read in the strength order of the
   strain (plain order for side suits, NT and the auction; trump order at AT);
2. then every other suit-indexed fact of the observation: the current hand in the suit,
   who played which card of the suit and when, the current trick, the cards shown in
   declarations, the retourne, the voids and ceilings of each seat, the bids made in the
   suit (level and bidder), whether it is the contract's strain.

The key covers *every* suit-dependent entry of the observation, so two suits whose keys
tie are interchangeable: swapping them leaves the observation unchanged, and whichever
order breaks the tie gives the same canonical observation (``tests/test_neural_canonical.py``
checks this for all 24 renamings of random positions of every preset family). A network
on canonical inputs is therefore exactly equivariant; for tied suits its two choices are
equivalent actions.

Everything here is a permutation of indices: :data:`OBS_DST` ``[24, OBSERVATION_SIZE]``
(where each observation entry goes), :data:`ACT_DST` / :data:`ACT_SRC` ``[24, 118]``
(the action map and its inverse), :data:`PERMS` ``[24, 4]`` (``slot_of[suit]``). The
kernels :func:`suit_order`, :func:`canonicalize_into`, :func:`features_into` and
:func:`play_inputs` run in numba on one observation or on a batch of engine states.

The network's input (:data:`FEATURE_SIZE` floats, layout :data:`FEATURE_LAYOUT`) is the
canonical observation followed by a few features derived from it alone (so leak-free as
the observation is): the cards not yet seen, the trick's winning card and seat, the
number of cards in the trick, the trick's points, the led suit, whether the partner is
master. Its card-play outputs are the 32 canonical cards (:func:`card_mask`).

>>> from coinche_rl.game import Deal
>>> from coinche_rl.envs.kernels import ObservationEncoder
>>> deal = Deal("ffb", seed=2, dealer=3).with_contract(90, 2, taker=0)   # diamonds
>>> enc = ObservationEncoder(deal.rules)
>>> obs, mask = enc.encode(deal.state, 0), deal.legal_action_mask().astype(np.int8)
>>> p = suit_order(obs)
>>> int(PERMS[p, 2])            # the trump suit (diamonds) is in slot 0
0
"""

from __future__ import annotations

import hashlib
import itertools

import numpy as np
from numba import njit

from ... import actions as A
from ...engine import kernel
from ...envs import observation as O
from ...engine import beats, current_seat, legal_actions_into
from ...cards import N_CARDS, N_RANKS, N_SUITS
from ...rules import CARD_ORDER, N_SEATS, partner, seat_after
from ...envs.kernels import _encode
from ...envs.observation import (O_BIDS, O_CONTRACT, O_CURRENT_TRICK, O_HAND, O_LEADER, O_PHASE,
                                 O_PLAYED_BY)

__all__ = ["CANON_VERSION", "PERMS", "OBS_DST", "ACT_DST", "ACT_SRC", "FEATURE_SIZE", "order_code",
           "card_obs_dst", "layout_hash",
           "FEATURE_LAYOUT", "feature_layout_hash", "suit_order", "canonicalize_into",
           "features_into", "play_inputs", "play_inputs_one", "card_mask", "to_physical", "canonicalize"]

#: version of the canonical order and of the derived features (in every weights manifest)
CANON_VERSION = 1

N_OBS = O.OBSERVATION_SIZE
L = O.LAYOUT
N_LEVELS = O.N_LEVELS
N_STRAINS = 6
NT, AT = 4, 5

#: the 24 suit renamings: ``PERMS[p, suit]`` is the canonical slot of a physical suit
PERMS = np.array(list(itertools.permutations(range(N_SUITS))), dtype=np.int64)
#: ``PERM_PHYS[p, slot]``: the physical suit in a canonical slot
PERM_PHYS = np.argsort(PERMS, axis=1).astype(np.int64)
#: ``PERM_CODE[sum(slot_of[s] << 2s)]`` -> p
PERM_CODE = np.full(256, -1, dtype=np.int64)
for _p in range(24):
    PERM_CODE[sum(int(PERMS[_p, s]) << (2 * s) for s in range(N_SUITS))] = _p


def _obs_dst(slot_of) -> np.ndarray:
    """Where each observation entry goes under the renaming ``slot_of``."""
    def card(c):
        return int(slot_of[c >> 3]) * 8 + (c & 7)

    def strain(s):
        return int(slot_of[s]) if s < 4 else s

    dst = np.arange(N_OBS, dtype=np.int64)
    for name in ("hand", "retourne", "played_when", "current_trick"):
        a, _ = L[name]
        for c in range(N_CARDS):
            dst[a + c] = a + card(c)
    a, _ = L["declarations_shown"]
    for r in range(N_SEATS):
        for c in range(N_CARDS):
            dst[a + N_CARDS * r + c] = a + N_CARDS * r + card(c)
    a, _ = L["played_by"]
    for c in range(N_CARDS):
        for r in range(N_SEATS):
            dst[a + N_SEATS * c + r] = a + N_SEATS * card(c) + r
    a, _ = L["bids"]
    for row in range(N_LEVELS):
        base = a + row * (N_SEATS + N_STRAINS) + N_SEATS
        for s in range(N_STRAINS):
            dst[base + s] = base + strain(s)
    a, _ = L["contract"]
    for s in range(N_STRAINS):
        dst[a + N_LEVELS + s] = a + N_LEVELS + strain(s)
    for name in ("voids", "ceilings"):
        a, _ = L[name]
        for r in range(N_SEATS):
            for s in range(N_SUITS):
                dst[a + N_SUITS * r + s] = a + N_SUITS * r + int(slot_of[s])
    return dst


def card_obs_dst(n_obs: int, slot_of, card_blocks=(), card_major=(), suit_cols=()) -> np.ndarray:
    """Where each entry of an observation of ``n_obs`` entries goes under the renaming
    ``slot_of``, from the description of its suit-dependent slices (a family's
    observation says them; every other entry stays): ``card_blocks`` ``(start, blocks)``:
    that many consecutive blocks of the 32 cards; ``card_major`` ``(start, inner)``: for
    each card, ``inner`` consecutive entries; ``suit_cols`` ``(start, rows, stride)``:
    ``rows`` rows of the 4 suits, ``stride`` apart."""
    dst = np.arange(n_obs, dtype=np.int64)

    def card(c):
        return int(slot_of[c >> 3]) * 8 + (c & 7)
    for a, blocks in card_blocks:
        for b in range(blocks):
            for c in range(N_CARDS):
                dst[a + N_CARDS * b + c] = a + N_CARDS * b + card(c)
    for a, inner in card_major:
        for c in range(N_CARDS):
            for r in range(inner):
                dst[a + inner * c + r] = a + inner * card(c) + r
    for a, rows, stride in suit_cols:
        for row in range(rows):
            for s in range(N_SUITS):
                dst[a + stride * row + s] = a + stride * row + int(slot_of[s])
    return dst


def _act_dst(slot_of) -> np.ndarray:
    """The canonical action of each physical action under the renaming ``slot_of``."""
    dst = np.arange(A.N_ACTIONS, dtype=np.int64)
    for a in range(A.N_ACTIONS):
        if A.is_bid(a):
            s = A.bid_strain(a)
            if s < 4:
                dst[a] = a - s + int(slot_of[s])
        elif A.is_capot(a):
            s = a - A.CAPOT_BASE
            if s < 4:
                dst[a] = A.CAPOT_BASE + int(slot_of[s])
        elif A.is_card(a):
            c = a - A.CARD_BASE
            dst[a] = A.CARD_BASE + int(slot_of[c >> 3]) * 8 + (c & 7)
        elif A.NAME_BASE <= a < A.DECLARE:
            s = a - A.NAME_BASE
            if s < 4:
                dst[a] = A.NAME_BASE + int(slot_of[s])
    return dst


#: ``OBS_DST[p, j]``: the canonical position of physical observation entry ``j``
OBS_DST = np.stack([_obs_dst(PERMS[p]) for p in range(24)])
#: ``ACT_DST[p, a]``: the canonical action of physical action ``a``
ACT_DST = np.stack([_act_dst(PERMS[p]) for p in range(24)])
#: ``ACT_SRC[p, a]``: the physical action of canonical action ``a`` (inverse of ACT_DST)
ACT_SRC = np.argsort(ACT_DST, axis=1).astype(np.int64)
#: ``CARD_DST[p, c]``: the canonical card of physical card ``c`` under renaming ``p`` (for
#: the Python code: the kernels compute ``PERMS[p, c >> 3] * 8 + (c & 7)`` card by card)
CARD_DST = (PERMS[:, np.arange(N_CARDS) >> 3] * 8 + (np.arange(N_CARDS) & 7)).astype(np.int64)


def _key_sources():
    """``KEY_SRC[suit, k]``: the observation entries of the plain part of a suit's key
    (after the starting holding), most significant first."""
    rows = []
    for s in range(N_SUITS):
        idx = []
        a, _ = L["hand"]
        idx += [a + 8 * s + r for r in range(N_RANKS)]
        a, _ = L["played_by"]
        idx += [a + N_SEATS * (8 * s + r) + p for r in range(N_RANKS) for p in range(N_SEATS)]
        a, _ = L["played_when"]
        idx += [a + 8 * s + r for r in range(N_RANKS)]
        a, _ = L["current_trick"]
        idx += [a + 8 * s + r for r in range(N_RANKS)]
        a, _ = L["declarations_shown"]
        idx += [a + N_CARDS * p + 8 * s + r for p in range(N_SEATS) for r in range(N_RANKS)]
        a, _ = L["retourne"]
        idx += [a + 8 * s + r for r in range(N_RANKS)]
        a, _ = L["voids"]
        idx += [a + N_SUITS * p + s for p in range(N_SEATS)]
        a, _ = L["ceilings"]
        idx += [a + N_SUITS * p + s for p in range(N_SEATS)]
        a, _ = L["contract"]
        idx += [a + N_LEVELS + s]
        rows.append(idx)
    return np.array(rows, dtype=np.int64)


KEY_SRC = _key_sources()
N_KEY = KEY_SRC.shape[1]
#: key length: count, pattern, the plain entries, then 12 levels x (bid in suit, the seats)
KEY_SIZE = 2 + N_KEY + N_LEVELS * (1 + N_SEATS)


# ------------------------------------------------------------------ feature layout
_FEATURE_PARTS = [("observation", N_OBS), ("unseen", N_CARDS), ("trick_winner_card", N_CARDS),
                  ("trick_winner", N_SEATS), ("trick_cards", N_SEATS), ("trick_points", 1),
                  ("led_suit", 4), ("partner_master", 1)]
#: name -> (start, stop) of the network input
FEATURE_LAYOUT = O.slice_layout(_FEATURE_PARTS)
#: length of the network input
FEATURE_SIZE = O.layout_size(FEATURE_LAYOUT)
F_UNSEEN, F_WCARD, F_WSEAT, F_NCARDS, F_TPTS, F_LED, F_PMASTER = O.layout_starts(
    FEATURE_LAYOUT, "unseen", "trick_winner_card", "trick_winner", "trick_cards",
    "trick_points", "led_suit", "partner_master")


def layout_hash(tag: str, obs, canon_version: int, feature_layout: dict) -> str:
    """A short hash of a family's observation layout (the module ``obs``: its ``VERSION``
    and ``LAYOUT``), its canonical order's version and its feature layout, the family
    named by the prefix ``tag`` ("" four players, "two-" two players)."""
    h = hashlib.sha256()
    h.update(f"{tag}obs-v{obs.VERSION}:".encode())
    h.update(repr(list(obs.LAYOUT.items())).encode())
    h.update(f"{tag}canon-v{canon_version}:".encode())
    h.update(repr(list(feature_layout.items())).encode())
    return h.hexdigest()[:16]


def feature_layout_hash() -> str:
    """A short hash of the observation layout, the feature layout and the canonical
    version: a weights file records it and loading refuses another."""
    return layout_hash("", O, CANON_VERSION, FEATURE_LAYOUT)


# ======================================================================= kernels
@kernel
def _contract_strain(obs):
    """The contract's strain from the observation, or -1 before the play."""
    if obs[O_PHASE + 1] < 0.5 and obs[O_PHASE + 2] < 0.5:
        return -1
    for s in range(N_STRAINS):
        if obs[O_CONTRACT + N_LEVELS + s] > 0.5:
            return s
    return -1


@kernel
def _key_into(obs, s, order_strain, out):
    """The order key of physical suit ``s`` (see the module docstring) into ``out``."""
    count = 0
    pattern = 0
    for r in range(N_RANKS):
        c = 8 * s + r
        held = obs[O_HAND + c] > 0.5 or obs[O_PLAYED_BY + N_SEATS * c] > 0.5
        if held:
            count += 1
            pattern += 1 << CARD_ORDER[order_strain, c]
    out[0] = count
    out[1] = pattern
    for k in range(N_KEY):
        out[2 + k] = obs[KEY_SRC[s, k]]
    j = 2 + N_KEY
    for row in range(N_LEVELS):
        base = O_BIDS + row * (N_SEATS + N_STRAINS)
        f = obs[base + N_SEATS + s]
        out[j] = f
        for p in range(N_SEATS):
            out[j + 1 + p] = f * obs[base + p]
        j += 1 + N_SEATS


@kernel
def _before(keys, a, b):
    """True when suit ``a`` ranks strictly before suit ``b`` (larger key first)."""
    for k in range(keys.shape[1]):
        if keys[a, k] != keys[b, k]:
            return keys[a, k] > keys[b, k]
    return False


@njit(cache=True)
def suit_order(obs):
    """The index ``p`` of the canonical renaming of observation ``obs`` (``PERMS[p]``
    gives each physical suit's slot)."""
    keys = np.empty((N_SUITS, KEY_SIZE), dtype=np.float32)
    order = np.empty(N_SUITS, dtype=np.int64)
    return _suit_order(obs, keys, order)


@kernel
def _suit_order(obs, keys, order):
    strain = _contract_strain(obs)
    order_strain = AT if strain == AT else NT
    for s in range(N_SUITS):
        _key_into(obs, s, order_strain, keys[s])
    return order_code(keys, order, strain)


@kernel
def order_code(keys, order, strain):
    """The renaming index ``p`` that puts the trump ``strain`` (0..3; another value: no
    trump) in slot 0 and the other suits after it by their order keys ``keys[suit]``
    (larger first, ties kept in suit order): every family's suit order, from its keys.
    ``order``: int64[4] scratch."""
    fixed = 0 <= strain < 4
    n = 0
    for s in range(N_SUITS):
        if fixed and s == strain:
            continue
        # insertion: after every suit that ranks before it or ties (stable)
        j = n
        while j > 0 and _before(keys, s, order[j - 1]):
            order[j] = order[j - 1]
            j -= 1
        order[j] = s
        n += 1
    code = 0
    first = 0
    if fixed:
        code = 0 << (2 * strain)
        first = 1
    for i in range(n):
        code |= (first + i) << (2 * order[i])
    return PERM_CODE[code]


@kernel
def _apply_perm(p, obs, mask, out_obs, out_mask):
    for j in range(N_OBS):
        out_obs[OBS_DST[p, j]] = obs[j]
    for a in range(out_mask.shape[0]):
        out_mask[ACT_DST[p, a]] = mask[a]


@njit(cache=True)
def canonicalize_into(obs, mask, out_obs, out_mask):
    """Write the canonical observation and action mask of ``obs`` / ``mask`` (int8 or
    uint8 over the 118 actions) into ``out_obs`` / ``out_mask``; returns the renaming
    index ``p`` (map a canonical action back with :func:`to_physical`)."""
    keys = np.empty((N_SUITS, KEY_SIZE), dtype=np.float32)
    order = np.empty(N_SUITS, dtype=np.int64)
    p = _suit_order(obs, keys, order)
    _apply_perm(p, obs, mask, out_obs, out_mask)
    return p


@kernel
def to_physical(p, a):
    """The physical action of canonical action ``a`` under renaming ``p``."""
    return ACT_SRC[p, a]


@kernel
def features_into(cobs, cpt, out):
    """The network input of a canonical observation ``cobs`` into ``out``
    (float32[FEATURE_SIZE]); ``cpt`` is the card points table (int64[6, 32])."""
    for j in range(N_OBS):
        out[j] = cobs[j]
    for j in range(N_OBS, FEATURE_SIZE):
        out[j] = 0.0
    for c in range(N_CARDS):
        seen = cobs[O_HAND + c] > 0.5
        for r in range(N_SEATS):
            if cobs[O_PLAYED_BY + N_SEATS * c + r] > 0.5:
                seen = True
        if not seen:
            out[F_UNSEEN + c] = 1.0
    strain = _contract_strain(cobs)
    if strain < 0 or cobs[O_PHASE + 1] < 0.5:
        return
    leader = -1
    for r in range(N_SEATS):
        if cobs[O_LEADER + r] > 0.5:
            leader = r
    if leader < 0:
        return
    # the current trick's cards in play order (rel seats from the leader)
    n = 0
    win = -1
    wseat = -1
    pts = 0
    for i in range(N_SEATS):
        seat = seat_after(leader, i)
        card = -1
        for c in range(N_CARDS):
            if cobs[O_CURRENT_TRICK + c] > 0.5 and cobs[O_PLAYED_BY + N_SEATS * c + seat] > 0.5:
                card = c
        if card < 0:
            break
        n += 1
        pts += cpt[strain, card]
        if win < 0 or beats(card, win, strain):
            win = card
            wseat = seat
    out[F_NCARDS + n] = 1.0
    if n > 0:
        out[F_WCARD + win] = 1.0
        out[F_WSEAT + wseat] = 1.0
        out[F_TPTS] = pts / 40.0
        first = -1
        for c in range(N_CARDS):
            if cobs[O_CURRENT_TRICK + c] > 0.5 and cobs[O_PLAYED_BY + N_SEATS * c + leader] > 0.5:
                first = c
        out[F_LED + (first >> 3)] = 1.0
        if wseat == partner(0):  # rel seats: 0 is the observer
            out[F_PMASTER] = 1.0


@kernel
def card_mask(cmask, out):
    """The 32 canonical card bits of a canonical action mask (``out``: uint8[32])."""
    for c in range(N_CARDS):
        out[c] = cmask[A.CARD_BASE + c]


@kernel
def play_inputs_one(S, P, cpt, rules_vec, match, obs, mask, cobs, cmask, voids, ceil,
                     keys, order, feats, cards):
    seat = current_seat(S)
    _encode(S, P, seat, cpt, rules_vec, match, obs, voids, ceil)
    legal_actions_into(S, P, mask)
    p = _suit_order(obs, keys, order)
    _apply_perm(p, obs, mask, cobs, cmask)
    features_into(cobs, cpt, feats)
    card_mask(cmask, cards)
    return p


@njit(cache=True)
def play_inputs(states, P, idx, cpt, rules_vec, match, feats, cards, perms):
    """Network inputs of the seats to act in games ``states[idx[j]]``: ``feats[j]``
    (float32[FEATURE_SIZE]), the legal canonical cards ``cards[j]`` (uint8[32]) and the
    renaming ``perms[j]``. ``match``: float64[5] (zeros in deal mode)."""
    obs = np.empty(N_OBS, dtype=np.float32)
    cobs = np.empty(N_OBS, dtype=np.float32)
    mask = np.empty(A.N_ACTIONS, dtype=np.uint8)
    cmask = np.empty(A.N_ACTIONS, dtype=np.uint8)
    voids = np.empty(N_SEATS, dtype=np.int64)
    ceil = np.empty((N_SEATS, 4), dtype=np.int64)
    keys = np.empty((N_SUITS, KEY_SIZE), dtype=np.float32)
    order = np.empty(N_SUITS, dtype=np.int64)
    for j in range(idx.shape[0]):
        perms[j] = play_inputs_one(states[idx[j]], P, cpt, rules_vec, match, obs, mask,
                                    cobs, cmask, voids, ceil, keys, order, feats[j], cards[j])


def canonicalize(obs: np.ndarray, mask: np.ndarray):
    """``(canonical obs, canonical mask, p)`` of one observation (new arrays)."""
    obs = np.ascontiguousarray(obs, dtype=np.float32)
    mask = np.ascontiguousarray(mask, dtype=np.uint8)
    co = np.empty_like(obs)
    cm = np.empty_like(mask)
    p = canonicalize_into(obs, mask, co, cm)
    return co, cm, int(p)
