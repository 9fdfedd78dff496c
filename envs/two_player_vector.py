"""The vector environments of belote for two players: the names
:mod:`coinche_rl.envs.vector`'s classes take with the two family's rules
(``coinche_rl.envs.two_player_vector``). The kernels are the same for both families
(:mod:`.kernels`).

>>> import numpy as np
>>> venv = VectorTwoPlayer(8, rules="belote_decouverte", seed=0)
>>> ts = venv.reset()
>>> ts.obs.shape, ts.action_mask.shape, set(ts.current_player.tolist()) <= {0, 1}
((8, 502), (8, 120), True)
>>> rng = np.random.default_rng(0)
>>> deals_ended, zero_sum = 0, True
>>> for _ in range(200):
...     ts = venv.step([rng.choice(np.flatnonzero(m)) for m in ts.action_mask])
...     deals_ended += int(ts.terminated.sum())
...     zero_sum &= bool((ts.rewards.sum(axis=1) == 0).all())
>>> deals_ended > 0, zero_sum
(True, True)
"""

from __future__ import annotations

from .vector import (TwoPlayerStep, TwoPlayerVectorEnv, VectorTwoPlayer,  # noqa: F401
                     _deal_from_state, exercise)

__all__ = ["VectorTwoPlayer", "TwoPlayerStep", "TwoPlayerVectorEnv", "warmup"]


#: its place in ``coinche-rl warmup`` (:mod:`coinche_rl.cli.warmup`): after the
#: environment's kernels, which its kernels call (in their chain)
WARMUP_AFTER = ("coinche_rl.envs.encoder_two",)


def warmup() -> None:
    """Compile the vector kernels (cached on disk) with two-player games."""
    exercise("belote_a_deux", "two")
