"""Vectorized environments of belote for two players, in numba
(``coinche_rl.envs.two_player_vector``), with the API of :mod:`coinche_rl.envs.vector`.

Two views of ``N`` games held as one ``int64[N, TWO_STATE_SIZE]`` array of engine states
(:mod:`coinche_rl.engine.two`; the array *is* the environment: copy it to save or
branch):

* :class:`VectorTwoPlayer`: both players driven by the caller. ``step(actions)`` applies
  one action in each game (for the player to act) and returns a :class:`TwoPlayerStep` of
  arrays: ``obs [N, D]`` (the observation of the player to act next, **identical** to
  what ``two_player_v0`` gives that agent), ``action_mask [N, A]``, ``current_player
  [N]``, ``rewards [N, 2]`` (per player, nonzero on the step that ends a deal),
  ``terminated [N]`` and ``final_scores [N, 2]``. A finished deal is replaced at once by
  a new random deal of that game's own seeded stream (*same-step* autoreset): the
  observation after a terminal step is already the new deal's. A void deal (both passed
  twice) ends too, with zero rewards.
* :class:`TwoPlayerVectorEnv`: a ``gymnasium.vector.VectorEnv`` with one learning
  player; the other is played by uniformly random legal actions inside the numba loop
  (default, ``opponent="random"``) or by a batched policy you give
  (``opponent(public_states, params, players) -> actions``), which sees only the public
  view of the player it plays (:func:`coinche_rl.engine.two.two_public_view_into`).

Deal mode only (one deal per episode, like ``two_player_v0``'s default); rewards are the
deal score difference (``reward="difference"``, zero-sum) or the player's raw score
(``"raw"``), divided by ``coinche_v0.REWARD_SCALE`` (162) with
``normalize_reward=True``, as in the AEC env. ``dealer``: a fixed player, None (random
each deal) or ``"alternate"`` (the other player after each deal, as in a match). An
illegal action raises :class:`coinche_rl.game.IllegalActionError` naming the game, the
action and the legal ones, before any game is changed.

As in :mod:`~coinche_rl.envs.vector`, the arrays returned by ``step`` are buffers reused
by the next call; copy what you keep. Random legal play in 8 games of belote découverte:

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

from typing import Optional, Union

import numpy as np

from ..actions import N_ACTIONS
from ..engine import two as E2
from ..rules import RuleSet
from ..two_player import TwoPlayerDeal, two_player_rules
from . import two_player_kernels as K
from . import two_player_observation as O
from .aec_base import REWARD_SCALE  # noqa: F401  (the vector envs' scale)
from .vector_base import (Batch, BatchPolicy, BatchStep, CallerVector, LearnerVectorEnv,
                          exercise, first_legal_policy)

__all__ = ["VectorTwoPlayer", "TwoPlayerStep", "TwoPlayerVectorEnv", "warmup"]


class TwoPlayerStep(BatchStep):
    """Arrays of one :class:`VectorTwoPlayer` step (buffers reused by the next step):
    ``rewards`` float64 [N, 2] and ``final_scores`` int64 [N, 2] per player."""


class _Batch(Batch):
    """The two-player games: engine states ``T``, kernels of :mod:`.two_player_kernels`."""

    K = K
    O = O
    RULES_OF = staticmethod(two_player_rules)
    ENCODER = K.TwoPlayerEncoder
    STATE_SIZE = E2.TWO_STATE_SIZE
    WHO = "player"
    NAME = "the two-player vector environment"
    DEALERS = ((0, 1), "a player 0 or 1")
    NEXT_DEALER = "alternate"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        n = self.num_envs
        self.match = self.enc.no_match
        self.masks8 = np.zeros((n, N_ACTIONS), dtype=np.uint8)
        #: the masks as int8 (a view of the same buffer)
        self.masks = self.masks8.view(np.int8)
        self._deck = np.zeros(32, dtype=np.int64)
        self._V = np.zeros(E2.TWO_STATE_SIZE, dtype=np.int64)

    def _load_deal(self, i, given, dealer):
        # 32 cards in dealing order
        self.states[i] = TwoPlayerDeal(self.rules, deck=given, dealer=dealer).state

    def _new_deal(self, i, dealer):
        K.new_deal(self.states[i], self.params, self.rngs[i:i + 1], dealer, self._deck)

    def _first_illegal(self, actions):
        return K.first_illegal(self.states, self.params, actions)

    def _legal_into(self, i, out):
        E2.two_legal_mask(self.states[i], self.params, out)

    def _to_act(self, i):
        return int(E2.py.current_player(self.states[i]))


class VectorTwoPlayer(CallerVector, _Batch):
    """``num_envs`` games, both players driven by the caller (see the module docstring).

    :param rules: ``"belote_a_deux"``, ``"belote_decouverte"`` or a two-family ``RuleSet``.
    :param dealer: a fixed player, None (random each deal) or ``"alternate"``.
    :param reward: ``"difference"`` (default) or ``"raw"``.
    :param seed: seed of the games' streams (game ``i`` uses sub-stream ``i``).
    :param normalize_reward: divide the rewards by ``coinche_v0.REWARD_SCALE`` (162).
    """

    STEP = TwoPlayerStep
    N_PLAYERS = 2

    def __init__(self, num_envs: int, rules: Union[str, RuleSet] = "belote_a_deux",
                 dealer=None, reward: str = "difference", seed: Optional[int] = None,
                 normalize_reward: bool = False):
        super().__init__(num_envs, rules, dealer, reward, seed, normalize_reward)

    def _observe_all(self):
        K.vector_observe(self.states, self.params, self.match, self.obs, self.masks8,
                         self.cur, self._V)

    def _step_all(self, a, ts):
        K.vector_step(self.states, self.params, a, self.rngs, self.dealer, self.raw,
                      self.match, self.obs, self.masks8, self.cur, ts.rewards, self._term8,
                      ts.final_scores, self._deck, self._V)

    def deal(self, i: int) -> TwoPlayerDeal:
        """Game ``i`` as a :class:`~coinche_rl.two_player.TwoPlayerDeal` (a copy of its
        state; its history is not kept)."""
        return _deal_from_state(self.rules, self.states[i])


def _deal_from_state(rules: RuleSet, T: np.ndarray) -> TwoPlayerDeal:
    return TwoPlayerDeal.from_state(rules, T)


class TwoPlayerVectorEnv(LearnerVectorEnv):
    """A ``gymnasium.vector.VectorEnv`` of ``num_envs`` games with one learning player
    (see the module docstring).

    * ``single_observation_space``: ``Box(0, two_player_observation.HIGH, (502,),
      float32)``; ``single_action_space``: ``Discrete(120)``; batched spaces over
      ``num_envs``.
    * ``reset`` / ``step`` return ``infos["action_mask"]`` (int8 [N, 120]); autoreset
      mode ``SAME_STEP``: when a deal ends, ``terminations[i]`` is True, the reward is
      the learner's, ``infos["final_obs"][i]`` is the learner's observation of the
      finished deal (``infos["_final_obs"]`` marks which), and the returned observation
      is already the next deal's. ``truncations`` is always False.
    * ``action_masks()``: the legal masks as bool [N, 120] (sb3-contrib convention).
    * Returned arrays are copies (``copy=False`` returns the reused buffers instead).

    :param seat: the learner's player, 0 or 1.
    :param opponent: ``"random"`` (default, inside numba) or a batched policy
        ``f(public_states, params, players) -> actions`` for the other player.
    :param normalize_reward: divide the rewards by ``coinche_v0.REWARD_SCALE`` (162).
    """

    OPPONENTS = "opponent"

    def __init__(self, num_envs: int, seat: int = 0, rules: Union[str, RuleSet] = "belote_a_deux",
                 opponent: Union[str, BatchPolicy] = "random", dealer=None,
                 reward: str = "difference", seed: Optional[int] = None, copy: bool = True,
                 normalize_reward: bool = False):
        self._check_seat(seat, 2, "0 or 1")
        if isinstance(opponent, str):
            if opponent.strip() != "random":
                raise ValueError(f"opponent {opponent!r}: no agent of coinche_rl.agents plays "
                                 f"belote for two players yet; give 'random' or a batched "
                                 f"policy f(public_states, params, players) -> actions")
        elif not callable(opponent):
            raise ValueError(f"opponent must be 'random' or a callable f(public_states, "
                             f"params, players) -> actions, not {opponent!r}")
        self._setup(_Batch(num_envs, rules, dealer, reward, seed, normalize_reward), seat, copy)
        self.opponent = opponent
        if not isinstance(opponent, str):
            self.opponent_policy = opponent

    def _learner_settle(self, use_random):
        b = self._b
        return K.learner_settle(
            b.states, b.params, self.seat, b.rngs, b.dealer, b.raw, use_random, b.match,
            b.obs, self._final_obs, b.masks8, self._rewards, self._term8, b._deck, b._V)

    def _illegal_opponent(self, action, game):
        return f"the opponent policy chose the illegal action {action} in game {game}"


def warmup() -> None:
    """Compile the vector kernels (cached on disk): a few steps of both envs."""
    exercise(VectorTwoPlayer, TwoPlayerVectorEnv,
             {"opponent": first_legal_policy(E2.two_legal_mask)})
