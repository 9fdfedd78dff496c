"""Scoring (RULES.md §7-§9, §11): a finished deal (:func:`score_deal`, the classic
family's :func:`_score_classic`), the end of a match (:func:`match_winner`), and the
synthetic finished deals the solver and the evaluations score (:func:`set_outcome`,
:func:`outcome_score`).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from .. import rules as R
from ..rules import (AT, CAPOT_BONUS, CAPOT_POINTS, CAPOT_VALUE, DEAL_POINTS, N_SEATS,
                     N_TEAMS, N_TRICKS, P_AT_TABLE, P_BELOTE_TAKEABLE, P_BID_ONLY,
                     P_COINCHE_SCORING, P_COUNT_BELOTE, P_COUNT_DECLARATIONS, P_FAIL_BASE,
                     P_FAMILY, P_GENERALE_BONUS, P_MULT_COINCHE, P_MULT_SURCOINCHE,
                     P_ROUNDING, SCALED_AT_DEAL_POINTS, partner, team)
from .bits import kernel
from .declarations import resolve_declarations
from .layout import (DECL_UNRESOLVED, DONE, MADE_FAILED, MADE_LITIGE, MADE_MADE, S_BID_SEAT,
                     S_BID_STRAIN, S_BID_VALUE, S_CAPOT, S_CARD_POINTS, S_COINCHE, S_CUR,
                     S_DECL_WINNER, S_GENERALE, S_LITIGE, S_MADE, S_PHASE, S_POINTS,
                     S_RAW_SCORE, S_SCORE, S_SEAT_TRICKS, S_TEAM_BELOTE, S_TEAM_DECL,
                     S_TOTAL, S_TRICKS)


SCORING_FFB, SCORING_CARDS_PLUS_BID, SCORING_ALL_PLUS_BID = 0, 1, 2
AT_SCALED_INDEX = R.AT_TABLE_NAMES.index("scaled")


@njit(cache=True, _nrt=False, inline="always")
def scale_at_points(x):
    """The takers' card points ``x`` under the ``scaled`` AT table (the trump table at
    every suit: :data:`SCALED_AT_DEAL_POINTS` with the dix de der) brought back to
    :data:`DEAL_POINTS`, rounded half up."""
    return (x * DEAL_POINTS * 2 + SCALED_AT_DEAL_POINTS) // (2 * SCALED_AT_DEAL_POINTS)


@kernel
def round10(x, rounding):
    """Nearest ten, halves up (85 -> 90, 84 -> 80), or ``x`` when rounding is off."""
    if rounding == 0:
        return x
    return (x + 5) // 10 * 10


@kernel
def score_deal(S, P):
    """Score a finished deal (RULES.md §7-§8, §11 for the classic family); fills the
    result slots and ends the deal."""
    S[S_PHASE] = DONE
    S[S_CUR] = -1
    if S[S_DECL_WINNER] == DECL_UNRESOLVED:
        resolve_declarations(S, P)
    T = team(S[S_BID_SEAT])
    D = 1 - T
    cp0 = S[S_POINTS]
    cp1 = S[S_POINTS + 1]
    capot_team = -1
    if S[S_TRICKS] == N_TRICKS:
        capot_team = 0
    elif S[S_TRICKS + 1] == N_TRICKS:
        capot_team = 1
    generale = np.int64(-1)           # int64: no literal specialisation of team()
    for seat in range(N_SEATS):
        if S[S_SEAT_TRICKS + seat] == N_TRICKS:
            generale = seat
    S[S_GENERALE] = generale
    strain = S[S_BID_STRAIN]
    if strain == AT and P[P_AT_TABLE] == AT_SCALED_INDEX and capot_team < 0:
        # trump table at every suit (258 with dix de der) scaled to 162; the takers'
        # share is rounded half up and the defenders get the rest
        sT = scale_at_points(S[S_POINTS + T])
        cp0 = sT if T == 0 else DEAL_POINTS - sT
        cp1 = DEAL_POINTS - cp0
    if capot_team >= 0:
        cp0 = CAPOT_POINTS if capot_team == 0 else 0
        cp1 = CAPOT_POINTS - cp0
    # générale: one player of the takers won every trick; the deal's cards count
    # generale_bonus (350) for the takers instead of a capot's 252
    gen_T = P[P_GENERALE_BONUS] > 0 and generale >= 0 and team(generale) == T
    if gen_T:
        if T == 0:
            cp0 = P[P_GENERALE_BONUS]
        else:
            cp1 = P[P_GENERALE_BONUS]
    cpT = cp0 if T == 0 else cp1
    cpD = cp1 if T == 0 else cp0
    S[S_CARD_POINTS] = cp0
    S[S_CARD_POINTS + 1] = cp1
    bel0 = S[S_TEAM_BELOTE]
    bel1 = S[S_TEAM_BELOTE + 1]
    belT = bel0 if T == 0 else bel1
    belD = bel1 if T == 0 else bel0
    decT = S[S_TEAM_DECL + T]
    decD = S[S_TEAM_DECL + D]
    classic = P[P_FAMILY] != 0
    if classic:
        # classic family: a team that won no trick loses its declarations (§11)
        if capot_team == T:
            S[S_TEAM_DECL + D] = 0
            decD = 0
        elif capot_team == D:
            S[S_TEAM_DECL + T] = 0
            decT = 0
    totT = cpT
    totD = cpD
    if P[P_COUNT_BELOTE]:
        totT += belT
        totD += belD
    if P[P_COUNT_DECLARATIONS]:
        totT += decT
        totD += decD
    S[S_TOTAL + T] = totT
    S[S_TOTAL + D] = totD
    if classic:
        _score_classic(S, P, T, cpT, cpD, belT, belD, decT, decD, totT, totD, capot_team)
        return
    all_T = capot_team == T
    if S[S_CAPOT]:
        cond1 = all_T
        bid_val = CAPOT_VALUE
    else:
        cond1 = totT >= S[S_BID_VALUE]
        bid_val = S[S_BID_VALUE]
    made = cond1 and (P[P_BID_ONLY] != 0 or totT > totD)
    coinche = S[S_COINCHE]
    m = 1
    if coinche == 1:
        m = P[P_MULT_COINCHE]
    elif coinche == 2:
        m = P[P_MULT_SURCOINCHE]
    base = P[P_FAIL_BASE]
    scoring = P[P_COINCHE_SCORING]
    takeable = P[P_BELOTE_TAKEABLE] != 0
    if made:
        if m == 1 or scoring == SCORING_CARDS_PLUS_BID:
            sT = cpT + belT + decT + bid_val * m
            sD = cpD + belD
            if all_T:
                sT += decD          # the defenders' declarations change hands
            else:
                sD += decD
        elif scoring == SCORING_FFB:
            B = base
            if gen_T:
                B = P[P_GENERALE_BONUS]
            elif all_T:
                B = CAPOT_VALUE
            sT = (B + decT + belT + decD + bid_val) * m
            sD = belD
        else:   # all_plus_bid: the takers take the base and every other point
            B = base
            if gen_T:
                B = P[P_GENERALE_BONUS]
            elif all_T:
                B = CAPOT_POINTS
            sT = B + bid_val * m + belT + decT + decD
            sD = belD
            if takeable:
                sT += belD
                sD = 0
    else:
        extra = 0
        sT = belT
        if takeable:
            sT = 0
            extra = belT
        if scoring == SCORING_FFB:
            sD = (base + decD + belD + decT + bid_val + extra) * m
        else:
            sD = base + bid_val * m + belD + decD + decT + extra
    S[S_MADE] = MADE_MADE if made else MADE_FAILED
    S[S_RAW_SCORE + T] = sT
    S[S_RAW_SCORE + D] = sD
    S[S_SCORE + T] = round10(sT, P[P_ROUNDING])
    S[S_SCORE + D] = round10(sD, P[P_ROUNDING])


@kernel
def _score_classic(S, P, T, cpT, cpD, belT, belD, decT, decD, totT, totD, capot_team):
    """Classic-family scoring (RULES.md §11): takers above the defenders: each team
    scores its own total; below: *dedans*, the defenders score 162 (252 when the takers
    are capot) + all declarations + their belote, the takers keep their belote; equal:
    *litige*, the defenders score their total, the takers their belote, and the rest of
    the takers' total is held aside (``S_LITIGE``) for the winner of the next deal. A
    capot team has already lost its declarations (``decT`` / ``decD``); ``totT`` /
    ``totD`` are the totals for the comparison."""
    D = 1 - T
    fullT = cpT + belT + decT
    fullD = cpD + belD + decD
    if totT > totD:
        S[S_MADE] = MADE_MADE
        sT = fullT
        sD = fullD
    elif totT < totD:
        S[S_MADE] = MADE_FAILED
        extra = 0
        sT = belT
        if P[P_BELOTE_TAKEABLE]:
            sT = 0
            extra = belT
        base = P[P_FAIL_BASE] + (CAPOT_BONUS if capot_team == D else 0)
        sD = base + decT + decD + belD + extra
    else:
        # litige: the takers keep their belote (it stays with its team, RULES.md §5);
        # their other points wait for the winner of the next deal
        S[S_MADE] = MADE_LITIGE
        sT = belT
        sD = fullD
        S[S_LITIGE] = fullT - belT
    S[S_RAW_SCORE + T] = sT
    S[S_RAW_SCORE + D] = sD
    S[S_SCORE + T] = round10(sT, P[P_ROUNDING])
    S[S_SCORE + D] = round10(sD, P[P_ROUNDING])


@kernel
def match_winner(totals, target, taker_team, made, tricks0, tricks1, belote_cannot_win):
    """Winner of a match after a deal (RULES.md §9): 0, 1, or -1 to play on.

    ``totals``: match scores after the deal. With ``belote_cannot_win`` (FFB), a team
    reaches the target only if it was neither the failing taker nor capot on this deal:
    such a team scores at most its belote, which alone cannot win the match. Both teams
    over: the higher wins; equal, another deal.
    """
    ok0 = totals[0] >= target
    ok1 = totals[1] >= target
    if taker_team >= 0 and belote_cannot_win:
        if taker_team == 0 and made != 1:
            ok0 = False
        if taker_team == 1 and made != 1:
            ok1 = False
        if tricks0 == 0:
            ok0 = False
        if tricks1 == 0:
            ok1 = False
    if ok0 and ok1:
        if totals[0] > totals[1]:
            return 0
        if totals[1] > totals[0]:
            return 1
        return -1
    if ok0:
        return 0
    if ok1:
        return 1
    return -1


#: kinds of :func:`set_outcome`, from the side of the team it is given for
OUTCOME_CAPOT_AGAINST, OUTCOME_NORMAL, OUTCOME_CAPOT, OUTCOME_GENERALE = -1, 0, 1, 2


@kernel
def set_outcome(S, X, kind, e, raw, gseat):
    """Give ``S`` the card play of a synthetic finished deal seen from team ``X``, for
    :func:`score_deal`: ``kind`` :data:`OUTCOME_CAPOT_AGAINST` (every trick and the
    ``raw`` points to the other team, 4 tricks to each of its seats),
    :data:`OUTCOME_NORMAL` (``X`` wins ``e`` of the ``raw`` points, 4 tricks each team,
    2 per seat), :data:`OUTCOME_CAPOT` (every trick to ``X``, 4 per seat) or
    :data:`OUTCOME_GENERALE` (every trick to seat ``gseat``)."""
    Y = 1 - X
    for s in range(N_SEATS):
        S[S_SEAT_TRICKS + s] = 0
    if kind == OUTCOME_CAPOT_AGAINST:
        S[S_POINTS + X] = 0
        S[S_POINTS + Y] = raw
        S[S_TRICKS + X] = 0
        S[S_TRICKS + Y] = N_TRICKS
        S[S_SEAT_TRICKS + Y] = N_TRICKS // N_TEAMS
        S[S_SEAT_TRICKS + partner(Y)] = N_TRICKS // N_TEAMS
    elif kind == OUTCOME_NORMAL:
        S[S_POINTS + X] = e
        S[S_POINTS + Y] = raw - e
        S[S_TRICKS + X] = N_TRICKS // N_TEAMS
        S[S_TRICKS + Y] = N_TRICKS // N_TEAMS
        for s in range(N_SEATS):
            S[S_SEAT_TRICKS + s] = N_TRICKS // N_SEATS
    else:
        S[S_POINTS + X] = raw
        S[S_POINTS + Y] = 0
        S[S_TRICKS + X] = N_TRICKS
        S[S_TRICKS + Y] = 0
        if kind == OUTCOME_CAPOT:
            S[S_SEAT_TRICKS + X] = N_TRICKS // N_TEAMS
            S[S_SEAT_TRICKS + partner(X)] = N_TRICKS // N_TEAMS
        else:
            S[S_SEAT_TRICKS + gseat] = N_TRICKS


@kernel
def outcome_score(S, P, X, kind, e, raw, gseat):
    """Score the synthetic finished deal :func:`set_outcome` makes of ``S`` (``kind``,
    ``e``, ``raw``, ``gseat`` as there, seen from team ``X``) with :func:`score_deal`;
    returns team ``X``'s final card points and its deal score minus the other team's
    (``S_CARD_POINTS``, ``S_SCORE``)."""
    set_outcome(S, X, kind, e, raw, gseat)
    score_deal(S, P)
    return S[S_CARD_POINTS + X], S[S_SCORE + X] - S[S_SCORE + 1 - X]
