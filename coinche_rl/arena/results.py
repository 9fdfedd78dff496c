"""Results (``coinche_rl.arena.results``): :class:`DuplicateResult`,
:class:`TournamentResult`, :class:`KnockoutResult` and the ratings fit of matchups."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import List, Optional, Sequence, Tuple

import numpy as np

from ..engine.family import family_of
from ..ratings import (Estimate, HeadToHead, Ratings, Standings, fit_bradley_terry, fit_points,
                       mean_ci, standings, team_design, wilson_interval)
from ..records import rules_from_record
from ..rules import RuleSet
from .errors import ResultsFileError
from .store import _arrays_from_rows, _match_rows, _pair_rows, load_results

__all__ = ["DuplicateResult", "TournamentResult", "KnockoutResult", "results_from_file"]


def _team_label(team: Tuple[str, str]) -> str:
    return team[0] if team[0] == team[1] else f"{team[0]}+{team[1]}"


@dataclass
class DuplicateResult:
    """The result of one duplicate matchup (team X against team Y).

    ``scores[k, t]`` holds (X's score, Y's score) of pair ``k`` in seating ``t`` (X at
    seats 0/2 in seating 0, at 1/3 in seating 1); in deal mode ``contracts[k, t]`` is
    (value, strain, taker seat, coinche, made); in match mode ``won[k, t]`` is 1 when X won
    that match and ``deals[k, t]`` its length. ``margins`` are the per-pair margins (X - Y,
    mean of the two seatings; per deal, or per match), ``estimate`` their mean with its
    95% interval.
    """

    x: Tuple[str, str]
    y: Tuple[str, str]
    rules: RuleSet
    seed: int
    frozen: str
    match: bool
    run: str
    index: np.ndarray
    dealer: np.ndarray
    scores: np.ndarray
    contracts: Optional[np.ndarray] = None
    won: Optional[np.ndarray] = None
    deals: Optional[np.ndarray] = None
    seconds: float = 0.0
    new: int = 0
    played: int = 0
    wall_seconds: float = 0.0
    margins: np.ndarray = field(init=False)
    estimate: Estimate = field(init=False)

    def __post_init__(self):
        sc = self.scores.astype(np.float64)
        self.margins = ((sc[:, 0, 0] - sc[:, 0, 1]) + (sc[:, 1, 0] - sc[:, 1, 1])) / 2.0
        self.estimate = mean_ci(self.margins) if len(self.margins) else Estimate(
            math.nan, math.nan, math.nan, 0)

    # ------------------------------------------------------------- the figures
    @property
    def label_x(self) -> str:
        return _team_label(self.x)

    @property
    def label_y(self) -> str:
        return _team_label(self.y)

    @property
    def n(self) -> int:
        """Deal pairs (match pairs in match mode)."""
        return len(self.index)

    @property
    def mean(self) -> float:
        """Mean margin of X over Y: points per deal (per match in match mode)."""
        return self.estimate.mean

    @property
    def ci95(self) -> float:
        """Half-width of the 95% interval of :attr:`mean`."""
        return self.estimate.half_width

    @property
    def paired_sd(self) -> float:
        """Standard deviation of the per-pair margins."""
        return self.estimate.sd

    @property
    def wins(self) -> int:
        return int((self._outcomes() == 1.0).sum())

    @property
    def draws(self) -> int:
        return int((self._outcomes() == 0.5).sum())

    @property
    def losses(self) -> int:
        return int((self._outcomes() == 0.0).sum())

    def _outcomes(self) -> np.ndarray:
        """Per pair: X's share of the pair (1, 0.5, 0); in match mode the share of the
        two matches X won."""
        if self.match:
            return self.won.sum(axis=1) / 2.0
        return np.where(self.margins > 0, 1.0, np.where(self.margins < 0, 0.0, 0.5))

    @property
    def win_rate(self) -> float:
        """Deal win rate of X (pairs won + half the tied ones), or its match win rate."""
        return float(self._outcomes().mean()) if self.n else math.nan

    @property
    def win_interval(self) -> Tuple[float, float]:
        """The 95% Wilson score interval of :attr:`win_rate` over the pairs (inside
        [0, 1], unlike ``rate ± 1.96 sd``, which gives 0.750 ± 0.796 on four pairs)."""
        return wilson_interval(float(self._outcomes().sum()), self.n)

    @property
    def deals_per_s(self) -> float:
        """Deals played per second of compute in this call (both seatings counted; the
        time is summed over workers, so it is a per-core figure; NaN when nothing new
        was played)."""
        if not self.played or self.seconds <= 0:
            return math.nan
        return self.played / self.seconds

    @property
    def rows(self) -> List[dict]:
        """The results-file rows of this matchup, by pair index."""
        arrays = {"index": self.index, "dealer": self.dealer, "scores": self.scores,
                  "contracts": self.contracts, "won": self.won, "deals": self.deals}
        return (_match_rows if self.match else _pair_rows)(self.run, arrays)

    def ratings(self) -> Tuple[Ratings, Ratings]:
        """(points, Elo) ratings of the two teams from this matchup alone."""
        return _fit_matchups([self], [self.label_x, self.label_y], [((0,), (1,))])

    def summary(self) -> dict:
        """The headline figures as a JSON-able dict."""
        return {"x": self.label_x, "y": self.label_y, "n": self.n, "mean": self.mean,
                "ci95": self.ci95, "paired_sd": self.paired_sd, "win_rate": self.win_rate,
                "win_interval": list(self.win_interval), "wins": self.wins, "draws": self.draws,
                "losses": self.losses, "match": self.match, "frozen": self.frozen or None,
                "rules": self.rules.name, "seed": self.seed, "run": self.run}

    def __repr__(self) -> str:
        unit = "match" if self.match else "deal"
        return (f"<DuplicateResult {self.label_x} vs {self.label_y}: {self.mean:+.2f} ± "
                f"{self.ci95:.2f} per {unit}, win rate {self.win_rate:.3f}, n={self.n}>")


def _fit_matchups(results: Sequence[DuplicateResult], names, teams) -> Tuple[Ratings, Ratings]:
    """Points and Bradley-Terry ratings of ``names`` from matchups; ``teams[k]`` gives
    the member indices of result ``k``'s X and Y."""
    t1 = [tx for tx, _ in teams]
    t2 = [ty for _, ty in teams]
    X = team_design(t1, t2, len(names))
    margins = np.array([r.mean for r in results])
    variances = np.array([(r.paired_sd ** 2 / r.n) if r.n > 1 else 0.0 for r in results])
    variances = np.nan_to_num(variances)
    outcomes = [r._outcomes() for r in results]
    wins = np.array([o.sum() for o in outcomes])
    games = np.array([float(len(o)) for o in outcomes])
    return (fit_points(X, margins, variances, names),
            fit_bradley_terry(X, wins, games, names))


