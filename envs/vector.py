"""Vectorized environments in numba, for every family (``coinche_rl.envs.vector``).

Two views of ``N`` games held as one ``int64[N, state size]`` array of engine states
(state-first, as in pgx: the array *is* the environment; copy it to save or branch). The
family comes from the rules (``rules="belote_a_deux"``, or ``family="two"``: belote for
two players) and the kernels
(:mod:`.kernels`) are written once over the engine's family-neutral entry points:

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

With two players the seats are the players, ``rewards`` is [N, 2], the other player is
played by ``opponent``/``opponents`` (``"random"``, an agent spec of the family such
as ``"heuristic"``, or a batched policy ``f(public_views, params, players)``), ``dealer="alternate"`` passes the deal on, and a void deal (both
passed twice) ends too, with zero rewards.

Deal mode (``mode="deal"``, the default: one deal per episode, like ``coinche_v0``'s
default): rewards are the side's score difference of the deal (``reward="difference"``,
zero-sum) or its raw score (``"raw"``), divided by ``coinche_v0.REWARD_SCALE`` (162, the
card points of a deal) with ``normalize_reward=True``, as in the AEC env.

Match mode (``mode="match"``): an episode is a match to the rule set's target, as
``coinche_v0``'s match mode plays it (docs/envs.md): each deal's end gives the rewards
of the change of the match scores (litige pot included), ``terminated`` comes when the
match is won (``final_scores``: its totals, ``winners``: its winner), then a new match
begins at once; each game's match (``match_scores``, ``match_pots``, ``match_seeds``,
``match_dealers``) is in its observations as in the AEC env's. Its bookkeeping is numba
(:func:`.kernels.match_score_deal`, ...), following ``game.Match`` draw for draw: game
``i``'s match deals as ``Match(rules, dealer=match_dealers[i], seed=match_seeds[i])``.
Both envs declare their same-step autoreset in ``metadata["autoreset_mode"]``.

An illegal action raises :class:`coinche_rl.game.IllegalActionError` naming the game,
the action and the legal ones, before any game is changed.

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
>>> VectorCoinche(8, rules="belote_decouverte", seed=0).reset().obs.shape
(8, 502)
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
from ..cards import N_CARDS
from ..engine import game_legal_mask, game_new_deal, game_to_act, rng_seed
from ..engine.two import TWO_STATE_SIZE
from ..game import IllegalActionError
from ..rules import N_SEATS, RuleSet
from . import VECTOR_OPPONENTS_GROUP, resolve_plugin
from . import kernels as K
from .family import REWARD_SCALE, EnvFamily, env_family

__all__ = ["VectorCoinche", "VectorStep", "CoincheVectorEnv", "BatchPolicy", "first_legal_policy",
           "warmup"]

#: ``policy(public_states int64[k, state size], params, seats int64[k]) -> int64[k]``
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
    #: float64 [N, players]: reward of each seat (nonzero when a deal ended on this step)
    rewards: np.ndarray
    #: bool [N]: an episode ended on this step and a new one began (deal mode: a deal;
    #: match mode: a match)
    terminated: np.ndarray
    #: int64 [N, 2]: the scores of the two sides in the deal that ended (where
    #: ``terminated``; match mode: the match's totals)
    final_scores: np.ndarray
    #: int64 [N]: match mode, the side that won the match that ended (where
    #: ``terminated``), else -1
    winners: Optional[np.ndarray] = None


class Batch:
    """Buffers and tables of ``num_envs`` games of one family (its
    :class:`~coinche_rl.envs.family.EnvFamily`, from ``rules`` or ``family``), shared by
    the two vector envs: argument checks, seeding and reset options, the legality check
    of a batch of actions."""

    def __init__(self, num_envs: int, rules, dealer, reward: str, seed: Optional[int],
                 normalize_reward: bool = False, family: Union[None, str, EnvFamily] = None,
                 mode: str = "deal"):
        if isinstance(num_envs, bool) or not isinstance(num_envs, (int, np.integer)) or num_envs < 1:
            raise ValueError(f"num_envs must be a positive int, not {num_envs!r}")
        if mode not in ("deal", "match"):
            raise ValueError(f"mode must be 'deal' or 'match', not {mode!r}")
        if reward not in ("difference", "raw"):
            raise ValueError(f"reward must be 'difference' or 'raw', not {reward!r}")
        if not isinstance(normalize_reward, (bool, np.bool_)):
            raise ValueError(f"normalize_reward must be True or False, not {normalize_reward!r}")
        self.num_envs = n = int(num_envs)
        self.family = fam = env_family(rules, family)
        self.rules: RuleSet = fam.rules(rules)
        compile_notice("the vector environment", (K.vector_step, K.learner_settle),
                       "about 20-40 s")
        self.enc = fam.encoder(self.rules)
        self.params = self.enc.params
        self.dealer = self._dealer_code(dealer)
        self.raw = reward == "raw"
        #: what the rewards are divided by (``coinche_v0.REWARD_SCALE`` when normalised)
        self.reward_scale = REWARD_SCALE if normalize_reward else 1.0
        self.seed = seed
        self.states = np.zeros((n, fam.state_size), dtype=np.int64)
        self.rngs = np.zeros(n, dtype=np.uint64)
        self.obs = np.zeros((n, fam.observation_size), dtype=np.float32)
        self.cur = np.zeros(n, dtype=np.int64)
        self.masks8 = np.zeros((n, N_ACTIONS), dtype=np.uint8)
        #: the masks as int8 (a view of the same buffer)
        self.masks = self.masks8.view(np.int8)
        # the kernels' scratch (the deal, the four-player encoder, the two-player one, the
        # random opponents)
        self._hands = np.zeros(N_SEATS, dtype=np.int64)
        self._deck = np.zeros(N_CARDS, dtype=np.int64)
        self._voids = np.zeros(N_SEATS, dtype=np.int64)
        self._ceil = np.zeros((N_SEATS, 4), dtype=np.int64)
        self._V = np.zeros(TWO_STATE_SIZE, dtype=np.int64)
        self._buf = np.zeros(N_ACTIONS, dtype=np.uint8)
        #: ``"deal"`` or ``"match"``
        self.mode = mode
        r = self.rules
        # match mode (zeros in deal mode, which the kernels read as such): each game's
        # match (kernels.M_*), its observation vector (zeros: deal mode's), its deals'
        # stream, the match options (kernels.C_*), the winners of the matches just ended
        self.M = np.zeros((n, K.M_SIZE), dtype=np.int64)
        self.matches = np.zeros((n, 5), dtype=np.float64)
        self.mrngs = np.zeros(n, dtype=np.uint64)
        self.conf = np.array((mode == "match", r.belote_cannot_win and fam.key == "four",
                              r.reshuffle_after_voids, r.min_cut), dtype=np.int64)
        self.winners = np.full(n, -1, dtype=np.int64)
        self.final_scores = np.zeros((n, 2), dtype=np.int64)

    def _dealer_code(self, dealer) -> int:
        """``dealer`` as the kernels' code: a seat, -1 random (None), -2 the next seat
        each deal (the family's ``next_dealer``: ``"rotate"``, ``"alternate"``)."""
        fam = self.family
        if dealer is None:
            return -1
        if dealer == fam.next_dealer:
            return -2
        if isinstance(dealer, bool) or dealer not in range(fam.n_players):
            raise ValueError(f"dealer must be a {fam.engine.who} {fam.engine.seats}, None (random) or "
                             f"{fam.next_dealer!r}, not {dealer!r}")
        return int(dealer)

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
            raise ValueError(f"options['dealers'] needs {self.num_envs} {self.family.engine.who}s, "
                             f"got {len(dealers)}")
        if deals is not None and len(deals) != self.num_envs:
            raise ValueError(f"options['deals'] needs {self.num_envs} deals, got {len(deals)}")
        self.winners[:] = -1
        if self.mode == "match":
            # a match in every game, its first dealer given (options) or the env's (a
            # seat, or drawn); given deals replace the first deals (as coinche_v0 does)
            first = np.array([self._dealer_code(int(d)) for d in dealers] if dealers is not None
                             else [max(self.dealer, -1)] * self.num_envs, dtype=np.int64)
            K.matches_start(self.states, self.params, self.M, self.matches, self.rngs,
                            self.mrngs, first, self._hands, self._deck)
        if deals is not None:
            fam = self.family
            for i, given in enumerate(deals):
                if self.mode == "match":
                    dealer = int(self.M[i, K.M_FIRST_DEALER])
                else:
                    dealer = 0 if dealers is None else int(dealers[i])
                self.states[i] = fam.deal(self.rules, dealer=dealer,
                                          **fam.deal_kwargs(given)).state
            return
        if self.mode == "match":
            return
        for i in range(self.num_envs):
            # the first deal's dealer: the given or fixed seat, else drawn (rotate too)
            d = self.dealer if dealers is None else self._dealer_code(int(dealers[i]))
            game_new_deal(self.states[i], self.params, self.rngs[i:i + 1], max(d, -1),
                          self._hands, self._deck)

    # ------------------------------------------------------------------ match mode
    @property
    def match_scores(self) -> np.ndarray:
        """Match mode: each game's match totals, int64 [N, 2] per side (a live view)."""
        return self.M[:, K.M_SCORE:K.M_SCORE + 2]

    @property
    def match_pots(self) -> np.ndarray:
        """Match mode: each game's litige pot, int64 [N] (a live view)."""
        return self.M[:, K.M_POT]

    @property
    def match_seeds(self) -> np.ndarray:
        """Match mode: the seed of each game's match (int64 [N], a live view):
        ``Match(rules, dealer=match_dealers[i], seed=match_seeds[i])`` (the family's match
        class; ``coinche_v0`` with ``options={"match_seed": ..., "dealer": ...}``) deals
        the same deals."""
        return self.M[:, K.M_SEED]

    @property
    def match_dealers(self) -> np.ndarray:
        """Match mode: the first dealer of each game's match (int64 [N], a live view)."""
        return self.M[:, K.M_FIRST_DEALER]

    def match_info(self, i: int) -> Optional[dict]:
        """Game ``i``'s match as the AEC env's match mode describes it (``{"scores",
        "target", "pot"}``), None in deal mode."""
        if self.mode != "match":
            return None
        return {"scores": (int(self.M[i, K.M_SCORE]), int(self.M[i, K.M_SCORE + 1])),
                "target": self.rules.target, "pot": int(self.M[i, K.M_POT])}

    def check(self, actions) -> np.ndarray:
        """``actions`` as int64 [N]; raises ``IllegalActionError`` (no game changed) on
        the first illegal one, naming the legal ones."""
        a = np.asarray(actions)
        n = self.num_envs
        if a.shape != (n,) or not np.issubdtype(a.dtype, np.integer):
            raise ValueError(f"actions must be an integer array of shape ({n},), got "
                             f"{a.dtype} {a.shape}")
        a = a.astype(np.int64, copy=False)
        bad = K.first_illegal(self.states, self.params, a)
        if bad >= 0:
            legal = np.zeros(N_ACTIONS, dtype=np.uint8)
            game_legal_mask(self.states[bad], self.params, legal)
            names = ", ".join(action_to_str(int(x)) for x in np.flatnonzero(legal))
            what = action_to_str(int(a[bad])) if 0 <= a[bad] < N_ACTIONS else repr(int(a[bad]))
            raise IllegalActionError(
                f"game {bad}: action {int(a[bad])} ({what}) is illegal for "
                f"{self.family.engine.who} {int(game_to_act(self.states[bad], self.params))}; "
                f"legal: {names}. No game was changed.")
        return a


class VectorCoinche(Batch):
    """``num_envs`` games, every seat driven by the caller (see the module docstring):
    ``reset`` / ``step`` return a :class:`VectorStep` of arrays.

    :param rules: a preset name or a ``RuleSet`` (None: the family's default preset).
    :param dealer: a fixed seat, None (random each deal) or ``"rotate"`` (the next seat
        after each deal, as in a match; ``"alternate"`` with two players).
    :param reward: ``"difference"`` (default) or ``"raw"``.
    :param seed: seed of the games' streams (game ``i`` uses sub-stream ``i``).
    :param normalize_reward: divide the rewards by ``coinche_v0.REWARD_SCALE`` (162).
    :param family: ``"four"`` or ``"two"`` to require rules of that family (None: the
        family of ``rules``).
    :param mode: ``"deal"`` (default: an episode is a deal) or ``"match"`` (an episode is
        a match to the rule set's target, as ``coinche_v0``'s match mode; see the module
        docstring).
    """

    #: a finished episode is replaced in the same step, declared as Gymnasium 1.x vector
    #: envs declare it
    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, num_envs: int, rules: Union[None, str, RuleSet] = None, dealer=None,
                 reward: str = "difference", seed: Optional[int] = None,
                 normalize_reward: bool = False, family: Union[None, str, EnvFamily] = None,
                 mode: str = "deal"):
        super().__init__(num_envs, rules, dealer, reward, seed, normalize_reward, family, mode)
        n = self.num_envs
        self._ts = VectorStep(self.obs, self.masks, self.cur,
                              np.zeros((n, self.family.n_players), dtype=np.float64),
                              np.zeros(n, dtype=np.bool_), self.final_scores, self.winners)
        self._term8 = np.zeros(n, dtype=np.uint8)

    def _observe_all(self) -> None:
        e = self.enc
        K.vector_observe(self.states, self.params, e.cpt, e.rules_vec, self.matches, self.obs,
                         self.masks8, self.cur, self._voids, self._ceil, self._V)

    def _step_all(self, a: np.ndarray, ts: VectorStep) -> None:
        e = self.enc
        K.vector_step(self.states, self.params, a, self.rngs, self.dealer, self.raw, e.cpt,
                      e.rules_vec, self.matches, self.M, self.mrngs, self.conf, self.obs,
                      self.masks8, self.cur, ts.rewards, self._term8, ts.final_scores,
                      ts.winners, self._hands, self._deck, self._voids, self._ceil, self._V)

    def deal(self, i: int):
        """Game ``i`` as the family's deal (a :class:`~coinche_rl.game.Deal` or
        ``TwoPlayerDeal``; a copy of its state; its history is not kept)."""
        return _deal_from_state(self.rules, self.states[i])

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None):
        """New deals in every game (match mode: new matches; ``options``: ``"deals"``,
        ``"dealers"``, one per game: the first deals and their dealers); returns the
        first step's arrays (zero rewards)."""
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
        out = np.empty((self.num_envs, self.family.observation_size), dtype=np.float32)
        for i in range(self.num_envs):
            self.enc.encode(self.states[i], seat, self.match_info(i), out=out[i])
        return out


