"""Hand-built tests of the reference implementation (coinche_rl/reference.py) itself."""

import random

import pytest

from coinche_rl.actions import (BELOTE, COINCHE, DECLARE, NAME_BASE, NO_BELOTE, NO_DECLARE,
                                PASS, SURCOINCHE, TAKE, bid_action, capot_action, card_action,
                                is_card)
from coinche_rl.cards import cards_of, parse_card, parse_hand
from coinche_rl.reference import (ReferenceDeal, belote_pairs, card_points, declaration_rank,
                                  hand_declarations, legal_cards, match_winner, score_classic,
                                  score_deal, trick_winner)
from coinche_rl.rules import AT, NT, get_rules

S, H, D, C = range(4)
FFB = get_rules("ffb")
SA_TA = get_rules("ffb_sa_ta")


def trick(*items):
    """trick((seat, 'JH'), ...) -> [(seat, card), ...]"""
    return [(seat, parse_card(c)) for seat, c in items]


def cardset(text):
    return set(cards_of(parse_hand(text)))


# ------------------------------------------------------------------ card points
@pytest.mark.parametrize("rules_kw, strain, total", [
    ({}, H, 152), ({"strains": "suits_nt_at"}, NT, 152), ({"strains": "suits_nt_at"}, AT, 152),
    ({"strains": "suits_nt_at", "at_points": "vip"}, AT, 152),
    ({"strains": "suits_nt_at", "at_points": "scaled"}, AT, 248),
])
def test_deck_points(rules_kw, strain, total):
    rules = get_rules("ffb", **rules_kw)
    assert sum(card_points(c, strain, rules) for c in range(32)) == total


def test_card_points_values():
    assert card_points(parse_card("JH"), H, FFB) == 20
    assert card_points(parse_card("9H"), H, FFB) == 14
    assert card_points(parse_card("JS"), H, FFB) == 2
    assert card_points(parse_card("AS"), NT, SA_TA) == 19
    assert card_points(parse_card("JS"), AT, SA_TA) == 13
    assert card_points(parse_card("QS"), AT, get_rules("ffb_sa_ta", at_points="vip")) == 1


# ------------------------------------------------------------------ trick winner
def test_trick_winner():
    assert trick_winner(trick((0, "AS"), (1, "TS"), (2, "7H"), (3, "KS")), S) == 0   # trump A > 10 > K
    assert trick_winner(trick((0, "AS"), (1, "9S"), (2, "KS"), (3, "JS")), S) == 3
    assert trick_winner(trick((0, "AD"), (1, "7H"), (2, "TD"), (3, "8H")), H) == 3
    assert trick_winner(trick((0, "JD"), (1, "AC"), (2, "9D")), H) == 0              # plain: J > 9
    assert trick_winner(trick((0, "AD"), (1, "JC"), (2, "9D")), AT) == 2             # AT: 9 > A
    assert trick_winner(trick((0, "9D"), (1, "AS"), (2, "TD")), NT) == 2


# ------------------------------------------------------------------ legal cards
def test_must_follow_suit():
    hand = parse_hand("AD 7D JH 9S")
    assert legal_cards(hand, trick((0, "KD")), 1, H, FFB) == cardset("AD 7D")


def test_lead_any_card():
    hand = parse_hand("AD 7D JH 9S")
    assert legal_cards(hand, [], 0, H, FFB) == cardset("AD 7D JH 9S")


def test_trump_lead_must_overtrump_even_partner():
    hand = parse_hand("JH 8H 7H AD")
    t = trick((0, "9H"), (1, "7C"))
    assert legal_cards(hand, trick((0, "AH")), 1, H, FFB) == cardset("JH")
    # partner (seat 0) is master with the 9: must still play the jack
    assert legal_cards(hand, t, 2, H, FFB) == cardset("JH")
    # option off: any trump
    assert legal_cards(hand, t, 2, H, get_rules("ffb", overtrump_partner=False)) == cardset("JH 8H 7H")
    # cannot overtrump: any trump
    assert legal_cards(parse_hand("8H 7H AD"), t, 2, H, FFB) == cardset("8H 7H")


def test_void_partner_master_any_card():
    hand = parse_hand("JH 8H AC 7C")
    assert legal_cards(hand, trick((0, "AD"), (1, "KD")), 2, H, FFB) == cardset("JH 8H AC 7C")
    # partner master after trumping, I only hold trumps: no need to overtrump (FFB rule 4)
    hand2 = parse_hand("7H 8H")
    assert legal_cards(hand2, trick((3, "AD"), (0, "9H"), (1, "TD")), 2, H, FFB) == cardset("7H 8H")


