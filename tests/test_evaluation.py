"""Monte Carlo hand evaluation (``coinche_rl.agents.evaluation``): every number equals a
direct computation through the public engine, solver and bot APIs; determinism;
constraints; the shape of the results; errors."""

from __future__ import annotations

import json

import numpy as np
import pytest

from coinche_rl.actions import parse_action
from coinche_rl.agents import evaluation as EV
from coinche_rl.agents.base import play_deal
from coinche_rl.agents.evaluation import (CAPOT, EvaluationError, HandEvaluation, contract_levels,
                                          evaluate_hand, suggest_bid)
from coinche_rl.agents.numba_bots import BOT_HEURISTIC, play_deals
from coinche_rl.agents.registry import make_agent
from coinche_rl.cards import parse_hand
from coinche_rl.engine import S_CARD_POINTS, S_MADE, S_SCORE
from coinche_rl.game import Deal
from coinche_rl.rules import UnknownPresetError, get_rules, params_vector
from coinche_rl.solver import Solver

HAND = "JH 9H AH TH 7S 8D KC QC"
FULL = (1 << 32) - 1


@pytest.fixture(scope="module")
def solver():
    return Solver(16)


@pytest.fixture(scope="module")
def ev_ffb():
    return evaluate_hand("ffb", 0, HAND, 3, samples=6, seed=11, strains="H,C")


def _deal(ev: HandEvaluation, i: int, value: int, strain: int, coinche: int = 0) -> Deal:
    if ev.decks is not None:
        return Deal(ev.rules, deck=[int(c) for c in ev.decks[i]], dealer=ev.dealer).with_contract(
            0, strain, taker=ev.seat)
    return Deal(ev.rules, hands=[int(h) for h in ev.hands[i]], dealer=ev.dealer).with_contract(
        value, strain, taker=ev.seat, coinche=coinche)


def _check_dd_exact(ev: HandEvaluation, solver, worlds=None, levels=None):
    """dd_points and dd_scores equal the solver's points / score objectives on the
    Deal.with_contract positions."""
    team = ev.seat & 1
    worlds = range(ev.samples) if worlds is None else worlds
    levels = range(len(ev.levels)) if levels is None else levels
    for i in worlds:
        for j, s in enumerate(ev.strains):
            d0 = _deal(ev, i, int(ev.levels[0]), s, ev.coinche)
            assert ev.dd_points[j, i] == solver.solve(d0, "points", team=team)
            for k in levels:
                d = _deal(ev, i, int(ev.levels[k]), s, ev.coinche)
                assert ev.dd_scores[j, k, i] == solver.solve(d, "score", team=team), (i, s, k)


def _synthetic_equals_score(rules, hand, seat=0, dealer=3, samples=2, seed=0, strains=None,
                            retourne=None, holds=None):
    """Run the double-dummy kernel directly: the made / score of the synthetic finished
    deal equals the score objective at every level (rules without declare / belote
    choices). Returns (points, made, score)."""
    ev = evaluate_hand(rules, seat, hand, dealer, samples=samples, seed=seed, strains=strains,
                       method="heuristic", retourne=retourne, holds=holds)
    st = np.array(ev.strains, dtype=np.int64)
    ns, nl, n = len(st), len(ev.levels), ev.samples
    pts = np.zeros((ns, n), np.int64)
    sc = np.zeros((ns, nl, n), np.int64)
    mk = np.zeros((ns, nl, n), np.int64)
    syn = np.zeros((ns, nl, n), np.int64)
    W = Solver(14, keep_table=True).W
    classic = ev.decks is not None
    decks = ev.decks if classic else np.zeros((n, 32), np.int64)
    EV._dd_chunk(W, params_vector(ev.rules), ev.hands.copy(), decks.copy(), classic,
                 seat, dealer, st, ev.levels.copy(), 0, 0, n, pts, sc, mk, syn)
    np.testing.assert_array_equal(syn, sc)
    return pts, mk, sc


# ------------------------------------------------------------------ exactness
def test_dd_points_and_scores_equal_direct_solves(ev_ffb, solver):
    _check_dd_exact(ev_ffb, solver, worlds=range(2), levels=(0, 3, 5, 8, 9))


