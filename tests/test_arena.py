"""The arena (``coinche_rl.arena``): deal sets, duplicate matchups (deals, matches,
frozen contracts), round robins and the individual formats with their ratings,
executors, results files and resume. The statistics are in ``test_ratings.py``."""

from __future__ import annotations

import hashlib
import json

import numpy as np
import pytest

from coinche_rl import arena
from coinche_rl import engine as E
from coinche_rl.agents import AgentSpecError, make_agent, play_deal
from coinche_rl.arena import (ArenaError, DealSet, ResultsFileError, format_summary,
                              plot_results, replay_pair, run_duplicate, run_knockout,
                              run_rotating, run_round_robin)
from coinche_rl.game import Deal, hands_from_deck
from coinche_rl.rules import FOUR_PLAYER_PRESETS
from coinche_rl.rules import PRESETS, TRUMP_POINTS, get_rules, params_vector



# ==================================================================== deal sets
def test_deal_set_is_a_function_of_rules_seed_index():
    ds = DealSet("ffb", seed=11)
    states, seeds = ds.states(range(12))
    again, seeds2 = DealSet("ffb", seed=11).states([7, 3])
    assert (again == states[[7, 3]]).all() and (seeds2 == seeds[[7, 3]]).all()
    other, _ = DealSet("ffb", seed=12).states(range(12))
    assert not (other[:, E.S_HAND] == states[:, E.S_HAND]).all()
    assert (seeds >= 0).all() and len(np.unique(seeds)) == seeds.size
    assert set(states[:, E.S_DEALER].tolist()) <= {0, 1, 2, 3}


@pytest.mark.parametrize("preset", list(FOUR_PLAYER_PRESETS))
@pytest.mark.parametrize("frozen", [False, "longest", "uniform"])
def test_deal_set_equals_game_deals(preset, frozen):
    ds = DealSet(preset, seed=5, frozen_contract=frozen)
    states, _ = ds.states(range(25))
    decks, dealers = ds.decks(range(25))
    for i in range(25):
        deal = Deal(preset, deck=decks[i], dealer=int(dealers[i]))
        if frozen:
            c = Deal.from_state(preset, states[i]).contract
            deal.with_contract(c.value, c.strain, taker=c.taker)
        assert (deal.state == states[i]).all()
        assert ds.deal(i) == Deal.from_state(preset, states[i])
    # and deal by deal with the engine's kernels, from the deal set's draws (the oracle
    # below): reset_state / reset_classic, then set_contract
    rules = get_rules(preset)
    P = params_vector(rules)
    idx = np.array([0, 1, 2, 999, 123_456, 2 ** 40 + 3, 2 ** 63 - 1])
    states, seeds = ds.states(idx)
    d = _oracle_draws(5, 0, idx)
    strains = np.array(rules.allowed_strains)
    for k in range(len(idx)):
        deck = np.array(_oracle_deck(d[k, :31]), dtype=np.int64)
        dealer = int(d[k, 31] >> np.uint64(62))
        S = np.empty(E.STATE_SIZE, dtype=np.int64)
        if rules.family == "classic":
            E.reset_classic(S, deck, dealer)
        else:
            E.reset_state(S, np.array(hands_from_deck(deck, dealer), dtype=np.int64), dealer)
        if frozen:
            taker = int(d[k, 36] >> np.uint64(62))
            if frozen == "uniform":
                strain = strains[int(((d[k, 37] >> np.uint64(32)) * np.uint64(len(strains)))
                                     >> np.uint64(32))]
            elif rules.family == "classic":
                strain = S[E.S_RETOURNE] >> 3
            else:
                hand = int(S[E.S_HAND + taker])
                strain = max(range(4), key=lambda s: (
                    bin(hand >> 8 * s & 0xFF).count("1"),
                    sum(TRUMP_POINTS[r] for r in range(8) if hand >> (8 * s + r) & 1), -s))
            E.set_contract(S, P, 0 if rules.family == "classic" else rules.min_bid,
                           int(strain), 0, taker)
        assert (states[k] == S).all(), (preset, frozen, int(idx[k]))
        assert seeds[k].tolist() == [int(x >> np.uint64(1)) for x in d[k, 32:36]]


