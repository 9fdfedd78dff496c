"""A single-agent Gymnasium view of :mod:`coinche_rl.envs.coinche_v0`
(``coinche_rl.envs.single_agent``).

:class:`CoincheSingleAgentEnv` seats one learner (``seat``, default 0) at the table; the
three other seats are played by ``opponents``:

* an **agent spec** string of ``coinche_rl.agents.make_agent`` (``"random"``,
  ``"heuristic"``, ``"pimc:worlds=8"``, ``"nn"``, ...; ``coinche-rl agents`` lists
  them), one agent per seat, driven by the agents' protocol (``reset`` before each
  deal, ``observe`` every public action, ``act`` on its turn). Each deal's agent seeds
  come from a stream seeded by ``reset(seed=...)``, so the same seed gives the same
  episode;
* a **callable** ``policy(observation, agent) -> action id``, given the AEC observation
  dict ``{"observation", "action_mask"}`` of that seat and its agent name
  ``"player_i"``;
* or a dict ``{seat: spec or callable}`` for some of the other seats. A seat without an
  opponent (the default: all three) plays a uniformly random legal action drawn from
  the env's own ``np_random`` (seeded by ``reset(seed=...)``).

``policies={seat: callable}`` is the older spelling of the dict form (still accepted).

The env does not import ``coinche_rl.agents`` (envs sit below agents): a spec is turned
into an opponent by the plugin of the entry point group ``coinche_rl.env_opponents``
(``factory(spec) -> opponent`` with ``reset(seat, rules, seed)``, ``observe(seat,
action)`` and ``act(deal, seat, match) -> action``; coinche-rl declares
``coinche_rl.agents.env_plugins:env_opponent``; see :mod:`coinche_rl.envs`). An unknown
spec raises a ``ValueError`` naming the available agents.

* ``observation_space``: ``Box(0, observation.HIGH, (OBSERVATION_SIZE,), float32)``, the
  learner's observation vector; ``action_space``: ``Discrete(N_ACTIONS)``.
* ``reset(seed, options)`` resets the AEC env (``options`` passed through: ``"deal"``,
  ``"dealer"``), then lets the other seats act until the learner must act. If the episode
  ends before the learner acts (possible only for a void deal, which in practice cannot
  happen before every seat has spoken), the AEC env is reset again with its next
  seed-derived deal (the ``"deal"`` option dropped), so ``reset`` always returns a state
  in which the learner acts. ``info["action_mask"]`` (int8) is the learner's legal mask.
* ``step(action)`` applies the learner's action, then the other seats' until the learner
  acts again or the game ends. The reward is the learner's reward from the AEC env summed
  over that span (points, given at the end of each deal; see ``coinche_v0``; divided by
  ``coinche_v0.REWARD_SCALE`` = 162, the card points of a deal, with
  ``normalize_reward=True``); ``terminated`` when the game (deal, or match in
  ``mode="match"``) ends; ``truncated`` is always False.
* ``action_masks()``: the current legal mask as bool (for sb3-contrib ``MaskablePPO``).
* **Illegal actions.** By default (``illegal_action="raise"``) an illegal learner action
  raises ``coinche_rl.game.IllegalActionError`` (a ``ValueError``) naming the legal
  actions, the state unchanged. Samplers that ignore the mask, such as
  ``action_space.sample()``, ``gymnasium.utils.env_checker.check_env`` and
  stable-baselines3's ``check_env``, then fail at their first illegal draw: pass
  ``illegal_action="penalty"`` for them; an illegal action then ends the game with
  ``-illegal_penalty`` (default 1000 points) as the learner's reward.

``env_kwargs`` go to ``coinche_v0.raw_env``: ``rules``, ``mode``, ``dealer``, ``reward``,
``illegal_action``, ``illegal_penalty``, ``render_mode``, ``normalize_reward``.

Registered as ``gymnasium.make("coinche_rl/Coinche-v0", **kwargs)`` by importing
``coinche_rl.envs``, or through the ``gymnasium.envs`` entry point where gymnasium
still loads plugins (< 1.0); ``gymnasium.make("coinche_rl.envs:coinche_rl/Coinche-v0")``
works in a fresh interpreter with any version.

>>> import gymnasium
>>> env = gymnasium.make("coinche_rl.envs:coinche_rl/Coinche-v0", opponents="heuristic",
...                      illegal_action="penalty", normalize_reward=True)
>>> obs, info = env.reset(seed=0)
>>> obs.shape, bool(info["action_mask"].any())
((620,), True)
"""

from __future__ import annotations

from typing import Callable, Dict, Optional, Union

import numpy as np

from ..actions import N_ACTIONS, action_to_str
from ..game import IllegalActionError
from ..rules import N_SEATS
from . import ENV_ID, ENV_OPPONENTS_GROUP, coinche_v0, register_gymnasium_envs, resolve_plugin
from . import observation as O
from .single_agent_base import LearnerEnv

__all__ = ["CoincheSingleAgentEnv", "ENV_ID"]

Policy = Callable[[dict, str], int]
#: an agent spec string (``"heuristic"``) or a ``policy(observation, agent)`` callable
Opponent = Union[str, Policy]

