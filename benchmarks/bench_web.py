"""The web page's response times (``coinche-rl serve``, issue 26), over HTTP as the page
asks them, from a ``coinche-rl serve`` process started here on a free port (kernels
warmed by its start-up, as a user gets it).

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

Usage: ``python benchmarks/bench_web.py [--quick]`` (4 deals instead of 12). The last
line of output is one JSON object. Needs the web extra (``pip install -e '.[web]'``).
"""

from __future__ import annotations

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

from bench_engine import machine
from coinche_rl.agents import make_agent, play_deal
from coinche_rl.game import Deal
from coinche_rl.records import deal_to_record


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="4 deals instead of 12")
    args = ap.parse_args()
    n_deals = 4 if args.quick else 12
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory() as records:
        proc = subprocess.Popen([sys.executable, "-m", "coinche_rl.cli", "serve", "--port",
                                 str(port), "--records", records],
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
            startup = time.perf_counter() - t0

            def post(path, body):
                req = urllib.request.Request(url + path, data=json.dumps(body).encode(),
                                             headers={"Content-Type": "application/json"})
                t = time.perf_counter()
                with urllib.request.urlopen(req, timeout=600) as r:
                    json.load(r)
                return (time.perf_counter() - t) * 1000

            first, auction, steps = [], [], []
            seed = 100
            while len(first) < n_deals:
                deal = Deal("ffb", seed=seed, dealer=seed % 4)
                seed += 1
                play_deal(deal, [make_agent("heuristic") for _ in range(4)], seeds=[1, 2, 3, 4])
                if deal.is_void:
                    continue
                rec = deal_to_record(deal)
                lead = len(rec["auction"])
                first.append(post("/api/analyse", {"record": rec, "step": lead}))
                auction.append(post("/api/analyse", {"record": rec, "step": 0}))
                steps += [post("/api/position", {"record": rec, "step": s, "show": "all"})
                          for s in range(lead, lead + 8)]
        finally:
            proc.terminate()
            proc.wait(10)

    def stats(xs):
        return {"median": round(statistics.median(xs), 1), "max": round(max(xs), 1), "n": len(xs)}

    out = {"first_analysis_trick1_ms": stats(first), "auction_analysis_ms": stats(auction),
           "replay_step_ms": stats(steps), "startup_s": round(startup, 1),
           "load_average": round(os.getloadavg()[0], 2), "machine": machine()}
    for k, v in out.items():
        print(f"{k}: {v}")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
