"""Reports (``coinche_rl.arena.reports``): the summary tables (plain text, or rich's when
installed) and the plots (matplotlib) of a result."""

from __future__ import annotations

import io
import math
import os
from typing import List, Optional, Tuple

import numpy as np

from ..files import atomic_write
from .errors import ArenaError
from .results import DuplicateResult, KnockoutResult, TournamentResult

__all__ = ["format_summary", "print_summary", "plot_results", "summary_tables"]


def _fmt(v: float, spec: str = "+.1f") -> str:
    if v is None or (isinstance(v, float) and not math.isfinite(v)):
        return "-"
    return format(v, spec)


def _rate(v: float) -> str:
    """A speed for the tables: whole numbers from 10 up, two significant digits below (a
    slow agent's 0.4 deals/s is not "0").

    >>> _rate(134183.2), _rate(12.6), _rate(0.43), _rate(0.0)
    ('134,183', '13', '0.43', '0')
    """
    if not math.isfinite(v):
        return "(resumed)"
    if v >= 10 or v == 0:
        return f"{v:,.0f}"
    return f"{v:.2g}"


def _oriented(result, k: int, m: DuplicateResult) -> Tuple[str, str, float, float]:
    """(label X, label Y, mean, win rate) of matchup ``k`` as the tables and plots show
    it: a tournament's matchup from the side that leads, with the partners' names."""
    lx, ly, mean, win = m.label_x, m.label_y, m.mean, m.win_rate
    if isinstance(result, TournamentResult):
        lx, ly = ("+".join(result.names[i] for i in team) for team in result.teams[k])
        if mean < 0:
            lx, ly, mean, win = ly, lx, -mean, 1.0 - win
    return lx, ly, mean, win


def _tables(result) -> List[Tuple[str, List[str], List[List[str]]]]:
    """(title, headers, rows) of every table of ``result``."""
    out = []
    if isinstance(result, DuplicateResult):
        matchups = [result]
    elif isinstance(result, TournamentResult):
        matchups = result.matchups
    else:
        matchups = []
    if matchups:
        m0 = matchups[0]
        unit = "match" if m0.match else "deal"
        what = "match pairs" if m0.match else "deal pairs"
        mode = (f", frozen contracts ({m0.frozen})" if m0.frozen else "") + \
            (f", matches to {m0.rules.target}" if m0.match else "")
        title = f"Duplicate results: rules {m0.rules.name}, seed {m0.seed}{mode}"
        headers = ["team X", "team Y", what, f"X - Y per {unit}", "95% CI",
                   "X win rate [95%]" if not m0.match else "X match wins [95%]", "paired sd", "deals/s"]
        if isinstance(result, TournamentResult):
            title += " (each matchup from the side that leads)"
        rows = []
        for k, m in enumerate(matchups):
            lx, ly, mean, win = _oriented(result, k, m)
            lo, hi = m.win_interval
            if isinstance(result, TournamentResult) and m.mean < 0:      # the other side's
                lo, hi = 1.0 - hi, 1.0 - lo
            rows.append([lx, ly, f"{m.n:,}", _fmt(mean, "+.2f"),
                         f"± {_fmt(m.ci95, '.2f')}",
                         f"{_fmt(win, '.3f')} [{_fmt(lo, '.2f')}, {_fmt(hi, '.2f')}]",
                         _fmt(m.paired_sd, ".1f"),
                         _rate(m.deals_per_s)])
        out.append((title, headers, rows))
    if isinstance(result, TournamentResult):
        unit = "match" if result.matchups[0].match else "deal"
        pairs = "match pairs" if result.matchups[0].match else "deal pairs"
        title = (f"Ratings (points per {unit}, field mean 0; Bradley-Terry Elo over {pairs})"
                 if result.kind == "round_robin" else
                 "Per-player ratings with rotating partners (team = mean of its members)")
        st = result.standings
        if st.basis == "head-to-head":
            title += "; ranked by the head-to-head results, see the warnings"
        headers = ["rank", "agent"] + (["h2h W-D-L"] if st.record else []) + \
            [f"points/{unit}", "95% CI", "Elo", "95% CI"]
        rows = []
        for i in st.order:
            k = result.elo.names.index(result.names[i])
            rows.append([st.rank(i), result.names[i]]
                        + (["-".join(map(str, st.record[i]))] if st.record else [])
                        + [_fmt(result.points.rating[i], "+.2f"),
                           f"± {_fmt(result.points.half_width[i], '.2f')}",
                           _fmt(result.elo.rating[k], "+.0f"),
                           f"± {_fmt(result.elo.half_width[k], '.0f')}"])
        if any(b != w for b, w in st.ranges):
            title += "; ranks such as 1-2: not separated at 95%"
        out.append((title, headers, rows))
    if isinstance(result, KnockoutResult):
        n = len(result.rows)
        title = (f"Knockout: {n} tournament(s) of {len(result.players)} players, rules "
                 f"{result.rules.name}, games to {result.rules.target} in at most "
                 f"{result.max_deals} deals")
        headers = ["agent", "entrants", "titles", "title share", "expected", "rounds won/entrant",
                   "team Elo", "95% CI"]
        rows = []
        for s in result.specs:
            k = result.elo.names.index(s)
            rows.append([s, str(result.entrants(s)), _fmt(result.titles(s), ".1f"),
                         _fmt(result.title_share(s), ".3f"),
                         _fmt(result.entrants(s) / len(result.players), ".3f"),
                         _fmt(result.mean_rounds_won(s), ".2f"),
                         _fmt(result.elo.rating[k], "+.0f"), f"± {_fmt(result.elo.half_width[k], '.0f')}"])
        out.append((title, headers, rows))
    return out