def _misfit_note(r: Ratings, what: str, widened: str) -> List[str]:
    if r.fit is None or not r.fit.misfit:
        return []
    return [f"the {what} does not fit these matchups ({r.fit}): {widened} widened "
            f"x{r.fit.scale:.1f} for the misfit"]


@dataclass
class TournamentResult:
    """A round robin (``kind="round_robin"``) or a rotating-partner round robin
    (``kind="rotating"``): every matchup's :class:`DuplicateResult` and the ratings.

    :attr:`standings` ranks the agents (by the points ratings when they fit the matchups
    and agree with every significant head-to-head result, else by the head-to-head
    results: :func:`coinche_rl.ratings.standings`); :meth:`warnings` says where the
    ratings and the matchups disagree.
    """

    kind: str
    names: List[str]
    specs: List[str]
    matchups: List[DuplicateResult]
    teams: List[Tuple[Tuple[int, ...], Tuple[int, ...]]]
    points: Ratings
    elo: Ratings
    seconds: float

    @classmethod
    def from_matchups(cls, kind: str, names, specs, matchups: Sequence[DuplicateResult],
                      teams, seconds: float = 0.0) -> "TournamentResult":
        """The result of ``matchups`` (``teams[k]``: the member indices in ``names`` of
        matchup ``k``'s X and Y), with its ratings fitted."""
        points, elo = _fit_matchups(matchups, names, teams)
        return cls(kind, list(names), list(specs), list(matchups), list(teams), points, elo,
                   seconds)

    @property
    def rules(self) -> RuleSet:
        return self.matchups[0].rules

    @property
    def unit(self) -> str:
        return "match" if self.matchups[0].match else "deal"

    def head_to_head(self) -> List[HeadToHead]:
        """The direct matchups of single agents (a round robin's), as
        :class:`~coinche_rl.ratings.HeadToHead` (X's mean margin and its 95% half-width)."""
        out = []
        for m, (tx, ty) in zip(self.matchups, self.teams):
            if len(set(tx)) == 1 and len(set(ty)) == 1 and tx[0] != ty[0] and m.n:
                out.append(HeadToHead(tx[0], ty[0], m.mean, m.ci95))
        return out

    @property
    def standings(self) -> Standings:
        return standings(self.points, self.head_to_head())

    def _label(self, k: int) -> Tuple[str, str]:
        return tuple("+".join(self.names[i] for i in team) for team in self.teams[k])

    def _departure(self, k: int) -> str:
        """Matchup ``k``'s measured margin and the ratings' one, from the side that leads
        (as the tables show it)."""
        (lx, ly), mean, fitted = self._label(k), self.matchups[k].mean, self.points.fitted[k]
        if mean < 0:
            lx, ly, mean, fitted = ly, lx, -mean, -fitted
        return (f"{lx} vs {ly} {mean:+.1f} per {self.unit} measured, {fitted:+.1f} by the "
                f"ratings")

    def warnings(self) -> List[str]:
        """Where the ratings and the matchups disagree, one line each: a model that does
        not fit (its test, how much its intervals were widened, the matchups furthest
        from it), the head-to-head results its order contradicts, the ranking used
        instead, and the results no order can respect (cycles)."""
        unit, names = self.unit, self.names
        st = self.standings
        out = _misfit_note(self.points, "additive points model (a matchup's margin = the "
                                        "difference of two ratings)", "its intervals are")
        if out:
            worst = sorted((k for k in range(len(self.matchups))
                            if abs(self.points.residuals[k]) > 1.959963984540054),
                           key=lambda k: -abs(self.points.residuals[k]))[:3]
            if worst:
                out.append("furthest from the model: " + "; ".join(
                    self._departure(k) for k in worst))
        for h in st.contradicted:
            out.append(f"the points ratings put {names[h.loser]} above {names[h.winner]}, but "
                       f"{names[h.winner]} beat {names[h.loser]} {abs(h.mean):+.2f} ± "
                       f"{h.half_width:.2f} per {unit} head to head")
        if st.basis == "head-to-head":
            line = ("ranked by the head-to-head results (h2h: wins-draws-losses), not by "
                    "the points ratings")
            flips = self._inversions(st, lambda p: float(self.points.rating[p]))
            if flips:
                line += ", which put " + ", ".join(f"{names[q]} above {names[p]}"
                                                   for p, q in flips)
            out.append(line)
        for h in st.unresolved:
            out.append(f"no order agrees with every matchup: {names[h.winner]} beat "
                       f"{names[h.loser]} {abs(h.mean):+.2f} ± {h.half_width:.2f} per {unit} "
                       f"yet ranks below it (a cycle)")
        out += _misfit_note(self.elo, "Bradley-Terry model of the win rates",
                            "the Elo intervals are")
        pos = {p: k for k, p in enumerate(self.elo.order())}
        for m, (tx, ty) in zip(self.matchups, self.teams):
            if self.kind != "round_robin" or not m.n:
                continue
            lo, hi = m.win_interval
            won = tx[0] if lo > 0.5 else ty[0] if hi < 0.5 else None
            if won is not None:
                lost = tx[0] + ty[0] - won
                if pos[won] > pos[lost]:
                    out.append(f"the Elo ratings put {names[lost]} above {names[won]}, but "
                               f"{names[won]} won {max(m.win_rate, 1 - m.win_rate):.3f} of "
                               f"their {m.n:,} pairs")
        out += self._disagreements(st)
        return out

    @staticmethod
    def _inversions(st: Standings, value) -> List[Tuple[int, int]]:
        """The pairs ``(p, q)`` that ``st`` ranks p above q while ``value(q) > value(p)``."""
        order = st.order
        return [(p, q) for k, p in enumerate(order) for q in order[k + 1:] if value(q) > value(p)]

    def _disagreements(self, st: Standings) -> List[str]:
        """Where the Elo ratings or the h2h column order two agents otherwise than the
        ranking, one line each with the reason (the points ratings rank, or the
        head-to-head results do, and they are listed above)."""
        names, out = self.names, []
        by = ("the points ratings" if st.basis == "ratings" else
              "the head-to-head results, then the points ratings")
        k_elo = [self.elo.names.index(n) for n in names]
        flips = self._inversions(st, lambda p: float(self.elo.rating[k_elo[p]]))
        if flips:
            close = all(not self.elo.separated(k_elo[p], k_elo[q]) for p, q in flips)
            out.append(
                "the Elo ratings put " + ", ".join(f"{names[q]} above {names[p]}" for p, q in flips)
                + f", ranked the other way by {by}: Elo counts the {self.unit} pairs won, the "
                "points their margins" + ("; the Elo differences are not significant at 95%"
                                          if close else ""))
        if st.record is not None:
            flips = self._inversions(st, st.score)
            if flips:
                why = ("which fit the matchups: the column counts results, the ratings their "
                       "margins against the whole field" if st.basis == "ratings" else
                       "every chain of significant wins keeps its order")
                out.append(
                    "the h2h column has " + ", ".join(
                        f"{names[q]} ({'-'.join(map(str, st.record[q]))}) ahead of {names[p]} "
                        f"({'-'.join(map(str, st.record[p]))})" for p, q in flips)
                    + f", ranked the other way by {by}, {why}")
        return out

    def summary(self) -> dict:
        st = self.standings
        return {"kind": self.kind, "names": self.names, "points": self.points.as_dict(),
                "elo": self.elo.as_dict(),
                "fit": {"points": self.points.fit.as_dict() if self.points.fit else None,
                        "elo": self.elo.fit.as_dict() if self.elo.fit else None},
                "standings": {"basis": st.basis, "order": [self.names[p] for p in st.order],
                              "ranks": {self.names[p]: st.rank(p) for p in st.order}},
                "warnings": self.warnings(),
                "matchups": [m.summary() for m in self.matchups], "seconds": self.seconds}


