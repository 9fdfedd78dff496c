"""The ``nn`` agent (``coinche_rl.agents.neural.agent``): the auction and the card play
from networks, no torch needed; the optional declare / belote choices (and the auction
where no bidding network ships for the preset) from the numba heuristic.

The bidding network (:class:`~.batch_play.BidNet`, trained by ``coinche-rl train bid``) scores the 82
auction actions in the same canonical suit order: each candidate contract's strain goes
through the renaming, so a renamed auction position gives the renamed bid. It has heads
for each card player it was trained with: ``q`` (the value of each action, what the
agent bids with), and per contract ``ev`` / ``p_made`` (the hand evaluation,
:meth:`~.batch_play.BidNet.contracts`). ``bid_margin`` keeps the agent on the heuristic's action unless
the network values another one that many points higher (a trust region around the
policy the network was trained to improve on).

Ways to play, with the same choices:

* :class:`NeuralAgent.act` for one decision (the agent interface of
  :mod:`coinche_rl.agents.base`): the seat's observation is encoded from its *public
  state*, put in the canonical suit order (:mod:`.canonical`), the network scores the
  32 canonical cards, the best legal one is mapped back to its physical card. A single
  legal card is played without the network.
* :meth:`NeuralAgent.batch_policy`: a batched policy ``f(public_states, params, seats)``
  for the opponents of the numba vector env (:class:`coinche_rl.envs.vector.CoincheVectorEnv`).
* :meth:`NeuralAgent.action_values` (or :func:`nn_values` on a
  :class:`~coinche_rl.game.Deal`): the same decision with its figures, per legal action:
  the card network's value, or the bidding network's ``q`` / ``ev`` / ``p_made``
  (:class:`ActionValues`).
* :func:`~.batch_play.play_states`, the batched path of the arena and the trainer's
  evaluation (:mod:`.batch_play`): many deals in lockstep, every card (auction) decision
  waiting for the network scored by one forward pass. A tournament with the ``nn`` agent
  makes a handful of Python calls per card trick, not one per decision per deal.

Parameters (``coinche-rl agents`` lists them): ``weights`` (a ``.npz`` card-play weights
file; default: the weights shipped for the preset), ``any_rules`` (play under a preset the
nets were not trained for; off by default: the agent then refuses with a message naming
both), ``bid_weights``, ``bidding`` (``auto``: the network where bidding weights ship,
``net``, ``heuristic``), ``play`` (``net``, or ``heuristic``: the network bids for the
heuristic's card play) and ``bid_margin``.

>>> from coinche_rl.game import Deal
>>> from coinche_rl.agents import make_agent, play_deal
>>> deal = Deal("ffb", seed=4, dealer=1)
>>> table = [make_agent("nn"), make_agent("heuristic"), make_agent("nn"), make_agent("heuristic")]
>>> play_deal(deal, table, seeds=[1, 2, 3, 4]).scores == deal.scores
True
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from typing import Dict, Optional, Union

import numpy as np

from ... import actions as A
from ...engine import current_seats, rng_seed
from ...rules import N_SEATS, RuleSet, get_rules, params_vector
from ..base import BatchedAgent, Param, PlayerView
from ..numba_bots import BOT_HEURISTIC, deal_states, game_bot_action
from ..registry import make_agent
from .batch_play import (BID_NET, CARD_NET, NET_BID, NET_CARD, NOT_A_CARD,
                         BatchPolicy, BidNet, NetInputs, play_states)
from .bid_actions import N_BID
from .family import check_inputs, net_family
from .net import MLP, NeuralError, default_weights_path, load_weights, rules_hash, trained_for

__all__ = ["NeuralAgent", "load_play_net", "load_bid_net", "warmup", "ActionValues",
           "nn_values", "load_once", "load_checked", "not_shipped", "check_trained_for"]


# -------------------------------------------------------------------- the agent
_NETS: Dict[tuple, MLP] = {}


def load_once(path: str, kind: str) -> MLP:
    """The weights of ``kind`` at ``path``, loaded and checked once per process (again
    when the file changes)."""
    try:
        st = os.stat(path)
    except OSError:
        what = "bidding weights" if kind == "bid" else "weights"
        raise NeuralError(f"no {what} file at {path!r}") from None
    key = (os.path.abspath(path), st.st_mtime_ns, st.st_size, kind)
    net = _NETS.get(key)
    if net is None:
        net = _NETS[key] = load_weights(path, kind=kind)
    return net


def load_play_net(path: str = "", rules: Optional[RuleSet] = None,
                  check_rules: bool = True) -> MLP:
    """The card-play net at ``path`` (default: shipped for ``rules``, ``ffb`` if None;
    with ``check_rules`` off, the family's default preset's: ``ffb``, ``belote_a_deux``),
    loaded once per process and checked (:func:`~.net.load_weights`), to read the input
    of the family of ``rules`` too."""
    rules = rules or get_rules("ffb")
    net = load_checked(path, rules, "play", "card-play", "play",
                       "Pass nn:weights=PATH or nn:any_rules=true", check_rules,
                       preset=rules.name if check_rules else net_family(rules).default_preset)
    check_inputs(net, rules, path)
    return net


def load_checked(path: str, rules: RuleSet, kind: str, what: str, verb: str, advice: str,
                 check_rules: bool = True, preset: str = "",
                 required: bool = True) -> Optional[MLP]:
    """The ``kind`` weights at ``path`` (default: those shipped for ``preset``, else for
    ``rules``; ``advice`` ends the error when none ship, or None is returned when not
    ``required``), loaded once per process (:func:`load_once`) and, with
    ``check_rules``, checked to be trained for ``rules`` (:func:`check_trained_for`:
    ``what`` names the net, ``verb`` what it is refused for)."""
    if not path:
        path = default_weights_path(preset or rules.name, kind)
        if not os.path.isfile(path):
            if not required:
                return None
            not_shipped(rules, path, kind, what, advice)
    net = load_once(path, kind)
    if check_rules:
        check_trained_for(net, path, rules, what, verb)
    return net


def not_shipped(rules: RuleSet, path: str, kind: str, what: str, advice: str) -> None:
    """Raise: no shipped ``kind`` weights for ``rules`` (naming those that ship)."""
    folder = os.path.dirname(path)
    suffix = f"_{kind}.npz"
    shipped = sorted(f[:-len(suffix)] for f in os.listdir(folder)
                     if f.endswith(suffix)) if os.path.isdir(folder) else []
    raise NeuralError(f"no shipped {what} weights for preset {rules.name!r} (looked for "
                      f"{path}); shipped: {', '.join(shipped) or 'none'}. {advice}")


def check_trained_for(net: MLP, path: str, rules: RuleSet, what: str, verb: str) -> None:
    """Raise unless ``net`` was trained for ``rules`` (:func:`~.net.trained_for`)."""
    if not trained_for(net.manifest, rules):
        trained = net.manifest.get("rules") or {}
        if trained.get("name") == rules.name:
            # same preset name, other rules: overrides, or a manifest hashed otherwise
            why = (f"for {rules.name!r} rules with other parameters (its rules hash "
                   f"{trained.get('hash')!r} is not {rules_hash(rules)!r}: overrides, or "
                   f"weights written before rules_hash read the RuleSet fields)")
        else:
            why = f"for {trained.get('name')!r} rules, not for {rules.name!r} (or its overrides)"
        raise NeuralError(f"the {what} net {path} was trained {why}; use nn:any_rules=true "
                          f"to {verb} it anyway")


def load_bid_net(path: str = "", rules: Optional[RuleSet] = None, player: str = "nn",
                 check_rules: bool = True, required: bool = True,
                 margin: Optional[float] = None) -> Optional[BidNet]:
    """The bidding net at ``path`` (default: shipped for ``rules``) with the heads of
    card player ``player``, loaded once per process and checked. With ``required``
    False a missing default file gives None (the heuristic bids)."""
    rules = rules or get_rules("ffb")
    fam = net_family(rules)
    # with check_rules off (nn:any_rules=true) a coinche preset borrows ffb's net, a preset
    # of belote for two belote_a_deux's; the classic prise has no shipped net (ffb's
    # never saw it)
    preset = rules.name
    if not check_rules and rules.family != "classic" and \
            not os.path.isfile(default_weights_path(preset, "bid")):
        preset = fam.default_preset
    net = load_checked(path, rules, "bid", "bidding", "bid with",
                       "Pass nn:bid_weights=PATH, nn:bidding=heuristic, or nn:any_rules=true "
                       "(a coinche preset then borrows ffb's)", False, preset, required)
    if net is None:
        return None
    shown = path or default_weights_path(preset, "bid")
    key = (net.manifest.get("observation") or {}).get("family", "four")
    if key != fam.key:
        raise NeuralError(f"the bidding net {shown} is for the {key} players' family (its "
                          f"outputs: {net.manifest.get('action_map')}), not for rules "
                          f"{rules.name!r} ({fam.key} players' family, outputs "
                          f"{fam.bid_space.action_map}): a net of another family cannot "
                          f"bid here, even with nn:any_rules=true")
    if check_rules:
        check_trained_for(net, shown, rules, "bidding", "bid with")
    return BidNet(net, player, margin)


BIDDERS = ("auto", "net", "heuristic")
CARD_PLAYERS = ("net", "heuristic")


class NeuralAgent(BatchedAgent):
    """The auction and the card play from networks (see the module docstring)."""

    #: what ``coinche-rl agents`` says of it
    DESCRIPTION = ("neural bidding and card play (networks trained by coinche-rl train bid / "
                   "play; numpy, no torch; belote for two players: the prise and the exchange "
                   "by the prise network where one ships for the preset)")
    FAMILIES = ("coinche", "classic", "two")
    PARAMS = {
        "weights": Param(str, doc="card-play weights file (.npz with manifest); default: the "
                              "weights shipped in the package for the preset (ffb)"),
        "any_rules": Param(bool, doc="play under a preset the nets were not trained for "
                                        "(out of distribution; refused by default)"),
        "bid_weights": Param(str, doc="bidding weights file (coinche-rl train bid); default: "
                                       "the weights shipped for the preset (ffb)"),
        "bidding": Param(str, doc="net | heuristic | auto (the network where bidding "
                                      "weights ship for the preset, else the heuristic)",
                         choices=BIDDERS),
        "play": Param(str, doc="net | heuristic: who plays the cards (heuristic: the "
                                  "network bids for the heuristic's card play)",
                      choices=CARD_PLAYERS),
        "bid_margin": Param(float, doc="bid the heuristic's action unless the network "
                                                   "values another one more than this many points "
                                                   "higher (0: the network's best action; default: "
                                                   "the margin chosen for the bidding net, its "
                                                   "manifest's bid.margin, else 75)",
                            min=0.0),
    }

    numba_bot = None
    #: batched in tournaments: well under a millisecond a deal
    seconds_per_deal = 0.0003

    def __init__(self, weights: str = "", any_rules: bool = False, bid_weights: str = "",
                 bidding: str = "auto", play: str = "net", bid_margin: Optional[float] = None):
        super().__init__()
        if bid_margin is not None and not bid_margin >= 0:
            raise ValueError(f"nn: bid_margin={bid_margin!r}: expected a number of points >= 0")
        if bidding not in BIDDERS:
            raise ValueError(f"nn: bidding={bidding!r}: expected one of {', '.join(BIDDERS)}")
        if play not in CARD_PLAYERS:
            raise ValueError(f"nn: play={play!r}: expected one of {', '.join(CARD_PLAYERS)}")
        if bid_weights and bidding == "heuristic":
            raise ValueError("nn: bid_weights is for bidding=net or auto, not bidding=heuristic")
        self.weights = weights
        self.any_rules = bool(any_rules)
        self.bid_weights = bid_weights
        self.bidding = bidding
        self.play = play
        self.bid_margin = None if bid_margin is None else float(bid_margin)
        self.net: Optional[MLP] = None
        self.bidder: Optional[BidNet] = None
        self._inputs: Optional[NetInputs] = None
        self._rng1 = np.zeros(1, dtype=np.uint64)
        self._buf = np.zeros(A.N_ACTIONS, dtype=np.uint8)
        self._idx = np.zeros(1, dtype=np.int64)
        # the heuristic for everything the networks do not do
        self.other_bot = BOT_HEURISTIC

    def play_net(self, rules: RuleSet) -> Optional[MLP]:
        """The card-play net of this agent under ``rules`` (loaded and checked); None
        with ``play=heuristic``."""
        if self.play == "heuristic":
            return None
        return load_play_net(self.weights, rules, check_rules=not self.any_rules)

    def bid_net(self, rules: RuleSet) -> Optional[BidNet]:
        """The bidding net of this agent under ``rules``, read with the heads of its card
        player; None when the heuristic bids (``bidding=heuristic``, or ``auto`` and no
        bidding weights ship for the preset)."""
        if self.bidding == "heuristic":
            return None
        player = "nn" if self.play == "net" else "heuristic"
        return load_bid_net(self.bid_weights, rules, player, check_rules=not self.any_rules,
                            required=self.bidding == "net" or bool(self.bid_weights),
                            margin=self.bid_margin)

    def batch_policy(self, rules: RuleSet) -> BatchPolicy:
        """This agent as a batched policy for ``rules`` (see :class:`BatchPolicy`; for
        belote for two players :class:`~.family.TwoBatchPolicy`), e.g.
        ``CoincheVectorEnv(256, opponents=make_agent("nn").batch_policy(get_rules("ffb")))``."""
        return net_family(rules).batch_policy(self.play_net(rules), rules, self.other_bot,
                                              self.bid_net(rules))

    def reset(self, seat: int, rules: RuleSet, seed: int) -> None:
        super().reset(seat, rules, seed)
        self.net = self.play_net(rules)
        self.bidder = self.bid_net(rules)
        if self._inputs is None or self._inputs.rules != rules:
            self._inputs = net_family(rules).inputs_class(rules, 1)
        rng_seed(self._rng1, self.seed, 0)

    def act(self, view: PlayerView) -> int:
        S = view.public_state
        P = view.params
        flag = (CARD_NET if self.net is not None else 0) | (BID_NET if self.bidder is not None else 0)
        a = self._inputs.choice(S, P, flag)
        if a == NET_BID:
            return int(self.bidder.actions(self._inputs, S[None, :], self._idx)[0])
        if a == NET_CARD:
            return int(self._inputs.net_actions(self.net, S[None, :], self._idx)[0])
        if a == NOT_A_CARD:
            a = game_bot_action(self.other_bot, S, P, self.seat, self._rng1, self._buf)
        return int(a)

    def action_values(self, view: PlayerView) -> "ActionValues":
        """The networks' values at the decision of ``view`` (after :meth:`reset`, as
        :meth:`act`; the agent's random stream is left as it was): see
        :class:`ActionValues`. ``choice`` is what :meth:`act` plays there."""
        if self._inputs is None or self._inputs.rules != view.rules:
            raise RuntimeError("nn: action_values() needs reset(seat, rules, seed) first, as "
                               "act() does (or call nn_values(deal))")
        S = view.public_state
        P = view.params
        flag = (CARD_NET if self.net is not None else 0) | (BID_NET if self.bidder is not None else 0)
        a = self._inputs.choice(S, P, flag)
        phase = self._inputs.phase(S)
        if a == NET_BID:
            acts, q, ev, pm, choice = self.bidder.action_values(self._inputs, S)
            contract = [A.is_bid(int(x)) or A.is_capot(int(x)) or A.TAKE <= int(x) < A.DECLARE
                        for x in acts]
            return ActionValues(
                view.seat, phase, "net", choice, _as_dict(acts, q),
                _as_dict(acts[contract], ev[contract]), _as_dict(acts[contract], pm[contract]))
        card = a == NET_CARD or (a >= 0 and A.is_card(int(a)))
        if card and self.net is not None:
            acts, q, best = self._inputs.card_values(self.net, S)
            return ActionValues(view.seat, phase, "net" if a == NET_CARD else "forced",
                                best if a == NET_CARD else int(a), _as_dict(acts, q))
        if a == NOT_A_CARD:
            rng = self._rng1.copy()                  # act()'s stream stays where it is
            a = game_bot_action(self.other_bot, S, P, self.seat, rng, self._buf)
        return ActionValues(view.seat, phase, "heuristic", int(a), {})


def _as_dict(actions, values) -> Dict[int, float]:
    return {int(a): float(v) for a, v in zip(actions, values)}


@dataclass
class ActionValues:
    """The ``nn`` agent's values at one decision (:meth:`NeuralAgent.action_values`,
    :func:`nn_values`). Values are points for the seat's team: its deal score minus the
    other team's, as the networks were trained to predict them (the card network learnt
    the differences between the cards of a decision first; their common level only
    with a small weight).

    * ``seat``, ``phase`` (``"auction"`` or ``"play"``);
    * ``by``: who decides: ``"net"`` (the card or the bidding network), ``"forced"``
      (a single legal card, played without the network, which still values it) or
      ``"heuristic"`` (the declare / belote choices, the auction when the heuristic
      bids, the cards with ``play=heuristic``: no values then);
    * ``values``: {legal action id: value}: the card network's value of each legal card,
      or the bidding network's ``q`` of each legal auction action;
    * ``ev``, ``p_made`` (auction): {contract action id: ...} for each legal contract
      (bid, capot; the classic take / name): the expected deal score, and the
      probability that it is made, if the seat took it now;
    * ``choice``: the action :meth:`NeuralAgent.act` plays: the best value, except in
      the auction with ``bid_margin`` > 0, which keeps the heuristic's action unless
      the network values another one more than ``bid_margin`` points higher.
    """

    seat: int
    phase: str
    by: str
    choice: int
    values: Dict[int, float]
    ev: Dict[int, float] = field(default_factory=dict)
    p_made: Dict[int, float] = field(default_factory=dict)

    @property
    def best(self) -> Optional[int]:
        """The action of the highest value (None without values)."""
        return max(self.values, key=self.values.get) if self.values else None

    def table(self, top: Optional[int] = None) -> str:
        """The values as text, best first (``*``: the choice; ``top``: that many rows,
        and the choice's)."""
        head = f"seat {self.seat}, {self.phase}, decided by: {self.by}"
        if not self.values:
            return f"{head}; no network values here (plays {A.action_to_str(self.choice)})"
        rows = [head, f"  {'action':<10} {'value':>7}" +
                (f" {'ev':>7} {'P(made)':>7}" if self.ev else "")]
        order = sorted(self.values, key=lambda x: -self.values[x])
        if top is not None:
            order = [a for i, a in enumerate(order) if i < top or a == self.choice]
        for a in order:
            row = f"{'*' if a == self.choice else ' '} {A.action_to_str(a):<10} {self.values[a]:+7.1f}"
            if a in self.ev:
                row += f" {self.ev[a]:+7.1f} {self.p_made[a]:7.2f}"
            rows.append(row)
        return "\n".join(rows)


def nn_values(deal, agent: Union[str, "NeuralAgent"] = "nn", seed: int = 0) -> ActionValues:
    """The ``nn`` agent's values (:class:`ActionValues`) at the decision of the seat to
    act in ``deal`` (a :class:`~coinche_rl.game.Deal`, not over): per legal action, the
    card network's value, or in the auction the bidding network's ``q``, ``ev`` and
    ``p_made``. ``agent``: an ``nn`` spec (``"nn:bid_margin=0"``) or a
    :class:`NeuralAgent` (reset here for that seat, with ``seed``). The seat sees only
    what it may know (its :class:`~coinche_rl.agents.base.PlayerView`)."""
    nn = make_agent(agent) if isinstance(agent, str) else agent
    if not isinstance(nn, NeuralAgent):
        raise ValueError(f"nn_values: {agent!r} is not an nn agent (expected a spec such as "
                         f"'nn' or 'nn:bid_margin=0', or a NeuralAgent)")
    view = PlayerView.from_deal(deal)
    nn.reset(view.seat, deal.rules, seed)
    return nn.action_values(view)


#: its place in ``coinche-rl warmup`` (:mod:`coinche_rl.cli.warmup`): the networks' chain
WARMUP_CHAIN = "networks"


def warmup() -> None:
    """Compile the batched-play and input kernels (cached on disk)."""
    rules = get_rules("ffb")
    net = MLP.random((4,), seed=0)
    bid = MLP.random((4,), seed=0, outputs=3 * N_BID)
    bid.manifest = {"bid": {"players": ["nn"]}}
    states = deal_states(rules, 2, seed=0)
    play_states(rules, states, np.arange(2 * N_SEATS, dtype=np.int64).reshape(2, N_SEATS),
                [BOT_HEURISTIC] * N_SEATS, [net, None, net, None], [BidNet(bid), None, None, None])
    # the batched policy (the vector env's ``nn`` opponents)
    BatchPolicy(net, rules, bid_net=BidNet(bid))(
        states, params_vector(rules), current_seats(states, np.arange(len(states))))
    # belote for two players: the family's input and lockstep kernels, the prise net's
    two = get_rules("belote_a_deux")
    fam = net_family(two)
    net2 = MLP.random((4,), seed=0, inputs=fam.feature_size)
    bid2 = MLP.random((4,), seed=0, inputs=fam.feature_size, outputs=3 * fam.bid_space.n)
    bid2.manifest = {"bid": {"players": ["nn"]}, "observation": {"family": "two"}}
    states2 = deal_states(two, 2, seed=0)
    play_states(two, states2, np.arange(4, dtype=np.int64).reshape(2, 2),
                [BOT_HEURISTIC] * 2, [net2, None], [BidNet(bid2), None])
    # the agent's own decisions, one at a time (a tournament's Python path: the choice of
    # network, the inputs of one view), in a deal of belote à deux played by the shipped nets
    from ...two_player import TwoPlayerDeal
    from ..base import play_deal
    play_deal(TwoPlayerDeal(two, seed=1, dealer=0), [NeuralAgent(), NeuralAgent()], seeds=[0, 1])
