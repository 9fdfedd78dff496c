"""The CleanRL-style PPO (``coinche_rl.train.ppo``).

* advantages in turn-based play: a hand-built rollout where the learner's decisions
  are interleaved with the opponents' steps, a deal ends on an opponent's step, a new
  deal starts, and the rollout stops mid-deal (the last decision bootstraps and waits);
* a tiny run (a few updates, seconds) writes a checkpoint that loads with
  ``weights_only=True`` and a ``weights.npz`` that ``coinche-rl tournament`` plays
  through the policy adapter, torch-free, with the same choices as the torch network;
* the opponent shares and the weights file's checks.
"""

from __future__ import annotations

import json

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the nn extra (torch) is not installed")

from coinche_rl.envs.vector import VectorCoinche              # noqa: E402
from coinche_rl.train import ppo                               # noqa: E402


def test_advantages_follow_the_learners_own_decisions_across_opponent_steps():
    # one game, 7 rows: decisions at rows 1, 3 (the deal ends after it, reward 2),
    # 4, 6 (unfinished: carried); rows 0, 2, 5 are opponents' steps
    T = 7
    valid = np.zeros((T, 1), dtype=bool)
    valid[[1, 3, 4, 6], 0] = True
    values = np.zeros((T, 1), dtype=np.float32)
    values[[1, 3, 4, 6], 0] = [0.5, 1.0, -0.25, 0.75]
    rewards = np.zeros((T, 1), dtype=np.float32)
    done = np.zeros((T, 1), dtype=bool)
    rewards[3, 0], done[3, 0] = 2.0, True
    gamma, lam = 0.9, 0.8
    adv, ret = ppo.compute_advantages(rewards, values, valid, done, np.array([6]), gamma, lam)
    d3 = 2.0 - 1.0                                       # terminal: no bootstrap
    d1 = 0.0 + gamma * 1.0 - 0.5                         # successor: row 3, same deal
    d4 = 0.0 + gamma * 0.75 - (-0.25)                    # bootstrapped by the carried row
    expected = {1: d1 + gamma * lam * d3, 3: d3, 4: d4}
    for t in range(T):
        assert adv[t, 0] == pytest.approx(expected.get(t, 0.0), abs=1e-6), t
    assert ret[3, 0] == pytest.approx(2.0)
    assert adv[6, 0] == 0.0                              # trained in the next rollout


def test_games_are_independent_in_the_advantages():
    valid = np.ones((3, 2), dtype=bool)
    values = np.zeros((3, 2), dtype=np.float32)
    rewards = np.zeros((3, 2), dtype=np.float32)
    done = np.zeros((3, 2), dtype=bool)
    rewards[2, 0], done[2, 0] = 1.0, True                 # game 0 ends; game 1 goes on
    adv, _ = ppo.compute_advantages(rewards, values, valid, done, np.array([-1, 2]), 1.0, 1.0)
    assert adv[:, 0].tolist() == [1.0, 1.0, 1.0]
    assert adv[:, 1].tolist() == [0.0, 0.0, 0.0]


def test_opponent_shares_are_checked_and_split_over_both_teams():
    kinds = ppo.game_opponents(ppo.opponent_shares("self=0.5,heuristic=0.5"), 8)
    names = [ppo.OPPONENT_KINDS[k] for k in kinds]
    assert sorted(names) == ["heuristic"] * 4 + ["self"] * 4
    for team in (0, 1):                                  # game i's learner team is i % 2
        assert sorted(names[team::2]) == ["heuristic", "heuristic", "self", "self"]
    with pytest.raises(ValueError, match="KIND=SHARE"):
        ppo.opponent_shares("selfish=1")
    with pytest.raises(ValueError, match="not all 0"):
        ppo.opponent_shares("self=0,random=0")


