"""The numba vector environments (``coinche_rl.envs.vector``).

* ``VectorCoinche`` and the AEC env give identical observations, masks and rewards for
  the same deals and actions (every game followed by its own AEC env, new deals after
  each autoreset included), for several presets.
* Seeds, autoreset, errors, the raw-score option.
* ``CoincheVectorEnv`` (gymnasium ``VectorEnv``, one learning seat): spaces, the learner
  is always the seat to act, same-step autoreset with ``final_obs``, random and batched
  opponents, determinism.
"""

import doctest

import gymnasium
import numpy as np
import pytest

from coinche_rl import engine as E
from coinche_rl.actions import N_ACTIONS
from coinche_rl.envs import coinche_v0, vector as V
from coinche_rl.envs import observation as O
from coinche_rl.engine import public_view
from coinche_rl.game import Deal, IllegalActionError
from coinche_rl.rules import UnknownPresetError


def random_actions(masks, rng):
    return np.array([rng.choice(np.flatnonzero(m)) for m in masks], dtype=np.int64)


def aec_for(venv, i):
    """An AEC env reset to game ``i``'s current deal (which must be fresh)."""
    S = venv.states[i]
    env = coinche_v0.raw_env(rules=venv.rules)
    dealer = int(S[E.S_DEALER])
    if venv.rules.family == "classic":
        deal = [int(c) for c in S[E.S_DECK:E.S_DECK + 32]]
    else:
        deal = [int(h) for h in S[E.S_INIT_HAND:E.S_INIT_HAND + 4]]
    env.reset(options={"deal": deal, "dealer": dealer})
    return env


@pytest.mark.parametrize("preset", ["ffb", "ffb_sa_ta", "classic", "vip_classic",
                                    "coinche_x3", "ludiclub_contree"])
def test_vector_env_equals_the_aec_env(preset):
    rng = np.random.default_rng(sum(map(ord, preset)))
    n = 6
    venv = V.VectorCoinche(n, rules=preset, seed=11, dealer=None)
    ts = venv.reset()
    aecs = [aec_for(venv, i) for i in range(n)]
    finished = 0
    for step in range(260):
        for i, env in enumerate(aecs):
            agent = env.agent_selection
            assert int(ts.current_player[i]) == coinche_v0._seat(agent)
            o = env.observe(agent)
            assert np.array_equal(ts.obs[i], o["observation"]), (step, i)
            assert np.array_equal(ts.action_mask[i], o["action_mask"]), (step, i)
        acts = random_actions(ts.action_mask, rng)
        ts = venv.step(acts)
        for i, env in enumerate(aecs):
            env.step(int(acts[i]))
            if ts.terminated[i]:
                finished += 1
                assert all(env.terminations.values())
                for seat in range(4):
                    assert ts.rewards[i, seat] == env.rewards[f"player_{seat}"]
                assert tuple(ts.final_scores[i]) == env.deal.scores
                aecs[i] = aec_for(venv, i)
            else:
                assert not any(env.terminations.values())
                assert not ts.rewards[i].any()
    assert finished >= 8, finished


def test_same_seed_same_games_and_the_doctest():
    assert doctest.testmod(V).failed == 0

    def run(seed):
        venv = V.VectorCoinche(16, seed=seed, dealer="rotate")
        ts = venv.reset()
        rng = np.random.default_rng(0)
        out = []
        for _ in range(150):
            ts = venv.step(random_actions(ts.action_mask, rng))
            out.append((ts.obs.copy(), ts.rewards.copy()))
        return venv.states.copy(), out

    a, b, c = run(5), run(5), run(6)
    assert np.array_equal(a[0], b[0]) and not np.array_equal(a[0], c[0])
    assert all(np.array_equal(x[0], y[0]) and np.array_equal(x[1], y[1])
               for x, y in zip(a[1], b[1]))


