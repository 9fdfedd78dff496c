"""The progress helper (``coinche_rl.progress``) of the arena's tournaments and the
networks' training loops: a rich bar (stderr for the arena, stdout with the latest
figures for training), a callback ``f(done, total)``, or nothing."""

from __future__ import annotations

import sys

import pytest

from coinche_rl.arena import run_duplicate
from coinche_rl.progress import Progress


def test_a_callback_sees_done_and_total():
    seen = []
    p = Progress(lambda done, total: seen.append((done, total)), 10, 4, "deal pairs")
    p.advance(3)
    p.advance(1)
    p.update(10)
    p.close()
    assert seen == [(7, 10), (8, 10), (10, 10)] and p.bar is None


@pytest.mark.parametrize("off", [False, None, 0])
def test_nothing_shows_nothing(off, capsys):
    p = Progress(off, 5, 0, "x")
    p.advance(5)
    p.close()
    assert p.bar is None and p.callback is None and capsys.readouterr() == ("", "")


def test_the_arena_bar_is_on_stderr(capsys):
    pytest.importorskip("rich")
    p = Progress(True, 5, 2, "deal pairs")
    p.advance(3)
    p.close()
    out, err = capsys.readouterr()
    assert out == "" and "deal pairs" in err and "5/5" in err
    run_duplicate("random", "random", 3, seed=1, progress=True)
    out, err = capsys.readouterr()
    assert out == "" and "deal pairs" in err and "3/3" in err


def test_without_rich_there_is_no_bar(monkeypatch, capsys):
    monkeypatch.setitem(sys.modules, "rich", None)
    monkeypatch.setitem(sys.modules, "rich.progress", None)
    monkeypatch.setitem(sys.modules, "rich.console", None)
    p = Progress(True, 5, 0, "x")
    p.advance(5)
    p.close()
    assert p.bar is None and capsys.readouterr() == ("", "")
    from coinche_rl.train.common import TrainingProgress
    t = TrainingProgress(True, 60.0, terminal=True)
    t.update(30.0, "upd 1")
    t.close()
    assert capsys.readouterr().out == "[   0.5 min] upd 1\n"


def test_the_training_bar_is_on_stdout_with_its_figures(capsys):
    pytest.importorskip("rich")
    from coinche_rl.train.bid import TrainingProgress as BidProgress
    from coinche_rl.train.common import TrainingProgress
    assert BidProgress is TrainingProgress and issubclass(TrainingProgress, Progress)
    t = TrainingProgress(True, 120.0, "train bid", terminal=True)
    t.update(60.0, "upd 7 lab 0.01M")
    t.close()
    out, err = capsys.readouterr()
    assert err == "" and "train bid" in out and "upd 7 lab 0.01M" in out and "/" not in out
    off = TrainingProgress(False, 120.0, terminal=True)  # disabled: plain lines
    off.update(6.0, "upd 1")
    off.close()
    assert capsys.readouterr().out == "[   0.1 min] upd 1\n"


def test_the_training_display_is_plain_lines_off_a_terminal(capsys):
    """Output to a file or a pipe (nohup, a job scheduler): a rich bar would show nothing
    until the end; the trainers print a plain line at every update instead (and their
    messages as lines), as they come. Here stdout is pytest's capture, not a terminal."""
    pytest.importorskip("rich")
    from coinche_rl.train.common import TrainingProgress
    t = TrainingProgress(True, 120.0, "train play")
    assert t.bar is None
    t.update(6.0, "upd 1")
    t.line("checkpoint written")
    t.update(12.0, "upd 2")
    assert capsys.readouterr().out == ("[   0.1 min] upd 1\ncheckpoint written\n"
                                       "[   0.2 min] upd 2\n")
    t.close()


def test_named_tasks_share_one_display(monkeypatch, capsys):
    """``TaskProgress`` (the hand evaluation's): one rich bar per task on stderr; without
    rich a plain line at every tenth of each task; a callback sees the task's name."""
    from coinche_rl.progress import TaskProgress
    seen = []
    p = TaskProgress(lambda t, d, n: seen.append((t, d, n)), {"a": 4, "b": 2})
    p.advance("b", 2)
    p.advance("a", 1)
    p.close()
    assert seen == [("b", 2, 2), ("a", 1, 4)]
    try:
        import rich  # noqa: F401
    except ImportError:
        rich = None
    if rich is not None:
        p = TaskProgress(True, {"dd": 5, "heuristic": 3}, "evaluate {task:9s}", unit="worlds")
        p.advance("dd", 5)
        p.advance("heuristic", 3)
        p.close()
        out, err = capsys.readouterr()
        assert out == "" and "evaluate dd" in err and "5/5" in err and "3/3" in err
    monkeypatch.setitem(sys.modules, "rich", None)
    monkeypatch.setitem(sys.modules, "rich.progress", None)
    monkeypatch.setitem(sys.modules, "rich.console", None)
    p = TaskProgress(True, {"dd": 20}, "evaluate {task:9s}", unit="worlds")
    for _ in range(20):
        p.advance("dd", 1)
    p.close()
    lines = capsys.readouterr().err.splitlines()
    assert lines[0] == "evaluate dd: 1/20 worlds" and lines[-1] == "evaluate dd: 20/20 worlds"
    assert len(lines) == 11                     # tenths 0..10
