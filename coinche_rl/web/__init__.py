"""Play, replay and analyse in the browser (``coinche_rl.web``): ``coinche-rl serve``.

One page (plain JavaScript, cards drawn in SVG, no build step) served with the engine
in the same process, by a Starlette application under uvicorn (the optional extra
``web``: ``pip install -e '.[web]'`` in the clone), for every rule family: four players
and belote for two players (``belote_a_deux``, ``belote_decouverte``), one code path read
from the family's description (:mod:`coinche_rl.engine.family`,
:mod:`coinche_rl.envs.family`). Three views:

* **Play**: a person takes a seat against agent specs (partner, opponents; with two
  players one opponent), for a deal, some deals or a match; only legal actions can be
  clicked; the auction (prise), the trick, the last trick, the table cards, the points,
  the score and the running match score are shown; the record of the finished deals is
  saved in the records folder and can be downloaded.
* **Replay and analysis**: a record (uploaded, from the records folder, or a deal pair
  of a results file) stepped forward and back, hands shown or hidden; at any position
  a row per legal action, sorted by value, with the double-dummy value, the PIMC value
  over sampled worlds, the ``nn`` value (in the auction the bidding network's heads:
  expected score, P(made); and the Monte Carlo hand evaluation's of each bid) and each
  agent's choice (with two players: no network yet, the searches from trick 5);
  branch off with another action and let the bots play on. The address of a position holds the record itself (the URL fragment), so it
  can be shared.
* **Tournaments**: the results files of ``coinche-rl tournament --out``: the tables,
  the ratings, each deal pair opened in the replay view.

The modules, by concern: :mod:`.views` (what the page is sent: a seat's view, built from
its information set only, and the whole table of a record), :mod:`.play` (a person's
game), :mod:`.analysis` (positions, the analysis rows, branches), :mod:`.library` (the
records folder and the results files), :mod:`.app` (the Starlette application: HTTP
endpoints, the game socket, the searches in worker threads). Only :mod:`.app` and
:func:`serve` need the extra; the rest is the library's plain Python.
"""

from __future__ import annotations

import importlib.util
import sys
import time
from typing import Optional, Sequence

__all__ = ["missing_extra", "INSTALL_HINT", "serve", "warm_up"]

#: how to install what ``coinche-rl serve`` needs (the package is not on an index)
INSTALL_HINT = "pip install -e '.[web]' in the coinche-rl clone (or make venv)"

#: the modules of the ``web`` extra that serving needs
EXTRA_MODULES = ("starlette", "uvicorn", "websockets")


def missing_extra() -> Optional[str]:
    """The first module of the ``web`` extra that is not installed, or None."""
    for name in EXTRA_MODULES:
        if importlib.util.find_spec(name) is None:
            return name
    return None


def warm_up(rules=None, say=print) -> float:
    """Compile (or load from the numba cache) every kernel the page uses, and load the
    shipped networks, for each family the page serves (``rules``' family first, the
    other's default preset then): a deal between heuristic bots seen from a seat, and
    two analyses, in its bidding (hand evaluation, ``nn``) and at the first trick
    searched (solver, PIMC, ``nn``). Returns the seconds it took."""
    from ..agents import make_agent, play_deal
    from ..envs.family import FAMILIES, env_family
    from ..records import deal_to_record
    from ..rules import get_rules
    from .analysis import Analyser, analyse, deal_at, play_start, searched
    from .views import seat_view, table_view
    t0 = time.perf_counter()
    first = env_family(rules)
    presets = [rules if rules is not None else first.default_rules] + \
        [f.default_rules for f in FAMILIES.values() if f is not first]
    for preset in presets:
        fam = env_family(preset)
        deal = fam.deal(get_rules(preset), seed=0, dealer=0)
        n = fam.n_players
        play_deal(deal, [make_agent("heuristic", deal.rules) for _ in range(n)],
                  seeds=list(range(1, n + 1)))
        seat_view(deal, 0)
        table_view(deal)
        rec = deal_to_record(deal)
        analyser = Analyser(tt_bits=12)
        analyse(analyser, rec, 0, 0, worlds=2)          # the bidding: the hand evaluation
        if not deal.is_void:
            step = play_start(deal)
            while not searched(deal_at(rec, 0, step)):
                step += n
            analyse(analyser, rec, 0, step, worlds=2)
    return time.perf_counter() - t0


def serve(host: str = "127.0.0.1", port: int = 8000, rules=None, *,
          records: Optional[str] = "coinche-rl-records", results: Sequence[str] = (),
          searches: int = 2, worlds: int = 16, warm: bool = True) -> None:
    """Warm the kernels, then serve the page until interrupted (uvicorn).

    :raises ModuleNotFoundError: the ``web`` extra is not installed (the message says
        how to install it).
    """
    missing = missing_extra()
    if missing:
        raise ModuleNotFoundError(f"coinche-rl serve needs the web extra ({missing} is not "
                                  f"installed): {INSTALL_HINT}", name=missing)
    import uvicorn
    from .app import create_app
    app = create_app(rules, records=records, results=results, searches=searches,
                     worlds=worlds)
    if warm:
        print("coinche-rl serve: warming the kernels (a fresh numba cache compiles them "
              "first: a minute or two) ...", flush=True)
        print(f"kernels ready in {warm_up(rules):.1f} s", flush=True)
    if records:
        print(f"records folder: {app.state.library.records}", flush=True)
    print(f"open http://{host}:{port}/ (Ctrl-C stops)", flush=True)
    uvicorn.run(app, host=host, port=port, log_level="warning")
    sys.stdout.flush()
