"""The engine's entry points for every family (coinche_rl.engine.entry) answer what the
family's own kernels answer, at every state of random deals of every preset; their
refusal codes are the legality (action by action); the public view and the hidden
information give the state back; and ``Family`` describes each family once."""

from __future__ import annotations

import numpy as np
import pytest

from coinche_rl import engine as E
from coinche_rl.actions import (BID_BASE, CARD_BASE, DECLARE, EXCHANGE, NAME_BASE, NO_EXCHANGE,
                                N_ACTIONS, PASS, TAKE)
from coinche_rl.engine import two
from coinche_rl.rules import FAMILY_PRESETS, PRESETS, get_rules, params_vector

ACTIONS = range(-1, N_ACTIONS + 1)


def _walk(preset, n_games, seed):
    """Every state of ``n_games`` random deals (entry points only: a new deal, random
    legal actions, passes favoured in every other deal so that contracts vary)."""
    P = params_vector(get_rules(preset))
    fam = E.family_of(P)
    rng = np.random.default_rng(seed)
    stream = np.zeros(1, dtype=np.uint64)
    hands = np.zeros(4, dtype=np.int64)
    deck = np.zeros(32, dtype=np.int64)
    mask = np.zeros(N_ACTIONS, dtype=np.uint8)
    for g in range(n_games):
        S = fam.new_state()
        E.rng_seed(stream, np.int64(seed), np.int64(g))
        E.game_new_deal(S, P, stream, np.int64(-1), hands, deck)
        while True:
            yield S, P, fam
            if E.game_phase(S, P) == E.PHASE_DONE:
                break
            E.game_legal_mask(S, P, mask)
            legal = np.flatnonzero(mask)
            if g % 2 and mask[PASS] and rng.random() < 0.6:
                a = PASS
            else:
                a = int(legal[rng.integers(len(legal))])
            E.game_apply(S, P, np.int64(a))


def _family_answers(S, P, fam):
    """(phase, to act, mask, legal per action) from the family's own kernels."""
    m = np.zeros(N_ACTIONS, dtype=np.uint8)
    if fam.name == "two":
        two.two_legal_mask(S, P, m)
        return (two.phase_of(S), two.current_player(S), m,
                [0 <= a < N_ACTIONS and bool(two.two_is_legal(S, P, a)) for a in ACTIONS])
    E.legal_actions_into(S, P, m)
    return E.phase_of(S), E.current_seat(S), m, [bool(E.is_legal(S, P, a)) for a in ACTIONS]


@pytest.mark.parametrize("preset", list(PRESETS))
def test_entry_points_answer_as_the_family_kernels(preset):
    n_games = 5 if preset in FAMILY_PRESETS["two"] else 2
    mask = np.zeros(N_ACTIONS, dtype=np.uint8)
    H = np.zeros(E.HIDDEN_SIZE, dtype=np.int64)
    phases = set()
    n = 0
    for S, P, fam in _walk(preset, n_games, 11 + len(preset)):
        phase, cur, m, legal = _family_answers(S, P, fam)
        phases.add(int(phase))
        assert E.game_phase(S, P) == phase and E.game_to_act(S, P) == cur
        cnt = E.game_legal_mask(S, P, mask)
        assert np.array_equal(mask, m) and cnt == m.sum()
        codes = [int(E.game_refusal(S, P, a)) for a in ACTIONS]
        assert [c == E.REFUSE_NONE for c in codes] == legal
        assert [bool(E.game_is_legal(S, P, a)) for a in ACTIONS] == legal
        if fam.name != "two" and phase == E.PHASE_BIDDING:
            assert codes[1:-1] == [int(E.auction_refusal(S, P, a)) for a in range(N_ACTIONS)]
        if phase == E.PHASE_PLAY and not (mask[DECLARE] or mask[DECLARE + 2]):
            assert codes[1 + PASS] == E.REFUSE_NOT_A_CARD
            assert all(codes[1 + CARD_BASE + c] in (E.REFUSE_NONE, E.REFUSE_CARD)
                       for c in range(32))
        if phase == E.PHASE_DONE:
            assert set(codes) == {E.REFUSE_DEAL_OVER, E.REFUSE_NOT_AN_ACTION}
            for s in range(fam.n_players):
                side = fam.side(s)
                assert E.game_side(P, s) == side
                own = two.deal_score(S, side) if fam.name == "two" else E.team_score(S, side)
                assert E.game_score(S, P, side) == own
                other = E.game_score(S, P, 1 - side)
                assert E.game_reward(S, P, s, False) == own - other
                assert E.game_reward(S, P, s, True) == own
        # an illegal action leaves the state unchanged and says why
        bad = codes.index(next(c for c in codes[1:-1] if c != E.REFUSE_NONE), 1) - 1
        before = S.copy()
        assert E.game_step(S, P, bad) == codes[1 + bad] and np.array_equal(S, before)
        # the public view is the family's, and the hidden information gives S back
        E.game_private_into(S, P, H)
        for seat in range(fam.n_players):
            V = np.zeros_like(S)
            E.game_public_view_into(S, P, seat, V)
            W = np.zeros_like(S)
            if fam.name == "two":
                two.two_public_view_into(S, P, seat, W)
            else:
                E.public_view_into(S, P, seat, W)
            assert np.array_equal(V, W)
            back = np.zeros_like(S)
            E.game_determinize_into(V, P, seat, H, back)
            assert np.array_equal(back, S), (seat, np.flatnonzero(back != S))
        n += 1
    assert phases >= {E.PHASE_BIDDING, E.PHASE_PLAY, E.PHASE_DONE}
    if preset == "belote_a_deux":
        assert E.PHASE_EXCHANGE in phases
    assert n > 20 * n_games


