"""Belief trainer (``coinche-rl train belief``): one file, top to bottom.

Algorithm: **supervised classification of the true holders**. A chunk of positions
(:func:`coinche_rl.agents.neural.belief.generate_positions`: deals played by the training population, every card
decision with a choice) is generated, added to a FIFO replay of positions, and the net
(the card-play net's canonical input, 96 outputs: 32 canonical cards x the 3 other
seats) makes ``updates_per_chunk`` updates of cross-entropy on the hidden cards' true
holders (the cards the observer sees carry no label).

Determinism and resume: chunk ``c`` is a pure function of ``(seed, c)`` and of the
networks of the population (the shipped ones, whose manifests' hashes the checkpoint
records). The replay is therefore not written to disk: ``--resume`` regenerates the last
chunks it held (a few seconds) and restores the weights, the optimiser, the schedule and
both random streams, so an interrupted and resumed run ends with the same weights as an
uninterrupted one (``tests/test_belief.py``).

Evaluation (every ``eval_minutes`` and at the end): the mean log-loss per hidden card on a
fixed held-out set of positions (``eval_games`` games of ``eval_seed``), beside the
log-loss of uniform guessing among the three seats. The full report (against the exact
uniform sampler's marginals, calibration, by trick) is
:func:`coinche_rl.agents.neural.belief.belief_report`.

Outputs in ``--out``: ``metrics.jsonl``, ``checkpoint.pt`` (atomic, every
``checkpoint_minutes`` and on Ctrl-C) and ``weights.npz``, the torch-free weights with
their manifest (``kind: "belief"``).
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import signal
import sys
import time
from dataclasses import dataclass, field
from typing import List, Optional

import numpy as np

from ..agents.neural import canonical as C
from ..agents.neural.agent import load_bid_net, load_play_net
from ..agents.neural.belief import N_BELIEF, generate_positions
from ..agents.neural.net import NeuralError, make_manifest, rules_hash, save_weights
from ..rules import get_rules
from .common import (Logger, TrainingProgress, atomic_write, bad_setting, budget_spent,
                     export_checkpoint, lr_at, setting, training_facts, RunSettings)
from .common import parse_args as parse_settings

__all__ = ["Args", "train", "check_args", "belief_loss", "export_run", "parse_args", "main"]


@dataclass
class Args(RunSettings):
    """Every setting of a run (``coinche-rl train belief --help``)."""
    minutes: float = setting(30.0, 'training time budget (cumulative over resumes)')
    out: str = setting("runs/belief", 'the run folder')
    hidden: List[int] = field(default_factory=lambda: [256, 256],
                              metadata={"help": "hidden layer widths"})
    chunk_games: int = setting(128, 'games per chunk of positions')
    epsilon: float = setting(0.05, 'random card share in the played deals')
    batch_size: int = setting(1024, 'positions per update')
    updates_per_chunk: int = setting(4, 'updates after each chunk')
    buffer_size: int = setting(200_000, 'replay (positions, FIFO; regenerated on --resume, '
                                   'never written: ~1.4 KB each in memory)')
    lr: float = setting(1e-3, 'initial learning rate (AdamW)')
    lr_end: float = setting(5e-5, 'final learning rate')
    anneal_updates: int = setting(60_000, 'cosine decay from lr to lr_end over these updates')
    weight_decay: float = setting(1e-5, 'AdamW weight decay')
    eval_minutes: float = setting(5.0, 'evaluation interval (0: only at the end)')
    eval_games: int = setting(256, 'held-out games of each evaluation')
    eval_seed: int = setting(20261203, 'the held-out positions')


def parse_args(argv=None) -> Args:
    """Parse ``coinche-rl train belief`` arguments into :class:`Args`."""
    return parse_settings(argv, Args, "coinche-rl train belief",
                          "train the belief net (see coinche_rl.train.belief)")


def check_args(args: Args) -> None:
    """Refuse bad settings before anything is written, naming the setting."""
    rules = get_rules(args.rules)
    if rules.family == "classic":
        bad_setting(args, "rules", "the belief net is for the coinche family (8-card hands)")
    if not args.hidden or any(int(h) < 1 for h in args.hidden):
        bad_setting(args, "hidden", "expected one or more positive layer widths")
    for name in ("chunk_games", "batch_size", "updates_per_chunk", "buffer_size",
                 "torch_threads", "eval_games"):
        if getattr(args, name) < 1:
            bad_setting(args, name, "must be at least 1")
    for name in ("anneal_updates", "seed", "eval_seed"):
        if getattr(args, name) < 0:
            bad_setting(args, name, "must be at least 0")
    if not 0.0 <= args.epsilon <= 1.0:
        bad_setting(args, "epsilon", "must be in [0, 1]")
    for name in ("minutes", "lr"):
        if not getattr(args, name) > 0:
            bad_setting(args, name, "must be positive")
    for name in ("lr_end", "weight_decay", "eval_minutes", "checkpoint_minutes", "log_seconds"):
        if getattr(args, name) < 0:
            bad_setting(args, name, "must be at least 0")
    if args.max_chunks is not None and args.max_chunks < 0:
        bad_setting(args, "max_chunks", "must be at least 0")


#: the settings a ``--resume`` must repeat
RESUME_KEYS = ("rules", "seed", "hidden", "chunk_games", "epsilon", "batch_size",
               "updates_per_chunk", "buffer_size", "lr", "lr_end", "anneal_updates",
               "weight_decay")


# ------------------------------------------------------------------ positions
class Population:
    """The chunks of positions of a run: chunk ``c`` = games ``c * chunk_games ..`` of
    the run's seed, played by the shipped nets and the heuristic."""

    def __init__(self, args: Args):
        self.args = args
        self.rules = get_rules(args.rules)
        try:
            self.play_net = load_play_net("", self.rules)
        except NeuralError:
            self.play_net = None
        self.bid_net = load_bid_net("", self.rules, "nn", required=False)

    def nets(self) -> dict:
        """The population's networks (their manifests' hashes go in the checkpoint)."""
        out = {}
        for name, net in (("play", self.play_net),
                          ("bid", self.bid_net.net if self.bid_net is not None else None)):
            if net is not None:
                t = net.manifest.get("training") or {}
                out[name] = {"run": t.get("run"), "updates": t.get("updates"),
                             "rules": rules_hash(self.rules)}
        return out

    def chunk(self, c: int, seed: Optional[int] = None, games: Optional[int] = None):
        a = self.args
        games = a.chunk_games if games is None else games
        return generate_positions(self.rules, a.seed if seed is None else seed, c * games,
                                  games, {"epsilon": a.epsilon}, self.play_net, self.bid_net)


