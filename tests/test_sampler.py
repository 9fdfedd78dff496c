"""World sampler (``coinche_rl.agents.sampler``).

1. Soundness: in random deals of every preset, at every step (auction / prise, play,
   done) and for every seat, the true hands are a world of the sampler (count > 0, found
   by ``index_of``) and every sampled world satisfies the information set.
2. Exact counts: on small positions (late in random deals, the classic prise with the
   stock, hand-built voids and ceilings) ``count`` and ``all_worlds`` equal a brute-force
   enumeration of every split of the unknown cards filtered by ``is_consistent``;
   closed forms for fresh hands and simple extra constraints.
3. Uniformity: chi-square tests of sampled worlds against the exhaustive list (fixed
   seeds, p-value threshold 1e-3), and z-tests of every card's seat frequency against
   its exact probability (a count with an extra ``holds`` constraint) on large positions
   where the world count is beyond 2**32.
4. Determinism by seed, the numba entry points, the bijection world <-> index,
   weighted (importance) sampling, constraints and errors.
"""

import doctest
import itertools
import math
import sys
from pathlib import Path

import numpy as np
import pytest

from coinche_rl import actions as A
from coinche_rl import engine as E
from coinche_rl.agents import sampler as SM
from coinche_rl.agents.sampler import (NoConsistentWorld, SamplerError, WorldSampler,
                                       count_worlds, from_hand, sample_worlds)
from coinche_rl.cards import parse_card, parse_hand, popcount
from coinche_rl.envs.infoset import ALL_CARDS, information_set
from coinche_rl.game import Deal
from coinche_rl.rules import FOUR_PLAYER_PRESETS
from coinche_rl.rules import PRESETS, get_rules

from test_infoset import random_trace as infoset_trace

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
from bench_lib import sampler_throughput  # noqa: E402  (the benchmark helper, out of the library)

S, H, D, C, NT, AT = range(6)
ALL_PRESETS = list(FOUR_PLAYER_PRESETS)


# ------------------------------------------------------------------ helpers
def random_trace(rules, rng):
    """The deals after 0, 1, ... actions of a random deal, dealer drawn too
    (``test_infoset.random_trace``)."""
    return infoset_trace(rules, rng, random_dealer=True)[0]


def played_deal(rules, seed, n_cards, strain=H, taker=0):
    """A deal with a set contract after ``n_cards`` random legal actions."""
    rng = np.random.default_rng(seed)
    r = get_rules(rules)
    d = Deal(r, seed=seed, dealer=3)
    d.with_contract(0 if r.family == "classic" else 80, strain, taker=taker)
    while len(d.plays) < n_cards and not d.is_terminal:
        legal = d.legal_actions()
        d.apply(legal[rng.integers(len(legal))])
    return d


def gone_of(info):
    g = info.played
    if info.retourne is not None and info.contract is None:
        g |= 1 << info.retourne
    return g


def bits(m):
    return [c for c in range(32) if m >> c & 1]


def brute_worlds(info):
    """Every world ``info.is_consistent`` accepts: each other seat's known cards plus
    any subset of the free cards of the right size (the rest undealt). Subsets are
    drawn from the seat's possible cards only, which ``is_consistent`` demands anyway."""
    free = ALL_CARDS & ~gone_of(info)
    for k in info.known:
        free &= ~k
    others = [s for s in range(4) if s != info.seat]
    need = {s: info.hand_sizes[s] - popcount(info.known[s]) for s in others}
    out = set()

    def rec(i, rest, hands):
        if i == len(others):
            if info.is_consistent(hands):
                out.add(tuple(hands))
            return
        s = others[i]
        for combo in itertools.combinations(bits(rest & info.possible[s]), need[s]):
            m = sum(1 << c for c in combo)
            h = list(hands)
            h[s] = info.known[s] | m
            rec(i + 1, rest & ~m, h)

    rec(0, free, list(info.known))
    return out


