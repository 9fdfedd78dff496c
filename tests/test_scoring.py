"""RULES.md §7-§9: deal scoring and the end of a match.

Each deal below is written out in full with the order in which its 32 cards are played;
the card points of every trick were counted by hand (hearts trump: J 20, 9 14, A 11,
10 10, K 4, Q 3; other suits A 11, 10 10, K 4, Q 3, J 2). Dealer is seat 3, so seat 0
leads the first trick. Expected scores are computed by hand from §8.
"""

import numpy as np
import pytest

from coinche_rl import engine as E
from coinche_rl.game import Deal, IllegalActionError, Match
from scripted import H, play

CAPOT = 250




def contract_deal(hands, cards, value, taker=0, coinche=0, strain=H, rules="ffb"):
    deal = Deal(rules, hands=hands, dealer=3).with_contract(value, strain, taker=taker,
                                                             coinche=coinche)
    return play(deal, cards)


# --------------------------------------------------------------------- deals
# W: the worked example of §8. Seat 0 holds KH QH (belote). No declarations.
#   t1 TS AS KS 7S -> seat 1 (25)   t2 KD 9D QD JD -> seat 1 (9)
#   t3 AC 8C TC 7C -> seat 1 (21)   t4 QC JC KC 9C -> seat 3 (9)
#   t5 8D AD 7D TD -> seat 0 (21)   t6 QS 8S 9S JS -> seat 0 (5)
#   t7 QH AH 9H TH -> seat 2 (38)   t8 JH 8H KH 7H -> seat 2 (24 + 10)
#   team 0: 21 + 5 + 38 + 34 = 98;  team 1: 25 + 9 + 21 + 9 = 64
W = ["KH QH TS QS AD JD 7C 9C", "AH 7H AS 8S 7D KD AC QC",
     "JH 9H KS 9S TD 9D 8C JC", "TH 8H 7S JS 8D QD TC KC"]
W_PLAY = ("TS AS KS 7S  KD 9D QD JD  AC 8C TC 7C  QC JC KC 9C  "
          "8D AD 7D TD  QS 8S 9S JS  QH AH 9H TH  JH 8H KH 7H")

# R85: W with AD and 8D swapped between seats 0 and 3: trick 5 (21) goes to seat 3.
#   team 0: 5 + 38 + 34 = 77 (+ belote 20 = 97);  team 1: 64 + 21 = 85
R85 = ["KH QH TS QS 8D JD 7C 9C", "AH 7H AS 8S 7D KD AC QC",
       "JH 9H KS 9S TD 9D 8C JC", "TH 8H 7S JS AD QD TC KC"]
R85_PLAY = ("TS AS KS 7S  KD 9D QD JD  AC 8C TC 7C  QC JC KC 9C  "
            "AD 8D 7D TD  JS QS 8S 9S  QH AH 9H TH  JH 8H KH 7H")

# R84: R85 with KS and QS swapped between seats 0 and 2: trick 1 is AS TS QS 7S (24),
# trick 6 JS KS 8S 9S (6). team 0: 6 + 38 + 34 = 78 (+ 20 = 98); team 1: 84
R84 = ["KH QH TS KS 8D JD 7C 9C", "AH 7H AS 8S 7D KD AC QC",
       "JH 9H QS 9S TD 9D 8C JC", "TH 8H 7S JS AD QD TC KC"]
R84_PLAY = ("TS AS QS 7S  KD 9D QD JD  AC 8C TC 7C  QC JC KC 9C  "
            "AD 8D 7D TD  JS KS 8S 9S  QH AH 9H TH  JH 8H KH 7H")

# TIE: seat 1 takes; seat 0 holds KH QH.
#   t1 TS AS 7S 8S -> seat 1 (21)   t2 JS 9S KS QS -> seat 3 (9)
#   t3 AC 7C QC 8C -> seat 3 (14)   t4 QD JD KD 9D -> seat 1 (9)
#   t5 8H JH 7H KH -> seat 2 (24)   t6 AH TH QH 9H -> seat 1 (38)
#   t7 8D AD TD 7D -> seat 2 (21)   t8 JC 9C TC KC -> seat 0 (16 + 10)
#   team 0: 24 + 21 + 26 = 71 (+ belote 20 = 91);  team 1: 21 + 9 + 14 + 9 + 38 = 91
TIE = ["KH QH TS QS 7D JD TC 7C", "9H 8H AS JS 8D KD KC QC",
       "JH AH 7S 9S AD 9D JC 8C", "TH 7H 8S KS TD QD 9C AC"]
