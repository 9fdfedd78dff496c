"""Files a user keeps, written whole (``coinche_rl.files``): the one helper that every
writer of a record, a weights file or a checkpoint goes through (the engine layer, so
that all may use it).

:func:`atomic_write` writes to a temporary file in the same folder (a hidden name
``.NAME.XXXXXXXX.tmp``), flushes it to the disk (``fsync``) and renames it over the
file (``os.replace``, atomic on POSIX and on Windows), then flushes the folder: a
writer killed at any moment leaves the previous file or the new one, never half of one
(at worst a stray hidden ``.tmp`` file beside it). The new file gets the old one's
permissions, or a new file's (``0o666`` less the umask).

The tournaments' results files (``.jsonl``) are appended to instead, whole lines at a
time, flushed to the disk after each batch; a run killed in the middle of a line leaves
a cut last line, which the next opening drops
(:class:`coinche_rl.arena.store.ResultsFile`).

>>> import os, tempfile
>>> path = os.path.join(tempfile.mkdtemp(), "a.txt")
>>> atomic_write_text(path, "first\\n"); atomic_write_text(path, "second\\n")
>>> open(path).read(), os.listdir(os.path.dirname(path))
('second\\n', ['a.txt'])
"""

from __future__ import annotations

import os
import secrets
import stat
from typing import BinaryIO, Callable, Union

__all__ = ["atomic_write", "atomic_write_text"]

PathLike = Union[str, "os.PathLike[str]"]


def atomic_write(path: PathLike, write: Callable[[BinaryIO], None]) -> None:
    """``write(f)`` on a binary file open on a temporary file beside ``path``, which
    then replaces ``path`` (see the module docstring). If ``write`` raises (or the
    process is interrupted), ``path`` is left as it was and the temporary file removed.

    :raises OSError: the folder does not exist or cannot be written.
    """
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    tmp = os.path.join(folder, f".{os.path.basename(path)}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), 0o666)
    try:
        with os.fdopen(fd, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        try:
            os.chmod(tmp, stat.S_IMODE(os.stat(path).st_mode))   # keep the old file's mode
        except FileNotFoundError:          # a new file: the default mode stays
            pass
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:                    # already gone: nothing to clean
            pass
        raise
    _sync_folder(folder)


def atomic_write_text(path: PathLike, text: str, encoding: str = "utf-8") -> None:
    """Write ``text`` to ``path`` atomically (:func:`atomic_write`)."""
    data = text.encode(encoding)
    atomic_write(path, lambda f: f.write(data))


def _sync_folder(folder: str) -> None:
    """Flush the rename to the disk (POSIX; nothing where a folder cannot be opened)."""
    try:
        fd = os.open(folder, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:                        # a file system that cannot sync a folder
        pass
    finally:
        os.close(fd)
