"""RULES.md §5: declarations (annonces) and belote, through the public game API.

Each deal is written out in full (32 cards). The seats whose hands matter are noted;
the other hands were chosen to hold no declaration (the tests assert it). Contracts are
set with ``with_contract`` (dealer seat 3, so seat 0 leads); the first trick is played
with any legal cards, since declarations do not depend on the play.
"""

import pytest

from coinche_rl.cards import parse_hand
from scripted import AT, NT, C, D, H, S, deal_with, play, play_any









def resolved(deal):
    """Play the first trick and the first card of the second (the resolution point)."""
    return play_any(deal, 5)


def points(deal):
    return [deal.seat_declarations(s)[0] for s in range(4)]


def declared_cards(deal, seat):
    return deal.seat_declarations(seat)[1]


# ------------------------------------------------------------- single hands
# (hand of seat 0, its declaration points, the cards used); the other hands hold none.
SINGLE = {
    "tierce": (["7S 8S 9S JH KH 8D TD QC", "TS KS 7H 8H QH JD QD KC",
                "AS TH AH 7D KD AD 9C JC", "JS QS 9H 9D 7C 8C TC AC"],
               20, "7S 8S 9S"),
    "cinquante": (["7S 8S 9S TS KH 8D QC AC", "QS AS 8H QD AD 7C 9C JC",
                   "JS 7H JH TD JD KD 8C KC", "KS 9H TH QH AH 7D 9D TC"],
                  50, "7S 8S 9S TS"),
    "cent_5": (["7S 8S 9S TS JS KH 8D QC", "QS 7H 9H TH AH JD QD KC",
                "8H QH 7D 9D KD AD 9C JC", "KS AS JH TD 7C 8C TC AC"],
               100, "7S 8S 9S TS JS"),
    "cent_6": (["8S 9S TS JS QS KS 9D JC", "7S 8H TH JH AH JD QD KC",
                "9H KH 7D 8D KD AD 9C QC", "AS 7H QH TD 7C 8C TC AC"],
               100, "8S 9S TS JS QS KS"),
    "cent_7": (["7S 8S 9S TS JS QS KS 9C", "AS 9H JH QH 7D JD QD KC",
                "TH AH 8D 9D KD AD TC QC", "7H 8H KH TD 7C 8C JC AC"],
               100, "7S 8S 9S TS JS QS KS"),
    "run_8_cent_plus_tierce": (["7S 8S 9S TS JS QS KS AS", "8H AH JD QD 7C 8C JC KC",
                                "TH KH 8D KD AD 9C TC AC", "7H 9H JH QH 7D 9D TD QC"],
                               120, "7S 8S 9S TS JS QS KS AS"),
    "two_tierces": (["7S 8S 9S JD QD KD 9C JH", "TS KS 7H 8H QH 8D 9D KC",
                     "AS TH KH AH TD AD TC QC", "JS QS 9H 7D 7C 8C JC AC"],
                    40, "7S 8S 9S JD QD KD"),
    "cinquante_and_tierce": (["7S 8S 9S TS JD QD KD 9C", "QS TH 7D 8D AD 7C JC KC",
                              "AS 9H QH 9D TD 8C TC AC", "JS KS 7H 8H JH KH AH QC"],
                             70, "7S 8S 9S TS JD QD KD"),
    "carre_and_tierce": (["AS AH AD AC 7S 8S 9S JD", "JS TH 8D 9D KD 7C TC QC",
                          "KS 9H QH TD QD 8C 9C KC", "TS QS 7H 8H JH KH 7D JC"],
                         120, "AS AH AD AC 7S 8S 9S"),
    # the carré of kings takes KS out of the cent 9-K: carré 100 + cinquante 9-Q 50
    "carre_breaks_run_kings": (["9S TS JS QS KS KH KD KC", "7S 7H 9H TH AH TD JD QC",
                                "8H QH 7D 8D QD AD 9C JC", "8S AS JH 9D 7C 8C TC AC"],
                               150, "9S TS JS QS KS KH KD KC"),
    # carré of jacks 200 + tierce 8-9-10 20 (QS is left over) beats the cent 8-Q
    "carre_breaks_run_jacks": (["8S 9S TS JS QS JH JD JC", "7S 7H 9H TH AH TD QD KC",
                                "8H KH 7D 8D KD AD 9C QC", "KS AS QH 9D 7C 8C TC AC"],
                               220, "8S 9S TS JS JH JD JC"),
    "two_carres": (["JS JH JD JC 9S 9H 9D 9C", "8S 8H 7D 8D KD AD TC KC",
                    "QS 7H QH TD QD 7C 8C AC", "7S TS KS AS TH KH AH QC"],
                   350, "JS JH JD JC 9S 9H 9D 9C"),
    "cent_and_tierce_two_suits": (["7S 8S 9S TS JS 7H 8H 9H", "KS AH JD QD 7C 8C JC KC",
                                   "TH KH 8D KD AD 9C TC AC", "QS AS JH QH 7D 9D TD QC"],
                                  120, "7S 8S 9S TS JS 7H 8H 9H"),
    # sequences use the natural order 7 8 9 10 J Q K A, in trump too (hearts)
    "tierce_in_trump_natural_order": (["9H TH JH 7S QS 8D TD KC", "8S JS AS 7H KH JD QD QC",
                                       "KS QH AH 7D KD AD 9C JC", "9S TS 8H 9D 7C 8C TC AC"],
                                      20, "9H TH JH"),
    # a carré of 7s is nothing: it does not break the cent 7-J
    "carre_of_sevens_keeps_run": (["7S 8S 9S TS JS 7H 7D 7C", "QS 8H TH JH AH JD QD KC",
                                   "9H KH 8D 9D KD AD TC QC", "KS AS QH TD 8C 9C JC AC"],
                                  100, "7S 8S 9S TS JS"),
}