def chi2_sf(x, k):
    """Upper tail of the chi-square distribution with ``k`` degrees of freedom
    (regularized upper incomplete gamma Q(k/2, x/2): series below, continued fraction
    above a+1)."""
    a, z = k / 2.0, x / 2.0
    if z <= 0:
        return 1.0
    lead = math.exp(-z + a * math.log(z) - math.lgamma(a))
    if z < a + 1:
        term = total = 1.0 / a
        n = 1
        while abs(term) > 1e-15 * abs(total):
            term *= z / (a + n)
            total += term
            n += 1
        return max(0.0, 1.0 - lead * total)
    tiny = 1e-300
    b = z + 1 - a
    c = 1 / tiny
    d = 1 / b
    h = d
    for i in range(1, 10_000):
        an = -i * (i - a)
        b += 2
        d = an * d + b
        d = tiny if abs(d) < tiny else d
        c = b + an / c
        c = tiny if abs(c) < tiny else c
        d = 1 / d
        delta = d * c
        h *= delta
        if abs(delta - 1) < 1e-15:
            break
    return lead * h


def chi2_uniform(sampler, n_per_world, seed):
    worlds = sampler.all_worlds()
    index = {tuple(w): i for i, w in enumerate(worlds)}
    n = n_per_world * len(worlds)
    drawn = sampler.sample(n, seed)
    counts = np.zeros(len(worlds))
    for w in drawn:
        counts[index[tuple(w)]] += 1
    expected = n / len(worlds)
    x = float(((counts - expected) ** 2 / expected).sum())
    return chi2_sf(x, len(worlds) - 1)


def small_positions(max_count=600, min_count=20):
    """Late positions of random deals (several presets and strains) with a world count
    in [min_count, max_count], one per (preset, seed)."""
    out = []
    for preset, strain, seed in [("ffb", H, 1), ("ffb_sa_ta", AT, 2), ("ffb_sa_ta", NT, 3),
                                 ("funbelote", S, 4), ("coinche_x3", D, 5), ("classic", C, 6),
                                 ("classic_declarations", H, 7), ("ludiclub_coinche", AT, 8)]:
        for n_cards in range(16, 30):
            d = played_deal(preset, seed, n_cards, strain=strain, taker=seed % 4)
            if d.is_terminal:
                break
            seat = d.current_player
            s = WorldSampler(information_set(d, seat))
            if min_count <= s.count <= max_count:
                out.append((preset, d, seat, s))
                break
    return out


# ------------------------------------------------------------------ 1. soundness
@pytest.mark.parametrize("preset", ALL_PRESETS)
def test_true_hands_are_worlds_and_samples_are_consistent(preset):
    rng = np.random.default_rng(sum(map(ord, preset)))
    phases = set()
    for k in range(2):
        trace = random_trace(preset, rng)
        for step, d in enumerate(trace):
            truth = d.hands
            for seat in range(4):
                info = information_set(d, seat)
                s = WorldSampler(info)
                phases.add(info.phase)
                assert s.count > 0
                x = s.index_of(truth)
                assert 0 <= x < s.count
                assert list(s.world(x)) == truth
                if (step + seat) % 3 == 0:
                    worlds = s.sample(6, seed=step * 4 + seat, stock=True)
                    for w in worlds:
                        assert info.is_consistent(w[:4])
                        rest = ALL_CARDS & ~gone_of(info) & ~int(np.bitwise_or.reduce(w[:4]))
                        assert int(w[4]) == rest and popcount(rest) == s.stock_size
    assert phases == {"auction", "play", "done"}


def test_classic_prise_has_the_undealt_stock():
    d = Deal("classic", seed=11, dealer=2)
    assert d.phase == "auction" and d.retourne is not None
    info = information_set(d, 1)
    s = WorldSampler(info)
    assert s.stock_size == 11 and s.n_free == 26
    assert s.count == math.factorial(26) // (math.factorial(5) ** 3 * math.factorial(11))
    assert s.count > 2 ** 32
    w = s.sample(200, seed=3, stock=True)
    assert all(info.is_consistent(row[:4]) for row in w)
    assert np.all(w[:, 4] >> d.retourne & 1 == 0)
    assert [popcount(int(m)) for m in w[0]] == [5, 5, 5, 5, 11]
    # after the prise: 8 cards each, the retourne in the taker's hand, no stock
    d.apply(A.TAKE)
    info = information_set(d, 0)
    s = WorldSampler(info)
    assert s.stock_size == 0
    taker = info.contract.taker
    if taker != 0:
        assert np.all(s.sample(100, 1)[:, taker] >> d.retourne & 1 == 1)


