"""What the numba vector envs of both families share (``coinche_rl.envs.vector_base``).

:mod:`~coinche_rl.envs.vector` (four players) and
:mod:`~coinche_rl.envs.two_player_vector` (belote for two players) are the same plumbing
over different states and kernels; this module holds the plumbing once:

* :class:`Batch`: the games' buffers, argument checks, seeding and reset options, and the
  legality check of a batch of actions. A family subclass names its rules check, encoder
  and kernel module, and supplies its deals and legality kernels.
* :class:`CallerVector`: every seat driven by the caller (``reset``, ``step``,
  ``observe``), over a :class:`Batch` subclass; a family calls its observe and step
  kernels.
* :class:`LearnerVectorEnv`: the ``gymnasium.vector.VectorEnv`` with one learning seat
  (spaces, opponents' batched policy loop, same-step autoreset, infos); a family calls
  its settle kernel.

The kernel modules of both families have the same names for the batched opponent loop
(``others_to_act``, ``public_states_of``, ``first_illegal_at``, ``apply_at``); a
:class:`Batch` subclass names its module in ``K``.
"""

from __future__ import annotations

import abc
from dataclasses import dataclass
from typing import Callable, Optional, Sequence

import gymnasium
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv

from .._numba_cache import compile_notice
from ..actions import N_ACTIONS, action_to_str
from ..engine import rng_seed
from ..game import IllegalActionError
from ..rules import N_SEATS, RuleSet
from .aec_base import REWARD_SCALE

__all__ = ["BatchPolicy", "BatchStep", "Batch", "CallerVector", "LearnerVectorEnv",
           "first_legal_policy", "exercise"]

#: ``policy(public_states int64[k, state size], params, seats int64[k]) -> int64[k]``
BatchPolicy = Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]


@dataclass
class BatchStep:
    """Arrays of one caller-driven step (buffers reused by the next step)."""

    #: float32 [N, OBSERVATION_SIZE]: observation of the seat to act
    obs: np.ndarray
    #: int8 [N, N_ACTIONS]: its legal actions
    action_mask: np.ndarray
    #: int64 [N]: the seat to act
    current_player: np.ndarray
    #: float64 [N, players]: reward of each seat (nonzero when a deal ended on this step)
    rewards: np.ndarray
    #: bool [N]: a deal ended on this step (and a new one began)
    terminated: np.ndarray
    #: int64 [N, 2]: the scores of the two sides in the deal that ended (where ``terminated``)
    final_scores: np.ndarray


