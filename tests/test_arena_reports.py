"""What the tournament reports say (issue 15, items 5 and 6): intervals of proportions
stay in [0, 1], ranks the ratings do not separate are shown as ranges, match-mode tables
and plots speak of matches, the plot's legend names matchups as the table does, and a
long run says how long it will take."""

from __future__ import annotations

import argparse
import math
import os

import numpy as np
import pytest

from coinche_rl import arena
from coinche_rl.arena import (DuplicateResult, TournamentResult, format_summary, run_duplicate,
                              run_round_robin)
from coinche_rl.rules import get_rules
from coinche_rl.cli import build_parser
from coinche_rl.cli.tournament import _print_estimate, _tournament_deals
from coinche_rl.ratings import Ratings, RatingsError, fit_points, team_design, wilson_interval


# ------------------------------------------------------------------ proportions
@pytest.mark.parametrize("k,n,lo,hi", [(3, 4, 0.3006, 0.9544), (0, 10, 0.0, 0.2775),
                                       (10, 10, 0.7225, 1.0), (50, 100, 0.4038, 0.5962)])
def test_wilson_interval_matches_the_published_values(k, n, lo, hi):
    # values of the Wilson score interval, e.g. Brown, Cai & DasGupta (2001), and the
    # closed form at p = 0.5
    got = wilson_interval(k, n)
    assert got == pytest.approx((lo, hi), abs=5e-4)


def test_wilson_interval_stays_in_the_unit_interval_and_checks_its_input():
    for n in range(1, 30):
        for k in np.arange(0, n + 0.5, 0.5):
            lo, hi = wilson_interval(float(k), n)
            assert 0.0 <= lo <= k / n <= hi <= 1.0
    assert all(math.isnan(v) for v in wilson_interval(0, 0))
    with pytest.raises(RatingsError, match="0 <= successes <= n"):
        wilson_interval(5, 4)


def test_a_small_matchup_prints_a_win_interval_inside_zero_one():
    r = run_duplicate("heuristic", "random", 4, seed=0)
    lo, hi = r.win_interval
    assert 0.0 <= lo < r.win_rate <= hi <= 1.0
    text = format_summary(r, use_rich=False)
    assert f"{r.win_rate:.3f} [{lo:.2f}, {hi:.2f}]" in text and "±" not in text.split("\n")[2][-40:]
    assert r.summary()["win_interval"] == [lo, hi]


# --------------------------------------------------------------------- ranks
def test_rank_ranges_use_the_covariance_of_the_ratings():
    # three players, a beats b by a hair, both crush c
    X = team_design([(0,), (0,), (1,)], [(1,), (2,), (2,)], 3)
    r = fit_points(X, np.array([2.0, 300.0, 298.0]), np.array([25.0, 25.0, 25.0]), "abc")
    assert r.cov is not None and r.cov.shape == (3, 3)
    assert r.rank_ranges() == [(1, 2), (1, 2), (3, 3)]
    assert not r.separated(0, 1) and r.separated(0, 2)
    sharp = fit_points(X, np.array([40.0, 300.0, 260.0]), np.array([25.0, 25.0, 25.0]), "abc")
    assert sharp.rank_ranges() == [(1, 1), (2, 2), (3, 3)]
    # without a covariance the variances of the two ratings add up
    plain = Ratings("points", ("a", "b"), np.array([1.0, -1.0]), np.array([1.0, 1.0]))
    assert plain.rank_ranges() == [(1, 2), (1, 2)]


def test_few_deal_pairs_give_a_rank_range_in_the_table():
    t = run_round_robin(["random", "heuristic", "nn"], 3, seed=0)
    text = format_summary(t, use_rich=False)
    ratings = text.split("Ratings")[1]
    assert "not separated at 95%" in ratings
    assert "1-2" in ratings                 # heuristic and nn, three deal pairs each
    rows = {line.split()[1]: line.split()[0] for line in ratings.splitlines()[2:] if line.strip()}
    assert rows["random"] == "3" and rows["heuristic"] == rows["nn"] == "1-2"


