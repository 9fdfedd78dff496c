"""``coinche-rl bench``: the benchmark scripts of ``benchmarks/`` (a source checkout)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


BENCHMARKS = {"engine": "bench_engine.py", "env": "bench_env.py", "arena": "bench_arena.py",
              "solver": "bench_solver.py", "strength": "bench_strength.py",
              "neural": "bench_neural.py", "belief": "bench_belief.py",
              "selfplay": "bench_selfplay.py", "web": "bench_web.py",
              "two_player": "bench_two_player.py", "two_player_env": "bench_two_player_env.py",
              "decisions": "bench_decisions.py"}


def cmd_bench(args) -> int:
    folder = Path(__file__).resolve().parents[2] / "benchmarks"
    if not folder.is_dir():
        print("coinche-rl: error: the benchmark scripts live in benchmarks/ of a source "
              "checkout, which this installation does not have", file=sys.stderr)
        return 2
    bad = [n for n in args.names if n not in BENCHMARKS]
    if bad:
        print(f"coinche-rl: error: unknown benchmark {bad[0]!r}: expected "
              f"{', '.join(BENCHMARKS)}", file=sys.stderr)
        return 2
    names = args.names or [n for n, f in BENCHMARKS.items() if (folder / f).exists()]
    status = 0
    for name in names:
        script = folder / BENCHMARKS[name]
        if not script.exists():
            print(f"coinche-rl: error: {script} does not exist", file=sys.stderr)
            return 2
        cmd = [sys.executable, str(script)] + ([] if args.full else ["--quick"])
        print("$ " + " ".join(cmd), flush=True)
        if args.dry_run:
            continue
        rc = subprocess.call(cmd)
        if rc:
            print(f"coinche-rl: error: {script.name} exited with status {rc}", file=sys.stderr)
            status = 1
    return status


def add_parser(sub) -> None:
    b = sub.add_parser("bench", help="run the benchmark scripts of benchmarks/ (--quick)")
    b.add_argument("names", nargs="*", metavar="NAME",
                   help=f"which: {', '.join(BENCHMARKS)} (default: all)")
    b.add_argument("--full", action="store_true", help="full size instead of --quick")
    b.add_argument("--dry-run", action="store_true", help="print the commands only")
    b.set_defaults(func=cmd_bench)
