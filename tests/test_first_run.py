"""The first run on a fresh numba cache (issue 23): kernels compile in parallel
processes (``warm_in_processes``: the tournament, ``coinche-rl warmup``, ``evaluate``,
the test session), and every command says when it compiles (``evaluate``, ``play``).

Compiling for real takes minutes, so these tests use a tiny kernel module of their own
for the processes, and stand in for a fresh cache by making the cache lookup answer
"not compiled" (``_must_compile``)."""

from __future__ import annotations

import importlib
import io
import logging
import sys
import time

import pytest

from coinche_rl import _numba_cache as nc
from coinche_rl import cli
from coinche_rl.cli import tournament, warmup

KERNEL_MODULE = """
import os, time
from numba import njit

@njit(cache=True)
def twice_{name}(x):
    return 2 * x

def warmup():
    # wait (at most a minute) until the other chain has started: both run at once
    open(os.path.join({folder!r}, "{name}.started"), "w").close()
    deadline = time.time() + 60
    while not os.path.exists(os.path.join({folder!r}, "{other}.started")):
        if time.time() > deadline:
            raise SystemExit("the other warm-up process never started")
        time.sleep(0.05)
    twice_{name}(3)

def broken():
    raise RuntimeError("a failing warm-up")
"""


@pytest.fixture
def kernel_modules(tmp_path, monkeypatch):
    for name, other in (("alpha", "beta"), ("beta", "alpha")):
        (tmp_path / f"first_run_{name}.py").write_text(
            KERNEL_MODULE.format(name=name, other=other, folder=str(tmp_path)))
    monkeypatch.setenv("PYTHONPATH", str(tmp_path))
    monkeypatch.syspath_prepend(str(tmp_path))
    yield tmp_path
    for name in ("alpha", "beta"):
        sys.modules.pop(f"first_run_{name}", None)


def test_chains_run_at_once_into_the_shared_cache(kernel_modules):
    import first_run_alpha
    import first_run_beta
    assert nc.needs_compiling("first_run_alpha") and nc.needs_compiling("first_run_beta")
    # each warm-up waits for the other to start: one process after the other would fail
    ok = nc.warm_in_processes([["first_run_alpha"], ["first_run_beta"]], jobs=2)
    assert ok == 2
    # this process finds them in the cache the children wrote
    assert not nc.needs_compiling("first_run_alpha") and not nc.needs_compiling("first_run_beta")
    assert first_run_alpha.twice_alpha(4) == 8 and first_run_beta.twice_beta(5) == 10


def test_the_tournament_compiles_its_share_in_its_own_process(kernel_modules):
    import first_run_alpha
    import first_run_beta
    # alpha in a child, then beta here (its warm-up waits for the child's to start), then
    # a failing warm-up here, which is left to the caller's own warm-ups
    warmup._warm_here_and_in_processes([["first_run_alpha"],
                                     ["first_run_beta", "first_run_alpha:broken"]], 2)
    assert first_run_beta.twice_beta.signatures            # compiled here
    assert not first_run_alpha.twice_alpha.signatures      # in the child, cached
    assert not nc.needs_compiling("first_run_alpha")
    assert first_run_alpha.twice_alpha(4) == 8


def test_a_failing_chain_is_counted_and_nothing_is_started_without_two_jobs(kernel_modules):
    t0 = time.perf_counter()
    assert nc.warm_in_processes([["first_run_alpha:broken"], ["no_such_module_x"]], jobs=2) == 1
    assert nc.warm_in_processes([["first_run_alpha"], ["first_run_beta"]], jobs=1) == 0
    assert nc.warm_in_processes([["first_run_alpha"]], jobs=4) == 0
    assert not (kernel_modules / "alpha.started").exists()
    assert time.perf_counter() - t0 < 120


