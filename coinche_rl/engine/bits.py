"""Bit counts and the random stream of the kernels.

The card masks' bit counts go to the hardware (POPCNT, TZCNT, LZCNT through LLVM's
intrinsics). Randomness is a splitmix64 stream in a uint64 array of one: :func:`rng_seed`
makes sub-stream ``i`` of a seed (independent of how the work is chunked),
:func:`rng_below` draws below a bound and :func:`shuffle` is the Fisher-Yates shuffle
every deal goes through. :data:`kernel` is the decorator of the kernels that take arrays
and never allocate.
"""

from __future__ import annotations

import numpy as np
from llvmlite import ir
from numba import njit, types
from numba.core import cgutils
from numba.extending import intrinsic


#: Decorator of the kernels that take arrays but never allocate: compiled without numba's
#: reference counting, which otherwise costs ~30 ns of atomic increments and decrements
#: per call (measured: 31 ns -> 0.4 ns for the declare/belote check).
kernel = njit(cache=True, _nrt=False)


# The hardware's bit counts (POPCNT, TZCNT, LZCNT where the CPU has them) through LLVM's
# intrinsics: shorter and faster than table tricks in the solver's inner loops.
def _bit_count(emit):
    """An intrinsic ``f(x)`` for integer ``x`` whose code is ``emit(builder, x)``."""
    @intrinsic
    def count(typingctx, x):
        if not isinstance(x, types.Integer):
            return None

        def codegen(context, builder, signature, args):
            return emit(builder, args[0])
        return x(x), codegen
    return count


_NOT_UNDEF = ir.Constant(ir.IntType(1), 0)     # cttz / ctlz of 0: the bit width
_llvm_ctpop = _bit_count(lambda builder, x: builder.ctpop(x))
_llvm_cttz = _bit_count(lambda builder, x: builder.cttz(x, _NOT_UNDEF))
_llvm_ctlz = _bit_count(lambda builder, x: builder.ctlz(x, _NOT_UNDEF))


@njit(cache=True, inline="always")
def popcount(x):
    """Number of set bits of a 32-bit mask held in an int64."""
    return _llvm_ctpop(np.int64(x) & 0xFFFFFFFF)


@njit(cache=True, inline="always")
def lowest_card(m):
    """Index of the lowest set bit of a non-zero 32-bit mask (0 for 0)."""
    return _llvm_cttz(np.int64(m)) & 63


@kernel
def mask_into(out, base, m):
    """``out[base + i] = 1`` for each set bit ``i`` of the mask ``m`` (the legal masks'
    cards and prise options); returns how many. Pass ``base`` as ``np.int64(...)``."""
    n = 0
    while m:
        out[base + lowest_card(m)] = 1
        m &= m - 1
        n += 1
    return n


@njit(cache=True, inline="always")
def highest_card(m):
    """Index of the highest set bit of a non-zero 32-bit mask (-1 for 0)."""
    return 63 - _llvm_ctlz(np.int64(m))


@njit(cache=True, inline="always")
def nth_card(m, k):
    """Index of the k-th (0-based) set bit of ``m``, counting from the lowest."""
    # k 0 or 1 (most draws from a short legal mask): clear k low bits at once; beyond,
    # a binary search on the halves' bit counts with no data-dependent branch (a loop of
    # k steps mispredicts its exit in the random play-outs)
    if k < 2:
        return lowest_card(m & (m - k))
    m = np.int64(m) & 0xFFFFFFFF
    k = np.int64(k)
    pos = np.int64(0)
    for width in (16, 8, 4, 2, 1):
        low = popcount(m & ((np.int64(1) << width) - 1))
        up = np.int64(k >= low)
        k -= low * up
        shift = width * up
        m >>= shift
        pos += shift
    return pos


@njit(cache=True, _nrt=False, inline="always")
def take_best(W, start, n):
    """The card of the highest entry of a search's move list ``W[start:start + n]``
    (entries ``key << 5 | card``, keys >= 0; -1 once taken), that entry marked taken;
    31 (with every entry -1) when all are taken."""
    bk = np.int64(-1)
    bi = 0
    for i in range(n):
        if W[start + i] > bk:
            bk = W[start + i]
            bi = i
    W[start + bi] = -1
    return bk & 31


@njit(cache=True, _nrt=False, inline="always")
def window_update(maxnode, v, c, best, best_c, alpha, beta):
    """A fail-soft alpha-beta node's update after its move ``c`` searched to ``v`` (the
    solvers' one copy): ``(best, best_c, alpha, beta, cut)``, the best value and move
    so far, the window narrowed by a better value, and whether it closed (a cut-off)."""
    if maxnode:
        if v > best:
            best = v
            best_c = c
            if v > alpha:
                alpha = v
    elif v < best:
        best = v
        best_c = c
        if v < beta:
            beta = v
    return best, best_c, alpha, beta, alpha >= beta


@kernel
def rng_next(rng):
    """splitmix64 step on ``rng`` (uint64 array of 1); returns a uint64."""
    z = rng[0] + np.uint64(0x9E3779B97F4A7C15)
    rng[0] = z
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return z ^ (z >> np.uint64(31))


@kernel
def rng_below(rng, n):
    """Uniform int in ``0..n-1`` (n < 2**32)."""
    return np.int64(((rng_next(rng) >> np.uint64(32)) * np.uint64(n)) >> np.uint64(32))


@kernel
def rng_seed(rng, seed, stream):
    """Seed ``rng`` for sub-stream ``stream`` of ``seed`` (independent of chunking)."""
    rng[0] = np.uint64(seed) * np.uint64(0x9E3779B97F4A7C15) + np.uint64(stream) * np.uint64(0xD1B54A32D192ED03)
    rng_next(rng)


def seed_int64(seed: int) -> int:
    """``seed`` as the int64 the kernels see (two's complement of its low 64 bits)."""
    s = int(seed) % (1 << 64)
    return s - (1 << 64) if s >= (1 << 63) else s


@njit(cache=True, _nrt=False, inline="always")
def shuffle(rng, a, n):
    """Fisher-Yates shuffle of ``a[0:n]`` in place (``a[i]`` swapped with
    ``a[rng_below(rng, i + 1)]`` for ``i = n - 1 .. 1``)."""
    for i in range(n - 1, 0, -1):
        j = rng_below(rng, i + 1)
        t = a[i]
        a[i] = a[j]
        a[j] = t


@intrinsic
def prefetch(typingctx, arr, idx):
    """Ask the processor to bring ``arr[idx]``'s cache line in (LLVM's ``prefetch``: read,
    high temporal locality, data cache; a hint with no effect on any value). The solvers'
    one copy: each prefetches the transposition-table buckets it is about to probe."""
    if not isinstance(arr, types.Array) or not isinstance(idx, types.Integer):
        return None

    def codegen(context, builder, signature, args):
        aryty = signature.args[0]
        ary = context.make_array(aryty)(context, builder, args[0])
        ptr = cgutils.get_item_pointer(context, builder, aryty, ary, [args[1]],
                                       wraparound=False)
        i8p = builder.bitcast(ptr, ir.IntType(8).as_pointer())
        i32 = ir.IntType(32)
        fnty = ir.FunctionType(ir.VoidType(), [i8p.type, i32, i32, i32])
        fn = cgutils.get_or_insert_function(builder.module, fnty, "llvm.prefetch.p0")
        builder.call(fn, [i8p, i32(0), i32(3), i32(1)])
        return context.get_dummy_value()
    return types.void(arr, idx), codegen
