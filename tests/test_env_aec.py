"""The PettingZoo AEC environment (``coinche_rl.envs.coinche_v0``) and its observation
encoding (``coinche_rl.envs.observation``).

1. PettingZoo's own conformance tests (api, parallel api, seeds, render) per preset.
2. Observation correctness: at every step of random games, ``decode(observation)``
   matches the game's ground truth.
3. No leak: two deals that differ only in cards the observer cannot know give equal
   observations while their public histories agree.
4. Spaces, illegal actions, rewards, reset options, seeds.
"""

import doctest
import warnings

import numpy as np
import pytest

from pettingzoo.test import api_test, parallel_api_test, render_test, seed_test

from coinche_rl import actions as A
from coinche_rl.cards import format_hand
from coinche_rl.envs import coinche_v0
from coinche_rl.envs import observation as O
from coinche_rl.game import Deal, IllegalActionError

from test_infoset import other_world, public_events, random_trace

PRESETS = ["ffb", "ffb_sa_ta", "classic"]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def play_random(e, rng, check=None, max_steps=5000):
    """Play masked random actions to the end; ``check(e, agent, obs)`` before every step
    (also used by ``test_env_two_player``)."""
    steps = 0
    for agent in e.agent_iter(max_steps):
        obs, rew, term, trunc, info = e.last()
        if term or trunc:
            e.step(None)
            continue
        if check is not None:
            check(e, agent, obs)
        legal = np.flatnonzero(obs["action_mask"])
        e.step(int(legal[rng.integers(len(legal))]))
        steps += 1
    return steps


def random_totals(e, rng, over):
    """Play random legal actions in the raw env ``e`` until ``over()``; each agent's
    rewards summed."""
    totals = dict.fromkeys(e.possible_agents, 0.0)
    while not over():
        legal = np.flatnonzero(e.deal.legal_action_mask())
        e.step(int(legal[rng.integers(len(legal))]))
        for a in e.possible_agents:
            totals[a] += e.rewards[a]
    return totals


def tricks_played(e, rng, games, check):
    """Play ``games`` random games of ``e`` (seeds 0, 1, ...) with ``check`` before every
    step; the number of tricks they reached."""
    played = 0
    for g in range(games):
        e.reset(seed=g)
        play_random(e, rng, check)
        played += e.unwrapped.deal.trick_number
    return played


def seeded_run(e, seed):
    """The history and the observations of one random game of ``e`` from ``seed``."""
    e.reset(seed=seed)
    obs = []
    play_random(e, np.random.default_rng(seed), lambda e, a, o: obs.append(o["observation"].copy()))
    return e.unwrapped.deal.history, obs


# ------------------------------------------------------ 1. PettingZoo conformance
@pytest.mark.parametrize("preset", PRESETS)
def test_api(preset):
    api_test(coinche_v0.env(rules=preset), num_cycles=400)


def test_api_match_mode():
    api_test(coinche_v0.env(rules="ffb", mode="match"), num_cycles=400)


@pytest.mark.parametrize("preset", PRESETS)
def test_parallel_api(preset):
    parallel_api_test(coinche_v0.parallel_env(rules=preset), num_cycles=400)


@pytest.mark.parametrize("preset", PRESETS)
def test_seed(preset):
    seed_test(lambda: coinche_v0.env(rules=preset), num_cycles=400)


def test_render(capsys):
    render_test(lambda render_mode=None: coinche_v0.env(render_mode=render_mode))
    e = coinche_v0.env(render_mode="ansi")
    e.reset(seed=3)
    text = e.render()
    assert text == e.unwrapped.deal.render() and "rules ffb" in text
    deal = e.unwrapped.deal
    mine = e.unwrapped.render_for("player_2").splitlines()
    assert mine[3] == text.splitlines()[3]                       # seat 2: his own hand
    for s in (0, 1, 3):                                          # the others as counts
        assert mine[1 + s] == f"  seat {s} (team {s % 2}): 8 cards"
    assert format_hand(deal.hands[0]) not in "\n".join(mine)
    e = coinche_v0.env(render_mode="human")
    e.reset(seed=3)
    assert "rules ffb" in capsys.readouterr().out


def test_unknown_render_mode_raises_listing_valid_ones():
    with pytest.raises(ValueError, match="valid modes.*human.*ansi"):
        coinche_v0.raw_env(render_mode="rgb_array")
    e = coinche_v0.raw_env()
    e.render_mode = "svg"
    e.reset(seed=0)
    with pytest.raises(ValueError, match="valid modes"):
        e.render()


