"""One Agent base and one registry for every rule family: the agents each family lists,
the family checks and their messages, ``coinche-rl agents --rules``, the one parser of
``key=value`` texts (rule overrides and agent parameters alike) and the one default of
each agent parameter (its constructor's)."""

from __future__ import annotations

import inspect

import numpy as np
import pytest

from coinche_rl import cli
from coinche_rl.agents import (Agent, AgentSpecError, Param, agent_families, available_agents,
                               describe_agents, make_agent, registry)
from coinche_rl.agents.numba_bots import HeuristicAgent
from coinche_rl.agents.numba_bots import TwoHeuristicAgent
from coinche_rl.agents.random_agent import RandomAgent
from coinche_rl.agents.pimc import PIMCAgent
from coinche_rl.rules import FAMILY_PRESETS, get_rules, parse_rules
from coinche_rl.values import parse_value


def test_each_family_lists_its_agents():
    four = set(available_agents("coinche"))
    assert {"random", "heuristic", "pimc", "nn", "nnsearch", "colver:maxi"} <= four
    assert set(available_agents("two")) == {"random", "heuristic", "pimc", "nn", "nnsearch"}
    assert "colver:maxi" not in available_agents("classic")      # colver plays its preset only
    assert set(available_agents(get_rules("belote_decouverte"))) == {"random", "heuristic", "pimc",
                                                                     "nn", "nnsearch"}
    assert agent_families("heuristic") == ["coinche", "classic", "two"]
    assert agent_families("nn") == ["coinche", "classic", "two"]
    assert agent_families("nnsearch") == ["coinche", "classic", "two"]


def test_a_spec_name_builds_the_class_of_its_family():
    assert type(make_agent("heuristic")) is HeuristicAgent
    assert type(make_agent("heuristic", "classic")) is HeuristicAgent
    assert type(make_agent("heuristic", "two")) is TwoHeuristicAgent
    assert type(make_agent("random", get_rules("belote_a_deux"))) is RandomAgent   # every family
    pimc = make_agent("pimc:worlds=3", "two")
    assert type(pimc) is PIMCAgent and pimc.spec == "pimc:worlds=3" and pimc.worlds == 3
    assert type(make_agent("pimc:worlds=3")) is PIMCAgent          # one PIMC, every family
    for cls in (HeuristicAgent, TwoHeuristicAgent, PIMCAgent):
        assert issubclass(cls, Agent)


def test_the_wrong_family_is_named():
    with pytest.raises(AgentSpecError, match=r"agent 'colver:maxi' plays the family coinche, not "
                                             r"the family 'two' \(belote_a_deux, belote_decouverte\); "
                                             r"agents of the family 'two': heuristic, nn, nnsearch, "
                                             r"pimc, random"):
        make_agent("colver:maxi", "two")
    with pytest.raises(AgentSpecError, match="unknown rule family 'four'"):
        make_agent("random", "four")
    with pytest.raises(AgentSpecError, match="no parameter 'aggression'; its parameters: prise, "
                                             "prise_decouverte"):
        make_agent("heuristic:aggression=3", "two")          # the other family's parameter
    with pytest.raises(ValueError, match="HeuristicAgent plays the families coinche, classic, "
                                         "not the rules 'belote_a_deux'"):
        make_agent("heuristic").reset(0, get_rules("belote_a_deux"), 0)


def test_an_agent_of_your_own_declares_its_families(monkeypatch):
    class Both(Agent):
        FAMILIES = ("coinche", "two")

        def act(self, view):
            return int(view.legal_actions[0])

    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    registry.register_agent("both-families", Both)
    assert type(make_agent("both-families", "two")) is Both
    assert type(make_agent("both-families")) is Both
    with pytest.raises(AgentSpecError, match="plays the families coinche, two, not the family "
                                             "'classic'"):
        make_agent("both-families", "classic")
    with pytest.raises(TypeError, match="FAMILIES must name rule families"):
        type("Bad", (Agent,), {"FAMILIES": ("four",)})


@pytest.mark.parametrize("preset", ["ffb", "classic", "belote_a_deux", "belote_decouverte"])
def test_cli_agents_lists_the_family_of_the_rules(preset, capsys):
    assert cli.main(["agents", "--rules", preset]) == 0
    out = capsys.readouterr().out
    family = get_rules(preset).family
    assert out.startswith(f"agents of the rule family {family!r} (")
    assert out == describe_agents(family) + "\n"
    if family == "two":
        assert "    prise (float, default 5.0)" in out and "    worlds (int, default 32)" in out
        assert "nn:" in out and "nnsearch:" in out and "aggression" not in out
        assert "    solve_from (int, default -1)" in out and "colver" not in out
    else:
        assert "    aggression (int, default 0)" in out and "nn:" in out
        assert "prise_decouverte" not in out


# ------------------------------------------------------------ one parameter language
@pytest.mark.parametrize("text, value", [("on", True), ("Yes", True), ("1", True), (" true ", True),
                                         ("off", False), ("NO", False), ("0", False),
                                         ("false", False)])
def test_rules_and_agents_read_a_switch_alike(text, value):
    assert parse_value(text, bool) is value
    assert parse_rules(f"ffb:must_undertrump={text.strip()}").must_undertrump is value
    assert make_agent(f"heuristic:coinche={text.strip()}").numba_bot is not None
    assert Param(bool).parse("a", "k", text) is value