# ------------------------------------------------------------------ 2. exact counts
def test_counts_and_world_lists_equal_brute_force_on_late_positions():
    checked = 0
    for preset in ("ffb", "ffb_sa_ta", "funbelote", "classic", "coinche_x3", "ludiclub_coinche"):
        for seed in range(3):
            for strain in (H, NT, AT) if "sa_ta" in preset or preset == "funbelote" else (S, D):
                d = played_deal(preset, 100 + seed, 20 + 3 * seed, strain=strain, taker=seed)
                for seat in range(4):
                    info = information_set(d, seat)
                    s = WorldSampler(info)
                    if s.count > 3000:
                        continue
                    brute = brute_worlds(info)
                    assert s.count == len(brute) == count_worlds(info)
                    mine = s.all_worlds()
                    assert {tuple(int(x) for x in w) for w in mine} == brute
                    assert len({tuple(w) for w in mine}) == s.count
                    checked += 1
    assert checked >= 40


def test_counts_with_voids_and_ceilings_equal_brute_force():
    # seat 1 and 3 show voids, seat 2 a ceiling, early enough for a real mix of groups
    hands = ["JH 9H AH TH KS QS 7D 8D", "JS 9S AS TS KH QH 7C 8C",
             "JD 9D AD TD KC QC 7H 8H", "JC 9C AC TC KD QD 7S 8S"]
    d = Deal("ffb", hands=hands, dealer=3).with_contract(80, H, taker=0)
    for c in ["7D", "KH", "JD", "QD",          # seat 1 trumps: void in diamonds
              "QH", "7H", "8S", "JH",          # seat 2 under Q: ceiling; seat 3 void in hearts
              "9H", "8C", "8H", "7S",          # seat 1 void in hearts
              "KS", "AS", "9D", "KD"]:         # seats 2 and 3 void in spades (and trumps)
        d.apply(c)
    for seat in range(4):
        info = information_set(d, seat)
        s = WorldSampler(info)
        brute = brute_worlds(info)
        assert s.count == len(brute) and s.count > 1
        assert {tuple(int(x) for x in w) for w in s.all_worlds()} == brute
    info = information_set(d, 0)
    assert info.voids[1] & (1 << D) and info.voids[3] & (1 << H)


def test_counts_with_the_stock_equal_brute_force():
    hand = parse_hand("AS TS KS QS JS")
    holds = {1: "AH TH KH QH", 2: "AD TD KD QD", 3: "AC TC KC"}
    s = from_hand("classic", 0, hand, retourne="7H", holds=holds, lacks={1: "8C 9C QC"})
    brute = brute_worlds(s.info)
    assert s.count == len(brute) > 100 and s.stock_size == 11
    assert {tuple(int(x) for x in w) for w in s.all_worlds()} == brute
    stocks = s.all_worlds(stock=True)[:, 4]
    assert all(popcount(int(m)) == 11 for m in stocks)


def test_closed_forms_for_fresh_hands_and_simple_constraints():
    f = math.factorial
    hand = parse_hand("JH 9H AH TH KS QS 7D 8D")
    full = f(24) // f(8) ** 3
    assert from_hand("ffb", 0, hand).count == full
    assert from_hand("classic", 2, hand).count == full            # after the prise
    assert from_hand("ffb", 0, hand, holds={1: "AS"}).count == math.comb(23, 7) * math.comb(16, 8)
    assert from_hand("ffb", 0, hand, lacks={1: "AS"}).count == full * 2 // 3
    assert from_hand("ffb", 0, hand, holds={1: "AS", 3: "AC"}).count == (
        math.comb(22, 7) * math.comb(15, 8))
    # a whole suit barred from two seats lies with the third
    lacks = {1: "7C 8C 9C TC JC QC KC AC", 2: "7C 8C 9C TC JC QC KC AC"}
    assert from_hand("ffb", 0, hand, lacks=lacks).count == f(16) // f(8) ** 2
    p = from_hand("classic", 0, "AS TS KS QS JS", retourne="7H")
    assert p.count == f(26) // (f(5) ** 3 * f(11))
    assert from_hand("classic", 0, "AS TS KS QS JS").count == f(27) // (f(5) ** 3 * f(12))