TIE_PLAY = ("TS AS 7S 8S  JS 9S KS QS  AC 7C QC 8C  QD JD KD 9D  "
            "8H JH 7H KH  AH TH QH 9H  8D AD TD 7D  JC 9C TC KC")

# CAP: seat 0 wins all 8 tricks; seat 1 holds a tierce 7-8-9 of spades (20).
CAP = ["JH 9H AS TS AD TD AC TC", "AH 7H 7S 8S 9S 8D QD 8C",
       "KH 8H JS KD 9D 7D KC 7C", "TH QH KS QS JD QC JC 9C"]
CAP_PLAY = ("JH 7H 8H QH  9H AH KH TH  AS 7S JS QS  TS 8S 7D KS  "
            "AD 8D 9D JD  TD QD KD 9C  AC 8C 7C JC  TC 9S KC QC")

# SEVEN: CAP with TS and KS swapped (seats 0 and 3): seat 3 wins trick 4
# (KS 8S 7D TS = 14); seat 1's tierce 7-9 of spades (20) stays.
#   team 0: JH 7H 8H QH 23 + 9H AH KH TH 39 + AS 7S JS QS 16 + JD AD 8D 9D 13
#           + TD QD KD 9C 17 + AC 8C 7C JC 13 + TC 9S KC QC 17 + 10 = 148
SEVEN = ["JH 9H AS KS AD TD AC TC", "AH 7H 7S 8S 9S 8D QD 8C",
         "KH 8H JS KD 9D 7D KC 7C", "TH QH TS QS JD QC JC 9C"]
SEVEN_PLAY = ("JH 7H 8H QH  9H AH KH TH  AS 7S JS QS  KS 8S 7D TS  "
              "JD AD 8D 9D  TD QD KD 9C  AC 8C 7C JC  TC 9S KC QC")

# CARRE: W with AD and 7D swapped (seats 0 and 1): seat 1 holds the carré of aces
# (100) and wins trick 5 (8D 7D AD TD = 21). team 0: 77 (+ belote 20); team 1: 85.
CARRE = ["KH QH TS QS 7D JD 7C 9C", "AH 7H AS 8S AD KD AC QC",
         "JH 9H KS 9S TD 9D 8C JC", "TH 8H 7S JS 8D QD TC KC"]
CARRE_PLAY = ("TS AS KS 7S  KD 9D QD JD  AC 8C TC 7C  QC JC KC 9C  "
              "8D 7D AD TD  8S 9S JS QS  QH AH 9H TH  JH 8H KH 7H")


def breakdown(deal):
    r = deal.result
    return {
        "card_points": (r.teams[0].card_points, r.teams[1].card_points),
        "belote": (r.teams[0].belote, r.teams[1].belote),
        "declarations": (r.teams[0].declarations, r.teams[1].declarations),
        "total": (r.teams[0].total, r.teams[1].total),
        "raw": (r.teams[0].raw_score, r.teams[1].raw_score),
        "scores": r.scores,
    }


# --------------------------------------------------------- worked example
def test_worked_example_100_hearts_220_60():
    deal = Deal("ffb", hands=W, dealer=3)
    play(deal, "100H pass pass pass")
    play(deal, W_PLAY)
    r = deal.result
    assert r.made is True
    assert r.multiplier == 1
    assert not r.void
    assert breakdown(deal) == {
        "card_points": (98, 64), "belote": (20, 0), "declarations": (0, 0),
        "total": (118, 64), "raw": (218, 64), "scores": (220, 60)}
    assert deal.scores == (220, 60)


# ------------------------------------------------------- made / failed, x1
def test_made_not_coinched_takers_total_plus_bid_defenders_total():
    deal = contract_deal(W, W_PLAY, 110)     # 118 >= 110 and 118 > 64
    assert deal.result.made is True
    assert breakdown(deal)["raw"] == (118 + 110, 64)
    assert deal.result.scores == (230, 60)


def test_failed_not_coinched_takers_under_bid():
    deal = contract_deal(W, W_PLAY, 120)     # 118 < 120
    r = deal.result
    assert r.made is False
    assert breakdown(deal)["raw"] == (20, 160 + 120)   # takers keep their belote
    assert r.scores == (20, 280)