# The deal sets are a reproducibility contract (results files store scores by deal
# index, keyed by the code's fingerprint): the stream of deal (seed, salt, stream)
# written out here with its constants, independently of the package: the engine's
# shuffle of the deck, the dealer, the agents' seeds, the frozen taker and strain.
_GOLDEN = 0x9E3779B97F4A7C15
_MUL1, _MUL2, _STREAM = 0xBF58476D1CE4E5B9, 0x94D049BB133111EB, 0xD1B54A32D192ED03


def _oracle_mix(z):
    z = (z + _GOLDEN) % 2 ** 64
    z = (z ^ (z >> 30)) * _MUL1 % 2 ** 64
    z = (z ^ (z >> 27)) * _MUL2 % 2 ** 64
    return z ^ (z >> 31)


def _oracle_draws(seed, salt, streams):
    """``(n, 38)`` uint64: the 31 draws of the shuffle, the dealer, 4 agent seeds, the
    frozen taker and strain of each stream."""
    base = _oracle_mix(_oracle_mix(seed % 2 ** 64) + salt * _STREAM)
    out = []
    for s in streams:
        h = _oracle_mix((base + int(s) * _STREAM) % 2 ** 64)
        out.append([_oracle_mix((h + j * _GOLDEN) % 2 ** 64) for j in range(1, 39)])
    return np.array(out, dtype=np.uint64)


def _oracle_deck(draws):
    """Fisher-Yates from the identity order: card ``i`` (31 down to 1) swapped with the
    one at ``(draw >> 32) * (i + 1) >> 32``."""
    deck = list(range(32))
    for k, i in enumerate(range(31, 0, -1)):
        j = (int(draws[k]) >> 32) * (i + 1) >> 32
        deck[i], deck[j] = deck[j], deck[i]
    return deck


def test_deal_set_streams_are_the_recorded_ones():
    """Cards, dealers and seeds of the deal set, the match deals and the knockout games
    against the oracle, and pinned values."""
    from coinche_rl.arena import dealsets as D
    rules = get_rules("ffb")
    P = params_vector(rules)
    for seed, salt in ((0, D._SALT_DEALS), (2 ** 64 - 1, D._SALT_DEALS), (7, D._SALT_MATCH),
                       (2 ** 70 + 9, D._SALT_KNOCKOUT)):
        streams = [0, 1, 4095, 4096 * 3 + 2, 2 ** 50, 2 ** 64 - 1]
        _, seeds, dealers, decks = D._deals(rules, P, seed, salt, streams)
        d = _oracle_draws(seed, salt, streams)
        assert decks.tolist() == [_oracle_deck(row[:31]) for row in d]
        assert (dealers == (d[:, 31] >> np.uint64(62)).astype(np.int64)).all()
        assert (seeds == (d[:, 32:36] >> np.uint64(1)).astype(np.int64)).all()
        _, _, given, again = D._deals(rules, P, seed, salt, streams, dealers=[3] * 6)
        assert (again == decks).all() and given.tolist() == [3] * 6
    ds = DealSet("ffb", 0)
    decks, dealers = ds.decks([0, 123456789])
    assert decks.tolist() == [
        [10, 15, 4, 5, 24, 18, 23, 21, 16, 2, 27, 11, 9, 3, 7, 0, 25, 22, 26, 17, 12, 19, 14, 31,
         6, 13, 28, 29, 8, 30, 20, 1],
        [20, 27, 14, 13, 10, 29, 17, 23, 19, 1, 26, 28, 7, 2, 16, 8, 12, 30, 5, 25, 22, 11, 6, 24,
         0, 4, 3, 21, 15, 9, 31, 18]]
    assert dealers.tolist() == [3, 1]
    assert ds.states([0, 123456789])[1].tolist() == [
        [2004861171129895873, 7475271145317187082, 4201834821479535520, 4465701508746242180],
        [5414611499430610836, 631561520346244050, 5848722990576828405, 5033237761654001360]]
    # 1000 deals of four deal sets: cards, dealers, seeds, frozen takers and strains
    for preset, seed, frozen, digest in (("ffb", 0, False, "1445746c4126b970"),
                                         ("ffb", 2 ** 64 - 1, "longest", "2134ff5b93ba66f7"),
                                         ("classic", 7, "longest", "696a4032cd052038"),
                                         ("ffb_sa_ta", 5, "uniform", "e91a48d1f8235d67")):
        ds = DealSet(preset, seed, frozen)
        states, seeds = ds.states(range(1000))
        decks, dealers = ds.decks(range(1000))
        h = hashlib.sha256()
        for a in (decks, dealers, seeds, states[:, E.S_BID_SEAT], states[:, E.S_BID_STRAIN]):
            h.update(np.ascontiguousarray(a, dtype=np.int64).tobytes())
        assert h.hexdigest()[:16] == digest, (preset, seed, frozen)


