"""The hand evaluation of belote for two players (coinche_rl.agents.two_player_evaluation)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from coinche_rl import actions as A
from coinche_rl.agents.evaluation import EvaluationError
from coinche_rl.agents import play_deal
from coinche_rl.agents.two_player_bots import TwoHeuristicAgent
from coinche_rl.agents.two_player_evaluation import (PASS_OPTION, _template, deck_places,
                                                      evaluate_two_player_hand,
                                                      evaluate_two_player_view, world_deck)
from coinche_rl.cards import parse_card
from coinche_rl.engine.bits import rng_seed, seed_int64
from coinche_rl.rules import get_rules
from coinche_rl.two_player import TwoPlayerDeal

PRESETS = ("belote_a_deux", "belote_decouverte")


@pytest.mark.parametrize("preset", PRESETS)
def test_every_world_shows_the_player_the_same_view(preset):
    """A world completes what the player knows: replayed to the same prise, it gives him
    exactly his view (and the deal places are the engine's)."""
    for i in range(30):
        d = TwoPlayerDeal(preset, seed=200 + i)
        if i % 3 == 1:
            d.apply("pass")
        p = d.current_player
        view = d.view(p)
        template, unknown = _template(view)
        assert sorted([int(c) for c in template if c >= 0] + list(unknown)) == list(range(32))
        rng = np.zeros(1, np.uint64)
        cards = np.empty(len(unknown), np.int64)
        deck = np.empty(32, np.int64)
        for w in range(5):
            rng_seed(rng, 7, w)
            world_deck(template, unknown, rng, cards, deck)
            other = TwoPlayerDeal(preset, deck=[int(c) for c in deck], dealer=d.dealer)
            for a in d.history:
                other.apply(a)
            assert np.array_equal(other.view(p).state, view.state)


def test_deck_places_follow_the_deal():
    place, owner, stack = deck_places(get_rules("belote_a_deux"), 0)
    assert (place == 1).sum() == 12 and (owner[place == 1] == 0).sum() == 6   # 6 cards each
    assert place[12] == 3 and (place == 0).sum() == 19                     # the retourne
    place, owner, stack = deck_places(get_rules("belote_decouverte"), 1)
    assert (place == 2).sum() == 16 and (place == 0).sum() == 16           # up, down
    assert owner[31] == 1 and stack[31] == 7                               # dealer's 8th


@pytest.mark.parametrize("preset", PRESETS)
def test_scores_equal_the_python_play_of_the_same_worlds(preset):
    """Each option's mean is the mean over the worlds of the deal played through the
    Python API by the heuristic agents with the same seeds (an independent path)."""
    d = TwoPlayerDeal(preset, seed=31)
    p = d.current_player
    view = d.view(p)
    n, seed = 6, 99
    ev = evaluate_two_player_view(view, samples=n, seed=seed)
    template, unknown = _template(view)
    rng = np.zeros(1, np.uint64)
    cards = np.empty(len(unknown), np.int64)
    deck = np.empty(32, np.int64)
    totals = np.zeros(len(ev.options))
    made = np.zeros(len(ev.options))
    for w in range(n):
        rng_seed(rng, seed_int64(seed), w)
        s0, s1 = world_deck(template, unknown, rng, cards, deck)
        for j, name in enumerate(ev.options):
            g = TwoPlayerDeal(preset, deck=[int(c) for c in deck], dealer=d.dealer)
            for a in d.history:
                g.apply(a)
            if name == "pass":
                g.apply("pass")
            elif name.startswith("take"):
                g.apply("take")
            else:
                suit = A.NAME_BASE + "shdc".index(name.split()[1][0])
                while g.prise_round == 1 or g.current_player != p:
                    g.apply("pass")
                g.apply(suit)
            r = play_deal(g, [TwoHeuristicAgent(), TwoHeuristicAgent()], [int(s0), int(s1)])
            totals[j] += r.scores[p] - r.scores[1 - p]
            made[j] += r.taker == p and r.made
    assert np.allclose(ev.expected_score, totals / n)
    takes = [j for j, o in enumerate(ev.options) if o != "pass"]
    assert np.allclose(ev.p_make[takes], made[takes] / n)
    assert np.isnan(ev.p_make[ev.options.index("pass")])


def test_options_by_round():
    d = TwoPlayerDeal("belote_a_deux", seed=4)
    ev = evaluate_two_player_view(d.view(d.current_player), samples=20)
    rs = "shdc"[d.retourne >> 3]
    assert ev.options[0].startswith("take") and ev.options[-1] == "pass" and len(ev.options) == 5
    assert ev.legal == (True, False, False, False, True)       # names wait for round 2
    assert ev.actions[0] == A.TAKE and ev.actions[-1] == A.PASS
    d.apply("pass")
    d.apply("pass")                                            # round 2
    ev2 = evaluate_two_player_view(d.view(d.current_player), samples=20)
    assert len(ev2.options) == 4 and all(ev2.legal)
    assert not any(o.startswith(("take", f"name {rs}")) for o in ev2.options)
    assert PASS_OPTION == 4


def test_strong_hand_takes_and_weak_hand_passes():
    strong = evaluate_two_player_hand("belote_a_deux", 0, "JH 9H AH 7S 8D KC", 1,
                                      retourne="TH", samples=400)
    assert strong.suggested == "take hearts"
    assert strong.p_make[0] > 0.8 and strong.expected_score[0] > strong.expected_score[-1]
    weak = evaluate_two_player_hand("belote_a_deux", 0, "7S 8S 9D 8D KC 7C", 1,
                                    retourne="TH", samples=400)
    assert weak.suggested == "pass" and weak.p_make[0] < 0.4
    # reproducible, and the table and JSON say the same
    again = evaluate_two_player_hand("belote_a_deux", 0, "7S 8S 9D 8D KC 7C", 1,
                                     retourne="TH", samples=400)
    assert np.array_equal(again.expected_score, weak.expected_score)
    assert "suggested: pass" in weak.table()
    assert json.loads(json.dumps(weak.to_dict()))["suggested"] == "pass"


@pytest.mark.parametrize("call, message", [
    (dict(cards="JH 9H AH 7S 8D", retourne="TH"), "6 cards"),
    (dict(cards="JH 9H AH 7S 8D KC", retourne="JH"), "given twice: JH"),
    (dict(cards="JH 9H AH 7S 8D KC"), "give the retourne"),
    (dict(cards="JH 9H AH 7S 8D KX", retourne="TH"), "cards:"),
    (dict(cards="JH 9H AH 7S 8D KC", retourne="TH", other_up="7H"), "belote_decouverte"),
    (dict(cards="JH 9H AH 7S 8D KC", retourne="TH", player=2), "player must be 0 or 1"),
    (dict(cards="JH 9H AH 7S 8D KC", retourne="TH", prise=["take"]), "not player 0's turn"),
    (dict(cards="JH 9H AH 7S 8D KC", retourne="TH", prise=["80H"]), "prise:"),
    (dict(rules="ffb", cards="JH 9H AH 7S 8D KC", retourne="TH"), "four-player"),
    (dict(rules="belote_decouverte", cards="JH 9H AH 7S 8D KC QC 7C",
          other_up="8H 7H KH 8S 9D AC 8C"), "8 face-up"),
    (dict(rules="belote_decouverte", cards="JH 9H AH 7S 8D KC QC 7C",
          other_up="8H 7H KH 8S 9D AC 8C TH", retourne="8H"), "dealer's last face-up card"),
])
def test_bad_input_is_refused(call, message):
    kw = dict(rules="belote_a_deux", player=0, dealer=1)
    kw.update(call)
    with pytest.raises(EvaluationError, match=message):
        evaluate_two_player_hand(kw.pop("rules"), kw.pop("player"), kw.pop("cards"),
                                 kw.pop("dealer"), samples=2, **kw)


def test_view_outside_the_players_prise_turn_is_refused():
    d = TwoPlayerDeal("belote_a_deux", seed=4)
    p = d.current_player
    with pytest.raises(EvaluationError, match="at his turn in the prise"):
        evaluate_two_player_view(d.view(1 - p), samples=2)
    d.apply("take")
    with pytest.raises(EvaluationError, match="at his turn in the prise"):
        evaluate_two_player_view(d.view(d.current_player), samples=2)
    with pytest.raises(EvaluationError, match="samples"):
        evaluate_two_player_view(TwoPlayerDeal("belote_a_deux", seed=4).view(p), samples=0)


def test_decouverte_retourne_is_the_dealers_last_card():
    ev = evaluate_two_player_hand("belote_decouverte", 1, "JH 9H AH 7S 8D KC QC 7C", 0,
                                  other_up="8H 7H KH 8S 9D AC 8C TH", samples=10)
    assert ev.options[0] == "take hearts"                      # TH, the dealer's 8th
    assert parse_card("TH") >> 3 == 1
