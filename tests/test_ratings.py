"""The statistics of the arena (``coinche_rl.ratings``): Student-t quantiles and
intervals, chi-square tail probabilities, points and Bradley-Terry ratings with their
goodness of fit, and standings that never contradict a significant head-to-head result
(the Wilson interval and the rank ranges are tested in ``test_arena_reports.py``)."""

from __future__ import annotations

import doctest
import math

import numpy as np
import pytest

from coinche_rl import ratings
from coinche_rl.ratings import (ELO_SCALE, HeadToHead, RatingsError, chi2_sf, elo_win_probability,
                                fit_bradley_terry, fit_points, mean_ci, standings, t_cdf,
                                t_quantile, team_design)
from coinche_rl.ratings import _t_quantile_expansion, _t_quantile_series


# ================================================================ statistics
@pytest.mark.parametrize("df, value", [(1, 12.706204736), (2, 4.302652730), (3, 3.182446305),
                                       (5, 2.570581836), (10, 2.228138852), (30, 2.042272456),
                                       (100, 1.983971519), (1000, 1.962339081),
                                       (200, 1.971896224)])
def test_t_quantile_975_known_values(df, value):
    assert t_quantile(0.975, df) == pytest.approx(value, abs=2e-9)


@pytest.mark.parametrize("p, df, value", [(0.995, 4, 4.604094871), (0.95, 7, 1.894578605),
                                          (0.9, 1, 3.077683537), (0.999, 20, 3.551808343),
                                          (0.025, 12, -2.178812830)])
def test_t_quantile_other_levels(p, df, value):
    assert t_quantile(p, df) == pytest.approx(value, abs=2e-9)


def test_t_series_and_expansion_agree_at_the_switch():
    for df in (250, 300, 301, 400):
        for p in (0.9, 0.975, 0.995):
            assert _t_quantile_series(p, df) == pytest.approx(_t_quantile_expansion(p, df), abs=1e-9)


def test_t_cdf_properties():
    assert t_cdf(0.0, 5) == 0.5
    for df in (1, 2, 7, 30):
        for t in (0.3, 1.0, 2.5):
            assert t_cdf(t, df) + t_cdf(-t, df) == pytest.approx(1.0, abs=1e-14)
            assert t_cdf(t_quantile(0.8, df), df) == pytest.approx(0.8, abs=1e-12)
    assert t_quantile(0.975, math.inf) == pytest.approx(1.959963985, abs=1e-9)
    with pytest.raises(RatingsError, match="positive integer"):
        t_quantile(0.975, 0)
    with pytest.raises(RatingsError, match="0 < p < 1"):
        t_quantile(1.0, 5)


def test_mean_ci_known_values():
    e = mean_ci([1, 2, 3, 4, 5])
    assert e.mean == 3.0 and e.n == 5
    assert e.sd == pytest.approx(math.sqrt(2.5))
    assert e.half_width == pytest.approx(2.776445105 * math.sqrt(2.5) / math.sqrt(5), abs=1e-9)
    assert (e.lo, e.hi) == (pytest.approx(3 - e.half_width), pytest.approx(3 + e.half_width))
    assert e.excludes(0.0) and not e.excludes(3.5)
    e90 = mean_ci([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0], level=0.90)
    assert e90.half_width == pytest.approx(1.894578605 * e90.sd / math.sqrt(8), abs=1e-9)
    assert mean_ci([7.0]).half_width == math.inf
    assert mean_ci([3.0, 3.0, 3.0]).half_width == 0.0
    with pytest.raises(RatingsError):
        mean_ci([])


