"""Statistics of the arena (``coinche_rl.ratings``): confidence intervals and ratings.

Everything here is plain numpy and the standard library (no scipy), so the tournament
tools work with the core dependencies alone.

* :func:`t_quantile`: quantiles of Student's t distribution, exact for small degrees of
  freedom (the closed-form series of the t distribution function for an integer number
  of degrees of freedom, inverted by bisection) and by the Cornish-Fisher expansion in
  ``1/df`` beyond 300 degrees of freedom, where it agrees with the series to 1e-9.
* :func:`mean_ci`: a mean with its two-sided Student-t confidence interval; duplicate
  tournaments report the mean score difference per deal pair with it.
* :func:`wilson_interval`: the Wilson score interval of a proportion (win rates): it
  stays inside [0, 1] and keeps its coverage for small samples and rates near 0 or 1,
  where ``p ± 1.96 sd / sqrt(n)`` does neither (Wilson 1927; Brown, Cai & DasGupta 2001,
  "Interval estimation for a binomial proportion", recommend it over the Wald interval).
* :func:`fit_points`: additive *points* ratings by weighted least squares: the expected
  margin of team 1 over team 2 in points per deal is the mean rating of team 1's members
  minus the mean rating of team 2's. With one agent per team it is the plain head-to-head
  model; with partners it separates an agent's strength from its partners'.
* :func:`fit_bradley_terry`: Bradley-Terry ratings on the Elo scale from win / draw /
  loss counts, with the same team model (a team's strength is the mean of its members'
  ratings), fitted by Newton's method.

Both fits report ratings relative to the field (they sum to zero) with standard errors
from the inverse information matrix, and 95% confidence half-widths ``1.96 * se``;
:meth:`Ratings.rank_ranges` turns them into the ranks each player could hold (a rank is
only shown as certain when the rating differences to the others are significant).

**Goodness of fit.** An additive model need not fit: against ``random`` a strong agent
wins by its own coinches, which no difference of two ratings captures, so the ratings
of a round robin can order two agents against their own head-to-head result. Both fits
test themselves (:class:`GoodnessOfFit`): the points fit with the weighted residual sum
of squares ``sum((margin - model)^2 / variance)``, the Bradley-Terry fit with the
deviance of the win counts grouped by matchup, each against the chi-square distribution
with ``rows - (players - 1)`` degrees of freedom (:func:`chi2_sf`). When the test rejects
the model at the 5% level, its covariance is multiplied by the overdispersion factor
``statistic / df`` (the quasi-likelihood correction: the residuals show the matchups
vary that much more than the model allows), so its intervals include the misfit.
:func:`standings` ranks the players: by the ratings when they fit and no significant
head-to-head result contradicts them, otherwise by the head-to-head results
themselves, and lists the matchups that contradict the ratings.

>>> round(t_quantile(0.975, 10), 4)
2.2281
>>> est = mean_ci([1, 2, 3, 4, 5])
>>> est.mean, round(est.half_width, 4)
(3.0, 1.9632)
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from statistics import NormalDist
from typing import List, Optional, Sequence, Tuple

import numpy as np

__all__ = ["Estimate", "t_cdf", "t_quantile", "mean_ci", "wilson_interval", "Ratings", "fit_points",
           "fit_bradley_terry", "ELO_SCALE", "elo_win_probability", "team_design", "chi2_sf",
           "GoodnessOfFit", "HeadToHead", "Standings", "standings"]

#: Elo points per natural-log odds unit: P(win) = 1 / (1 + 10 ** (-diff / 400))
ELO_SCALE = 400.0 / math.log(10.0)

#: beyond this many degrees of freedom the Cornish-Fisher expansion is used
_SERIES_MAX_DF = 300


class RatingsError(ValueError):
    """Inputs a rating fit or an interval cannot use (the message says which)."""


# ------------------------------------------------------------------ Student's t
def t_cdf(t: float, df: int) -> float:
    """P(T <= t) for Student's t with ``df`` (a positive integer) degrees of freedom.

    The finite series of the t distribution function in ``theta = atan(t / sqrt(df))``
    (odd and even ``df`` have separate forms), exact up to rounding.

    >>> round(t_cdf(12.706204736, 1), 6)
    0.975
    """
    df = _check_df(df)
    if t == 0:
        return 0.5
    theta = math.atan(abs(t) / math.sqrt(df))
    s, c = math.sin(theta), math.cos(theta)
    c2 = c * c
    if df % 2 == 1:
        # P(|T| < t) = (2/pi) (theta + sin cos (1 + 2/3 c^2 + 2.4/(3.5) c^4 + ...))
        total, term = 0.0, 1.0
        if df > 1:
            total = 1.0
            for k in range(1, (df - 3) // 2 + 1):
                term *= c2 * (2 * k) / (2 * k + 1)
                total += term
        a = 2.0 / math.pi * (theta + s * c * total)
    else:
        # P(|T| < t) = sin (1 + 1/2 c^2 + 1.3/(2.4) c^4 + ...)
        total, term = 1.0, 1.0
        for k in range(1, (df - 2) // 2 + 1):
            term *= c2 * (2 * k - 1) / (2 * k)
            total += term
        a = s * total
    a = min(max(a, 0.0), 1.0)
    return 0.5 + 0.5 * a if t > 0 else 0.5 - 0.5 * a


def _check_df(df) -> int:
    if isinstance(df, bool) or int(df) != df or df < 1:
        raise RatingsError(f"degrees of freedom must be a positive integer, got {df!r}")
    return int(df)


def _t_quantile_series(p: float, df: int) -> float:
    """Invert :func:`t_cdf` by bisection (p > 0.5)."""
    lo, hi = 0.0, 1.0
    while t_cdf(hi, df) < p:
        lo, hi = hi, hi * 2.0
        if hi > 1e12:
            return math.inf
    for _ in range(200):
        mid = 0.5 * (lo + hi)
        if t_cdf(mid, df) < p:
            lo = mid
        else:
            hi = mid
        if hi - lo <= 1e-13 * max(1.0, hi):
            break
    return 0.5 * (lo + hi)


def _t_quantile_expansion(p: float, df: int) -> float:
    """Cornish-Fisher expansion of the t quantile in powers of 1/df around the normal
    quantile z (terms to 1/df^4)."""
    z = NormalDist().inv_cdf(p)
    z2 = z * z
    g1 = (z2 + 1) * z / 4
    g2 = ((5 * z2 + 16) * z2 + 3) * z / 96
    g3 = (((3 * z2 + 19) * z2 + 17) * z2 - 15) * z / 384
    g4 = ((((79 * z2 + 776) * z2 + 1482) * z2 - 1920) * z2 - 945) * z / 92160
    v = float(df)
    return z + g1 / v + g2 / v ** 2 + g3 / v ** 3 + g4 / v ** 4


def t_quantile(p: float, df: int) -> float:
    """The ``p`` quantile of Student's t with ``df`` degrees of freedom (``0 < p < 1``;
    ``df`` a positive integer, or ``math.inf`` for the normal quantile).

    >>> round(t_quantile(0.975, 1), 4), round(t_quantile(0.975, 30), 4)
    (12.7062, 2.0423)
    """
    if not 0.0 < p < 1.0:
        raise RatingsError(f"a quantile needs 0 < p < 1, got {p!r}")
    if df == math.inf:
        return NormalDist().inv_cdf(p)
    df = _check_df(df)
    if p == 0.5:
        return 0.0
    if p < 0.5:
        return -t_quantile(1.0 - p, df)
    if df > _SERIES_MAX_DF:
        return _t_quantile_expansion(p, df)
    return _t_quantile_series(p, df)


# ------------------------------------------------------------------ chi-square
def chi2_sf(x: float, df: int) -> float:
    """P(X > x) for a chi-square variable with ``df`` (a positive integer) degrees of
    freedom: the finite series of the distribution for an integer ``df`` (even: a Poisson
    tail, ``exp(-x/2) sum_{k < df/2} (x/2)^k / k!``; odd: the normal tail of ``sqrt(x)``
    plus ``sqrt(2/pi) exp(-x/2) sum_{k=1}^{(df-1)/2} x^(k-1/2) / (1 3 5 ... (2k-1))``),
    its terms summed in logarithms so that no term overflows.

    >>> round(chi2_sf(3.841458821, 1), 6), round(chi2_sf(5.991464547, 2), 6)
    (0.05, 0.05)
    >>> round(chi2_sf(18.307038054, 10), 6), chi2_sf(0.0, 3)
    (0.05, 1.0)
    """
    df = _check_df(df)
    if not x > 0.0:
        if math.isnan(x):
            raise RatingsError("chi2_sf of NaN")
        return 1.0
    if math.isinf(x):
        return 0.0
    half = x / 2.0
    if df % 2 == 0:
        terms = [-half + k * math.log(half) - math.lgamma(k + 1) for k in range(df // 2)]
        base = 0.0
    else:
        root = math.sqrt(x)
        base = math.erfc(root / math.sqrt(2.0))            # 2 (1 - Phi(sqrt x))
        # log(1 3 5 ... (2k-1)) = lgamma(2k + 1) - k log 2 - lgamma(k + 1)
        terms = [0.5 * math.log(2.0 / math.pi) - half + (k - 0.5) * math.log(x)
                 - (math.lgamma(2 * k + 1) - k * math.log(2.0) - math.lgamma(k + 1))
                 for k in range(1, (df - 1) // 2 + 1)]
    top = max(terms) if terms else -math.inf
    tail = math.exp(top) * sum(math.exp(t - top) for t in terms) if terms else 0.0
    return min(1.0, max(0.0, base + tail))


@dataclass(frozen=True)
class GoodnessOfFit:
    """A rating model's fit to its matchups: ``statistic`` (chi-square distributed with
    ``df`` degrees of freedom when the model holds) and its ``p_value``.

    ``misfit`` when ``df > 0`` and ``p_value < 1 - level``; ``dispersion`` is
    ``statistic / df``, and ``scale`` the factor the fit applied to its standard errors
    (``sqrt(dispersion)`` on a misfit, else 1).

    >>> g = GoodnessOfFit("chi-square", 40.0, 1, chi2_sf(40.0, 1))
    >>> g.misfit, round(g.scale, 3), str(g)
    (True, 6.325, 'chi-square 40.0 on 1 df, p < 0.001')
    """

    name: str
    statistic: float
    df: int
    p_value: float
    level: float = 0.95

    @property
    def misfit(self) -> bool:
        return self.df > 0 and self.p_value < 1.0 - self.level

    @property
    def dispersion(self) -> float:
        return self.statistic / self.df if self.df > 0 else math.nan

    @property
    def scale(self) -> float:
        return math.sqrt(self.dispersion) if self.misfit and self.dispersion > 1.0 else 1.0

    def as_dict(self) -> dict:
        return {"test": self.name, "statistic": self.statistic, "df": self.df,
                "p_value": self.p_value, "misfit": self.misfit, "se_scale": self.scale}

    def __str__(self) -> str:
        p = "p < 0.001" if self.p_value < 0.001 else f"p = {self.p_value:.3f}"
        return f"{self.name} {self.statistic:.1f} on {self.df} df, {p}"


def _goodness(name: str, statistic: float, df: int, level: float) -> Optional[GoodnessOfFit]:
    if df < 1 or not math.isfinite(statistic):
        return None
    return GoodnessOfFit(name, float(statistic), int(df), chi2_sf(max(statistic, 0.0), df), level)


# ------------------------------------------------------------------- estimates
@dataclass(frozen=True)
class Estimate:
    """A mean with its confidence interval: ``mean ± half_width`` at ``level``."""

    mean: float
    half_width: float
    sd: float
    n: int
    level: float = 0.95

    @property
    def lo(self) -> float:
        return self.mean - self.half_width

    @property
    def hi(self) -> float:
        return self.mean + self.half_width

    @property
    def se(self) -> float:
        return self.sd / math.sqrt(self.n) if self.n > 0 else math.nan

    def excludes(self, value: float = 0.0) -> bool:
        """True when ``value`` lies outside the interval."""
        return not (self.lo <= value <= self.hi)

    def __str__(self) -> str:
        return f"{self.mean:+.2f} ± {self.half_width:.2f}"


def mean_ci(values: Sequence[float], level: float = 0.95) -> Estimate:
    """The mean of ``values`` with its two-sided Student-t confidence interval at
    ``level``: ``t_{(1+level)/2, n-1} * sd / sqrt(n)``, ``sd`` with ``n - 1`` in the
    denominator. One value gives an infinite half-width; none raises.

    >>> e = mean_ci([2.0, 4.0, 4.0, 4.0, 5.0, 5.0, 7.0, 9.0])
    >>> e.mean, round(e.sd, 4), round(e.half_width, 4)
    (5.0, 2.1381, 1.7875)
    """
    x = np.asarray(values, dtype=np.float64).ravel()
    if not 0.0 < level < 1.0:
        raise RatingsError(f"a confidence level is in (0, 1), got {level!r}")
    n = len(x)
    if n == 0:
        raise RatingsError("a mean needs at least one value")
    mean = float(x.mean())
    if n == 1:
        return Estimate(mean, math.inf, math.nan, 1, level)
    sd = float(x.std(ddof=1))
    half = t_quantile(0.5 + level / 2.0, n - 1) * sd / math.sqrt(n)
    return Estimate(mean, half, sd, n, level)


def wilson_interval(successes: float, n: int, level: float = 0.95) -> tuple:
    """The Wilson score interval ``(lo, hi)`` of a proportion: ``successes`` out of
    ``n`` trials (a draw may count one half). Inside [0, 1] for every input; NaNs for
    ``n = 0``.

    >>> lo, hi = wilson_interval(3, 4)              # 0.750 ± 0.796 with the Wald interval
    >>> round(lo, 3), round(hi, 3)
    (0.301, 0.954)
    >>> wilson_interval(0, 10)[0]
    0.0
    """
    if not 0.0 < level < 1.0:
        raise RatingsError(f"a confidence level is in (0, 1), got {level!r}")
    if isinstance(n, bool) or n < 0 or not 0 <= successes <= n:
        raise RatingsError(f"need 0 <= successes <= n, got {successes!r} of {n!r}")
    if n == 0:
        return (math.nan, math.nan)
    z = NormalDist().inv_cdf(0.5 + level / 2.0)
    p = successes / n
    den = 1.0 + z * z / n
    centre = (p + z * z / (2 * n)) / den
    half = z / den * math.sqrt(p * (1.0 - p) / n + z * z / (4.0 * n * n))
    lo = 0.0 if successes == 0 else max(0.0, centre - half)      # exact at the ends
    hi = 1.0 if successes == n else min(1.0, centre + half)
    return (lo, hi)


# --------------------------------------------------------------------- ratings
@dataclass(frozen=True)
class Ratings:
    """Ratings of ``names`` (summing to zero) with standard errors.

    ``kind`` is ``"points"`` (points per deal) or ``"elo"`` (Bradley-Terry on the Elo
    scale). ``half_width`` is ``1.96 * se`` (95%). ``cov`` is the covariance matrix of
    the ratings when the fit gives it (ratings relative to the field are correlated:
    the variance of a difference is not the sum of the two variances).

    ``fit`` is the model's :class:`GoodnessOfFit` (None when it cannot be tested: as
    many free ratings as matchups, or matchups without a variance); on a misfit ``se``
    and ``cov`` already include the overdispersion. ``fitted[k]`` is the model's value
    of input row ``k`` (a margin, or team 1's win probability) and ``residuals[k]`` its
    standardized residual (NaN for a row the fit could not use).
    """

    kind: str
    names: tuple
    rating: np.ndarray
    se: np.ndarray
    cov: np.ndarray = None
    fit: Optional[GoodnessOfFit] = None
    fitted: Optional[np.ndarray] = None
    residuals: Optional[np.ndarray] = None

    def separated(self, i: int, j: int, level: float = 0.95) -> bool:
        """Whether ratings ``i`` and ``j`` differ significantly (two-sided z test of
        their difference at ``level``, with the covariance when known)."""
        var = float(self.se[i] ** 2 + self.se[j] ** 2)
        if self.cov is not None:
            var -= 2.0 * float(self.cov[i, j])
        diff = abs(float(self.rating[i] - self.rating[j]))
        if var <= 0.0:
            return diff > 0.0
        return diff > NormalDist().inv_cdf(0.5 + level / 2.0) * math.sqrt(var)

    def rank_ranges(self, level: float = 0.95) -> list:
        """Per player, ``(best, worst)`` rank it could hold: 1 + the players rated
        significantly higher, and the players not rated significantly lower.

        >>> r = Ratings("points", ("a", "b", "c"), np.array([10.0, 9.0, -19.0]), np.ones(3))
        >>> r.rank_ranges()
        [(1, 2), (1, 2), (3, 3)]
        """
        n = len(self.names)
        out = []
        for i in range(n):
            above = sum(1 for j in range(n) if j != i and self.rating[j] > self.rating[i]
                        and self.separated(i, j, level))
            below = sum(1 for j in range(n) if j != i and self.rating[j] < self.rating[i]
                        and self.separated(i, j, level))
            out.append((1 + above, n - below))
        return out

    @property
    def half_width(self) -> np.ndarray:
        return 1.959963984540054 * self.se

    def __getitem__(self, name) -> float:
        return float(self.rating[self.names.index(name)])

    def as_dict(self) -> dict:
        """Per name its rating, se and 95% half-width (the goodness of fit:
        :meth:`GoodnessOfFit.as_dict` of :attr:`fit`)."""
        return {n: {"rating": float(r), "se": float(s), "ci95": float(1.959963984540054 * s)}
                for n, r, s in zip(self.names, self.rating, self.se)}

    def order(self) -> list:
        """Indices from the best rated to the worst."""
        return [int(i) for i in np.argsort(-self.rating, kind="stable")]


def team_design(teams_1, teams_2, n_players: int) -> np.ndarray:
    """Rows of the team model: each team's members get weight ``1 / len(team)`` (a
    player listed twice gets both shares), team 1 positive and team 2 negative.

    >>> team_design([(0, 1)], [(2, 2)], 3).tolist()
    [[0.5, 0.5, -1.0]]
    """
    X = np.zeros((len(teams_1), n_players))
    for r, (t1, t2) in enumerate(zip(teams_1, teams_2)):
        for members, sign in ((t1, 1.0), (t2, -1.0)):
            members = tuple(members)
            if not members:
                raise RatingsError(f"row {r}: a team needs at least one player")
            for m in members:
                if not 0 <= int(m) < n_players:
                    raise RatingsError(f"row {r}: player index {m!r} is not in 0..{n_players - 1}")
                X[r, int(m)] += sign / len(members)
    return X


def _sum_zero_basis(p: int) -> np.ndarray:
    """An orthonormal basis (p x (p-1)) of the vectors summing to zero."""
    q, _ = np.linalg.qr(np.vstack([np.ones(p), np.eye(p)[: p - 1]]).T)
    return q[:, 1:]


def _check_names(names, X):
    names = tuple(names)
    if len(names) < 2:
        raise RatingsError(f"ratings need at least two players, got {len(names)}")
    if X.shape[1] != len(names):
        raise RatingsError(f"the design has {X.shape[1]} columns for {len(names)} names")
    return names


def _fit_inputs(X, a, b, names, what: str):
    """``X`` and the two per-row arrays of a fit as float64, and the checked names."""
    X = np.asarray(X, dtype=np.float64)
    a = np.asarray(a, dtype=np.float64)
    b = np.asarray(b, dtype=np.float64)
    names = _check_names(names, X)
    if not (len(a) == len(b) == X.shape[0]):
        raise RatingsError(f"X, {what} must have one row per matchup")
    return X, a, b, names


def fit_points(X, margins, variances, names, level: float = 0.95) -> Ratings:
    """Points ratings by weighted least squares.

    :param X: ``(m, p)`` team design (:func:`team_design`): row ``k`` is one matchup.
    :param margins: ``(m,)`` mean margin of team 1 over team 2 in points per deal.
    :param variances: ``(m,)`` squared standard errors of those means; a zero variance
        (identical teams give exactly 0) is floored at 1e-9 of the largest, so that the
        row is held almost exactly.
    :param level: the goodness-of-fit test rejects the model when its p-value is below
        ``1 - level``; the covariance is then scaled by the overdispersion factor.
    :returns: ratings summing to zero; ``margin(team1, team2) ≈ mean(team1) - mean(team2)``.

    The goodness of fit is the weighted residual sum of squares, chi-square with
    ``rows - rank`` degrees of freedom under the model (rows of identical teams left out;
    not tested when a row has no variance, e.g. a matchup of one deal pair). The matchups
    are treated as independent (they may share deals, which this ignores).

    >>> X = team_design([(0,), (0,), (1,)], [(1,), (2,), (2,)], 3)
    >>> additive = fit_points(X, [10.0, 30.0, 20.0], [4.0, 4.0, 4.0], "abc")
    >>> additive.fit.misfit, [round(float(v), 6) for v in additive.rating]
    (False, [13.333333, 3.333333, -16.666667])
    >>> cycle = fit_points(X, [10.0, 30.0, 60.0], [4.0, 4.0, 4.0], "abc")
    >>> str(cycle.fit), round(cycle.fit.scale, 2)
    ('chi-square 133.3 on 1 df, p < 0.001', 11.55)
    """
    X, y, v, names = _fit_inputs(X, margins, variances, names, "margins and variances")
    if not np.all(np.isfinite(y)) or not np.all(np.isfinite(v)) or np.any(v < 0):
        raise RatingsError("margins must be finite and variances finite and >= 0")
    fitted_all = np.full(len(y), np.nan)
    resid_all = np.full(len(y), np.nan)
    keep = np.abs(X).sum(axis=1) > 1e-12
    X_all = X
    X, y, v = X[keep], y[keep], v[keep]
    p = X.shape[1]
    floor = max(v.max() if len(v) else 0.0, 1.0) * 1e-9
    w = 1.0 / np.maximum(v, floor)
    Z = _sum_zero_basis(p)
    A = Z.T @ (X.T * w) @ X @ Z
    inv = np.linalg.pinv(A, rcond=1e-13, hermitian=True)
    beta = inv @ (Z.T @ (X.T @ (w * y)))
    theta = Z @ beta
    cov = Z @ inv @ Z.T
    fitted_all = X_all @ theta
    fit = None
    if len(y) and np.all(v > 0):
        r = y - X @ theta
        resid_all[keep] = r / np.sqrt(v)
        rank = np.linalg.matrix_rank(X @ Z, tol=1e-10)
        fit = _goodness("chi-square", float(np.sum(w * r * r)), len(y) - rank, level)
        if fit is not None and fit.misfit:
            cov = cov * fit.scale ** 2
    se = np.sqrt(np.maximum(np.diag(cov), 0.0))
    return Ratings("points", names, theta, se, cov, fit, fitted_all, resid_all)


def fit_bradley_terry(X, wins, games, names, prior_sd_elo: float = 1000.0,
                      level: float = 0.95) -> Ratings:
    """Bradley-Terry ratings on the Elo scale with the team model.

    ``P(team 1 beats team 2) = 1 / (1 + 10 ** (-(r1 - r2) / 400))`` with ``r`` the mean
    rating of a team's members.

    :param X: ``(m, p)`` team design (:func:`team_design`).
    :param wins: ``(m,)`` team 1's wins (a draw counts one half).
    :param games: ``(m,)`` games (or deal pairs) per row.
    :param prior_sd_elo: sd of a weak Gaussian prior on each rating (Elo points), which
        keeps the fit finite when a team won or lost every game; 1000 Elo moves ordinary
        fits by a negligible amount.
    :param level: as for :func:`fit_points`.

    The goodness of fit is the deviance of the wins with the rows of identical teams
    grouped (rows whose teams are equal left out), chi-square with ``groups - rank``
    degrees of freedom under the model; on a misfit the covariance is scaled by the
    overdispersion factor ``deviance / df``.
    """
    X, w, g, names = _fit_inputs(X, wins, games, names, "wins and games")
    if np.any(g < 0) or np.any(w < 0) or np.any(w > g):
        raise RatingsError("each row needs 0 <= wins <= games")
    if prior_sd_elo <= 0:
        raise RatingsError(f"prior_sd_elo must be positive, got {prior_sd_elo!r}")
    p = X.shape[1]
    Z = _sum_zero_basis(p)
    prec = (ELO_SCALE / prior_sd_elo) ** 2          # prior precision, natural units
    beta = np.zeros(p - 1)

    def objective(b):
        eta = X @ (Z @ b)
        # log-likelihood: w log s(eta) + (g - w) log s(-eta)
        ll = -(w * np.logaddexp(0.0, -eta) + (g - w) * np.logaddexp(0.0, eta)).sum()
        return ll - 0.5 * prec * float(b @ b)

    cur = objective(beta)
    for _ in range(200):
        theta = Z @ beta
        pr = 1.0 / (1.0 + np.exp(-(X @ theta)))
        grad = Z.T @ (X.T @ (w - g * pr)) - prec * beta
        H = Z.T @ ((X.T * (g * pr * (1.0 - pr))) @ X) @ Z + prec * np.eye(p - 1)
        step = np.linalg.solve(H, grad)
        t = 1.0
        while True:
            new = objective(beta + t * step)
            if new >= cur - 1e-12 or t < 1e-8:
                break
            t *= 0.5
        beta, cur = beta + t * step, new
        if np.max(np.abs(t * step)) < 1e-11:
            break
    theta = Z @ beta
    pr = 1.0 / (1.0 + np.exp(-(X @ theta)))
    H = Z.T @ ((X.T * (g * pr * (1.0 - pr))) @ X) @ Z + prec * np.eye(p - 1)
    cov = Z @ np.linalg.inv(H) @ Z.T
    fit, resid = _bt_goodness(X, w, g, pr, Z, level)
    if fit is not None and fit.misfit:
        cov = cov * fit.scale ** 2
    se = np.sqrt(np.maximum(np.diag(cov), 0.0))
    return Ratings("elo", names, theta * ELO_SCALE, se * ELO_SCALE, cov * ELO_SCALE ** 2,
                   fit, pr, resid)


def _bt_goodness(X, w, g, pr, Z, level):
    """The deviance test of a Bradley-Terry fit (rows with identical teams grouped) and
    the rows' Pearson residuals (NaN where the teams are equal or nothing was played)."""
    resid = np.full(len(w), np.nan)
    used = (np.abs(X).sum(axis=1) > 1e-12) & (g > 0)
    if not used.any():
        return None, resid
    ok = used & (pr > 0) & (pr < 1)
    resid[ok] = (w[ok] - g[ok] * pr[ok]) / np.sqrt(g[ok] * pr[ok] * (1.0 - pr[ok]))
    rows = np.round(X[used], 12)
    _, group = np.unique(rows, axis=0, return_inverse=True)
    group = np.asarray(group).ravel()
    k = int(group.max()) + 1
    wg = np.bincount(group, weights=w[used], minlength=k)
    gg = np.bincount(group, weights=g[used], minlength=k)
    first = np.zeros(k, dtype=np.int64)
    first[group[::-1]] = np.flatnonzero(used)[::-1]
    pg = np.clip(pr[first], 1e-300, 1.0 - 1e-16)
    with np.errstate(divide="ignore", invalid="ignore"):
        dev = 2.0 * (np.where(wg > 0, wg * np.log(wg / (gg * pg)), 0.0)
                     + np.where(gg - wg > 0, (gg - wg) * np.log((gg - wg) / (gg * (1.0 - pg))), 0.0))
    rank = np.linalg.matrix_rank(X[first] @ Z, tol=1e-10)
    return _goodness("deviance", float(dev.sum()), k - rank, level), resid


