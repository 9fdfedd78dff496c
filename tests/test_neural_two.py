"""Networks for belote for two players (``agents/neural`` over the ``two`` family).

* the input reads the player's information set only: two deals that differ only in what
  he cannot see (the face-down cards, the unseen cards of the other hand) give him the
  same input, and the input from the full state equals the input from his public view;
* the canonical suit order: renaming the suits of a deal leaves the input unchanged and
  maps the legal cards along;
* labels: a chunk is a pure function of its arguments; the solver targets are the deal
  scores of the cards' double-dummy values;
* weights: export and load without torch, the manifest refuses another preset or family;
* the ``nn`` agent plays both presets (deterministically) and the trainer runs, resumes
  and refuses what it cannot do.
"""

from __future__ import annotations

import numpy as np
import pytest

from coinche_rl import actions as A
from coinche_rl.agents import make_agent, play_deal
from coinche_rl.agents.neural import canonical as C
from coinche_rl.agents.neural import canonical_two as C2
from coinche_rl.agents.neural.family import net_family
from coinche_rl.agents.neural.net import (MLP, NeuralError, WeightsError, load_weights,
                                          make_manifest, save_weights)
from coinche_rl.engine import entry
from coinche_rl.engine import two as E2
from coinche_rl.rules import get_rules, params_vector
from coinche_rl.two_player import TwoPlayerDeal

from two_player_cases import renamed_action, renamed_deals

PRESETS = ("belote_a_deux", "belote_decouverte")


def inputs_of(S, P, me):
    V, obs, mask, cobs, keys, order = C2.input_scratch()
    feats = np.zeros(C2.FEATURE_SIZE, dtype=np.float32)
    cards = np.zeros(32, dtype=np.uint8)
    p = C2.state_inputs(np.ascontiguousarray(S), P, me, np.zeros(5), V, obs, mask, cobs, keys,
                        order, feats, cards)
    return feats, cards, int(p)


def play_positions(preset, seed, rng):
    """The card decisions with a choice of a deal played by random legal actions."""
    deal = TwoPlayerDeal(preset, seed=seed, dealer=seed % 2)
    out = []
    while not deal.is_terminal:
        legal = deal.legal_actions()
        if deal.phase == "play" and len(legal) >= 2:
            out.append(deal.state.copy())
        deal.apply(int(legal[rng.integers(len(legal))]))
    return out


@pytest.mark.parametrize("preset", PRESETS)
def test_the_input_reads_the_players_information_set_only(preset):
    rules = get_rules(preset)
    P = params_vector(rules)
    rng = np.random.default_rng(1)
    changed = 0
    for seed in range(6):
        for S in play_positions(preset, seed, rng)[::3]:
            me = int(E2.py.current_player(S))
            feats, cards, p = inputs_of(S, P, me)
            # the same input from his public view alone
            pub = np.zeros_like(S)
            entry.game_public_view_into(S, P, me, pub)
            V, obs, mask, cobs, keys, order = C2.input_scratch()
            f2 = np.zeros_like(feats)
            c2 = np.zeros_like(cards)
            C2.view_inputs(pub, P, me, np.zeros(5), obs, mask, cobs, keys, order, f2, c2)
            assert np.array_equal(feats, f2) and np.array_equal(cards, c2)
            # another deal he cannot tell apart: the hidden cards dealt again among the
            # places he cannot see (the other's unseen hand, the face-down cards)
            H = np.zeros(entry.HIDDEN_SIZE, dtype=np.int64)
            entry.game_private_into(S, P, H)
            o = 1 - me
            known = int(E2.py.hand_of(pub, o))
            down = [k for k in range(2 * E2.N_STACKS) if pub[E2.T_STACK_DOWN + k] == E2.HIDDEN_CARD]
            unseen = [c for c in range(32) if (int(H[o]) & ~known) >> c & 1]
            hidden = unseen + [int(H[2 + k]) for k in down]
            perm = rng.permutation(hidden)
            H[o] = known | sum(1 << int(c) for c in perm[:len(unseen)])
            for k, c in zip(down, perm[len(unseen):]):
                H[2 + k] = c
            H[2 + 2 * E2.N_STACKS] = -1                 # keep the view's dealing order
            S2 = np.zeros_like(S)
            entry.game_determinize_into(pub, P, me, H, S2)
            pub2 = np.zeros_like(S)
            entry.game_public_view_into(S2, P, me, pub2)
            if not np.array_equal(pub2, pub):
                continue            # the other's declaration, shown, tells them apart
            changed += not np.array_equal(S2, S)
            f3, c3, _ = inputs_of(S2, P, me)
            assert np.array_equal(feats, f3) and np.array_equal(cards, c3)
            # the legal cards are the deal's, in the canonical order
            legal = [a for a in range(A.N_ACTIONS) if entry.game_is_legal(S, P, a)]
            assert sorted(C.ACT_SRC[p, A.CARD_BASE + np.flatnonzero(cards)]) == legal
    assert changed > 10