def test_frozen_contracts_follow_their_rule():
    rules = get_rules("ffb")
    states, _ = DealSet(rules, seed=2, frozen_contract=True).states(range(200))
    for S in states:
        d = Deal.from_state(rules, S)
        c = d.contract
        assert d.phase == "play" and c.value == rules.min_bid and c.coinche == 0
        hand = d.initial_hands[c.taker]

        def key(suit):
            cards = [r for r in range(8) if hand >> (8 * suit + r) & 1]
            return (len(cards), sum(TRUMP_POINTS[r] for r in cards), -suit)
        assert c.strain == max(range(4), key=key)
    takers = [Deal.from_state(rules, S).contract.taker for S in states]
    assert set(takers) == {0, 1, 2, 3}
    classic, _ = DealSet("classic", seed=2, frozen_contract=True).states(range(30))
    for S in classic:
        assert S[E.S_BID_STRAIN] == S[E.S_RETOURNE] >> 3 and S[E.S_PHASE] == E.PLAY
    uniform, _ = DealSet("ffb_sa_ta", seed=2, frozen_contract="uniform").states(range(300))
    assert set(uniform[:, E.S_BID_STRAIN].tolist()) == set(range(6))
    # the frozen deal set keeps the cards and the agents' seeds of the auction deal set
    plain, seeds = DealSet(rules, seed=2).states(range(200))
    assert (plain[:, E.S_INIT_HAND] == states[:, E.S_INIT_HAND]).all()
    assert (seeds == DealSet(rules, seed=2, frozen_contract=True).states(range(200))[1]).all()


def test_deal_set_bad_arguments():
    with pytest.raises(ArenaError, match="seed must be a non-negative integer"):
        DealSet("ffb", seed=-1)
    for bad in (True, "7", 2.0, None):
        with pytest.raises(ArenaError, match=r"^seed must be a non-negative integer, not "):
            DealSet("ffb", seed=bad)
    assert DealSet("ffb", seed=np.int64(3)).seed == 3 and DealSet("ffb", 2 ** 70).seed == 2 ** 70
    with pytest.raises(ArenaError, match="frozen_contract='best'"):
        DealSet("ffb", frozen_contract="best")


# ==================================================================== duplicate
def test_identical_agents_give_exactly_zero():
    for spec in ("random", "heuristic"):
        for frozen in (False, True):
            r = run_duplicate(spec, spec, 300, seed=9, frozen_contract=frozen)
            assert r.n == 300 and (r.margins == 0).all()
            assert r.mean == 0.0 and r.ci95 == 0.0 and r.win_rate == 0.5 and r.draws == 300
    py = run_duplicate("random", "random", 30, seed=9, fast=False)
    assert (py.margins == 0).all()
    m = run_duplicate("random", "random", 20, seed=9, match=True, target=300)
    assert m.mean == 0.0 and m.win_rate == 0.5 and (m.won.sum(axis=1) == 1).all()


