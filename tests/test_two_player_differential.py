"""Belote for two players: the numba engine (coinche_rl.two_player) against the
pure-Python reference (coinche_rl.reference_two): every hand-built case of
tests/two_player_cases.py through the engine, and both implementations compared at
every step of random deals of every variant."""

from __future__ import annotations

import os

import numpy as np
import pytest

from coinche_rl.actions import action_to_str, parse_action
from coinche_rl.cards import cards_of, format_card, parse_card
from coinche_rl.reference_two import ReferenceTwoPlayerDeal
from coinche_rl.rules import get_rules
from coinche_rl.two_player import IllegalActionError, TwoPlayerDeal

from two_player_cases import CASES

VARIANTS = [("belote_a_deux", {}), ("belote_decouverte", {}),
            ("belote_a_deux", {"litige": True}),
            ("belote_decouverte", {"declarations": True, "belote": True, "litige": True}),
            ("belote_a_deux", {"declarations": False, "belote": False})]


def _rules(spec):
    if isinstance(spec, str):
        return get_rules(spec)
    preset, overrides = spec
    return get_rules(preset, **overrides)


def _texts(mask: int) -> list:
    return sorted(format_card(c) for c in cards_of(mask))


def _card_or_none(c: int):
    return None if c < 0 else format_card(c)


def _result(d: TwoPlayerDeal) -> dict:
    """The engine's result in the reference's terms."""
    r = d.result
    return {"void": r.void, "card_points": list(r.card_points), "capot": r.capot,
            "tricks_won": [sum(1 for w in d.trick_winners if w == p) for p in range(2)],
            "declarations": list(r.declarations), "declaration_winner": r.declaration_winner,
            "belote": list(r.belote), "made": bool(r.made), "litige": r.litige,
            "litige_points": r.litige_points, "scores": list(r.scores)}


def _check(d: TwoPlayerDeal, exp: dict, where: str) -> None:
    for key, want in exp.items():
        if key == "after":
            continue
        msg = f"{where}: {key}"
        if key in ("phase", "current_player", "taker", "trick_winners", "declaration_winner"):
            assert getattr(d, key) == want, msg
        elif key == "void":
            assert d.is_void == want, msg
        elif key == "exchanged":
            assert bool(d.exchanged) == want, msg          # the engine: None when not offered
        elif key == "belote_points":
            assert d.belote_points == want, msg
        elif key == "trump":
            assert (None if d.trump is None else "SHDC"[d.trump]) == want, msg
        elif key == "retourne":
            assert format_card(d.retourne) == want, msg
        elif key in ("hands", "table_up", "table_down"):
            assert [_texts(m) for m in getattr(d, key)] == [sorted(p) for p in want], msg
        elif key == "stacks":
            got = [[[_card_or_none(u), _card_or_none(dn)] for u, dn in s] for s in d.stacks]
            assert got == want, msg
        elif key == "legal":
            assert sorted(action_to_str(a) for a in d.legal_actions()) == \
                sorted(action_to_str(parse_action(t)) for t in want), msg
        elif key == "illegal":
            for text in want:
                before = d.state.copy()
                with pytest.raises(IllegalActionError):
                    d.apply(text)
                assert (d.state == before).all(), f"{msg}: {text} changed the state"
        elif key == "declarations":
            assert [p for p, _ in d.declarations] == want, msg
        elif key == "result":
            got = _result(d)
            for field, value in want.items():
                assert got[field] == value, f"{msg}[{field!r}]"
        else:
            raise AssertionError(f"{where}: unknown expectation {key!r}")


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_every_case_through_the_engine(case):
    d = TwoPlayerDeal(_rules(case["rules"]), deck=[parse_card(t) for t in case["deck"]],
                      dealer=case["dealer"])
    checks = {c["after"]: c for c in case.get("checks", [])}
    actions = case["actions"]
    for i, text in enumerate(actions):
        if i in checks:
            _check(d, checks[i], f"{case['name']} after {i}")
        d.apply(text)
    if len(actions) in checks:
        _check(d, checks[len(actions)], f"{case['name']} after {len(actions)}")
    if case.get("finish") == "lowest":
        while not d.is_terminal:
            d.apply(min(d.legal_actions()))
    _check(d, case["expect"], case["name"])


def _same(d: TwoPlayerDeal, g: ReferenceTwoPlayerDeal, where: str) -> None:
    assert d.phase == g.phase, where
    assert d.current_player == g.current_player, where
    assert d.legal_actions() == g.legal_actions(), where
    assert d.hands == g.hands and d.table_up == g.table_up and d.table_down == g.table_down, where
    assert d.stacks == [[(u, dn) for u, dn in s] for s in g.stacks], where
    assert d.taker == g.taker and d.trump == g.trump and bool(d.exchanged) == g.exchanged, where
    assert d.trick_winners == g.trick_winners, where
    assert [list(t) for t in d.tricks] == [list(t) for t in g.tricks], where
    assert d.declaration_winner == g.declaration_winner, where
    assert d.belote_points == g.belote_points, where


def _play_both(rules, n_deals, seed):
    rng = np.random.default_rng(seed)
    for i in range(n_deals):
        deck = [int(c) for c in rng.permutation(32)]
        dealer = int(rng.integers(2))
        d = TwoPlayerDeal(rules, deck=deck, dealer=dealer)
        g = ReferenceTwoPlayerDeal(rules, deck, dealer)
        step = 0
        while True:
            _same(d, g, f"deal {i} step {step}")
            if d.is_terminal:
                break
            legal = d.legal_actions()
            # take more often than random so that most deals are played
            a = legal[-1] if d.phase == "prise" and rng.random() < 0.5 else \
                legal[int(rng.integers(len(legal)))]
            d.apply(a)
            g.apply(a)
            step += 1
        assert _result(d) == {k: g.result[k] for k in _result(d)}, f"deal {i}"


@pytest.mark.parametrize("variant", VARIANTS, ids=[f"{p}{o or ''}" for p, o in VARIANTS])
def test_engine_equals_reference_at_every_step(variant):
    preset, overrides = variant
    _play_both(get_rules(preset, **overrides), 120, VARIANTS.index(variant))


@pytest.mark.soak
@pytest.mark.skipif("COINCHE_SOAK" not in os.environ,
                    reason="soak run: set COINCHE_SOAK=N (make soak runs 10^6 deals per rule set)")
@pytest.mark.parametrize("variant", VARIANTS, ids=[f"{p}{o or ''}" for p, o in VARIANTS])
def test_soak_engine_equals_reference(variant):
    preset, overrides = variant
    _play_both(get_rules(preset, **overrides), int(os.environ["COINCHE_SOAK"]),
               7_000_000 + VARIANTS.index(variant))
