"""The belief net of belote for two players: its labels (where each hidden card lies),
its input (the player's public view only), the weighted two-player world sampler
(exactly conditioned on the rules' constraints), the load checks and the trainer."""

from __future__ import annotations

import itertools
import os

import numpy as np
import pytest

from coinche_rl.agents import make_agent, play_deal
from coinche_rl.agents.neural import belief as B
from coinche_rl.agents.neural import canonical as C
from coinche_rl.agents.neural.labels_two import (FACE_DOWN, FACE_DOWN_FORCED, IN_HAND,
                                                 belief_labels, uniform_loss_two)
from coinche_rl.agents.neural.net import (MLP, NeuralError, WeightsError, load_weights,
                                          make_manifest, save_weights)
from coinche_rl.agents.pimc import PIMCError
from coinche_rl.agents.sampler import (_draw_hand, draw_view_worlds, hand_constraints, hand_odds,
                                       view_hand_marginals)
from coinche_rl.engine import two as E2
from coinche_rl.engine.bits import rng_seed
from coinche_rl.rules import get_rules
from coinche_rl.two_player import IllegalPlayError, TwoPlayerDeal
from two_player_cases import hidden_cards_permuted

A_DEUX = "belote_a_deux"


def _belief_file(tmp_path, rules=A_DEUX, seed=0, hidden=(16,), name="belief"):
    places = 2 if rules.startswith("belote") else 3
    mlp = MLP.random(hidden, seed=seed, outputs=32 * places,
                     inputs=B.net_family(rules).feature_size)
    path = os.path.join(tmp_path, f"{name}-{rules}.npz")
    save_weights(path, mlp, make_manifest(mlp, get_rules(rules), {"run": "test"}, kind="belief"),
                 dtype=np.float32)
    return path


def _in_play(seed: int, cards: int) -> TwoPlayerDeal:
    """A belote à deux deal of ``seed`` after the heuristic's prise and ``cards`` cards."""
    d = TwoPlayerDeal(A_DEUX, seed=seed, dealer=seed % 2)
    h = make_agent("heuristic", "two")
    played = 0
    while not d.is_terminal and (d.phase != "play" or played < cards):
        p = d.current_player
        h.reset(p, d.rules, 0)
        played += d.phase == "play"
        d.apply(h.act(d.view(p)))
    return d


def _labels(d: TwoPlayerDeal) -> np.ndarray:
    p = d.current_player
    inputs = B.net_family(A_DEUX).inputs_class(d.rules, 1)
    view = np.ascontiguousarray(d.view(p).state[None, :])
    _f, _l, perms = inputs.compute(view, np.zeros(1, dtype=np.int64))
    out = np.zeros((1, 32), dtype=np.int8)
    belief_labels(np.ascontiguousarray(d.state[None, :]), view, np.zeros(1, dtype=np.int64),
                  perms.copy(), out)
    return out[0], int(perms[0])


@pytest.mark.parametrize("seed,cards", [(1, 0), (2, 5), (3, 12)])
def test_labels_say_where_each_hidden_card_lies(seed, cards):
    d = _in_play(seed, cards)
    assert d.phase == "play"
    p, o = d.current_player, 1 - d.current_player
    labels, perm = _labels(d)
    v = d.view(p)
    allowed = int(hand_constraints(v.state, p))
    down = d.table_down[0] | d.table_down[1]
    for c in range(32):
        k = int(C.PERMS[perm, c >> 3]) * 8 + (c & 7)
        bit = 1 << c
        if d.hands[o] & bit and not v.known_other & bit:
            want = IN_HAND
        elif down & bit:
            want = FACE_DOWN if allowed & bit else FACE_DOWN_FORCED
        else:
            want = 0                    # seen: his hand, face up, played, known
        assert labels[k] == want, (c, labels[k], want)
    assert (labels > 0).sum() == bin(v.unseen).count("1")


def test_uniform_baseline_is_the_hand_share():
    # 2 cards of 4 may be in the other hand: each card there with probability 1/2
    labels = np.array([[IN_HAND, IN_HAND, FACE_DOWN, FACE_DOWN, FACE_DOWN_FORCED] + [0] * 27])
    assert uniform_loss_two(labels) == pytest.approx(np.log(2))


