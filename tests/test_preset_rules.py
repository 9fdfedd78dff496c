"""docs/presets.md: for every preset, each rule that differs from ``ffb``, on hand-built deals.

Every deal is written out in full with the order in which its 32 cards are played; the
card points of each trick were counted by hand (trump J 20, 9 14, A 11, 10 10, K 4, Q 3;
plain suits A 11, 10 10, K 4, Q 3, J 2; AT tables of RULES.md §2 / docs/presets.md), and
every expected score is computed by hand from the formulas of docs/presets.md (§2.4, the
preset sections and §8). Dealer is seat 3 unless stated, so seat 0 speaks and leads first.
Team 0 = seats 0 and 2. ``r(x)`` = ``(x + 5) // 10 * 10``.
"""

import numpy as np
import pytest

from coinche_rl import actions as A
from coinche_rl.cards import cards_of, parse_card, parse_hand
from coinche_rl.game import Deal, Match, deal_stream, gather_and_cut, score_into_match
from coinche_rl.rules import get_rules
from scripted import AT, NT, D, H, S, cards, legal, play

CAPOT = 250


# ------------------------------------------------------------------ helpers


def contract_deal(rules, hands, value, strain=H, taker=0, coinche=0):
    return Deal(rules, hands=hands, dealer=3).with_contract(value, strain, taker=taker,
                                                            coinche=coinche)


def finish(deal, declare="declare", belote="belote"):
    """Play to the end: the first legal card each time; a pending declare / belote choice
    is answered with ``declare`` / ``belote``. Used only where the expected scores do not
    depend on the card play."""
    while not deal.is_terminal:
        legal = deal.legal_actions()
        if A.DECLARE in legal:
            deal.apply(declare)
        elif A.BELOTE in legal:
            deal.apply(belote)
        else:
            deal.apply(legal[0])
    return deal






def ids(*texts):
    return sorted(A.parse_action(t) for t in texts)


def raw(deal):
    r = deal.result
    return r.teams[0].raw_score, r.teams[1].raw_score


def card_points(deal):
    r = deal.result
    return r.teams[0].card_points, r.teams[1].card_points


def deal_323(pack, dealer):
    """Coinche family dealing written out: 3, 2 then 3 cards to each seat from the one
    after the dealer. Returns the four hands as masks."""
    hands = [0, 0, 0, 0]
    i = 0
    for n in (3, 2, 3):
        for k in range(4):
            seat = (dealer + 1 + k) % 4
            for c in pack[i:i + n]:
                hands[seat] |= 1 << c
            i += n
    return hands


def cuts_matching(pack, hands, dealer):
    """Every cut ``c`` (0..31) such that dealing ``pack[c:] + pack[:c]`` gives ``hands``."""
    return [c for c in range(32) if deal_323(pack[c:] + pack[:c], dealer) == list(hands)]


def classic_deck(hands, retourne, taker, dealer=3):
    """A classic-family dealing order giving these final 8-card hands when ``taker``
    takes the retourne: 3 then 2 cards to each seat from the one after the dealer, the
    retourne, then 2 to the taker and 3 to every other seat (docs/presets.md §8.1)."""
    cards_ = [h.split() for h in hands]
    assert retourne in cards_[taker]
    rest = [[c for c in h if c != retourne] for h in cards_]
    order = [(dealer + 1 + k) % 4 for k in range(4)]
    deck = []
    for s in order:
        deck += rest[s][:3]
    for s in order:
        deck += rest[s][3:5]
    deck.append(retourne)
    for s in order:
        deck += rest[s][5:]
    return " ".join(deck)


# ------------------------------------------------------------------- deals
# W (tests/test_scoring.py): hearts; seat 0 holds KH QH (belote, team 0); no declarations.
#   t1 TS AS KS 7S -> s1 (25)   t2 KD 9D QD JD -> s1 (9)   t3 AC 8C TC 7C -> s1 (21)
#   t4 QC JC KC 9C -> s3 (9)    t5 8D AD 7D TD -> s0 (21)  t6 QS 8S 9S JS -> s0 (5)
#   t7 QH AH 9H TH -> s2 (38)   t8 JH 8H KH 7H -> s2 (24 + 10)
#   team 0: 98 card points (+ belote 20); team 1: 64
W = ["KH QH TS QS AD JD 7C 9C", "AH 7H AS 8S 7D KD AC QC",
     "JH 9H KS 9S TD 9D 8C JC", "TH 8H 7S JS 8D QD TC KC"]
W_PLAY = ("TS AS KS 7S  KD 9D QD JD  AC 8C TC 7C  QC JC KC 9C  "
          "8D AD 7D TD  QS 8S 9S JS  QH AH 9H TH  JH 8H KH 7H")

# WB: W with KH QH (seat 0) and AH 7H (seat 1) exchanged: the belote is team 1's.
#   t1-t6 as W;  t7 7H QH 9H TH -> s2 (0 + 3 + 14 + 10 = 27)
#   t8 JH 8H AH KH -> s2 (20 + 0 + 11 + 4 = 35, + 10)
#   team 0: 21 + 5 + 27 + 45 = 98;  team 1: 64 (+ belote 20)
WB = ["AH 7H TS QS AD JD 7C 9C", "KH QH AS 8S 7D KD AC QC",
      "JH 9H KS 9S TD 9D 8C JC", "TH 8H 7S JS 8D QD TC KC"]
WB_PLAY = ("TS AS KS 7S  KD 9D QD JD  AC 8C TC 7C  QC JC KC 9C  "
           "8D AD 7D TD  QS 8S 9S JS  7H QH 9H TH  JH 8H AH KH")

# CARRE (tests/test_scoring.py): seat 1 holds the carré of aces (100); seat 0 KH QH.
#   t1 TS AS KS 7S -> s1 (25)   t2 KD 9D QD JD -> s1 (9)   t3 AC 8C TC 7C -> s1 (21)
#   t4 QC JC KC 9C -> s3 (9)    t5 8D 7D AD TD -> s1 (21)  t6 8S 9S JS QS -> s0 (5)
#   t7 QH AH 9H TH -> s2 (38)   t8 JH 8H KH 7H -> s2 (34)
#   team 0: 77 (+ belote 20);  team 1: 85 (+ carré 100)
CARRE = ["KH QH TS QS 7D JD 7C 9C", "AH 7H AS 8S AD KD AC QC",
         "JH 9H KS 9S TD 9D 8C JC", "TH 8H 7S JS 8D QD TC KC"]
CARRE_TRICKS = ["TS AS KS 7S", "KD 9D QD JD", "AC 8C TC 7C", "QC JC KC 9C",
                "8D 7D AD TD", "8S 9S JS QS", "QH AH 9H TH", "JH 8H KH 7H"]
CARRE_PLAY = "  ".join(CARRE_TRICKS)

