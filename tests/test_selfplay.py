"""Self-play labels (``coinche_rl.agents.neural.selfplay``) and the self-play trainer.

* the opponent pool's text is parsed and checked;
* a chunk is a pure function of its arguments and the weights;
* only the learner's seats are labelled; the tables follow the pool's shares;
* every target is the value of the card played out on the true deal by the deal's table:
  checked against a plain one-decision-at-a-time play-out (no lockstep batches), in
  coinche and in belote for two players;
* belote for two players: a chunk is a pure function of its arguments, both players'
  decisions are labelled in self-play, and the learner's inputs are his public view's
  (the cards he cannot see permuted, the inputs do not move);
* ``train play --labels selfplay``: generations are written and labelled from, the
  learning curve has one evaluation per generation, ``--init`` takes a weights file, and
  an interrupted and resumed run ends with the same weights as an uninterrupted one.
"""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

from coinche_rl import actions as A
from coinche_rl import engine as E
from coinche_rl.agents.neural import canonical as C
from coinche_rl.agents.neural.agent import load_bid_net
from coinche_rl.agents.neural.batch_play import BID_NET, CARD_NET, NET_BID, NET_CARD, NOT_A_CARD
from coinche_rl.agents.neural.family import net_family
from coinche_rl.agents.neural.net import MLP
from coinche_rl.agents.neural.selfplay import (OPPONENTS, P_HEURISTIC, P_LEARNER, P_PAST,
                                               P_RANDOM, SelfPlayTable, legal_cards,
                                               parse_opponents, play_trajectories,
                                               selfplay_chunk, value_positions)
from coinche_rl.agents.numba_bots import game_bot_action
from coinche_rl.rules import get_rules, params_vector
from coinche_rl.two_player import IllegalPlayError, TwoPlayerDeal

from two_player_cases import hidden_cards_permuted

RULES = get_rules("ffb")
TWO = get_rules("belote_a_deux")


def _table(past=1, bid=True, rules=RULES):
    n_in = net_family(rules).feature_size
    net = MLP.random(hidden=(24,), seed=1, inputs=n_in)
    return SelfPlayTable(net, load_bid_net(rules=rules, required=False) if bid else None,
                         [MLP.random(hidden=(24,), seed=2 + k, inputs=n_in)
                          for k in range(past)])


# --------------------------------------------------------------- the opponent pool
def test_the_opponent_pool_is_parsed_normalised_and_checked():
    s = parse_opponents("self=2, heuristic=1,random=1")
    assert np.allclose(s, [0.5, 0.25, 0.25, 0.0]) and len(s) == len(OPPONENTS)
    assert np.allclose(parse_opponents("past=3"), [0, 0, 0, 1])
    for bad, word in (("selff=1", "KIND=SHARE"), ("self", "KIND=SHARE"), ("self=x", "number"),
                      ("self=-1", "at least 0"), ("self=0", "positive share"),
                      ("", "positive share")):
        with pytest.raises(ValueError, match=word):
            parse_opponents(bad)


# ---------------------------------------------------------------------- the chunks
def test_a_chunk_is_a_pure_function_of_its_arguments_and_the_weights():
    table = _table()
    shares = parse_opponents("self=1,heuristic=1,random=1,past=1")
    a = selfplay_chunk(RULES, 5, 10, 12, table, shares)
    b = selfplay_chunk(RULES, 5, 10, 12, table, shares)
    c = selfplay_chunk(RULES, 6, 10, 12, table, shares)
    assert len(a) > 50 and a.playout_steps > len(a)
    for x, y in ((a.feats, b.feats), (a.cards, b.cards), (a.targets, b.targets),
                 (a.tricks, b.tricks)):
        assert np.array_equal(x, y)
    assert not np.array_equal(a.targets[:40], c.targets[:40])
    # two or more legal cards per row, targets only on legal cards, tricks 0..7
    assert (a.cards.sum(1) >= 2).all()
    assert (a.targets[~a.cards] == 0).all()
    assert a.tricks.min() >= 0 and a.tricks.max() <= 7 and a.tricks.max() >= 5
    # other weights, other labels
    other = SelfPlayTable(MLP.random(hidden=(24,), seed=9), table.bid_net, table.past)
    d = selfplay_chunk(RULES, 5, 10, 12, other, shares)
    assert not (len(d) == len(a) and np.array_equal(d.targets, a.targets))


