"""Progress (``coinche_rl.arena.progress``): a rich progress bar on stderr, a callback,
or nothing."""

from __future__ import annotations


class _Progress:
    """A progress bar (rich) on stderr, a callback ``f(done, total)``, or nothing."""

    def __init__(self, progress, total: int, done: int, description: str):
        self.total, self.done = total, done
        self.callback = progress if callable(progress) else None
        self.bar = None
        if progress is True:
            try:
                from rich.console import Console
                from rich.progress import (BarColumn, MofNCompleteColumn, Progress, TextColumn,
                                           TimeElapsedColumn, TimeRemainingColumn)
            except ModuleNotFoundError:
                self.bar = None
            else:
                self.bar = Progress(TextColumn("{task.description}"), BarColumn(),
                                    MofNCompleteColumn(), TimeElapsedColumn(), TimeRemainingColumn(),
                                    console=Console(stderr=True), transient=False)
                self.task = self.bar.add_task(description, total=total, completed=done)
                self.bar.start()

    def advance(self, k: int) -> None:
        self.done += k
        if self.bar is not None:
            self.bar.update(self.task, advance=k)
        if self.callback is not None:
            self.callback(self.done, self.total)

    def close(self) -> None:
        if self.bar is not None:
            self.bar.stop()
            self.bar = None
