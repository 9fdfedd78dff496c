"""The vector envs' match mode (``mode="match"``), every family.

* ``VectorCoinche(mode="match")`` and ``coinche_v0`` in match mode, replaying each game's
  match (``options={"match_seed", "dealer"}``), hold the same engine state and give the
  same observations (match slice included), masks, rewards and terminations at every
  step, over whole matches and the next ones (the litige pot, gather-and-cut dealing
  with reshuffles after void deals, belote for two players).
* ``CoincheVectorEnv(mode="match")`` equals Gymnasium's own same-step autoreset: a
  ``gymnasium.vector.SyncVectorEnv(autoreset_mode=SAME_STEP)`` of single games played by
  the AEC env gives the same arrays and ``final_obs``; Gymnasium's vector wrappers read
  the declared ``autoreset_mode`` (``RecordEpisodeStatistics`` counts whole matches).
"""

import warnings

import gymnasium
import numpy as np
import pytest
from gymnasium.vector import AutoresetMode

from coinche_rl import engine as E
from coinche_rl.actions import N_ACTIONS, PASS
from coinche_rl.envs import coinche_v0, vector as V
from coinche_rl.envs.family import env_family
from coinche_rl.rules import get_rules


def aec_match_for(venv, i, **kw):
    """An AEC env in match mode playing game ``i``'s current match (just begun)."""
    env = coinche_v0.raw_env(rules=venv.rules, mode="match", **kw)
    env.reset(options={"match_seed": int(venv.match_seeds[i]),
                       "dealer": int(venv.match_dealers[i])})
    return env


def biased_actions(masks, rng, pass_prob):
    """Random legal actions; game ``i`` passes with ``pass_prob[i]`` where it may (void
    deals, and void deals in a row)."""
    out = np.empty(len(masks), dtype=np.int64)
    for i, m in enumerate(masks):
        if m[PASS] and pass_prob[i] and rng.random() < pass_prob[i]:
            out[i] = PASS
        else:
            out[i] = rng.choice(np.flatnonzero(m))
    return out


@pytest.mark.parametrize("preset,steps,reward,seed,pass_prob", [
    ("ffb", 300, "difference", 7, [0.0, 0.3, 0.8, 0.97]),
    ("classic", 400, "raw", 2, [0.0] * 4),                     # a litige at step 134
    ("ludiclub_coinche", 500, "difference", 7, [0.0, 0.3, 0.8, 0.97]),
    ("belote_a_deux", 700, "difference", 7, [0.0, 0.3, 0.8, 0.97]),
    ("vip_classic", 300, "difference", 7, [0.0, 0.3, 0.8, 0.97]),
    # the classic family gathering and cutting (its dealing order kept in the state)
    pytest.param(get_rules("classic", name="classic_gathered", shuffle_between_deals=False,
                           reshuffle_after_voids=2, target=501), 300, "difference", 7,
                 [0.0, 0.5, 0.9, 0.97], id="classic_gathered"),
    # belote for two with its litige option
    pytest.param(get_rules("belote_a_deux", name="two_litige", litige=True, target=501), 300,
                 "raw", 2, [0.0] * 4, id="two_litige")])                # a litige at step 103
def test_vector_match_mode_equals_the_aec_match_mode(preset, steps, reward, seed, pass_prob):
    rng = np.random.default_rng(seed)
    n = 4
    venv = V.VectorCoinche(n, rules=preset, seed=seed, mode="match", reward=reward,
                           normalize_reward=True)
    players = venv.family.n_players
    ts = venv.reset()
    aecs = [aec_match_for(venv, i, reward=reward, normalize_reward=True) for i in range(n)]
    ended, pots, deals = 0, 0, 0
    for step in range(steps):
        for i, env in enumerate(aecs):
            assert np.array_equal(venv.states[i], env.deal.state), (step, i)
            agent = env.agent_selection
            assert int(ts.current_player[i]) == coinche_v0._seat(agent)
            o = env.observe(agent)
            assert np.array_equal(ts.obs[i], o["observation"]), (step, i)
            assert np.array_equal(ts.action_mask[i], o["action_mask"]), (step, i)
            m = env.game
            assert venv.match_info(i) == {"scores": tuple(m.scores), "target": m.target,
                                          "pot": m.pot}
        acts = biased_actions(ts.action_mask, rng, pass_prob)
        ts = venv.step(acts)
        for i, env in enumerate(aecs):
            before = len(env.game.deals)
            env.step(int(acts[i]))
            deals += len(env.game.deals) - before
            pots += env.game.pot > 0
            for seat in range(players):
                assert ts.rewards[i, seat] == env.rewards[f"player_{seat}"], (step, i)
            assert bool(ts.terminated[i]) == all(env.terminations.values())
            if ts.terminated[i]:
                ended += 1
                assert tuple(ts.final_scores[i]) == tuple(env.game.scores)
                assert ts.winners[i] == env.game.winner
                aecs[i] = aec_match_for(venv, i, reward=reward, normalize_reward=True)
            else:
                assert ts.winners[i] == -1
    assert ended >= 1 and deals >= 20, (ended, deals)
    if preset == "classic" or getattr(preset, "name", "") == "two_litige":
        assert pots > 0                 # a litige's pot carried into a next deal


