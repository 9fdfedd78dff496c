"""Card inference: the weighted world sampler (against enumeration), the belief net's
positions, probabilities and weights files, its trainer, and PIMC over believed worlds."""

import json
import os

import numpy as np
import pytest

from coinche_rl.agents import make_agent, play_deal
from coinche_rl.agents.base import PlayerView
from coinche_rl.agents.neural import belief as B
from coinche_rl.agents.neural.net import MLP, WeightsError, load_weights, make_manifest, save_weights
from coinche_rl.agents.pimc import PIMCAgent, PIMCError
from coinche_rl.agents.sampler import SamplerError, WorldSampler
from coinche_rl.envs.infoset import information_set
from coinche_rl.actions import CARD_BASE
from coinche_rl.game import Deal
from coinche_rl.rules import get_rules


def _position(preset, seed, cards_played, contract=(80, 1)):
    deal = Deal(preset, seed=seed, dealer=3).with_contract(contract[0], contract[1], taker=0)
    rng = np.random.default_rng(seed)
    n = 0
    while n < cards_played:
        legal = deal.legal_actions()
        deal.apply(int(legal[rng.integers(len(legal))]))
        if int(legal[0]) >= CARD_BASE:          # a card (not a declare / belote choice)
            n += 1
    return deal


def _enumerate(sampler, probs):
    worlds = sampler.all_worlds()
    w = np.array([sampler.weight_of(x, probs) for x in worlds])
    m = np.zeros((4, 32))
    for x, wx in zip(worlds, w):
        for s in range(4):
            for c in range(32):
                if (int(x[s]) >> c) & 1:
                    m[s, c] += wx
    return worlds, w, m


@pytest.mark.parametrize("preset,seed,played", [("ffb", 3, 20), ("ffb", 8, 22),
                                                ("coinche_x3", 5, 21), ("ffb_sa_ta", 2, 19)])
def test_weighted_sampler_matches_enumeration(preset, seed, played):
    deal = _position(preset, seed, played)
    s = WorldSampler(information_set(deal, deal.current_player))
    assert 2 <= s.count <= 5000
    probs = np.random.default_rng(seed).random((4, 32))
    worlds, w, m = _enumerate(s, probs)
    # the weights of every world sum to 1: the table's total is exact
    assert w.sum() == pytest.approx(1.0, abs=1e-12)
    # each world's weight is the product of its cards' probabilities, normalised
    raw = np.array([np.prod([probs[t, c] for t in range(4) if t != s.seat
                             for c in range(32) if (int(x[t]) >> c) & 1
                             and not (s.info.known[t] >> c) & 1]) for x in worlds])
    assert np.allclose(w, raw / raw.sum(), rtol=1e-9)
    # exact marginals, weighted and uniform
    assert np.allclose(s.marginals(probs), m, atol=1e-12)
    u = np.zeros((4, 32))
    for x in worlds:
        for t in range(4):
            for c in range(32):
                u[t, c] += ((int(x[t]) >> c) & 1) / len(worlds)
    assert np.allclose(s.marginals(), u, atol=1e-12)
    # the draws follow the weights (chi-square, fixed seed)
    draws = s.sample_belief(20000, 1, probs)
    idx = np.array([s.index_of(x) for x in draws])
    assert (idx >= 0).all()
    counts = np.bincount(idx, minlength=len(worlds))
    expected = 20000 * w
    big = expected >= 5
    chi2 = float((((counts - expected) ** 2)[big] / expected[big]).sum())
    dof = int(big.sum()) - 1
    assert chi2 < dof + 5 * np.sqrt(2 * dof) + 10


def test_weighted_sampler_is_seeded_and_mixes_uniform_worlds():
    deal = _position("ffb", 4, 16)
    s = WorldSampler(information_set(deal, deal.current_player))
    probs = np.random.default_rng(0).random((4, 32))
    a = s.sample_belief(300, 5, probs, uniform_share=0.3)
    assert np.array_equal(a, s.sample_belief(300, 5, probs, uniform_share=0.3))
    assert not np.array_equal(a, s.sample_belief(300, 6, probs, uniform_share=0.3))
    assert all(s.info.is_consistent(x) for x in a)
    # a share of 1: the uniform sampler's draws, world for world
    assert np.array_equal(s.sample_belief(50, 9, probs, uniform_share=1.0), s.sample(50, 9))


