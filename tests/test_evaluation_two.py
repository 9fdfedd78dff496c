"""The hand evaluation with the rules of belote for two players: its worlds and options
(coinche_rl.agents.evaluation_two) in the one evaluation of every family
(coinche_rl.agents.evaluation: evaluate_hand, evaluate_view, HandEvaluation)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from coinche_rl import actions as A
from coinche_rl.agents import play_deal
from coinche_rl.agents.evaluation import EvaluationError, evaluate_hand, evaluate_view
from coinche_rl.agents.evaluation_two import PASS_OPTION, _template, deck_places, world_deck
from coinche_rl.agents.numba_bots import TwoHeuristicAgent
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
    ev = evaluate_view(view, samples=n, seed=seed)
    template, unknown = _template(view)
    rng = np.zeros(1, np.uint64)
    cards = np.empty(len(unknown), np.int64)
    deck = np.empty(32, np.int64)
    options = list(ev.strains) + [PASS_OPTION]
    totals = np.zeros(len(options))
    made = np.zeros(len(options))
    for w in range(n):
        rng_seed(rng, seed_int64(seed), w)
        s0, s1 = world_deck(template, unknown, rng, cards, deck)
        assert list(ev.decks[w]) == list(deck)
        for j, option in enumerate(options):
            g = TwoPlayerDeal(preset, deck=[int(c) for c in deck], dealer=d.dealer)
            for a in d.history:
                g.apply(a)
            if option == PASS_OPTION:
                g.apply("pass")
            elif option == d.retourne >> 3:
                g.apply("take")
            else:
                while g.prise_round == 1 or g.current_player != p:
                    g.apply("pass")
                g.apply(A.NAME_BASE + option)
            r = play_deal(g, [TwoHeuristicAgent(), TwoHeuristicAgent()], [int(s0), int(s1)])
            totals[j] += r.scores[p] - r.scores[1 - p]
            made[j] += r.taker == p and r.made
    assert np.allclose(ev.expected_score[:, 0], totals[:-1] / n)
    assert np.allclose(ev.p_make[:, 0], made[:-1] / n)
    assert ev.pass_expected == pytest.approx(totals[-1] / n)


def test_options_by_round():
    d = TwoPlayerDeal("belote_a_deux", seed=4)
    ev = evaluate_view(d.view(d.current_player), samples=20)
    rs = d.retourne >> 3
    assert ev.strains[0] == rs and len(ev.strains) == 4 and ev.levels.tolist() == [0]
    assert ev.legal[:, 0].tolist() == [True, False, False, False]    # names wait for round 2
    assert list(ev.action_values()) == [A.TAKE, A.PASS]
    d.apply("pass")
    d.apply("pass")                                            # round 2
    ev2 = evaluate_view(d.view(d.current_player), samples=20)
    assert len(ev2.strains) == 3 and ev2.legal.all() and rs not in ev2.strains
    assert sorted(ev2.action_values()) == sorted([A.PASS] + [A.NAME_BASE + s for s in ev2.strains])


def test_strong_hand_takes_and_weak_hand_passes():
    strong = evaluate_hand("belote_a_deux", 0, "JH 9H AH 7S 8D KC", 1, retourne="TH",
                           samples=400)
    assert strong.suggested_bid == (0, 1)                      # take hearts
    assert strong.p_make[0, 0] > 0.8 and strong.expected_score[0, 0] > strong.pass_expected
    assert "suggested bid: take H" in strong.table()
    weak = evaluate_hand("belote_a_deux", 0, "7S 8S 9D 8D KC 7C", 1, retourne="TH",
                         samples=400)
    assert weak.suggested_bid is None and weak.p_make[0, 0] < 0.4
    # reproducible, and the table and JSON say the same
    again = evaluate_hand("belote_a_deux", 0, "7S 8S 9D 8D KC 7C", 1, retourne="TH",
                          samples=400)
    assert np.array_equal(again.expected_score, weak.expected_score)
    assert "suggested bid: pass (no contract beats passing" in weak.table()
    d = json.loads(json.dumps(weak.to_dict()))
    assert d["suggested_bid"] is None and d["pass"]["expected_score"] == weak.pass_expected
    assert sum(d["pass"]["p_taken"]) == pytest.approx(1.0)


@pytest.mark.parametrize("call, message", [
    (dict(cards="JH 9H AH 7S 8D", retourne="TH"), "6 cards"),
    (dict(cards="JH 9H AH 7S 8D KC", retourne="JH"), "given twice: JH"),
    (dict(cards="JH 9H AH 7S 8D KC"), "give the retourne"),
    (dict(cards="JH 9H AH 7S 8D KX", retourne="TH"), "cards:"),
    (dict(cards="JH 9H AH 7S 8D KC", retourne="TH", other_up="7H"), "belote_decouverte"),
    (dict(cards="JH 9H AH 7S 8D KC", retourne="TH", player=2), "player must be 0 or 1"),
    (dict(cards="JH 9H AH 7S 8D KC", retourne="TH", method="dd"), "method 'dd': not for belote"),
    (dict(cards="JH 9H AH 7S 8D KC", retourne="TH", auction=["take"]), "not player 0's turn"),
    (dict(cards="JH 9H AH 7S 8D KC", retourne="TH", auction=["80H"]), "prise:"),
    (dict(rules="ffb", cards="JH 9H AH 7S 8D KC QC", other_up="7H"), "belote_decouverte"),
    (dict(rules="belote_decouverte", cards="JH 9H AH 7S 8D KC QC 7C",
          other_up="8H 7H KH 8S 9D AC 8C"), "8 face-up"),
    (dict(rules="belote_decouverte", cards="JH 9H AH 7S 8D KC QC 7C",
          other_up="8H 7H KH 8S 9D AC 8C TH", retourne="8H"), "dealer's last face-up card"),
])
def test_bad_input_is_refused(call, message):
    kw = dict(rules="belote_a_deux", player=0, dealer=1)
    kw.update(call)
    with pytest.raises(EvaluationError, match=message):
        evaluate_hand(kw.pop("rules"), kw.pop("player"), kw.pop("cards"), kw.pop("dealer"),
                      samples=2, **kw)


def test_view_outside_the_players_prise_turn_is_refused():
    d = TwoPlayerDeal("belote_a_deux", seed=4)
    p = d.current_player
    with pytest.raises(EvaluationError, match="at his turn in the prise"):
        evaluate_view(d.view(1 - p), samples=2)
    d.apply("take")
    with pytest.raises(EvaluationError, match="at his turn in the prise"):
        evaluate_view(d.view(d.current_player), samples=2)
    with pytest.raises(EvaluationError, match="samples"):
        evaluate_view(TwoPlayerDeal("belote_a_deux", seed=4).view(p), samples=0)
    with pytest.raises(EvaluationError, match="heuristic or network play"):
        evaluate_view(TwoPlayerDeal("belote_a_deux", seed=4).view(p), method="dd")
    with pytest.raises(EvaluationError, match="expected a player's view"):
        evaluate_view(d)


def test_decouverte_retourne_is_the_dealers_last_card():
    ev = evaluate_hand("belote_decouverte", 1, "JH 9H AH 7S 8D KC QC 7C", 0,
                       other_up="8H 7H KH 8S 9D AC 8C TH", samples=10)
    assert ev.strains[0] == 1 and ev.retourne == parse_card("TH")   # the dealer's 8th


def test_a_four_player_view_is_evaluated_as_its_hand():
    """evaluate_view takes a view of either family: a four-player seat at its turn in the
    auction is evaluate_hand of its hand and the auction so far."""
    from coinche_rl.agents import PlayerView
    from coinche_rl.game import Deal
    d = Deal("ffb", seed=3, dealer=0)
    d.apply("pass")
    view = PlayerView(d, d.current_player)
    ev = evaluate_view(view, samples=2, strains="H", method="heuristic")
    same = evaluate_hand("ffb", view.seat, d.hands[view.seat], 0, samples=2, strains="H",
                         method="heuristic", auction=["pass"])
    assert np.array_equal(ev.expected_score, same.expected_score) and ev.pass_scores is None
    assert ev.ci95.shape == ev.expected_score.shape
    with pytest.raises(EvaluationError, match="at its turn in the auction"):
        evaluate_view(PlayerView(d, 0), samples=2)


def test_heuristic_numbers_are_those_before_the_play_out_was_split():
    """Building the worlds' states and playing them out are two steps (the heuristic or
    the network plays them): the heuristic's numbers are those of the one-kernel version."""
    ev = evaluate_hand("belote_a_deux", 1, "JH 9H AH 7S 8D KC", 0, retourne="TH",
                       samples=300, seed=7, method="heuristic")
    assert ev.heur_scores.sum(axis=2).ravel().tolist() == [12336, -42022, -41694, -37160]
    assert ev.heur_made.sum(axis=2).ravel().tolist() == [291, 98, 100, 99]
    assert int(ev.pass_scores.sum()) == -5318 and ev.nn_scores is None


