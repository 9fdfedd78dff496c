"""Exact, uniform sampling of the worlds an information set allows (``coinche_rl.agents.sampler``).

A *world* is a complete guess of the hidden cards: the four hands (int64 card masks,
the observer's own hand included) that an :class:`~coinche_rl.envs.infoset.InformationSet`
accepts (:meth:`~coinche_rl.envs.infoset.InformationSet.is_consistent`): each seat holds
its known cards, only cards it may hold (voids, trump ceilings, belote and declarations
already folded into ``possible``), and exactly as many cards as it has. Determinization
bots (PIMC), Monte Carlo hand evaluation and belief-based inference all start here.

Every consistent world is drawn with probability exactly ``1 / count``, and no world is
ever rejected: the completions are counted once per information set (:func:`build_table`,
a table of at most 33 x 729 int64), then each world is one exact 64-bit draw read off
card by card (:func:`unrank_into`). ``docs/pimc.md`` ("The world sampler") gives the
recursion and its source.

Python API: :class:`WorldSampler` (from an information set, or :meth:`WorldSampler.from_hand`
for a seat that knows only its own hand), with ``count``, :meth:`~WorldSampler.sample`,
:meth:`~WorldSampler.sample_weighted` (inference: importance resampling by a
bidding / playing model), :meth:`~WorldSampler.all_worlds`, :meth:`~WorldSampler.world`
and :meth:`~WorldSampler.index_of`. Extra constraints (``holds``: cards a seat is
assumed to hold; ``lacks``: cards it is assumed not to hold) are merged into the known /
possible sets, e.g. for hand evaluation. Numba API for bots written in numba: a table of
:data:`TABLE_SIZE` int64 filled by :func:`build_table`, then :func:`sample_into` (one
world per call, from an ``rng`` seeded by :func:`seed_rng`, the engine's splitmix64
streams) and :func:`unrank_into`.

Belote for two players has no information-set table: its worlds (the other hand's
unknown cards and every face-down card) are drawn by :func:`sample_world`, under the
constraints of :func:`hand_constraints` and the announced declaration (the section
"belote for two players" below).

>>> from coinche_rl.cards import format_hand, parse_hand
>>> from coinche_rl.game import Deal
>>> from coinche_rl.envs.infoset import information_set
>>> deal = Deal("ffb", seed=3, dealer=3).with_contract(80, 1, taker=0)
>>> for _ in range(27):                       # 27 cards played: 4 still hidden
...     deal.apply(deal.legal_actions()[0])
>>> sampler = WorldSampler(information_set(deal, 0))
>>> sampler.count == len(sampler.all_worlds())
True
>>> worlds = sampler.sample(1000, seed=1)
>>> worlds.shape, all(sampler.info.is_consistent(w) for w in worlds)
((1000, 4), True)
>>> bool(np.array_equal(worlds, sampler.sample(1000, seed=1)))   # same seed, same worlds
True
>>> s = WorldSampler.from_hand("ffb", 0, parse_hand("JH 9H AH TH KS QS 7D 8D"))
>>> s.count == 24 * 23 * 22 * 21 * 20 * 19 * 18 * 17 // 40320 * 12870   # 24! / (8!)^3
True
>>> s = WorldSampler.from_hand("ffb", 0, parse_hand("JH 9H AH TH KS QS 7D 8D"),
...                            holds={2: "AS"}, lacks={1: parse_hand("JS 9S")})
>>> w = s.sample(200, seed=0)
>>> bool(np.all(w[:, 2] & parse_hand("AS"))), bool(np.any(w[:, 1] & parse_hand("JS 9S")))
(True, False)
"""

from __future__ import annotations

from dataclasses import replace
from typing import Callable, Mapping, Optional, Sequence, Union

import numpy as np
from numba import njit

from ..cards import FULL_DECK, N_CARDS, cards_mask, format_hand, parse_card, popcount
from ..engine import FlatLayout, kernel, lowest_card, rng_next, rng_seed
from ..engine import popcount as _popcount
from ..engine.bits import rng_below
from ..engine.declarations import best_single_declaration
from ..engine.two import (HIDDEN_CARD, N_PLAYERS, N_STACKS, PLAY, TWO_STATE_SIZE,
                          add_face_down_cards, cards_in_trick, current_leader,
                          declaration_points, face_up_cards, hand_of, other, phase_of,
                          set_card_under, set_face_down_cards, set_hand, set_stack_face_down,
                          stack_face_down, stack_face_up, trick_card, trick_leader, trick_number,
                          trump_of)
from ..envs.infoset import NO_CEILING, InformationSet
from ..rules import (CARDS_PER_HAND, CLASSIC_FIRST_HAND, N_SEATS, P_DECLARATIONS, RuleSet,
                     four_player_rules, seat_after)
from .heuristic_two import excluded_cards

__all__ = [
    "SamplerError", "NoConsistentWorld", "WorldSampler", "count_worlds", "sample_worlds",
    "from_hand", "hand_information_set", "build_table", "sample_into", "unrank_into",
    "rank_world", "seed_rng", "new_table", "TABLE_SIZE", "STOCK", "warmup",
    "new_weights", "weigh_table", "sample_belief_into", "sample_mixed_into",
    "marginals_into", "WEIGHTS_SIZE", "hand_constraints", "sample_world", "sample_world_from", "sample_worlds_two", "hand_odds",
    "draw_view_worlds", "hand_marginals_two", "view_hand_marginals",
    "MAX_REDRAWS",
]


class SamplerError(ValueError):
    """An information set or an extra constraint that the sampler cannot use."""


class NoConsistentWorld(SamplerError):
    """No deal satisfies the information set and the extra constraints (count 0)."""


#: holder / output slot of the undealt stock (classic prise): ``out[STOCK]`` when ``out``
#: has 5 slots
STOCK = N_SEATS
#: the most holders of free cards: the three other seats and the stock
MAX_HOLDERS = N_SEATS

# ------------------------------------------------------------------ table layout
# One int64 array per information set (a single kernel argument): its blocks in order,
# each with its size, the offsets following (the spare block keeps ``T_DIG`` at 96, where
# it always was).
MAX_STATES = 9 ** 3
_T = FlatLayout()
#: ``table[T_N]``: number of free cards; ``T_H``: holders (3, or 4 with the stock);
#: ``T_NS``: number of states; ``T_START``: start state; ``T_COUNT``: number of worlds
T_N, T_H, T_NS, T_START, T_COUNT = _T.words(5)
#: holder -> output slot (seat 0..3, or ``STOCK``)
T_SLOT = _T.block(MAX_HOLDERS)
#: holder -> stride of its digit in the state (the last holder has none)
T_STRIDE = _T.block(MAX_HOLDERS)
#: holder -> cards it still needs
T_NEED = _T.block(MAX_HOLDERS)
#: output slot -> its fixed cards (the known cards; the seat's own hand): the seats and
#: the stock
T_BASE = _T.block(N_SEATS + 1)
#: the free cards in order
T_CARDS = _T.block(N_CARDS)
#: for each free card, bit ``h`` set when holder ``h`` may receive it
T_ALLOW = _T.block(N_CARDS)
_T.spare(10)
#: for each state: its digits (holders 0..2) and, in the fourth entry, their sum
T_DIG = _T.block(4 * MAX_STATES)
#: ``W[i, state]`` at ``T_W + i * ns + state``, ``i`` = 0..n
T_W = _T.block((N_CARDS + 1) * MAX_STATES)
#: int64 entries of a sampler table (:func:`new_table`)
TABLE_SIZE = _T.size
assert (T_SLOT, T_BASE, T_CARDS, T_DIG, TABLE_SIZE) == (5, 17, 22, 96, 27069)