@dataclass
class KnockoutResult:
    """Knockout tournaments (seed text 004): ``rows[t]`` is tournament ``t`` (rounds of
    games with their seats, scores, winner and length; champions and finalists as
    player indices), and per agent spec the titles and a team Bradley-Terry rating over
    every game."""

    players: List[str]
    rules: RuleSet
    seed: int
    max_deals: int
    run: str
    rows: List[dict]
    elo: Ratings
    seconds: float

    @property
    def specs(self) -> List[str]:
        """The distinct agent specs, in order of first entry."""
        return list(dict.fromkeys(self.players))

    def entrants(self, spec: str) -> int:
        return self.players.count(spec)

    def titles(self, spec: str) -> float:
        """Champion places won by entrants of ``spec`` over the places of a tournament
        (two with four players, one with two)."""
        return sum(sum(self.players[c] == spec for c in r["champions"]) / len(r["champions"])
                   for r in self.rows)

    def title_share(self, spec: str) -> float:
        """Share of the champion places held by ``spec`` (``entrants / players`` when
        every player is as strong)."""
        return self.titles(spec) / len(self.rows) if self.rows else math.nan

    def mean_rounds_won(self, spec: str) -> float:
        """Rounds won per entrant of ``spec`` and tournament."""
        family = family_of(self.rules)
        won = 0
        for r in self.rows:
            for games in r["rounds"]:
                for g in games:
                    won += sum(self.players[p] == spec for s, p in enumerate(g["seats"])
                               if family.side(s) == g["winner"])
        return won / (self.entrants(spec) * len(self.rows)) if self.rows else math.nan

    def warnings(self) -> List[str]:
        """The Bradley-Terry model's misfit, when its test rejects it (one line)."""
        return _misfit_note(self.elo, "team Bradley-Terry model of the games",
                            "the Elo intervals are")

    def summary(self) -> dict:
        return {"kind": "knockout", "players": self.players, "tournaments": len(self.rows),
                "titles": {s: self.titles(s) for s in self.specs},
                "title_share": {s: self.title_share(s) for s in self.specs},
                "elo": self.elo.as_dict(), "warnings": self.warnings(), "seconds": self.seconds}