def test_seatings_are_the_play_deal_protocol():
    """Pair i: seating 1 is X, Y, X, Y at seats 0..3, seating 2 the other way round, with
    the seeds of (deal, seat) in both; scores are stored from X's and Y's side."""
    r = run_duplicate("heuristic", "random", 6, seed=4, fast=False)
    ds = DealSet("ffb", seed=4)
    for k in range(6):
        for t, specs in enumerate(((r.x[0], "random", r.x[1], "random"),
                                   ("random", r.x[0], "random", r.x[1]))):
            deal = ds.deal(k)
            play_deal(deal, [make_agent(s) for s in specs], ds.seeds(k))
            sx, sy = deal.scores if t == 0 else deal.scores[::-1]
            assert r.scores[k, t].tolist() == [sx, sy]
            c = deal.contract
            if c is not None:
                assert r.contracts[k, t, :3].tolist() == [c.value, c.strain, c.taker]
    assert r.margins[0] == ((r.scores[0, 0, 0] - r.scores[0, 0, 1])
                            + (r.scores[0, 1, 0] - r.scores[0, 1, 1])) / 2


@pytest.mark.parametrize("preset, frozen, match", [("ffb", False, False), ("ffb", "longest", False),
                                                   ("classic", False, False), ("ffb", False, True)])
def test_numba_and_python_paths_agree(preset, frozen, match):
    kw = dict(preset=preset, seed=6, frozen_contract=frozen, match=match,
              target=400 if match else None)
    n = 4 if match else 12
    fast = run_duplicate("heuristic", ("random", "heuristic"), n, **kw)
    slow = run_duplicate("heuristic", ("random", "heuristic"), n, fast=False, **kw)
    assert (fast.scores == slow.scores).all()
    if match:
        assert (fast.deals == slow.deals).all() and (fast.won == slow.won).all()
    else:
        assert (fast.contracts == slow.contracts).all()


def test_heuristic_beats_random():
    r = run_duplicate("heuristic", "random", 2000, seed=1)
    assert r.mean > 40 and r.estimate.excludes(0.0) and r.win_rate > 0.9
    assert r.paired_sd > 0 and r.wins + r.draws + r.losses == r.n
    frozen = run_duplicate("heuristic", "random", 2000, seed=1, frozen_contract=True)
    assert frozen.mean > 0 and frozen.estimate.excludes(0.0)
    m = run_duplicate("heuristic", "random", 10, seed=1, match=True)
    assert m.win_rate == 1.0 and m.mean > 0
    s = m.summary()
    assert s["match"] and s["n"] == 10 and json.dumps(s)


def test_match_rows_are_consistent():
    r = run_duplicate("random", ("random", "random"), 6, seed=3, match=True, target=300)
    for k in range(r.n):
        for t in range(2):
            x, y = r.scores[k, t]
            assert r.deals[k, t] >= 1 and max(x, y) >= 300
            assert r.won[k, t] in (0, 1)
    assert r.rows[0]["type"] == "match" and r.rows[0]["i"] == 0


def test_bad_specs_and_arguments_are_rejected():
    with pytest.raises(AgentSpecError, match=r"unknown agent 'randm'; available: .*random"):
        run_duplicate("randm", "random", 10)
    with pytest.raises(AgentSpecError, match="has no parameter 'foo'"):
        run_duplicate("random:foo=1", "random", 10)
    with pytest.raises(AgentSpecError, match="malformed"):
        run_duplicate("random:=3", "random", 10)
    with pytest.raises(ArenaError, match="positive integer"):
        run_duplicate("random", "random", 0)
    with pytest.raises(ArenaError, match="unknown backend 'gpu'"):
        run_duplicate("random", "random", 10, backend="gpu")
    with pytest.raises(ArenaError, match="workers must be a positive integer"):
        run_duplicate("random", "random", 10, backend="pool", workers=0)
    with pytest.raises(ArenaError, match="a team is an agent spec or a pair"):
        run_duplicate(("random", "random", "random"), "random", 10)
    with pytest.raises(ArenaError, match="spec string"):
        run_duplicate(make_agent("random"), "random", 10)
    with pytest.raises(ArenaError, match="at least two agents"):
        run_round_robin(["random"], 10)
    with pytest.raises(ArenaError, match="at least 4 players"):
        run_rotating(["random"] * 3, 10)
    with pytest.raises(ArenaError, match=r"4 \* 2\*\*k players"):
        run_knockout(["random"] * 6, 1)
    with pytest.raises(ValueError, match="unknown rule preset"):
        run_duplicate("random", "random", 10, preset="nosuch")


