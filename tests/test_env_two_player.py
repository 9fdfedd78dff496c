"""The environments with the rules of belote for two players: the PettingZoo AEC env
(``coinche_v0`` with ``family="two"``), its observation encoding
(``observation_two`` and the numba kernel of ``encoder_two``), the
single-agent Gymnasium adapter (``single_agent``) and the numba vector envs
(``vector``).

1. PettingZoo's own conformance tests (api, parallel api, seeds, render) per preset.
2. Observation correctness: at every step of random games, ``decode(observation)``
   matches the game's ground truth, and the numba kernel equals the Python encoding.
3. No leak: worlds that differ only in the cards the observer cannot see (the other
   hand's unknown cards, every face-down card, the cards not dealt yet) give identical
   observation vectors and masks while their public histories agree.
4. Spaces, illegal actions, rewards, reset options, seeds; the single-agent adapter;
   the vector envs.
"""


import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env
from pettingzoo.test import api_test, parallel_api_test, render_test, seed_test

from coinche_rl import actions as A
from coinche_rl.cards import format_card, popcount
from coinche_rl.engine import two as E2
from coinche_rl.envs import TWO_PLAYER_ENV_ID, coinche_v0
from coinche_rl.envs import encoder_two as K
from coinche_rl.envs import observation_two as O
from coinche_rl.envs.family import TWO
from coinche_rl.envs.single_agent import CoincheSingleAgentEnv
from coinche_rl.envs.vector import CoincheVectorEnv, VectorCoinche, _deal_from_state
from coinche_rl.game import IllegalActionError
from coinche_rl.rules import InvalidRulesError
from coinche_rl.two_player import TwoPlayerDeal

from test_env_aec import (_quiet, play_random, random_totals, seeded_run,  # noqa: F401  (_quiet: autouse)
                          tricks_played)

PRESETS = ["belote_a_deux", "belote_decouverte"]


# ------------------------------------------------------ 1. PettingZoo conformance
@pytest.mark.parametrize("preset", PRESETS)
def test_api_parallel_api_and_seeds(preset):
    api_test(coinche_v0.env(family="two", rules=preset), num_cycles=300)
    parallel_api_test(coinche_v0.parallel_env(family="two", rules=preset), num_cycles=300)
    seed_test(lambda: coinche_v0.env(family="two", rules=preset), num_cycles=300)


def test_api_match_and_penalty_modes():
    api_test(coinche_v0.env(family="two", mode="match"), num_cycles=300)
    api_test(coinche_v0.env(family="two", rules="belote_decouverte", illegal_action="penalty"), num_cycles=100)


def test_render(capsys):
    render_test(lambda render_mode=None: coinche_v0.env(family="two", render_mode=render_mode))
    e = coinche_v0.env(family="two", render_mode="ansi")
    e.reset(seed=3)
    text = e.render()
    assert text == e.unwrapped.deal.render() and "rules belote_a_deux" in text
    assert "cards" in e.unwrapped.render_for("player_0")         # the other hand as a count
    e = coinche_v0.env(family="two", render_mode="human", mode="match")
    e.reset(seed=3)
    assert "match scores 0 - 0 (target 1000)" in capsys.readouterr().out
    with pytest.raises(ValueError, match="valid modes.*human.*ansi"):
        coinche_v0.raw_env(family="two", render_mode="rgb_array")


def test_bad_arguments_and_four_player_rules_are_refused():
    with pytest.raises(InvalidRulesError, match="four-player"):
        coinche_v0.raw_env(family="two", rules="ffb")
    for kw in ({"mode": "tournament"}, {"reward": "sum"}, {"illegal_action": "ignore"},
               {"dealer": 2}, {"normalize_reward": "yes"}):
        with pytest.raises(ValueError):
            coinche_v0.raw_env(family="two", **kw)