# --------------------------------------------------- 2. observation correctness
def ground_truth_check(e, agent, obs):
    raw = e.unwrapped
    deal = raw.deal
    for a in (agent, coinche_v0.AGENTS[(int(agent[-1]) + 1) % 4]):
        seat = int(a[-1])
        ob = obs if a == agent else raw.observe(a)
        assert ob["observation"].dtype == np.float32
        assert raw.observation_space(a).contains(ob)
        d = O.decode(ob["observation"], observer=seat)
        assert d["hand"] == deal.hands[seat]
        assert d["dealer"] == deal.dealer
        assert d["phase"] == deal.phase
        assert d["to_act"] == deal.current_player
        c = deal.contract
        if c is None:
            assert d["contract"] is None
        else:
            exp_value = None if c.value == 0 else c.value
            assert d["contract"] == dict(value=exp_value, capot=c.capot, strain=c.strain,
                                         coinche=c.coinche, taker=c.taker)
        played = sorted((card, s, t) for t, trick in enumerate(deal.tricks) for s, card in trick)
        assert d["played"] == played
        assert d["current_trick"] == [tuple(x) for x in deal.current_trick]
        if deal.phase == "play":
            assert d["trick_no"] == deal.trick_number
            assert d["leader"] == (deal.current_trick[0][0] if deal.current_trick
                                   else deal.current_player)
            assert d["points"] == deal.card_points_won
        assert d["tricks"] == deal.tricks_won
        bids = [(250 if A.is_capot(x) else A.bid_value(x), (deal.dealer + 1 + i) % 4, A.bid_strain(x))
                for i, x in enumerate(deal.auction) if A.is_bid(x) or A.is_capot(x)]
        assert d["bids"] == sorted(bids)
        if deal.rules.family == "classic":
            assert d["retourne"] == deal.retourne
            assert d["prise_round"] == (deal.prise_round if deal.phase == "auction" else None)
        assert d["declarations_resolved"] == deal.declarations_resolved
        assert d["declaration_winner"] == deal.declaration_winner
        if raw.mode == "match":
            m = raw.game
            assert d["match"] == dict(scores=tuple(m.scores), target=m.target, pot=m.pot)
        else:
            assert d["match"] is None
        mask = ob["action_mask"]
        assert mask.dtype == np.int8
        if a == agent:
            assert np.array_equal(mask.astype(bool), deal.legal_action_mask())
        else:
            assert not mask.any()
        assert np.array_equal(raw.infos[a]["action_mask"], mask)


@pytest.mark.parametrize("preset", PRESETS + ["coinche_x3", "funbelote"])
def test_decoded_observation_matches_the_game(preset):
    rng = np.random.default_rng(sum(map(ord, preset)))
    played = tricks_played(coinche_v0.env(rules=preset), rng, 6, ground_truth_check)
    assert played > 0


def test_decoded_observation_matches_the_game_in_match_mode():
    rng = np.random.default_rng(5)
    e = coinche_v0.env(rules="ffb", mode="match")
    e.reset(seed=5)
    play_random(e, rng, ground_truth_check, max_steps=3000)


def test_observation_module_doctest_and_layout():
    assert doctest.testmod(O).failed == 0
    assert O.VERSION == 1
    spans = list(O.LAYOUT.values())
    assert spans[0][0] == 0 and spans[-1][1] == O.OBSERVATION_SIZE
    assert all(a[1] == b[0] for a, b in zip(spans, spans[1:]))


# ----------------------------------------------------------------- 3. no leak
def start_options(deal):
    if deal.rules.family == "classic":
        return {"deal": deal.deck, "dealer": deal.dealer}
    return {"deal": deal.initial_hands, "dealer": deal.dealer}


