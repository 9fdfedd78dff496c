"""The load mode of ``benchmarks/bench_web.py`` runs (issue 44): a few websocket games
against the bots and an analysis client at once, over a real socket on 127.0.0.1 (the
page's server in a thread here), every game to its end, no error, and the figures
reported; and people who leave in the middle of their games log no error. The load
itself (32 games) is a benchmark, not a test."""

from __future__ import annotations

import asyncio
import json
import logging
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
                                       port=port, log_level="warning", log_config=None))
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


def test_people_who_leave_in_the_middle_log_no_error_and_the_others_play_on(server, caplog):
    url, _ = server
    import websockets

    async def leave():
        for k in range(3):
            ws = await websockets.connect(url.replace("http://", "ws://") + "/ws")
            await ws.send(json.dumps({"type": "new", "seed": k, "seat": 3, "pace": 0.1}))
            await asyncio.sleep(0.05)                # the bots are playing, slowly
            if k == 2:
                ws.transport.abort()                 # no closing handshake
            else:
                await ws.close()
        await asyncio.sleep(0.5)
    with caplog.at_level(logging.WARNING):
        asyncio.run(leave())
        tally, _, _ = asyncio.run(bench_web.run_load(url, None, games=2, deals=1, analysts=0,
                                                     timeout=60, records=[]))
    assert tally.errors == [] and tally.completed == 2
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []
