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

from dataclasses import dataclass
from typing import Callable, Optional, Sequence, Union

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv

from .. import engine as E
from .._numba_cache import compile_notice
from ..actions import N_ACTIONS, action_to_str
from ..game import Deal, IllegalActionError
from ..rules import RuleSet, four_player_rules
from . import VECTOR_OPPONENTS_GROUP, resolve_plugin
from . import kernels as K
from . import observation as O
from .coinche_v0 import REWARD_SCALE

__all__ = ["VectorCoinche", "VectorStep", "CoincheVectorEnv", "warmup"]

#: ``opponents(public_states int64[k, STATE_SIZE], params, seats int64[k]) -> int64[k]``
BatchPolicy = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


@dataclass
class VectorStep:
    """Arrays of one :class:`VectorCoinche` step (buffers reused by the next step)."""

    #: float32 [N, OBSERVATION_SIZE]: observation of the seat to act
    obs: np.ndarray
    #: int8 [N, N_ACTIONS]: its legal actions
    action_mask: np.ndarray
    #: int64 [N]: the seat to act
    current_player: np.ndarray
    #: float64 [N, 4]: reward of each seat (nonzero when a deal ended on this step)
    rewards: np.ndarray
    #: bool [N]: a deal ended on this step (and a new one began)
    terminated: np.ndarray
    #: int64 [N, 2]: the team scores of the deal that ended (where ``terminated``)
    final_scores: np.ndarray


