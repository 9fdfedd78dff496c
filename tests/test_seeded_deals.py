"""The package's one seed -> deal map (``engine.random_deck``): the Python API, the
kernels, the arena's deal sets and the two-player family deal the same deck from the
same stream, and the Python API's stream is the engine's."""

import numpy as np
import pytest

from coinche_rl import engine as E
from coinche_rl.arena import DealSet
from coinche_rl.engine import two as E2
from coinche_rl.game import Deal, Match, deal_deck, deal_hands, deal_stream
from coinche_rl.rules import get_rules, params_vector
from coinche_rl.two_player import TwoPlayerDeal, TwoPlayerMatch


def _kernel_deal(rules, seed, dealer=-1):
    """Deal 0 of ``seed`` as the kernels deal it (``engine.deal_into`` on sub-stream 0,
    the stream of ``simulate_random_deals``, the vector env and the bots' batches)."""
    P = params_vector(rules)
    S = np.empty(E.STATE_SIZE, dtype=np.int64)
    rng = np.zeros(1, dtype=np.uint64)
    E.rng_seed(rng, np.int64(seed), np.int64(0))
    hands = np.empty(4, dtype=np.int64)
    deck = np.empty(32, dtype=np.int64)
    E.deal_into(S, P, rng, np.int64(dealer), hands, deck)
    return S, deck, hands


@pytest.mark.parametrize("preset", ["ffb", "classic"])
def test_deal_seed_is_the_kernels_deal(preset):
    rules = get_rules(preset)
    for seed in (0, 1, 7, 2 ** 40 + 3):
        S, deck, hands = _kernel_deal(rules, seed)
        d = Deal(rules, seed=seed)
        assert (d.state == S).all(), (preset, seed)
        assert d.dealer == int(S[E.S_DEALER])
        # the deck is dealt as Deal(deck=...) deals it
        again = Deal(rules, deck=deck.tolist(), dealer=d.dealer)
        assert (again.state == S).all()
        if preset == "ffb":
            assert [int(h) for h in hands] == d.initial_hands


def test_deal_seed_with_a_dealer_keeps_the_cards():
    rules = get_rules("ffb")
    for dealer in range(4):
        S, _, _ = _kernel_deal(rules, 5, dealer)
        assert (Deal(rules, seed=5, dealer=dealer).state == S).all()
    decks = {tuple(_kernel_deal(rules, 5, d)[1]) for d in range(4)}
    assert len(decks) == 1                      # the dealer is drawn after the cards


def test_deal_deck_is_a_fisher_yates_of_the_stream():
    """Written out: card i (31 down to 1) swapped with the one at ``rng_below(i + 1)``
    of the splitmix64 stream."""
    rng = deal_stream(11)
    ref = deal_stream(11)
    deck = list(range(32))
    for i in range(31, 0, -1):
        j = int(E.rng_below(ref, np.int64(i + 1)))
        deck[i], deck[j] = deck[j], deck[i]
    assert deal_deck(rng) == deck
    assert (rng == ref).all()
    hands = deal_hands(deal_stream(11))
    assert sorted(c for h in hands for c in range(32) if h >> c & 1) == list(range(32))
    assert all(bin(h).count("1") == 8 for h in hands)


def test_deal_set_deals_come_from_the_engine_shuffle():
    ds = DealSet("ffb", seed=4)
    decks, dealers = ds.decks(range(50))
    states, _ = ds.states(range(50))
    for k in range(50):
        assert sorted(decks[k].tolist()) == list(range(32))
        assert (Deal("ffb", deck=decks[k].tolist(), dealer=int(dealers[k])).state == states[k]).all()


def test_two_player_deal_seed_is_the_kernels_deal():
    rules = get_rules("belote_a_deux")
    P = params_vector(rules)
    for seed in (0, 3, 99):
        T = np.empty(E2.TWO_STATE_SIZE, dtype=np.int64)
        rng = np.zeros(1, dtype=np.uint64)
        E.rng_seed(rng, np.int64(seed), np.int64(0))
        E2.two_random_deal(T, P, rng, np.int64(-1), np.empty(32, dtype=np.int64))
        d = TwoPlayerDeal(rules, seed=seed)
        assert (d.state == T).all(), seed


def test_matches_are_seeded_and_clones_continue_the_stream():
    a, b = Match("ffb", seed=8), Match("ffb", seed=8)
    assert a.first_dealer == b.first_dealer and (a.deal.state == b.deal.state).all()
    rng = np.random.default_rng(0)
    while not a.is_terminal and len(a.deals) < 3:
        action = int(rng.choice(a.legal_actions()))
        c = a.clone()
        a.apply(action)
        c.apply(action)
        assert (a.deal.state == c.deal.state).all()
    t1, t2 = TwoPlayerMatch(seed=8), TwoPlayerMatch(seed=8)
    assert (t1.deal.state == t2.deal.state).all()


@pytest.mark.parametrize("bad", [-1, 1.5, "3", True])
def test_bad_seeds_are_refused(bad):
    with pytest.raises(ValueError, match="seed must be a non-negative integer"):
        Deal("ffb", seed=bad)
    with pytest.raises(ValueError, match="seed must be a non-negative integer"):
        Match("ffb", seed=bad)


def test_deal_deck_refuses_a_numpy_generator():
    with pytest.raises(TypeError, match=r"deal_stream\(seed\)"):
        deal_deck(np.random.default_rng(0))