def test_needs_compiling_counts_a_module_with_a_cached_kernel_as_warm(monkeypatch):
    from coinche_rl import engine
    calls = []
    monkeypatch.setattr(nc, "_must_compile", lambda d: calls.append(d) or True)
    assert nc.needs_compiling("coinche_rl.engine") is True
    assert engine.apply_action in calls
    monkeypatch.setattr(nc, "_must_compile", lambda d: d is not engine.apply_action)
    assert nc.needs_compiling("coinche_rl.engine") is False
    assert nc.needs_compiling("coinche_rl.no_such_module") is False


@pytest.fixture
def fresh(monkeypatch):
    """A fresh cache as the notices and the parallel warm-up see it, two cores, and the
    processes recorded instead of started."""
    started = []
    monkeypatch.setattr(nc, "needs_compiling", lambda module: True)
    monkeypatch.setattr(nc, "usable_cores", lambda: 2)
    monkeypatch.setattr(nc, "warm_in_processes",
                        lambda chains, jobs=None: started.append([list(c) for c in chains]) or 0)
    monkeypatch.setattr(warmup, "_warm_here_and_in_processes",
                        lambda chains, jobs: started.append([list(c) for c in chains]))
    monkeypatch.setattr(nc, "_NOTICED", set())
    monkeypatch.setattr(nc, "_must_compile", lambda d: True)
    return started


def test_the_tournament_compiles_the_agents_kernels_in_parallel_chains(fresh, capsys):
    from coinche_rl import arena
    tournament._warm_agents(arena, ["random", "heuristic", "pimc", "nn"])
    out = capsys.readouterr().out
    # the solver starts alone in the first process (a child), from its argument types,
    # before the PIMC loop that calls it (which compiles the sampler's kernels it uses);
    # the networks' kernels compile meanwhile in the tournament's own process, then the
    # tournament's
    assert fresh == [[["coinche_rl.solver:warmup_search", "coinche_rl.agents.pimc"],
                      ["coinche_rl.agents.neural.agent"], ["coinche_rl.arena"]]]
    assert out.index("preparing the numba kernels") < out.index("compiling in 2 processes") \
        < out.index("kernels ready in")


def test_a_two_player_tournament_compiles_the_two_player_kernels_only(fresh, monkeypatch):
    """One PIMC agent for every family, whose kernels differ by family: a tournament of
    belote for two players compiles the two-player worlds and solver, not the four-player
    search (the chains only: the warm-ups themselves are not run here)."""
    from coinche_rl import arena, solver_two
    from coinche_rl.agents import sampler
    for module in (arena, solver_two, sampler):
        monkeypatch.setattr(module, "warmup", lambda *args, **kwargs: None)
    tournament._warm_agents(arena, ["random", "heuristic", "pimc"], "two")
    (chains,) = fresh
    warmed = [m for c in chains for m in c]
    assert "coinche_rl.solver_two" in warmed and "coinche_rl.agents.sampler" in warmed
    assert not [m for m in warmed if m.startswith(("coinche_rl.solver:", "coinche_rl.agents.pimc"))]


def _compiled() -> dict:
    """Every kernel of the package imported so far, with the signatures it compiled
    itself in this process (numba's cache misses; those loaded from the cache are hits)."""
    from numba.core.registry import CPUDispatcher
    out = {}
    for name, mod in list(sys.modules.items()):
        if name.startswith("coinche_rl") and mod is not None:
            for obj in list(vars(mod).values()):
                if isinstance(obj, CPUDispatcher):
                    out[obj] = sum(obj.stats.cache_misses.values())
    return out


def test_a_two_player_tournament_of_the_networks_compiles_nothing_after_its_warm_up(capsys):
    """The tournament's warm-up (its kernels and its agents' declared warm-ups, with what
    they build on) compiles every kernel that a belote à deux tournament of nn and
    nnsearch calls, for its argument types: its deals then compile nothing (before
    0d3183f the nn agent's choices one at a time compiled on first use)."""
    from coinche_rl import arena
    from coinche_rl.arena.executors import one_blas_thread
    tournament._warm_agents(arena, ["nn", "nnsearch:worlds=4"], "two")
    before = _compiled()
    with one_blas_thread():             # small forward passes: two threads only wait
        r = arena.run_duplicate("nn", "nnsearch:worlds=4", 2, "belote_a_deux", seed=5,
                                backend="serial")
    assert r.n == 2
    assert not [k.py_func.__qualname__ for k, n in _compiled().items() if n > before.get(k, 0)]