@pytest.mark.parametrize("name", list(SINGLE))
def test_declaration_values_and_declared_cards(name):
    hands, pts, used = SINGLE[name]
    deal = deal_with(hands)
    assert points(deal) == [pts, 0, 0, 0]
    assert declared_cards(deal, 0) == parse_hand(used)
    resolved(deal)
    assert deal.declaration_winner == 0
    assert deal.team_declarations == (pts, 0)


def test_tierce_worth_20():
    assert points(deal_with(SINGLE["tierce"][0]))[0] == 20


def test_cinquante_worth_50():
    assert points(deal_with(SINGLE["cinquante"][0]))[0] == 50


@pytest.mark.parametrize("name", ["cent_5", "cent_6", "cent_7"])
def test_cent_five_or_more_in_sequence_worth_100(name):
    assert points(deal_with(SINGLE[name][0]))[0] == 100


def test_eight_card_run_is_cent_plus_tierce_120():
    deal = deal_with(SINGLE["run_8_cent_plus_tierce"][0])
    assert deal.seat_declarations(0) == (120, parse_hand("7S 8S 9S TS JS QS KS AS"))


def test_carre_takes_card_out_of_run_when_it_scores_more():
    assert deal_with(SINGLE["carre_breaks_run_kings"][0]).seat_declarations(0) == \
        (150, parse_hand("9S TS JS QS KS KH KD KC"))
    assert deal_with(SINGLE["carre_breaks_run_jacks"][0]).seat_declarations(0) == \
        (220, parse_hand("8S 9S TS JS JH JD JC"))


def test_no_sequence_wraps_from_ace_to_seven():
    # K-A and 7-8 of spades are not a run: the ace is the top of the order
    hands = ["7S 8S KS AS 9H JH 9D JD", "TS QH TD QD 7C 8C JC KC",
             "QS TH AH KD AD 9C TC AC", "9S JS 7H 8H KH 7D 8D QC"]
    deal = deal_with(hands)
    assert points(deal) == [0, 0, 0, 0]
    resolved(deal)
    assert deal.declared == [False] * 4
    assert deal.declaration_winner is None
    assert deal.team_declarations == (0, 0)