# --------------------------------------------------- 2. observation correctness
def ground_truth_check(e, agent, obs):
    raw = e.unwrapped
    deal = raw.deal
    match = raw._match_info()
    for a in TWO.agents:
        p = int(a[-1])
        o = 1 - p
        ob = obs if a == agent else raw.observe(a)
        assert ob["observation"].dtype == np.float32
        assert raw.observation_space(a).contains(ob)
        view = deal.view(p)
        # the kernel (from the public view vector) equals the readable Python encoding
        assert np.array_equal(ob["observation"], O.encode(view, match))
        d = O.decode(ob["observation"], observer=p)
        assert d["hand"] == deal.hands[p]
        assert d["known_other"] == view.known_other and view.known_other & ~deal.hands[o] == 0
        assert d["table_up"] == tuple(deal.table_up)
        assert d["face_down"] == tuple(popcount(x) for x in deal.table_down)
        covers = tuple(sum(1 << u for u, down in row if u >= 0 and down >= 0) for row in deal.stacks)
        assert d["covers"] == covers
        assert d["hand_size"] == tuple(popcount(h) for h in deal.hands)
        assert d["dealer"] == deal.dealer
        assert d["phase"] == deal.phase
        assert d["to_act"] == deal.current_player
        assert [a for _, a in d["prise"]] == [A.action_to_str(x) for x in deal.prise]
        assert d["retourne"] == deal.retourne
        assert (d["trump"], d["taker"], d["exchanged"]) == (deal.trump, deal.taker, deal.exchanged)
        assert d["played"] == sorted((c, pl, i // 2) for i, (pl, c) in enumerate(deal.plays))
        if deal.phase == "play":
            assert d["trick_no"] == deal.trick_number
            cur = deal.current_trick
            assert d["current_trick"] == (cur[0][1] if cur else None)
            assert d["leader"] == (cur[0][0] if cur else deal.current_player)
        assert d["points"] == deal.card_points_won
        assert d["tricks"] == tuple(deal.trick_winners.count(q) for q in (0, 1))
        assert d["declared"][p] == deal.declarations[p][0]
        assert d["declared"][o] == view.declarations[o]
        assert d["declaration_winner"] == deal.declaration_winner
        assert d["match"] == (None if match is None else
                              dict(scores=match["scores"], target=match["target"], pot=match["pot"]))
        if a == agent:
            assert np.array_equal(ob["action_mask"].astype(bool), deal.legal_action_mask())
        else:
            assert not ob["action_mask"].any()
        assert np.array_equal(raw.infos[a]["action_mask"], ob["action_mask"])


@pytest.mark.parametrize("preset", PRESETS)
def test_decoded_observation_matches_the_game(preset):
    rng = np.random.default_rng(sum(map(ord, preset)))
    played = tricks_played(coinche_v0.env(family="two", rules=preset), rng, 8, ground_truth_check)
    assert played > 16


def test_decoded_observation_matches_the_game_in_match_mode():
    rng = np.random.default_rng(5)
    e = coinche_v0.env(family="two", mode="match", rules="belote_a_deux")
    e.reset(seed=5)
    play_random(e, rng, ground_truth_check, max_steps=600)


def test_observation_layout():
    spans = list(O.LAYOUT.values())
    assert spans[0][0] == 0 and spans[-1][1] == O.OBSERVATION_SIZE == 502
    assert all(a[1] == b[0] for a, b in zip(spans, spans[1:]))
    assert O.HIGH.shape == (O.OBSERVATION_SIZE,) and (O.HIGH >= 1).all()


# ----------------------------------------------------------------- 3. no leak
def _hidden_from(deal, p):
    """The cards ``p`` cannot see now: the other hand beyond what he was shown, every
    face-down card and the cards not dealt yet (everything but his hand, the known
    cards, the face-up and played cards and the retourne)."""
    v = deal.view(p)
    return v.unseen & ~(1 << deal.retourne)


def _other_world(deal, p, steps, rng):
    """The deck of a world where the cards ``p`` cannot see after ``steps`` actions of
    ``deal``'s history are permuted among their places."""
    replay = TwoPlayerDeal(deal.rules, deck=deal.deck, dealer=deal.dealer)
    for a in deal.history[:steps]:
        replay.apply(a)
    hidden = _hidden_from(replay, p)
    places = [i for i, c in enumerate(deal.deck) if hidden >> c & 1]
    deck2 = list(deal.deck)
    for i, j in zip(places, rng.permutation(places)):
        deck2[i] = deal.deck[j]
    return deck2, hidden


def _announced(deal, o):
    """What ``o`` made public of his hidden cards: his declaration's points, announced
    with his first card, and its cards, shown once it won."""
    out = []
    if any(pl == o for pl, _ in deal.plays):
        out.append(deal.declarations[o][0])
    if deal.declaration_winner == o:
        out.append(deal.declarations[o][1])
    return out


@pytest.mark.parametrize("preset", PRESETS)
def test_no_leak_between_worlds_that_differ_only_in_hidden_cards(preset):
    """The env's observation vectors (and masks) of a player are identical in two worlds
    that differ only in the cards he cannot see, while their public histories agree:
    the same actions legal and taken, and the same declarations announced."""
    rng = np.random.default_rng(11 + len(preset))
    compared = 0                      # observations compared in worlds with moved cards
    for trial in range(40):
        deal = TwoPlayerDeal(preset, seed=1000 + trial)
        while not deal.is_terminal:
            legal = deal.legal_actions()
            deal.apply(legal[int(rng.integers(len(legal)))])
        if deal.is_void:
            continue
        for p in (0, 1):
            o = 1 - p
            k = int(rng.integers(1, len(deal.history) + 1))
            deck2, hidden = _other_world(deal, p, k, rng)
            assert hidden & (deal.view(p).hand | deal.view(p).known_other) == 0
            moved = deck2 != deal.deck
            ea, eb = coinche_v0.raw_env(family="two", rules=preset), coinche_v0.raw_env(family="two", rules=preset)
            ea.reset(options={"deal": deal.deck, "dealer": deal.dealer})
            eb.reset(options={"deal": deck2, "dealer": deal.dealer})
            agent = TWO.agents[p]
            for i in range(k + 1):
                oa, ob = ea.observe(agent), eb.observe(agent)
                assert np.array_equal(oa["observation"], ob["observation"]), (trial, p, i)
                assert np.array_equal(oa["action_mask"], ob["action_mask"])
                compared += moved
                if i == k or ea.deal.is_terminal:
                    break
                a = deal.history[i]
                if not eb.deal.is_legal(a):
                    break                     # the other's play is illegal in that world
                ea.step(a)
                eb.step(a)
                if _announced(ea.deal, o) != _announced(eb.deal, o):
                    break                     # a different public history
    assert compared > 500, compared


def test_the_observation_reads_only_the_public_view():
    """The kernel on the full state encodes the player's public view (written into a
    scratch vector first): the same as the kernel on ``deal.public_state(player)`` and as
    the Python encoding of ``deal.view(player)``."""
    deal = TwoPlayerDeal("belote_a_deux", seed=4, dealer=0)
    deal.apply("take")
    deal.apply("no-exchange")
    enc = K.TwoPlayerEncoder(deal.rules)
    for p in (0, 1):
        V = deal.public_state(p)
        assert np.array_equal(enc.encode(deal.state.copy(), p), enc.encode_view(V, p))
        assert np.array_equal(enc.encode_view(V, p), O.encode(deal.view(p)))


# ------------------------------------------- 4. spaces, illegal actions, rewards
def test_spaces_are_cached_and_shared():
    e = coinche_v0.env(family="two")
    assert len({id(e.observation_space(a)) for a in e.possible_agents}) == 1
    box = e.observation_space("player_0")["observation"]
    assert box.shape == (O.OBSERVATION_SIZE,) and box.dtype == np.float32
    assert e.action_space("player_1").n == A.N_ACTIONS
    assert e.possible_agents == ["player_0", "player_1"]


def test_illegal_action_raises_by_default_and_leaves_the_state():
    e = coinche_v0.env(family="two")
    e.reset(seed=1)
    before = e.unwrapped.state()
    with pytest.raises(IllegalActionError, match="legal: pass, take"):
        e.step(A.CARD_BASE)                 # a card during the prise
    assert np.array_equal(before, e.unwrapped.state())


@pytest.mark.parametrize("wrapped", [True, False])
def test_penalty_mode_ends_the_game_with_the_offenders_penalty(wrapped):
    make = coinche_v0.env if wrapped else coinche_v0.raw_env
    e = make(family="two", illegal_action="penalty", illegal_penalty=500.0, normalize_reward=True)
    e.reset(seed=2)
    offender = e.agent_selection
    e.step(A.CARD_BASE)
    for a in e.possible_agents:
        expected = -500.0 / 162 if a == offender else 0.0
        assert e.rewards[a] == pytest.approx(expected)
        assert e._cumulative_rewards[a] == pytest.approx(expected)
        assert e.terminations[a]
    left = 0
    for agent in e.agent_iter(10):
        e.step(None)
        left += 1
    assert left == 2 and not e.agents


@pytest.mark.parametrize("reward", ["difference", "raw"])
def test_rewards_at_the_end_of_a_deal(reward):
    rng = np.random.default_rng(3)
    e = coinche_v0.raw_env(family="two", reward=reward)
    for g in range(6):
        e.reset(seed=100 + g)
        totals = random_totals(e, rng, lambda: e.deal.is_terminal)
        s = e.deal.scores
        for a in e.possible_agents:
            p = int(a[-1])
            assert totals[a] == (s[p] - s[1 - p] if reward == "difference" else s[p])


def test_match_mode_rewards_sum_to_the_final_score_difference():
    rng = np.random.default_rng(4)
    e = coinche_v0.raw_env(family="two", rules="belote_decouverte", mode="match")
    e.reset(seed=4)
    totals = random_totals(e, rng, lambda: e.game.is_terminal)
    s = e.game.scores
    assert len(e.game.deals) > 1 and max(s) >= 1000
    assert totals["player_0"] == s[0] - s[1] == -totals["player_1"]
    assert all(e.terminations.values())


def test_reset_options_replay_a_given_deal():
    ref = TwoPlayerDeal("belote_a_deux", seed=8, dealer=1)
    for mode in ("deal", "match"):
        e = coinche_v0.env(family="two", mode=mode)
        e.reset(seed=9, options={"deal": ref.deck, "dealer": 1})
        assert np.array_equal(e.unwrapped.state(), ref.state)
        assert e.agent_selection == "player_0"
    e = coinche_v0.env(family="two")
    e.reset(options={"deal": [format_card(c) for c in ref.deck], "dealer": 1})
    assert e.unwrapped.deal.deck == ref.deck


def test_seeds_reproduce_games_and_state_is_a_copy():
    def run(seed):
        return seeded_run(coinche_v0.env(family="two", rules="belote_decouverte"), seed)

    h1, o1 = run(11)
    h2, o2 = run(11)
    h3, _ = run(12)
    assert h1 == h2 and all(np.array_equal(x, y) for x, y in zip(o1, o2))
    assert h1 != h3
    e = coinche_v0.env(family="two")
    e.reset(seed=1)
    st = e.unwrapped.state()
    st[:] = -7
    assert not np.array_equal(st, e.unwrapped.state())
    assert e.unwrapped.view("player_1").hand == e.unwrapped.deal.hands[1]


# ----------------------------------------------------------- single-agent adapter
def test_single_agent_check_env_and_make():
    for env in (CoincheSingleAgentEnv(family="two", illegal_action="penalty"),
                CoincheSingleAgentEnv(family="two", seat=1, rules="belote_decouverte", illegal_action="penalty"),
                CoincheSingleAgentEnv(family="two", mode="match", illegal_action="penalty")):
        check_env(env.unwrapped, skip_render_check=True)
    env = gymnasium.make(TWO_PLAYER_ENV_ID, seat=1, rules="belote_decouverte")
    assert env.observation_space.shape == (O.OBSERVATION_SIZE,)
    assert env.action_space.n == A.N_ACTIONS
    obs, info = env.reset(seed=0)
    assert env.unwrapped.aec.agent_selection == "player_1" and info["action_mask"].any()


@pytest.mark.parametrize("seat", [0, 1])
def test_single_agent_episodes_reward_the_score_difference(seat):
    rng = np.random.default_rng(seat)
    env = CoincheSingleAgentEnv(family="two", seat=seat, rules="belote_a_deux")
    for ep in range(6):
        obs, info = env.reset(seed=ep)
        total, done = 0.0, False
        while not done:
            mask = env.action_masks()
            assert np.array_equal(mask, info["action_mask"].astype(bool)) and mask.any()
            assert np.array_equal(obs, O.encode(env.game.view(seat)))
            obs, r, done, trunc, info = env.step(int(rng.choice(np.flatnonzero(mask))))
            assert not trunc
            total += r
        s = env.game.scores
        assert total == s[seat] - s[1 - seat]
        assert not env.action_masks().any()
    with pytest.raises(RuntimeError, match="reset"):
        env.step(0)


def test_single_agent_same_seed_same_trajectory_and_opponent_policy():
    def run(opponent=None):
        env = CoincheSingleAgentEnv(family="two", opponent=opponent)
        rng = np.random.default_rng(0)
        obs, info = env.reset(seed=42)
        traj = [obs.copy()]
        done = False
        while not done:
            obs, r, done, _, info = env.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
            traj.append((obs.copy(), r))
        return env.game.history, traj

    h1, t1 = run()
    h2, t2 = run()
    assert h1 == h2 and len(t1) == len(t2)
    seen = []

    def first_legal(observation, agent):
        seen.append(agent)
        assert observation["observation"].shape == (O.OBSERVATION_SIZE,)
        return int(np.flatnonzero(observation["action_mask"])[0])

    run(first_legal)
    assert seen and set(seen) == {"player_1"}
    # an agent spec is built for belote for two players; one that does not play it is refused
    assert run("heuristic")[0] != h1
    with pytest.raises(ValueError, match="agent 'colver:maxi' plays the family coinche"):
        CoincheSingleAgentEnv(family="two", opponent="colver:maxi")
    with pytest.raises(ValueError, match="seat"):
        CoincheSingleAgentEnv(family="two", seat=2)


def test_single_agent_illegal_action_raises_and_state_unchanged():
    env = CoincheSingleAgentEnv(family="two")
    env.reset(seed=0)
    before = env.unwrapped.aec.state()
    with pytest.raises(IllegalActionError, match="illegal_action=\"penalty\""):
        env.step(A.CARD_BASE)
    assert np.array_equal(before, env.unwrapped.aec.state())
    env = CoincheSingleAgentEnv(family="two", illegal_action="penalty", illegal_penalty=300)
    obs, info = env.reset(seed=0)
    obs, r, term, trunc, info = env.step(int(np.flatnonzero(info["action_mask"] == 0)[0]))
    assert term and r == -300.0 and not info["action_mask"].any()


# ----------------------------------------------------------------- vector envs
@pytest.mark.parametrize("preset", PRESETS)
def test_vector_env_equals_the_python_encoding_and_the_aec_env(preset):
    n = 6
    venv = VectorCoinche(n, family="two", rules=preset, seed=3, dealer="alternate")
    ts = venv.reset()
    rng = np.random.default_rng(7)
    aecs = []
    for i in range(n):
        e = coinche_v0.raw_env(family="two", rules=preset)
        d = venv.deal(i)
        e.reset(options={"deal": d.deck, "dealer": d.dealer})
        aecs.append(e)
    ended = 0
    for step in range(140):
        acts = np.zeros(n, dtype=np.int64)
        for i in range(n):
            d = venv.deal(i)
            p = int(ts.current_player[i])
            assert np.array_equal(ts.obs[i], O.encode(d.view(p)))
            assert np.array_equal(ts.action_mask[i].astype(bool), d.legal_action_mask())
            e = aecs[i]
            ob = e.observe(TWO.agents[p])
            assert np.array_equal(ts.obs[i], ob["observation"])
            assert np.array_equal(ts.action_mask[i], ob["action_mask"])
            legal = np.flatnonzero(ts.action_mask[i])
            acts[i] = legal[rng.integers(len(legal))]
        dealers = venv.states[:, _T("T_DEALER")].copy()
        ts = venv.step(acts)
        assert (ts.rewards.sum(axis=1) == 0).all()
        for i in range(n):
            aecs[i].step(int(acts[i]))
            if ts.terminated[i]:
                ended += 1
                s = aecs[i].deal.scores
                assert tuple(ts.final_scores[i]) == s
                assert tuple(ts.rewards[i]) == (s[0] - s[1], s[1] - s[0])
                d = venv.deal(i)
                assert d.dealer == 1 - dealers[i]                  # the dealer alternates
                aecs[i].reset(options={"deal": d.deck, "dealer": d.dealer})
    assert ended >= 4


def _T(name):
    return E2.TWO_OFFSETS[name]


def test_vector_seeds_given_deals_and_bad_input():
    a, b = VectorCoinche(4, family="two", seed=5), VectorCoinche(4, family="two", seed=5)
    assert np.array_equal(a.reset().obs, b.reset().obs)
    assert np.array_equal(a.states, b.states)
    c = VectorCoinche(4, family="two", seed=6)
    c.reset()
    assert not np.array_equal(a.states, c.states)
    decks = [TwoPlayerDeal(seed=s).deck for s in range(4)]
    ts = a.reset(options={"deals": decks, "dealers": [0, 1, 0, 1]})
    assert [a.deal(i).deck for i in range(4)] == decks
    assert list(ts.current_player) == [1, 0, 1, 0]
    with pytest.raises(IllegalActionError, match="game 0: action 75 .* legal: pass, take. No game"):
        a.step(np.full(4, A.CARD_BASE))
    with pytest.raises(ValueError, match="shape"):
        a.step([0, 0])
    with pytest.raises(ValueError, match="unknown reset option"):
        a.reset(options={"deal": decks})
    with pytest.raises(InvalidRulesError):
        VectorCoinche(2, family="two", rules="ffb")
    with pytest.raises(ValueError, match="dealer"):
        VectorCoinche(2, family="two", dealer="rotate")


def test_gym_vector_env_with_random_opponent():
    env = CoincheVectorEnv(8, family="two", seat=1, rules="belote_decouverte", seed=0, normalize_reward=True)
    obs, infos = env.reset()
    assert obs.shape == (8, O.OBSERVATION_SIZE) and env.observation_space.contains(obs)
    rng = np.random.default_rng(0)
    ends = 0
    for _ in range(200):
        assert (env.states[:, _T("T_CUR")] == 1).all()
        for i in range(8):
            d = _deal(env, i)
            assert np.array_equal(obs[i], O.encode(d.view(1)))
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in env.action_masks()])
        obs, rew, term, trunc, infos = env.step(acts)
        assert not trunc.any() and np.array_equal(infos["action_mask"].astype(bool), env.action_masks())
        if term.any():
            ends += int(term.sum())
            assert infos["_final_obs"].tolist() == term.tolist()
            assert (np.abs(rew[term]) <= 2 * 252 / 162 + 1).all()
        assert (rew[~term] == 0).all()
    assert ends >= 8


