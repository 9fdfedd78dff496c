"""The exact double-dummy solver (``coinche_rl.solver``).

Exactness is checked against searches that share nothing with the solver:

* a brute-force minimax over the engine itself (``legal_actions_into`` +
  ``apply_legal_action`` on copies, the final ``S_CARD_POINTS`` / ``S_SCORE``) on random
  positions with at most 12 cards left, for every preset, both objectives, both teams,
  and on deals built so that capots and générales happen;
* every root move's value against an independent solve of the position after it, also
  for full deals and for first-trick positions with declare / belote choices pending;
* the same values with every search enhancement off, with the moves in a pseudo-random
  order, and with the direct search of the objective instead of the ``E`` search;
* the objective map ``f(E)`` against the engine's score at the end of random playouts,
  and non-decreasing for every preset, contract level and strain;
* the solver's legal cards (on its own card ids) against ``engine.legal_play_mask``.
"""

import zlib

import numpy as np
import pytest

from coinche_rl import engine as E
from coinche_rl import solver as SV
from coinche_rl.game import Deal
from coinche_rl.rules import FOUR_PLAYER_PRESETS
from coinche_rl.rules import PRESETS, get_rules, params_vector

BUF = np.zeros(E.N_ACTIONS, dtype=np.uint8)


# ------------------------------------------------------------------ the independent oracle
def legal(S, P):
    E.legal_actions_into(S, P, BUF)
    return [int(a) for a in np.flatnonzero(BUF)]


def final_value(S, objective, team):
    if objective == "points":
        return int(S[E.S_CARD_POINTS + team])
    return int(S[E.S_SCORE + team] - S[E.S_SCORE + 1 - team])


def brute(S, P, objective, team):
    """Plain minimax over the engine: the seat to act maximises its team's value."""
    if S[E.S_PHASE] == E.DONE:
        return final_value(S, objective, team)
    mx = (int(S[E.S_CUR]) & 1) == team
    vals = []
    for a in legal(S, P):
        C = S.copy()
        E.apply_legal_action(C, P, a)
        vals.append(brute(C, P, objective, team))
    return max(vals) if mx else min(vals)


def brute_moves(S, P, objective, team):
    out = []
    for a in legal(S, P):
        C = S.copy()
        E.apply_legal_action(C, P, a)
        out.append((a, brute(C, P, objective, team)))
    return out


def cards_left(S):
    return sum(bin(int(S[E.S_HAND + s])).count("1") for s in range(4))


def play_random(deal, rng, until_left):
    S, P = deal.state, deal.params
    while S[E.S_PHASE] == E.PLAY and cards_left(S) > until_left:
        acts = legal(S, P)
        E.apply_legal_action(S, P, acts[int(rng.integers(len(acts)))])
    return deal


def random_contract_deal(preset, rng, strains=None):
    rules = get_rules(preset)
    strain = int(rng.choice(strains or rules.allowed_strains))
    d = Deal(preset, dealer=int(rng.integers(4)), seed=int(rng.integers(1 << 30)))
    if rules.family == "classic":
        return d.with_contract(0, strain, taker=int(rng.integers(4)))
    value = 250 if rng.random() < 0.15 else int(rng.choice(rules.bid_values))
    return d.with_contract(value, strain, taker=int(rng.integers(4)), coinche=int(rng.integers(3)))


def strong_deal(preset, rng):
    """A deal where team 0 holds most of the strongest cards (capots, générales)."""
    rules = get_rules(preset)
    strain = int(rng.choice([s for s in rules.allowed_strains if s < 4]))
    order = sorted(range(32), key=lambda c: (-(c >> 3 == strain), -int(E.CARD_ORDER[strain, c])))
    top, bottom = order[:16], order[16:]
    for _ in range(int(rng.integers(0, 3))):
        i, j = int(rng.integers(16)), int(rng.integers(16))
        top[i], bottom[j] = bottom[j], top[i]
    if rng.random() < 0.5:
        rng.shuffle(top)
    rng.shuffle(bottom)
    hands = [top[:8], bottom[:8], top[8:], bottom[8:]]
    d = Deal(preset, hands=[sum(1 << c for c in h) for h in hands], dealer=3)
    value = 250 if rng.random() < 0.3 else int(rng.choice(rules.bid_values))
    return d.with_contract(value, strain, taker=int(rng.choice([0, 2, 1])),
                           coinche=int(rng.integers(3)))