# ----------------------------------------------------------------- carrés
CARRE_HANDS = {
    "7": ["7S 7H 7D 7C QS AH QD AC", "9S JS KS AS 9H 9D TD 8C",
          "TS 8H TH KH 8D TC JC KC", "8S JH QH JD KD AD 9C QC"],
    "8": ["8S 8H 8D 8C QS AH QD AC", "7S 7H 9H KH TD AD JC QC",
          "TS JS KS AS QH 7C 9C TC", "9S TH JH 7D 9D JD KD KC"],
    "9": ["9S 9H 9D 9C QS AH QD AC", "7S 7H 8H KH TD AD JC QC",
          "TS JS KS AS QH 7C 8C TC", "8S TH JH 7D 8D JD KD KC"],
    "T": ["TS TH TD TC QS AH QD AC", "8S 9S AS 7H 7D 8D 8C KC",
          "7S JS KS 8H KH KD JC QC", "9H JH QH 9D JD AD 7C 9C"],
    "J": ["JS JH JD JC 7S 9H 7D 9C", "9S 8H 8D 9D KD AD TC KC",
          "QS 7H QH TD QD 7C 8C AC", "8S TS KS AS TH KH AH QC"],
    "Q": ["QS QH QD QC 7S 9H 7D 9C", "8S 7H 8H AH TD AD JC KC",
          "TS JS KS AS KH 7C 8C TC", "9S TH JH 8D 9D JD KD AC"],
    "K": ["KS KH KD KC 7S 9H 7D 9C", "8S JS AS 7H JH 9D TD QC",
          "QS TH QH AH JD QD 8C JC", "9S TS 8H 8D AD 7C TC AC"],
    "A": ["AS AH AD AC 7S 9H 7D 9C", "QS 8H TH QH TD KD 7C 8C",
          "8S TS JS KS KH 9D TC QC", "9S 7H JH 8D JD QD JC KC"],
}
#: carré points by rank: suit contracts and AT / NT (RULES.md §5 table)
CARRE_SUIT = {"7": 0, "8": 0, "9": 150, "T": 100, "J": 200, "Q": 100, "K": 100, "A": 100}
CARRE_NT = {"7": 0, "8": 0, "9": 100, "T": 150, "J": 100, "Q": 100, "K": 100, "A": 200}


@pytest.mark.parametrize("rank", list(CARRE_HANDS))
@pytest.mark.parametrize("rules, strain, table", [("ffb", H, CARRE_SUIT),
                                                  ("ffb", C, CARRE_SUIT),
                                                  ("ffb_sa_ta", AT, CARRE_SUIT),
                                                  ("ffb_sa_ta", NT, CARRE_NT)])
def test_carre_values(rank, rules, strain, table):
    deal = deal_with(CARRE_HANDS[rank], strain, rules)
    pts = table[rank]
    assert points(deal) == [pts, 0, 0, 0]
    cards_used = parse_hand(" ".join(rank + s for s in "SHDC")) if pts else 0
    assert declared_cards(deal, 0) == cards_used
    play_any(deal, 1)
    assert deal.declared[0] is bool(pts)
    play_any(deal, 4)
    assert deal.declarations_resolved
    assert deal.declaration_winner == (0 if pts else None)
    assert deal.team_declarations == (pts, 0)


def test_carre_of_jacks_200_nines_150_suit_contract():
    assert points(deal_with(CARRE_HANDS["J"]))[0] == 200
    assert points(deal_with(CARRE_HANDS["9"]))[0] == 150


def test_carre_nt_aces_200_tens_150():
    assert points(deal_with(CARRE_HANDS["A"], NT, "ffb_sa_ta"))[0] == 200
    assert points(deal_with(CARRE_HANDS["T"], NT, "ffb_sa_ta"))[0] == 150
    assert points(deal_with(CARRE_HANDS["J"], NT, "ffb_sa_ta"))[0] == 100


def test_carre_of_sevens_and_eights_is_no_declaration():
    hands = ["8S 8H 8D 8C JS AH TD QC", "7S 7H 7D 7C QS JH 9D KC",
             "KS 9H KH JD KD 9C TC AC", "9S TS AS TH QH QD AD JC"]
    deal = deal_with(hands)
    assert points(deal) == [0, 0, 0, 0]
    play_any(deal, 4)
    assert deal.declared == [False, False, False, False]
    play_any(deal, 1)
    assert deal.declarations_resolved
    assert deal.declaration_winner is None
    assert deal.team_declarations == (0, 0)