@pytest.mark.parametrize("preset", PRESETS)
def test_no_leak_between_deals_with_equal_public_histories(preset):
    rng = np.random.default_rng(77 + sum(map(ord, preset)))
    compared = differing = 0
    for _ in range(6):
        trace, actions = random_trace(preset, rng)
        for seat in range(4):
            k = int(rng.integers(len(trace)))
            b = other_world(trace[-1], trace[k], seat, rng)
            if b is None:
                continue
            ea, eb = coinche_v0.raw_env(rules=preset), coinche_v0.raw_env(rules=preset)
            ea.reset(options=start_options(trace[0]))
            eb.reset(options=start_options(b))
            agent = coinche_v0.AGENTS[seat]
            for i, a in enumerate(actions):
                oa, ob = ea.observe(agent), eb.observe(agent)
                assert np.array_equal(oa["observation"], ob["observation"])
                assert np.array_equal(oa["action_mask"], ob["action_mask"])
                compared += 1
                differing += ea.deal.hands != eb.deal.hands
                if not eb.deal.is_legal(a):
                    break
                ea.step(a)
                eb.step(a)
                if public_events(ea.deal) != public_events(eb.deal):
                    break
    assert compared > 100 and differing > 50, (compared, differing)


# ------------------------------------------- 4. spaces, illegal actions, rewards
def test_spaces_are_cached_and_shared():
    e = coinche_v0.env()
    spaces_o = {id(e.observation_space(a)) for a in e.possible_agents}
    spaces_a = {id(e.action_space(a)) for a in e.possible_agents}
    assert len(spaces_o) == 1 and len(spaces_a) == 1
    assert e.observation_space("player_0") is e.observation_space("player_0")
    box = e.observation_space("player_0")["observation"]
    assert box.shape == (O.OBSERVATION_SIZE,) and box.dtype == np.float32
    assert e.action_space("player_0").n == A.N_ACTIONS


def test_illegal_action_raises_by_default_and_leaves_the_state():
    e = coinche_v0.env()
    e.reset(seed=1)
    before = e.unwrapped.state()
    with pytest.raises(IllegalActionError, match="legal: pass"):
        e.step(A.CARD_BASE)                 # a card during the auction
    assert np.array_equal(before, e.unwrapped.state())


@pytest.mark.parametrize("wrapped", [True, False])
def test_penalty_mode_ends_the_game_with_the_team_penalty(wrapped):
    make = coinche_v0.env if wrapped else coinche_v0.raw_env
    e = make(illegal_action="penalty", illegal_penalty=500.0)
    e.reset(seed=2)
    offender = e.agent_selection
    e.step(A.CARD_BASE)
    team = int(offender[-1]) & 1
    for a in e.possible_agents:
        expected = -500.0 if int(a[-1]) & 1 == team else 0.0
        assert e.rewards[a] == expected
        assert e._cumulative_rewards[a] == expected
        assert e.terminations[a]
    left = 0
    for agent in e.agent_iter(10):
        assert e.last()[2] or e.last()[3]
        e.step(None)
        left += 1
    assert left == 4 and not e.agents


@pytest.mark.parametrize("reward", ["difference", "raw"])
def test_rewards_at_the_end_of_a_deal(reward):
    rng = np.random.default_rng(3)
    e = coinche_v0.raw_env(reward=reward)
    for g in range(5):
        e.reset(seed=100 + g)
        totals = random_totals(e, rng, lambda: e.deal.is_terminal)
        s = e.deal.scores
        for a in e.possible_agents:
            t = int(a[-1]) & 1
            assert totals[a] == (s[t] - s[1 - t] if reward == "difference" else s[t])
            assert e._cumulative_rewards[a] == totals[a] or a == e.agent_selection
        assert totals["player_0"] == totals["player_2"]


def test_match_mode_rewards_sum_to_the_final_score_difference():
    rng = np.random.default_rng(4)
    e = coinche_v0.raw_env(rules="classic", mode="match")
    e.reset(seed=4)
    totals = random_totals(e, rng, lambda: e.game.is_terminal)
    s = e.game.scores
    assert len(e.game.deals) > 1
    assert totals["player_0"] == s[0] - s[1] == -totals["player_1"]
    assert all(e.terminations.values())


def test_reset_options_replay_a_given_deal():
    hands = ["JH 9H AH TH KS QS 7D 8D", "JS 9S AS TS KH QH 7C 8C",
             "JD 9D AD TD KC QC 7H 8H", "JC 9C AC TC KD QD 7S 8S"]
    ref = Deal("ffb", hands=hands, dealer=2)
    for mode in ("deal", "match"):
        e = coinche_v0.env(mode=mode)
        e.reset(seed=9, options={"deal": hands, "dealer": 2})
        assert e.unwrapped.deal.initial_hands == ref.initial_hands
        assert e.unwrapped.deal.dealer == 2 and e.agent_selection == "player_3"
    classic = Deal("classic", seed=4)
    e = coinche_v0.env(rules="classic")
    e.reset(options={"deal": classic.deck, "dealer": classic.dealer})
    assert np.array_equal(e.unwrapped.state(), classic.state)
    e.reset(options={"deal": " ".join(["7S 8S 9S TS JS QS KS AS 7H 8H 9H TH JH QH KH AH",
                                       "7D 8D 9D TD JD QD KD AD 7C 8C 9C TC JC QC KC AC"]),
                     "dealer": 0})
    assert e.unwrapped.deal.deck == list(range(32))


