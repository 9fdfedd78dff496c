"""The canonical suit order of the neural agents (``coinche_rl.agents.neural.canonical``).

A *renaming* ``pi`` (``pi[suit]`` is the suit's new name) of a deal renames every card
(the hands, or the classic deck) and every action of its history (bids, capots and named
trumps in a suit; NT / AT and the other actions stay). The tests build renamed games
**independently of the module** (their own card / action / observation renamings) and
replay them through the engine:

1. Equivariance, for random positions of every preset (auction and play, suit and NT / AT
   contracts) and all 24 renamings: the engine plays the renamed game as a renaming (same
   seats to act, renamed legal actions, same trick winners and scores); the renamed
   observation of every seat is the original one renamed (``OBS_DST`` checked against
   the test's own renaming); the canonical observations and masks are identical; every
   legal canonical action maps back to the renamed physical action, or, when suits tie
   in the order key, to an equivalent one (the two suits involved are interchangeable:
   swapping them leaves the observation unchanged). A constructed position with tied
   suits makes sure that branch is exercised.
2. The action maps: ``ACT_DST`` / ``ACT_SRC`` are inverse bijections, equal to the test's
   own renaming, fixing pass / coinche / take / declare / belote and NT / AT.
3. In a suit contract the trump suit is in slot 0 at every play position.
4. The canonical observation decodes (``observation.decode``) to the renamed position:
   hand, contract, cards played and the current trick (from the engine's ground truth),
   bids, retourne, shown cards, voids and ceilings renamed, everything else unchanged.
5. ``play_inputs`` on a batch of engine states equals ``canonicalize`` +
   ``features_into`` per state.
6. The derived features agree with the engine: the trick's winning card and seat, the
   number of cards and the points of the trick, the led suit, the partner being master,
   and the unseen cards (32 minus own hand minus played cards), renamed.
"""

import functools
import itertools

import numpy as np
import pytest

from coinche_rl import actions as A
from coinche_rl import engine as E
from coinche_rl.agents.neural import canonical as C
from coinche_rl.envs import observation as O
from coinche_rl.envs.kernels import ObservationEncoder
from coinche_rl.game import Deal
from oracles import numpy_hands
from coinche_rl.rules import FOUR_PLAYER_PRESETS
from coinche_rl.rules import PRESETS, card_points_table, get_rules

PRESET_NAMES = sorted(FOUR_PLAYER_PRESETS)
ALL_PI = [tuple(p) for p in itertools.permutations(range(4))]
IDENTITY = (0, 1, 2, 3)
NT, AT = 4, 5
LAY = O.LAYOUT


# ------------------------------------------------------------------ renamings
def rename_card(c, pi):
    return int(pi[c >> 3]) * 8 + (c & 7)


def rename_mask(m, pi):
    return sum(1 << rename_card(c, pi) for c in range(32) if m >> c & 1)


def rename_strain(s, pi):
    return int(pi[s]) if s < 4 else s


def rename_suit_bits(bits, pi):
    return sum(1 << int(pi[s]) for s in range(4) if bits >> s & 1)


def inverse(pi):
    inv = [0] * 4
    for s in range(4):
        inv[pi[s]] = s
    return tuple(inv)


def transposition(a, b):
    t = list(IDENTITY)
    t[a], t[b] = b, a
    return tuple(t)


def rename_action(a, pi):
    """The renamed action (written from the action table of ``coinche_rl.actions``)."""
    if 1 <= a <= 66:                                  # bid value x strain
        level, strain = divmod(a - 1, 6)
        return 1 + 6 * level + rename_strain(strain, pi)
    if 67 <= a <= 72:                                 # capot
        return 67 + rename_strain(a - 67, pi)
    if 75 <= a <= 106:                                # card
        return 75 + rename_card(a - 75, pi)
    if 108 <= a <= 113:                               # name a trump (classic prise)
        return 108 + rename_strain(a - 108, pi)
    return a                                          # pass, coinche, take, choices


def action_suit(a):
    """The physical suit an action names, or None."""
    if 1 <= a <= 66:
        s = (a - 1) % 6
    elif 67 <= a <= 72:
        s = a - 67
    elif 75 <= a <= 106:
        return (a - 75) >> 3
    elif 108 <= a <= 113:
        s = a - 108
    else:
        return None
    return s if s < 4 else None