# ------------------------------------------------------------------ ranking
def ranking(hands, strain=H, rules="ffb"):
    deal = deal_with(hands, strain, rules)
    resolved(deal)
    return deal.declaration_winner, deal.team_declarations


def test_carre_100_beats_cent_even_in_trump():
    # seat 0 carré of queens (100), seat 1 cent 7-J of hearts (trump)
    hands = ["QS QH QD QC 7S 9S 7D AC", "7H 8H 9H TH JH 8S TS KD",
             "AS AH TD JD 7C 9C TC KC", "JS KS KH 8D 9D AD 8C JC"]
    assert points(deal_with(hands)) == [100, 100, 0, 0]
    assert ranking(hands) == (0, (100, 0))


def test_best_single_declaration_not_total_decides():
    # seat 0 carré of queens (100) beats seat 1's cent + tierce (120 in all)
    hands = ["QS QH QD QC AS 7D 9D 7C", "7H 8H 9H TH JH 7S 8S 9S",
             "JS KS KH 8D AD 8C 9C KC", "TS AH TD JD KD TC JC AC"]
    assert points(deal_with(hands)) == [100, 120, 0, 0]
    assert ranking(hands) == (0, (100, 0))


def test_carre_jacks_200_beats_carre_nines_150():
    hands = ["9S 9H 9D 9C QS AH QD AC", "JS JH JD JC 7S 7H 7D KC",
             "TS KS AS 8H QH 8D KD AD", "8S TH KH TD 7C 8C TC QC"]
    assert ranking(hands) == (1, (0, 200))


def test_equal_carres_by_rank_aces_beat_tens():
    hands = ["TS TH TD TC 7S 7H 8D 8C", "AS AH AD AC 8S 9H QD JC",
             "QS 8H KH 7D JD 7C 9C KC", "9S JS KS JH QH 9D KD QC"]
    assert points(deal_with(hands)) == [100, 100, 0, 0]
    assert ranking(hands) == (1, (0, 100))


def test_equal_carres_by_rank_kings_beat_queens():
    hands = ["KS KH KD KC 7S 9H 7D 9C", "QS QH QD QC 8S TH 8D TC",
             "TS JS AS 8H TD JD AD JC", "9S 7H JH AH 9D 7C 8C AC"]
    assert points(deal_with(hands)) == [100, 100, 0, 0]
    assert ranking(hands) == (0, (100, 0))


JACKS_VS_KINGS = ["JS JH JD JC 7S 9H 7D 9C", "KS KH KD KC 8S TH 8D TC",
                  "TS QS AS 8H TD QD AD QC", "9S 7H QH AH 9D 7C 8C AC"]


def test_carre_jacks_beat_kings_in_suit_contract():
    assert ranking(JACKS_VS_KINGS, H) == (0, (200, 0))


def test_carre_nt_kings_beat_jacks_equal_points_by_rank():
    assert ranking(JACKS_VS_KINGS, NT, "ffb_sa_ta") == (1, (0, 100))


NINES_VS_TENS = ["9S 9H 9D 9C QS AH QD AC", "TS TH TD TC 7S 7H 7D KC",
                 "JS KS AS 8H QH 8D KD AD", "8S JH KH JD 7C 8C JC QC"]


def test_carre_nines_beat_tens_in_suit_contract():
    assert ranking(NINES_VS_TENS, H) == (0, (150, 0))


def test_carre_nt_tens_150_beat_nines_100():
    assert ranking(NINES_VS_TENS, NT, "ffb_sa_ta") == (1, (0, 150))


ACES_VS_JACKS = ["AS AH AD AC 7S 9H 7D 9C", "JS JH JD JC 8S 8H TD QC",
                 "QS 7H KH 8D QD 7C 8C KC", "9S TS KS TH QH 9D KD TC"]


def test_carre_nt_aces_200_beat_jacks():
    assert ranking(ACES_VS_JACKS, NT, "ffb_sa_ta") == (0, (200, 0))


def test_carre_jacks_200_beat_aces_in_suit_and_at():
    assert ranking(ACES_VS_JACKS, H) == (1, (0, 200))
    assert ranking(ACES_VS_JACKS, AT, "ffb_sa_ta") == (1, (0, 200))