# TIE (tests/test_scoring.py): seat 0 holds KH QH.
#   t1 TS AS 7S 8S -> s1 (21)   t2 JS 9S KS QS -> s3 (9)   t3 AC 7C QC 8C -> s3 (14)
#   t4 QD JD KD 9D -> s1 (9)    t5 8H JH 7H KH -> s2 (24)  t6 AH TH QH 9H -> s1 (38)
#   t7 8D AD TD 7D -> s2 (21)   t8 JC 9C TC KC -> s0 (16 + 10)
#   team 0: 71 (+ belote 20 = 91);  team 1: 91
TIE = ["KH QH TS QS 7D JD TC 7C", "9H 8H AS JS 8D KD KC QC",
       "JH AH 7S 9S AD 9D JC 8C", "TH 7H 8S KS TD QD 9C AC"]
TIE_PLAY = ("TS AS 7S 8S  JS 9S KS QS  AC 7C QC 8C  QD JD KD 9D  "
            "8H JH 7H KH  AH TH QH 9H  8D AD TD 7D  JC 9C TC KC")

# SEVEN (tests/test_scoring.py): seat 1 holds the tierce 7S 8S 9S (20).
#   t1 JH 7H 8H QH -> s0 (23)   t2 9H AH KH TH -> s0 (39)  t3 AS 7S JS QS -> s0 (16)
#   t4 KS 8S 7D TS -> s3 (14)   t5 JD AD 8D 9D -> s0 (13)  t6 TD QD KD 9C -> s0 (17)
#   t7 AC 8C 7C JC -> s0 (13)   t8 TC 9S KC QC -> s0 (17 + 10)
#   team 0: 148;  team 1: 14
SEVEN = ["JH 9H AS KS AD TD AC TC", "AH 7H 7S 8S 9S 8D QD 8C",
         "KH 8H JS KD 9D 7D KC 7C", "TH QH TS QS JD QC JC 9C"]

# D80: hearts; every seat holds two cards of each suit and everyone follows suit.
#   t1 JH AH 9H TH -> s0 (20 + 11 + 14 + 10 = 55)   t2 KC JC 9C 8C -> s0 (4 + 2 = 6)
#   t3 7S AS TS KS -> s1 (11 + 10 + 4 = 25)          t4 AD KD QD TD -> s1 (11 + 4 + 3 + 10 = 28)
#   t5 QS 9S 8S JS -> s1 (3 + 2 = 5)                 t6 7C QC AC TC -> s3 (3 + 11 + 10 = 24)
#   t7 7H 8H QH KH -> s2 (3 + 4 = 7)                 t8 JD 7D 9D 8D -> s2 (2 + 10)
#   team 0: 55 + 6 + 7 + 12 = 80;  team 1: 25 + 28 + 5 + 24 = 82. No belote, no declarations.
D80 = ["JH 8H 7S JS TD 9D KC TC", "AH QH AS QS AD 8D JC 7C",
       "9H KH TS 9S KD JD 9C QC", "TH 7H KS 8S QD 7D 8C AC"]
D80_PLAY = ("JH AH 9H TH  KC JC 9C 8C  7S AS TS KS  AD KD QD TD  "
            "QS 9S 8S JS  7C QC AC TC  7H 8H QH KH  JD 7D 9D 8D")

# G: hearts; seat 0 alone wins all 8 tricks (a générale). No belote, no declarations
# (seat 0's aces: AH AS AC, AD is seat 3's).
G = ["JH 9H AH 7H AS TS AC TC", "TH KH KS 7D TD KD 8C JC",
     "QH 7S 9S QS 8D JD 9C QC", "8H 8S JS 9D QD 7C AD KC"]
G_PLAY = ("JH KH QH 8H  9H TH 7S 8S  AH KS 9S JS  7H 7D QS 9D  "
          "AS TD 8D QD  TS KD JD 7C  AC 8C 9C KC  TC JC QC AD")

# GB: G with KS (seat 1) and QH (seat 2) exchanged: seat 1 holds KH QH (belote, team 1);
# seat 0 still wins all 8 tricks.
GB = ["JH 9H AH 7H AS TS AC TC", "TH KH QH 7D TD KD 8C JC",
      "KS 7S 9S QS 8D JD 9C QC", "8H 8S JS 9D QD 7C AD KC"]
GB_PLAY = ("JH KH 7S 8H  9H QH 9S 8S  AH TH QS JS  7H 7D KS 9D  "
           "AS TD 8D QD  TS KD JD 7C  AC 8C 9C KC  TC JC QC AD")

# P: hearts; seat 0 wins tricks 1-7, his partner (seat 2) the last one with AD: a capot
# by two partners, not a générale. No belote, no declarations.
P = ["JH 9H AH 7H AS TS 8D AC", "TH KH KS 7D TD KD 8C JC",
     "QH 7S 9S QS AD JD 9C QC", "8H 8S JS 9D QD 7C TC KC"]
P_PLAY = ("JH KH QH 8H  9H TH 7S 8S  AH KS 9S JS  7H 7D QS 9D  "
          "AS TD JD QD  TS KD 9C 7C  AC 8C QC TC  8D JC AD KC")

# G50: seat 0 (JH 9H AH 7H AD TD AC TC) wins all 8 tricks; seat 1 holds the cinquante
# 7S 8S 9S TS (50). No belote, no other declaration.
G50 = ["JH 9H AH 7H AD TD AC TC", "TH KH 7S 8S 9S TS 8C JC",
       "QH JS KS 7D 9D JD 9C QC", "8H QS AS 8D QD KD 7C KC"]
G50_PLAY = ("JH KH QH 8H  9H TH JS QS  AH 7S KS AS  7H 8S 7D 8D  "
            "AD 9S 9D QD  TD TS JD KD  AC 8C 9C 7C  TC JC QC KC")

# ATS: an AT deal (every suit split {J 9 A 10} / {K Q 8 7}, everyone follows suit).
#   Trump table at every suit (at_points="scaled"):
#   t1 JS AS 9S TS -> s0 (55)   t2 JH AH TH 9H -> s0 (55)  t3 TD JD 9D AD -> s1 (55)
#   t4 JC 9C AC KC -> s1 (49)   t5 KS 8S QS 7S -> s1 (7)   t6 KH 7H QH 8H -> s1 (7)
#   t7 7D KD QD 8D -> s2 (7)    t8 7C 8C TC QC -> s0 (13 + 10)
#   raw: team 0 55 + 55 + 7 + 23 = 140, team 1 55 + 49 + 7 + 7 = 118 (258 in all)
ATS = ["JS 7S JH 8H TD 8D KC TC", "AS KS AH KH JD 7D JC QC",
       "9S 8S TH 7H 9D KD 9C 7C", "TS QS 9H QH AD QD AC 8C"]
ATS_PLAY = ("JS AS 9S TS  JH AH TH 9H  TD JD 9D AD  JC 9C AC KC  "
            "KS 8S QS 7S  KH 7H QH 8H  7D KD QD 8D  7C 8C TC QC")

# ATV: an AT deal where team 0 wins three jacks and one queen.
#   vip table (J 14, 9 9, A 6, 10 5, K 3, Q 1):
#   t1 JS AS 9S TS -> s0 (34)   t2 JH 9H TH AH -> s0 (34)  t3 JD TD AD 9D -> s0 (34)
#   t4 9C JC AC TC -> s1 (34)   t5 KS 8S 7S QS -> s1 (4)   t6 KH QH 8H 7H -> s1 (4)
#   t7 KD 7D QD 8D -> s1 (4)    t8 7C KC 8C QC -> s2 (4 + 10)
#   team 0: 34 * 3 + 14 = 116;  team 1: 34 + 4 * 3 = 46
#   (FFB table J 13, Q 2: team 0 33 * 3 + 5 + 10 = 114, team 1 33 + 5 * 3 = 48)
ATV = ["JS QS JH 7H JD 8D 9C QC", "AS KS 9H KH TD KD JC 7C",
       "9S 8S TH QH AD 7D AC KC", "TS 7S AH 8H 9D QD TC 8C"]
