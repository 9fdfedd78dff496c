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
from ... import engine as E
from ...engine import (DONE, PLAY, S_CUR, S_PHASE, _pending_choice, apply_legal_action,
                       is_legal, legal_play_mask, lowest_card, popcount, rng_seed, kernel)
from ...rules import RuleSet, card_points_table, get_rules, params_vector
from ...envs.kernels import rules_vector
from ..base import Agent, PlayerView
from ..numba_bots import BOT_HEURISTIC, bot_action
from ..registry import Param, register_agent
from . import canonical as C
from .net import MLP, WeightsError, default_weights_path, load_weights

__all__ = ["NeuralAgent", "NeuralError", "BatchPolicy", "play_states", "NetInputs",
           "load_play_net", "warmup"]


class NeuralError(ValueError):
    """The ``nn`` agent cannot play here (missing weights, other rules)."""


# ------------------------------------------------------------------- batched play
@njit(cache=True)
def advance(states, P, bots, nets, rngs, waiting):
    """Play every game of ``states`` until its seat to act is an nn seat
    (``nets[seat] != 0``) facing a card decision with two legal cards or more, or the
    deal is over. Other decisions are the numba bot ``bots[seat]``'s (the nn seats'
    auction and declare / belote choices too); a forced card is played as is. The games
    waiting for the network go into ``waiting``; returns how many, or ``-(i + 1)``
    when a bot chose an illegal action in game ``i`` (never expected)."""
    buf = np.zeros(A.N_ACTIONS, dtype=np.uint8)
    k = 0
    for i in range(states.shape[0]):
        S = states[i]
        while S[S_PHASE] != DONE:
            cur = S[S_CUR]
            if nets[cur] != 0 and S[S_PHASE] == PLAY and _pending_choice(S, P) == 0:
                legal = legal_play_mask(S, P)
                if popcount(legal) >= 2:
                    waiting[k] = i
                    k += 1
                    break
                apply_legal_action(S, P, A.CARD_BASE + lowest_card(legal))
                continue
            a = bot_action(bots[cur], S, P, cur, rngs[i, cur:cur + 1], buf)
            if not is_legal(S, P, a):
                return -(i + 1)
            apply_legal_action(S, P, a)
    return k


@kernel
def apply_canonical(states, P, idx, perms, canon_cards):
    """Play canonical card ``canon_cards[j]`` (0..31) in game ``idx[j]``, mapped back
    through renaming ``perms[j]``."""
    for j in range(idx.shape[0]):
        a = C.ACT_SRC[perms[j], A.CARD_BASE + canon_cards[j]]
        apply_legal_action(states[idx[j]], P, a)


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
    distinct = {}
    for s, net in enumerate(nets):
        if net is not None:
            distinct.setdefault(id(net), (net, []))[1].append(s)
    while True:
        k = advance(states, P, bots, flags, rngs, waiting)
        if k < 0:
            raise RuntimeError(f"a numba bot chose an illegal action in game {-k - 1}")
        if k == 0:
            return
        idx = waiting[:k]
        feats, legal, perms = inputs.compute(states, idx)
        seat = states[idx, S_CUR]
        choice = np.zeros(k, dtype=np.int64)
        for net, seats in distinct.values():
            sel = np.isin(seat, seats)
            if sel.all():
                choice = net.best(feats, legal)
            elif sel.any():
                choice[sel] = net.best(feats[sel], legal[sel])
        apply_canonical(states, P, idx, perms.copy(), choice)


@njit(cache=True)
def policy_actions(states, P, seats, bot, out, need):
    """Actions of the seats ``seats[j]`` to act in ``states[j]`` (public states): a
    forced card as is, every non-card decision from numba bot ``bot``; the rows whose
    card is for the network go into ``need``, whose count is returned."""
    buf = np.zeros(A.N_ACTIONS, dtype=np.uint8)
    rng = np.zeros(1, dtype=np.uint64)
    k = 0
    for j in range(states.shape[0]):
        S = states[j]
        out[j] = -1
        if S[S_PHASE] == PLAY and _pending_choice(S, P) == 0:
            legal = legal_play_mask(S, P)
            if popcount(legal) >= 2:
                need[k] = j
                k += 1
                continue
            out[j] = A.CARD_BASE + lowest_card(legal)
            continue
        out[j] = bot_action(bot, S, P, seats[j], rng, buf)
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
            idx = need[:k]
            feats, legal, perms = self.inputs.compute(states, idx)
            cards = self.net.best(feats, legal)
            out[idx] = C.ACT_SRC[perms, A.CARD_BASE + cards]
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
    if check_rules:
        want = net.manifest.get("rules", {})
        from .net import rules_hash
        if want.get("hash") != rules_hash(rules):
            raise NeuralError(f"the card-play net {path} was trained for "
                              f"{want.get('name')!r} rules, not for {rules.name!r} (or its "
                              f"overrides); use nn:any_rules=true to play it anyway")
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
        if S[S_PHASE] == PLAY and _pending_choice(S, P) == 0:
            legal = legal_play_mask(S, P)
            if popcount(legal) == 1:
                return A.CARD_BASE + lowest_card(legal)
            states = S[None, :]
            self._idx[0] = 0
            feats, cards, perms = self._inputs.compute(states, self._idx)
            c = int(self.net.best(feats, cards)[0])
            return int(C.ACT_SRC[int(perms[0]), A.CARD_BASE + c])
        return int(bot_action(self.other_bot, S, P, self.seat, self._rng1, self._buf))


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
