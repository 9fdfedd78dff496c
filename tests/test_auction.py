"""RULES.md §4: the auction of the coinche family, through the public game API.

Every test uses the same hand-built deal (the auction does not depend on the cards) with
dealer seat 3, so seat 0 speaks first. Expected legal-action sets are written out by
hand from the rule text.
"""

import pytest

from coinche_rl.actions import action_to_str, parse_action
from coinche_rl.game import Contract, Deal, IllegalActionError, IllegalBidError
from coinche_rl.rules import get_rules

HANDS = ["JH 9H AH TH KS QS 7D 8D", "JS 9S AS TS KH QH 7C 8C",
         "JD 9D AD TD KC QC 7H 8H", "JC 9C AC TC KD QD 7S 8S"]

SUITS = ("S", "H", "D", "C")


def new_deal(rules="ffb", dealer=3):
    return Deal(rules, hands=HANDS, dealer=dealer)


def run(deal, actions):
    for a in actions.split():
        deal.apply(a)
    return deal


def legal(deal):
    """Legal actions as a set of texts."""
    return {action_to_str(a) for a in deal.legal_actions()}


def bids(values, strains=SUITS):
    return {f"{v}{s}" for v in values for s in strains}


def capots(strains=SUITS):
    return {f"capot{s}" for s in strains}


def assert_rejected(deal, action):
    """Applying ``action`` raises IllegalBidError naming it and the legal actions,
    and leaves the deal exactly as it was."""
    state, history, expected_legal = deal.state.copy(), deal.history, legal(deal)
    with pytest.raises(IllegalBidError) as info:
        deal.apply(action)
    assert isinstance(info.value, ValueError)
    msg = str(info.value)
    assert f"'{action}'" in msg
    assert "legal: " in msg
    assert set(msg.split("legal: ", 1)[1].split(", ")) == expected_legal
    assert (deal.state == state).all()
    assert deal.history == history
    assert deal.phase == "auction"


# ------------------------------------------------------------------ who speaks
@pytest.mark.parametrize("dealer, first", [(3, 0), (0, 1), (1, 2), (2, 3)])
def test_seat_after_dealer_speaks_first(dealer, first):
    deal = new_deal(dealer=dealer)
    assert deal.phase == "auction"
    assert deal.current_player == first


def test_turn_passes_to_next_seat():
    deal = new_deal()
    seats = []
    for a in ["pass", "80H", "pass", "90S"]:
        seats.append(deal.current_player)
        deal.apply(a)
    assert seats == [0, 1, 2, 3]
    assert deal.current_player == 0


# ------------------------------------------------------------------ bid ladder
def test_opening_actions_are_pass_bids_80_to_160_and_capot_in_four_suits():
    deal = new_deal()
    assert legal(deal) == {"pass"} | bids(range(80, 170, 10)) | capots()
    assert len(deal.legal_actions()) == 1 + 9 * 4 + 4


def test_bid_must_be_higher_than_current_bid():
    deal = run(new_deal(), "100H")
    assert legal(deal) == {"pass", "coinche"} | bids(range(110, 170, 10)) | capots()
    assert_rejected(deal, "90C")
    assert_rejected(deal, "80H")


def test_strain_does_not_rank_same_value_other_strain_is_not_higher():
    deal = run(new_deal(), "100C")
    # clubs are not "below" spades or hearts: only the value counts
    for strain in ("S", "H", "D", "C"):
        assert_rejected(deal, f"100{strain}")
    deal.apply("110C")          # any strain at a higher value is fine
    assert deal.highest_bid == (110, 3, 1)


def test_bid_above_max_160_is_illegal():
    deal = new_deal()
    assert_rejected(deal, "170H")
    assert_rejected(deal, "180S")
    deal.apply("160H")
    # after 160 only capot can still be bid
    assert legal(deal) == {"pass", "coinche"} | capots()


def test_min_bid_is_80():
    deal = new_deal()
    lowest = min(int(a[:-1]) for a in legal(deal) if a[0].isdigit())
    assert lowest == 80


def test_custom_max_bid_override_limits_bids():
    deal = new_deal(get_rules("ffb", max_bid=120))
    assert legal(deal) == {"pass"} | bids(range(80, 130, 10)) | capots()
    assert_rejected(deal, "130H")


def test_nt_and_at_bids_illegal_in_ffb():
    deal = new_deal("ffb")
    assert_rejected(deal, "100NT")
    assert_rejected(deal, "100AT")
    assert_rejected(deal, "capotNT")
    assert_rejected(deal, "capotAT")


