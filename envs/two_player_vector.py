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

The arrays returned by ``step`` are buffers reused by the next call (no allocation in
the loop); copy what you keep.

>>> import numpy as np
>>> venv = VectorTwoPlayer(8, rules="belote_a_deux", seed=0)
>>> ts = venv.reset()
>>> ts.obs.shape, ts.action_mask.shape
((8, 502), (8, 120))
>>> rng = np.random.default_rng(0)
>>> for _ in range(200):
...     acts = np.array([rng.choice(np.flatnonzero(m)) for m in ts.action_mask])
...     ts = venv.step(acts)
>>> bool((ts.rewards.sum(axis=1) == 0).all())       # zero-sum, every step
True
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional, Sequence, Union

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv

from .._numba_cache import compile_notice
from ..actions import N_ACTIONS, action_to_str
from ..engine import rng_seed
from ..engine import two as E2
from ..game import IllegalActionError
from ..rules import RuleSet
from ..two_player import TwoPlayerDeal, two_player_rules
from . import two_player_kernels as K
from . import two_player_observation as O
from .coinche_v0 import REWARD_SCALE

__all__ = ["VectorTwoPlayer", "TwoPlayerStep", "TwoPlayerVectorEnv", "warmup"]

#: ``opponent(public_states int64[k, TWO_STATE_SIZE], params, players int64[k]) -> int64[k]``
BatchPolicy = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


@dataclass
class TwoPlayerStep:
    """Arrays of one :class:`VectorTwoPlayer` step (buffers reused by the next step)."""

    #: float32 [N, OBSERVATION_SIZE]: observation of the player to act
    obs: np.ndarray
    #: int8 [N, N_ACTIONS]: his legal actions
    action_mask: np.ndarray
    #: int64 [N]: the player to act
    current_player: np.ndarray
    #: float64 [N, 2]: reward of each player (nonzero when a deal ended on this step)
    rewards: np.ndarray
    #: bool [N]: a deal ended on this step (and a new one began)
    terminated: np.ndarray
    #: int64 [N, 2]: the scores of the deal that ended (where ``terminated``)
    final_scores: np.ndarray


def _dealer_code(dealer) -> int:
    if dealer is None:
        return -1
    if dealer == "alternate":
        return -2
    if isinstance(dealer, bool) or dealer not in (0, 1):
        raise ValueError(f"dealer must be a player 0 or 1, None (random) or 'alternate', "
                         f"not {dealer!r}")
    return int(dealer)