def test_dd_made_is_a_positive_score_under_ffb(ev_ffb):
    """FFB counts everything in the contract: made <=> the takers outscore the defenders."""
    np.testing.assert_array_equal(ev_ffb.dd_made == 1, ev_ffb.dd_scores > 0)
    np.testing.assert_array_equal(ev_ffb.heur_made == 1, ev_ffb.heur_scores > 0)


@pytest.mark.parametrize("rules,hand,strain", [
    ("colver", "JS 9S AS TS KH 8D 7C 8C", 0),
    ("coinche_x3", "JS 9S AS TS KS QS JD JC", 0),     # optional declarations, carré of jacks
])
def test_dd_made_follows_the_principal_variation(solver, rules, hand, strain):
    """Play one best line (score objective, declare choices included) to the end: its
    S_MADE is dd_made."""
    ev = evaluate_hand(rules, 1, hand, 0, samples=1, seed=4, strains=[strain], method="dd")
    for k in (0, 4, 8):
        d = _deal(ev, 0, int(ev.levels[k]), strain)
        v = solver.solve(d, "score", team=1)
        assert v == ev.dd_scores[0, k, 0]
        while not d.is_terminal:
            acts, vals = solver.move_values(d, "score", team=1)
            d.apply(int(acts[int(np.flatnonzero(vals == v)[0])]))
        assert d.scores[1] - d.scores[0] == v
        assert d.state[S_MADE] == ev.dd_made[0, k, 0]


@pytest.mark.parametrize("rules,hand,kw", [
    ("ffb_sa_ta", HAND, {}),
    ("funbelote", "JH 9H AH TH KH QH 8H 7H", {"strains": "H,NT"}),   # générale (350)
    (get_rules("ffb_sa_ta", at_points="scaled"), "JS 9S JH 9H JD AD TC 8C", {"strains": "AT"}),
    ("colver", HAND, {"strains": "H,S"}),
    ("ludiclub_coinche", "JH 9H AH TH KH QH 7S 8D", {"strains": "H,AT,NT"}),  # optional belote
    ("ludiclub_contree", "KS QS KH QH KD QD 7C 8C", {"strains": "AT,S"}),
    ("classic", "JH 9H AH TH 7S", {"retourne": "8H", "strains": "H,C"}),
    ("classic_declarations", HAND, {"strains": "H"}),
    ("vip_classic", "JH 9H AH TH 7S", {"retourne": "KC", "strains": "C,NT,AT"}),
])
def test_made_and_score_from_one_points_solve(rules, hand, kw):
    pts, mk, sc = _synthetic_equals_score(rules, hand, **kw)
    assert np.all(np.diff((mk == 1).astype(int), axis=1) <= 0)


def test_generale_and_capot_outcomes():
    pts, mk, sc = _synthetic_equals_score("funbelote", "JH 9H AH TH KH QH 8H 7H", strains="H")
    assert np.all(pts == 350) and np.all(mk == 1)          # one seat takes every trick
    # no trump and no honour for the takers: the defenders take every trick
    holds = {2: "9D JS QS KS JH QH KH QD"}
    pts, mk, sc = _synthetic_equals_score("ffb", "7S 8S 9S 7H 8H 9H 7D 8D", strains="C",
                                          holds=holds)
    assert np.all(pts == 0) and np.all(mk == 0)


def test_dd_exact_classic(solver):
    ev = evaluate_hand("classic", 2, "JS 9S AS 7D 8D", 1, samples=2, seed=3, retourne="TS",
                       strains="S,H", method="dd")
    assert ev.levels.tolist() == [0]
    _check_dd_exact(ev, solver)
    for i in range(2):
        d = _deal(ev, i, 0, 0)
        assert d.initial_hands == [int(h) for h in ev.hands[i]]
    assert np.all(ev.hands[:, 2] & parse_hand("JS 9S AS 7D 8D TS") == parse_hand("JS 9S AS 7D 8D TS"))


def test_dd_exact_coinched(solver):
    ev = evaluate_hand("ffb", 1, HAND, 2, samples=2, seed=5, strains="H", method="dd", coinche=1)
    _check_dd_exact(ev, solver, levels=(0, 5, 9))