def new_table() -> np.ndarray:
    """An empty sampler table (int64[:data:`TABLE_SIZE`]) for :func:`build_table`."""
    return np.zeros(TABLE_SIZE, dtype=np.int64)


# ------------------------------------------------------------------ kernels
# The random stream is the engine's splitmix64: one definition, imported (the engine's
# kernels are the base of every numba call graph of the project).
_rng_next = rng_next
#: seed ``rng`` (uint64[1]) for sub-stream ``stream`` of ``seed``: ``engine.rng_seed``
seed_rng = rng_seed


@kernel
def _below64(rng, n):
    """Uniform int64 in ``0..n-1`` for ``1 <= n < 2**63``: exact (masked rejection, on
    average fewer than two draws)."""
    m = np.uint64(n - 1)
    m |= m >> np.uint64(1)
    m |= m >> np.uint64(2)
    m |= m >> np.uint64(4)
    m |= m >> np.uint64(8)
    m |= m >> np.uint64(16)
    m |= m >> np.uint64(32)
    un = np.uint64(n)
    while True:
        x = _rng_next(rng) & m
        if x < un:
            return np.int64(x)


@kernel
def _fail(table):
    """Mark ``table`` as having no world."""
    table[T_N] = 0
    table[T_H] = 0
    table[T_NS] = 1
    table[T_START] = 0
    table[T_COUNT] = 0
    for k in range(STOCK + 1):
        table[T_BASE + k] = 0
    return 0


@njit(cache=True, _nrt=False, inline="always")
def _dims(table):
    """The free cards, holders and states of ``table``."""
    return table[T_N], table[T_H], table[T_NS]


# inline="always": the step of the recursion that every kernel below walks (counting,
# weighing, drawing, ranking, marginals), compiled inside each of them.
@njit(cache=True, _nrt=False, inline="always")
def _next_state(table, allow, rl, st, h, last):
    """The state after the current free card goes to holder ``h`` from state ``st``, or
    -1 when ``h`` may not take it: not in ``allow`` (the card's holders, a bit each), or
    its need is met (its digit is 0; for ``last``, the last holder, whose digit is
    implied: ``rl``, the cards it still needs, is 0)."""
    if (allow >> h) & 1 == 0:
        return -1
    if h < last:
        if table[T_DIG + 4 * st + h] == 0:
            return -1
        return st - table[T_STRIDE + h]
    if rl == 0:
        return -1
    return st


@njit(cache=True, _nrt=False, inline="always")
def _world_start(table, out):
    """Fill ``out`` (int64[4] or [5]) with the fixed cards of ``table``, the stock slot
    (if any) empty; return whether ``out`` has the stock slot."""
    for k in range(N_SEATS):
        out[k] = table[T_BASE + k]
    with_stock = out.shape[0] > STOCK
    if with_stock:
        out[STOCK] = 0
    return with_stock


@njit(cache=True, _nrt=False, inline="always")
def _world_place(table, i, h, out, with_stock):
    """Give free card ``i`` of ``table`` to holder ``h`` in ``out`` (the stock's cards
    only when ``out`` has its slot)."""
    slot = table[T_SLOT + h]
    if slot < N_SEATS:
        out[slot] |= np.int64(1) << table[T_CARDS + i]
    elif with_stock:
        out[STOCK] |= np.int64(1) << table[T_CARDS + i]


@kernel
def _fill_rows(table, V, base, q):
    """The recursion of the module docstring, from the last card back: ``V[base + i *
    ns + state]`` the number of ways to give free cards ``i..n-1`` from ``state`` (``q``
    None: exact integers, ``table``'s ``W``), or their total weight (``q``: each card's
    weight per holder, see :func:`weigh_table`). ``table`` holds all but its rows."""
    n, H, ns = _dims(table)
    last_need = table[T_NEED + H - 1]
    for i in range(n, -1, -1):
        row = base + i * ns
        nxt = row + ns
        allow = table[T_ALLOW + i] if i < n else 0
        for st in range(ns):
            rl = (n - i) - table[T_DIG + 4 * st + 3]
            w = 0
            if 0 <= rl <= last_need:
                if i == n:
                    w = 1 if st == 0 else 0
                else:
                    for h in range(H):
                        st2 = _next_state(table, allow, rl, st, h, H - 1)
                        if st2 < 0:
                            continue
                        if q is None:
                            w += V[nxt + st2]
                        else:
                            w += q[MAX_HOLDERS * i + h] * V[nxt + st2]
            V[row + st] = w