def test_end_of_deal_has_one_empty_world():
    d = played_deal("ffb", 5, 32)
    assert d.is_terminal
    s = WorldSampler(information_set(d, 2))
    assert s.count == 1 and list(s.sample(3, 0)[1]) == [0, 0, 0, 0]


# ------------------------------------------------------------------ 3. uniformity
def test_uniform_against_exhaustive_enumeration():
    positions = small_positions()
    assert len(positions) >= 5
    for preset, d, seat, s in positions:
        p = chi2_uniform(s, 30, seed=sum(map(ord, preset)))
        assert p > 1e-3, (preset, s.count, p)


def test_the_uniformity_test_catches_a_biased_sampler():
    """Giving each card to a random allowed seat with room (and rejecting dead ends)
    is the classic biased shortcut: the same chi-square test rejects it."""
    preset, d, seat, s = small_positions()[0]
    info = s.info
    others = [p for p in range(4) if p != info.seat]
    rng = np.random.default_rng(0)
    worlds = s.all_worlds()
    index = {tuple(int(x) for x in w): i for i, w in enumerate(worlds)}
    counts = np.zeros(len(worlds))
    n = 30 * len(worlds)
    drawn = 0
    while drawn < n:
        need = {p: info.hand_sizes[p] - popcount(info.known[p]) for p in others}
        hands = list(info.known)
        for c in bits(info.unknown_cards):
            opts = [p for p in others if need[p] > 0 and info.possible[p] >> c & 1]
            if not opts:
                break
            p = opts[rng.integers(len(opts))]
            hands[p] |= 1 << c
            need[p] -= 1
        else:
            if info.is_consistent(hands):
                counts[index[tuple(hands)]] += 1
                drawn += 1
    x = float(((counts - n / len(worlds)) ** 2 / (n / len(worlds))).sum())
    assert chi2_sf(x, len(worlds) - 1) < 1e-6


def test_uniform_with_the_stock_and_uneven_groups():
    s = from_hand("classic", 0, "AS TS KS QS JS", retourne="7H",
                  holds={1: "AH TH KH QH", 2: "AD TD KD QD", 3: "AC TC KC JC QC"},
                  lacks={1: "8C 9C 8D", 2: "7S 8S 9S"})
    assert 50 < s.count < 1000
    assert chi2_uniform(s, 30, seed=9) > 1e-3


def test_chi2_helper_is_right():
    # known quantiles: chi2(1) 3.841 -> 0.05, chi2(10) 18.307 -> 0.05, chi2(300) 341.4 -> 0.05
    assert chi2_sf(3.841, 1) == pytest.approx(0.05, abs=1e-3)
    assert chi2_sf(18.307, 10) == pytest.approx(0.05, abs=1e-3)
    assert chi2_sf(341.395, 300) == pytest.approx(0.05, abs=1e-3)
    assert chi2_sf(2.0, 10) == pytest.approx(0.99634, abs=1e-4)


