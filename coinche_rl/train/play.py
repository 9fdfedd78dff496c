"""Card-play trainer (``coinche-rl train play``): its settings, labels, replay and loss; its
loop, the bidding trainer's too, is :func:`.common.train_on_labels`.

Algorithm: **supervised regression on labelled decisions of real deals**. A label worker plays
deals in numba (:mod:`.labels`: heuristic auctions or the arena's frozen contracts,
heuristic card play with ``epsilon`` exploration) and scores *every legal card* of every
decision on the true deal, for the acting team: by the exact double-dummy solver once
``solver_cards`` cards or fewer are left, by a heuristic playout before. The network
(canonical inputs, 32 canonical card outputs) regresses these values, centred per
decision (only the differences between the cards of one decision matter for play, and
centring removes the deal's luck from the target), with a Huber loss, plus a small
loss on the decision's mean value. Averaged over the real distribution of hidden cards,
the solver targets make the network a "PIMC with infinitely many worlds, in one forward
pass"; the playout targets are one step of policy improvement over the heuristic.

Determinism: chunk ``c`` of labels is a pure function of ``(seed, c)``; the trainer
adds chunks in order and makes exactly ``updates_per_chunk`` updates after each, with
its own seeded generators. The result does not depend on the number of label workers,
their speed or the backend; ``--resume`` restores the weights, the optimiser, the
schedule position, the replay buffer and every random stream, so an interrupted and
resumed run ends with the same weights as an uninterrupted one
(``tests/test_neural_train.py``). Evaluation and checkpoint times never touch the
training streams.

``--init RUN`` starts from the weights of another run's checkpoint (a warm start with a
new optimiser, schedule and label seed): that run's training minutes count in
``--minutes`` and in the weights' ``training.minutes``, and its evaluations begin the
learning curve.

Outputs in ``--out``: ``metrics.jsonl`` (one JSON object per log line: ``charts/``,
``losses/`` and ``eval/`` keys), TensorBoard event files when ``tensorboard`` is
installed, ``checkpoint.pt`` (+ ``replay.npz``, the replay buffer, compressed; its size
is printed) written atomically every ``checkpoint_minutes`` and on Ctrl-C, and
``weights.npz``: the exported torch-free weights with their manifest (refreshed at every
evaluation and at the end). A run is evaluated every ``eval_minutes`` and at its end
(unless interrupted), so that the evaluation it ends on is of the weights it writes;
every evaluation it shows says at which update it was made. On stdout: a progress bar on
a terminal, plain lines to a file or a pipe.

What every trainer shares (the runs, the loop, the schedule, the messages) is in
:mod:`.common`.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from functools import partial
from typing import List, Optional

import numpy as np

from ..agents.neural.agent import load_bid_net
from ..agents.neural.family import net_family
from ..agents.neural.labels import warmup as warm_labels
from ..agents.neural.net import load_weights
from ..agents.neural.selfplay import SelfPlayTable, parse_opponents, selfplay_chunk
from ..agents.neural.selfplay import warmup as warm_selfplay
from ..arena import run_duplicate
from ..rules import get_rules
from .common import (LabelSource, WorkerSettings, bad_setting, check_common, export_checkpoint,
                     export_weights, init_from_weights, main_of, new_training, play_loss,
                     setting, shared, train_on_labels)
from .common import parse_args as parse_settings

__all__ = ["Args", "train", "check_args", "export_weights", "export_run", "evaluate_weights",
           "parse_args", "PlayLabelSource", "Replay", "generation_path", "LABEL_SOURCES",
           "RESUME_KEYS", "main"]


@dataclass
class Args(WorkerSettings):
    """Every setting of a run (``coinche-rl train play --help``)."""
    minutes: float = shared("minutes", 120.0)
    out: str = shared("out", "runs/play")
    init: Optional[str] = setting(None, "start from the weights of this run's checkpoint, or of "
                                   "a card-play weights file (.npz, e.g. the shipped one)")
    # network
    hidden: List[int] = shared("hidden")
    # labels
    chunk_deals: int = shared("chunk_deals")
    frozen: float = setting(0.5, "share of deals with the arena's frozen contract (four "
                            "players; belote for two players has none: every deal has its "
                            "prise)")
    epsilon: float = setting(0.1, 'random card share in the labelled trajectories')
    solver_cards: Optional[int] = setting(None, 'solver targets when this many cards are left '
                                          'or fewer (default: 28 with four players, 24 in '
                                          'belote for two players)')
    labels: str = setting("heuristic", "the label source: 'heuristic' (heuristic play-outs, the "
                                   "solver from --solver-cards) or 'selfplay' (policy "
                                   "iteration: every legal card played out by the current "
                                   "generation's table, .selfplay)")
    generation_chunks: int = setting(500, "selfplay: chunks per generation (each generation's "
                                     "labels come from the weights it starts with)")
    opponents: str = setting("self=0.5,heuristic=0.3,past=0.15,random=0.05",
                        "selfplay: the opponent pool, KIND=SHARE for KIND in self, "
                        "heuristic, random, past (the earlier generations)")
    # optimisation
    batch_size: int = setting(512, 'decisions per update')
    updates_per_chunk: int = shared("updates_per_chunk")
    buffer_size: int = setting(200_000, 'replay buffer, labelled decisions (FIFO): 1.6 kB each in '
                                   'memory, saved with every checkpoint in replay.npz '
                                   '(compressed, about 0.13 kB each: 26 MB when full at the '
                                   'default; the shipped run used 500000)')
    min_buffer: int = setting(20_000, 'decisions before the first update')
    lr: float = shared("lr")
    lr_end: float = shared("lr_end")
    anneal_updates: int = shared("anneal_updates")
    weight_decay: float = shared("weight_decay")
    huber_delta: float = shared("huber_delta")
    mean_loss_weight: float = shared("mean_loss_weight")
    target_scale: float = shared("target_scale")
    # evaluation, logging, checkpoints
    eval_minutes: float = shared("eval_minutes")
    eval_pairs: int = setting(2000, 'deal pairs of each evaluation')
    eval_seed: int = shared("eval_seed")


def parse_args(argv=None) -> Args:
    """Parse ``coinche-rl train play`` arguments into :class:`Args`."""
    return parse_settings(argv, Args, "coinche-rl train play",
                          "train the card-play network (see coinche_rl.train.play)")


def check_args(args: Args) -> None:
    """Refuse bad settings before anything is written, naming the setting."""
    fam = net_family(get_rules(args.rules))              # UnknownPresetError names the presets
    if args.solver_cards is None:
        args.solver_cards = fam.solver_cards
    check_common(args, unit=("frozen", "epsilon"))
    if not 0 <= args.solver_cards <= 32:
        bad_setting(args, "solver_cards", "must be in 0..32 (cards left in the hands)")
    if args.labels not in LABEL_SOURCES:
        bad_setting(args, "labels", f"expected one of {', '.join(LABEL_SOURCES)}")
    if args.generation_chunks < 1:
        bad_setting(args, "generation_chunks", "must be at least 1")
    if args.labels == "selfplay" and not fam.selfplay:
        bad_setting(args, "labels", f"self-play labels are not written for rules "
                                    f"{args.rules!r} yet: use --labels heuristic")
    if args.labels == "selfplay":
        try:
            parse_opponents(args.opponents)
        except ValueError as e:
            bad_setting(args, "opponents", str(e).partition(": ")[2])
        if get_rules(args.rules).family == "classic" and args.frozen > 0:
            bad_setting(args, "frozen", "the classic prise has no frozen contract in self-play "
                                 "labels: use --frozen 0")


#: the label sources of ``--labels``
LABEL_SOURCES = ("heuristic", "selfplay")


def generation_path(out: str, g: int) -> str:
    """The weights file of generation ``g`` of a self-play run in ``out``."""
    return os.path.join(out, "generations", f"gen_{g:03d}.npz")


# ------------------------------------------------------------------ label source
def _chunk_job(rules_name, seed, c, chunk_deals, frozen, epsilon, solver_cards):
    rules = get_rules(rules_name)
    ch = net_family(rules).label_chunk(rules, seed, c * chunk_deals, chunk_deals, frozen,
                                       epsilon, solver_cards)
    return (ch.feats, ch.cards, ch.targets, ch.kinds, ch.tricks, ch.deals, ch.seconds)


def _warm_labels():
    warm_labels()


_TABLES = {}


def _selfplay_job(rules_name, seed, c, chunk_deals, frozen, epsilon, opponents, generations):
    """Chunk ``c`` of self-play labels: the last of ``generations`` (weights files) is
    the learner, the others the past generations; the shipped bidding net bids for them
    (the heuristic where none ships)."""
    rules = get_rules(rules_name)
    nets = []
    for path in generations:
        if path not in _TABLES:
            _TABLES[path] = load_weights(path, rules, kind="play")
        nets.append(_TABLES[path])
    if ("bid", rules_name) not in _TABLES:
        _TABLES[("bid", rules_name)] = load_bid_net(rules=rules, required=False)
    table = SelfPlayTable(nets[-1], _TABLES[("bid", rules_name)], nets[:-1])
    ch = selfplay_chunk(rules, seed, c * chunk_deals, chunk_deals, table,
                        parse_opponents(opponents), frozen, epsilon)
    return (ch.feats, ch.cards, ch.targets, ch.kinds, ch.tricks, ch.deals, ch.seconds)


def _warm_selfplay(preset="ffb"):
    net_family(get_rules(preset)).warm_labels()
    warm_selfplay(preset)


class PlayLabelSource(LabelSource):
    """Card-play label chunks in order (:class:`.common.LabelSource`): heuristic
    play-outs and solver targets, or self-play (``--labels selfplay``)."""

    job = staticmethod(_chunk_job)
    warm = staticmethod(_warm_labels)

    def __init__(self, args: "Args", start: int):
        self.selfplay = args.labels == "selfplay"
        if self.selfplay:
            self.job = _selfplay_job
            self.warm = partial(_warm_selfplay, args.rules)
        else:
            self.warm = net_family(get_rules(args.rules)).warm_labels
        super().__init__(args, start)

    def job_args(self, c) -> tuple:
        a = self.args
        if self.selfplay:
            g = c // a.generation_chunks
            return (a.rules, a.seed, c, a.chunk_deals, a.frozen, a.epsilon, a.opponents,
                    [generation_path(a.out, k) for k in range(g + 1)])
        return (a.rules, a.seed, c, a.chunk_deals, a.frozen, a.epsilon, a.solver_cards)

    def ready(self, c) -> bool:
        """Whether chunk ``c`` can be made now: a self-play chunk needs its generation's
        weights, which the trainer writes when it reaches the generation."""
        return not self.selfplay or os.path.exists(
            generation_path(self.args.out, c // self.args.generation_chunks))


class Replay:
    """A FIFO ring of labelled decisions."""

    def __init__(self, capacity: int, n_features: int):
        self.capacity = capacity
        self.feats = np.zeros((capacity, n_features), dtype=np.float16)
        self.cards = np.zeros((capacity, 32), dtype=bool)
        self.targets = np.zeros((capacity, 32), dtype=np.float32)
        self.size = 0
        self.pos = 0

    def add_chunk(self, chunk) -> tuple:
        """Add a label chunk (:func:`_chunk_job`'s tuple); returns its decisions and deals."""
        feats, cards, targets, _kinds, _tricks, n_deals, _sec = chunk
        self.add(feats, cards, targets)
        return len(targets), n_deals

    def add(self, feats, cards, targets):
        n = len(targets)
        for start in range(0, n, self.capacity):
            f, c, t = (a[start:start + self.capacity] for a in (feats, cards, targets))
            m = len(t)
            end = self.pos + m
            if end <= self.capacity:
                sl = slice(self.pos, end)
                self.feats[sl], self.cards[sl], self.targets[sl] = f, c, t
            else:
                k = self.capacity - self.pos
                self.feats[self.pos:] = f[:k]
                self.cards[self.pos:] = c[:k]
                self.targets[self.pos:] = t[:k]
                self.feats[:m - k], self.cards[:m - k], self.targets[:m - k] = f[k:], c[k:], t[k:]
            self.pos = end % self.capacity
            self.size = min(self.capacity, self.size + m)

    @property
    def nbytes(self) -> int:
        """The memory it holds, bytes."""
        return self.feats.nbytes + self.cards.nbytes + self.targets.nbytes

    def state(self) -> dict:
        n = self.size
        return {"feats": self.feats[:n], "cards": self.cards[:n], "targets": self.targets[:n],
                "pos": np.int64(self.pos), "size": np.int64(n)}

    def load(self, z) -> None:
        n = int(z["size"])
        self.feats[:n], self.cards[:n], self.targets[:n] = z["feats"], z["cards"], z["targets"]
        self.size, self.pos = n, int(z["pos"])


# ------------------------------------------------------------------ runs
#: the settings a ``--resume`` must repeat (they change the data or the optimisation)
RESUME_KEYS = ("rules", "seed", "hidden", "chunk_deals", "frozen", "epsilon", "solver_cards",
               "labels", "generation_chunks", "opponents",
               "batch_size", "updates_per_chunk", "buffer_size", "lr", "lr_end",
               "anneal_updates", "target_scale", "huber_delta", "mean_loss_weight")


def evaluate_weights(path: str, rules_name: str, pairs: int, seed: int, opponent: str = "heuristic",
                     frozen: bool = True) -> dict:
    """Frozen-auction duplicate of ``nn:weights=path`` against ``opponent`` on a fixed
    deal set: margin per deal and its 95% interval (whole deals where the family has no
    frozen contract: belote for two players)."""
    frozen = bool(frozen) and net_family(get_rules(rules_name)).frozen
    r = run_duplicate(f"nn:weights={path}", opponent, pairs, preset=rules_name, seed=seed,
                      frozen_contract=frozen)
    return {"margin": float(r.mean), "ci95": float(r.ci95), "pairs": int(r.n),
            "win_rate": float(r.win_rate), "opponent": opponent, "seed": seed,
            "frozen": bool(frozen)}


def train(args: Args) -> dict:
    """Run (or resume) a training run; returns the final figures (``evaluation``: the
    latest evaluation, made at the end of the run unless it was interrupted or
    ``eval_minutes`` is 0; ``budget_spent``: why a ``--resume`` had nothing to do)."""
    import torch
    from ..agents.neural.torch_net import PlayNet       # torch: the nn extra

    check_args(args)
    torch.set_num_threads(args.torch_threads)
    # ---- seeding: one seed for everything
    n_in = net_family(get_rules(args.rules)).feature_size
    model, optim, rng = new_training(args, lambda: PlayNet(args.hidden, inputs=n_in))
    replay = Replay(args.buffer_size, n_in)
    scale = 1.0 / args.target_scale

    def batch_loss(idx):
        # ---- one update: centred Huber regression on the legal cards
        x = torch.from_numpy(replay.feats[idx].astype(np.float32))
        m = torch.from_numpy(replay.cards[idx])
        t = torch.from_numpy(replay.targets[idx]) * scale
        loss, loss_rel = play_loss(model(x), m, t, args)
        return loss, [float(loss_rel.detach())]

    def next_generation(run, export, evaluate):
        if args.labels != "selfplay" or run.chunk % args.generation_chunks:
            return
        g = run.chunk // args.generation_chunks
        path = generation_path(args.out, g)
        if not os.path.exists(path):
            # generation g: the weights as they are now label its chunks; each
            # generation after the first is evaluated (the learning curve)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            export(path)                                            # atomic
            if g > 0 and args.eval_minutes > 0 and run.updates:
                evaluate(generation=g)

    return train_on_labels(
        args, "play", "decisions", model, optim, rng, replay, RESUME_KEYS,
        lambda start: PlayLabelSource(args, start), batch_loss,
        (("losses/relative_huber", "loss"),),
        lambda path: evaluate_weights(path, args.rules, args.eval_pairs, args.eval_seed),
        init_weights=init_from_weights, before_chunk=next_generation)


def export_run(run: str, path: str, float32: bool = False) -> str:
    """Write the torch-free card-play weights of the checkpoint in the run folder ``run``
    to ``path`` (:func:`export_checkpoint`)."""
    from ..agents.neural.torch_net import PlayNet       # torch: the nn extra
    return export_checkpoint(run, path, lambda args: PlayNet(
        args["hidden"], inputs=net_family(get_rules(args["rules"])).feature_size), float32)


def main(argv=None) -> int:
    return main_of(parse_args, train, argv)


if __name__ == "__main__":
    sys.exit(main())
