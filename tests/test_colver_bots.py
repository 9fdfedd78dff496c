"""colver's bots as agents (``coinche_rl.agents.colver_bots``).

Runs without colver: the action maps (every kind, round trips), the rule check and the
error that names ``pip install colver``. With colver installed (an optional extra, not a
dependency): the maps against colver's own action and card names, a differential of
legal actions and scores between the two engines, that the deal handed to colver is a
world drawn by ``agents.sampler.WorldSampler`` from the agent's seeded stream (the
sampler's exactness and uniformity are tested in ``tests/test_sampler.py``), full deals
through ``play_deal`` with every colver bot at every seat, reproducibility, and that the
bots' choices do not depend on cards their seat cannot see.
"""

import doctest
import itertools
import sys

import numpy as np
import pytest

from coinche_rl import actions as A
from coinche_rl.agents import (AgentSpecError, available_agents, describe_agents, make_agent,
                               play_deal)
from coinche_rl.agents import colver_bots as CB
from coinche_rl.agents import sampler as SM
from coinche_rl.agents.base import PlayerView
from coinche_rl.agents.random_agent import RandomAgent
from coinche_rl.cards import cards_of
from coinche_rl.envs.infoset import information_set
from coinche_rl.game import Deal
from coinche_rl.rules import FOUR_PLAYER_PRESETS
from coinche_rl.rules import PRESETS, get_rules

try:
    import colver
except ImportError:
    colver = None

needs_colver = pytest.mark.skipif(
    colver is None, reason="colver is an optional extra (pip install colver); not installed")

BOTS = ["colver:heuristic", "colver:maxi", "colver:rule", "colver:ismcts:ms=1",
        "colver:ismcts:ms=1,smart=true"]
REPRODUCIBLE = ["colver:heuristic", "colver:maxi", "colver:rule"]
COLVER_EXACT = get_rules("colver", rounding="none")     # colver 0.11.1 does not round


def random_trace(rules, rng, stop=None):
    """A random deal (passing often once a bid is made); stops after ``stop`` actions."""
    d = Deal(rules, seed=int(rng.integers(2 ** 31)))
    while not d.is_terminal and (stop is None or len(d.history) < stop):
        legal = d.legal_actions()
        if d.phase == "auction" and len(legal) > 1:
            p = 0.75 if d.highest_bid is not None else 0.4
            a = A.PASS if rng.random() < p else int(rng.choice([x for x in legal if x]))
        else:
            a = int(rng.choice(legal))
        d.apply(a)
    return d


# ------------------------------------------------------------------ action maps
MAPPABLE = ([A.PASS, A.COINCHE, A.SURCOINCHE]
            + [A.bid_action(v, s) for v in range(80, 170, 10) for s in range(4)]
            + [A.capot_action(s) for s in range(4)]
            + [A.card_action(c) for c in range(32)])


def test_module_doctest():
    assert doctest.testmod(CB).failed == 0


def test_every_colver_action_and_card_round_trips():
    for x in range(43):
        assert CB.to_colver_action(CB.from_colver_action(x, CB.COLVER_BIDDING)) == x
    for x in range(32):
        assert CB.to_colver_action(CB.from_colver_action(x, CB.COLVER_PLAYING)) == x
        assert CB.to_colver_card(CB.from_colver_card(x)) == x
    # 43 auction actions and 32 cards: exactly our mappable actions, each once
    back = {CB.from_colver_action(x, 0) for x in range(43)} | \
           {CB.from_colver_action(x, 1) for x in range(32)}
    assert back == set(MAPPABLE) and len(MAPPABLE) == 75