@pytest.mark.parametrize("preset", ["ffb", "classic", "belote_a_deux", "belote_decouverte"])
def test_new_deal_random_action_and_playout_are_the_family_kernels(preset):
    P = params_vector(get_rules(preset))
    fam = E.family_of(preset)
    hands = np.zeros(4, dtype=np.int64)
    deck = np.zeros(32, dtype=np.int64)
    buf = np.zeros(N_ACTIONS, dtype=np.uint8)
    for i in range(6):
        a, b = fam.new_state(), fam.new_state()
        ra, rb = np.zeros(1, np.uint64), np.zeros(1, np.uint64)
        E.rng_seed(ra, np.int64(5), np.int64(i))
        E.rng_seed(rb, np.int64(5), np.int64(i))
        E.game_new_deal(a, P, ra, np.int64(i % 3 - 1), hands, deck)
        if fam.name == "two":
            two.two_random_deal(b, P, rb, np.int64(i % 3 - 1), deck)
        else:
            E.deal_into(b, P, rb, np.int64(i % 3 - 1), hands, deck)
        assert np.array_equal(a, b) and ra[0] == rb[0]
        x = E.game_random_action(a, P, ra, buf, 0.5)
        y = (two.two_random_action(b, P, rb) if fam.name == "two"
             else E.random_action(b, P, rb, buf, 0.5))
        assert x == y and E.game_is_legal(a, P, x)
        E.game_random_playout(a, P, ra, buf, 0.5)
        if fam.name == "two":
            two.two_random_playout(b, P, rb)
        else:
            E.play_out(b, P, rb, buf, 0.5)
        assert np.array_equal(a, b) and E.game_phase(a, P) == E.PHASE_DONE
        assert E.game_random_action(a, P, ra, buf, 0.5) == -1
        dealer = E.game_dealer(a, P)
        assert E.game_next_dealer(a, P, np.int64(-2)) == (dealer + 1) % fam.n_players
        assert E.game_next_dealer(a, P, np.int64(1)) == 1


