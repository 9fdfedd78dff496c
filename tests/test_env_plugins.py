"""The environments' plugins and what a new user hits first (issue 15).

* Agent-spec opponents: ``CoincheSingleAgentEnv(opponents="heuristic")`` and
  ``CoincheVectorEnv(opponents="heuristic" / "nn")``, resolved through the entry point
  groups ``coinche_rl.env_opponents`` / ``coinche_rl.vector_opponents`` (the envs never
  import ``coinche_rl.agents``): seeding, the heuristic really plays heuristic moves, the
  agents' observe protocol, clear errors.
* ``check_env`` with ``illegal_action="penalty"``; the illegal-action message names it.
* The ``gymnasium.envs`` entry point (``gymnasium.make`` in a fresh interpreter).
* ``normalize_reward``: every env divides by the one ``coinche_v0.REWARD_SCALE``.
"""

import ast
import doctest
import json
import re
import subprocess
import sys
import warnings
from importlib import metadata
from pathlib import Path

import gymnasium
import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

from coinche_rl import engine as E
from coinche_rl.actions import N_ACTIONS
from coinche_rl.envs import coinche_v0, single_agent, vector as V
from coinche_rl.envs.single_agent import ENV_ID, CoincheSingleAgentEnv
from coinche_rl.game import IllegalActionError
from coinche_rl.rules import DIX_DE_DER, card_points_table, get_rules

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def play(env, seed, choose=None, max_steps=20000):
    """One episode with the learner's first legal action (or ``choose(mask, t)``);
    returns the rewards, the observations and the actions."""
    obs, info = env.reset(seed=seed)
    rewards, observations, actions = [], [obs.copy()], []
    for t in range(max_steps):
        mask = env.unwrapped.action_masks()
        a = int(np.flatnonzero(mask)[0]) if choose is None else choose(mask, t)
        obs, r, term, trunc, info = env.step(a)
        rewards.append(r)
        observations.append(obs.copy())
        actions.append(a)
        if term:
            return rewards, observations, actions
    raise AssertionError("episode did not end")


# ------------------------------------------------------------------ layering, entry points
def test_entry_points_are_declared_and_load_to_the_agents_layer():
    from coinche_rl import envs
    from coinche_rl.agents import env_plugins
    groups = {ep.group: ep for g in ("gymnasium.envs", envs.ENV_OPPONENTS_GROUP,
                                     envs.VECTOR_OPPONENTS_GROUP)
              for ep in metadata.entry_points(group=g) if ep.name == "coinche_rl"}
    assert groups["gymnasium.envs"].load() is envs.register_gymnasium_envs
    assert groups["coinche_rl.env_opponents"].load() is env_plugins.env_opponent
    assert groups["coinche_rl.vector_opponents"].load() is env_plugins.vector_opponent


@pytest.mark.slow
def test_envs_never_import_the_agents():
    """No module of envs/ imports coinche_rl.agents (engine < envs < agents), not even in
    a function or through importlib with a literal path."""
    package = ["coinche_rl", "envs"]
    # "coinche_rl.agents...", or "agents.x" (a bare "agents" is PettingZoo's attribute)
    dotted = re.compile(r"(coinche_rl\.agents(\.\w+)*|agents(\.\w+)+)(:\w+)?")
    for path in sorted((ROOT / "envs").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text())):
            names = []
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = package[:len(package) - node.level + 1] if node.level else []
                module = ".".join(base + ([node.module] if node.module else []))
                names = [module] + [f"{module}.{a.name}" for a in node.names]
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                if dotted.fullmatch(node.value.strip()):      # importlib.import_module("...")
                    names = ["coinche_rl.agents"]
            for n in names:
                assert not (n + ".").startswith("coinche_rl.agents."), \
                    f"envs/{path.name} imports {n!r}"
    # and at run time: the envs with their default opponents load no agent module
    code = ("import sys, coinche_rl.envs.single_agent as S, coinche_rl.envs.vector as V; "
            "e = S.CoincheSingleAgentEnv(); e.reset(seed=0); v = V.CoincheVectorEnv(2, seed=0); "
            "v.reset(); print(sorted(m for m in sys.modules if m.startswith('coinche_rl.agents')))")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(r.stdout.strip().replace("'", '"')) == []


