"""The auction actions of the bidding network (``coinche_rl.agents.neural.bid_actions``):
its outputs in order (:data:`BID_ACTIONS`), the output of each action id
(:data:`BID_INDEX`), the card players it has heads for (:data:`PLAYERS`), and its
inputs at the seats to bid (:func:`bid_inputs`, in the canonical suit order of
:mod:`.canonical`; :func:`input_scratch`: the scratch arrays of the kernels that
make network inputs one seat at a time).

Each family's bidding network has its action space (:class:`BidSpace`,
:data:`BID_SPACES`, by the networks' input key): the 82 auction actions for four players,
the 8 actions of the prise and the exchange for belote for two players
(:data:`PRISE_ACTIONS`: pass, take, the four namings, no exchange, exchange)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numba import njit

from ... import actions as A
from . import canonical as C

__all__ = ["BID_ACTIONS", "N_BID", "BID_INDEX", "PLAYERS", "label_players", "bid_inputs",
           "input_scratch", "PRISE_ACTIONS", "BidSpace", "BID_SPACES"]

#: the auction actions the bidding network scores (canonical ids), in output order:
#: pass, the 66 numeric bids, the 6 capots, coinche, surcoinche, take, the 6 namings
BID_ACTIONS = np.array([A.PASS, *range(A.BID_BASE, A.COINCHE), A.COINCHE, A.SURCOINCHE,
                        A.TAKE, *range(A.NAME_BASE, A.NAME_BASE + 6)], dtype=np.int64)
N_BID = len(BID_ACTIONS)
#: output index of each action id (-1: not an auction action)
BID_INDEX = np.full(A.N_ACTIONS, -1, dtype=np.int64)
BID_INDEX[BID_ACTIONS] = np.arange(N_BID)
#: the card players the network has heads for (those a label chunk can play out)
PLAYERS = ("nn", "heuristic")


def label_players(players, play_net) -> tuple:
    """The card players of a label chunk (auction or prise), checked: each one of
    :data:`PLAYERS`, and ``play_net`` (a card-play MLP) given for ``"nn"``.

    :raises ValueError: an unknown player, or ``"nn"`` without ``play_net``.
    """
    players = tuple(players)
    for pl in players:
        if pl not in PLAYERS:
            raise ValueError(f"unknown card player {pl!r}: expected one of {', '.join(PLAYERS)}")
    if "nn" in players and play_net is None:
        raise ValueError("the 'nn' card player needs play_net (a card-play MLP)")
    return players
#: the prise network's outputs (belote for two players), in order: pass, take, the four
#: namings (canonical suits: slot 0 is the retourne's suit, never named), no exchange,
#: exchange
PRISE_ACTIONS = np.array([A.PASS, A.TAKE, *range(A.NAME_BASE, A.NAME_BASE + 4),
                          A.NO_EXCHANGE, A.EXCHANGE], dtype=np.int64)


def _renamed(actions: np.ndarray) -> np.ndarray:
    """``src[p, j]``: the physical action of output ``j`` under renaming ``p`` (the
    suit-indexed actions renamed, the others as they are)."""
    src = np.empty((24, len(actions)), dtype=np.int64)
    for p in range(24):
        for j, a in enumerate(actions):
            src[p, j] = C.ACT_SRC[p, a] if a < C.ACT_SRC.shape[1] else a
    return src


@dataclass(frozen=True, eq=False)
class BidSpace:
    """A family's bidding-network outputs: ``actions`` (canonical action ids, in output
    order), ``action_map`` (the manifest's name of it), ``src[p, j]`` (the physical
    action of output ``j`` under renaming ``p``) and ``index[a]`` (the output of a
    canonical action id, -1: none)."""
    actions: np.ndarray
    action_map: str

    @property
    def n(self) -> int:
        return len(self.actions)

    @property
    def src(self) -> np.ndarray:
        return _SRC[self.action_map]

    @property
    def dst(self) -> np.ndarray:
        """``dst[p, a]``: the output of physical action ``a`` under renaming ``p`` (-1:
        none)."""
        return _DST[self.action_map]

    @property
    def index(self) -> np.ndarray:
        out = np.full(A.N_ACTIONS, -1, dtype=np.int64)
        out[self.actions] = np.arange(self.n)
        return out


_SRC = {"canonical-auction-82": _renamed(BID_ACTIONS),
        "canonical-prise-8": _renamed(PRISE_ACTIONS)}
_DST = {}
for _name, _src in _SRC.items():
    _DST[_name] = np.full((24, A.N_ACTIONS), -1, dtype=np.int64)
    for _p in range(24):
        _DST[_name][_p, _src[_p]] = np.arange(_src.shape[1])
#: each family's bidding outputs, by the networks' input key (:data:`.net.INPUTS`)
BID_SPACES = {"four": BidSpace(BID_ACTIONS, "canonical-auction-82"),
              "two": BidSpace(PRISE_ACTIONS, "canonical-prise-8")}


@njit(cache=True)
def input_scratch():
    """The scratch arrays of :func:`.canonical.play_inputs_one`, new: ``(obs, cobs, mask,
    cmask, cards, voids, ceil, keys, order)``."""
    return (np.empty(C.N_OBS, dtype=np.float32), np.empty(C.N_OBS, dtype=np.float32),
            np.empty(A.N_ACTIONS, dtype=np.uint8), np.empty(A.N_ACTIONS, dtype=np.uint8),
            np.empty(32, dtype=np.uint8), np.empty(4, dtype=np.int64),
            np.empty((4, 4), dtype=np.int64), np.empty((4, C.KEY_SIZE), dtype=np.float32),
            np.empty(4, dtype=np.int64))


@njit(cache=True)
def bid_inputs(states, P, idx, cpt, rules_vec, match, feats, legal, perms):
    """Network inputs of the seats to bid in games ``states[idx[j]]``: ``feats[j]``,
    the legal canonical auction actions ``legal[j]`` (uint8[N_BID]) and the renaming
    ``perms[j]`` (a canonical output ``i`` is physical action
    ``ACT_SRC[perms[j], BID_ACTIONS[i]]``)."""
    obs, cobs, mask, cmask, cards, voids, ceil, keys, order = input_scratch()
    for j in range(idx.shape[0]):
        perms[j] = C.play_inputs_one(states[idx[j]], P, cpt, rules_vec, match, obs, mask,
                                      cobs, cmask, voids, ceil, keys, order, feats[j], cards)
        for i in range(N_BID):
            legal[j, i] = cmask[BID_ACTIONS[i]]
