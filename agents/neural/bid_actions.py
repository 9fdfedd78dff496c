"""The auction actions of the bidding network (``coinche_rl.agents.neural.bid_actions``):
its outputs in order (:data:`BID_ACTIONS`), the output of each action id
(:data:`BID_INDEX`), the card players it has heads for (:data:`PLAYERS`), and its
inputs at the seats to bid (:func:`bid_inputs`, in the canonical suit order of
:mod:`.canonical`; :func:`input_scratch`: the scratch arrays of the kernels that
make network inputs one seat at a time)."""

from __future__ import annotations

import numpy as np
from numba import njit

from ... import actions as A
from . import canonical as C

__all__ = ["BID_ACTIONS", "N_BID", "BID_INDEX", "PLAYERS", "bid_inputs", "input_scratch"]

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