def test_warmup_compiles_every_module_in_chains(fresh, capsys):
    assert cli.main(["warmup", "--jobs", "3"]) == 0
    (chains,) = fresh
    assert sorted(m for c in chains for m in c if ":" not in m) == sorted(warmup.kernel_modules())
    assert chains[0][:2] == ["coinche_rl.solver:warmup_search", "coinche_rl.solver"]
    # the named chains in their order, then the modules of no chain (the engine's)
    assert [warmup.warmup_chain(c[0]) for c in chains] == [*warmup.CHAIN_ORDER, ""]
    assert "compiling in 3 processes" in capsys.readouterr().out


def test_the_built_in_agents_kernels_are_warmed_up():
    """Every module of a built-in agent (the package's entry points, the one list of
    them) that compiles kernels in a warmup() is found by the warm-up's scan."""
    from importlib.metadata import distribution
    eps = [ep for ep in distribution("coinche-rl").entry_points
           if ep.group == "coinche_rl.agents"]
    assert {"random", "heuristic", "pimc", "nn", "nnsearch"} <= {ep.name for ep in eps}
    for ep in eps:
        module = ep.value.split(":")[0]
        if hasattr(importlib.import_module(module), "warmup"):
            assert module in warmup.kernel_modules(), module


def test_the_scan_finds_every_module_with_a_warmup_and_no_other():
    """`coinche-rl warmup` compiles every kernel: the modules its scan of the sources
    finds (a top-level ``def warmup``, nothing imported) are exactly the modules of the
    package, imported, that define their own warmup() (the self-play labels and the
    two-player deal sets included); a module that re-exports another's (the arena
    package) is not one of them."""
    from package_modules import import_modules
    own = {mod.__name__ for mod in import_modules()
           if callable(getattr(mod, "warmup", None))
           and getattr(mod.warmup, "__module__", None) == mod.__name__}
    found = warmup.kernel_modules()
    assert len(found) == len(set(found))
    assert own <= set(found), f"modules with a warmup() that the scan misses: {own - set(found)}"
    for name in found:          # the optional ones that do not import here aside
        try:
            mod = importlib.import_module(name)
        except ImportError:
            continue
        assert mod.warmup.__module__ == name, name
    assert {"coinche_rl.agents.neural.selfplay", "coinche_rl.simulate"} <= set(found)
    assert "coinche_rl.arena" not in found and "coinche_rl.cli.warmup" not in found


def test_every_declared_warm_up_exists_and_the_chains_are_known():
    """What a module's warm-up declares it builds on (``WARMUP_AFTER``) is a module the
    scan finds, or a function of one (``module:function``); its chain
    (``WARMUP_CHAIN``) is one of CHAIN_ORDER; the declarations have no cycle, and every
    warm-up is in one chain once."""
    found = warmup.kernel_modules()
    declared = 0
    for name in found:
        mod = importlib.import_module(name)
        assert getattr(mod, "WARMUP_CHAIN", None) in (None, *warmup.CHAIN_ORDER), name
        for need in getattr(mod, "WARMUP_AFTER", ()):
            declared += 1
            module, _, function = need.partition(":")
            assert module in found, f"{name}: WARMUP_AFTER names {need!r}, not a kernel module"
            assert not function or callable(getattr(importlib.import_module(module), function,
                                                    None)), f"{name}: no {need}"
    assert declared >= 10
    chains = warmup.warmup_chains(found)
    flat = [m for c in chains for m in c]
    assert len(flat) == len(set(flat)) and set(found) <= set(flat)
    assert {warmup.warmup_chain(m) for m in found} == {*warmup.CHAIN_ORDER, ""}


def test_a_cycle_of_declarations_is_refused(monkeypatch):
    after = {"a": ("b",), "b": ("a",)}
    monkeypatch.setattr(warmup, "warmup_after", lambda spec: after.get(spec, ()))
    with pytest.raises(ValueError, match="warm-up cycle: a -> b -> a"):
        warmup.warmup_chains(["a"])