class Replay:
    """A FIFO ring of positions that remembers which chunks filled it, so that it can
    be rebuilt exactly from the chunks instead of being saved."""

    def __init__(self, capacity: int, n_features: int):
        self.capacity = capacity
        self.feats = np.zeros((capacity, n_features), dtype=np.float16)
        self.labels = np.zeros((capacity, 32), dtype=np.int8)
        self.size = 0
        self.total = 0              # positions ever added
        self.chunk_sizes: List[int] = []

    def add(self, feats, labels) -> None:
        n = len(labels)
        self.chunk_sizes.append(n)
        for j in range(0, n, self.capacity):
            f, l = feats[j:j + self.capacity], labels[j:j + self.capacity]
            m = len(l)
            pos = self.total % self.capacity
            k = min(m, self.capacity - pos)
            self.feats[pos:pos + k], self.labels[pos:pos + k] = f[:k], l[:k]
            if k < m:
                self.feats[:m - k], self.labels[:m - k] = f[k:], l[k:]
            self.total += m
            self.size = min(self.capacity, self.size + m)

    def rebuild(self, population: Population, chunk_sizes: List[int]) -> None:
        """Refill the ring as it was after adding chunks ``0 .. len(chunk_sizes) - 1``
        (regenerating only the chunks that are still in it)."""
        total = int(sum(chunk_sizes))
        first, kept = len(chunk_sizes), 0
        while first > 0 and kept < self.capacity:
            first -= 1
            kept += chunk_sizes[first]
        self.total = total - kept
        self.size = min(self.capacity, self.total)
        self.chunk_sizes = list(chunk_sizes[:first])
        for c in range(first, len(chunk_sizes)):
            pos = population.chunk(c)
            if len(pos.labels) != chunk_sizes[c]:
                raise RuntimeError(f"--resume: chunk {c} has {len(pos.labels)} positions, "
                                   f"the run had {chunk_sizes[c]}: the population's nets or "
                                   f"the code changed since the checkpoint")
            self.add(pos.feats, pos.labels)


# ------------------------------------------------------------------ loss
def belief_loss(logits, labels):
    """Mean cross-entropy over the hidden cards: ``logits`` ``[n, 96]`` (card x seat),
    ``labels`` int ``[n, 32]`` (1..3 the holder's relative seat, 0 no label)."""
    import torch
    z = logits.view(-1, 32, 3)
    hidden = labels > 0
    return torch.nn.functional.cross_entropy(z[hidden], (labels[hidden] - 1).long())


