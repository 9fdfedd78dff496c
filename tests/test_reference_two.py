"""The pure-Python reference of belote for two players (coinche_rl.reference_two)
against the hand-built cases of tests/two_player_cases.py, plus property tests on random
decks and random legal play (hypothesis)."""

from __future__ import annotations

import copy
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coinche_rl.actions import CARD_BASE, N_ACTIONS, action_to_str, parse_action
from coinche_rl.cards import cards_of, format_card, parse_card
from coinche_rl.reference_two import (ReferenceTwoPlayerDeal, best_declaration,
                                      card_points, legal_cards, match_winner_two,
                                      trick_winner)
from coinche_rl.rules import get_rules

from two_player_cases import CASES, MATCH_CASES

FAST = settings(max_examples=150, deadline=None,
                suppress_health_check=[HealthCheck.too_slow])


def _rules(spec):
    if isinstance(spec, str):
        return get_rules(spec)
    preset, overrides = spec
    return get_rules(preset, **overrides)


def _texts(mask: int) -> list[str]:
    return sorted(format_card(c) for c in cards_of(mask))


def _card_or_none(c: int):
    return None if c < 0 else format_card(c)


def _state(g: ReferenceTwoPlayerDeal) -> dict:
    """Everything of the deal, for 'unchanged' checks."""
    return copy.deepcopy({k: v for k, v in vars(g).items() if k != "rules"})


def _check_illegal(g, text: str) -> None:
    before = _state(g)
    with pytest.raises(ValueError, match="illegal action"):
        g.apply(parse_action(text))
    assert _state(g) == before, f"{text} changed the state"


def _check(g: ReferenceTwoPlayerDeal, exp: dict, where: str) -> None:
    for key, want in exp.items():
        if key == "after":
            continue
        msg = f"{where}: {key}"
        if key in ("phase", "current_player", "taker", "exchanged", "void",
                   "trick_winners", "declaration_winner", "belote_points"):
            assert getattr(g, key) == want, msg
        elif key == "trump":
            assert (None if g.trump is None else "SHDC"[g.trump]) == want, msg
        elif key == "retourne":
            assert format_card(g.retourne) == want, msg
        elif key in ("hands", "table_up", "table_down"):
            got = [_texts(m) for m in getattr(g, key)]
            assert got == [sorted(p) for p in want], msg
        elif key == "stacks":
            got = [[[_card_or_none(u), _card_or_none(d)] for u, d in s] for s in g.stacks]
            assert got == want, msg
        elif key == "legal":
            got = sorted(action_to_str(a) for a in g.legal_actions())
            assert got == sorted(action_to_str(parse_action(t)) for t in want), msg
        elif key == "illegal":
            for text in want:
                _check_illegal(g, text)
        elif key == "declarations":
            assert g.declaration_points == want, msg
        elif key == "result":
            assert g.result is not None, msg
            for field, value in want.items():
                assert g.result[field] == value, f"{msg}[{field!r}]"
        else:
            raise AssertionError(f"{where}: unknown expectation {key!r}")


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_case(case):
    rules = _rules(case["rules"])
    deck = [parse_card(t) for t in case["deck"]]
    g = ReferenceTwoPlayerDeal(rules, deck, case["dealer"])
    checks = {c["after"]: c for c in case.get("checks", [])}
    actions = case["actions"]
    for i, text in enumerate(actions):
        if i in checks:
            _check(g, checks[i], f"{case['name']} after {i}")
        g.apply(parse_action(text))
    if len(actions) in checks:
        _check(g, checks[len(actions)], f"{case['name']} after {len(actions)}")
    if case.get("finish") == "lowest":
        while g.phase != "done":
            g.apply(min(g.legal_actions()))
    else:
        assert "finish" not in case
    _check(g, case["expect"], case["name"])


def test_case_names_are_unique():
    names = [c["name"] for c in CASES]
    assert len(names) == len(set(names))


@pytest.mark.parametrize("case", MATCH_CASES, ids=[c["name"] for c in MATCH_CASES])
def test_match_winner(case):
    assert match_winner_two(case["totals"], case["target"]) == case["winner"]


# ------------------------------------------------------------------ small functions
def test_card_functions():
    s = parse_card
    assert card_points(s("JS"), 0) == 20 and card_points(s("9S"), 0) == 14
    assert card_points(s("JH"), 0) == 2 and card_points(s("AH"), 0) == 11
    assert sum(card_points(c, 2) for c in range(32)) == 152
    assert trick_winner([(0, s("9S")), (1, s("JS"))], 0) == 1     # trump order
    assert trick_winner([(0, s("9H")), (1, s("JH"))], 0) == 1     # plain: J over 9
    assert trick_winner([(0, s("AH")), (1, s("7S"))], 0) == 1     # trumped
    assert trick_winner([(0, s("7H")), (1, s("AD"))], 0) == 0     # discard
    mask = sum(1 << s(t) for t in ("7S", "QS", "AH", "7D"))
    assert legal_cards(mask, [(0, s("KS"))], 0) == {s("7S"), s("QS")}   # none above K
    assert legal_cards(mask, [(0, s("8S"))], 0) == {s("QS")}             # overtrump
    assert legal_cards(mask, [(0, s("KC"))], 0) == {s("7S"), s("QS")}   # must trump
    assert legal_cards(mask, [(0, s("KC"))], 1) == {s("AH")}            # follow
    assert legal_cards(mask, [(0, s("KC"))], 3) == set(cards_of(mask))   # discard


