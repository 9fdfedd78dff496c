"""The single-agent Gymnasium view (``coinche_rl.envs.single_agent``)."""

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from coinche_rl.actions import N_ACTIONS
from coinche_rl.envs import observation as O
from coinche_rl.envs.single_agent import ENV_ID, CoincheSingleAgentEnv
from coinche_rl.game import IllegalActionError


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def run_episode(env, seed, rng, max_steps=5000):
    obs, info = env.reset(seed=seed)
    traj, total = [obs.copy()], 0.0
    for _ in range(max_steps):
        mask = env.action_masks()
        assert mask.dtype == bool and mask.any()
        assert np.array_equal(mask, info["action_mask"].astype(bool))
        a = int(rng.choice(np.flatnonzero(mask)))
        obs, r, term, trunc, info = env.step(a)
        assert not trunc
        assert env.observation_space.contains(obs)
        traj.append((a, r, obs.copy()))
        total += r
        if term:
            assert not env.action_masks().any()
            return total, traj
    raise AssertionError("episode did not end")


def test_check_env():
    # check_env steps with unmasked action_space.sample(): use the AEC penalty mode so
    # that an illegal sample ends the episode instead of raising
    for env in (CoincheSingleAgentEnv(illegal_action="penalty"),
                CoincheSingleAgentEnv(seat=3, rules="classic", illegal_action="penalty"),
                CoincheSingleAgentEnv(seat=2, mode="match", illegal_action="penalty")):
        check_env(env.unwrapped, skip_render_check=True)


def test_penalty_mode_passes_through():
    env = CoincheSingleAgentEnv(seat=1, illegal_action="penalty", illegal_penalty=500)
    obs, info = env.reset(seed=0)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    obs, r, term, trunc, info = env.step(illegal)
    assert term and not trunc and r == -500.0 and not info["action_mask"].any()


def test_make_and_spaces():
    env = gymnasium.make(ENV_ID, seat=1, rules="ffb")
    assert isinstance(env.unwrapped, CoincheSingleAgentEnv)
    assert env.observation_space.shape == (O.OBSERVATION_SIZE,)
    assert env.observation_space.dtype == np.float32
    assert env.action_space == gymnasium.spaces.Discrete(N_ACTIONS)
    obs, info = env.reset(seed=0)
    assert env.observation_space.contains(obs)
    assert info["action_mask"].dtype == np.int8 and info["action_mask"].any()
    assert env.unwrapped.aec.agent_selection == "player_1"
    # importing twice (re-registration guard) is harmless
    import importlib

    import coinche_rl.envs.single_agent as sa
    importlib.reload(sa)
    assert ENV_ID in gymnasium.registry


@pytest.mark.parametrize("seat", [0, 1, 2, 3])
@pytest.mark.parametrize("rules", ["ffb", "classic"])
def test_random_episodes_reward_is_team_score_difference(seat, rules):
    env = CoincheSingleAgentEnv(seat=seat, rules=rules)
    rng = np.random.default_rng(seat)
    for seed in range(6):
        total, _ = run_episode(env, seed, rng)
        deal = env.unwrapped.game
        assert deal.is_terminal
        t = seat & 1
        s = deal.scores
        assert total == s[t] - s[1 - t]
        if deal.result is not None:
            assert s == (deal.result.teams[0].score, deal.result.teams[1].score)


def test_raw_reward():
    env = CoincheSingleAgentEnv(seat=1, reward="raw")
    total, _ = run_episode(env, 5, np.random.default_rng(0))
    assert total == env.game.scores[1]


def test_same_seed_same_trajectory():
    def traj(seed):
        env = CoincheSingleAgentEnv(seat=2)
        return run_episode(env, seed, np.random.default_rng(42))[1]

    a, b = traj(11), traj(11)
    assert len(a) == len(b)
    assert np.array_equal(a[0], b[0])
    for x, y in zip(a[1:], b[1:]):
        assert x[0] == y[0] and x[1] == y[1] and np.array_equal(x[2], y[2])
    c = traj(12)
    assert not np.array_equal(a[0], c[0])          # another seed, another deal


def test_custom_policies_called_for_other_seats_only():
    calls = []

    def make(seat):
        def policy(observation, agent):
            assert agent == f"player_{seat}"
            assert observation["observation"].shape == (O.OBSERVATION_SIZE,)
            mask = observation["action_mask"]
            assert mask.dtype == np.int8 and mask.any()
            calls.append(seat)
            return int(np.flatnonzero(mask)[0])        # first legal action
        return policy

    env = CoincheSingleAgentEnv(seat=0, policies={1: make(1), 3: make(3)})
    rng = np.random.default_rng(1)
    for seed in range(3):
        run_episode(env, seed, rng)
    assert set(calls) == {1, 3}
    # with policies for all three other seats, every non-learner action goes through them
    env = CoincheSingleAgentEnv(seat=0, policies={s: make(s) for s in (1, 2, 3)})
    calls.clear()
    _, traj = run_episode(env, 7, rng)
    learner_steps = len(traj) - 1
    assert 0 not in calls
    assert len(calls) + learner_steps == len(env.game.history)
    for s in (1, 2, 3):      # each seat plays its 8 cards through its policy
        assert calls.count(s) >= sum(1 for seat, _ in env.game.plays if seat == s) == 8
    with pytest.raises(ValueError):
        CoincheSingleAgentEnv(seat=0, policies={0: make(0)})