def _eval_set(args: Args, population: Population):
    pos = population.chunk(0, seed=args.eval_seed, games=args.eval_games)
    return pos.feats.astype(np.float32), pos.labels


def _evaluate(model, feats, labels) -> dict:
    """Mean log-loss (nats) and top-1 accuracy per hidden card on held-out positions,
    beside uniform guessing among the three seats (log 3)."""
    import torch
    with torch.inference_mode():
        z = model(torch.from_numpy(feats)).view(-1, 32, 3)
        lab = torch.from_numpy(labels.astype(np.int64))
        hidden = lab > 0
        logp = torch.log_softmax(z[hidden], dim=1)
        y = lab[hidden] - 1
        nll = float(-logp.gather(1, y[:, None]).mean())
        acc = float((logp.argmax(1) == y).float().mean())
    return {"log_loss": nll, "accuracy": acc, "log_loss_uniform3": math.log(3.0),
            "positions": int(len(labels)), "hidden_cards": int(hidden.sum())}


def _export(model, rules, path: str, training: dict, evaluation: Optional[dict] = None):
    from ..agents.neural.torch_net import to_numpy      # torch: the nn extra
    mlp = to_numpy(model)
    save_weights(path, mlp, make_manifest(mlp, rules, training, evaluation, kind="belief"))
    return mlp


