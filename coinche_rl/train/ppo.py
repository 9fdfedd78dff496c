"""A CleanRL-style PPO for Coinche, in one file (``coinche_rl.train.ppo``).

Read it top to bottom: the settings, the network (masked logits), the rollout on the
numba vector env, the advantages, the clipped PPO update, the league of past selves,
the evaluation, the checkpoint, and at the end the torch-free agent that plays the
exported weights in ``coinche-rl tournament``.

    python -m coinche_rl.train.ppo --minutes 60 --out runs/ppo      # needs: pip install -e '.[nn]'
    coinche-rl tournament --agents coinche_rl.train.ppo:agent:weights=runs/ppo/weights.npz heuristic random

**Self-play, turn-based.** Every seat of :class:`~coinche_rl.envs.vector.VectorCoinche`
is driven here. In game ``i`` the learner plays team ``i % 2`` (both partners, one
shared policy); the other team is played by the game's opponent, fixed by its index:
``self`` (a frozen copy of the learner, refreshed every rollout), ``past`` (a snapshot
of the league, drawn anew every rollout), ``heuristic`` (the numba bot, on the seat's
public state) or ``random`` (uniform legal actions), in the shares of ``--opponents``.

**Advantages in a turn-based game.** Only the learner's own decisions are transitions:
each one's successor is the learner team's *next* decision in the same game (partners
share the team's reward, the discount is 1 by default, so both estimate the same
return); the deal's reward, the team's score difference, arrives on whatever step ends
the deal (often an opponent's) and is credited to the learner's last decision there,
which is then terminal. A rollout's last decision in each game whose deal has not ended
has no successor yet: it bootstraps its predecessor (like CleanRL's ``next_value``) and
is carried into the next rollout, where it is trained once its successor is known. So
no advantage crosses a deal boundary and none is cut at a rollout boundary.

Outputs in ``--out``: ``progress.csv`` (one row per log line: speed, losses, the mean
reward per deal against each opponent kind), ``eval.csv`` (paired duplicate margins
against ``random`` and ``heuristic`` through the tournament path, with 95% intervals),
TensorBoard events when ``tensorboard`` is installed, ``checkpoint.pt`` (state_dicts and
plain values, loaded with ``weights_only=True``; ``--resume`` continues it, with new
deals), and ``weights.npz``: the policy's weights for numpy (float16), played by
:func:`agent` with no torch.
"""

from __future__ import annotations

import copy
import csv
import hashlib
import io
import json
import os
import sys
import time
from dataclasses import asdict, dataclass
from typing import List, Optional

import numpy as np

from ..agents.policy import PolicyAgent
from ..files import atomic_write, atomic_write_text
from ..envs import kernels as K
from ..envs.family import REWARD_SCALE, env_family
from ..envs.vector import VectorCoinche
from ..rules import four_player_rules
from .common import setting, shared

__all__ = ["Args", "train", "agent", "load_policy", "compute_advantages", "parse_args", "main",
           "OPPONENT_KINDS"]

#: who may play the learner's opponents (``--opponents``)
OPPONENT_KINDS = ("self", "past", "heuristic", "random")