NN_HANDS = {"belote_a_deux": dict(hand="JH 9H AH 7S 8D KC", retourne="TH"),
            "belote_decouverte": dict(hand="JH 9H AH 7S 8D KC QC 7C",
                                      other_up="8H 7H KH 8S 9D AC 8C TH")}


@pytest.mark.parametrize("preset", PRESETS)
def test_nn_plays_the_same_worlds_with_the_card_play_network(preset):
    """method 'nn': the same worlds and options, both players' cards played by the
    shipped card-play network; reproducible, and not the heuristic's play."""
    kw = dict(NN_HANDS[preset], samples=60, seed=5)
    nn = evaluate_hand(preset, 1, dealer=0, method="nn", **kw)
    heur = evaluate_hand(preset, 1, dealer=0, method="heuristic", **kw)
    assert nn.method == "nn" and nn.primary == "nn" and nn.heur_scores is None
    assert nn.strains == heur.strains and np.array_equal(nn.legal, heur.legal)
    assert np.array_equal(nn.hands, heur.hands) and np.array_equal(nn.decks, heur.decks)
    assert nn.nn_scores.shape == heur.heur_scores.shape == (len(nn.strains), 1, 60)
    assert np.array_equal(nn.expected_score, nn.nn_scores.mean(axis=2))
    assert np.array_equal(nn.expected_score_nn, nn.expected_score)
    assert nn.ci95.shape == nn.expected_score.shape and nn.pass_scores.shape == (60,)
    assert not np.array_equal(nn.nn_scores, heur.heur_scores)      # the net plays otherwise
    again = evaluate_hand(preset, 1, dealer=0, method="nn", **kw)
    assert np.array_equal(again.nn_scores, nn.nn_scores)
    assert np.array_equal(again.pass_scores, nn.pass_scores)
    table = nn.table()
    assert "the card-play network playing both players' cards" in table
    assert "P(make), network play" in table and "strain    network" in table
    assert all(f"\n{n:6s}" in table for n in "HSDC")
    d = json.loads(json.dumps(nn.to_dict()))
    assert d["method"] == "nn" and d["primary"] == "nn" and len(d["nn_points_mean"]) == 4
    assert d["heur_points_mean"] is None and "nn" in nn.seconds
    view_ev = evaluate_view(TwoPlayerDeal(preset, seed=4).view(
        TwoPlayerDeal(preset, seed=4).current_player), samples=4, method="nn")
    assert view_ev.method == "nn" and view_ev.nn_scores.shape[2] == 4