class _Batch:
    """Buffers and tables shared by both vector envs."""

    def __init__(self, num_envs: int, rules, dealer, reward: str, seed: Optional[int],
                 normalize_reward: bool = False):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, not {num_envs!r}")
        if reward not in ("difference", "raw"):
            raise ValueError(f"reward must be 'difference' or 'raw', not {reward!r}")
        if not isinstance(normalize_reward, (bool, np.bool_)):
            raise ValueError(f"normalize_reward must be True or False, not {normalize_reward!r}")
        self.num_envs = n = int(num_envs)
        self.rules: RuleSet = two_player_rules(rules)
        compile_notice("the two-player vector environment", (K.vector_step, K.learner_settle),
                       "about 20-40 s")
        self.enc = K.TwoPlayerEncoder(self.rules)
        self.params = self.enc.params
        self.match = self.enc.no_match
        self.dealer = _dealer_code(dealer)
        self.raw = reward == "raw"
        #: what the rewards are divided by (``coinche_v0.REWARD_SCALE`` when normalised)
        self.reward_scale = REWARD_SCALE if normalize_reward else 1.0
        self.seed = seed
        self.states = np.zeros((n, E2.TWO_STATE_SIZE), dtype=np.int64)
        self.rngs = np.zeros(n, dtype=np.uint64)
        self.obs = np.zeros((n, O.OBSERVATION_SIZE), dtype=np.float32)
        self.masks8 = np.zeros((n, N_ACTIONS), dtype=np.uint8)
        #: the masks as int8 (a view of the same buffer)
        self.masks = self.masks8.view(np.int8)
        self.cur = np.zeros(n, dtype=np.int64)
        self._deck = np.zeros(32, dtype=np.int64)
        self._V = np.zeros(E2.TWO_STATE_SIZE, dtype=np.int64)

    def reset_states(self, seed: Optional[int], options: Optional[dict]) -> None:
        """Seed every game's stream (game ``i`` uses sub-stream ``i`` of ``seed``) and
        deal, or load ``options["deals"]`` (one per game: 32 cards in dealing order) with
        ``options["dealers"]``."""
        if seed is not None:
            self.seed = int(seed)
        if self.seed is None:
            self.seed = int(np.random.SeedSequence().generate_state(1, dtype=np.uint64)[0] >> 1)
        one = np.zeros(1, dtype=np.uint64)
        for i in range(self.num_envs):
            rng_seed(one, self.seed, i)
            self.rngs[i] = one[0]
        options = options or {}
        unknown = set(options) - {"deals", "dealers"}
        if unknown:
            raise ValueError(f"unknown reset option(s) {sorted(unknown)}; known: 'deals', 'dealers'")
        deals = options.get("deals")
        dealers = options.get("dealers")
        if dealers is not None and len(dealers) != self.num_envs:
            raise ValueError(f"options['dealers'] needs {self.num_envs} players, got {len(dealers)}")
        if deals is not None:
            if len(deals) != self.num_envs:
                raise ValueError(f"options['deals'] needs {self.num_envs} deals, got {len(deals)}")
            for i, given in enumerate(deals):
                d = 0 if dealers is None else int(dealers[i])
                self.states[i] = TwoPlayerDeal(self.rules, deck=given, dealer=d).state
            return
        for i in range(self.num_envs):
            d = self.dealer if dealers is None else _dealer_code(int(dealers[i]))
            K.new_deal(self.states[i], self.params, self.rngs[i:i + 1], max(d, -1), self._deck)

    def check(self, actions) -> np.ndarray:
        a = np.asarray(actions)
        n = self.num_envs
        if a.shape != (n,) or not np.issubdtype(a.dtype, np.integer):
            raise ValueError(f"actions must be an integer array of shape ({n},), got "
                             f"{a.dtype} {a.shape}")
        a = a.astype(np.int64, copy=False)
        bad = K.first_illegal(self.states, self.params, a)
        if bad >= 0:
            legal = np.zeros(N_ACTIONS, dtype=np.uint8)
            E2.two_legal_mask(self.states[bad], self.params, legal)
            names = ", ".join(action_to_str(int(x)) for x in np.flatnonzero(legal))
            what = action_to_str(int(a[bad])) if 0 <= a[bad] < N_ACTIONS else repr(int(a[bad]))
            raise IllegalActionError(
                f"game {bad}: action {int(a[bad])} ({what}) is illegal for player "
                f"{int(self.states[bad, E2.T_CUR])}; legal: {names}. No game was changed.")
        return a