ATV_PLAY = ("JS AS 9S TS  JH 9H TH AH  JD TD AD 9D  9C JC AC TC  "
            "KS 8S 7S QS  KH QH 8H 7H  KD 7D QD 8D  7C KC 8C QC")

# SHARE: seat 0 holds the carré of jacks and the tierce 9D TD JD (sharing JD).
SHARE = ["JS JH JD JC 9D TD AS 7C", "7S 9S QS 8H TH KH TC 7D",
         "8S TS KS 7H 9H QH QC QD", "AH 8D KD AD 8C 9C KC AC"]

# LOW7: seat 2 holds the carré of 7s, seat 1 the cinquante 9C TC JC QC; seat 0 JH.
LOW7 = ["8S JS KS 9H JH AH TD KC", "AS 8H 9C TC JC QC 9D KD",
        "7S TS 7H KH 7D AD 7C 8C", "9S QS TH QH 8D JD QD AC"]


def test_hand_built_deals_are_deals():
    for hands in (W, WB, CARRE, TIE, SEVEN, D80, G, GB, P, G50, ATS, ATV, SHARE, LOW7):
        masks = [parse_hand(h) for h in hands]
        assert all(bin(m).count("1") == 8 for m in masks)
        assert masks[0] | masks[1] | masks[2] | masks[3] == 0xFFFFFFFF


# ================================================================= funbelote
def test_funbelote_nt_and_at_bids_allowed():
    deal = Deal("funbelote", hands=W, dealer=3)
    for a in ("80NT", "80AT", "160AT", "capotNT", "capotAT"):
        assert deal.is_legal(a), a
    ffb = Deal("ffb", hands=W, dealer=3)
    assert not ffb.is_legal("80NT") and not ffb.is_legal("80AT")


def test_funbelote_capot_still_legal_after_coinche_and_cancels_it():
    deal = Deal("funbelote", hands=W, dealer=3)
    play(deal, "80H coinche")
    legal_now = deal.legal_actions()
    # seat 2 (the coinched team): pass, surcoinche, or capot in any of the six strains
    assert legal_now == ids("pass", "surcoinche", "capotS", "capotH", "capotD", "capotC",
                            "capotNT", "capotAT")
    assert not deal.is_legal("90H")
    play(deal, "capotS pass pass pass")
    c = deal.contract
    assert (c.capot, c.value, c.strain, c.taker, c.coinche) == (True, CAPOT, S, 2, 0)
    # ffb: no capot after a coinche
    ffb = play(Deal("ffb", hands=W, dealer=3), "80H coinche")
    assert not ffb.is_legal("capotS")
    assert ffb.legal_actions() == ids("pass", "surcoinche")


def test_funbelote_capot_after_coinche_by_coinching_team_can_be_coinched_again():
    deal = play(Deal("funbelote", hands=W, dealer=3), "80H coinche pass capotD")
    assert deal.highest_bid == (CAPOT, D, 3)
    # the capot replaced the contract: seat 0 (now an opponent) may coinche it
    assert deal.legal_actions() == ids("pass", "coinche")
    play(deal, "coinche surcoinche")          # surcoinche ends the auction at once
    c = deal.contract
    assert (c.capot, c.strain, c.taker, c.coinche) == (True, D, 3, 2)


def test_funbelote_trump_led_partner_master_any_trump():
    # hearts; seat 0 leads KH, seat 1 plays 8H; seat 2 (partner master) holds AH 9H QH
    hands = ["KH AS KS QS JS 7D 8D 7C", "8H 7H AD TD KD AC TC KC",
             "AH 9H QH TS 9S 8S 7S 8C", "JH TH QD JD 9D QC JC 9C"]
    fun = play(contract_deal("funbelote", hands, 80), "KH 8H")
    assert legal(fun) == cards("QH 9H AH")
    ffb = play(contract_deal("ffb", hands, 80), "KH 8H")
    assert legal(ffb) == cards("9H AH")
    # an opponent master still has to be beaten: seat 3 after QH must play over KH
    play(fun, "QH")
    assert legal(fun) == cards("JH TH")


def test_funbelote_at_partner_master_follow_without_beating():
    # AT; seat 0 leads KS, seat 1 7S; seat 2 holds AS (beats KS) and QS
    hands = ["KS QH 7D 8D 9D 7C 8C 9C", "7S 8S AD TD KD AC TC KC",
             "AS QS JH 9H AH TH KH 8H", "JS 9S TS 7H QD JD QC JC"]
    fun = play(contract_deal("funbelote", hands, 80, strain=AT), "KS 7S")
    assert legal(fun) == cards("QS AS")
    ref = play(contract_deal("ffb_sa_ta", hands, 80, strain=AT), "KS 7S")
    assert legal(ref) == cards("AS")


def test_funbelote_generale_80h_350_plus_80():
    deal = play(Deal("funbelote", hands=G, dealer=3), "80H pass pass pass")
    play(deal, G_PLAY)
    r = deal.result
    assert r.generale == 0
    assert r.made is True
    assert deal.tricks_won == (8, 0)
    # card points of a générale: 350 (not 252); takers 350 + 80 = 430, defenders 0
    assert card_points(deal) == (350, 0)
    assert raw(deal) == (430, 0)
    assert r.scores == (430, 0)


def test_funbelote_generale_coinched_capot_bid_1200():
    deal = play(Deal("funbelote", hands=G, dealer=3), "capotH coinche pass pass pass")
    assert deal.contract.capot and deal.contract.coinche == 1
    play(deal, G_PLAY)
    r = deal.result
    assert r.generale == 0 and r.made is True and r.multiplier == 2
    # (B 350 + 0 + 0 + 0 + capot bid 250) x 2; the capot bid stays worth 250
    assert r.scores == ((350 + 250) * 2, 0) == (1200, 0)


def test_funbelote_generale_capot_bid_not_coinched_600():
    deal = play(contract_deal("funbelote", G, CAPOT), G_PLAY)
    assert deal.result.generale == 0
    assert deal.result.scores == (350 + 250, 0)


def test_funbelote_capot_by_two_partners_is_not_a_generale():
    deal = play(Deal("funbelote", hands=P, dealer=3), "80H pass pass pass")
    play(deal, P_PLAY)
    r = deal.result
    assert deal.tricks_won == (8, 0)
    assert deal.trick_winners == [0, 0, 0, 0, 0, 0, 0, 2]
    assert r.generale is None
    assert card_points(deal) == (252, 0)
    # 252 + 80 = 332 -> 330
    assert raw(deal) == (332, 0)
    assert r.scores == (330, 0)