def test_failed_contract_defenders_belote_added():
    # seat 1 takes 80H with 64 card points: failed; the defenders (team 0) score
    # 160 + their belote 20 + 80
    deal = contract_deal(W, W_PLAY, 80, taker=1)
    r = deal.result
    assert r.made is False
    assert breakdown(deal)["raw"] == (160 + 20 + 80, 0)
    assert r.scores == (260, 0)


def test_made_condition_2_takers_total_must_exceed_defenders():
    # seat 1 takes 90H: 91 >= 90 but the defenders also have 91 (71 + belote 20)
    deal = Deal("ffb", hands=TIE, dealer=3)
    play(deal, "pass 90H pass pass pass")
    play(deal, TIE_PLAY)
    r = deal.result
    assert breakdown(deal)["total"] == (91, 91)
    assert r.made is False
    assert r.scores == (160 + 20 + 90, 0)


def test_made_condition_2_defenders_declarations_count():
    # team 0 takes 80H: 77 + 20 = 97 >= 80, but team 1 has 85 + carré of aces 100
    deal = contract_deal(CARRE, CARRE_PLAY, 80)
    r = deal.result
    assert breakdown(deal)["total"] == (97, 185)
    assert r.made is False
    # defenders: 160 + their declarations 100 + 80; takers their belote
    assert r.scores == (20, 340)


def test_made_thanks_to_declarations():
    # team 1 takes 160H with 85 card points + carré of aces 100 = 185
    deal = contract_deal(CARRE, CARRE_PLAY, 160, taker=1)
    r = deal.result
    assert r.made is True
    # takers 85 + 100 + 160 = 345 -> 350; defenders 77 + 20 = 97 -> 100
    assert breakdown(deal)["raw"] == (97, 345)
    assert r.scores == (100, 350)


def test_made_not_coinched_defenders_keep_their_declarations():
    # team 0 takes 80H with 148; the defenders' tierce (20) stays with them
    deal = contract_deal(SEVEN, SEVEN_PLAY, 80)
    r = deal.result
    assert deal.tricks_won == (7, 1)
    assert r.made is True
    assert breakdown(deal)["card_points"] == (148, 14)
    assert breakdown(deal)["raw"] == (148 + 80, 14 + 20)
    assert r.scores == (230, 30)


# -------------------------------------------------- coinche / surcoinche
def test_coinched_made_x2():
    deal = Deal("ffb", hands=W, dealer=3)
    play(deal, "100H coinche pass pass pass")
    play(deal, W_PLAY)
    r = deal.result
    assert r.made is True and r.multiplier == 2
    # (160 + 0 + belote 20 + 0 + 100) x 2; defenders only their belote (none)
    assert r.scores == (560, 0)


def test_surcoinched_made_x4():
    deal = Deal("ffb", hands=W, dealer=3)
    play(deal, "100H coinche surcoinche")
    play(deal, W_PLAY)
    r = deal.result
    assert r.made is True and r.multiplier == 4
    assert r.scores == ((160 + 20 + 100) * 4, 0)


def test_coinched_failed_x2():
    deal = contract_deal(W, W_PLAY, 120, coinche=1)
    r = deal.result
    assert r.made is False and r.multiplier == 2
    assert r.scores == (20, (160 + 120) * 2)


def test_surcoinched_failed_x4():
    deal = contract_deal(W, W_PLAY, 120, coinche=2)
    r = deal.result
    assert r.made is False and r.multiplier == 4
    assert r.scores == (20, (160 + 120) * 4)


def test_coinched_failed_defenders_belote_multiplied():
    deal = contract_deal(W, W_PLAY, 80, taker=1, coinche=1)
    assert deal.result.scores == ((160 + 20 + 80) * 2, 0)


def test_coinched_made_takers_declarations_and_defenders_keep_only_belote():
    # team 1 takes 160H coinched with the carré of aces; team 0 keeps its belote
    deal = contract_deal(CARRE, CARRE_PLAY, 160, taker=1, coinche=1)
    r = deal.result
    assert r.made is True
    assert r.scores == (20, (160 + 100 + 0 + 0 + 160) * 2)