@pytest.mark.parametrize("which", ["first trick", "after voids", "classic prise"])
def test_card_marginals_match_exact_probabilities(which):
    if which == "classic prise":
        info = information_set(Deal("classic", seed=4, dealer=0), 3)
    elif which == "first trick":
        info = information_set(played_deal("ffb", 21, 2, strain=S), 2)
    else:
        hands = ["JH 9H AH TH KS QS 7D 8D", "JS 9S AS TS KH QH 7C 8C",
                 "JD 9D AD TD KC QC 7H 8H", "JC 9C AC TC KD QD 7S 8S"]
        d = Deal("ffb", hands=hands, dealer=3).with_contract(80, H, taker=0)
        for c in ["7D", "KH", "JD", "QD", "QH", "7H", "8S", "JH"]:
            d.apply(c)
        info = information_set(d, 0)
    s = WorldSampler(info)
    assert s.count > {"classic prise": 2 ** 32, "first trick": 10 ** 7}.get(which, 10 ** 5)
    n = 20_000
    w = s.sample(n, seed=77)
    free = info.unknown_cards
    worst = 0.0
    for seat in range(4):
        if seat == info.seat:
            continue
        for c in bits(free):
            if not info.possible[seat] >> c & 1:
                assert not np.any(w[:, seat] >> c & 1)
                continue
            p = count_worlds(info, holds={seat: 1 << c}) / s.count
            freq = float(np.mean(w[:, seat] >> c & 1))
            if 0 < p < 1:
                worst = max(worst, abs(freq - p) / math.sqrt(p * (1 - p) / n))
            else:
                assert freq == p
    assert worst < 4.5


# ------------------------------------------------------------------ 4. determinism, numba API
def test_same_seed_same_worlds_and_independent_of_batching():
    s = from_hand("ffb", 1, "JH 9H AH TH KS QS 7D 8D")
    a = s.sample(50, seed=123)
    assert np.array_equal(a, s.sample(50, seed=123))
    assert np.array_equal(a[:20], s.sample(20, seed=123))
    assert not np.array_equal(a, s.sample(50, seed=124))
    assert len({tuple(w) for w in a}) == 50
    assert np.array_equal(sample_worlds(s.info, 50, 123), a)


def test_numba_entry_points_match_the_python_api():
    d = played_deal("ffb_sa_ta", 8, 9, strain=AT)
    info = information_set(d, d.current_player)
    s = WorldSampler(info)
    table = SM.new_table()
    count = SM.build_table(table, info.seat, np.array(info.hand_sizes, np.int64),
                           np.array(info.known, np.int64), np.array(info.possible, np.int64),
                           gone_of(info))
    assert count == s.count and np.array_equal(table[:SM.T_W], s.table[:SM.T_W])
    rng = np.zeros(1, np.uint64)
    ref = np.zeros(1, np.uint64)
    out = np.zeros(4, np.int64)
    batch = s.sample(5, seed=42)
    for j in range(5):
        SM.seed_rng(rng, 42, j)
        E.rng_seed(ref, 42, j)
        assert rng[0] == ref[0]                    # the engine's streams
        assert SM.sample_into(table, rng, out)
        assert np.array_equal(out, batch[j])
    # a table with no world: sample_into says so and leaves out alone
    empty = WorldSampler(info, lacks={s: info.possible[s] & ~info.known[s]
                                      for s in range(4) if s != info.seat
                                      and info.hand_sizes[s] > popcount(info.known[s])})
    assert empty.count == 0
    out[:] = -1
    assert not SM.sample_into(empty.table, rng, out) and np.all(out == -1)
    assert empty.index_of(d.hands) == -1


def test_index_and_world_are_inverse():
    for preset, d, seat, s in small_positions(max_count=3000, min_count=2)[:4]:
        for x in range(s.count):
            assert s.index_of(s.world(x)) == x
    s = WorldSampler(information_set(played_deal("ffb", 3, 5), 1))
    for x in np.random.default_rng(0).integers(0, s.count, 200):
        assert s.index_of(s.world(int(x))) == x
    w = s.world(0)
    assert s.index_of([w[1], w[0], w[2], w[3]]) == -1     # the observer's hand is fixed
    moved = w.copy()
    low2 = int(w[2]) & -int(w[2])
    moved[2] ^= low2
    moved[3] |= low2
    assert s.index_of(moved) == -1                         # wrong hand sizes