def test_funbelote_generale_by_a_defender_changes_nothing():
    # seat 1 takes 80H and seat 0 wins every trick: failed, 160 + 80 to the defenders
    deal = play(contract_deal("funbelote", G, 80, taker=1), G_PLAY)
    r = deal.result
    assert r.generale == 0 and r.made is False
    assert r.scores == (160 + 80, 0)


def test_funbelote_target_1501():
    deal = play(contract_deal("funbelote", G, 80), G_PLAY)       # 430 to team 0
    assert score_into_match([1071, 0], 0, deal) == ([1501, 0], 0, 0)
    assert score_into_match([1070, 0], 0, deal) == ([1500, 0], 0, None)
    # ffb (target 1000) would have ended the match already
    ffb = play(contract_deal("ffb", G, 80), G_PLAY)              # 252 + 80 -> 330
    assert score_into_match([670, 0], 0, ffb) == ([1000, 0], 0, 0)


# ================================================================ coinche_x3
def test_coinche_x3_multipliers_x2_x3():
    deal = Deal("coinche_x3", hands=W, dealer=3)
    play(deal, "90H coinche pass pass pass")
    play(deal, W_PLAY)
    r = deal.result
    assert r.multiplier == 2 and r.made is True
    # cards_plus_bid: takers 98 + belote 20 + 90 x 2 = 298 -> 300; defenders 64 -> 60
    assert raw(deal) == (298, 64)
    assert r.scores == (300, 60)
    deal = play(Deal("coinche_x3", hands=W, dealer=3), "90H coinche surcoinche")
    play(deal, W_PLAY)
    r = deal.result
    assert r.multiplier == 3 and r.made is True
    # 98 + 20 + 90 x 3 = 388 -> 390
    assert raw(deal) == (388, 64)
    assert r.scores == (390, 60)


def test_coinche_x3_made_not_coinched():
    deal = play(contract_deal("coinche_x3", W, 90), W_PLAY)
    # 98 >= 90: takers 98 + 20 + 90 = 208 -> 210; defenders 64 -> 60
    assert deal.result.made is True
    assert deal.result.scores == (210, 60)


def test_coinche_x3_belote_does_not_count_for_the_contract():
    # 100H: card points 98 < 100 (98 + belote 20 = 118 would make it under ffb)
    deal = play(contract_deal("coinche_x3", W, 100), W_PLAY)
    r = deal.result
    assert r.made is False
    # failed: takers their belote 20; defenders 162 + 100 = 262 -> 260
    assert raw(deal) == (20, 262)
    assert r.scores == (20, 260)
    ffb = play(contract_deal("ffb", W, 100), W_PLAY)
    assert ffb.result.made is True


def test_coinche_x3_failed_coinched_and_surcoinched_bid_times_m_only():
    deal = play(contract_deal("coinche_x3", W, 100, coinche=1), W_PLAY)
    # 162 + 100 x 2 = 362 -> 360 (not (162 + 100) x 2); takers keep their belote
    assert deal.result.made is False
    assert raw(deal) == (20, 362)
    assert deal.result.scores == (20, 360)
    deal = play(contract_deal("coinche_x3", W, 100, coinche=2), W_PLAY)
    # 162 + 100 x 3 = 462 -> 460
    assert deal.result.scores == (20, 460)


def test_coinche_x3_made_on_bid_alone_no_comparison_with_defenders():
    # takers 80 card points, defenders 82: 80 >= 80 is enough
    deal = play(contract_deal("coinche_x3", D80, 80), D80_PLAY)
    r = deal.result
    assert card_points(deal) == (80, 82)
    assert r.made is True
    assert r.scores == (80 + 80, 80)          # 160; defenders 82 -> 80
    ffb = play(contract_deal("ffb", D80, 80), D80_PLAY)
    assert ffb.result.made is False           # ffb: 80 > 82 fails
    assert ffb.result.scores == (0, 160 + 80)


def test_coinche_x3_declarations_do_not_count_for_the_contract():
    # seat 1 takes 90H with 85 card points and declares the carré of aces (100):
    # failed (85 < 90). Defenders: 162 + 90 + their belote 20 + both teams'
    # declarations (the takers' 100) = 372 -> 370; takers 0
    deal = contract_deal("coinche_x3", CARRE, 90, taker=1)
    play(deal, "TS declare " + CARRE_PLAY.split(None, 1)[1])
    r = deal.result
    assert r.made is False
    assert r.teams[1].declarations == 100
    assert raw(deal) == (372, 0)
    assert r.scores == (370, 0)


def test_coinche_x3_made_coinched_takers_declarations_and_belote():
    # seat 1 takes 80H coinched, declares: made (85 >= 80).
    # takers 85 + 100 + 80 x 2 = 345 -> 350; defenders 77 + belote 20 = 97 -> 100
    deal = contract_deal("coinche_x3", CARRE, 80, taker=1, coinche=1)
    play(deal, "TS declare " + CARRE_PLAY.split(None, 1)[1])
    r = deal.result
    assert r.made is True and r.multiplier == 2
    assert raw(deal) == (97, 345)
    assert r.scores == (100, 350)


def test_coinche_x3_made_coinched_defenders_keep_cards_and_declarations():
    # SEVEN, seat 0 takes 80H coinched (148 card points); seat 1 declares its tierce.
    # takers 148 + 80 x 2 = 308 -> 310; defenders 14 + tierce 20 = 34 -> 30
    deal = contract_deal("coinche_x3", SEVEN, 80, coinche=1)
    play(deal, "JH declare 7H 8H QH  9H AH KH TH  AS 7S JS QS  KS 8S 7D TS  "
               "JD AD 8D 9D  TD QD KD 9C  AC 8C 7C JC  TC 9S KC QC")
    r = deal.result
    assert card_points(deal) == (148, 14)
    assert r.teams[1].declarations == 20
    assert raw(deal) == (308, 34)
    assert r.scores == (310, 30)
    # ffb coinched: takers (160 + 20 + 80) x 2 = 520, defenders 0
    ffb = contract_deal("ffb", SEVEN, 80, coinche=1)
    play(ffb, "JH 7H 8H QH  9H AH KH TH  AS 7S JS QS  KS 8S 7D TS  "
              "JD AD 8D 9D  TD QD KD 9C  AC 8C 7C JC  TC 9S KC QC")
    assert ffb.result.scores == (520, 0)


def test_coinche_x3_optional_declare_choice_at_first_turn():
    deal = contract_deal("coinche_x3", CARRE, 80, taker=1)
    # seat 0 has nothing to declare: it plays at once
    assert A.DECLARE not in deal.legal_actions()
    deal.apply("TS")
    # seat 1 (carré of aces): declare or not, before its card
    assert deal.legal_actions() == ids("declare", "no-declare")
    assert deal.legal_cards() == 0
    deal.apply("no-declare")
    assert "AS" in legal(deal)
    play(deal, CARRE_PLAY.split(None, 1)[1])
    r = deal.result
    # declining scores nothing: takers 85 + 80 = 165 -> 170; defenders 97 -> 100
    assert r.teams[1].declarations == 0
    assert raw(deal) == (97, 165)
    assert r.scores == (100, 170)
    # with the declaration: 85 + 100 + 80 = 265 -> 270
    deal = contract_deal("coinche_x3", CARRE, 80, taker=1)
    play(deal, "TS declare " + CARRE_PLAY.split(None, 1)[1])
    assert deal.result.scores == (100, 270)


