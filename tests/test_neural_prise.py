"""The prise network of belote for two players (``coinche-rl train bid --rules
belote_a_deux``; :mod:`coinche_rl.agents.neural.prise_labels`).

* the input: the retourne's suit in slot 0, the player's information set only, renaming
  the suits leaves it unchanged and maps the legal actions along;
* labels: a chunk is a pure function of its arguments, and each label is the score of
  playing its action out (the rest of the prise by the heuristic, the cards by the card
  player at both players), a void deal scoring 0;
* weights: the manifest says kind ``bid``, the prise's outputs and the two players'
  family; the agent decides the prise and the exchange with it, refuses a four-player
  bidding file for two players (and the other way round);
* the trainer runs a tiny run end to end and refuses the four-player label options.
"""

from __future__ import annotations

import numpy as np
import pytest

from coinche_rl import actions as A
from coinche_rl.agents import make_agent, play_deal
from coinche_rl.agents.neural import canonical_two as C2
from coinche_rl.agents.neural.batch_play import BidNet, play_states_two
from coinche_rl.agents.neural.bid_actions import BID_SPACES, PRISE_ACTIONS
from coinche_rl.agents.neural.family import net_family
from coinche_rl.agents.neural.net import (MLP, NeuralError, WeightsError, default_weights_path,
                                          load_weights, make_manifest, save_weights)
from coinche_rl.agents.neural.prise_labels import label_prise_chunk
from coinche_rl.agents.numba_bots import BOT_HEURISTIC
from coinche_rl.engine import two as E2
from coinche_rl.rules import get_rules, params_vector
from coinche_rl.two_player import TwoPlayerDeal

from two_player_cases import renamed_action, renamed_deals

PRESETS = ("belote_a_deux", "belote_decouverte")
SPACE = BID_SPACES["two"]


def prise_inputs_of(S, P, me):
    V = np.zeros_like(S)
    E2.two_public_view_into(np.ascontiguousarray(S), P, me, V)
    _V, obs, mask, cobs, keys, order = C2.input_scratch()
    feats = np.zeros(C2.FEATURE_SIZE, dtype=np.float32)
    legal = np.zeros(SPACE.n, dtype=np.uint8)
    p = C2.prise_inputs(V, P, me, np.zeros(5), obs, mask, cobs, keys, order, feats, legal)
    return feats, legal, int(p)


def _prise_net(preset, hidden=(8,), seed=0, players=("nn",)):
    rules = get_rules(preset)
    fam = net_family(rules)
    net = MLP.random(hidden, seed=seed, inputs=fam.feature_size,
                     outputs=len(players) * 3 * fam.bid_space.n)
    net.manifest = make_manifest(net, rules, {"minutes": 0}, kind="bid", players=players)
    return net


def _play_net(preset):
    return MLP.random((8,), seed=1, inputs=net_family(get_rules(preset)).feature_size)


@pytest.mark.parametrize("preset", PRESETS)
def test_the_prise_input_puts_the_retourne_first_and_is_equivariant(preset):
    P = params_vector(get_rules(preset))
    rng = np.random.default_rng(3)
    seen = 0
    for deal, other, slot_of in renamed_deals(preset, 8, rng):
        while deal.phase != "play" and not deal.is_terminal:
            legal = deal.legal_actions()
            me = deal.current_player
            f1, l1, p1 = prise_inputs_of(deal.state, P, me)
            f2, l2, p2 = prise_inputs_of(other.state, P, me)
            assert np.array_equal(f1, f2) and np.array_equal(l1, l2)
            # slot 0 is the retourne's suit: its naming is never legal
            assert C2.C.PERMS[p1][int(E2.py.retourne_of(deal.state)) >> 3] == 0
            assert not l1[2]
            # the legal outputs are the legal actions, renamed along
            assert sorted(int(SPACE.src[p1, j]) for j in np.flatnonzero(l1)) == \
                sorted(int(a) for a in legal)
            for j in np.flatnonzero(l1):
                assert renamed_action(int(SPACE.src[p1, j]), slot_of) == int(SPACE.src[p2, j])
            seen += 1
            a = int(legal[rng.integers(len(legal))])
            deal.apply(a)
            other.apply(renamed_action(a, slot_of))
    assert seen > 10


