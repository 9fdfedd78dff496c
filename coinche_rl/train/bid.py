"""Bidding trainer (``coinche-rl train bid``): its settings, labels, replay and loss; its
loop is the card-play trainer's (:func:`.common.train_on_labels`).

Algorithm: **supervised regression on counterfactual auction labels of real deals**
(:mod:`coinche_rl.agents.neural.bid_labels`). A label worker plays the auctions of real deals (the heuristic
bids, with ``epsilon`` random actions) and scores *every legal auction action* of every
decision on the true deal: the action, the heuristic's continuation of the auction,
then the final contract played by the card player (the shipped ``nn`` play net and / or
the heuristic: real play, never double dummy). It also scores, for every contract of the
preset, what the seat would make taking it now. The network (canonical inputs, so that
suit renamings cannot change a bid) has, for each card player, three heads over the 82
auction actions:

* ``q``: the value of each auction action (centred Huber regression on the legal ones,
  plus a small loss on the decision's mean, as the card-play trainer), what the agent
  bids with (the best legal action);
* ``ev``: the expected deal score of each contract if the seat took it now (Huber);
* ``made``: the probability that it is made (a logit, binary cross-entropy).

With ``--bidders nn`` the auctions and continuations are a bidding network's instead
of the heuristic's (self-play: generation g+1 learns from the auctions generation g
bids, :mod:`coinche_rl.agents.neural.bid_labels`). The card-play net stays frozen while
the bidder trains (bid and play training alternate). Heavy tails (coinche x2, surcoinche x4, capot) go through the Huber loss.

Belote for two players (``--rules belote_a_deux`` / ``belote_decouverte``): the same
trainer learns the **prise network** (take / name / pass in both rounds, the exchange of
the 7 of trump) from the labels of :mod:`coinche_rl.agents.neural.prise_labels` (every
legal action of each prise decision played out: the heuristic's rest of the prise, then
the cards by the card player at both players), with the same three heads over the 8 prise
actions. What differs is read from the family's description
(:class:`coinche_rl.agents.neural.family.NetFamily`: its input, its outputs, its label
generator and the label settings it has: ``--random-opponents``, ``--strong-hands``,
``--bidders nn`` and ``--heuristic-opponents`` are the four-player auction's only).

Determinism, resume, ``--init``, outputs, evaluations, progress: as :mod:`.play`
(chunk ``c`` is a pure function of ``(seed, c)``, exactly ``updates_per_chunk`` updates
after each, atomic checkpoints with the compressed replay and the random streams;
``weights.npz`` with its manifest; an evaluation at the end of every run).
"""

from __future__ import annotations

import dataclasses
import os
import sys
from dataclasses import dataclass
from typing import List, Optional

import numpy as np

from ..agents.neural.agent import load_bid_net, load_play_net
from ..agents.neural.batch_play import DEFAULT_MARGIN
from ..agents.neural.bid_actions import N_BID, PLAYERS
from ..agents.neural.family import net_family
from ..agents.neural.net import default_weights_path
from ..arena import run_duplicate
from ..rules import get_rules
from .common import (LabelSource, WorkerSettings, bad_setting, check_common, export_checkpoint,
                     init_from_weights, main_of, new_training, play_loss, setting, shared,
                     train_on_labels)
from .common import TrainingProgress  # noqa: F401  (the display of every trainer)
from .common import parse_args as parse_settings

__all__ = ["Args", "train", "check_args", "bid_loss", "export_run", "parse_args",
           "BidLabelSource"]


