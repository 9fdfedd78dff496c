"""The networks' families (``coinche_rl.agents.neural.family``): what the ``nn`` agent and the
card-play trainer read of a family of rule sets, each described once.

A :class:`NetFamily` is chosen from the rule set by the environments' family
(:func:`coinche_rl.envs.family.env_family`): ``four`` (the coinche and classic families)
or ``two`` (belote for two players). It brings the family's network input (the module of
its canonical order and features: :mod:`.canonical`, :mod:`.canonical_two`), the buffers
that compute it for the agent (:class:`~.batch_play.NetInputs`,
:class:`~.batch_play.TwoNetInputs`), its batched play,
its card-play label generator (:mod:`.labels`, :mod:`.labels_two`), its bidding network's
outputs and label generator (the auction: :mod:`.bid_labels`; the prise and the exchange
of belote for two: :mod:`.prise_labels`) and a few facts (the default of
``--solver-cards``, whether its deals have a frozen contract, whether its self-play
labels exist, which optional settings its bidding labels have). The agent and the
trainers are written once over it.

>>> net_family("belote_a_deux").key, net_family("ffb").frozen
('two', True)
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from types import ModuleType
from typing import Callable, Union

import numpy as np

from ... import actions as A
from ...rules import RuleSet, get_rules, params_vector
from ..numba_bots import game_bot_action
from .batch_play import (BatchPolicy, NetInputs, TwoBatchPolicy, TwoNetInputs, play_states,
                         play_states_two)
from .bid_actions import BID_SPACES, BidSpace
from .net import INPUTS, MLP, NeuralError, input_key

__all__ = ["NetFamily", "NET_FAMILIES", "net_family", "check_inputs"]


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
    #: the arena's batched play (:func:`~.batch_play.play_states`'s arguments)
    play_states: Callable
    #: the bidding network's outputs (the auction's, the prise's)
    bid_space: BidSpace = None
    #: its bidding labels, ``"module:function"`` (in this package): the function has
    #: :func:`~.bid_labels.label_bid_chunk`'s arguments ``(rules, seed, first_game,
    #: n_games, epsilon, players, play_net, **options)`` (``options``: those of
    #: :attr:`bid_options`), the module a ``warmup()``. Named, not imported: the label
    #: modules read the agent's layer (the hand evaluation), which reads this module
    bid_labels: str = ""
    #: the optional settings of ``coinche-rl train bid`` its bidding labels have (the
    #: others must keep their defaults)
    bid_options: tuple = ()
    #: the belief net's positions, ``"module:function"`` (in this package; named for the
    #: same reason as :attr:`bid_labels`): the function has the arguments of
    #: :func:`~.belief.four_positions` and returns :class:`~.belief.Positions`; ``""``:
    #: the family has no belief net
    belief_positions: str = ""
    #: the places a hidden card may lie in, the belief net's outputs per card
    #: (:data:`.net.BELIEF_OUTPUTS`)
    belief_places: int = 0
    #: ``"module:function"``: the mean log-loss per labelled hidden card of the uniform
    #: worlds' marginals, from a block of labels (the trainer's baseline)
    belief_uniform: str = ""
    #: ``"module:function"``: the scores of one decision for the belief's report
    #: (:func:`~.belief.belief_report`), with the arguments and result of
    #: :func:`~.belief.four_belief_scores`
    belief_scores: str = ""

    @property
    def feature_size(self) -> int:
        return self.inputs.FEATURE_SIZE

    def bid_label_chunk(self, *args, **options):
        """A :class:`~.bid_labels.BidChunk` of the family's bidding labels
        (:attr:`bid_labels`)."""
        return _named(self.bid_labels)(*args, **options)

    def belief_missing(self, rules: RuleSet) -> str:
        """Why ``rules`` have no belief net (``""``: they have one)."""
        if not self.belief_positions:
            return f"the {self.key} players' family has no belief net"
        if self.key == "two" and not rules.hand_cards:
            return (f"rules {rules.name!r} have no belief net: every card hidden from a "
                    f"player lies face down, unknown to both players, and no decision reads "
                    f"it, so the uniform worlds are exactly the believed ones "
                    f"(worlds_from=uniform)")
        return ""

    def belief_positions_of(self, *args):
        """:attr:`belief_positions` called with ``args``."""
        return _named(self.belief_positions)(*args)

    @property
    def belief_scores_of(self) -> Callable:
        """The function :attr:`belief_scores` names."""
        return _named(self.belief_scores)

    def belief_uniform_loss(self, labels) -> float:
        """:attr:`belief_uniform` of ``labels``."""
        return _named(self.belief_uniform)(labels)

    def warm_bid_labels(self) -> None:
        """Compile the family's bidding label kernels."""
        importlib.import_module(self.bid_labels.split(":")[0], __package__).warmup()

    def other_action(self, bot, S, P, seat, rng, buf) -> int:
        """The numba bot's action where the networks do not decide."""
        return game_bot_action(bot, S, P, seat, rng, buf)


def _named(name: str):
    """The function ``"module:function"`` of this package."""
    module, function = name.split(":")
    return getattr(importlib.import_module(module, __package__), function)


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
                      batch_policy=BatchPolicy, play_states=play_states,
                      bid_space=BID_SPACES["four"], bid_labels=".bid_labels:label_bid_chunk",
                      bid_options=("random_share", "strong_share", "bid_net",
                                   "heuristic_share"),
                      belief_positions=".belief:four_positions", belief_places=3,
                      belief_uniform=".belief:uniform_loss_four",
                      belief_scores=".belief:four_belief_scores"),
    "two": NetFamily("two", INPUTS["two"], TwoNetInputs, _two_labels, _warm_two,
                     solver_cards=24, frozen=False, selfplay=True,
                     default_preset="belote_a_deux", batch_policy=TwoBatchPolicy,
                     play_states=play_states_two, bid_space=BID_SPACES["two"],
                     bid_labels=".prise_labels:label_prise_chunk",
                     belief_positions=".labels_two:belief_positions", belief_places=2,
                     belief_uniform=".labels_two:uniform_loss_two",
                     belief_scores=".labels_two:belief_scores"),
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
