"""Observation encoding (``coinche_rl.envs.observation``), version 1.

:func:`encode` turns an :class:`~coinche_rl.envs.infoset.InformationSet` (what one seat
knows, proven leak-free by ``tests/test_infoset.py``) and, in match mode, the public
match score into a flat ``float32`` vector. It reads nothing else, so it cannot leak
hidden cards. :func:`decode` gives the readable values back (tests check it against the
game's ground truth at every step of random games).

Seats are **relative to the observer**: ``rel = (seat - observer) % 4`` (0 = me,
1 = left opponent, 2 = partner, 3 = right opponent); teams are ``us`` / ``them``.
Cards are ``suit * 8 + rank`` (``coinche_rl.cards``), strains 0..5 = S H D C NT AT.

==========================  =========  =====================================================
slice                       size       content
==========================  =========  =====================================================
``hand``                    32         own cards now
``dealer``                  4          dealer, rel seat one-hot
``phase``                   3          auction (prise) / play / done
``to_act``                  4          rel seat to act (zeros when done)
``bids``                    12 x 10    one row per level 80, 90, ..., 180, capot: bidder rel
                                       seat one-hot (4) + strain one-hot (6); zero if the
                                       level was not bid. Bids strictly increase, so with
                                       the turn order this gives who said what, passes too
``coinche``                 4          rel seat that coinched the contract
``surcoinche``              4          rel seat that surcoinched
``prise``                   2          classic family, during the prise: round 1 / round 2
``retourne``                32         classic family: the turned-up card
``contract``                25         level one-hot 12 (80..180, capot; all zero in the
                                       classic family), strain 6, coinche level 3 (none,
                                       coinched, surcoinched), taker rel 4
``declarations_resolved``   1          1 once the declarations are resolved
``declaration_winner``      2          us / them (the team scoring its declarations)
``declarations_shown``      4 x 32     cards shown at resolution, per rel seat
``belote``                  4          rel seats that announced a belote
``played_by``               32 x 4     for each card, the rel seat that played it
``played_when``             32         for each card played, (trick index + 1) / 8
``current_trick``           32         cards in the current (incomplete) trick
``leader``                  4          rel seat leading the current trick (play phase)
``trick_no``                8          index of the current trick, one-hot (play phase)
``points``                  2          card points won us / them / 162 (dix de der
                                       included once the 8 tricks are played)
``tricks``                  2          tricks won us / them / 8
``match``                   5          match mode flag, our score / target, their score /
                                       target, target / 1000, litige pot / 162 (zeros in
                                       deal mode; each clipped to ``HIGH``)
``rules``                   10         NT/AT contracts allowed, must_undertrump,
                                       overtrump_partner, declarations, optional_declare,
                                       optional_belote, classic family, made bid_only,
                                       surcoinche multiplier / 4, générale bonus > 0
``voids``                   4 x 4      per rel seat, suits it is known void in (public
                                       inferences of the information set)
``ceilings``                4 x 4      per rel seat and suit, ceiling strength / 8 (1: none)
==========================  =========  =====================================================

:data:`LAYOUT` maps each name to its ``(start, stop)``; :data:`OBSERVATION_SIZE` is the
total; :data:`HIGH` the per-element upper bound (1 except ``points``, which reach
258/162 with the scaled AT table, and the ``match`` ratios); every value is >= 0.

>>> from coinche_rl.game import Deal
>>> from coinche_rl.envs.infoset import information_set
>>> deal = Deal("ffb", seed=1, dealer=3)
>>> deal.apply("90H")
>>> v = encode(information_set(deal, 1))
>>> v.shape == (OBSERVATION_SIZE,), decode(v, observer=1)["bids"]
(True, [(90, 0, 1)])
"""

from __future__ import annotations

from collections import OrderedDict
from typing import Optional, Tuple

import numpy as np

from .. import actions as A
from ..cards import N_CARDS, N_SUITS
from ..rules import N_SEATS, N_STRAINS, N_TEAMS, N_TRICKS, card_points_table, seat_after
from ..rules import team as team_of
from .infoset import NO_CEILING, InformationSet

