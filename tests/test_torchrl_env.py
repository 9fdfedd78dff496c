"""TorchRL's batched env over the numba vector env (issue 46 point 2): specs that pass
TorchRL's own check, episodes that end with the learner's final observation, partial
resets that change nothing, seeds that replay, and a short PPO whose actor plays a
tournament through PolicyAgent."""

import numpy as np
import pytest

torch = pytest.importorskip("torch", reason="the nn extra (torch) is not installed")
pytest.importorskip("torchrl", reason="optional: pip install -e '.[torchrl]'")

from torchrl.envs.utils import check_env_specs  # noqa: E402

from coinche_rl.agents import PolicyAgent, register_agent  # noqa: E402
from coinche_rl.agents import registry  # noqa: E402
from coinche_rl.arena import run_duplicate  # noqa: E402
from coinche_rl.envs.vector import CoincheVectorEnv  # noqa: E402
from coinche_rl.train.torchrl_env import CoincheTorchRLEnv, greedy_policy, ppo  # noqa: E402


@pytest.mark.parametrize("rules, opponents", [("ffb", None), ("belote_a_deux", "heuristic")])
def test_the_specs_pass_torchrl_s_check(rules, opponents):
    env = CoincheTorchRLEnv(6, rules=rules, opponents=opponents, seed=1)
    check_env_specs(env, seed=0)
    td = env.rollout(40, break_when_any_done=False)
    legal = td["action_mask"].gather(-1, td["action"][..., None])
    assert legal.all()                                   # random actions drawn legal


def test_a_rollout_is_the_vector_env_s_game_with_final_observations():
    n, steps = 4, 30
    env = CoincheTorchRLEnv(n, rules="ffb", seed=5, normalize_reward=False)
    # the same games driven by hand: reset 0 of seed 5 deals from sub-stream (5, 0)
    venv = CoincheVectorEnv(n, rules="ffb")
    td = env.reset()
    obs, infos = venv.reset(seed=int(np.random.SeedSequence([5, 0]).generate_state(1)[0] >> 1))
    ended = 0
    for t in range(steps):
        np.testing.assert_array_equal(td["observation"].numpy(), obs)
        np.testing.assert_array_equal(td["action_mask"].numpy(), infos["action_mask"] == 1)
        td = env.rand_action(td)
        a = td["action"].numpy()
        obs, reward, term, trunc, infos = venv.step(a)
        td = env.step(td)
        nxt = td["next"]
        np.testing.assert_array_equal(nxt["reward"].numpy()[:, 0], reward.astype(np.float32))
        np.testing.assert_array_equal(nxt["done"].numpy()[:, 0], term)
        for i in np.flatnonzero(term):                   # the finished deal's last view
            np.testing.assert_array_equal(nxt["observation"][i].numpy(), infos["final_obs"][i])
            assert not nxt["action_mask"][i].any()
        ended += int(term.sum())
        td = env.step_mdp(td)
        if nxt["done"].any():
            td = env.reset(td.set("_reset", nxt["done"].clone()))   # partial: as rollouts do
    assert ended >= n                                    # every game ended a deal or more


def test_a_user_reset_deals_anew_and_seeds_replay():
    a, b = CoincheTorchRLEnv(3, seed=9), CoincheTorchRLEnv(3, seed=9)
    torch.manual_seed(0)                                 # the random actions' stream
    ra = a.rollout(25, break_when_any_done=False)
    torch.manual_seed(0)
    rb = b.rollout(25, break_when_any_done=False)
    assert (ra["observation"] == rb["observation"]).all()
    first = a.reset()["observation"]
    assert not (first == ra["observation"][:, 0]).all()  # new deals
    a.set_seed(9)
    assert (a.reset()["observation"] == ra["observation"][:, 0]).all()


def test_a_short_ppo_plays_a_tournament_through_policy_agent():
    torch.set_num_threads(1)
    env = CoincheTorchRLEnv(16, rules="ffb", seed=0)
    rows = []
    actor = ppo(env, iterations=2, frames_per_batch=256, minibatch=128, epochs=1, seed=0,
                log=rows.append)
    assert [r["frames"] for r in rows] == [256, 512] and rows[-1]["deals"] > 0
    register_agent("torchrl_test_ppo", lambda: PolicyAgent(greedy_policy(actor)),
                   families=PolicyAgent.FAMILIES, roster=False)
    try:
        r = run_duplicate("torchrl_test_ppo", "random", 2, seed=3)
        assert r.n == 2 and r.x == ("torchrl_test_ppo",) * 2
    finally:
        for key in [k for k in registry._REGISTRY if k[1] == "torchrl_test_ppo"]:
            del registry._REGISTRY[key]