def test_fit_points_recovers_a_noise_free_team_model():
    rng = np.random.default_rng(1)
    truth = np.array([30.0, 10.0, -5.0, -15.0, -20.0])
    truth -= truth.mean()
    teams1, teams2 = [], []
    for _ in range(40):
        a, b, c, d = rng.permutation(5)[:4]
        teams1.append((a, b))
        teams2.append((c, d))
    X = team_design(teams1, teams2, 5)
    r = fit_points(X, X @ truth, rng.uniform(1, 4, len(X)), [f"p{i}" for i in range(5)])
    assert np.allclose(r.rating, truth, atol=1e-9)
    assert r.rating.sum() == pytest.approx(0.0, abs=1e-9)
    assert r.order()[0] == 0 and r["p4"] == pytest.approx(truth[4])


def test_fit_points_head_to_head_is_half_the_margin():
    X = team_design([(0,)], [(1,)], 2)
    r = fit_points(X, [40.0], [25.0], ["a", "b"])
    assert r.rating.tolist() == pytest.approx([20.0, -20.0])
    assert r.se.tolist() == pytest.approx([2.5, 2.5])           # half the margin's se (5)
    assert r.half_width[0] == pytest.approx(1.959963985 * 2.5)


def test_bradley_terry_two_players_known_values():
    X = team_design([(0,)], [(1,)], 2)
    r = fit_bradley_terry(X, [75.0], [100.0], ["a", "b"])
    diff = r.rating[0] - r.rating[1]
    assert diff == pytest.approx(400 * math.log10(3), abs=0.5)     # the weak prior moves it a little
    se_diff = ELO_SCALE / math.sqrt(100 * 0.75 * 0.25)
    assert r.se[0] == pytest.approx(se_diff / 2, rel=0.01)
    assert elo_win_probability(diff) == pytest.approx(0.75, abs=1e-3)
    # a clean sweep stays finite thanks to the prior
    sweep = fit_bradley_terry(X, [50.0], [50.0], ["a", "b"])
    assert np.isfinite(sweep.rating).all() and sweep.rating[0] > 500


def test_bradley_terry_team_model_recovers_strengths():
    truth = np.array([200.0, 50.0, -100.0, -150.0])
    truth -= truth.mean()
    t1, t2, w, g = [], [], [], []
    for split in (((0, 1), (2, 3)), ((0, 2), (1, 3)), ((0, 3), (1, 2))):
        t1.append(split[0])
        t2.append(split[1])
        diff = truth[list(split[0])].mean() - truth[list(split[1])].mean()
        g.append(1e6)
        w.append(1e6 * elo_win_probability(diff))
    for i in range(4):                 # head-to-head rows pin every player
        j = (i + 1) % 4
        t1.append((i,))
        t2.append((j,))
        g.append(1e6)
        w.append(1e6 * elo_win_probability(truth[i] - truth[j]))
    r = fit_bradley_terry(team_design(t1, t2, 4), w, g, list("abcd"))
    assert np.allclose(r.rating, truth, atol=0.5)


def test_rating_inputs_rejected():
    X = team_design([(0,)], [(1,)], 2)
    with pytest.raises(RatingsError, match="0 <= wins <= games"):
        fit_bradley_terry(X, [5.0], [3.0], ["a", "b"])
    with pytest.raises(RatingsError, match="at least two"):
        fit_points(np.zeros((1, 1)), [0.0], [1.0], ["a"])
    with pytest.raises(RatingsError, match="player index"):
        team_design([(0, 5)], [(1,)], 2)


# ============================================================== goodness of fit
@pytest.mark.parametrize("x, df, p", [(3.841458821, 1, 0.05), (6.634896601, 1, 0.01),
                                      (5.991464547, 2, 0.05), (7.814727903, 3, 0.05),
                                      (18.307038054, 10, 0.05), (124.342113404, 100, 0.05),
                                      (0.454936423, 1, 0.5), (1.0, 2, math.exp(-0.5))])
def test_chi2_sf_known_values(x, df, p):
    # quantiles of the chi-square distribution (standard tables; df=2 is exp(-x/2))
    assert chi2_sf(x, df) == pytest.approx(p, rel=1e-8)