def test_coinche_x3_declarations_share_cards():
    deal = contract_deal("coinche_x3", SHARE, 250, strain=S, taker=1, coinche=1)
    # carré of jacks 200 + tierce 9D TD JD 20, sharing JD
    assert deal.seat_declarations(0)[0] == 220
    assert deal.seat_declarations(0)[1] == parse_hand("JS JH JD JC 9D TD")
    assert [deal.seat_declarations(s)[0] for s in (1, 2, 3)] == [0, 0, 0]
    ffb = contract_deal("ffb", SHARE, 250, strain=S, taker=1, coinche=1)
    assert ffb.seat_declarations(0)[0] == 200
    # seat 1's capot in spades fails (seat 0's JS wins a trick): the defenders score
    # 162 + 250 x 2 + their declarations 220 = 882 -> 880
    finish(deal)
    r = deal.result
    assert r.made is False
    assert r.teams[0].declarations == 220
    assert r.scores == (880, 0)


def test_coinche_x3_carre_of_sevens_cancels_every_declaration():
    deal = contract_deal("coinche_x3", LOW7, 250, taker=1, coinche=1)
    # the carré of 7s is something to declare: seat 2 gets the choice too
    assert deal.seat_declarations(1)[0] == 50
    finish(deal, declare="declare")
    r = deal.result
    assert r.made is False                    # seat 0's JH wins a trick
    assert deal.declaration_winner is None
    assert deal.team_declarations == (0, 0)
    # defenders (team 0): 162 + 250 x 2 = 662 -> 660, no declarations
    assert r.scores == (660, 0)


def test_coinche_x3_carre_of_sevens_not_declared_cancels_nothing():
    deal = contract_deal("coinche_x3", LOW7, 250, taker=1, coinche=1)
    deal.apply("8S")                          # seat 0: nothing to declare
    assert deal.legal_actions() == ids("declare", "no-declare")
    deal.apply("declare")                     # seat 1: cinquante
    deal.apply(deal.legal_actions()[0])
    assert deal.current_player == 2
    assert deal.legal_actions() == ids("declare", "no-declare")
    deal.apply("no-declare")                  # seat 2 keeps its carré of 7s quiet
    finish(deal)
    r = deal.result
    assert deal.team_declarations == (0, 50)
    # failure: 162 + 500 + both teams' declarations (the takers' 50) = 712 -> 710
    assert r.scores == (710, 0)


def test_ffb_carre_of_sevens_cancels_nothing():
    deal = finish(contract_deal("ffb", LOW7, 250, taker=1, coinche=1))
    assert deal.team_declarations == (0, 50)
    # ffb failure: (160 + 0 + 0 + 50 + 250) x 2 = 920
    assert deal.result.scores == (920, 0)


# ======================================================== ludiclub (both)
@pytest.mark.parametrize("preset", ["ludiclub_coinche", "ludiclub_contree"])
def test_ludiclub_at_scaled_162_258(preset):
    deal = play(contract_deal(preset, ATS, 80, strain=AT), ATS_PLAY)
    r = deal.result
    # raw 140 / 118 (258 with the dix de der); 140 x 162 / 258 = 87.9 -> 88, 162 - 88 = 74
    assert card_points(deal) == (88, 74)
    assert r.made is True
    # takers 88 + 80 = 168 -> 170; defenders 74 -> 70
    assert raw(deal) == (168, 74)
    assert r.scores == (170, 70)


def test_ffb_sa_ta_same_at_deal_uses_its_table():
    # FFB AT table (J 13, 9 9, A 6, 10 5, K 3, Q 2): t1-t3 33 each, t4 13 + 9 + 6 + 3 = 31,
    # t5-t7 5 each, t8 5 + 2 + 10 = 17 -> team 0 33 + 33 + 5 + 17 = 88, team 1 74
    deal = play(contract_deal("ffb_sa_ta", ATS, 80, strain=AT), ATS_PLAY)
    assert card_points(deal) == (88, 74)
    deal = play(contract_deal("ffb_sa_ta", ATV, 80, strain=AT), ATV_PLAY)
    assert card_points(deal) == (114, 48)


def test_ludiclub_scaled_at_other_deal():
    # ATV with the trump table: t1-t3 55 each, t4 14 + 20 + 11 + 10 = 55, t5-t7 7 each,
    # t8 0 + 4 + 0 + 3 + 10 = 17: team 0 165 + 17 = 182, team 1 55 + 21 = 76 (258);
    # 182 x 162 / 258 = 114.28 -> 114, defenders 48
    deal = play(contract_deal("ludiclub_contree", ATV, 80, strain=AT), ATV_PLAY)
    assert card_points(deal) == (114, 48)
    assert deal.result.scores == (190, 50)    # 114 + 80 = 194 -> 190; 48 -> 50


def test_ludiclub_contree_made_on_bid_alone():
    deal = play(contract_deal("ludiclub_contree", D80, 80), D80_PLAY)
    r = deal.result
    assert r.made is True
    assert r.scores == (160, 80)              # 80 + 80; 82 -> 80
    coinche = play(contract_deal("ludiclub_coinche", D80, 80), D80_PLAY)
    assert coinche.result.made is False       # both conditions: 80 > 82 fails
    assert coinche.result.scores == (0, 160 + 80)


def test_ludiclub_contree_no_declarations():
    deal = contract_deal("ludiclub_contree", CARRE, 80, taker=1)
    play(deal, "belote " + CARRE_PLAY)
    r = deal.result
    assert deal.seat_declarations(1)[0] == 0
    assert r.teams[1].declarations == 0
    # takers 85 + 80 = 165 -> 170; defenders 77 + belote 20 = 97 -> 100
    assert raw(deal) == (97, 165)
    assert r.scores == (100, 170)


def test_ludiclub_coinche_declarations_automatic():
    deal = contract_deal("ludiclub_coinche", CARRE, 80, taker=1)
    play(deal, "belote " + CARRE_PLAY)        # no declare choice for seat 1
    r = deal.result
    # takers 85 + 100 + 80 = 265 -> 270; defenders 97 -> 100
    assert r.teams[1].declarations == 100
    assert r.scores == (100, 270)


@pytest.mark.parametrize("preset", ["ludiclub_coinche", "ludiclub_contree"])
def test_ludiclub_optional_belote(preset):
    deal = contract_deal(preset, CARRE, 80, taker=1)
    # seat 0 holds KH QH: belote or not, before its first card
    assert deal.legal_actions() == ids("belote", "no-belote")
    assert deal.legal_cards() == 0
    play(deal, "no-belote " + CARRE_PLAY)
    r = deal.result
    assert r.teams[0].belote == 0
    assert r.teams[0].raw_score == 77         # 77 -> 80
    assert r.scores[0] == 80
    deal = play(contract_deal(preset, CARRE, 80, taker=1), "belote " + CARRE_PLAY)
    assert deal.result.teams[0].belote == 20
    assert deal.result.scores[0] == 100       # 97 -> 100
    # ffb: no choice
    assert A.BELOTE not in contract_deal("ffb", CARRE, 80, taker=1).legal_actions()