def test_best_declaration():
    m = lambda text: sum(1 << parse_card(t) for t in text.split())
    assert best_declaration(m("7S 8S 9S TS JS QS KS AS"), 1).length == 8
    d = best_declaration(m("KS KH KD KC 7H 8H 9H TH JH"), 0)      # carré K over a cent
    assert (d.kind, d.points) == ("carre", 100)
    assert best_declaration(m("8S 8H 8D 8C 7S 7H 7D 7C"), 0) is None


# ------------------------------------------------------------------ properties
RULE_SPECS = ["belote_a_deux", "belote_decouverte",
              ("belote_a_deux", {"litige": True}),
              ("belote_decouverte", {"declarations": True, "belote": True, "litige": True})]


def _expected_scores(rules, r, taker):
    """The scores from the result's own fields (docs/two_player.md "Scoring")."""
    P, O = taker, 1 - taker
    w = r["declaration_winner"]
    D = r["declarations"][w] if w is not None else 0
    dec = [D if w == p else 0 for p in (0, 1)]
    pts, bel = r["card_points"], r["belote"]
    if pts[P] >= 82:
        return [pts[p] + dec[p] + bel[p] for p in (0, 1)]
    out = [0, 0]
    out[P] = bel[P]
    if rules.litige and pts[P] == 81:
        out[O] = pts[O] + dec[O] + bel[O]
    else:
        out[O] = (252 if r["capot"] == O else 162) + D + bel[O]
    return out


@FAST
@given(deck=st.permutations(list(range(32))), dealer=st.integers(0, 1),
       spec=st.sampled_from(RULE_SPECS), seed=st.integers(0, 2**32 - 1),
       pass_prob=st.sampled_from([0.0, 0.5, 0.9]))
def test_random_deals(deck, dealer, spec, seed, pass_prob):
    rules = _rules(spec)
    rng = random.Random(seed)
    g = ReferenceTwoPlayerDeal(rules, deck, dealer)
    played = [0, 0]
    owned = None
    steps = 0
    while g.phase != "done":
        legal = g.legal_actions()
        assert legal and legal == sorted(set(legal))
        p = g.current_player
        if g.phase == "play":
            if owned is None:
                owned = [g.hands[q] | g.table_up[q] | g.table_down[q] for q in (0, 1)]
                assert [bin(m).count("1") for m in owned] == [16, 16]
                assert owned[0] | owned[1] == 0xFFFFFFFF
            cards = {a - CARD_BASE for a in legal}
            assert all(CARD_BASE <= a < CARD_BASE + 32 for a in legal)
            playable = set(cards_of(g.hands[p] | g.table_up[p]))
            assert cards <= playable
            assert not cards & set(cards_of(g.table_down[p]))     # never a face-down card
        if rng.random() < 0.3:                                   # an illegal action
            bad = rng.choice([a for a in range(N_ACTIONS) if a not in legal])
            before = _state(g)
            with pytest.raises(ValueError):
                g.apply(bad)
            assert _state(g) == before
        if g.phase == "prise" and 0 in legal and rng.random() < pass_prob:
            a = 0
        else:
            a = rng.choice(legal)
        if g.phase == "play":
            played[p] |= 1 << (a - CARD_BASE)
        g.apply(a)
        steps += 1
    r = g.result
    assert g.current_player is None and g.legal_actions() == []
    if g.void:
        assert r["void"] and r["scores"] == [0, 0] and steps == 4
        return
    assert played == owned                       # each played exactly his 16 cards
    assert len(g.tricks) == 16 and all(len(t) == 2 for t in g.tricks)
    assert sum(r["tricks_won"]) == 16
    for k, t in enumerate(g.tricks):             # the winner of a trick leads the next
        lead = g.dealer ^ 1 if k == 0 else g.trick_winners[k - 1]
        assert t[0][0] == lead and t[1][0] == 1 - lead
    if r["capot"] is not None:
        assert r["card_points"][r["capot"]] == 252 and sum(r["card_points"]) == 252
        assert r["tricks_won"][r["capot"]] == 16
    else:
        assert sum(r["card_points"]) == 162
    assert r["made"] == (r["card_points"][g.taker] >= 82)
    assert r["litige"] == (rules.litige and r["card_points"][g.taker] == 81)
    assert r["scores"] == _expected_scores(rules, r, g.taker)
    if not rules.belote:
        assert r["belote"] == [0, 0]
    if not rules.declarations:
        assert r["declarations"] == [0, 0] and r["declaration_winner"] is None
    assert sum(r["belote"]) in (0, 20)