def test_gather_and_cut_reshuffles_after_void_deals():
    """ludiclub: no shuffle between deals, a shuffle after 4 void deals in a row; a seat
    that always passes makes every deal void: the state follows the Python Match."""
    venv = V.VectorCoinche(2, rules="ludiclub_contree", seed=1, mode="match", dealer=3)
    ts = venv.reset()
    assert (venv.match_dealers == 3).all()
    matches = [env_family(venv.rules).match(venv.rules, dealer=3, seed=int(s))
               for s in venv.match_seeds]
    for step in range(12 * 4):                  # twelve void deals
        for i, m in enumerate(matches):
            assert np.array_equal(venv.states[i], m.deal.state), step
        ts = venv.step(np.full(2, PASS))
        for m in matches:
            m.apply(PASS)
    assert all(len(m.deals) == 12 and all(d.is_void for d in m.deals) for m in matches)
    assert (venv.match_scores == 0).all() and not ts.terminated.any()


def test_match_mode_options_errors_and_observe():
    venv = V.VectorCoinche(3, rules="classic", seed=2, mode="match")
    other = V.VectorCoinche(3, rules="classic", seed=2, mode="match")
    decks = [list(range(32))] * 3
    ts = venv.reset(options={"deals": decks, "dealers": [0, 1, 2]})
    assert list(venv.match_dealers) == [0, 1, 2]
    assert [int(venv.states[i, E.S_DEALER]) for i in range(3)] == [0, 1, 2]
    other.reset()
    assert np.array_equal(venv.match_seeds, other.match_seeds)      # seeds from the stream
    obs = venv.observe(0)
    env = coinche_v0.raw_env(rules="classic", mode="match")
    env.reset(options={"match_seed": int(venv.match_seeds[1]), "dealer": 1, "deal": decks[1]})
    assert np.array_equal(obs[1], env.observe("player_0")["observation"])
    with pytest.raises(ValueError, match="mode must be 'deal' or 'match'"):
        V.VectorCoinche(2, mode="matches")
    with pytest.raises(ValueError, match="mode must be 'deal' or 'match'"):
        V.CoincheVectorEnv(2, mode="episode")
    rot = V.CoincheVectorEnv(8, rules="ffb", seed=4, mode="match", dealer="rotate")
    rot.reset(options={"deals": [list(range(32))] * 8})
    assert set(rot.match_dealers) <= {0, 1, 2, 3} and len(set(rot.match_dealers)) > 1
    assert (rot.states[:, E.S_DEALER] == rot.match_dealers).all()
    assert V.VectorCoinche(2).match_info(0) is None
    assert V.VectorCoinche(2).metadata["autoreset_mode"] == AutoresetMode.SAME_STEP