def _seg(v, name, shape=None):
    a, b = LAY[name]
    return v[a:b] if shape is None else v[a:b].reshape(shape)


def rename_obs(obs, pi):
    """The observation renamed by ``pi``, from the layout table of ``envs.observation``
    (independent of ``canonical.OBS_DST``)."""
    pi = np.asarray(pi)
    cards = np.arange(32)
    card_to = pi[cards >> 3] * 8 + (cards & 7)
    strain_to = np.concatenate([pi, [NT, AT]])
    out = obs.copy()
    for name in ("hand", "retourne", "played_when", "current_trick"):
        _seg(out, name)[card_to] = _seg(obs, name)
    _seg(out, "declarations_shown", (4, 32))[:, card_to] = _seg(obs, "declarations_shown", (4, 32))
    _seg(out, "played_by", (32, 4))[card_to, :] = _seg(obs, "played_by", (32, 4))
    rows_in = _seg(obs, "bids", (O.N_LEVELS, 10))
    _seg(out, "bids", (O.N_LEVELS, 10))[:, 4 + strain_to] = rows_in[:, 4:]
    c0 = LAY["contract"][0] + O.N_LEVELS
    out[c0 + strain_to] = obs[c0:c0 + 6]
    for name in ("voids", "ceilings"):
        _seg(out, name, (4, 4))[:, pi] = _seg(obs, name, (4, 4))
    return out


# ------------------------------------------------------------------ random games
def new_deal(start, pi=IDENTITY):
    """The deal ``start`` describes (preset, hands or deck, dealer, optional contract),
    renamed by ``pi``."""
    rules = get_rules(start["preset"])
    if start["deck"] is not None:
        d = Deal(rules, deck=[rename_card(c, pi) for c in start["deck"]], dealer=start["dealer"])
    else:
        d = Deal(rules, hands=[rename_mask(h, pi) for h in start["hands"]], dealer=start["dealer"])
    if start["contract"] is not None:
        value, strain, taker, coinche = start["contract"]
        d.with_contract(value, rename_strain(strain, pi), taker=taker, coinche=coinche)
    return d


def random_start(preset, rng, strain=None):
    """A random deal of ``preset``; with ``strain``, its auction skipped for a random
    contract in that strain."""
    rules = get_rules(preset)
    classic = rules.family == "classic"
    start = dict(preset=preset, dealer=int(rng.integers(4)), contract=None,
                 deck=[int(c) for c in rng.permutation(32)] if classic else None,
                 hands=None if classic else numpy_hands(rng))
    if strain is not None:
        taker = int(rng.integers(4))
        if classic:
            start["contract"] = (0, strain, taker, 0)
        else:
            value = int(rng.choice(list(rules.bid_values) + [E.CAPOT_VALUE]))
            start["contract"] = (value, strain, taker, int(rng.integers(3)))
    return start


def random_actions(start, rng, long_auction=False, prefix=()):
    """A random game from ``start`` to the end. The auction passes often once a bid is
    made, so that most deals reach the play; a ``long_auction`` bids more (and, in the
    classic family, passes more, to reach the second round of the prise). ``prefix``: the
    first actions."""
    d = new_deal(start)
    for a in prefix:
        d.apply(a)
    classic = d.rules.family == "classic"
    while not d.is_terminal:
        legal = d.legal_actions()
        if d.phase == "auction" and A.PASS in legal and len(legal) > 1:
            if classic:
                p_pass = 0.85 if long_auction else 0.6
            elif long_auction:
                p_pass = 0.3 if d.highest_bid else 0.1
            else:
                p_pass = 0.75 if d.highest_bid else 0.35
            if rng.random() < p_pass:
                d.apply(A.PASS)
                continue
            legal = [a for a in legal if a != A.PASS]
        d.apply(legal[rng.integers(len(legal))])
    return d.history


def replay(start, actions, pi=IDENTITY):
    """The renamed deal after 0, 1, ..., len(actions) renamed actions (one object)."""
    d = new_deal(start, pi)
    yield d
    for a in actions:
        d.apply(rename_action(a, pi))
        yield d


def games(preset, seed, n_auction=3):
    """(start, actions) of random games: ``n_auction`` with an auction (the first a long
    one), then one with a random suit contract and, where the preset allows them, one NT
    and one AT."""
    rng = np.random.default_rng(seed)
    rules = get_rules(preset)
    out = []
    for k in range(n_auction):
        start = random_start(preset, rng)
        out.append((start, random_actions(start, rng, long_auction=k == 0)))
    for strain in [int(rng.integers(4))] + [s for s in (NT, AT) if s in rules.allowed_strains]:
        start = random_start(preset, rng, strain=strain)
        out.append((start, random_actions(start, rng)))
    return out


