"""The turn-based multi-agent contract of RLlib's ``MultiAgentEnv``, without Ray
(``coinche_rl.train.turn_based``).

:class:`TurnBasedEnv` plays the AEC env (:mod:`coinche_rl.envs.coinche_v0`, its raw
env: the engine decides legality, play and scoring) through the dict-in, dict-out API
that RLlib's new API stack expects of a multi-agent env:

* ``reset()`` returns the observation of the seat to act only;
* ``step({agent: action})`` takes exactly one action, of the seat to act (any other
  key is refused, naming the seat to act), and returns the observation of the next
  seat to act only: a seat that is not to act neither observes nor acts, so no seat is
  ever shown an all-zero action mask while the deal goes on (pytorch/rl #1471: such
  masks break masked categorical distributions);
* when the deal ends, every seat gets its final observation (the deal's last
  information set, all-zero mask: nobody acts any more) and its reward, and
  ``terminateds["__all__"]`` is True; the rewards (the deal score difference, divided
  by 162 with ``normalize_reward=True``) sum to zero over the seats. RLlib needs that
  last observation for each agent to close its episode (the value of the last step):
  an agent that never gets it keeps an open episode, and its reward is lost.

Observations are the env's own, ``{"observation": float32[620], "action_mask":
int8[120]}``, plus with ``public_state=True`` the seat's public engine state
(``int64[STATE_SIZE]``, every hidden part zeroed: :func:`coinche_rl.engine.public_view`),
from which a rule-based opponent acts as it does in the tournaments
(:class:`PublicStateView`; the learning modules ignore it).

:mod:`coinche_rl.train.rllib` puts this class under RLlib's ``MultiAgentEnv``; it is
kept free of Ray so that the contract is tested in every environment
(``tests/test_rllib_env.py``).

>>> env = TurnBasedEnv("ffb")
>>> obs, infos = env.reset(seed=0)
>>> len(obs), sorted(obs[next(iter(obs))])
(1, ['action_mask', 'observation'])
"""

from __future__ import annotations

from typing import Dict, Optional, Tuple, Union

import numpy as np
from gymnasium import spaces

from ..engine import STATE_SIZE, public_view
from ..engine import py as engine_py
from ..envs import coinche_v0
from ..rules import RuleSet

__all__ = ["TurnBasedEnv", "PublicStateView"]

_INT64 = np.iinfo(np.int64)