def test_opponents_one_callable_or_spec_for_every_other_seat():
    calls = []

    def first_legal(observation, agent):
        calls.append(agent)
        return int(np.flatnonzero(observation["action_mask"])[0])

    env = CoincheSingleAgentEnv(seat=2, opponents=first_legal)
    assert set(env.policies) == {0, 1, 3}
    run_episode(env, 3, np.random.default_rng(0))
    assert set(calls) == {"player_0", "player_1", "player_3"}
    # the old policies= keyword and the new opponents= give the same game
    a = CoincheSingleAgentEnv(seat=0, policies={1: first_legal})
    b = CoincheSingleAgentEnv(seat=0, opponents={1: first_legal})
    assert run_episode(a, 4, np.random.default_rng(1))[0] == \
        run_episode(b, 4, np.random.default_rng(1))[0]
    assert a.game.history == b.game.history
    # a spec string for the three seats: one agent each (more in tests/test_env_plugins.py)
    env = CoincheSingleAgentEnv(seat=0, opponents="heuristic")
    assert sorted(env._agents) == [1, 2, 3] and not env.policies
    assert len({id(x) for x in env._agents.values()}) == 3
    run_episode(env, 5, np.random.default_rng(2))
    assert env.game.is_terminal


def test_match_mode_runs_to_the_end():
    env = CoincheSingleAgentEnv(seat=1, mode="match", rules="ffb")
    total, traj = run_episode(env, 3, np.random.default_rng(3), max_steps=20000)
    m = env.game
    assert m.is_terminal and len(m.deals) >= 1
    assert total == m.scores[1] - m.scores[0]
    with pytest.raises(RuntimeError):
        env.step(0)


def test_illegal_action_raises_and_state_unchanged():
    env = CoincheSingleAgentEnv()
    obs, info = env.reset(seed=4)
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    state = env.aec.state()
    with pytest.raises(IllegalActionError):
        env.step(illegal)
    with pytest.raises(ValueError):
        env.step(illegal)
    assert np.array_equal(env.aec.state(), state)
    legal = int(np.flatnonzero(info["action_mask"])[0])
    env.step(legal)


def test_reset_options_and_redeal_after_void():
    # fixed dealer passes through
    env = CoincheSingleAgentEnv(seat=0, dealer=0)
    env.reset(seed=1)
    assert env.game.dealer == 0 and env.aec.agent_selection == "player_0"
    # a void deal (the learner passes and so do all the others) ends the episode with 0
    env = CoincheSingleAgentEnv(seat=0, policies={s: (lambda o, a: 0) for s in (1, 2, 3)})
    obs, info = env.reset(seed=2)
    r, term = 0.0, False
    while not term:
        obs, r, term, _, info = env.step(0)
    assert env.game.is_void and r == 0.0
    # reset() always returns a state where the learner acts (redeal on a void deal)
    env._advance_orig = env._advance
    calls = {"n": 0}

    def void_once():
        if calls["n"] == 0:            # simulate a void deal ending before the learner acts
            calls["n"] += 1
            while not env.aec.terminations[env.aec.agent_selection]:
                env.aec.step(0)
            return 0.0
        return env._advance_orig()

    env._advance = void_once
    obs, info = env.reset(seed=5)
    assert calls["n"] == 1 and info["action_mask"].any() and not env.game.is_terminal
    assert env.aec.agent_selection == "player_0"


def test_a_short_maskable_ppo_run_when_sb3_contrib_is_installed():
    sb3_contrib = pytest.importorskip("sb3_contrib", reason="optional: pip install sb3-contrib")
    env = gymnasium.make("coinche_rl/Coinche-v0", rules="ffb")
    model = sb3_contrib.MaskablePPO("MlpPolicy", env, n_steps=64, batch_size=32, n_epochs=1,
                                    seed=0)
    model.learn(total_timesteps=128)
    obs, info = env.reset(seed=1)
    for _ in range(5):
        mask = env.unwrapped.action_masks()
        action, _ = model.predict(obs, action_masks=mask, deterministic=True)
        assert mask[int(action)]
        obs, reward, done, truncated, info = env.step(int(action))
        if done:
            break
