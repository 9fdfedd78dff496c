"""RULES.md §6-§7: card play, trick winners, dix de der and capot.

Hand-built positions: the contract is set with ``with_contract`` (dealer seat 3, so seat
0 leads) and a few cards are played; the expected legal cards are written by hand.
Hearts (strain 1) is trump unless stated otherwise.
"""

import pytest

from coinche_rl.game import Deal, IllegalPlayError
from coinche_rl.rules import get_rules
from scripted import AT, NT, H, cards, deal_with, legal, play











# --- position PA: spades led, seat 1 follows, seat 2 void in spades with trumps
PA = ["AS KS QS 7D 8D 9D 7C 8C",
      "TS 7S 9H 8H AD TD AC TC",
      "JH AH TH KH QH KD QD KC",
      "JS 9S 8S 7H JD JC 9C QC"]
# --- PB: seat 1 void in spades with trumps (must trump), seat 2 must overtrump
PB = ["AS KS QS JS 7D 8D 7C 8C",
      "QH 8H 7H AD TD KD AC TC",
      "KH TH 9D QD JD KC QC JC",
      "TS 9S 8S 7S JH 9H AH 9C"]
# --- PC: seat 1 trumps with the jack, seat 2 cannot overtrump
PC = ["AS KS QS JS 7D 8D 7C 8C",
      "JH 8H 7H AD TD KD AC TC",
      "QH TH 9D QD JD KC QC JC",
      "TS 9S 8S 7S 9H AH KH 9C"]
# --- PD: seat 1 void in spades and without trumps; seat 2 holds all the trumps
PD = ["AS KS QS JS 7D 8D 7C 8C",
      "9D TD AD KD AC TC KC QC",
      "JH 9H AH TH KH QH 8H 7H",
      "TS 9S 8S 7S QD JD JC 9C"]
# --- PE: seat 1 trumps, seat 3 (his partner) void with higher trumps
PE = ["AS KS QS JS 7D 8D 7C 8C",
      "8H AD TD KD AC TC KC QC",
      "TS 9S 8S 7S QD JD JC 9C",
      "JH 9H AH TH KH QH 7H 9D"]
# --- PF: trump led by seat 0 (king), partner seat 2 holds higher trumps
PF = ["KH AS KS QS JS 7D 8D 7C",
      "8H 7H AD TD KD AC TC KC",
      "AH 9H QH TS 9S 8S 7S 8C",
      "JH TH QD JD 9D QC JC 9C"]
# --- PG: trump led by seat 0 (king), seat 1 must play the ace, seat 2 the nine
PG = ["KH JH AS KS QS JS 7D 8D",
      "AH 7H AD TD KD AC TC KC",
      "9H QH TS 9S 8S 7S 8C 9C",
      "TH 8H 7C QD JD 9D QC JC"]
# --- PX: used at AT and NT (preset ffb_sa_ta)
PX = ["KS QH 7D 8D 9D 7C 8C 9C",
      "7S 8S AD TD KD AC TC KC",
      "AS QS JH 9H AH TH KH 8H",
      "JS 9S TS 7H QD JD QC JC"]


# ------------------------------------------------------------------ leaders
@pytest.mark.parametrize("dealer, leader", [(3, 0), (0, 1), (1, 2), (2, 3)])
def test_seat_after_dealer_leads_first_trick(dealer, leader):
    deal = Deal("ffb", hands=PA, dealer=dealer)
    deal.apply("80H")
    for _ in range(3):
        deal.apply("pass")
    assert deal.phase == "play"
    assert deal.current_player == leader
    assert deal.trick_number == 0


def test_seat_after_dealer_leads_even_if_another_seat_took():
    deal = Deal("ffb", hands=PA, dealer=1)        # seat 2 speaks and leads
    for a in ["pass", "pass", "80H", "pass", "pass", "pass"]:   # seat 0 takes
        deal.apply(a)
    assert deal.contract.taker == 0
    assert deal.current_player == 2


def test_trick_winner_leads_next_trick():
    deal = play(deal_with(PB), "AS QH KH 7S")      # seat 2 wins with KH
    assert deal.trick_winners == [2]
    assert deal.trick_number == 1
    assert deal.current_player == 2
    assert deal.current_trick == []


