"""A policy trained on the envs as an agent (issue 44 point 9,
``coinche_rl.agents.policy.PolicyAgent``): the observation and mask it hands the policy are
the AEC env's at every decision (four players, a match, belote for two), it plays a
duplicate tournament, and an illegal action gets the arena's error."""

from __future__ import annotations

import doctest
import warnings

import numpy as np
import pytest

from coinche_rl.agents import PlayerView, register_agent
from coinche_rl.agents import policy as policy_module
from coinche_rl.agents import registry
from coinche_rl.agents.policy import PolicyAgent
from coinche_rl.arena import ArenaError, run_duplicate
from coinche_rl.envs import coinche_v0


def first_legal(obs, mask):
    return int(np.flatnonzero(mask)[0])


@pytest.mark.parametrize("rules, mode", [("ffb", "deal"), ("classic", "match"),
                                         ("belote_a_deux", "deal")])
def test_the_policy_sees_what_the_env_shows(rules, mode):
    rng = np.random.default_rng(3)
    seen = []

    def policy(obs, mask):
        seen.append((obs.copy(), mask.copy()))
        legal = np.flatnonzero(mask)
        return legal[rng.integers(len(legal))]          # a numpy integer

    agent = PolicyAgent(policy)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        e = coinche_v0.raw_env(rules=rules, mode=mode)
    e.reset(seed=11)
    decisions = 0
    while e.agents and decisions < 400:
        name = e.agent_selection
        seat = coinche_v0.raw_env._seat_of[name]
        if e.terminations[name] or e.truncations[name]:
            e.step(None)
            continue
        deal = e.deal
        view = (deal.view(seat) if deal.rules.family == "two"
                else PlayerView.from_deal(deal, e._match_info()))
        assert getattr(view, "seat", getattr(view, "player", None)) == seat
        agent.reset(seat, deal.rules, 0)
        action = agent.act(view)
        want = e.observe(name)
        obs, mask = seen[-1]
        assert obs.dtype == want["observation"].dtype and mask.dtype == want["action_mask"].dtype
        np.testing.assert_array_equal(obs, want["observation"])
        np.testing.assert_array_equal(mask, want["action_mask"])
        e.step(int(action))
        decisions += 1
    assert decisions > 20


@pytest.fixture
def registered():
    names = []

    def register(name, policy):
        register_agent(name, lambda: PolicyAgent(policy, name=name),
                       families=PolicyAgent.FAMILIES, roster=False)
        names.append(name)
        return name
    yield register
    for name in names:
        for key in [k for k in registry._REGISTRY if k[1] == name]:
            del registry._REGISTRY[key]


def test_a_policy_plays_a_duplicate_tournament(registered):
    name = registered("first_legal_policy", first_legal)
    r = run_duplicate(name, "random", 3, seed=2)
    again = run_duplicate(name, "random", 3, seed=2)
    assert r.n == 3 and r.x == (name, name)
    np.testing.assert_array_equal(r.scores, again.scores)


def test_an_illegal_action_gets_the_arena_error(registered):
    name = registered("illegal_policy", lambda obs, mask: int(np.flatnonzero(mask == 0)[0]))
    with pytest.raises(ArenaError, match=r"agent 'illegal_policy' at seat \d played the "
                                         r"illegal action .* in deal 0 of the deal set"):
        run_duplicate(name, "random", 2, seed=2)


def test_a_policy_must_be_callable():
    with pytest.raises(TypeError, match="callable policy"):
        PolicyAgent(3)


def test_doctests():
    assert doctest.testmod(policy_module).failed == 0