def test_warmup_chains_keep_unknown_modules():
    assert warmup.warmup_chains(["coinche_rl.arena.tasks", "my_kernels", "coinche_rl.agents.pimc"]) == \
        [["coinche_rl.solver:warmup_search", "coinche_rl.agents.pimc"],
         ["coinche_rl.arena.tasks", "my_kernels"]]


def test_the_two_player_chain_adds_nothing_to_a_four_player_warm_up():
    """The demo and the four-player commands warm up what they did before the two-player
    kernels joined `coinche-rl warmup`: their chain is dropped, and a module of no chain
    still joins the sampler's."""
    chains = warmup.warmup_chains(warmup.kernel_modules())
    (two,) = [c for c in chains if warmup.warmup_chain(c[0]) == "two"]
    assert {"coinche_rl.engine.two", "coinche_rl.solver_two"} <= set(two)
    assert chains[-1] != two
    # the demo's modules (coinche-rl tournament's default roster), and one of no chain
    assert warmup.warmup_chains(["coinche_rl.arena.tasks", "coinche_rl.agents.neural.agent",
                                 "coinche_rl.agents.neural.search", "coinche_rl.agents.pimc"]) == \
        [["coinche_rl.solver:warmup_search", "coinche_rl.agents.pimc"],
         ["coinche_rl.agents.neural.agent", "coinche_rl.agents.sampler",
          "coinche_rl.agents.neural.search"],
         ["coinche_rl.arena.tasks"]]
    assert warmup.warmup_chains(["coinche_rl.simulate", "my_kernels"]) == \
        [["coinche_rl.simulate", "my_kernels"]]
    (alone,) = warmup.warmup_chains(sorted(two))       # one chain, whatever the order given
    assert sorted(alone) == sorted(two)


def test_warmup_chains_put_what_a_module_needs_before_it():
    assert warmup.warmup_chains(["coinche_rl.arena.tasks"]) == [["coinche_rl.arena.tasks"]]
    for name in warmup.kernel_modules():
        needs = warmup.warmup_after(name)
        chains = warmup.warmup_chains([name])
        order = [m for c in chains for m in c]
        assert set(needs) <= set(order) and order.count(name) == 1
        for need in needs:
            # a need in the same chain comes first; in another chain, it never waits for
            # ``name``'s chain (different processes compile at once)
            same = next(c for c in chains if name in c)
            assert need not in same or same.index(need) < same.index(name)
        # a module compiles in the chain of the first warm-up it builds on, unless it
        # names its own
        if needs and getattr(importlib.import_module(name), "WARMUP_CHAIN", None) is None:
            assert warmup.warmup_chain(name) == warmup.warmup_chain(needs[0])


def test_evaluate_says_it_compiles_and_compiles_both_methods_at_once(fresh, capsys, caplog):
    with caplog.at_level(logging.WARNING, logger="coinche_rl"):
        assert cli.main(["evaluate", "JH 9H AH TH 7S 8D KC QC", "--samples", "2",
                         "--strains", "H", "--no-progress"]) == 0
    assert fresh == [[["coinche_rl.agents.evaluation:warmup_dd"],
                      ["coinche_rl.agents.evaluation:warmup_heuristic"]]]
    notices = [r.getMessage() for r in caplog.records if "compiling the numba" in r.getMessage()]
    assert notices == ["coinche_rl: compiling the numba kernels of the hand evaluation (about "
                       "30-60 s in two processes, once: later runs load them from the cache; "
                       "`coinche-rl warmup` compiles everything ahead)"]


@pytest.mark.parametrize("method, what", [("dd", "the hand evaluation"),
                                          ("heuristic", "the hand evaluation"),
                                          ("nn", "the bidding network's inputs")])