def test_void_must_trump():
    hand = parse_hand("JH 8H AC 7C")
    assert legal_cards(hand, trick((0, "AD")), 1, H, FFB) == cardset("JH 8H")
    # partner played but is not master: still must trump
    assert legal_cards(hand, trick((0, "AD"), (1, "KD")), 3, H, FFB) == cardset("JH 8H")


def test_void_opponent_trumped_must_overtrump_if_able():
    hand = parse_hand("JH 8H AC")
    assert legal_cards(hand, trick((0, "AD"), (1, "9H")), 2, H, FFB) == cardset("JH")


def test_void_cannot_overtrump_ffb_any_vs_undertrump():
    hand = parse_hand("8H 7H AC 7S")
    t = trick((0, "AD"), (1, "9H"))
    assert legal_cards(hand, t, 2, H, FFB) == cardset("8H 7H AC 7S")
    assert legal_cards(hand, t, 2, H, get_rules("ffb", must_undertrump=True)) == cardset("8H 7H")


def test_partner_trumped_then_overtrumped():
    # partner (seat 1) trumped with the Q, opponent (seat 2) overtrumped with the 9
    hand = parse_hand("KH 7C")
    t = trick((0, "AD"), (1, "QH"), (2, "9H"))
    assert legal_cards(hand, t, 3, H, FFB) == cardset("KH 7C")
    assert legal_cards(hand, t, 3, H, get_rules("ffb", must_undertrump=True)) == cardset("KH")


def test_at_must_beat_winning_card():
    hand = parse_hand("9D AD 7D JS")
    assert legal_cards(hand, trick((0, "TD")), 1, AT, SA_TA) == cardset("9D AD")
    assert legal_cards(hand, trick((0, "JD")), 1, AT, SA_TA) == cardset("9D AD 7D")
    # even over the partner
    assert legal_cards(hand, trick((0, "TD"), (1, "7D")), 2, AT, SA_TA) == cardset("9D AD")
    # void: any card
    assert legal_cards(parse_hand("JS 7C"), trick((0, "TD")), 1, AT, SA_TA) == cardset("JS 7C")


def test_nt_follow_or_any():
    hand = parse_hand("9D 7C JS")
    assert legal_cards(hand, trick((0, "AD")), 1, NT, SA_TA) == cardset("9D")
    assert legal_cards(parse_hand("7C JS"), trick((0, "AD")), 1, NT, SA_TA) == cardset("7C JS")


# ------------------------------------------------------------------ declarations
def test_eight_card_run_is_120():
    pts, decls = hand_declarations(parse_hand("7H 8H 9H TH JH QH KH AH"), S, FFB)
    assert pts == 120
    assert [d.length for d in decls] == [5, 3]
    assert decls[0].rank == 7                       # the cent goes up to the ace


def test_share_cards_8_run_is_100():
    rules = get_rules("ffb", declarations_share_cards=True)
    pts, _ = hand_declarations(parse_hand("7H 8H 9H TH JH QH KH AH"), S, rules)
    assert pts == 100
    # a shared card: carré of kings + cinquante J Q K A of hearts
    pts, decls = hand_declarations(parse_hand("JH QH KH AH KS KD KC 7C"), S, rules)
    assert pts == 150 and len(decls) == 2


def test_carre_takes_card_from_run():
    # run 9 10 J Q of hearts (50) vs carré of queens (100) + tierce 9 10 J (20)
    pts, decls = hand_declarations(parse_hand("9H TH JH QH QS QD QC 7C"), S, FFB)
    assert pts == 120
    assert decls[0].kind == "carre"


def test_longer_cent_and_carre_with_cent():
    pts, decls = hand_declarations(parse_hand("9H TH JH QH KH AH 7S 7C"), S, FFB)
    assert pts == 100 and decls[0].length == 6            # the whole run: a longer cent
    pts, decls = hand_declarations(parse_hand("9H TH JH QH KH AH 9S 9D"), S, FFB)
    assert pts == 100                                      # only three 9s: no carré
    pts, decls = hand_declarations(parse_hand("9H TH JH QH KH 9S 9D 9C"), S, FFB)
    assert pts == 150 + 50                                 # carré of 9s + cinquante T-K
    assert [d.kind for d in decls] == ["carre", "run"]