# ================================================================ tournaments
def test_round_robin_ratings():
    t = run_round_robin(["random", "heuristic", "heuristic:coinche=false"], 400, seed=2)
    assert t.kind == "round_robin" and len(t.matchups) == 3
    assert t.points.rating.sum() == pytest.approx(0.0, abs=1e-6)
    assert t.points["random"] < min(t.points["heuristic"], t.points["heuristic:coinche=false"])
    assert t.elo["random"] < min(t.elo["heuristic"], t.elo["heuristic:coinche=false"])
    assert (t.points.se > 0).all() and (t.elo.se > 0).all()
    two = run_round_robin(["random", "heuristic"], 300, seed=2)
    m = two.matchups[0]
    assert two.points["random"] == pytest.approx(m.mean / 2, abs=1e-6)
    assert two.points.half_width[0] == pytest.approx(1.959963985 * m.estimate.se / 2, rel=1e-6)
    text = format_summary(t)
    assert "heuristic:coinche=false" in text and "Elo" in text and "points/deal" in text


def test_format_summary_returns_the_tables_inside_a_notebook(monkeypatch):
    rich_console = pytest.importorskip("rich.console", reason="the arena extra (rich) is not installed")
    monkeypatch.setattr(rich_console, "_is_jupyter", lambda: True)   # as in Jupyter
    r = run_duplicate("heuristic", "random", 4, seed=1)
    text = format_summary(r)
    assert "heuristic" in text and "random" in text and "\n" in text


def test_rotating_partners_separate_players():
    t = run_rotating(["heuristic", "random", "heuristic", "random"], 300, seed=3)
    assert t.kind == "rotating" and len(t.matchups) == 3
    assert t.names == ["heuristic#1", "random#1", "heuristic#2", "random#2"]
    # heuristic#1 + random#1 against heuristic#2 + random#2 seats the same specs in the
    # same places in both seatings: its margin is exactly 0, and the fit keeps that row
    m0 = t.matchups[0]
    assert m0.x == ("heuristic", "random") == m0.y and (m0.margins == 0).all()
    p = t.points
    assert p["heuristic#1"] + p["random#1"] == pytest.approx(p["heuristic#2"] + p["random#2"], abs=1e-6)
    assert p.rating.sum() == pytest.approx(0.0, abs=1e-6)
    assert min(p["heuristic#1"], p["heuristic#2"]) > 0 > max(p["random#1"], p["random#2"])
    assert min(t.elo["heuristic#1"], t.elo["heuristic#2"]) > max(t.elo["random#1"], t.elo["random#2"])
    assert "rotating partners" in format_summary(t, use_rich=False)


def test_knockout_structure():
    players = ["heuristic", "random"] * 8
    k = run_knockout(players, 3, seed=5)
    assert k.rules.name == "vip_classic" and k.rules.target == 501 and len(k.rows) == 3
    for row in k.rows:
        assert [len(r) for r in row["rounds"]] == [4, 2, 1]
        alive = set(range(16))
        for games in row["rounds"]:
            seated = [p for g in games for p in g["seats"]]
            assert sorted(seated) == sorted(alive)
            winners = set()
            for g in games:
                w = g["winner"]
                assert g["deals"] >= 1
                if g["deals"] > k.max_deals:          # only a tie after 7 deals plays on
                    assert max(g["scores"]) < 501
                winners |= {g["seats"][w], g["seats"][w + 2]}
            alive = winners
        assert set(row["champions"]) == alive
        final = row["rounds"][-1][0]
        assert set(row["champions"]) | set(row["finalists"]) == set(final["seats"])
    assert sum(k.title_share(s) for s in k.specs) == pytest.approx(1.0)
    assert k.elo["heuristic"] > k.elo["random"]
    eight = run_knockout(players[:8], 2, seed=5)
    assert [len(r) for r in eight.rows[0]["rounds"]] == [2, 1]
    assert "Knockout" in format_summary(eight)