def summary_tables(result) -> Tuple[List[Tuple[str, List[str], List[List[str]]]], List[str]]:
    """``(tables, lines)``: every table :func:`format_summary` prints, as ``(title,
    headers, rows)`` of text cells, and the lines printed under them: the notes on the
    columns (``note: ...``), then the warnings (the page of ``coinche-rl serve`` draws
    them)."""
    return _tables(result), _warnings(result)


#: printed under a ratings table with an h2h column
H2H_NOTE = ("note: h2h W-D-L counts each agent's direct matchups: a win or a loss where the "
            "95% CI of the margin excludes 0, a draw where it includes 0")


def _warnings(result) -> List[str]:
    """The lines under the tables, as printed: the notes on the columns, then the
    result's warnings (where its ratings and its matchups disagree)."""
    notes = []
    if isinstance(result, TournamentResult) and result.standings.record:
        notes.append(H2H_NOTE)
    fn = getattr(result, "warnings", None)
    return notes + ([f"warning: {w}" for w in fn()] if fn is not None else [])


def format_summary(result, use_rich: Optional[bool] = None, width: int = 140) -> str:
    """The summary tables of a result as text (rich's tables when installed), then its
    warnings, one line each (``warning: ...``)."""
    notes = _warnings(result)
    tables = _tables(result)
    if use_rich is None:
        try:
            import rich  # noqa: F401
            use_rich = True
        except ModuleNotFoundError:
            use_rich = False
    if use_rich:
        from rich.console import Console
        buf = io.StringIO()
        # force_jupyter=False: in a notebook rich would send the tables to the notebook's
        # display instead of ``buf``, and the text would come back empty
        console = Console(file=buf, width=width, color_system=None, force_terminal=False,
                          force_jupyter=False)
        for t in _rich_tables(tables):
            console.print(t)
        for line in notes:
            console.print(line, highlight=False, markup=False)
        return buf.getvalue().rstrip("\n")
    lines = []
    for title, headers, rows in tables:
        widths = [max(len(h), *(len(r[c]) for r in rows)) for c, h in enumerate(headers)]
        lines.append(title)
        lines.append("  ".join(h.rjust(w) for h, w in zip(headers, widths)))
        for r in rows:
            lines.append("  ".join(v.rjust(w) for v, w in zip(r, widths)))
        lines.append("")
    lines += notes
    return "\n".join(lines).rstrip("\n")


def _rich_tables(tables):
    from rich.table import Table
    out = []
    names = ("team X", "team Y", "agent")
    for title, headers, rows in tables:
        t = Table(title=title, title_justify="left")
        for c, h in enumerate(headers):
            if h in names:
                # partners on lines of their own ("a" / "+ b"): a narrow terminal wraps
                # between names, never inside one
                widest = max([len(h)] + [len(p) + 2 for r in rows for p in r[c].split("+")])
                t.add_column(h, justify="left", min_width=widest, overflow="fold")
            else:                            # values whole; a header may wrap
                widest = max([len(w) for w in h.split()] + [len(r[c]) for r in rows])
                t.add_column(h, justify="right", min_width=widest)
        for r in rows:
            t.add_row(*(v.replace("+", "\n+ ") if h in names else v for v, h in zip(r, headers)))
        out.append(t)
    return out