def check_against_brute(solver, deal, label):
    for objective in ("points", "score"):
        for team in (0, 1):
            ref = brute_moves(deal.state, deal.params, objective, team)
            a, v = solver.move_values(deal, objective, team=team)
            assert list(zip(a.tolist(), v.tolist())) == ref, (label, objective, team)
            mx = (int(deal.state[E.S_CUR]) & 1) == team
            best = max(x for _, x in ref) if mx else min(x for _, x in ref)
            assert solver.solve(deal, objective, team=team) == best, (label, objective, team)


def child(deal, a):
    c = deal.clone()
    E.apply_legal_action(c.state, c.params, a)
    return c


# ------------------------------------------------------------------ the compact play
@pytest.mark.parametrize("rules", [get_rules("ffb_sa_ta"), get_rules("classic"),
                                   get_rules("funbelote"),
                                   get_rules("ffb_sa_ta", must_undertrump=True,
                                             overtrump_partner=False)])
def test_legal_ids_match_the_engine(rules):
    """The solver's legal cards (its own card ids) equal engine.legal_play_mask at every
    card of random games, every strain."""
    rng = np.random.default_rng(1)
    P = params_vector(rules)
    checked = 0
    for g in range(60):
        strain = int(rng.choice(rules.allowed_strains))
        d = Deal(rules, dealer=g % 4, seed=g)
        d.with_contract(0 if rules.family == "classic" else 80, strain, taker=0)
        S = d.state
        while S[E.S_PHASE] == E.PLAY:
            m = int(E.legal_play_mask(S, P))
            if m:
                cur = int(S[E.S_CUR])
                n = int(S[E.S_TRICK_N])
                hand = sum(1 << int(SV.PERM[strain, c]) for c in range(32) if S[E.S_HAND + cur] >> c & 1)
                led = int(S[E.S_PLAYS + 4 * S[E.S_TRICK_NO]]) >> 3 if n else 0
                win = int(SV.PERM[strain, S[E.S_WIN_CARD]]) if n else 0
                pm = n > 0 and int(S[E.S_WIN_SEAT]) == (cur + 2) & 3
                got = int(SV.legal_ids(hand, n, led, win, pm, strain, P[E.P_PLAY_RULES]))
                want = sum(1 << int(SV.PERM[strain, c]) for c in range(32) if m >> c & 1)
                assert got == want
                checked += 1
            acts = legal(S, P)
            E.apply_legal_action(S, P, acts[int(rng.integers(len(acts)))])
    assert checked > 1500


def test_card_ids_keep_suits_and_order():
    for strain in range(6):
        for c in range(32):
            i = int(SV.PERM[strain, c])
            assert i >> 3 == c >> 3 and int(SV.INV[strain, i]) == c
            assert i & 7 == int(E.CARD_ORDER[strain, c])


# ------------------------------------------------------------------ brute force
@pytest.mark.parametrize("preset", list(FOUR_PLAYER_PRESETS))
def test_small_endings_equal_brute_force(preset):
    """Every legal move's exact value (both objectives, both teams) on random positions
    with 4 to 12 cards left, mid-trick included, equals a plain minimax over the engine."""
    rng = np.random.default_rng(zlib.crc32(preset.encode()))
    solver = SV.Solver(tt_bits=12)
    for k in range(8):
        d = play_random(random_contract_deal(preset, rng), rng, int(rng.integers(4, 13)))
        check_against_brute(solver, d, (preset, k))