# ==================================================================== the loop
def train(args: Args) -> dict:
    """Run (or resume) a training run; returns the final figures."""
    import torch
    from ..agents.neural.torch_net import PlayNet       # torch: the nn extra

    check_args(args)
    torch.set_num_threads(args.torch_threads)
    ckpt_path = os.path.join(args.out, "checkpoint.pt")
    if args.resume and not os.path.exists(ckpt_path):
        raise FileNotFoundError(f"--resume: no checkpoint at {ckpt_path}")
    if not args.resume and os.path.exists(ckpt_path):
        raise FileExistsError(f"{args.out} already holds a run (checkpoint.pt); pass --resume "
                              f"to continue it or choose another --out")
    population = Population(args)
    rules = population.rules
    os.makedirs(args.out, exist_ok=True)
    weights_path = os.path.join(args.out, "weights.npz")

    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    model = PlayNet(args.hidden, outputs=N_BELIEF)
    optim = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    replay = Replay(args.buffer_size, C.FEATURE_SIZE)
    chunk = updates = positions = deals = 0
    elapsed = 0.0
    history: list = []
    if args.resume:
        ck = torch.load(ckpt_path, weights_only=True)
        saved = json.loads(ck["args"])
        for k in RESUME_KEYS:
            if saved[k] != getattr(args, k):
                raise ValueError(f"--resume: {args.out} was trained with {k}={saved[k]!r}, "
                                 f"not {getattr(args, k)!r}; resume with the same settings "
                                 f"or use another --out")
        if json.loads(ck["population"]) != population.nets():
            raise ValueError(f"--resume: the networks that play the training deals are not "
                             f"those of the run in {args.out} (their weights changed)")
        model.load_state_dict(ck["model"])
        optim.load_state_dict(ck["optim"])
        torch.set_rng_state(ck["torch_rng"])
        rng.bit_generator.state = json.loads(ck["np_rng"])
        chunk, updates, positions, deals = (int(ck["chunk"]), int(ck["updates"]),
                                            int(ck["positions"]), int(ck["deals"]))
        elapsed = float(ck["elapsed"])
        history = json.loads(ck["history"])
        spent = budget_spent(args, elapsed, chunk)
        if spent:                           # nothing to train: say so, touch nothing
            print(spent, flush=True)
            return {"updates": updates, "chunks": chunk, "positions": positions, "deals": deals,
                    "minutes": round(elapsed / 60.0, 2),
                    "final": history[-1] if history else None, "history": history,
                    "interrupted": False, "budget_spent": spent, "weights": weights_path}
        replay.rebuild(population, json.loads(ck["chunk_sizes"]))

    def training_info():
        return training_facts(args.out, elapsed + time.perf_counter() - t_start, updates,
                               chunk, positions, deals, dataclasses.asdict(args), None)

    def save_checkpoint():
        ck = {"kind": "belief", "model": model.state_dict(), "optim": optim.state_dict(),
              "torch_rng": torch.get_rng_state(), "np_rng": json.dumps(rng.bit_generator.state),
              "chunk": chunk, "updates": updates, "positions": positions, "deals": deals,
              "elapsed": elapsed + time.perf_counter() - t_start,
              "history": json.dumps(history), "args": json.dumps(dataclasses.asdict(args)),
              "chunk_sizes": json.dumps(replay.chunk_sizes),
              "population": json.dumps(population.nets())}
        atomic_write(ckpt_path, lambda p: torch.save(ck, p))

    def evaluate():
        model.eval()
        ev = _evaluate(model, eval_feats, eval_labels)
        model.train()
        ev.update(updates=updates, minutes=round((elapsed + time.perf_counter() - t_start) / 60.0, 2),
                  positions_seen=positions)
        history.append(ev)
        logger.log(updates, {"eval/log_loss": ev["log_loss"], "eval/accuracy": ev["accuracy"]})
        return ev

    eval_feats, eval_labels = _eval_set(args, population)
    logger = Logger(args.out, use_tb=False)
    interrupted = []
    old_handler = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, lambda signum, frame: interrupted.append(True))
    t_start = time.perf_counter()
    last_log = last_ckpt = last_eval = t_start
    progress = TrainingProgress(args.progress, args.minutes * 60.0, name="train belief")
    loss_acc, loss_n, win_pos, win_t = 0.0, 0, 0, t_start
    try:
        while True:
            now = time.perf_counter()
            if interrupted or elapsed + now - t_start >= args.minutes * 60.0 or \
                    (args.max_chunks is not None and chunk >= args.max_chunks):
                break
            pos = population.chunk(chunk)
            chunk += 1
            positions += len(pos.labels)
            deals += pos.deals
            win_pos += len(pos.labels)
            replay.add(pos.feats, pos.labels)
            for _ in range(args.updates_per_chunk):
                idx = rng.integers(0, replay.size, args.batch_size)
                x = torch.from_numpy(replay.feats[idx].astype(np.float32))
                y = torch.from_numpy(replay.labels[idx].astype(np.int64))
                for g in optim.param_groups:
                    g["lr"] = lr_at(args, updates)
                loss = belief_loss(model(x), y)
                optim.zero_grad(set_to_none=True)
                loss.backward()
                optim.step()
                updates += 1
                loss_acc += float(loss.detach())
                loss_n += 1
            now = time.perf_counter()
            if now - last_log >= args.log_seconds:
                dt = now - win_t
                row = {"charts/minutes": (elapsed + now - t_start) / 60.0,
                       "charts/positions": positions, "charts/deals": deals,
                       "charts/positions_per_s": win_pos / dt, "charts/lr": lr_at(args, updates),
                       "charts/buffer": replay.size, "charts/chunks": chunk}
                if loss_n:
                    row["losses/cross_entropy"] = loss_acc / loss_n
                logger.log(updates, row)
                shown = (f" eval {history[-1]['log_loss']:.4f} (update {history[-1]['updates']})"
                         if history else "")
                progress.update(elapsed + now - t_start,
                                f"upd {updates} pos {positions / 1e6:.2f}M "
                                f"loss {loss_acc / max(1, loss_n):.4f}{shown}")
                loss_acc, loss_n, win_pos, win_t, last_log = 0.0, 0, 0, now, now
            if args.eval_minutes > 0 and now - last_eval >= args.eval_minutes * 60.0:
                evaluate()
                _export(model, rules, weights_path, training_info())
                last_eval = time.perf_counter()
            if now - last_ckpt >= args.checkpoint_minutes * 60.0:
                save_checkpoint()
                last_ckpt = time.perf_counter()
    finally:
        signal.signal(signal.SIGINT, old_handler)
        progress.close()
    if not history or history[-1]["updates"] != updates:
        evaluate()                          # the figures of the weights written below
    save_checkpoint()
    info = training_info()
    _export(model, rules, weights_path, info, {"history": history, "final": history[-1]})
    logger.close()
    return {"updates": updates, "chunks": chunk, "positions": positions, "deals": deals,
            "minutes": info["minutes"], "final": history[-1], "history": history,
            "interrupted": bool(interrupted), "budget_spent": None, "weights": weights_path}


def export_run(run: str, path: str, float32: bool = False) -> str:
    """Write the torch-free belief weights of the checkpoint in ``run`` to ``path``
    (:func:`.common.export_checkpoint`)."""
    from ..agents.neural.torch_net import PlayNet       # torch: the nn extra
    return export_checkpoint(run, path, lambda args: PlayNet(args["hidden"], outputs=N_BELIEF),
                             float32, kind="belief", counted="positions")


def main(argv=None) -> int:
    args = parse_args(argv)
    res = train(args)
    print(json.dumps({k: v for k, v in res.items() if k != "history"}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