@pytest.mark.parametrize("preset", PRESETS)
def test_renaming_the_suits_leaves_the_input_unchanged(preset):
    P = params_vector(get_rules(preset))
    rng = np.random.default_rng(2)
    seen = 0
    for deal, other, slot_of in renamed_deals(preset, 4, rng):
        while not deal.is_terminal:
            legal = deal.legal_actions()
            if deal.phase == "play" and len(legal) >= 2:
                me = deal.current_player
                f1, c1, p1 = inputs_of(deal.state, P, me)
                f2, c2, p2 = inputs_of(other.state, P, me)
                assert np.array_equal(f1, f2) and np.array_equal(c1, c2)
                k = A.CARD_BASE + int(np.flatnonzero(c1)[0])
                assert renamed_action(int(C.ACT_SRC[p1, k]), slot_of) == int(C.ACT_SRC[p2, k])
                seen += 1
            a = int(legal[rng.integers(len(legal))])
            deal.apply(a)
            other.apply(renamed_action(a, slot_of))
        assert deal.scores == other.scores
    assert seen > 20


def test_a_label_chunk_is_a_pure_function_of_its_arguments_and_scores_the_solver():
    from coinche_rl.agents.neural import labels_two as LT
    rules = get_rules("belote_decouverte")
    a = LT.label_chunk(rules, 5, 3, 2, epsilon=0.3, solver_cards=10)
    b = LT.label_chunk(rules, 5, 3, 2, epsilon=0.3, solver_cards=10)
    assert len(a) > 20 and set(np.unique(a.kinds)) == {0, 1}
    for x, y in zip((a.feats, a.cards, a.targets, a.kinds, a.tricks),
                    (b.feats, b.cards, b.targets, b.kinds, b.tricks)):
        assert np.array_equal(x, y)
    assert not np.any(a.targets[~a.cards])
    assert a.feats.shape[1] == C2.FEATURE_SIZE


def test_the_score_of_card_points_is_the_engines_score():
    from coinche_rl.agents.neural.labels_two import score_difference
    rng = np.random.default_rng(4)
    checked = 0
    for preset in PRESETS:
        P = params_vector(get_rules(preset))
        for seed in range(12):
            deal = TwoPlayerDeal(preset, seed=seed, dealer=seed % 2)
            S = None
            while not deal.is_terminal:
                if S is None and deal.phase == "play":
                    S = deal.state.copy()            # the first card: nothing resolved yet
                legal = deal.legal_actions()
                deal.apply(int(legal[rng.integers(len(legal))]))
            points = deal.card_points_won
            if S is None or 0 in points:                    # a void deal, a capot
                continue
            me = int(E2.py.current_player(S))
            got = score_difference(S, P, me, points[me], np.zeros_like(S))
            assert got == deal.scores[me] - deal.scores[1 - me]
            checked += 1
    assert checked > 10


def _weights(tmp_path, preset, hidden=(8,)):
    rules = get_rules(preset)
    net = MLP.random(hidden, seed=0, inputs=net_family(rules).feature_size)
    path = tmp_path / f"{preset}.npz"
    save_weights(path, net, make_manifest(net, rules, {"minutes": 0}))
    return str(path)


def test_weights_load_without_torch_and_refuse_another_preset_or_family(tmp_path):
    path = _weights(tmp_path, "belote_a_deux")
    net = load_weights(path, get_rules("belote_a_deux"))
    assert net.inputs == C2.FEATURE_SIZE and net.manifest["observation"]["family"] == "two"
    with pytest.raises(WeightsError, match="rules"):
        load_weights(path, get_rules("belote_decouverte"))
    with pytest.raises(WeightsError, match="observation.family"):
        load_weights(path, get_rules("ffb"))
    with pytest.raises(NeuralError, match="belote_decouverte"):
        play_deal(TwoPlayerDeal("belote_decouverte", seed=1, dealer=0),
                  [make_agent(f"nn:weights={path}", "two"), make_agent("random", "two")], [1, 2])
    four = _weights(tmp_path, "ffb")
    with pytest.raises(NeuralError, match="another family"):
        play_deal(TwoPlayerDeal("belote_a_deux", seed=1, dealer=0),
                  [make_agent(f"nn:weights={four},any_rules=true", "two"),
                   make_agent("random", "two")], [1, 2])