def positions(preset, seed, n_auction=3):
    """Every position (a Deal copy) of ``games(preset, seed)``."""
    for start, actions in games(preset, seed, n_auction):
        for d in replay(start, actions):
            yield d.clone()


def seat_mask(d, seat):
    """The legal mask of ``seat`` (zeros unless it is to act)."""
    if d.current_player == seat:
        return d.legal_action_mask().astype(np.uint8)
    return np.zeros(A.N_ACTIONS, dtype=np.uint8)


def seed_of(preset, k=0):
    return 1000 * k + sum(map(ord, preset))


# ================================================================ 1. equivariance
@functools.lru_cache(maxsize=None)
def obs_source(pi, size):
    """``rename_obs`` as a gather: ``rename_obs(obs, pi) == obs[obs_source(pi, len(obs))]``
    (the renaming only moves entries, so it is its own result on the indices)."""
    return rename_obs(np.arange(size), pi)


@functools.lru_cache(maxsize=None)
def action_renaming(pi):
    """``rename_action(a, pi)`` for every action, as an array."""
    return np.array([rename_action(a, pi) for a in range(A.N_ACTIONS)])


def original_positions(start, actions, enc):
    """What the checks need of every position of the original game, computed once for its
    24 renamings: (phase, seat to act, legal mask, per seat (observation, canonical
    observation, canonical mask, canonical permutation)), and the final deal. The
    canonical observation is checked here to be the observation renamed by its
    permutation, which does not depend on the renaming."""
    positions = []
    for k, d in enumerate(replay(start, actions)):
        where = (start["preset"], IDENTITY, k, [A.action_to_str(a) for a in actions[:k]])
        seats = []
        for seat in range(4):
            obs = enc.encode(d.state, seat).copy()
            co, cm, p = C.canonicalize(obs, seat_mask(d, seat))
            assert np.array_equal(co, rename_obs(obs, C.PERMS[p])), where
            seats.append((obs, co.copy(), cm.copy(), p))
        positions.append((d.phase, d.current_player, d.legal_action_mask().copy(), seats))
    return positions, d


def check_renamed_position(orig, rd, pi, enc, where, stats):
    """Position ``rd`` is the position ``orig`` (from :func:`original_positions`) renamed by
    ``pi``: engine, observations, canonical observations / masks, canonical actions mapped
    back."""
    phase, player, mask, seats = orig
    assert rd.phase == phase and rd.current_player == player, where
    rmask = rd.legal_action_mask()
    bad = np.flatnonzero(rmask[action_renaming(pi)] != mask)
    assert not len(bad), (where, A.action_to_str(int(bad[0])))
    for seat, (obs, co, cm, p) in enumerate(seats):
        robs = enc.encode(rd.state, seat)
        want = obs[obs_source(pi, len(obs))]
        bad = np.flatnonzero(robs != want)
        assert not len(bad), (where, seat, [n for n, (a, b) in LAY.items()
                                            if any(a <= k < b for k in bad)])
        rco, rcm, rp = C.canonicalize(robs, seat_mask(rd, seat))
        assert np.array_equal(rco, co), (where, seat, np.flatnonzero(rco != co))
        assert np.array_equal(rcm, cm), (where, seat)
        if player != seat:
            continue
        assert cm.sum() == mask.sum() > 0, where
        for a in np.flatnonzero(cm):
            phys = int(C.to_physical(p, a))
            rphys = int(C.to_physical(rp, a))
            assert mask[phys] and rmask[rphys], where
            if rphys == rename_action(phys, pi):
                continue
            # a tie in the suit order: the action mapped back from the renamed game,
            # named in the original game, differs from ``phys`` by swapping two suits
            # the observer cannot tell apart
            back = rename_action(rphys, inverse(pi))
            s1, s2 = action_suit(phys), action_suit(back)
            assert s1 is not None and s2 is not None and s1 != s2, (where, phys, back)
            swap = transposition(s1, s2)
            assert back == rename_action(phys, swap), (where, phys, back)
            assert np.array_equal(rename_obs(obs, swap), obs), (
                where, "mapped back to a non-equivalent action",
                A.action_to_str(phys), A.action_to_str(back))
            stats["ties"] += 1
        stats["actions"] += int(cm.sum())


