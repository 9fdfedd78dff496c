"""The ``nn`` agent and its weights (``coinche_rl.agents.neural``: ``net``, ``agent``,
``torch_net``).

1. Weights files: a round trip keeps the architecture and the outputs (float32 exactly,
   float16 within its rounding); the write is atomic and leaves a shareable file.
2. Every manifest mismatch, and every file that is not a weights file, is refused with a
   ``WeightsError`` naming the field (or the array).
3. The torch twin: ``PlayNet`` and its numpy ``MLP`` give the same outputs, on random
   inputs and on real network inputs (``play_inputs``) at card-play positions of every
   preset; ``from_numpy(to_numpy(net))`` is the same net.
4. Legal play on every preset, through ``play_deal`` (which refuses an illegal action) and
   through the batched ``play_states``.
5. The batched path makes the per-decision path's choices: same final engine states, and
   ``run_duplicate`` fast == ``fast=False``.
6. No leak: the network input and the agent's action depend only on what the seat knows
   (raw state == public state, and the same in another deal with the same public history
   and the same own cards; the pairs of ``test_infoset``).
7. The shipped weights load (trained for ffb) and beat ``random`` by a wide margin.
8. Errors: missing weights, other rules (``any_rules``), the default roster.
9. ``coinche-rl agents`` documents every parameter.
"""

import doctest
import json
import os

import numpy as np
import pytest

from coinche_rl import actions as A
from coinche_rl import engine as E
from coinche_rl.agents import describe_agents, make_agent, play_deal
from coinche_rl.agents.base import PlayerView
from coinche_rl.agents.neural import agent as NA
from coinche_rl.agents.neural import canonical as C
from coinche_rl.agents.neural import net as NN
from coinche_rl.agents.neural.agent import NeuralAgent, load_play_net
from coinche_rl.agents.neural.batch_play import NetInputs, play_states
from coinche_rl.agents.neural.net import (MLP, NeuralError, WeightsError, default_weights_path,
                                          load_weights, make_manifest, save_weights)
from coinche_rl.agents.numba_bots import BOT_HEURISTIC, BOT_RANDOM, deal_states
from coinche_rl.arena import DealSet, default_roster, run_duplicate
from coinche_rl.engine import public_view
from coinche_rl.game import Deal
from coinche_rl.rules import FOUR_PLAYER_PRESETS
from coinche_rl.rules import PRESETS, get_rules

from test_infoset import actors, compare_in_other_worlds, random_trace

ALL_PRESETS = sorted(FOUR_PLAYER_PRESETS)
FFB = get_rules("ffb")


# ===================================================================== helpers
def small_net(seed=1, hidden=(16, 8)) -> MLP:
    """A random net with non-zero biases (so that a lost bias shows)."""
    net = MLP.random(hidden=hidden, seed=seed)
    rng = np.random.default_rng(seed + 100)
    net.layers = [(w, rng.normal(0, 0.1, b.shape).astype(np.float32)) for w, b in net.layers]
    return net


def random_inputs(n=64, seed=0) -> np.ndarray:
    return np.random.default_rng(seed).normal(0, 1, (n, C.FEATURE_SIZE)).astype(np.float32)


def write_valid(path, net=None, dtype=np.float32):
    net = net or small_net()
    save_weights(path, net, make_manifest(net, FFB, {"name": "test"}), dtype=dtype)
    return net


def read_npz(path):
    """``(manifest dict, arrays dict)`` of a weights file."""
    with np.load(path, allow_pickle=False) as z:
        arrays = {k: z[k] for k in z.files}
    return json.loads(str(arrays.pop("manifest"))), arrays


def write_npz(path, manifest, arrays):
    """A weights file with this manifest (dict, or raw text) and these arrays."""
    out = dict(arrays)
    if manifest is not None:
        out["manifest"] = np.array(manifest if isinstance(manifest, str)
                                   else json.dumps(manifest))
    with open(path, "wb") as f:
        np.savez(f, **out)