def _deal(env, i):
    return _deal_from_state(env.rules, env.states[i])


def test_gym_vector_env_with_a_batched_policy_sees_only_public_states():
    calls = []

    def policy(public_states, params, players):
        out = np.zeros(len(players), dtype=np.int64)
        for j, (V, p) in enumerate(zip(public_states, players)):
            calls.append(int(p))
            assert (V[_T("T_DECK"):_T("T_DECK") + 32] == -1).all()
            assert V[_T("T_DOWN")] == 0 and V[_T("T_DOWN") + 1] == 0
            assert V[_T("T_HAND") + 1 - p] & ~int(V[_T("T_HAND") + p]) == V[_T("T_HAND") + 1 - p]
            mask = np.zeros(A.N_ACTIONS, dtype=np.uint8)
            E2.two_legal_mask(V, params, mask)
            out[j] = int(np.flatnonzero(mask)[-1])
        return out

    env = CoincheVectorEnv(4, family="two", seat=0, seed=1, opponent=policy)
    obs, infos = env.reset()
    for _ in range(60):
        obs, rew, term, trunc, infos = env.step(env.action_masks().argmax(axis=1))
    assert calls and set(calls) == {1}
    assert CoincheVectorEnv(2, family="two", opponent="heuristic").opponent_policy is not None
    with pytest.raises(ValueError, match="agent 'colver:maxi' plays the family coinche"):
        CoincheVectorEnv(2, family="two", opponent="colver:maxi")

