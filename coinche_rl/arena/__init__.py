"""Tournaments between agents (``coinche_rl.arena``): duplicate matchups, round robins
with ratings, individual formats, and executors from one core to a Ray cluster.

**Deal sets.** Deal ``i`` of a deal set is a function of ``(rules, seed, i)`` alone: the
cards, the dealer and the four agents' seeds come from a splitmix64 stream keyed by
``(seed, i)`` (:class:`DealSet`), so any subset of a deal set can be rebuilt anywhere,
in any order, by any worker.

**Duplicate.** Two teams X and Y (an agent spec, or two specs for partners) play every
deal twice with the same dealer: X at seats 0 and 2 (N-S) and Y at 1 and 3, then the
other way round, the agent at each seat drawing from the seed of ``(deal, seat)`` in both
seatings. The margin of a deal pair is the mean over the two seatings of X's deal score
minus Y's; :func:`run_duplicate` reports its mean with a 95% Student-t interval, the
paired standard deviation and the deal win rate (a pair counts as won when the margin is
positive, a tie as half). Identical deterministic agents play identical deals in both
seatings, so their margin is exactly 0. ``match=True`` plays pairs of matches to the
rule set's target instead (deal ``k`` of match ``j`` is the same in both seatings) and
reports the match win rate; ``frozen_contract`` skips the auction with a contract drawn
per deal (``"longest"``: a seat drawn at random takes the minimum bid in its longest suit,
ties to the suit with more trump points, the retourne's suit in the classic family;
``"uniform"``: the strain drawn among the allowed ones), identical in both seatings.

**Tournaments.** :func:`run_round_robin` plays a duplicate between every pair of agents
and fits ratings (:mod:`coinche_rl.ratings`): additive points per deal and Bradley-Terry
on the Elo scale, with 95% intervals. The individual formats judge each agent with
changing partners: :func:`run_rotating` (every split of every four players into two
partnerships, each a duplicate, and per-player ratings from the team model: a team's
strength is the mean of its members') and :func:`run_knockout` (the vipbelote
tournament of seed text 004: 16 or 8 players, tables of four, games to 501 points of at
most 7 deals, the winning pairs go through and partnerships are redrawn before every
round).

**Executors.** ``backend="serial"`` plays in this process; ``"pool"`` in ``workers``
spawned processes (the numba cache is warmed first, so workers load instead of
compiling; the pool is kept for later calls until :func:`shutdown_pool` or exit; a
script that uses it needs the ``if __name__ == "__main__":`` guard of spawned
processes); ``"ray"`` as Ray tasks on a local instance (started with ``workers`` CPUs
and left running) or, with ``address``, an existing cluster (``pip install -e
".[ray]"`` in the clone; every node needs coinche-rl installed; an address where no cluster
answers within :data:`RAY_CONNECT_TIMEOUT` seconds is an :class:`ArenaError`). Agents
given by import path (``my_agents:Greedy``) reach the workers: the pool's and a local
Ray's get the folders their modules were imported from, a cluster this module connects
to gets the modules as the job's ``runtime_env`` ``py_modules``. Before anything is
played, agents that declare ``check_rules(rules)`` (colver's) check the rule set. Work
is split in chunks of deal indices, and every result depends only on the indices, so the
same seeds give the same results with every executor.

**Results files.** With ``out=PATH`` every finished deal pair (match pair, knockout
tournament) is appended to a JSON-lines file and flushed: a line ``{"type": "run", "run":
ID, "config": {...}}`` once per configuration, then rows such as ``{"type": "pair",
"run": ID, "i": 17, "dealer": 2, "scores": [[x1, y1], [x2, y2]], "contracts": [[value,
strain, taker, coinche, made], [...]], "margin": m}`` (scores from X's and Y's side in each
seating; a void deal has taker -1). Running again with the same file skips what it
holds, so a killed run loses nothing it had finished; a half-written last line is
dropped. :func:`format_summary` prints the tables (with rich when installed) and
:func:`plot_results` draws the margins' distribution and the ratings with their error
bars (matplotlib; ``pip install -e ".[arena]"`` in the clone).

**Belote for two players** (family ``two``: ``belote_a_deux``, ``belote_decouverte``) goes
through the same formats, deal sets, tasks, executors, results files, progress,
estimates, tables and replay, read from the family description
(:class:`~coinche_rl.engine.family.Family`): agents A and B play every deal as player 0
then as player 1 (``x = (A, A)``, ``y = (B, B)``), the margin in points per deal;
``match=True`` plays pairs of matches to the target (RULES.md §12) and the knockout seats
tables of two, the winner going through. What the game has not is refused in one line:
partners (rotating partners, a team of two specs) and an auction to skip
(``frozen_contract``).

>>> r = run_duplicate("heuristic", "random", 200, "belote_decouverte", seed=1)
>>> r.mean > 40 and r.mean - r.ci95 > 0
True

>>> r = run_duplicate("random", "random", 20, seed=3)
>>> r.mean, r.win_rate, r.n
(0.0, 0.5, 20)
"""

from __future__ import annotations

# The package, by concern (each module imports only those before it, and the layers
# below the arena: engine modules, coinche_rl.envs through the agents, coinche_rl.agents):
#   errors     ArenaError, ResultsFileError
#   dealsets   DealSet, the deal / match / knockout streams, frozen contracts
#   store      results files: ResultsFile, rows, run ids, code fingerprints, locking
#   tasks      the per-chunk tasks every executor ships (one code for every family),
#              the seated agents, warmup, each family's PairPlay (registry, seatings)
#   executors  serial / pool / Ray, the workers' set-up
#   results    DuplicateResult, TournamentResult, KnockoutResult
#   formats    run_duplicate, run_round_robin, run_rotating, run_knockout, ...
#   reports    tables, format_summary, print_summary, plot_results
#   replay     replay_pair
from . import dealsets, errors, executors, formats, replay, reports, results, store, tasks
from .dealsets import FROZEN_MODES, DealSet
from .errors import ArenaError, ResultsFileError
from .executors import BACKENDS, RAY_CONNECT_TIMEOUT, shutdown_pool
from .formats import (default_roster, estimate_seconds, run_duplicate, run_knockout, run_rotating,
                      run_round_robin)
from .replay import replay_pair
from .reports import format_summary, plot_results, print_summary, summary_tables
from .results import DuplicateResult, KnockoutResult, TournamentResult, results_from_file
from .store import ROW_TYPES, ResultsFile, load_results
from .tasks import warmup

__all__ = ["ArenaError", "ResultsFileError", "DealSet", "DuplicateResult", "TournamentResult",
           "KnockoutResult", "run_duplicate", "run_round_robin", "run_rotating", "run_knockout",
           "default_roster", "format_summary", "print_summary", "plot_results", "replay_pair",
           "load_results", "warmup", "shutdown_pool", "estimate_seconds", "BACKENDS",
           "FROZEN_MODES", "results_from_file", "summary_tables"]

#: the package's modules, in the order above (the code fingerprint of a results file
#: hashes them all, see :func:`coinche_rl.arena.store._code_key`); their examples are run
#: module by module (tests/test_doctests.py)
MODULES = ("errors", "dealsets", "store", "tasks", "executors", "results", "formats",
           "reports", "replay")
