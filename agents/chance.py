"""Chances of the hidden cards (``coinche_rl.agents.chance``): the counting kernels the
heuristic bots of every family share to weigh what an opponent's unknown cards may be.

>>> round(p_miss(24, 2, 6), 4)      # 6 cards drawn among 24 hold neither of 2 given ones
0.5543
>>> p_miss(8, 3, 6), p_miss(8, 0, 6)
(0.0, 1.0)
"""

from __future__ import annotations

from ..engine.bits import kernel

__all__ = ["p_miss"]


@kernel
def p_miss(n, k, h):
    """The chance that ``h`` cards drawn without replacement among ``n`` miss ``k``
    given ones (1 when ``k`` or ``h`` is 0 or less)."""
    if k <= 0 or h <= 0:
        return 1.0
    if n - k < h:
        return 0.0
    p = 1.0
    for i in range(h):
        p *= (n - k - i) / (n - i)
    return p