def is_card_decision(d: Deal) -> bool:
    return (not d.is_terminal and d.phase == "play"
            and all(A.is_card(a) for a in d.legal_actions()))


def card_positions(preset, n_deals, seed):
    """Engine states at the card decisions of ``n_deals`` random deals of ``preset``."""
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n_deals):
        trace, _ = random_trace(preset, rng)
        out += [d.state.copy() for d in trace if is_card_decision(d)]
    return np.array(out)


_INPUTS = {}


def net_inputs(rules, states):
    """``(feats, legal canonical cards, perms)`` of the seats to act (copies)."""
    inputs = _INPUTS.setdefault(rules.name, NetInputs(rules))
    states = np.ascontiguousarray(np.atleast_2d(states), dtype=np.int64)
    f, c, p = inputs.compute(states, np.arange(len(states), dtype=np.int64))
    return f.copy(), c.copy(), p.copy()


def shipped_net() -> MLP:
    return load_play_net(rules=FFB)


# ========================================================= 1. weights round trip
def test_float32_round_trip_is_exact_and_the_write_is_atomic_and_shareable(tmp_path):
    net = small_net()
    old = os.umask(0o022)
    try:
        path = tmp_path / "w32.npz"
        path.write_bytes(b"an older file, replaced")
        write_valid(path, net, np.float32)
    finally:
        os.umask(old)
    assert os.listdir(tmp_path) == ["w32.npz"]          # no temp file left
    assert os.stat(path).st_mode & 0o044 == 0o044       # group and others may read it
    back = load_weights(path)
    assert back.architecture() == net.architecture() and back.hidden == [16, 8]
    assert back.manifest["dtype"] == "float32" and back.manifest["rules"]["name"] == "ffb"
    x = random_inputs()
    assert np.array_equal(back.forward(x), net.forward(x))
    assert back.forward(x).dtype == np.float32


def test_float16_round_trip_is_within_float16_rounding(tmp_path):
    net = small_net(seed=3)
    path = tmp_path / "w16.npz"
    write_valid(path, net, np.float16)
    _, arrays = read_npz(path)
    assert all(a.dtype == np.float16 for a in arrays.values())
    back = load_weights(path)
    assert back.architecture() == net.architecture()
    x = random_inputs(seed=1)
    # exactly the net with its weights rounded to float16 ...
    rounded = MLP([(w.astype(np.float16), b.astype(np.float16)) for w, b in net.layers])
    assert np.array_equal(back.forward(x), rounded.forward(x))
    # ... which is close to the original: relative rounding 2**-11 per weight
    y, y16 = net.forward(x), back.forward(x)
    err = np.abs(y16 - y).max() / np.abs(y).max()
    assert 0 < err < 4 * 2.0 ** -11 * len(net.layers), err


def test_a_failed_write_leaves_nothing(tmp_path, monkeypatch):
    def broken(*args, **kwargs):
        raise OSError("disk full")
    monkeypatch.setattr(NN.np, "savez", broken)
    with pytest.raises(OSError, match="disk full"):
        write_valid(tmp_path / "w.npz")
    assert os.listdir(tmp_path) == []


# ===================================================== 2. the manifest's checks
def _set(field, value):
    def mutate(m, arrays):
        keys = field.split(".")
        d = m
        for k in keys[:-1]:
            d = d[k]
        d[keys[-1]] = value(d[keys[-1]]) if callable(value) else value
    return mutate


def _arrays(fn):
    def mutate(m, arrays):
        fn(arrays)
    return mutate


