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

``--init WEIGHTS`` warm-starts from a belief weights file (the shipped one, or another run's
``weights.npz``), checked as on load (kind, rules, observation; the widths must be
``--hidden``) before anything is written: a new optimiser, schedule and replay; pass another
``--seed`` for new positions. The file's training minutes count in ``--minutes`` and its
evaluations begin the learning curve, followed by its own figure on this run's held-out
set at update 0 (the population that plays the held-out games may have changed since).

Evaluation (every ``eval_minutes`` and at the end): the mean log-loss per hidden card on a
fixed held-out set of positions (``eval_games`` games of ``eval_seed``), beside the
log-loss of uniform guessing among the three seats. The full report (against the exact
uniform sampler's marginals, calibration, by trick) is
:func:`coinche_rl.agents.neural.belief.belief_report`.

Outputs in ``--out``: ``metrics.jsonl``, ``checkpoint.pt`` (atomic, every
``checkpoint_minutes`` and on Ctrl-C) and ``weights.npz``, the torch-free weights with
their manifest (``kind: "belief"``), whose ``training.population`` names the networks that
played the training deals (each one's run and updates, as the checkpoint records them):
the shipped ``nn`` nets of the preset when the run started, so a belief net says which
card player's positions it learnt from.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
import sys
import time
from dataclasses import dataclass
from typing import List, Optional

import numpy as np

from ..agents.neural.agent import load_bid_net, load_play_net
from ..agents.neural.belief import generate_positions
from ..agents.neural.family import net_family
from ..agents.neural.net import NeuralError, rules_hash
from ..rules import get_rules
from .common import (Logger, RunClock, RunProgress, RunSettings, TrainingProgress, atomic_write,
                     bad_setting, budget_spent, check_common, check_run_folder,
                     evaluation_entry, export_checkpoint, export_weights, init_from_weights,
                     interruptible, lr_at,
                     main_of, new_training, optimise, restore, run_facts, setting, shared,
                     training_state)
from .common import parse_args as parse_settings

__all__ = ["Args", "train", "check_args", "belief_loss", "export_run", "parse_args", "main"]


@dataclass
class Args(RunSettings):
    """Every setting of a run (``coinche-rl train belief --help``)."""
    minutes: float = shared("minutes", 30.0)
    out: str = shared("out", "runs/belief")
    init: Optional[str] = setting(None, "start from a belief weights file (.npz, e.g. the shipped "
                                  "one): its minutes and evaluations carry over; a new "
                                  "optimiser and schedule (pass another --seed for new "
                                  "positions)")
    hidden: List[int] = shared("hidden")
    chunk_games: int = setting(128, 'games per chunk of positions')
    epsilon: float = setting(0.05, 'random card share in the played deals')
    batch_size: int = setting(1024, 'positions per update')
    updates_per_chunk: int = shared("updates_per_chunk", 4, 'updates after each chunk')
    buffer_size: int = setting(200_000, 'replay (positions, FIFO; regenerated on --resume, '
                                   'never written: ~1.4 KB each in memory)')
    lr: float = shared("lr")
    lr_end: float = shared("lr_end")
    anneal_updates: int = shared("anneal_updates", 60_000)
    weight_decay: float = shared("weight_decay")
    eval_minutes: float = shared("eval_minutes", 5.0, 'evaluation interval (0: only at the end)')
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
        bad_setting(args, "rules", "the belief net is for the coinche family (8-card hands) "
                    "and belote for two players")
    missing = net_family(rules).belief_missing(rules)
    if missing:
        bad_setting(args, "rules", missing)
    check_common(args, unit=("epsilon",))


#: the settings a ``--resume`` must repeat
RESUME_KEYS = ("rules", "seed", "init", "hidden", "chunk_games", "epsilon", "batch_size",
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
        """The population's networks: each one's run and updates (in the checkpoint, checked
        on ``--resume``, and in the manifest's ``training.population``)."""
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
    """Mean cross-entropy over the hidden cards: ``logits`` ``[n, 32 * places]`` (card x
    place), ``labels`` int ``[n, 32]`` (``1..places`` the card's place: the holder's
    relative seat, or for two players the other hand / face down; 0 or above ``places``
    no loss: seen, or placed by the rules)."""
    import torch
    places = logits.shape[1] // 32
    z = logits.view(-1, 32, places)
    hidden = (labels > 0) & (labels <= places)
    return torch.nn.functional.cross_entropy(z[hidden], (labels[hidden] - 1).long())


def _eval_set(args: Args, population: Population):
    pos = population.chunk(0, seed=args.eval_seed, games=args.eval_games)
    return pos.feats.astype(np.float32), pos.labels


def _evaluate(model, feats, labels, baseline: float) -> dict:
    """Mean log-loss (nats) and top-1 accuracy per hidden card on held-out positions,
    beside the uniform worlds' (``baseline``, the family's
    :attr:`~coinche_rl.agents.neural.family.NetFamily.belief_uniform`; for four players
    guessing among the three seats, log 3)."""
    import torch
    with torch.inference_mode():
        out = model(torch.from_numpy(feats))
        places = out.shape[1] // 32
        z = out.view(-1, 32, places)
        lab = torch.from_numpy(labels.astype(np.int64))
        hidden = (lab > 0) & (lab <= places)
        logp = torch.log_softmax(z[hidden], dim=1)
        y = lab[hidden] - 1
        nll = float(-logp.gather(1, y[:, None]).mean())
        acc = float((logp.argmax(1) == y).float().mean())
    out = {"log_loss": nll, "accuracy": acc, "log_loss_uniform": round(baseline, 6),
           "positions": int(len(labels)), "hidden_cards": int(hidden.sum())}
    if places == 3:
        out["log_loss_uniform3"] = math.log(3.0)        # the name of the earlier runs' figure
    return out


# ==================================================================== the loop
def train(args: Args) -> dict:
    """Run (or resume) a training run; returns the final figures."""
    import torch

    check_args(args)
    torch.set_num_threads(args.torch_threads)
    ckpt_path = check_run_folder(args)
    population = Population(args)
    rules = population.rules
    weights_path = os.path.join(args.out, "weights.npz")

    fam = net_family(rules)
    model, optim, rng = new_training(args, lambda: _model(args.hidden, fam))
    replay = Replay(args.buffer_size, fam.feature_size)
    run = RunProgress()                 # its ``labelled``: the positions
    if args.init and not args.resume:   # checked (kind, rules, widths) before anything is written
        run = init_from_weights(args, model, kind="belief")
    os.makedirs(args.out, exist_ok=True)
    if args.resume:
        ck = torch.load(ckpt_path, weights_only=True)
        restore(ck, args, model, optim, rng, RESUME_KEYS)
        if json.loads(ck["population"]) != population.nets():
            raise ValueError(f"--resume: the networks that play the training deals are not "
                             f"those of the run in {args.out} (their weights changed)")
        run = RunProgress(int(ck["chunk"]), int(ck["updates"]), int(ck["positions"]),
                          float(ck["elapsed"]), int(ck["deals"]), json.loads(ck["history"]),
                          json.loads(ck.get("init", "null")))
        spent = budget_spent(args, run.elapsed, run.chunk)
        if spent:                           # nothing to train: say so, touch nothing
            print(spent, flush=True)
            return _result(run, round(run.elapsed / 60.0, 2), weights_path, False, spent)
        replay.rebuild(population, json.loads(ck["chunk_sizes"]))
    history = run.history

    def save_checkpoint():
        state = training_state(args, model, optim, rng,
                               dataclasses.replace(run, elapsed=clock.total()), "belief")
        ck = {**state, "positions": run.labelled, "chunk_sizes": json.dumps(replay.chunk_sizes),
              "population": json.dumps(population.nets()), "init": json.dumps(run.init)}
        atomic_write(ckpt_path, lambda f: torch.save(ck, f))

    def evaluate():
        model.eval()
        ev = _evaluate(model, eval_feats, eval_labels, eval_baseline)
        model.train()
        ev.update(updates=run.updates, minutes=round(clock.minutes(), 2),
                  positions_seen=run.labelled)
        history.append(ev)
        logger.log(run.updates, {"eval/log_loss": ev["log_loss"], "eval/accuracy": ev["accuracy"]})
        return ev

    def facts(total_s):
        return {**run_facts(args, run, total_s), "population": population.nets()}

    eval_feats, eval_labels = _eval_set(args, population)
    eval_baseline = fam.belief_uniform_loss(eval_labels)
    logger = Logger(args.out, use_tb=False)
    with interruptible() as interrupted:
        clock = RunClock(args, run.elapsed)
        if run.init and run.updates == 0 and run.chunk == 0:
            evaluate()      # the warm start's own figure on this run's held-out set
            clock.last_eval = time.perf_counter()
        progress = TrainingProgress(args.progress, args.minutes * 60.0, name="train belief")
        loss_acc, loss_n, win_pos, win_t = 0.0, 0, 0, clock.start
        try:
            while not (interrupted or clock.over(time.perf_counter(), run.chunk)):
                pos = population.chunk(run.chunk)
                run.chunk += 1
                run.labelled += len(pos.labels)
                run.deals += pos.deals
                win_pos += len(pos.labels)
                replay.add(pos.feats, pos.labels)
                for _ in range(args.updates_per_chunk):
                    idx = rng.integers(0, replay.size, args.batch_size)
                    x = torch.from_numpy(replay.feats[idx].astype(np.float32))
                    y = torch.from_numpy(replay.labels[idx].astype(np.int64))
                    loss = belief_loss(model(x), y)
                    optimise(optim, loss, lr_at(args, run.updates))
                    run.updates += 1
                    loss_acc += float(loss.detach())
                    loss_n += 1
                now = time.perf_counter()
                if clock.log_due(now):
                    dt = now - win_t
                    row = {"charts/minutes": clock.total(now) / 60.0,
                           "charts/positions": run.labelled, "charts/deals": run.deals,
                           "charts/positions_per_s": win_pos / dt,
                           "charts/lr": lr_at(args, run.updates),
                           "charts/buffer": replay.size, "charts/chunks": run.chunk}
                    if loss_n:
                        row["losses/cross_entropy"] = loss_acc / loss_n
                    logger.log(run.updates, row)
                    shown = (f" eval {history[-1]['log_loss']:.4f} (update {history[-1]['updates']})"
                             if history else "")
                    progress.update(clock.total(now),
                                    f"upd {run.updates} pos {run.labelled / 1e6:.2f}M "
                                    f"loss {loss_acc / max(1, loss_n):.4f}{shown}")
                    loss_acc, loss_n, win_pos, win_t, clock.last_log = 0.0, 0, 0, now, now
                if clock.eval_due(now, run.updates):
                    evaluate()
                    export_weights(model, rules, weights_path, facts(clock.total()), kind="belief")
                    clock.last_eval = time.perf_counter()
                if clock.checkpoint_due(now):
                    save_checkpoint()
                    clock.last_ckpt = time.perf_counter()
        finally:
            progress.close()
    if not history or history[-1]["updates"] != run.updates:
        evaluate()                          # the figures of the weights written below
    save_checkpoint()
    info = facts(clock.total())
    export_weights(model, rules, weights_path, info, evaluation_entry(history), kind="belief")
    logger.close()
    return _result(run, info["minutes"], weights_path, bool(interrupted), None)


def _result(run: RunProgress, minutes: float, weights_path: str, interrupted: bool,
            budget: Optional[str]) -> dict:
    """What ``train`` returns (the command line prints it as JSON, less ``history``)."""
    return {"updates": run.updates, "chunks": run.chunk, "positions": run.labelled,
            "deals": run.deals, "minutes": minutes,
            "final": run.history[-1] if run.history else None, "history": run.history,
            "interrupted": interrupted, "budget_spent": budget, "weights": weights_path}


def export_run(run: str, path: str, float32: bool = False) -> str:
    """Write the torch-free belief weights of the checkpoint in ``run`` to ``path``
    (:func:`.common.export_checkpoint`; the manifest's ``training.population`` as the run
    writes it)."""
    return export_checkpoint(run, path,
                             lambda args: _model(args["hidden"], net_family(args["rules"])),
                             float32, kind="belief", counted="positions",
                             extra=lambda ck: {"population": json.loads(ck["population"])})


def _model(hidden, fam):
    """The torch belief net of family ``fam``: its input, 32 cards x its places."""
    from ..agents.neural.torch_net import PlayNet       # torch: the nn extra
    return PlayNet(hidden, inputs=fam.feature_size, outputs=32 * fam.belief_places)


def main(argv=None) -> int:
    return main_of(parse_args, train, argv)


if __name__ == "__main__":
    sys.exit(main())