def test_weighted_sampler_zero_probability_is_unlikely_never_impossible():
    deal = _position("ffb", 6, 12)
    info = information_set(deal, deal.current_player)
    s = WorldSampler(info)
    seat = info.seat
    others = [t for t in range(4) if t != seat]
    probs = np.ones((4, 32))
    probs[others[0], :] = 0.0                   # the net says: nothing in this hand
    m = s.marginals(probs)
    free = [c for c in range(32) if (info.possible[others[0]] >> c) & 1
            and not (info.known[others[0]] >> c) & 1]
    # it still receives its cards (the hand sizes are hard constraints) ...
    assert m[others[0]].sum() == pytest.approx(info.hand_sizes[others[0]])
    # ... and a card that seat cannot hold stays impossible whatever the weights
    assert all(m[t, c] == 0.0 for t in range(4) for c in range(32)
               if not (info.possible[t] >> c) & 1)
    assert free


def test_weighted_sampler_classic_stock():
    s = WorldSampler.from_hand("classic", 0, 0x1F, retourne=8,
                               holds={1: 0x3E00, 2: 0x1F0000})
    probs = np.random.default_rng(1).random((4, 32))
    w = s.sample_belief(100, 0, probs, stock=True)
    assert w.shape == (100, 5) and all(bin(int(x[4])).count("1") == 11 for x in w)
    m = s.marginals(probs, stock=True)
    free = [c for c in range(32) if not ((0x1F | 0x3E00 | 0x1F0000 | 1 << 8) >> c) & 1]
    assert np.allclose(m[:, free].sum(axis=0), 1.0)


def test_weighted_sampler_refuses_bad_input():
    s = WorldSampler.from_hand("ffb", 0, 0xFF)
    with pytest.raises(SamplerError, match="shape"):
        s.sample_belief(2, 0, np.ones((3, 32)))
    with pytest.raises(SamplerError, match="non-negative"):
        s.sample_belief(2, 0, -np.ones((4, 32)))
    with pytest.raises(SamplerError, match="uniform_share"):
        s.sample_belief(2, 0, np.ones((4, 32)), uniform_share=1.5)


# ------------------------------------------------------------------ positions
def test_positions_label_the_true_holders_and_are_deterministic():
    rules = get_rules("ffb")
    net = MLP.random((8,), seed=0)
    a = B.generate_positions(rules, 3, 0, 6, play_net=net)
    b = B.generate_positions(rules, 3, 0, 6, play_net=net)
    assert np.array_equal(a.labels, b.labels) and np.array_equal(a.feats, b.feats)
    assert len(a.labels) > 6 * 10
    hidden = (a.labels > 0).sum(axis=1)
    unseen = a.feats[:, B.C.F_UNSEEN:B.C.F_UNSEEN + 32].sum(axis=1)
    # the hidden cards are exactly the cards the observer has not seen
    assert np.array_equal(hidden, unseen.astype(int))
    assert set(np.unique(a.labels)) <= {0, 1, 2, 3}
    # each other seat holds as many labelled cards as the observer's hand (or one fewer)
    own = a.feats[:, :32].sum(axis=1)
    for r in (1, 2, 3):
        n = (a.labels == r).sum(axis=1)
        assert np.all(np.abs(n - own) <= 1)


def test_position_labels_against_a_python_deal():
    rules = get_rules("ffb")
    from coinche_rl.agents.neural.batch_play import NetInputs
    deal = _position("ffb", 11, 9)
    S = np.ascontiguousarray(deal.state[None, :])
    inp = NetInputs(rules, 1)
    _f, _l, perms = inp.compute(S, np.zeros(1, dtype=np.int64))
    lab = np.zeros((1, 32), dtype=np.int8)
    B.position_labels(S, np.zeros(1, dtype=np.int64), perms, lab)
    seat = deal.current_player
    p = int(perms[0])
    for c in range(32):
        canon = int(B.C.PERMS[p, c >> 3]) * 8 + (c & 7)
        holder = [t for t in range(4) if (deal.hands[t] >> c) & 1]
        want = (holder[0] - seat) & 3 if holder and holder[0] != seat else 0
        assert lab[0, canon] == want