MANIFEST_CASES = [
    ("format", _set("format", "other-weights")),
    ("format_version", _set("format_version", NN.FORMAT_VERSION + 1)),
    ("kind", _set("kind", "bid")),
    ("observation.version", _set("observation.version", lambda v: v + 1)),
    ("observation.size", _set("observation.size", lambda v: v + 1)),
    ("observation.features", _set("observation.features", lambda v: v - 1)),
    ("observation.feature_hash", _set("observation.feature_hash", "0" * 16)),
    ("canonical.version", _set("canonical.version", lambda v: v + 1)),
    ("action_map", _set("action_map", "physical-actions-118")),
    ("architecture.type", _set("architecture.type", "transformer")),
    ("architecture.activation", _set("architecture.activation", "tanh")),
    ("architecture.inputs", _set("architecture.inputs", lambda v: v + 1)),
    ("architecture.outputs", _set("architecture.outputs", 118)),
    ("architecture.hidden", _set("architecture.hidden", "16,8")),
]
ARRAY_CASES = [
    ("w1 / b1 is missing", _arrays(lambda a: a.pop("w1"))),
    ("w3 / b3 is missing", _set("architecture.hidden", [16, 8, 32])),
    ("layer 1 has shapes", _arrays(lambda a: a.update(b1=np.zeros(9, np.float32)))),
    ("layer 0 has shapes", _arrays(lambda a: a.update(w0=a["w0"][:-1]))),
    ("arrays ['w3']", _arrays(lambda a: a.update(w3=np.zeros((8, 32), np.float32)))),
]


@pytest.fixture(scope="module")
def valid_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("weights") / "valid.npz"
    write_valid(path)
    load_weights(path, rules=FFB)                  # the unmodified file is accepted
    return path


@pytest.mark.parametrize("field, mutate", MANIFEST_CASES + ARRAY_CASES,
                         ids=[c[0] for c in MANIFEST_CASES + ARRAY_CASES])
def test_every_mismatch_is_refused_naming_the_field(valid_file, tmp_path, field, mutate):
    m, arrays = read_npz(valid_file)
    mutate(m, arrays)
    bad = tmp_path / "bad.npz"
    write_npz(bad, m, arrays)
    with pytest.raises(WeightsError) as e:
        load_weights(bad)
    msg = str(e.value)
    assert (f"manifest field {field} " if (field, mutate) in MANIFEST_CASES else field) in msg
    assert str(bad) in msg


def test_weights_for_other_rules_are_refused_naming_the_rules(valid_file):
    assert load_weights(valid_file, rules=FFB).manifest["rules"]["name"] == "ffb"
    with pytest.raises(WeightsError, match="manifest field rules .*'classic'"):
        load_weights(valid_file, rules=get_rules("classic"))
    with pytest.raises(WeightsError, match="manifest field rules"):
        load_weights(valid_file, rules=get_rules("ffb", overtrump_partner=False))


def test_files_that_are_not_weights_files_are_refused(valid_file, tmp_path):
    with pytest.raises(WeightsError, match="no weights file at .*nowhere.npz"):
        load_weights(tmp_path / "nowhere.npz")
    text = tmp_path / "text.npz"
    text.write_text("not an archive")
    with pytest.raises(WeightsError, match="not a readable .npz"):
        load_weights(text)
    _, arrays = read_npz(valid_file)
    write_npz(tmp_path / "bare.npz", None, arrays)
    with pytest.raises(WeightsError, match="no manifest"):
        load_weights(tmp_path / "bare.npz")
    write_npz(tmp_path / "json.npz", "{format: nope", arrays)
    with pytest.raises(WeightsError, match="manifest is not valid JSON"):
        load_weights(tmp_path / "json.npz")


def test_module_doctests():
    assert doctest.testmod(NN).failed == 0
    NA.warmup()
    assert doctest.testmod(NA).failed == 0


# ================================================= 3. torch == numpy forward
@pytest.fixture(scope="module")
def torch_net():
    torch = pytest.importorskip("torch")
    from coinche_rl.agents.neural.torch_net import PlayNet
    torch.manual_seed(0)
    return torch, PlayNet(hidden=(64, 32))


def assert_close(got, want, rel=1e-5):
    scale = float(np.abs(want).max())
    assert scale > 0
    np.testing.assert_allclose(got, want, rtol=rel, atol=rel * scale)


