"""The numba encoder of belote for two players' observation (``coinche_rl.envs.encoder_two``).

* :func:`encode_view`: the observation vector of
  :mod:`coinche_rl.envs.observation_two`, written from the engine's **public
  view** of one player (:func:`coinche_rl.engine.two.two_public_view_into`: no deck, no
  face-down card, the other hand only where it was shown), **identical** to
  ``observation_two.encode(deal.view(player), match)`` (tested at every step of
  random games of both presets). :func:`encode_into` takes the full state, writes the
  player's public view into a scratch vector, and encodes that: the observation never
  reads the state itself, so it cannot leak.
The vector envs' kernels are written once for both families in :mod:`.kernels`
(:func:`~coinche_rl.envs.kernels.encode_two` calls :func:`encode_into` there).

Kernels of one call graph live in this module (numba caches per module).
"""

from __future__ import annotations

import numpy as np
from numba import njit

from ..actions import NAME_BASE, PASS, TAKE
from ..cards import N_CARDS
from ..engine import kernel, popcount
from ..engine.two import (CARDS_PER_PLAYER, DECL_UNRESOLVED, DONE, EXCHANGE_PHASE, HIDDEN_CARD,
                          N_PLAYERS, N_STACKS, N_TRICKS_TWO, PLAY, PRISE, TWO_STATE_SIZE,
                          belote_points, card_points_won, cards_in_trick, current_player,
                          deal_void, dealer_of, declaration_cards, declaration_points,
                          declaration_winner, exchange_choice, face_up_cards, hand_of, other,
                          phase_of, prise_action, prise_length, prise_round, retourne_of,
                          stack_face_down, stack_face_up, taker_of, trick_card, trick_leader,
                          trick_number, trick_winner, tricks_won, trump_of,
                          two_public_view_into, writable_state)
from ..rules import DEAL_POINTS, P_BELOTE, P_DECLARATIONS, P_HAND_CARDS, P_LITIGE, params_vector
from . import observation_two as O
from .observation import EncoderBase
from .observation_two import (DECLARATION_SCALE, FACE_DOWN_SCALE, HAND_SCALE, HIGH, O_BELOTE,
                              O_COVERS, O_CURRENT_TRICK, O_DEALER, O_DECLARATIONS_RESOLVED,
                              O_DECLARATION_CARDS, O_DECLARATION_WINNER, O_DECLARED,
                              O_EXCHANGE, O_FACE_DOWN, O_HAND, O_HAND_SIZE, O_KNOWN_OTHER,
                              O_LEADER, O_MATCH, O_PHASE, O_PLAYED_BY, O_PLAYED_WHEN, O_POINTS,
                              O_PRISE, O_PRISE_ROUND, O_RETOURNE, O_RETOURNE_HOLDER, O_RULES,
                              O_TABLE_UP, O_TAKER, O_TO_ACT, O_TRICKS, O_TRICK_NO, O_TRUMP,
                              TRICKS_SCALE)
from .observation_two import OBSERVATION_SIZE as N_OBS

__all__ = ["encode_view", "encode_into", "TwoPlayerEncoder", "warmup"]

#: the hand size before the rest of the deal (belote_a_deux: 6 each)
FIRST_HAND = 6
#: the engine's phase id -> its index in the ``phase`` slice (prise, exchange, play, done)
_PHASE_INDEX = np.array([O.PHASES.index(n) for n in ("prise", "play", "done", "exchange")],
                        dtype=np.int64)
assert (PRISE, PLAY, DONE, EXCHANGE_PHASE) == (0, 1, 2, 3)


@njit(cache=True, _nrt=False, inline="always")
def _rel(p, me):
    return 0 if p == me else 1


@njit(cache=True, _nrt=False, inline="always")
def _bits_into(mask, out, at):
    for c in range(N_CARDS):
        if (mask >> c) & 1:
            out[at + c] = 1.0