def test_carre_low_cancels():
    hands = _deal_from_text(["7S 7H 7D 7C KH QH 9S JD",      # four 7s: no declaration
                             "8S TS QS 8D TD QD 9H 8C",
                             "KS AS KD AD 8H TH JS 9D",
                             "JH AH 9C TC JC QC KC AC"])     # cent
    for cancels, points in ((False, [0, 100]), (True, [0, 0])):
        deal = ReferenceDeal(get_rules("ffb", carre_low_cancels=cancels), hands, dealer=0)
        _auction(deal, bid_action(90, S), PASS, PASS, PASS)
        assert deal.seat_declaration_points == [0, 0, 0, 100]
        _play_out(deal, random.Random(11))
        assert deal.declared == [cancels, False, False, True]
        assert deal.team_declaration_points == points


def test_carre_values_and_low_carre():
    assert hand_declarations(parse_hand("JS JH JD JC 7S 9D KD AC"), S, FFB)[0] == 200
    assert hand_declarations(parse_hand("JS JH JD JC 7S 9D KD AC"), NT, SA_TA)[0] == 100
    assert hand_declarations(parse_hand("AS AH AD AC 7S 9D KD JC"), NT, SA_TA)[0] == 200
    assert hand_declarations(parse_hand("7S 7H 7D 7C 9S JD KD AC"), S, FFB)[0] == 0


def test_declaration_ranking():
    carre_q = hand_declarations(parse_hand("QS QH QD QC 7S 9D KD AC"), S, FFB)[1][0]
    cent = hand_declarations(parse_hand("7H 8H 9H TH JH 9D KD AC"), S, FFB)[1][0]
    assert declaration_rank(carre_q, S) > declaration_rank(cent, S)     # carré beats cent
    tierce_h = hand_declarations(parse_hand("7H 8H 9H KD"), S, FFB)[1][0]
    tierce_s = hand_declarations(parse_hand("7S 8S 9S KD"), S, FFB)[1][0]
    assert declaration_rank(tierce_s, S) > declaration_rank(tierce_h, S)  # trump suit
    assert declaration_rank(tierce_s, NT) == declaration_rank(tierce_h, NT)
    tierce_top = hand_declarations(parse_hand("8D 9D TD"), S, FFB)[1][0]
    assert declaration_rank(tierce_top, S) > declaration_rank(tierce_s, S)  # higher top card


def _deal_from_text(texts):
    return [parse_hand(t) for t in texts]


def _play_out(deal, rng):
    while deal.phase != "done":
        deal.apply(rng.choice(deal.legal_actions()))


def _auction(deal, *actions):
    for a in actions:
        deal.apply(a)


# Two equal tierces 7-8-9 (hearts for seat 0, diamonds for seat 1); seats 2, 3: nothing.
TIERCE_HANDS = ["7H 8H 9H AS QS AC QC 8C",
                "7D 8D 9D KS TS KC TC 7C",
                "TH JH KH AH JS 9S JC QD",
                "7S 8S QH TD JD KD AD 9C"]


@pytest.mark.parametrize("preset, strain, winner, points", [
    ("ffb", S, None, [0, 0]),        # equal tierces, neither in trump: nobody scores
    ("ffb", H, 0, [20, 0]),          # the tierce in the trump suit wins
    ("ffb", D, 1, [0, 20]),
    ("ffb_sa_ta", NT, None, [0, 0]),  # no trump suit at NT / AT
    ("ffb_sa_ta", AT, None, [0, 0]),
])
def test_declaration_tie_breaks(preset, strain, winner, points):
    deal = ReferenceDeal(get_rules(preset), _deal_from_text(TIERCE_HANDS), dealer=3)
    _auction(deal, bid_action(80, strain), PASS, PASS, PASS)
    assert deal.seat_declaration_points == [20, 20, 0, 0]
    _play_out(deal, random.Random(strain))
    assert deal.declared == [True, True, False, False]
    assert deal.declaration_winner == winner and deal.team_declaration_points == points