# ------------------------------------------------- ratings against the matchups
def _synthetic(means, sds, n=3000, seed=0):
    """A round robin of a, b, c whose matchups (a-b, a-c, b-c) have these per-pair
    margins: normal with the given means and sds."""
    rng = np.random.default_rng(seed)
    names = ["a", "b", "c"]
    teams = [((0,), (1,)), ((0,), (2,)), ((1,), (2,))]
    matchups = []
    for ((i,), (j,)), mean, sd in zip(teams, means, sds):
        m = rng.normal(mean, sd, n)
        scores = np.zeros((n, 2, 2))
        scores[:, 0, 0] = scores[:, 1, 0] = m                  # X's margin in both seatings
        matchups.append(DuplicateResult(
            x=(names[i],) * 2, y=(names[j],) * 2, rules=get_rules("ffb"), seed=0, frozen="",
            match=False, run="synthetic", index=np.arange(n), dealer=np.zeros(n, np.int64),
            scores=scores))
    return TournamentResult.from_matchups("round_robin", names, names, matchups, teams)


def _table_ranks(text):
    table = text.split("Ratings")[1].split("\n\n")[0]
    return [line.split()[:2] for line in table.splitlines()[2:] if line.strip()]


def test_ratings_that_misfit_warn_and_rank_by_the_head_to_head():
    # issue 23: a (nn) beats b (heuristic) by +31.5, but b beats c (random) by far more
    # than a does: the additive fit rates b above a
    t = _synthetic([31.5, 765.7, 1268.7], [185.0, 465.0, 435.0])
    assert t.points.order()[:2] == [1, 0] and t.points.fit.misfit
    m_ab = t.matchups[0]
    assert m_ab.mean - m_ab.ci95 > 0                              # a beat b, significantly
    text = format_summary(t, use_rich=False)
    ranks = _table_ranks(text)
    assert [name for _, name in ranks] == ["a", "b", "c"]        # never b above a
    assert [rank for rank, _ in ranks] == ["1", "2", "3"]
    assert "ranked by the head-to-head results" in text
    warnings = t.warnings()
    assert any(w.startswith("the additive points model") and "chi-square" in w
               and "widened" in w for w in warnings)
    assert any("the points ratings put b above a, but a beat b +" in w for w in warnings)
    assert any(w.startswith("furthest from the model") for w in warnings)
    assert all(f"warning: {w}" in text for w in warnings)
    # the intervals include the misfit
    assert t.points.half_width[0] > 10 * m_ab.ci95
    assert t.summary()["standings"]["order"] == ["a", "b", "c"]
    assert t.summary()["fit"]["points"]["misfit"] is True


def test_a_cycle_of_wins_is_said_and_its_players_are_not_separated():
    import re
    t = _synthetic([31.5, -765.7, 1268.7], [185.0, 465.0, 435.0])     # a > b > c > a
    assert t.standings.ranges == [(1, 3)] * 3
    warnings = t.warnings()
    assert sum("no order agrees with every matchup" in w for w in warnings) >= 1
    furthest = next(w for w in warnings if w.startswith("furthest from the model: "))
    # each matchup from the side that leads, as in the tables
    measured = re.findall(r"(\w) vs (\w) ([+-][\d.]+) per deal measured", furthest)
    assert len(measured) == 3 and all(float(m) > 0 for _, _, m in measured)
    assert ("c", "a") in {(x, y) for x, y, _ in measured}


def test_ratings_that_fit_do_not_warn():
    t = _synthetic([30.0, 330.0, 300.0], [185.0, 300.0, 300.0])
    assert not t.points.fit.misfit and not t.elo.fit.misfit
    assert t.warnings() == []
    text = format_summary(t, use_rich=False)
    assert "warning" not in text and "head-to-head results" not in text
    assert [name for _, name in _table_ranks(text)] == ["a", "b", "c"]
    assert t.standings.basis == "ratings"


