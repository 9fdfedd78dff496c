"""Card and action notation errors, rule-set validation, presets, the kernel parameter
vector, and Deal construction errors."""

from __future__ import annotations

import dataclasses
import re

import numpy as np
import pytest

from coinche_rl import actions as A
from coinche_rl import rules as R
from coinche_rl.cards import (CardSet, InvalidNotationError, cards_mask, format_card,
                              format_hand, parse_card, parse_hand)
from coinche_rl.game import Deal
from coinche_rl.rules import (PRESETS, InvalidRulesError, RuleSet, UnknownPresetError,
                              get_rules, params_vector)

HANDS = ["JH 9H AH TH KS QS 7D 8D", "JS 9S AS TS KH QH 7C 8C",
         "JD 9D AD TD KC QC 7H 8H", "JC 9C AC TC KD QD 7S 8S"]


# ------------------------------------------------------------------------ cards
@pytest.mark.parametrize("token", ["1H", "JX", "", "JHH", "11H", "H", "J", "10", "ZZ", "J H"])
def test_parse_card_errors_name_the_token(token):
    with pytest.raises(InvalidNotationError) as ei:
        parse_card(token)
    assert repr(token) in str(ei.value)
    assert isinstance(ei.value, ValueError)


def test_invalid_notation_is_value_error():
    assert issubclass(InvalidNotationError, ValueError)


@pytest.mark.parametrize("text, card", [("10S", 3), ("10s", 3), ("TS", 3), ("ts", 3), ("JH", 12),
                                        (" jh ", 12), ("7S", 0), ("AC", 31), ("10C", 27)])
def test_parse_card_accepted(text, card):
    assert parse_card(text) == card


def test_format_card_out_of_range():
    for bad in (-1, 32, 100):
        with pytest.raises(ValueError, match="out of range"):
            format_card(bad)


def test_parse_hand_bad_token_named():
    with pytest.raises(InvalidNotationError, match="'XZ'"):
        parse_hand("AS KS XZ 7C")


def test_parse_hand_duplicate_rejected():
    with pytest.raises(InvalidNotationError) as ei:
        parse_hand("AS KS 10H TH")
    msg = str(ei.value)
    assert "twice" in msg and "TH" in msg
    with pytest.raises(InvalidNotationError, match="twice"):
        parse_hand("as, AS")


def test_parse_hand_separators_and_empty():
    assert parse_hand("") == 0
    assert parse_hand("  ") == 0
    assert parse_hand("AS,KS  7c") == parse_hand("7C KS AS")
    assert format_hand(parse_hand("7C KS AS 10S")) == "AS TS KS 7C"


def test_cards_mask_takes_a_mask_text_or_cards():
    m = parse_hand("JH 9H AS")
    assert cards_mask(m) == cards_mask("JH 9H AS") == cards_mask(["AS", 12, "9H"]) == m
    assert cards_mask([]) == 0


@pytest.mark.parametrize("value,match", [
    (-1, "32-bit card mask"), (1 << 32, "32-bit card mask"), ("JH XZ", r"'XZ'.*expected cards"),
    ([32], "not a card"), ([True], "not a card"), (["JH", 12], "'JH' appears twice"),
    (["QX"], "'QX'"), (1.5, "expected a card mask"),
])
def test_cards_mask_errors_name_the_argument(value, match):
    class Custom(ValueError):
        pass
    with pytest.raises(Custom, match=f"^hand: .*{match}"):
        cards_mask(value, "hand", Custom)
    with pytest.raises(InvalidNotationError):
        cards_mask(value)


def test_cardset():
    cs = CardSet.parse("KH QH 7S")
    assert len(cs) == 3 and "QH" in cs and "JH" not in cs and 0 in cs
    assert CardSet.parse(str(cs)) == cs and hash(cs) == hash(CardSet(cs.mask))
    assert cs.sorted_text() == "7S QH KH"