def test_positions_come_from_play_decisions_of_a_deux_only():
    pos = B.generate_positions(get_rules(A_DEUX), seed=1, first_game=0, n_games=6)
    assert pos.feats.shape[1] == B.net_family(A_DEUX).feature_size and len(pos.labels) > 0
    assert ((pos.labels == IN_HAND).any(1) & (pos.labels == FACE_DOWN).any(1)).all()
    again = B.generate_positions(get_rules(A_DEUX), seed=1, first_game=0, n_games=6)
    assert np.array_equal(pos.labels, again.labels) and np.array_equal(pos.feats, again.feats)


def test_the_belief_reads_only_the_public_view(tmp_path):
    """Deals that differ only in the cards the player cannot see give the same belief."""
    net = B.load_belief_net(_belief_file(tmp_path, hidden=(32,), seed=5), get_rules(A_DEUX))
    rng = np.random.default_rng(7)
    compared = 0
    for trial in range(30):
        deck = [int(c) for c in rng.permutation(32)]
        dealer = trial % 2
        d = TwoPlayerDeal(A_DEUX, deck=deck, dealer=dealer)
        d.apply("take")
        if d.phase != "play":
            d.apply("no-exchange")
        if d.phase != "play":
            continue
        deck2 = hidden_cards_permuted(d, deck, dealer, rng)
        d2 = TwoPlayerDeal(A_DEUX, deck=deck2, dealer=dealer)
        try:
            d2.apply("take")
            if d2.phase != "play":
                d2.apply("no-exchange")
        except IllegalPlayError:
            continue
        p = d.current_player
        if d2.phase != "play" or not np.array_equal(d.view(p).state, d2.view(p).state):
            continue
        assert not np.array_equal(d.state, d2.state) or deck == deck2
        assert np.array_equal(net.other_hand(d.view(p)), net.other_hand(d2.view(p)))
        compared += 1
    assert compared >= 10


# ------------------------------------------------------------------ the sampler
def _draws(pool, h, odds, n, seed):
    rng = np.zeros(1, dtype=np.uint64)
    rng_seed(rng, np.uint64(seed), 0)
    E = np.empty((33, 33))
    return [int(_draw_hand(np.int64(pool), np.int64(h), odds, rng, E)) for _ in range(n)]


def test_the_other_hand_is_drawn_in_proportion_to_its_odds_exactly():
    cards = [0, 3, 9, 17, 25, 30]
    pool = sum(1 << c for c in cards)
    odds = np.zeros(32)
    odds[cards] = [0.2, 1.0, 3.0, 0.5, 0.0, 2.0]        # card 25 ruled out: odds 0
    want = {}
    for hand in itertools.combinations(cards, 2):
        want[sum(1 << c for c in hand)] = np.prod([odds[c] for c in hand])
    total = sum(want.values())
    n = 20000
    got = np.unique(_draws(pool, 2, odds, n, 3), return_counts=True)
    freq = dict(zip(got[0].tolist(), (got[1] / n).tolist()))
    for m, w in want.items():
        assert freq.get(m, 0.0) == pytest.approx(w / total, abs=0.012)
    assert not any(m >> 25 & 1 for m in freq)          # exactly never there
    assert _draws(pool, 2, odds, 50, 9) == _draws(pool, 2, odds, 50, 9)
    assert _draws(pool, 2, odds, 50, 9) != _draws(pool, 2, odds, 50, 10)


def test_equal_odds_give_the_uniform_worlds():
    pool = sum(1 << c for c in (1, 4, 6, 11, 20))
    n = 20000
    for odds in (np.full(32, 0.7), np.empty(0)):        # equal odds, and the uniform draw
        got = np.unique(_draws(pool, 3, odds, n, 4), return_counts=True)
        assert len(got[0]) == 10
        assert np.allclose(got[1] / n, 0.1, atol=0.012)


def test_view_worlds_keep_every_hard_constraint(tmp_path):
    net = B.load_belief_net(_belief_file(tmp_path, seed=2), get_rules(A_DEUX))
    for seed, cards in ((4, 3), (5, 11), (6, 17), (7, 9)):
        d = _in_play(seed, cards)
        if d.phase != "play":
            continue                    # a void deal
        p, o = d.current_player, 1 - d.current_player
        v = d.view(p)
        odds = np.empty(32)
        hand_odds(v.state, np.int64(p), net.other_hand(v), odds)
        allowed = int(hand_constraints(v.state, p))
        assert all(odds[c] == 0.0 for c in range(32) if not allowed >> c & 1)
        rng = np.zeros(1, dtype=np.uint64)
        rng_seed(rng, np.uint64(seed), 0)
        worlds = draw_view_worlds(v, rng, np.empty((40, len(v.state)), dtype=np.int64),
                                  odds=odds)
        hidden = d.hands[o] & ~v.known_other
        for w in worlds:
            hand = int(E2.py.hand_of(w, o)) & ~v.known_other
            assert bin(hand).count("1") == bin(hidden).count("1")
            assert hand & ~(v.unseen & allowed) == 0 or v.unseen & allowed == v.unseen
            down = int(E2.py.face_down_cards(w, 0)) | int(E2.py.face_down_cards(w, 1))
            assert down | hand == v.unseen and down & hand == 0
        rng_seed(rng, np.uint64(seed), 0)
        again = draw_view_worlds(v, rng, np.empty_like(worlds), odds=odds)
        assert np.array_equal(worlds, again)


