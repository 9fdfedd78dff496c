"""TorchRL's face of the numba vector env (``coinche_rl.train.torchrl_env``; needs the
``torchrl`` extra: ``pip install -e '.[torchrl]'``).

:class:`CoincheTorchRLEnv` is a native batched ``torchrl.envs.EnvBase`` over
:class:`~coinche_rl.envs.vector.CoincheVectorEnv` (one learning seat, the other seats
played inside numba by ``opponents``): ``batch_size=[N]``, tensors in and out, and the
legal actions both as ``"action_mask"`` in the observation and as the mask of the
``Categorical`` action spec (so ``env.rand_action()`` and ``check_env_specs`` draw
legal actions, and ``torchrl.modules.MaskedCategorical`` reads the mask from the data).

Keys, every tensor batched over ``N`` games:

* ``"observation"``: float32 ``[N, D]`` (``D`` = 620, or 502 with two players), the
  learner's observation as ``coinche_v0`` gives it (its information set only);
* ``"action_mask"``: bool ``[N, 120]``, the learner's legal actions;
* ``"action"``: int64 ``[N]``, an action id (``coinche_rl.actions``);
* ``("next", "reward")``: float32 ``[N, 1]``, the learner's reward (its side's score
  difference of the deal when a deal ends, else 0; divided by 162 unless
  ``normalize_reward=False``);
* ``("next", "done" | "terminated")``: bool ``[N, 1]``, the deal ended; ``"truncated"``
  is always False.

**Episodes end right.** The numba env starts the next deal in the same step as the one
that ends (same-step autoreset). Here the step's ``("next", "observation")`` of a game
whose deal ended is the learner's **final** observation of that deal (the value target
of the last transition), with an all-False ``("next", "action_mask")``, and the new
deal's first observation comes from the partial reset that TorchRL's ``rollout`` and
collectors call for the done games (``"_reset"``): it changes nothing in the numba env,
which already holds it. ``env.reset()`` without ``"_reset"`` deals every game anew.

>>> from coinche_rl.train.torchrl_env import CoincheTorchRLEnv
>>> env = CoincheTorchRLEnv(4, rules="ffb", seed=0)
>>> td = env.reset()
>>> td["observation"].shape, td["action_mask"].dtype, env.batch_size
(torch.Size([4, 620]), torch.bool, torch.Size([4]))
>>> bool(td["action_mask"][torch.arange(4), env.rand_action(td)["action"]].all())
True

:func:`ppo` trains a small masked actor-critic with TorchRL's own PPO pieces (a
``Collector``, ``GAE``, ``ClipPPOLoss``) against ``opponents`` and returns the
actor; ``python -m coinche_rl.train.torchrl_env --help`` runs it from the command line.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Optional, Union

import numpy as np
import torch
from tensordict import TensorDict, TensorDictBase
from torchrl.data import Binary, Bounded, Categorical, Composite, Unbounded
from torchrl.envs import EnvBase

from ..actions import N_ACTIONS
from ..envs.vector import BatchPolicy, CoincheVectorEnv
from ..rules import RuleSet

__all__ = ["CoincheTorchRLEnv", "ppo", "greedy_policy", "main"]


class CoincheTorchRLEnv(EnvBase):
    """``N`` games of the family of ``rules`` as one batched TorchRL env (see the module
    docstring). The arguments are :class:`~coinche_rl.envs.vector.CoincheVectorEnv`'s:
    ``seat`` (the learner's), ``opponents`` (``"random"`` inside numba, an agent spec with
    a batched form such as ``"heuristic"`` or ``"nn"``, or a batched policy), ``seed``
    (the deals' streams; ``env.set_seed(s)`` starts them again), ``reward``,
    ``normalize_reward`` (here True by default: rewards near 1 suit the networks)."""

    batch_locked = True

    def __init__(self, num_envs: int = 64, rules: Union[None, str, RuleSet] = "ffb",
                 seat: int = 0, opponents: Union[None, str, BatchPolicy] = None,
                 seed: Optional[int] = None, reward: str = "difference",
                 normalize_reward: bool = True, device: Union[str, torch.device] = "cpu"):
        super().__init__(device=device, batch_size=torch.Size([int(num_envs)]))
        self.venv = CoincheVectorEnv(int(num_envs), seat=seat, rules=rules,
                                     opponents=opponents, reward=reward, seed=seed,
                                     copy=False, normalize_reward=normalize_reward)
        self._set_seed(seed)
        n = self.venv.num_envs
        space = self.venv.single_observation_space
        dim = space.shape[0]
        self.observation_spec = Composite(
            observation=Bounded(low=torch.zeros(n, dim),
                                high=torch.as_tensor(np.broadcast_to(space.high, (n, dim)).copy()),
                                shape=(n, dim), dtype=torch.float32, device=self.device),
            action_mask=Binary(n=N_ACTIONS, shape=(n, N_ACTIONS), dtype=torch.bool,
                               device=self.device),
            shape=(n,), device=self.device)
        self.action_spec = Categorical(n=N_ACTIONS, shape=(n,), dtype=torch.int64,
                                       device=self.device)
        self.reward_spec = Unbounded(shape=(n, 1), dtype=torch.float32, device=self.device)
        self.done_spec = Composite(
            done=Categorical(2, shape=(n, 1), dtype=torch.bool, device=self.device),
            terminated=Categorical(2, shape=(n, 1), dtype=torch.bool, device=self.device),
            truncated=Categorical(2, shape=(n, 1), dtype=torch.bool, device=self.device),
            shape=(n,), device=self.device)
        self._no_mask = torch.zeros(n, N_ACTIONS, dtype=torch.bool)

    @property
    def rules(self) -> RuleSet:
        return self.venv.rules

    # ------------------------------------------------------------------ TorchRL hooks
    def _current(self) -> TensorDict:
        """The learner's observation and mask in every game now, the action spec's mask
        set to it."""
        obs = torch.from_numpy(self.venv._b.obs.copy())
        mask = torch.from_numpy(self.venv.action_masks())
        self.action_spec.update_mask(mask.to(self.device))
        return TensorDict({"observation": obs, "action_mask": mask},
                          batch_size=self.batch_size, device=self.device)

    def _reset(self, tensordict: Optional[TensorDictBase] = None, **kwargs) -> TensorDictBase:
        partial = tensordict is not None and "_reset" in tensordict.keys()
        if not partial:                      # a user's reset: every game dealt anew,
            # from the seed's next sub-stream (reset k of seed s deals the same games
            # in every run)
            sub = np.random.SeedSequence([self._seed, self._resets]).generate_state(1)
            self._resets += 1
            self.venv.reset(seed=int(sub[0] >> 1))
        # a partial reset (the done games of a rollout): the numba env dealt their next
        # deals in the step that ended them, so the games hold them already
        out = self._current()
        n = self.batch_size[0]
        for key in ("done", "terminated", "truncated"):
            out.set(key, torch.zeros(n, 1, dtype=torch.bool, device=self.device))
        return out

    def _step(self, tensordict: TensorDictBase) -> TensorDictBase:
        actions = tensordict.get("action").detach().cpu().numpy().astype(np.int64, copy=False)
        obs, reward, terminated, truncated, infos = self.venv.step(actions)
        ended = torch.from_numpy(terminated.copy())
        out = self._current()
        if bool(ended.any()):                # the final observation of each ended deal
            final = torch.from_numpy(infos["final_obs"])
            out.set("observation", torch.where(ended[:, None], final, out.get("observation")))
            out.set("action_mask", torch.where(ended[:, None], self._no_mask,
                                               out.get("action_mask")))
        done = ended[:, None].to(self.device)
        out.set("reward", torch.from_numpy(reward.astype(np.float32))[:, None].to(self.device))
        out.set("done", done)
        out.set("terminated", done.clone())
        out.set("truncated", torch.from_numpy(truncated.copy())[:, None].to(self.device))
        return out

    def _set_seed(self, seed: Optional[int]) -> None:
        """The deals of the next resets: reset ``k`` after ``set_seed(s)`` deals from
        sub-stream ``(s, k)`` (None: a seed drawn from the system)."""
        self._seed = int(np.random.SeedSequence().entropy % 2 ** 63 if seed is None else seed)
        self._resets = 0


# --------------------------------------------------------------------------- PPO
def _mlp(sizes, out_scale: float = 1.0) -> torch.nn.Sequential:
    layers = []
    for i, (a, b) in enumerate(zip(sizes[:-1], sizes[1:])):
        lin = torch.nn.Linear(a, b)
        torch.nn.init.orthogonal_(lin.weight, out_scale if i == len(sizes) - 2 else 2 ** 0.5)
        torch.nn.init.zeros_(lin.bias)
        layers.append(lin)
        if i < len(sizes) - 2:
            layers.append(torch.nn.Tanh())
    return torch.nn.Sequential(*layers)


def ppo(env: CoincheTorchRLEnv, iterations: int = 20, frames_per_batch: int = 2048,
        hidden: int = 128, epochs: int = 4, minibatch: int = 512, lr: float = 3e-4,
        gamma: float = 1.0, lmbda: float = 0.95, clip: float = 0.2,
        entropy: float = 0.01, seed: int = 0, log=None):
    """Train a masked actor-critic on ``env`` with TorchRL's PPO pieces; returns the
    actor (a ``ProbabilisticActor`` reading ``"observation"`` and ``"action_mask"``).
    ``log(dict)`` is called after each iteration (frames, mean reward of the finished
    deals, losses, seconds). ``gamma`` is 1 by default: a deal's reward comes at its end
    and is all that counts."""
    from tensordict.nn import TensorDictModule
    from torchrl.collectors import Collector
    from torchrl.data import LazyTensorStorage, ReplayBuffer
    from torchrl.data.replay_buffers import SamplerWithoutReplacement
    from torchrl.modules import MaskedCategorical, ProbabilisticActor, ValueOperator
    from torchrl.objectives import ClipPPOLoss
    from torchrl.objectives.value import GAE

    torch.manual_seed(seed)
    env.set_seed(seed)
    dim = env.observation_spec["observation"].shape[-1]
    logits = TensorDictModule(_mlp([dim, hidden, hidden, N_ACTIONS], 0.01),
                              in_keys=["observation"], out_keys=["logits"])
    actor = ProbabilisticActor(logits, in_keys={"logits": "logits", "mask": "action_mask"},
                               out_keys=["action"], distribution_class=MaskedCategorical,
                               return_log_prob=True, spec=env.action_spec)
    critic = ValueOperator(_mlp([dim, hidden, hidden, 1], 1.0), in_keys=["observation"])
    collector = Collector(env, actor, frames_per_batch=frames_per_batch,
                          total_frames=frames_per_batch * iterations,
                          auto_register_policy_transforms=False)
    advantage = GAE(gamma=gamma, lmbda=lmbda, value_network=critic, average_gae=True)
    loss = ClipPPOLoss(actor, critic, clip_epsilon=clip, entropy_coeff=entropy)
    optim = torch.optim.Adam(loss.parameters(), lr=lr)
    buffer = ReplayBuffer(storage=LazyTensorStorage(frames_per_batch),
                          sampler=SamplerWithoutReplacement(), batch_size=minibatch)
    t0, frames = time.perf_counter(), 0
    for it, batch in enumerate(collector):
        frames += batch.numel()
        done = batch.get(("next", "done")).squeeze(-1)
        rewards = batch.get(("next", "reward")).squeeze(-1)[done]
        with torch.no_grad():
            advantage(batch)
        buffer.extend(batch.reshape(-1))
        for _ in range(epochs):
            for _ in range(max(1, frames_per_batch // minibatch)):
                parts = loss(buffer.sample())
                total = parts["loss_objective"] + parts["loss_critic"] + parts["loss_entropy"]
                optim.zero_grad()
                total.backward()
                torch.nn.utils.clip_grad_norm_(loss.parameters(), 0.5)
                optim.step()
        collector.update_policy_weights_()
        if log is not None:
            log({"iteration": it + 1, "frames": frames, "deals": int(done.sum()),
                 "mean_deal_reward": float(rewards.mean()) if len(rewards) else None,
                 "loss_objective": float(parts["loss_objective"].detach()),
                 "loss_critic": float(parts["loss_critic"].detach()),
                 "seconds": round(time.perf_counter() - t0, 1)})
    collector.shutdown()
    return actor


def greedy_policy(actor):
    """``policy(observation, action_mask) -> action`` of the trained actor's most likely
    legal action (numpy in, int out): for :class:`~coinche_rl.agents.PolicyAgent`,
    which plays it in the tournaments."""
    module = actor.module[0] if hasattr(actor, "module") else actor

    def policy(observation, action_mask):
        with torch.no_grad():
            td = TensorDict({"observation": torch.as_tensor(observation)[None]}, batch_size=[1])
            logits = module(td)["logits"][0]
        logits = logits.masked_fill(~torch.as_tensor(action_mask, dtype=torch.bool), -torch.inf)
        return int(logits.argmax())
    return policy


def main(argv=None) -> dict:
    """``python -m coinche_rl.train.torchrl_env``: PPO against ``--opponents`` for
    ``--iterations``, then a duplicate tournament of the greedy actor against ``random``
    (and ``--against``); prints one JSON object on its last line."""
    p = argparse.ArgumentParser(prog="python -m coinche_rl.train.torchrl_env",
                                description=main.__doc__)
    p.add_argument("--rules", default="ffb")
    p.add_argument("--envs", type=int, default=64, help="games in the batch")
    p.add_argument("--iterations", type=int, default=20)
    p.add_argument("--frames", type=int, default=2048, help="frames per iteration")
    p.add_argument("--opponents", default="random")
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--pairs", type=int, default=50, help="deal pairs of the evaluation")
    p.add_argument("--against", nargs="*", default=["random"])
    args = p.parse_args(argv)
    torch.set_num_threads(1)
    env = CoincheTorchRLEnv(args.envs, rules=args.rules, opponents=args.opponents,
                            seed=args.seed)
    actor = ppo(env, iterations=args.iterations, frames_per_batch=args.frames,
                seed=args.seed, log=lambda row: print(json.dumps(row), flush=True))
    from ..agents import PolicyAgent, register_agent
    from ..arena import run_duplicate
    register_agent("torchrl_ppo", lambda: PolicyAgent(greedy_policy(actor), name="torchrl_ppo"),
                   families=PolicyAgent.FAMILIES, roster=False)
    out = {"rules": args.rules, "iterations": args.iterations,
           "frames": args.iterations * args.frames}
    for other in args.against:
        r = run_duplicate("torchrl_ppo", other, args.pairs, preset=args.rules, seed=args.seed)
        out[f"vs_{other}"] = [round(r.estimate.mean, 2), round(r.estimate.half_width, 2)]
        print(f"torchrl_ppo vs {other}: {r.estimate} per deal ({args.pairs} pairs)", flush=True)
    print(json.dumps(out))
    return out


if __name__ == "__main__":
    sys.exit(0 if main() else 1)