# ---------------------------------------------------------------------- actions
@pytest.mark.parametrize("text", ["", "foo", "85H", "190H", "70S", "80X", "80", "capotZ",
                                  "capot", "nameXX", "name", "1H", "JX", "surcoinch",
                                  "100HH", "9H9"])
def test_parse_action_errors(text):
    with pytest.raises(InvalidNotationError) as ei:
        A.parse_action(text)
    assert repr(text) in str(ei.value)


def test_parse_action_not_a_string():
    with pytest.raises(InvalidNotationError):
        A.parse_action(12)


@pytest.mark.parametrize("text, action", [
    ("pass", A.PASS), ("PASSE", A.PASS), ("80S", A.bid_action(80, 0)),
    ("180AT", A.bid_action(180, 5)), ("110sa", A.bid_action(110, 4)),
    ("110 NT", A.bid_action(110, 4)), ("90ta", A.bid_action(90, 5)),
    ("capot H", A.capot_action(1)), ("capotSA", A.capot_action(4)),
    ("coinche", A.COINCHE), ("Surcoinche", A.SURCOINCHE), ("10H", A.card_action(11)),
    ("JH", A.card_action(12)), ("take", A.TAKE), ("nameD", A.NAME_BASE + 2),
    ("declare", A.DECLARE), ("no-declare", A.NO_DECLARE), ("belote", A.BELOTE),
    ("no-belote", A.NO_BELOTE),
])
def test_parse_action_accepted(text, action):
    assert A.parse_action(text) == action


def test_action_ids_and_encoding():
    assert A.N_ACTIONS == 120
    assert (A.CAPOT_BASE, A.COINCHE, A.SURCOINCHE, A.CARD_BASE, A.TAKE) == (67, 73, 74, 75, 107)
    assert A.bid_action(100, 1) == 14
    for a in (-1, A.N_ACTIONS):
        with pytest.raises(ValueError):
            A.action_to_str(a)
    with pytest.raises(ValueError):
        A.bid_action(85, 0)
    with pytest.raises(ValueError):
        A.bid_action(190, 0)
    with pytest.raises(ValueError):
        A.bid_action(80, 6)
    with pytest.raises(ValueError):
        A.capot_action(-1)


# ------------------------------------------------------------------------ rules
@pytest.mark.parametrize("kwargs, names", [
    (dict(family="nosuch"), ["family", "coinche"]),
    (dict(strains="everything"), ["strains", "suits_nt_at"]),
    (dict(contract_counts="cards+luck"), ["contract_counts"]),
    (dict(made_conditions="never"), ["made_conditions"]),
    (dict(coinche_scoring="x"), ["coinche_scoring"]),
    (dict(strains="suits_nt_at", at_points="nosuch"), ["at_points"]),
    (dict(rounding="up"), ["rounding"]),
    (dict(min_bid=170), ["min_bid", "max_bid"]),
    (dict(min_bid=70), ["min_bid"]),
    (dict(min_bid=85), ["min_bid"]),
    (dict(max_bid=190), ["max_bid", "180"]),
    (dict(bid_step=15), ["bid_step"]),
    (dict(bid_step=0), ["bid_step"]),
    (dict(bid_step=-10), ["bid_step"]),
    (dict(max_bid=150, bid_step=20), ["max_bid", "min_bid", "steps of 20"]),
    (dict(multipliers=(4, 2)), ["multipliers"]),
    (dict(multipliers=(2, 2)), ["multipliers"]),
    (dict(multipliers=(1, 2)), ["multipliers"]),
    (dict(multipliers=(2, 3, 4)), ["multipliers"]),
    (dict(fail_base=161), ["fail_base"]),
    (dict(generale_bonus=100), ["generale_bonus"]),
    (dict(target=0), ["target"]),
    (dict(target=-5), ["target"]),
    (dict(min_bid="80"), ["min_bid", "integer"]),
    (dict(target=1000.0), ["target", "integer"]),
    (dict(max_bid=True), ["max_bid", "integer"]),
    (dict(declarations=1), ["declarations", "True or False"]),
    (dict(must_undertrump="yes"), ["must_undertrump"]),
    (dict(declarations=False, optional_declare=True), ["optional_declare", "declarations"]),
    (dict(declarations=False, declarations_share_cards=True,
          contract_counts="cards+belote"), ["declarations_share_cards"]),
    (dict(declarations=False, carre_low_cancels=True,
          contract_counts="cards+belote"), ["carre_low_cancels"]),
    (dict(declarations=False), ["contract_counts", "declarations"]),
    (dict(at_points="vip"), ["at_points", "strains"]),
    (dict(at_points="scaled", strains="suits"), ["at_points"]),
    (dict(family="classic", capot_after_coinche=True), ["capot_after_coinche", "classic"]),
])
def test_ruleset_validation(kwargs, names):
    with pytest.raises(InvalidRulesError) as ei:
        RuleSet(**kwargs)
    msg = str(ei.value)
    for n in names:
        assert n in msg, f"{n!r} not in {msg!r}"
    # the same through get_rules overrides
    with pytest.raises(InvalidRulesError):
        get_rules("ffb", **kwargs)