class OneMatch(gymnasium.Env):
    """One game of ``CoincheVectorEnv(mode="match", dealer=0, opponents=first legal)``,
    played by the AEC env: each match seeded as the vector env seeds game ``i``'s (its
    sub-stream of the vector seed), the other seats' first legal actions."""

    def __init__(self, rules, seat, seed, i):
        self.rules, self.seat = rules, seat
        self.agent = f"player_{seat}"
        self.stream = np.zeros(1, dtype=np.uint64)
        E.rng_seed(self.stream, np.int64(seed), np.int64(i))
        size = env_family(rules).observation_size
        self.observation_space = gymnasium.spaces.Box(0.0, np.inf, (size,), dtype=np.float32)
        self.action_space = gymnasium.spaces.Discrete(N_ACTIONS)

    def _others(self):
        env = self.aec
        while not all(env.terminations.values()) and env.agent_selection != self.agent:
            mask = env.observe(env.agent_selection)["action_mask"]
            env.step(int(np.flatnonzero(mask)[0]))
        o = env.observe(self.agent)
        return o["observation"], {"action_mask": env.infos[self.agent]["action_mask"]}

    def reset(self, *, seed=None, options=None):
        match_seed = int(E.rng_next(self.stream) >> np.uint64(1))
        self.aec = coinche_v0.raw_env(rules=self.rules, mode="match")
        self.aec.reset(options={"match_seed": match_seed, "dealer": 0})
        return self._others()

    def step(self, action):
        self.aec.step(int(action))
        obs, info = self._others()
        reward = self.aec._cumulative_rewards[self.agent]
        return obs, reward, all(self.aec.terminations.values()), False, info


@pytest.mark.parametrize("rules,seat", [("ffb", 1), ("belote_a_deux", 0)])
def test_learner_match_mode_equals_gymnasiums_same_step_autoreset(rules, seat):
    n, seed = 3, 5
    venv = V.CoincheVectorEnv(n, seat=seat, rules=rules, seed=seed, mode="match", dealer=0,
                              opponents=V.first_legal_policy())
    ref = gymnasium.vector.SyncVectorEnv(
        [lambda i=i: OneMatch(rules, seat, seed, i) for i in range(n)],
        autoreset_mode=AutoresetMode.SAME_STEP)
    obs, infos = venv.reset()
    robs, rinfos = ref.reset()
    assert np.array_equal(obs, robs) and np.array_equal(infos["action_mask"],
                                                        rinfos["action_mask"])
    rng = np.random.default_rng(0)
    ended = 0
    for step in range(250):
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in infos["action_mask"]])
        obs, rew, term, trunc, infos = venv.step(acts)
        robs, rrew, rterm, rtrunc, rinfos = ref.step(acts)
        assert np.array_equal(obs, robs), step
        assert np.array_equal(rew, rrew) and np.array_equal(term, rterm), step
        assert np.array_equal(trunc, rtrunc)
        assert np.array_equal(infos["action_mask"], rinfos["action_mask"])
        assert ("final_obs" in infos) == ("final_obs" in rinfos)
        if term.any():
            ended += int(term.sum())
            assert np.array_equal(infos["_final_obs"], rinfos["_final_obs"])
            for i in np.flatnonzero(term):
                assert np.array_equal(infos["final_obs"][i], rinfos["final_obs"][i])
            assert np.array_equal(infos["_match_winner"], term)
            assert ((infos["match_winner"] >= 0) == term).all()
    assert ended >= 1


def test_gymnasium_wrappers_read_the_autoreset_mode():
    env = V.CoincheVectorEnv(4, rules="belote_a_deux", seed=3, mode="match")
    assert env.metadata["autoreset_mode"] == AutoresetMode.SAME_STEP
    with warnings.catch_warnings():
        warnings.simplefilter("error")              # no "missing autoreset_mode" warning
        stats = gymnasium.wrappers.vector.RecordEpisodeStatistics(env)
    obs, infos = stats.reset(seed=3)
    rng = np.random.default_rng(1)
    returns, lengths = np.zeros(4), np.zeros(4, dtype=int)
    seen = 0
    while seen < 3:
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in infos["action_mask"]])
        obs, rew, term, trunc, infos = stats.step(acts)
        returns += rew
        lengths += 1
        if term.any():
            # same-step autoreset: the terminal step counts, the next match starts at 0
            assert np.allclose(infos["episode"]["r"][term], returns[term])
            assert (infos["episode"]["l"][term] == lengths[term]).all()
            returns[term], lengths[term] = 0.0, 0
            seen += int(term.sum())
    # Gymnasium's observation wrappers take next-step envs only: they read the mode
    with pytest.raises(ValueError, match="autoreset_mode"):
        gymnasium.wrappers.vector.TransformObservation(env, lambda o: o)