def test_ludiclub_gather_cut_deal_in_a_match():
    m = Match("ludiclub_coinche", dealer=3, seed=5)
    first = m.deal
    m.apply("80H")
    for _ in range(3):
        m.apply("pass")
    while m.deal is first:
        m.apply(finish_step(m.deal))
    assert len(m.deals) == 1 and m.winner is None
    pack = [c for _, c in first.plays]        # the 32 cards in the order played
    assert sorted(pack) == list(range(32))
    assert m.deal.dealer == 0
    cuts = cuts_matching(pack, m.deal.initial_hands, dealer=0)
    assert cuts and all(2 <= c <= 30 for c in cuts)


def finish_step(deal):
    legal_ = deal.legal_actions()
    for choice in (A.DECLARE, A.BELOTE):
        if choice in legal_:
            return choice
    return legal_[0]


@pytest.mark.parametrize("min_cut", [2, 3])
def test_gather_and_cut_bounds(min_cut):
    deal = play(contract_deal("ludiclub_contree", D80, 80), D80_PLAY)
    pack = [parse_card(t) for t in D80_PLAY.split()]
    assert [c for _, c in deal.plays] == pack
    rng = deal_stream(0)
    seen = set()
    for _ in range(3000):
        out = gather_and_cut(deal, rng, min_cut)
        c = pack.index(out[0])
        assert out == pack[c:] + pack[:c]
        seen.add(c)
    # each part holds at least min_cut cards: cut in [min_cut, 32 - min_cut]
    assert seen == set(range(min_cut, 33 - min_cut))


def test_ludiclub_min_cut_2_in_preset():
    assert get_rules("ludiclub_coinche").min_cut == 2
    assert get_rules("ludiclub_contree").min_cut == 2
    assert get_rules("ffb").min_cut == 3


def _void_pack(deal):
    """A void deal's cards gathered: the four hands, seat 0 to 3, each in increasing id."""
    return [c for s in range(4) for c in cards_of(deal.initial_hands[s])]


def test_ludiclub_reshuffle_after_four_void_deals():
    m = Match("ludiclub_contree", dealer=3, seed=7)
    rotated = []
    for k in range(9):
        prev = m.deal
        for _ in range(4):
            m.apply("pass")
        assert prev.is_void and m.deal is not prev
        pack = _void_pack(prev)
        cuts = cuts_matching(pack, m.deal.initial_hands, m.deal.dealer)
        rotated.append(bool(cuts))
        if cuts:
            assert all(2 <= c <= 30 for c in cuts)
    # after void deals 1-3 the cards are gathered and cut; after the 4th, a new shuffle;
    # the count restarts: 5-7 gathered, 8th shuffled, 9th gathered
    assert rotated == [True, True, True, False, True, True, True, False, True]


def test_ffb_void_deal_is_reshuffled():
    m = Match("ffb", dealer=3, seed=7)
    prev = m.deal
    for _ in range(4):
        m.apply("pass")
    assert not cuts_matching(_void_pack(prev), m.deal.initial_hands, m.deal.dealer)


# ==================================================================== colver
def test_colver_suits_only():
    deal = Deal("colver", hands=W, dealer=3)
    for a in ("80NT", "80AT", "capotNT", "capotAT"):
        assert not deal.is_legal(a), a
    assert deal.is_legal("80S") and deal.is_legal("capotC")
    with pytest.raises(ValueError):
        Deal("colver", hands=W, dealer=3).with_contract(80, NT, taker=0)


def test_colver_made_on_cards_plus_own_belote_even_if_defenders_have_more():
    deal = play(contract_deal("colver", D80, 80), D80_PLAY)
    r = deal.result
    assert card_points(deal) == (80, 82)
    assert r.made is True
    # takers 80 + 80 + 0 = 160; defenders 82 -> 80
    assert r.scores == (160, 80)


def test_colver_belote_counts_for_the_contract():
    # 110H: 98 + belote 20 = 118 >= 110: made; takers 98 + 110 + 20 = 228 -> 230
    deal = play(contract_deal("colver", W, 110), W_PLAY)
    assert deal.result.made is True
    assert raw(deal) == (228, 64)
    assert deal.result.scores == (230, 60)


def test_colver_made_not_coinched_defenders_keep_their_belote():
    # WB, 90H: takers 98 + 90 = 188 -> 190; defenders 64 + belote 20 = 84 -> 80
    deal = play(contract_deal("colver", WB, 90), WB_PLAY)
    r = deal.result
    assert card_points(deal) == (98, 64)
    assert r.made is True
    assert raw(deal) == (188, 84)
    assert r.scores == (190, 80)


def test_colver_failed_defenders_162_bid_every_belote_takers_0():
    # 120H: 98 + 20 = 118 < 120; takers 0 (their belote goes to the defenders);
    # defenders 162 + 120 + 20 = 302 -> 300
    deal = play(contract_deal("colver", W, 120), W_PLAY)
    r = deal.result
    assert r.made is False
    assert raw(deal) == (0, 302)
    assert r.scores == (0, 300)
    # WB, 100H: 98 < 100; defenders 162 + 100 + their belote 20 = 282 -> 280
    deal = play(contract_deal("colver", WB, 100), WB_PLAY)
    assert deal.result.made is False
    assert deal.result.scores == (0, 280)


def test_colver_coinched_made_162_bid_x2_every_belote_defenders_0():
    # WB, 90H coinched: takers 162 + 90 x 2 + the defenders' belote 20 = 362 -> 360
    deal = play(contract_deal("colver", WB, 90, coinche=1), WB_PLAY)
    r = deal.result
    assert r.made is True and r.multiplier == 2
    assert raw(deal) == (362, 0)
    assert r.scores == (360, 0)


def test_colver_surcoinched_made_x3():
    # WB, 90H surcoinched: 162 + 90 x 3 + 20 = 452 -> 450
    deal = play(Deal("colver", hands=WB, dealer=3), "90H coinche surcoinche")
    play(deal, WB_PLAY)
    r = deal.result
    assert r.multiplier == 3 and r.made is True
    assert raw(deal) == (452, 0)
    assert r.scores == (450, 0)


def test_colver_coinched_made_all_tricks_252():
    # GB, 80H coinched, seat 0 wins every trick: 252 + 80 x 2 + the defenders' belote 20
    # = 432 -> 430
    deal = play(contract_deal("colver", GB, 80, coinche=1), GB_PLAY)
    assert deal.tricks_won == (8, 0)
    assert raw(deal) == (432, 0)
    assert deal.result.scores == (430, 0)


def test_colver_capot_bid_not_coinched_500():
    # 252 + 250 = 502 -> 500; defenders their belote 20
    deal = play(contract_deal("colver", GB, CAPOT), GB_PLAY)
    assert deal.result.made is True
    assert raw(deal) == (502, 20)
    assert deal.result.scores == (500, 20)


def test_colver_failed_coinched_bid_x2():
    # W, 120H coinched: 162 + 120 x 2 + 20 = 422 -> 420
    deal = play(contract_deal("colver", W, 120, coinche=1), W_PLAY)
    assert deal.result.made is False
    assert raw(deal) == (0, 422)
    assert deal.result.scores == (0, 420)
    deal = play(contract_deal("colver", W, 120, coinche=2), W_PLAY)
    # 162 + 120 x 3 + 20 = 542 -> 540
    assert deal.result.scores == (0, 540)