# ------------------------------------------------------------------ single-agent opponents
def test_spec_opponents_same_seed_same_episode():
    def episode(seed, opponents="random"):
        env = CoincheSingleAgentEnv(seat=1, opponents=opponents, rules="ffb")
        rng = np.random.default_rng(0)
        rewards, observations, actions = play(
            env, seed, lambda m, t: int(rng.choice(np.flatnonzero(m))))
        return rewards, observations, actions, env.game.history

    a, b = episode(5), episode(5)
    assert a[3] == b[3] and a[0] == b[0] and a[2] == b[2]
    assert all(np.array_equal(x, y) for x, y in zip(a[1], b[1]))
    # the opponents' seeds come from reset(seed=...): the same deal with another seed of
    # the random agents' streams gives another auction
    histories = {tuple(episode(s)[3]) for s in (5, 6, 7)}
    assert len(histories) == 3
    # a dict of specs and callables, and the heuristic everywhere, are deterministic too
    mixed = {0: "heuristic", 2: lambda obs, agent: int(np.flatnonzero(obs["action_mask"])[0]),
             3: "random"}
    assert episode(9, mixed)[3] == episode(9, mixed)[3]
    assert episode(9, "heuristic")[3] == episode(9, "heuristic")[3]


@pytest.mark.parametrize("rules,mode", [("ffb", "deal"), ("classic", "deal"), ("ffb", "match")])
def test_a_heuristic_opponent_plays_the_heuristic_moves(rules, mode):
    from coinche_rl.agents import PlayerView, make_agent
    env = CoincheSingleAgentEnv(seat=0, opponents="heuristic", rules=rules, mode=mode)
    reference = make_agent("heuristic")
    checked = {1: 0, 2: 0, 3: 0}
    for seat, opp in env._agents.items():
        inner = opp.act

        def act(deal, s, match, inner=inner, seat=seat):
            assert s == seat and deal.current_player == seat
            reference.reset(seat, deal.rules, 0)
            expected = reference.act(PlayerView(deal, seat, match))
            got = inner(deal, s, match)
            assert got == expected
            checked[seat] += 1
            return got
        opp.act = act
    for seed in range(2 if mode == "deal" else 1):
        play(env, seed)
    assert min(checked.values()) >= 8          # each seat at least its 8 cards


def test_spec_opponents_follow_the_agents_protocol():
    """reset before each deal, observe every public action (their own too) and the other
    seats' optional declare / belote choices never."""
    from coinche_rl.agents.base import PRIVATE_ACTIONS
    for rules in ("coinche_x3", "ludiclub_coinche"):
        env = CoincheSingleAgentEnv(seat=2, opponents="heuristic", rules=rules, mode="match")
        seen = {s: [] for s in (0, 1, 3)}
        resets = {s: 0 for s in (0, 1, 3)}
        for s, opp in env._agents.items():
            opp.agent.observe = (lambda seat, a, s=s: seen[s].append((seat, a)))
            inner = opp.agent.reset
            opp.agent.reset = (lambda *args, s=s, inner=inner: (resets.__setitem__(s, resets[s] + 1),
                                                                inner(*args)))
        applied = []
        inner_apply = env._apply

        def apply(a):
            applied.append((int(env.game.current_player), a))
            inner_apply(a)
        env._apply = apply
        play(env, 1)
        n_deals = len(env.game.deals)
        assert n_deals >= 2
        assert any(a in PRIVATE_ACTIONS for _, a in applied)
        for s in (0, 1, 3):
            assert resets[s] == n_deals
            assert seen[s] == [(seat, a) for seat, a in applied
                               if seat == s or a not in PRIVATE_ACTIONS]


def test_opponent_errors_are_specific():
    with pytest.raises(ValueError, match=r"unknown agent 'heuristik'; available: .*heuristic"):
        CoincheSingleAgentEnv(opponents="heuristik")
    with pytest.raises(ValueError, match=r"opponents\[3\]='pimc:wrlds=8'.*no parameter 'wrlds'"):
        CoincheSingleAgentEnv(opponents={3: "pimc:wrlds=8"})
    with pytest.raises(ValueError, match="seats other than the learner's"):
        CoincheSingleAgentEnv(seat=1, opponents={1: "heuristic"})
    with pytest.raises(ValueError, match="not both"):
        CoincheSingleAgentEnv(opponents="heuristic", policies={1: lambda o, a: 0})
    with pytest.raises(ValueError, match="agent spec string"):
        CoincheSingleAgentEnv(opponents={1: 3})
    # gymnasium.make passes the kwarg through
    env = gymnasium.make(ENV_ID, opponents="heuristic", seat=3)
    assert set(env.unwrapped._agents) == {0, 1, 2}