@pytest.mark.parametrize("preset", ["belote_a_deux", "belote_decouverte"])
def test_two_player_matches_are_the_formats_matches(preset):
    """Belote for two players plays match pairs to a target through the one match task:
    the numba bots and the Python agents agree, each match ends past the target with
    the winner the higher total (RULES.md §12), and the dealer alternates from the
    first (deal streams of the four-player game's kind, dealt by the family's kernel)."""
    kw = dict(preset=preset, seed=6, match=True, target=300)
    fast = run_duplicate("heuristic", "random", 4, **kw)
    slow = run_duplicate("heuristic", "random", 4, fast=False, **kw)
    assert (fast.scores == slow.scores).all() and (fast.deals == slow.deals).all()
    assert (fast.won == slow.won).all() and fast.rules.target == 300
    for k in range(fast.n):
        for t in range(2):
            x, y = fast.scores[k, t]
            assert max(x, y) >= 300 and x != y and fast.deals[k, t] >= 1
            assert fast.won[k, t] == (x > y)
    assert set(fast.dealer.tolist()) <= {0, 1}
    assert "match pairs" in format_summary(fast, use_rich=False)


def test_two_player_knockout_plays_heads_up_tables():
    """The knockout of belote for two players: tables of two, the winner goes through;
    champions and finalists are single players, and the titles share one place."""
    players = ["heuristic", "random"] * 4
    k = run_knockout(players, 3, "belote_a_deux", seed=5, target=300)
    assert k.rules.family == "two" and k.rules.target == 300
    for row in k.rows:
        assert [len(r) for r in row["rounds"]] == [4, 2, 1]
        alive = set(range(8))
        for games in row["rounds"]:
            assert sorted(p for g in games for p in g["seats"]) == sorted(alive)
            assert all(len(g["seats"]) == 2 for g in games)
            alive = {g["seats"][g["winner"]] for g in games}
        assert row["champions"] == list(alive) and len(row["finalists"]) == 1
    assert sum(k.title_share(s) for s in k.specs) == pytest.approx(1.0)
    assert k.titles("heuristic") + k.titles("random") == 3
    assert "Knockout" in format_summary(k, use_rich=False)
    with pytest.raises(ArenaError, match=r"a knockout needs 2 \* 2\*\*k players"):
        run_knockout(["heuristic"] * 6, 1, "belote_a_deux")


def test_what_a_game_lacks_is_refused_alike():
    """The formats take every family; what the game has not is refused in one line
    before anything plays: partners (rotating, a team of two specs), an auction to skip."""
    with pytest.raises(ArenaError, match="need partners"):
        run_rotating(["heuristic", "random"] * 2, 2, "belote_decouverte")
    with pytest.raises(ArenaError, match="no partners"):
        run_duplicate(("heuristic", "random"), "random", 2, "belote_decouverte")
    with pytest.raises(ArenaError, match="has a prise, not an auction to skip"):
        run_round_robin(["heuristic", "random"], 2, "belote_a_deux", frozen_contract="uniform")
    with pytest.raises(ArenaError, match="target"):
        run_duplicate("heuristic", "random", 2, "belote_a_deux", match=True, target=-5)


def test_knockout_rejects_bad_max_deals():
    with pytest.raises(ArenaError, match="max_deals"):
        run_knockout(["random"] * 8, 1, max_deals=0)


# ================================================================== executors
@pytest.fixture(scope="module")
def ray_local():
    ray = pytest.importorskip("ray")
    import logging
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=2, include_dashboard=False, logging_level=logging.WARNING,
                 log_to_driver=False)
    yield ray
    if started:
        ray.shutdown()