# ------------------------------------------------------------------ weighted sampling
def test_weighted_sampling_is_exact_when_every_world_is_weighted():
    positions = small_positions(max_count=400, min_count=20)
    preset, d, seat, s = positions[0]
    other = (seat + 1) % 4
    free = s.info.unknown_cards & s.info.possible[other]
    c = bits(free)[0]
    p = count_worlds(s.info, holds={other: 1 << c}) / s.count
    assert 0 < p < 1
    hands, ess = s.sample_weighted(40_000, 5, lambda h: np.where(h[:, other] >> c & 1, 3.0, 1.0),
                                   candidates=s.count, return_ess=True)
    expect = 3 * p / (3 * p + 1 - p)
    assert np.mean(hands[:, other] >> c & 1) == pytest.approx(expect, abs=0.015)
    assert 0 < ess <= s.count
    assert all(s.info.is_consistent(h) for h in hands[:200])


def test_weighted_sampling_by_importance_concentrates():
    s = from_hand("ffb", 0, "JH 9H AH TH KS QS 7D 8D")
    spades = parse_hand("AS TS JS 9S")
    # a bidding model in caricature: seat 1 bid spades, so worlds where it holds the
    # jack of spades are 20 times as likely
    js = parse_card("JS")

    def weight(h):
        return np.where(h[:, 1] >> js & 1, 20.0, 1.0)

    hands = s.sample_weighted(2000, 1, weight, candidates=20_000)
    expect = 20 / 3 / (20 / 3 + 2 / 3)                  # prior P = 1/3
    assert np.mean(hands[:, 1] >> js & 1) == pytest.approx(expect, abs=0.03)
    # a hard constraint as a 0/1 weight, per world
    only = s.sample_weighted(300, 2, lambda w: float(popcount(int(w[1]) & spades) >= 3),
                             candidates=5000, vectorized=False)
    assert all(popcount(int(w[1]) & spades) >= 3 for w in only)
    assert np.array_equal(only, s.sample_weighted(
        300, 2, lambda w: float(popcount(int(w[1]) & spades) >= 3), candidates=5000,
        vectorized=False))


def test_weighted_sampling_rejects_bad_weights():
    s = from_hand("ffb", 0, "JH 9H AH TH KS QS 7D 8D")
    with pytest.raises(SamplerError, match="weight 0"):
        s.sample_weighted(5, 0, lambda h: np.zeros(len(h)), candidates=50)
    with pytest.raises(SamplerError, match="non-negative"):
        s.sample_weighted(5, 0, lambda h: -np.ones(len(h)), candidates=50)
    with pytest.raises(SamplerError, match="non-negative"):
        s.sample_weighted(5, 0, lambda h: np.full(len(h), np.nan), candidates=50)
    with pytest.raises(SamplerError, match="shape"):
        s.sample_weighted(5, 0, lambda h: 1.0, candidates=50)


# ------------------------------------------------------------------ constraints and errors
def test_holds_and_lacks_are_merged_into_the_information_set():
    d = played_deal("ffb", 12, 6, strain=D)
    info = information_set(d, 0)
    truth = d.hands
    c1 = bits(truth[1] & info.unknown_cards)[0]
    c2 = bits(truth[2] & info.unknown_cards)[0]
    s = WorldSampler(info, holds={1: 1 << c1}, lacks=[0, 0, 1 << c1, 1 << c2])
    assert s.info.known[1] >> c1 & 1 and not s.info.possible[3] >> c2 & 1
    assert s.index_of(truth) >= 0                       # the constraints are true
    w = s.sample(300, 3)
    assert np.all(w[:, 1] >> c1 & 1) and not np.any(w[:, 3] >> c2 & 1)
    assert all(s.info.is_consistent(x) and info.is_consistent(x) for x in w)
    # summing over the holder of a card gives the whole count
    total = sum(count_worlds(info, holds={p: 1 << c2}) for p in (1, 2, 3)
                if info.possible[p] >> c2 & 1)
    assert total == count_worlds(info)