def test_optional_declare_and_belote_choices():
    rules = get_rules("ffb", optional_declare=True, optional_belote=True)
    hands = _deal_from_text(["KH QH 7S 9S JS 7D 9D JD",      # belote at hearts
                             "8S TS QS 8D TD QD 7H 9H",
                             "KS AS KD AD 8H TH 7C 8C",
                             "JH AH 9C TC JC QC KC AC"])     # cent (run of 6)
    deal = ReferenceDeal(rules, hands, dealer=3)
    _auction(deal, bid_action(80, H), PASS, PASS, PASS)
    assert deal.seat_declaration_points == [0, 0, 0, 100]
    assert deal.legal_actions() == [BELOTE, NO_BELOTE]        # seat 0
    deal.apply(BELOTE)
    assert deal.team_belote_points == [20, 0]
    assert all(is_card(a) for a in deal.legal_actions())
    for _ in range(3):                                         # seats 0, 1, 2 play
        deal.apply(deal.legal_actions()[0])
    assert deal.legal_actions() == [DECLARE, NO_DECLARE]      # seat 3
    deal.apply(NO_DECLARE)
    _play_out(deal, random.Random(7))
    assert deal.declared == [False] * 4 and deal.declaration_winner is None
    assert deal.team_belote_points == [20, 0] and deal.team_declaration_points == [0, 0]
    # automatic: seat 3 declares its cent and team 1 scores it
    deal = ReferenceDeal(FFB, hands, dealer=3)
    _auction(deal, bid_action(80, H), PASS, PASS, PASS)
    _play_out(deal, random.Random(7))
    assert deal.declared == [False, False, False, True]
    assert deal.team_declaration_points == [0, 100] and deal.team_belote_points == [20, 0]


def test_carre_beats_cent_in_a_deal():
    hands = _deal_from_text([
        "QS QH QD QC 7S 8S AD 9C",       # carré of queens (100)
        "7H 8H 9H TH JH 7D 8D 9D",       # cent (100) + tierce
        "AS KS JS TS 9S KH AH 7C",       # cent? 9 T J (no Q) K A: tierce 9 T J
        "TD JD KD 8C TC JC KC AC",
    ])
    deal = ReferenceDeal(FFB, hands, dealer=3)
    _auction(deal, bid_action(80, C), PASS, PASS, PASS)
    assert deal.seat_declaration_points[:3] == [100, 120, 20]
    _play_out(deal, random.Random(3))
    assert deal.declaration_winner == 0
    assert deal.team_declaration_points == [120, 0]


# ------------------------------------------------------------------ auction
def test_auction_flow():
    hands = [0xFF, 0xFF00, 0xFF0000, 0xFF000000]
    deal = ReferenceDeal(FFB, hands, dealer=0)
    assert deal.current_player == 1
    la = deal.legal_actions()
    assert PASS in la and COINCHE not in la and capot_action(H) in la
    deal.apply(bid_action(100, H))                   # seat 1
    assert COINCHE in deal.legal_actions()            # seat 2, opponent
    assert bid_action(100, S) not in deal.legal_actions()
    deal.apply(PASS)                                  # seat 2
    assert COINCHE not in deal.legal_actions()        # seat 3, partner
    deal.apply(bid_action(110, S))                    # seat 3 over partner
    deal.apply(COINCHE)                               # seat 0
    la = deal.legal_actions()                         # seat 1, taker team
    assert SURCOINCHE in la and bid_action(120, S) not in la and capot_action(S) not in la
    with pytest.raises(ValueError):
        deal.apply(bid_action(120, S))
    deal.apply(SURCOINCHE)
    assert deal.phase == "play" and deal.contract == {
        "value": 110, "strain": S, "capot": False, "coinche": 2, "taker": 3}
    assert deal.current_player == 1


def test_void_deal_and_capot_after_coinche():
    hands = [0xFF, 0xFF00, 0xFF0000, 0xFF000000]
    deal = ReferenceDeal(FFB, hands, dealer=2)
    for _ in range(4):
        deal.apply(PASS)
    assert deal.void and deal.phase == "done" and deal.result is None and deal.current_player is None
    rules = get_rules("ffb_sa_ta", capot_after_coinche=True)
    deal = ReferenceDeal(rules, hands, dealer=3)
    _auction(deal, bid_action(80, H), COINCHE, PASS)
    assert capot_action(NT) in deal.legal_actions()   # seat 3 (defender) may bid capot
    _auction(deal, PASS, capot_action(AT))            # seat 0 (taker) bids capot
    assert deal.coinche == 0 and COINCHE in deal.legal_actions()
    _auction(deal, PASS, PASS, PASS)
    assert deal.contract == {"value": 250, "strain": AT, "capot": True, "coinche": 0, "taker": 0}