@pytest.mark.parametrize("hands, strain, rules, expected", [
    # 10 beats king (both 100 at a suit contract); at NT the tens are worth 150
    (["TS TH TD TC 7S 7H 8D 8C", "KS KH KD KC 8S 9H QD JC",
      "JS QS AS JH 9D JD AD QC", "9S 8H QH AH 7D 7C 9C AC"], H, "ffb", (0, (100, 0))),
    (["TS TH TD TC 7S 7H 8D 8C", "KS KH KD KC 8S 9H QD JC",
      "JS QS AS JH 9D JD AD QC", "9S 8H QH AH 7D 7C 9C AC"], NT, "ffb_sa_ta", (0, (150, 0))),
    # queen beats jack at NT (both 100); at a suit contract the jacks are worth 200
    (["QS QH QD QC 8S TH 8D TC", "JS JH JD JC 7S 9H 7D 9C",
      "TS KS AS 8H TD KD AD KC", "9S 7H KH AH 9D 7C 8C AC"], NT, "ffb_sa_ta", (0, (100, 0))),
    (["QS QH QD QC 8S TH 8D TC", "JS JH JD JC 7S 9H 7D 9C",
      "TS KS AS 8H TD KD AD KC", "9S 7H KH AH 9D 7C 8C AC"], H, "ffb", (1, (0, 200))),
    # jack beats nine at NT (both 100)
    (["9S 9H 9D 9C QS AH QD AC", "JS JH JD JC 7S 7H 7D KC",
      "TS KS AS 8H QH 8D KD AD", "8S TH KH TD 7C 8C TC QC"], NT, "ffb_sa_ta", (1, (0, 100))),
])
def test_equal_carres_by_plain_rank_a_10_k_q_j_9(hands, strain, rules, expected):
    assert ranking(hands, strain, rules) == expected


def test_longer_sequence_wins_over_higher_top_card_and_trump():
    # seat 0 cinquante 8-J of diamonds; seat 1 tierce Q-K-A of hearts (trump)
    hands = ["8D 9D TD JD 7S KS 7C 9H", "QH KH AH 8S TS 8C TC QC",
             "JS QS AS 7H TH 7D KD AD", "9S 8H JH QD 9C JC KC AC"]
    assert points(deal_with(hands)) == [50, 20, 0, 0]
    assert ranking(hands) == (0, (50, 0))


def test_longer_cent_wins_over_shorter_cent_to_ace_in_trump():
    # seat 0 six cards 8-K of spades; seat 1 five cards 10-A of hearts (trump)
    hands = ["8S 9S TS JS QS KS 7D 9C", "TH JH QH KH AH 7S 8D 7C",
             "AS 7H 9D QD 8C TC JC KC", "8H 9H TD JD KD AD QC AC"]
    assert points(deal_with(hands)) == [100, 100, 0, 0]
    assert ranking(hands) == (0, (100, 0))


def test_same_length_higher_top_card_wins_over_trump():
    # seat 0 tierce 10-Q of hearts (trump), seat 1 tierce J-K of spades
    hands = ["TH JH QH 7S 9S 7D 9D 7C", "JS QS KS 8H 8D TD 8C TC",
             "TS AS 7H KH KD AD 9C KC", "8S 9H AH JD QD JC QC AC"]
    assert ranking(hands) == (1, (0, 20))


EQUAL_TIERCES = ["JS QS KS 7H 9H 7D 9D 7C", "JH QH KH 8S TS 8D TD 8C",
                 "7S 9S 8H AH JD QD TC KC", "AS TH KD AD 9C JC QC AC"]


@pytest.mark.parametrize("strain, expected", [
    (S, (0, (20, 0))),        # seat 0's tierce to K is in trump
    (H, (1, (0, 20))),        # seat 1's tierce to K is in trump
    (D, (None, (0, 0))),      # neither: tie, nobody scores
    (C, (None, (0, 0))),
])
def test_equal_sequences_trump_wins_else_tie(strain, expected):
    assert ranking(EQUAL_TIERCES, strain) == expected