@pytest.mark.parametrize("preset", ["ffb_sa_ta", "coinche_x3", "classic_declarations",
                                    "ffb_sa_ta:must_undertrump=True,overtrump_partner=False"])
def test_three_card_endings_equal_brute_force(preset):
    """Positions with 13 or 14 cards left (the last cards of a trick, then the
    three-trick loop of three-card hands, with its TT entries): every move's value equals
    the brute force, for one objective and team drawn per position."""
    name, _, opts = preset.partition(":")
    rules = get_rules(name, **{k: v == "True" for k, v in
                               (o.split("=") for o in opts.split(",") if o)})
    rng = np.random.default_rng(zlib.crc32(preset.encode()))
    solver = SV.Solver(tt_bits=12)
    for k in range(6):
        d = play_random(random_contract_deal(rules, rng), rng, int(rng.integers(13, 15)))
        objective = ("points", "score")[k % 2]
        team = int(rng.integers(2))
        ref = brute_moves(d.state, d.params, objective, team)
        a, v = solver.move_values(d, objective, team=team)
        assert list(zip(a.tolist(), v.tolist())) == ref, (preset, k, objective, team)


@pytest.mark.parametrize("preset", ["ffb", "funbelote", "coinche_x3", "ludiclub_contree", "colver"])
def test_capots_and_generales_equal_brute_force(preset):
    """Deals where one team holds the strongest cards: capot (252, a capot contract made
    or failed) and générale (funbelote: 350) values against the brute force."""
    rng = np.random.default_rng(7 + len(preset))
    solver = SV.Solver(tt_bits=12)
    seen = set()
    for k in range(10):
        d = play_random(strong_deal(preset, rng), rng, int(rng.integers(4, 13)))
        check_against_brute(solver, d, (preset, k))
        seen.update(v for v in solver.move_values(d, "points", team=0)[1].tolist())
    assert 252 in seen or 350 in seen


def test_forced_capot_and_generale():
    """Seat 0 holds every trump and leads: it wins all eight tricks whatever anybody
    plays, so the value is the one of any playout."""
    hands = ["7H 8H 9H TH JH QH KH AH", "7S 8S 9S TS 7D 8D 9D TD",
             "JS QS KS AS JD QD KD AD", "7C 8C 9C TC JC QC KC AC"]
    rng = np.random.default_rng(0)
    for preset, points in (("ffb", 252), ("funbelote", 350)):
        d = Deal(preset, hands=hands, dealer=3).with_contract(80, 1, taker=0)
        out = play_random(d.clone(), rng, 0)
        assert SV.solve(d, "points", team=0) == points == out.state[E.S_CARD_POINTS]
        assert SV.solve(d, "points", team=1) == 0
        assert SV.solve(d, "score", team=0) == final_value(out.state, "score", 0)
        assert SV.solve(d, "score", team=1) == -final_value(out.state, "score", 0)


# ------------------------------------------------------------------ consistency on big positions
@pytest.mark.parametrize("preset", list(FOUR_PLAYER_PRESETS))
def test_root_values_equal_independent_solves(preset):
    """Each root move's value equals a fresh solve (another solver) of the position
    after it, and the root value is the best of them; 13 to 20 cards left."""
    rng = np.random.default_rng(3 + len(preset))
    s1, s2 = SV.Solver(tt_bits=14), SV.Solver(tt_bits=14)
    for k in range(2):
        d = play_random(random_contract_deal(preset, rng), rng, int(rng.integers(13, 21)))
        for objective in ("points", "score"):
            team = int(rng.integers(2))
            a, v = s1.move_values(d, objective, team=team)
            for ai, vi in zip(a.tolist(), v.tolist()):
                assert s2.solve(child(d, ai), objective, team=team) == vi
            mx = (int(d.state[E.S_CUR]) & 1) == team
            assert s1.solve(d, objective, team=team) == (v.max() if mx else v.min())