# ------------------------------------------------------------------ the net
def _belief_file(tmp_path, rules="ffb", hidden=(16,), seed=0):
    mlp = MLP.random(hidden, seed=seed, outputs=B.N_BELIEF)
    path = os.path.join(tmp_path, f"belief-{rules}.npz")
    save_weights(path, mlp, make_manifest(mlp, get_rules(rules), {"run": "test"}, kind="belief"),
                 dtype=np.float32)
    return path


def test_probabilities_respect_the_information_set(tmp_path):
    net = B.load_belief_net(_belief_file(tmp_path))
    for seed, played in ((1, 6), (2, 13), (3, 23)):
        deal = _position("ffb", seed, played)
        info = information_set(deal, deal.current_player)
        pr = net.probabilities(info, PlayerView.from_deal(deal).public_state)
        for c in range(32):
            col = pr[:, c]
            if (info.played >> c) & 1:
                assert col.sum() == 0.0
                continue
            assert col.sum() == pytest.approx(1.0)
            for t in range(4):
                if not (info.possible[t] >> c) & 1:
                    assert col[t] == 0.0            # ruled out: exactly zero
                if (info.known[t] >> c) & 1:
                    assert col[t] == 1.0


def test_probabilities_do_not_leak_hidden_cards(tmp_path):
    """Two deals with the same public history and the observer's hand, different hidden
    hands: the belief is the same."""
    net = B.load_belief_net(_belief_file(tmp_path, hidden=(32,), seed=4))
    deal = _position("ffb", 12, 10)
    seat = deal.current_player
    info = information_set(deal, seat)
    world = WorldSampler(info).sample(60, 3)
    history = list(deal.history)
    pub = PlayerView.from_deal(deal).public_state
    base = net.probabilities(info, pub)
    tried = 0
    for w in world:
        if all(int(w[t]) == deal.hands[t] for t in range(4)):
            continue
        played = [0, 0, 0, 0]
        for t in range(4):
            played[t] = deal.initial_hands[t] & ~deal.hands[t]
        hands = [int(w[t]) | played[t] for t in range(4)]
        other = Deal("ffb", hands=hands, dealer=deal.dealer).with_contract(80, 1, taker=0)
        try:
            for a in history:
                other.apply(int(a))
        except ValueError:
            continue                        # a private choice the world does not allow
        other_pub = PlayerView.from_deal(other).public_state
        if not np.array_equal(other_pub, pub):
            continue                        # public events differ (declarations shown)
        tried += 1
        pr = net.probabilities(information_set(other, seat), other_pub)
        assert np.array_equal(pr, base)
    assert tried >= 3


def test_belief_weights_files_are_checked(tmp_path):
    path = _belief_file(tmp_path)
    assert load_weights(path, kind="belief").outputs == 96
    with pytest.raises(WeightsError, match="kind"):
        load_weights(path, kind="play")
    play = os.path.join(tmp_path, "play.npz")
    mlp = MLP.random((8,), seed=0)
    save_weights(play, mlp, make_manifest(mlp, get_rules("ffb"), {"run": "t"}))
    with pytest.raises(WeightsError, match="kind"):
        B.load_belief_net(play)
    other = _belief_file(tmp_path, rules="coinche_x3")
    from coinche_rl.agents.neural.net import NeuralError
    with pytest.raises(NeuralError, match="trained"):
        B.load_belief_net(other, get_rules("ffb"))
    with pytest.raises(ValueError, match="96 outputs"):
        B.BeliefNet(MLP.random((8,), seed=0))