# ------------------------------------------------------------- following suit
def test_must_follow_led_suit_any_card_of_it_even_lower():
    deal = play(deal_with(PA), "AS")
    assert legal(deal) == cards("TS 7S")           # not the trumps, not AD


def test_void_partner_master_may_play_any_card():
    deal = play(deal_with(PA), "AS 7S")            # seat 0 (partner of 2) master
    assert legal(deal) == cards(PA[2])             # trumps or discards


def test_holding_led_suit_must_follow_even_with_trumps():
    deal = play(deal_with(PA), "AS 7S KD")
    assert legal(deal) == cards("JS 9S 8S")        # seat 3 holds 7H but follows


def test_follow_in_side_suit_no_obligation_to_beat():
    deal = play(deal_with(PA), "KS")
    assert legal(deal) == cards("TS 7S")


# ---------------------------------------------------------------- trumping
def test_void_partner_not_master_must_trump_any_trump_when_no_trump_in_trick():
    deal = play(deal_with(PB), "AS")
    assert legal(deal) == cards("QH 8H 7H")


def test_void_partner_not_master_must_trump_after_side_suit_overtaken():
    # in plain order 10 beats king: seat 1's TS takes over seat 0's KS, so seat 2
    # (void in spades) is not covered by his partner and must trump
    deal = play(deal_with(PA), "KS TS")
    assert legal(deal) == cards("JH AH TH KH QH")


def test_void_opponent_trumped_must_overtrump_if_able():
    deal = play(deal_with(PB), "AS QH")
    assert legal(deal) == cards("KH TH")           # both beat the queen


def test_void_opponent_trumped_low_must_overtrump_with_any_higher_trump():
    deal = play(deal_with(PB), "AS 8H")
    assert legal(deal) == cards("KH TH")


def test_void_opponent_trumped_cannot_overtrump_any_card_ffb():
    deal = play(deal_with(PC), "AS JH")
    assert legal(deal) == cards(PC[2])             # no obligation to under-trump


def test_void_opponent_trumped_cannot_overtrump_must_undertrump_option():
    rules = get_rules("ffb", must_undertrump=True)
    deal = play(deal_with(PC, rules=rules), "AS JH")
    assert legal(deal) == cards("QH TH")


def test_must_undertrump_option_still_requires_overtrump_when_able():
    rules = get_rules("ffb", must_undertrump=True)
    deal = play(deal_with(PB, rules=rules), "AS QH")
    assert legal(deal) == cards("KH TH")


def test_void_without_trumps_any_card():
    deal = play(deal_with(PD), "AS")
    assert legal(deal) == cards(PD[1])


def test_void_partner_master_by_trump_no_need_to_overtrump():
    deal = play(deal_with(PE), "AS")
    assert legal(deal) == cards("8H")              # seat 1 must trump
    play(deal, "8H")
    assert legal(deal) == cards("TS 9S 8S 7S")     # seat 2 follows suit
    play(deal, "7S")
    assert legal(deal) == cards(PE[3])             # seat 3: partner master
    play(deal, "9D")
    assert deal.trick_winners == [1]               # the 8 of trump beats the ace


def test_trump_led_and_void_in_trump_without_trumps_any_card():
    deal = Deal("ffb", hands=PD, dealer=1).with_contract(80, H, taker=2)
    play(deal, "JH")                               # seat 2 leads trump
    assert legal(deal) == cards(PD[3])
    play(deal, "QD")
    assert legal(deal) == cards(PD[0])


# ------------------------------------------------------------ trump led
def test_trump_led_cannot_overtrump_plays_any_trump():
    deal = play(deal_with(PF), "KH")
    assert legal(deal) == cards("8H 7H")


def test_trump_led_must_overtrump_even_over_partner():
    deal = play(deal_with(PF), "KH 8H")            # seat 0 (partner) master
    assert legal(deal) == cards("AH 9H")           # not QH, not side cards


def test_trump_led_overtrump_partner_false_partner_master_any_trump():
    rules = get_rules("ffb", overtrump_partner=False)
    deal = play(deal_with(PF, rules=rules), "KH 8H")
    assert legal(deal) == cards("AH 9H QH")


def test_trump_led_must_beat_highest_trump_in_trick():
    deal = play(deal_with(PF), "KH 8H 9H")
    assert legal(deal) == cards("JH")              # TH is below the nine
    play(deal, "JH")
    assert deal.trick_winners == [3]


