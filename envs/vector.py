"""Vectorized environments in numba (``coinche_rl.envs.vector``).

Two views of ``N`` games held as one ``int64[N, STATE_SIZE]`` array of engine states
(state-first, as in pgx: the array *is* the environment; copy it to save or branch):

* :class:`VectorCoinche`: every seat is driven by the caller. ``step(actions)`` applies
  one action in each game (to the seat to act) and returns a :class:`VectorStep` of
  arrays: ``obs [N, D]`` (the observation of the seat to act next, **identical** to what
  ``coinche_v0`` gives that agent), ``action_mask [N, A]``, ``current_player [N]``,
  ``rewards [N, 4]`` (per seat, nonzero on the step that ends a deal), ``terminated
  [N]`` and ``final_scores [N, 2]``. A finished deal is replaced at once by a new random
  deal of that game's own seeded stream (*same-step* autoreset): the observation after a
  terminal step is already the new deal's.
* :class:`CoincheVectorEnv`: a ``gymnasium.vector.VectorEnv`` with one learning seat;
  the other seats are played by uniformly random legal actions inside the numba loop
  (default, ``opponents="random"``), by an agent named by its spec (``"heuristic"``,
  ``"heuristic:aggression=10"``, ``"nn"``: a batched policy of the agents layer), or by
  a batched policy you give (``opponents(public_states, params, seats) -> actions``),
  which sees only the public state of the seat it plays
  (``coinche_rl.engine.public_view``).

  The env does not import ``coinche_rl.agents`` (envs sit below agents): a spec other
  than ``"random"`` is resolved by the plugin of the entry point group
  ``coinche_rl.vector_opponents`` (``factory(spec, rules) -> batched policy``;
  coinche-rl declares ``coinche_rl.agents.env_plugins:vector_opponent``, which builds
  the numba bots from their registry spec and the ``nn`` agent from its
  ``batch_policy``; see :mod:`coinche_rl.envs`). A spec with no batched form (``pimc``)
  raises a ``ValueError`` naming those that have one.

Deal mode only (one deal per episode, like ``coinche_v0``'s default); rewards are the
team score difference of the deal (``reward="difference"``, zero-sum) or the team's
raw score (``"raw"``), divided by ``coinche_v0.REWARD_SCALE`` (162, the card points of
a deal) with ``normalize_reward=True``, as in the AEC env. An illegal action raises
:class:`coinche_rl.game.IllegalActionError` naming the game, the action and the legal
ones, before any game is changed.

The arrays returned by ``step`` are buffers reused by the next call (no allocation in
the loop); copy what you keep.

>>> import numpy as np
>>> venv = VectorCoinche(8, rules="ffb", seed=0)
>>> ts = venv.reset()
>>> ts.obs.shape, ts.action_mask.shape
((8, 620), (8, 120))
>>> rng = np.random.default_rng(0)
>>> for _ in range(200):
...     acts = np.array([rng.choice(np.flatnonzero(m)) for m in ts.action_mask])
...     ts = venv.step(acts)
>>> bool((ts.rewards.sum(axis=1) == 0).all())       # zero-sum, every step
True
"""

from __future__ import annotations

from typing import Optional, Union

import numpy as np

from .. import engine as E
from ..actions import N_ACTIONS
from ..game import Deal
from ..cards import N_CARDS
from ..rules import N_SEATS, RuleSet, four_player_rules
from . import VECTOR_OPPONENTS_GROUP, resolve_plugin
from . import kernels as K
from . import observation as O
from .aec_base import REWARD_SCALE  # noqa: F401  (the vector envs' scale)
from .vector_base import (Batch, BatchPolicy, BatchStep, CallerVector, LearnerVectorEnv,
                          exercise, first_legal_policy)

__all__ = ["VectorCoinche", "VectorStep", "CoincheVectorEnv", "warmup"]


class VectorStep(BatchStep):
    """Arrays of one :class:`VectorCoinche` step (buffers reused by the next step):
    ``rewards`` float64 [N, 4] per seat, ``final_scores`` int64 [N, 2] per team."""


class _Batch(Batch):
    """The four-player games: engine states, kernels of :mod:`.kernels`."""

    K = K
    O = O
    RULES_OF = staticmethod(four_player_rules)
    ENCODER = K.ObservationEncoder
    STATE_SIZE = E.STATE_SIZE
    WHO = "seat"
    NAME = "the vector environment"

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        n = self.num_envs
        self.masks = np.zeros((n, N_ACTIONS), dtype=np.int8)
        self._hands = np.zeros(N_SEATS, dtype=np.int64)
        self._deck = np.zeros(N_CARDS, dtype=np.int64)
        self._voids = np.zeros(N_SEATS, dtype=np.int64)
        self._ceil = np.zeros((N_SEATS, 4), dtype=np.int64)
        self._buf = np.zeros(N_ACTIONS, dtype=np.uint8)
        self._active = np.ones(n, dtype=np.bool_)

    def _load_deal(self, i, given, dealer):
        # four hands, or 32 cards in dealing order in the classic family
        if isinstance(given, str) or len(given) != N_SEATS:
            deal = Deal(self.rules, deck=given, dealer=dealer)
        else:
            deal = Deal(self.rules, hands=list(given), dealer=dealer)
        self.states[i] = deal.state

    def _new_deal(self, i, dealer):
        K.new_deal(self.states[i], self.params, self.rngs[i:i + 1], dealer, self._hands,
                   self._deck)

    def _first_illegal(self, actions):
        return K.first_illegal(self.states, self.params, actions, self._active)

    def _legal_into(self, i, out):
        E.legal_actions_into(self.states[i], self.params, out)

    def _to_act(self, i):
        return int(E.current_seat(self.states[i]))