# ------------------------------------------------------------------ scoring
def test_worked_example_section_8():
    """§8: 100 hearts, takers 98 card points + belote (118), defenders 64 -> 220 / 60."""
    contract = {"value": 100, "strain": H, "capot": False, "coinche": 0, "taker": 0}
    r = score_deal(FFB, contract, [0, 1, 0, 1, 0, 1, 0, 0], [98, 64], [20, 0], [0, 0])
    assert r["made"] and r["totals"] == [118, 64]
    assert r["raw"] == [218, 64] and r["score"] == [220, 60] and r["multiplier"] == 1


def _score(cp, coinche=0, capot=False, winners=None, bel=(0, 0), dec=(0, 0), value=100, **kw):
    rules = get_rules("ffb", **kw)
    contract = {"value": 250 if capot else value, "strain": H, "capot": capot,
                "coinche": coinche, "taker": 0}
    return score_deal(rules, contract, winners or [0, 1] * 4, list(cp), list(bel), list(dec))


def test_scoring_variants():
    r = _score([110, 52], coinche=1)                  # coinched make: (160 + 100) x 2
    assert r["made"] and r["raw"] == [520, 0] and r["multiplier"] == 2
    r = _score([70, 92], coinche=1, bel=(0, 20))      # fail: (160 + 20 + 100) x 2, takers 0
    assert not r["made"] and r["raw"] == [0, 560]
    r = _score([81, 81], bel=(20, 0))                 # 101 >= 100 and 101 > 81: made
    assert r["made"] and r["raw"] == [201, 81] and r["score"] == [200, 80]
    r = _score([81, 81], bel=(20, 0), contract_counts="cards")   # 81 < 100: failed
    assert not r["made"] and r["raw"] == [20, 260]
    r = _score([70, 92], bel=(20, 0), belote_takeable=True)
    assert r["raw"] == [0, 160 + 100 + 20]
    r = _score([100, 62], dec=(0, 50))                # 100 > 112? no: failed, takers' decl 0
    assert not r["made"] and r["raw"] == [0, 160 + 50 + 100]
    r = _score([100, 62], dec=(50, 0))
    assert r["made"] and r["raw"] == [250, 62]
    # générale (docs/presets.md §2.3): the cards count 350 (given here as cp), the capot
    # bid stays worth 250
    r = _score([350, 0], capot=True, winners=[0] * 8, generale_bonus=350)
    assert r["made"] and r["generale"] == 0 and r["raw"] == [350 + 250, 0]
    r = _score([252, 0], capot=True, winners=[0, 2] * 4, coinche=2)
    assert r["made"] and r["generale"] is None and r["raw"] == [(250 + 250) * 4, 0]
    r = _score([252, 0], winners=[0, 2] * 4, dec=(0, 20))   # unbid capot: decl change hands
    assert r["made"] and r["raw"] == [252 + 20 + 100, 0]
    r = _score([110, 52], coinche=1, coinche_scoring="cards_plus_bid", multipliers=(2, 3))
    assert r["raw"] == [110 + 200, 52]
    r = _score([70, 92], coinche=2, coinche_scoring="cards_plus_bid", multipliers=(2, 3),
               fail_base=162, rounding="none")
    assert r["raw"] == [0, 162 + 300] and r["score"] == r["raw"]
    r = _score([90, 72], made_conditions="bid_only", value=80)
    assert r["made"] and r["raw"] == [170, 72]


def test_match_winner():
    assert match_winner([1010, 900], 1000, 0, True, [5, 3]) == 0
    assert match_winner([1010, 1020], 1000, 0, True, [5, 3]) == 1
    assert match_winner([1010, 1010], 1000, 0, True, [5, 3]) is None
    assert match_winner([1010, 900], 1000, 0, False, [5, 3]) is None   # takers failed
    assert match_winner([900, 1010], 1000, 0, True, [8, 0]) is None    # defenders capot
    assert match_winner([1010, 1020], 1000, 1, False, [5, 3]) == 0
    assert match_winner([990, 900], 1000, None, False, [0, 0]) is None


# ------------------------------------------------------------------ random deals
def _random_hands(rng):
    deck = list(range(32))
    rng.shuffle(deck)
    return [sum(1 << c for c in deck[8 * i:8 * i + 8]) for i in range(4)]