@pytest.mark.parametrize("rules", ["belote_a_deux", "belote_decouverte"])
def test_a_two_player_heuristic_opponent_plays_the_two_player_heuristic(rules):
    """Belote for two players: the spec is built for the family of the env's rules."""
    from coinche_rl.agents import make_agent
    env = CoincheSingleAgentEnv(seat=0, opponents="heuristic", rules=rules)
    reference = make_agent("heuristic", get_rules(rules))
    (opp,) = env._agents.values()
    assert "two" in type(opp.agent).FAMILIES
    inner, checked = opp.act, []

    def act(deal, s, match):
        assert s == 1 and deal.current_player == 1
        reference.reset(1, deal.rules, 0)
        got = inner(deal, s, match)
        assert got == reference.act(deal.view(1))
        checked.append(got)
        return got
    opp.act = act
    for seed in range(3):
        rewards, _, _ = play(env, seed)
        assert rewards[-1] != 0 or env.game.is_void
    assert len(checked) >= 3 * 8                    # at least its cards of each deal


def test_an_agent_of_another_family_is_refused_as_opponent():
    for rules in ("belote_a_deux", "belote_decouverte"):
        with pytest.raises(ValueError, match=r"opponents\[1\]='colver:maxi': agent 'colver:maxi' "
                                             r"plays the family .*not the family 'two'.*heuristic"):
            CoincheSingleAgentEnv(opponents="colver:maxi", rules=rules)
        with pytest.raises(ValueError, match=r"opponent='colver:maxi': agent 'colver:maxi' plays "
                                             r"the family .*not the family 'two'.*heuristic"):
            V.CoincheVectorEnv(2, rules=rules, opponent="colver:maxi")


# ------------------------------------------------------------------ vector opponents
def explicit_heuristic(states, params, seats):
    from coinche_rl.agents.numba_bots import BOT_HEURISTIC, bot_action
    rng = np.zeros(1, dtype=np.uint64)
    buf = np.zeros(N_ACTIONS, dtype=np.uint8)
    return np.array([bot_action(BOT_HEURISTIC, S, params, int(seat), rng, buf)
                     for S, seat in zip(states, seats)], dtype=np.int64)


def vector_run(opponents, steps, n=6, seat=1, rules="ffb"):
    env = V.CoincheVectorEnv(n, seat=seat, rules=rules, opponents=opponents, seed=3)
    obs, infos = env.reset()
    rng = np.random.default_rng(4)
    out = [obs]
    for _ in range(steps):
        acts = np.array([rng.choice(np.flatnonzero(m)) for m in env.action_masks()])
        obs, rew, term, trunc, infos = env.step(acts)
        out += [obs, rew, term]
    return out, env


@pytest.mark.parametrize("rules", ["ffb", "classic"])
def test_vector_named_heuristic_equals_the_explicit_batched_policy(rules):
    named, env = vector_run("heuristic", 60, rules=rules)
    assert env.opponent_policy is not None
    given, _ = vector_run(explicit_heuristic, 60, rules=rules)
    assert all(np.array_equal(x, y) for x, y in zip(named, given))
    assert sum(int(t.sum()) for t in named[3::3]) > 3           # deals ended
    # and differs from the random opponents
    rand, _ = vector_run("random", 60, rules=rules)
    assert not all(np.array_equal(x, y) for x, y in zip(named, rand))


def explicit_two_heuristic(views, params, players):
    from coinche_rl.agents.numba_bots import BOT_HEURISTIC, game_bot_action
    rng = np.zeros(1, dtype=np.uint64)
    buf = np.zeros(120, dtype=np.uint8)
    return np.array([game_bot_action(BOT_HEURISTIC, V_, params, int(p), rng, buf)
                     for V_, p in zip(views, players)], dtype=np.int64)


@pytest.mark.parametrize("rules", ["belote_a_deux", "belote_decouverte"])
def test_two_player_vector_named_heuristic_plays_the_two_player_heuristic(rules):
    named, env = vector_run("heuristic", 80, n=4, seat=0, rules=rules)
    assert env.opponent_policy is not None
    given, _ = vector_run(explicit_two_heuristic, 80, n=4, seat=0, rules=rules)
    assert all(np.array_equal(x, y) for x, y in zip(named, given))
    assert sum(int(t.sum()) for t in named[3::3]) > 3           # deals ended
    rand, _ = vector_run("random", 80, n=4, seat=0, rules=rules)
    assert not all(np.array_equal(x, y) for x, y in zip(named, rand))


