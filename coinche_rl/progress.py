"""Progress of a long run (``coinche_rl.progress``): a rich progress bar, a callback, or
nothing. The one helper of the arena's tournaments, the networks' training loops and the
hand evaluation (the engine layer, so that all may use it); rich is imported only when a
bar is asked for.

* :class:`Progress`: one piece of work (``total``), a callback ``f(done, total)``;
  without rich, no bar.
* :class:`TaskProgress`: several named pieces in one display (a bar each), a callback
  ``f(task, done, total)``; without rich, a plain line on stderr at every tenth.
"""

from __future__ import annotations

import sys
from typing import Callable, Dict, Mapping, Optional, Union

__all__ = ["Progress", "TaskProgress"]


def _rich_bar(*, counts: bool, unit: str = "", info: bool = False, stderr: bool = True):
    """A started-later rich ``Progress`` with the columns asked for; None without rich."""
    try:
        from rich.console import Console
        from rich.progress import (BarColumn, MofNCompleteColumn, Progress as Bar,
                                   TextColumn, TimeElapsedColumn, TimeRemainingColumn)
    except ImportError:
        return None
    columns = [TextColumn("{task.description}"), BarColumn()]
    columns += [MofNCompleteColumn()] if counts else []
    columns += [TextColumn(unit)] if unit else []
    columns += [TimeElapsedColumn(), TimeRemainingColumn()]
    columns += [TextColumn("{task.fields[info]}")] if info else []
    return Bar(*columns, console=Console(stderr=True) if stderr else None, transient=False)


class Progress:
    """A progress bar (rich) of ``total``, ``done`` of it already done; or a callback
    ``f(done, total)``; or nothing.

    :param progress: ``True`` for a bar (when rich is installed), a callable for the
        callback, anything else for nothing.
    :param description: the label in front of the bar.
    :param stderr: the bar on stderr (else on rich's console, stdout).
    :param counts: show ``done/total`` (counted work) beside the bar.
    :param info: a text column after the bar, set by ``info=`` of :meth:`advance` and
        :meth:`update`.

    >>> seen = []
    >>> p = Progress(lambda done, total: seen.append((done, total)), 10, 4)
    >>> p.advance(3); p.update(9); p.close()
    >>> seen, p.bar
    ([(7, 10), (9, 10)], None)
    """

    def __init__(self, progress: Union[bool, Callable[[int, int], None], None], total: float,
                 done: float = 0, description: str = "", *, stderr: bool = True,
                 counts: bool = True, info: bool = False):
        self.total, self.done = total, done
        self.callback: Optional[Callable] = progress if callable(progress) else None
        self.bar = None
        if progress is not True:
            return
        self.bar = _rich_bar(counts=counts, info=info, stderr=stderr)
        if self.bar is None:
            return
        self.task = self.bar.add_task(description, total=total, completed=done,
                                      **({"info": ""} if info else {}))
        self.bar.start()

    def advance(self, k: float, **info) -> None:
        """``k`` more done."""
        self.update(self.done + k, **info)

    def update(self, done: float, **info) -> None:
        """``done`` done in all."""
        self.done = done
        if self.bar is not None:
            self.bar.update(self.task, completed=done, **info)
        if self.callback is not None:
            self.callback(self.done, self.total)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None


class TaskProgress:
    """Several named pieces of work in one display: ``totals`` maps each task to its
    total. ``progress``: ``True`` for a rich bar per task on stderr (without rich, a plain
    line on stderr at every tenth of a task), a callable ``f(task, done, total)``, or
    anything else for nothing. ``description`` and ``unit`` name the work: the bar of task
    ``t`` reads ``description.format(task=t)``, its counts are followed by ``unit``.

    >>> seen = []
    >>> p = TaskProgress(lambda t, d, n: seen.append((t, d, n)), {"dd": 4, "heuristic": 2})
    >>> p.advance("dd", 3); p.advance("heuristic", 2); p.close()
    >>> seen
    [('dd', 3, 4), ('heuristic', 2, 2)]
    """

    def __init__(self, progress, totals: Mapping[str, int], description: str = "{task}",
                 unit: str = ""):
        self.callback: Optional[Callable] = progress if callable(progress) else None
        self.on = progress is True or self.callback is not None
        self.totals = dict(totals)
        self.done: Dict[str, int] = {k: 0 for k in totals}
        self._tenth: Dict[str, int] = {k: -1 for k in totals}
        self.description, self.unit = description, unit
        self.bar = _rich_bar(counts=True, unit=unit) if progress is True else None
        if self.bar is not None:
            self.tasks = {k: self.bar.add_task(description.format(task=k), total=v)
                          for k, v in self.totals.items()}
            self.bar.start()

    def advance(self, task: str, k: int) -> None:
        """``k`` more of ``task`` done."""
        if not self.on:
            return
        self.done[task] += k
        done, total = self.done[task], self.totals[task]
        if self.callback is not None:
            self.callback(task, done, total)
        elif self.bar is not None:
            self.bar.update(self.tasks[task], completed=done)
        else:
            tenth = done * 10 // max(total, 1)
            if tenth != self._tenth[task]:
                self._tenth[task] = tenth
                unit = f" {self.unit}" if self.unit else ""
                print(f"{self.description.format(task=task).rstrip()}: {done}/{total}{unit}",
                      file=sys.stderr, flush=True)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None