@pytest.mark.parametrize("seed, preset, kw", [
    (1, "ffb", {}), (2, "ffb_sa_ta", {}), (3, "ffb_sa_ta", {"at_points": "scaled"}),
    (4, "ffb_sa_ta", {"optional_declare": True, "optional_belote": True, "carre_low_cancels": True}),
    (5, "ffb", {"declarations_share_cards": True, "must_undertrump": True, "coinche_scoring": "cards_plus_bid",
             "capot_after_coinche": True, "rounding": "none", "made_conditions": "bid_only"}),
])
def test_random_deals_keep_card_points(seed, preset, kw):
    rules = get_rules(preset, **kw)
    rng = random.Random(seed)
    played = 0
    for _ in range(60):
        deal = ReferenceDeal(rules, _random_hands(rng), dealer=rng.randrange(4))
        seen_cards = 0
        while deal.phase != "done":
            la = deal.legal_actions()
            assert la == sorted(la) and la
            if deal.phase == "play":
                seat = deal.current_player
                if any(is_card(a) for a in la):
                    assert all(is_card(a) for a in la)
                    assert all(deal.hands[seat] >> (a - card_action(0)) & 1 for a in la)
                else:
                    assert la in ([DECLARE, NO_DECLARE], [BELOTE, NO_BELOTE])
            deal.apply(rng.choice(la))
            if deal.phase != "auction":
                seen_cards = sum(len(t) for t in deal.tricks)
        if deal.void:
            continue
        played += 1
        assert seen_cards == 32 and len(deal.trick_winners) == 8
        r = deal.result
        all_one_team = len({w % 2 for w in deal.trick_winners}) == 1
        assert sum(r["card_points"]) == (252 if all_one_team else 162)
        total_belote = sum(belote_pairs(h, deal.contract["strain"]) for h in deal.initial_hands) * 20
        assert sum(deal.team_belote_points) <= total_belote
        if not rules.optional_belote:
            assert sum(deal.team_belote_points) == total_belote
        assert all(x % 10 == 0 for x in r["score"]) or rules.rounding == "none"
    assert played > 10


def test_illegal_action_leaves_state():
    deal = ReferenceDeal(FFB, _random_hands(random.Random(5)), dealer=0)
    with pytest.raises(ValueError):
        deal.apply(COINCHE)
    assert deal.history == [] and deal.current_player == 1


# ------------------------------------------------------------------ classic family (§11)
CLASSIC = get_rules("classic")
CLASSIC_DECL = get_rules("classic_declarations")
VIP = get_rules("vip_classic")


def _mask(cards):
    return sum(1 << c for c in cards)


def test_coinche_family_dealt_3_2_3_from_a_deck():
    deal = ReferenceDeal(FFB, None, 0, deck=list(range(32)))   # seats 1, 2, 3, 0
    assert deal.initial_hands == [_mask([9, 10, 11, 18, 19, 29, 30, 31]),
                                  _mask([0, 1, 2, 12, 13, 20, 21, 22]),
                                  _mask([3, 4, 5, 14, 15, 23, 24, 25]),
                                  _mask([6, 7, 8, 16, 17, 26, 27, 28])]
    assert deal.retourne is None and deal.prise_round is None
    with pytest.raises(ValueError):
        ReferenceDeal(FFB, None, 0, deck=list(range(31)) + [0])
    with pytest.raises(ValueError):
        ReferenceDeal(CLASSIC, [0xFF, 0xFF00, 0xFF0000, 0xFF000000], 0)   # classic needs a deck


def test_classic_prise_round_1_take_and_distribution():
    # dealer 1: packets go to seats 2, 3, 0, 1; deck[20] = card 20 (7D) is the retourne
    deal = ReferenceDeal(CLASSIC, None, 1, deck=list(range(32)))
    assert deal.retourne == 20 and deal.prise_round == 1 and deal.phase == "auction"
    assert deal.current_player == 2
    assert deal.initial_hands == deal.hands == [_mask([6, 7, 8, 16, 17]),
                                                _mask([9, 10, 11, 18, 19]),
                                                _mask([0, 1, 2, 12, 13]),
                                                _mask([3, 4, 5, 14, 15])]
    assert deal.legal_actions() == [PASS, TAKE]
    with pytest.raises(ValueError):
        deal.apply(NAME_BASE + H)                         # naming waits for round 2
    deal.apply(PASS)                                      # seat 2
    deal.apply(TAKE)                                      # seat 3 takes diamonds
    assert deal.phase == "play" and deal.prise_round == 1
    assert deal.contract == {"value": 0, "strain": D, "capot": False, "coinche": 0, "taker": 3}
    # the taker gets the retourne; then from seat 2: 3 cards, taker 2, 3, 3
    assert deal.initial_hands == [_mask([6, 7, 8, 16, 17, 26, 27, 28]),
                                  _mask([9, 10, 11, 18, 19, 29, 30, 31]),
                                  _mask([0, 1, 2, 12, 13, 21, 22, 23]),
                                  _mask([3, 4, 5, 14, 15, 20, 24, 25])]
    assert deal.current_player == 2                        # the seat after the dealer leads
    assert all(is_card(a) for a in deal.legal_actions())