def test_heuristic_equals_play_deals_on_with_contract():
    ev = evaluate_hand("ffb_sa_ta", 3, HAND, 0, samples=4, seed=2, method="heuristic")
    bots = np.full(4, BOT_HEURISTIC, dtype=np.int64)
    for i in range(ev.samples):
        for j, s in enumerate(ev.strains):
            for k, v in enumerate(ev.levels):
                d = _deal(ev, i, int(v), s)
                states = d.state[None, :].copy()
                assert play_deals(d.params, states, bots, np.zeros((1, 4), np.int64)) == 0
                diff = states[0, S_SCORE + 1] - states[0, S_SCORE]
                assert ev.heur_scores[j, k, i] == diff
                assert ev.heur_made[j, k, i] == states[0, S_MADE]


def test_heuristic_equals_python_agents():
    ev = evaluate_hand("ffb", 0, HAND, 3, samples=1, seed=8, strains="H", method="heuristic")
    for k, v in ((0, 80), (3, 110)):
        d = _deal(ev, 0, v, 1)
        play_deal(d, [make_agent("heuristic") for _ in range(4)], seeds=[0, 0, 0, 0])
        assert ev.heur_scores[0, k, 0] == d.scores[0] - d.scores[1]
        if k == 0:
            assert ev.heur_points[0, 0] == d.state[S_CARD_POINTS]


# ------------------------------------------------------------------ worlds and constraints
def test_worlds_are_deals_of_the_hand(ev_ffb):
    h = ev_ffb.hands
    assert h.shape == (6, 4)
    assert np.all(h[:, 0] == parse_hand(HAND))
    assert np.all((h[:, 0] | h[:, 1] | h[:, 2] | h[:, 3]) == FULL)
    for s in range(4):
        assert all(bin(int(x)).count("1") == 8 for x in h[:, s])


def test_same_seed_same_result_and_threads_change_nothing(ev_ffb):
    again = evaluate_hand("ffb", 0, HAND, 3, samples=6, seed=11, strains="H,C", threads=2)
    for name in ("hands", "dd_points", "dd_scores", "dd_made", "heur_scores", "p_make",
                 "expected_score"):
        np.testing.assert_array_equal(getattr(again, name), getattr(ev_ffb, name))
    other = evaluate_hand("ffb", 0, HAND, 3, samples=6, seed=12, strains="H,C",
                          method="heuristic")
    assert not np.array_equal(other.hands, ev_ffb.hands)


def test_holds_and_lacks_are_respected():
    ev = evaluate_hand("ffb", 0, HAND, 3, samples=60, seed=1, method="heuristic", strains="H",
                       holds={2: "AS", 1: "JS"}, lacks={3: "9S AD"})
    assert np.all(ev.hands[:, 2] & parse_hand("AS"))
    assert np.all(ev.hands[:, 1] & parse_hand("JS"))
    assert not np.any(ev.hands[:, 3] & parse_hand("9S AD"))
    with pytest.raises(EvaluationError, match="seat 2 cannot hold"):
        evaluate_hand("ffb", 0, HAND, 3, samples=2, holds={2: "JH"})


def test_min_suit_length_from_the_auction():
    ev = evaluate_hand("ffb", 0, HAND, 3, samples=40, seed=0, method="heuristic", strains="H",
                       auction="80H 90S pass", min_suit_length=4)
    spades = 0xFF
    counts = [bin(int(x) & spades).count("1") for x in ev.hands[:, 1]]
    assert min(counts) >= 4                    # seat 1 bid 90S
    base = evaluate_hand("ffb", 0, HAND, 3, samples=40, seed=0, method="heuristic",
                         strains="H", auction="80H 90S pass")
    assert min(bin(int(x) & spades).count("1") for x in base.hands[:, 1]) < 4


# ------------------------------------------------------------------ shape of the results
def test_levels_and_shapes(ev_ffb):
    assert contract_levels("ffb").tolist() == [80, 90, 100, 110, 120, 130, 140, 150, 160, 250]
    assert contract_levels(get_rules("ffb", max_bid=180)).tolist()[-3:] == [170, 180, 250]
    assert contract_levels("vip_classic").tolist() == [0]
    ev = ev_ffb
    assert ev.strains == (1, 3)
    assert ev.dd_points.shape == ev.heur_points.shape == (2, 6)
    assert ev.dd_points.dtype == np.float64
    assert ev.p_make.shape == ev.expected_score.shape == (2, 10)
    np.testing.assert_array_equal(ev.p_make, ev.p_make_dd)
    np.testing.assert_array_equal(ev.p_make_dd, (ev.dd_made == 1).mean(axis=2))
    np.testing.assert_allclose(ev.expected_score_heur, ev.heur_scores.mean(axis=2))
    assert ev.primary == "dd" and ev.legal.all()
    assert not ev.p_make.flags.writeable