@pytest.mark.parametrize("objective, seed", [("score", 11), ("score", 12), ("points", 13)])
def test_full_deal_root_values_equal_child_solves(objective, seed):
    """The same on full deals, from the first card (PIMC's position)."""
    rng = np.random.default_rng(seed)
    s1, s2 = SV.Solver(), SV.Solver()
    d = random_contract_deal("ffb_sa_ta", rng, strains=[seed % 6])
    for _ in range(int(rng.integers(0, 3))):
        E.apply_legal_action(d.state, d.params, legal(d.state, d.params)[0])
    a, v = s1.move_values(d, objective)
    for ai, vi in zip(a.tolist(), v.tolist()):
        assert s2.solve(child(d, ai), objective, team=int(d.state[E.S_CUR]) & 1) == vi


#: (bit 2, the removed history heuristic, is accepted and ignored)
OPTION_SETS = [0, SV.OPT_TT, SV.OPT_DEFAULT | 2,
               SV.OPT_DEFAULT & ~SV.OPT_ORDER | SV.OPT_SHUFFLE,
               SV.OPT_TT | SV.OPT_TWO | SV.OPT_SHUFFLE,
               SV.OPT_TT | SV.OPT_THREE | SV.OPT_MTD | SV.OPT_SHUFFLE,
               SV.OPT_DEFAULT & ~(SV.OPT_THREE | SV.OPT_MTD),
               SV.OPT_DEFAULT & ~SV.OPT_CACHE2,
               SV.OPT_TT | SV.OPT_TWO | SV.OPT_CACHE2 | SV.OPT_SHUFFLE,
               SV.OPT_DEFAULT | SV.OPT_DIRECT]


@pytest.mark.parametrize("preset", ["ffb_sa_ta", "funbelote", "coinche_x3", "ludiclub_coinche",
                                    "classic_declarations"])
def test_values_do_not_depend_on_the_search(preset):
    """Search enhancements off, pseudo-random move orders, the direct search of the
    objective, a tiny TT or a kept one: the same values."""
    rng = np.random.default_rng(5 + len(preset))
    ref = SV.Solver(tt_bits=14)
    others = [SV.Solver(tt_bits=14, options=o) for o in OPTION_SETS]
    others += [SV.Solver(tt_bits=10), SV.Solver(tt_bits=14, keep_table=True)]
    for k in range(3):
        d = play_random(random_contract_deal(preset, rng), rng, int(rng.integers(12, 17)))
        for objective in ("points", "score"):
            team = int(rng.integers(2))
            a, v = ref.move_values(d, objective, team=team)
            for s in others:
                a2, v2 = s.move_values(d, objective, team=team)
                assert np.array_equal(a, a2) and np.array_equal(v, v2), (preset, k, objective)


def test_kept_table_across_positions():
    """A table kept across calls (PIMC's worlds) gives what fresh tables give."""
    rng = np.random.default_rng(21)
    keep, fresh = SV.Solver(tt_bits=14, keep_table=True), SV.Solver(tt_bits=14)
    d = random_contract_deal("ffb", rng, strains=[2])
    play_random(d, rng, 20)
    for _ in range(6):
        for objective in ("points", "score"):
            assert np.array_equal(keep.move_values(d, objective)[1],
                                  fresh.move_values(d, objective)[1])
        E.apply_legal_action(d.state, d.params, legal(d.state, d.params)[-1])


# ------------------------------------------------------------------ the objective map
def _map_for(deal, objective, team):
    """Build the solver's objective map for ``deal`` (as move_values would) and return
    the workspace."""
    W = SV.new_workspace(10)
    S, P = deal.state, deal.params
    X = team if objective == "points" else int(S[E.S_BID_SEAT]) & 1
    SV._setup(W, S, P, X, SV.OBJECTIVES[objective])
    return W, X