def _dealer_code(dealer) -> int:
    if dealer is None:
        return -1
    if dealer == "rotate":
        return -2
    if isinstance(dealer, bool) or dealer not in range(4):
        raise ValueError(f"dealer must be a seat 0..3, None (random) or 'rotate', "
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
        self.num_envs = n = int(num_envs)
        self.rules: RuleSet = four_player_rules(rules)
        compile_notice("the vector environment", (K.vector_step, K.learner_settle),
                       "about 20-40 s")
        self.enc = K.ObservationEncoder(self.rules)
        self.params = self.enc.params
        self.dealer = _dealer_code(dealer)
        self.raw = reward == "raw"
        if not isinstance(normalize_reward, (bool, np.bool_)):
            raise ValueError(f"normalize_reward must be True or False, not {normalize_reward!r}")
        #: what the rewards are divided by (``coinche_v0.REWARD_SCALE`` when normalised)
        self.reward_scale = REWARD_SCALE if normalize_reward else 1.0
        self.seed = seed
        self.states = np.zeros((n, E.STATE_SIZE), dtype=np.int64)
        self.rngs = np.zeros(n, dtype=np.uint64)
        self.obs = np.zeros((n, O.OBSERVATION_SIZE), dtype=np.float32)
        self.masks = np.zeros((n, N_ACTIONS), dtype=np.int8)
        self.cur = np.zeros(n, dtype=np.int64)
        self._hands = np.zeros(4, dtype=np.int64)
        self._deck = np.zeros(32, dtype=np.int64)
        self._voids = np.zeros(4, dtype=np.int64)
        self._ceil = np.zeros((4, 4), dtype=np.int64)
        self._buf = np.zeros(N_ACTIONS, dtype=np.uint8)
        self._active = np.ones(n, dtype=np.bool_)

    def reset_states(self, seed: Optional[int], options: Optional[dict]) -> None:
        """Seed every game's stream (game ``i`` uses sub-stream ``i`` of ``seed``) and
        deal, or load ``options["deals"]`` (one per game: four hands, or 32 cards in
        dealing order in the classic family) with ``options["dealers"]``."""
        if seed is not None:
            self.seed = int(seed)
        if self.seed is None:
            self.seed = int(np.random.SeedSequence().generate_state(1, dtype=np.uint64)[0] >> 1)
        one = np.zeros(1, dtype=np.uint64)
        for i in range(self.num_envs):
            E.rng_seed(one, self.seed, i)
            self.rngs[i] = one[0]
        options = options or {}
        unknown = set(options) - {"deals", "dealers"}
        if unknown:
            raise ValueError(f"unknown reset option(s) {sorted(unknown)}; known: 'deals', 'dealers'")
        deals = options.get("deals")
        dealers = options.get("dealers")
        if dealers is not None and len(dealers) != self.num_envs:
            raise ValueError(f"options['dealers'] needs {self.num_envs} seats, got {len(dealers)}")
        if deals is not None:
            if len(deals) != self.num_envs:
                raise ValueError(f"options['deals'] needs {self.num_envs} deals, got {len(deals)}")
            for i, given in enumerate(deals):
                d = 0 if dealers is None else int(dealers[i])
                if isinstance(given, str) or len(given) != 4:
                    deal = Deal(self.rules, deck=given, dealer=d)
                else:
                    deal = Deal(self.rules, hands=list(given), dealer=d)
                self.states[i] = deal.state
            return
        for i in range(self.num_envs):
            rng = self.rngs[i:i + 1]
            # the first deal's dealer: the given or fixed seat, else drawn (rotate too)
            d = self.dealer if dealers is None else _dealer_code(int(dealers[i]))
            K.new_deal(self.states[i], self.params, rng, max(d, -1), self._hands, self._deck)

    def check(self, actions, idx=None) -> np.ndarray:
        a = np.asarray(actions)
        n = self.num_envs if idx is None else len(idx)
        if a.shape != (n,) or not np.issubdtype(a.dtype, np.integer):
            raise ValueError(f"actions must be an integer array of shape ({n},), got "
                             f"{a.dtype} {a.shape}")
        a = a.astype(np.int64, copy=False)
        bad = K.first_illegal(self.states, self.params, a, self._active)
        if bad >= 0:
            legal = np.zeros(N_ACTIONS, dtype=np.uint8)
            E.legal_actions_into(self.states[bad], self.params, legal)
            names = ", ".join(action_to_str(int(x)) for x in np.flatnonzero(legal))
            what = action_to_str(int(a[bad])) if 0 <= a[bad] < N_ACTIONS else repr(int(a[bad]))
            raise IllegalActionError(
                f"game {bad}: action {int(a[bad])} ({what}) is illegal for seat "
                f"{int(E.current_seat(self.states[bad]))}; legal: {names}. No game was changed.")
        return a


class VectorCoinche(_Batch):
    """``num_envs`` games, every seat driven by the caller (see the module docstring).

    :param rules: a preset name or a ``RuleSet``.
    :param dealer: a fixed seat, None (random each deal) or ``"rotate"`` (the next seat
        after each deal, as in a match).
    :param reward: ``"difference"`` (default) or ``"raw"``.
    :param seed: seed of the games' streams (game ``i`` uses sub-stream ``i``).
    :param normalize_reward: divide the rewards by ``coinche_v0.REWARD_SCALE`` (162).
    """

    def __init__(self, num_envs: int, rules: Union[str, RuleSet] = "ffb", dealer=None,
                 reward: str = "difference", seed: Optional[int] = None,
                 normalize_reward: bool = False):
        super().__init__(num_envs, rules, dealer, reward, seed, normalize_reward)
        n = self.num_envs
        self._ts = VectorStep(self.obs, self.masks, self.cur,
                              np.zeros((n, 4), dtype=np.float64), np.zeros(n, dtype=np.bool_),
                              np.zeros((n, 2), dtype=np.int64))
        self._term8 = np.zeros(n, dtype=np.uint8)

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None) -> VectorStep:
        """New deals in every game (``options``: ``"deals"``, ``"dealers"``, one per
        game); returns the first :class:`VectorStep` (zero rewards)."""
        self.reset_states(seed, options)
        self._ts.rewards[:] = 0.0
        self._ts.terminated[:] = False
        self._ts.final_scores[:] = 0
        self._observe()
        return self._ts

    def _observe(self):
        K.vector_observe(self.states, self.params, self.enc.cpt, self.enc.rules_vec,
                         self.enc._no_match, self.obs, self.masks, self.cur, self._voids,
                         self._ceil)

    def step(self, actions: Sequence[int]) -> VectorStep:
        """Apply ``actions[i]`` in game ``i`` (for its seat to act)."""
        a = self.check(actions)
        ts = self._ts
        K.vector_step(self.states, self.params, a, self.rngs, self.dealer, self.raw,
                      self.enc.cpt, self.enc.rules_vec, self.enc._no_match, self.obs,
                      self.masks, self.cur, ts.rewards, self._term8, ts.final_scores,
                      self._hands, self._deck, self._voids, self._ceil)
        np.not_equal(self._term8, 0, out=ts.terminated)
        if self.reward_scale != 1.0:
            ts.rewards /= self.reward_scale
        return ts

    def observe(self, seat: int) -> np.ndarray:
        """The observations of ``seat`` in every game (a new [N, D] array), e.g. for the
        seats not to act."""
        out = np.empty((self.num_envs, O.OBSERVATION_SIZE), dtype=np.float32)
        for i in range(self.num_envs):
            self.enc.encode(self.states[i], seat, out=out[i])
        return out

    def deal(self, i: int) -> Deal:
        """Game ``i`` as a :class:`~coinche_rl.game.Deal` (a copy of its state)."""
        return Deal.from_state(self.rules, self.states[i].copy())