def torch_forward(torch, net, x):
    with torch.no_grad():
        return net(torch.from_numpy(np.ascontiguousarray(x, dtype=np.float32))).numpy()


def test_torch_and_numpy_nets_agree_on_random_inputs(torch_net):
    torch, net = torch_net
    from coinche_rl.agents.neural.torch_net import from_numpy, to_numpy
    mlp = to_numpy(net)
    assert mlp.hidden == [64, 32] and mlp.inputs == C.FEATURE_SIZE and mlp.outputs == 32
    x = random_inputs(128, seed=5)
    assert_close(mlp.forward(x), torch_forward(torch, net, x))
    twin = from_numpy(mlp)
    assert twin.hidden == [64, 32]
    assert np.array_equal(torch_forward(torch, twin, x), torch_forward(torch, net, x))


@pytest.fixture(scope="module")
def positions():
    """Card-play positions of every preset: ``{preset: states}``."""
    return {p: card_positions(p, 3, seed=40 + i) for i, p in enumerate(ALL_PRESETS)}


@pytest.mark.parametrize("preset", ALL_PRESETS)
def test_torch_and_numpy_nets_agree_on_real_inputs(torch_net, positions, preset):
    torch, net = torch_net
    from coinche_rl.agents.neural.torch_net import from_numpy, to_numpy
    states = positions[preset]
    assert len(states) >= 30
    feats, cards, perms = net_inputs(get_rules(preset), states)
    assert np.isfinite(feats).all() and (feats != 0).any(axis=1).all()
    mlp = to_numpy(net)
    want = torch_forward(torch, net, feats)
    assert_close(mlp.forward(feats), want)
    assert np.array_equal(torch_forward(torch, from_numpy(mlp), feats), want)
    # the legal canonical cards map back to the position's legal cards
    for j, S in enumerate(states):
        d = Deal.from_state(preset, S)
        back = sorted(int(C.ACT_SRC[perms[j], A.CARD_BASE + c]) for c in np.flatnonzero(cards[j]))
        assert back == d.legal_actions()


# ================================================== 4. legal play, every preset
TABLES = [("nn:any_rules=true",) * 4,
          ("nn:any_rules=true", "heuristic", "random", "nn:any_rules=true"),
          ("random", "nn:any_rules=true", "heuristic", "nn:any_rules=true")]


@pytest.mark.parametrize("preset", ALL_PRESETS)
def test_the_agent_plays_legal_actions_through_play_deal(preset):
    for t, specs in enumerate(TABLES):
        agents = [make_agent(s) for s in specs]
        for k, deal in enumerate([Deal(preset, seed=t * 10 + 1),
                                  DealSet(preset, seed=t, frozen_contract=True).deal(0)]):
            play_deal(deal, agents, seeds=[t, k, 7, 9])    # IllegalActionError otherwise
            assert deal.is_terminal
            assert len(deal.plays) == 32 or deal.is_void


def per_decision(rules, states, seeds, specs):
    """``states`` played through ``play_deal`` with agents ``specs`` (new array)."""
    agents = [make_agent(s) for s in specs]
    out = np.array(states, copy=True)
    for i in range(len(out)):
        d = Deal.from_state(rules, out[i])
        play_deal(d, agents, [int(s) for s in seeds[i]])
        out[i] = d.state
    return out


@pytest.mark.parametrize("preset", ALL_PRESETS)
def test_the_batched_path_ends_every_deal_legally(preset):
    rules = get_rules(preset)
    net = load_play_net(rules=rules, check_rules=False)
    bid = make_agent("nn:any_rules=true").bid_net(rules)    # ffb's (None: classic)
    states = deal_states(preset, 24, seed=3)
    seeds = np.random.default_rng(4).integers(0, 2 ** 31, (24, 4))
    for bots, nets, bids, specs in [
            ([BOT_HEURISTIC] * 4, [net] * 4, [bid] * 4, TABLES[0]),
            ([BOT_HEURISTIC, BOT_HEURISTIC, BOT_RANDOM, BOT_HEURISTIC], [net, None, None, net],
             [bid, None, None, bid], TABLES[1])]:
        out = states.copy()
        play_states(rules, out, seeds, bots, nets, bids)
        assert (out[:, E.S_PHASE] == E.DONE).all()
        # the choices of play_deal (which checks every action) on a few of them
        assert np.array_equal(out[:8], per_decision(rules, states[:8], seeds[:8], specs))