def results_from_file(path) -> "DuplicateResult | TournamentResult":
    """The result a results file holds, rebuilt from its rows alone (nothing is played):
    the deal-pair runs (or, in a file of match pairs only, the match-pair runs) as
    :class:`DuplicateResult` objects; one run gives its :class:`DuplicateResult`, several
    runs a :class:`TournamentResult` with its ratings: a round robin
    (``kind="round_robin"``) when every team is one agent, else rotating partners
    (``kind="rotating"``, one player per distinct spec). Every row of a run counts, so
    a file a longer run extended gives the longer run's figures.

    :raises ResultsFileError: no such file, a malformed line, or no pair or match run
        (knockout runs have their own tables).
    """
    store = load_results(path)
    # belote for two players' deal-pair runs of older files ("two_pair") are deal pairs
    kinds = [{"two_pair": "pair"}.get(c.get("format"), c.get("format"))
             for c in store.runs.values()]
    kind = next((k for k in ("pair", "match") if k in kinds), None)
    if kind is None:
        raise ResultsFileError(f"{path}: no deal-pair or match-pair run (runs: "
                               f"{', '.join(map(str, kinds)) or 'none'}); knockout runs are "
                               f"not shown as matchups")
    matchups = []
    for (run, cfg), k in zip(store.runs.items(), kinds):
        if k != kind:
            continue
        done = store.done(run)
        rows = [done[i] for i in sorted(done)]
        arrays = _arrays_from_rows("match" if kind == "match" else "pair", rows)
        matchups.append(DuplicateResult(
            x=tuple(cfg["x"]), y=tuple(cfg["y"]), rules=rules_from_record(cfg["rules"]),
            seed=int(cfg["seed"]), frozen=cfg.get("frozen") or "", match=kind == "match",
            run=run, index=arrays["index"], dealer=arrays["dealer"], scores=arrays["scores"],
            contracts=arrays.get("contracts"), won=arrays.get("won"),
            deals=arrays.get("deals")))
    if len(matchups) == 1:
        return matchups[0]
    specs: List[str] = []
    for m in matchups:
        for s in (*m.x, *m.y):
            if s not in specs:
                specs.append(s)
    single = all(m.x[0] == m.x[1] and m.y[0] == m.y[1] for m in matchups)
    if single:
        teams = [((specs.index(m.x[0]),), (specs.index(m.y[0]),)) for m in matchups]
    else:
        teams = [(tuple(specs.index(s) for s in m.x), tuple(specs.index(s) for s in m.y))
                 for m in matchups]
    return TournamentResult.from_matchups("round_robin" if single else "rotating", specs,
                                          specs, matchups, teams)