def test_trump_led_opponent_master_must_overtrump():
    deal = play(deal_with(PG), "KH")
    assert legal(deal) == cards("AH")
    play(deal, "AH")
    assert legal(deal) == cards("9H")


def test_trump_led_overtrump_partner_false_opponent_master_still_must_overtrump():
    rules = get_rules("ffb", overtrump_partner=False)
    deal = play(deal_with(PG, rules=rules), "KH AH")
    assert legal(deal) == cards("9H")


def test_trump_order_nine_beats_ace_beats_king():
    deal = play(deal_with(PG), "KH AH 9H")
    assert legal(deal) == cards("TH 8H")           # cannot beat the nine
    play(deal, "8H")
    assert deal.trick_winners == [2]
    # KH 4 + AH 11 + 9H 14 + 8H 0
    assert deal.card_points_won == (29, 0)


# ------------------------------------------------------------ trick winners
def test_lowest_trump_beats_side_ace():
    deal = play(deal_with(PE), "AS 8H 7S 9D")
    assert deal.trick_winners == [1]
    assert deal.card_points_won == (0, 11)         # AS 11, others 0


def test_highest_trump_wins_trick():
    deal = play(deal_with(PB), "AS QH KH 7S")
    assert deal.trick_winners == [2]
    assert deal.card_points_won == (18, 0)         # AS 11 + QH 3 + KH 4 + 7S 0


def test_no_trump_played_highest_of_led_suit_wins_off_suit_never():
    # plain order: queen beats jack; the off-suit king of diamonds cannot win
    deal = play(deal_with(PA), "QS 7S KD JS")
    assert deal.trick_winners == [0]
    assert deal.card_points_won == (9, 0)          # QS 3 + KD 4 + JS 2


def test_ten_beats_king_in_side_suit():
    deal = play(deal_with(PA), "KS TS QH 9S")
    assert deal.trick_winners == [2]               # trumped by seat 2
    assert deal.card_points_won == (17, 0)         # KS 4 + TS 10 + QH 3


# ---------------------------------------------------------------------- AT
def test_at_must_follow_and_beat_partner():
    deal = play(deal_with(PX, AT, "ffb_sa_ta"), "KS")
    assert legal(deal) == cards("7S 8S")           # cannot beat: any spade
    play(deal, "7S")
    assert legal(deal) == cards("AS")              # must beat partner's king
    play(deal, "AS")
    assert legal(deal) == cards("JS 9S")           # J and 9 beat the ace at AT
    play(deal, "9S")
    assert deal.trick_winners == [3]
    assert deal.card_points_won == (0, 18)         # AT: K 3 + 7 0 + A 6 + 9 9


def test_at_void_any_card_and_only_led_suit_wins():
    deal = play(deal_with(PX, AT, "ffb_sa_ta"), "KS 7S AS 9S")
    play(deal, "7H")                               # seat 3 leads
    assert legal(deal) == cards("QH")
    play(deal, "QH")
    assert legal(deal) == cards("8S AD TD KD AC TC KC")   # void: any card
    play(deal, "AD")
    assert legal(deal) == cards("JH 9H AH TH KH")  # must beat QH, not 8H
    play(deal, "KH")
    assert deal.trick_winners == [3, 2]            # AD (void) cannot win


# ---------------------------------------------------------------------- NT
def test_nt_must_follow_no_obligation_to_beat():
    deal = play(deal_with(PX, NT, "ffb_sa_ta"), "KS")
    assert legal(deal) == cards("7S 8S")
    play(deal, "7S")
    assert legal(deal) == cards("AS QS")           # partner's king: any spade
    play(deal, "QS")
    assert legal(deal) == cards("JS 9S TS")
    play(deal, "TS")
    assert deal.trick_winners == [3]               # NT: 10 beats king
    assert deal.card_points_won == (0, 17)         # NT: K 4 + Q 3 + 10 10


def test_nt_void_any_card_and_only_led_suit_wins():
    deal = play(deal_with(PX, NT, "ffb_sa_ta"), "KS 7S QS TS")
    play(deal, "7H")
    assert legal(deal) == cards("QH")
    play(deal, "QH")
    assert legal(deal) == cards("8S AD TD KD AC TC KC")
    play(deal, "AD")
    assert legal(deal) == cards("JH 9H AH TH KH 8H")  # follow, any heart
    play(deal, "8H")
    assert deal.trick_winners == [3, 0]            # QH wins, not the off-suit ace
    assert deal.card_points_won == (22, 17)        # NT: Q 3 + A 19


