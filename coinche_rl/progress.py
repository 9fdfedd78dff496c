"""Progress of a long run (``coinche_rl.progress``): a rich progress bar, a callback, or
nothing. The one helper of the arena's tournaments and the networks' training loops
(the engine layer, so that both may use it); rich is imported only when a bar is asked
for, and a missing rich means no bar."""

from __future__ import annotations

from typing import Callable, Optional, Union

__all__ = ["Progress"]


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
        try:
            from rich.console import Console
            from rich.progress import (BarColumn, MofNCompleteColumn, Progress as Bar,
                                       TextColumn, TimeElapsedColumn, TimeRemainingColumn)
        except ImportError:
            return
        columns = [TextColumn("{task.description}"), BarColumn()]
        columns += [MofNCompleteColumn()] if counts else []
        columns += [TimeElapsedColumn(), TimeRemainingColumn()]
        columns += [TextColumn("{task.fields[info]}")] if info else []
        self.bar = Bar(*columns, console=Console(stderr=True) if stderr else None,
                       transient=False)
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