def print_summary(result, console=None) -> None:
    """Print the summary tables (rich, with colours on a terminal, when installed)."""
    try:
        from rich.console import Console
    except ModuleNotFoundError:
        print(format_summary(result, use_rich=False))
        return
    if console is None:
        console = Console()
        if not console.is_terminal:         # piped: rich would assume 80 columns
            console = Console(width=max(console.width, 140))
    for t in _rich_tables(_tables(result)):
        console.print(t)
    for line in _warnings(result):
        console.print(line, style="yellow" if line.startswith("warning:") else None,
                      highlight=False, markup=False)


def plot_results(result, path=None, bins: int = 60):
    """A figure: the distribution of the per-pair margins of every matchup (left) and
    the ratings with their 95% error bars (right; Elo for a knockout). Saved to ``path``
    when it is given (atomically: :func:`coinche_rl.files.atomic_write`), in the format
    its extension names, PNG without one. Returns the :class:`matplotlib.figure.Figure`.

    :raises ArenaError: when matplotlib is not installed (``pip install -e ".[arena]"`` in the clone).
    """
    try:
        from matplotlib.figure import Figure
    except ModuleNotFoundError:
        raise ArenaError("plots need matplotlib: pip install -e '.[arena]' in the clone (or make venv)") from None
    fig = Figure(figsize=(12, 4.8), layout="constrained")
    left, right = fig.subplots(1, 2, width_ratios=(3, 2))
    if isinstance(result, KnockoutResult):
        games = [g for r in result.rows for gs in r["rounds"] for g in gs]
        left.hist([g["deals"] for g in games], bins=np.arange(0.5, max(g["deals"] for g in games) + 1.5),
                  color="tab:blue", rwidth=0.85)
        left.set_xlabel("deals per game")
        left.set_ylabel("games")
        left.set_title(f"{len(result.rows)} knockout tournament(s), {len(games)} games")
        ratings, xlabel = result.elo, "team Bradley-Terry rating (Elo)"
    else:
        matchups = [result] if isinstance(result, DuplicateResult) else result.matchups
        shown = matchups[:8]
        span = max(float(np.abs(m.margins).max()) for m in shown if m.n)   # either side
        edges = np.linspace(-span, span, bins + 1) if span > 0 else np.linspace(-1, 1, 3)
        for k, m in enumerate(shown):
            if not m.n:
                continue
            lx, ly, mean, _ = _oriented(result, k, m)      # the same side as the tables
            margins = m.margins if mean == m.mean else -m.margins
            line = left.hist(margins, bins=edges, histtype="step", linewidth=1.4,
                             label=f"{lx} vs {ly}: {mean:+.1f} ± {m.ci95:.1f}")
            left.axvline(mean, color=line[2][0].get_edgecolor(), linestyle="--", linewidth=1)
        unit = "match" if matchups[0].match else "deal"
        pairs = "match pairs" if matchups[0].match else "deal pairs"
        left.set_xlabel(f"margin per {unit} pair (first team - second team, points per {unit})")
        left.set_ylabel(pairs)
        left.set_title("Duplicate margins" + (f" (first {len(shown)} matchups)" if len(matchups) > 8 else ""))
        left.legend(fontsize=8, loc="upper left")
        if isinstance(result, DuplicateResult):
            ratings = result.ratings()[0]
        else:
            ratings = result.points
        xlabel = f"rating (points per {unit}, field mean 0)"
    if isinstance(result, TournamentResult):
        order = result.standings.order[::-1]          # the table's order, best on top
    else:
        order = ratings.order()[::-1]
    ypos = np.arange(len(order))
    right.errorbar(ratings.rating[order], ypos, xerr=ratings.half_width[order], fmt="o",
                   capsize=4, color="tab:red")
    right.set_yticks(ypos, [ratings.names[i] for i in order])
    right.axvline(0.0, color="grey", linewidth=0.8)
    right.set_xlabel(xlabel)
    right.set_title("Ratings with 95% intervals")
    if path is not None:
        fmt = os.path.splitext(os.fspath(path))[1][1:].lower() or "png"
        atomic_write(path, lambda f: fig.savefig(f, format=fmt, dpi=110))
    return fig
