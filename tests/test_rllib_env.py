"""The RLlib adapter's turn-based contract (coinche_rl.train.turn_based, everywhere) and
its RLlib parts (coinche_rl.train.rllib: the env under RLlib's MultiAgentEnv, the
action-masking module, the heuristic module), which skip where RLlib is not installed
(the project's venv: RLlib pins its own gymnasium; `make rllib-venv` builds the venv
that runs them)."""

import numpy as np
import pytest

from coinche_rl.actions import N_ACTIONS
from coinche_rl.agents import PlayerView, make_agent
from coinche_rl.engine import public_view
from coinche_rl.envs.family import REWARD_SCALE
from coinche_rl.train.turn_based import PublicStateView, TurnBasedEnv


def _play(env, seed, check):
    """Random legal play of one episode of ``env``, ``check(obs, rewards, terminateds)``
    after each step; the last step's dicts."""
    rng = np.random.default_rng(seed)
    obs, infos = env.reset(seed=seed)
    check(obs, None, None)
    while True:
        (agent,) = obs
        action = int(rng.choice(np.flatnonzero(obs[agent]["action_mask"])))
        obs, rewards, terms, truncs, infos = env.step({agent: action})
        assert truncs == {"__all__": False} and set(infos) == set(obs)
        check(obs, rewards, terms)
        if terms["__all__"]:
            return obs, rewards, terms


@pytest.mark.parametrize("rules", ["ffb", "belote_a_deux"])
def test_only_the_seat_to_act_observes_and_all_seats_close_the_deal(rules):
    env = TurnBasedEnv(rules, normalize_reward=False)
    n = len(env.possible_agents)
    steps = []

    def check(obs, rewards, terms):
        deal = env.deal
        if terms is None or not terms["__all__"]:
            # one seat, the one to act, with the engine's legal mask
            assert list(obs) == [env.possible_agents[deal.current_player]] == [env.agent_to_act]
            (o,) = obs.values()
            assert o["action_mask"].dtype == np.int8 and o["action_mask"].any()
            np.testing.assert_array_equal(o["action_mask"], deal.legal_action_mask())
            assert o["observation"].shape == env.observation_space["observation"].shape
            if rewards is not None:
                assert set(rewards) == set(obs) and all(r == 0 for r in rewards.values())
            steps.append(1)

    obs, rewards, terms = _play(env, 3, check)
    assert len(steps) > 8 * n
    deal = env.deal
    assert deal.is_terminal and env.agent_to_act is None and env.agents == []
    # every seat: its last observation (nobody to act: all-zero mask) and its reward
    assert set(obs) == set(rewards) == set(env.possible_agents)
    assert terms == {**dict.fromkeys(env.possible_agents, True), "__all__": True}
    for a, o in obs.items():
        assert not o["action_mask"].any()
        assert env.observation_space.contains(o)
    assert sum(rewards.values()) == 0
    s = deal.scores
    for i, a in enumerate(env.possible_agents):
        assert rewards[a] == (s[i & 1] - s[1 - (i & 1)])
    # after the end, no action is taken
    with pytest.raises(ValueError, match="reset"):
        env.step({env.possible_agents[0]: 0})


def test_rewards_are_normalised_by_default_and_the_wrong_seat_is_refused():
    env = TurnBasedEnv("ffb")
    obs, _ = env.reset(seed=1)
    (agent,) = obs
    other = next(a for a in env.possible_agents if a != agent)
    legal = int(np.flatnonzero(obs[agent]["action_mask"])[0])
    with pytest.raises(ValueError, match=f"{agent} is to act, alone"):
        env.step({other: legal})
    with pytest.raises(ValueError, match=f"{agent} is to act, alone"):
        env.step({agent: legal, other: legal})
    obs, rewards, terms = _play(env, 1, lambda *a: None)
    s = env.deal.scores
    assert rewards["player_0"] == pytest.approx((s[0] - s[1]) / REWARD_SCALE)
    assert sum(rewards.values()) == pytest.approx(0)


def test_public_state_rebuilds_the_view_a_rule_based_agent_acts_on():
    env = TurnBasedEnv("ffb", public_state=True)
    heuristic = make_agent("heuristic")
    rng = np.random.default_rng(5)
    obs, _ = env.reset(seed=5)
    n = 0
    while True:
        (agent,) = obs
        o = obs[agent]
        deal = env.deal
        seat = deal.current_player
        assert env.observation_space.contains(o)
        np.testing.assert_array_equal(o["public_state"], public_view(deal.state, deal.params, seat))
        view = PublicStateView(env.rules, o["public_state"], o["action_mask"], deal.params)
        assert view.seat == seat
        heuristic.reset(seat, env.rules, 0)
        assert heuristic.act(view) == heuristic.act(PlayerView(deal, seat))
        n += 1
        action = int(rng.choice(np.flatnonzero(o["action_mask"])))
        obs, rewards, terms, _, _ = env.step({agent: action})
        if terms["__all__"]:
            break
    assert n > 30 and all(o["public_state"].shape == (215,) or True for o in obs.values())
    with pytest.raises(ValueError, match="four-player"):
        TurnBasedEnv("belote_a_deux", public_state=True)


def test_spaces_are_the_aec_envs():
    env = TurnBasedEnv("ffb")
    assert env.action_space.n == N_ACTIONS
    assert set(env.observation_space.spaces) == {"observation", "action_mask"}
    assert env.observation_spaces.keys() == env.action_spaces.keys() == set(env.possible_agents)