def elo_win_probability(diff: float) -> float:
    """P(win) for an Elo difference ``diff``.

    >>> elo_win_probability(0.0)
    0.5
    """
    return 1.0 / (1.0 + 10.0 ** (-diff / 400.0))


# ------------------------------------------------------------------- standings
@dataclass(frozen=True)
class HeadToHead:
    """A direct matchup of players ``i`` and ``j``: ``i``'s mean margin over ``j`` and
    the half-width of its confidence interval."""

    i: int
    j: int
    mean: float
    half_width: float

    @property
    def significant(self) -> bool:
        """Whether the interval excludes 0 (a winner at that confidence)."""
        return math.isfinite(self.mean) and abs(self.mean) > self.half_width

    @property
    def winner(self) -> Optional[int]:
        """The player ahead (by the sign of the margin), None on an exact tie."""
        return self.i if self.mean > 0 else self.j if self.mean < 0 else None

    @property
    def loser(self) -> Optional[int]:
        return None if self.winner is None else self.i + self.j - self.winner


@dataclass(frozen=True)
class Standings:
    """The ranking of a field (:func:`standings`).

    ``order``: player indices from first to last; ``ranges[p]``: ``(best, worst)`` rank of
    player ``p`` (equal when certain); ``basis``: ``"ratings"`` or ``"head-to-head"``;
    ``record[p]``: ``(wins, draws, losses)`` of ``p`` in its direct matchups (None without
    any), where only a significant result (its interval excludes 0) is a win or a loss
    and every other matchup is a draw; ``contradicted``: the significant head-to-head results the ratings' order
    contradicts; ``unresolved``: those the final order still contradicts (a cycle such as
    a > b > c > a leaves no order that agrees with every result).
    """

    names: tuple
    order: List[int]
    ranges: List[Tuple[int, int]]
    basis: str
    record: Optional[List[Tuple[int, int, int]]]
    contradicted: List[HeadToHead]
    unresolved: List[HeadToHead]

    def score(self, p: int) -> float:
        """Player ``p``'s head-to-head score: wins plus half its draws (0 without any
        direct matchup)."""
        if self.record is None:
            return 0.0
        w, d, _ = self.record[p]
        return w + 0.5 * d

    def rank(self, p: int) -> str:
        """Player ``p``'s rank as shown: ``"2"``, or ``"1-3"`` when not separated."""
        best, worst = self.ranges[p]
        return str(best) if best == worst else f"{best}-{worst}"