def test_a_tiny_run_plays_in_a_tournament_through_the_policy_adapter(tmp_path, capsys):
    out = tmp_path / "run"
    args = ppo.Args(out=str(out), num_envs=8, num_steps=8, hidden=[16], max_updates=2,
                    minibatch_size=16, eval_minutes=0, eval_pairs=2, log_seconds=0)
    res = ppo.train(args)
    assert res["updates"] == 2 and res["decisions"] > 0
    assert [e["opponent"] for e in res["evaluations"]] == ["random", "heuristic"]
    ck = torch.load(out / "checkpoint.pt", weights_only=True)
    assert ck["updates"] == 2 and json.loads(ck["args"])["hidden"] == [16]
    assert (out / "progress.csv").read_text().startswith("wall_s,updates,")
    assert len((out / "eval.csv").read_text().splitlines()) == 3

    # the exported weights choose what the torch network would (greedy), without torch
    model = ppo.make_model(620, 120, [16], np.ones(620, dtype=np.float32))
    model.load_state_dict(ck["model"])
    policy = ppo.load_policy(str(out / "weights.npz"))
    ts = VectorCoinche(16, rules="ffb", seed=5).reset()
    logits, _ = model(torch.from_numpy(ts.obs), torch.from_numpy(ts.action_mask == 1))
    for i in range(16):
        top = logits[i].detach().numpy()
        choice = policy(ts.obs[i], ts.action_mask[i])
        assert ts.action_mask[i, choice] == 1
        assert top[choice] >= top.max() - 1e-2           # float16 weights: ties within

    # coinche-rl tournament plays it by its import-path spec
    from coinche_rl.cli import main
    spec = f"coinche_rl.train.ppo:agent:weights={out / 'weights.npz'}"
    capsys.readouterr()
    assert main(["tournament", "--agents", spec, "random", "--deals", "2",
                 "--no-progress"]) == 0
    assert "coinche_rl.train.ppo:agent" in capsys.readouterr().out

    # a resumed run continues the counters
    res = ppo.train(ppo.Args(**{**vars(args), "resume": True, "max_updates": 3}))
    assert res["updates"] == 3


def test_the_agent_refuses_a_missing_weights_file(tmp_path):
    with pytest.raises(ValueError, match="needs weights=PATH"):
        ppo.agent()
    with pytest.raises(ValueError, match="no weights file"):
        ppo.agent(weights=str(tmp_path / "none.npz"))


def test_each_evaluation_plays_the_weights_it_exported(tmp_path, monkeypatch):
    # the arena reuses an agent built for the same spec in a process: evaluations that
    # rewrite one weights file must still each load their own weights
    import hashlib
    played = []
    real = ppo.load_policy

    def spy(weights, *a, **k):
        with open(weights, "rb") as f:
            digest = hashlib.sha256(f.read()).hexdigest()
        policy = real(weights, *a, **k)

        def playing(observation, action_mask):
            played.append(digest)
            return policy(observation, action_mask)
        return playing
    monkeypatch.setattr(ppo, "load_policy", spy)
    args = ppo.Args(out=str(tmp_path), eval_pairs=1)
    csv = ppo._CsvLog(str(tmp_path / "eval.csv"))
    rules = ppo.four_player_rules("ffb")
    for update in (1, 2):
        torch.manual_seed(update)
        model = ppo.make_model(620, 120, [8], np.ones(620, dtype=np.float32))
        played.clear()
        ppo._evaluate(model, args, rules, str(tmp_path / "weights.npz"), 0.0, update, 0, csv,
                      None)
        with open(tmp_path / "weights.npz", "rb") as f:
            assert set(played) == {hashlib.sha256(f.read()).hexdigest()}


def test_the_shipped_weights_of_the_60_minute_run_load_and_play():
    from pathlib import Path
    shipped = Path(__file__).resolve().parents[1] / "benchmarks" / "ppo" / "weights.npz"
    policy = ppo.load_policy(str(shipped))
    ts = VectorCoinche(4, rules="ffb", seed=1).reset()
    for i in range(4):
        assert ts.action_mask[i, policy(ts.obs[i], ts.action_mask[i])] == 1
