"""The engine's bit helpers (LLVM's ``ctpop`` / ``cttz`` / ``ctlz``) against plain Python,
on every single-card mask, edge masks and random 32-bit masks, inside compiled code as the
kernels use them."""

import numpy as np
from numba import njit

from coinche_rl.engine import highest_card, lowest_card, nth_card, popcount


@njit(cache=False)
def _all(m):
    return popcount(m), lowest_card(m), highest_card(m)


def _python(m):
    m32 = m & 0xFFFFFFFF
    low = (m & -m).bit_length() - 1 if m else 0
    return bin(m32).count("1"), low, m.bit_length() - 1 if m >= 0 else 63


def test_bit_helpers_match_python():
    masks = [0, 1, 0xFFFFFFFF, 0x80000000, 0x80000001, 0x00FF00FF, 0x0F0F0F0F]
    masks += [1 << i for i in range(32)]
    masks += [int(x) for x in np.random.default_rng(3).integers(1, 1 << 32, size=2000)]
    for m in masks:
        assert _all(np.int64(m)) == _python(m), hex(m)


def test_bit_helpers_on_negative_int64():
    """popcount counts the low 32 bits only (a card mask), as before the intrinsics."""
    assert _all(np.int64(-1)) == (32, 0, 63)


@njit(cache=False)
def _nth(m, k):
    return nth_card(m, k)


def test_nth_card():
    rng = np.random.default_rng(4)
    for m in (int(x) for x in rng.integers(1, 1 << 32, size=300)):
        bits = [i for i in range(32) if (m >> i) & 1]
        for k, b in enumerate(bits):
            assert _nth(np.int64(m), k) == b