def test_nt_and_at_bids_legal_with_ffb_sa_ta():
    deal = new_deal("ffb_sa_ta")
    six = ("S", "H", "D", "C", "NT", "AT")
    assert legal(deal) == {"pass"} | bids(range(80, 170, 10), six) | capots(six)
    run(deal, "90NT pass pass pass")
    assert deal.contract == Contract(90, 4, False, 0, 0)


def test_at_contract_with_ffb_sa_ta():
    deal = run(new_deal("ffb_sa_ta"), "80H 100AT pass pass pass")
    assert deal.contract == Contract(100, 5, False, 0, 1)


# --------------------------------------------------------------------- capot
def test_capot_outranks_a_160_bid():
    deal = run(new_deal(), "160S")
    assert "capotH" in legal(deal)
    deal.apply("capotH")
    assert deal.highest_bid == (250, 1, 1)


def test_after_capot_opponents_may_only_pass_or_coinche():
    deal = run(new_deal(), "80S capotH")         # seat 1 bids capot
    assert deal.current_player == 2               # an opponent of seat 1
    assert legal(deal) == {"pass", "coinche"}
    assert_rejected(deal, "160S")
    assert_rejected(deal, "capotS")


def test_after_capot_partner_of_capot_bidder_may_only_pass():
    deal = run(new_deal(), "80S capotH pass")     # seat 3 is seat 1's partner
    assert deal.current_player == 3
    assert legal(deal) == {"pass"}
    assert_rejected(deal, "coinche")
    assert_rejected(deal, "capotD")


def test_capot_contract_fields():
    deal = run(new_deal(), "capotD pass pass pass")
    c = deal.contract
    assert (c.value, c.strain, c.capot, c.coinche, c.taker) == (250, 2, True, 0, 0)


def test_coinched_capot_can_be_surcoinched():
    deal = run(new_deal(), "capotS coinche")
    assert deal.current_player == 2
    assert legal(deal) == {"pass", "surcoinche"}
    deal.apply("surcoinche")
    assert deal.phase == "play"
    assert deal.contract == Contract(250, 0, True, 2, 0)


# ------------------------------------------------------------------- coinche
def test_no_coinche_without_a_bid():
    deal = new_deal()
    assert "coinche" not in legal(deal)
    assert_rejected(deal, "coinche")
    deal.apply("pass")
    assert_rejected(deal, "coinche")


def test_coinche_only_by_opponents_of_highest_bidder():
    deal = run(new_deal(), "80H")                 # seat 0 bids
    assert "coinche" in legal(deal)               # seat 1, opponent
    deal.apply("pass")
    assert "coinche" not in legal(deal)           # seat 2, partner
    assert_rejected(deal, "coinche")
    deal.apply("pass")
    assert "coinche" in legal(deal)               # seat 3, opponent
    deal.apply("coinche")
    assert deal.current_player == 0               # the bidder may surcoinche
    assert legal(deal) == {"pass", "surcoinche"}


def test_coinche_targets_current_highest_bid_even_over_partner():
    # seat 0 80H, seat 1 90S, seat 2 (seat 0's partner) may coinche seat 1's bid
    deal = run(new_deal(), "80H 90S")
    assert "coinche" in legal(deal)
    deal.apply("coinche")
    run(deal, "pass pass pass")
    assert deal.contract == Contract(90, 0, False, 1, 1)


def test_coinche_only_once():
    deal = run(new_deal(), "80H coinche")         # seat 1 coinches
    assert legal(deal) == {"pass", "surcoinche"}  # seat 2: bidder's team
    deal.apply("pass")
    assert legal(deal) == {"pass"}                # seat 3: no second coinche
    assert_rejected(deal, "coinche")


def test_coinche_freezes_bids():
    deal = run(new_deal(), "80H coinche")
    assert_rejected(deal, "90H")      # bidder's partner cannot bid
    assert_rejected(deal, "capotH")               # nor capot (FFB)
    deal.apply("pass")
    assert_rejected(deal, "160C")     # nor the coincher's partner
    deal.apply("pass")
    assert_rejected(deal, "90S")      # nor the bidder himself
    assert legal(deal) == {"pass", "surcoinche"}


def test_three_passes_after_coinche_end_auction():
    deal = run(new_deal(), "80H coinche pass pass")
    assert deal.phase == "auction"
    deal.apply("pass")
    assert deal.phase == "play"
    assert deal.contract == Contract(80, 1, False, 1, 0)
    assert deal.current_player == 0               # seat after the dealer leads


# ---------------------------------------------------------------- surcoinche
def test_surcoinche_illegal_without_coinche():
    deal = run(new_deal(), "80H")
    assert_rejected(deal, "surcoinche")
    deal.apply("pass")
    assert_rejected(deal, "surcoinche")


