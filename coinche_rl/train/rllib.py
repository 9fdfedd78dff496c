"""RLlib's parts for Coinche, new API stack (``coinche_rl.train.rllib``): the multi-agent
env, an action-masking RLModule, the heuristic as a module, and the league's mapping.

It imports Ray's RLlib and torch, which the package does not install (RLlib pins its own
gymnasium): ``make rllib-venv`` builds ``.venv-rllib`` with them
(``constraints-rllib.txt``), and :mod:`coinche_rl.train.rllib_selfplay` trains by
self-play on a local Ray cluster with them.

* :class:`CoincheMultiAgentEnv`: :class:`~coinche_rl.train.turn_based.TurnBasedEnv`
  under RLlib's ``MultiAgentEnv``: turn-based (only the seat to act observes and acts;
  at the end of the deal every seat gets its last observation and its reward), the
  legal mask in the observation dict. ``env_config``: the keywords of ``TurnBasedEnv``.
* :class:`MaskedActorCritic`: a ``TorchRLModule`` with RLlib's ``ValueFunctionAPI`` (what
  PPO's learner asks of a module) that reads ``obs["observation"]`` and sets the logits
  of the actions not in ``obs["action_mask"]`` to the float minimum. It reads the
  batch without changing it (RLlib's example module pops the mask out of the batch,
  which its value function then misses: ray #44452, #44780), and a row with no legal
  action (a seat's last observation, which RLlib runs through the module for the value
  of the last step) is left unmasked, a proper distribution, instead of a row of
  minus-infinities whose softmax is NaN (pytorch/rl #1471).
* :class:`AgentModule`: a rule-based agent of the package (``heuristic``) as a
  non-learning module: it rebuilds the seat's view from the observation's public state
  (:class:`~coinche_rl.train.turn_based.PublicStateView`) and calls the agent's
  ``act(view)``, as in the tournaments.
* :func:`league_mapping`: the agent-to-module mapping of self-play against a league:
  each episode, ``main`` plays one team (drawn), the other team is the heuristic or
  one of the frozen snapshots ``league_0 ..``, both seats of a team by the same module.
* :func:`policy_agent`: a ``MaskedActorCritic``'s weights as a
  :class:`~coinche_rl.agents.PolicyAgent` (greedy), which the tournaments play;
  :class:`Evaluation` plays them in paired duplicates against ``random`` and the
  heuristic.
"""

from __future__ import annotations

import zlib
from typing import Callable, Optional

import gymnasium as gym
import numpy as np
import torch
from ray.rllib.core.columns import Columns
from ray.rllib.core.rl_module.apis.value_function_api import ValueFunctionAPI
from ray.rllib.core.rl_module.rl_module import RLModule
from ray.rllib.core.rl_module.torch import TorchRLModule
from ray.rllib.env.multi_agent_env import MultiAgentEnv

from ..agents import PolicyAgent, make_agent
from ..rules import N_TEAMS, get_rules, params_vector, team
from .turn_based import PublicStateView, TurnBasedEnv

__all__ = ["CoincheMultiAgentEnv", "MaskedActorCritic", "AgentModule", "league_mapping",
           "masked_logits", "policy_agent", "Evaluation", "MAIN", "league_slots"]

#: the learning module's id
MAIN = "main"
#: what the logits of illegal actions are set to (float32's lowest: no NaN, no inf)
FLOAT_MIN = torch.finfo(torch.float32).min


class CoincheMultiAgentEnv(MultiAgentEnv):
    """:class:`~coinche_rl.train.turn_based.TurnBasedEnv` as RLlib's ``MultiAgentEnv``
    (module docstring); ``config``: its keywords (``rules``, ``mode``, ``dealer``,
    ``reward``, ``normalize_reward``, ``public_state``)."""

    def __init__(self, config: Optional[dict] = None):
        super().__init__()
        self.core = TurnBasedEnv(**dict(config or {}))
        self.possible_agents = list(self.core.possible_agents)
        self.agents = []
        self.observation_spaces = dict(self.core.observation_spaces)
        self.action_spaces = dict(self.core.action_spaces)

    def reset(self, *, seed=None, options=None):
        out = self.core.reset(seed=seed, options=options)
        self.agents = list(self.core.agents)
        return out

    def step(self, action_dict):
        out = self.core.step(action_dict)
        self.agents = list(self.core.agents)
        return out