@dataclass
class Args(WorkerSettings):
    """Every setting of a run (``coinche-rl train bid --help``)."""
    minutes: float = shared("minutes", 60.0)
    out: str = shared("out", "runs/bid")
    init: Optional[str] = setting(None, "start from the weights of this run's checkpoint, or of "
                                   "a bidding weights file (.npz, e.g. the shipped one)")
    players: str = setting("auto", "card players of the targets, comma-separated (nn, heuristic); "
                              "auto: nn,heuristic where card-play weights ship, else heuristic")
    play_weights: str = setting("", "card-play weights of the nn player (default: shipped)")
    # network
    hidden: List[int] = shared("hidden", [512, 256])
    # labels
    chunk_deals: int = shared("chunk_deals")
    epsilon: float = setting(0.1, 'random auction action share in the labelled auctions')
    random_opponents: float = setting(0.0, 'share of deals in which one team bids at random, in '
                                      'the auction and its continuations (the opponent '
                                      "pool)")
    strong_hands: float = setting(0.0, 'share of deals in which a seat is dealt 5 to 8 cards of a '
                                  'suit with its jack and nine (capots and long suits)')
    bidders: str = setting("heuristic", "who bids in the labelled auctions and their "
                           "continuations: heuristic, or nn (the bidding net of --bid-weights, "
                           "as the nn agent bids with --bid-margin: self-play, the partner and "
                           "the opponents being the nets themselves)")
    bid_weights: str = setting("", "bidding weights of the nn bidders (default: shipped)")
    bid_margin: float = setting(DEFAULT_MARGIN, "the nn bidders' trust region around the heuristic, "
                                "points (the nn agent's bid_margin)")
    heuristic_opponents: float = setting(0.0, "with --bidders nn: share of deals in which one "
                                         "team bids as the heuristic, in the auction and every "
                                         "continuation (the opponent pool; not labelled)")
    # optimisation
    batch_size: int = setting(512, 'positions per update')
    updates_per_chunk: int = shared("updates_per_chunk", 8)
    buffer_size: int = setting(150_000, 'replay buffer, labelled positions (FIFO): 2.4 kB each in '
                                   'memory (two card players), saved with every checkpoint in '
                                   'replay.npz (compressed, about 0.17 kB each: 26 MB when '
                                   'full at the default; the shipped run used 400000)')
    min_buffer: int = setting(10_000, 'positions before the first update')
    lr: float = shared("lr")
    lr_end: float = shared("lr_end", 2e-5)
    anneal_updates: int = shared("anneal_updates", 200_000)
    weight_decay: float = shared("weight_decay")
    huber_delta: float = shared("huber_delta")
    mean_loss_weight: float = shared("mean_loss_weight",
                                     help='weight of the decision-mean loss of the q head')
    ev_loss_weight: float = setting(0.5, 'weight of the contract-value (ev) loss')
    made_loss_weight: float = setting(0.5, 'weight of the P(made) loss')
    target_scale: float = shared("target_scale")
    # evaluation, logging, checkpoints
    eval_minutes: float = shared("eval_minutes")
    eval_pairs: int = setting(1000, 'deal pairs of each evaluation (full deals vs the heuristic)')
    eval_seed: int = shared("eval_seed")


def parse_args(argv=None) -> Args:
    """Parse ``coinche-rl train bid`` arguments into :class:`Args`."""
    return parse_settings(argv, Args, "coinche-rl train bid", "train the bidding network (see "
                                                      "coinche_rl.train.bid)")


def resolve_players(args: Args) -> List[str]:
    """The card players of the run (``--players``, ``auto`` resolved)."""
    if args.players == "auto":
        if args.play_weights or os.path.isfile(default_weights_path(args.rules)):
            return ["nn", "heuristic"]
        return ["heuristic"]
    players = [p.strip() for p in args.players.split(",") if p.strip()]
    for p in players:
        if p not in PLAYERS:
            raise ValueError(f"--players={args.players!r}: unknown card player {p!r}; expected "
                             f"a comma-separated list of {', '.join(PLAYERS)}, or auto")
    if not players or len(set(players)) != len(players):
        raise ValueError(f"--players={args.players!r}: expected distinct card players")
    return players


#: who bids in the labelled auctions (``--bidders``)
BIDDERS = ("heuristic", "nn")

#: the settings a ``--resume`` must repeat
RESUME_KEYS = ("rules", "seed", "players", "play_weights", "hidden", "chunk_deals", "epsilon",
               "random_opponents", "strong_hands", "bidders", "bid_weights", "bid_margin",
               "heuristic_opponents",
               "batch_size", "updates_per_chunk", "buffer_size", "lr", "lr_end",
               "anneal_updates", "target_scale", "huber_delta", "mean_loss_weight",
               "ev_loss_weight", "made_loss_weight")