__all__ = ["VERSION", "LAYOUT", "OFFSETS", "OBSERVATION_SIZE", "HIGH", "encode", "decode",
           "slice_layout", "layout_offsets", "layout_size", "layout_starts"]

VERSION = 1

N_LEVELS = 12           # 80..180 by 10, then capot
CAPOT_ROW = 11
PHASES = ("auction", "play", "done")

_PARTS = [
    ("hand", N_CARDS), ("dealer", N_SEATS), ("phase", 3), ("to_act", N_SEATS),
    ("bids", N_LEVELS * (N_SEATS + N_STRAINS)), ("coinche", N_SEATS), ("surcoinche", N_SEATS),
    ("prise", 2), ("retourne", N_CARDS), ("contract", N_LEVELS + N_STRAINS + 3 + N_SEATS),
    ("declarations_resolved", 1), ("declaration_winner", N_TEAMS),
    ("declarations_shown", N_SEATS * N_CARDS),
    ("belote", N_SEATS), ("played_by", N_CARDS * N_SEATS), ("played_when", N_CARDS),
    ("current_trick", N_CARDS),
    ("leader", N_SEATS), ("trick_no", N_TRICKS), ("points", N_TEAMS), ("tricks", N_TEAMS),
    ("match", 5),
    ("rules", 10), ("voids", N_SEATS * N_SUITS), ("ceilings", N_SEATS * N_SUITS),
]

def slice_layout(parts) -> "OrderedDict[str, tuple]":
    """``name -> (start, stop)`` of consecutive slices ``[(name, size), ...]``."""
    out: "OrderedDict[str, tuple]" = OrderedDict()
    pos = 0
    for name, n in parts:
        out[name] = (pos, pos + n)
        pos += n
    return out


def layout_size(layout) -> int:
    """The length of the vector that ``layout``'s slices fill (the last one's stop)."""
    return next(reversed(layout.values()))[1]


def layout_starts(layout, *names: str) -> Tuple[int, ...]:
    """The start of each slice ``names`` of ``layout``, in that order."""
    return tuple(layout[name][0] for name in names)


#: name -> (start, stop) of each slice, in order
LAYOUT: "OrderedDict[str, tuple]" = slice_layout(_PARTS)
#: length of the observation vector
OBSERVATION_SIZE = layout_size(LAYOUT)


def layout_offsets(layout) -> "OrderedDict[str, int]":
    """``O_<NAME>`` -> the start of each slice of ``layout``: the offsets the numba
    encoders read, as module-level ints (``O_HAND``, ``O_PLAYED_BY``, ...)."""
    return OrderedDict((f"O_{name.upper()}", a) for name, (a, _) in layout.items())


#: the offsets of :data:`LAYOUT`'s slices, also module-level names ``O_*``
OFFSETS = layout_offsets(LAYOUT)
globals().update(OFFSETS)

#: per-element upper bound of the observation (lower bound 0 everywhere)
HIGH = np.ones(OBSERVATION_SIZE, dtype=np.float32)
HIGH[slice(*LAYOUT["points"])] = 2.0
HIGH[slice(*LAYOUT["match"])] = (1.0, 10.0, 10.0, 10.0, 10.0)


def _sl(name):
    return slice(*LAYOUT[name])


def _one_hot(v: np.ndarray, name: str, i: int) -> None:
    a, _ = LAYOUT[name]
    v[a + i] = 1.0


def _bits(mask: int) -> np.ndarray:
    return ((int(mask) >> np.arange(N_CARDS)) & 1).astype(np.float32)


def _mask(bits: np.ndarray) -> int:
    return int(sum(1 << int(i) for i in np.flatnonzero(bits > 0.5)))


def match_vector(match: Optional[dict], no_match: np.ndarray) -> np.ndarray:
    """The numba encoders' ``match`` argument (both families): float64 ``(flag, score 0,
    score 1, target, pot)`` from ``{"scores", "target", "pot"}``; ``no_match`` (zeros,
    flag 0) in deal mode (None)."""
    if match is None:
        return no_match
    s = match["scores"]
    return np.array((1.0, s[0], s[1], match["target"], match.get("pot", 0)), dtype=np.float64)