def test_p_make_non_increasing_in_the_level():
    rng = np.random.default_rng(7)
    for t in range(3):
        cards = rng.permutation(32)[:8]
        hand = int(sum(1 << int(c) for c in cards))
        ev = evaluate_hand("ffb_sa_ta", t, hand, (t + 1) % 4, samples=40, seed=t,
                           method="heuristic")
        assert np.all(np.diff(ev.p_make, axis=1) <= 0)
        assert np.all(np.diff((ev.heur_made == 1).astype(int), axis=1) <= 0)    # world by world
    assert np.all(np.diff((_ev_dd_small().dd_made == 1).astype(int), axis=1) <= 0)


def _ev_dd_small():
    return evaluate_hand("ffb", 2, "AS TS KS 7H AD TD AC 8C", 1, samples=3, seed=9, method="dd")


def test_strong_hand_bids_high_weak_hand_passes():
    strong = evaluate_hand("ffb", 0, "JH 9H AH TH KH QH AS AD", 3, samples=6, seed=0,
                           strains="H")
    assert strong.suggested_bid is not None and strong.suggested_bid[0] >= 150
    assert strong.suggested_bid[1] == 1
    weak = evaluate_hand("ffb", 0, "7S 8S 7H 8H 7D 8D 7C 8C", 3, samples=6, seed=0)
    assert weak.suggested_bid is None
    assert "suggested bid: pass" in weak.table()


def test_suggest_bid_rule():
    levels = np.array([80, 90, 250])
    exp = np.array([[10.0, 5.0, -100.0], [30.0, 2.0, -50.0]])
    legal = np.ones((2, 3), bool)
    assert suggest_bid(levels, (0, 1), exp, legal) == (80, 1)      # the best expectation
    assert suggest_bid(levels, (0, 1), exp, legal, rule="highest") == (90, 0)  # highest, best strain
    legal[0, 1] = False
    assert suggest_bid(levels, (0, 1), exp, legal, rule="highest") == (90, 1)
    legal[1, 0] = False
    assert suggest_bid(levels, (0, 1), exp, legal) == (80, 0)
    assert suggest_bid(levels, (0, 1), -np.abs(exp), legal) is None


def test_auction_legal_mask_and_suggestion():
    ev = evaluate_hand("ffb", 0, "JH 9H AH TH KH QH AS AD", 3, samples=8, seed=0, strains="H,S",
                       method="heuristic", auction=["110S", "pass", "120H"])
    k120 = int(np.flatnonzero(ev.levels == 120)[0])
    assert not ev.legal[:, :k120 + 1].any() and ev.legal[:, k120 + 1:].all()
    assert ev.suggested_bid is None or ev.suggested_bid[0] > 120
    assert ev.auction == (parse_action("110S"), 0, parse_action("120H"))
    coinched = evaluate_hand("ffb", 0, HAND, 3, samples=2, method="heuristic", strains="H",
                             auction="pass 80S coinche")
    assert coinched.legal.tolist() == [[False] * 9 + [False]]
    assert coinched.suggested_bid is None
    fun = evaluate_hand("funbelote", 0, HAND, 3, samples=2, method="heuristic", strains="H",
                        auction="pass 80S coinche")                # capot_after_coinche
    assert fun.legal.tolist() == [[False] * 9 + [True]]


def test_classic_prise_rounds():
    r1 = evaluate_hand("classic", 0, "JH 9H AH TH 7S", 3, samples=4, retourne="8H",
                       method="heuristic")
    assert r1.legal[:, 0].tolist() == [False, True, False, False]
    r2 = evaluate_hand("classic", 0, "JH 9H AH TH 7S", 3, samples=4, retourne="8H",
                       method="heuristic", auction="pass pass pass pass")
    assert r2.legal[:, 0].tolist() == [True, False, True, True]
    assert r2.suggested_bid is None or r2.suggested_bid[1] != 1
    eight = evaluate_hand("classic", 0, HAND, 3, samples=4, method="heuristic")
    assert eight.legal.all() and eight.retourne == parse_hand("7S").bit_length() - 1
    assert "take" in eight.table()


