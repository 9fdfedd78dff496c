"""The files the page can open (``coinche_rl.web.library``): the records folder and the
tournament results files.

The records folder (``coinche-rl serve --records DIR``) receives the record of every
game played on the page, after each of its deals (``game-YYYYmmdd-HHMMSS-ID.json``, a
deal record or a match record of :mod:`coinche_rl.records`); the ``*.json`` records
put there by hand (``coinche-rl play --save``, ``coinche-rl random-deal -o``) are listed
too, and its ``*.jsonl`` files are read as ``coinche-rl tournament --out`` results files,
beside the results files given with ``--results``.

Files are only ever opened by a name from the listing (:meth:`Library.listing`): a name
the listing does not hold is refused, so no path outside the folder can be asked for.
"""

from __future__ import annotations

import json
import os
import re
import time
import uuid
from typing import Any, Dict, List, Optional, Sequence

from ..arena import (ArenaError, DuplicateResult, replay_pair, results_from_file,
                     summary_tables)
from ..arena.tasks import cfg_family, pair_play
from ..records import (DEAL_FORMAT, MATCH_FORMAT, RecordError, deal_to_record, load_record,
                       save_record)

__all__ = ["Library", "LibraryError"]


class LibraryError(ValueError):
    """A name that is not in the listing, or a file that cannot be read as what it
    should be."""


_NAME = re.compile(r"^[\w.\-]+$")


class Library:
    """The records folder and the results files (see the module docstring).

    :param records: the records folder (created on the first save), or None: nothing is
        saved or listed.
    :param results: results files (``.jsonl``) or folders holding them.
    """

    def __init__(self, records: Optional[str] = None, results: Sequence[str] = ()):
        self.records = None if records is None else os.path.abspath(records)
        self.results = [os.path.abspath(p) for p in results]

    # ---------------------------------------------------------------- listing
    def _record_paths(self) -> Dict[str, str]:
        if self.records is None or not os.path.isdir(self.records):
            return {}
        return {n: os.path.join(self.records, n) for n in sorted(os.listdir(self.records))
                if n.endswith(".json") and _NAME.match(n)}

    def _results_paths(self) -> Dict[str, str]:
        found: Dict[str, str] = {}
        folders = ([self.records] if self.records and os.path.isdir(self.records) else []) + \
            [p for p in self.results if os.path.isdir(p)]
        files = [p for p in self.results if os.path.isfile(p)]
        for folder in folders:
            files += [os.path.join(folder, n) for n in sorted(os.listdir(folder))
                      if n.endswith(".jsonl")]
        for path in files:
            name = os.path.basename(path)
            if name in found or not _NAME.match(name):
                stem, ext = os.path.splitext(name)
                k = 2
                while f"{stem}-{k}{ext}" in found:
                    k += 1
                name = f"{stem}-{k}{ext}"
            found[name] = path
        return found

    def listing(self) -> Dict[str, List[Dict[str, Any]]]:
        """``{"records": [{"name", "kind", "modified"}], "results": [{"name"}]}``."""
        recs = []
        for name, path in self._record_paths().items():
            kind = None
            try:
                with open(path, encoding="utf-8") as f:
                    head = json.load(f)
                kind = {DEAL_FORMAT: "deal", MATCH_FORMAT: "match"}.get(head.get("format"))
            except (OSError, ValueError, AttributeError):
                pass                    # unreadable or not JSON: not a record, not listed
            if kind is not None:
                recs.append({"name": name, "kind": kind, "modified": os.path.getmtime(path)})
        recs.sort(key=lambda r: -r["modified"])
        return {"records": recs, "results": [{"name": n} for n in self._results_paths()]}

    # ---------------------------------------------------------------- records
    def record(self, name: str) -> Dict[str, Any]:
        """The record named ``name`` in the listing. :raises LibraryError:."""
        path = self._record_paths().get(name)
        if path is None:
            raise LibraryError(f"no record {name!r} in the records folder "
                               f"({self.records or 'none: serve --records DIR'})")
        try:
            return load_record(path)
        except RecordError as e:
            raise LibraryError(str(e)) from None

    def new_name(self) -> str:
        """A fresh record name for a game: ``game-YYYYmmdd-HHMMSS-XXXXXX.json``."""
        return f"game-{time.strftime('%Y%m%d-%H%M%S')}-{uuid.uuid4().hex[:6]}.json"

    def save(self, name: str, record: Dict[str, Any]) -> Optional[str]:
        """Write ``record`` as ``name`` in the records folder (atomically); returns the
        path, or None without a records folder. :raises OSError: when it cannot write."""
        if self.records is None:
            return None
        if not _NAME.match(name) or not name.endswith(".json"):
            raise LibraryError(f"bad record name {name!r}")
        os.makedirs(self.records, exist_ok=True)
        path = os.path.join(self.records, name)
        save_record(record, path)
        return path

    # ---------------------------------------------------------------- results
    def _results_path(self, name: str) -> str:
        path = self._results_paths().get(name)
        if path is None:
            raise LibraryError(f"no results file {name!r}; listed: "
                               f"{', '.join(self._results_paths()) or 'none (serve --results FILE)'}")
        return path

    def tournament(self, name: str) -> Dict[str, Any]:
        """The tables of results file ``name`` (as ``coinche-rl tournament`` prints
        them: :func:`coinche_rl.arena.summary_tables` of
        :func:`coinche_rl.arena.results_from_file`) and its deal pairs, each
        ``{"run", "i", "x", "y", "margin", "scores", "contracts"}``.

        :raises LibraryError: no such file, or not a results file of pairs.
        """
        path = self._results_path(name)
        try:
            result = results_from_file(path)
        except (ArenaError, ValueError, KeyError, TypeError) as e:
            raise LibraryError(f"{name}: {e}") from None
        tables, warnings = summary_tables(result)
        matchups = [result] if isinstance(result, DuplicateResult) else result.matchups
        pairs = []
        for m in matchups:
            if m.match:
                continue                    # match pairs are not replayed deal by deal
            for row in m.rows:
                pairs.append({"run": m.run, "i": row["i"], "x": m.label_x, "y": m.label_y,
                              "margin": row["margin"], "scores": row["scores"],
                              "contracts": row["contracts"]})
        return {"name": name, "tables": [{"title": t, "headers": h, "rows": r}
                                         for t, h, r in tables],
                "warnings": warnings, "pairs": pairs}

    def pair(self, name: str, run: str, index: int) -> Dict[str, Any]:
        """Deal pair ``index`` of run ``run`` of results file ``name``, played again
        through the agents (:func:`coinche_rl.arena.replay_pair`, every family):
        ``{"records": [two deal records, seating 1 then 2], "seatings": [[the spec at
        each seat], ...],
        "stored": [[X, Y] per seating], "replayed": [...], "same": bool}``.

        :raises LibraryError: no such file, run or pair, or an agent that cannot play.
        """
        path = self._results_path(name)
        try:
            deals, row, cfg = replay_pair(path, index, run)
        except (ArenaError, RecordError, OSError) as e:
            raise LibraryError(str(e)) from None
        seatings = [list(specs) for specs in
                    pair_play(cfg_family(cfg)).seatings(cfg["x"], cfg["y"])]
        # X holds seat 0 in the first seating, Y in the second
        replayed = [list(d.scores) if t == 0 else list(d.scores)[::-1] for t, d in enumerate(deals)]
        return {"records": [deal_to_record(d) for d in deals], "seatings": seatings,
                "stored": row["scores"], "replayed": replayed,
                "same": replayed == row["scores"]}