def test_nn_plays_the_rest_of_the_prise_with_the_shipped_prise_network():
    """method 'nn' plays every world as the nn agent does: the card-play network's cards,
    and the rest of the prise and the exchange by the prise network that ships."""
    from coinche_rl.agents.evaluation_two import play_prise
    from coinche_rl.agents.neural.agent import load_bid_net, load_play_net
    deal = TwoPlayerDeal("belote_a_deux", seed=2, dealer=0)
    view = deal.view(deal.current_player)
    ev = evaluate_view(view, samples=40, seed=3, method="nn")
    net, bid = load_play_net("", view.rules), load_bid_net("", view.rules)
    both = play_prise(view, 40, 3, net=net, bid_net=bid)
    cards_only = play_prise(view, 40, 3, net=net)
    assert np.array_equal(ev.pass_scores, both[2][:, -1])
    assert np.array_equal(ev.nn_scores[:, 0, :], both[2][:, :-1].T)
    assert not np.array_equal(both[2], cards_only[2])      # the prise net decides otherwise


def test_nn_refuses_rules_its_network_was_not_trained_for():
    rules = get_rules("belote_a_deux", litige=True)
    with pytest.raises(EvaluationError, match="^method 'nn': the card-play net .* was trained "
                                              "for 'belote_a_deux' rules with other") as e:
        evaluate_hand(rules, 1, "JH 9H AH 7S 8D KC", 0, retourne="TH", samples=2,
                      method="nn")
    assert "\n" not in str(e.value)
    with pytest.raises(EvaluationError, match="nn_player 'heuristic': not for belote"):
        evaluate_hand("belote_a_deux", 1, "JH 9H AH 7S 8D KC", 0, retourne="TH", samples=2,
                      method="nn", nn_player="heuristic")