def test_full_tie_nobody_scores_even_with_other_declarations():
    # seat 0 tierce J-K spades, seat 1 tierce J-K diamonds (hearts trump): tie;
    # seat 2's tierce 7-9 of clubs does not count either
    hands = ["JS QS KS 7H 9H 8D TD AC", "JD QD KD 8S TS 8H TH QC",
             "7S AS JH KH 9D 7C 8C 9C", "9S QH AH 7D AD TC JC KC"]
    deal = deal_with(hands)
    assert points(deal) == [20, 20, 20, 0]
    play_any(deal, 4)
    assert deal.declared == [True, True, True, False]
    play_any(deal, 1)
    assert deal.declarations_resolved
    assert deal.declaration_winner is None
    assert deal.team_declarations == (0, 0)


def test_winning_team_scores_all_declarations_including_weaker_ones():
    # team 0: seat 0 cinquante J-A clubs, seat 2 tierce Q-A hearts;
    # team 1: seat 1 cinquante 10-K spades (stronger than seat 2's tierce)
    hands = ["JC QC KC AC 7S 9S 8D TD", "TS JS QS KS 7H 9H JD KD",
             "8S QH KH AH 7D 9D 7C 9C", "AS 8H TH JH QD AD 8C TC"]
    deal = deal_with(hands, D)
    assert points(deal) == [50, 50, 20, 0]
    resolved(deal)
    assert deal.declaration_winner == 0
    assert deal.team_declarations == (70, 0)


def test_partners_best_declaration_wins_for_the_team():
    # seat 2 (team 0) has the best declaration: the tierce to K of spades beats
    # seat 1's tierce to Q; seat 0 has nothing
    hands = ["7S 9S 8H AH JD QD TC KC", "TH JH QH 7D 9D 8C JC AC",
             "JS QS KS 7H 9H 8D TD 7C", "8S TS AS KH KD AD 9C QC"]
    deal = deal_with(hands, C)
    assert points(deal) == [0, 20, 20, 0]
    resolved(deal)
    assert deal.declaration_winner == 0
    assert deal.team_declarations == (20, 0)


# ----------------------------------------------------- declaring and timing
def test_declarations_made_during_first_trick_resolved_at_first_card_of_trick_two():
    hands = ["QS QH QD QC 7S 9S 7D AC", "7H 8H 9H TH JH 8S TS KD",
             "AS AH TD JD 7C 9C TC KC", "JS KS KH 8D 9D AD 8C JC"]
    deal = deal_with(hands)
    assert deal.declared == [False] * 4
    assert not deal.declarations_resolved
    assert deal.declaration_winner is None
    play_any(deal, 1)
    assert deal.declared == [True, False, False, False]
    play_any(deal, 1)
    assert deal.declared == [True, True, False, False]
    play_any(deal, 2)
    assert deal.trick_winners and len(deal.trick_winners) == 1
    assert deal.declared == [True, True, False, False]
    assert not deal.declarations_resolved
    assert deal.team_declarations == (0, 0)
    play_any(deal, 1)                       # first card of trick 2
    assert deal.declarations_resolved
    assert deal.declaration_winner == 0
    assert deal.team_declarations == (100, 0)


def test_declared_cards_of_each_seat():
    hands = ["JC QC KC AC 7S 9S 8D TD", "TS JS QS KS 7H 9H JD KD",
             "8S QH KH AH 7D 9D 7C 9C", "AS 8H TH JH QD AD 8C TC"]
    deal = deal_with(hands, D)
    assert [declared_cards(deal, s) for s in range(4)] == [
        parse_hand("JC QC KC AC"), parse_hand("TS JS QS KS"), parse_hand("QH KH AH"), 0]


# ---------------------------------------------- declarations in the result
# Seat 1 holds the carré of aces (100); hearts; the play is hand-checked in
# test_scoring.py (team 0 77 card points with the belote, team 1 85).
CARRE_DEAL = ["KH QH TS QS 7D JD 7C 9C", "AH 7H AS 8S AD KD AC QC",
              "JH 9H KS 9S TD 9D 8C JC", "TH 8H 7S JS 8D QD TC KC"]
CARRE_PLAY = ("TS AS KS 7S  KD 9D QD JD  AC 8C TC 7C  QC JC KC 9C  "
              "8D 7D AD TD  8S 9S JS QS  QH AH 9H TH  JH 8H KH 7H")


