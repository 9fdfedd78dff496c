"""The networks' families (``coinche_rl.agents.neural.family``): what the ``nn`` agent and the
card-play trainer read of a family of rule sets, each described once.

A :class:`NetFamily` is chosen from the rule set by the environments' family
(:func:`coinche_rl.envs.family.env_family`): ``four`` (the coinche and classic families)
or ``two`` (belote for two players). It brings the family's network input (the module of
its canonical order and features: :mod:`.canonical`, :mod:`.canonical_two`), the buffers
that compute it for the agent (:class:`~.batch_play.NetInputs`,
:class:`~.batch_play.TwoNetInputs`), its batched play,
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
from ...rules import RuleSet, get_rules, params_vector
from ..numba_bots import game_bot_action
from .batch_play import (BatchPolicy, NetInputs, TwoBatchPolicy, TwoNetInputs, play_states,
                         play_states_two)
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
                      batch_policy=BatchPolicy, play_states=play_states),
    "two": NetFamily("two", INPUTS["two"], TwoNetInputs, _two_labels, _warm_two,
                     solver_cards=24, frozen=False, selfplay=False,
                     default_preset="belote_a_deux", batch_policy=TwoBatchPolicy,
                     play_states=play_states_two),
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
