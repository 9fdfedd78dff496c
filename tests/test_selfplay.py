"""Self-play labels (``coinche_rl.agents.neural.selfplay``) and the self-play trainer.

* the opponent pool's text is parsed and checked;
* a chunk is a pure function of its arguments and the weights;
* only the learner's seats are labelled; the tables follow the pool's shares;
* every target is the value of the card played out on the true deal by the deal's table:
  checked against a plain one-decision-at-a-time play-out (no lockstep batches);
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
from coinche_rl.agents.neural.batch_play import NetInputs
from coinche_rl.agents.neural.net import MLP
from coinche_rl.agents.neural.selfplay import (OPPONENTS, P_HEURISTIC, P_LEARNER, P_PAST,
                                               P_RANDOM, SelfPlayTable, parse_opponents,
                                               play_trajectories, selfplay_chunk,
                                               value_positions)
from coinche_rl.agents.numba_bots import bot_action
from coinche_rl.rules import get_rules, params_vector

RULES = get_rules("ffb")


def _table(past=1, bid=True):
    net = MLP.random(hidden=(24,), seed=1)
    return SelfPlayTable(net, load_bid_net(rules=RULES, required=False) if bid else None,
                         [MLP.random(hidden=(24,), seed=2 + k) for k in range(past)])


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


def _play_out(S, seats, table, P, inputs, bid_net):
    """The play-out of ``S`` one decision at a time (the oracle of the lockstep path):
    a network seat's card decision with a choice is its network's, its auction the
    bidding network's; everything else the player's numba bot (deterministic here: no
    random player)."""
    nets = table.card_nets()
    bots = table.bots()
    buf = np.zeros(A.N_ACTIONS, dtype=np.uint8)
    rng = np.zeros(1, dtype=np.uint64)
    while E.phase_of(S) != E.DONE:
        cur = E.current_seat(S)
        p = int(seats[cur])
        one = S[None, :].copy()
        if nets[p] is not None and E.phase_of(S) == E.PLAY and E.pending_choice(S, P) == 0 \
                and E.popcount(E.legal_play_mask(S, P)) >= 2:
            a = int(inputs.net_actions(nets[p], one, np.zeros(1, dtype=np.int64))[0])
        elif nets[p] is not None and bid_net is not None and E.phase_of(S) == E.AUCTION:
            a = int(bid_net.actions(inputs, one, np.zeros(1, dtype=np.int64))[0])
        else:
            a = int(bot_action(bots[p], S, P, cur, rng, buf))
        assert E.is_legal(S, P, a)
        E.apply_legal_action(S, P, a)
    return S


def test_every_target_is_the_cards_play_out_by_the_deals_table():
    table = _table(past=1)
    P = params_vector(RULES)
    pos, tables = play_trajectories(RULES, 11, 0, 6, table,
                                    parse_opponents("self=1,heuristic=1,past=1"),
                                    frozen=0.5, epsilon=0.2)
    feats, legal, targets, nb = value_positions(RULES, pos, tables, table, 11, 0)
    assert nb == int(legal.sum()) and len(pos) > 20
    inputs = NetInputs(RULES, 1)
    checked = 0
    for i in range(0, len(pos), 3):
        S = pos[i]
        seat = E.current_seat(S)
        team = seat & 1
        perm = int(inputs.compute(S[None, :].copy(), np.zeros(1, dtype=np.int64))[2][0])
        m = E.legal_play_mask(S, P)
        while m:
            c = E.lowest_card(m)
            m &= m - 1
            T = S.copy()
            E.apply_legal_action(T, P, A.CARD_BASE + c)
            _play_out(T, tables[i], table, P, inputs, table.bid_net)
            want = E.team_score(T, team) - E.team_score(T, 1 - team)
            j = C.ACT_DST[perm, A.CARD_BASE + c] - A.CARD_BASE
            assert legal[i, j]
            assert targets[i, j] == want, (i, c)
            checked += 1
    assert checked > 40


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
