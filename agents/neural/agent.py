"""The ``nn`` agent (``coinche_rl.agents.neural.agent``): card play from a network, no
torch needed; the auction (and the optional declare / belote choices) from the numba
heuristic until a bidding network exists.

Two ways to play, with the same choices:

* :class:`NeuralAgent.act` for one decision (the agent interface of
  :mod:`coinche_rl.agents.base`): the seat's observation is encoded from its *public
  state*, put in the canonical suit order (:mod:`.canonical`), the network scores the
  32 canonical cards, the best legal one is mapped back to its physical card. A single
  legal card is played without the network.
* :meth:`NeuralAgent.batch_policy`: a batched policy ``f(public_states, params, seats)``
  for the opponents of the numba vector env (:class:`coinche_rl.envs.vector.CoincheVectorEnv`).
* :func:`play_states`, the batched path of the arena and the trainer's evaluation:
  many deals in lockstep, numba bots (and the nn seats' non-card decisions) inside one
  numba loop, and every nn card decision waiting at that moment scored by **one**
  forward pass. A tournament with the ``nn`` agent makes a handful of Python calls per
  card trick, not one per decision per deal.

Parameters (``coinche-rl agents`` lists them): ``weights`` (a ``.npz`` weights file;
default: the weights shipped for the preset) and ``any_rules`` (play under a preset the
net was not trained for; off by default: the agent then refuses with a message naming
both).

>>> from coinche_rl.game import Deal
>>> from coinche_rl.agents import make_agent, play_deal
>>> deal = Deal("ffb", seed=4, dealer=1)
>>> table = [make_agent("nn"), make_agent("heuristic"), make_agent("nn"), make_agent("heuristic")]
>>> play_deal(deal, table, seeds=[1, 2, 3, 4]).scores == deal.scores
True
"""

from __future__ import annotations

import os
from typing import Dict, Optional, Sequence

import numpy as np
from numba import njit

from ... import actions as A
from ...engine import (DONE, PLAY, S_CUR, S_PHASE, _pending_choice, apply_legal_action,
                       is_legal, legal_play_mask, lowest_card, popcount, rng_seed, kernel)
from ...rules import RuleSet, card_points_table, get_rules, params_vector
from ...envs.kernels import apply_at, rules_vector
from ..base import Agent, PlayerView
from ..numba_bots import BOT_HEURISTIC, bot_action
from ..registry import Param, register_agent
from . import canonical as C
from .net import MLP, default_weights_path, load_weights, trained_for

__all__ = ["NeuralAgent", "NeuralError", "BatchPolicy", "play_states", "NetInputs",
           "load_play_net", "warmup"]


class NeuralError(ValueError):
    """The ``nn`` agent cannot play here (missing weights, other rules)."""


# ------------------------------------------------------------------- batched play
#: :func:`card_choice`: the network chooses / the decision is not a card
NET_CARD, NOT_A_CARD = -1, -2


@kernel
def card_choice(S, P):
    """What an nn seat does at state ``S``: :data:`NET_CARD` when it plays a card with a
    choice of two or more (the network decides), the card action when the card is
    forced, :data:`NOT_A_CARD` for every other decision (auction, declare / belote
    choices: the numba bot's)."""
    if S[S_PHASE] != PLAY or _pending_choice(S, P) != 0:
        return NOT_A_CARD
    legal = legal_play_mask(S, P)
    if popcount(legal) >= 2:
        return NET_CARD
    return A.CARD_BASE + lowest_card(legal)


@njit(cache=True)
def advance(states, P, bots, nets, rngs, waiting):
    """Play every game of ``states`` until its seat to act is an nn seat
    (``nets[seat] != 0``) facing a :data:`NET_CARD` decision, or the deal is over.
    Other decisions are the numba bot ``bots[seat]``'s (the nn seats' auction and
    declare / belote choices too); a forced card is played as is. The games waiting for
    the network go into ``waiting``; returns how many, or ``-(i + 1)`` when a bot chose
    an illegal action in game ``i`` (never expected)."""
    buf = np.zeros(A.N_ACTIONS, dtype=np.uint8)
    k = 0
    for i in range(states.shape[0]):
        S = states[i]
        while S[S_PHASE] != DONE:
            cur = S[S_CUR]
            a = card_choice(S, P) if nets[cur] != 0 else NOT_A_CARD
            if a == NET_CARD:
                waiting[k] = i
                k += 1
                break
            if a == NOT_A_CARD:
                a = bot_action(bots[cur], S, P, cur, rngs[i, cur:cur + 1], buf)
                if not is_legal(S, P, a):
                    return -(i + 1)
            apply_legal_action(S, P, a)
    return k


@njit(cache=True)
def seed_streams(seeds, rngs):
    """``rngs[i, s]`` seeded as :func:`coinche_rl.agents.numba_bots.play_deals` does."""
    for i in range(seeds.shape[0]):
        for s in range(4):
            rng_seed(rngs[i, s:s + 1], seeds[i, s], 0)