class VectorTwoPlayer(_Batch):
    """``num_envs`` games, both players driven by the caller (see the module docstring).

    :param rules: ``"belote_a_deux"``, ``"belote_decouverte"`` or a two-family ``RuleSet``.
    :param dealer: a fixed player, None (random each deal) or ``"alternate"``.
    :param reward: ``"difference"`` (default) or ``"raw"``.
    :param seed: seed of the games' streams (game ``i`` uses sub-stream ``i``).
    :param normalize_reward: divide the rewards by ``coinche_v0.REWARD_SCALE`` (162).
    """

    def __init__(self, num_envs: int, rules: Union[str, RuleSet] = "belote_a_deux",
                 dealer=None, reward: str = "difference", seed: Optional[int] = None,
                 normalize_reward: bool = False):
        super().__init__(num_envs, rules, dealer, reward, seed, normalize_reward)
        n = self.num_envs
        self._ts = TwoPlayerStep(self.obs, self.masks, self.cur,
                                 np.zeros((n, 2), dtype=np.float64), np.zeros(n, dtype=np.bool_),
                                 np.zeros((n, 2), dtype=np.int64))
        self._term8 = np.zeros(n, dtype=np.uint8)

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None) -> TwoPlayerStep:
        """New deals in every game (``options``: ``"deals"``, ``"dealers"``, one per
        game); returns the first :class:`TwoPlayerStep` (zero rewards)."""
        self.reset_states(seed, options)
        self._ts.rewards[:] = 0.0
        self._ts.terminated[:] = False
        self._ts.final_scores[:] = 0
        K.vector_observe(self.states, self.params, self.match, self.obs, self.masks8,
                         self.cur, self._V)
        return self._ts

    def step(self, actions: Sequence[int]) -> TwoPlayerStep:
        """Apply ``actions[i]`` in game ``i`` (for its player to act)."""
        a = self.check(actions)
        ts = self._ts
        K.vector_step(self.states, self.params, a, self.rngs, self.dealer, self.raw,
                      self.match, self.obs, self.masks8, self.cur, ts.rewards, self._term8,
                      ts.final_scores, self._deck, self._V)
        np.not_equal(self._term8, 0, out=ts.terminated)
        if self.reward_scale != 1.0:
            ts.rewards /= self.reward_scale
        return ts

    def observe(self, player: int) -> np.ndarray:
        """The observations of ``player`` in every game (a new [N, D] array), e.g. for
        the player not to act."""
        out = np.empty((self.num_envs, O.OBSERVATION_SIZE), dtype=np.float32)
        for i in range(self.num_envs):
            self.enc.encode(self.states[i], player, out=out[i])
        return out

    def deal(self, i: int) -> TwoPlayerDeal:
        """Game ``i`` as a :class:`~coinche_rl.two_player.TwoPlayerDeal` (a copy of its
        state; its history is not kept)."""
        return _deal_from_state(self.rules, self.states[i])


def _deal_from_state(rules: RuleSet, T: np.ndarray) -> TwoPlayerDeal:
    return TwoPlayerDeal.from_state(rules, T)