# ------------------------------------------------------------------ the trainer
def test_train_belief_smoke_exact_resume_and_export(tmp_path):
    pytest.importorskip("torch")
    from coinche_rl.train import belief as T
    common = ["--chunk-games", "8", "--batch-size", "32", "--eval-games", "4",
              "--no-progress", "--buffer-size", "300", "--eval-minutes", "0",
              "--hidden", "16"]
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    ra = T.train(T.parse_args(["--out", a, "--max-chunks", "4", *common]))
    T.train(T.parse_args(["--out", b, "--max-chunks", "2", *common]))
    with pytest.raises(FileExistsError):
        T.train(T.parse_args(["--out", b, "--max-chunks", "2", *common]))
    with pytest.raises(ValueError, match="batch_size"):
        T.train(T.parse_args(["--out", b, "--resume", "--max-chunks", "4", *common,
                              "--batch-size", "16"]))
    rb = T.train(T.parse_args(["--out", b, "--resume", "--max-chunks", "4", *common]))
    assert ra["updates"] == rb["updates"] == 16
    # a resume with nothing left to do says which option to raise, and changes nothing
    before = os.path.getmtime(os.path.join(b, "checkpoint.pt"))
    rc = T.train(T.parse_args(["--out", b, "--resume", "--max-chunks", "4", *common]))
    assert "--max-chunks" in rc["budget_spent"] and rc["updates"] == 16
    assert os.path.getmtime(os.path.join(b, "checkpoint.pt")) == before
    with pytest.raises(FileNotFoundError, match="no folder"):
        T.export_run(a, str(tmp_path / "nothere" / "x.npz"))
    assert not (tmp_path / "nothere").exists()
    wa, wb = np.load(os.path.join(a, "weights.npz")), np.load(os.path.join(b, "weights.npz"))
    for k in wa.files:
        if k != "manifest":
            assert np.array_equal(wa[k], wb[k]), k
    manifest = json.loads(str(wa["manifest"]))
    assert manifest["kind"] == "belief" and manifest["evaluation"]["final"]["log_loss"] > 0
    assert ra["final"]["updates"] == 16              # evaluated at the end of the run
    out = T.export_run(a, str(tmp_path / "x.npz"))
    net = B.load_belief_net(out)
    assert net.net.outputs == 96
    with pytest.raises(ValueError, match="rules"):
        T.check_args(T.parse_args(["--rules", "classic"]))


def test_train_belief_warm_start_from_weights(tmp_path):
    pytest.importorskip("torch")
    from coinche_rl.train import belief as T
    common = ["--chunk-games", "8", "--batch-size", "32", "--eval-games", "4",
              "--no-progress", "--buffer-size", "300", "--eval-minutes", "0"]
    a, b = str(tmp_path / "a"), str(tmp_path / "b")
    ra = T.train(T.parse_args(["--out", a, "--max-chunks", "3", "--hidden", "16", *common]))
    wa = os.path.join(a, "weights.npz")
    # checked before anything is written: the widths, the kind of net, the file
    for bad, err, what in ((["--init", wa, "--hidden", "8"], ValueError, "hidden layers"),
                           (["--init", _play_file(tmp_path), "--hidden", "16"], WeightsError,
                            "kind"),
                           (["--init", str(tmp_path / "no.npz"), "--hidden", "16"],
                            FileNotFoundError, "no weights file")):
        with pytest.raises(err, match=what):
            T.train(T.parse_args(["--out", b, "--max-chunks", "2", *bad, *common]))
        assert not os.path.exists(b)
    rb = T.train(T.parse_args(["--out", b, "--init", wa, "--seed", "1", "--max-chunks", "2",
                               "--hidden", "16", *common]))
    hist = rb["history"]
    # the warm start's evaluations carry over, then its own figure on the held-out set
    # (the same positions: a's float32 weights, exported as float16), then b's end
    assert [h["updates"] for h in hist] == [ra["updates"], 0, rb["updates"]]
    assert hist[0]["run"] == "weights.npz"
    assert hist[1]["log_loss"] == pytest.approx(ra["final"]["log_loss"], abs=2e-3)
    assert hist[2]["log_loss"] != hist[1]["log_loss"]
    m = load_weights(os.path.join(b, "weights.npz"), kind="belief").manifest["training"]
    assert m["init"]["run"] == "weights.npz" and m["init"]["updates"] == ra["updates"]
    assert m["minutes"] >= load_weights(wa, kind="belief").manifest["training"]["minutes"]
    # a resumed warm start keeps its origin, and must repeat it
    with pytest.raises(ValueError, match="init"):
        T.train(T.parse_args(["--out", b, "--resume", "--seed", "1", "--max-chunks", "3",
                              "--hidden", "16", *common]))
    T.train(T.parse_args(["--out", b, "--resume", "--init", wa, "--seed", "1",
                          "--max-chunks", "3", "--hidden", "16", *common]))
    m = load_weights(os.path.join(b, "weights.npz"), kind="belief").manifest["training"]
    assert m["init"]["run"] == "weights.npz" and m["chunks"] == 3


def _play_file(tmp_path):
    play = os.path.join(tmp_path, "play.npz")
    mlp = MLP.random((16,), seed=0)
    save_weights(play, mlp, make_manifest(mlp, get_rules("ffb"), {"run": "t"}))
    return play