def check_renamed_game(start, actions, pi, enc, stats, original):
    """Replay the renamed game, checking every position against the original game's
    (``original``: :func:`original_positions`)."""
    positions, d = original
    ren = replay(start, actions, pi)
    for k, (orig, rd) in enumerate(zip(positions, ren)):
        where = (start["preset"], pi, k, [A.action_to_str(a) for a in actions[:k]])
        check_renamed_position(orig, rd, pi, enc, where, stats)
        stats["positions"] += 1
    # the engine really played a renaming: same winners and scores, renamed cards
    assert d.is_terminal and rd.is_terminal
    assert rd.trick_winners == d.trick_winners
    assert rd.card_points_won == d.card_points_won and rd.tricks_won == d.tricks_won
    assert rd.plays == [(s, rename_card(c, pi)) for s, c in d.plays]
    r, rr = d.result, rd.result
    assert (rr.teams, rr.made, rr.multiplier, rr.generale, rr.litige, rr.litige_points) == \
        (r.teams, r.made, r.multiplier, r.generale, r.litige, r.litige_points)
    assert rd.declaration_winner == d.declaration_winner
    assert rd.team_declarations == d.team_declarations and rd.team_belote == d.team_belote
    if d.contract is not None:
        c, rc = d.contract, rd.contract
        assert (rc.value, rc.strain, rc.taker, rc.coinche) == \
            (c.value, rename_strain(c.strain, pi), c.taker, c.coinche)
    else:
        assert rd.contract is None and rd.is_void == d.is_void


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_every_renaming_gives_the_same_canonical_position(preset):
    rules = get_rules(preset)
    enc = ObservationEncoder(rules)
    stats = dict(positions=0, actions=0, ties=0)
    phases = set()
    strains = set()
    for start, actions in games(preset, seed_of(preset)):
        original = original_positions(start, actions, enc)
        final = original[1]
        phases.add("play" if any(A.is_card(a) for a in actions) else "auction")
        if final.contract is not None:
            strains.add(final.contract.strain)
        for pi in ALL_PI:
            check_renamed_game(start, actions, pi, enc, stats, original)
    assert "play" in phases
    assert strains & {0, 1, 2, 3}
    if NT in rules.allowed_strains:
        assert {NT, AT} <= strains
    assert stats["positions"] > 24 * 5 * 20 and stats["actions"] > stats["positions"]


@pytest.mark.parametrize("preset", ["ffb", "ffb_sa_ta", "classic", "vip_classic"])
def test_tied_suits_map_back_to_equivalent_actions(preset):
    """Seat 0 holds only spades: hearts, diamonds and clubs tie in its order key during
    the auction (coinche family: its eight spades; classic family: five spades and a
    spade retourne, all passing in the first round of the prise), so its canonical bids /
    named trumps in those suits map back to whichever suit the tie-break picks; they must
    be equivalent (checked for all 24 renamings)."""
    rng = np.random.default_rng(5)
    rest = [int(c) for c in rng.permutation(np.arange(8, 32))]
    start = random_start(preset, rng)
    start["dealer"] = 3                                  # seat 0 speaks first
    prefix = ()
    if start["deck"] is None:
        start["hands"] = [0xFF] + [sum(1 << c for c in rest[8 * i:8 * i + 8]) for i in range(3)]
    else:
        spades = [int(c) for c in rng.permutation(8)]
        others = rest + spades[6:]
        rng.shuffle(others)
        deck = [None] * 32
        for pos, c in zip((0, 1, 2, 12, 13, 20), spades):     # seat 0's 3 + 2, the retourne
            deck[pos] = c
        start["deck"] = [c if c is not None else others.pop() for c in deck]
        prefix = (A.PASS,) * 4
    actions = random_actions(start, rng, prefix=prefix)
    if prefix:
        d = new_deal(start)
        assert d.hands[0] == 0xFF & d.hands[0] and bin(d.hands[0]).count("1") == 5
        assert d.retourne >> 3 == 0
    enc = ObservationEncoder(get_rules(preset))
    stats = dict(positions=0, actions=0, ties=0)
    original = original_positions(start, actions, enc)
    for pi in ALL_PI:
        check_renamed_game(start, actions, pi, enc, stats, original)
    assert stats["ties"] > 0