class EncoderBase:
    """What the observation encoders of both families share
    (:class:`.kernels.ObservationEncoder`, :class:`.encoder_two.TwoPlayerEncoder`):
    the rules, their rule vector ``params`` and the match vector of deal mode. Each
    family writes its ``encode(state, seat, match=None, out=None)`` (the AEC env's hot
    path: one call into its numba encoder), ``encode_view(public_view, seat, match=None,
    out=None)`` (from the seat's public view: what agents hold), ``observe(deal, seat,
    match)`` and ``legal_mask(deal)``."""

    def __init__(self, rules, params: np.ndarray):
        self.rules = rules
        self.params = params
        #: the match vector of deal mode
        self.no_match = np.zeros(5, dtype=np.float64)

    def match_vector(self, match) -> np.ndarray:
        """``(flag, score 0, score 1, target, pot)`` from ``{"scores", "target", "pot"}``
        (None: deal mode; :func:`match_vector`)."""
        return match_vector(match, self.no_match)


def encode(info: InformationSet, match: Optional[dict] = None) -> np.ndarray:
    """The observation of ``info.seat`` (see the module docstring), shape
    ``(OBSERVATION_SIZE,)``, float32.

    :param match: match mode: ``{"scores": (team 0, team 1), "target": int, "pot": int}``
        (public); None in deal mode.
    """
    me = info.seat
    team = team_of(me)
    rules = info.rules

    def rel(seat):
        return seat_after(seat, -me)

    v = np.zeros(OBSERVATION_SIZE, dtype=np.float32)
    v[_sl("hand")] = _bits(info.hand)
    _one_hot(v, "dealer", rel(info.dealer))
    _one_hot(v, "phase", PHASES.index(info.phase))
    if info.current_player is not None:
        _one_hot(v, "to_act", rel(info.current_player))

    # auction
    b0 = LAYOUT["bids"][0]
    for seat, a in info.auction:
        if A.is_bid(a) or A.is_capot(a):
            row = CAPOT_ROW if A.is_capot(a) else (A.bid_value(a) - 80) // 10
            base = b0 + row * (N_SEATS + N_STRAINS)
            v[base:base + N_SEATS + N_STRAINS] = 0.0
            v[base + rel(seat)] = 1.0
            v[base + N_SEATS + A.bid_strain(a)] = 1.0
        elif a == A.COINCHE:
            _one_hot(v, "coinche", rel(seat))
        elif a == A.SURCOINCHE:
            _one_hot(v, "surcoinche", rel(seat))
    classic = rules.family == "classic"
    if classic and info.phase == "auction":
        _one_hot(v, "prise", 0 if len(info.auction) < N_SEATS else 1)
    if info.retourne is not None:
        _one_hot(v, "retourne", info.retourne)

    c = info.contract
    if c is not None:
        c0 = LAYOUT["contract"][0]
        if c.capot:
            v[c0 + CAPOT_ROW] = 1.0
        elif c.value:
            v[c0 + (c.value - 80) // 10] = 1.0
        v[c0 + N_LEVELS + c.strain] = 1.0
        v[c0 + N_LEVELS + N_STRAINS + c.coinche] = 1.0
        v[c0 + N_LEVELS + N_STRAINS + 3 + rel(c.taker)] = 1.0

    # declarations and belote
    if info.declarations_resolved:
        v[_sl("declarations_resolved")] = 1.0
    if info.declaration_winner is not None:
        _one_hot(v, "declaration_winner", 0 if info.declaration_winner == team else 1)
    s0 = LAYOUT["declarations_shown"][0]
    for seat in range(N_SEATS):
        if info.shown[seat]:
            r = rel(seat)
            v[s0 + N_CARDS * r:s0 + N_CARDS * r + N_CARDS] = _bits(info.shown[seat])
    for seat, _suit in info.belotes:
        _one_hot(v, "belote", rel(seat))

    # card play
    p0 = LAYOUT["played_by"][0]
    w0 = LAYOUT["played_when"][0]
    for t, trick in enumerate(info.tricks):
        for seat, card in trick:
            v[p0 + N_SEATS * card + rel(seat)] = 1.0
            v[w0 + card] = (t + 1) / N_TRICKS
    if info.phase == "play":
        n_done = len(info.trick_winners)
        current = info.tricks[-1] if info.tricks and len(info.tricks) > n_done else ()
        for _seat, card in current:
            _one_hot(v, "current_trick", card)
        leader = current[0][0] if current else info.current_player
        _one_hot(v, "leader", rel(leader))
        _one_hot(v, "trick_no", min(n_done, N_TRICKS - 1))

    if c is not None:
        pts = card_points_table(rules)[c.strain]
        points = [0] * N_TEAMS
        tricks = [0] * N_TEAMS
        for t, w in enumerate(info.trick_winners):
            points[team_of(w)] += int(sum(int(pts[card]) for _, card in info.tricks[t]))
            tricks[team_of(w)] += 1
            if t == N_TRICKS - 1:
                points[team_of(w)] += 10
        v[_sl("points")] = (points[team] / 162.0, points[1 - team] / 162.0)
        v[_sl("tricks")] = (tricks[team] / N_TRICKS, tricks[1 - team] / N_TRICKS)

    if match is not None:
        target = float(match["target"])
        scores = match["scores"]
        v[_sl("match")] = (1.0, scores[team] / target, scores[1 - team] / target,
                           target / 1000.0, match.get("pot", 0) / 162.0)

    strains = rules.allowed_strains
    v[_sl("rules")] = (
        float(4 in strains or 5 in strains), float(rules.must_undertrump),
        float(rules.overtrump_partner), float(rules.declarations),
        float(rules.optional_declare), float(rules.optional_belote), float(classic),
        float(rules.made_conditions == "bid_only"), rules.multipliers[1] / 4.0,
        float(rules.generale_bonus > 0))

    vo = LAYOUT["voids"][0]
    ce = LAYOUT["ceilings"][0]
    for seat in range(N_SEATS):
        r = rel(seat)
        for suit in range(N_SUITS):
            v[vo + N_SUITS * r + suit] = float(info.voids[seat] >> suit & 1)
            v[ce + N_SUITS * r + suit] = info.ceilings[seat][suit] / float(NO_CEILING)
    np.clip(v, 0.0, HIGH, out=v)
    return v


def decode(vec: np.ndarray, observer: int = 0) -> dict:
    """Readable values of an observation of seat ``observer`` (absolute seats again).

    Keys: ``hand`` (mask), ``dealer``, ``phase``, ``to_act`` (None when done), ``bids``
    (``[(value or 250 for capot, seat, strain)]`` by level), ``coinche`` / ``surcoinche``
    (seat or None), ``prise_round`` (1, 2 or None), ``retourne`` (card or None),
    ``contract`` (``dict(value, capot, strain, coinche, taker)`` or None; value None in
    the classic family), ``declarations_resolved``, ``declaration_winner`` (team or
    None), ``shown`` (4 masks), ``belote`` (seats), ``played`` (``[(card, seat, trick)]``
    in card order), ``current_trick`` (``[(seat, card)]`` in play order), ``leader``,
    ``trick_no``, ``points`` and ``tricks`` (per absolute team, as ints), ``match``
    (dict or None), ``rules`` (the 10 floats), ``voids`` (per seat, suit bits),
    ``ceilings`` (per seat, 4 ints).
    """
    v = np.asarray(vec, dtype=np.float32)
    if v.shape != (OBSERVATION_SIZE,):
        raise ValueError(f"expected an observation of shape ({OBSERVATION_SIZE},), got {v.shape!r}")
    me = int(observer)
    team = team_of(me)

    def seg(name):
        return v[_sl(name)]

    def seat_of(bits):
        nz = np.flatnonzero(bits > 0.5)
        return seat_after(int(nz[0]), me) if len(nz) else None

    out = {"hand": _mask(seg("hand")), "dealer": seat_of(seg("dealer"))}
    out["phase"] = PHASES[int(np.argmax(seg("phase")))]
    out["to_act"] = seat_of(seg("to_act"))
    bids = []
    rows = seg("bids").reshape(N_LEVELS, N_SEATS + N_STRAINS)
    for row in range(N_LEVELS):
        if rows[row].any():
            bids.append((250 if row == CAPOT_ROW else 80 + 10 * row, seat_of(rows[row, :N_SEATS]),
                         int(np.argmax(rows[row, N_SEATS:]))))
    out["bids"] = bids
    out["coinche"] = seat_of(seg("coinche"))
    out["surcoinche"] = seat_of(seg("surcoinche"))
    pr = np.flatnonzero(seg("prise") > 0.5)
    out["prise_round"] = int(pr[0]) + 1 if len(pr) else None
    rt = np.flatnonzero(seg("retourne") > 0.5)
    out["retourne"] = int(rt[0]) if len(rt) else None
    c = seg("contract")
    if c[N_LEVELS:N_LEVELS + N_STRAINS].any():
        lv = np.flatnonzero(c[:N_LEVELS] > 0.5)
        capot = bool(len(lv) and lv[0] == CAPOT_ROW)
        value = None if not len(lv) else (250 if capot else 80 + 10 * int(lv[0]))
        out["contract"] = dict(value=value, capot=capot,
                               strain=int(np.argmax(c[N_LEVELS:N_LEVELS + N_STRAINS])),
                               coinche=int(np.argmax(c[N_LEVELS + N_STRAINS:N_LEVELS + N_STRAINS + 3])),
                               taker=seat_of(c[N_LEVELS + N_STRAINS + 3:]))
    else:
        out["contract"] = None
    out["declarations_resolved"] = bool(seg("declarations_resolved")[0] > 0.5)
    dw = np.flatnonzero(seg("declaration_winner") > 0.5)
    out["declaration_winner"] = None if not len(dw) else (team if dw[0] == 0 else 1 - team)
    shown = seg("declarations_shown").reshape(N_SEATS, N_CARDS)
    out["shown"] = [_mask(shown[seat_after(s, -me)]) for s in range(N_SEATS)]
    out["belote"] = sorted(seat_after(int(r), me) for r in np.flatnonzero(seg("belote") > 0.5))
    by = seg("played_by").reshape(N_CARDS, N_SEATS)
    when = seg("played_when")
    out["played"] = [(card, seat_of(by[card]), int(round(when[card] * N_TRICKS)) - 1)
                     for card in range(N_CARDS) if by[card].any()]
    out["leader"] = seat_of(seg("leader"))
    cur = [card for card in np.flatnonzero(seg("current_trick") > 0.5)]
    cur_seats = [(seat_of(by[card]), int(card)) for card in cur]
    if out["leader"] is not None:
        cur_seats.sort(key=lambda sc: seat_after(sc[0], -out["leader"]))
    out["current_trick"] = cur_seats
    tn = np.flatnonzero(seg("trick_no") > 0.5)
    out["trick_no"] = int(tn[0]) if len(tn) else None
    pts = seg("points")
    trk = seg("tricks")
    us_them_pts = [int(round(pts[0] * 162)), int(round(pts[1] * 162))]
    us_them_trk = [int(round(trk[0] * N_TRICKS)), int(round(trk[1] * N_TRICKS))]
    out["points"] = (us_them_pts[0], us_them_pts[1]) if team == 0 else (us_them_pts[1], us_them_pts[0])
    out["tricks"] = (us_them_trk[0], us_them_trk[1]) if team == 0 else (us_them_trk[1], us_them_trk[0])
    m = seg("match")
    if m[0] > 0.5:
        target = int(round(m[3] * 1000))
        ours, theirs = int(round(m[1] * target)), int(round(m[2] * target))
        out["match"] = dict(scores=(ours, theirs) if team == 0 else (theirs, ours),
                            target=target, pot=int(round(m[4] * 162)))
    else:
        out["match"] = None
    out["rules"] = [float(x) for x in seg("rules")]
    vo = seg("voids").reshape(N_SEATS, N_SUITS)
    ce = seg("ceilings").reshape(N_SEATS, N_SUITS)
    out["voids"] = [int(sum(1 << s for s in range(N_SUITS) if vo[seat_after(p, -me), s] > 0.5)) for p in range(N_SEATS)]
    out["ceilings"] = [[int(round(ce[seat_after(p, -me), s] * NO_CEILING)) for s in range(N_SUITS)]
                       for p in range(N_SEATS)]
    return out
