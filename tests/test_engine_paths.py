"""The engine's fast playout path must be indistinguishable from stepping one action at
a time: same random draws, same final state vector, for every rule variant."""

import numpy as np
import pytest

from coinche_rl import engine as E
from coinche_rl.actions import N_ACTIONS
from coinche_rl.game import Deal
from coinche_rl.rules import get_rules, params_vector

from oracles import auction_legal_count, auction_legal_nth

VARIANTS = [
    get_rules("ffb"),
    get_rules("ffb_sa_ta"),
    get_rules("ffb_sa_ta", at_points="scaled", must_undertrump=True, overtrump_partner=False),
    get_rules("ffb_sa_ta", optional_declare=True, optional_belote=True, generale_bonus=350,
              coinche_scoring="cards_plus_bid", multipliers=(2, 3), fail_base=162),
    get_rules("ffb", declarations=False, contract_counts="cards+belote", made_conditions="bid_only"),
]


@pytest.mark.parametrize("rules", VARIANTS, ids=lambda r: r.name + str(len(r.overrides())))
def test_fast_playout_equals_stepwise_playout(rules):
    P = params_vector(rules)
    buf = np.zeros(N_ACTIONS, dtype=np.uint8)
    compared = 0
    for i in range(400):
        deal = Deal(rules, seed=i)
        if i % 2:   # half from a contract (play phase), half from the auction
            deal.with_contract(100, i % len(rules.allowed_strains), taker=i % 4, coinche=i % 3)
        a, b = deal.state.copy(), deal.state.copy()
        ra, rb = np.zeros(1, np.uint64), np.zeros(1, np.uint64)
        E.rng_seed(ra, 99, i)
        E.rng_seed(rb, 99, i)
        E.play_out(a, P, ra, buf, 0.6)
        E.play_out_stepwise(b, P, rb, buf, 0.6)
        assert np.array_equal(a, b), f"deal {i}: slots {np.flatnonzero(a != b).tolist()} differ"
        assert ra[0] == rb[0]
        compared += int(a[E.S_VOID] == 0)
    assert compared > 300


@pytest.mark.parametrize("preset", ["ffb", "ffb_sa_ta"])
def test_auction_nth_legal_enumerates_the_legal_mask(preset):
    """The allocation-free auction enumeration used by rollouts lists exactly the legal
    auction actions, in increasing id order."""
    rules = get_rules(preset, capot_after_coinche=True, bid_step=20, max_bid=160)
    rng = np.random.default_rng(5)
    checked = 0
    for i in range(300):
        deal = Deal(rules, seed=i)
        while deal.phase == "auction":
            legal = deal.legal_actions()
            n = auction_legal_count(deal.state, deal.params)
            assert [auction_legal_nth(deal.state, deal.params, k) for k in range(n)] == legal
            checked += 1
            deal.apply(0 if rng.random() < 0.5 else legal[int(rng.integers(len(legal)))])
    assert checked > 1000


def test_random_auction_actions_are_legal_and_cover_the_legal_set():
    """The rollouts' auction draw only returns legal actions, and every legal action
    comes up (uniform mode)."""
    rules = get_rules("ffb_sa_ta", capot_after_coinche=True)
    P = params_vector(rules)
    buf = np.zeros(N_ACTIONS, dtype=np.uint8)
    rng = np.zeros(1, np.uint64)
    E.rng_seed(rng, 3, 0)
    seen = set()
    for i in range(300):
        deal = Deal(rules, seed=i)
        while deal.phase == "auction":
            legal = set(deal.legal_actions())
            for pp in (-1.0, 0.5):
                a = int(E.random_action(deal.state, P, rng, buf, pp))
                assert a in legal
                seen.add(a)
            deal.apply(a)
    assert len(seen) > 60     # bids of every strain and level, capots, coinche, surcoinche
