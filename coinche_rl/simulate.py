"""Batched random simulation: whole deals in numba, results as numpy arrays.

Every function takes a ``seed``; deal (or playout) ``i`` draws from sub-stream ``i`` of
that seed, so results do not depend on how a batch is split: ``simulate(n=10, seed=s)``
equals the first 10 rows of ``simulate(n=1000, seed=s)``.

>>> r = simulate_deals(1000, seed=7)
>>> r.scores.shape, bool((r.card_points.sum(axis=1)[r.played] >= 162).all())
((1000, 2), True)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Union

import numpy as np

from . import engine as E
from .actions import parse_strain
from .game import Deal
from .rules import CAPOT_VALUE, N_SEATS, N_TEAMS, RuleSet, four_player_rules, params_vector

__all__ = ["SimulationResult", "simulate_deals", "random_playouts", "random_play_phase", "warmup"]


@dataclass
class SimulationResult:
    """Arrays over the simulated deals (length n)."""
    scores: np.ndarray        #: (n, 2) rounded deal scores per team
    void: np.ndarray          #: (n,) True for a void deal (everybody passed)
    value: np.ndarray         #: (n,) contract value (250 capot; 0 when void, and in the classic family)
    strain: np.ndarray        #: (n,) contract strain 0..5
    coinche: np.ndarray       #: (n,) 0, 1 coinched, 2 surcoinched
    taker: np.ndarray         #: (n,) taker seat (-1 void)
    made: np.ndarray          #: (n,) 1 made, 0 failed (dedans), 2 classic litige, -1 void
    card_points: np.ndarray   #: (n, 2) final card points per team
    tricks0: np.ndarray       #: (n,) tricks won by team 0

    def __len__(self) -> int:
        return len(self.value)

    @property
    def played(self) -> np.ndarray:
        """True for the deals that were played (not void)."""
        return ~self.void


def simulate_deals(n: int, *, rules: Union[str, RuleSet] = "ffb", seed: int = 0,
                   dealer: Optional[int] = None, pass_prob: float = 0.6,
                   contract: Optional[tuple] = None) -> SimulationResult:
    """Play ``n`` random deals entirely in numba.

    :param pass_prob: in the auction each player passes with this probability and
        otherwise picks uniformly among the other legal actions (bids, capot, coinche,
        surcoinche); ``None`` picks uniformly among all legal actions.
    :param contract: ``(value, strain, coinche, taker)`` to skip the auction (value
        250 = capot; the strain its id or its text, "H", "NT"); cards are then played
        uniformly at random. Classic family:
        ``(0, strain, 0, taker)``, the taker receiving the retourne.
    :param dealer: a fixed dealer seat, or random per deal.
    """
    if n < 0:
        raise ValueError(f"n must be >= 0, got {n}")
    r = four_player_rules(rules)
    P = params_vector(r)
    c = np.array([-1, 0, 0, 0], dtype=np.int64)
    if contract is not None:
        value, given, coinche, taker = contract
        strain = parse_strain(given)                 # its id or its text ("H", "NT")
        if strain not in r.allowed_strains:
            raise ValueError(f"strain {strain!r} not allowed by rules {r.name!r}: {r.allowed_strains}")
        if r.family == "classic":
            if value != 0 or coinche != 0:
                raise ValueError("a classic-family contract is (0, strain, 0, taker): no value, no coinche")
        elif value != CAPOT_VALUE and value not in r.bid_values:
            raise ValueError(f"contract value {value!r} must be one of {r.bid_values} or 250 (capot)")
        if coinche not in (0, 1, 2) or not 0 <= taker < N_SEATS:
            raise ValueError("contract coinche must be 0, 1 or 2 and taker a seat 0..3")
        c[:] = (value, strain, coinche, taker)
    if dealer is not None and not 0 <= dealer < N_SEATS:
        raise ValueError(f"dealer must be a seat 0..3, not {dealer!r}")
    scores = np.zeros((n, N_TEAMS), dtype=np.int64)
    info = np.zeros((n, 9), dtype=np.int64)
    E.simulate_random_deals(P, n, int(seed), -1 if dealer is None else int(dealer),
                            -1.0 if pass_prob is None else float(pass_prob), c, scores, info)
    return SimulationResult(scores, info[:, 8] == 1, info[:, 0], info[:, 1], info[:, 2], info[:, 3],
                            info[:, 4], info[:, 5:7].copy(), info[:, 7])


def random_playouts(deal: Deal, n: int, *, seed: int = 0, pass_prob: float = 0.6) -> np.ndarray:
    """``n`` random continuations of ``deal`` (not modified) to the end: rounded deal
    scores per team, shape (n, 2)."""
    out = np.zeros((n, N_TEAMS), dtype=np.int64)
    E.random_playouts(deal.state, deal.params, n, int(seed),
                      -1.0 if pass_prob is None else float(pass_prob), out)
    return out


def random_play_phase(n: int, *, strain: Union[int, str] = 1, rules: Union[str, RuleSet] = "ffb",
                      seed: int = 0) -> np.ndarray:
    """The play phase alone: ``n`` random deals, 32 random legal cards each under
    ``strain`` (seat 0 leads). Returns the card points of team 0 (dix de der
    included), shape (n,). The fastest path of the engine (the benchmark's figure)."""
    r = four_player_rules(rules)
    given, strain = strain, parse_strain(strain)     # its id or its text ("H", "NT")
    if strain not in r.allowed_strains:
        raise ValueError(f"strain {given!r} not allowed by rules {r.name!r}")
    out = np.zeros(n, dtype=np.int64)
    E.random_play_phase(params_vector(r), n, int(seed), int(strain), out)
    return out


def warmup() -> None:
    """Compile (or load from the cache) every kernel, so the first real call is fast."""
    simulate_deals(4, seed=0)
    simulate_deals(2, rules="ffb_sa_ta", seed=0, contract=(90, 5, 1, 0))
    simulate_deals(2, rules="classic", seed=0)
    random_play_phase(2)
    d = Deal(seed=0)
    d.legal_actions()
    random_playouts(d, 2)
    E.match_winner(np.zeros(2, dtype=np.int64), 1000, 0, 1, 4, 4, 1)