def test_only_the_learners_seats_are_labelled_and_the_tables_follow_the_pool():
    table = _table(past=2)
    P = params_vector(RULES)
    for kind, players in (("heuristic", {P_HEURISTIC}), ("random", {P_RANDOM}),
                          ("past", {P_PAST, P_PAST + 1}), ("self", {P_LEARNER})):
        pos, tables = play_trajectories(RULES, 3, 0, 40, table, parse_opponents(kind + "=1"),
                                        frozen=0.5, epsilon=0.0)
        assert len(pos) > 0
        for S, t in zip(pos, tables):
            seat = E.current_seat(S)
            assert t[seat] == P_LEARNER                     # a learner's decision
            assert E.popcount(E.legal_play_mask(S, P)) >= 2
            assert t[(seat + 1) & 3] == t[(seat + 3) & 3]   # one opponent player
            assert t[(seat + 2) & 3] == P_LEARNER
            others = {int(t[(seat + 1) & 3])}
            assert others <= players, (kind, others)
        if kind == "self":
            # all four seats are the learner's, so every seat has decisions
            assert set(E.current_seat(S) for S in pos) == {0, 1, 2, 3}


def _play_out(S, seats, table, P, inputs):
    """The play-out of ``S`` one decision at a time (the oracle of the lockstep path), in
    every family: a network player's card decision with a choice is its network's (from
    what :meth:`readable` gives it), its auction (prise, exchange) the bidding
    network's; everything else the player's numba bot on his public view
    (deterministic here: no random player)."""
    nets, bids, bots = table.card_nets(), table.bid_nets(), table.bots()
    buf = np.zeros(A.N_ACTIONS, dtype=np.uint8)
    rng = np.zeros(1, dtype=np.uint64)
    V = np.zeros_like(S)
    while E.game_phase(S, P) != E.PHASE_DONE:
        cur = E.game_to_act(S, P)
        p = int(seats[cur])
        flag = (CARD_NET if nets[p] is not None else 0) | (BID_NET if bids[p] is not None else 0)
        X, rows = inputs.readable(S[None, :].copy(), np.zeros(1, dtype=np.int64))
        a = int(inputs.choice(X[0], P, flag))
        if a == NET_CARD:
            a = int(inputs.net_actions(nets[p], X, rows)[0])
        elif a == NET_BID:
            a = int(bids[p].actions(inputs, X, rows)[0])
        elif a == NOT_A_CARD:
            E.game_public_view_into(S, P, cur, V)
            a = int(game_bot_action(bots[p], V, P, cur, rng, buf))
        assert E.game_is_legal(S, P, a)
        E.game_apply(S, P, a)
    return S


@pytest.mark.parametrize("preset, games, step", [("ffb", 6, 3), ("belote_a_deux", 4, 3)])
def test_every_target_is_the_cards_play_out_by_the_deals_table(preset, games, step):
    rules = get_rules(preset)
    table = _table(past=1, rules=rules)
    P = params_vector(rules)
    pos, tables = play_trajectories(rules, 11, 0, games, table,
                                    parse_opponents("self=1,heuristic=1,past=1"),
                                    frozen=0.5, epsilon=0.2)
    feats, legal, targets, nb = value_positions(rules, pos, tables, table, 11, 0)
    assert nb == int(legal.sum()) and len(pos) > 15
    inputs = net_family(rules).inputs_class(rules, 1)
    checked = 0
    for i in range(0, len(pos), step):
        S = pos[i]
        side = E.game_side(P, E.game_to_act(S, P))
        perm = int(inputs.compute(*inputs.readable(S[None, :].copy(),
                                                   np.zeros(1, dtype=np.int64)))[2][0])
        m = legal_cards(S, P)
        while m:
            c = E.lowest_card(m)
            m &= m - 1
            T = S.copy()
            E.game_apply(T, P, A.CARD_BASE + c)
            _play_out(T, tables[i], table, P, inputs)
            want = E.game_score(T, P, side) - E.game_score(T, P, 1 - side)
            j = C.ACT_DST[perm, A.CARD_BASE + c] - A.CARD_BASE
            assert legal[i, j]
            assert targets[i, j] == want, (i, c)
            checked += 1
    assert checked > 40