def _of_batch(name: str, doc: Optional[str] = None) -> property:
    """A read-only property of :class:`CoincheVectorEnv` that reads its batch's attribute
    ``name``, documented by ``doc`` (None: the doc of :class:`Batch`'s property)."""
    return property(lambda self: getattr(self._b, name),
                    doc=getattr(Batch, name).__doc__ if doc is None else doc)


class CoincheVectorEnv(VectorEnv):
    """A ``gymnasium.vector.VectorEnv`` of ``num_envs`` games with one learning seat
    (see the module docstring); the others are played by random legal actions inside
    numba or by a batched policy.

    * ``single_observation_space``: ``Box(0, observation.HIGH, (620,), float32)`` (502
      values of ``observation_two`` with two players); ``single_action_space``:
      ``Discrete(120)``; batched spaces over ``num_envs``.
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
        through the ``coinche_rl.vector_opponents`` entry point for the family of the
        rules: with two players the two-player ``heuristic``) or a batched policy ``f(public_states, params, seats) -> actions`` for the other
        seats. The resolved policy is :attr:`opponent_policy` (None for ``"random"``).
    :param opponent: the two-player name of ``opponents`` (give one of the two).
    :param pass_prob: random opponents pass with this probability in the auction and
        choose uniformly among the other legal actions otherwise (None: uniform over
        every legal action; four players).
    :param normalize_reward: divide the rewards by ``coinche_v0.REWARD_SCALE`` (162).
    :param family: ``"four"`` or ``"two"`` to require rules of that family (None: the
        family of ``rules``).
    :param mode: ``"deal"`` (default) or ``"match"``: an episode is a match to the rule
        set's target (rewards at each deal's end, ``terminations`` when the match is won,
        the match's scores, target and pot in the observations; ``infos["match_scores"]``
        and ``infos["match_winner"]`` where a match ended).
    """

    metadata = {"autoreset_mode": AutoresetMode.SAME_STEP}

    def __init__(self, num_envs: int, seat: int = 0, rules: Union[None, str, RuleSet] = None,
                 opponents: Union[None, str, BatchPolicy] = None,
                 pass_prob: Optional[float] = None, dealer=None, reward: str = "difference",
                 seed: Optional[int] = None, copy: bool = True,
                 normalize_reward: bool = False,
                 opponent: Union[None, str, BatchPolicy] = None,
                 family: Union[None, str, EnvFamily] = None, mode: str = "deal"):
        fam = env_family(rules, family)
        if isinstance(seat, bool) or seat not in range(fam.n_players):
            raise ValueError(f"seat must be {fam.engine.seats}, not {seat!r}")
        if opponents is not None and opponent is not None:
            raise ValueError("give opponents or opponent, not both (opponent is the "
                             "two-player name of opponents)")
        #: the name of the opponents' argument, in messages
        self._opponents_name = "opponent" if opponent is not None else "opponents"
        if opponent is not None:
            opponents = opponent
        if opponents is None:
            opponents = "random"
        name = self._opponents_name
        if not (isinstance(opponents, str) or callable(opponents)):
            raise ValueError(f"{name} must be 'random', an agent spec string such as "
                             f"'heuristic' or 'nn', or a callable f(public_states, params, "
                             f"seats) -> actions, not {opponents!r}")
        if pass_prob is not None and not 0.0 <= float(pass_prob) <= 1.0:
            raise ValueError(f"pass_prob must be in [0, 1] or None, not {pass_prob!r}")
        self._b = b = Batch(num_envs, rules, dealer, reward, seed, normalize_reward, fam, mode)
        self.mode = mode
        self.seat = int(seat)
        self.copy = bool(copy)
        #: the batched policy of the other seats (None: random inside numba)
        self.opponent_policy: Optional[BatchPolicy] = None
        self.opponents = opponents
        if callable(opponents):
            self.opponent_policy = opponents
        elif opponents.strip() != "random":
            self.opponent_policy = resolve_plugin(VECTOR_OPPONENTS_GROUP,
                                                  f"{name}={opponents!r}", opponents, b.rules)
        self.pass_prob = -1.0 if pass_prob is None else float(pass_prob)
        self.num_envs = n = b.num_envs
        O = fam.observation
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
        self._pub = np.zeros((n, fam.state_size), dtype=np.int64)
        self._seats = np.zeros(n, dtype=np.int64)
        self._truncated = np.zeros(n, dtype=np.bool_)
        self._all = np.arange(n, dtype=np.int64)

    states = _of_batch("states", "The engine states of the games ([N, state size], live).")
    rules = _of_batch("rules", "The rule set (:class:`~coinche_rl.rules.RuleSet`).")
    match_scores = _of_batch("match_scores")
    match_pots = _of_batch("match_pots")
    match_seeds = _of_batch("match_seeds")
    match_dealers = _of_batch("match_dealers")

    @property
    def opponent(self):
        """The two-player name of :attr:`opponents`."""
        return self.opponents

    def _learner_settle(self, use_random: bool) -> int:
        """Random opponents' moves (when ``use_random``), deal ends and autoreset, the
        learner's observations; returns how many games wait for the batched opponents."""
        b = self._b
        e = b.enc
        return K.learner_settle(
            b.states, b.params, self.seat, b.rngs, b.dealer, b.raw, use_random,
            self.pass_prob, e.cpt, e.rules_vec, b.matches, b.M, b.mrngs, b.conf, b.obs,
            self._final_obs, b.masks8, self._rewards, self._term8, b.final_scores, b.winners,
            b._hands, b._deck, b._voids, b._ceil, b._V, b._buf)

    def _settle(self) -> None:
        b = self._b
        use_random = self.opponent_policy is None
        while True:
            if not use_random:
                while True:
                    k = K.others_to_act(b.states, b.params, self.seat, self._idx)
                    if k == 0:
                        break
                    K.public_states_of(b.states, b.params, self._idx, k, self._pub, self._seats)
                    acts = np.asarray(self.opponent_policy(self._pub[:k], b.params,
                                                           self._seats[:k]), dtype=np.int64)
                    if acts.shape != (k,):
                        raise ValueError(f"{self._opponents_name} returned shape {acts.shape}, "
                                         f"expected ({k},)")
                    bad = K.first_illegal_at(b.states, b.params, self._idx, k, acts)
                    if bad >= 0:
                        raise IllegalActionError(
                            f"{self._opponents_name} policy {self.opponents!r} chose the "
                            f"illegal action {int(acts[bad])} in game {int(self._idx[bad])}")
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
                if self.mode == "match":
                    b = self._b
                    infos["match_scores"] = np.where(done[:, None], b.final_scores, 0)
                    infos["_match_scores"] = done
                    infos["match_winner"] = np.where(done, b.winners, -1)
                    infos["_match_winner"] = done
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
        b.winners[:] = -1
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