class CoincheVectorEnv(VectorEnv):
    """A ``gymnasium.vector.VectorEnv`` of ``num_envs`` games with one learning seat
    (see the module docstring).

    * ``single_observation_space``: ``Box(0, observation.HIGH, (620,), float32)``;
      ``single_action_space``: ``Discrete(118)``; batched spaces over ``num_envs``.
    * ``reset`` / ``step`` return ``infos["action_mask"]`` (int8 [N, 118]); autoreset
      mode ``SAME_STEP``: when a deal ends, ``terminations[i]`` is True, the reward is
      the learner's, ``infos["final_obs"][i]`` is the learner's observation of the
      finished deal (``infos["_final_obs"]`` marks which), and the returned observation
      is already the next deal's. ``truncations`` is always False.
    * ``action_masks()``: the legal masks as bool [N, 118] (sb3-contrib convention).
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

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, num_envs: int, seat: int = 0, rules: Union[str, RuleSet] = "ffb",
                 opponents: Union[str, BatchPolicy] = "random",
                 pass_prob: Optional[float] = None, dealer=None, reward: str = "difference",
                 seed: Optional[int] = None, copy: bool = True,
                 normalize_reward: bool = False):
        if isinstance(seat, bool) or seat not in range(4):
            raise ValueError(f"seat must be 0..3, not {seat!r}")
        if not (isinstance(opponents, str) or callable(opponents)):
            raise ValueError(f"opponents must be 'random', an agent spec string such as "
                             f"'heuristic' or 'nn', or a callable f(public_states, params, "
                             f"seats) -> actions, not {opponents!r}")
        if pass_prob is not None and not 0.0 <= float(pass_prob) <= 1.0:
            raise ValueError(f"pass_prob must be in [0, 1] or None, not {pass_prob!r}")
        self._b = b = _Batch(num_envs, rules, dealer, reward, seed, normalize_reward)
        self.seat = int(seat)
        self.copy = bool(copy)
        self.opponents = opponents
        #: the batched policy of the other seats (None: random inside numba)
        self.opponent_policy: Optional[BatchPolicy] = None
        if callable(opponents):
            self.opponent_policy = opponents
        elif opponents.strip() != "random":
            self.opponent_policy = resolve_plugin(VECTOR_OPPONENTS_GROUP,
                                                  f"opponents={opponents!r}", opponents, b.rules)
        self.pass_prob = -1.0 if pass_prob is None else float(pass_prob)
        self.num_envs = b.num_envs
        self.single_observation_space = spaces.Box(0.0, O.HIGH, (O.OBSERVATION_SIZE,),
                                                   dtype=np.float32)
        self.single_action_space = spaces.Discrete(N_ACTIONS)
        self.observation_space = gymnasium.vector.utils.batch_space(
            self.single_observation_space, self.num_envs)
        self.action_space = gymnasium.vector.utils.batch_space(
            self.single_action_space, self.num_envs)
        n = self.num_envs
        self._rewards = np.zeros(n, dtype=np.float64)
        self._term8 = np.zeros(n, dtype=np.uint8)
        self._final_obs = np.zeros((n, O.OBSERVATION_SIZE), dtype=np.float32)
        self._idx = np.zeros(n, dtype=np.int64)
        self._pub = np.zeros((n, E.STATE_SIZE), dtype=np.int64)
        self._seats = np.zeros(n, dtype=np.int64)
        self._truncated = np.zeros(n, dtype=np.bool_)
        self._all = np.arange(n, dtype=np.int64)

    @property
    def states(self) -> np.ndarray:
        """The engine states of the games ([N, STATE_SIZE], live)."""
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
                        raise ValueError(f"opponents returned shape {acts.shape}, expected ({k},)")
                    bad = K.first_illegal_at(b.states, b.params, self._idx, k, acts)
                    if bad >= 0:
                        raise IllegalActionError(
                            f"opponents policy {self.opponents!r} chose the illegal action "
                            f"{int(acts[bad])} in game {int(self._idx[bad])}")
                    K.apply_at(b.states, b.params, self._idx, k, acts)
            waiting = K.learner_settle(
                b.states, b.params, self.seat, b.rngs, b.dealer, b.raw, use_random,
                self.pass_prob, b.enc.cpt, b.enc.rules_vec, b.enc._no_match, b.obs,
                self._final_obs, b.masks, self._rewards, self._term8, b._hands, b._deck,
                b._voids, b._ceil, b._buf)
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
        """The learner's legal actions in every game, bool [N, 118]."""
        return self._b.masks.astype(bool)

    def close_extras(self, **kwargs):
        """Nothing to release."""


def warmup() -> None:
    """Compile the vector kernels (cached on disk): a few steps of both envs."""
    venv = VectorCoinche(2, seed=0)
    ts = venv.reset()
    for _ in range(3):
        ts = venv.step(ts.action_mask.argmax(axis=1))
    env = CoincheVectorEnv(2, seed=0)
    env.reset()
    env.step(env.action_masks().argmax(axis=1))
    env = CoincheVectorEnv(2, seed=0, opponents=lambda S, P, seats: _first_legal(S, P))
    env.reset()


def _first_legal(states, params):
    out = np.zeros(len(states), dtype=np.int64)
    mask = np.zeros(N_ACTIONS, dtype=np.uint8)
    for j, S in enumerate(states):
        E.legal_actions_into(S, params, mask)
        out[j] = int(np.flatnonzero(mask)[0])
    return out