# ------------------------------------------------------------ belote for two players
def test_two_player_chunks_are_pure_and_label_both_players_in_self_play():
    table = _table(rules=TWO)
    shares = parse_opponents("self=1,heuristic=1,random=1,past=1")
    a = selfplay_chunk(TWO, 5, 0, 4, table, shares)
    b = selfplay_chunk(TWO, 5, 0, 4, table, shares)
    c = selfplay_chunk(TWO, 6, 0, 4, table, shares)
    assert len(a) > 30 and a.feats.shape[1] == net_family(TWO).feature_size
    for x, y in ((a.feats, b.feats), (a.cards, b.cards), (a.targets, b.targets),
                 (a.tricks, b.tricks)):
        assert np.array_equal(x, y)
    assert not (len(c) == len(a) and np.array_equal(c.targets, a.targets))
    assert (a.cards.sum(1) >= 2).all() and (a.targets[~a.cards] == 0).all()
    assert a.tricks.min() >= 0 and a.tricks.max() <= 15
    P = params_vector(TWO)
    pos, tables = play_trajectories(TWO, 3, 0, 6, table, parse_opponents("self=1"),
                                    epsilon=0.0)
    assert {int(E.game_to_act(S, P)) for S in pos} == {0, 1}      # both players'
    assert (tables[:, :2] == P_LEARNER).all()
    pos, tables = play_trajectories(TWO, 3, 0, 6, table, parse_opponents("heuristic=1"),
                                    epsilon=0.0)
    for S, t in zip(pos, tables):
        me = int(E.game_to_act(S, P))
        assert t[me] == P_LEARNER and t[1 - me] == P_HEURISTIC


def test_the_two_player_learners_inputs_are_his_public_view():
    """Two deals that differ only in the cards the player to act cannot see (the other
    hand's unseen cards, every face-down card): the same inputs and legal cards."""
    rng = np.random.default_rng(7)
    table = _table(rules=TWO)
    compared = 0
    for trial in range(12):
        deck = [int(x) for x in rng.permutation(32)]
        dealer = trial % 2
        d = TwoPlayerDeal("belote_a_deux", deck=deck, dealer=dealer)
        played = ["take", "no-exchange"]
        for a in played:
            d.apply(a)
        for _ in range(int(rng.integers(0, 6))):              # a few cards into the play
            played.append(d.legal_actions()[0])
            d.apply(played[-1])
        if len(d.legal_actions()) < 2:
            continue
        d2 = TwoPlayerDeal("belote_a_deux", deck=hidden_cards_permuted(d, deck, dealer, rng),
                           dealer=dealer)
        try:
            for a in played:
                d2.apply(a)
        except IllegalPlayError:
            continue                    # the 7 of trump moved: another exchange there
        if d2.state.tolist() == d.state.tolist() or \
                not (d.view(d.current_player).state == d2.view(d.current_player).state).all():
            continue
        pos = np.stack([d.state, d2.state]).astype(np.int64)
        tables = np.zeros((2, 4), dtype=np.int64)
        feats, legal, _targets, _ = value_positions(TWO, pos, tables, table, 1, 0)
        assert np.array_equal(feats[0], feats[1]) and np.array_equal(legal[0], legal[1])
        compared += 1
    assert compared >= 5


# ------------------------------------------------------------------- the trainer
torch = pytest.importorskip("torch")
from coinche_rl.agents.neural.net import load_weights                 # noqa: E402
from coinche_rl.train.play import (Args, generation_path, train)  # noqa: E402


