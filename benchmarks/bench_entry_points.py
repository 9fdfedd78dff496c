"""The engine's entry points for every family (``coinche_rl.engine.entry``): what a
kernel written once above them costs, against the same kernel written per family.

One env-like loop (a new deal, then at every step: the legal mask, the public view of
the seat to act, a random legal action applied; the score at the end), a kernel without
reference counting called by an ``njit`` function that allocates its arrays, three ways:

* ``native``: written twice, on each family's own kernels (today's upper layers);
* ``branch`` (mechanism (a), the one chosen): written once on ``engine.game_*``, which
  branch on the rule vector's family slot;
* ``overload`` (mechanism (b), compile-time specialisation): written once on functions
  ``@overload``-ed by a family marker's type (a tuple of one or two ints), so that each
  family gets its own compiled copy with no branch (cacheable, unlike a kernel passed as
  a first-class function argument: numba does not cache those).

Figures: ``<preset>_<way>_steps_per_s`` (CPU time, best of ``--repeats``, the ways
interleaved), the ratio of each way to
``native``, and ``compile_s`` per way: the seconds to compile (or load) the loop's
kernels for both families in this process, the first way's with the engine's own
(``docs/architecture.md``, Families, gives each way's first run in a process of its own
with an empty ``NUMBA_CACHE_DIR``). Usage: ``python
benchmarks/bench_entry_points.py [--quick] [--repeats K]``; the last line is JSON.
"""

from __future__ import annotations

import json
import os
import sys
import time

import numpy as np
from numba import njit, types
from numba.extending import overload

from coinche_rl import engine as E
from coinche_rl.actions import N_ACTIONS
from coinche_rl.engine import two
from coinche_rl.rules import get_rules, params_vector

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from bench_lib import bench_arguments  # noqa: E402

PRESETS = ("ffb", "belote_a_deux")


@njit(cache=True)
def _scratch(size):
    """The loop's arrays: the state, a view, the mask, the deal's scratch, the stream."""
    return (np.zeros(size, dtype=np.int64), np.zeros(size, dtype=np.int64),
            np.zeros(N_ACTIONS, dtype=np.uint8), np.zeros(4, dtype=np.int64),
            np.zeros(32, dtype=np.int64), np.zeros(1, dtype=np.uint64))


# --------------------------------------------------------------------------- native
@njit(cache=True)
def native_four(P, n, seed):
    S, V, mask, hands, deck, rng = _scratch(E.STATE_SIZE)
    return _native_four(P, n, seed, S, V, mask, hands, deck, rng)


@E.kernel
def _native_four(P, n, seed, S, V, mask, hands, deck, rng):
    steps = 0
    total = 0
    for i in range(n):
        E.rng_seed(rng, seed, i)
        E.deal_into(S, P, rng, np.int64(-1), hands, deck)
        while E.phase_of(S) != E.DONE:
            E.legal_actions_into(S, P, mask)
            E.public_view_into(S, P, E.current_seat(S), V)
            E.apply_legal_action(S, P, E.random_action(S, P, rng, mask, 0.5))
            steps += 1
        total += E.team_score(S, 0)
    return steps, total


@njit(cache=True)
def native_two(P, n, seed):
    S, V, mask, hands, deck, rng = _scratch(two.TWO_STATE_SIZE)
    return _native_two(P, n, seed, S, V, mask, hands, deck, rng)


@E.kernel
def _native_two(P, n, seed, S, V, mask, hands, deck, rng):
    steps = 0
    total = 0
    for i in range(n):
        E.rng_seed(rng, seed, i)
        two.two_random_deal(S, P, rng, np.int64(-1), deck)
        while two.phase_of(S) != two.DONE:
            two.two_legal_mask(S, P, mask)
            two.two_public_view_into(S, P, two.current_player(S), V)
            two.two_apply(S, P, two.two_random_action(S, P, rng))
            steps += 1
        total += two.deal_score(S, 0)
    return steps, total


# ------------------------------------------------------------- (a) the rule-vector branch
@njit(cache=True)
def branch_loop(P, size, n, seed):
    S, V, mask, hands, deck, rng = _scratch(size)
    return _branch_loop(P, n, seed, S, V, mask, hands, deck, rng)


@E.kernel
def _branch_loop(P, n, seed, S, V, mask, hands, deck, rng):
    steps = 0
    total = 0
    for i in range(n):
        E.rng_seed(rng, seed, i)
        E.game_new_deal(S, P, rng, np.int64(-1), hands, deck)
        while E.game_phase(S, P) != E.PHASE_DONE:
            E.game_legal_mask(S, P, mask)
            E.game_public_view_into(S, P, E.game_to_act(S, P), V)
            E.game_apply(S, P, E.game_random_action(S, P, rng, mask, 0.5))
            steps += 1
        total += E.game_score(S, P, 0)
    return steps, total


# ------------------------------------------------------- (b) compile-time specialisation
FOUR_MARK = (np.int64(0),)
TWO_MARK = (np.int64(0), np.int64(0))