class TurnBasedEnv:
    """One deal (or a match, ``mode="match"``) of ``rules`` as a turn-based multi-agent
    env (module docstring). ``dealer``, ``reward`` and ``normalize_reward`` are the AEC
    env's (:class:`coinche_rl.envs.coinche_v0.raw_env`); illegal actions raise the
    engine's ``IllegalActionError``. ``public_state`` (four-player rules only) adds the
    seat's public engine state to each observation."""

    def __init__(self, rules: Union[str, RuleSet, None] = "ffb", mode: str = "deal",
                 dealer: Optional[int] = None, reward: str = "difference",
                 normalize_reward: bool = True, public_state: bool = False):
        self.raw = coinche_v0.raw_env(rules=rules, mode=mode, dealer=dealer, reward=reward,
                                      normalize_reward=normalize_reward)
        if public_state and self.raw.family.key != "four":
            raise ValueError("public_state=True: the public engine state is given for the "
                             "four-player rules only, not for "
                             f"{self.raw.rules.name!r}")
        self.public_state = bool(public_state)
        self.rules = self.raw.rules
        self.possible_agents = list(self.raw.possible_agents)
        self.agents = []
        base = self.raw.observation_space(self.possible_agents[0])
        parts = dict(base.spaces)
        if self.public_state:
            parts["public_state"] = spaces.Box(low=_INT64.min, high=_INT64.max,
                                               shape=(STATE_SIZE,), dtype=np.int64)
        self.observation_space = spaces.Dict(parts)
        self.action_space = self.raw.action_space(self.possible_agents[0])
        self.observation_spaces = dict.fromkeys(self.possible_agents, self.observation_space)
        self.action_spaces = dict.fromkeys(self.possible_agents, self.action_space)
        self._seat = {a: i for i, a in enumerate(self.possible_agents)}

    # ------------------------------------------------------------------ access
    @property
    def deal(self):
        """The deal in progress (the last one once the episode is over)."""
        return self.raw.deal

    @property
    def agent_to_act(self) -> Optional[str]:
        """The agent whose action :meth:`step` takes next (None once the episode is over)."""
        raw = self.raw
        if not self.agents or raw.terminations[raw.agent_selection]:
            return None
        return raw.agent_selection

    def _obs(self, agent: str) -> Dict[str, np.ndarray]:
        raw = self.raw
        o = raw.observe(agent)
        # copies: the env's mask is a shared read-only array, which torch.from_numpy
        # warns about
        out = {"observation": o["observation"], "action_mask": np.array(o["action_mask"])}
        if self.public_state:
            deal = raw.deal
            out["public_state"] = public_view(deal.state, deal.params, self._seat[agent])
        return out

    # ------------------------------------------------------------------ the API
    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None):
        """A new episode: ``({agent: obs}, {agent: {}})`` for the seat to act."""
        self.raw.reset(seed=seed, options=options)
        self.agents = list(self.possible_agents)
        agent = self.raw.agent_selection
        return {agent: self._obs(agent)}, {agent: {}}

    def step(self, action_dict: Dict[str, int]) -> Tuple[dict, dict, dict, dict, dict]:
        """Play the action of the seat to act: ``(obs, rewards, terminateds, truncateds,
        infos)``, RLlib's five dicts (module docstring).

        :raises ValueError: no episode in progress, or ``action_dict`` not exactly
            ``{agent_to_act: action}``.
        :raises coinche_rl.game.IllegalActionError: an illegal action (state unchanged).
        """
        agent = self.agent_to_act
        if agent is None:
            raise ValueError("no episode in progress: call reset() first")
        if len(action_dict) != 1 or agent not in action_dict:
            raise ValueError(f"turn-based: {agent} is to act, alone; actions were given for "
                             f"{sorted(action_dict)}")
        raw = self.raw
        raw.step(int(action_dict[agent]))
        if raw.terminations[raw.agent_selection]:
            # the end: every seat's last observation and reward
            obs = {a: self._obs(a) for a in self.agents}
            rewards = {a: float(raw.rewards[a]) for a in self.agents}
            terminateds = dict.fromkeys(self.agents, True)
            terminateds["__all__"] = True
            self.agents = []
            return (obs, rewards, terminateds, {"__all__": False},
                    {a: {} for a in obs})
        nxt = raw.agent_selection
        # a deal ended within a match: its rewards go to every seat (RLlib keeps those of
        # the seats not to act until their next observation)
        rewards = {a: float(r) for a, r in raw.rewards.items() if r}
        rewards.setdefault(nxt, 0.0)
        return ({nxt: self._obs(nxt)}, rewards, {"__all__": False}, {"__all__": False},
                {nxt: {}})

    def close(self) -> None:
        """Nothing to release."""


class PublicStateView:
    """What a rule-based agent reads of :class:`~coinche_rl.agents.PlayerView`
    (``seat``, ``rules``, ``params``, ``legal``, ``public_state``, ``match``), rebuilt from
    an observation with ``public_state``: the seat to act is the state's, the legal
    actions are the observation's mask. An agent that needs more (the information set)
    cannot act from it."""

    __slots__ = ("seat", "rules", "params", "legal", "public_state", "match")

    def __init__(self, rules: RuleSet, public_state: np.ndarray, action_mask: np.ndarray,
                 params: np.ndarray):
        self.rules = rules
        self.public_state = np.ascontiguousarray(public_state, dtype=np.int64)
        self.seat = int(engine_py.current_seat(self.public_state))
        self.legal = np.asarray(action_mask).astype(bool)
        self.params = params
        self.match = None

    @property
    def legal_actions(self):
        return np.flatnonzero(self.legal)