def test_dealer_options_and_rewards():
    venv = V.VectorCoinche(32, seed=3, dealer=2)
    ts = venv.reset()
    assert (venv.states[:, E.S_DEALER] == 2).all()
    rng = np.random.default_rng(1)
    seen_end = 0
    for _ in range(200):
        ts = venv.step(random_actions(ts.action_mask, rng))
        assert (ts.rewards.sum(axis=1) == 0).all()                   # zero-sum
        assert (ts.rewards[:, 0] == ts.rewards[:, 2]).all()          # partners equal
        seen_end += int(ts.terminated.sum())
        assert (venv.states[:, E.S_DEALER] == 2).all()
    assert seen_end > 10
    rot = V.VectorCoinche(4, seed=3, dealer="rotate")
    ts = rot.reset()
    first = rot.states[:, E.S_DEALER].copy()
    while True:
        ts = rot.step(random_actions(ts.action_mask, rng))
        if ts.terminated[0]:
            assert rot.states[0, E.S_DEALER] == (first[0] + 1) % 4
            break
    raw = V.VectorCoinche(8, seed=4, reward="raw")
    ts = raw.reset()
    for _ in range(400):
        ts = raw.step(random_actions(ts.action_mask, rng))
        for i in np.flatnonzero(ts.terminated):
            for seat in range(4):
                assert ts.rewards[i, seat] == ts.final_scores[i, seat & 1]


def test_given_deals_and_bad_input():
    hands = ["JH 9H AH TH 7S 8D KC QC", "JS 9S AS TS KH QH 7C 8C",
             "JD 9D AD TD 8S 9C 7H 8H", "JC AC TC KD QD 7D QS KS"]
    venv = V.VectorCoinche(2, seed=0)
    ts = venv.reset(options={"deals": [hands, hands], "dealers": [3, 0]})
    d = Deal("ffb", hands=hands, dealer=3)
    assert np.array_equal(venv.states[0], d.state)
    assert ts.current_player.tolist() == [0, 1]
    before = venv.states.copy()
    acts = np.array([0, 75], dtype=np.int64)                          # pass; a card: illegal
    with pytest.raises(IllegalActionError, match="game 1: action 75"):
        venv.step(acts)
    assert np.array_equal(venv.states, before)                        # nothing changed
    with pytest.raises(ValueError, match="shape"):
        venv.step(np.zeros(3, dtype=np.int64))
    with pytest.raises(ValueError, match="num_envs"):
        V.VectorCoinche(0)
    with pytest.raises(ValueError, match="dealer"):
        V.VectorCoinche(2, dealer=5)
    with pytest.raises(ValueError, match="reward"):
        V.VectorCoinche(2, reward="points")
    with pytest.raises(ValueError, match="unknown reset option"):
        venv.reset(options={"deal": hands})
    with pytest.raises(UnknownPresetError, match="valid presets"):
        V.VectorCoinche(2, rules="no_such_preset")
    assert venv.deal(0).current_player == int(venv.states[0, E.S_CUR])
    obs = venv.observe(2)
    assert obs.shape == (2, O.OBSERVATION_SIZE)


def test_gym_vector_env_with_random_opponents():
    env = V.CoincheVectorEnv(8, seat=1, seed=7)
    assert isinstance(env, gymnasium.vector.VectorEnv)
    assert env.single_action_space == gymnasium.spaces.Discrete(N_ACTIONS)
    assert env.observation_space.shape == (8, O.OBSERVATION_SIZE)
    obs, infos = env.reset(seed=7)
    assert env.observation_space.contains(obs)
    assert (env.states[:, E.S_CUR] == 1).all()
    rng = np.random.default_rng(0)
    ends = 0
    total = np.zeros(8)
    for _ in range(300):
        masks = env.action_masks()
        assert masks.dtype == bool and np.array_equal(masks, infos["action_mask"] != 0)
        acts = random_actions(masks, rng)
        obs, rew, term, trunc, infos = env.step(acts)
        assert not trunc.any()
        assert (env.states[:, E.S_CUR] == 1).all() and (env.states[:, E.S_PHASE] != E.DONE).all()
        assert not rew[~term].any()
        total += rew
        if term.any():
            ends += int(term.sum())
            assert np.array_equal(infos["_final_obs"], term)
            for i in np.flatnonzero(term):
                fin = O.decode(infos["final_obs"][i], observer=1)
                assert fin["phase"] == "done"
    assert ends > 10
    # the same seed gives the same run
    e2 = V.CoincheVectorEnv(8, seat=1, seed=7)
    o2, _ = e2.reset(seed=7)
    assert np.array_equal(o2, env.reset(seed=7)[0])