# =================================== 5. the batched path == per-decision path
def test_play_states_equals_play_deal_with_the_same_seeds(tmp_path):
    states = deal_states("ffb", 40, seed=11)
    seeds = np.random.default_rng(12).integers(0, 2 ** 31, (40, 4))
    heur = make_agent("heuristic").numba_bot
    net = shipped_net()
    bid = make_agent("nn").bid_net(FFB)                   # the shipped bidder
    bids = [bid, None, bid, None]
    batched = states.copy()
    play_states(FFB, batched, seeds, [heur] * 4, [net, None, net, None], bids)
    slow = per_decision(FFB, states, seeds, ["nn", "heuristic", "nn", "heuristic"])
    assert np.array_equal(batched, slow)
    # two different nets in one batch (each scores its own seats' decisions)
    path = tmp_path / "other.npz"
    write_valid(path, small_net(seed=8, hidden=(32,)))
    other = load_play_net(str(path), check_rules=False)
    batched = states.copy()
    play_states(FFB, batched, seeds, [heur] * 4, [net, None, other, None], bids)
    slow = per_decision(FFB, states, seeds, ["nn", "heuristic", f"nn:weights={path}", "heuristic"])
    assert np.array_equal(batched, slow)
    same = states.copy()
    play_states(FFB, same, seeds, [heur] * 4, [net, None, net, None], bids)
    assert not np.array_equal(batched, same)             # seat 2's own net was used


@pytest.mark.parametrize("frozen", [True, False])
def test_run_duplicate_fast_equals_the_python_path(frozen):
    kw = dict(frozen_contract=frozen, seed=5)
    fast = run_duplicate("nn", "heuristic", 12, **kw)
    slow = run_duplicate("nn", "heuristic", 12, fast=False, **kw)
    assert np.array_equal(fast.scores, slow.scores)
    assert np.array_equal(fast.contracts, slow.contracts)
    mixed = dict(kw, preset="coinche_x3")
    fast = run_duplicate(("nn:any_rules=true", "random"), "heuristic", 6, **mixed)
    slow = run_duplicate(("nn:any_rules=true", "random"), "heuristic", 6, fast=False, **mixed)
    assert np.array_equal(fast.scores, slow.scores)


# ============================================================= 6. no leak
def nn_act(agent, deal, seat):
    agent.reset(seat, deal.rules, 17)
    return agent.act(PlayerView.from_deal(deal))


@pytest.mark.parametrize("preset", ALL_PRESETS)
def test_no_leak_the_action_depends_only_on_what_the_seat_knows(preset):
    rules = get_rules(preset)
    agent = make_agent("nn:any_rules=true")
    rng = np.random.default_rng(700 + sum(map(ord, preset)))
    compared = {"cards": 0, "hidden_differs": 0}

    def same_nn_choices(b, a_now, seat):
        if a_now.is_terminal or a_now.current_player != seat:
            return
        assert nn_act(agent, b, seat) == nn_act(agent, a_now, seat)
        if is_card_decision(a_now):
            fa, ca, pa = net_inputs(rules, a_now.state)
            fb, cb, pb = net_inputs(rules, b.state)       # raw states: the batched path
            assert np.array_equal(fa, fb) and np.array_equal(ca, cb) and (pa == pb).all()
            compared["cards"] += 1
            compared["hidden_differs"] += b.hands != a_now.hands

    differing = 0
    for _ in range(4):
        trace, actions = random_trace(preset, rng)
        who = actors(trace[-1], actions)
        for d in trace:                                   # raw == public at every step
            if is_card_decision(d):
                pub = public_view(d.state, d.params, d.current_player)
                raw_in, pub_in = net_inputs(rules, d.state), net_inputs(rules, pub)
                assert all(np.array_equal(x, y) for x, y in zip(raw_in, pub_in))
        differing += compare_in_other_worlds(trace, actions, who, rng, same_nn_choices)
    assert differing >= 100, differing
    assert compared["hidden_differs"] >= 30, compared