_PENALTY_HINT = (
    'To let a sampler that ignores the action mask run (action_space.sample(), '
    "gymnasium's or stable-baselines3's check_env), create the env with "
    'illegal_action="penalty": an illegal action then ends the episode with reward '
    '-illegal_penalty instead of raising; otherwise choose among info["action_mask"] / '
    'env.action_masks().')


class CoincheSingleAgentEnv(LearnerEnv):
    """One learning seat against opponents for the other three (see the module docstring).

    :param seat: the learner's seat 0..3.
    :param opponents: an agent spec string or a ``policy(observation, agent) -> action``
        callable for the three other seats, or ``{seat: spec or callable}`` for some of
        them (the others play uniformly random legal actions).
    :param policies: the older name of the dict form of ``opponents`` (give one of the
        two).
    :param env_kwargs: passed to ``coinche_v0.raw_env`` (``rules``, ``mode``, ``dealer``,
        ``reward``, ``illegal_action``, ``illegal_penalty``, ``render_mode``,
        ``normalize_reward``).
    """

    PENALTY_HINT = _PENALTY_HINT

    def __init__(self, seat: int = 0, policies: Optional[Dict[int, Opponent]] = None,
                 opponents: Union[None, Opponent, Dict[int, Opponent]] = None,
                 **env_kwargs):
        if isinstance(seat, bool) or seat not in range(N_SEATS):
            raise ValueError(f"seat must be 0..3, not {seat!r}")
        others = [s for s in range(N_SEATS) if s != seat]
        if policies is not None and opponents is not None:
            raise ValueError("give opponents or policies, not both (policies is the older "
                             "name of the {seat: policy} form of opponents)")
        if policies is not None and not isinstance(policies, dict):
            raise ValueError(f"policies must be a dict {{seat: policy}}, not {policies!r}; "
                             f"use opponents= for one spec or policy for every other seat")
        given = policies if policies is not None else opponents
        if given is None:
            table = {}
        elif isinstance(given, dict):
            table = dict(given)
        else:
            table = dict.fromkeys(others, given)
        name = "policies" if policies is not None else "opponents"
        for s, opp in table.items():
            if isinstance(s, bool) or s not in others:
                raise ValueError(f"{name} must be for seats other than the learner's "
                                 f"({int(seat)}), i.e. {others}, got seat {s!r}")
            if not (isinstance(opp, str) or callable(opp)):
                raise ValueError(f"{name}[{s}] must be an agent spec string (such as "
                                 f"'heuristic') or a callable policy(observation, agent) "
                                 f"-> action, not {opp!r}")
        self.opponents = table
        #: the callable opponents, ``{seat: policy}``
        self.policies = {s: p for s, p in table.items() if not isinstance(p, str)}
        #: the spec opponents built by the ``coinche_rl.env_opponents`` plugin
        self._agents = {s: resolve_plugin(ENV_OPPONENTS_GROUP, f"opponents[{s}]={p!r}", p)
                        for s, p in sorted(table.items()) if isinstance(p, str)}
        self._agent_rng = np.random.default_rng()
        self._agent_deal = None
        self._setup(seat, coinche_v0.raw_env(**env_kwargs), O)

    # ------------------------------------------------------------------ opponents
    def _seed_opponents(self, seed):
        if seed is not None:
            # the spec opponents' seeds: a stream of their own, so that the random seats'
            # draws from np_random are the same with or without spec opponents
            self._agent_rng = np.random.default_rng([int(seed) % 2 ** 64, 0x0770])
        self._agent_deal = None

    def _start_agents(self) -> None:
        """``reset`` the spec opponents when a new deal has begun, with seeds from the
        stream seeded by ``reset(seed=...)``."""
        deal = self.aec.deal
        if not self._agents or deal is self._agent_deal:
            return
        self._agent_deal = deal
        for s, opp in self._agents.items():
            opp.reset(s, self.aec.rules, int(self._agent_rng.integers(2 ** 63)))

    def _apply(self, action: int) -> None:
        """Step the AEC env with the action of the seat to act and show it to the spec
        opponents (the AEC env raises, state unchanged, if it is illegal)."""
        aec = self.aec
        seat = aec._seat_of[aec.agent_selection]
        legal = 0 <= action < N_ACTIONS and aec._live_mask[action]
        aec.step(action)
        if self._agents and legal:
            for opp in self._agents.values():
                opp.observe(seat, action)
            if not aec.terminations[aec.agent_selection]:
                self._start_agents()          # match mode: the next deal began

    def _opponent_action(self, seat: int, agent: str) -> int:
        opp = self._agents.get(seat)
        if opp is not None:
            deal = self.aec.deal
            a = int(opp.act(deal, seat, self.aec._match_info()))
            if not (0 <= a < N_ACTIONS and self.aec._live_mask[a]):
                legal = ", ".join(action_to_str(int(x)) for x in np.flatnonzero(self.aec._live_mask))
                raise IllegalActionError(
                    f"opponent {self.opponents[seat]!r} at seat {seat} chose the illegal "
                    f"action {a!r}; legal: {legal}")
            return a
        policy = self.policies.get(seat)
        if policy is None:
            return self._random_action()
        return int(policy(self.aec.observe(agent), agent))


register_gymnasium_envs()