def test_chi2_sf_extremes_and_inputs():
    assert chi2_sf(0.0, 4) == 1.0 and chi2_sf(math.inf, 3) == 0.0
    assert 0.0 <= chi2_sf(5000.0, 7) < 1e-300 or chi2_sf(5000.0, 7) == 0.0
    assert chi2_sf(2000.0, 2001) == pytest.approx(0.5, abs=0.01)    # mean df, no overflow
    with pytest.raises(RatingsError):
        chi2_sf(1.0, 0)


def _triangle():
    # a-b, a-c, b-c: one degree of freedom, the sum around the cycle
    return team_design([(0,), (0,), (1,)], [(1,), (2,), (2,)], 3)


def test_points_fit_that_holds_keeps_its_intervals():
    X = _triangle()
    ok = fit_points(X, [30.0, 330.0, 301.0], [4.0, 9.0, 9.0], "abc")
    assert ok.fit is not None and ok.fit.df == 1 and not ok.fit.misfit
    assert ok.fit.scale == 1.0
    # the test is the weighted residual sum of squares: 1 point around the cycle
    assert ok.fit.statistic == pytest.approx(1.0 / 22.0)
    assert np.allclose(ok.fitted, X @ ok.rating)


def test_points_misfit_widens_the_intervals_by_the_overdispersion():
    X = _triangle()
    v = np.array([11.46, 72.23, 63.19])
    fitting = fit_points(X, [31.48, 1300.15, 1268.67], v, "abc")       # additive
    bad = fit_points(X, [31.48, 765.73, 1268.67], v, "abc")            # issue 23's round robin
    assert not fitting.fit.misfit and bad.fit.misfit
    cycle = 31.48 + 1268.67 - 765.73
    assert bad.fit.statistic == pytest.approx(cycle ** 2 / v.sum())
    assert bad.fit.p_value < 1e-6 and bad.fit.scale == pytest.approx(math.sqrt(cycle ** 2 / v.sum()))
    assert np.allclose(bad.se, fitting.se * bad.fit.scale)              # widened, same design
    assert np.allclose(bad.cov, fitting.cov * bad.fit.scale ** 2)
    assert np.all(np.abs(bad.residuals) > 1.96)
    # a matchup of one deal pair has no variance: the fit cannot be tested
    assert fit_points(X, [1.0, 2.0, 50.0], [0.0, 0.0, 0.0], "abc").fit is None
    # as many free ratings as matchups: nothing left to test
    assert fit_points(team_design([(0,)], [(1,)], 2), [5.0], [1.0], "ab").fit is None


def test_bradley_terry_misfit_widens_the_intervals():
    X = _triangle()
    g = np.full(3, 3000.0)
    holds = [3000 * elo_win_probability(d) for d in (50.0, 250.0, 200.0)]
    fits = fit_bradley_terry(X, holds, g, "abc")
    assert fits.fit is not None and not fits.fit.misfit and fits.fit.statistic < 1e-3
    cycle = fit_bradley_terry(X, [1773.0, 2856.0, 2988.0], g, "abc")   # 0.591, 0.952, 0.996
    assert cycle.fit.misfit and cycle.fit.name == "deviance"
    raw = fit_bradley_terry(X, [1773.0, 2856.0, 2988.0], g, "abc", level=1 - 1e-300)
    assert not raw.fit.misfit                                          # no test, no widening
    assert np.allclose(cycle.se, raw.se * cycle.fit.scale)


def test_standings_follow_the_ratings_when_they_fit():
    X = _triangle()
    r = fit_points(X, [30.0, 330.0, 301.0], [4.0, 9.0, 9.0], "abc")
    games = [HeadToHead(0, 1, 30.0, 3.9), HeadToHead(0, 2, 330.0, 5.9), HeadToHead(1, 2, 301.0, 5.9)]
    s = standings(r, games)
    assert s.basis == "ratings" and s.order == r.order() == [0, 1, 2]
    assert s.ranges == r.rank_ranges() and not s.contradicted and not s.unresolved
    assert s.record == [(2, 0, 0), (1, 0, 1), (0, 0, 2)]