class Batch(abc.ABC):
    """Buffers and tables of ``num_envs`` games, shared by a family's two vector envs.

    A subclass sets ``K`` (its kernel module), ``O`` (its observation module),
    ``RULES_OF`` (``rules`` -> a rule set of the family, raising for another family's),
    ``ENCODER`` (its observation encoder class: ``ENCODER(rules).params`` are the
    kernels'), ``STATE_SIZE``, ``WHO`` (``"seat"`` or ``"player"``), ``NAME`` (for
    the compile notice), ``DEALERS`` (the dealers a game may have, with their words in
    messages) and ``NEXT_DEALER`` (the ``dealer`` that passes the deal on after each
    deal), and implements the hooks below.
    """

    K = None
    O = None
    RULES_OF = None
    ENCODER = None
    STATE_SIZE = 0
    WHO = "seat"
    NAME = "the vector environment"
    DEALERS = (range(N_SEATS), "a seat 0..3")
    NEXT_DEALER = "rotate"

    def __init__(self, num_envs: int, rules, dealer, reward: str, seed: Optional[int],
                 normalize_reward: bool = False):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, not {num_envs!r}")
        if reward not in ("difference", "raw"):
            raise ValueError(f"reward must be 'difference' or 'raw', not {reward!r}")
        if not isinstance(normalize_reward, (bool, np.bool_)):
            raise ValueError(f"normalize_reward must be True or False, not {normalize_reward!r}")
        self.num_envs = n = int(num_envs)
        self.rules: RuleSet = self.RULES_OF(rules)
        compile_notice(self.NAME, (self.K.vector_step, self.K.learner_settle), "about 20-40 s")
        self.enc = self.ENCODER(self.rules)
        self.params = self.enc.params
        self.dealer = self._dealer_code(dealer)
        self.raw = reward == "raw"
        #: what the rewards are divided by (``coinche_v0.REWARD_SCALE`` when normalised)
        self.reward_scale = REWARD_SCALE if normalize_reward else 1.0
        self.seed = seed
        self.states = np.zeros((n, self.STATE_SIZE), dtype=np.int64)
        self.rngs = np.zeros(n, dtype=np.uint64)
        self.obs = np.zeros((n, self.O.OBSERVATION_SIZE), dtype=np.float32)
        self.cur = np.zeros(n, dtype=np.int64)

    def _dealer_code(self, dealer) -> int:
        """``dealer`` as the kernels' code: a seat, -1 random (None), -2 the next seat
        each deal (``NEXT_DEALER``)."""
        if dealer is None:
            return -1
        if dealer == self.NEXT_DEALER:
            return -2
        seats, words = self.DEALERS
        if isinstance(dealer, bool) or dealer not in seats:
            raise ValueError(f"dealer must be {words}, None (random) or "
                             f"{self.NEXT_DEALER!r}, not {dealer!r}")
        return int(dealer)

    # ------------------------------------------------------------ family hooks
    @abc.abstractmethod
    def _load_deal(self, i: int, given, dealer: int) -> None:
        """Put the given deal ``given`` (``options["deals"][i]``) into game ``i``."""

    @abc.abstractmethod
    def _new_deal(self, i: int, dealer: int) -> None:
        """Deal game ``i`` from its stream (``dealer`` -1: drawn)."""

    @abc.abstractmethod
    def _first_illegal(self, actions: np.ndarray) -> int:
        """The first game whose action is illegal, or -1."""

    @abc.abstractmethod
    def _legal_into(self, i: int, out: np.ndarray) -> None:
        """The legal mask of game ``i`` into ``out`` (uint8 [N_ACTIONS], zeros)."""

    @abc.abstractmethod
    def _to_act(self, i: int) -> int:
        """The seat to act in game ``i``."""

    # ------------------------------------------------------------------ shared
    def reset_states(self, seed: Optional[int], options: Optional[dict]) -> None:
        """Seed every game's stream (game ``i`` uses sub-stream ``i`` of ``seed``) and
        deal, or load ``options["deals"]`` (one per game) with ``options["dealers"]``."""
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
            raise ValueError(f"options['dealers'] needs {self.num_envs} {self.WHO}s, "
                             f"got {len(dealers)}")
        if deals is not None:
            if len(deals) != self.num_envs:
                raise ValueError(f"options['deals'] needs {self.num_envs} deals, got {len(deals)}")
            for i, given in enumerate(deals):
                self._load_deal(i, given, 0 if dealers is None else int(dealers[i]))
            return
        for i in range(self.num_envs):
            # the first deal's dealer: the given or fixed seat, else drawn (rotate too)
            d = self.dealer if dealers is None else self._dealer_code(int(dealers[i]))
            self._new_deal(i, max(d, -1))

    def check(self, actions) -> np.ndarray:
        """``actions`` as int64 [N]; raises ``IllegalActionError`` (no game changed) on
        the first illegal one, naming the legal ones."""
        a = np.asarray(actions)
        n = self.num_envs
        if a.shape != (n,) or not np.issubdtype(a.dtype, np.integer):
            raise ValueError(f"actions must be an integer array of shape ({n},), got "
                             f"{a.dtype} {a.shape}")
        a = a.astype(np.int64, copy=False)
        bad = self._first_illegal(a)
        if bad >= 0:
            legal = np.zeros(N_ACTIONS, dtype=np.uint8)
            self._legal_into(bad, legal)
            names = ", ".join(action_to_str(int(x)) for x in np.flatnonzero(legal))
            what = action_to_str(int(a[bad])) if 0 <= a[bad] < N_ACTIONS else repr(int(a[bad]))
            raise IllegalActionError(
                f"game {bad}: action {int(a[bad])} ({what}) is illegal for {self.WHO} "
                f"{self._to_act(bad)}; legal: {names}. No game was changed.")
        return a