# ----------------------------------------------------------------------------- settings
@dataclass
class Args:
    """Every setting of a run (``python -m coinche_rl.train.ppo --help``)."""
    rules: str = setting("ffb", "the four-player preset to train for")
    seed: int = shared("seed")
    minutes: float = setting(60.0, "wall-time budget, evaluations included (cumulative over "
                                   "resumes)")
    out: str = shared("out", "runs/ppo")
    resume: bool = setting(False, "continue the run in --out (new deals; the rest as saved)")
    max_updates: Optional[int] = setting(None, "stop after this many updates (tests)")
    # the environment and the opponents
    num_envs: int = setting(128, "games played at once")
    num_steps: int = setting(64, "vector steps per rollout (the learner acts in about half)")
    opponents: str = setting("self=0.35,past=0.15,heuristic=0.35,random=0.15",
                        "shares of the games whose other team is played by KIND, for KIND in "
                        "self, past, heuristic, random")
    snapshot_minutes: float = setting(3.0, "add the learner to the league this often")
    league_size: int = setting(20, "past selves kept (the oldest leave)")
    # the network and PPO
    hidden: List[int] = shared("hidden", help="hidden layer widths (shared by the policy and "
                                              "value heads)")
    lr: float = setting(3e-4, "Adam learning rate, annealed linearly to a tenth over --minutes")
    gamma: float = setting(1.0, "discount per learner decision (1: the deal's score, undiscounted)")
    gae_lambda: float = setting(0.95, "GAE lambda")
    update_epochs: int = setting(3, "passes over each rollout")
    minibatch_size: int = setting(1024, "decisions per gradient step")
    clip_coef: float = setting(0.2, "PPO ratio clip")
    ent_coef: float = setting(0.05, "entropy bonus (lower, the auction soon collapses to passing)")
    vf_coef: float = setting(0.5, "value loss weight")
    max_grad_norm: float = setting(0.5, "gradient norm clip")
    target_kl: Optional[float] = setting(None, "stop a rollout's epochs past this approximate KL")
    # logs, evaluation, checkpoints
    log_seconds: float = setting(30.0, "progress.csv interval")
    eval_minutes: float = shared("eval_minutes", 5.0, "evaluation interval (0: only at the end)")
    eval_pairs: int = setting(300, "deal pairs of each evaluation, against random and heuristic")
    eval_seed: int = setting(20261207, "the evaluation deal set")
    checkpoint_minutes: float = shared("checkpoint_minutes")
    torch_threads: int = shared("torch_threads")


def parse_args(argv=None) -> Args:
    from .common import parse_args as parse_settings     # tyro, as the other trainers
    return parse_settings(argv, Args, "python -m coinche_rl.train.ppo",
                          "train a masked PPO agent by self-play (see coinche_rl.train.ppo)")


def opponent_shares(text: str) -> dict:
    """``"self=0.5,heuristic=0.5"`` -> ``{"self": 0.5, "heuristic": 0.5}``, checked."""
    shares = {}
    for item in text.split(","):
        kind, eq, value = item.partition("=")
        kind = kind.strip()
        if kind not in OPPONENT_KINDS or not eq:
            raise ValueError(f"--opponents: {item!r} is not KIND=SHARE with KIND in "
                             f"{', '.join(OPPONENT_KINDS)}")
        shares[kind] = float(value)
    if min(shares.values()) < 0 or sum(shares.values()) <= 0:
        raise ValueError(f"--opponents: shares must be >= 0 and not all 0, not {text!r}")
    return shares


def game_opponents(shares: dict, num_envs: int) -> np.ndarray:
    """The opponent kind (an index of :data:`OPPONENT_KINDS`) of each game: contiguous
    blocks in proportion to ``shares``."""
    total = sum(shares.values())
    kinds = np.zeros(num_envs, dtype=np.int64)
    start = 0
    for k, kind in enumerate(OPPONENT_KINDS):
        n = int(round(num_envs * shares.get(kind, 0.0) / total))
        kinds[start:start + n] = k
        start += n
    kinds[start:] = max(k for k, kind in enumerate(OPPONENT_KINDS) if shares.get(kind, 0) > 0)
    return kinds           # a block of consecutive games: both learner teams (i % 2) alike


# ------------------------------------------------------------------------------ network
#: illegal actions' logit: as good as -inf for the policy, and finite, so that the
#: entropy's 0 * log 0 is 0 and not NaN
MASKED_LOGIT = -1e9