def test_surcoinched_made_takers_declarations():
    deal = contract_deal(CARRE, CARRE_PLAY, 160, taker=1, coinche=2)
    assert deal.result.scores == (20, (160 + 100 + 160) * 4)


def test_coinched_made_defenders_declarations_go_to_takers():
    deal = contract_deal(SEVEN, SEVEN_PLAY, 80, coinche=1)
    r = deal.result
    assert r.made is True
    # (160 + 0 + 0 + defenders' tierce 20 + 80) x 2; defenders: no belote
    assert r.scores == (520, 0)


# ----------------------------------------------------------------- capot
def test_capot_bid_made():
    deal = contract_deal(CAP, CAP_PLAY, CAPOT)
    r = deal.result
    assert deal.contract.capot is True
    assert r.made is True
    # 252 + 250 + the defenders' tierce 20 = 522 -> 520
    assert breakdown(deal)["raw"] == (522, 0)
    assert r.scores == (520, 0)


def test_capot_bid_made_via_auction():
    deal = Deal("ffb", hands=CAP, dealer=3)
    play(deal, "capotH pass pass pass")
    play(deal, CAP_PLAY)
    assert deal.result.made is True
    assert deal.result.scores == (520, 0)


def test_capot_bid_coinched_made():
    deal = contract_deal(CAP, CAP_PLAY, CAPOT, coinche=1)
    # B = 250 (all 8 tricks) + 20 + 250, x2
    assert deal.result.scores == ((250 + 20 + 250) * 2, 0)


def test_capot_bid_failed_even_with_most_points():
    # seat 0 bids capot with the worked-example cards: 4 tricks only
    deal = contract_deal(W, W_PLAY, CAPOT)
    r = deal.result
    assert r.made is False
    assert r.scores == (20, 160 + 250)


def test_capot_bid_failed_takers_declarations_go_to_defenders():
    deal = contract_deal(CARRE, CARRE_PLAY, CAPOT, taker=1)
    r = deal.result
    assert r.made is False
    # defenders: 160 + 0 + belote 20 + takers' carré 100 + 250
    assert r.scores == (530, 0)


def test_capot_realised_not_bid_defenders_declarations_change_hands():
    deal = contract_deal(CAP, CAP_PLAY, 80)
    r = deal.result
    assert r.made is True
    assert breakdown(deal)["card_points"] == (252, 0)
    assert deal.declaration_winner == 1
    # the made conditions use each team's own declarations (before the change of hands)
    assert breakdown(deal)["total"] == (252, 20)
    # takers 252 + 80 + defenders' tierce 20 = 352 -> 350; defenders 0
    assert breakdown(deal)["raw"] == (352, 0)
    assert r.scores == (350, 0)


def test_capot_realised_not_bid_coinched_b_is_250():
    deal = contract_deal(CAP, CAP_PLAY, 80, coinche=1)
    assert deal.result.scores == ((250 + 20 + 80) * 2, 0)


def test_takers_capot_by_defenders_failed():
    # seat 1 takes 80H and loses every trick; takers' tierce goes to the defenders
    deal = contract_deal(CAP, CAP_PLAY, 80, taker=1)
    r = deal.result
    assert r.made is False
    assert r.scores == (160 + 20 + 80, 0)


# -------------------------------------------------------------- rounding
def test_rounding_85_up_to_90():
    deal = contract_deal(R85, R85_PLAY, 80)
    r = deal.result
    assert breakdown(deal)["card_points"] == (77, 85)
    assert r.made is True
    # takers 77 + 20 + 80 = 177 -> 180; defenders 85 -> 90
    assert breakdown(deal)["raw"] == (177, 85)
    assert r.scores == (180, 90)


def test_rounding_84_down_to_80():
    deal = contract_deal(R84, R84_PLAY, 80)
    r = deal.result
    assert breakdown(deal)["card_points"] == (78, 84)
    assert breakdown(deal)["raw"] == (178, 84)
    assert r.scores == (180, 80)


def test_conditions_use_unrounded_totals():
    # R85: takers 97 is not rounded up to 100 for a 100 bid
    deal = contract_deal(R85, R85_PLAY, 100)
    r = deal.result
    assert breakdown(deal)["total"] == (97, 85)
    assert r.made is False
    assert r.scores == (20, 260)