def masked_logits(logits: torch.Tensor, mask: torch.Tensor) -> torch.Tensor:
    """``logits`` with those of the actions not in ``mask`` (0/1, same shape) set to
    :data:`FLOAT_MIN`; a row whose mask has no legal action is returned unmasked."""
    legal = mask.bool()
    legal = legal | ~legal.any(dim=-1, keepdim=True)
    return torch.where(legal, logits, torch.full_like(logits, FLOAT_MIN))


def _mlp(n_in: int, hidden, n_out: int) -> torch.nn.Sequential:
    layers, width = [], n_in
    for h in hidden:
        layers += [torch.nn.Linear(width, int(h)), torch.nn.ReLU()]
        width = int(h)
    layers.append(torch.nn.Linear(width, n_out))
    return torch.nn.Sequential(*layers)


class MaskedActorCritic(TorchRLModule, ValueFunctionAPI):
    """Policy and value networks (separate MLPs, ``model_config["hidden"]``, default
    ``(256, 256)``) over ``obs["observation"]``; the policy's logits masked by
    ``obs["action_mask"]`` (:func:`masked_logits`). Other keys of the observation (the
    public state) are ignored."""

    def setup(self):
        space = self.observation_space
        if not isinstance(space, gym.spaces.Dict) or not {"observation", "action_mask"} <= set(
                space.spaces):
            raise ValueError(f"MaskedActorCritic needs a Dict observation space with "
                             f"'observation' and 'action_mask', not {space}")
        hidden = tuple((self.model_config or {}).get("hidden", (256, 256)))
        n_in = int(np.prod(space["observation"].shape))
        self.pi = _mlp(n_in, hidden, int(self.action_space.n))
        # the value network also on the env runners' inference-only copies: the
        # weights synced to them are then the learner's whole state
        self.vf = _mlp(n_in, hidden, 1)

    def _forward(self, batch, **kwargs):
        obs = batch[Columns.OBS]
        logits = self.pi(obs["observation"])
        return {Columns.ACTION_DIST_INPUTS: masked_logits(logits, obs["action_mask"])}

    def compute_values(self, batch, embeddings=None):
        return self.vf(batch[Columns.OBS]["observation"]).squeeze(-1)

    def greedy(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """The legal action of highest logit for one observation (numpy)."""
        with torch.no_grad():
            logits = self.pi(torch.as_tensor(observation, dtype=torch.float32)[None])[0]
        legal = np.asarray(action_mask) != 0
        return int(np.flatnonzero(legal)[int(torch.argmax(logits[torch.as_tensor(legal)]))])


def _numpy(x) -> np.ndarray:
    return x.detach().cpu().numpy() if isinstance(x, torch.Tensor) else np.asarray(x)


class AgentModule(RLModule):
    """A non-learning module that plays a rule-based agent of the package
    (``model_config``: ``spec``, default ``"heuristic"``; ``rules``, default ``"ffb"``):
    it rebuilds each seat's view from the observation's public state and mask
    (:class:`~coinche_rl.train.turn_based.PublicStateView`; the env needs
    ``public_state=True``) and returns the agent's ``act(view)``. Agents that act from
    the public state (the numba bots) play as in the tournaments; it is never trained
    (leave it out of ``policies_to_train``)."""

    def setup(self):
        cfg = self.model_config or {}
        self.rules = get_rules(cfg.get("rules", "ffb"))
        self.agent = make_agent(cfg.get("spec", "heuristic"), self.rules)
        self.params = params_vector(self.rules)
        self._seat = None

    def _act(self, batch):
        obs = batch[Columns.OBS]
        states, masks = _numpy(obs["public_state"]), _numpy(obs["action_mask"])
        actions = np.empty(len(states), dtype=np.int64)
        for i in range(len(states)):
            view = PublicStateView(self.rules, states[i], masks[i], self.params)
            if view.seat != self._seat:
                self.agent.reset(view.seat, self.rules, 0)
                self._seat = view.seat
            actions[i] = self.agent.act(view)
        return {Columns.ACTIONS: actions}

    def _forward_inference(self, batch, **kwargs):
        return self._act(batch)

    def _forward_exploration(self, batch, **kwargs):
        return self._act(batch)

    def _forward_train(self, batch, **kwargs):
        raise NotImplementedError("AgentModule does not learn: leave it out of "
                                  "policies_to_train")


def league_slots(n: int):
    """The ids of the league's ``n`` frozen snapshots: ``league_0 .. league_{n-1}``."""
    return [f"league_{k}" for k in range(n)]


def league_mapping(n_slots: int, p_heuristic: float, heuristic: str = "heuristic") -> Callable:
    """The agent-to-module mapping of self-play against a league: for each episode (by a
    hash of its id, so both seats of a team agree), ``main`` plays the team of seats 0
    and 2 or that of seats 1 and 3 (one each in two); the other team is ``heuristic``
    with probability ``p_heuristic``, else one of ``league_0 .. league_{n_slots-1}``."""
    if n_slots < 1 and p_heuristic < 1:
        raise ValueError("league_mapping: no snapshot slot and p_heuristic < 1")

    def mapping(agent_id, episode, **kwargs):
        h = zlib.crc32(str(episode.id_).encode())
        seat = int(str(agent_id).rsplit("_", 1)[1])
        if team(seat) == h % N_TEAMS:          # main's side this episode (a player of two
            return MAIN                         # is his own side: team(p) == p)
        if (h >> 1) % 1000 < p_heuristic * 1000:
            return heuristic
        return f"league_{(h >> 11) % n_slots}"
    return mapping


class Evaluation:
    """A :class:`MaskedActorCritic`'s greedy play in paired duplicates
    (:func:`coinche_rl.arena.run_duplicate`, ``deals`` deal pairs of seed ``seed``, the
    same every time) against each of ``opponents``: ``evaluation(state)`` sets the
    weights ``state`` and returns ``{opponent: Estimate}`` (the margin per deal with its
    95% interval). One agent over one module, registered as ``name``: the arena keeps
    the agents it built, by spec, for the life of the process, so the weights are set in
    that module, never in a new agent."""

    def __init__(self, observation_space: gym.Space, action_space: gym.Space,
                 model_config: Optional[dict] = None, rules: str = "ffb",
                 opponents=("random", "heuristic"), deals: int = 50, seed: int = 1,
                 name: str = "rllib_main"):
        from ..agents import register_agent
        self.module = MaskedActorCritic(observation_space=observation_space,
                                        action_space=action_space,
                                        model_config=model_config or {})
        self.module.eval()
        self.agent = PolicyAgent(self.module.greedy, name=name)
        self.name, self.rules, self.opponents = name, rules, tuple(opponents)
        self.deals, self.seed = int(deals), int(seed)
        register_agent(name, lambda: self.agent)

    def __call__(self, state: dict) -> dict:
        from ..arena import run_duplicate
        self.module.set_state(state)
        return {opp: run_duplicate(self.name, opp, self.deals, preset=self.rules,
                                   seed=self.seed).estimate for opp in self.opponents}


def policy_agent(state: dict, observation_space: gym.Space, action_space: gym.Space,
                 model_config: Optional[dict] = None, name: str = MAIN,
                 version: Optional[str] = None) -> PolicyAgent:
    """A :class:`MaskedActorCritic` of weights ``state`` (its ``get_state()``, as the
    learner keeps it) as a greedy :class:`~coinche_rl.agents.PolicyAgent`."""
    module = MaskedActorCritic(observation_space=observation_space, action_space=action_space,
                               model_config=model_config or {})
    module.set_state(state)
    module.eval()
    return PolicyAgent(module.greedy, name=name, version=version)