_AGENTS = ("heuristic", "random")
_KW = dict(seed=8, chunk=40)


@pytest.fixture(scope="module")
def serial_result():
    return run_duplicate(*_AGENTS, 120, **_KW)


def _same(a, b):
    assert (a.index == b.index).all()
    assert (a.scores == b.scores).all() and (a.contracts == b.contracts).all()


@pytest.mark.slow
def test_serial_and_pool_agree(serial_result):
    try:
        _same(serial_result, run_duplicate(*_AGENTS, 120, backend="pool", workers=2, **_KW))
        # the pool is kept: a second call reuses its workers
        again = run_duplicate(*_AGENTS, 60, backend="pool", workers=2, seed=8, chunk=7)
        assert (again.scores == serial_result.scores[:60]).all()
    finally:
        arena.shutdown_pool()


@pytest.mark.slow
def test_serial_and_ray_agree(serial_result, ray_local):
    _same(serial_result, run_duplicate(*_AGENTS, 120, backend="ray", workers=2, **_KW))
    players = ["random", "heuristic"] * 4
    ko_serial = run_knockout(players, 2, seed=1)
    ko_ray = run_knockout(players, 2, seed=1, backend="ray")
    assert ko_serial.rows == ko_ray.rows
    # belote for two players: the same executors (its own warm-up first)
    two = dict(preset="belote_a_deux", seed=2, chunk=50)
    assert (run_duplicate("heuristic", "random", 200, backend="ray", **two).scores
            == run_duplicate("heuristic", "random", 200, **two).scores).all()


# ===================================================================== resume
class _Stop(Exception):
    pass


def test_resume_after_an_interrupted_run(tmp_path):
    out = tmp_path / "r.jsonl"
    full = run_duplicate("heuristic", "random", 90, seed=7, chunk=20)

    def stop_after_two_chunks(done, total):
        if done >= 40:
            raise _Stop
    with pytest.raises(_Stop):
        run_duplicate(full.x[0], "random", 90, seed=7, chunk=20, out=out,
                      progress=stop_after_two_chunks)
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert lines[0]["type"] == "run" and lines[0]["config"]["x"] == list(full.x)
    assert sorted(r["i"] for r in lines[1:]) == list(range(40))
    resumed = run_duplicate(full.x[0], "random", 90, seed=7, chunk=20, out=out)
    assert resumed.new == 50 and resumed.n == 90
    assert (resumed.scores == full.scores).all() and (resumed.contracts == full.contracts).all()
    rows = [json.loads(line) for line in out.read_text().splitlines()[1:]]
    assert sorted(r["i"] for r in rows) == list(range(90))
    assert rows[0]["margin"] == full.margins[rows[0]["i"]]
    again = run_duplicate(full.x[0], "random", 90, seed=7, out=out)
    assert again.new == 0 and (again.scores == full.scores).all()
    # more deals later: only the new ones are played
    more = run_duplicate(full.x[0], "random", 100, seed=7, out=out)
    assert more.new == 10 and (more.scores[:90] == full.scores).all()


def test_half_written_last_line_is_dropped(tmp_path):
    out = tmp_path / "r.jsonl"
    ref = run_duplicate("random", "random", 12, seed=2, out=out)
    text = out.read_text()
    out.write_text(text + text.splitlines()[-1][:25])          # a line cut by kill -9
    again = run_duplicate("random", "random", 12, seed=2, out=out)
    assert again.new == 0 and (again.scores == ref.scores).all()
    assert out.read_text() == text
    lines = text.splitlines()
    out.write_text("\n".join(lines[:3] + ["{not json"] + lines[3:]) + "\n")
    with pytest.raises(ResultsFileError, match=r"r\.jsonl:4: not a JSON line"):
        run_duplicate("random", "random", 12, seed=2, out=out)
    out.write_text(json.dumps({"type": "what"}) + "\n")
    with pytest.raises(ResultsFileError, match="expected a 'run' line"):
        run_duplicate("random", "random", 12, seed=2, out=out)