def test_colver_rounding_halves_up():
    # CARRE, seat 1 takes 80H (no declarations in colver): 85 + 80 = 165 -> 170;
    # defenders 77 + 20 = 97 -> 100
    deal = play(contract_deal("colver", CARRE, 80, taker=1), CARRE_PLAY)
    assert deal.result.teams[1].declarations == 0
    assert raw(deal) == (97, 165)
    assert deal.result.scores == (100, 170)


def test_colver_match_to_2000_capot_team_wins_on_its_belote():
    # GB, 80H by seat 0 (not coinched): team 1 wins no trick and scores its belote 20
    deal = play(contract_deal("colver", GB, 80), GB_PLAY)
    assert deal.result.scores == (330, 20)    # 252 + 80 = 332 -> 330
    assert score_into_match([0, 1980], 0, deal) == ([330, 2000], 0, 1)
    assert score_into_match([0, 1970], 0, deal) == ([330, 1990], 0, None)
    # ffb: the team that was capot cannot win the match with its belote
    ffb = play(contract_deal("ffb", GB, 80), GB_PLAY)
    assert ffb.result.scores == (330, 20)
    assert score_into_match([0, 980], 0, ffb) == ([330, 1000], 0, None)


# =================================================================== classic
def test_classic_deal_from_deck_3_2_and_retourne():
    deck = list(range(32))
    deal = Deal("classic", deck=deck, dealer=3)
    # 3 cards each from seat 0 (deck[0:12]), then 2 each (deck[12:20]); deck[20] turned up
    assert deal.initial_hands == [sum(1 << c for c in cs) for cs in
                                  ([0, 1, 2, 12, 13], [3, 4, 5, 14, 15],
                                   [6, 7, 8, 16, 17], [9, 10, 11, 18, 19])]
    assert deal.retourne == 20
    assert deal.prise_round == 1
    assert deal.current_player == 0
    deal.apply("take")
    # the taker (seat 0) receives the retourne and deck[21:23]; the others 3 cards each
    assert deal.initial_hands == [sum(1 << c for c in cs) for cs in
                                  ([0, 1, 2, 12, 13, 20, 21, 22], [3, 4, 5, 14, 15, 23, 24, 25],
                                   [6, 7, 8, 16, 17, 26, 27, 28], [9, 10, 11, 18, 19, 29, 30, 31])]
    assert deal.contract.strain == D         # card 20 is the jack of diamonds
    assert deal.contract.taker == 0
    assert deal.current_player == 0          # the seat after the dealer leads


def test_classic_deal_dealer_1_round_2_taker_seat_3():
    deal = Deal("classic", deck=list(range(32)), dealer=1)
    # from seat 2: seat 2 deck[0:3] + deck[12:14], seat 3, seat 0, seat 1
    assert deal.initial_hands == [sum(1 << c for c in cs) for cs in
                                  ([6, 7, 8, 16, 17], [9, 10, 11, 18, 19],
                                   [0, 1, 2, 12, 13], [3, 4, 5, 14, 15])]
    assert deal.current_player == 2
    play(deal, "pass pass pass pass")
    assert deal.prise_round == 2
    play(deal, "pass nameS")                  # seat 3 names spades
    # distribution from seat 2: seat 2 deck[21:24], seat 3 the retourne + deck[24:26],
    # seat 0 deck[26:29], seat 1 deck[29:32]
    assert deal.initial_hands == [sum(1 << c for c in cs) for cs in
                                  ([6, 7, 8, 16, 17, 26, 27, 28], [9, 10, 11, 18, 19, 29, 30, 31],
                                   [0, 1, 2, 12, 13, 21, 22, 23], [3, 4, 5, 14, 15, 20, 24, 25])]
    c = deal.contract
    assert (c.strain, c.taker, c.value, c.coinche) == (S, 3, 0, 0)
    assert deal.current_player == 2


@pytest.mark.parametrize("preset", ["classic", "classic_declarations", "vip_classic"])
def test_classic_prise_round_1_take_or_pass_only(preset):
    deal = Deal(preset, deck=list(range(32)), dealer=3)      # retourne JD
    assert deal.legal_actions() == ids("pass", "take")
    for a in ("nameD", "nameS", "80D", "capotD", "coinche"):
        assert not deal.is_legal(a), a


@pytest.mark.parametrize("preset, extra", [("classic", ()), ("classic_declarations", ()),
                                           ("vip_classic", ("nameNT", "nameAT"))])
def test_classic_prise_round_2_names_another_strain(preset, extra):
    deal = play(Deal(preset, deck=list(range(32)), dealer=3), "pass pass pass pass")
    assert deal.prise_round == 2
    assert deal.legal_actions() == ids("pass", "nameS", "nameH", "nameC", *extra)
    assert not deal.is_legal("nameD") and not deal.is_legal("take")
    if preset != "vip_classic":
        assert not deal.is_legal("nameNT") and not deal.is_legal("nameAT")


def test_vip_classic_round_2_at_contract():
    deal = play(Deal("vip_classic", deck=list(range(32)), dealer=3), "pass pass pass pass pass nameAT")
    assert deal.contract.strain == AT and deal.contract.taker == 1
    assert deal.phase == "play"


def test_classic_void_after_8_passes():
    deal = play(Deal("classic", deck=list(range(32)), dealer=3), " ".join(["pass"] * 7))
    assert not deal.is_terminal
    deal.apply("pass")
    assert deal.is_void and deal.result.void and deal.scores == (0, 0)
    scores, pot, w = score_into_match([10, 20], 71, deal)
    assert (scores, pot, w) == ([10, 20], 71, None)           # the pot waits


def test_classic_must_undertrump():
    hands = ["AS KS QS JS 7D 8D 7C 8C", "JH 8H 7H AD TD KD AC TC",
             "QH TH 9D QD JD KC QC JC", "TS 9S 8S 7S 9H AH KH 9C"]
    deal = Deal("classic", deck=classic_deck(hands, "AS", 0), dealer=3).with_contract(0, H, taker=0)
    assert deal.initial_hands == [parse_hand(h) for h in hands]
    play(deal, "AS JH")                       # seat 1 trumps with the jack
    # seat 2: void in spades, cannot overtrump: must play a lower trump
    assert legal(deal) == cards("QH TH")
    ffb = play(contract_deal("ffb", hands, 80), "AS JH")
    assert legal(ffb) == cards(hands[2])


def test_classic_made_each_team_its_total_no_rounding():
    deal = Deal("classic", deck=classic_deck(W, "QH", 0), dealer=3)
    deal.apply("take")
    assert deal.initial_hands == [parse_hand(h) for h in W]
    play(deal, W_PLAY)
    r = deal.result
    # takers 98 + belote 20 = 118 > 64
    assert r.made is True and not r.litige
    assert (r.teams[0].total, r.teams[1].total) == (118, 64)
    assert r.scores == (118, 64)


