"""Results files (``coinche_rl.arena.store``): the JSON-lines store of finished rows,
run ids and configurations, the code fingerprint that keys a resume, the lock of a file
being written, and the conversions between rows and arrays."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import pkgutil
import time
from typing import Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

try:
    import fcntl
except ModuleNotFoundError:                   # Windows: results files are not locked
    fcntl = None

from .. import __version__
from ..progress import Progress
from ..agents import make_agent
from ..agents.fingerprint import agent_fingerprint, module_closure
from .errors import ArenaError, ResultsFileError

__all__ = ["ResultsFile", "RunBook", "load_results", "ROW_TYPES"]

#: rows of a results file
ROW_TYPES = ("pair", "match", "knockout")
_FORMAT_VERSION = 2


def _run_id(cfg: dict) -> str:
    text = json.dumps(cfg, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def _arena_modules() -> List[str]:
    """This package and every module in it (by name)."""
    package = __name__.rpartition(".")[0]
    folder = os.path.dirname(os.path.abspath(__file__))
    return [package] + sorted(f"{package}.{m.name}" for m in pkgutil.iter_modules([folder]))


def _code_key(specs: Sequence[str], family: Optional[str] = None) -> dict:
    """What determines the play of ``specs`` (agents of rule family ``family``, as
    :func:`~coinche_rl.agents.make_agent` takes it) besides the configuration: the package
    version, the arena's own code (every module of this package and the modules they
    import) and every agent's fingerprint (code, weights and versions;
    :func:`coinche_rl.agents.fingerprint.agent_fingerprint`)."""
    arena = hashlib.sha256()
    closure = set()
    for module in _arena_modules():
        closure |= module_closure(module)[0]
    for name, path in sorted(closure):
        with open(path, "rb") as f:
            arena.update(name.encode() + b"\0" + f.read())
    return {"package": __version__, "arena": arena.hexdigest()[:16],
            "agents": {s: agent_fingerprint(make_agent(s, family)) for s in sorted(set(specs))}}


def _describe_change(cfg: dict, old: dict) -> str:
    """How run configuration ``cfg`` differs from ``old`` (same format), in words."""
    parts = []
    for key in sorted(set(cfg) | set(old)):
        a, b = old.get(key), cfg.get(key)
        if a == b:
            continue
        if key == "code" and isinstance(a, dict) and isinstance(b, dict):
            if a.get("package") != b.get("package"):
                parts.append(f"the package version ({a.get('package')} -> {b.get('package')})")
            if a.get("arena") != b.get("arena"):
                parts.append("the tournament code")
            for spec in sorted(set(a.get("agents", {})) & set(b.get("agents", {}))):
                fa, fb = a["agents"][spec], b["agents"][spec]
                what = [w for w, k in (("code", "code"), ("weights", "data"),
                                       ("library versions", "versions")) if fa.get(k) != fb.get(k)]
                if what:
                    parts.append(f"the {' and '.join(what)} of agent {spec!r}")
        elif key == "code":
            parts.append("the code (the file's rows predate code fingerprints)")
        else:
            parts.append(f"{key} ({json.dumps(a)} -> {json.dumps(b)})")
    return ", ".join(parts) or "nothing visible"


def _check_store(store: Optional["ResultsFile"], runs: Dict[str, dict], append: bool) -> None:
    """Refuse to add new runs to a results file that holds others, unless ``append``:
    rows of another configuration, or of code that has changed since, are never reused,
    and mixing them in one file must be deliberate."""
    if store is None or append or not store.runs:
        return
    new = [r for r in runs if r not in store.runs]
    if not new:
        return
    cfg = runs[new[0]]
    same = [c for c in store.runs.values() if c.get("format") == cfg.get("format")]
    if same:
        closest = min(same, key=lambda c: sum(c.get(k) != cfg.get(k) for k in set(c) | set(cfg)))
        why = f"this run differs from the closest one there in {_describe_change(cfg, closest)}"
    else:
        kinds = sorted({str(c.get("format")) for c in store.runs.values()})
        why = f"it holds {', '.join(kinds)} runs, this one is a {cfg.get('format')} run"
    raise ArenaError(
        f"{store.path} holds results of another run ({len(store.runs)} run(s)); {why}. Its "
        f"rows would not be reused: write to a new file (--out NEW.jsonl), or pass "
        f"append=True (--append) to add this run beside them deliberately")


@contextlib.contextmanager
def _exclusive(path):
    """Hold an exclusive lock on results file ``path`` (created if absent) for the run,
    so that two processes never both write it (POSIX ``flock``; no lock elsewhere)."""
    if path is None or fcntl is None:
        yield
        return
    try:
        fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
    except OSError as e:
        raise ArenaError(f"cannot open results file {path}: {e.strerror}") from None
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            raise ArenaError(f"another process is writing results file {path}: wait for it "
                             f"to finish, or write to another file (--out)") from None
        yield
    finally:
        os.close(fd)                          # closing releases the lock


class ResultsFile:
    """A JSON-lines results file: the runs it describes and the rows it holds.

    Opening drops a half-written last line (a killed run); :meth:`append` writes whole
    lines and flushes them to the disk.
    """

    def __init__(self, path: Union[str, os.PathLike]):
        self.path = os.fspath(path)
        self.runs: Dict[str, dict] = {}
        self.rows: Dict[str, Dict[int, dict]] = {}
        if os.path.exists(self.path):
            self._load()

    def _load(self) -> None:
        with open(self.path, "rb") as f:
            data = f.read()
        end = data.rfind(b"\n") + 1
        if end < len(data):                       # a line cut by a killed run
            with open(self.path, "r+b") as f:
                f.truncate(end)
        for lineno, line in enumerate(data[:end].split(b"\n"), 1):
            if not line.strip():
                continue
            try:
                obj = json.loads(line)
            except ValueError:
                raise ResultsFileError(f"{self.path}:{lineno}: not a JSON line "
                                       f"(a results file holds one JSON object per line)") from None
            kind = obj.get("type") if isinstance(obj, dict) else None
            if kind == "run" and isinstance(obj.get("config"), dict):
                self.runs[str(obj["run"])] = obj["config"]
            elif kind in ROW_TYPES and "run" in obj and "i" in obj:
                i = obj["i"]
                if isinstance(i, bool) or not isinstance(i, int) or i < 0:
                    raise ResultsFileError(
                        f"{self.path}:{lineno}: row index 'i' must be a deal index >= 0, "
                        f"got {i!r} (the file was edited or is not a coinche-rl results file)")
                self.rows.setdefault(str(obj["run"]), {})[i] = obj
            else:
                raise ResultsFileError(
                    f"{self.path}:{lineno}: expected a 'run' line or a row of type "
                    f"{', '.join(map(repr, ROW_TYPES))} with 'run' and 'i', got {line[:80]!r}")

    def done(self, run: str) -> Dict[int, dict]:
        return self.rows.get(run, {})

    def begin(self, run: str, config: dict) -> None:
        if run not in self.runs:
            self.runs[run] = config
            self.append([{"type": "run", "run": run, "config": config}])

    def append(self, objs: Sequence[dict]) -> None:
        text = "".join(json.dumps(o, separators=(",", ":")) + "\n" for o in objs)
        with open(self.path, "a", encoding="utf-8") as f:
            f.write(text)
            f.flush()
            os.fsync(f.fileno())


class RunBook:
    """The rows of a tournament's runs (``runs``: run id -> configuration, ``want``: run
    id -> deal or match pairs wanted), kept against an optional results file ``out``: the
    rows already there are reused (``have`` of them), :attr:`missing` gives each run's
    deal indices still to play, :meth:`record` takes a finished task's arrays (and
    appends its rows to the file), :meth:`arrays` gives a run's arrays in deal order.
    Row ``kind``: ``"pair"`` or ``"match"``.

    :raises ArenaError: the file holds other runs and ``append`` is false
        (:func:`_check_store`).
    """

    def __init__(self, out, runs: Dict[str, dict], want: Dict[str, int], kind: str,
                 append: bool):
        self.store = ResultsFile(out) if out is not None else None
        _check_store(self.store, runs, append)
        self.kind = kind
        self.total = sum(want.values())
        self.parts: Dict[str, list] = {run: [] for run in runs}
        self.seconds = {run: 0.0 for run in runs}
        self.new = {run: 0 for run in runs}
        self.played = {run: 0 for run in runs}
        self.missing: Dict[str, np.ndarray] = {}
        self.have = 0
        for run, cfg in runs.items():
            done = self.store.done(run) if self.store is not None else {}
            if done:
                rows = [done[i] for i in sorted(done) if i < want[run]]
                self.parts[run].append(_arrays_from_rows(kind, rows))
                self.have += len(rows)
            if self.store is not None:
                self.store.begin(run, cfg)
            self.missing[run] = np.array([i for i in range(want[run]) if i not in done],
                                         dtype=np.int64)

    def play(self, tasks: list, execute, progress, label: str) -> float:
        """Run ``tasks`` by ``execute(tasks, on_done)`` (an executor), recording each
        finished task, with a progress bar of ``label`` over every pair wanted (``progress``
        as the tournaments take it); returns the wall seconds."""
        bar = Progress(progress, self.total, self.have, label)

        def on_done(task, res):
            self.record(task[1]["run"], res)
            bar.advance(len(res["index"]))

        t0 = time.perf_counter()
        try:
            execute(tasks, on_done)
        finally:
            bar.close()
        return time.perf_counter() - t0

    def record(self, run: str, res: dict) -> None:
        """A task of ``run`` finished with arrays ``res`` (and ``seconds``)."""
        self.parts[run].append(res)
        self.seconds[run] += res["seconds"]
        self.new[run] += len(res["index"])
        self.played[run] += (int(res["deals"].sum()) if self.kind == "match"
                             else 2 * len(res["index"]))
        if self.store is not None:
            self.store.append((_pair_rows if self.kind == "pair" else _match_rows)(run, res))

    def arrays(self, run: str, n: int) -> dict:
        """Run ``run``'s arrays of deal (match) pairs ``0 .. n - 1``, in deal order."""
        keys = ("index", "dealer", "scores") + (("contracts",) if self.kind == "pair"
                                                else ("won", "deals"))
        arrays = _concat(self.parts[run], keys)
        order = np.argsort(arrays["index"], kind="stable")
        keep = arrays["index"][order] < n
        return {k: v[order][keep] for k, v in arrays.items()}