def make_model(obs_size: int, n_actions: int, hidden: List[int], obs_high: np.ndarray):
    """An MLP trunk (the observation divided by its bounds, then ReLU layers) with a
    policy head (logits over the actions) and a value head."""
    import torch
    from torch import nn

    class ActorCritic(nn.Module):
        def __init__(self):
            super().__init__()
            self.register_buffer("obs_scale", torch.as_tensor(1.0 / obs_high, dtype=torch.float32))
            layers, width = [], obs_size
            for h in hidden:
                layers += [nn.Linear(width, h), nn.ReLU()]
                width = h
            self.trunk = nn.Sequential(*layers)
            self.policy = nn.Linear(width, n_actions)
            self.value = nn.Linear(width, 1)
            for m in self.trunk:
                if isinstance(m, nn.Linear):
                    nn.init.orthogonal_(m.weight, 2 ** 0.5)
                    nn.init.zeros_(m.bias)
            nn.init.orthogonal_(self.policy.weight, 0.01)     # a near-uniform first policy
            nn.init.zeros_(self.policy.bias)
            nn.init.orthogonal_(self.value.weight, 1.0)
            nn.init.zeros_(self.value.bias)

        def forward(self, obs, mask):
            """Masked logits [B, A] and values [B] of observations ``obs`` whose legal
            actions are ``mask`` (bool)."""
            h = self.trunk(obs * self.obs_scale)
            logits = self.policy(h).masked_fill(~mask, MASKED_LOGIT)
            return logits, self.value(h).squeeze(-1)

    return ActorCritic()


def sample(model, obs: np.ndarray, mask: np.ndarray):
    """Sample an action for each row (no gradient): actions, log-probabilities, values."""
    import torch
    with torch.no_grad():
        logits, value = model(torch.from_numpy(obs), torch.from_numpy(mask))
        dist = torch.distributions.Categorical(logits=logits)
        action = dist.sample()
        return action.numpy(), dist.log_prob(action).numpy(), value.numpy()


# ---------------------------------------------------------------------------- advantages
def compute_advantages(rewards, values, valid, done, carried, gamma: float, lam: float):
    """GAE over a rollout of ``[T, N]`` arrays where game ``i`` has a learner decision
    at row ``t`` when ``valid[t, i]``; ``done[t, i]``: its deal ended before the learner
    decided again (``rewards[t, i]`` is then the deal's reward); ``carried[i]``: the row
    of game ``i``'s last, unfinished decision (-1 if none), whose value bootstraps its
    predecessor and which is trained in the next rollout. Returns advantages and
    returns ``[T, N]`` (zero outside the trained rows)."""
    T, N = valid.shape
    adv = np.zeros((T, N), dtype=np.float32)
    next_value = np.zeros(N, dtype=np.float32)
    last_gae = np.zeros(N, dtype=np.float32)
    for t in range(T - 1, -1, -1):
        boot = carried == t                   # the unfinished decision: a bootstrap only
        next_value[boot] = values[t, boot]
        last_gae[boot] = 0.0
        v = valid[t] & ~boot
        going = 1.0 - done[t].astype(np.float32)
        delta = rewards[t] + gamma * next_value * going - values[t]
        gae = delta + gamma * lam * going * last_gae
        adv[t, v] = gae[v]
        last_gae[v] = gae[v]
        next_value[v] = values[t, v]
    return adv, adv + values


