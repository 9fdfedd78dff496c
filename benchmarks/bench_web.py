"""The web page's response times (``coinche-rl serve``, issue 26), over HTTP as the page
asks them, from a ``coinche-rl serve`` process started here on a free port of 127.0.0.1
(kernels warmed by its start-up, as a user gets it); and the server under load
(``--load``, issue 44).

Figures (milliseconds of wall time per request, from the request to the parsed answer):

* ``first_analysis_trick1_ms``: the first analysis of a position at trick 1 (the
  opening lead: the dearest card decision), on a new deal each time: double dummy (both
  objectives), PIMC over 16 worlds, ``nn``, and the heuristic's and nn's choices;
* ``auction_analysis_ms``: an analysis at the first auction decision (the networks only);
* ``replay_step_ms``: one replay step (``/api/position``: the record checked, the deal
  rebuilt to the step, the whole table sent), the first eight cards of each deal;
* ``startup_s``: from the command to the first answer (warm-up included; on a numba
  cache that holds the kernels).

Deals: whole deals between heuristic bots (seeds 100...), void deals skipped.

``--load``: ``games`` websocket games at once (32; 8 with ``--quick``), each a person
(seat ``k % 4``, seed ``k``, a random legal action, passing 70% of the time in the
auction) against heuristic bots for ``deals`` deals (2; 1 with ``--quick``), then its
record asked for; meanwhile ``analysts`` clients (4; 2) ask analyses (trick 1 and first
bid, in turn) until the games are over. Everything on 127.0.0.1, and the whole run
stops by itself after ``--timeout`` seconds (games not over by then are counted as not
completed). Figures: ``reply_ms`` (a person's message in a game to the server's first
answer), ``turn_ms`` (to the view where the person acts again: the bots' actions
included), ``new_game_ms`` (a new game to its first view, all games asked at once),
``analysis_ms`` (median, p95, max, n), ``errors`` (error replies, failed requests,
dropped sockets: must be 0), ``games_completed``, and the server's memory from
``/proc/PID/status``: ``VmRSS`` before the load, its largest sample during it (every
0.2 s) and ``VmHWM`` (the peak) after. The command exits 1 when an error occurred or a
game did not complete.

Usage: ``python benchmarks/bench_web.py [--quick] [--load [--games N] [--deals D]
[--analysts A] [--timeout S]]``. The last line of output is one JSON object. Needs the
web extra (``pip install -e '.[web]'``).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.error
import urllib.request

from bench_engine import machine
from coinche_rl.agents import make_agent, play_deal
from coinche_rl.game import Deal
from coinche_rl.records import deal_to_record

HOST = "127.0.0.1"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind((HOST, 0))
        return s.getsockname()[1]


@contextlib.contextmanager
def serve():
    """A ``coinche-rl serve`` process on a free port of 127.0.0.1 with a temporary
    records folder: ``(url, process, startup seconds)`` once it answers."""
    port = _free_port()
    url = f"http://{HOST}:{port}"
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as records:
        proc = subprocess.Popen([sys.executable, "-m", "coinche_rl.cli", "serve", "--host", HOST,
                                 "--port", str(port), "--records", records],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            while True:
                try:
                    urllib.request.urlopen(url + "/api/meta", timeout=1).close()
                    break
                except OSError:
                    if proc.poll() is not None:
                        sys.exit("coinche-rl serve did not start (is the web extra installed?)")
                    time.sleep(0.1)
            yield url, proc, time.perf_counter() - t0
        finally:
            proc.terminate()
            proc.wait(10)


def post(url, path, body, timeout=600):
    """Milliseconds from the request to the parsed answer of ``POST path``."""
    req = urllib.request.Request(url + path, data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    t = time.perf_counter()
    with urllib.request.urlopen(req, timeout=timeout) as r:
        json.load(r)
    return (time.perf_counter() - t) * 1000


def heuristic_records(n, seed=100):
    """``n`` records of whole deals between heuristic bots (void deals skipped)."""
    out = []
    while len(out) < n:
        deal = Deal("ffb", seed=seed, dealer=seed % 4)
        seed += 1
        play_deal(deal, [make_agent("heuristic") for _ in range(4)], seeds=[1, 2, 3, 4])
        if not deal.is_void:
            out.append(deal_to_record(deal))
    return out


def stats(xs):
    if not xs:
        return {"median": None, "p95": None, "max": None, "n": 0}
    xs = sorted(xs)
    p95 = xs[min(len(xs) - 1, int(round(0.95 * (len(xs) - 1))))]
    return {"median": round(statistics.median(xs), 1), "p95": round(p95, 1),
            "max": round(xs[-1], 1), "n": len(xs)}


def timings(n_deals):
    with serve() as (url, _, startup):
        first, auction, steps = [], [], []
        for rec in heuristic_records(n_deals):
            lead = len(rec["auction"])
            first.append(post(url, "/api/analyse", {"record": rec, "step": lead}))
            auction.append(post(url, "/api/analyse", {"record": rec, "step": 0}))
            steps += [post(url, "/api/position", {"record": rec, "step": s, "show": "all"})
                      for s in range(lead, lead + 8)]
    return {"first_analysis_trick1_ms": stats(first), "auction_analysis_ms": stats(auction),
            "replay_step_ms": stats(steps), "startup_s": round(startup, 1)}


# ------------------------------------------------------------------------- load
def memory_kb(pid):
    """``VmRSS`` and ``VmHWM`` of process ``pid`` (kB; Linux), or None."""
    try:
        with open(f"/proc/{pid}/status") as f:
            fields = dict(line.split(":", 1) for line in f if ":" in line)
        return {k: int(fields[k].split()[0]) for k in ("VmRSS", "VmHWM")}
    except (OSError, KeyError, ValueError):
        return None


class Tally:
    def __init__(self):
        self.reply, self.turn, self.analysis, self.new = [], [], [], []
        self.errors, self.completed, self.deals, self.messages = [], 0, 0, 0


async def play_game(ws_url, k, deals, tally):
    """Game ``k``: the person plays random legal actions to the end; its record asked."""
    import websockets
    rng = random.Random(k)
    async with websockets.connect(ws_url, max_size=2 ** 24) as ws:
        async def ask(msg):
            t0 = time.perf_counter()
            await ws.send(json.dumps(msg))
            tally.messages += 1
            first = None
            while True:
                m = json.loads(await ws.recv())
                if first is None:
                    first = time.perf_counter()
                    (tally.new if msg["type"] == "new" else tally.reply).append((first - t0) * 1000)
                if m["type"] == "error":
                    raise RuntimeError(f"game {k}: error reply to {msg}: {m['message']}")
                if m["type"] == "record" or m["view"]["waiting"] != "bots":
                    if msg["type"] != "new":
                        tally.turn.append((time.perf_counter() - t0) * 1000)
                    return m

        m = await ask({"type": "new", "seat": k % 4, "seed": k, "partner": "heuristic",
                       "opponents": "heuristic", "deals": deals})
        while True:
            view = m["view"]
            if view["waiting"] == "you":
                legal = [a["text"] for a in view["legal"]]
                if view["phase"] == "auction" and "pass" in legal and rng.random() < 0.7:
                    action = "pass"
                else:
                    action = rng.choice(legal)
                m = await ask({"type": "act", "action": action})
            elif view["waiting"] == "next":
                tally.deals += 1
                m = await ask({"type": "next"})
            else:                                           # over
                tally.deals += 1
                rec = await ask({"type": "record"})
                if rec["type"] != "record" or not rec["record"]:
                    raise RuntimeError(f"game {k}: no record at the end")
                tally.completed += 1
                return


async def analyst(url, records, j, done, tally):
    """Analyses (trick 1, then the first bid, in turn) until ``done`` is set."""
    i = j
    while not done.is_set():
        rec = records[i % len(records)]
        step = len(rec["auction"]) if i % 2 == 0 else 0
        tally.analysis.append(await asyncio.to_thread(
            post, url, "/api/analyse", {"record": rec, "step": step}, 120))
        i += 1


async def run_load(url, pid, games, deals, analysts, timeout, records):
    """The load (see the module docstring): the tally, and the memory samples."""
    tally = Tally()
    done = asyncio.Event()
    rss = []

    async def sample():
        while not done.is_set():
            mem = memory_kb(pid) if pid else None
            if mem:
                rss.append(mem["VmRSS"])
            await asyncio.sleep(0.2)

    async def guarded(coro, what):
        try:
            await coro
        except Exception as e:                   # counted, the others go on
            tally.errors.append(f"{what}: {type(e).__name__}: {e}"[:300])

    async def all_games():
        ws_url = url.replace("http://", "ws://") + "/ws"
        await asyncio.gather(*(guarded(play_game(ws_url, k, deals, tally), f"game {k}")
                               for k in range(games)))
        done.set()

    helpers = [asyncio.ensure_future(sample())] + [
        asyncio.ensure_future(guarded(analyst(url, records, j, done, tally), f"analyst {j}"))
        for j in range(analysts)]
    t0 = time.perf_counter()
    try:
        await asyncio.wait_for(all_games(), timeout)
    except asyncio.TimeoutError:
        tally.errors.append(f"timed out after {timeout} s: {tally.completed} of {games} "
                            f"games over")
    done.set()
    await asyncio.wait(helpers, timeout=150)
    wall = time.perf_counter() - t0
    return tally, rss, wall


def load(games, deals, analysts, timeout):
    records = heuristic_records(8)
    with serve() as (url, proc, startup):
        before = memory_kb(proc.pid)
        tally, rss, wall = asyncio.run(run_load(url, proc.pid, games, deals, analysts,
                                                timeout, records))
        after = memory_kb(proc.pid)
    mb = (lambda kb: None if kb is None else round(kb / 1024, 1))
    return {"mode": "load", "games": games, "deals_per_game": deals, "analysts": analysts,
            "games_completed": tally.completed, "deals_played": tally.deals,
            "errors": len(tally.errors), "error_samples": tally.errors[:5],
            "messages": tally.messages, "reply_ms": stats(tally.reply),
            "turn_ms": stats(tally.turn), "new_game_ms": stats(tally.new),
            "analysis_ms": stats(tally.analysis),
            "server_rss_mb": {"before": mb(before and before["VmRSS"]),
                              "max_sampled": mb(max(rss) if rss else None),
                              "peak_hwm": mb(after and after["VmHWM"])},
            "wall_s": round(wall, 1), "startup_s": round(startup, 1), "timeout_s": timeout}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true",
                    help="4 deals instead of 12; with --load: 8 games of one deal, 2 analysts")
    ap.add_argument("--load", action="store_true", help="the server under load (see above)")
    ap.add_argument("--games", type=int, default=None, help="games at once (32; quick 8)")
    ap.add_argument("--deals", type=int, default=None, help="deals per game (2; quick 1)")
    ap.add_argument("--analysts", type=int, default=None, help="analysis clients (4; quick 2)")
    ap.add_argument("--timeout", type=float, default=None,
                    help="seconds before the load stops by itself (600; quick 300)")
    args = ap.parse_args()
    if args.load:
        q = args.quick
        out = load(args.games or (8 if q else 32), args.deals or (1 if q else 2),
                   args.analysts if args.analysts is not None else (2 if q else 4),
                   args.timeout or (300.0 if q else 600.0))
    else:
        out = timings(4 if args.quick else 12)
    out.update({"load_average": round(os.getloadavg()[0], 2), "machine": machine()})
    for k, v in out.items():
        print(f"{k}: {v}")
    print(json.dumps(out))
    if args.load and (out["errors"] or out["games_completed"] != out["games"]):
        sys.exit(1)


if __name__ == "__main__":
    main()