def test_hand_marginals_are_those_of_the_draws_exactly(tmp_path):
    """view_hand_marginals against every hand of the pool weighed by its odds' product."""
    net = B.load_belief_net(_belief_file(tmp_path, seed=3), get_rules(A_DEUX))
    checked = 0
    for seed, cards in ((13, 10), (15, 14), (3, 12)):
        d = _in_play(seed, cards)
        if d.phase != "play":
            continue
        p, o = d.current_player, 1 - d.current_player
        v = d.view(p)
        pool = v.unseen & int(hand_constraints(v.state, p))
        h = bin(d.hands[o] & ~v.known_other).count("1")
        odds = np.empty(32)
        hand_odds(v.state, np.int64(p), net.other_hand(v), odds)
        members = [c for c in range(32) if pool >> c & 1]
        want, total = np.zeros(32), 0.0
        for hand in itertools.combinations(members, h):
            w = np.prod([odds[c] for c in hand])
            total += w
            want[list(hand)] += w
        assert np.allclose(view_hand_marginals(v, odds), want / total, atol=1e-9)
        uniform = view_hand_marginals(v)
        assert np.allclose(uniform[members], h / len(members)) and uniform.sum() == \
            pytest.approx(h)
        checked += 1
    assert checked >= 2


def test_the_belief_report_of_belote_a_deux(tmp_path):
    rules = get_rules(A_DEUX)
    net = B.load_belief_net(_belief_file(tmp_path, seed=4), rules)
    rep = B.belief_report(net, rules, n_deals=2, seed=1)
    assert rep["rules"] == A_DEUX and rep["players"] == ["nn", "heuristic"]
    assert rep["positions"] > 0 and set(rep["by_trick"]) <= {str(t) for t in range(1, 17)}
    assert all(0.0 < rep[f"log_loss_{k}"] < 5.0 for k in ("uniform", "net", "worlds"))
    assert sum(b["n"] for b in rep["calibration"]) > 0
    # a position's uniform score is the trainer's baseline of its labels
    d = _in_play(3, 12)
    v = d.view(d.current_player)
    losses, trick, p, y = B.net_family(A_DEUX).belief_scores_of(net, d, d.current_player, v)
    assert losses["uniform"] == pytest.approx(uniform_loss_two(_labels(d)[0][None, :]))
    assert trick == E2.py.trick_number(d.state) and len(p) == len(y) == (_labels(d)[0] > 0).sum() \
        - (_labels(d)[0] == FACE_DOWN_FORCED).sum()
    with pytest.raises(NeuralError, match="face down"):
        B.belief_report(net, "belote_decouverte", n_deals=1)
    with pytest.raises(ValueError, match="no auction to freeze"):
        B.belief_report(net, rules, n_deals=1, frozen=True)
    with pytest.raises(ValueError, match="4 players given"):
        B.belief_report(net, rules, n_deals=1, players=("nn", "heuristic") * 2)


# ------------------------------------------------------------------ load checks
def test_belief_files_are_checked_for_the_family_and_the_preset(tmp_path):
    path = _belief_file(tmp_path)
    assert load_weights(path, kind="belief").outputs == 64
    assert B.load_belief_net(path, get_rules(A_DEUX)).places == 2
    with pytest.raises(WeightsError, match="kind"):
        load_weights(path, kind="play")
    four = _belief_file(tmp_path, rules="ffb")
    with pytest.raises(NeuralError, match="trained for 'ffb'"):
        B.load_belief_net(four, get_rules(A_DEUX))
    with pytest.raises(NeuralError, match="another family"):
        B.load_belief_net(four, get_rules(A_DEUX), check_rules=False)
    with pytest.raises(NeuralError, match="another family"):
        B.load_belief_net(path, get_rules("ffb"), check_rules=False)
    with pytest.raises(NeuralError, match="face down, unknown to both"):
        B.load_belief_net(path, get_rules("belote_decouverte"))