def test_classic_dedans_takers_keep_their_belote():
    # WB: seat 1 takes hearts with 64 + belote 20 = 84 < 98
    deal = play(Deal("classic", deck=classic_deck(WB, "KH", 1), dealer=3), "pass take")
    play(deal, WB_PLAY)
    r = deal.result
    assert r.made is False and not r.litige
    # defenders 162 + no declarations + no belote; takers their belote 20
    assert r.scores == (162, 20)


def test_classic_dedans_defenders_belote():
    # W: seat 1 takes hearts with 64 < 98 + 20: defenders 162 + their belote 20 = 182
    deal = play(Deal("classic", deck=classic_deck(W, "AH", 1), dealer=3), "pass take")
    play(deal, W_PLAY)
    assert deal.result.made is False
    assert deal.result.scores == (182, 0)


def test_classic_dedans_takers_capot_252():
    # GB: seat 1 takes hearts, seat 0 wins every trick: 252; the takers keep their belote
    deal = play(Deal("classic", deck=classic_deck(GB, "TH", 1), dealer=3), "pass take")
    play(deal, GB_PLAY)
    r = deal.result
    assert deal.tricks_won == (8, 0)
    assert r.made is False
    assert r.scores == (252, 20)


def test_classic_litige():
    # TIE: seat 0 takes hearts: 71 + belote 20 = 91 = 91
    deal = play(Deal("classic", deck=classic_deck(TIE, "QH", 0), dealer=3), "take")
    play(deal, TIE_PLAY)
    r = deal.result
    assert (r.teams[0].total, r.teams[1].total) == (91, 91)
    assert r.litige is True and r.made is False
    # defenders their total 91; takers keep their belote 20; 71 held aside
    assert r.scores == (20, 91)
    assert r.litige_points == 71


def _tie_deal():
    return play(play(Deal("classic", deck=classic_deck(TIE, "QH", 0), dealer=3), "take"), TIE_PLAY)


def _w_deal():
    return play(play(Deal("classic", deck=classic_deck(W, "QH", 0), dealer=3), "take"), W_PLAY)


def _wb_dedans():
    return play(play(Deal("classic", deck=classic_deck(WB, "KH", 1), dealer=3), "pass take"), WB_PLAY)


def test_classic_litige_pot_goes_to_winner_of_next_deal():
    scores, pot, w = score_into_match([0, 0], 0, _tie_deal())
    assert (scores, pot, w) == ([20, 91], 71, None)
    # two litiges in a row accumulate
    scores, pot, w = score_into_match(scores, pot, _tie_deal())
    assert (scores, pot, w) == ([40, 182], 142, None)
    # made: the takers (team 0) take the pot: 40 + 118 + 142, 182 + 64
    assert score_into_match(scores, pot, _w_deal()) == ([300, 246], 0, None)
    # dedans: the defenders (team 0, seat 1 took) take it: 20 + 162 + 71, 91 + 20
    assert score_into_match([20, 91], 71, _wb_dedans()) == ([253, 111], 0, None)


def test_classic_litige_pot_in_a_match():
    m = Match("classic", dealer=2, seed=3)
    m.deal = Deal("classic", deck=classic_deck(TIE, "QH", 0), dealer=3)
    m.apply("take")
    for c in TIE_PLAY.split():
        m.apply(c)
    assert m.scores == [20, 91] and m.pot == 71 and m.winner is None
    assert m.deal.dealer == 0
    m.deal = Deal("classic", deck=classic_deck(W, "QH", 0), dealer=3)
    m.apply("take")
    for c in W_PLAY.split():
        m.apply(c)
    # W made by team 0: 20 + 118 + 71 = 209; 91 + 64 = 155
    assert m.scores == [209, 155] and m.pot == 0 and m.winner is None


def test_classic_dedans_team_can_win_match_on_its_belote():
    deal = _wb_dedans()                       # team 1 dedans, scores its belote 20
    assert score_into_match([0, 990], 0, deal) == ([162, 1010], 0, 1)
    # vip_classic target 501
    vip = play(play(Deal("vip_classic", deck=classic_deck(WB, "KH", 1), dealer=3), "pass take"),
               WB_PLAY)
    assert vip.result.scores == (162, 20)
    assert score_into_match([0, 481], 0, vip) == ([162, 501], 0, 1)
    assert score_into_match([0, 480], 0, vip) == ([162, 500], 0, None)


def test_classic_without_declarations_ignores_carre():
    # CARRE, seat 0 takes hearts: classic has no declarations: 77 + 20 = 97 > 85
    deal = play(Deal("classic", deck=classic_deck(CARRE, "KH", 0), dealer=3), "take")
    play(deal, CARRE_PLAY)
    r = deal.result
    assert r.made is True
    assert r.scores == (97, 85)


def test_classic_declarations_dedans_defenders_all_declarations():
    # CARRE, seat 0 takes: 97 < 85 + carré 100 = 185: defenders 162 + 100 = 262;
    # takers keep their belote 20
    deal = play(Deal("classic_declarations", deck=classic_deck(CARRE, "KH", 0), dealer=3), "take")
    play(deal, CARRE_PLAY)
    r = deal.result
    assert (r.teams[0].total, r.teams[1].total) == (97, 185)
    assert r.made is False
    assert r.scores == (20, 262)


def test_classic_declarations_made_with_declarations():
    # CARRE, seat 1 takes: 185 > 97: each team its total
    deal = play(Deal("classic_declarations", deck=classic_deck(CARRE, "AH", 1), dealer=3),
                "pass take")
    play(deal, CARRE_PLAY)
    r = deal.result
    assert r.made is True
    assert r.scores == (97, 185)


def test_classic_declarations_capot_team_loses_its_declarations():
    # G50: seat 0 takes hearts and wins every trick; seat 1's cinquante (50) won the
    # declarations but team 1 is capot: it loses them. Takers 252, defenders 0.
    deal = play(Deal("classic_declarations", deck=classic_deck(G50, "JH", 0), dealer=3), "take")
    assert deal.seat_declarations(1)[0] == 50
    play(deal, G50_PLAY)
    r = deal.result
    assert deal.tricks_won == (8, 0)
    assert r.made is True
    assert r.teams[1].declarations == 0
    assert r.scores == (252, 0)


def test_classic_declarations_capot_takers_lose_theirs_in_dedans():
    # G50, seat 1 takes hearts with its cinquante and wins no trick: dedans,
    # defenders 252 + no declarations (the capot takers lost theirs), takers 0
    deal = play(Deal("classic_declarations", deck=classic_deck(G50, "TH", 1), dealer=3),
                "pass take")
    play(deal, G50_PLAY)
    r = deal.result
    assert r.made is False
    assert r.teams[1].declarations == 0
    assert r.scores == (252, 0)


def test_vip_classic_at_points_14_9_6_5_3_1():
    deal = Deal("vip_classic", deck=classic_deck(ATV, "JS", 0), dealer=3)
    play(deal, "pass pass pass pass nameAT")
    assert deal.contract.strain == AT and deal.contract.taker == 0
    assert deal.initial_hands == [parse_hand(h) for h in ATV]
    play(deal, ATV_PLAY)
    r = deal.result
    assert card_points(deal) == (116, 46)
    assert r.made is True
    assert r.scores == (116, 46)