# ====================================================== 7. the shipped weights
def test_the_shipped_weights_load_and_beat_random_widely():
    net = load_play_net()
    assert os.path.isfile(default_weights_path("ffb"))
    assert net is load_play_net(default_weights_path("ffb"), FFB)     # loaded once
    assert net.manifest["rules"]["name"] == "ffb" and net.manifest["kind"] == "play"
    assert net.inputs == C.FEATURE_SIZE and net.outputs == 32
    r = run_duplicate("nn", "random", 300, frozen_contract=True, seed=2024)
    assert r.n == 300
    assert r.mean - r.ci95 > 10, (r.mean, r.ci95)


def machine_paths(manifest) -> list:
    """The strings of ``manifest`` (at any depth) that name a file or folder of one
    machine: absolute paths (POSIX, or a Windows drive or share)."""
    import re
    found = []

    def walk(o, where):
        if isinstance(o, dict):
            for k, v in o.items():
                walk(v, f"{where}.{k}")
        elif isinstance(o, list):
            for i, v in enumerate(o):
                walk(v, f"{where}[{i}]")
        elif isinstance(o, str) and (o.startswith(("/", "~", "\\\\"))
                                     or re.match(r"^[A-Za-z]:[\\/]", o)):
            found.append(f"{where} = {o}")
    walk(manifest, "manifest")
    return found


def test_machine_paths_finds_absolute_paths_at_any_depth():
    assert machine_paths({"training": {"args": {"out": "/work/runs/a", "init": "../b"},
                                       "init": {"weights": "C:\\runs\\p.npz"}}}) == [
        "manifest.training.args.out = /work/runs/a", "manifest.training.init.weights = C:\\runs\\p.npz"]


@pytest.mark.parametrize("kind", ["play", "bid", "belief"])
def test_the_shipped_manifests_name_no_path_of_the_training_machine(kind):
    # issue 44: the run folders and init weights were recorded as /work/runs/... paths
    path = os.path.join(os.path.dirname(default_weights_path("ffb")), f"ffb_{kind}.npz")
    with np.load(path, allow_pickle=False) as z:
        manifest = json.loads(str(z["manifest"]))
    assert machine_paths(manifest) == []
    assert manifest["training"]["args"]["out"] == manifest["training"]["run"]


# ================================================================== 8. errors
def test_missing_weights_are_named():
    agent = make_agent("nn:weights=/nonexistent.npz")
    with pytest.raises((NeuralError, WeightsError), match="/nonexistent.npz"):
        agent.reset(0, FFB, 0)


def test_other_rules_are_refused_unless_any_rules():
    classic = get_rules("classic")
    with pytest.raises(NeuralError) as e:
        make_agent("nn").reset(0, classic, 0)
    assert "classic" in str(e.value) and "ffb" in str(e.value)
    assert "any_rules" in str(e.value)
    # the ffb weights given explicitly, or ffb with an override: refused too
    with pytest.raises(NeuralError, match="'ffb'.*'classic'"):
        make_agent(f"nn:weights={default_weights_path('ffb')}").reset(0, classic, 0)
    with pytest.raises(NeuralError, match="any_rules"):
        make_agent("nn").reset(0, get_rules("ffb", overtrump_partner=False), 0)
    with pytest.raises(NeuralError, match="'ffb' rules with other parameters"):
        make_agent("nn").reset(0, get_rules("ffb", must_undertrump=True), 0)
    agent = make_agent("nn:any_rules=true")
    agent.reset(1, classic, 0)
    deal = Deal(classic, seed=3)
    play_deal(deal, [agent, make_agent("heuristic"), make_agent("nn:any_rules=true"),
                     make_agent("random")], seeds=[1, 2, 3, 4])
    assert deal.is_terminal


