"""Property tests (hypothesis): random deals and matches played through the game API.

Invariants checked: conservation of the 32 cards at every step, legality of every card
played, trick structure, card points (162, or 252 for a capot) in every strain and AT
table, record round trips, clone independence, notation round trips, and the
reproducibility and card-point totals of the batched simulation.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from coinche_rl import actions as A
from coinche_rl.cards import (FULL_DECK, cards_of, format_card, format_hand, mask_of,
                              parse_card, parse_hand, popcount)
from coinche_rl.game import Deal, Match
from coinche_rl.records import deal_to_record, match_to_record, replay_deal, replay_match
from coinche_rl.rules import AT, NT, FOUR_PLAYER_PRESETS as ALL_PRESETS, get_rules
from coinche_rl.simulate import random_play_phase, random_playouts, simulate_deals

PRESETS = tuple(ALL_PRESETS)     # every four-player preset of RULES.md §10
#: rule sets under which every strain of the set is forced with ``with_contract``
STRAIN_RULES = {
    "ffb": get_rules("ffb"),
    "ffb_sa_ta": get_rules("ffb_sa_ta"),
    "ffb_sa_ta/at=scaled": get_rules("ffb_sa_ta", at_points="scaled"),
    "ffb_sa_ta/at=vip": get_rules("ffb_sa_ta", at_points="vip"),
}

seeds = st.integers(min_value=0, max_value=2**32 - 1)
presets = st.sampled_from(PRESETS)
#: probability of passing in the auction (None: uniform over every legal action)
pass_probs = st.sampled_from([None, 0.3, 0.6, 0.85])

FAST = settings(max_examples=100, deadline=None,
                suppress_health_check=[HealthCheck.too_slow])
FEW = settings(max_examples=25, deadline=None,
               suppress_health_check=[HealthCheck.too_slow])


# --------------------------------------------------------------------- helpers
def random_action(game, rng: np.random.Generator, pass_prob) -> int:
    """A random legal action of a Deal or Match (the 'random legal policy')."""
    legal = game.legal_actions()
    assert legal, "a non-terminal game must have a legal action"
    if pass_prob is not None and legal[0] == A.PASS and rng.random() < pass_prob:
        return A.PASS
    return legal[int(rng.integers(len(legal)))]


def played_mask(deal: Deal) -> int:
    return mask_of(c for _, c in deal.plays)


def check_conservation(deal: Deal) -> None:
    hands = deal.hands
    played = played_mask(deal)
    union = played
    if deal.deck is not None and deal.contract is None:   # prise running, or void
        # classic prise: 5 cards each, the retourne and 11 cards still to deal
        assert deal.retourne == deal.deck[20]
        assert all(popcount(h) == 5 for h in hands)
        assert mask_of(deal.deck[20:]) & (hands[0] | hands[1] | hands[2] | hands[3]) == 0
        assert union | hands[0] | hands[1] | hands[2] | hands[3] | mask_of(deal.deck[20:]) == FULL_DECK
        return
    for s, h in enumerate(hands):
        assert h & played == 0, f"seat {s} still holds a played card"
        for t in range(s + 1, 4):
            assert h & hands[t] == 0, f"seats {s} and {t} share cards"
        union |= h
    assert union == FULL_DECK
    assert sum(popcount(h) for h in hands) + len(deal.plays) == 32
    # each seat holds 8 minus the cards it played
    for s in range(4):
        n_played = sum(1 for seat, _ in deal.plays if seat == s)
        assert popcount(hands[s]) == 8 - n_played


def play_checked(deal: Deal, rng: np.random.Generator, pass_prob, max_steps=None) -> int:
    """Play a deal with the random policy, checking conservation and card legality at
    every step. Returns the number of actions applied."""
    check_conservation(deal)
    steps = 0
    while not deal.is_terminal and (max_steps is None or steps < max_steps):
        a = random_action(deal, rng, pass_prob)
        if A.is_card(a):
            c = A.action_card(a)
            seat = deal.current_player
            legal = deal.legal_cards()
            hand = deal.hands[seat]
            assert legal >> c & 1, f"card {format_card(c)} not in legal_cards()"
            assert hand >> c & 1, f"card {format_card(c)} not in the hand of seat {seat}"
            assert legal & ~hand == 0, "legal_cards() holds cards outside the hand"
            card_actions = {x for x in deal.legal_actions() if A.is_card(x)}
            assert card_actions == {A.CARD_BASE + x for x in cards_of(legal)}
            n_before = len(deal.plays)
            deal.apply(a)
            assert len(deal.plays) == n_before + 1
            assert deal.plays[-1] == (seat, c)
            assert not deal.hands[seat] >> c & 1
        else:
            deal.apply(a)
        steps += 1
        check_conservation(deal)
    return steps


def check_finished(deal: Deal) -> None:
    """A finished, non-void deal: 8 tricks of 4 cards, card points 162 or 252."""
    assert deal.is_terminal and not deal.is_void
    tricks = deal.tricks
    assert len(tricks) == 8
    assert all(len(t) == 4 for t in tricks)
    # seats in a trick are consecutive from the leader; the winner leads the next trick
    winners = deal.trick_winners
    assert len(winners) == 8
    for i, t in enumerate(tricks):
        seats = [s for s, _ in t]
        assert seats == [(seats[0] + k) % 4 for k in range(4)]
        assert winners[i] in seats
        if i:
            assert seats[0] == winners[i - 1]
    assert sum(deal.tricks_won) == 8
    assert deal.hands == [0, 0, 0, 0]
    assert played_mask(deal) == FULL_DECK
    res = deal.result
    cp = res.teams[0].card_points + res.teams[1].card_points
    capot = 8 in deal.tricks_won
    if res.generale is not None and deal.rules.generale_bonus and \
            res.generale & 1 == deal.contract.taker_team:
        assert cp == deal.rules.generale_bonus     # funbelote's générale: 350
    else:
        assert cp == (252 if capot else 162), (cp, deal.tricks_won, deal.contract)
    ddd = [t.dix_de_der for t in res.teams]
    last_team = winners[7] & 1
    assert ddd[last_team] == (100 if capot else 10) and ddd[1 - last_team] == 0
    assert res.scores == deal.scores


# ----------------------------------------------------------------- deal play
@FAST
@given(seed=seeds, preset=presets, policy_seed=seeds, pass_prob=pass_probs)
def test_random_deal_invariants(seed, preset, policy_seed, pass_prob):
    deal = Deal(preset, seed=seed)
    rng = np.random.default_rng(policy_seed)
    n = play_checked(deal, rng, pass_prob)
    assert n == len(deal.history)
    if deal.is_void:
        assert deal.result.void and deal.scores == (0, 0) and deal.plays == []
        # coinche: four passes; classic: four passes in each round of the prise
        assert deal.auction == [A.PASS] * (8 if deal.rules.family == "classic" else 4)
    else:
        check_finished(deal)
        choices = sum(a in (A.DECLARE, A.NO_DECLARE, A.BELOTE, A.NO_BELOTE) for a in deal.history)
        assert choices == 0 or deal.rules.optional_declare or deal.rules.optional_belote
        assert len(deal.history) == len(deal.auction) + 32 + choices


@FAST
@given(seed=seeds, rules_name=st.sampled_from(sorted(STRAIN_RULES)), data=st.data(),
       policy_seed=seeds)
def test_card_points_in_every_strain(seed, rules_name, data, policy_seed):
    rules = STRAIN_RULES[rules_name]
    strain = data.draw(st.sampled_from(rules.allowed_strains), label="strain")
    value = data.draw(st.sampled_from(rules.bid_values + (250,)), label="value")
    taker = data.draw(st.integers(0, 3), label="taker")
    coinche = data.draw(st.integers(0, 2), label="coinche")
    deal = Deal(rules, seed=seed).with_contract(value, strain, taker=taker, coinche=coinche)
    assert deal.phase == "play"
    c = deal.contract
    assert (c.strain, c.taker, c.coinche, c.capot) == (strain, taker, coinche, value == 250)
    play_checked(deal, np.random.default_rng(policy_seed), None)
    check_finished(deal)
    assert deal.auction == []


@pytest.mark.parametrize("rules_name", sorted(STRAIN_RULES))
def test_card_points_every_strain_exhaustive(rules_name):
    """Deterministic companion of the property: every allowed strain, several deals."""
    rules = STRAIN_RULES[rules_name]
    rng = np.random.default_rng(12345)
    strains_seen = set()
    for strain in rules.allowed_strains:
        for k in range(6):
            deal = Deal(rules, seed=1000 * strain + k).with_contract(
                90, strain, taker=k % 4, coinche=k % 3)
            play_checked(deal, rng, None)
            check_finished(deal)
            strains_seen.add(deal.contract.strain)
    assert strains_seen == set(rules.allowed_strains)
    if rules.strains == "suits_nt_at":
        assert {NT, AT} <= strains_seen


def test_capot_totals_252_in_every_at_table():
    """A forced capot (the takers' team wins all 8 tricks): 252 card points in total,
    also with the scaled AT table (no 162/258 scaling of a capot)."""
    # seat 0 holds every jack and nine: at AT it wins every trick it leads
    hands = ["JS JH JD JC 9S 9H 9D 9C", "AS TS KS QS AH TH KH QH",
             "8S 7S 8H 7H AD TD KD QD", "8D 7D AC TC KC QC 8C 7C"]
    for name in ("ffb_sa_ta", "ffb_sa_ta/at=scaled", "ffb_sa_ta/at=vip"):
        deal = Deal(STRAIN_RULES[name], hands=hands, dealer=3).with_contract(250, AT, taker=0)
        while not deal.is_terminal:
            # seat 0 leads its strongest card; everybody else plays the first legal card
            legal = deal.legal_actions()
            deal.apply(legal[-1] if deal.current_player == 0 else legal[0])
        check_finished(deal)
        assert deal.tricks_won == (8, 0)
        assert deal.result.teams[0].card_points == 252
        assert deal.result.made


# --------------------------------------------------------------- records, clone
@FAST
@given(seed=seeds, preset=presets, policy_seed=seeds, pass_prob=pass_probs,
       stop=st.one_of(st.none(), st.integers(0, 45)), forced=st.booleans())
def test_deal_record_roundtrip(seed, preset, policy_seed, pass_prob, stop, forced):
    deal = Deal(preset, seed=seed)
    rng = np.random.default_rng(policy_seed)
    if forced:
        rules = deal.rules
        if rules.family == "classic":
            deal.with_contract(0, int(rng.choice(rules.allowed_strains)), taker=int(rng.integers(4)))
        else:
            deal.with_contract(int(rng.choice(rules.bid_values)), int(rng.choice(rules.allowed_strains)),
                               taker=int(rng.integers(4)), coinche=int(rng.integers(3)))
    play_checked(deal, rng, pass_prob, max_steps=stop)
    rec = deal_to_record(deal)
    # the record is plain JSON
    rec2 = json.loads(json.dumps(rec))
    assert rec2 == rec
    again = replay_deal(rec2)
    assert again == deal
    assert again.history == deal.history
    assert deal_to_record(again) == rec


#: rule variants: every parameter a record must carry through its overrides
variant_rules = st.fixed_dictionaries({
    "capot_after_coinche": st.booleans(),
    "multipliers": st.sampled_from([(2, 4), (2, 3)]),
    "declarations_share_cards": st.booleans(),
    "carre_low_cancels": st.booleans(),
    "optional_declare": st.booleans(),
    "optional_belote": st.booleans(),
    "belote_takeable": st.booleans(),
    "contract_counts": st.sampled_from(["cards", "cards+belote", "cards+declarations",
                                        "cards+belote+declarations"]),
    "made_conditions": st.sampled_from(["both", "bid_only"]),
    "fail_base": st.sampled_from([160, 162]),
    "coinche_scoring": st.sampled_from(["ffb", "cards_plus_bid"]),
    "at_points": st.sampled_from(["ffb", "vip", "scaled"]),
    "generale_bonus": st.sampled_from([0, 350]),
    "must_undertrump": st.booleans(),
    "overtrump_partner": st.booleans(),
    "rounding": st.sampled_from(["nearest10", "none"]),
    "max_bid": st.sampled_from([160, 180]),
    "target": st.sampled_from([500, 1000, 2000]),
}).map(lambda over: get_rules("ffb_sa_ta", **over))


@FEW
@given(rules=variant_rules, seed=seeds, policy_seed=seeds, pass_prob=pass_probs)
def test_deal_record_roundtrip_rule_variants(rules, seed, policy_seed, pass_prob):
    """Records carry every override (optional declare / belote choices included) and
    replay to the same deal; the card invariants hold under every variant."""
    deal = Deal(rules, seed=seed)
    play_checked(deal, np.random.default_rng(policy_seed), pass_prob)
    if not deal.is_void:
        check_finished(deal)
    rec = json.loads(json.dumps(deal_to_record(deal)))
    again = replay_deal(rec)
    assert again.rules == rules
    assert again == deal


@FEW
@given(seed=seeds, preset=presets, policy_seed=seeds, pass_prob=pass_probs,
       target=st.sampled_from([300, 600, 1000]), shuffle=st.booleans(),
       stop=st.one_of(st.none(), st.integers(0, 150)))
def test_match_record_roundtrip(seed, preset, policy_seed, pass_prob, target, shuffle, stop):
    rules = get_rules(preset, target=target, shuffle_between_deals=shuffle)
    m = Match(rules, seed=seed)
    rng = np.random.default_rng(policy_seed)
    steps = 0
    while not m.is_terminal and (stop is None or steps < stop):
        m.apply(random_action(m, rng, pass_prob))
        steps += 1
    rec = json.loads(json.dumps(match_to_record(m)))
    out = replay_match(rec)
    deals = list(m.deals) + ([m.deal] if not m.is_terminal and m.deal.history else [])
    assert len(out["deals"]) == len(deals)
    for a, b in zip(out["deals"], deals):
        assert a == b
    assert out["scores"] == list(m.scores)
    assert out["winner"] == m.winner
    assert out["rules"] == m.rules
    if stop is None:
        assert m.winner in (0, 1)


@FAST
@given(seed=seeds, preset=presets, policy_seed=seeds, pass_prob=pass_probs,
       split=st.integers(0, 40))
def test_clone_independence(seed, preset, policy_seed, pass_prob, split):
    deal = Deal(preset, seed=seed)
    rng = np.random.default_rng(policy_seed)
    play_checked(deal, rng, pass_prob, max_steps=split)
    if deal.is_terminal:
        clone = deal.clone()
        assert clone == deal and clone is not deal
        return
    state = deal.state.copy()
    history = deal.history
    record = deal_to_record(deal)
    clone = deal.clone()
    assert clone == deal
    # play the clone to the end: the original must not move
    play_checked(clone, rng, pass_prob)
    assert np.array_equal(deal.state, state)
    assert deal.history == history
    assert deal_to_record(deal) == record
    assert clone != deal
    # and the other way round: moving the original leaves a fresh clone alone
    clone2 = deal.clone()
    snap2 = clone2.state.copy()
    deal.apply(random_action(deal, rng, pass_prob))
    assert np.array_equal(clone2.state, snap2) and clone2.history == history


@FEW
@given(seed=seeds, policy_seed=seeds, split=st.integers(0, 120), shuffle=st.booleans())
def test_match_clone_independence(seed, policy_seed, split, shuffle):
    rules = get_rules("ffb", target=500, shuffle_between_deals=shuffle)
    m = Match(rules, seed=seed)
    rng = np.random.default_rng(policy_seed)
    for _ in range(split):
        if m.is_terminal:
            break
        m.apply(random_action(m, rng, 0.5))
    if m.is_terminal:
        return
    snap = (list(m.scores), len(m.deals), m.deal.clone(), m.winner)
    c = m.clone()
    # same future: applying the same actions to both gives the same deals (the clone
    # copies the random generator, so the next deals are dealt alike)
    rng_a = np.random.default_rng(policy_seed + 1)
    actions = []
    while not c.is_terminal and len(actions) < 200:
        a = random_action(c, rng_a, 0.5)
        actions.append(a)
        c.apply(a)
    assert (list(m.scores), len(m.deals), m.deal, m.winner) == snap
    for a in actions:
        m.apply(a)
    assert m.scores == c.scores and m.winner == c.winner
    assert len(m.deals) == len(c.deals)
    assert all(x == y for x, y in zip(m.deals, c.deals))
    assert m.deal == c.deal


# -------------------------------------------------------------------- notation
def test_card_notation_roundtrip_all_cards():
    texts = [format_card(c) for c in range(32)]
    assert len(set(texts)) == 32
    for c, t in enumerate(texts):
        assert parse_card(t) == c
        assert parse_card(t.lower()) == c
        if t[0] == "T":
            assert parse_card("10" + t[1]) == c


@settings(max_examples=300, deadline=None)
@given(mask=st.integers(min_value=0, max_value=FULL_DECK))
def test_hand_notation_roundtrip(mask):
    text = format_hand(mask)
    assert parse_hand(text) == mask
    assert len(text.split()) == popcount(mask)
    # commas and lower case are accepted on input
    assert parse_hand(text.lower().replace(" ", ",")) == mask


def test_action_notation_roundtrip_all_ids():
    seen = set()
    for a in range(A.N_ACTIONS):
        text = A.action_to_str(a)
        assert A.parse_action(text) == a, text
        assert A.parse_action(text.lower()) == a
        assert A.parse_action(text.upper()) == a
        seen.add(text)
    assert len(seen) == A.N_ACTIONS


# ------------------------------------------------------------------ simulation
@FEW
@given(seed=st.integers(0, 2**31 - 1), preset=presets,
       pass_prob=st.sampled_from([None, 0.0, 0.6]))
def test_simulate_deals_reproducible_and_prefix(seed, preset, pass_prob):
    big = simulate_deals(200, rules=preset, seed=seed, pass_prob=pass_prob)
    again = simulate_deals(200, rules=preset, seed=seed, pass_prob=pass_prob)
    small = simulate_deals(10, rules=preset, seed=seed, pass_prob=pass_prob)
    for field in ("scores", "value", "strain", "coinche", "taker", "made", "card_points",
                  "tricks0"):
        assert np.array_equal(getattr(big, field), getattr(again, field)), field
        assert np.array_equal(getattr(small, field), getattr(big, field)[:10]), field
    assert len(big) == 200 and len(small) == 10


@FEW
@given(seed=st.integers(0, 2**31 - 1), preset=presets, contract=st.booleans())
def test_simulated_card_points(seed, preset, contract):
    rules = get_rules(preset)
    if contract:
        rng = np.random.default_rng(seed)
        strain = int(rng.choice(rules.allowed_strains))
        if rules.family == "classic":
            c = (0, strain, 0, int(rng.integers(4)))
        else:
            value = int(rng.choice(rules.bid_values + (250,)))
            c = (value, strain, int(rng.integers(3)), int(rng.integers(4)))
    else:
        c = None
    res = simulate_deals(300, rules=rules, seed=seed, contract=c)
    played = res.played
    assert np.array_equal(played, res.made != -1)
    if c is not None:
        assert played.all()
        assert (res.value == c[0]).all() and (res.strain == c[1]).all()
        assert (res.coinche == c[2]).all() and (res.taker == c[3]).all()
    total = res.card_points.sum(axis=1)
    capot = (res.tricks0 == 0) | (res.tricks0 == 8)
    # a capot is 252 (funbelote: 350 when one taker won every trick, a générale)
    capot_totals = {252, rules.generale_bonus} if rules.generale_bonus else {252}
    assert set(np.unique(total[played & capot]).tolist()) <= capot_totals
    assert np.all(total[played & ~capot] == 162)
    assert np.all(res.card_points[~played] == 0)
    assert set(np.unique(res.made[played]).tolist()) <= ({0, 1, 2} if rules.family == "classic" else {0, 1})
    assert np.all(res.made[~played] == -1)


@pytest.mark.parametrize("rules_name", sorted(STRAIN_RULES))
def test_simulated_card_points_every_strain(rules_name):
    rules = STRAIN_RULES[rules_name]
    for strain in rules.allowed_strains:
        for value in (80, 250):
            res = simulate_deals(400, rules=rules, seed=strain * 7 + value,
                                 contract=(value, strain, 0, strain % 4))
            total = res.card_points.sum(axis=1)
            capot = (res.tricks0 == 0) | (res.tricks0 == 8)
            assert np.all(np.where(capot, total == 252, total == 162)), (strain, value)


def test_random_play_phase_reproducible_and_prefix():
    for strain in (0, 1):
        a = random_play_phase(300, strain=strain, seed=11)
        b = random_play_phase(300, strain=strain, seed=11)
        c = random_play_phase(10, strain=strain, seed=11)
        assert np.array_equal(a, b)
        assert np.array_equal(c, a[:10])
        assert ((a >= 0) & (a <= 252)).all()
        assert not np.array_equal(a, random_play_phase(300, strain=strain, seed=12))


def test_random_playouts_reproducible_and_leave_deal_alone():
    deal = Deal("ffb_sa_ta", seed=4)
    deal.apply("100S")
    before = deal.clone()
    a = random_playouts(deal, 200, seed=5)
    b = random_playouts(deal, 200, seed=5)
    c = random_playouts(deal, 10, seed=5)
    assert deal == before
    assert a.shape == (200, 2)
    assert np.array_equal(a, b)
    assert np.array_equal(c, a[:10])