# -------------------------------------------------------------------------------- train
def train(args: Args) -> dict:
    import torch

    torch.set_num_threads(args.torch_threads)
    rules = four_player_rules(args.rules)
    fam = env_family(rules)
    obs_size, n_actions = fam.observation_size, 120
    shares = opponent_shares(args.opponents)
    os.makedirs(args.out, exist_ok=True)
    ckpt_path = os.path.join(args.out, "checkpoint.pt")
    weights_path = os.path.join(args.out, "weights.npz")

    torch.manual_seed(args.seed)
    model = make_model(obs_size, n_actions, args.hidden, np.asarray(fam.observation.HIGH))
    optimizer = torch.optim.Adam(model.parameters(), lr=args.lr, eps=1e-5)
    league: List[dict] = []             # state_dicts of past selves
    updates, decisions, deals, elapsed0 = 0, 0, 0, 0.0
    evals: List[dict] = []
    if args.resume:
        ck = torch.load(ckpt_path, weights_only=True)
        model.load_state_dict(ck["model"])
        optimizer.load_state_dict(ck["optimizer"])
        league = list(ck["league"])
        updates, decisions, deals = int(ck["updates"]), int(ck["decisions"]), int(ck["deals"])
        elapsed0 = float(ck["elapsed"])
        evals = json.loads(ck["evals"])
        torch.manual_seed(args.seed + updates)

    # the games: learner team i % 2, opponent kind by index
    N, T = args.num_envs, args.num_steps
    rng = np.random.default_rng([args.seed, updates])
    venv = VectorCoinche(N, rules=rules, seed=int(rng.integers(2 ** 62)))
    ts = venv.reset()
    team = np.arange(N) % 2
    kind_of = game_opponents(shares, N)
    heuristic = _heuristic_policy(rules)
    self_net, past_net = copy.deepcopy(model), copy.deepcopy(model)
    pub = np.zeros((N, fam.state_size), dtype=np.int64)
    seats = np.zeros(N, dtype=np.int64)

    # the rollout buffers: row 0 holds the decisions carried from the previous rollout
    R = T + 1
    obs_b = np.zeros((R, N, obs_size), dtype=np.float32)
    mask_b = np.zeros((R, N, n_actions), dtype=bool)
    act_b = np.zeros((R, N), dtype=np.int64)
    logp_b = np.zeros((R, N), dtype=np.float32)
    val_b = np.zeros((R, N), dtype=np.float32)
    rew_b = np.zeros((R, N), dtype=np.float32)
    done_b = np.zeros((R, N), dtype=bool)
    valid_b = np.zeros((R, N), dtype=bool)
    last = np.full(N, -1, dtype=np.int64)      # row of each game's latest learner decision

    progress_csv = _CsvLog(os.path.join(args.out, "progress.csv"))
    eval_csv = _CsvLog(os.path.join(args.out, "eval.csv"))
    tb = _tensorboard(args.out)
    budget_s = args.minutes * 60.0
    t0 = time.perf_counter()
    clock = lambda: elapsed0 + time.perf_counter() - t0          # noqa: E731
    next_log = next_snapshot = next_ckpt = 0.0
    next_eval = clock() + args.eval_minutes * 60 if args.eval_minutes > 0 else float("inf")
    reward_sums = np.zeros(len(OPPONENT_KINDS))
    reward_counts = np.zeros(len(OPPONENT_KINDS))
    steps_since, time_since, losses = 0, time.perf_counter(), {}
    decisions_since, deals_since = 0, 0
    print(f"PPO on {args.rules}: {N} games, {T} steps a rollout, opponents {shares}, "
          f"budget {args.minutes:g} min, out {args.out}", flush=True)

    while clock() < budget_s and (args.max_updates is None or updates < args.max_updates):
        # ---- opponents of this rollout
        self_net.load_state_dict(model.state_dict())
        if league:
            past_net.load_state_dict(league[int(rng.integers(len(league)))])
        else:
            past_net.load_state_dict(model.state_dict())
        for g in (self_net, past_net):
            g.eval()
        frac = min(clock() / budget_s, 1.0)
        for pg in optimizer.param_groups:
            pg["lr"] = args.lr * (1.0 - 0.9 * frac)

        # ---- rollout: T steps of every game
        for t in range(1, R):
            obs, mask, cur = ts.obs, ts.action_mask.astype(bool), ts.current_player
            actions = np.zeros(N, dtype=np.int64)
            mine = cur % 2 == team
            i = np.flatnonzero(mine)
            a, logp, v = sample(model, obs[i], mask[i])
            actions[i] = a
            obs_b[t, i], mask_b[t, i], act_b[t, i] = obs[i], mask[i], a
            logp_b[t, i], val_b[t, i], valid_b[t, i] = logp, v, True
            last[i] = t
            for k, kind in enumerate(OPPONENT_KINDS):
                j = np.flatnonzero(~mine & (kind_of == k))
                if len(j) == 0:
                    continue
                if kind in ("self", "past"):
                    actions[j] = sample(self_net if kind == "self" else past_net,
                                        obs[j], mask[j])[0]
                elif kind == "heuristic":
                    K.public_states_of(venv.states, venv.params, j, len(j), pub, seats)
                    actions[j] = heuristic(pub[:len(j)], venv.params, seats[:len(j)])
                else:
                    actions[j] = (rng.random((len(j), n_actions)) * mask[j]).argmax(axis=1)
            ts = venv.step(actions)
            # a deal ended: its reward to the learner's last decision there, now terminal
            ended = np.flatnonzero(ts.terminated)
            if len(ended):
                r = ts.rewards[ended, team[ended]]
                np.add.at(reward_sums, kind_of[ended], r)
                np.add.at(reward_counts, kind_of[ended], 1)
                deals += len(ended)
                deals_since += len(ended)
                has = last[ended] >= 0
                e = ended[has]
                rew_b[last[e], e] = r[has] / REWARD_SCALE
                done_b[last[e], e] = True
                last[e] = -1
        steps_since += T * N

        # ---- advantages; each game's unfinished last decision waits for the next rollout
        carried = last.copy()
        adv, ret = compute_advantages(rew_b, val_b, valid_b, done_b, carried, args.gamma,
                                      args.gae_lambda)
        train_rows = valid_b.copy()
        has = carried >= 0
        train_rows[carried[has], np.flatnonzero(has)] = False
        b_obs, b_mask, b_act = obs_b[train_rows], mask_b[train_rows], act_b[train_rows]
        b_logp, b_adv, b_ret, b_val = (logp_b[train_rows], adv[train_rows], ret[train_rows],
                                       val_b[train_rows])
        decisions += len(b_act)
        decisions_since += len(b_act)

        # ---- the clipped PPO update
        losses = _ppo_update(model, optimizer, args, rng, b_obs, b_mask, b_act, b_logp, b_adv,
                             b_ret, b_val)
        updates += 1

        # ---- carry the unfinished decisions to row 0, clear the rest
        g = np.flatnonzero(has)
        for buf in (obs_b, mask_b, act_b, logp_b, val_b):
            buf[0, g] = buf[carried[g], g]
        for buf in (rew_b, done_b, valid_b):
            buf[:] = False if buf.dtype == bool else 0
        valid_b[0, g] = True
        last[:] = np.where(has, 0, -1)

        # ---- logs, league, evaluation, checkpoint
        now = clock()
        if now >= next_log or now >= budget_s:
            dt = time.perf_counter() - time_since
            row = {"wall_s": round(now, 1), "updates": updates, "decisions": decisions,
                   "deals": deals, "env_steps_per_s": round(steps_since / dt, 1),
                   "decisions_per_deal": round(decisions_since / max(deals_since, 1), 2),
                   **losses}
            for k, kind in enumerate(OPPONENT_KINDS):
                if reward_counts[k]:
                    row[f"reward_vs_{kind}"] = round(reward_sums[k] / reward_counts[k], 2)
            progress_csv.write(row)
            _tb_log(tb, row, decisions)
            print(" | ".join(f"{k} {v}" for k, v in row.items()), flush=True)
            reward_sums[:] = 0
            reward_counts[:] = 0
            steps_since, time_since = 0, time.perf_counter()
            decisions_since = deals_since = 0
            next_log = now + args.log_seconds
        if now >= next_snapshot:
            league.append({k: v.clone() for k, v in model.state_dict().items()})
            league = league[-args.league_size:]
            next_snapshot = now + args.snapshot_minutes * 60
        if now >= next_eval:
            evals += _evaluate(model, args, rules, weights_path, now, updates, decisions,
                               eval_csv, tb)
            next_eval = clock() + args.eval_minutes * 60
        if clock() >= next_ckpt:
            _save(ckpt_path, model, optimizer, league, args, updates, decisions, deals,
                  clock(), evals)
            next_ckpt = clock() + args.checkpoint_minutes * 60

    # ---- the end: evaluate what is exported, and save
    evals += _evaluate(model, args, rules, weights_path, clock(), updates, decisions, eval_csv, tb)
    _save(ckpt_path, model, optimizer, league, args, updates, decisions, deals, clock(), evals)
    if tb is not None:
        tb.close()
    return {"updates": updates, "decisions": decisions, "deals": deals,
            "minutes": round(clock() / 60, 2), "weights": weights_path, "evaluations": evals}