@pytest.mark.parametrize("kind, text", [(bool, "maybe"), (int, "2k"), (float, "x"), (int, "2.5")])
def test_one_refusal_for_a_bad_value(kind, text):
    with pytest.raises(ValueError) as e:
        parse_value(text, kind)
    with pytest.raises(AgentSpecError) as a:
        Param(kind).parse("agent", "k", text)
    assert str(e.value).removeprefix("expected ") in str(a.value)


def test_each_parameter_default_is_written_once():
    """A built-in agent's Param declares no default: it is its constructor's."""
    for fam in FAMILY_PRESETS:
        for name in available_agents(fam):
            entry = registry._lookup(name, fam)
            sig = inspect.signature(entry.factory).parameters
            for key, p in entry.params.items():
                assert p.default == sig[key].default, (fam, name, key)
    src = "\n".join(inspect.getsource(c) for c in (HeuristicAgent, TwoHeuristicAgent, PIMCAgent))
    assert "Param(int, doc=" in src and "Param(int, 0," not in src


def test_two_defaults_that_disagree_are_refused():
    with pytest.raises(TypeError, match=r"PARAMS\['k'\] has the default 1, .*__init__ 2"):
        class Twice(Agent):
            PARAMS = {"k": Param(int, 1, "twice")}

            def __init__(self, k: int = 2):
                super().__init__()
    with pytest.raises(TypeError, match=r"PARAMS\['k'\] has no default"):
        class Never(Agent):
            PARAMS = {"k": Param(int, doc="never")}

            def __init__(self, k: int):
                super().__init__()


# ------------------------------------------------------- the envs' opponents, any family
def test_the_vector_opponent_of_two_players_is_the_heuristic_in_batches():
    from coinche_rl.agents.env_plugins import env_opponent, vector_opponent
    from coinche_rl.rules import params_vector
    from coinche_rl.two_player import TwoPlayerDeal
    for preset in ("belote_a_deux", "belote_decouverte"):
        rules = get_rules(preset)
        spec = "heuristic:" + ("prise" if rules.hand_cards else "prise_decouverte") + "=3"
        policy = vector_opponent(spec, rules)
        agent = make_agent(spec, "two")
        views, players, expected = [], [], []
        for seed in range(6):
            deal = TwoPlayerDeal(rules, seed=seed)
            agent.reset(deal.current_player, rules, 0)
            while not deal.is_terminal:          # every decision of a whole deal
                p = deal.current_player
                view = deal.view(p)
                views.append(view.state)
                players.append(p)
                expected.append(agent.act(view))
                deal.apply(expected[-1])
        got = policy(np.stack(views), params_vector(rules), np.array(players))
        assert got.tolist() == expected
        opponent = env_opponent("heuristic", preset)
        deal = TwoPlayerDeal(rules, seed=1)
        opponent.reset(deal.current_player, rules, 0)
        assert opponent.act(deal, deal.current_player) == \
            make_agent("heuristic", "two").act(deal.view(deal.current_player))
    with pytest.raises(ValueError, match="prise_decouverte is not read under the rules "
                                         "'belote_a_deux'"):
        vector_opponent("heuristic:prise_decouverte=3", "belote_a_deux")
    with pytest.raises(ValueError, match="draws random numbers"):
        vector_opponent("random", "belote_a_deux")
    with pytest.raises(ValueError, match=r"no batched form for the vector env \(rules "
                                         r"'belote_a_deux'\).*'nn\[:params\]'.*players\) -> "):
        vector_opponent("pimc", "belote_a_deux")
    with pytest.raises(AgentSpecError, match="'colver:maxi' plays the family coinche"):
        vector_opponent("colver:maxi", "belote_a_deux")
    with pytest.raises(AgentSpecError, match="'colver:maxi' plays the family coinche"):
        env_opponent("colver:maxi", "belote_decouverte")


def test_an_installed_package_qualifies_a_name_by_its_family(monkeypatch):
    """Entry points of another package: ``name`` for the families of its object,
    ``name@family`` for the one of its name (a factory of no declared family included);
    an object that does not play the family of its name is named."""
    import importlib.metadata
    EP = importlib.metadata.EntryPoint
    group = registry.ENTRY_POINT_GROUP
    eps = [EP("ep-fam", "coinche_rl.agents.numba_bots:HeuristicAgent", group),
           EP("ep-fam@two", "coinche_rl.agents.numba_bots:TwoHeuristicAgent", group),
           EP("ep-bad@two", "coinche_rl.agents.numba_bots:HeuristicAgent", group)]
    monkeypatch.setattr(importlib.metadata, "entry_points", lambda group=None, **kw: list(eps))
    monkeypatch.setattr(registry, "_ENTRY_POINTS", None)
    monkeypatch.setattr(registry, "_REGISTRY", dict(registry._REGISTRY))
    assert {"ep-fam", "ep-bad"} <= set(available_agents())
    assert "ep-fam@two" not in available_agents()
    assert type(make_agent("ep-fam")) is HeuristicAgent
    a = make_agent("ep-fam", "two")
    assert type(a) is TwoHeuristicAgent and a.spec == "ep-fam"
    assert "ep-fam" in available_agents("two") and "ep-bad" not in available_agents("two")
    with pytest.raises(AgentSpecError, match=r"entry point ep-bad@two = .* plays the families "
                                             r"coinche, classic, not the one of its name"):
        make_agent("ep-bad", "two")