#: the deal-pair run formats: ``two_pair`` is belote for two players' in results files
#: written before the families shared one path (the family is now the rules')
PAIR_FORMATS = ("pair", "two_pair")


def stored_pair(path, index: int, run: Optional[str] = None,
                formats: Sequence[str] = PAIR_FORMATS) -> Tuple[dict, dict]:
    """``(config, row)`` of deal pair ``index`` of run ``run`` of a results file: a run
    of one of ``formats``, the only such run when ``run`` is None (what the replays
    read).

    :raises ResultsFileError: no such file, run or pair, or several runs and none chosen.
    """
    store = load_results(path)
    ids = [r for r, c in store.runs.items() if c.get("format") in formats]
    if run is None:
        if not ids:
            kinds = sorted({str(c.get("format")) for c in store.runs.values()})
            raise ResultsFileError(f"{path} holds no deal-pair run (its runs: "
                                   f"{', '.join(kinds) or 'none'}): only deal pairs replay")
        if len(ids) != 1:
            raise ResultsFileError(f"{path} holds {len(ids)} deal-pair runs: choose one with "
                                   f"run= (one of {', '.join(ids)})")
        run = ids[0]
    if run not in ids:
        other = store.runs.get(run, {}).get("format")
        if other is not None:
            raise ResultsFileError(f"{path}: run {run} is a {other} run: only deal pairs "
                                   f"replay")
        raise ResultsFileError(f"{path}: no deal-pair run {run!r}; runs: "
                               f"{', '.join(ids) or 'none'}")
    row = store.done(run).get(int(index))
    if row is None:
        raise ResultsFileError(f"{path}: run {run} has no finished pair {index}")
    return store.runs[run], row


