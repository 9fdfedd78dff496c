"""Differential tests: random deals played through the numba engine (via the game API)
and the pure-Python reference (``coinche_rl.reference``) side by side, comparing at
every step the seat to act and the legal action set, after every trick the winner, and
at the end the declarations, belote and every scoring figure. The classic family (§11)
is dealt from a deck: the prise (retourne, rounds, distribution) is compared as well.

``COINCHE_SOAK=N`` (``make soak``) raises the number of deals per rule set to N.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

from coinche_rl import actions as A
from coinche_rl.game import Deal
from oracles import numpy_hands
from coinche_rl.reference import ReferenceDeal
from coinche_rl.rules import FOUR_PLAYER_PRESETS
from coinche_rl.rules import PRESETS, get_rules

N_DEALS = 5000            # per preset in CI (the floor)
N_VARIANT_DEALS = 800     # per random rule variant
N_CLASSIC_DEALS = 3000    # per classic-family preset
N_CLASSIC_VARIANT_DEALS = 250   # per classic rule variant (fixed and random)
CLASSIC_PRESETS = ("classic", "classic_declarations", "vip_classic")
#: classic variants always covered, whatever the random draws
CLASSIC_FIXED_VARIANTS = (
    ("classic", {"must_undertrump": False}),
    ("classic_declarations", {"optional_declare": True, "optional_belote": True,
                              "declarations_share_cards": True, "belote_takeable": True}),
    ("classic", {"strains": "suits_nt_at", "at_points": "scaled", "rounding": "nearest10",
                 "fail_base": 160}),
    ("vip_classic", {"declarations": True, "contract_counts": "cards+belote+declarations",
                     "carre_low_cancels": True, "overtrump_partner": False}),
)

#: parameters whose every value the variant sets draw from
VARIANT_CHOICES = {
    "capot_after_coinche": [False, True],
    "multipliers": [(2, 4), (2, 3)],
    "declarations_share_cards": [False, True],
    "carre_low_cancels": [False, True],
    "optional_declare": [False, True],
    "optional_belote": [False, True],
    "belote_takeable": [False, True],
    "contract_counts": ["cards", "cards+belote", "cards+declarations", "cards+belote+declarations"],
    "made_conditions": ["both", "bid_only"],
    "fail_base": [160, 162],
    "coinche_scoring": ["ffb", "cards_plus_bid", "all_plus_bid"],
    "at_points": ["ffb", "vip", "scaled"],
    "generale_bonus": [0, 350],
    "must_undertrump": [False, True],
    "overtrump_partner": [True, False],
    "rounding": ["nearest10", "none"],
    "min_bid": [80, 90],
    "bid_step": [10, 20],
}


def random_variant(rng: np.random.Generator):
    over = {k: v[int(rng.integers(len(v)))] for k, v in VARIANT_CHOICES.items()}
    over["max_bid"] = over["min_bid"] + over["bid_step"] * int(rng.integers(3, 5))
    return get_rules("ffb_sa_ta", **over)


def random_classic_variant(rng: np.random.Generator):
    """A classic-family rule set with random options (valid combinations only)."""
    base = CLASSIC_PRESETS[int(rng.integers(len(CLASSIC_PRESETS)))]
    pick = lambda values: values[int(rng.integers(len(values)))]
    over = {
        "must_undertrump": pick([False, True]),
        "overtrump_partner": pick([True, False]),
        "optional_belote": pick([False, True]),
        "belote_takeable": pick([False, True]),
        "rounding": pick(["nearest10", "none"]),
        "fail_base": pick([160, 162]),
        "declarations": pick([False, True]),
    }
    strains = pick(["suits", "suits_nt_at"])
    over["strains"] = strains
    over["at_points"] = pick(["ffb", "vip", "scaled"]) if strains == "suits_nt_at" else "ffb"
    if over["declarations"]:
        over["optional_declare"] = pick([False, True])
        over["declarations_share_cards"] = pick([False, True])
        over["carre_low_cancels"] = pick([False, True])
        over["contract_counts"] = pick(["cards", "cards+belote", "cards+declarations",
                                        "cards+belote+declarations"])
    else:
        over["optional_declare"] = over["declarations_share_cards"] = False
        over["carre_low_cancels"] = False
        over["contract_counts"] = pick(["cards", "cards+belote"])
    return get_rules(base, **over)


def play_both(rules, seed: int, pass_prob: float, from_deck: bool = False) -> tuple:
    """Play one random deal in both implementations, asserting agreement at each step.

    The classic family (and the coinche family with ``from_deck``) is dealt from a
    random deck; otherwise from four random hands."""
    rng = np.random.default_rng(seed)
    classic = rules.family == "classic"
    if classic or from_deck:
        deck = [int(c) for c in rng.permutation(32)]
        dealer = int(rng.integers(4))
        deal = Deal(rules, deck=deck, dealer=dealer)
        ref = ReferenceDeal(rules, None, dealer, deck=deck)
    else:
        hands = numpy_hands(rng)
        dealer = int(rng.integers(4))
        deal = Deal(rules, hands=hands, dealer=dealer)
        ref = ReferenceDeal(rules, hands, dealer)
    def where():
        return (f"rules={rules.name} {rules.overrides()} seed={seed} "
                f"history={[A.action_to_str(a) for a in deal.history]}")

    started_play = False
    if classic:
        assert deal.retourne == ref.retourne, where()
    else:
        assert deal.retourne is None and deal.prise_round is None, where()
    while True:
        assert deal.phase == ref.phase, where()
        assert deal.current_player == ref.current_player, where()
        if classic:
            assert deal.prise_round == ref.prise_round, where()
            assert deal.retourne == ref.retourne, where()
        if deal.phase != "done":
            assert deal.initial_hands == ref.initial_hands, where()
            assert deal.hands == ref.hands, where()
        legal = deal.legal_actions()
        assert legal == ref.legal_actions(), (
            f"{where()}: engine "
            f"{[A.action_to_str(a) for a in legal]} vs reference "
            f"{[A.action_to_str(a) for a in ref.legal_actions()]}")
        if deal.phase == "play" and not started_play:
            started_play = True
            c = deal.contract
            rc = ref.contract
            assert (c.value, c.strain, c.capot, c.coinche, c.taker) == (
                rc["value"], rc["strain"], rc["capot"], rc["coinche"], rc["taker"]), where()
            assert ([deal.seat_declarations(s)[0] for s in range(4)]
                    == ref.seat_declaration_points), where()
        if deal.is_terminal:
            break
        if legal[0] == A.PASS and len(legal) > 1 and rng.random() >= pass_prob:
            a = legal[1 + int(rng.integers(len(legal) - 1))]
        elif legal[0] == A.PASS:
            a = A.PASS
        else:
            a = legal[int(rng.integers(len(legal)))]
        deal.apply(a)
        ref.apply(a, check=False)       # a is in legal, asserted equal to ref's above
        assert deal.trick_winners == ref.trick_winners, where()
        if deal.phase == "play":
            assert deal.declarations_resolved == ref.declarations_resolved, where()
    assert deal.is_void == ref.void, where()
    if deal.is_void:
        assert deal.scores == (0, 0)
        assert ref.result is None
        return deal, ref
    assert deal.initial_hands == ref.initial_hands, where()
    assert deal.declared == ref.declared, where()
    assert deal.declaration_winner == ref.declaration_winner, where()
    assert list(deal.team_declarations) == ref.team_declaration_points, where()
    assert list(deal.team_belote) == ref.team_belote_points, where()
    res, rr = deal.result, ref.result
    assert res.made == rr["made"], where()
    assert res.litige == rr["litige"], where()
    assert res.litige_points == rr["litige_points"], where()
    assert res.multiplier == rr["multiplier"], where()
    assert res.generale == rr["generale"], where()
    assert [t.card_points for t in res.teams] == rr["card_points"], where()
    assert [t.total for t in res.teams] == rr["totals"], where()
    assert [t.raw_score for t in res.teams] == rr["raw"], where()
    assert list(res.scores) == rr["score"], where()
    return deal, ref


def _n(default: int) -> int:
    return int(os.environ.get("COINCHE_SOAK", default))


@pytest.mark.parametrize("preset", ["ffb", "ffb_sa_ta"])
def test_engine_matches_reference_on_random_deals(preset):
    rules = get_rules(preset)
    n = N_DEALS
    made = failed = void = 0
    for i in range(n):
        deal, _ = play_both(rules, seed=1_000_003 * (preset == "ffb_sa_ta") + i,
                            pass_prob=(0.5, 0.75, 0.9)[i % 3])
        if deal.is_void:
            void += 1
        elif deal.result.made:
            made += 1
        else:
            failed += 1
    # the random policy reaches every outcome, so the comparison covered them all
    assert made > 100 and failed > 100 and void > 10


OTHER_COINCHE_PRESETS = ("funbelote", "coinche_x3", "ludiclub_coinche", "ludiclub_contree", "colver")
N_OTHER_PRESET_DEALS = 1500


@pytest.mark.parametrize("preset", OTHER_COINCHE_PRESETS)
def test_engine_matches_reference_on_other_coinche_presets(preset):
    rules = get_rules(preset)
    made = failed = 0
    for i in range(N_OTHER_PRESET_DEALS):
        deal, _ = play_both(rules, seed=9_000_000 + 10_000 * OTHER_COINCHE_PRESETS.index(preset) + i,
                            pass_prob=(0.5, 0.75, 0.9)[i % 3])
        if not deal.is_void:
            made += deal.result.made
            failed += not deal.result.made
    assert made > 50 and failed > 50


#: twelve random rule variants, drawn once (a test each: the pytest-xdist workers share
#: them out instead of one worker playing all 9,600 deals at the end of the run)
_variant_rng = np.random.default_rng(2026)
RANDOM_VARIANTS = [random_variant(_variant_rng) for _ in range(12)]


@pytest.mark.parametrize("v", range(len(RANDOM_VARIANTS)))
def test_engine_matches_reference_on_random_rule_variants(v):
    rules = RANDOM_VARIANTS[v]
    for i in range(N_VARIANT_DEALS):
        play_both(rules, seed=50_000 * (v + 1) + i, pass_prob=0.7)


def test_engine_matches_reference_dealing_coinche_from_a_deck():
    """The coinche family dealt 3-2-3 from a deck in both implementations."""
    for preset in ("ffb", "ffb_sa_ta"):
        for i in range(300):
            play_both(get_rules(preset), seed=90_000 + i, pass_prob=0.7, from_deck=True)


@pytest.mark.parametrize("preset", CLASSIC_PRESETS)
def test_engine_matches_reference_on_classic_presets(preset):
    rules = get_rules(preset)
    made = dedans = litige = litige_belote = void = round2 = capot = 0
    for i in range(N_CLASSIC_DEALS):
        seed = 3_000_000 + 100_000 * CLASSIC_PRESETS.index(preset) + i
        deal, ref = play_both(rules, seed=seed, pass_prob=0.6)
        round2 += ref.prise_round == 2
        if deal.is_void:
            void += 1
            continue
        res = deal.result
        if res.litige:
            litige += 1
            litige_belote += ref.team_belote_points[deal.contract.taker_team] > 0
        elif res.made:
            made += 1
        else:
            dedans += 1
        capot += 0 in deal.tricks_won
    # the random policy reaches every outcome, so the comparison covered them all
    assert made > 300 and dedans > 300 and void > 30 and round2 > 300 and capot > 10
    assert litige > 10 and litige_belote > 0


#: the fixed classic variants and six random ones, a test each
_classic_rng = np.random.default_rng(2027)
CLASSIC_VARIANTS = [get_rules(name, **kw) for name, kw in CLASSIC_FIXED_VARIANTS]
CLASSIC_VARIANTS += [random_classic_variant(_classic_rng) for _ in range(6)]


@pytest.mark.parametrize("v", range(len(CLASSIC_VARIANTS)))
def test_engine_matches_reference_on_random_classic_rule_variants(v):
    rules = CLASSIC_VARIANTS[v]
    for i in range(N_CLASSIC_VARIANT_DEALS):
        play_both(rules, seed=8_000_000 + 10_000 * v + i, pass_prob=0.6)


@pytest.mark.soak
@pytest.mark.skipif("COINCHE_SOAK" not in os.environ,
                    reason="soak run: set COINCHE_SOAK=N (make soak runs 10^6 deals per rule set)")
@pytest.mark.parametrize("preset", list(FOUR_PLAYER_PRESETS))
def test_soak_engine_matches_reference(preset):
    rules = get_rules(preset)
    for i in range(_n(N_DEALS)):
        play_both(rules, seed=7_000_000_000 + i, pass_prob=(0.5, 0.75, 0.9)[i % 3])