def test_seeds_reproduce_games_and_state_is_a_copy():
    def run(seed):
        return seeded_run(coinche_v0.env(rules="ffb_sa_ta"), seed)

    h1, o1 = run(11)
    h2, o2 = run(11)
    h3, _ = run(12)
    assert h1 == h2 and all(np.array_equal(x, y) for x, y in zip(o1, o2))
    assert h1 != h3
    e = coinche_v0.env()
    e.reset(seed=1)
    st = e.unwrapped.state()
    st[:] = -7
    assert not np.array_equal(st, e.unwrapped.state())
    info = e.unwrapped.information_set("player_0")
    assert info.seat == 0 and info.hand == e.unwrapped.deal.hands[0]


# ------------------------------------------------- the wrappers (issue 46, AEC speed)
def _pettingzoo_wrapped(**kwargs):
    """The raw env in PettingZoo's own wrappers, as ``env()`` wrapped it before."""
    from pettingzoo.utils import wrappers
    e = coinche_v0.raw_env(**kwargs)
    if e.illegal_action == "penalty":
        e = coinche_v0.SideTerminateIllegalWrapper(
            e, illegal_reward=-e.illegal_penalty / e.reward_scale)
    return wrappers.OrderEnforcingWrapper(wrappers.AssertOutOfBoundsWrapper(e))


def _trace(e, seed, illegal_at=None):
    """Every ``last()`` of a seeded random game (illegal action number ``illegal_at``)."""
    rng = np.random.default_rng(seed)
    e.reset(seed=seed)
    out = []
    for k, agent in enumerate(e.agent_iter()):
        obs, reward, term, trunc, info = e.last()
        out.append((agent, obs["observation"].tobytes(), obs["action_mask"].tobytes(), reward,
                    term, trunc, info["action_mask"].tobytes(), list(e.agents)))
        if term or trunc:
            action = None
        elif k == illegal_at:
            action = int(np.flatnonzero(obs["action_mask"] == 0)[0])
        else:
            action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        e.step(action)
    return out


@pytest.mark.parametrize("kwargs", [{"rules": "ffb"}, {"rules": "belote_a_deux"},
                                    {"rules": "ffb", "mode": "match"}])
def test_the_wrapped_env_plays_as_in_pettingzoo_s_own_wrappers(kwargs):
    from pettingzoo.utils import wrappers
    e = coinche_v0.env(**kwargs)
    assert isinstance(e, wrappers.OrderEnforcingWrapper)
    assert isinstance(e.env, wrappers.AssertOutOfBoundsWrapper)
    for seed in (3, 4):
        assert _trace(e, seed) == _trace(_pettingzoo_wrapped(**kwargs), seed)


def test_the_penalty_wrapper_plays_as_in_pettingzoo_s_own_wrappers():
    kw = {"rules": "ffb", "illegal_action": "penalty"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = _trace(coinche_v0.env(**kw), 5, 9), _trace(_pettingzoo_wrapped(**kw), 5, 9)
    assert ours == theirs and ours[-1][4]                   # the game ended at the offence


def test_the_wrappers_refuse_what_pettingzoo_s_refuse():
    e = coinche_v0.env(rules="ffb")
    for name in ("agents", "agent_selection", "rewards", "terminations", "infos"):
        with pytest.raises(AttributeError, match=f"{name} cannot be accessed before reset"):
            getattr(e, name)
    with pytest.raises(AttributeError, match="agent_selection cannot be accessed before reset"):
        e.last()
    e.reset(seed=0)
    for bad in (120, -1, 1.5, "3", np.int64(200)):
        with pytest.raises(AssertionError, match="action is not in action space"):
            e.step(bad)
    legal = int(np.flatnonzero(e.last()[0]["action_mask"])[0])
    e.step(np.int64(legal))                                 # a numpy integer is an action
    assert len(e.unwrapped.deal.auction) == 1
    e.agent_selection = "player_3"                          # written through to the env
    assert e.unwrapped.agent_selection == "player_3"