# ------------------------------------------------------------------ PIMC
def test_pimc_over_believed_worlds_plays_legal_seeded_deals(tmp_path):
    path = _belief_file(tmp_path, hidden=(16,), seed=2)
    spec = f"pimc:worlds=4,worlds_from=belief,belief_weights={path}"
    scores = []
    for _ in range(2):
        deal = Deal("ffb", seed=21, dealer=2).with_contract(90, 0, taker=1)
        play_deal(deal, [make_agent(spec), make_agent("heuristic"), make_agent(spec),
                         make_agent("heuristic")], seeds=[1, 2, 3, 4])
        assert deal.is_terminal
        scores.append((deal.scores, list(deal.history)))
    assert scores[0] == scores[1]
    agent = make_agent(spec)
    assert agent.belief_net(get_rules("ffb")) is not None


def test_pimc_belief_changes_the_worlds_not_the_legality(tmp_path):
    path = _belief_file(tmp_path, hidden=(16,), seed=3)
    deal = _position("ffb", 30, 5)
    view = PlayerView.from_deal(deal)
    uni = PIMCAgent(worlds=8, worlds_from="uniform")
    bel = PIMCAgent(worlds=8, worlds_from="belief", belief_weights=path, uniform_share=0.0)
    for a in (uni, bel):
        a.reset(view.seat, deal.rules, 5)
    au, vu, _ = uni.card_values(view)
    ab, vb, _ = bel.card_values(view)
    assert np.array_equal(au, ab)                 # the same legal cards
    assert set(int(x) for x in ab) == set(int(x) for x in deal.legal_actions())


def test_pimc_belief_parameters_are_checked(tmp_path):
    with pytest.raises(PIMCError, match="worlds_from"):
        PIMCAgent(worlds_from="oracle")
    with pytest.raises(PIMCError, match="uniform_share"):
        PIMCAgent(uniform_share=1.5)
    with pytest.raises(PIMCError, match="belief_weights"):
        PIMCAgent(worlds_from="uniform", belief_weights="x.npz")
    with pytest.raises(PIMCError, match="classic"):
        PIMCAgent(worlds_from="belief").belief_net(get_rules("classic"))
    with pytest.raises(PIMCError, match="no weights file|no belief"):
        PIMCAgent(worlds_from="belief", belief_weights=str(tmp_path / "none.npz")
                  ).belief_net(get_rules("ffb"))
    # auto: uniform where no belief weights ship for the preset
    assert PIMCAgent().belief_net(get_rules("coinche_x3")) is None
    assert PIMCAgent(worlds_from="uniform").belief_net(get_rules("ffb")) is None


def test_cli_train_belief_and_export(tmp_path, capsys):
    pytest.importorskip("torch")
    from coinche_rl.cli import main
    run = str(tmp_path / "run")
    assert main(["train", "belief", "--out", run, "--max-chunks", "1", "--chunk-games", "4",
                 "--batch-size", "16", "--eval-games", "2", "--no-progress",
                 "--buffer-size", "200", "--hidden", "8"]) == 0
    res = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert res["chunks"] == 1 and res["final"]["log_loss"] > 0
    out = str(tmp_path / "b.npz")
    assert main(["train", "export", run, "-o", out]) == 0
    assert load_weights(out, kind="belief").manifest["kind"] == "belief"
    assert main(["train", "belief", "--out", run, "--max-chunks", "1"]) == 2
    assert "already holds a run" in capsys.readouterr().err


def test_the_belief_report_of_four_players(tmp_path):
    net = B.load_belief_net(_belief_file(tmp_path))
    rep = B.belief_report(net, n_deals=1, seed=2, frozen=True)
    assert rep["rules"] == "ffb" and rep["players"] == ["nn", "heuristic"] * 2
    assert rep["positions"] > 0 and set(rep["by_trick"]) <= {str(t) for t in range(1, 9)}
    # the uniform sampler's marginals: each hidden card's holder among the seats it may be at
    assert 0.0 < rep["log_loss_uniform"] <= np.log(3) + 1e-9
    assert sum(b["n"] for b in rep["calibration"]) > 0
    with pytest.raises(ValueError, match="2 players given"):
        B.belief_report(net, n_deals=1, players=("nn", "heuristic"))