@kernel
def encode_view(V, P, me, match, out):
    """Write the observation of player ``me`` (:mod:`observation_two`, version 1)
    into ``out`` (float32 of ``OBSERVATION_SIZE``) from ``V``, his public view
    (:func:`~coinche_rl.engine.two.two_public_view_into`): nothing else is read.

    ``match``: float64[5] = (flag, player-0 score, player-1 score, target, pot), flag 0
    in deal mode.
    """
    for k in range(N_OBS):
        out[k] = 0.0
    o = other(me)
    phase = phase_of(V)
    _bits_into(hand_of(V, me), out, O_HAND)
    _bits_into(hand_of(V, o), out, O_KNOWN_OTHER)
    # the table: face-up cards, the stacks whose face-down card is still there
    down_o = 0
    for p in range(N_PLAYERS):
        r = _rel(p, me)
        up = face_up_cards(V, p)
        _bits_into(up, out, O_TABLE_UP + 32 * r)
        down = 0
        for k in range(N_STACKS):
            u = stack_face_up(V, p, k)
            d = stack_face_down(V, p, k)
            if d == HIDDEN_CARD:
                down += 1
                if u >= 0 and (up >> u) & 1:
                    out[O_COVERS + 32 * r + u] = 1.0
        out[O_FACE_DOWN + r] = down / FACE_DOWN_SCALE
        if p == o:
            down_o = down
    # the card play (and the cards the other player has played, for his hand size)
    n_o = 0
    n_done = 0
    cur_leader = -1
    cur_card = -1
    for t in range(N_TRICKS_TWO):
        leader = trick_leader(V, t)
        if trick_winner(V, t) >= 0:
            n_done += 1
        for i in range(N_PLAYERS):
            c = trick_card(V, t, i)
            if c < 0:
                break
            p = leader if i == 0 else other(leader)
            if p == o:
                n_o += 1
            out[O_PLAYED_BY + 2 * c + _rel(p, me)] = 1.0
            out[O_PLAYED_WHEN + c] = (t + 1) / TRICKS_SCALE
            if i == 0 and trick_winner(V, t) < 0:
                cur_leader = leader
                cur_card = c
    out[O_HAND_SIZE] = popcount(hand_of(V, me)) / HAND_SCALE
    if phase == PRISE or phase == EXCHANGE_PHASE or deal_void(V) != 0:
        other_hand = FIRST_HAND if P[P_HAND_CARDS] else 0
    else:
        # he owns 16 cards: hand, face-up, face-down, played
        other_hand = CARDS_PER_PLAYER - n_o - popcount(face_up_cards(V, o)) - down_o
    out[O_HAND_SIZE + 1] = other_hand / HAND_SCALE
    out[O_DEALER + _rel(dealer_of(V), me)] = 1.0
    out[O_PHASE + _PHASE_INDEX[phase]] = 1.0
    if current_player(V) >= 0:
        out[O_TO_ACT + _rel(current_player(V), me)] = 1.0
    # the prise, the retourne, the exchange
    n_prise = prise_length(V)
    for i in range(n_prise):
        a = prise_action(V, i)
        col = 0 if a == PASS else (1 if a == TAKE else 2 + a - NAME_BASE)
        out[O_PRISE + 6 * i + col] = 1.0
    if phase == PRISE:
        out[O_PRISE_ROUND + prise_round(V) - 1] = 1.0
    out[O_RETOURNE + retourne_of(V)] = 1.0
    taker = taker_of(V)
    if P[P_HAND_CARDS] and taker >= 0 and phase != EXCHANGE_PHASE:
        holder = other(taker) if exchange_choice(V) == 1 else taker
        out[O_RETOURNE_HOLDER + _rel(holder, me)] = 1.0
    if trump_of(V) >= 0:
        out[O_TRUMP + trump_of(V)] = 1.0
    if taker >= 0:
        out[O_TAKER + _rel(taker, me)] = 1.0
    if exchange_choice(V) >= 0:
        out[O_EXCHANGE + exchange_choice(V)] = 1.0
    if phase == PLAY:
        if cards_in_trick(V) == 1:
            out[O_CURRENT_TRICK + cur_card] = 1.0
            out[O_LEADER + _rel(cur_leader, me)] = 1.0
        else:
            out[O_LEADER + _rel(current_player(V), me)] = 1.0
        out[O_TRICK_NO + trick_number(V)] = 1.0
    for p in range(N_PLAYERS):
        r = _rel(p, me)
        out[O_POINTS + r] = card_points_won(V, p) / DEAL_POINTS
        out[O_TRICKS + r] = tricks_won(V, p) / TRICKS_SCALE
        out[O_DECLARED + r] = declaration_points(V, p) / DECLARATION_SCALE
        _bits_into(declaration_cards(V, p), out, O_DECLARATION_CARDS + 32 * r)
        if belote_points(V, p) > 0:
            out[O_BELOTE + r] = 1.0
    w = declaration_winner(V)
    if w != DECL_UNRESOLVED:
        out[O_DECLARATIONS_RESOLVED] = 1.0
    if w >= 0:
        out[O_DECLARATION_WINNER + _rel(w, me)] = 1.0
    if match[0] != 0.0:
        target = match[3]
        out[O_MATCH] = 1.0
        out[O_MATCH + 1] = match[1 + me] / target
        out[O_MATCH + 2] = match[1 + o] / target
        out[O_MATCH + 3] = target / 1000.0
        out[O_MATCH + 4] = match[4] / DEAL_POINTS
        for k in range(O_MATCH, O_MATCH + 5):
            if out[k] < 0.0:
                out[k] = 0.0
            elif out[k] > HIGH[k]:
                out[k] = HIGH[k]
    out[O_RULES] = 1.0 if P[P_HAND_CARDS] else 0.0
    out[O_RULES + 1] = 1.0 if P[P_DECLARATIONS] else 0.0
    out[O_RULES + 2] = 1.0 if P[P_BELOTE] else 0.0
    out[O_RULES + 3] = 1.0 if P[P_LITIGE] else 0.0