def _deal_from_state(rules: RuleSet, S: np.ndarray):
    """The family's deal of ``rules`` in the state ``S`` (a copy; no history)."""
    return env_family(rules).deal.from_state(rules, S.copy())


def first_legal_policy(legal_into=game_legal_mask) -> BatchPolicy:
    """A batched policy that plays each game's first legal action, by
    ``legal_into(state, params, mask)`` (default: the engine's, any family)."""
    def policy(states, params, seats):
        out = np.zeros(len(states), dtype=np.int64)
        mask = np.zeros(N_ACTIONS, dtype=np.uint8)
        for j, S in enumerate(states):
            legal_into(S, params, mask)
            out[j] = int(np.flatnonzero(mask)[0])
        return out
    return policy


def exercise(rules: str, family: Optional[str] = None) -> None:
    """A few steps of both vector envs of ``rules``, the learner's also against a
    batched policy: compiles their kernels (a ``warmup``)."""
    venv = VectorCoinche(2, rules=rules, seed=0, family=family)
    ts = venv.reset()
    for _ in range(3):
        ts = venv.step(ts.action_mask.argmax(axis=1))
    env = CoincheVectorEnv(2, rules=rules, seed=0, family=family)
    env.reset()
    env.step(env.action_masks().argmax(axis=1))
    env = CoincheVectorEnv(2, rules=rules, seed=0, opponents=first_legal_policy(), family=family)
    env.reset()


#: its place in ``coinche-rl warmup`` (:mod:`coinche_rl.cli.warmup`): after the
#: environment's kernels, which its kernels call (in their chain)
WARMUP_AFTER = ("coinche_rl.envs.kernels",)


def warmup() -> None:
    """Compile the vector kernels (cached on disk): a few steps of both envs (the same
    kernels serve both families, with each family's encoder)."""
    exercise("ffb")
    exercise("belote_a_deux", "two")