def _playout(rules, S, a, player, net):
    T = S[None, :].copy()
    E2.two_apply(T[0], params_vector(rules), a)
    nets = [net, net] if player == "nn" else [None, None]
    play_states_two(rules, T, np.zeros((1, 2), dtype=np.int64), [BOT_HEURISTIC] * 2, nets)
    me = int(E2.py.current_player(S))
    return int(T[0, E2.T_SCORE + me] - T[0, E2.T_SCORE + 1 - me]), bool(T[0, E2.T_VOID])


@pytest.mark.parametrize("preset", PRESETS)
def test_a_prise_label_is_the_score_of_playing_its_action_out(preset):
    rules = get_rules(preset)
    net = _play_net(preset)
    players = ("nn", "heuristic")
    ch = label_prise_chunk(rules, 5, 10, 12, 0.3, players, net)
    again = label_prise_chunk(rules, 5, 10, 12, 0.3, players, net)
    for name in ("feats", "legal", "q", "ev", "made", "ev_valid", "states"):
        assert np.array_equal(getattr(ch, name), getattr(again, name)), name
    other = label_prise_chunk(rules, 6, 10, 12, 0.3, players, net)
    assert not np.array_equal(ch.states, other.states[:len(ch.states)]) or len(ch) != len(other)
    assert len(ch) >= 12 and ch.deals == 12
    P = params_vector(rules)
    voids = 0
    for k in range(len(ch)):
        S = ch.states[k]
        feats, legal, p = prise_inputs_of(S, P, int(ch.seats[k]))
        assert np.array_equal(feats.astype(np.float16), ch.feats[k])
        assert np.array_equal(legal.astype(bool), ch.legal[k]) and legal.sum() >= 2
        for j in np.flatnonzero(ch.legal[k]):
            a = int(SPACE.src[p, j])
            for i, pl in enumerate(players):
                value, void = _playout(rules, S, a, pl, net)
                assert ch.q[k, i, j] == value
                voids += void
                if a == A.TAKE or A.NAME_BASE <= a < A.NAME_BASE + 4:
                    assert ch.ev_valid[k, j] and ch.ev[k, i, j] == value
                else:
                    assert not ch.ev_valid[k, j]
                if void:
                    assert value == 0
        assert not ch.q[k][:, ~ch.legal[k]].any()
    assert voids > 0 or preset == "belote_decouverte"


def test_the_agent_decides_the_prise_and_the_exchange_with_the_net(tmp_path):
    preset = "belote_a_deux"
    rules = get_rules(preset)
    path = str(tmp_path / "prise.npz")
    net = _prise_net(preset)
    save_weights(path, net, net.manifest)
    m = load_weights(path, rules, kind="bid").manifest
    assert m["kind"] == "bid" and m["action_map"] == "canonical-prise-8"
    assert m["observation"]["family"] == "two" and m["rules"]["name"] == preset
    with pytest.raises(WeightsError, match="observation.family"):
        load_weights(path, get_rules("ffb"), kind="bid")
    # the margin: the agent's bid_margin, else the one its manifest names, else 75
    assert make_agent(f"nn:bid_weights={path}", "two").bid_net(rules).margin == 75.0
    marked = str(tmp_path / "marked.npz")
    save_weights(marked, net, {**net.manifest, "bid": {**net.manifest["bid"], "margin": 20.0}})
    assert make_agent(f"nn:bid_weights={marked}", "two").bid_net(rules).margin == 20.0
    assert make_agent(f"nn:bid_weights={marked},bid_margin=5", "two").bid_net(rules).margin == 5.0
    spec = f"nn:bid_weights={path},bid_margin=0"
    agent = make_agent(spec, "two")
    bid = BidNet(load_weights(path, kind="bid"), "nn", margin=0.0)
    by_net = exchanges = 0
    for seed in range(40):
        deal = TwoPlayerDeal(preset, seed=seed, dealer=seed % 2)
        while deal.phase != "play" and not deal.is_terminal:
            me = deal.current_player
            view = deal.view(me)
            agent.reset(me, rules, 0)
            av = agent.action_values(view)
            a = agent.act(view)
            assert a == av.choice and a in deal.legal_actions()
            if len(deal.legal_actions()) >= 2:
                assert av.by == "net" and sorted(av.values) == sorted(deal.legal_actions())
                # the net's best legal action
                assert a == max(av.values, key=av.values.get)
                V = np.ascontiguousarray(view.public_state[None, :])
                assert a == int(bid.actions(agent._inputs, V, np.zeros(1, dtype=np.int64))[0])
                by_net += 1
                exchanges += deal.phase == "exchange"
            else:
                assert av.by == "heuristic"
            deal.apply(a)
    assert by_net > 40 and exchanges > 0
    # the batched paths play as the agent: the arena's lockstep play
    from coinche_rl.arena import DealSet
    ds = DealSet(preset, 2)
    states, seeds = ds.states(list(range(8)))
    batched = states.copy()
    a = make_agent(spec, "two")
    play_states_two(rules, batched, seeds, [BOT_HEURISTIC] * 2, [a.play_net(rules), None],
                    [a.bid_net(rules), None])
    for i in range(len(states)):
        deal = ds.deal(i)
        play_deal(deal, [make_agent(spec, "two"), make_agent("heuristic", "two")],
                  [int(x) for x in seeds[i][:2]])
        assert np.array_equal(deal.state, batched[i])