def test_gym_vector_env_with_a_batched_policy_sees_only_public_states():
    calls = []

    def first_legal(public_states, params, seats):
        acts = []
        for S, seat in zip(public_states, seats):
            assert all(S[E.S_HAND + p] == 0 for p in range(4) if p != seat)
            mask = np.zeros(N_ACTIONS, dtype=np.uint8)
            E.legal_actions_into(S, params, mask)
            acts.append(int(np.flatnonzero(mask)[0]))
        calls.append(len(acts))
        return np.array(acts)

    env = V.CoincheVectorEnv(4, seat=0, opponents=first_legal, seed=1)
    obs, infos = env.reset()
    rng = np.random.default_rng(2)
    ends = 0
    for _ in range(120):
        obs, rew, term, trunc, infos = env.step(random_actions(env.action_masks(), rng))
        assert (env.states[:, E.S_CUR] == 0).all()
        ends += int(term.sum())
    assert ends > 2 and sum(calls) > 100

    def bad(public_states, params, seats):
        return np.full(len(seats), 117)

    env = V.CoincheVectorEnv(2, seat=0, opponents=bad, seed=1)
    with pytest.raises(IllegalActionError, match="opponents policy <function"):
        env.reset()
    with pytest.raises(ValueError, match="unknown agent 'bad_name'"):
        V.CoincheVectorEnv(2, opponents="bad_name")     # named opponents: test_env_plugins.py
    with pytest.raises(ValueError, match="seat"):
        V.CoincheVectorEnv(2, seat=4)


def test_pass_prob_opponents_reach_the_play_more_often():
    def contracts(pass_prob):
        env = V.CoincheVectorEnv(64, seat=0, pass_prob=pass_prob, seed=3)
        env.reset()
        return int((env.states[:, E.S_BID_VALUE] <= 100).sum())
    assert contracts(0.9) > contracts(None)


def test_warmup_runs():
    V.warmup()


def test_one_env_class_of_each_kind_plays_both_families():
    """Issue 43: one AEC env class, one single-agent adapter and one pair of vector envs
    play both families, each family's parts read from its description (``EnvFamily``);
    ``family="two"`` builds them with the two family's default preset."""
    from coinche_rl.envs import family as F
    from coinche_rl.rules import InvalidRulesError
    for rules, fam in (("ffb", F.FOUR), ("classic", F.FOUR), ("belote_a_deux", F.TWO)):
        e = coinche_v0.raw_env(rules=rules)
        assert e.family is fam and e.possible_agents == list(fam.agents)
        assert e.observation_space("player_0")["observation"].shape == (fam.observation_size,)
        assert isinstance(e._encoder, fam.encoder) and e.metadata["name"] == fam.env_name
        venv = V.VectorCoinche(2, rules=rules, seed=0)
        assert venv.family is fam and venv.states.shape == (2, fam.state_size)
        assert venv.reset().rewards.shape == (2, fam.n_players)
    assert coinche_v0.raw_env(family="two").rules.name == "belote_a_deux"
    assert V.VectorCoinche(2, family="two").rules.name == "belote_a_deux"
    assert V.CoincheVectorEnv(2, family="two").rules.name == "belote_a_deux"
    with pytest.raises(ValueError, match="family must be one of"):
        coinche_v0.raw_env(family="three")
    with pytest.raises(InvalidRulesError, match="four-player"):
        V.VectorCoinche(2, rules="ffb", family="two")