def test_multipliers_list():
    """RuleSet itself wants a tuple; get_rules / replace convert a list (from JSON)."""
    with pytest.raises(InvalidRulesError, match="multipliers"):
        RuleSet(multipliers=[2, 4])
    assert get_rules("ffb", multipliers=[2, 3]).multipliers == (2, 3)


def test_valid_combinations_accepted():
    r = RuleSet(declarations=False, contract_counts="cards+belote")
    assert not r.declarations
    r = get_rules("ffb_sa_ta", at_points="vip", multipliers=[2, 3], max_bid=180, min_bid=90)
    assert r.multipliers == (2, 3) and r.bid_values == tuple(range(90, 181, 10))
    assert get_rules("ffb", min_bid=80, max_bid=160, bid_step=20).bid_values == (80, 100, 120, 140, 160)


def test_unknown_override_names_valid_parameters():
    with pytest.raises(InvalidRulesError) as ei:
        get_rules("ffb", nosuch=1)
    msg = str(ei.value)
    assert "'nosuch'" in msg
    for name in ("max_bid", "multipliers", "at_points", "shuffle_between_deals", "target"):
        assert name in msg


def test_unknown_preset():
    with pytest.raises(UnknownPresetError) as ei:
        get_rules("nosuch")
    msg = str(ei.value)
    assert "'nosuch'" in msg and "'ffb'" in msg and "'ffb_sa_ta'" in msg
    assert issubclass(UnknownPresetError, ValueError)
    with pytest.raises(TypeError):
        get_rules(3)


def test_presets():
    assert {"ffb", "ffb_sa_ta"} <= set(PRESETS)
    assert get_rules("ffb") == RuleSet()
    assert get_rules("ffb").allowed_strains == (0, 1, 2, 3)
    assert get_rules("ffb_sa_ta").allowed_strains == (0, 1, 2, 3, R.NT, R.AT)
    for name, r in PRESETS.items():
        assert r.name == name
    r = get_rules("ffb")
    assert get_rules(r) is r
    assert get_rules(r, target=2000).target == 2000
    with pytest.raises(TypeError):
        PRESETS["mine"] = RuleSet()


def test_ruleset_frozen():
    r = get_rules("ffb")
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.max_bid = 170
    with pytest.raises(AttributeError):
        r.target = 1
    assert r.max_bid == 160 and get_rules("ffb").max_bid == 160
    # replace() makes a validated copy and leaves the preset alone
    r2 = r.replace(max_bid=170)
    assert r2.max_bid == 170 and r.max_bid == 160
    assert hash(r) == hash(RuleSet())


def test_overrides_and_to_dict():
    r = get_rules("ffb", target=2000, multipliers=(2, 3))
    assert r.overrides() == {"target": 2000, "multipliers": [2, 3]}
    assert get_rules("ffb_sa_ta").overrides() == {}
    d = r.to_dict()
    assert d["target"] == 2000 and d["multipliers"] == [2, 3] and d["name"] == "ffb"


