"""The networks' families (``coinche_rl.agents.neural.family``): what the ``nn`` agent and the
card-play trainer read of a family of rule sets, each described once.

A :class:`NetFamily` is chosen from the rule set by the environments' family
(:func:`coinche_rl.envs.family.env_family`): ``four`` (the coinche and classic families)
or ``two`` (belote for two players). It brings the family's network input (the module of
its canonical order and features: :mod:`.canonical`, :mod:`.canonical_two`), the buffers
that compute it for the agent (:class:`~.batch_play.NetInputs`, :class:`TwoNetInputs`),
its card-play label generator (:mod:`.labels`, :mod:`.labels_two`) and a few facts (the
default of ``--solver-cards``, whether its deals have a frozen contract, whether its
self-play labels exist). The agent and the trainer are written once over it.

>>> net_family("belote_a_deux").key, net_family("ffb").frozen
('two', True)
"""

from __future__ import annotations

from dataclasses import dataclass
from types import ModuleType
from typing import Callable, Union

import numpy as np

from ... import actions as A
from ...engine.two import EXCHANGE_PHASE, PLAY, PRISE, py as two_py, two_legal_cards
from ...rules import RuleSet, get_rules, params_vector
from ..numba_bots import batch_bot_actions, game_bot_action
from . import canonical as C
from . import canonical_two as C2
from .batch_play import (CARD_NET, NET_CARD, NOT_A_CARD, BatchPolicy, NetInputs,
                         _target_scale)
from .net import INPUTS, MLP, NeuralError, input_key

__all__ = ["NetFamily", "NET_FAMILIES", "net_family", "TwoNetInputs", "TwoBatchPolicy",
           "check_inputs"]