def test_each_action_kind_maps_to_colvers_number():
    assert CB.to_colver_action(A.PASS) == 0
    assert CB.to_colver_action(A.COINCHE) == 41
    assert CB.to_colver_action(A.SURCOINCHE) == 42
    assert CB.to_colver_action(A.parse_action("80S")) == 1
    assert CB.to_colver_action(A.parse_action("80C")) == 4
    assert CB.to_colver_action(A.parse_action("90S")) == 5
    assert CB.to_colver_action(A.parse_action("160C")) == 36
    assert [CB.to_colver_action(A.capot_action(s)) for s in range(4)] == [37, 38, 39, 40]
    for value, strain in itertools.product(range(80, 170, 10), range(4)):
        x = CB.to_colver_action(A.bid_action(value, strain))
        assert ((x - 1) // 4, (x - 1) % 4) == ((value - 80) // 10, strain)
    # cards: colver orders 7 8 9 J Q K 10 A inside a suit, we 7 8 9 T J Q K A
    expect = {"7S": 0, "9S": 2, "JS": 3, "QS": 4, "KS": 5, "TS": 6, "AS": 7,
              "7H": 8, "TH": 14, "JD": 19, "AC": 31}
    for text, x in expect.items():
        assert CB.to_colver_action(A.parse_action(text)) == x
        assert A.action_to_str(CB.from_colver_action(x, CB.COLVER_PLAYING)) == text


def test_actions_colver_does_not_have_are_refused_by_name():
    unmappable = sorted(set(range(A.N_ACTIONS)) - set(MAPPABLE))
    assert len(unmappable) == A.N_ACTIONS - 75
    for a in unmappable:
        with pytest.raises(CB.ColverActionError, match="no colver counterpart"):
            CB.to_colver_action(a)
    for text in ("80NT", "90AT", "170H", "180S", "capotNT", "take", "nameD", "declare",
                 "no-belote"):
        with pytest.raises(CB.ColverActionError, match=repr(text)):
            CB.to_colver_action(A.parse_action(text))
    for bad in (-1, A.N_ACTIONS):
        with pytest.raises(CB.ColverActionError, match="out of range"):
            CB.to_colver_action(bad)
    with pytest.raises(CB.ColverActionError, match="0..42"):
        CB.from_colver_action(43, CB.COLVER_BIDDING)
    with pytest.raises(CB.ColverActionError, match="0..31"):
        CB.from_colver_action(32, CB.COLVER_PLAYING)
    with pytest.raises(CB.ColverActionError, match="phase"):
        CB.from_colver_action(0, 2)


# ------------------------------------------------------------------ rules
def test_only_the_colver_play_rules_are_accepted():
    assert CB.check_rules("colver") == PRESETS["colver"]
    CB.check_rules(COLVER_EXACT)                          # scoring-only differences
    CB.check_rules(get_rules("colver", target=1000))
    for name in FOUR_PLAYER_PRESETS:
        if name == "colver":
            continue
        with pytest.raises(CB.ColverRulesError, match="'colver' preset") as e:
            CB.check_rules(name)
        assert any(f"{f}=" in str(e.value) for f in CB.PLAY_RULE_FIELDS)
    with pytest.raises(CB.ColverRulesError, match=r"overtrump_partner=False \(colver: True\)"):
        CB.check_rules(get_rules("colver", overtrump_partner=False))


# ------------------------------------------------------------------ registry, no colver
def test_registered_with_documented_parameters():
    names = available_agents()
    for name in ("colver:heuristic", "colver:maxi", "colver:rule", "colver:ismcts"):
        assert name in names
    text = describe_agents()
    assert "ms (int, default 20)" in text and "smart (bool, default False)" in text
    assert "pip install colver" in text


def test_missing_colver_names_pip_install(monkeypatch):
    monkeypatch.setitem(sys.modules, "colver", None)      # import colver -> ImportError
    with pytest.raises(CB.ColverNotInstalledError, match="pip install colver"):
        make_agent("colver:maxi")


def test_bad_parameters_are_spec_errors():
    with pytest.raises(AgentSpecError, match="minimum"):
        make_agent("colver:ismcts:ms=0")
    with pytest.raises(AgentSpecError, match="must be one of"):
        make_agent("colver:rule:bid=nn")
    with pytest.raises(AgentSpecError, match="no parameter"):
        make_agent("colver:maxi:ms=5")


# ------------------------------------------------------------------ with colver
@needs_colver
def test_maps_agree_with_colvers_names():
    suit = dict(zip("SHDC", "♠♥♦♣"))
    rank = dict(zip("789TJQKA", ["7", "8", "9", "10", "J", "Q", "K", "A"]))
    for c in range(32):
        text = A.action_to_str(A.card_action(c))
        name = colver.Env.card_name(CB.to_colver_card(c))
        assert name == rank[text[0]] + suit[text[1]]
        assert colver.Env.action_name(CB.to_colver_action(A.card_action(c)), 1) == name
    for a in MAPPABLE[:3 + 36 + 4]:
        name = colver.Env.action_name(CB.to_colver_action(a), 0)
        text = A.action_to_str(a)
        if a == A.PASS:
            assert name == "Pass"
        elif a in (A.COINCHE, A.SURCOINCHE):
            assert name == text.capitalize()
        elif A.is_capot(a):
            assert name == "Capot" + suit[text[-1]]
        else:
            assert name == text[:-1] + suit[text[-1]]


@needs_colver
def test_the_engines_agree_on_legal_actions_and_scores():
    rng = np.random.default_rng(7)
    steps = played = 0
    for _ in range(150):
        d = Deal(COLVER_EXACT, seed=int(rng.integers(2 ** 31)))
        env = colver.Env.deal_with_hands(
            d.dealer, [[CB.to_colver_card(c) for c in cards_of(h)] for h in d.hands])
        while not d.is_terminal:
            assert env.current_player() == d.current_player
            ours = sorted(d.legal_actions())
            theirs = sorted(CB.from_colver_action(x, env.phase()) for x in env.legal_actions())
            assert ours == theirs, A.action_to_str(d.history[-1]) if d.history else "start"
            if d.phase == "auction" and rng.random() < 0.6:
                a = A.PASS
            else:
                a = int(rng.choice(ours))
            d.apply(a)
            env.step(CB.to_colver_action(a))
            steps += 1
        assert env.is_terminal()
        assert tuple(d.scores) == tuple(int(x) for x in env.rewards())
        played += not d.is_void
    assert steps > 3000 and played > 100


def positions(n, seed):
    """``n`` (deal, seat to act) pairs with a choice to make, in the auction and the play."""
    rng = np.random.default_rng(seed)
    out = []
    while len(out) < n:
        d = random_trace("colver", rng, stop=int(rng.integers(1, 40)))
        if not d.is_terminal and len(d.legal_actions()) > 1:
            out.append((d, d.current_player))
    return out


@needs_colver
def test_colver_is_given_a_world_drawn_by_the_sampler_from_the_agents_stream(monkeypatch):
    drawn = []

    class Recording(SM.WorldSampler):
        __slots__ = ()

        def sample(self, n, seed=0, **kw):
            worlds = super().sample(n, seed, **kw)
            drawn.append((seed, tuple(int(h) for h in worlds[0])))
            return worlds

    monkeypatch.setattr(CB, "WorldSampler", Recording)
    seeds = {}
    phases = set()
    for salt in (0, 0, 3):
        drawn.clear()
        for k, (d, seat) in enumerate(positions(16, seed=13)):
            agent = make_agent(f"colver:rule:seed={salt}")
            agent.reset(seat, d.rules, 40 + k)
            info = information_set(d, seat)
            for rep in range(2):
                env = agent._world_env(info)
                seed, world = drawn[-1]
                # colver holds the drawn world (the unplayed cards), at the real position
                held = tuple(sum(1 << CB.from_colver_card(x) for x in h) for h in env.get_hands())
                assert held == world and info.is_consistent(world)
                assert world[seat] == d.hands[seat]
                assert env.current_player() == seat
            assert drawn[-1][0] != drawn[-2][0]      # the stream moves on between decisions
            phases.add(d.phase)
        seeds[salt] = seeds.get(salt, []) + [[s for s, _ in drawn]]
    assert phases == {"auction", "play"}
    assert seeds[0][0] == seeds[0][1]                 # same seeds, same worlds
    assert seeds[3][0] != seeds[0][0]                 # the agent's seed salts the stream


@needs_colver
@pytest.mark.parametrize("spec", BOTS)
def test_full_deals_legal_at_every_seat(spec):
    for seat in range(4):
        for k in range(2):
            d = Deal("colver", seed=100 * seat + k, dealer=k)
            agents = [RandomAgent() for _ in range(4)]
            agents[seat] = make_agent(spec)
            play_deal(d, agents, seeds=[seat, k, 7, 9])     # raises on an illegal choice
            assert d.is_terminal
    d = Deal("colver", seed=5, dealer=2)
    agents = [make_agent(spec) for _ in range(4)]
    result = play_deal(d, agents, seeds=[1, 2, 3, 4])
    assert result.scores == d.scores
    assert any(a.last_decision is not None for a in agents)


@needs_colver
def test_colver_bots_reach_the_play_and_use_every_auction_action_kind():
    kinds = set()
    for g in range(40):
        d = Deal("colver", seed=1000 + g)
        play_deal(d, [make_agent(s) for s in ("colver:maxi", "colver:heuristic",
                                              "colver:rule", "colver:maxi")], seeds=[g] * 4)
        for a in d.auction:
            kinds.add("pass" if a == A.PASS else "bid" if A.is_bid(a) else
                      "capot" if A.is_capot(a) else A.action_to_str(a))
    assert {"pass", "bid", "coinche"} <= kinds


@needs_colver
@pytest.mark.parametrize("spec", REPRODUCIBLE)
def test_reproducible_with_the_same_seeds(spec):
    histories = []
    for seeds in ([1, 2, 3, 4], [1, 2, 3, 4], [5, 6, 7, 8]):
        hs = []
        for g in range(4):
            d = Deal("colver", seed=50 + g)
            play_deal(d, [make_agent(spec) for _ in range(4)], seeds=seeds)
            hs.append(d.history)
        histories.append(hs)
    salted = []
    for g in range(4):
        d = Deal("colver", seed=50 + g)
        play_deal(d, [make_agent(spec + ":seed=9") for _ in range(4)], seeds=[1, 2, 3, 4])
        salted.append(d.history)
    assert histories[0] == histories[1]
    if spec == "colver:rule":
        # an information-set bot: the sampled hidden cards (the only randomness) change
        # nothing
        assert histories[0] == histories[2] == salted
    else:
        # the perfect-information card players see the sampled worlds
        assert histories[0] != histories[2] and salted != histories[0]


def other_deal_same_view(deal, seat, rng):
    """A deal with the same public history and the same cards for ``seat`` but other
    hidden cards (drawn from the seat's information set), at the same point."""
    info = information_set(deal, seat)
    for w in SM.WorldSampler(info).sample(20, int(rng.integers(2 ** 63))):
        world = tuple(int(h) for h in w)
        if world != tuple(deal.hands):
            break
    else:
        return None
    dealt = list(world)
    for p, c in deal.plays:
        dealt[p] |= 1 << c
    other = Deal(deal.rules, hands=dealt, dealer=deal.dealer)
    for a in deal.history:
        other.apply(a)
    assert information_set(other, seat) == info
    return other


@needs_colver
@pytest.mark.parametrize("spec", REPRODUCIBLE)
def test_choices_do_not_depend_on_hidden_cards(spec):
    rng = np.random.default_rng(21)
    checked = 0
    while checked < 12:
        d = random_trace("colver", rng, stop=int(rng.integers(2, 30)))
        if d.is_terminal or len(d.legal_actions()) < 2:
            continue
        seat = d.current_player
        other = other_deal_same_view(d, seat, rng)
        if other is None:
            continue
        seen = []
        for deal in (d, other):
            agent = make_agent(spec)
            agent.reset(seat, deal.rules, 77)
            for a in deal.history:
                agent.observe(seat, a)          # the seat is not used by the adapter
            seen.append(agent.act(PlayerView.from_deal(deal)))
        assert seen[0] == seen[1]
        checked += 1


@needs_colver
def test_refuses_other_rules_at_reset_and_checks_observe():
    agent = make_agent("colver:rule")
    with pytest.raises(CB.ColverRulesError, match="'colver' preset"):
        agent.reset(0, get_rules("ffb"), 1)
    d = Deal("colver", seed=3, dealer=3)          # seat 0 speaks first
    agent.reset(1, d.rules, 1)
    d.apply(A.PASS)
    agent.observe(0, A.PASS)
    agent.observe(0, A.PASS)                      # one observe too many
    with pytest.raises(CB.ColverActionError, match="observe"):
        agent.act(PlayerView.from_deal(d))
    with pytest.raises(CB.ColverActionError, match="no colver counterpart"):
        agent.observe(0, A.TAKE)
    fresh = make_agent("colver:rule")
    with pytest.raises(ValueError, match="reset"):
        fresh.act(PlayerView.from_deal(d))


@needs_colver
def test_colvers_heuristic_and_maxi_play_read_hidden_cards_its_bidders_and_rule_do_not():
    """Why the adapter samples the unseen cards: in colver itself, the heuristic and maxi
    card players change their choice with the other seats' cards; its bidders and its rule
    card player do not (the deals differ only where the seat to act cannot see)."""
    def env_for(deal, world):
        dealt = list(world)
        for p, c in deal.plays:
            dealt[p] |= 1 << c
        env = colver.Env.deal_with_hands(
            deal.dealer, [[CB.to_colver_card(c) for c in cards_of(h)] for h in dealt])
        for a in deal.history:
            env.step(CB.to_colver_action(a))
        return env

    def spec_action(bid, play):
        spec = f'[bid]\nstrategy = "{bid}"\n[play]\nmethod = "{play}"\n'
        return lambda env: colver.Agent(spec, seat=env.current_player()).decide(env)["action"]

    play_players = {"heuristic": lambda e: e.action_heuristic_play(),
                    "maxi": lambda e: e.action_maxi_play(),
                    "rule": spec_action("improved_v2", "rule")}
    bidders = {b: spec_action(b, "rule") for b in CB.BID_STRATEGIES}
    varies = dict.fromkeys(list(play_players) + ["bid:" + b for b in bidders], 0)
    rng = np.random.default_rng(8)
    counts = {"play": 0, "auction": 0}
    while counts["play"] < 120 or counts["auction"] < 40:
        d = random_trace("colver", rng, stop=int(rng.integers(1, 40)))
        if d.is_terminal or len(d.legal_actions()) < 2:
            continue
        info = information_set(d, d.current_player)
        worlds = SM.WorldSampler(info).sample(4, int(rng.integers(2 ** 63)))
        envs = [env_for(d, [int(h) for h in w]) for w in worlds]
        counts[d.phase] += 1
        players = play_players if d.phase == "play" else {"bid:" + b: f for b, f in bidders.items()}
        for name, choose in players.items():
            varies[name] += len({choose(e) for e in envs}) > 1
    assert varies["heuristic"] > 0 and varies["maxi"] > 0
    assert all(v == 0 for k, v in varies.items() if k not in ("heuristic", "maxi")), varies


# ------------------------------------------------------------------ tournaments (issue 15)
def _nothing_played(monkeypatch):
    """Make any deal played (serial or a pool) fail the test: the checks come first."""
    from coinche_rl import arena

    def played(*args, **kwargs):
        raise AssertionError("a deal was played before the rules were checked")

    monkeypatch.setattr(arena.executors, "_run_task", played)
    monkeypatch.setattr(arena.executors, "_pool", played)
    monkeypatch.setattr(arena.executors, "warmup", lambda: None)


@needs_colver
@pytest.mark.parametrize("backend", ["serial", "pool"])
def test_a_tournament_under_other_rules_names_colvers_rules_before_playing(monkeypatch, backend):
    from coinche_rl.arena import ArenaError, run_duplicate, run_knockout
    _nothing_played(monkeypatch)
    with pytest.raises(ArenaError) as e:
        run_duplicate("colver:maxi", "heuristic", 4, backend=backend)
    text = str(e.value)
    assert "agent 'colver:maxi' cannot play the rule set 'ffb'" in text
    assert "declarations=True (colver: False)" in text
    assert "--rules colver" in text and "preset='colver'" in text
    # the knockout's default rules (vip_classic) are of the classic family, which colver's
    # agents do not play at all: the registry names the family before any rule set check
    with pytest.raises(AgentSpecError, match="plays the family coinche, not the family "
                       "'classic' .*vip_classic"):
        run_knockout(["colver:rule", "random"] * 4, 1, backend=backend)
    with pytest.raises(ArenaError, match="cannot play the rule set 'ffb'.*--rules colver"):
        run_knockout(["colver:rule", "random"] * 4, 1, preset="ffb", backend=backend)


@needs_colver
def test_the_tournament_command_says_how_to_select_colvers_rules(monkeypatch, capsys):
    from coinche_rl import cli
    _nothing_played(monkeypatch)
    rc = cli.main(["tournament", "--agents", "colver:maxi", "heuristic", "--deals", "10",
                   "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 2 and "Traceback" not in err
    assert "coinche-rl: error: agent 'colver:maxi' cannot play the rule set 'ffb'" in err
    assert "--rules colver" in err


@needs_colver
def test_a_tournament_under_the_colver_rules_plays():
    from coinche_rl.arena import run_duplicate
    r = run_duplicate("colver:rule", "random", 1, preset="colver", seed=2)
    assert r.n == 1


def test_a_tournament_without_colver_says_pip_install_and_the_rules(monkeypatch, capsys):
    from coinche_rl import cli
    from coinche_rl.arena import run_duplicate
    monkeypatch.setitem(sys.modules, "colver", None)      # import colver -> ImportError
    _nothing_played(monkeypatch)
    with pytest.raises(AgentSpecError) as e:                # and a ColverNotInstalledError
        run_duplicate("colver:maxi", "heuristic", 4)
    assert isinstance(e.value, CB.ColverNotInstalledError) and isinstance(e.value, ImportError)
    assert "pip install colver" in str(e.value) and "--rules colver" in str(e.value)
    rc = cli.main(["tournament", "--agents", "colver:maxi", "heuristic", "--deals", "10",
                   "--no-progress"])
    err = capsys.readouterr().err
    assert rc == 2 and "Traceback" not in err
    assert "coinche-rl: error: the colver:* agents need the optional package colver" in err
    assert "pip install colver" in err and "--rules colver" in err