# Each switch: (overrides, slot, expected value in the vector)
PARAM_CASES = [
    (dict(), R.P_NT_AT, 0),
    (dict(strains="suits_nt_at"), R.P_NT_AT, 1),
    (dict(min_bid=90), R.P_MIN_BID, 90),
    (dict(max_bid=180), R.P_MAX_BID, 180),
    (dict(bid_step=20), R.P_BID_STEP, 20),
    (dict(capot_after_coinche=True), R.P_CAPOT_AFTER_COINCHE, 1),
    (dict(multipliers=(2, 3)), R.P_MULT_SURCOINCHE, 3),
    (dict(multipliers=(3, 6)), R.P_MULT_COINCHE, 3),
    (dict(declarations=False, contract_counts="cards+belote"), R.P_DECLARATIONS, 0),
    (dict(declarations_share_cards=True), R.P_DECL_SHARE, 1),
    (dict(carre_low_cancels=True), R.P_CARRE_LOW_CANCELS, 1),
    (dict(optional_declare=True), R.P_OPTIONAL_DECLARE, 1),
    (dict(optional_belote=True), R.P_OPTIONAL_BELOTE, 1),
    (dict(belote_takeable=True), R.P_BELOTE_TAKEABLE, 1),
    (dict(contract_counts="cards"), R.P_COUNT_BELOTE, 0),
    (dict(contract_counts="cards"), R.P_COUNT_DECLARATIONS, 0),
    (dict(contract_counts="cards+belote"), R.P_COUNT_BELOTE, 1),
    (dict(contract_counts="cards+belote"), R.P_COUNT_DECLARATIONS, 0),
    (dict(contract_counts="cards+declarations"), R.P_COUNT_BELOTE, 0),
    (dict(contract_counts="cards+declarations"), R.P_COUNT_DECLARATIONS, 1),
    (dict(made_conditions="bid_only"), R.P_BID_ONLY, 1),
    (dict(fail_base=162), R.P_FAIL_BASE, 162),
    (dict(coinche_scoring="cards_plus_bid"), R.P_COINCHE_SCORING, 1),
    (dict(coinche_scoring="all_plus_bid"), R.P_COINCHE_SCORING, 2),
    (dict(strains="suits_nt_at", at_points="vip"), R.P_AT_TABLE, R.AT_TABLE_NAMES.index("vip")),
    (dict(strains="suits_nt_at", at_points="scaled"), R.P_AT_TABLE,
     R.AT_TABLE_NAMES.index("scaled")),
    (dict(generale_bonus=350), R.P_GENERALE_BONUS, 350),
    (dict(must_undertrump=True), R.P_PLAY_RULES,
     R.PLAY_MUST_UNDERTRUMP | R.PLAY_OVERTRUMP_PARTNER),
    (dict(overtrump_partner=False), R.P_PLAY_RULES, 0),
    (dict(must_undertrump=True, overtrump_partner=False), R.P_PLAY_RULES, R.PLAY_MUST_UNDERTRUMP),
    (dict(rounding="none"), R.P_ROUNDING, 0),
    (dict(target=1501), R.P_TARGET, 1501),
    (dict(shuffle_between_deals=False), R.P_SHUFFLE, 0),
]