@pytest.mark.parametrize("bad", [-3, "7", 2.5, True])
def test_a_row_with_a_bad_deal_index_is_refused_not_counted(tmp_path, bad):
    out = tmp_path / "r.jsonl"
    run_duplicate("random", "random", 12, seed=2, out=out)
    lines = out.read_text().splitlines()
    row = json.loads(lines[-1])
    row["i"] = bad
    out.write_text("\n".join(lines + [json.dumps(row)]) + "\n")
    with pytest.raises(ResultsFileError, match=r"r\.jsonl:14: row index 'i'"):
        run_duplicate("random", "random", 12, seed=2, out=out)


def test_several_runs_share_a_file_and_replay(tmp_path):
    out = tmp_path / "rr.jsonl"
    t = run_round_robin(["random", "heuristic"], 20, seed=1, out=out)
    with pytest.raises(ArenaError, match=r"holds results of another run .* differs from the "
                                         r"closest one there in y .*--append"):
        run_duplicate("random", "random", 5, seed=1, out=out)
    assert len(arena.load_results(out).runs) == 1          # refused before writing
    run_duplicate("random", "random", 5, seed=1, out=out, append=True)
    store = arena.load_results(out)
    assert len(store.runs) == 2
    with pytest.raises(ResultsFileError, match="holds 2 deal-pair runs"):
        replay_pair(out, 0)
    deals, row, cfg = replay_pair(out, 3, run=t.matchups[0].run)
    for k, deal in enumerate(deals):
        assert list(deal.scores if k == 0 else deal.scores[::-1]) == row["scores"][k]
    with pytest.raises(ResultsFileError, match="has no finished pair 99"):
        replay_pair(out, 99, run=t.matchups[0].run)
    k = run_knockout(["random"] * 8, 2, seed=4, out=out, append=True)
    k2 = run_knockout(["random"] * 8, 2, seed=4, out=out)
    assert k2.rows == k.rows and len(arena.load_results(out).runs) == 3


# ============================================================= tables, plots
def test_summary_and_plots(tmp_path):
    pytest.importorskip("matplotlib")
    r = run_duplicate("random", ("random", "random"), 30, seed=1)
    plain = format_summary(r, use_rich=False)
    assert "random" in plain and "deal pairs" in plain and "+0.00" in plain
    pytest.importorskip("rich")
    assert "paired sd" in format_summary(r, use_rich=True)
    for name, result in (("d.png", r), ("k.png", run_knockout(["random"] * 8, 2, seed=1))):
        fig = plot_results(result, tmp_path / name)
        assert (tmp_path / name).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        assert len(fig.axes) == 2


def test_default_roster_puts_random_and_heuristic_first():
    roster, skipped = arena.default_roster("ffb")
    assert roster[0] == "random"
    assert roster[1] == "heuristic"
    for line in skipped:
        assert ":" in line


def test_module_doctests():
    import doctest

    assert doctest.testmod(arena).failed == 0


# ------------------------------------------------------------ BLAS in workers
def _blas_threads(task, warm=True) -> dict:
    from threadpoolctl import threadpool_info
    return {"task": task, "threads": [i["num_threads"] for i in threadpool_info()
                                      if i["user_api"] == "blas"]}


def test_a_worker_task_runs_blas_on_one_thread_and_restores_it(monkeypatch):
    # issue 44: each pool worker's BLAS started a thread per core; a 2-worker pool of
    # nnsearch ran 5 times slower than with one thread each
    from threadpoolctl import threadpool_info, threadpool_limits
    from coinche_rl.arena import executors
    monkeypatch.setattr(executors, "_run_task", _blas_threads)      # a task that reports

    def blas():
        return [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]
    assert blas(), "numpy's BLAS is not seen by threadpoolctl"
    with threadpool_limits(limits=2, user_api="blas"):
        before = blas()
        got = executors._run_task_in_worker("t", ())      # what pool and Ray workers run
        assert blas() == before                                  # scoped to the task
    assert got == {"task": "t", "threads": [1] * len(before)}
