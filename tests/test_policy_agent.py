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
from coinche_rl.agents.fingerprint import agent_fingerprint
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


def _linear(weights):
    def policy(obs, mask):
        return int(np.argmax(np.where(mask == 1, obs[:weights.size] * weights, -np.inf)))
    return policy


def test_the_fingerprint_follows_the_policy_s_weights():
    w = np.arange(120, dtype=np.float32)
    same = agent_fingerprint(PolicyAgent(_linear(w.copy())))
    assert same == agent_fingerprint(PolicyAgent(_linear(w.copy())))
    w2 = w.copy()
    w2[7] += 1                                          # retrained: one weight moved
    assert agent_fingerprint(PolicyAgent(_linear(w2)))["data"] != same["data"]
    # a version names the weights: equal versions resume, other versions do not
    v1 = agent_fingerprint(PolicyAgent(_linear(w), version="sha:1"))
    assert v1 == agent_fingerprint(PolicyAgent(_linear(w2), version="sha:1"))
    assert v1 != agent_fingerprint(PolicyAgent(_linear(w), version="sha:2"))


def test_a_policy_that_cannot_be_pickled_is_never_taken_for_another():
    import threading
    lock = threading.Lock()

    def locked(obs, mask):
        with lock:
            return int(np.flatnonzero(mask)[0])
    a = agent_fingerprint(PolicyAgent(locked))
    assert a["data"] is not None and a != agent_fingerprint(PolicyAgent(locked))


def test_a_results_file_is_not_resumed_by_a_retrained_policy(registered, tmp_path):
    out = tmp_path / "r.jsonl"
    w = np.random.default_rng(0).normal(size=120).astype(np.float32)
    name = registered("linear_policy", _linear(w))
    first = run_duplicate(name, "random", 2, seed=3, out=out)
    assert first.new == 2
    assert run_duplicate(name, "random", 2, seed=3, out=out).new == 0    # resumed
    for key in [k for k in registry._REGISTRY if k[1] == name]:
        del registry._REGISTRY[key]
    registered(name, _linear(w + 1))                   # the same name, other weights
    with pytest.raises(ArenaError, match="agent"):
        run_duplicate(name, "random", 2, seed=3, out=out)


def test_a_policy_must_be_callable():
    with pytest.raises(TypeError, match="callable policy"):
        PolicyAgent(3)


def test_doctests():
    assert doctest.testmod(policy_module).failed == 0