def test_params_vector_defaults():
    p = params_vector(get_rules("ffb"))
    assert p.dtype == np.int64 and p.shape == (R.N_PARAMS,)
    expected = {R.P_FAMILY: 0, R.P_NT_AT: 0, R.P_MIN_BID: 80, R.P_MAX_BID: 160, R.P_BID_STEP: 10,
                R.P_CAPOT_AFTER_COINCHE: 0, R.P_MULT_COINCHE: 2, R.P_MULT_SURCOINCHE: 4,
                R.P_DECLARATIONS: 1, R.P_DECL_SHARE: 0, R.P_CARRE_LOW_CANCELS: 0,
                R.P_OPTIONAL_DECLARE: 0, R.P_OPTIONAL_BELOTE: 0, R.P_BELOTE_TAKEABLE: 0,
                R.P_COUNT_BELOTE: 1, R.P_COUNT_DECLARATIONS: 1, R.P_BID_ONLY: 0,
                R.P_FAIL_BASE: 160, R.P_COINCHE_SCORING: 0,
                R.P_AT_TABLE: R.AT_TABLE_NAMES.index("ffb"), R.P_GENERALE_BONUS: 0,
                R.P_PLAY_RULES: R.PLAY_OVERTRUMP_PARTNER, R.P_ROUNDING: 1,
                R.P_TARGET: 1000, R.P_SHUFFLE: 1,
                R.P_BID_LADDER: 0b111111111,      # 80..160 by 10: value indices 0..8
                R.P_LITIGE: 0, R.P_BELOTE: 1, R.P_HAND_CARDS: 1}
    assert len(expected) == R.N_PARAMS
    for slot, v in expected.items():
        assert p[slot] == v, slot


@pytest.mark.parametrize("overrides, slot, value", PARAM_CASES)
def test_params_vector_reflects_each_switch(overrides, slot, value):
    base = params_vector(get_rules("ffb"))
    p = params_vector(get_rules("ffb", **overrides))
    assert p[slot] == value
    # only the slots of the changed parameters move
    changed = set(np.flatnonzero(p != base).tolist())
    assert changed <= {s for o, s, _ in PARAM_CASES if o == overrides} | {
        R.P_MULT_COINCHE, R.P_MULT_SURCOINCHE, R.P_COUNT_BELOTE, R.P_COUNT_DECLARATIONS,
        R.P_NT_AT, R.P_AT_TABLE, R.P_DECLARATIONS} | (
        {R.P_BID_LADDER} if set(overrides) & {"min_bid", "max_bid", "bid_step"} else set())
    if overrides:
        assert changed, overrides


def test_params_vector_slots_distinct():
    # flipping every switch at once touches every slot except the family
    r = get_rules("ffb", strains="suits_nt_at", min_bid=90, max_bid=170, bid_step=20,
                  capot_after_coinche=True, multipliers=(3, 5), declarations_share_cards=True,
                  carre_low_cancels=True, optional_declare=True, optional_belote=True,
                  belote_takeable=True, contract_counts="cards", made_conditions="bid_only",
                  fail_base=162, coinche_scoring="cards_plus_bid", at_points="scaled",
                  generale_bonus=350, must_undertrump=True, overtrump_partner=False,
                  rounding="none", target=501, shuffle_between_deals=False)
    diff = params_vector(r) != params_vector(get_rules("ffb"))
    # the family and its two-player switches (tested below) stay
    assert set(np.flatnonzero(~diff).tolist()) == {R.P_FAMILY, R.P_DECLARATIONS, R.P_LITIGE,
                                                   R.P_BELOTE, R.P_HAND_CARDS}


def test_params_vector_of_each_family():
    assert [params_vector(get_rules(n))[R.P_FAMILY] for n in ("ffb", "classic", "belote_a_deux")] \
        == [R.FAMILY_COINCHE, R.FAMILY_CLASSIC, R.FAMILY_TWO]
    assert params_vector(get_rules("classic"))[R.P_LITIGE] == 1
    p = params_vector(get_rules("belote_decouverte", litige=True, belote=True))
    assert (p[R.P_LITIGE], p[R.P_BELOTE], p[R.P_HAND_CARDS], p[R.P_DECLARATIONS]) == (1, 1, 0, 0)


@pytest.mark.parametrize("overrides, message", [
    (dict(strains="suits_nt_at"), "family='two' needs strains='suits'"),
    (dict(rounding="nearest10"), "family='two' needs rounding='none'"),
    (dict(optional_belote=True), "family='two' needs optional_belote=False"),
    (dict(min_bid=90), "the two prise has no bids"),
    (dict(shuffle_between_deals=False), "family='two' needs shuffle_between_deals=True"),
])
def test_two_player_rule_sets_refuse_four_player_options(overrides, message):
    with pytest.raises(InvalidRulesError, match=re.escape(message)):
        get_rules("belote_a_deux", **overrides)