def _ranges(order: Sequence[int], separated) -> List[Tuple[int, int]]:
    """Per player ``(best, worst)``: 1 + the players ranked above it and separated from
    it, and the number of players minus those ranked below it and separated."""
    n = len(order)
    pos = {p: k for k, p in enumerate(order)}
    out = [(0, 0)] * n
    for p in range(n):
        above = sum(1 for q in range(n) if pos[q] < pos[p] and separated(p, q))
        below = sum(1 for q in range(n) if pos[q] > pos[p] and separated(p, q))
        out[p] = (1 + above, n - below)
    return out


def standings(ratings: Ratings, head_to_head: Sequence[HeadToHead] = (),
              level: float = 0.95) -> Standings:
    """Rank the players of ``ratings`` without claiming what their matchups deny.

    By the ratings (ranks separated by :meth:`Ratings.separated`) when the model fits
    and no significant head-to-head result contradicts its order. Otherwise, given
    direct matchups between single players (``head_to_head``), by those results: a
    player is certainly above another when a chain of significant wins leads from it to
    the other and none leads back (players in a cycle of significant wins are not
    separated); the order respects every such chain, and otherwise puts the players by
    their head-to-head score (a significant win counts 1, a matchup whose interval
    includes 0 a draw, 1/2), then by rating.
    The ranks a player could hold are those of the orders that respect the chains.
    Without direct matchups (partners only) the ratings rank, with the intervals the
    misfit widened.

    A round robin of 3,000 deal pairs per matchup: nn beats the heuristic,
    which beats random by far more than nn does, and the additive fit puts the heuristic
    first:

    >>> X = team_design([(0,), (0,), (1,)], [(1,), (2,), (2,)], 3)
    >>> r = fit_points(X, [31.48, 765.73, 1268.67], [11.46, 72.23, 63.19],
    ...                ["nn", "heuristic", "random"])
    >>> [r.names[p] for p in r.order()], r.fit.misfit
    (['heuristic', 'nn', 'random'], True)
    >>> games = [HeadToHead(0, 1, 31.48, 6.64), HeadToHead(0, 2, 765.73, 16.66),
    ...          HeadToHead(1, 2, 1268.67, 15.59)]
    >>> s = standings(r, games)
    >>> s.basis, [s.names[p] for p in s.order], s.ranges, s.record
    ('head-to-head', ['nn', 'heuristic', 'random'], [(1, 1), (2, 2), (3, 3)], [(2, 0, 0), (1, 0, 1), (0, 0, 2)])
    >>> [(s.names[h.winner], s.names[h.loser]) for h in s.contradicted], s.unresolved
    ([('nn', 'heuristic')], [])
    """
    names = tuple(ratings.names)
    n = len(names)
    games = [h for h in head_to_head if h.i != h.j]
    for h in games:
        if not (0 <= h.i < n and 0 <= h.j < n):
            raise RatingsError(f"head-to-head players {h.i}, {h.j} are not in 0..{n - 1}")
    by_rating = ratings.order()
    pos = {p: k for k, p in enumerate(by_rating)}
    contradicted = [h for h in games if h.significant and pos[h.winner] > pos[h.loser]]
    record = None
    if games:
        rec = [[0, 0, 0] for _ in range(n)]
        for h in games:
            if not h.significant:                  # the interval includes 0: a draw
                rec[h.i][1] += 1
                rec[h.j][1] += 1
            else:
                rec[h.winner][0] += 1
                rec[h.loser][2] += 1
        record = [tuple(r) for r in rec]
    misfit = ratings.fit is not None and ratings.fit.misfit
    if games and (misfit or contradicted):
        basis = "head-to-head"
        # reach[p, q]: a chain of significant wins leads from p to q
        reach = np.zeros((n, n), dtype=bool)
        for h in games:
            if h.significant:
                reach[h.winner, h.loser] = True
        for k in range(n):
            reach |= reach[:, k:k + 1] & reach[k:k + 1, :]
        above = reach & ~reach.T                   # p certainly above q (not in a cycle)
        key = {p: (-(record[p][0] + 0.5 * record[p][1]), -float(ratings.rating[p]), p)
               for p in range(n)}
        order, left = [], set(range(n))
        while left:                                # a linear extension of `above`
            free = [p for p in left if not any(above[q, p] for q in left)]
            best = min(free, key=key.__getitem__)
            order.append(best)
            left.remove(best)

        def separated(p, q):
            return bool(above[p, q] or above[q, p])
    else:
        basis = "ratings"
        order = by_rating

        def separated(p, q):
            return ratings.separated(p, q, level)
    rank = {p: k for k, p in enumerate(order)}
    unresolved = [h for h in games if h.significant and rank[h.winner] > rank[h.loser]]
    return Standings(names, list(order), _ranges(order, separated), basis, record,
                     contradicted, unresolved)