# ----------------------------------------------------------- RLlib's parts (its venv)
def _rllib():
    pytest.importorskip("ray.rllib", reason="RLlib is not installed (make rllib-venv)")
    pytest.importorskip("torch")
    from coinche_rl.train import rllib
    return rllib


def _batch(obs_list):
    import torch
    from ray.rllib.core.columns import Columns
    return {Columns.OBS: {k: torch.as_tensor(np.stack([o[k] for o in obs_list]))
                          for k in obs_list[0]}}


def test_rllib_env_masked_module_and_heuristic_module():
    rllib = _rllib()
    import torch
    from ray.rllib.core.columns import Columns
    from ray.rllib.env.multi_agent_env import MultiAgentEnv

    env = rllib.CoincheMultiAgentEnv({"rules": "ffb", "public_state": True})
    assert isinstance(env, MultiAgentEnv) and env.possible_agents == [f"player_{i}" for i in range(4)]
    space, aspace = env.observation_spaces["player_0"], env.action_spaces["player_0"]
    module = rllib.MaskedActorCritic(observation_space=space, action_space=aspace,
                                     model_config={"hidden": [32]})
    heuristic = rllib.AgentModule(observation_space=space, action_space=aspace,
                                  model_config={"rules": "ffb"})
    reference = make_agent("heuristic")
    rng = np.random.default_rng(2)
    obs, _ = env.reset(seed=2)
    seen = []
    while True:
        (agent,) = obs
        assert env.agents == env.possible_agents
        seen.append(obs[agent])
        deal = env.core.deal
        out = heuristic.forward_exploration(_batch([obs[agent]]))
        reference.reset(deal.current_player, env.core.rules, 0)
        assert int(out[Columns.ACTIONS][0]) == reference.act(PlayerView(deal, deal.current_player))
        action = int(rng.choice(np.flatnonzero(obs[agent]["action_mask"])))
        obs, rewards, terms, _, _ = env.step({agent: action})
        if terms["__all__"]:
            break
    assert env.agents == [] and set(obs) == set(env.possible_agents)
    finals = list(obs.values())
    batch = _batch(seen + finals)
    logits = module.forward_train(batch)[Columns.ACTION_DIST_INPUTS]
    assert torch.isfinite(logits).all()
    masks = batch[Columns.OBS]["action_mask"].bool()
    n = len(seen)
    # illegal actions masked (sampling never draws them), legal ones untouched
    probs = torch.softmax(logits[:n], dim=-1)
    assert (probs[~masks[:n]] == 0).all() and torch.allclose(probs.sum(-1), torch.ones(n))
    raw = module.pi(batch[Columns.OBS]["observation"])
    assert torch.equal(logits[:n][masks[:n]], raw[:n][masks[:n]])
    # a seat's last observation (no legal action) stays a proper distribution: no NaN
    assert not masks[n:].any()
    torch.testing.assert_close(logits[n:], raw[n:])
    logp = torch.log_softmax(logits, -1)
    assert torch.isfinite(logp).all()
    # the batch is read, not changed (the value function reads it after the policy)
    assert set(batch[Columns.OBS]) == {"observation", "action_mask", "public_state"}
    assert module.compute_values(batch).shape == (len(seen) + len(finals),)
    # the greedy agent plays legal actions only
    agent = rllib.policy_agent(module.get_state(), space, aspace, {"hidden": [32]})
    for o in seen:
        assert o["action_mask"][agent.policy(o["observation"], o["action_mask"])] == 1


def test_league_mapping_keeps_teams_together():
    rllib = _rllib()

    class Episode:
        def __init__(self, i):
            self.id_ = f"episode-{i}"

    fn = rllib.league_mapping(3, 0.25)
    seen = set()
    for i in range(400):
        ep = Episode(i)
        m = [fn(f"player_{s}", ep) for s in range(4)]
        assert m[0] == m[2] and m[1] == m[3] and m[0] != m[1]
        assert rllib.MAIN in m
        seen.update(m)
    assert seen == {"main", "heuristic", "league_0", "league_1", "league_2"}


def test_evaluation_plays_the_weights_it_is_given_each_time():
    """The arena keeps the agents it built by spec: a second evaluation must still play
    the second weights (it played the first ones again before)."""
    rllib = _rllib()
    import torch
    env = rllib.CoincheMultiAgentEnv({"rules": "ffb"})
    space, aspace = env.observation_spaces["player_0"], env.action_spaces["player_0"]
    torch.manual_seed(0)
    a = rllib.MaskedActorCritic(observation_space=space, action_space=aspace,
                                model_config={"hidden": [16]}).get_state()
    b = {k: -v for k, v in a.items()}
    ev = rllib.Evaluation(space, aspace, {"hidden": [16]}, opponents=("random",), deals=3,
                          name="rllib_eval_test")
    first, second = ev(a)["random"], ev(b)["random"]
    fresh = rllib.Evaluation(space, aspace, {"hidden": [16]}, opponents=("random",), deals=3,
                             name="rllib_eval_test_fresh")(b)["random"]
    assert (second.mean, second.sd) == (fresh.mean, fresh.sd)
    assert (first.mean, first.sd) != (second.mean, second.sd)