def test_the_default_roster_seats_nn_only_under_its_rules():
    roster, _ = default_roster("ffb")
    assert "nn" in roster
    roster, skipped = default_roster("classic")
    assert "nn" not in roster
    reasons = [s for s in skipped if s.startswith("nn:")]
    assert len(reasons) == 1 and "any_rules" in reasons[0], skipped


# ============================================================ 9. documented
def test_describe_agents_documents_every_parameter():
    text = describe_agents()
    lines = text.splitlines()
    i = next(k for k, line in enumerate(lines) if line.startswith("nn: "))
    params = []
    for line in lines[i + 1:]:
        if not line.startswith("    "):
            break
        params.append(line.strip())
    assert [p.split(" ")[0] for p in params] == ["weights", "any_rules", "bid_weights",
                                                 "bidding", "play", "bid_margin"], params
    assert params[0].startswith("weights (str, default ''): ")
    assert params[1].startswith("any_rules (bool, default False): ")
    assert params[3].startswith("bidding (str, default 'auto'): ")
    assert isinstance(make_agent("nn"), NeuralAgent)


def test_the_match_target_does_not_change_the_rules_the_net_accepts():
    """The target and the shuffle between deals never change a deal: a net trained on
    ffb deals plays ffb matches to any target, but not ffb with another rule of play."""
    from coinche_rl.agents.neural.net import rules_hash
    assert rules_hash(get_rules("ffb")) == rules_hash(get_rules("ffb", target=2000))
    assert rules_hash(get_rules("ffb")) != rules_hash(get_rules("ffb", overtrump_partner=False))
    # the hash reads the RuleSet fields, not the kernels' parameter vector: nor the name
    # nor the match-only fields move it, every rule of a deal does
    from dataclasses import replace
    ffb = get_rules("ffb")
    assert rules_hash(replace(ffb, name="my_ffb", target=700)) == rules_hash(ffb)
    hashes = {rules_hash(r) for r in PRESETS.values()}
    assert len(hashes) == len(PRESETS)
    r = run_duplicate("nn", "heuristic", 2, match=True, target=300, seed=5)
    assert r.n == 2


def test_the_nn_agent_drives_the_vector_env_opponents_in_batches():
    """``batch_policy`` plays the other seats of CoincheVectorEnv: legal actions (the env
    checks them), the same cards as the agent's own ``act`` on the public state."""
    from coinche_rl.envs.vector import CoincheVectorEnv
    rules = get_rules("ffb")
    agent = make_agent("nn")
    policy = agent.batch_policy(rules)
    calls = []

    def spy(states, params, seats):
        calls.append(len(states))
        out = policy(states, params, seats)
        for j in range(0, len(states), 7):             # spot-check against act()
            a = NeuralAgent()
            a.reset(int(seats[j]), rules, 0)
            view = _PublicView(states[j], params, int(seats[j]), rules)
            assert a.act(view) == out[j]
        return out

    env = CoincheVectorEnv(64, seat=0, rules=rules, opponents=spy, seed=3)
    obs, infos = env.reset()
    done = 0
    for _ in range(40):
        obs, rew, term, trunc, infos = env.step(env.action_masks().argmax(axis=1))
        done += int(term.sum())
    assert done > 0 and max(calls) > 1


class _PublicView:
    """A minimal PlayerView over a public state (what ``act`` reads)."""

    def __init__(self, state, params, seat, rules):
        self.public_state = np.asarray(state, dtype=np.int64).copy()
        self.params = params
        self.seat = seat
        self.rules = rules