@kernel
def encode_into(T, P, me, match, V, out):
    """The observation of ``me`` in the state ``T`` into ``out``: his public view into
    the scratch ``V`` (int64[TWO_STATE_SIZE]), then :func:`encode_view` of it."""
    two_public_view_into(T, P, me, V)
    encode_view(V, P, me, match, out)


class TwoPlayerEncoder(EncoderBase):
    """The tables :func:`encode_into` needs for one rule set, and convenience calls.

    >>> from coinche_rl.two_player import TwoPlayerDeal
    >>> deal = TwoPlayerDeal("belote_a_deux", seed=3, dealer=0)
    >>> enc = TwoPlayerEncoder(deal.rules)
    >>> bool((enc.encode(deal.state, 1) == O.encode(deal.view(1))).all())
    True
    """

    def __init__(self, rules):
        super().__init__(rules, params_vector(rules))
        self._V = np.zeros(TWO_STATE_SIZE, dtype=np.int64)
        #: the four-player encoder's tables in the shared vector kernels' signature
        #: (``envs.kernels.encode_two``), unused by this family's encoder
        self.cpt = np.zeros((6, N_CARDS), dtype=np.int64)
        self.rules_vec = np.zeros(10, dtype=np.float32)

    def encode(self, T: np.ndarray, player: int, match=None, out=None) -> np.ndarray:
        """The observation of ``player`` in the state ``T`` (a new array unless ``out``)."""
        if out is None:
            out = np.empty(N_OBS, dtype=np.float32)
        encode_into(writable_state(T), self.params, int(player), self.match_vector(match),
                    self._V, out)
        return out

    def encode_view(self, V: np.ndarray, player: int, match=None, out=None) -> np.ndarray:
        """The observation of ``player`` from his public view ``V`` (``deal.public_state``)."""
        if out is None:
            out = np.empty(N_OBS, dtype=np.float32)
        encode_view(V, self.params, int(player), self.match_vector(match), out)
        return out

    def observe(self, deal, player: int, match=None) -> np.ndarray:
        """The observation of ``player`` in ``deal`` (a
        :class:`~coinche_rl.two_player.TwoPlayerDeal`), from his public view (the engine's,
        a fresh vector with nothing hidden in it)."""
        return self.encode_view(deal.public_state(player), player, match)

    def legal_mask(self, deal) -> np.ndarray:
        """The legal actions of ``deal`` as a new int8 mask."""
        return deal.legal_action_mask().astype(np.int8)


#: its place in ``coinche-rl warmup`` (:mod:`coinche_rl.cli.warmup`): after the family's
#: engine, in its chain
WARMUP_AFTER = ("coinche_rl.engine.two",)


def warmup() -> None:
    """Compile the kernels of this module (cached on disk)."""
    from ..two_player import TwoPlayerDeal
    for name in ("belote_a_deux", "belote_decouverte"):
        deal = TwoPlayerDeal(name, seed=0, dealer=0)
        TwoPlayerEncoder(deal.rules).encode(deal.state, 0)