def _ppo_update(model, optimizer, args, rng, b_obs, b_mask, b_act, b_logp, b_adv, b_ret,
                b_val) -> dict:
    """``update_epochs`` passes of clipped PPO over the rollout's decisions, in shuffled
    minibatches; the last minibatch's statistics."""
    import torch
    model.train()
    obs, mask, act = torch.from_numpy(b_obs), torch.from_numpy(b_mask), torch.from_numpy(b_act)
    old_logp, adv = torch.from_numpy(b_logp), torch.from_numpy(b_adv)
    ret = torch.from_numpy(b_ret)
    n = len(act)
    stats = {}
    for _ in range(args.update_epochs):
        order = rng.permutation(n)
        for start in range(0, n, args.minibatch_size):
            mb = torch.from_numpy(order[start:start + args.minibatch_size])
            logits, value = model(obs[mb], mask[mb])
            dist = torch.distributions.Categorical(logits=logits)
            logp = dist.log_prob(act[mb])
            log_ratio = logp - old_logp[mb]
            ratio = log_ratio.exp()
            a = adv[mb]
            a = (a - a.mean()) / (a.std() + 1e-8) if len(a) > 1 else a
            pg_loss = torch.max(-a * ratio,
                                -a * ratio.clamp(1 - args.clip_coef, 1 + args.clip_coef)).mean()
            v_loss = 0.5 * ((value - ret[mb]) ** 2).mean()
            entropy = dist.entropy().mean()
            loss = pg_loss + args.vf_coef * v_loss - args.ent_coef * entropy
            optimizer.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(model.parameters(), args.max_grad_norm)
            optimizer.step()
            with torch.no_grad():
                approx_kl = ((ratio - 1) - log_ratio).mean().item()
                clipfrac = ((ratio - 1).abs() > args.clip_coef).float().mean().item()
            stats = {"policy_loss": round(pg_loss.item(), 5), "value_loss": round(v_loss.item(), 5),
                     "entropy": round(entropy.item(), 4), "approx_kl": round(approx_kl, 5),
                     "clipfrac": round(clipfrac, 4), "lr": optimizer.param_groups[0]["lr"]}
        if args.target_kl is not None and stats.get("approx_kl", 0) > args.target_kl:
            break
    model.eval()
    return stats