def test_vector_named_nn_equals_its_batch_policy():
    from coinche_rl.agents import make_agent
    named, _ = vector_run("nn", 25, n=4)
    given, _ = vector_run(make_agent("nn").batch_policy(get_rules("ffb")), 25, n=4)
    assert all(np.array_equal(x, y) for x, y in zip(named, given))


def test_vector_opponent_errors():
    with pytest.raises(ValueError, match=r"opponents='heuristik'.*available: .*heuristic"):
        V.CoincheVectorEnv(2, opponents="heuristik")
    with pytest.raises(ValueError, match="no batched form"):
        V.CoincheVectorEnv(2, opponents="pimc")
    with pytest.raises(ValueError, match="opponents must be"):
        V.CoincheVectorEnv(2, opponents=3)


# ------------------------------------------------------------------ check_env, illegal actions
def test_check_env_passes_with_illegal_action_penalty():
    for kwargs in ({}, {"opponents": "heuristic", "normalize_reward": True},
                   {"seat": 1, "rules": "classic", "opponents": {0: "random"}}):
        env = gymnasium.make(ENV_ID, illegal_action="penalty", **kwargs)
        check_env(env.unwrapped, skip_render_check=True)


def test_the_illegal_action_message_names_the_penalty_mode():
    env = gymnasium.make(ENV_ID)             # the default: illegal_action="raise"
    obs, info = env.reset(seed=0)
    state = env.unwrapped.aec.state()
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    for a in (illegal, N_ACTIONS + 5):
        with pytest.raises(IllegalActionError, match=r'illegal_action="penalty"') as e:
            env.step(a)
        assert "legal:" in str(e.value) and "player_0" in str(e.value)
    assert np.array_equal(env.unwrapped.aec.state(), state)
    # an unmasked sampler then fails: that is what the message is for
    env.action_space.seed(0)
    with pytest.raises(IllegalActionError, match=r'illegal_action="penalty"'):
        for _ in range(50):
            env.step(env.action_space.sample())
            if env.unwrapped._done:
                env.reset()


def test_the_module_doctest():
    assert doctest.testmod(single_agent).failed == 0


# ------------------------------------------------------------------ gymnasium plugin
def _fresh(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          cwd="/", timeout=300)


@pytest.mark.slow
def test_gymnasium_make_in_a_fresh_interpreter():
    from gymnasium.envs import registration
    loads_plugins = hasattr(registration, "load_plugin_envs")
    if loads_plugins:             # gymnasium < 1.0: the entry point registers on import
        r = _fresh("import sys, gymnasium; assert 'coinche_rl' not in sys.modules; "
                   "env = gymnasium.make('coinche_rl/Coinche-v0'); obs, info = env.reset(seed=0); "
                   "print(type(env.unwrapped).__name__, obs.shape)")
        assert r.returncode == 0, r.stderr
        assert r.stdout.split() == ["CoincheSingleAgentEnv", "(620,)"]
    # gymnasium >= 1.0 loads no plugins; its loader's contract for < 1.0, emulated: the
    # entry point named after the namespace, a function called with no argument
    r = _fresh("import gymnasium, sys\n"
               "from importlib import metadata\n"
               "[ep] = [e for e in metadata.entry_points(group='gymnasium.envs') "
               "if e.name == 'coinche_rl']\n"
               "assert ep.attr, 'gymnasium needs module:function'\n"
               "ep.load()()\n"
               "assert 'coinche_rl.envs.single_agent' not in sys.modules\n"   # cheap to load
               "env = gymnasium.make('coinche_rl/Coinche-v0', rules='classic')\n"
               "print(env.reset(seed=1)[0].shape, env.unwrapped.aec.rules.name)")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["(620,)", "classic"]
    # the module:id form works with every gymnasium version
    r = _fresh("import gymnasium; env = gymnasium.make('coinche_rl.envs:coinche_rl/Coinche-v0', "
               "illegal_action='penalty'); print(env.reset(seed=2)[0].shape)")
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "(620,)"


@pytest.mark.slow
@pytest.mark.parametrize("imports", ["import coinche_rl.envs, gymnasium",
                                     "import gymnasium, coinche_rl.envs"])