def test_result_breakdown_shows_declarations_and_belote():
    deal = play(deal_with(CARRE_DEAL, H, taker=1, value=160), CARRE_PLAY)
    r = deal.result
    assert (r.teams[0].declarations, r.teams[1].declarations) == (0, 100)
    assert (r.teams[0].belote, r.teams[1].belote) == (20, 0)
    assert (r.teams[0].total, r.teams[1].total) == (77 + 20, 85 + 100)


# ------------------------------------------------------------------ belote
# Worked-example deal: seat 0 holds KH QH; KS/QS, KD/QD, KC/QC are split between
# partners (seats 2/0, 1/3, 3/1).
W = ["KH QH TS QS AD JD 7C 9C", "AH 7H AS 8S 7D KD AC QC",
     "JH 9H KS 9S TD 9D 8C JC", "TH 8H 7S JS 8D QD TC KC"]
W_PLAY = ("TS AS KS 7S  KD 9D QD JD  AC 8C TC 7C  QC JC KC 9C  "
          "8D AD 7D TD  QS 8S 9S JS  QH AH 9H TH  JH 8H KH 7H")


@pytest.mark.parametrize("strain, expected", [(S, (0, 0)), (H, (20, 0)), (D, (0, 0)),
                                              (C, (0, 0))])
def test_belote_is_king_and_queen_of_trump_in_one_hand(strain, expected):
    # K+Q of a non-trump suit, or K and Q of trump held by two partners: no belote
    assert deal_with(W, strain).team_belote == expected


def test_belote_scores_20_for_its_team():
    deal = play(deal_with(W, H, value=100), W_PLAY)
    r = deal.result
    assert (r.teams[0].belote, r.teams[1].belote) == (20, 0)


def test_no_belote_at_nt():
    assert deal_with(W, NT, "ffb_sa_ta").team_belote == (0, 0)


def test_several_belotes_at_at():
    hands = ["KS QS KH QH 7D 9D 7C 9C", "KD QD 7S 9S 7H 9H AC 8C",
             "TS JS AS TH TD JD AD QC", "8S 8H JH AH 8D TC JC KC"]
    assert deal_with(hands, AT, "ffb_sa_ta").team_belote == (40, 20)
    assert deal_with(hands, H, "ffb_sa_ta").team_belote == (20, 0)
    assert deal_with(hands, D, "ffb_sa_ta").team_belote == (0, 20)


def test_four_belotes_at_at_80():
    hands = ["KS QS KH QH KD QD KC QC", "7S TS AS 7H TH 8D 9D JC",
             "JS 9H JH AH TD JD 8C TC", "8S 9S 8H 7D AD 7C 9C AC"]
    assert deal_with(hands, AT, "ffb_sa_ta").team_belote == (80, 0)


def test_belote_imprenable_kept_by_failing_takers():
    # 120H: takers total 98 + 20 = 118 < 120, failed; they keep the belote
    deal = play(deal_with(W, H, value=120), W_PLAY)
    r = deal.result
    assert r.made is False
    assert r.teams[0].belote == 20
    assert r.scores == (20, 160 + 120)


def test_belote_imprenable_kept_by_team_that_is_capot():
    # seat 3 holds KH QH; seat 0 takes all 8 tricks; seat 1's tierce 7-9 of
    # spades goes to the takers with the capot
    hands = ["JH 9H AS TS AD TD AC TC", "AH 7H 7S 8S 9S 8D QD 8C",
             "TH 8H JS KD 9D 7D KC 7C", "KH QH KS QS JD QC JC 9C"]
    cards = ("JH 7H 8H QH  9H AH TH KH  AS 7S JS QS  TS 8S 7D KS  "
             "AD 8D 9D JD  TD QD KD 9C  AC 8C 7C JC  TC 9S KC QC")
    deal = play(deal_with(hands, H), cards)
    assert deal.tricks_won == (8, 0)
    r = deal.result
    assert r.made is True
    assert (r.teams[0].belote, r.teams[1].belote) == (0, 20)
    # takers 252 + 80 + 20 (defenders' tierce) = 352 -> 350; defenders their belote
    assert r.scores == (350, 20)