@pytest.mark.parametrize("preset, overrides, message", [
    ("ffb", dict(belote=False), "belote=False needs family='two'"),
    ("classic", dict(hand_cards=False), "hand_cards=False needs family='two'"),
    ("ffb", dict(litige=True), "the coinche family has no litige"),
    ("classic", dict(litige=False), "the classic family always has litige"),
])
def test_two_player_options_need_the_two_family(preset, overrides, message):
    with pytest.raises(InvalidRulesError, match=re.escape(message)):
        get_rules(preset, **overrides)


def test_four_player_apis_refuse_two_player_rules():
    from coinche_rl.game import Deal, Match
    for make in (lambda: Deal("belote_a_deux"), lambda: Match("belote_decouverte"),
                 lambda: Deal.from_state("belote_a_deux", Deal("ffb", seed=1).state)):
        with pytest.raises(InvalidRulesError, match="belote for two players"):
            make()


def test_card_points_tables():
    for at in R.AT_TABLE_NAMES:
        rules = get_rules("ffb_sa_ta", at_points=at)
        t = R.card_points_table(rules)
        assert t.shape == (6, 32)
        for strain in range(4):
            assert t[strain].sum() == 152
        assert t[R.NT].sum() == 152
        assert t[R.AT].sum() == (152 if at != "scaled" else 248)


# ---------------------------------------------------------------- Deal errors
def test_deal_three_hands():
    with pytest.raises(ValueError, match="expected 4 hands, got 3"):
        Deal("ffb", hands=HANDS[:3], dealer=0)


def test_deal_seven_card_hand():
    hands = list(HANDS)
    hands[2] = "JD 9D AD TD KC QC 7H"
    with pytest.raises(ValueError) as ei:
        Deal("ffb", hands=hands, dealer=0)
    msg = str(ei.value)
    assert "seat 2" in msg and "7 cards" in msg and "expected 8" in msg


def test_deal_card_dealt_twice():
    hands = list(HANDS)
    hands[3] = "JC 9C AC TC KD QD 7S JH"      # JH is also in seat 0's hand
    with pytest.raises(ValueError) as ei:
        Deal("ffb", hands=hands, dealer=0)
    msg = str(ei.value)
    assert "JH" in msg and "twice" in msg


@pytest.mark.parametrize("dealer", [4, -1, True, 1.0, "0"])
def test_deal_bad_dealer(dealer):
    with pytest.raises(ValueError, match="dealer must be a seat 0..3"):
        Deal("ffb", hands=HANDS, dealer=dealer)


def test_deal_malformed_card_text():
    hands = list(HANDS)
    hands[1] = "JS 9S AS TS KH QH 7C XZ"
    with pytest.raises(InvalidNotationError, match="'XZ'"):
        Deal("ffb", hands=hands, dealer=0)


def test_deal_mask_out_of_range():
    masks = [parse_hand(h) for h in HANDS]
    masks[0] = -1
    with pytest.raises(ValueError, match="seat 0"):
        Deal("ffb", hands=masks, dealer=0)