class TwoPlayerVectorEnv(VectorEnv):
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

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, num_envs: int, seat: int = 0, rules: Union[str, RuleSet] = "belote_a_deux",
                 opponent: Union[str, BatchPolicy] = "random", dealer=None,
                 reward: str = "difference", seed: Optional[int] = None, copy: bool = True,
                 normalize_reward: bool = False):
        if isinstance(seat, bool) or seat not in (0, 1):
            raise ValueError(f"seat must be 0 or 1, not {seat!r}")
        if isinstance(opponent, str):
            if opponent.strip() != "random":
                raise ValueError(f"opponent {opponent!r}: no agent of coinche_rl.agents plays "
                                 f"belote for two players yet; give 'random' or a batched "
                                 f"policy f(public_states, params, players) -> actions")
        elif not callable(opponent):
            raise ValueError(f"opponent must be 'random' or a callable f(public_states, "
                             f"params, players) -> actions, not {opponent!r}")
        self._b = b = _Batch(num_envs, rules, dealer, reward, seed, normalize_reward)
        self.seat = int(seat)
        self.copy = bool(copy)
        self.opponent = opponent
        #: the batched policy of the other player (None: random inside numba)
        self.opponent_policy: Optional[BatchPolicy] = None if isinstance(opponent, str) else opponent
        self.num_envs = n = b.num_envs
        self.single_observation_space = spaces.Box(0.0, O.HIGH, (O.OBSERVATION_SIZE,),
                                                   dtype=np.float32)
        self.single_action_space = spaces.Discrete(N_ACTIONS)
        self.observation_space = gymnasium.vector.utils.batch_space(
            self.single_observation_space, n)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, n)
        self._rewards = np.zeros(n, dtype=np.float64)
        self._term8 = np.zeros(n, dtype=np.uint8)
        self._final_obs = np.zeros((n, O.OBSERVATION_SIZE), dtype=np.float32)
        self._idx = np.zeros(n, dtype=np.int64)
        self._pub = np.zeros((n, E2.TWO_STATE_SIZE), dtype=np.int64)
        self._seats = np.zeros(n, dtype=np.int64)
        self._truncated = np.zeros(n, dtype=np.bool_)
        self._all = np.arange(n, dtype=np.int64)

    @property
    def states(self) -> np.ndarray:
        """The engine states of the games ([N, TWO_STATE_SIZE], live)."""
        return self._b.states

    @property
    def rules(self) -> RuleSet:
        return self._b.rules

    def _settle(self) -> None:
        b = self._b
        use_random = self.opponent_policy is None
        while True:
            if not use_random:
                while True:
                    k = K.others_to_act(b.states, self.seat, self._idx)
                    if k == 0:
                        break
                    K.public_states_of(b.states, b.params, self._idx, k, self._pub, self._seats)
                    acts = np.asarray(self.opponent_policy(self._pub[:k], b.params,
                                                           self._seats[:k]), dtype=np.int64)
                    if acts.shape != (k,):
                        raise ValueError(f"opponent returned shape {acts.shape}, expected ({k},)")
                    bad = K.first_illegal_at(b.states, b.params, self._idx, k, acts)
                    if bad >= 0:
                        raise IllegalActionError(
                            f"the opponent policy chose the illegal action {int(acts[bad])} "
                            f"in game {int(self._idx[bad])}")
                    K.apply_at(b.states, b.params, self._idx, k, acts)
            waiting = K.learner_settle(
                b.states, b.params, self.seat, b.rngs, b.dealer, b.raw, use_random, b.match,
                b.obs, self._final_obs, b.masks8, self._rewards, self._term8, b._deck, b._V)
            if waiting == 0:
                return

    def _c(self, a):
        return a.copy() if self.copy else a

    def _infos(self, final: bool) -> dict:
        infos = {"action_mask": self._c(self._b.masks)}
        if final:
            done = self._term8 != 0
            if done.any():
                infos["final_obs"] = self._c(self._final_obs)
                infos["_final_obs"] = done
        return infos

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        self._b.reset_states(seed, options)
        self._rewards[:] = 0.0
        self._term8[:] = 0
        self._settle()
        self._term8[:] = 0
        self._rewards[:] = 0.0
        return self._c(self._b.obs), self._infos(False)

    def step(self, actions):
        b = self._b
        a = b.check(actions)
        K.apply_at(b.states, b.params, self._all, self.num_envs, a)
        self._rewards[:] = 0.0
        self._term8[:] = 0
        self._settle()
        if b.reward_scale != 1.0:
            self._rewards /= b.reward_scale
        return (self._c(b.obs), self._rewards.copy(), self._term8 != 0,
                self._truncated.copy(), self._infos(True))

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every game, bool [N, 120]."""
        return self._b.masks.astype(bool)

    def close_extras(self, **kwargs):
        """Nothing to release."""


def warmup() -> None:
    """Compile the vector kernels (cached on disk): a few steps of both envs."""
    venv = VectorTwoPlayer(2, seed=0)
    ts = venv.reset()
    for _ in range(3):
        ts = venv.step(ts.action_mask.argmax(axis=1))
    env = TwoPlayerVectorEnv(2, seed=0)
    env.reset()
    env.step(env.action_masks().argmax(axis=1))
    env = TwoPlayerVectorEnv(2, seed=0, opponent=_first_legal)
    env.reset()


def _first_legal(states, params, players):
    out = np.zeros(len(states), dtype=np.int64)
    mask = np.zeros(N_ACTIONS, dtype=np.uint8)
    for j, V in enumerate(states):
        E2.two_legal_mask(V, params, mask)
        out[j] = int(np.flatnonzero(mask)[0])
    return out