def suit_labels():
    """``label[j]``: the suit observation entry ``j`` is about (-1: none), from the
    layout table of ``envs.observation``."""
    label = np.full(O.OBSERVATION_SIZE, -1)
    suit_of_card = np.arange(32) >> 3
    for name in ("hand", "retourne", "played_when", "current_trick"):
        _seg(label, name)[:] = suit_of_card
    _seg(label, "declarations_shown", (4, 32))[:] = suit_of_card
    _seg(label, "played_by", (32, 4))[:] = suit_of_card[:, None]
    _seg(label, "bids", (O.N_LEVELS, 10))[:, 4:8] = np.arange(4)
    c0 = LAY["contract"][0] + O.N_LEVELS
    label[c0:c0 + 4] = np.arange(4)
    for name in ("voids", "ceilings"):
        _seg(label, name, (4, 4))[:] = np.arange(4)
    return label


@pytest.mark.parametrize("context", ["auction", "NT", "AT", "suit"])
def test_the_order_key_covers_every_suit_indexed_entry(context):
    """Synthetic observations whose suits are interchangeable (a random background
    repeated in each suit) but for one entry: that suit is then distinguishable, so the
    canonical observation must not depend on the renaming. An order key missing that
    entry would leave the suits tied and the canonical order would follow the physical
    suit names. (In a suit contract the trump suit is fixed: the side suits are tested.)"""
    rng = np.random.default_rng(11)
    label = suit_labels()
    c0 = LAY["contract"][0] + O.N_LEVELS
    label[c0:c0 + 4] = -1             # the contract's suit entries: fixed in slot 0 instead
    base = np.zeros(O.OBSERVATION_SIZE, dtype=np.float32)
    _seg(base, "phase")[0 if context == "auction" else 1] = 1.0
    _seg(base, "bids", (O.N_LEVELS, 10))[:, :4] = rng.random((O.N_LEVELS, 4)) < 0.3
    trump = 2 if context == "suit" else None
    if context != "auction":
        base[c0 + {"NT": NT, "AT": AT, "suit": trump}[context]] = 1.0
        _seg(base, "leader")[1] = 1.0
    suit_entries = (label >= 0) & (label != trump)
    assert suit_entries.sum() == (348 if trump is not None else 464)
    # the background: any value on suit 0's entries (but its bids: one strain a level),
    # copied to the other suits
    values = np.array([0.0, 0.0, 0.125, 0.5, 1.0], dtype=np.float32)
    in_bids = np.zeros(O.OBSERVATION_SIZE, dtype=bool)
    in_bids[slice(*LAY["bids"])] = True
    zero_mask = np.zeros(A.N_ACTIONS, dtype=np.uint8)
    for k, j in enumerate(np.flatnonzero(suit_entries)):
        w0 = np.where((label == 0) & ~in_bids, rng.choice(values, O.OBSERVATION_SIZE), 0)
        v = base + sum(rename_obs(w0, transposition(0, t)) for t in range(4))
        for pi in ALL_PI:
            if trump is None or pi[trump] == trump:
                assert np.array_equal(rename_obs(v, pi), v)
        v[j] = 0.5 if v[j] != 0.5 else 1.0
        want, _, _ = C.canonicalize(v, zero_mask)
        for pi in ALL_PI[k % 4::4]:
            got, _, _ = C.canonicalize(rename_obs(v, pi), zero_mask)
            assert np.array_equal(got, want), (context, int(j), [n for n, (a, b) in LAY.items()
                                                               if a <= j < b], pi)


