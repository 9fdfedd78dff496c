"""The card-play trainer (``coinche_rl.train.play``) and its labels.

* labels: a chunk is a pure function of its arguments (same data twice, the same in a
  spawned worker process); rollout and solver targets are the values of the cards on
  the true deal (checked against a direct playout and the solver);
* the loss decreases on a fixed batch, and a few hundred updates on a tiny net run in
  seconds with finite losses;
* ``--resume``: a run interrupted (stopped after some chunks) and resumed ends with the
  same weights, optimiser state and counters as the same run left uninterrupted; a
  resume with other settings is refused; a second run into a used folder is refused;
* the number of label workers does not change the weights (pool backend vs in-process);
* export: the exported weights file loads torch-free and its forward equals torch's;
* the command line: ``coinche-rl train play`` and ``coinche-rl train export``.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import os
from typing import Dict, List, Optional

import numpy as np
import pytest

torch = pytest.importorskip("torch")

from coinche_rl import actions as A                                   # noqa: E402
from coinche_rl import engine as E                                    # noqa: E402
from coinche_rl.agents.neural import canonical as C                   # noqa: E402
from coinche_rl.agents.neural import labels as LB                     # noqa: E402
from coinche_rl.agents.neural.net import load_weights                 # noqa: E402
from coinche_rl.agents.neural.torch_net import PlayNet                # noqa: E402
from coinche_rl.train.common import play_loss                         # noqa: E402
from coinche_rl.train.play import Args, export_run, parse_args, train  # noqa: E402
from coinche_rl.agents.numba_bots import BOT_HEURISTIC, bot_action    # noqa: E402
from coinche_rl.rules import get_rules                                # noqa: E402
from coinche_rl.solver import move_values                             # noqa: E402
from coinche_rl.envs.kernels import ObservationEncoder                # noqa: E402


def tiny_args(out, **kw) -> Args:
    base = dict(out=str(out), hidden=[16], chunk_deals=4, workers=0, solver_cards=16,
                updates_per_chunk=6, batch_size=32, min_buffer=32, buffer_size=3000,
                eval_minutes=0.0, checkpoint_minutes=1e9, log_seconds=1e9, progress=False,
                max_chunks=8, anneal_updates=200, seed=3)
    base.update(kw)
    return Args(**base)


# ------------------------------------------------------------------------ labels
def test_a_label_chunk_is_a_pure_function_of_its_arguments():
    rules = get_rules("ffb")
    a = LB.label_chunk(rules, 5, 10, 3)
    b = LB.label_chunk(rules, 5, 10, 3)
    c = LB.label_chunk(rules, 6, 10, 3)
    assert len(a) > 20
    for x, y in ((a.feats, b.feats), (a.cards, b.cards), (a.targets, b.targets)):
        assert np.array_equal(x, y)
    assert not np.array_equal(a.targets[:20], c.targets[:20])
    # every labelled decision has at least two legal cards, targets only on them
    assert (a.cards.sum(axis=1) >= 2).all()
    assert (a.targets[~a.cards] == 0).all()
    # chunks compose: games 10..12 are games 10, 11, 12 one by one
    parts = [LB.label_chunk(rules, 5, g, 1) for g in (10, 11, 12)]
    assert np.array_equal(np.concatenate([p.targets for p in parts]), a.targets)


def _label_deal(rules, seed, game, frozen, epsilon, solver_cards):
    """Replay the generator's first deal of ``game`` in Python: the positions of its
    labelled decisions, in order."""
    P = rules_params(rules)
    S = np.zeros(E.STATE_SIZE, dtype=np.int64)
    rng = np.zeros(1, dtype=np.uint64)
    E.rng_seed(rng, seed, game)
    hands = np.zeros(4, dtype=np.int64)
    deck = np.zeros(32, dtype=np.int64)
    buf = np.zeros(A.N_ACTIONS, dtype=np.uint8)
    rngb = np.zeros(1, dtype=np.uint64)
    LB.start_played_deal(S, P, rng, frozen, hands, deck, rngb, buf)
    positions = []
    while S[E.S_PHASE] != E.DONE:
        cur = int(S[E.S_CUR])
        if E.pending_choice(S, P) != 0:
            E.apply_legal_action(S, P, bot_action(BOT_HEURISTIC, S, P, cur, rngb, buf))
            continue
        legal = int(E.legal_play_mask(S, P))
        n = bin(legal).count("1")
        if n >= 2:
            positions.append(S.copy())
        if n >= 2 and LB.u01(rng) < epsilon:
            j = E.rng_below(rng, n)
            m = legal
            for _ in range(j):
                m &= m - 1
            a = A.CARD_BASE + (m & -m).bit_length() - 1
        else:
            a = bot_action(BOT_HEURISTIC, S, P, cur, rngb, buf)
        E.apply_legal_action(S, P, a)
    return positions


def rules_params(rules):
    from coinche_rl.rules import params_vector
    return params_vector(rules)


def test_the_frozen_contracts_follow_the_arenas_rule():
    """The frozen strain of the training deals and of the arena's deal sets is one
    kernel (``engine.frozen_strain``): the suit with the most cards of the taker, then
    the most trump points, then the lowest suit (checked here in plain Python)."""
    from coinche_rl.arena import DealSet
    from coinche_rl.rules import TRUMP_POINTS

    def longest(hand):
        return max(range(4), key=lambda s: (bin(hand >> (8 * s) & 0xFF).count("1"),
                                            sum(TRUMP_POINTS[r] for r in range(8)
                                                if hand >> (8 * s + r) & 1), -s))
    rules = get_rules("ffb")
    ds = DealSet(rules, seed=3, frozen_contract=True)
    states, _ = ds.states(range(500))
    plain = DealSet(rules, seed=3).states(range(500))[0]
    for S, S0 in zip(states, plain):
        hand = int(S0[E.S_HAND + int(S[E.S_BID_SEAT])])
        assert E.frozen_strain(hand) == longest(hand) == S[E.S_BID_STRAIN]
    # the labels' deals (frozen every time) take the same strain
    P = rules_params(rules)
    S = np.zeros(E.STATE_SIZE, dtype=np.int64)
    rng = np.zeros(1, dtype=np.uint64)
    hands = np.zeros(4, dtype=np.int64)
    deck = np.zeros(32, dtype=np.int64)
    buf = np.zeros(A.N_ACTIONS, dtype=np.uint8)
    rngb = np.zeros(1, dtype=np.uint64)
    for game in range(50):
        E.rng_seed(rng, 5, game)
        LB.start_played_deal(S, P, rng, 1.0, hands, deck, rngb, buf)
        taker = int(S[E.S_BID_SEAT])
        assert S[E.S_BID_STRAIN] == longest(int(hands[taker]))


@pytest.mark.parametrize("preset", ["ffb", "ffb_sa_ta"])
def test_targets_are_the_cards_values_on_the_true_deal(preset):
    from coinche_rl.game import Deal
    rules = get_rules(preset)
    P = rules_params(rules)
    ch = LB.label_chunk(rules, 11, 0, 1, frozen=0.0, epsilon=0.3, solver_cards=12)
    positions = _label_deal(rules, 11, 0, 0.0, 0.3, 12)
    assert len(positions) == len(ch) and len(ch) > 10
    kinds = set()
    for k, S in enumerate(positions):
        team = int(S[E.S_CUR]) & 1
        deal = Deal.from_state(rules, S.copy())
        p = C.suit_order(ObservationEncoder(rules).encode(S, int(S[E.S_CUR])))
        left = sum(bin(int(h)).count("1") for h in S[E.S_HAND:E.S_HAND + 4])
        if left <= 12:
            actions, values = move_values(deal, "score", team=team)
            kinds.add("solver")
            assert ch.kinds[k] == LB.KIND_SOLVER
        else:
            actions, values = [], []
            for a in deal.legal_actions():
                T = S.copy()
                E.apply_legal_action(T, P, int(a))
                buf = np.zeros(A.N_ACTIONS, dtype=np.uint8)
                rngb = np.zeros(1, dtype=np.uint64)
                while T[E.S_PHASE] != E.DONE:
                    E.apply_legal_action(T, P, bot_action(BOT_HEURISTIC, T, P, int(T[E.S_CUR]),
                                                          rngb, buf))
                actions.append(int(a))
                values.append(int(T[E.S_SCORE + team] - T[E.S_SCORE + 1 - team]))
            kinds.add("rollout")
            assert ch.kinds[k] == LB.KIND_ROLLOUT
        for a, v in zip(actions, values):
            ca = int(C.ACT_DST[p, int(a)]) - A.CARD_BASE
            assert ch.cards[k, ca]
            assert ch.targets[k, ca] == v
        assert int(ch.cards[k].sum()) == len(actions)
    assert kinds == {"solver", "rollout"}


# ------------------------------------------------------------------------ loss
def test_the_loss_decreases_on_a_fixed_batch():
    rules = get_rules("ffb")
    ch = LB.label_chunk(rules, 1, 0, 16)
    x = torch.from_numpy(ch.feats.astype(np.float32))
    m = torch.from_numpy(ch.cards)
    t = torch.from_numpy(ch.targets) / 100.0
    args = Args()
    torch.manual_seed(0)
    net = PlayNet([32])
    opt = torch.optim.Adam(net.parameters(), lr=3e-3)
    losses = []
    for _ in range(150):
        loss, _rel = play_loss(net(x), m, t, args)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(float(loss.detach()))
    assert all(np.isfinite(losses))
    assert losses[-1] < 0.5 * losses[0]
    assert np.mean(losses[-10:]) < np.mean(losses[:10])


def test_the_loss_ignores_illegal_cards_and_a_common_shift():
    q = torch.zeros((2, 32))
    legal = torch.zeros((2, 32), dtype=torch.bool)
    legal[:, :3] = True
    t = torch.zeros((2, 32))
    t[:, 5] = 7.0                              # an illegal card's target: ignored
    loss, rel = play_loss(q, legal, t, Args())
    assert float(loss) == 0.0 and float(rel) == 0.0
    t[:, :3] += 0.3                            # a shift of every legal card: only the mean loss
    loss, rel = play_loss(q, legal, t, Args())
    assert float(rel) == 0.0 and float(loss) > 0.0


# ------------------------------------------------------------------------ training
def test_a_few_hundred_updates_run_and_stay_finite(tmp_path):
    res = train(tiny_args(tmp_path / "run", max_chunks=40, updates_per_chunk=8))
    assert res["updates"] >= 300
    rows = [json.loads(line) for line in open(tmp_path / "run" / "metrics.jsonl")]
    assert rows, "no metrics logged"
    net = load_weights(res["weights"])
    assert all(np.isfinite(w).all() for w, _ in net.layers)


def _state_of(run):
    ck = torch.load(os.path.join(run, "checkpoint.pt"), weights_only=True)
    return ck


def test_an_interrupted_and_resumed_run_equals_an_uninterrupted_one(tmp_path):
    full = train(tiny_args(tmp_path / "full", max_chunks=10))
    part = train(tiny_args(tmp_path / "part", max_chunks=4))
    assert part["chunks"] == 4
    resumed = train(tiny_args(tmp_path / "part", max_chunks=10, resume=True))
    assert resumed["chunks"] == full["chunks"] == 10
    assert resumed["updates"] == full["updates"]
    a, b = _state_of(tmp_path / "full"), _state_of(tmp_path / "part")
    for k in a["model"]:
        assert torch.equal(a["model"][k], b["model"][k]), k
    sa, sb = a["optim"]["state"], b["optim"]["state"]
    for k in sa:
        for name in ("exp_avg", "exp_avg_sq"):
            assert torch.equal(sa[k][name], sb[k][name])
    assert a["np_rng"] == b["np_rng"] and torch.equal(a["torch_rng"], b["torch_rng"])
    # a resume with other settings is refused, naming the setting
    with pytest.raises(ValueError, match="solver_cards"):
        train(tiny_args(tmp_path / "part", max_chunks=12, resume=True, solver_cards=20))
    # a new run into a used folder is refused
    with pytest.raises(FileExistsError, match="--resume"):
        train(tiny_args(tmp_path / "part", max_chunks=12))
    with pytest.raises(FileNotFoundError):
        train(tiny_args(tmp_path / "nothing", resume=True))


def test_a_warm_start_takes_the_weights_time_and_curve_of_another_run(tmp_path):
    first = train(tiny_args(tmp_path / "a", max_chunks=4))
    same = train(tiny_args(tmp_path / "b", max_chunks=0, init=str(tmp_path / "a")))
    a, b = _state_of(tmp_path / "a"), _state_of(tmp_path / "b")
    for k in a["model"]:
        assert torch.equal(a["model"][k], b["model"][k]), k
    assert same["updates"] == 0 and same["minutes"] >= first["minutes"]
    init = json.loads(b["init"])
    assert init["run"] == "a" and init["updates"] == first["updates"]
    # the warm-started run trains on, and its weights file says where it started
    more = train(tiny_args(tmp_path / "c", max_chunks=3, seed=4, init=str(tmp_path / "a")))
    assert more["updates"] > 0
    training = load_weights(more["weights"]).manifest["training"]
    assert training["init"]["run"] == "a"
    # issue 44: the manifest names the runs relative to this one, not by absolute paths
    assert training["args"]["out"] == "c" and training["args"]["init"] == "../a"
    assert training["init"]["args"]["out"] == "a"
    # a warm start from a weights file names it by its content hash
    digest = hashlib.sha256(open(first["weights"], "rb").read()).hexdigest()[:16]
    again = train(tiny_args(tmp_path / "f", max_chunks=0, init=first["weights"]))
    training = load_weights(again["weights"]).manifest["training"]
    name = f"{os.path.basename(first['weights'])} sha256:{digest}"
    assert training["args"]["init"] == training["init"]["weights"] == name
    assert str(tmp_path) not in json.dumps(training)
    with pytest.raises(ValueError, match="hidden"):
        train(tiny_args(tmp_path / "d", hidden=[8], init=str(tmp_path / "a")))
    with pytest.raises(FileNotFoundError, match="--init"):
        train(tiny_args(tmp_path / "e", init=str(tmp_path / "none")))


@pytest.mark.slow
def test_ctrl_c_saves_a_checkpoint_and_the_resumed_run_is_the_same_run(tmp_path):
    """Ctrl-C (SIGINT to the whole process group, label worker included) stops the
    command line trainer with exit 130 and a checkpoint; resumed to N chunks it ends
    with the weights of a run of N chunks never interrupted."""
    import signal
    import subprocess
    import sys
    import time
    out = tmp_path / "cli"
    common = ["--hidden", "8", "--chunk-deals", "2", "--min-buffer", "8", "--batch-size", "8",
              "--updates-per-chunk", "2", "--eval-minutes", "0", "--no-progress",
              "--solver-cards", "12", "--seed", "9", "--workers", "1"]
    proc = subprocess.Popen([sys.executable, "-m", "coinche_rl.cli", "train", "play", "--out",
                             str(out), "--max-chunks", "100000", "--log-seconds", "0.2"] + common,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            start_new_session=True)
    try:
        deadline = time.time() + 240
        while time.time() < deadline:
            m = out / "metrics.jsonl"
            if m.exists() and len(m.read_text().splitlines()) >= 3:
                break
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.2)
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 130, err
    assert "--resume" in err
    chunks = int(_state_of(out)["chunk"])
    assert chunks >= 1
    n = chunks + 3
    args = parse_args(["--out", str(out), "--max-chunks", str(n), "--resume"] + common)
    train(args)
    ref = parse_args(["--out", str(tmp_path / "ref"), "--max-chunks", str(n)] + common)
    train(ref)
    a, b = _state_of(out), _state_of(tmp_path / "ref")
    assert int(a["chunk"]) == int(b["chunk"]) == n
    for k in a["model"]:
        assert torch.equal(a["model"][k], b["model"][k]), k


@pytest.mark.slow
def test_label_workers_do_not_change_the_weights(tmp_path):
    local = train(tiny_args(tmp_path / "local", max_chunks=5))
    pooled = train(tiny_args(tmp_path / "pool", max_chunks=5, workers=1, backend="pool"))
    a, b = _state_of(tmp_path / "local"), _state_of(tmp_path / "pool")
    assert local["labelled"] == pooled["labelled"]
    for k in a["model"]:
        assert torch.equal(a["model"][k], b["model"][k]), k


@pytest.mark.slow
def test_ray_label_workers_give_the_same_weights(tmp_path):
    ray = pytest.importorskip("ray")
    import logging
    started = not ray.is_initialized()
    if started:
        ray.init(num_cpus=1, include_dashboard=False, logging_level=logging.WARNING,
                 log_to_driver=False)
    try:
        local = train(tiny_args(tmp_path / "local", max_chunks=4))
        remote = train(tiny_args(tmp_path / "ray", max_chunks=4, workers=1, backend="ray"))
    finally:
        if started:
            ray.shutdown()
    a, b = _state_of(tmp_path / "local"), _state_of(tmp_path / "ray")
    assert local["labelled"] == remote["labelled"]
    for k in a["model"]:
        assert torch.equal(a["model"][k], b["model"][k]), k


@pytest.mark.parametrize("bad, word", [
    (dict(workers=1, backend="dask"), "backend"), (dict(address="1.2.3.4:6379"), "address"),
    (dict(hidden=[]), "hidden"), (dict(batch_size=0), "batch-size"),
    (dict(frozen=1.5), "frozen"), (dict(solver_cards=40), "solver-cards"),
    (dict(minutes=0), "minutes"), (dict(rules="belotte"), "belotte")])
def test_bad_settings_are_refused_before_anything_is_written(tmp_path, bad, word):
    with pytest.raises(ValueError, match=word):
        train(tiny_args(tmp_path / "x", **bad))
    assert not (tmp_path / "x").exists()


def test_exported_weights_play_without_torch_and_match_its_forward(tmp_path):
    from coinche_rl.agents.neural.torch_net import to_numpy
    train(tiny_args(tmp_path / "run", max_chunks=5))
    path = export_run(str(tmp_path / "run"), str(tmp_path / "w.npz"), float32=True)
    net = load_weights(path, rules=get_rules("ffb"))
    assert net.manifest["training"]["updates"] > 0
    assert net.manifest["rules"]["name"] == "ffb"
    ck = _state_of(tmp_path / "run")
    model = PlayNet([16])
    model.load_state_dict(ck["model"])
    x = np.random.default_rng(0).random((64, C.FEATURE_SIZE), dtype=np.float32)
    with torch.no_grad():
        want = model(torch.from_numpy(x)).numpy()
    assert np.allclose(net.forward(x), want, rtol=1e-5, atol=1e-5)
    assert np.allclose(to_numpy(model).forward(x), want, rtol=1e-5, atol=1e-5)


def test_parse_args_covers_every_setting():
    args = parse_args(["--rules", "ffb", "--minutes", "3", "--out", "runs/x", "--resume",
                       "--hidden", "64", "32", "--solver-cards", "20", "--no-progress",
                       "--max-chunks", "7"])
    assert args.minutes == 3.0 and args.resume and args.hidden == [64, 32]
    assert args.solver_cards == 20 and not args.progress and args.max_chunks == 7
    assert dataclasses.asdict(parse_args([])) == dataclasses.asdict(Args())


def test_the_command_line_trains_and_exports(tmp_path, capsys):
    from coinche_rl.cli import main
    out = tmp_path / "cli"
    argv = ["train", "play", "--out", str(out), "--hidden", "8", "--chunk-deals", "2",
            "--workers", "0", "--max-chunks", "3", "--min-buffer", "8", "--batch-size", "8",
            "--eval-minutes", "0", "--no-progress", "--solver-cards", "12"]
    assert main(argv) == 0
    assert json.loads(capsys.readouterr().out.strip().splitlines()[-1])["chunks"] == 3
    assert main(argv) == 2                     # the folder holds a run: --resume needed
    assert "--resume" in capsys.readouterr().err
    assert main(["train", "export", str(out), "-o", str(tmp_path / "w.npz")]) == 0
    assert load_weights(tmp_path / "w.npz").hidden == [8]
    assert main(["train", "export", str(tmp_path / "none"), "-o", str(tmp_path / "x.npz")]) == 2
    assert "checkpoint" in capsys.readouterr().err


# ------------------------------------------------------------------------ what a run says
def test_a_run_ends_with_an_evaluation_of_its_final_weights(tmp_path, capsys):
    """The first evaluation comes at the first update (the untrained net); a run shorter
    than ``--eval-minutes`` used to end on it. Every run now ends evaluating the weights
    it writes, and says how old the evaluation it shows is."""
    res = train(tiny_args(tmp_path / "run", eval_minutes=1000.0, eval_pairs=8, max_chunks=6))
    history = res["history"]
    assert len(history) == 2 and history[0]["updates"] < res["updates"]
    assert history[-1]["updates"] == res["updates"] == res["evaluation"]["updates"]
    final = load_weights(res["weights"]).manifest["evaluation"]["final"]
    assert final["updates"] == res["updates"]
    out = capsys.readouterr().out
    assert f"(at update {res['updates']}, end of run) vs heuristic" in out
    # a run without evaluations says so
    res = train(tiny_args(tmp_path / "none", max_chunks=2))
    assert res["history"] == [] and res["evaluation"] is None
    assert "not evaluated (--eval-minutes 0)" in capsys.readouterr().out


def test_an_evaluation_is_shown_with_its_age():
    from coinche_rl.train.common import eval_text
    ev = {"margin": -42.64, "ci95": 3.1, "updates": 16, "minutes": 0.2}
    assert eval_text(ev, 1234, 10.0) == "eval -42.6±3.1 (at update 16, 9.8 min ago)"
    assert eval_text(ev, 16, 0.2) == "eval -42.6±3.1 (at update 16, now)"
    assert eval_text(ev, 16, 0.3, end=True) == "eval -42.6±3.1 (at update 16, end of run)"
    assert eval_text({**ev, "run": "a"}, 3, 11.0) == "eval -42.6±3.1 (run a's, at its update 16)"
    assert eval_text(None, 3, 1.0) == "eval: none yet"


def test_a_refused_start_leaves_no_folder_behind(tmp_path):
    with pytest.raises(FileNotFoundError, match="--init"):
        train(tiny_args(tmp_path / "e", init=str(tmp_path / "nothere")))
    assert not (tmp_path / "e").exists()
    with pytest.raises(FileNotFoundError, match="--resume"):
        train(tiny_args(tmp_path / "f", resume=True))
    assert not (tmp_path / "f").exists()


def test_export_refuses_a_missing_folder_and_a_name_without_npz(tmp_path, capsys):
    from coinche_rl.cli import main
    train(tiny_args(tmp_path / "run", max_chunks=2))
    capsys.readouterr()
    run = str(tmp_path / "run")
    assert main(["train", "export", run, "-o", str(tmp_path / "nothere" / "x.npz")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "no folder" in err and "nothere" in err
    assert not (tmp_path / "nothere").exists()
    assert main(["train", "export", run, "-o", str(tmp_path / "x.txt")]) == 2
    assert ".npz" in capsys.readouterr().err and not (tmp_path / "x.txt").exists()
    with pytest.raises(ValueError, match=".npz"):
        export_run(run, str(tmp_path / "w.bin"))
    with pytest.raises(FileNotFoundError, match="no folder"):
        export_run(run, str(tmp_path / "no" / "w.npz"))
    assert main(["train", "export", run, "-o", str(tmp_path / "w.npz")]) == 0


def test_the_default_replay_stays_small_and_its_size_is_said(tmp_path, capsys):
    """``replay.npz`` is written with every checkpoint: at the default ``--buffer-size``
    the file of a full replay (extrapolated from a small run's bytes per decision) stays
    well under 50 MB, and the trainer says the size it wrote; ``--help`` documents it."""
    res = train(tiny_args(tmp_path / "run", buffer_size=100_000))
    path = tmp_path / "run" / "replay.npz"
    with np.load(path) as z:
        n = int(z["size"])
    assert n == res["labelled"] > 300
    per_decision = os.path.getsize(path) / n
    assert Args().buffer_size * per_decision < 40e6, per_decision
    out = capsys.readouterr().out
    assert f"replay.npz {os.path.getsize(path) / 1e6:.1f} MB ({n:,} decisions)" in out
    assert "--buffer-size" in out
    import argparse
    import contextlib
    import io
    help_text = io.StringIO()
    with contextlib.redirect_stdout(help_text), pytest.raises(SystemExit):
        parse_args(["--help"])
    assert "replay.npz" in " ".join(help_text.getvalue().split())


def test_resuming_a_finished_run_says_the_budget_is_spent(tmp_path, capsys):
    from coinche_rl.cli import main
    done = train(tiny_args(tmp_path / "a", max_chunks=3))
    before = _state_of(tmp_path / "a")
    again = train(tiny_args(tmp_path / "a", max_chunks=3, resume=True))
    assert again["updates"] == done["updates"] and "--max-chunks" in again["budget_spent"]
    assert again["minutes"] == done["minutes"]      # the time the run says is the one it saved
    assert torch.equal(before["torch_rng"], _state_of(tmp_path / "a")["torch_rng"])
    # the time budget (cumulative over resumes): the option to raise is --minutes
    common = ["--hidden", "8", "--chunk-deals", "2", "--workers", "0", "--min-buffer", "8",
              "--batch-size", "8", "--eval-minutes", "0", "--no-progress", "--solver-cards",
              "12", "--minutes", "0.0001", "--out", str(tmp_path / "b")]
    assert main(["train", "play"] + common) == 0
    capsys.readouterr()
    assert main(["train", "play", "--resume"] + common) == 0
    out = capsys.readouterr().out
    assert "spent its time budget" in out and "--resume --minutes 0.0002" in out
    assert json.loads(out.strip().splitlines()[-1])["budget_spent"]


def test_the_command_line_prints_progress_lines_to_a_pipe(tmp_path, capsys):
    """Output to a file or a pipe: plain progress lines as the run goes (a rich bar would
    print nothing until the end), then the end-of-run line and the JSON summary."""
    from coinche_rl.cli import main
    assert main(["train", "play", "--out", str(tmp_path / "p"), "--hidden", "8",
                 "--chunk-deals", "2", "--workers", "0", "--max-chunks", "4", "--min-buffer", "8",
                 "--batch-size", "8", "--eval-minutes", "0", "--solver-cards", "12",
                 "--log-seconds", "0"]) == 0
    lines = capsys.readouterr().out.splitlines()
    progress = [ln for ln in lines if ln.startswith("[") and " min] upd " in ln]
    assert len(progress) == 4, lines
    assert "end of run" in lines[-2] and json.loads(lines[-1])["chunks"] == 4


def test_a_run_stores_its_kind_and_older_runs_are_told_by_what_they_hold():
    from coinche_rl.train.common import RUN_KINDS, run_kind
    for kind in RUN_KINDS:
        assert run_kind({"kind": kind, "args": json.dumps({"players": "auto"})}) == kind
    # checkpoints written before runs stored their kind
    assert run_kind({"population": "[]", "args": json.dumps({"rules": "ffb"})}) == "belief"
    assert run_kind({"args": json.dumps({"rules": "ffb", "players": "auto"})}) == "bid"
    assert run_kind({"args": json.dumps({"rules": "ffb", "labels": "heuristic"})}) == "play"


@dataclasses.dataclass
class _Settings:
    n: int = dataclasses.field(default=1, metadata={"help": "a count"})
    x: float = dataclasses.field(default=0.5, metadata={"help": "a share"})
    name: Optional[str] = dataclasses.field(default=None, metadata={"help": "a name"})
    on: bool = dataclasses.field(default=True, metadata={"help": "a switch"})
    widths: List[int] = dataclasses.field(default_factory=lambda: [4, 4],
                                          metadata={"help": "widths"})


@dataclasses.dataclass
class _OddSettings:
    table: Dict[str, int] = dataclasses.field(default_factory=dict)


def test_settings_become_typed_options():
    from coinche_rl.train.common import parse_args as parse_settings
    s = parse_settings(["--n", "3", "--x", "0.25", "--no-on", "--widths", "8", "2"], _Settings,
                       "p", "d")
    assert (s.n, s.x, s.name, s.on, s.widths) == (3, 0.25, None, False, [8, 2])
    assert parse_settings([], _Settings, "p", "d") == _Settings()
    with pytest.raises(TypeError, match="no command-line form"):
        parse_settings([], _OddSettings, "p", "d")