# ----------------------------------------------------------- illegal cards
def assert_play_rejected(deal, card):
    state, history = deal.state.copy(), deal.history
    with pytest.raises(IllegalPlayError) as info:
        deal.apply(card)
    msg = str(info.value)
    assert f"'{card}'" in msg
    legal_texts = set(msg.split("legal: ", 1)[1].split(", "))
    assert legal_texts == set(legal(deal).split())
    assert (deal.state == state).all()
    assert deal.history == history


def test_illegal_card_not_in_hand():
    deal = deal_with(PA)
    assert_play_rejected(deal, "7H")
    assert_play_rejected(deal, "JH")
    assert issubclass(IllegalPlayError, ValueError)


def test_illegal_card_not_following_suit():
    deal = play(deal_with(PA), "AS")
    assert_play_rejected(deal, "AD")
    assert_play_rejected(deal, "9H")


def test_illegal_card_not_trumping_or_not_overtrumping():
    deal = play(deal_with(PB), "AS")
    assert_play_rejected(deal, "AD")               # must trump
    play(deal, "QH")
    assert_play_rejected(deal, "9D")               # must overtrump
    assert_play_rejected(deal, "KS")               # not in hand


def test_illegal_undertrump_when_trump_led_and_able_to_overtrump():
    deal = play(deal_with(PF), "KH 8H")
    assert_play_rejected(deal, "QH")


# ------------------------------------------------- full deals: dix de der, capot
# Worked-example deal of RULES.md §8 (see test_scoring.py): hearts, seat 0 takes.
W = ["KH QH TS QS AD JD 7C 9C", "AH 7H AS 8S 7D KD AC QC",
     "JH 9H KS 9S TD 9D 8C JC", "TH 8H 7S JS 8D QD TC KC"]
W_PLAY = ("TS AS KS 7S  KD 9D QD JD  AC 8C TC 7C  QC JC KC 9C  "
          "8D AD 7D TD  QS 8S 9S JS  QH AH 9H TH  JH 8H KH 7H")
# Capot deal: seat 0 wins all 8 tricks.
CAPOT = ["JH 9H AS TS AD TD AC TC", "AH 7H 7S 8S 9S 8D QD 8C",
         "KH 8H JS KD 9D 7D KC 7C", "TH QH KS QS JD QC JC 9C"]
CAPOT_PLAY = ("JH 7H 8H QH  9H AH KH TH  AS 7S JS QS  TS 8S 7D KS  "
              "AD 8D 9D JD  TD QD KD 9C  AC 8C 7C JC  TC 9S KC QC")


def test_last_trick_worth_dix_de_der_10():
    deal = deal_with(W, value=100)
    cards_ = W_PLAY.split()
    play(deal, " ".join(cards_[:28]))
    # tricks 1-4 to team 1: 25 + 9 + 21 + 9; tricks 5-7 to team 0: 21 + 5 + 38
    assert deal.card_points_won == (64, 64)
    play(deal, " ".join(cards_[28:]))
    assert deal.trick_winners == [1, 1, 1, 3, 0, 0, 2, 2]
    # last trick JH 20 + KH 4 = 24, plus 10
    assert deal.card_points_won == (98, 64)
    r = deal.result
    assert (r.teams[0].dix_de_der, r.teams[1].dix_de_der) == (10, 0)
    assert (r.teams[0].card_points, r.teams[1].card_points) == (98, 64)


def test_capot_card_points_252_with_dix_de_der_100():
    deal = play(deal_with(CAPOT), CAPOT_PLAY)
    assert deal.trick_winners == [0] * 8
    assert deal.tricks_won == (8, 0)
    r = deal.result
    assert (r.teams[0].card_points, r.teams[1].card_points) == (252, 0)
    assert (r.teams[0].dix_de_der, r.teams[1].dix_de_der) == (100, 0)


def test_no_card_after_deal_over():
    deal = play(deal_with(CAPOT), CAPOT_PLAY)
    assert deal.is_terminal
    assert deal.legal_actions() == []
    assert deal.legal_cards() == 0