def _outcome(S, X, W):
    """The extended outcome E of a finished deal for team X."""
    raw = int(S[E.S_POINTS + X])
    if S[E.S_TRICKS + X] == 8:
        gen = any(S[E.S_SEAT_TRICKS + s] == 8 for s in (X, X + 2))
        return raw + SV.CAPOT_BONUS + (int(W[SV.C_GB]) if gen else 0)
    if S[E.S_TRICKS + 1 - X] == 8:
        return -1
    return raw


@pytest.mark.parametrize("preset", list(FOUR_PLAYER_PRESETS))
def test_objective_map_matches_the_engine(preset):
    """f(E) built from synthetic finished deals equals the engine's final value of real
    random playouts (declarations, belote and their choices included); ``W_MONO`` says
    whether it is non-decreasing (the fast path), which it is but for the classic
    family's capot against."""
    rng = np.random.default_rng(100 + len(preset))
    for k in range(40):
        d = strong_deal(preset, rng) if (k % 4 == 0 and PRESETS[preset].family == "coinche") \
            else random_contract_deal(preset, rng)
        play_random(d, rng, 32 - int(rng.integers(0, 6)))
        for objective in ("points", "score"):
            team = int(rng.integers(2))
            W, X = _map_for(d, objective, team)
            npairs = int(W[SV.C_NPAIRS])
            for v in range(1 << npairs):
                f = [int(x) for x in W[SV.W_MAP + v * SV.DOM:SV.W_MAP + v * SV.DOM + int(W[SV.C_EMAX]) + 2]]
                drops = [i for i in range(1, len(f)) if f[i] < f[i - 1]]
                assert W[SV.W_MONO + v] == (not drops), (preset, k)
                # non-decreasing but for one step: a capot against (E = -1) loses the
                # takers' declarations in the classic family (RULES.md section 11), so it
                # can cost less than a failed deal with a trick (E = 0)
                assert drops in ([], [1]), (preset, k, drops)
                if drops:
                    assert PRESETS[preset].family == "classic" and PRESETS[preset].declarations
            out = play_random(d.clone(), rng, 0).state
            vec = 0
            for j in range(npairs):
                seat, kind = int(W[SV.W_PAIR + 2 * j]), int(W[SV.W_PAIR + 2 * j + 1])
                slot = E.S_DECLARED if kind == 0 else E.S_BELOTE_ON
                vec |= int((out[slot] >> seat) & 1) << j
            e = _outcome(out, X, W)
            assert W[SV.W_MAP + vec * SV.DOM + e + 1] == final_value(out, objective, X), (preset, k)


@pytest.mark.parametrize("preset", list(FOUR_PLAYER_PRESETS))
def test_objective_map_is_non_decreasing_for_every_contract(preset):
    """f(E) is non-decreasing for every strain, contract value (capot included), coinche
    level and taker, both objectives and teams: the solver's fast path is the one taken
    (the direct search stays a safety net for rule sets yet to come)."""
    rules = get_rules(preset)
    rng = np.random.default_rng(200 + len(preset))
    values = [0] if rules.family == "classic" else list(rules.bid_values) + [250]
    levels = [0] if rules.family == "classic" else [0, 1, 2]
    for strain in rules.allowed_strains:
        for value in values:
            for coinche in levels:
                taker = int(rng.integers(4))
                d = Deal(preset, dealer=int(rng.integers(4)), seed=int(rng.integers(1 << 30)))
                d.with_contract(value, strain, taker=taker, coinche=coinche)
                for objective, team in (("score", 0), ("points", 0), ("points", 1)):
                    W, _ = _map_for(d, objective, team)
                    n = 1 << int(W[SV.C_NPAIRS])
                    assert all(W[SV.W_MONO + v] == 1 for v in range(n)), (strain, value, coinche)