# ================================================================ 2. action maps
def test_action_maps_are_inverse_bijections_fixing_the_suitless_actions():
    assert sorted(map(tuple, C.PERMS.tolist())) == sorted(ALL_PI)
    fixed = [A.PASS, A.COINCHE, A.SURCOINCHE, A.TAKE, A.DECLARE, A.NO_DECLARE, A.BELOTE,
             A.NO_BELOTE, A.CAPOT_BASE + NT, A.CAPOT_BASE + AT, A.NAME_BASE + NT,
             A.NAME_BASE + AT] + [A.bid_action(v, s) for v in range(80, 190, 10) for s in (NT, AT)]
    ident = np.arange(A.N_ACTIONS)
    for p in range(24):
        slot_of = tuple(int(x) for x in C.PERMS[p])
        dst, src = C.ACT_DST[p], C.ACT_SRC[p]
        assert sorted(dst.tolist()) == ident.tolist() and sorted(src.tolist()) == ident.tolist()
        assert np.array_equal(src[dst], ident) and np.array_equal(dst[src], ident)
        assert dst.tolist() == [rename_action(a, slot_of) for a in range(A.N_ACTIONS)]
        assert np.array_equal(C.PERM_PHYS[p][C.PERMS[p]], np.arange(4))
        for a in fixed:
            assert dst[a] == a and C.to_physical(p, a) == a, (p, A.action_to_str(a))
        for c in range(32):
            b = int(dst[A.CARD_BASE + c])
            assert A.is_card(b) and b - A.CARD_BASE == slot_of[c >> 3] * 8 + (c & 7)
        for a in range(A.N_ACTIONS):
            assert C.to_physical(p, dst[a]) == a
            if A.is_bid(a):
                assert A.is_bid(int(dst[a])) and A.bid_value(int(dst[a])) == A.bid_value(a)
        # the observation map: a permutation, equal to the test's own renaming
        assert sorted(C.OBS_DST[p].tolist()) == list(range(O.OBSERVATION_SIZE))
        v = np.random.default_rng(p).permutation(O.OBSERVATION_SIZE).astype(np.float32)
        out = np.empty_like(v)
        out[C.OBS_DST[p]] = v
        assert np.array_equal(out, rename_obs(v, slot_of))


# ================================================================ 3. trump in slot 0
@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_the_trump_suit_is_in_slot_0_in_a_suit_contract(preset):
    enc = ObservationEncoder(get_rules(preset))
    n = 0
    for d in positions(preset, seed_of(preset, 1), n_auction=4):
        c = d.contract
        if d.phase == "auction" or c is None or c.strain >= 4:
            continue
        for seat in range(4):
            p = C.suit_order(enc.encode(d.state, seat))
            assert C.PERMS[p, c.strain] == 0, (preset, seat, d.history)
            n += 1
    assert n > 4 * 20


# ================================================================ 4. decoding
def check_decoded(d, enc, seat):
    obs = enc.encode(d.state, seat)
    co, _, p = C.canonicalize(obs, seat_mask(d, seat))
    pi = tuple(int(x) for x in C.PERMS[p])
    got = O.decode(co, observer=seat)
    phys = O.decode(obs, observer=seat)
    # from the engine's ground truth
    assert got["hand"] == rename_mask(d.hands[seat], pi)
    c = d.contract
    if c is None or d.phase == "auction":
        assert got["contract"] is None
    else:
        strain = rename_strain(c.strain, pi)
        assert got["contract"]["strain"] == strain and (c.strain >= 4 or strain == 0)
        assert (got["contract"]["taker"], got["contract"]["coinche"]) == (c.taker, c.coinche)
    played = sorted((rename_card(card, pi), s, t)
                    for t, trick in enumerate(d.tricks) for s, card in trick)
    assert sorted(got["played"]) == played
    assert got["current_trick"] == [(s, rename_card(card, pi)) for s, card in d.current_trick]
    # the suit-indexed facts renamed, everything else unchanged
    assert got["bids"] == [(v, s, rename_strain(st, pi)) for v, s, st in phys["bids"]]
    rt = phys["retourne"]
    assert got["retourne"] == (None if rt is None else rename_card(rt, pi))
    assert got["shown"] == [rename_mask(m, pi) for m in phys["shown"]]
    assert got["voids"] == [rename_suit_bits(b, pi) for b in phys["voids"]]
    for s in range(4):
        assert [got["ceilings"][s][pi[x]] for x in range(4)] == phys["ceilings"][s]
    for key in ("dealer", "phase", "to_act", "coinche", "surcoinche", "prise_round",
                "declarations_resolved", "declaration_winner", "belote", "leader",
                "trick_no", "points", "tricks", "match", "rules"):
        assert got[key] == phys[key], key


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_the_canonical_observation_decodes_to_the_renamed_position(preset):
    enc = ObservationEncoder(get_rules(preset))
    n = 0
    for k, d in enumerate(positions(preset, seed_of(preset, 2), n_auction=2)):
        if k % 2 == 0:
            for seat in range(4):
                check_decoded(d, enc, seat)
                n += 1
    assert n > 4 * 30