# ---------------------------------------------------------- rules from text
def test_parse_rules_types_every_field_from_the_ruleset():
    r = R.parse_rules("ffb:must_undertrump=true,target=2000")
    assert r == get_rules("ffb", must_undertrump=True, target=2000)
    assert R.parse_rules("ffb") is PRESETS["ffb"]
    assert R.parse_rules(" ffb_sa_ta : at_points=vip , multipliers=(2,3) ") == \
        get_rules("ffb_sa_ta", at_points="vip", multipliers=(2, 3))
    assert R.parse_rules("coinche_x3:multipliers=2/4").multipliers == (2, 4)
    for word, value in (("true", True), ("YES", True), ("on", True), ("1", True),
                        ("false", False), ("no", False), ("Off", False), ("0", False)):
        assert R.parse_rules(f"ffb:declarations_share_cards={word}").declarations_share_cards is value
    # every field of the RuleSet can be set from text: its value, written as
    # rules_label writes it, reads back
    for f in dataclasses.fields(RuleSet):
        if f.name == "name":
            continue
        for preset in PRESETS.values():
            v = getattr(preset, f.name)
            text = ("true" if v else "false") if isinstance(v, bool) else \
                "/".join(map(str, v)) if isinstance(v, tuple) else str(v)
            assert getattr(R.parse_rules(f"{preset.name}:{f.name}={text}"), f.name) == v


@pytest.mark.parametrize("text, message", [
    ("ffb:trget=2000", "rules 'ffb:trget=2000': unknown field 'trget': valid fields are family, "
                       "strains, min_bid"),
    ("ffb:name=x", "name is the preset, given before the colon; valid fields are family"),
    ("ffb:must_undertrump=maybe", "must_undertrump='maybe': expected true or false"),
    ("ffb:target=2k", "target='2k': expected an integer"),
    ("ffb:rounding=up", "rounding='up': expected one of nearest10, none"),
    ("ffb:multipliers=3", "multipliers='3': expected two integers, coinche/surcoinche"),
    ("ffb:multipliers=4/2", "multipliers=(4, 2) must be a tuple (coinche, surcoinche)"),
    ("ffb:min_bid=170", "rules 'ffb:min_bid=170': min_bid=170 must not exceed max_bid=160"),
    ("classic:max_bid=180", "max_bid=180 needs family='coinche'"),
    ("ffb:target=1,target=2", "target is given twice"),
    ("ffb:target", "'target' is not FIELD=VALUE"),
    ("ffb:,target=2", "an empty override"),
    ("must_undertrump=true", "give the preset first, then the overrides after a colon, "
                             "e.g. ffb:must_undertrump=true"),
])
def test_parse_rules_errors_are_one_line(text, message):
    with pytest.raises(InvalidRulesError) as ei:
        R.parse_rules(text)
    assert message in str(ei.value) and "\n" not in str(ei.value)


def test_parse_rules_unknown_preset():
    with pytest.raises(UnknownPresetError, match="unknown rule preset 'belotte': valid presets are"):
        R.parse_rules("belotte:target=2000")


def test_rules_label_reads_back():
    for text in ("ffb", "ffb:must_undertrump=true,target=2000", "coinche_x3:multipliers=2/4",
                 "classic:must_undertrump=false"):
        r = R.parse_rules(text)
        assert R.rules_label(r) == text and R.parse_rules(R.rules_label(r)) == r


def test_deal_unknown_rules():
    with pytest.raises(UnknownPresetError):
        Deal("nosuch")


def test_with_contract_takes_the_strain_text():
    """The strain as everywhere else: its id or its text (any case, SA/TA too)."""
    ids = Deal("ffb_sa_ta", hands=HANDS, dealer=0).with_contract(100, 1, taker=0)
    for text in ("H", "h", " H "):
        d = Deal("ffb_sa_ta", hands=HANDS, dealer=0).with_contract(100, text, taker=0)
        assert d == ids and d.contract.strain == R.HEARTS
    for text, strain in (("NT", R.NT), ("sa", R.NT), ("AT", R.AT), ("TA", R.AT)):
        assert Deal("ffb_sa_ta", hands=HANDS, dealer=0).with_contract(
            100, text, taker=0).contract.strain == strain
    assert Deal("classic", seed=1, dealer=0).with_contract(0, "S", taker=1).contract.strain == 0
    with pytest.raises(InvalidNotationError, match="invalid strain 'X': expected one of S H D C NT AT"):
        Deal("ffb", hands=HANDS, dealer=0).with_contract(100, "X", taker=0)
    with pytest.raises(ValueError, match="strain 'NT' not allowed by rules 'ffb': the strains are S H D C"):
        Deal("ffb", hands=HANDS, dealer=0).with_contract(100, "NT", taker=0)
    with pytest.raises(InvalidNotationError, match="invalid strain 7"):
        Deal("ffb", hands=HANDS, dealer=0).with_contract(100, 7, taker=0)
    # the same text in the simulation entry points
    from coinche_rl.simulate import random_play_phase, simulate_deals
    assert (random_play_phase(20, strain="H", seed=3) == random_play_phase(20, strain=1, seed=3)).all()
    a = simulate_deals(20, seed=2, contract=(100, "S", 0, 1))
    b = simulate_deals(20, seed=2, contract=(100, 0, 0, 1))
    assert (a.scores == b.scores).all()