class TwoNetInputs:
    """Reusable buffers for the card-play network's inputs of belote for two players
    (:mod:`.canonical_two`), with the interface of :class:`~.batch_play.NetInputs` the
    ``nn`` agent reads: the states are **public views** (``view.public_state``)."""

    def __init__(self, rules: RuleSet, capacity: int = 0):
        self.rules = rules
        self.params = params_vector(rules)
        self.match = np.zeros(5, dtype=np.float64)
        self._grow(max(1, capacity))

    def _grow(self, n: int) -> None:
        self.feats = np.zeros((n, C2.FEATURE_SIZE), dtype=np.float32)
        self.cards = np.zeros((n, 32), dtype=np.uint8)
        self.perms = np.zeros(n, dtype=np.int64)

    def compute(self, views: np.ndarray, idx: np.ndarray, match=None):
        """``(feats, legal, perms)`` of the players to act in the public views
        ``views[idx]`` (each the view of the player to act)."""
        n = len(idx)
        if n > len(self.perms):
            self._grow(max(n, 2 * len(self.perms)))
        V = np.ascontiguousarray(views[idx])
        players = np.array([two_py.current_player(v) for v in V], dtype=np.int64)
        C2.views_inputs(V, self.params, players, self.match if match is None else match,
                        self.feats[:n], self.cards[:n], self.perms[:n])
        return self.feats[:n], self.cards[:n].astype(bool), self.perms[:n]

    def net_actions(self, net: MLP, views: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """The physical card actions ``net`` plays in ``views[idx]``."""
        feats, legal, perms = self.compute(views, idx)
        return C.ACT_SRC[perms, A.CARD_BASE + net.best(feats, legal)]

    def card_values(self, net: MLP, view: np.ndarray):
        """``(actions, values, best)`` as :meth:`.batch_play.NetInputs.card_values`."""
        feats, legal, perms = self.compute(np.ascontiguousarray(view[None, :]),
                                           np.zeros(1, dtype=np.int64))
        q = net.forward(feats)[0]
        js = np.flatnonzero(legal[0])
        acts = C.ACT_SRC[int(perms[0]), A.CARD_BASE + js]
        best = int(acts[int(np.argmax(q[js]))])
        return acts, q[js] * _target_scale(net), best

    @staticmethod
    def phase(V) -> str:
        """``"auction"`` in the prise and the exchange, else ``"play"``."""
        return "auction" if int(two_py.phase_of(V)) in (PRISE, EXCHANGE_PHASE) else "play"

    @staticmethod
    def choice(V, P, flag) -> int:
        """:data:`~.batch_play.NET_CARD` for a card with a choice (a card-net player), the
        card when it is forced, else :data:`~.batch_play.NOT_A_CARD` (the prise, the
        exchange: the numba bot's)."""
        if not flag & CARD_NET or int(two_py.phase_of(V)) != PLAY:
            return NOT_A_CARD
        m = int(two_legal_cards(V))
        if m & (m - 1):
            return NET_CARD
        return A.CARD_BASE + (m & -m).bit_length() - 1


class TwoBatchPolicy:
    """The ``nn`` agent of belote for two players as a batched policy
    ``f(public_views, params, players) -> actions`` (the opponents of the vector env of
    belote for two players): the numba bot for every decision, then one forward pass for
    the card decisions with a choice (``net`` None: the bot plays them too)."""

    def __init__(self, net, rules: RuleSet, other_bot: int, bid_net=None):
        if bid_net is not None:
            raise NeuralError("belote for two players has no prise network yet")
        self.net = net
        self.rules = rules
        self.other_bot = np.int64(other_bot)
        self.inputs = TwoNetInputs(rules)

    def __call__(self, views: np.ndarray, params: np.ndarray, players: np.ndarray) -> np.ndarray:
        views = np.ascontiguousarray(views, dtype=np.int64)
        params = np.ascontiguousarray(params, dtype=np.int64)
        out = np.empty(len(views), dtype=np.int64)
        batch_bot_actions(self.other_bot, views, params,
                          np.ascontiguousarray(players, dtype=np.int64), out)
        if self.net is not None:
            need = np.array([i for i, V in enumerate(views)
                             if self.inputs.choice(V, params, CARD_NET) == NET_CARD],
                            dtype=np.int64)
            if len(need):
                out[need] = self.inputs.net_actions(self.net, views, need)
        return out


@dataclass(frozen=True)
class NetFamily:
    """What the networks read of a family (one instance per key of :data:`.net.INPUTS`)."""

    #: ``four`` or ``two`` (:func:`coinche_rl.envs.family.env_family`'s key)
    key: str
    #: the module of the network input (``FEATURE_SIZE``, ``feature_layout_hash``, ...)
    inputs: ModuleType
    #: the agent's input buffers: ``inputs_class(rules, capacity)``
    inputs_class: type
    #: ``label_chunk(rules, seed, first_game, n_games, frozen, epsilon, solver_cards)``:
    #: a :class:`~.labels.LabelChunk` of card-play labels
    label_chunk: Callable
    #: compiles the label kernels
    warm_labels: Callable
    #: ``--solver-cards``'s default: solver targets with this many cards left or fewer
    solver_cards: int
    #: its deals have the arena's frozen contract (``--frozen``, the evaluations)
    frozen: bool
    #: ``--labels selfplay`` exists for it
    selfplay: bool
    #: the preset whose shipped weights ``nn:any_rules=true`` borrows
    default_preset: str
    #: the ``nn`` agent as a batched policy: ``batch_policy(net, rules, other_bot,
    #: bid_net)`` (the vector envs' opponents)
    batch_policy: type

    @property
    def feature_size(self) -> int:
        return self.inputs.FEATURE_SIZE

    def other_action(self, bot, S, P, seat, rng, buf) -> int:
        """The numba bot's action where the networks do not decide."""
        return game_bot_action(bot, S, P, seat, rng, buf)


def _four_labels(rules, seed, first_game, n_games, frozen, epsilon, solver_cards):
    from .labels import label_chunk
    return label_chunk(rules, seed, first_game, n_games, 1, frozen, epsilon, solver_cards)


def _two_labels(rules, seed, first_game, n_games, frozen, epsilon, solver_cards):
    from .labels_two import label_chunk
    return label_chunk(rules, seed, first_game, n_games, epsilon, solver_cards)


def _warm_four():
    from .labels import warmup
    warmup()


def _warm_two():
    from .labels_two import warmup
    warmup()


NET_FAMILIES = {
    "four": NetFamily("four", INPUTS["four"], NetInputs, _four_labels, _warm_four,
                      solver_cards=28, frozen=True, selfplay=True, default_preset="ffb",
                      batch_policy=BatchPolicy),
    "two": NetFamily("two", INPUTS["two"], TwoNetInputs, _two_labels, _warm_two,
                     solver_cards=24, frozen=False, selfplay=False,
                     default_preset="belote_a_deux", batch_policy=TwoBatchPolicy),
}


def net_family(rules: Union[str, RuleSet]) -> NetFamily:
    """The :class:`NetFamily` of ``rules`` (a RuleSet or a preset name)."""
    return NET_FAMILIES[input_key(get_rules(rules) if isinstance(rules, str) else rules)]


def check_inputs(net: MLP, rules: RuleSet, path: str = "") -> None:
    """Raise :class:`~.net.NeuralError` unless ``net`` reads the network input of the
    family of ``rules`` (a net borrowed with ``any_rules`` from another family)."""
    fam = net_family(rules)
    if net.inputs != fam.feature_size:
        raise NeuralError(f"the network {path or '(given)'} takes {net.inputs} inputs, the input of "
                          f"rules {rules.name!r} ({fam.key} players' family) has "
                          f"{fam.feature_size} (input family {fam.key!r}): a net of another "
                          f"family")