def load_results(path) -> ResultsFile:
    """Read a results file (see the :mod:`coinche_rl.arena` docstring)."""
    if not os.path.exists(path):
        raise ResultsFileError(f"{path}: no such results file")
    return ResultsFile(path)


def _pair_rows(run: str, arrays: dict) -> List[dict]:
    rows = []
    for k in range(len(arrays["index"])):
        sc = arrays["scores"][k]
        row = {"type": "pair", "run": run, "i": int(arrays["index"][k]),
               "dealer": int(arrays["dealer"][k]), "scores": sc.tolist(),
               "contracts": arrays["contracts"][k].tolist(),
               "margin": float((sc[0, 0] - sc[0, 1]) + (sc[1, 0] - sc[1, 1])) / 2}
        rows.append(row)
    return rows


def _match_rows(run: str, arrays: dict) -> List[dict]:
    return [{"type": "match", "run": run, "i": int(arrays["index"][k]),
             "dealer": int(arrays["dealer"][k]), "scores": arrays["scores"][k].tolist(),
             "won": arrays["won"][k].tolist(), "deals": arrays["deals"][k].tolist()}
            for k in range(len(arrays["index"]))]


def _arrays_from_rows(kind: str, rows: Sequence[dict]) -> dict:
    n = len(rows)
    out = {"index": np.array([r["i"] for r in rows], dtype=np.int64).reshape(n),
           "dealer": np.array([r["dealer"] for r in rows], dtype=np.int64).reshape(n),
           "scores": np.array([r["scores"] for r in rows], dtype=np.int64).reshape(n, 2, 2)}
    if kind == "pair":
        out["contracts"] = np.array([r["contracts"] for r in rows], dtype=np.int64).reshape(n, 2, 5)
    else:
        out["won"] = np.array([r["won"] for r in rows], dtype=np.int64).reshape(n, 2)
        out["deals"] = np.array([r["deals"] for r in rows], dtype=np.int64).reshape(n, 2)
    return out


def _concat(parts: List[dict], keys) -> dict:
    out = {}
    for k in keys:
        arrs = [p[k] for p in parts if len(p["index"])]
        out[k] = np.concatenate(arrs) if arrs else None
    return out