def test_parse_strain():
    assert [A.parse_strain(t) for t in ("S", "h", "d", "C", "nt", "AT", "SA", "ta")] == \
        [0, 1, 2, 3, 4, 5, 4, 5]
    assert A.parse_strain(np.int64(3)) == 3
    for bad in ("", "HH", "spades", True, -1, 6, 1.0, None):
        with pytest.raises(InvalidNotationError, match="invalid strain"):
            A.parse_strain(bad)


def test_a_bid_value_error_names_the_rules_values():
    """``85H`` under ffb: the rule set's bids (80..160), not the notation's (80..180)."""
    with pytest.raises(InvalidNotationError) as ei:
        Deal("ffb", hands=HANDS, dealer=0).apply("85H")
    assert str(ei.value) == "invalid bid '85H': bid values are 80..160 by 10 under rules 'ffb'"
    with pytest.raises(InvalidNotationError, match="bid values are 90..170 by 20"):
        Deal(get_rules("ffb", min_bid=90, max_bid=170, bid_step=20), hands=HANDS,
             dealer=0).is_legal("195S")
    with pytest.raises(InvalidNotationError, match="the classic prise has no bids"):
        Deal("classic", seed=1, dealer=0).apply("85H")
    # the notation alone still names its own range
    with pytest.raises(InvalidNotationError, match="multiple of 10 in 80..180"):
        A.parse_action("85H")


def test_with_contract_errors():
    with pytest.raises(ValueError, match="not allowed"):
        Deal("ffb", hands=HANDS, dealer=0).with_contract(90, R.NT, taker=0)
    with pytest.raises(ValueError, match="contract value"):
        Deal("ffb", hands=HANDS, dealer=0).with_contract(95, 0, taker=0)
    with pytest.raises(ValueError):
        Deal("ffb", hands=HANDS, dealer=0).with_contract(90, 0, taker=4)
    with pytest.raises(ValueError):
        Deal("ffb", hands=HANDS, dealer=0).with_contract(90, 0, taker=0, coinche=3)
    d = Deal("ffb", hands=HANDS, dealer=0)
    d.apply("pass")
    with pytest.raises(ValueError, match="fresh deal"):
        d.with_contract(90, 0, taker=0)


def test_deal_accepts_masks_and_text_alike():
    a = Deal("ffb", hands=HANDS, dealer=3)
    b = Deal("ffb", hands=[parse_hand(h) for h in HANDS], dealer=3)
    assert a == b
    assert [format_hand(h) for h in a.initial_hands] == [format_hand(parse_hand(h)) for h in HANDS]


@pytest.mark.parametrize("overrides, ladder", [
    ({}, [80, 90, 100, 110, 120, 130, 140, 150, 160]),
    ({"bid_step": 20}, [80, 100, 120, 140, 160]),
    ({"min_bid": 90, "max_bid": 180, "bid_step": 30}, [90, 120, 150, 180]),
])
def test_params_vector_bid_ladder_lists_the_legal_values(overrides, ladder):
    p = params_vector(get_rules("ffb", **overrides))
    assert [80 + 10 * i for i in range(11) if p[R.P_BID_LADDER] >> i & 1] == ladder