class CallerVector(Batch):
    """Every seat driven by the caller: ``reset`` / ``step`` return a ``STEP`` of
    arrays (a :class:`BatchStep` subclass). A family adds ``N_PLAYERS`` and the hooks
    ``_observe_all`` and ``_step_all``."""

    STEP = BatchStep
    N_PLAYERS = N_SEATS

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        n = self.num_envs
        self._ts = self.STEP(self.obs, self.masks, self.cur,
                             np.zeros((n, self.N_PLAYERS), dtype=np.float64),
                             np.zeros(n, dtype=np.bool_), np.zeros((n, 2), dtype=np.int64))
        self._term8 = np.zeros(n, dtype=np.uint8)

    @abc.abstractmethod
    def _observe_all(self) -> None:
        """Observation, mask and seat to act of every game into the buffers."""

    @abc.abstractmethod
    def _step_all(self, actions: np.ndarray, ts: BatchStep) -> None:
        """Apply ``actions`` (legal), autoreset, fill ``ts``'s rewards and final scores,
        ``_term8`` and the buffers."""

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None):
        """New deals in every game (``options``: ``"deals"``, ``"dealers"``, one per
        game); returns the first step's arrays (zero rewards)."""
        self.reset_states(seed, options)
        self._ts.rewards[:] = 0.0
        self._ts.terminated[:] = False
        self._ts.final_scores[:] = 0
        self._observe_all()
        return self._ts

    def step(self, actions: Sequence[int]):
        """Apply ``actions[i]`` in game ``i`` (for its seat to act)."""
        a = self.check(actions)
        ts = self._ts
        self._step_all(a, ts)
        np.not_equal(self._term8, 0, out=ts.terminated)
        if self.reward_scale != 1.0:
            ts.rewards /= self.reward_scale
        return ts

    def observe(self, seat: int) -> np.ndarray:
        """The observations of ``seat`` in every game (a new [N, D] array), e.g. for the
        seats not to act."""
        out = np.empty((self.num_envs, self.O.OBSERVATION_SIZE), dtype=np.float32)
        for i in range(self.num_envs):
            self.enc.encode(self.states[i], seat, out=out[i])
        return out