def test_evaluate_hand_says_when_its_kernels_compile(monkeypatch, caplog, method, what):
    from coinche_rl.agents.evaluation import evaluate_hand
    monkeypatch.setattr(nc, "_NOTICED", set())
    monkeypatch.setattr(nc, "_must_compile", lambda d: True)
    with caplog.at_level(logging.WARNING, logger="coinche_rl"):
        evaluate_hand("ffb", 0, "JH 9H AH TH 7S 8D KC QC", 3, samples=2, strains="H",
                      method=method)
    notices = [r.getMessage() for r in caplog.records if "compiling the numba" in r.getMessage()]
    assert len(notices) == 1 and f"kernels of {what} (" in notices[0]


def _play(answers: str):
    from coinche_rl.terminal import TerminalGame
    out = io.StringIO()
    game = TerminalGame(seat=1, seed=5, stdin=io.StringIO(answers), stdout=out)
    result = game.run()
    return out.getvalue(), result


def test_play_compiles_before_the_first_question_and_plays_the_same(monkeypatch, caplog):
    from coinche_rl import terminal
    answers = "1\n" * 40
    plain, plain_result = _play(answers)
    prepared = []
    real = terminal.TerminalGame._play_aside
    monkeypatch.setattr(terminal.TerminalGame, "_play_aside", lambda game: prepared.append(
        game.stdout.getvalue().count("\n")) or real(game))
    monkeypatch.setattr(nc, "_NOTICED", set())
    monkeypatch.setattr(nc, "_must_compile", lambda d: True)
    with caplog.at_level(logging.WARNING, logger="coinche_rl"):
        out, result = _play(answers)
    notices = [r.getMessage() for r in caplog.records if "compiling the numba" in r.getMessage()]
    assert notices == ["coinche_rl: compiling the numba kernels of the game and its agents "
                       "(about 20-60 s, once: later runs load them from the cache; `coinche-rl "
                       "warmup` compiles everything ahead)"]
    # prepared after the introduction, before the first question; nothing else changes
    assert prepared and "Your hand" not in out.splitlines()[prepared[0] - 1]
    assert out == plain and result.record == plain_result.record
    # a warm cache: no notice, no deal aside
    monkeypatch.setattr(nc, "_must_compile", lambda d: False)
    caplog.clear()
    prepared.clear()
    assert _play(answers)[0] == plain and not prepared and not caplog.records


@pytest.mark.parametrize("argv", [["demo", "--deals", "10"], ["random-deal", "--seed", "1"],
                                  ["random-match", "--seed", "1"]])
def test_the_light_commands_say_when_the_engine_compiles(monkeypatch, caplog, capsys, argv):
    monkeypatch.setattr(nc, "_NOTICED", set())
    monkeypatch.setattr(nc, "_must_compile", lambda d: True)
    with caplog.at_level(logging.WARNING, logger="coinche_rl"):
        assert cli.main(argv) == 0
    notices = [r.getMessage() for r in caplog.records if "compiling the numba" in r.getMessage()]
    assert len(notices) == 1 and "kernels of the engine (about 10-30 s, once" in notices[0]
    capsys.readouterr()
    monkeypatch.setattr(nc, "_NOTICED", set())
    monkeypatch.setattr(nc, "_must_compile", lambda d: False)
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="coinche_rl"):
        assert cli.main(argv) == 0
    assert not caplog.records


def test_replay_says_when_the_engine_compiles(monkeypatch, caplog, tmp_path, capsys):
    record = tmp_path / "deal.json"
    assert cli.main(["random-deal", "--seed", "2", "-o", str(record)]) == 0
    monkeypatch.setattr(nc, "_NOTICED", set())
    monkeypatch.setattr(nc, "_must_compile", lambda d: True)
    with caplog.at_level(logging.WARNING, logger="coinche_rl"):
        assert cli.main(["replay", str(record)]) == 0
    assert ["kernels of the engine" in r.getMessage() for r in caplog.records] == [True]
    caplog.clear()
    with caplog.at_level(logging.WARNING, logger="coinche_rl"):   # nothing compiles: silent
        assert cli.main(["replay", str(tmp_path / "nothere.json")]) != 0
    assert not caplog.records