def test_classic_prise_round_2_and_void():
    deal = ReferenceDeal(CLASSIC, None, 1, deck=list(range(32)))   # retourne 7D
    _auction(deal, PASS, PASS, PASS, PASS)
    assert deal.prise_round == 2 and deal.current_player == 2 and deal.phase == "auction"
    assert deal.legal_actions() == [PASS, NAME_BASE + S, NAME_BASE + H, NAME_BASE + C]
    with pytest.raises(ValueError):
        deal.apply(TAKE)
    _auction(deal, PASS, PASS, PASS, PASS)
    assert deal.void and deal.phase == "done" and deal.result is None
    assert deal.current_player is None
    # vip_classic: NT and AT are offered too; seat 0 names NT after two passes
    deal = ReferenceDeal(VIP, None, 1, deck=list(range(32)))
    _auction(deal, PASS, PASS, PASS, PASS)
    assert deal.legal_actions() == [PASS] + [NAME_BASE + s for s in (S, H, C, NT, AT)]
    _auction(deal, PASS, PASS, NAME_BASE + NT)
    assert deal.contract == {"value": 0, "strain": NT, "capot": False, "coinche": 0, "taker": 0}
    assert deal.prise_round == 2
    assert deal.initial_hands == [_mask([6, 7, 8, 16, 17, 20, 27, 28]),
                                  _mask([9, 10, 11, 18, 19, 29, 30, 31]),
                                  _mask([0, 1, 2, 12, 13, 21, 22, 23]),
                                  _mask([3, 4, 5, 14, 15, 24, 25, 26])]


def _classic(cp, bel=(0, 0), dec=(0, 0), winners=None, taker=0, **kw):
    rules = get_rules("classic_declarations", **kw)
    contract = {"value": 0, "strain": H, "capot": False, "coinche": 0, "taker": taker}
    return score_classic(rules, contract, winners or [0, 1] * 4, list(cp), list(bel), list(dec))


def test_classic_scoring():
    r = _classic([100, 62], bel=(20, 0), dec=(50, 0))          # made: each its own total
    assert r["made"] and not r["litige"] and r["raw"] == [170, 62] and r["totals"] == [170, 62]
    r = _classic([75, 87], bel=(20, 0), dec=(0, 20))           # 95 < 107: dedans
    assert not r["made"] and not r["litige"]
    assert r["raw"] == [20, 162 + 20] and r["score"] == r["raw"]   # takers keep their belote
    r = _classic([75, 87], bel=(20, 0), dec=(0, 20), belote_takeable=True)
    assert r["raw"] == [0, 162 + 20 + 20]
    r = _classic([90, 72], bel=(0, 20), dec=(20, 50))          # 110 < 142: all declarations
    assert r["raw"] == [0, 162 + 20 + 50 + 20]
    r = _classic([90, 72], dec=(20, 50), contract_counts="cards+belote")  # 90 > 72: made
    assert r["made"] and r["raw"] == [110, 122]
    r = _classic([0, 252], bel=(20, 0), winners=[1, 3] * 4)    # takers capot: 252
    assert r["raw"] == [20, 252] and r["generale"] is None
    r = _classic([0, 252], winners=[3] * 8, fail_base=160)
    assert r["raw"] == [0, 250] and r["generale"] == 3
    r = _classic([105, 57], bel=(20, 0), rounding="nearest10")
    assert r["raw"] == [125, 57] and r["score"] == [130, 60] and r["multiplier"] == 1
    r = _classic([70, 92], taker=1, bel=(0, 20))               # takers are team 1
    assert r["made"] and r["raw"] == [70, 112]


