"""The auction's one legality kernel, ``engine.auction_refusal``: each ``REFUSE_*``
clause on a hand-built position (the code, and ``Deal.apply``'s ``IllegalBidError``
worded from it), and, on random auctions of every four-player preset, refusal 0 exactly
for the actions of the engine's legal mask.
"""

import random

import numpy as np
import pytest

from coinche_rl import actions as A
from coinche_rl import engine as E
from coinche_rl.cards import SUIT_NAMES
from coinche_rl.engine import auction
from coinche_rl.game import Deal, IllegalBidError
from coinche_rl.rules import AT, FOUR_PLAYER_PRESETS, NT, get_rules

HANDS = ["JH 9H AH TH KS QS 7D 8D", "JS 9S AS TS KH QH 7C 8C",
         "JD 9D AD TD KC QC 7H 8H", "JC 9C AC TC KD QD 7S 8S"]
H, S = 1, 0


def bid(value, strain):
    return A.BID_BASE + 6 * ((value - 80) // 10) + strain


def coinche_deal(rules="ffb", actions=""):
    """Dealer seat 3 (seat 0 speaks first), the space-separated auction ``actions`` made."""
    deal = Deal(rules, hands=HANDS, dealer=3)
    for a in actions.split():
        deal.apply(a)
    return deal


def classic_deal(actions=""):
    deal = Deal("classic", seed=4)
    for a in actions.split():
        deal.apply(a)
    return deal


def refusal(deal, a):
    return int(E.auction_refusal(deal.state, deal._P, a))


def assert_refused(deal, a, code, words):
    """``a`` is refused by clause ``code``, and applying it raises IllegalBidError
    giving ``words`` as the reason, the deal unchanged."""
    assert refusal(deal, a) == code
    assert not deal.is_legal(a)
    state = deal.state.copy()
    with pytest.raises(IllegalBidError) as info:
        deal.apply(a)
    assert f": {words}; legal: " in str(info.value)
    assert (deal.state == state).all()


# ------------------------------------------------------------------ coinche family
COINCHE_CASES = [
    # (rules, auction so far, action, code, words)
    ("ffb", "", -1, E.REFUSE_NOT_AN_ACTION, "not an action id"),
    ("ffb", "", A.N_ACTIONS, E.REFUSE_NOT_AN_ACTION, "not an action id"),
    ("ffb", "", A.CARD_BASE + 10, E.REFUSE_PLAY_ACTION, "the auction is not over"),
    ("ffb", "", A.DECLARE, E.REFUSE_PLAY_ACTION, "the auction is not over"),
    ("ffb", "", A.TAKE, E.REFUSE_PRISE_ONLY,
     "take and name belong to the classic prise, not to the coinche auction"),
    ("ffb", "", A.NAME_BASE + H, E.REFUSE_PRISE_ONLY,
     "take and name belong to the classic prise, not to the coinche auction"),
    ("ffb", "", bid(80, NT), E.REFUSE_STRAIN, "no trump contracts are not allowed by rules 'ffb'"),
    ("ffb", "", A.CAPOT_BASE + AT, E.REFUSE_STRAIN,
     "all trump contracts are not allowed by rules 'ffb'"),
    ("ffb", "80H coinche", bid(90, H), E.REFUSE_COINCHED, "the contract is coinched: no further bids"),
    ("ffb", "80H coinche", A.CAPOT_BASE + S, E.REFUSE_COINCHED,
     "the contract is coinched: no further bids"),
    ("ffb", "capotH", bid(90, S), E.REFUSE_CAPOT_BID, "capot has already been bid"),
    ("ffb", "capotH", A.CAPOT_BASE + S, E.REFUSE_CAPOT_BID, "capot has already been bid"),
    ("ffb", "", bid(170, H), E.REFUSE_OFF_LADDER, "bid values are 80..160 by 10"),
    (get_rules("ffb", min_bid=90, max_bid=170, bid_step=20), "", bid(100, H), E.REFUSE_OFF_LADDER,
     "bid values are 90..170 by 20"),
    ("ffb", "90H", bid(80, S), E.REFUSE_NOT_HIGHER, "a bid must be higher than the current 90"),
    ("ffb", "90H", bid(90, S), E.REFUSE_NOT_HIGHER, "a bid must be higher than the current 90"),
    ("ffb", "", A.COINCHE, E.REFUSE_NO_BID, "there is no bid to coinche"),
    ("ffb", "80H coinche", A.COINCHE, E.REFUSE_ALREADY_COINCHED, "the contract is already coinched"),
    ("ffb", "80H coinche pass", A.COINCHE, E.REFUSE_ALREADY_COINCHED,
     "the contract is already coinched"),
    ("ffb", "80H pass", A.COINCHE, E.REFUSE_OWN_TEAM, "only the opponents of the bidder may coinche"),
    ("ffb", "80H", A.SURCOINCHE, E.REFUSE_NOT_COINCHED, "surcoinche comes only after a coinche"),
    ("ffb", "", A.SURCOINCHE, E.REFUSE_NOT_COINCHED, "surcoinche comes only after a coinche"),
    ("ffb", "80H coinche pass", A.SURCOINCHE, E.REFUSE_NOT_COINCHED_TEAM,
     "only the coinched team may surcoinche"),
    # capot after a coinche, where the rule set allows it: only a capot already bid refuses
    ("funbelote", "80H coinche", bid(90, H), E.REFUSE_COINCHED,
     "the contract is coinched: no further bids"),
    ("funbelote", "capotH coinche", A.CAPOT_BASE + S, E.REFUSE_CAPOT_BID,
     "capot has already been bid"),
]


@pytest.mark.parametrize("rules, auction, a, code, words", COINCHE_CASES)
def test_coinche_family_refusal(rules, auction, a, code, words):
    assert_refused(coinche_deal(rules, auction), a, code, words)


@pytest.mark.parametrize("rules", ["funbelote", get_rules("ffb", capot_after_coinche=True)])
def test_capot_after_coinche_allowed_by_the_rule_set(rules):
    deal = coinche_deal(rules, "80H coinche")
    assert refusal(deal, A.CAPOT_BASE + S) == E.REFUSE_NONE
    deal.apply(A.CAPOT_BASE + S)
    assert deal.highest_bid == (250, S, 2)


def test_legal_auction_actions_are_refused_by_nothing():
    deal = coinche_deal("ffb_sa_ta", "80H coinche")
    for a in (A.PASS, A.SURCOINCHE):
        assert refusal(deal, a) == E.REFUSE_NONE
    deal = coinche_deal("ffb_sa_ta")
    for a in (A.PASS, bid(80, NT), bid(160, AT), A.CAPOT_BASE + AT):
        assert refusal(deal, a) == E.REFUSE_NONE


# ------------------------------------------------------------------ classic prise
FOUR_PASSES = "pass pass pass pass"


def test_classic_prise_refusals():
    deal = classic_deal()
    assert refusal(deal, A.TAKE) == E.REFUSE_NONE
    assert_refused(deal, bid(80, H), E.REFUSE_NOT_PRISE,
                   "the classic prise has no bids: take, name a trump, or pass")
    assert_refused(deal, A.COINCHE, E.REFUSE_NOT_PRISE,
                   "the classic prise has no bids: take, name a trump, or pass")
    assert_refused(deal, A.CARD_BASE, E.REFUSE_PLAY_ACTION, "the auction is not over")
    assert_refused(deal, A.NAME_BASE + S, E.REFUSE_NAME_ROUND,
                   "naming a trump is only possible in the second round (first round: take or pass)")
    deal = classic_deal(FOUR_PASSES)
    assert deal.prise_round == 2
    rs = deal.retourne >> 3
    other = (rs + 1) % 4
    assert refusal(deal, A.NAME_BASE + other) == E.REFUSE_NONE
    assert_refused(deal, A.TAKE, E.REFUSE_TAKE_ROUND, "take is only possible in the first round "
                   "of the prise (second round: name a suit or pass)")
    assert_refused(deal, A.NAME_BASE + rs, E.REFUSE_RETOURNE_SUIT,
                   f"{SUIT_NAMES[rs]} was the retourne's suit, refused in the first round: name another")
    assert_refused(deal, A.NAME_BASE + NT, E.REFUSE_STRAIN, "no trump is not allowed by rules 'classic'")
    deal.apply(A.NAME_BASE + other)
    assert refusal(deal, A.PASS) == E.REFUSE_NOT_AUCTION


def test_vip_classic_names_nt_and_at_in_the_second_round():
    deal = Deal("vip_classic", seed=4)
    for a in FOUR_PASSES.split():
        deal.apply(a)
    for st in (NT, AT):
        assert refusal(deal, A.NAME_BASE + st) == E.REFUSE_NONE


def test_no_auction_after_the_auction():
    deal = coinche_deal("ffb", "80H pass pass pass")
    assert deal.phase == "play"
    assert {refusal(deal, a) for a in range(A.N_ACTIONS)} == {E.REFUSE_NOT_AUCTION}


# ------------------------------------------------------------------ the masks
# the auction's clauses (engine/auction.py); the codes past them (engine/entry.py: the card
# play and the exchange) are not the auction's
CODES = {v for k, v in vars(auction).items() if k.startswith("REFUSE_")}
PROPERTY_RULES = list(FOUR_PLAYER_PRESETS) + [
    get_rules("ffb", capot_after_coinche=True),
    get_rules("ffb_sa_ta", min_bid=90, max_bid=170, bid_step=20)]


def _random_auction_states(rules, n_deals, seed):
    """The auction positions of ``n_deals`` random auctions (pass with probability
    0.4, else a uniform other legal action)."""
    rnd = random.Random(seed)
    for g in range(n_deals):
        deal = Deal(rules, seed=1000 * seed + g)
        while deal.phase == "auction":
            yield deal
            legal = deal.legal_actions()
            others = [a for a in legal if a != A.PASS]
            deal.apply(A.PASS if not others or rnd.random() < 0.4 else rnd.choice(others))
        assert refusal(deal, A.PASS) == E.REFUSE_NOT_AUCTION


def test_refusal_is_zero_exactly_on_the_legal_mask():
    """For every auction position of random auctions (both families, every four-player
    preset, capot after a coinche allowed, NT / AT, a ladder by 20) and every action id,
    ``auction_refusal == 0`` exactly when the action is in the engine's legal mask, and
    an illegal action is refused with the words of its clause."""
    seen = set()
    rnd = random.Random(7)
    positions = 0
    for i, rules in enumerate(PROPERTY_RULES):
        for deal in _random_auction_states(rules, 40, i):
            mask = deal.legal_action_mask()
            codes = [refusal(deal, a) for a in range(-1, A.N_ACTIONS + 1)]
            assert codes[0] == codes[-1] == E.REFUSE_NOT_AN_ACTION
            for a in range(A.N_ACTIONS):
                assert (codes[a + 1] == E.REFUSE_NONE) == bool(mask[a]), (rules, deal.history, a)
                assert codes[a + 1] in CODES
            seen.update(codes)
            positions += 1
            bad = rnd.choice([a for a in range(A.N_ACTIONS) if not mask[a]])
            with pytest.raises(IllegalBidError) as info:
                deal.apply(bad)
            assert "not legal now" not in str(info.value)
    assert positions > 500
    # every clause that a reachable auction position can trigger was met
    assert seen == CODES - {E.REFUSE_NOT_AUCTION}, sorted(CODES - seen)


def test_is_legal_reads_the_refusal():
    """``engine.is_legal`` in the auction is ``auction_refusal(...) == 0`` (the numba
    kernel, not only the Python accessor)."""
    deal = coinche_deal("ffb", "80H coinche")
    S, P = deal.state, deal._P
    for a in range(A.N_ACTIONS):
        assert bool(E.is_legal(S, P, a)) == (int(E.auction_refusal(S, P, a)) == 0)
    assert isinstance(E.auction_refusal(S, P, np.int64(A.PASS)), (int, np.integer))