def _heuristic_policy(rules):
    """The heuristic as a batched policy over public states (the vector env's own
    opponent plugin)."""
    from ..agents.env_plugins import vector_opponent
    return vector_opponent("heuristic", rules)


def _evaluate(model, args, rules, weights_path, now, updates, decisions, eval_csv, tb) -> list:
    """Export the weights, then play them through the tournament path
    (:func:`agent` by its import-path spec) in paired duplicates against ``random``
    and ``heuristic``: one row each in ``eval.csv``."""
    from ..arena import run_duplicate
    export_weights(model, weights_path, rules, {"updates": updates, "decisions": decisions,
                                                "minutes": round(now / 60, 2)})
    # the arena keeps one agent per spec in a process: the update in the spec makes each
    # evaluation load the weights it exported
    spec = f"{__name__}:agent:weights={os.path.abspath(weights_path)},update={updates}"
    rows = []
    for other in ("random", "heuristic"):
        t = time.perf_counter()
        r = run_duplicate(spec, other, args.eval_pairs, preset=rules, seed=args.eval_seed)
        row = {"wall_s": round(now, 1), "updates": updates, "decisions": decisions,
               "opponent": other, "margin": round(r.mean, 2), "ci95": round(r.ci95, 2),
               "pairs": r.n, "eval_s": round(time.perf_counter() - t, 1)}
        eval_csv.write(row)
        if tb is not None:
            tb.add_scalar(f"eval/margin_vs_{other}", r.mean, decisions)
        print(f"eval after {now / 60:.1f} min, {updates} updates: vs {other} "
              f"{r.mean:+.1f} ± {r.ci95:.1f} per deal ({r.n} pairs)", flush=True)
        rows.append(row)
    return rows


def _save(path, model, optimizer, league, args, updates, decisions, deals, elapsed, evals):
    import torch
    state = {"model": model.state_dict(), "optimizer": optimizer.state_dict(),
             "league": league, "args": json.dumps(asdict(args)), "updates": updates,
             "decisions": decisions, "deals": deals, "elapsed": elapsed,
             "evals": json.dumps(evals)}
    atomic_write(path, lambda f: torch.save(state, f))