def test_the_h2h_column_draws_a_matchup_whose_interval_includes_zero():
    # issue 44: b vs c +2 per deal with a 95% CI far wider than 2 is a draw, not a win
    t = _synthetic([300.0, 300.0, 2.0], [185.0, 185.0, 3000.0])
    m_bc = t.matchups[2]
    assert m_bc.mean > 0 and m_bc.mean - m_bc.ci95 < 0
    st = t.standings
    assert st.record == [(2, 0, 0), (0, 1, 1), (0, 1, 1)]
    text = format_summary(t, use_rich=False)
    ratings = text.split("Ratings")[1]
    assert "2-0-0" in ratings and ratings.count("0-1-1") == 2
    table, under = ratings.split("\n\n", 1)
    assert "h2h W-D-L" in table and "note: h2h W-D-L" in under and "includes 0" in under


def _inverted(order, value):
    return [(p, q) for k, p in enumerate(order) for q in order[k + 1:] if value(q) > value(p)]


@pytest.mark.parametrize("means,sds", [
    ([31.5, 765.7, 1268.7], [185.0, 465.0, 435.0]),       # misfit: ranked head to head
    ([30.0, 330.0, 300.0], [185.0, 300.0, 300.0]),        # fits: ranked by the points
    ([10.75, 900.0, 700.0], [300.0, 400.0, 100.0]),       # a-b close; b's margins far larger
    ([2.0, 50.0, 40.0], [40.0, 400.0, 40.0]),             # a wins c rarely but by much
])
def test_rank_points_elo_and_the_h2h_column_never_disagree_silently(means, sds):
    # issue 44: nnsearch ranked first by an insignificant "win" over pimc while its Elo
    # was below pimc's, with no warning
    t = _synthetic(means, sds, n=400)
    st, warnings = t.standings, " | ".join(t.warnings())
    for p, q in _inverted(st.order, lambda p: float(t.points.rating[p])):
        assert "ranked by the head-to-head results" in warnings
        assert f"{t.names[q]} above {t.names[p]}" in warnings
    for p, q in _inverted(st.order, lambda p: float(t.elo.rating[p])):
        assert f"the Elo ratings put" in warnings and f"{t.names[q]} above {t.names[p]}" in warnings
    for p, q in _inverted(st.order, st.score):
        assert f"the h2h column has" in warnings and f"{t.names[q]} (" in warnings


def test_a_close_matchup_does_not_decide_the_rank_against_the_elo():
    # a beats b by a margin inside its CI and loses most pairs; b beats c far more often
    t = _synthetic([10.75, 900.0, 700.0], [300.0, 400.0, 100.0], n=400)
    st = t.standings
    assert st.record[0][1] == 1 and st.record[1][1] == 1           # a-b is a draw
    text = format_summary(t, use_rich=False)
    assert t.elo.rating[1] > t.elo.rating[0] and st.order.index(0) < st.order.index(1)
    assert "warning: the Elo ratings put b above a, ranked the other way" in text


def test_the_rich_table_prints_the_warnings_too():
    pytest.importorskip("rich")
    t = _synthetic([31.5, 765.7, 1268.7], [185.0, 465.0, 435.0])
    text = format_summary(t, use_rich=True, width=300)
    assert "h2h W-D-L" in text and "warning: the additive points model" in text


# --------------------------------------------------------------------- units
def test_match_mode_speaks_of_matches_in_tables_and_plots():
    pytest.importorskip("matplotlib")
    t = run_round_robin(["random", "heuristic"], 2, seed=0, match=True)
    text = format_summary(t, use_rich=False)
    assert "per deal" not in text and "points/deal" not in text
    assert "points/match" in text and "per match" in text and "match pairs" in text
    fig = arena.plot_results(t)
    left, right = fig.axes
    assert "per match" in left.get_xlabel() and left.get_ylabel() == "match pairs"
    assert "per match" in right.get_xlabel()


def test_the_plot_legend_names_each_matchup_as_the_table_does():
    pytest.importorskip("matplotlib")
    t = run_round_robin(["random", "heuristic"], 6, seed=0)
    m = t.matchups[0]
    assert m.label_x == "random" and m.mean < 0          # the table shows heuristic first
    row = format_summary(t, use_rich=False).split("\n")[2].split()
    assert row[:2] == ["heuristic", "random"]
    legend = [x.get_text() for x in arena.plot_results(t).axes[0].get_legend().get_texts()]
    assert legend == [f"heuristic vs random: {-m.mean:+.1f} ± {m.ci95:.1f}"]