class VectorCoinche(CallerVector, _Batch):
    """``num_envs`` games, every seat driven by the caller (see the module docstring).

    :param rules: a preset name or a ``RuleSet``.
    :param dealer: a fixed seat, None (random each deal) or ``"rotate"`` (the next seat
        after each deal, as in a match).
    :param reward: ``"difference"`` (default) or ``"raw"``.
    :param seed: seed of the games' streams (game ``i`` uses sub-stream ``i``).
    :param normalize_reward: divide the rewards by ``coinche_v0.REWARD_SCALE`` (162).
    """

    STEP = VectorStep
    N_PLAYERS = N_SEATS

    def __init__(self, num_envs: int, rules: Union[str, RuleSet] = "ffb", dealer=None,
                 reward: str = "difference", seed: Optional[int] = None,
                 normalize_reward: bool = False):
        super().__init__(num_envs, rules, dealer, reward, seed, normalize_reward)

    def _observe_all(self):
        K.vector_observe(self.states, self.params, self.enc.cpt, self.enc.rules_vec,
                         self.enc._no_match, self.obs, self.masks, self.cur, self._voids,
                         self._ceil)

    def _step_all(self, a, ts):
        K.vector_step(self.states, self.params, a, self.rngs, self.dealer, self.raw,
                      self.enc.cpt, self.enc.rules_vec, self.enc._no_match, self.obs,
                      self.masks, self.cur, ts.rewards, self._term8, ts.final_scores,
                      self._hands, self._deck, self._voids, self._ceil)

    def deal(self, i: int) -> Deal:
        """Game ``i`` as a :class:`~coinche_rl.game.Deal` (a copy of its state)."""
        return Deal.from_state(self.rules, self.states[i].copy())


class CoincheVectorEnv(LearnerVectorEnv):
    """A ``gymnasium.vector.VectorEnv`` of ``num_envs`` games with one learning seat
    (see the module docstring).

    * ``single_observation_space``: ``Box(0, observation.HIGH, (620,), float32)``;
      ``single_action_space``: ``Discrete(120)``; batched spaces over ``num_envs``.
    * ``reset`` / ``step`` return ``infos["action_mask"]`` (int8 [N, 120]); autoreset
      mode ``SAME_STEP``: when a deal ends, ``terminations[i]`` is True, the reward is
      the learner's, ``infos["final_obs"][i]`` is the learner's observation of the
      finished deal (``infos["_final_obs"]`` marks which), and the returned observation
      is already the next deal's. ``truncations`` is always False.
    * ``action_masks()``: the legal masks as bool [N, 120] (sb3-contrib convention).
    * Returned arrays are copies (``copy=False`` returns the reused buffers instead).

    :param seat: the learner's seat.
    :param opponents: ``"random"`` (default, inside numba), an agent spec with a batched
        form (``"heuristic"``, ``"heuristic:aggression=10"``, ``"nn"``, ...; resolved
        through the ``coinche_rl.vector_opponents`` entry point) or a batched policy
        ``f(public_states, params, seats) -> actions`` for the other seats. The resolved
        policy is :attr:`opponent_policy` (None for ``"random"``).
    :param pass_prob: random opponents pass with this probability in the auction and
        choose uniformly among the other legal actions otherwise (None: uniform over
        every legal action).
    :param normalize_reward: divide the rewards by ``coinche_v0.REWARD_SCALE`` (162).
    """

    def __init__(self, num_envs: int, seat: int = 0, rules: Union[str, RuleSet] = "ffb",
                 opponents: Union[str, BatchPolicy] = "random",
                 pass_prob: Optional[float] = None, dealer=None, reward: str = "difference",
                 seed: Optional[int] = None, copy: bool = True,
                 normalize_reward: bool = False):
        self._check_seat(seat, N_SEATS, "0..3")
        if not (isinstance(opponents, str) or callable(opponents)):
            raise ValueError(f"opponents must be 'random', an agent spec string such as "
                             f"'heuristic' or 'nn', or a callable f(public_states, params, "
                             f"seats) -> actions, not {opponents!r}")
        if pass_prob is not None and not 0.0 <= float(pass_prob) <= 1.0:
            raise ValueError(f"pass_prob must be in [0, 1] or None, not {pass_prob!r}")
        b = _Batch(num_envs, rules, dealer, reward, seed, normalize_reward)
        self._setup(b, seat, copy)
        self.opponents = opponents
        if callable(opponents):
            self.opponent_policy = opponents
        elif opponents.strip() != "random":
            self.opponent_policy = resolve_plugin(VECTOR_OPPONENTS_GROUP,
                                                  f"opponents={opponents!r}", opponents, b.rules)
        self.pass_prob = -1.0 if pass_prob is None else float(pass_prob)

    def _learner_settle(self, use_random):
        b = self._b
        return K.learner_settle(
            b.states, b.params, self.seat, b.rngs, b.dealer, b.raw, use_random,
            self.pass_prob, b.enc.cpt, b.enc.rules_vec, b.enc._no_match, b.obs,
            self._final_obs, b.masks, self._rewards, self._term8, b._hands, b._deck,
            b._voids, b._ceil, b._buf)

    def _illegal_opponent(self, action, game):
        return (f"opponents policy {self.opponents!r} chose the illegal action {action} "
                f"in game {game}")


def warmup() -> None:
    """Compile the vector kernels (cached on disk): a few steps of both envs."""
    exercise(VectorCoinche, CoincheVectorEnv,
             {"opponents": first_legal_policy(E.legal_actions_into)})