# ------------------------------------------------------------------ first-trick choices
@pytest.mark.parametrize("preset", ["coinche_x3", "ludiclub_coinche", "ludiclub_contree"])
def test_first_trick_choices(preset):
    """Declare / belote choices still to make in the first trick: each action's value
    (choices and cards) equals an independent solve after it, the direct search agrees,
    and for the card points every choice action has the value of the position."""
    rng = np.random.default_rng(30 + len(preset))
    s1, s2 = SV.Solver(tt_bits=16), SV.Solver(tt_bits=16)
    sd = SV.Solver(tt_bits=16, options=SV.OPT_DEFAULT | SV.OPT_DIRECT)
    found = 0
    for k in range(300):
        d = random_contract_deal(preset, rng, strains=[0, 1, 2, 3])
        S, P = d.state, d.params
        for _ in range(int(rng.integers(0, 5))):
            acts = legal(S, P)
            if S[E.S_TRICK_N] == 3 and acts[0] < E.DECLARE:
                break
            E.apply_legal_action(S, P, acts[int(rng.integers(len(acts)))])
        W, _ = _map_for(d, "score", 0)
        if W[SV.C_NPAIRS] == 0:
            continue
        found += 1
        team = int(rng.integers(2))
        a, v = s1.move_values(d, "score", team=team)
        for ai, vi in zip(a.tolist(), v.tolist()):
            assert s2.solve(child(d, ai), "score", team=team) == vi
        a2, v2 = sd.move_values(d, "score", team=team)
        assert np.array_equal(a, a2) and np.array_equal(v, v2)
        if a[0] >= E.DECLARE:
            pa, pv = s1.move_values(d, "points", team=team)
            assert pv[0] == pv[1] == s1.solve(d, "points", team=team)
        if found == 4:
            break
    assert found == 4


# ------------------------------------------------------------------ API
def test_api_errors_and_finished_deal():
    d = Deal("ffb", dealer=0, seed=1)
    with pytest.raises(SV.SolverError, match="auction"):
        SV.solve(d)
    d.with_contract(80, 2, taker=1)
    with pytest.raises(SV.SolverError, match="objective"):
        SV.solve(d, "tricks")
    with pytest.raises(SV.SolverError, match="team"):
        SV.solve(d, team=2)
    with pytest.raises(SV.SolverError, match="params"):
        SV.solve(d.state)
    with pytest.raises(SV.SolverError, match="tt_bits"):
        SV.Solver(tt_bits=40)
    # a raw state with a preset name works like the Deal
    play_random(d, np.random.default_rng(0), 8)
    assert SV.solve(d.state, "score", params="ffb", team=0) == SV.solve(d, "score", team=0)
    play_random(d, np.random.default_rng(0), 0)
    assert SV.move_values(d, team=0)[0].size == 0
    assert SV.solve(d, "points", team=1) == d.state[E.S_CARD_POINTS + 1]
    with pytest.raises(SV.SolverError, match="over"):
        SV.solve(d)


def test_numba_kernels_have_one_signature():
    """The recursive kernels must be compiled for a single signature: a second one (a
    literal or another integer type at a recursive call) crashes numba's cache."""
    for k in (SV._ab, SV._ds, SV._outer):
        assert len(k.signatures) <= 1, k


def test_module_doctest():
    import doctest
    assert doctest.testmod(SV).failed == 0


def test_workspace_table_is_cache_line_aligned():
    """The TT's 64-byte buckets start on cache lines (one line per probe and prefetch)."""
    for bits in (10, 14, 17):
        W = SV.new_workspace(bits)
        assert (W.ctypes.data + 8 * SV.W_TT) % 64 == 0
        assert W.flags["C_CONTIGUOUS"] and W.size == SV.W_TT + SV.TT_WORDS * (1 << bits)
        assert W[SV.C_TTMASK] == (1 << bits) - 1 and W[SV.C_OPT] == SV.OPT_DEFAULT