def test_table_and_json(ev_ffb):
    t = ev_ffb.table()
    for word in ("card points", "P(make), double-dummy", "P(make), heuristic play",
                 "expected deal score", "capot", "suggested bid"):
        assert word in t
    d = json.loads(json.dumps(ev_ffb.to_dict()))
    assert d["strains"] == ["H", "C"] and d["levels"][-1] == CAPOT
    assert len(d["dd_points"][0]) == 6 and len(d["p_make"][1]) == 10
    assert "JH" in d["hand"] and d["primary"] == "dd"
    assert "suggested" in repr(ev_ffb)


def test_progress_callable_and_plain_text(monkeypatch, capsys):
    seen = []
    evaluate_hand("ffb", 0, HAND, 3, samples=3, strains="H",
                  progress=lambda m, d, t: seen.append((m, d, t)))
    assert ("dd", 3, 3) in seen and ("heuristic", 3, 3) in seen
    monkeypatch.setitem(__import__("sys").modules, "rich", None)   # no rich: plain lines
    monkeypatch.setitem(__import__("sys").modules, "rich.console", None)
    evaluate_hand("ffb", 0, HAND, 3, samples=3, strains="H", method="heuristic", progress=True)
    assert "evaluate heuristic: 3/3 worlds" in capsys.readouterr().err


def test_module_doctests():
    import doctest
    assert doctest.testmod(EV).failed == 0


# ------------------------------------------------------------------ errors
@pytest.mark.parametrize("kwargs,match", [
    (dict(hand="JH 9H AH"), "has 3 cards: a 'ffb' hand has 8 cards"),
    (dict(hand="JH 9H AH TH 7S 8D KC QX"), "hand: .*'QX'"),
    (dict(hand="JH JH AH TH 7S 8D KC QC"), "twice"),
    (dict(seat=4), "seat must be a seat 0..3"),
    (dict(dealer=-1), "dealer must be a seat 0..3"),
    (dict(strains="NT"), "strain NT is not allowed by rules 'ffb'"),
    (dict(strains="X"), "unknown strain 'X'"),
    (dict(method="mc"), "method 'mc' is not valid"),
    (dict(samples=0), "samples must be an int >= 1"),
    (dict(auction="80H 70S"), r"auction\[1\]"),
    (dict(auction="80H 90H 80S"), r"auction\[2\]"),
    (dict(auction="80H pass pass pass"), "the auction is over"),
    (dict(auction="pass pass pass pass"), "the auction is over"),
    (dict(auction="100Q"), r"auction\[0\]"),
    (dict(retourne="8H"), "classic family only"),
    (dict(coinche=3), "coinche must be an int 0..2"),
])
def test_bad_input(kwargs, match):
    args = dict(rules="ffb", seat=0, hand=HAND, dealer=3, samples=2, method="heuristic")
    args.update(kwargs)
    with pytest.raises(EvaluationError, match=match):
        evaluate_hand(**args)


def test_bad_rules_and_classic_input():
    with pytest.raises(UnknownPresetError, match="valid presets"):
        evaluate_hand("belotte", 0, HAND, 3, samples=1)
    with pytest.raises(EvaluationError, match="needs the retourne"):
        evaluate_hand("classic", 0, "JH 9H AH TH 7S", 3, samples=1)
    with pytest.raises(EvaluationError, match="in the 5-card hand"):
        evaluate_hand("classic", 0, "JH 9H AH TH 7S", 3, samples=1, retourne="JH")
    with pytest.raises(EvaluationError, match="5 cards .* or 8"):
        evaluate_hand("classic", 0, "JH 9H AH", 3, samples=1)
    with pytest.raises(EvaluationError, match="not in the hand"):
        evaluate_hand("classic", 0, HAND, 3, samples=1, retourne="AS")
    with pytest.raises(EvaluationError, match="no coinche"):
        evaluate_hand("classic", 0, HAND, 3, samples=1, coinche=1)