def test_pimc_draws_believed_worlds_for_two_players(tmp_path):
    path = _belief_file(tmp_path, seed=3)
    agent = make_agent(f"pimc:worlds=4,solve_from=14,worlds_from=belief,belief_weights={path}",
                       "two")
    deal = TwoPlayerDeal(A_DEUX, seed=11, dealer=1)
    play_deal(deal, [agent, make_agent("heuristic", "two")], seeds=[1, 2])
    assert deal.is_terminal and agent.belief_net(get_rules(A_DEUX)) is not None
    with pytest.raises(PIMCError, match="no belief net"):
        make_agent("pimc:worlds_from=belief", "two").belief_net(get_rules("belote_decouverte"))
    assert make_agent("pimc", "two").belief_net(get_rules("belote_decouverte")) is None


# ------------------------------------------------------------------ the trainer
def test_train_belief_two_resumes_exactly(tmp_path):
    """About 3 s: two runs of two chunks, one of them interrupted and resumed; the
    manifest's population, also through ``export_run``."""
    pytest.importorskip("torch")
    from coinche_rl.train import belief as T
    common = ["--rules", A_DEUX, "--chunk-games", "4", "--batch-size", "32", "--eval-games",
              "4", "--no-progress", "--buffer-size", "200", "--eval-minutes", "0",
              "--hidden", "8"]
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    ra = T.train(T.parse_args(["--out", a, "--max-chunks", "2", *common]))
    T.train(T.parse_args(["--out", b, "--max-chunks", "1", *common]))
    rb = T.train(T.parse_args(["--out", b, "--max-chunks", "2", "--resume", *common]))
    assert ra["updates"] == rb["updates"] and ra["final"]["log_loss"] == rb["final"]["log_loss"]
    wa = load_weights(os.path.join(a, "weights.npz"), get_rules(A_DEUX), kind="belief")
    wb = load_weights(os.path.join(b, "weights.npz"), get_rules(A_DEUX), kind="belief")
    assert all(np.array_equal(x, y) for (x, _), (y, _) in zip(wa.layers, wb.layers))
    assert wa.manifest["action_map"] == "canonical-cards-32x2-places"
    assert "log_loss_uniform" in ra["final"]
    # the manifest names the card player whose deals it learnt from: the shipped nn net
    from coinche_rl.agents.neural.agent import load_play_net
    shipped = load_play_net("", get_rules(A_DEUX)).manifest["training"]
    pop = wa.manifest["training"]["population"]
    assert (pop["play"]["run"], pop["play"]["updates"]) == (shipped["run"], shipped["updates"])
    assert wb.manifest["training"]["population"] == pop
    out = T.export_run(b, str(tmp_path / "x.npz"))
    assert load_weights(out, kind="belief").manifest["training"]["population"] == pop
    with pytest.raises(ValueError, match="face down"):
        T.check_args(T.parse_args(["--rules", "belote_decouverte", "--out", a]))


def test_nnsearch_draws_the_believed_worlds_of_pimc(tmp_path):
    from coinche_rl.agents.neural.search import SearchAgent, _two_draw
    path = _belief_file(tmp_path, seed=6)
    d = _in_play(2, 5)
    assert d.phase == "play"
    p = d.current_player

    def draw(**kw):
        agent = SearchAgent(worlds=8, **kw)
        agent.reset(p, d.rules, 0)
        return _two_draw(agent, d.view(p), 8, 5)
    uniform = draw(worlds_from="uniform")
    assert not np.array_equal(draw(worlds_from="belief", belief_weights=path,
                                   uniform_share=0.0), uniform)
    assert np.array_equal(draw(worlds_from="belief", belief_weights=path, uniform_share=1.0),
                          uniform)


def test_the_shipped_belief_of_belote_a_deux_beats_the_uniform_worlds():
    from coinche_rl.agents.neural.net import default_weights_path
    rules = get_rules(A_DEUX)
    m = load_weights(default_weights_path(A_DEUX, "belief"), rules, kind="belief").manifest
    final = m["evaluation"]["final"]
    assert m["rules"]["name"] == A_DEUX and m["training"]["minutes"] > 0
    assert final["log_loss"] < final["log_loss_uniform"]
    # it says whose deals it learnt from: a card-play net of the preset
    from coinche_rl.agents.neural.net import rules_hash
    play = m["training"]["population"]["play"]
    assert play["rules"] == rules_hash(rules) and play["run"] and play["updates"] > 0
    assert make_agent("pimc", "two").belief_net(rules) is not None     # auto: the believed worlds