# ------------------------------------------------------------------ duration
def test_the_pool_is_not_recommended_for_numba_matchups(capsys, monkeypatch):
    # issue 23: nn against the heuristic, 30,000 deal pairs: 16.8 s with the pool, 10.6-12.5 s
    # serial, yet the estimate said "--backend pool plays on every core"
    monkeypatch.setattr(os, "cpu_count", lambda: 16)
    args = argparse.Namespace(deals=30_000, python_deals=None, backend="serial", workers=None,
                              no_numba=False)
    _print_estimate(arena, ["nn", "heuristic"], args)
    out = capsys.readouterr().out
    assert "estimated playing time" in out                 # long enough to be said
    assert "pool" not in out and "--python-deals" not in out
    # play through Python is what the pool speeds up
    slow = argparse.Namespace(deals=300, python_deals=None, backend="serial", workers=None,
                              no_numba=False)
    _print_estimate(arena, ["pimc", "random"], slow)
    assert "--backend pool plays them on every core" in capsys.readouterr().out
    # ... unless it is already the backend
    _print_estimate(arena, ["pimc", "random"], argparse.Namespace(**dict(vars(slow), backend="pool")))
    assert "pool" not in capsys.readouterr().out
    # a numba matchup next to a long Python one: the hint is for the Python one
    mixed = argparse.Namespace(deals=30_000, python_deals=200, backend="serial", workers=None,
                               no_numba=False)
    _print_estimate(arena, ["nn", "heuristic", "pimc"], mixed)
    assert "--backend pool plays them on every core" in capsys.readouterr().out



def test_estimate_follows_the_agents_costs():
    cheap = arena.estimate_seconds([(("heuristic",) * 2, ("random",) * 2)], [10_000])
    assert cheap == 0.0                                   # numba bots: free
    p32 = arena.estimate_seconds([(("pimc",) * 2, ("random",) * 2)], [10])
    p8 = arena.estimate_seconds([(("pimc:worlds=8",) * 2, ("random",) * 2)], [10])
    assert p32 == pytest.approx(4 * p8) and p32 == pytest.approx(2 * 10 * 2 * 0.12)
    assert arena.estimate_seconds([(("pimc",) * 2, ("random",) * 2)], [10], workers=4) == \
        pytest.approx(p32 / 4)


def test_the_default_tournament_is_short_and_a_long_one_says_how_long(capsys):
    args = build_parser().parse_args(["tournament"])
    _tournament_deals(args)
    assert args.python_deals == 20
    # default roster under ffb: pimc plays 3 matchups of 20 deal pairs
    est = arena.estimate_seconds([(("pimc",) * 2, (o,) * 2) for o in ("random", "heuristic", "nn")],
                                 [20] * 3)
    assert est < 60
    long = argparse.Namespace(deals=10_000, python_deals=500, backend="serial", workers=None,
                              no_numba=False)
    _print_estimate(arena, ["random", "pimc"], long)
    out = capsys.readouterr().out
    assert "estimated playing time: about 4.0 min on 1 core(s)" in out
    assert "--python-deals caps" in out
    assert ("--backend pool plays them on every core" in out) == ((os.cpu_count() or 1) > 1)
    short = argparse.Namespace(deals=10_000, python_deals=500, backend="serial", workers=None,
                               no_numba=False)
    _print_estimate(arena, ["random", "heuristic"], short)
    assert capsys.readouterr().out == ""


def test_the_tournament_says_it_compiles_before_the_progress_bar(capsys):
    from coinche_rl.cli import main
    assert main(["tournament", "--agents", "random", "heuristic", "--deals", "3",
                 "--no-progress"]) == 0
    out = capsys.readouterr().out
    assert out.index("preparing the numba kernels") < out.index("kernels ready in")
    assert out.index("kernels ready in") < out.index("Duplicate results")