def test_classic_litige():
    """Tie: the defenders score their total, the takers keep only their belote; the
    takers' cards and declarations are held aside (docs/presets.md §8.4 item 5)."""
    r = _classic([71, 91], bel=(20, 0))                        # 91 = 91
    assert r["litige"] and not r["made"]
    assert r["raw"] == [20, 91] and r["litige_points"] == 71
    r = _classic([71, 91], bel=(20, 0), belote_takeable=True)  # not a failure: kept too
    assert r["litige"] and r["raw"] == [20, 91]
    r = _classic([81, 101], dec=(20, 0))                        # declarations held aside
    assert r["litige"] and r["raw"] == [0, 101] and r["litige_points"] == 101
    r = _classic([81, 81], bel=(20, 0), dec=(0, 20), contract_counts="cards")   # 81 = 81
    assert r["litige"] and r["raw"] == [20, 101] and r["litige_points"] == 81
    r = _classic([81, 81], bel=(20, 0), contract_counts="cards", taker=1)
    assert r["litige"] and r["raw"] == [101, 0] and r["litige_points"] == 81
    r = _classic([71, 91], bel=(20, 0), rounding="nearest10")  # held points not rounded
    assert r["score"] == [20, 90] and r["litige_points"] == 71
    r = _classic([82, 80])
    assert not r["litige"] and r["litige_points"] == 0
    # the coinche family never has a litige
    assert _score([81, 81])["litige"] is False and _score([81, 81])["litige_points"] == 0


# dealer 3 (packets to seats 0, 1, 2, 3), retourne JH, seat 0 takes: seat 0 ends with all
# eight hearts (a cent of 8, 120, and belote) and wins every trick; seat 1 holds a tierce.
CAPOT_DECK = ("7H 8H 9H  7S 8S 9S  TS QS AS  JS KS 9D   TH QH  8D JD  7D QD  TD AD   JH"
              "  KH AH  KD 7C 9C  TC QC AC  8C JC KC")


@pytest.mark.parametrize("optional, decl_points, winner, raw", [
    (False, [120, 0], 0, [252 + 20 + 120, 0]),     # team 0's cent wins the declarations
    (True, [0, 0], 1, [252 + 20, 0]),              # seat 0 declines: team 1's tierce wins,
])                                                 # then team 1 is capot and loses it
def test_classic_capot_team_loses_its_declarations(optional, decl_points, winner, raw):
    rules = get_rules("classic_declarations", optional_declare=optional)
    deck = [parse_card(t) for t in CAPOT_DECK.split()]
    deal = ReferenceDeal(rules, None, 3, deck=deck)
    assert deal.retourne == parse_card("JH")
    deal.apply(TAKE)
    assert deal.initial_hands[0] == parse_hand("7H 8H 9H TH JH QH KH AH")
    assert deal.initial_hands[1] == parse_hand("7S 8S 9S 8D JD KD 7C 9C")
    assert deal.seat_declaration_points == [120, 20, 0, 0]
    if optional:
        assert deal.legal_actions() == [DECLARE, NO_DECLARE]
        deal.apply(NO_DECLARE)
    rng = random.Random(11)
    while len(deal.tricks) < 2:                     # up to the first card of trick 2
        la = deal.legal_actions()
        deal.apply(DECLARE if DECLARE in la else rng.choice(la))
    assert deal.declarations_resolved and deal.declaration_winner == winner
    assert deal.team_declaration_points == ([120, 0] if winner == 0 else [0, 20])
    _play_out(deal, rng)
    assert deal.trick_winners == [0] * 8
    assert deal.team_declaration_points == decl_points
    r = deal.result
    assert r["made"] and r["card_points"] == [252, 0] and r["raw"] == raw
    assert r["generale"] == 0 and not r["litige"]


def test_classic_random_deals_keep_card_points():
    rng = random.Random(2)
    outcomes = set()
    for rules in (CLASSIC, CLASSIC_DECL, VIP):
        for _ in range(60):
            deck = list(range(32))
            rng.shuffle(deck)
            deal = ReferenceDeal(rules, None, rng.randrange(4), deck=deck)
            while deal.phase != "done":
                if deal.phase == "auction":
                    assert all(len(cards_of(h)) == 5 for h in deal.hands)
                deal.apply(rng.choice(deal.legal_actions()))
            if deal.void:
                outcomes.add("void")
                continue
            r = deal.result
            outcomes.add("litige" if r["litige"] else "made" if r["made"] else "dedans")
            capot = len({w % 2 for w in deal.trick_winners}) == 1
            assert sum(r["card_points"]) == (252 if capot else 162)
            assert r["score"] == r["raw"] and r["multiplier"] == 1
            if r["made"]:
                assert r["raw"] == [r["card_points"][t] + deal.team_belote_points[t]
                                    + deal.team_declaration_points[t] for t in (0, 1)]
    assert {"made", "dedans"} <= outcomes