@pytest.mark.parametrize("preset", PRESETS)
def test_nn_plays_both_presets_deterministically(tmp_path, preset):
    path = _weights(tmp_path, preset)
    runs = []
    for _ in range(2):
        deal = TwoPlayerDeal(preset, seed=9, dealer=1)
        play_deal(deal, [make_agent(f"nn:weights={path}", "two"), make_agent("heuristic", "two")],
                  [3, 4])
        assert deal.is_terminal
        runs.append(list(deal.history))
    assert runs[0] == runs[1]
    values = make_agent(f"nn:weights={path}", "two")
    deal = TwoPlayerDeal(preset, seed=9, dealer=1)
    while deal.phase != "play" or len(deal.legal_actions()) < 2:
        legal = deal.legal_actions()
        deal.apply(A.TAKE if A.TAKE in legal else legal[-1])
    view = deal.view(deal.current_player)
    values.reset(view.seat, deal.rules, 0)
    av = values.action_values(view)
    assert av.by == "net" and sorted(av.values) == sorted(deal.legal_actions())
    assert av.choice == values.act(view)


def test_the_trainer_trains_resumes_and_takes_self_play_labels(tmp_path):
    pytest.importorskip("torch")
    from coinche_rl.train.play import Args, check_args, train
    kw = dict(rules="belote_decouverte", out=str(tmp_path / "run"), hidden=[8], chunk_deals=2,
              workers=0, solver_cards=8, updates_per_chunk=2, batch_size=16, min_buffer=16,
              buffer_size=500, eval_minutes=0.0, checkpoint_minutes=1e9, log_seconds=1e9,
              progress=False, anneal_updates=50, seed=1)
    check_args(Args(**{**kw, "labels": "selfplay"}))       # accepted (tests/test_selfplay.py)
    train(Args(**kw, max_chunks=2))
    res = train(Args(**kw, max_chunks=4, resume=True))
    assert res["chunks"] == 4 and res["updates"] > 0
    whole = train(Args(**{**kw, "out": str(tmp_path / "whole")}, max_chunks=4))
    a, b = (load_weights(p, get_rules("belote_decouverte")) for p in (res["weights"], whole["weights"]))
    assert all(np.array_equal(x, y) for (x, _), (y, _) in zip(a.layers, b.layers))
    assert Args(rules="belote_a_deux").solver_cards is None


def test_the_batched_policy_plays_as_the_agent(tmp_path):
    preset = "belote_a_deux"
    rules = get_rules(preset)
    agent = make_agent(f"nn:weights={_weights(tmp_path, preset)}", "two")
    policy = agent.batch_policy(rules)
    views, players, expected = [], [], []
    for seed in range(3):
        deal = TwoPlayerDeal(preset, seed=seed, dealer=0)
        while not deal.is_terminal:
            p = deal.current_player
            view = deal.view(p)
            agent.reset(p, rules, 0)
            views.append(view.state)
            players.append(p)
            expected.append(agent.act(view))
            deal.apply(expected[-1])
    got = policy(np.stack(views), params_vector(rules), np.array(players))
    assert got.tolist() == expected


def test_the_arenas_batched_play_is_the_agents_play(tmp_path):
    from coinche_rl.arena import DealSet
    from coinche_rl.agents.neural.batch_play import play_states
    from coinche_rl.agents.numba_bots import BOT_HEURISTIC, BOT_RANDOM
    preset = "belote_decouverte"
    rules = get_rules(preset)
    # the prise by the heuristic on both paths (a shipped prise net: tests/test_neural_prise.py)
    spec = f"nn:weights={_weights(tmp_path, preset)},bidding=heuristic"
    net = make_agent(spec, "two").play_net(rules)
    ds = DealSet(preset, 3)
    states, seeds = ds.states(list(range(12)))
    for table, bots, nets in (((spec, "heuristic"), (BOT_HEURISTIC, BOT_HEURISTIC), (net, None)),
                              (("random", spec), (BOT_RANDOM, BOT_HEURISTIC), (None, net))):
        batched = states.copy()
        play_states(rules, batched, seeds, bots, nets)
        for i in range(len(states)):
            deal = ds.deal(i)
            play_deal(deal, [make_agent(s, "two") for s in table], [int(x) for x in seeds[i][:2]])
            assert np.array_equal(deal.state, batched[i])


def test_the_shipped_weights_load_without_torch_for_their_preset_only():
    from coinche_rl.agents.neural.agent import load_play_net
    from coinche_rl.agents.neural.net import default_weights_path
    for preset, other in (PRESETS, PRESETS[::-1]):
        net = load_play_net(rules=get_rules(preset))
        assert net.inputs == C2.FEATURE_SIZE and net.manifest["rules"]["name"] == preset
        assert net.manifest["training"]["minutes"] > 0
        with pytest.raises(WeightsError, match="rules"):
            load_weights(default_weights_path(preset), get_rules(other))