def test_registration_does_not_depend_on_the_import_order(imports):
    """Issue 44: ``import coinche_rl.envs, gymnasium`` (isort's order) registered nothing
    on Gymnasium >= 1.0 (``NamespaceNotFound``); both ids are made in either order."""
    r = _fresh(f"{imports}\n"
               "for env_id in ('coinche_rl/Coinche-v0', 'coinche_rl/TwoPlayer-v0'):\n"
               "    env = gymnasium.make(env_id)\n"
               "    print(env_id, type(env.unwrapped).__name__)\n"
               "print(gymnasium.__spec__.loader is gymnasium.__loader__)")
    assert r.returncode == 0, r.stderr
    assert r.stdout.split() == ["coinche_rl/Coinche-v0", "CoincheSingleAgentEnv",
                                "coinche_rl/TwoPlayer-v0", "CoincheSingleAgentEnv", "True"]


# ------------------------------------------------------------------ normalised rewards
def test_the_reward_scale_is_the_card_points_of_a_deal():
    for name in ("ffb", "classic", "ludiclub_coinche"):
        rules = get_rules(name)
        assert card_points_table(rules).sum(axis=-1).max() + DIX_DE_DER in (162, 258)
    assert coinche_v0.REWARD_SCALE == 152 + DIX_DE_DER == 162
    assert V.REWARD_SCALE is coinche_v0.REWARD_SCALE


def test_normalised_aec_rewards_are_raw_over_the_scale():
    for kwargs in ({}, {"reward": "raw"}, {"mode": "match", "rules": "ffb"}):
        runs = []
        for norm in (False, True):
            env = coinche_v0.env(normalize_reward=norm, **kwargs)
            env.reset(seed=8)
            rng = np.random.default_rng(1)
            rewards = []
            for agent in env.agent_iter():
                obs, r, term, trunc, info = env.last()
                rewards.append(r)
                env.step(None if term or trunc else
                         int(rng.choice(np.flatnonzero(obs["action_mask"]))))
            runs.append(rewards)
        raw, norm = runs
        assert len(raw) == len(norm) and any(raw)
        # exactly raw / scale (within rounding where a match adds two deals' rewards)
        assert norm == pytest.approx([r / coinche_v0.REWARD_SCALE for r in raw],
                                     rel=1e-12, abs=1e-12)
    # the penalty is in points too, and scaled alike
    for norm in (False, True):
        env = coinche_v0.env(illegal_action="penalty", illegal_penalty=324.0,
                             normalize_reward=norm)
        env.reset(seed=0)
        obs, *_ = env.last()
        env.step(int(np.flatnonzero(obs["action_mask"] == 0)[0]))
        assert min(env.rewards.values()) == (-2.0 if norm else -324.0)
    with pytest.raises(ValueError, match="normalize_reward"):
        coinche_v0.raw_env(normalize_reward="yes")


def test_normalised_single_agent_rewards_are_raw_over_the_scale():
    for kwargs in ({"opponents": "heuristic"}, {"seat": 1, "reward": "raw"}):
        raw = play(CoincheSingleAgentEnv(**kwargs), 5)
        norm = play(CoincheSingleAgentEnv(normalize_reward=True, **kwargs), 5)
        assert raw[2] == norm[2] and raw[0][-1] != 0
        assert norm[0] == [r / coinche_v0.REWARD_SCALE for r in raw[0]]
    env = CoincheSingleAgentEnv(illegal_action="penalty", normalize_reward=True)
    obs, info = env.reset(seed=0)
    r = env.step(int(np.flatnonzero(info["action_mask"] == 0)[0]))[1]
    assert r == -1000.0 / 162


def test_normalised_vector_rewards_are_raw_over_the_scale():
    runs = []
    for norm in (False, True):
        venv = V.VectorCoinche(16, seed=5, normalize_reward=norm)
        ts = venv.reset()
        rng = np.random.default_rng(0)
        every_seat = []
        for _ in range(120):
            ts = venv.step(np.array([rng.choice(np.flatnonzero(m)) for m in ts.action_mask]))
            every_seat.append(ts.rewards.copy())
        env = V.CoincheVectorEnv(8, seat=2, seed=6, opponents="heuristic", normalize_reward=norm)
        env.reset()
        learner = [env.step(env.action_masks().argmax(axis=1))[1] for _ in range(40)]
        runs.append((np.array(every_seat), np.array(learner)))
    for raw, norm in zip(*runs):
        assert (raw != 0).sum() > 5
        assert np.array_equal(norm, raw / coinche_v0.REWARD_SCALE)
    with pytest.raises(ValueError, match="normalize_reward"):
        V.VectorCoinche(2, normalize_reward=1)