@kernel
def build_table(table, seat, sizes, known, possible, gone):
    """Fill ``table`` (int64[TABLE_SIZE]) for the worlds seen from ``seat``; return how
    many there are (0 when none, or when the input is contradictory).

    ``sizes``, ``known``, ``possible``: int64[4] per seat (hand sizes, cards known to be
    in each hand, cards each hand may hold; ``known[seat]`` is the seat's whole hand);
    ``gone``: mask of the cards in no hand and not undealt (played, or the retourne on
    the table). Free cards (not gone, not known anywhere) beyond what the three other
    hands still need make up the undealt stock, which may hold any of them.
    """
    taken = np.int64(0)
    for s in range(N_SEATS):
        k = known[s]
        if k < 0 or k > FULL_DECK or (k & taken) != 0 or (k & gone) != 0:
            return _fail(table)
        if (k & ~possible[s]) != 0 or _popcount(k) > sizes[s] or sizes[s] > CARDS_PER_HAND:
            return _fail(table)
        taken |= k
    if _popcount(known[seat]) != sizes[seat]:
        return _fail(table)
    free = np.int64(FULL_DECK) & ~gone & ~taken
    nfree = _popcount(free)
    # holders: the three other seats, then the stock if any card is undealt
    H = 0
    total = 0
    for s in range(N_SEATS):
        if s != seat:
            table[T_SLOT + H] = s
            table[T_NEED + H] = sizes[s] - _popcount(known[s])
            total += sizes[s] - _popcount(known[s])
            H += 1
    stock = nfree - total
    if stock < 0:
        return _fail(table)
    if stock > 0:
        table[T_SLOT + H] = STOCK
        table[T_NEED + H] = stock
        H += 1
    # the holder with the largest need goes last: its digit is implied
    big = 0
    for h in range(1, H):
        if table[T_NEED + h] >= table[T_NEED + big]:
            big = h
    for base in (T_SLOT, T_NEED):
        t = table[base + big]
        table[base + big] = table[base + H - 1]
        table[base + H - 1] = t
    ns = 1
    start = 0
    for h in range(H - 1):
        table[T_STRIDE + h] = ns
        start += table[T_NEED + h] * ns
        ns *= table[T_NEED + h] + 1
    table[T_STRIDE + H - 1] = 0
    for st in range(ns):
        tot = 0
        for h in range(3):
            d = 0
            if h < H - 1:
                d = (st // table[T_STRIDE + h]) % (table[T_NEED + h] + 1)
            table[T_DIG + 4 * st + h] = d
            tot += d
        table[T_DIG + 4 * st + 3] = tot
    # the free cards and who may receive each
    n = 0
    m = free
    while m != 0:
        low = m & -m
        c = 0
        while (low >> c) != 1:
            c += 1
        m ^= low
        allow = 0
        for h in range(H):
            slot = table[T_SLOT + h]
            if table[T_NEED + h] > 0 and (slot == STOCK or (possible[slot] >> c) & 1):
                allow |= 1 << h
        table[T_CARDS + n] = c
        table[T_ALLOW + n] = allow
        n += 1
    table[T_N] = n
    table[T_H] = H
    table[T_NS] = ns
    _fill_rows(table, table, np.int64(T_W), None)
    for s in range(N_SEATS):
        table[T_BASE + s] = known[s]
    table[T_BASE + STOCK] = 0
    table[T_START] = start
    table[T_COUNT] = table[T_W + start]
    return table[T_COUNT]


@kernel
def unrank_into(table, x, out):
    """Write world number ``x`` (``0 <= x < table[T_COUNT]``) of ``table`` into ``out``
    (int64[4], or int64[5] to receive the undealt stock too, ``out[STOCK]``)."""
    n, H, ns = _dims(table)
    with_stock = _world_start(table, out)
    st = table[T_START]
    last = H - 1
    for i in range(n):
        nxt = T_W + (i + 1) * ns
        allow = table[T_ALLOW + i]
        rl = (n - i) - table[T_DIG + 4 * st + 3]
        chosen = last
        for h in range(H):
            st2 = _next_state(table, allow, rl, st, h, last)
            if st2 < 0:
                continue
            w = table[nxt + st2]
            if x < w:
                chosen = h
                st = st2
                break
            x -= w
        _world_place(table, i, chosen, out, with_stock)


@kernel
def sample_into(table, rng, out):
    """Draw one uniformly random world of ``table`` into ``out`` (int64[4] or [5]) from
    ``rng`` (uint64[1], see :func:`seed_rng`). Returns False (``out`` untouched) when the
    table has no world. The loop body of a PIMC bot."""
    count = table[T_COUNT]
    if count <= 0:
        return False
    unrank_into(table, _below64(rng, count), out)
    return True


@kernel
def rank_world(table, hands):
    """The number of the world ``hands`` (int64[4]) in ``table``'s order (the inverse
    of :func:`unrank_into`), or -1 if ``table`` does not contain it."""
    if table[T_COUNT] <= 0:
        return -1
    n, H, ns = _dims(table)
    union = np.int64(0)
    for s in range(N_SEATS):
        b = table[T_BASE + s]
        if (hands[s] & b) != b:
            return -1
        if (union & hands[s]) != 0:
            return -1
        union |= hands[s]
    st = table[T_START]
    last = H - 1
    x = 0
    placed = np.int64(0)
    for i in range(n):
        allow = table[T_ALLOW + i]
        rl = (n - i) - table[T_DIG + 4 * st + 3]
        c = table[T_CARDS + i]
        bit = np.int64(1) << c
        placed |= bit
        target = STOCK
        for s in range(N_SEATS):
            if (hands[s] & bit) != 0:
                target = s
        found = False
        for h in range(H):
            st2 = _next_state(table, allow, rl, st, h, last)
            if st2 < 0:
                continue
            if table[T_SLOT + h] == target:
                st = st2
                found = True
                break
            x += table[T_W + (i + 1) * ns + st2]
        if not found:
            return -1
    # every card of the hands is a base card or a free card placed above
    for s in range(N_SEATS):
        if (hands[s] & ~(placed | table[T_BASE + s])) != 0:
            return -1
    if table[T_W + n * ns + st] != 1:
        return -1
    return x


# ------------------------------------------------------------------ weighted worlds
#: float64 entries of a weighted table (:func:`new_weights`): ``Wf[i, state]`` at
#: ``i * ns + state``
WEIGHTS_SIZE = (N_CARDS + 1) * MAX_STATES


def new_weights() -> np.ndarray:
    """An empty weighted table (float64[:data:`WEIGHTS_SIZE`]) for :func:`weigh_table`."""
    return np.zeros(WEIGHTS_SIZE, dtype=np.float64)


@kernel
def weigh_table(table, probs, Wf, q):
    """Weigh the worlds of ``table`` (filled by :func:`build_table`) by ``probs``
    (float64[4, 32]: ``probs[s, c]``, how likely seat ``s`` holds card ``c``): world ``w``
    gets the weight ``prod over the free cards c of probs[holder(c), c]`` (the undealt
    stock weighs 1). ``q`` (float64[32 * 4]) receives each free card's weight per holder,
    scaled so that its largest allowed one is 1 (a non-positive or non-finite
    probability counts as 1e-12: it may be wrong, never impossible); ``Wf`` (float64
    [WEIGHTS_SIZE]) the weighted counts ``Wf[i, r]`` of the recursion of the module
    docstring. Returns the total weight (0 when the table has no world).

    Drawing worlds with :func:`sample_belief_into` then gives world ``w`` probability
    exactly ``weight(w) / total``: the product of the per-card probabilities
    conditioned on the hand sizes and on every constraint of the table."""
    n = table[T_N]
    H = table[T_H]
    for i in range(n):
        c = table[T_CARDS + i]
        allow = table[T_ALLOW + i]
        top = 0.0
        for h in range(MAX_HOLDERS):
            v = 0.0
            if h < H and (allow >> h) & 1:
                slot = table[T_SLOT + h]
                v = 1.0
                if slot < N_SEATS:
                    v = probs[slot, c]
                    if not (v > 1e-12) or not np.isfinite(v):
                        v = 1e-12
                if v > top:
                    top = v
            q[MAX_HOLDERS * i + h] = v
        if top > 0.0:
            for h in range(MAX_HOLDERS):
                q[MAX_HOLDERS * i + h] /= top
    if table[T_COUNT] <= 0:
        return 0.0
    _fill_rows(table, Wf, np.int64(0), q)
    return Wf[table[T_START]]


@kernel
def _u01(rng):
    """Uniform float in [0, 1) (53 bits)."""
    return (_rng_next(rng) >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@kernel
def sample_belief_into(table, Wf, q, rng, out):
    """Draw one world of ``table`` weighted by :func:`weigh_table` (``Wf``, ``q``) into
    ``out`` (int64[4] or [5]), card by card: card ``c_i`` goes to holder ``h`` with
    probability ``q[i, h] * Wf[i + 1, r - e_h] / Wf[i, r]``. Returns False (``out``
    untouched) when the table has no world."""
    if table[T_COUNT] <= 0:
        return False
    n, H, ns = _dims(table)
    with_stock = _world_start(table, out)
    st = table[T_START]
    last = H - 1
    for i in range(n):
        nxt = (i + 1) * ns
        x = _u01(rng) * Wf[i * ns + st]
        chosen = -1
        chosen_st = st
        allow = table[T_ALLOW + i]
        rl = (n - i) - table[T_DIG + 4 * st + 3]
        for h in range(H):
            st2 = _next_state(table, allow, rl, st, h, last)
            if st2 < 0:
                continue
            w = q[MAX_HOLDERS * i + h] * Wf[nxt + st2]
            if w <= 0.0:
                continue
            chosen = h
            chosen_st = st2
            if x < w:
                break
            x -= w
        st = chosen_st
        _world_place(table, i, chosen, out, with_stock)
    return True


@kernel
def sample_mixed_into(table, Wf, q, uniform_share, rng, out):
    """One world: uniform (:func:`sample_into`) with probability ``uniform_share``, else
    weighted (:func:`sample_belief_into`): the mixture keeps every consistent world
    possible however confident the weights are."""
    if uniform_share >= 1.0 or (uniform_share > 0.0 and _u01(rng) < uniform_share):
        return sample_into(table, rng, out)
    return sample_belief_into(table, Wf, q, rng, out)


@kernel
def marginals_into(table, Wf, q, weighted, F, G, out):
    """``out[slot, c]`` (float64[5, 32], slot 4 the stock): the exact probability that
    free card ``c`` goes to ``slot`` under the uniform distribution of ``table`` (or,
    with ``weighted``, under the weights of :func:`weigh_table`); the known cards get 1
    at their seat. A forward pass over the recursion: the weight of the partial
    assignments reaching each state, times the weight of their completions. ``F`` and
    ``G`` (float64[MAX_STATES]) are scratch."""
    for s in range(STOCK + 1):
        for c in range(N_CARDS):
            out[s, c] = 0.0
    for s in range(N_SEATS):
        m = table[T_BASE + s]
        while m:
            out[s, lowest_card(m)] = 1.0
            m &= m - 1
    if table[T_COUNT] <= 0:
        return
    n, H, ns = _dims(table)
    last = H - 1
    for st in range(ns):
        F[st] = 0.0
    F[table[T_START]] = 1.0
    total = Wf[table[T_START]] if weighted else float(table[T_W + table[T_START]])
    for i in range(n):
        allow = table[T_ALLOW + i]
        nxt = (i + 1) * ns
        c = table[T_CARDS + i]
        for st in range(ns):
            G[st] = 0.0
        for st in range(ns):
            f = F[st]
            if f == 0.0:
                continue
            rl = (n - i) - table[T_DIG + 4 * st + 3]
            for h in range(H):
                st2 = _next_state(table, allow, rl, st, h, last)
                if st2 < 0:
                    continue
                if weighted:
                    g = f * q[MAX_HOLDERS * i + h]
                    tail = Wf[nxt + st2]
                else:
                    g = f
                    tail = float(table[T_W + nxt + st2])
                if g * tail > 0.0:
                    out[table[T_SLOT + h], c] += g * tail / total
                    G[st2] += g
        for st in range(ns):
            F[st] = G[st]


@njit(cache=True)
def _sample_belief_batch(table, Wf, q, uniform_share, seed, first, out):
    rng = np.empty(1, dtype=np.uint64)
    for j in range(out.shape[0]):
        seed_rng(rng, seed, first + j)
        sample_mixed_into(table, Wf, q, uniform_share, rng, out[j])


@njit(cache=True)
def _marginals(table, Wf, q, weighted, out):
    F = np.zeros(MAX_STATES, dtype=np.float64)
    G = np.zeros(MAX_STATES, dtype=np.float64)
    marginals_into(table, Wf, q, weighted, F, G, out)


@njit(cache=True)
def _weigh(table, probs, Wf, q):
    return weigh_table(table, probs, Wf, q)


@njit(cache=True)
def _sample_batch(table, seed, first, out):
    """World ``j`` of ``out`` from stream ``first + j`` of ``seed`` (so that a batch does
    not depend on how the worlds are split into calls)."""
    rng = np.empty(1, dtype=np.uint64)
    for j in range(out.shape[0]):
        seed_rng(rng, seed, first + j)
        sample_into(table, rng, out[j])


@njit(cache=True)
def _unrank_batch(table, first, out):
    for j in range(out.shape[0]):
        unrank_into(table, first + j, out[j])


# ------------------------------------------------------------------ belote for two players
# A world of belote for two players gives a place to every card the player cannot see:
# the unknown part of the other hand and every face-down card, his own included
# (RULES.md §12). Its constraints are the other player's plays read backwards, not an
# information set's table: the heuristic's reading of them (``excluded_cards``) and his
# announced declaration, drawn by rejection (below).
#
# * the other player's hand holds none of a suit he failed to follow, no trump once he
#   failed to trump a plain suit he lacked, and no trump above the one he failed to beat
#   when trump was led (RULES.md §12's obligations read backwards; a face-down card was
#   unknown to him, so it carries no constraint);
# * his announced declaration (its points) is the best single declaration of his hand and
#   face-up cards at the start of the play (worlds that disagree are redrawn, up to
#   MAX_REDRAWS times; then the last draw is kept).
#
# The other hand's unknown cards are drawn uniformly among the cards allowed there, the
# rest uniformly over the face-down places.

#: redraws of a world whose other hand contradicts his announced declaration
MAX_REDRAWS = 1000


@njit(cache=True)
def hand_constraints(V, me):
    """The cards the other player's hand may still hold (a mask), from the plays in the
    public view ``V`` of player ``me`` (this section's comment; the heuristic's
    :func:`~coinche_rl.agents.heuristic_two.excluded_cards`)."""
    return np.int64(0xFFFFFFFF) & ~excluded_cards(V, other(me), trump_of(V))


@njit(cache=True)
def _other_start_holding(V, me, hand):
    """The other player's hand and face-up cards at the start of the play, with
    ``hand`` as his (sampled) hand now: hand, his played cards and his face-up cards,
    less the face-down cards revealed since."""
    o = other(me)
    held = hand | face_up_cards(V, o)
    n_tricks = trick_number(V) + (1 if cards_in_trick(V) == 1 else 0)
    for t in range(n_tricks):
        leader = trick_leader(V, t)
        for i in range(N_PLAYERS):
            c = trick_card(V, t, i)
            if c >= 0 and (leader if i == 0 else other(leader)) == o:
                held |= np.int64(1) << c
    for k in range(N_STACKS):
        d = stack_face_down(V, o, k)
        if d >= 0:
            held &= ~(np.int64(1) << d)         # revealed later: not part of the start
    return held


@njit(cache=True)
def sample_world(V, P, me, unseen, hand_size, allowed, rng, T, scratch):
    """``T`` := a world drawn from the public view ``V`` of player ``me`` (this
    section's comment): ``unseen`` the cards he cannot place, ``hand_size`` how many of
    them lie in the other hand, ``allowed`` the cards that hand may hold (from
    :func:`hand_constraints`). ``scratch``: int64[32]. Returns the number of redraws
    used."""
    return sample_world_from(V, P, me, unseen, hand_size, allowed, np.empty(0), rng, T,
                             scratch, np.empty((0, 0)))


@kernel
def _draw_uniform(pool, hand_size, rng):
    """``hand_size`` cards of ``pool``, uniformly."""
    hand = np.int64(0)
    for _ in range(hand_size):
        k = rng_below(rng, _popcount(pool))
        m = pool
        for _ in range(k):
            m &= m - 1
        c = lowest_card(m)
        hand |= np.int64(1) << c
        pool &= ~(np.int64(1) << c)
    return hand


@kernel
def _subset_weights(pool, hand_size, odds, E):
    """``E[i, j]`` (``j <= hand_size``) := the sum of the products of ``odds[c]`` over the
    ``j``-card subsets of the pool's cards ``i..`` (in card order; ``E[n, 0] = 1`` past
    the last)."""
    n = _popcount(pool)
    for j in range(1, hand_size + 1):
        E[n, j] = 0.0
    E[n, 0] = 1.0
    i = n
    for c in range(N_CARDS - 1, -1, -1):
        if (pool >> c) & 1:
            i -= 1
            E[i, 0] = 1.0
            for j in range(1, hand_size + 1):
                E[i, j] = E[i + 1, j] + odds[c] * E[i + 1, j - 1]


@kernel
def _draw_hand(pool, hand_size, odds, rng, E):
    """``hand_size`` cards of ``pool``: uniformly (``odds`` empty), or the set ``H`` with
    probability proportional to the product of ``odds[c]`` over ``H`` (``odds``:
    float64[32], >= 0), exactly: card by card in the pool's order, each taken with
    probability ``odds[c] * E[i + 1, j - 1] / E[i, j]``, ``E[i, j]`` the sum of those
    products over the ``j``-card subsets of the pool's cards ``i..`` (``E``:
    float64[33, 33] scratch). Uniformly too when no such set has a positive weight."""
    if odds.shape[0] == 0:
        return _draw_uniform(pool, hand_size, rng)
    _subset_weights(pool, hand_size, odds, E)
    if not E[0, hand_size] > 0.0:
        return _draw_uniform(pool, hand_size, rng)
    hand = np.int64(0)
    j = hand_size
    i = 0
    for c in range(N_CARDS):
        if j == 0:
            break
        if (pool >> c) & 1:
            if _u01(rng) * E[i, j] < odds[c] * E[i + 1, j - 1]:
                hand |= np.int64(1) << c
                j -= 1
            i += 1
    return hand


@kernel
def _hand_pool(unseen, hand_size, allowed):
    """The cards the other hand's unknown ``hand_size`` cards are drawn from: the unseen
    ones the plays allow there (all the unseen ones where the constraints leave too few:
    inconsistent constraints are dropped)."""
    pool = unseen & allowed
    return pool if _popcount(pool) >= hand_size else unseen


@njit(cache=True)
def sample_world_from(V, P, me, unseen, hand_size, allowed, odds, rng, T, scratch, E):
    """:func:`sample_world`, the other hand drawn by :func:`_draw_hand` (``odds``: the
    belief's odds that each card lies in that hand, or empty: uniformly; ``E`` its
    scratch, float64[33, 33] when ``odds`` is given). The face-down places get the rest
    uniformly in both cases: no decision ever reads a face-down card, so given the other
    hand every placement of the rest is equally likely."""
    o = other(me)
    announced = declaration_points(V, o)
    declared = P[P_DECLARATIONS] != 0 and phase_of(V) == PLAY and \
        (trick_number(V) > 0 or (cards_in_trick(V) == 1 and current_leader(V) == o))
    strain = trump_of(V)
    redraws = 0
    while True:
        # the other hand: hand_size cards among the allowed unseen ones
        hand = _draw_hand(_hand_pool(unseen, hand_size, allowed), hand_size, odds, rng, E)
        if declared and redraws < MAX_REDRAWS:
            start = _other_start_holding(V, me, hand | hand_of(V, o))
            if best_single_declaration(start, strain)[0] != announced:
                redraws += 1
                continue
        break
    # the rest over the face-down places, in a uniform order
    rest = unseen & ~hand
    n = 0
    while rest:
        c = lowest_card(rest)
        rest &= rest - 1
        scratch[n] = c
        n += 1
    for i in range(n - 1, 0, -1):
        j = rng_below(rng, i + 1)
        tmp = scratch[i]
        scratch[i] = scratch[j]
        scratch[j] = tmp
    for k in range(TWO_STATE_SIZE):
        T[k] = V[k]
    set_hand(T, o, hand_of(V, o) | hand)
    i = 0
    for p in range(N_PLAYERS):
        set_face_down_cards(T, p, 0)
        for k in range(N_STACKS):
            if stack_face_down(V, p, k) == HIDDEN_CARD:
                c = scratch[i]
                i += 1
                set_stack_face_down(T, p, k, c)
                set_card_under(T, stack_face_up(V, p, k), c)
                add_face_down_cards(T, p, np.int64(1) << c)
    return redraws


@njit(cache=True)
def sample_worlds_two(V, P, me, unseen, hand_size, odds, rng, out, scratch):
    """``out[k]`` := a world of :func:`sample_world_from` (``odds``: empty for uniform
    worlds) for each row ``k`` of ``out``, drawn in turn from ``rng`` (the other hand's
    allowed cards read once)."""
    allowed = hand_constraints(V, me)
    E = np.empty((N_CARDS + 1, N_CARDS + 1)) if odds.shape[0] else np.empty((0, 0))
    for k in range(out.shape[0]):
        sample_world_from(V, P, me, unseen, hand_size, allowed, odds, rng, out[k], scratch, E)


@njit(cache=True)
def hand_marginals_two(V, me, unseen, hand_size, odds, out):
    """``out[c]`` (float64[32]) := the probability that card ``c`` lies in the other hand
    in the worlds :func:`sample_worlds_two` draws with the same arguments (``odds`` empty:
    uniformly, ``hand_size / n`` for each of the ``n`` cards of the pool), exactly, the
    announced declaration's redraws aside (0 for the cards outside the pool). For the
    ``k``-th card of the pool, ``odds[c]`` times the weight of the ``hand_size - 1``-card
    subsets of the others (those before it, ``F``, times those after it, ``E``),
    over the weight of every ``hand_size``-card subset."""
    pool = _hand_pool(unseen, hand_size, hand_constraints(V, me))
    for c in range(N_CARDS):
        out[c] = 0.0
    n = _popcount(pool)
    if hand_size <= 0 or n == 0:
        return
    E = np.empty((N_CARDS + 1, N_CARDS + 1))
    weighted = odds.shape[0] > 0
    if weighted:
        _subset_weights(pool, hand_size, odds, E)
        weighted = E[0, hand_size] > 0.0        # no set of positive weight: uniform
    F = np.zeros(N_CARDS + 1)                   # F[j]: the j-subsets of the cards before
    F[0] = 1.0
    i = 0
    for c in range(N_CARDS):
        if (pool >> c) & 1:
            if not weighted:
                out[c] = min(hand_size, n) / n
                continue
            s = 0.0
            for k in range(hand_size):
                s += F[k] * E[i + 1, hand_size - 1 - k]
            out[c] = odds[c] * s / E[0, hand_size]
            for j in range(hand_size, 0, -1):
                F[j] += odds[c] * F[j - 1]
            i += 1


@njit(cache=True)
def hand_odds(V, me, probs, out):
    """``out`` (float64[32]) := the odds ``p / (1 - p)`` that each card lies in the other
    hand, from the belief's probabilities ``probs`` (float64[32], physical cards) for
    player ``me`` in his public view ``V``: 0 for a card the rules rule out of that hand
    (:func:`hand_constraints`) or that he sees, clipped to [1e-9, 1e9] elsewhere."""
    allowed = hand_constraints(V, me)
    for c in range(N_CARDS):
        if (allowed >> c) & 1:
            p = min(max(probs[c], 1e-9), 1.0 - 1e-9)
            out[c] = min(max(p / (1.0 - p), 1e-9), 1e9)
        else:
            out[c] = 0.0


def draw_view_worlds(view, rng: np.ndarray, out: np.ndarray,
                     scratch: Optional[np.ndarray] = None,
                     odds: Optional[np.ndarray] = None) -> np.ndarray:
    """``out[k]`` := a world consistent with ``view`` (a two-player view: the player's,
    in the play) for each row of ``out`` (int64[n, state size]), from the splitmix64
    stream ``rng`` (uint64[1]); the other hand uniformly, or with ``odds``
    (:func:`hand_odds`) in proportion to the product of its cards' odds, exactly
    conditioned on its size and on every card ruled out of it; returns ``out``."""
    unseen = int(view.unseen)
    odds = _EMPTY if odds is None else np.ascontiguousarray(odds, dtype=np.float64)
    sample_worlds_two(view.state, view.params, view.player, np.int64(unseen),
                      np.int64(view.other_hand_size - popcount(view.known_other)), odds, rng,
                      out, np.empty(N_CARDS, dtype=np.int64) if scratch is None else scratch)
    return out


_EMPTY = np.empty(0, dtype=np.float64)


def view_hand_marginals(view, odds: Optional[np.ndarray] = None) -> np.ndarray:
    """float64[32]: the probability that each card lies in the other hand in the worlds
    :func:`draw_view_worlds` draws for ``view`` with the same ``odds`` (None: uniform
    worlds), exactly (:func:`hand_marginals_two`: the announced declaration's redraws
    aside); 0 for the cards the player sees or the rules rule out of that hand."""
    out = np.empty(N_CARDS, dtype=np.float64)
    odds = _EMPTY if odds is None else np.ascontiguousarray(odds, dtype=np.float64)
    hand_marginals_two(view.state, np.int64(view.player), np.int64(int(view.unseen)),
                       np.int64(view.other_hand_size - popcount(view.known_other)), odds, out)
    return out


# ------------------------------------------------------------------ Python API
CardsLike = Union[int, str, Sequence[int]]
ConstraintLike = Union[None, Mapping[int, CardsLike], Sequence[CardsLike]]


def _masks4(arg: ConstraintLike, name: str):
    if arg is None:
        return [0, 0, 0, 0]
    if isinstance(arg, Mapping):
        out = [0, 0, 0, 0]
        for seat, cards in arg.items():
            if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < N_SEATS:
                raise SamplerError(f"{name}: keys must be seats 0..3, not {seat!r}")
            out[int(seat)] |= cards_mask(cards, f"{name}[{seat}]", SamplerError)
        return out
    if isinstance(arg, (str, int, np.integer)) or len(arg) != N_SEATS:
        raise SamplerError(f"{name} must be a mapping seat -> cards or a sequence of 4 "
                           f"card sets (one per seat), not {arg!r}")
    return [cards_mask(v, f"{name}[{s}]", SamplerError) for s, v in enumerate(arg)]


def _merge(info: InformationSet, holds: ConstraintLike, lacks: ConstraintLike) -> InformationSet:
    """``info`` with the extra constraints folded into ``known`` and ``possible``."""
    h4, l4 = _masks4(holds, "holds"), _masks4(lacks, "lacks")
    if not any(h4) and not any(l4):
        return info
    seat = info.seat
    if h4[seat] & ~info.hand:
        raise SamplerError(f"holds[{seat}]: seat {seat} is the observer; "
                           f"{format_hand(h4[seat] & ~info.hand)!r} are not in its hand")
    if l4[seat] & info.hand:
        raise SamplerError(f"lacks[{seat}]: seat {seat} is the observer and holds "
                           f"{format_hand(l4[seat] & info.hand)!r}")
    known = list(info.known)
    possible = list(info.possible)
    for s in range(N_SEATS):
        bad = h4[s] & l4[s]
        if bad:
            raise SamplerError(f"seat {s} both holds and lacks {format_hand(bad)!r}")
        if s == seat:
            continue
        bad = h4[s] & ~info.possible[s]
        if bad:
            raise SamplerError(f"holds[{s}]: seat {s} cannot hold {format_hand(bad)!r} "
                               f"(played, elsewhere, or excluded by the information set; "
                               f"it may hold {format_hand(info.possible[s])!r})")
        bad = l4[s] & info.known[s]
        if bad:
            raise SamplerError(f"lacks[{s}]: seat {s} is known to hold {format_hand(bad)!r}")
        known[s] |= h4[s]
    for s in range(N_SEATS):
        for t in range(s + 1, N_SEATS):
            if known[s] & known[t]:
                raise SamplerError(f"{format_hand(known[s] & known[t])!r} placed in both "
                                   f"seat {s} and seat {t}")
    for s in range(N_SEATS):
        if s == seat:
            continue
        if popcount(known[s]) > info.hand_sizes[s]:
            raise SamplerError(f"seat {s} holds {info.hand_sizes[s]} cards, not the "
                               f"{popcount(known[s])} cards {format_hand(known[s])!r}")
        elsewhere = 0
        for t in range(N_SEATS):
            if t != s:
                elsewhere |= known[t]
        possible[s] = (possible[s] & ~l4[s] & ~elsewhere) | known[s]
    return replace(info, known=tuple(known), possible=tuple(possible))


def _gone(info: InformationSet) -> int:
    gone = info.played
    if info.retourne is not None and info.contract is None:
        gone |= 1 << info.retourne
    return gone


class WorldSampler:
    """Uniform sampler over the worlds of one information set (see the module docstring).

    ``WorldSampler(info, holds=None, lacks=None)``: ``holds`` / ``lacks`` add cards a seat
    is assumed to hold / not to hold, as ``{seat: cards}`` or a sequence of 4 (cards: a
    mask, a hand string ``"AS TH"`` or a list of cards). The merged information set is
    :attr:`info` (every world satisfies ``info.is_consistent``); :attr:`count` is the exact
    number of worlds (0 is allowed; sampling then raises :class:`NoConsistentWorld`).

    :attr:`table` is the numba table (:func:`sample_into` and :func:`unrank_into` read it).
    """

    __slots__ = ("info", "table", "count")

    def __init__(self, info: InformationSet, *, holds: ConstraintLike = None,
                 lacks: ConstraintLike = None):
        if not isinstance(info, InformationSet):
            raise SamplerError(f"expected an InformationSet, not {type(info).__name__}")
        self.info = _merge(info, holds, lacks)
        i = self.info
        self.table = new_table()
        self.count = int(build_table(self.table, i.seat, np.array(i.hand_sizes, np.int64),
                                     np.array(i.known, np.int64),
                                     np.array(i.possible, np.int64), _gone(i)))

    @classmethod
    def from_hand(cls, rules: Union[str, RuleSet], seat: int, hand: CardsLike, dealer: int = 0,
                  *, retourne: Optional[Union[int, str]] = None, holds: ConstraintLike = None,
                  lacks: ConstraintLike = None) -> "WorldSampler":
        """A sampler for a seat that knows only its own hand (before any action: Monte
        Carlo hand evaluation). See :func:`hand_information_set`."""
        return cls(hand_information_set(rules, seat, hand, dealer, retourne=retourne),
                   holds=holds, lacks=lacks)

    # ------------------------------------------------------------ queries
    @property
    def seat(self) -> int:
        return self.info.seat

    @property
    def n_free(self) -> int:
        """Number of free cards (placed by the sampler)."""
        return int(self.table[T_N])

    @property
    def stock_size(self) -> int:
        """Cards undealt (classic prise: 11 with the retourne on the table), else 0."""
        for h in range(int(self.table[T_H])):
            if self.table[T_SLOT + h] == STOCK:
                return int(self.table[T_NEED + h])
        return 0

    def __repr__(self) -> str:
        return (f"<WorldSampler seat={self.seat} phase={self.info.phase} "
                f"free={self.n_free} worlds={self.count}>")

    def _check(self):
        if self.count <= 0:
            raise NoConsistentWorld(
                f"no deal is consistent with this information set of seat {self.seat}"
                " and the extra constraints (count 0)")

    def _width(self, stock: bool) -> int:
        return N_SEATS + 1 if stock else N_SEATS

    # ------------------------------------------------------------ sampling
    def sample(self, n: int, seed: int = 0, *, stock: bool = False) -> np.ndarray:
        """``n`` independent uniform worlds, int64[n, 4] hand masks (the seat's own
        hand included), or [n, 5] with ``stock=True`` (the undealt cards last, 0 when
        none). World ``j`` depends only on ``(seed, j)``.

        :raises NoConsistentWorld: when :attr:`count` is 0.
        """
        n = _check_count(n, "n")
        seed = _check_seed(seed)
        self._check()
        out = np.empty((n, self._width(stock)), dtype=np.int64)
        if n:
            _sample_batch(self.table, np.uint64(seed), 0, out)
        return out

    def world(self, index: int, *, stock: bool = False) -> np.ndarray:
        """World number ``index`` (``0 <= index < count``) in the sampler's order."""
        if isinstance(index, bool) or not isinstance(index, (int, np.integer)) or not 0 <= index < self.count:
            raise SamplerError(f"world index must be an int in 0..{self.count - 1}, not {index!r}")
        out = np.empty(self._width(stock), dtype=np.int64)
        unrank_into(self.table, int(index), out)
        return out

    def index_of(self, hands: Sequence[int]) -> int:
        """The number of the world ``hands`` (4 masks), or -1 if it is not one."""
        h = np.asarray([int(x) for x in hands], dtype=np.int64)
        if h.shape != (N_SEATS,):
            raise SamplerError(f"expected 4 hand masks, got {len(h)}")
        return int(rank_world(self.table, h))

    def all_worlds(self, limit: int = 1_000_000, *, stock: bool = False) -> np.ndarray:
        """Every world, int64[count, 4] (or [count, 5]), each once, in index order.

        :raises SamplerError: when there are more than ``limit`` worlds.
        """
        if self.count > limit:
            raise SamplerError(f"{self.count} worlds, more than limit={limit}: sample instead")
        out = np.empty((self.count, self._width(stock)), dtype=np.int64)
        if self.count:
            _unrank_batch(self.table, 0, out)
        return out

    def sample_weighted(self, n: int, seed: int, weight_fn: Callable, *,
                        candidates: Optional[int] = None, vectorized: bool = True,
                        return_ess: bool = False):
        """``n`` worlds drawn with probability proportional to ``weight_fn`` (inference:
        the likelihood of the public actions under a bidding / playing model).

        Importance resampling: ``K = candidates`` uniform worlds (default
        ``max(4 * n, 256)``) are weighted and ``n`` of them drawn with replacement in
        proportion to their weights; as ``K`` grows this tends to the exact weighted
        distribution. When :attr:`count` is at most ``K`` every world is weighted once
        instead, and the draw is exact. ``weight_fn`` receives int64[K, 4] hands and
        returns K non-negative finite weights (``vectorized=False``: it receives one
        int64[4] world and returns one weight).

        Returns int64[n, 4]; with ``return_ess=True``, ``(hands, ess)`` where ``ess`` is
        the effective sample size ``(sum w)^2 / sum w^2`` of the weighted candidates (a
        small value means the weights concentrate on few candidates: raise ``K``).

        :raises SamplerError: for negative, non-finite or all-zero weights.
        """
        n = _check_count(n, "n")
        seed = _check_seed(seed)
        self._check()
        if candidates is None:
            candidates = max(4 * n, 256)
        k = _check_count(candidates, "candidates")
        if k < 1:
            raise SamplerError("candidates must be at least 1")
        if self.count <= k:
            pool = self.all_worlds(limit=k)
        else:
            pool = self.sample(k, seed)
        if vectorized:
            w = np.asarray(weight_fn(pool), dtype=np.float64)
        else:
            w = np.asarray([float(weight_fn(row)) for row in pool], dtype=np.float64)
        if w.shape != (len(pool),):
            raise SamplerError(f"weight_fn returned shape {w.shape}, expected ({len(pool)},): "
                               "one weight per world (use vectorized=False for a per-world function)")
        if not np.all(np.isfinite(w)) or np.any(w < 0):
            raise SamplerError("weights must be finite and non-negative")
        total = float(w.sum())
        if total <= 0:
            raise SamplerError(f"every one of the {len(pool)} candidate worlds has weight 0: "
                               "raise candidates or check weight_fn")
        rng = np.random.default_rng([seed, 0x5A3D])
        pick = rng.choice(len(pool), size=n, replace=True, p=w / total)
        hands = pool[pick]
        if return_ess:
            return hands, total * total / float(np.dot(w, w))
        return hands


    def _weights(self, probs):
        """``(Wf, q, total)`` of :func:`weigh_table` for ``probs`` (float64[4, 32])."""
        pr = np.asarray(probs, dtype=np.float64)
        if pr.shape != (N_SEATS, N_CARDS):
            raise SamplerError(f"probs must have shape (4, 32) (seat, card), not {pr.shape}")
        if not np.all(np.isfinite(pr)) or np.any(pr < 0):
            raise SamplerError("probs must be finite and non-negative")
        Wf = new_weights()
        q = np.zeros(N_CARDS * MAX_HOLDERS, dtype=np.float64)
        total = float(_weigh(self.table, np.ascontiguousarray(pr), Wf, q))
        return Wf, q, total

    def sample_belief(self, n: int, seed: int, probs, *, uniform_share: float = 0.0,
                      stock: bool = False) -> np.ndarray:
        """``n`` worlds drawn **exactly** in proportion to the product of the per-card
        probabilities ``probs`` (float64[4, 32], ``probs[s, c]``: how likely seat ``s``
        holds card ``c``, e.g. :meth:`coinche_rl.agents.neural.belief.BeliefNet.probabilities`)
        over the free cards, conditioned on the hand sizes and every constraint of the
        information set (:func:`weigh_table`, :func:`sample_belief_into`); each world is
        instead uniform with probability ``uniform_share``. A probability of 0 for an
        allowed holder counts as 1e-12 (unlikely, never impossible). World ``j`` depends
        only on ``(seed, j)``.

        :raises NoConsistentWorld: when :attr:`count` is 0.
        """
        n = _check_count(n, "n")
        seed = _check_seed(seed)
        if not 0.0 <= uniform_share <= 1.0:
            raise SamplerError(f"uniform_share must be in [0, 1], not {uniform_share!r}")
        self._check()
        Wf, q, _total = self._weights(probs)
        out = np.empty((n, self._width(stock)), dtype=np.int64)
        if n:
            _sample_belief_batch(self.table, Wf, q, float(uniform_share), np.uint64(seed), 0, out)
        return out

    def marginals(self, probs=None, *, stock: bool = False) -> np.ndarray:
        """The exact probability that each seat holds each card, float64[4, 32] (or
        [5, 32] with ``stock=True``): under the uniform distribution of the worlds, or,
        given ``probs``, under :meth:`sample_belief`'s weighted distribution (with no
        uniform share). Known cards have 1 at their seat, played cards 0 everywhere.

        :raises NoConsistentWorld: when :attr:`count` is 0.
        """
        self._check()
        out = np.zeros((STOCK + 1, N_CARDS), dtype=np.float64)
        if probs is None:
            _marginals(self.table, np.zeros(1), np.zeros(1), False, out)
        else:
            Wf, q, _total = self._weights(probs)
            _marginals(self.table, Wf, q, True, out)
        return out if stock else out[:N_SEATS].copy()

    def weight_of(self, hands, probs) -> float:
        """The probability of world ``hands`` (4 masks) under :meth:`sample_belief`
        with ``probs`` and no uniform share (0 when it is not a world of the sampler)."""
        if self.index_of(hands) < 0:
            return 0.0
        Wf, q, total = self._weights(probs)
        w = 1.0
        for i in range(self.n_free):
            c = int(self.table[T_CARDS + i])
            for h in range(int(self.table[T_H])):
                slot = int(self.table[T_SLOT + h])
                if slot < N_SEATS and (int(hands[slot]) >> c) & 1:
                    w *= q[MAX_HOLDERS * i + h]
                elif slot == STOCK and not any((int(hands[s]) >> c) & 1 for s in range(N_SEATS)):
                    w *= q[MAX_HOLDERS * i + h]
        return w / total


def _check_count(n, name: str) -> int:
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or n < 0:
        raise SamplerError(f"{name} must be a non-negative int, not {n!r}")
    return int(n)


def _check_seed(seed) -> int:
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or not 0 <= seed < 2 ** 63:
        raise SamplerError(f"seed must be an int in 0..2**63-1, not {seed!r}")
    return int(seed)


def hand_information_set(rules: Union[str, RuleSet], seat: int, hand: CardsLike,
                         dealer: int = 0, *, retourne: Optional[Union[int, str]] = None
                         ) -> InformationSet:
    """The information set of ``seat`` holding ``hand`` before any action: no history,
    nothing known of the other hands.

    Coinche family: ``hand`` has 8 cards (the other 24 are shared among the three
    others). Classic family: 5 cards during the prise, with the ``retourne`` on the table
    when given (the other seats hold 5 each, the rest is undealt), or 8 cards for the
    deal after the prise (``retourne`` must then be None: put the taker's retourne in
    ``holds``).

    :raises SamplerError: for a wrong seat, hand size or retourne.
    """
    rules = four_player_rules(rules)
    if not isinstance(rules, RuleSet):
        raise SamplerError(f"rules must be a preset name or a RuleSet, not {rules!r}")
    for name, v in (("seat", seat), ("dealer", dealer)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or not 0 <= v < N_SEATS:
            raise SamplerError(f"{name} must be 0..3, not {v!r}")
    seat, dealer = int(seat), int(dealer)
    hand = cards_mask(hand, "hand", SamplerError)
    k = popcount(hand)
    classic = rules.family == "classic"
    sizes = (CLASSIC_FIRST_HAND, CARDS_PER_HAND) if classic else (CARDS_PER_HAND,)
    if k not in sizes:
        raise SamplerError(f"a {rules.family}-family hand here has "
                           f"{' or '.join(map(str, sizes))} cards, not {k}: {format_hand(hand)!r}")
    if retourne is not None:
        if isinstance(retourne, str):
            retourne = parse_card(retourne)
        if not classic or k != CLASSIC_FIRST_HAND:
            raise SamplerError("a retourne lies on the table only during the classic prise "
                               "(classic family, 5-card hands)")
        if isinstance(retourne, bool) or not isinstance(retourne, (int, np.integer)) or not 0 <= retourne < N_CARDS:
            raise SamplerError(f"retourne must be a card 0..31 or text such as 'JH', not {retourne!r}")
        retourne = int(retourne)
        if hand >> retourne & 1:
            raise SamplerError(f"the retourne {format_hand(1 << retourne)!r} is in the hand")
    free = FULL_DECK & ~hand & ~(0 if retourne is None else 1 << retourne)
    known = tuple(hand if s == seat else 0 for s in range(N_SEATS))
    possible = tuple(hand if s == seat else free for s in range(N_SEATS))
    auction = classic and k == CLASSIC_FIRST_HAND or not classic
    return InformationSet(
        seat=seat, rules=rules, dealer=dealer, phase="auction" if auction else "play",
        current_player=seat_after(dealer, 1), hand=hand, public_history=(), auction=(),
        contract=None, retourne=retourne, tricks=(), trick_winners=(), played=0,
        hand_sizes=(k,) * N_SEATS, belotes=(), declarations_resolved=False,
        declaration_winner=None, shown=(0,) * N_SEATS, known=known, voids=(0,) * N_SEATS,
        ceilings=tuple((NO_CEILING,) * 4 for _ in range(N_SEATS)), possible=possible)


def from_hand(rules: Union[str, RuleSet], seat: int, hand: CardsLike, dealer: int = 0, *,
              retourne=None, holds: ConstraintLike = None, lacks: ConstraintLike = None
              ) -> WorldSampler:
    """:meth:`WorldSampler.from_hand`."""
    return WorldSampler.from_hand(rules, seat, hand, dealer, retourne=retourne, holds=holds,
                                  lacks=lacks)


def count_worlds(info: InformationSet, *, holds: ConstraintLike = None,
                 lacks: ConstraintLike = None) -> int:
    """The exact number of deals consistent with ``info`` (and the extra constraints)."""
    return WorldSampler(info, holds=holds, lacks=lacks).count


def sample_worlds(info: InformationSet, n: int, seed: int = 0, *, holds: ConstraintLike = None,
                  lacks: ConstraintLike = None, stock: bool = False) -> np.ndarray:
    """``WorldSampler(info, holds=..., lacks=...).sample(n, seed, stock=stock)``."""
    return WorldSampler(info, holds=holds, lacks=lacks).sample(n, seed, stock=stock)


# ------------------------------------------------------------------ warmup
#: its place in ``coinche-rl warmup`` (:mod:`coinche_rl.cli.warmup`): the networks' chain
#: (while the solver's chain compiles the search, which PIMC calls with the sampler)
WARMUP_CHAIN = "networks"


def warmup() -> None:
    """Compile (or load from the cache) every kernel of this module."""
    s = WorldSampler.from_hand("ffb", 0, 0xFF)
    s.sample(2, 0, stock=True)
    s.sample(2, 0)
    s.world(0)
    s.world(0, stock=True)
    s.index_of(s.world(0))
    probs = np.full((N_SEATS, N_CARDS), 0.5)
    s.sample_belief(2, 0, probs, uniform_share=0.5)
    s.sample_belief(2, 0, probs, stock=True)
    s.marginals()
    s.marginals(probs)
    c = WorldSampler.from_hand("classic", 0, 0x1F, retourne=8,
                               holds={1: 0x3E00, 2: 0x1F0000, 3: 0x1F000000})
    c.all_worlds(limit=10 ** 6, stock=True)
    c.all_worlds(limit=10 ** 6)
    # belote for two players: a world of a player's view late in a deal
    from ..two_player import TwoPlayerDeal
    d = TwoPlayerDeal("belote_decouverte", seed=0, dealer=0)
    d.apply("take")
    while len(d.plays) < 26:
        d.apply(d.legal_actions()[0])
    v = d.view(d.current_player)
    draw_view_worlds(v, np.zeros(1, dtype=np.uint64), np.empty((1, len(v.state)), dtype=np.int64))
    odds = np.empty(N_CARDS, dtype=np.float64)
    hand_odds(v.state, np.int64(v.player), np.full(N_CARDS, 0.5), odds)
    view_hand_marginals(v, odds)