def _is_two_mark(fam):
    return isinstance(fam, types.UniTuple) and fam.count == 2


# The Python bodies below are never run: each name is a numba @overload target (the
# implementations, chosen at compile time by the family marker's type, follow).
def s_new_deal(fam, S, P, rng, hands, deck):
    raise NotImplementedError


def s_phase(fam, S):
    raise NotImplementedError


def s_legal_mask(fam, S, P, out):
    raise NotImplementedError


def s_view(fam, S, P, out):
    raise NotImplementedError


def s_random_apply(fam, S, P, rng, buf):
    raise NotImplementedError


def s_score(fam, S):
    raise NotImplementedError


@overload(s_new_deal, inline="always")
def _ov_new_deal(fam, S, P, rng, hands, deck):
    if _is_two_mark(fam):
        return lambda fam, S, P, rng, hands, deck: two.two_random_deal(S, P, rng, np.int64(-1),
                                                                       deck)
    return lambda fam, S, P, rng, hands, deck: E.deal_into(S, P, rng, np.int64(-1), hands, deck)


@overload(s_phase, inline="always")
def _ov_phase(fam, S):
    if _is_two_mark(fam):
        return lambda fam, S: two.phase_of(S)
    return lambda fam, S: E.phase_of(S)


@overload(s_legal_mask, inline="always")
def _ov_legal_mask(fam, S, P, out):
    if _is_two_mark(fam):
        return lambda fam, S, P, out: two.two_legal_mask(S, P, out)
    return lambda fam, S, P, out: E.legal_actions_into(S, P, out)


@overload(s_view, inline="always")
def _ov_view(fam, S, P, out):
    if _is_two_mark(fam):
        return lambda fam, S, P, out: two.two_public_view_into(S, P, two.current_player(S), out)
    return lambda fam, S, P, out: E.public_view_into(S, P, E.current_seat(S), out)


@overload(s_random_apply, inline="always")
def _ov_random_apply(fam, S, P, rng, buf):
    if _is_two_mark(fam):
        return lambda fam, S, P, rng, buf: two.two_apply(S, P, two.two_random_action(S, P, rng))
    return lambda fam, S, P, rng, buf: E.apply_legal_action(
        S, P, E.random_action(S, P, rng, buf, 0.5))


@overload(s_score, inline="always")
def _ov_score(fam, S):
    if _is_two_mark(fam):
        return lambda fam, S: two.deal_score(S, 0)
    return lambda fam, S: E.team_score(S, 0)


@njit(cache=True)
def overload_loop(fam, P, size, n, seed):
    S, V, mask, hands, deck, rng = _scratch(size)
    return _overload_loop(fam, P, n, seed, S, V, mask, hands, deck, rng)


@E.kernel
def _overload_loop(fam, P, n, seed, S, V, mask, hands, deck, rng):
    steps = 0
    total = 0
    for i in range(n):
        E.rng_seed(rng, seed, i)
        s_new_deal(fam, S, P, rng, hands, deck)
        while s_phase(fam, S) != 2:
            s_legal_mask(fam, S, P, mask)
            s_view(fam, S, P, V)
            s_random_apply(fam, S, P, rng, mask)
            steps += 1
        total += s_score(fam, S)
    return steps, total


def runner(way, preset):
    """``f(n) -> (steps, total score)`` of ``way`` for ``preset``."""
    P = params_vector(get_rules(preset))
    fam = E.family_of(P)
    seed = np.int64(1)
    if way == "native":
        k = native_two if fam.name == "two" else native_four
        return lambda n: k(P, n, seed)
    if way == "branch":
        return lambda n: branch_loop(P, fam.state_size, n, seed)
    mark = TWO_MARK if fam.name == "two" else FOUR_MARK
    return lambda n: overload_loop(mark, P, fam.state_size, n, seed)


WAYS = ("native", "branch", "overload")


def main(argv=None) -> dict:
    args = bench_arguments(__doc__, argv)
    repeats = args.repeats or 3
    n = 20_000 if args.quick else 200_000
    out = {}
    for way in WAYS:
        t = time.perf_counter()
        for preset in PRESETS:
            runner(way, preset)(2)
        out[f"compile_s_{way}"] = round(time.perf_counter() - t, 2)
    for preset in PRESETS:
        results = {way: runner(way, preset)(200) for way in WAYS}
        assert len(set(results.values())) == 1, results   # the same game, three ways
        best = {w: float("inf") for w in WAYS}
        for _ in range(repeats):
            for way in WAYS:      # interleaved: the machine's load hits every way alike
                f = runner(way, preset)
                t = time.process_time()     # CPU time: the shared machine's load aside
                steps, _ = f(n)
                best[way] = min(best[way], time.process_time() - t)
        for way in WAYS:
            out[f"{preset}_{way}_steps_per_s"] = round(steps / best[way])
            out[f"{preset}_{way}_vs_native"] = round(best["native"] / best[way], 3)
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    main()