def test_the_agent_refuses_a_bidding_net_of_the_other_family(tmp_path):
    four = default_weights_path("ffb", "bid")
    agent = make_agent(f"nn:bid_weights={four},any_rules=true", "two")
    with pytest.raises(NeuralError, match="four players' family"):
        agent.reset(0, get_rules("belote_a_deux"), 0)
    path = str(tmp_path / "prise.npz")
    net = _prise_net("belote_a_deux")
    save_weights(path, net, net.manifest)
    agent = make_agent(f"nn:bid_weights={path},any_rules=true")
    with pytest.raises(NeuralError, match="two players' family"):
        agent.reset(0, get_rules("ffb"), 0)
    # nn:bidding=heuristic never reads a prise net
    make_agent("nn:bidding=heuristic", "two").reset(0, get_rules("belote_a_deux"), 0)


torch = pytest.importorskip("torch")


def test_the_trainer_trains_a_prise_net_end_to_end(tmp_path):
    from coinche_rl.train.bid import Args, export_run, train
    preset = "belote_decouverte"
    rules = get_rules(preset)
    kw = dict(rules=preset, out=str(tmp_path / "run"), workers=0, chunk_deals=8, hidden=[16],
              batch_size=32, updates_per_chunk=2, min_buffer=20, buffer_size=2000,
              eval_minutes=0, progress=False, log_seconds=1e9, checkpoint_minutes=1000.0,
              players="heuristic", seed=2, eval_pairs=4)
    for name, value in (("random_opponents", 0.2), ("strong_hands", 0.2), ("bidders", "nn")):
        with pytest.raises(ValueError, match=name.replace("_", "-")):
            train(Args(**{**kw, name: value}))
    res = train(Args(**kw, max_chunks=3))
    assert res["chunks"] == 3 and res["updates"] > 0
    net = load_weights(res["weights"], rules, kind="bid")
    assert net.manifest["action_map"] == SPACE.action_map
    assert net.outputs == 3 * len(PRISE_ACTIONS) and net.inputs == C2.FEATURE_SIZE
    out = export_run(str(tmp_path / "run"), str(tmp_path / "w.npz"))
    again = load_weights(out, rules, kind="bid")
    assert again.manifest["bid"]["players"] == ["heuristic"]
    deal = TwoPlayerDeal(preset, seed=3)
    spec = f"nn:bid_weights={out},play=heuristic"
    play_deal(deal, [make_agent(spec, "two"), make_agent("heuristic", "two")], [1, 2])
    assert deal.is_terminal


def test_the_shipped_prise_nets_load_for_their_preset_only():
    from coinche_rl.agents.neural.agent import load_bid_net
    for preset, other in (PRESETS, PRESETS[::-1]):
        bid = load_bid_net(rules=get_rules(preset))
        m = bid.net.manifest
        assert m["rules"]["name"] == preset and m["action_map"] == SPACE.action_map
        assert m["training"]["minutes"] > 0 and bid.margin == m["bid"]["margin"] == 15.0
        with pytest.raises(NeuralError, match="trained"):
            load_bid_net(default_weights_path(preset, "bid"), get_rules(other))