#: the settings of the optional label options (:attr:`.NetFamily.bid_options`): the
#: setting, the option it gives, its value when off
LABEL_OPTIONS = (("random_opponents", "random_share", 0.0), ("strong_hands", "strong_share", 0.0),
                 ("bidders", "bid_net", "heuristic"),
                 ("heuristic_opponents", "heuristic_share", 0.0))


def check_args(args: Args) -> None:
    """Refuse bad settings before anything is written, naming the setting."""
    fam = net_family(get_rules(args.rules))              # UnknownPresetError names the presets
    for name, option, off in LABEL_OPTIONS:
        if option not in fam.bid_options and getattr(args, name) != off:
            bad_setting(args, name, f"the bidding labels of {args.rules!r} have no such "
                        f"option (the {fam.key} players' family)")
    check_common(args, unit=("epsilon", "random_opponents", "strong_hands",
                              "heuristic_opponents"))
    resolve_players(args)
    if args.play_weights and not os.path.isfile(args.play_weights):
        bad_setting(args, "play_weights", "no such file")
    if args.bidders not in BIDDERS:
        bad_setting(args, "bidders", f"expected one of {', '.join(BIDDERS)}")
    if args.bid_weights and not os.path.isfile(args.bid_weights):
        bad_setting(args, "bid_weights", "no such file")
    if args.bid_weights and args.bidders != "nn":
        bad_setting(args, "bid_weights", "is for --bidders nn")
    if not args.bid_margin >= 0:
        bad_setting(args, "bid_margin", "must be at least 0 points")
    if args.heuristic_opponents and args.bidders != "nn":
        bad_setting(args, "heuristic_opponents", "is a share of self-play deals (--bidders nn)")
    if args.random_opponents + args.heuristic_opponents > 1:
        bad_setting(args, "heuristic_opponents", "with --random-opponents, at most 1 in all")
    for name in ("ev_loss_weight", "made_loss_weight"):
        if getattr(args, name) < 0:
            bad_setting(args, name, "must be at least 0")


# ------------------------------------------------------------------ label source
def _bid_chunk_job(rules_name, seed, c, chunk_deals, epsilon, players, play_weights,
                   random_opponents=0.0, strong_hands=0.0, bidders="heuristic", bid_weights="",
                   bid_margin=DEFAULT_MARGIN, heuristic_opponents=0.0):
    rules = get_rules(rules_name)
    net = None
    if "nn" in players:
        net = load_play_net(play_weights, rules, check_rules=not play_weights)
    bid_net = None
    if bidders == "nn":
        bid_net = load_bid_net(bid_weights, rules, "nn", check_rules=not bid_weights,
                               margin=bid_margin)
    fam = net_family(rules)
    given = {"random_share": random_opponents, "strong_share": strong_hands,
             "bid_net": bid_net, "heuristic_share": heuristic_opponents}
    ch = fam.bid_label_chunk(rules, seed, c * chunk_deals, chunk_deals, epsilon, players, net,
                             **{k: v for k, v in given.items() if k in fam.bid_options})
    return (ch.feats, ch.legal, ch.q, ch.ev, ch.made, ch.ev_valid, ch.deals, ch.seconds)


class BidLabelSource(LabelSource):
    """Auction (prise) label chunks in order (:class:`.common.LabelSource`)."""

    job = staticmethod(_bid_chunk_job)

    def __init__(self, args: Args, start: int, players: List[str]):
        self.players = tuple(players)
        self.warm = net_family(get_rules(args.rules)).warm_bid_labels
        super().__init__(args, start)

    def job_args(self, c) -> tuple:
        a = self.args
        return (a.rules, a.seed, c, a.chunk_deals, a.epsilon, self.players, a.play_weights,
                a.random_opponents, a.strong_hands, a.bidders, a.bid_weights, a.bid_margin,
                a.heuristic_opponents)