def test_constraint_errors_name_what_is_wrong():
    hand = parse_hand("JH 9H AH TH KS QS 7D 8D")
    with pytest.raises(SamplerError, match="observer"):
        from_hand("ffb", 0, hand, holds={0: "AS"})
    with pytest.raises(SamplerError, match="observer"):
        from_hand("ffb", 0, hand, lacks={0: "JH"})
    with pytest.raises(SamplerError, match="cannot hold"):
        from_hand("ffb", 0, hand, holds={1: "JH"})
    with pytest.raises(SamplerError, match="both"):
        from_hand("ffb", 0, hand, holds={1: "AS", 2: "AS"})
    with pytest.raises(SamplerError, match="holds and lacks"):
        from_hand("ffb", 0, hand, holds={1: "AS"}, lacks={1: "AS"})
    with pytest.raises(SamplerError, match="holds 8 cards"):
        from_hand("ffb", 0, hand, holds={1: "AS TS 7S 8S 9S JS AC TC 7C"})
    with pytest.raises(SamplerError, match="seats 0..3"):
        from_hand("ffb", 0, hand, holds={4: "AS"})
    with pytest.raises(SamplerError, match="sequence of 4"):
        from_hand("ffb", 0, hand, holds=["AS"])
    with pytest.raises(SamplerError, match="not a card"):
        from_hand("ffb", 0, hand, holds={1: [40]})
    with pytest.raises(SamplerError, match="8 cards, not 5"):
        from_hand("ffb", 0, "AS TS KS QS JS")
    with pytest.raises(SamplerError, match="prise"):
        from_hand("ffb", 0, hand, retourne="AS")
    with pytest.raises(SamplerError, match="in the hand"):
        from_hand("classic", 0, "AS TS KS QS JS", retourne="AS")
    with pytest.raises(SamplerError, match="seat must be"):
        from_hand("ffb", 4, hand)
    with pytest.raises(SamplerError, match="InformationSet"):
        WorldSampler("ffb")
    s = from_hand("ffb", 0, hand)
    for bad in (-1, 2 ** 63, 1.5, True):
        with pytest.raises(SamplerError, match="seed"):
            s.sample(3, bad)
    with pytest.raises(SamplerError, match="non-negative int"):
        s.sample(-1)
    with pytest.raises(SamplerError, match="world index"):
        s.world(s.count)
    with pytest.raises(SamplerError, match="limit"):
        s.all_worlds(limit=1000)
    assert issubclass(SamplerError, ValueError)


def test_no_consistent_world_raises_on_sampling():
    hand = parse_hand("JH 9H AH TH KS QS 7D 8D")
    clubs = "7C 8C 9C TC JC QC KC AC"
    s = from_hand("ffb", 0, hand, lacks={1: clubs, 2: clubs, 3: clubs})
    assert s.count == 0 and s.all_worlds().shape == (0, 4)
    with pytest.raises(NoConsistentWorld, match="count 0"):
        s.sample(1)
    with pytest.raises(NoConsistentWorld):
        s.sample_weighted(1, 0, lambda h: np.ones(len(h)))


def test_auction_phase_is_a_plain_uniform_deal():
    d = Deal("ffb", seed=31, dealer=1)
    info = information_set(d, 2)
    s = WorldSampler(info)
    assert info.phase == "auction" and s.count == math.factorial(24) // math.factorial(8) ** 3
    assert s.info is info
    w = s.sample(6000, seed=2)
    for seat in (0, 1, 3):
        freq = np.mean([(w[:, seat] >> c) & 1 for c in bits(info.unknown_cards)], axis=1)
        assert np.all(np.abs(freq - 1 / 3) < 4.5 * math.sqrt(2 / 9 / 6000))


def test_throughput_function_and_doctest():
    assert sampler_throughput(worlds=2000, n_deals=1, repeats=1) > 0
    assert sampler_throughput("classic", worlds=500, n_deals=1, repeats=1,
                              with_tables=True) > 0
    SM.warmup()
    assert repr(from_hand("ffb", 0, 0xFF)).startswith("<WorldSampler seat=0 phase=auction")
    assert doctest.testmod(SM).failed == 0