def test_surcoinche_only_by_coinched_team():
    deal = run(new_deal(), "80H pass pass coinche")   # seat 3 coinches seat 0
    assert deal.current_player == 0
    assert "surcoinche" in legal(deal)                # the bidder himself
    deal.apply("pass")
    assert deal.current_player == 1
    assert legal(deal) == {"pass"}                    # coincher's partner
    assert_rejected(deal, "surcoinche")
    deal.apply("pass")
    assert "surcoinche" in legal(deal)                # seat 2, bidder's partner


def test_surcoinche_ends_auction_at_once():
    deal = run(new_deal(), "80H coinche surcoinche")
    assert deal.phase == "play"
    assert deal.contract == Contract(80, 1, False, 2, 0)
    assert deal.current_player == 0
    assert deal.auction == [parse_action(a) for a in ("80H", "coinche", "surcoinche")]


# -------------------------------------------------------------- end of auction
def test_three_passes_after_bid_end_auction():
    deal = run(new_deal(), "pass 80D pass pass")
    assert deal.phase == "auction"
    deal.apply("pass")
    assert deal.phase == "play"
    assert deal.contract == Contract(80, 2, False, 0, 1)


def test_passed_player_may_bid_later():
    deal = run(new_deal(), "pass 80D pass pass")
    assert deal.current_player == 0               # seat 0 passed first
    assert "90S" in legal(deal)
    deal.apply("90S")
    run(deal, "pass pass pass")
    assert deal.contract == Contract(90, 0, False, 0, 0)


def test_three_passes_without_bid_do_not_end_auction():
    deal = run(new_deal(), "pass pass pass")
    assert deal.phase == "auction"
    assert deal.current_player == 3
    deal.apply("80C")
    assert deal.phase == "auction"
    run(deal, "pass pass")
    assert deal.phase == "auction"
    deal.apply("pass")
    assert deal.contract == Contract(80, 3, False, 0, 3)


def test_four_passes_void_deal():
    deal = run(new_deal(), "pass pass pass pass")
    assert deal.is_terminal and deal.is_void
    assert deal.contract is None
    assert deal.legal_actions() == []
    r = deal.result
    assert r.void is True
    assert r.scores == (0, 0)
    assert deal.scores == (0, 0)


def test_bidder_cannot_raise_own_bid_after_three_passes():
    deal = run(new_deal(), "80H pass pass pass")
    assert deal.phase == "play"
    with pytest.raises(IllegalActionError):
        deal.apply("90H")
    assert deal.contract == Contract(80, 1, False, 0, 0)


def test_bidding_over_partner_allowed():
    deal = run(new_deal(), "80H pass")
    assert "90S" in legal(deal)
    deal.apply("90S")                 # seat 2 over his partner seat 0
    run(deal, "pass pass pass")
    assert deal.contract == Contract(90, 0, False, 0, 2)


def test_taker_is_last_bidder():
    deal = run(new_deal(), "80H 90S 100D 110C pass 120H pass pass pass")
    c = deal.contract
    assert (c.value, c.strain, c.capot, c.coinche, c.taker) == (120, 1, False, 0, 1)
    assert c.taker_team == 1
    assert str(c) == "120H by seat 1"


def test_contract_fields_surcoinched():
    deal = run(new_deal(), "pass 110S coinche surcoinche")
    c = deal.contract
    assert (c.value, c.strain, c.capot, c.coinche, c.taker) == (110, 0, False, 2, 1)
    assert str(c) == "110S by seat 1 surcoinched"


def test_card_in_auction_is_illegal_bid():
    deal = new_deal()
    assert_rejected(deal, "JH")


# --------------------------------------------------------- capot_after_coinche
def test_capot_after_coinche_illegal_by_default():
    deal = run(new_deal("ffb"), "80H coinche")
    assert "capotH" not in legal(deal)
    assert_rejected(deal, "capotH")


def test_capot_after_coinche_override_allows_capot_and_cancels_coinche():
    rules = get_rules("ffb", capot_after_coinche=True)
    deal = run(new_deal(rules), "80H coinche")
    assert legal(deal) == {"pass", "surcoinche"} | capots()
    assert_rejected(deal, "90H")      # still no numeric bid
    deal.apply("capotS")                          # seat 2
    assert deal.highest_bid == (250, 0, 2)
    # the coinche is cancelled: the opponents may coinche the capot again
    assert legal(deal) == {"pass", "coinche"}
    run(deal, "pass pass pass")
    assert deal.contract == Contract(250, 0, True, 0, 2)