def sp_args(out, **kw) -> Args:
    base = dict(out=str(out), hidden=[16], chunk_deals=4, workers=0, labels="selfplay",
                generation_chunks=3, updates_per_chunk=4, batch_size=32, min_buffer=32,
                buffer_size=3000, eval_minutes=0.0, checkpoint_minutes=1e9, log_seconds=1e9,
                progress=False, max_chunks=7, anneal_updates=200, seed=3)
    base.update(kw)
    return Args(**base)


def _model_of(run):
    ck = torch.load(os.path.join(run, "checkpoint.pt"), weights_only=True)
    return ck["model"]


def test_self_play_generations_are_written_and_a_resumed_run_is_the_same_run(tmp_path):
    full = train(sp_args(tmp_path / "full"))
    assert full["chunks"] == 7 and full["updates"] > 0
    # generations 0, 1, 2 (chunks 0-2, 3-5, 6): each the weights it was made from
    for g in range(3):
        assert os.path.isfile(generation_path(str(tmp_path / "full"), g))
    assert not os.path.exists(generation_path(str(tmp_path / "full"), 3))
    g0 = load_weights(generation_path(str(tmp_path / "full"), 0))
    g2 = load_weights(generation_path(str(tmp_path / "full"), 2))
    assert not np.array_equal(g0.layers[0][0], g2.layers[0][0])
    part = train(sp_args(tmp_path / "part", max_chunks=4))
    assert part["chunks"] == 4
    resumed = train(sp_args(tmp_path / "part", resume=True))
    assert resumed["chunks"] == 7 and resumed["updates"] == full["updates"]
    a, b = _model_of(tmp_path / "full"), _model_of(tmp_path / "part")
    for k in a:
        assert torch.equal(a[k], b[k]), k
    # another opponent pool is another run
    with pytest.raises(ValueError, match="opponents"):
        train(sp_args(tmp_path / "part", resume=True, max_chunks=9, opponents="self=1"))


def test_each_generation_is_evaluated_and_init_takes_a_weights_file(tmp_path):
    first = train(sp_args(tmp_path / "a", max_chunks=3, generation_chunks=10))
    res = train(sp_args(tmp_path / "b", init=first["weights"], max_chunks=7,
                        eval_minutes=1e6, eval_pairs=20))
    evals = [ev for ev in res["history"] if not ev.get("run")]
    # generations 1 and 2 (chunks 3 and 6) are evaluated when they start; the end too
    assert [ev["generation"] for ev in evals if "generation" in ev] == [1, 2]
    assert evals[-1]["updates"] == res["updates"] and "generation" not in evals[-1]
    # generation 0 is the init file's weights
    g0 = load_weights(generation_path(str(tmp_path / "b"), 0))
    w = load_weights(first["weights"])
    assert all(np.array_equal(x, y) for (x, _), (y, _) in zip(g0.layers, w.layers))
    man = load_weights(res["weights"]).manifest["training"]
    assert man["init"]["run"] == "weights.npz" and man["args"]["labels"] == "selfplay"
    with pytest.raises(ValueError, match="hidden"):
        train(sp_args(tmp_path / "c", hidden=[8], init=first["weights"]))
    with pytest.raises(FileNotFoundError, match="--init"):
        train(sp_args(tmp_path / "d", init=str(tmp_path / "none.npz")))
    assert not (tmp_path / "c").exists() and not (tmp_path / "d").exists()


@pytest.mark.parametrize("bad, word", [
    (dict(labels="dmc"), "labels"), (dict(opponents="self=1,bots=2"), "opponents"),
    (dict(generation_chunks=0), "generation-chunks")])
def test_bad_self_play_settings_are_refused_before_anything_is_written(tmp_path, bad, word):
    with pytest.raises(ValueError, match=word):
        train(sp_args(tmp_path / "x", **bad))
    assert not (tmp_path / "x").exists()