# ===================================================================== 10. the values
class _Spy(NeuralAgent):
    """An nn agent that asks for its values before each action it plays."""

    def __init__(self, **kw):
        super().__init__(**kw)
        self.seen = []

    def act(self, view):
        values = self.action_values(view)
        a = super().act(view)
        self.seen.append((values, a, list(view.legal_actions)))
        return a


@pytest.mark.parametrize("preset, kw", [
    ("ffb", dict(bid_margin=0.0)), ("ffb", dict()), ("ffb_sa_ta", dict(any_rules=True)),
    ("ffb", dict(bidding="heuristic"))])
def test_the_values_agree_with_the_agents_choices(preset, kw):
    """At every decision of whole deals: ``choice`` is what ``act`` plays (asking for the
    values leaves the agent's stream alone); the values cover exactly the legal actions;
    where a network decides with no margin (the cards; the auction with
    ``bid_margin=0``), the best value is the action played; ``ev`` / ``p_made`` are for
    the legal contracts only, ``p_made`` a probability."""
    rules = get_rules(preset)
    spies = [_Spy(**kw) for _ in range(4)]
    for seed in range(4):
        play_deal(Deal(rules, seed=seed, dealer=seed % 4), spies, seeds=[seed, 7, 8, 9])
    by = {}
    for spy in spies:
        for v, a, legal in spy.seen:
            by[(v.phase, v.by)] = by.get((v.phase, v.by), 0) + 1
            assert v.choice == a
            if v.by == "heuristic":
                assert v.values == {} and v.ev == {}
                continue
            assert sorted(v.values) == legal and all(np.isfinite(list(v.values.values())))
            if v.phase == "play" or kw.get("bid_margin") == 0.0:
                assert v.best == a
            contracts = [x for x in legal if A.is_bid(x) or A.is_capot(x) or A.TAKE <= x < A.DECLARE]
            assert sorted(v.ev) == sorted(v.p_made) == contracts
            assert all(0.0 <= p <= 1.0 for p in v.p_made.values())
    assert by.get(("play", "net"), 0) > 20
    if kw.get("bidding") == "heuristic":
        assert by.get(("auction", "net"), 0) == 0 and by[("auction", "heuristic")] > 4
    else:
        assert by.get(("auction", "net"), 0) > 4


def test_the_values_are_the_networks_outputs_in_points():
    """The card values are the network's outputs (x target_scale) on the seat's canonical
    inputs, mapped back to the physical cards; ``nn_values`` is the agent's call on the
    seat to act; a table lists them, best first, the choice marked."""
    deal = Deal("ffb", seed=21, dealer=3).with_contract(100, 1, taker=0)
    v = NA.nn_values(deal)
    assert v.phase == "play" and v.by == "net" and v.seat == deal.current_player
    net = load_play_net()
    inputs = NetInputs(FFB, 1)
    pub = public_view(deal.state, deal.params, v.seat)
    feats, legal, perms = inputs.compute(pub[None, :], np.zeros(1, dtype=np.int64))
    q = net.forward(feats)[0]
    scale = net.manifest["training"]["args"]["target_scale"]
    want = {int(C.ACT_SRC[perms[0], A.CARD_BASE + j]): float(q[j]) * scale
            for j in np.flatnonzero(legal[0])}
    assert v.values.keys() == want.keys()
    assert all(abs(v.values[a] - want[a]) < 1e-3 for a in want)
    lines = v.table().splitlines()
    assert lines[2].startswith("* ") and A.action_to_str(v.choice) in lines[2]
    auction = NA.nn_values(Deal("ffb", seed=4, dealer=1), "nn:bid_margin=0")
    assert auction.phase == "auction" and auction.by == "net" and auction.ev
    assert auction.choice == auction.best
    with pytest.raises(ValueError, match="not an nn agent"):
        NA.nn_values(deal, "heuristic")
    with pytest.raises(RuntimeError, match="reset"):
        NeuralAgent().action_values(PlayerView.from_deal(deal))