# ----------------------------------------------------------------- match
def winner(totals, taker_team, made, tricks0, tricks1, target=1000, belote_cannot_win=1):
    return int(E.match_winner(np.array(totals, dtype=np.int64), target, taker_team, made,
                              tricks0, tricks1, belote_cannot_win))


def test_match_winner_without_the_belote_rule():
    """belote_cannot_win=False (colver, classic): a failing team over the target wins."""
    assert winner([1010, 500], 0, 0, 0, 8) == -1
    assert winner([1010, 500], 0, 0, 0, 8, belote_cannot_win=0) == 0


def test_match_winner_one_team_over_target():
    assert winner([1010, 500], 0, 1, 5, 3) == 0
    assert winner([500, 1000], 0, 0, 3, 5) == 1
    assert winner([990, 990], 0, 1, 5, 3) == -1


def test_match_winner_both_over_higher_wins():
    assert winner([1100, 1050], 1, 1, 2, 6) == 0
    assert winner([1020, 1060], 0, 1, 6, 2) == 1


def test_match_winner_both_over_equal_play_on():
    assert winner([1050, 1050], 0, 1, 5, 3) == -1


def test_match_winner_failed_takers_cannot_win_with_belote():
    # team 0 failed (scored only its belote) and is over the target: play on
    assert winner([1005, 900], 0, 0, 3, 5) == -1
    # ... unless the other team is over the target too: it wins
    assert winner([1010, 1200], 0, 0, 3, 5) == 1


def test_match_winner_capot_team_cannot_win_with_belote():
    assert winner([900, 1010], 0, 1, 8, 0) == -1


def hand_built_match(scores, target=1000):
    m = Match("ffb", target=target, dealer=3, seed=0)
    m.scores = list(scores)
    m.deal = Deal(m.rules, hands=W, dealer=3)
    return m


def test_match_ends_when_team_reaches_target():
    m = hand_built_match([0, 0], target=200)
    for a in "100H pass pass pass".split() + W_PLAY.split():
        m.apply(a)
    assert m.scores == [220, 60]
    assert m.is_terminal and m.winner == 0
    with pytest.raises(IllegalActionError):
        m.apply("pass")


def test_match_both_over_target_higher_wins():
    m = hand_built_match([800, 1000])
    for a in "100H pass pass pass".split() + W_PLAY.split():
        m.apply(a)
    assert m.scores == [1020, 1060]
    assert m.winner == 1


def test_match_both_over_target_equal_play_on():
    m = hand_built_match([840, 1000])
    for a in "100H pass pass pass".split() + W_PLAY.split():
        m.apply(a)
    assert m.scores == [1060, 1060]
    assert m.winner is None and not m.is_terminal
    assert len(m.deals) == 1
    assert m.deal.dealer == 0 and m.deal.phase == "auction"


def test_match_failed_team_cannot_win_thanks_to_belote_alone():
    m = hand_built_match([990, 0])
    for a in "120H pass pass pass".split() + W_PLAY.split():
        m.apply(a)
    assert m.scores == [1010, 280]      # team 0 failed, scored its belote 20
    assert m.winner is None
    assert m.deal.dealer == 0


def test_match_capot_team_cannot_win_thanks_to_belote_alone():
    # seat 3 holds KH QH; team 1 is capot and scores only its belote
    hands = ["JH 9H AS TS AD TD AC TC", "AH 7H 7S 8S 9S 8D QD 8C",
             "TH 8H JS KD 9D 7D KC 7C", "KH QH KS QS JD QC JC 9C"]
    cards = ("JH 7H 8H QH  9H AH TH KH  AS 7S JS QS  TS 8S 7D KS  "
             "AD 8D 9D JD  TD QD KD 9C  AC 8C 7C JC  TC 9S KC QC")
    m = Match("ffb", target=1000, dealer=3, seed=0)
    m.scores = [0, 990]
    m.deal = Deal(m.rules, hands=hands, dealer=3)
    for a in "80H pass pass pass".split() + cards.split():
        m.apply(a)
    assert m.scores == [350, 1010]
    assert m.winner is None


def test_match_void_deal_next_dealer_no_points():
    m = Match("ffb", target=1000, dealer=2, seed=5)
    for _ in range(4):
        m.apply("pass")
    assert m.scores == [0, 0]
    assert len(m.deals) == 1 and m.deals[0].is_void
    assert m.deal.dealer == 3
    assert m.current_player == 0