def test_standings_never_order_two_agents_against_their_direct_matchup():
    X = _triangle()
    r = fit_points(X, [31.48, 765.73, 1268.67], [11.46, 72.23, 63.19], ["nn", "heuristic", "random"])
    assert r.order() == [1, 0, 2]                       # the ratings: heuristic above nn
    games = [HeadToHead(0, 1, 31.48, 6.64), HeadToHead(0, 2, 765.73, 16.66),
             HeadToHead(1, 2, 1268.67, 15.59)]
    s = standings(r, games)
    assert s.basis == "head-to-head" and s.order == [0, 1, 2]
    assert s.contradicted == [games[0]] and s.unresolved == []
    assert [s.rank(p) for p in range(3)] == ["1", "2", "3"]
    # an insignificant direct result does not separate the two
    close = standings(r, [HeadToHead(0, 1, 3.0, 6.64)] + games[1:])
    assert close.basis == "head-to-head" and close.ranges[0] == close.ranges[1] == (1, 2)


def test_standings_respect_chains_of_significant_wins_over_win_counts():
    # a beat b significantly; b won its other games narrowly, a lost its narrowly: by
    # wins b would go first, against the one significant result
    names = list("abcde")
    X = team_design([(0,), (1,), (1,), (1,), (0,), (0,), (0,), (2,), (2,), (3,)],
                    [(1,), (2,), (3,), (4,), (2,), (3,), (4,), (3,), (4,), (4,)], 5)
    means = [50.0, 1.0, 1.0, 1.0, -1.0, -1.0, -1.0, 0.5, 0.5, 0.5]
    r = fit_points(X, means, [4.0] * 10, names)
    games = [HeadToHead(int(np.argmax(row)), int(np.argmin(row)), m, 3.9)
             for row, m in zip(X, means)]
    s = standings(r, games)
    assert s.basis == "head-to-head"
    assert s.order.index(0) < s.order.index(1) and s.unresolved == []
    assert s.ranges[0] == (1, 4) and s.ranges[1] == (2, 5)     # a above b, nothing else sure
    # counting every positive margin as a win would put b first
    signs = [0] * 5
    for h in games:
        signs[h.winner] += 1
    assert signs[1] > signs[0]
    # the column counts only the significant results: the narrow ones are draws
    assert s.record[0] == (1, 3, 0) and s.record[1] == (0, 3, 1)


def test_the_record_counts_an_insignificant_result_as_a_draw():
    # issue 44: +0.50 ± 19.84 over 20 pairs was a win in the h2h column
    X = _triangle()
    r = fit_points(X, [0.5, 300.0, 290.0], [100.0, 100.0, 100.0], "abc")
    games = [HeadToHead(0, 1, 0.5, 19.84), HeadToHead(0, 2, 300.0, 19.6), HeadToHead(1, 2, 290.0, 19.6)]
    s = standings(r, games)
    assert s.record == [(1, 1, 0), (1, 1, 0), (0, 0, 2)]
    assert s.score(0) == s.score(1) == 1.5 and s.score(2) == 0.0


def test_standings_of_a_cycle_say_no_order_agrees():
    X = _triangle()
    r = fit_points(X, [40.0, -40.0, 40.0], [4.0, 4.0, 4.0], "abc")     # a > b > c > a
    games = [HeadToHead(0, 1, 40.0, 3.9), HeadToHead(0, 2, -40.0, 3.9), HeadToHead(1, 2, 40.0, 3.9)]
    s = standings(r, games)
    assert r.fit.misfit and s.basis == "head-to-head"
    assert len(s.unresolved) == 1 and s.ranges == [(1, 3)] * 3


def test_module_doctests():
    assert doctest.testmod(ratings).failed == 0
