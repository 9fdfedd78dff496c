"""The environments' numba kernels (``coinche_rl.envs.kernels``).

1. ``encode_into`` gives exactly ``observation.encode(information_set(deal, seat))`` at
   every step of random games, for every seat and every preset, in deal and match mode.
2. ``public_state`` hides what the seat cannot know: equal for two deals that agree on
   every public event and on the seat's cards (the pairs of ``test_infoset``), and it
   keeps the seat's own hand and every public slot.
"""

import doctest

import numpy as np
import pytest

from coinche_rl import engine as E
from coinche_rl.envs import kernels as K
from coinche_rl.envs import observation as O
from coinche_rl.envs.infoset import information_set
from coinche_rl.game import Deal
from coinche_rl.rules import FOUR_PLAYER_PRESETS
from coinche_rl.rules import PRESETS

from test_infoset import actors, other_world, random_trace, replay_and_compare


def same_public_state(b, a_now, seat):
    pa = E.public_view(a_now.state, a_now.params, seat)
    pb = E.public_view(b.state, b.params, seat)
    assert np.array_equal(pa, pb), np.flatnonzero(pa != pb)


@pytest.mark.parametrize("preset", sorted(FOUR_PLAYER_PRESETS))
def test_numba_encoder_equals_the_reference_encoder(preset):
    rng = np.random.default_rng(sum(map(ord, preset)))
    steps = 0
    for g in range(6):
        d = Deal(preset, seed=int(rng.integers(2 ** 31)), dealer=int(rng.integers(4)))
        enc = K.ObservationEncoder(d.rules)
        match = None
        if g % 2:
            match = {"scores": (int(rng.integers(900)), int(rng.integers(900))),
                     "target": 1000 + 500 * int(rng.integers(2)), "pot": int(rng.integers(170))}
        while True:
            for seat in range(4):
                ref = O.encode(information_set(d, seat), match)
                got = enc.encode(d.state, seat, match)
                assert got.dtype == np.float32
                bad = np.flatnonzero(ref != got)
                assert not len(bad), [name for name, (a, b) in O.LAYOUT.items()
                                      if any(a <= k < b for k in bad)]
                steps += 1
            if d.is_terminal:
                break
            legal = d.legal_actions()
            d.apply(legal[rng.integers(len(legal))])
    assert steps > 6 * 4 * 8


def test_encoder_writes_into_a_given_buffer_and_the_doctest_passes():
    d = Deal("ffb", seed=5, dealer=2)
    enc = K.ObservationEncoder(d.rules)
    out = np.full(O.OBSERVATION_SIZE, 7.0, dtype=np.float32)
    assert enc.encode(d.state, 3, out=out) is out
    assert np.array_equal(out, O.encode(information_set(d, 3)))
    assert doctest.testmod(K).failed == 0


PUBLIC_SLOTS = [E.S_DEALER, E.S_PHASE, E.S_CUR, E.S_BID_VALUE, E.S_BID_STRAIN, E.S_BID_SEAT,
                E.S_CAPOT, E.S_COINCHE, E.S_N_AUCTION, E.S_VOID, E.S_TRICK_NO, E.S_LEADER,
                E.S_TRICK_N, E.S_PLAYED, E.S_DECL_WINNER, E.S_RETOURNE]


@pytest.mark.parametrize("preset", ["ffb", "ffb_sa_ta", "funbelote", "classic",
                                    "classic_declarations", "coinche_x3", "ludiclub_coinche"])
def test_public_state_is_equal_for_deals_with_the_same_public_history(preset):
    rng = np.random.default_rng(77 + sum(map(ord, preset)))
    compared = differing = 0
    for _ in range(8):
        trace, actions = random_trace(preset, rng)
        who = actors(trace[-1], actions)
        for seat in range(4):
            for _ in range(2):
                k = int(rng.integers(len(trace)))
                b = other_world(trace[-1], trace[k], seat, rng)
                if b is None:
                    continue
                differing += replay_and_compare(trace, actions, who, b, seat, rng,
                                                check=same_public_state)
                compared += 1
    assert compared > 40 and differing > 100, (compared, differing)


@pytest.mark.parametrize("preset", ["ffb", "classic", "ffb_sa_ta"])
def test_public_state_keeps_the_own_hand_and_the_public_slots(preset):
    rng = np.random.default_rng(3)
    for _ in range(5):
        d = Deal(preset, seed=int(rng.integers(2 ** 31)))
        while not d.is_terminal:
            S = d.state
            seat = d.current_player
            pub = E.public_view(S, d.params, seat)
            assert pub[E.S_HAND + seat] == S[E.S_HAND + seat]
            assert all(pub[E.S_HAND + p] == 0 for p in range(4) if p != seat)
            assert all(pub[s] == S[s] for s in PUBLIC_SLOTS)
            assert np.array_equal(pub[E.S_PLAYS:E.S_PLAYS + 32], S[E.S_PLAYS:E.S_PLAYS + 32])
            assert np.array_equal(pub[E.S_AUCTION:E.S_AUCTION + 64], S[E.S_AUCTION:E.S_AUCTION + 64])
            # the seat can still compute its own legal actions from the public state
            mask = np.zeros(E.N_ACTIONS, dtype=np.bool_)
            E.legal_actions_into(pub, d.params, mask)
            assert np.array_equal(mask, d.legal_action_mask())
            legal = d.legal_actions()
            d.apply(legal[rng.integers(len(legal))])
        # at the end, the scores are public
        pub = E.public_view(d.state, d.params, 0)
        assert pub[E.S_SCORE] == d.state[E.S_SCORE] and pub[E.S_SCORE + 1] == d.state[E.S_SCORE + 1]