class _CsvLog:
    """Rows appended to a CSV file; the header grows with new columns (rewritten)."""

    def __init__(self, path: str):
        self.path = path
        self.rows = []
        if os.path.exists(path):
            with open(path, newline="", encoding="utf-8") as f:
                self.rows = list(csv.DictReader(f))

    def write(self, row: dict) -> None:
        self.rows.append(row)
        cols = list(dict.fromkeys(k for r in self.rows for k in r))
        text = io.StringIO(newline="")
        w = csv.DictWriter(text, cols)
        w.writeheader()
        w.writerows(self.rows)
        atomic_write_text(self.path, text.getvalue())


def _tensorboard(out: str):
    try:
        from torch.utils.tensorboard import SummaryWriter
        return SummaryWriter(out)
    except Exception:                     # tensorboard is optional
        return None


def _tb_log(tb, row: dict, step: int) -> None:
    if tb is not None:
        for k, v in row.items():
            if isinstance(v, (int, float)):
                tb.add_scalar(f"train/{k}", v, step)


# -------------------------------------------------------- export, and play without torch
def export_weights(model, path: str, rules, training: dict) -> str:
    """The policy's layers (trunk and policy head, float16) and the observation's scale,
    with ``rules`` and ``training`` facts as JSON, to ``path`` (``.npz``, atomically)."""
    arrays = {}
    linears = [m for m in model.trunk if hasattr(m, "weight")] + [model.policy]
    for n, m in enumerate(linears):
        arrays[f"w{n}"] = m.weight.detach().numpy().T.astype(np.float16)
        arrays[f"b{n}"] = m.bias.detach().numpy().astype(np.float16)
    arrays["obs_scale"] = model.obs_scale.numpy().astype(np.float32)
    arrays["meta"] = np.array(json.dumps({"kind": "coinche_rl.train.ppo", "rules": rules.name,
                                          "layers": len(linears), "training": training}))
    atomic_write(path, lambda f: np.savez_compressed(f, **arrays))
    return path


def load_policy(weights: str, greedy: bool = True, seed: int = 0):
    """``policy(observation, action_mask) -> action`` of an exported ``weights.npz``, in
    numpy: the most probable legal action (``greedy``) or one sampled."""
    with np.load(weights) as z:
        meta = json.loads(str(z["meta"]))
        layers = [(z[f"w{n}"].astype(np.float32), z[f"b{n}"].astype(np.float32))
                  for n in range(meta["layers"])]
        scale = z["obs_scale"]
    rng = np.random.default_rng(seed)

    def policy(observation, action_mask):
        if observation.shape != scale.shape:
            raise ValueError(f"{weights} plays observations of {scale.shape[0]} values (the "
                             f"four-player game), not {observation.shape}")
        h = observation * scale
        for w, b in layers[:-1]:
            h = np.maximum(h @ w + b, 0.0)
        logits = np.where(action_mask == 1, h @ layers[-1][0] + layers[-1][1], -np.inf)
        if greedy:
            return int(np.argmax(logits))
        p = np.exp(logits - logits.max())
        return int(rng.choice(len(p), p=p / p.sum()))
    return policy


def agent(weights: str = "", greedy: bool = True, update: int = 0) -> PolicyAgent:
    """The agent of an exported run, for the tournaments (no torch):
    ``coinche_rl.train.ppo:agent:weights=runs/ppo/weights.npz``. ``update`` only names
    the export: a tournament builds one agent per spec in a process, so a run's
    evaluations, which rewrite one file, give their update to get a new agent."""
    if not weights:
        raise ValueError("coinche_rl.train.ppo:agent needs weights=PATH (a run's weights.npz)")
    if not os.path.isfile(weights):
        raise ValueError(f"coinche_rl.train.ppo:agent: no weights file {weights!r}")
    with open(weights, "rb") as f:
        version = hashlib.sha256(f.read()).hexdigest()[:16]
    return PolicyAgent(load_policy(weights, greedy), name="ppo", version=version)


def main(argv=None) -> int:
    res = train(parse_args(argv))
    print(json.dumps({k: v for k, v in res.items() if k != "evaluations"}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