# ------------------------------------------------------------------ replay buffer
class BidReplay:
    """A FIFO ring of labelled auction positions (``n_actions``: the family's bidding
    outputs)."""

    FIELDS = ("feats", "legal", "q", "ev", "made", "ev_valid")

    def __init__(self, capacity: int, n_features: int, n_players: int, n_actions: int = N_BID):
        self.capacity = capacity
        self.feats = np.zeros((capacity, n_features), dtype=np.float16)
        self.legal = np.zeros((capacity, n_actions), dtype=bool)
        self.q = np.zeros((capacity, n_players, n_actions), dtype=np.float16)
        self.ev = np.zeros((capacity, n_players, n_actions), dtype=np.float16)
        self.made = np.zeros((capacity, n_players, n_actions), dtype=bool)
        self.ev_valid = np.zeros((capacity, n_actions), dtype=bool)
        self.size = 0
        self.pos = 0

    def add_chunk(self, chunk) -> tuple:
        """Add a label chunk (:func:`_bid_chunk_job`'s tuple); returns its positions and
        deals."""
        *arrays, n_deals, _sec = chunk
        self.add(*arrays)
        return len(arrays[0]), n_deals

    def add(self, *arrays) -> None:
        n = len(arrays[0])
        for start in range(0, n, self.capacity):
            part = [a[start:start + self.capacity] for a in arrays]
            m = len(part[0])
            k = min(m, self.capacity - self.pos)
            for name, a in zip(self.FIELDS, part):
                buf = getattr(self, name)
                buf[self.pos:self.pos + k] = a[:k]
                buf[:m - k] = a[k:]
            self.pos = (self.pos + m) % self.capacity
            self.size = min(self.capacity, self.size + m)

    @property
    def nbytes(self) -> int:
        """The memory it holds, bytes."""
        return sum(getattr(self, name).nbytes for name in self.FIELDS)

    def sample(self, idx):
        return tuple(getattr(self, name)[idx] for name in self.FIELDS)

    def state(self) -> dict:
        n = self.size
        out = {name: getattr(self, name)[:n] for name in self.FIELDS}
        out.update(pos=np.int64(self.pos), size=np.int64(n))
        return out

    def load(self, z) -> None:
        n = int(z["size"])
        for name in self.FIELDS:
            getattr(self, name)[:n] = z[name]
        self.size, self.pos = n, int(z["pos"])


# ------------------------------------------------------------------ the loss
def bid_loss(out, legal, q, ev, made, ev_valid, args: Args):
    """``(loss, parts)`` of network outputs ``out`` (``[n, players * 3 * N]``, ``N`` the
    family's bidding outputs)
    against the targets (``q``, ``ev`` in units of ``target_scale`` points; ``made``
    0/1): per player, the centred Huber loss of the ``q`` head on the legal actions
    (:func:`.common.play_loss`), plus ``ev_loss_weight`` x Huber on the ``ev``
    head and ``made_loss_weight`` x binary cross-entropy on the ``made`` logits, both on
    the preset's contracts (``ev_valid``). ``parts``: the three unweighted losses."""
    import torch
    n_pl = q.shape[1]
    o = out.view(-1, n_pl, 3, q.shape[2])
    total = 0.0
    parts = [0.0, 0.0, 0.0]
    vm = ev_valid.float()
    n_valid = vm.sum().clamp(min=1.0)
    for pl in range(n_pl):
        lq, lq_rel = play_loss(o[:, pl, 0], legal, q[:, pl], args)
        hev = torch.nn.functional.huber_loss(o[:, pl, 1], ev[:, pl], delta=args.huber_delta,
                                             reduction="none")
        lev = (hev * vm).sum() / n_valid
        bce = torch.nn.functional.binary_cross_entropy_with_logits(o[:, pl, 2], made[:, pl],
                                                                   reduction="none")
        lmade = (bce * vm).sum() / n_valid
        total = total + lq + args.ev_loss_weight * lev + args.made_loss_weight * lmade
        parts[0] += float(lq_rel.detach()) / n_pl
        parts[1] += float(lev.detach()) / n_pl
        parts[2] += float(lmade.detach()) / n_pl
    return total, parts