# ================================================================ 5. play_inputs
@pytest.mark.parametrize("preset,match", [("ffb", None), ("ffb_sa_ta", None),
                                          ("classic", None), ("vip_classic", None),
                                          ("ludiclub_coinche", (1.0, 320.0, 870.0, 1000.0, 40.0))])
def test_play_inputs_equals_canonicalize_and_features_into(preset, match):
    rules = get_rules(preset)
    enc = ObservationEncoder(rules)
    match = np.zeros(5) if match is None else np.array(match, dtype=np.float64)
    match_dict = None if not match[0] else dict(scores=(match[1], match[2]), target=match[3],
                                                pot=match[4])
    states = np.stack([d.state for d in positions(preset, seed_of(preset, 3), n_auction=2)
                       if not d.is_terminal])
    rng = np.random.default_rng(3)
    idx = rng.integers(len(states), size=len(states) + 20)        # repeats, any order
    n = len(idx)
    feats = np.full((n, C.FEATURE_SIZE), 9.0, dtype=np.float32)
    cards = np.full((n, 32), 7, dtype=np.uint8)
    perms = np.full(n, -1, dtype=np.int64)
    cpt = np.ascontiguousarray(card_points_table(rules), dtype=np.int64)
    C.play_inputs(states, enc.params, idx, cpt, enc.rules_vec, match, feats, cards, perms)
    for j, i in enumerate(idx):
        d = Deal.from_state(rules, states[i])
        obs = enc.encode(d.state, d.current_player, match_dict)
        co, cm, p = C.canonicalize(obs, d.legal_action_mask())
        want = np.empty(C.FEATURE_SIZE, dtype=np.float32)
        C.features_into(co, cpt, want)
        assert perms[j] == p
        assert np.array_equal(feats[j], want), np.flatnonzero(feats[j] != want)
        assert np.array_equal(cards[j], cm[A.CARD_BASE:A.CARD_BASE + 32])
        out = np.empty(32, dtype=np.uint8)
        C.card_mask(cm, out)
        assert np.array_equal(out, cards[j])
    assert (perms >= 0).all() and cards.any()


# ================================================================ 6. derived features
def check_features(d, enc, cpt, seat):
    obs = enc.encode(d.state, seat)
    co, _, p = C.canonicalize(obs, seat_mask(d, seat))
    pi = tuple(int(x) for x in C.PERMS[p])
    f = np.empty(C.FEATURE_SIZE, dtype=np.float32)
    C.features_into(co, cpt, f)

    def part(name):
        a, b = C.FEATURE_LAYOUT[name]
        return f[a:b]

    def one_hot(n, i):
        v = np.zeros(n, dtype=np.float32)
        if i is not None:
            v[i] = 1.0
        return v

    assert np.array_equal(part("observation"), co)
    S = d.state
    seen = d.hands[seat] | int(S[E.S_PLAYED])
    assert part("unseen").tolist() == [float(not rename_mask(seen, pi) >> c & 1) for c in range(32)]
    n = int(S[E.S_TRICK_N]) if d.phase == "play" else 0
    wcard = rename_card(int(S[E.S_WIN_CARD]), pi) if n else None
    wseat = (int(S[E.S_WIN_SEAT]) - seat) % 4 if n else None
    trick = d.current_trick
    assert len(trick) == n
    assert np.array_equal(part("trick_winner_card"), one_hot(32, wcard)), (d.history, seat)
    assert np.array_equal(part("trick_winner"), one_hot(4, wseat))
    assert np.array_equal(part("trick_cards"), one_hot(4, n if d.phase == "play" else None))
    assert np.array_equal(part("led_suit"), one_hot(4, pi[trick[0][1] >> 3] if n else None))
    assert part("partner_master")[0] == float(wseat == 2)
    if n:
        strain = d.contract.strain
        pts = sum(int(card_points_table(d.rules)[strain, c]) for _, c in trick)
        assert part("trick_points")[0] == np.float32(pts / 40.0)
    else:
        assert part("trick_points")[0] == 0.0
    return n


@pytest.mark.parametrize("preset", PRESET_NAMES)
def test_derived_features_agree_with_the_engine(preset):
    rules = get_rules(preset)
    enc = ObservationEncoder(rules)
    cpt = np.ascontiguousarray(card_points_table(rules), dtype=np.int64)
    in_trick = 0
    for d in positions(preset, seed_of(preset, 4), n_auction=2):
        for seat in range(4):
            in_trick += check_features(d, enc, cpt, seat) > 0
    assert in_trick > 4 * 20
