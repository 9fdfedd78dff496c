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
from typing import Sequence

import numpy as np

__all__ = ["Estimate", "t_cdf", "t_quantile", "mean_ci", "wilson_interval", "Ratings", "fit_points",
           "fit_bradley_terry", "ELO_SCALE", "elo_win_probability", "team_design"]

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
    """

    kind: str
    names: tuple
    rating: np.ndarray
    se: np.ndarray
    cov: np.ndarray = None

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


def fit_points(X, margins, variances, names) -> Ratings:
    """Points ratings by weighted least squares.

    :param X: ``(m, p)`` team design (:func:`team_design`): row ``k`` is one matchup.
    :param margins: ``(m,)`` mean margin of team 1 over team 2 in points per deal.
    :param variances: ``(m,)`` squared standard errors of those means; a zero variance
        (identical teams give exactly 0) is floored at 1e-9 of the largest, so that the
        row is held almost exactly.
    :returns: ratings summing to zero; ``margin(team1, team2) ≈ mean(team1) - mean(team2)``.

    The matchups are treated as independent (they may share deals, which this ignores).
    """
    X, y, v, names = _fit_inputs(X, margins, variances, names, "margins and variances")
    if not np.all(np.isfinite(y)) or not np.all(np.isfinite(v)) or np.any(v < 0):
        raise RatingsError("margins must be finite and variances finite and >= 0")
    keep = np.abs(X).sum(axis=1) > 1e-12
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
    se = np.sqrt(np.maximum(np.diag(cov), 0.0))
    return Ratings("points", names, theta, se, cov)


def fit_bradley_terry(X, wins, games, names, prior_sd_elo: float = 1000.0) -> Ratings:
    """Bradley-Terry ratings on the Elo scale with the team model.

    ``P(team 1 beats team 2) = 1 / (1 + 10 ** (-(r1 - r2) / 400))`` with ``r`` the mean
    rating of a team's members.

    :param X: ``(m, p)`` team design (:func:`team_design`).
    :param wins: ``(m,)`` team 1's wins (a draw counts one half).
    :param games: ``(m,)`` games (or deal pairs) per row.
    :param prior_sd_elo: sd of a weak Gaussian prior on each rating (Elo points), which
        keeps the fit finite when a team won or lost every game; 1000 Elo moves ordinary
        fits by a negligible amount.
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
    se = np.sqrt(np.maximum(np.diag(cov), 0.0))
    return Ratings("elo", names, theta * ELO_SCALE, se * ELO_SCALE, cov * ELO_SCALE ** 2)


def elo_win_probability(diff: float) -> float:
    """P(win) for an Elo difference ``diff``.

    >>> elo_win_probability(0.0)
    0.5
    """
    return 1.0 / (1.0 + 10.0 ** (-diff / 400.0))
