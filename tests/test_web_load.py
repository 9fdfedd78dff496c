"""The load mode of ``benchmarks/bench_web.py`` runs (issue 44): a few websocket games
against the bots and an analysis client at once, over a real socket on 127.0.0.1 (the
page's server in a thread here), every game to its end, no error, and the figures
reported. The load itself (32 games) is a benchmark, not a test."""

from __future__ import annotations

import asyncio
import os
import sys
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("uvicorn", reason="the web extra is not installed: pip install -e '.[web]'")
pytest.importorskip("websockets", reason="the web extra is not installed: pip install -e '.[web]'")

import uvicorn  # noqa: E402

from coinche_rl.web.app import create_app  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))
import bench_web  # noqa: E402


@pytest.fixture
def server(tmp_path):
    port = bench_web._free_port()
    srv = uvicorn.Server(uvicorn.Config(create_app(records=str(tmp_path), worlds=2), host="127.0.0.1",
                                       port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    t0 = time.monotonic()
    while not srv.started:
        assert thread.is_alive() and time.monotonic() - t0 < 60, "the server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}", tmp_path
    srv.should_exit = True
    thread.join(30)


def test_the_load_mode_plays_every_game_to_its_end_without_an_error(server):
    url, records = server
    tally, rss, wall = asyncio.run(bench_web.run_load(
        url, os.getpid(), games=3, deals=2, analysts=1, timeout=120,
        records=bench_web.heuristic_records(1)))
    assert tally.errors == [] and tally.completed == 3 and tally.deals == 6
    assert len(tally.turn) == len(tally.reply) > 3 * 2 * 4 and tally.analysis
    assert rss and all(kb > 0 for kb in rss)
    assert len([n for n in os.listdir(records) if n.endswith(".json")]) == 3   # saved games
    assert bench_web.stats([1.0, 2.0, 3.0, 100.0])["p95"] == 100.0