def test_two_player_refusals_hand_built():
    P = params_vector(get_rules("belote_a_deux"))
    T = np.zeros(two.TWO_STATE_SIZE, dtype=np.int64)
    # dealer 0: player 1 gets cards 0 1 2 6 7 8 (7 of hearts: 8), player 0 gets 3 4 5 9 10
    # 11; the retourne is 12 (hearts)
    two.two_reset(T, P, np.arange(32, dtype=np.int64), 0)

    def why(a, S=T):
        return int(E.game_refusal(S, P, a))
    assert E.game_to_act(T, P) == 1 and why(TAKE) == why(PASS) == E.REFUSE_NONE
    assert why(NAME_BASE) == E.REFUSE_NAME_ROUND
    assert why(CARD_BASE) == why(EXCHANGE) == E.REFUSE_PLAY_ACTION
    assert why(BID_BASE) == E.REFUSE_NOT_PRISE and why(N_ACTIONS) == E.REFUSE_NOT_AN_ACTION
    U = T.copy()
    for _ in range(2):
        E.game_apply(U, P, PASS)
    assert why(TAKE, U) == E.REFUSE_TAKE_ROUND and why(NAME_BASE + 1, U) == E.REFUSE_RETOURNE_SUIT
    assert why(NAME_BASE, U) == E.REFUSE_NONE
    # player 1 takes: player 0, without the 7 of hearts, chooses the exchange
    E.game_apply(T, P, TAKE)
    assert E.game_phase(T, P) == E.PHASE_EXCHANGE and E.game_to_act(T, P) == 0
    assert why(EXCHANGE) == E.REFUSE_NO_SEVEN and why(PASS) == E.REFUSE_EXCHANGE_PENDING
    assert why(NO_EXCHANGE) == E.REFUSE_NONE
    E.game_apply(T, P, NO_EXCHANGE)
    assert E.game_phase(T, P) == E.PHASE_PLAY and E.game_to_act(T, P) == 1
    assert why(CARD_BASE + 3) == E.REFUSE_CARD and why(CARD_BASE) == E.REFUSE_NONE
    assert why(PASS) == E.REFUSE_NOT_A_CARD


def test_families():
    assert set(E.FAMILIES) == {"coinche", "classic", "two"}
    assert sorted(p for f in E.FAMILIES.values() for p in f.presets) == sorted(PRESETS)
    for name in PRESETS:
        f = E.family_of(name)
        assert f is E.family_of(params_vector(get_rules(name))) is E.FAMILIES[get_rules(name).family]
        assert name in f.presets
    four, two_ = E.FAMILIES["coinche"], E.FAMILIES["two"]
    assert (four.n_players, four.state_size, four.n_tricks, four.cards_per_player) == \
        (4, E.STATE_SIZE, 8, 8)
    assert (two_.n_players, two_.state_size, two_.n_tricks, two_.cards_per_player) == \
        (2, two.TWO_STATE_SIZE, 16, 16)
    assert [four.side(s) for s in range(4)] == [0, 1, 0, 1] and two_.side(1) == 1
    assert two_.phases[E.PHASE_EXCHANGE] == "exchange" and E.FAMILIES["classic"].phases[0] == "auction"


@pytest.mark.parametrize("preset", ["ffb", "classic", "belote_a_deux", "belote_decouverte"])
def test_family_reads_the_outcome_the_kernels_answer(preset):
    """``Family.scores`` / ``Family.contracts`` (numpy over the state slots, what the
    arena reads) answer as the kernels' accessors, void deals included."""
    P = params_vector(get_rules(preset))
    fam = E.family_of(preset)
    hands = np.zeros(4, dtype=np.int64)
    deck = np.zeros(32, dtype=np.int64)
    buf = np.zeros(N_ACTIONS, dtype=np.uint8)
    rng = np.zeros(1, np.uint64)
    states = np.stack([fam.new_state() for _ in range(60)])
    for i, S in enumerate(states):
        E.rng_seed(rng, np.int64(11), np.int64(i))
        E.game_new_deal(S, P, rng, np.int64(-1), hands, deck)
        E.game_random_playout(S, P, rng, buf, 0.8 if i % 2 else 0.2)
    contracts = fam.contracts(states)
    voids = 0
    for i, S in enumerate(states):
        for side in (0, 1):
            assert fam.scores(states, side)[i] == E.game_score(S, P, np.int64(side))
        if fam.name == "two":
            void = two.deal_void(S) == 1
            want = (0, two.trump_of(S), two.taker_of(S), 0, two.deal_made(S))
        else:
            void = E.deal_void(S) == 1
            want = (*E.contract_of(S), E.coinche_level(S), E.deal_made(S))
        voids += void
        assert tuple(contracts[i]) == ((0, 0, -1, 0, -1) if void else want), i
    assert 0 < voids < len(states)          # both kinds of outcome were read