def evaluate_bid_weights(path: str, rules_name: str, pairs: int, seed: int,
                         opponent: str = "heuristic", players=("nn", "heuristic")) -> dict:
    """Full-deal duplicate (auction and play) of the ``nn`` agent bidding with
    ``path`` against ``opponent``: margin per deal and its 95% interval. ``players``:
    the card players the net has heads for; without ``nn`` the agent bids for the
    heuristic's card play (``nn:play=heuristic``)."""
    spec = f"nn:bid_weights={path}" + ("" if "nn" in players else ",play=heuristic")
    r = run_duplicate(spec, opponent, pairs, preset=rules_name, seed=seed)
    return {"margin": float(r.mean), "ci95": float(r.ci95), "pairs": int(r.n),
            "win_rate": float(r.win_rate), "opponent": opponent, "seed": seed, "frozen": False}


# ==================================================================== the loop
def train(args: Args) -> dict:
    """Run (or resume) a bidding training run; returns the final figures (as
    :func:`.play.train`'s, with ``players``)."""
    import torch
    from ..agents.neural.torch_net import PlayNet       # torch: the nn extra

    check_args(args)
    players = resolve_players(args)
    n_pl = len(players)
    fam = net_family(get_rules(args.rules))
    torch.set_num_threads(args.torch_threads)
    model, optim, rng = new_training(args, lambda: PlayNet(
        args.hidden, inputs=fam.feature_size, outputs=n_pl * 3 * fam.bid_space.n))
    replay = BidReplay(args.buffer_size, fam.feature_size, n_pl, fam.bid_space.n)
    scale = 1.0 / args.target_scale

    def same_players(iargs):
        other = Args(**{**dataclasses.asdict(args), "players": iargs["players"],
                        "play_weights": iargs["play_weights"]})
        if resolve_players(other) != players:
            raise ValueError(f"--init: {args.init} was trained for card players "
                             f"{iargs['players']!r}, not {args.players!r}")

    def init_weights(args, model):
        return init_from_weights(args, model, kind="bid", players=players)

    def batch_loss(idx):
        # ---- one update on a batch of labelled positions
        f, lg, tq, tev, tm, vm = replay.sample(idx)
        return bid_loss(model(torch.from_numpy(f.astype(np.float32))), torch.from_numpy(lg),
                        torch.from_numpy(tq.astype(np.float32)) * scale,
                        torch.from_numpy(tev.astype(np.float32)) * scale,
                        torch.from_numpy(tm.astype(np.float32)), torch.from_numpy(vm), args)

    return train_on_labels(
        args, "bid", "positions", model, optim, rng, replay, RESUME_KEYS,
        lambda start: BidLabelSource(args, start, players), batch_loss,
        (("losses/q_relative_huber", "q"), ("losses/ev_huber", "ev"),
         ("losses/made_bce", "made")),
        lambda path: evaluate_bid_weights(path, args.rules, args.eval_pairs, args.eval_seed,
                                          players=players),
        players=players, init_check=same_players, init_weights=init_weights,
        final_losses=False)


def export_run(run: str, path: str, float32: bool = False) -> str:
    """Write the torch-free bidding weights of the checkpoint in the run folder ``run``
    to ``path``, with the run's training facts and evaluation history
    (:func:`.common.export_checkpoint`)."""
    from ..agents.neural.torch_net import PlayNet       # torch: the nn extra

    def players(args):
        return resolve_players(Args(**args))

    def model(args):
        fam = net_family(get_rules(args["rules"]))
        return PlayNet(args["hidden"], inputs=fam.feature_size,
                       outputs=len(players(args)) * 3 * fam.bid_space.n)
    return export_checkpoint(run, path, model, float32, kind="bid", players=players)


def main(argv=None) -> int:
    return main_of(parse_args, train, argv)


if __name__ == "__main__":
    sys.exit(main())