class LearnerVectorEnv(VectorEnv, abc.ABC):
    """A ``gymnasium.vector.VectorEnv`` of ``num_envs`` games with one learning seat; the
    others are played by random legal actions inside numba or by a batched policy.

    A family subclass checks its arguments, builds its :class:`Batch` and calls
    :meth:`_setup`, sets :attr:`opponent_policy`, and implements :meth:`_learner_settle`
    and :meth:`_illegal_opponent`.
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}
    #: the name of the opponents' argument, in messages
    OPPONENTS = "opponents"

    @staticmethod
    def _check_seat(seat, n_players: int, allowed: str) -> None:
        if isinstance(seat, bool) or seat not in range(n_players):
            raise ValueError(f"seat must be {allowed}, not {seat!r}")

    def _setup(self, batch: Batch, seat: int, copy: bool) -> None:
        """The games, the learner, the spaces and the buffers."""
        self._b = b = batch
        self.seat = int(seat)
        self.copy = bool(copy)
        #: the batched policy of the other seats (None: random inside numba)
        self.opponent_policy: Optional[BatchPolicy] = None
        self.num_envs = n = b.num_envs
        self.single_observation_space = spaces.Box(0.0, b.O.HIGH, (b.O.OBSERVATION_SIZE,),
                                                   dtype=np.float32)
        self.single_action_space = spaces.Discrete(N_ACTIONS)
        self.observation_space = gymnasium.vector.utils.batch_space(
            self.single_observation_space, n)
        self.action_space = gymnasium.vector.utils.batch_space(self.single_action_space, n)
        self._rewards = np.zeros(n, dtype=np.float64)
        self._term8 = np.zeros(n, dtype=np.uint8)
        self._final_obs = np.zeros((n, b.O.OBSERVATION_SIZE), dtype=np.float32)
        self._idx = np.zeros(n, dtype=np.int64)
        self._pub = np.zeros((n, b.STATE_SIZE), dtype=np.int64)
        self._seats = np.zeros(n, dtype=np.int64)
        self._truncated = np.zeros(n, dtype=np.bool_)
        self._all = np.arange(n, dtype=np.int64)

    @property
    def states(self) -> np.ndarray:
        """The engine states of the games ([N, state size], live)."""
        return self._b.states

    @property
    def rules(self) -> RuleSet:
        return self._b.rules

    @abc.abstractmethod
    def _learner_settle(self, use_random: bool) -> int:
        """The family's ``learner_settle`` kernel: random opponents' moves (when
        ``use_random``), deal ends and autoreset, the learner's observations; returns
        how many games wait for the batched opponents."""

    @abc.abstractmethod
    def _illegal_opponent(self, action: int, game: int) -> str:
        """The message of an illegal action of the batched policy."""

    def _settle(self) -> None:
        b = self._b
        K = b.K
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
                        raise ValueError(f"{self.OPPONENTS} returned shape {acts.shape}, "
                                         f"expected ({k},)")
                    bad = K.first_illegal_at(b.states, b.params, self._idx, k, acts)
                    if bad >= 0:
                        raise IllegalActionError(self._illegal_opponent(int(acts[bad]),
                                                                        int(self._idx[bad])))
                    K.apply_at(b.states, b.params, self._idx, k, acts)
            if self._learner_settle(use_random) == 0:
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
        b.K.apply_at(b.states, b.params, self._all, self.num_envs, a)
        self._rewards[:] = 0.0
        self._term8[:] = 0
        self._settle()
        if b.reward_scale != 1.0:
            self._rewards /= b.reward_scale
        return (self._c(b.obs), self._rewards.copy(), self._term8 != 0,
                self._truncated.copy(), self._infos(True))

    def action_masks(self) -> np.ndarray:
        """The learner's legal actions in every game, bool [N, N_ACTIONS]."""
        return self._b.masks.astype(bool)

    def close_extras(self, **kwargs):
        """Nothing to release."""


def first_legal_policy(legal_into) -> BatchPolicy:
    """A batched policy that plays each game's first legal action, by the family's
    ``legal_into(state, params, mask)``."""
    def policy(states, params, seats):
        out = np.zeros(len(states), dtype=np.int64)
        mask = np.zeros(N_ACTIONS, dtype=np.uint8)
        for j, S in enumerate(states):
            legal_into(S, params, mask)
            out[j] = int(np.flatnonzero(mask)[0])
        return out
    return policy


def exercise(caller_cls, learner_cls, policy_kw: dict) -> None:
    """A few steps of a family's two vector envs, the learner's also against a batched
    policy (``policy_kw``, its keyword): compiles their kernels (a ``warmup``)."""
    venv = caller_cls(2, seed=0)
    ts = venv.reset()
    for _ in range(3):
        ts = venv.step(ts.action_mask.argmax(axis=1))
    env = learner_cls(2, seed=0)
    env.reset()
    env.step(env.action_masks().argmax(axis=1))
    env = learner_cls(2, seed=0, **policy_kw)
    env.reset()