class NetInputs:
    """Reusable buffers and tables for the network inputs of one rule set."""

    def __init__(self, rules: RuleSet, capacity: int = 0):
        self.rules = rules
        self.params = params_vector(rules)
        self.cpt = np.ascontiguousarray(card_points_table(rules), dtype=np.int64)
        self.rules_vec = rules_vector(rules)
        self.match = np.zeros(5, dtype=np.float64)
        self._grow(capacity)

    def _grow(self, n: int) -> None:
        self.feats = np.zeros((n, C.FEATURE_SIZE), dtype=np.float32)
        self.cards = np.zeros((n, 32), dtype=np.uint8)
        self.perms = np.zeros(n, dtype=np.int64)

    def compute(self, states: np.ndarray, idx: np.ndarray, match=None):
        """``(feats, legal, perms)`` of the seats to act in ``states[idx]`` (views of
        the buffers)."""
        n = len(idx)
        if n and (idx.min() < 0 or idx.max() >= len(states)):
            raise IndexError(f"game indices must be in 0..{len(states) - 1}, got "
                             f"{int(idx.min())}..{int(idx.max())}")
        if n > len(self.perms):
            self._grow(max(n, 2 * len(self.perms)))
        m = self.match if match is None else match
        C.play_inputs(states, self.params, idx, self.cpt, self.rules_vec, m,
                      self.feats[:n], self.cards[:n], self.perms[:n])
        return self.feats[:n], self.cards[:n].astype(bool), self.perms[:n]

    def net_actions(self, net: MLP, states: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """The physical card actions ``net`` plays at the :data:`NET_CARD` decisions
        ``states[idx]``: one forward pass, the best legal canonical card mapped back."""
        feats, legal, perms = self.compute(states, idx)
        return C.ACT_SRC[perms, A.CARD_BASE + net.best(feats, legal)]


def play_states(rules: RuleSet, states: np.ndarray, seeds: np.ndarray,
                bots: Sequence[int], nets: Sequence[Optional[MLP]]) -> None:
    """Play ``states`` (int64[N, STATE_SIZE]) to their end **in place**: seat ``s``
    plays its cards with ``nets[s]`` when given, and everything else with numba bot
    ``bots[s]`` (seeded per deal and seat from ``seeds[i, s]``, as
    :func:`~coinche_rl.agents.numba_bots.play_deals`), in lockstep batches."""
    P = params_vector(rules)
    n = len(states)
    if n == 0:
        return
    bots = np.asarray(bots, dtype=np.int64)
    flags = np.array([0 if net is None else 1 + i for i, net in enumerate(nets)], dtype=np.int64)
    rngs = np.zeros((n, 4), dtype=np.uint64)
    seed_streams(np.ascontiguousarray(seeds, dtype=np.int64), rngs)
    inputs = NetInputs(rules, n)
    waiting = np.zeros(n, dtype=np.int64)
    groups = {}                               # each distinct net and the seats it plays
    for s, net in enumerate(nets):
        if net is not None:
            groups.setdefault(id(net), (net, []))[1].append(s)
    while True:
        k = advance(states, P, bots, flags, rngs, waiting)
        if k < 0:
            raise RuntimeError(f"a numba bot chose an illegal action in game {-k - 1}")
        if k == 0:
            return
        idx = waiting[:k]
        seat = states[idx, S_CUR]
        for net, seats in groups.values():
            mine = idx[np.isin(seat, seats)]
            if len(mine):
                acts = inputs.net_actions(net, states, mine)
                apply_at(states, P, mine, len(mine), acts)


@njit(cache=True)
def policy_actions(states, P, seats, bot, out, need):
    """Actions of the seats ``seats[j]`` to act in ``states[j]`` (public states) by
    :func:`card_choice`, the others from numba bot ``bot``; the rows whose card is for
    the network go into ``need`` (``out`` -1 there), whose count is returned."""
    buf = np.zeros(A.N_ACTIONS, dtype=np.uint8)
    rng = np.zeros(1, dtype=np.uint64)
    k = 0
    for j in range(states.shape[0]):
        a = card_choice(states[j], P)
        if a == NET_CARD:
            need[k] = j
            k += 1
            a = -1
        elif a == NOT_A_CARD:
            a = bot_action(bot, states[j], P, seats[j], rng, buf)
        out[j] = a
    return k


class BatchPolicy:
    """The ``nn`` agent as a batched policy ``f(public_states, params, seats) ->
    actions`` (the opponents of :class:`coinche_rl.envs.vector.CoincheVectorEnv`): one
    forward pass for every card decision of the batch, the heuristic for the rest."""

    def __init__(self, net: MLP, rules: RuleSet, other_bot: int = BOT_HEURISTIC):
        self.net = net
        self.rules = rules
        self.other_bot = int(other_bot)
        self.inputs = NetInputs(rules, 0)

    def __call__(self, states: np.ndarray, params: np.ndarray, seats: np.ndarray) -> np.ndarray:
        states = np.ascontiguousarray(states, dtype=np.int64)
        n = len(states)
        out = np.empty(n, dtype=np.int64)
        need = np.empty(n, dtype=np.int64)
        k = policy_actions(states, np.ascontiguousarray(params, dtype=np.int64),
                           np.ascontiguousarray(seats, dtype=np.int64), self.other_bot, out, need)
        if k:
            out[need[:k]] = self.inputs.net_actions(self.net, states, need[:k])
        return out


# -------------------------------------------------------------------- the agent
_NETS: Dict[tuple, MLP] = {}


def load_play_net(path: str = "", rules: Optional[RuleSet] = None,
                  check_rules: bool = True) -> MLP:
    """The card-play net at ``path`` (default: shipped for ``rules``, ``ffb`` if None),
    loaded once per process and checked (:func:`~.net.load_weights`)."""
    rules = rules or get_rules("ffb")
    if not path:
        path = default_weights_path(rules.name if check_rules else "ffb")
        if not os.path.isfile(path):
            folder = os.path.dirname(path)
            shipped = sorted(f[:-len("_play.npz")] for f in os.listdir(folder)
                             if f.endswith("_play.npz")) if os.path.isdir(folder) else []
            raise NeuralError(f"no shipped card-play weights for preset {rules.name!r} "
                              f"(looked for {path}); shipped: {', '.join(shipped) or 'none'}. "
                              f"Pass nn:weights=PATH or nn:any_rules=true")
    try:
        st = os.stat(path)
    except OSError:
        raise NeuralError(f"no weights file at {path!r}") from None
    key = (os.path.abspath(path), st.st_mtime_ns, st.st_size)
    net = _NETS.get(key)
    if net is None:
        net = _NETS[key] = load_weights(path)
    if check_rules and not trained_for(net.manifest, rules):
        raise NeuralError(f"the card-play net {path} was trained for "
                          f"{net.manifest.get('rules', {}).get('name')!r} rules, not for "
                          f"{rules.name!r} (or its overrides); use nn:any_rules=true to "
                          f"play it anyway")
    return net


class NeuralAgent(Agent):
    """Card play from a network, auction from the heuristic (see the module
    docstring)."""

    numba_bot = None

    def __init__(self, weights: str = "", any_rules: bool = False):
        super().__init__()
        self.weights = weights
        self.any_rules = bool(any_rules)
        self.net: Optional[MLP] = None
        self._inputs: Optional[NetInputs] = None
        self._rng1 = np.zeros(1, dtype=np.uint64)
        self._buf = np.zeros(A.N_ACTIONS, dtype=np.uint8)
        self._idx = np.zeros(1, dtype=np.int64)
        # the heuristic for everything but the card play
        self.other_bot = BOT_HEURISTIC

    def play_net(self, rules: RuleSet) -> MLP:
        """The net this agent plays under ``rules`` (loaded and checked)."""
        return load_play_net(self.weights, rules, check_rules=not self.any_rules)

    def batch_policy(self, rules: RuleSet) -> BatchPolicy:
        """This agent as a batched policy for ``rules`` (see :class:`BatchPolicy`), e.g.
        ``CoincheVectorEnv(256, opponents=make_agent("nn").batch_policy(get_rules("ffb")))``."""
        return BatchPolicy(self.play_net(rules), rules, self.other_bot)

    def reset(self, seat: int, rules: RuleSet, seed: int) -> None:
        super().reset(seat, rules, seed)
        self.net = self.play_net(rules)
        if self._inputs is None or self._inputs.rules != rules:
            self._inputs = NetInputs(rules, 1)
        rng_seed(self._rng1, self.seed, 0)

    def act(self, view: PlayerView) -> int:
        S = view.public_state
        P = view.params
        a = card_choice(S, P)
        if a == NET_CARD:
            return int(self._inputs.net_actions(self.net, S[None, :], self._idx)[0])
        if a == NOT_A_CARD:
            a = bot_action(self.other_bot, S, P, self.seat, self._rng1, self._buf)
        return int(a)


register_agent(
    "nn", NeuralAgent,
    {"weights": Param(str, "", "card-play weights file (.npz with manifest); default: the "
                                "weights shipped in the package for the preset (ffb)"),
     "any_rules": Param(bool, False, "play under a preset the net was not trained for "
                                     "(out of distribution; refused by default)")},
    doc="neural card play (a network trained by coinche-rl train play; numpy, no torch), "
        "heuristic auction")


def warmup() -> None:
    """Compile the batched-play and input kernels (cached on disk)."""
    from ..numba_bots import deal_states
    rules = get_rules("ffb")
    net = MLP.random((4,), seed=0)
    states = deal_states(rules, 2, seed=0)
    play_states(rules, states, np.arange(8, dtype=np.int64).reshape(2, 4),
                [BOT_HEURISTIC] * 4, [net, None, net, None])
