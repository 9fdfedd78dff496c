"""Card-play trainer (``coinche-rl train play``): one file, top to bottom, CleanRL style.

Algorithm (the measured choice; ``benchmarks/RESULTS.md`` has every variant tried):
**supervised regression on labelled decisions of real deals**. A label worker plays
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
learning curve. The shipped ffb weights were trained this way (RESULTS.md).

Outputs in ``--out``: ``metrics.jsonl`` (one JSON object per log line: ``charts/``,
``losses/`` and ``eval/`` keys), TensorBoard event files when ``tensorboard`` is
installed, ``checkpoint.pt`` (+ ``replay.npz``) written atomically every
``checkpoint_minutes`` and on Ctrl-C, and ``weights.npz``: the exported torch-free
weights with their manifest (refreshed at every evaluation and at the end).
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

from ...progress import Progress

__all__ = ["Args", "train", "check_args", "play_loss", "export_weights", "export_run",
           "evaluate_weights", "parse_args"]


def _s(default, help: str):
    """A setting: its default and its ``--help`` text."""
    return field(default=default, metadata={"help": help})


@dataclass
class Args:
    """Every setting of a run (``coinche-rl train play --help``)."""
    rules: str = _s("ffb", 'the preset the net is trained for')
    seed: int = _s(0, 'the one seed of the run (labels, sampling, initialisation)')
    minutes: float = _s(120.0, 'training time budget (cumulative over resumes)')
    out: str = _s("runs/play", 'the run folder')
    resume: bool = _s(False, 'continue the run in --out exactly')
    init: Optional[str] = _s(None, "start from the weights of this run's checkpoint")
    # network
    hidden: List[int] = field(default_factory=lambda: [256, 256],
                              metadata={"help": "hidden layer widths"})
    # labels
    chunk_deals: int = _s(64, 'deals per label chunk')
    frozen: float = _s(0.5, "share of deals with the arena's frozen contract")
    epsilon: float = _s(0.1, 'random card share in the labelled trajectories')
    solver_cards: int = _s(28, 'solver targets when this many cards are left')
    workers: int = _s(1, 'label worker processes (0: in this process)')
    backend: str = _s("pool", 'pool | ray (workers > 0)')
    address: Optional[str] = _s(None, 'ray cluster address')
    prefetch: int = _s(4, 'chunks in flight per worker')
    # optimisation
    batch_size: int = _s(512, 'decisions per update')
    updates_per_chunk: int = _s(16, 'updates after each chunk of labels')
    buffer_size: int = _s(500_000, 'replay buffer (labelled decisions, FIFO)')
    min_buffer: int = _s(20_000, 'decisions before the first update')
    lr: float = _s(1e-3, 'initial learning rate (AdamW)')
    lr_end: float = _s(5e-5, 'final learning rate')
    anneal_updates: int = _s(400_000, 'cosine decay from lr to lr_end over these updates')
    weight_decay: float = _s(1e-5, 'AdamW weight decay')
    huber_delta: float = _s(1.0, 'Huber threshold, in units of --target-scale points')
    mean_loss_weight: float = _s(0.1, 'weight of the decision-mean loss')
    target_scale: float = _s(100.0, 'points per network output unit')
    max_chunks: Optional[int] = _s(None, 'stop after this many chunks (tests)')
    # evaluation, logging, checkpoints
    eval_minutes: float = _s(10.0, 'evaluation interval (0: none)')
    eval_pairs: int = _s(2000, 'deal pairs of each evaluation')
    eval_seed: int = _s(20261201, 'the evaluation deal set')
    log_seconds: float = _s(10.0, 'metrics interval')
    checkpoint_minutes: float = _s(5.0, 'checkpoint interval')
    torch_threads: int = _s(1, 'torch threads of the trainer')
    progress: bool = _s(True, 'a progress bar (rich) or plain lines')


def parse_args(argv=None, settings=None, prog: str = "coinche-rl train play",
               description: str = "train the card-play network (see "
                                  "coinche_rl.agents.neural.train_play)"):
    """Parse ``coinche-rl train play`` arguments into :class:`Args` (``settings``:
    another settings dataclass of the same kind, e.g. the bidding trainer's)."""
    import argparse
    settings = settings or Args
    p = argparse.ArgumentParser(prog=prog, description=description)
    defaults = settings()
    for f in dataclasses.fields(settings):
        name = "--" + f.name.replace("_", "-")
        default = getattr(defaults, f.name)
        kw = dict(default=default, help=f"{f.metadata.get('help', '')} (default: %(default)s)")
        if f.type in ("bool", bool):
            p.add_argument(name, action=argparse.BooleanOptionalAction, **kw)
        elif f.name == "hidden":
            p.add_argument(name, type=int, nargs="+", **kw)
        elif f.type in ("Optional[int]",):
            p.add_argument(name, type=int, **kw)
        elif f.type in ("Optional[str]", "str"):
            p.add_argument(name, type=str, **kw)
        elif f.type in ("float",):
            p.add_argument(name, type=float, **kw)
        else:
            p.add_argument(name, type=int, **kw)
    ns = p.parse_args(argv)
    return settings(**vars(ns))


def _bad(args, name, why):
    raise ValueError(f"--{name.replace('_', '-')}={getattr(args, name)!r}: {why}")


def check_common(args, unit=()) -> None:
    """The checks every trainer's settings share (the preset, the label workers, the
    network, the optimisation, the schedule of logs and checkpoints), plus the shares
    ``unit`` that must be in [0, 1]; a bad one raises ValueError naming it."""
    from ...rules import get_rules
    get_rules(args.rules)                        # UnknownPresetError names the presets
    if args.backend not in ("pool", "ray"):
        _bad(args, "backend", "expected 'pool' or 'ray'")
    if args.address and (args.backend != "ray" or args.workers < 1):
        _bad(args, "address", "an address is for --backend ray with --workers 1 or more")
    if not args.hidden or any(int(h) < 1 for h in args.hidden):
        _bad(args, "hidden", "expected one or more positive layer widths")
    for name in ("chunk_deals", "batch_size", "updates_per_chunk", "buffer_size", "prefetch",
                 "torch_threads", "eval_pairs"):
        if getattr(args, name) < 1:
            _bad(args, name, "must be at least 1")
    for name in ("workers", "min_buffer", "anneal_updates", "seed", "eval_seed"):
        if getattr(args, name) < 0:
            _bad(args, name, "must be at least 0")
    for name in unit:
        if not 0.0 <= getattr(args, name) <= 1.0:
            _bad(args, name, "must be in [0, 1]")
    for name in ("minutes", "lr", "target_scale", "huber_delta"):
        if not getattr(args, name) > 0:
            _bad(args, name, "must be positive")
    for name in ("lr_end", "weight_decay", "mean_loss_weight", "eval_minutes",
                 "checkpoint_minutes", "log_seconds"):
        if getattr(args, name) < 0:
            _bad(args, name, "must be at least 0")
    if args.max_chunks is not None and args.max_chunks < 0:
        _bad(args, "max_chunks", "must be at least 0")


def check_args(args: Args) -> None:
    """Refuse bad settings before anything is written, naming the setting."""
    check_common(args, unit=("frozen", "epsilon"))
    if not 0 <= args.solver_cards <= 32:
        _bad(args, "solver_cards", "must be in 0..32 (cards left in the hands)")


# ------------------------------------------------------------------ label source
def _ignore_sigint():
    """Label workers ignore Ctrl-C (the terminal sends it to the whole process group):
    the trainer alone handles it, saving a checkpoint."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _chunk_job(rules_name, seed, c, chunk_deals, frozen, epsilon, solver_cards):
    from ...rules import get_rules
    from .labels import label_chunk
    ch = label_chunk(get_rules(rules_name), seed, c * chunk_deals, chunk_deals, 1, frozen,
                     epsilon, solver_cards)
    return (ch.feats, ch.cards, ch.targets, ch.kinds, ch.tricks, ch.deals, ch.seconds)


def _warm_labels():
    from .labels import warmup
    warmup()


class LabelSource:
    """Chunks ``c = start, start + 1, ...`` in order, generated here or by workers
    (``job(*self._job(c))``: a module-level function, so that workers can import it)."""

    job = staticmethod(_chunk_job)
    warm = staticmethod(_warm_labels)

    def __init__(self, args, start: int):
        self.args = args
        self.next = start
        self.pending = {}
        self.pool = None
        self.ray = None
        if args.workers > 0 and args.backend == "pool":
            import multiprocessing as mp
            from concurrent.futures import ProcessPoolExecutor
            self.warm()                    # fill the numba cache before workers load it
            self.pool = ProcessPoolExecutor(args.workers, mp_context=mp.get_context("spawn"),
                                            initializer=_ignore_sigint)
        elif args.workers > 0 and args.backend == "ray":
            try:
                import ray
            except ModuleNotFoundError:
                raise ValueError("backend 'ray' needs Ray: pip install 'coinche-rl[ray]'") from None
            if not ray.is_initialized():
                import logging
                kw = dict(include_dashboard=False, logging_level=logging.WARNING,
                          log_to_driver=False)
                if args.address:
                    ray.init(address=args.address, **kw)   # every node needs coinche-rl
                else:
                    self.warm()            # fill the numba cache before the workers load it
                    ray.init(num_cpus=args.workers, **kw)
            self.ray = ray
            self.remote = ray.remote(self.job)
        elif args.workers > 0:
            raise ValueError(f"backend must be 'pool' or 'ray', not {args.backend!r}")

    def _job(self, c):
        a = self.args
        return (a.rules, a.seed, c, a.chunk_deals, a.frozen, a.epsilon, a.solver_cards)

    def _fill(self):
        depth = max(1, self.args.prefetch * max(1, self.args.workers))
        c = self.next
        while len(self.pending) < depth:
            if c not in self.pending:
                if self.pool is not None:
                    self.pending[c] = self.pool.submit(self.job, *self._job(c))
                else:
                    self.pending[c] = self.remote.remote(*self._job(c))
            c += 1

    def get(self):
        """The next chunk (blocking)."""
        c = self.next
        if self.pool is None and self.ray is None:
            out = self.job(*self._job(c))
        else:
            self._fill()
            fut = self.pending.pop(c)
            out = fut.result() if self.pool is not None else self.ray.get(fut)
        self.next = c + 1
        if self.pool is not None or self.ray is not None:
            self._fill()
        return out

    def close(self):
        if self.pool is not None:
            for f in self.pending.values():
                f.cancel()
            self.pool.shutdown(wait=False, cancel_futures=True)
            self.pool = None


# ------------------------------------------------------------------ replay buffer
class Replay:
    """A FIFO ring of labelled decisions."""

    def __init__(self, capacity: int, n_features: int):
        self.capacity = capacity
        self.feats = np.zeros((capacity, n_features), dtype=np.float16)
        self.cards = np.zeros((capacity, 32), dtype=bool)
        self.targets = np.zeros((capacity, 32), dtype=np.float32)
        self.size = 0
        self.pos = 0

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
               "batch_size", "updates_per_chunk", "buffer_size", "lr", "lr_end",
               "anneal_updates", "target_scale", "huber_delta", "mean_loss_weight")


@dataclass
class RunProgress:
    """Where a run stands (what a checkpoint holds besides the tensors)."""
    chunk: int = 0
    updates: int = 0
    labelled: int = 0
    elapsed: float = 0.0
    deals: int = 0
    history: list = field(default_factory=list)
    init: Optional[dict] = None


def start_run(args, model, optim, rng, replay, resume_keys, init_check=None) -> RunProgress:
    """Resume the run in ``args.out`` exactly (``--resume``: weights, optimiser, both
    random streams, replay; the settings ``resume_keys`` must be the same), warm-start
    ``model`` from ``args.init``'s checkpoint (its minutes and evaluations carry over; a
    new optimiser and schedule; ``init_check(init_settings)`` may refuse it), or start a
    new run; refuses to overwrite a run."""
    import torch
    ckpt_path = os.path.join(args.out, "checkpoint.pt")
    if args.resume and os.path.exists(ckpt_path):
        ck = torch.load(ckpt_path, weights_only=True)
        saved = json.loads(ck["args"])
        for k in resume_keys:
            if saved[k] != getattr(args, k):
                raise ValueError(f"--resume: {args.out} was trained with {k}={saved[k]!r}, "
                                 f"not {getattr(args, k)!r}; resume with the same settings "
                                 f"or use another --out")
        model.load_state_dict(ck["model"])
        optim.load_state_dict(ck["optim"])
        torch.set_rng_state(ck["torch_rng"])
        rng.bit_generator.state = json.loads(ck["np_rng"])
        with np.load(os.path.join(args.out, "replay.npz")) as z:
            replay.load(z)
        return RunProgress(int(ck["chunk"]), int(ck["updates"]), int(ck["labelled"]),
                           float(ck["elapsed"]), int(ck["deals"]), json.loads(ck["history"]),
                           json.loads(ck.get("init", "null")))
    if args.resume:
        raise FileNotFoundError(f"--resume: no checkpoint at {ckpt_path}")
    if os.path.exists(ckpt_path):
        raise FileExistsError(f"{args.out} already holds a run (checkpoint.pt); pass --resume "
                              f"to continue it or choose another --out")
    if not args.init:
        return RunProgress()
    # warm start: another run's weights; its training time counts in --minutes and its
    # evaluations start the learning curve (the optimiser and schedule are new)
    init_path = os.path.join(args.init, "checkpoint.pt")
    if not os.path.isfile(init_path):
        raise FileNotFoundError(f"--init: no checkpoint at {init_path}")
    ick = torch.load(init_path, weights_only=True)
    iargs = json.loads(ick["args"])
    for k in ("rules", "hidden"):
        if iargs[k] != getattr(args, k):
            raise ValueError(f"--init: {args.init} was trained with {k}={iargs[k]!r}, not "
                             f"{getattr(args, k)!r}")
    if init_check is not None:
        init_check(iargs)
    model.load_state_dict(ick["model"])
    elapsed = float(ick["elapsed"])
    info = {"run": os.path.basename(os.path.abspath(args.init)),
            "minutes": round(elapsed / 60.0, 2), "updates": int(ick["updates"]),
            "labelled_decisions": int(ick["labelled"]), "deals": int(ick["deals"]),
            "args": iargs, "init": json.loads(ick.get("init", "null"))}
    return RunProgress(elapsed=elapsed, history=json.loads(ick["history"]), init=info)


def save_run(args, model, optim, rng, replay, run: RunProgress) -> None:
    """Write the checkpoint and the replay of a run atomically (``run.elapsed``: the
    training seconds so far, over every resume)."""
    import torch
    ck = {"model": model.state_dict(), "optim": optim.state_dict(),
          "torch_rng": torch.get_rng_state(), "np_rng": json.dumps(rng.bit_generator.state),
          "chunk": run.chunk, "updates": run.updates, "labelled": run.labelled,
          "elapsed": run.elapsed, "deals": run.deals, "history": json.dumps(run.history),
          "args": json.dumps(dataclasses.asdict(args)), "init": json.dumps(run.init)}

    def write_replay(p):
        with open(p, "wb") as f:
            np.savez(f, **replay.state())
    _atomic_write(os.path.join(args.out, "replay.npz"), write_replay)
    _atomic_write(os.path.join(args.out, "checkpoint.pt"), lambda p: torch.save(ck, p))


# ------------------------------------------------------------------ helpers
def _lr_at(args: Args, update: int) -> float:
    t = min(1.0, update / max(1, args.anneal_updates))
    return args.lr_end + 0.5 * (args.lr - args.lr_end) * (1.0 + math.cos(math.pi * t))


def play_loss(q, legal, t, args: Args):
    """``(loss, relative loss)`` of outputs ``q`` against targets ``t`` (both
    ``[n, 32]``, in units of ``target_scale`` points) on the ``legal`` cards: a Huber
    loss on the values centred per decision (their differences), plus
    ``mean_loss_weight`` times a Huber loss on the decision's mean value."""
    import torch
    mf = legal.float()
    n_legal = mf.sum(1, keepdim=True)
    q_mean = (q * mf).sum(1, keepdim=True) / n_legal
    t_mean = (t * mf).sum(1, keepdim=True) / n_legal
    diff = ((q - q_mean) - (t - t_mean))[legal]
    loss_rel = torch.nn.functional.huber_loss(diff, torch.zeros_like(diff),
                                              delta=args.huber_delta)
    loss_mean = torch.nn.functional.huber_loss(q_mean, t_mean, delta=args.huber_delta)
    return loss_rel + args.mean_loss_weight * loss_mean, loss_rel


def _training_facts(out: str, elapsed_s: float, updates: int, chunks: int, labelled: int,
                    deals: int, args: dict, init) -> dict:
    """The ``training`` entry of a weights manifest."""
    return {"run": os.path.basename(os.path.abspath(out)), "seed": args["seed"],
            "minutes": round(elapsed_s / 60.0, 2), "updates": updates, "chunks": chunks,
            "labelled_decisions": labelled, "deals": deals, "args": args, "init": init}


def _atomic_write(path: str, write) -> None:
    tmp = path + ".tmp"
    write(tmp)
    os.replace(tmp, path)


def export_weights(model, rules, path: str, training: dict, evaluation: Optional[dict] = None):
    """Write the torch-free weights file (float16) of ``model`` with its manifest."""
    from .net import make_manifest, save_weights
    from .torch_net import to_numpy
    mlp = to_numpy(model)
    save_weights(path, mlp, make_manifest(mlp, rules, training, evaluation))
    return mlp


def evaluate_weights(path: str, rules_name: str, pairs: int, seed: int, opponent: str = "heuristic",
                     frozen: bool = True) -> dict:
    """Frozen-auction duplicate of ``nn:weights=path`` against ``opponent`` on a fixed
    deal set: margin per deal and its 95% interval."""
    from ...arena import run_duplicate
    r = run_duplicate(f"nn:weights={path}", opponent, pairs, preset=rules_name, seed=seed,
                      frozen_contract=frozen)
    return {"margin": float(r.mean), "ci95": float(r.ci95), "pairs": int(r.n),
            "win_rate": float(r.win_rate), "opponent": opponent, "seed": seed,
            "frozen": bool(frozen)}


class _Logger:
    def __init__(self, out: str, use_tb: bool = True):
        self.f = open(os.path.join(out, "metrics.jsonl"), "a", encoding="utf-8")
        self.tb = None
        if use_tb:
            try:
                from torch.utils.tensorboard import SummaryWriter
                self.tb = SummaryWriter(out)
            except Exception:          # tensorboard is optional
                self.tb = None

    def log(self, step: int, values: dict) -> None:
        row = {"update": step, **values}
        self.f.write(json.dumps(row) + "\n")
        self.f.flush()
        if self.tb is not None:
            for k, v in values.items():
                if isinstance(v, (int, float)) and "/" in k:
                    self.tb.add_scalar(k, v, step)

    def close(self):
        self.f.close()
        if self.tb is not None:
            self.tb.close()


class _Progress(Progress):
    """The training bar on stdout: the seconds of the time budget spent, and the latest
    figures; plain lines instead when disabled (or without rich)."""

    def __init__(self, enabled: bool, total_s: float, name: str = "train play"):
        super().__init__(bool(enabled), total_s, 0, name, stderr=False, counts=False, info=True)

    def update(self, elapsed: float, info: str) -> None:
        if self.bar is not None:
            super().update(elapsed, info=info)
        else:
            print(f"[{elapsed / 60:6.1f} min] {info}", flush=True)


# ==================================================================== the loop
def train(args: Args) -> dict:
    """Run (or resume) a training run; returns the final figures."""
    import torch
    from ...rules import get_rules
    from . import canonical as C
    from .torch_net import PlayNet

    check_args(args)
    torch.set_num_threads(args.torch_threads)
    rules = get_rules(args.rules)
    os.makedirs(args.out, exist_ok=True)
    weights_path = os.path.join(args.out, "weights.npz")

    # ---- seeding: one seed for everything
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    model = PlayNet(args.hidden)
    optim = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    replay = Replay(args.buffer_size, C.FEATURE_SIZE)
    run = start_run(args, model, optim, rng, replay, RESUME_KEYS)
    chunk, updates, labelled, elapsed, deals = (run.chunk, run.updates, run.labelled,
                                                run.elapsed, run.deals)
    history, init_info = run.history, run.init

    def save_checkpoint():
        save_run(args, model, optim, rng, replay, RunProgress(
            chunk, updates, labelled, elapsed + time.perf_counter() - t_start, deals, history,
            init_info))

    def training_info():
        return _training_facts(args.out, elapsed + time.perf_counter() - t_start, updates,
                               chunk, labelled, deals, dataclasses.asdict(args), init_info)

    logger = _Logger(args.out)
    source = LabelSource(args, chunk)
    interrupted = []
    old_handler = signal.getsignal(signal.SIGINT)

    def on_sigint(signum, frame):
        interrupted.append(True)
    signal.signal(signal.SIGINT, on_sigint)
    t_start = time.perf_counter()
    last_log = last_ckpt = t_start
    last_eval = t_start if history else t_start - 1e9
    progress = _Progress(args.progress, args.minutes * 60.0)
    win_labels = win_updates = 0
    win_t = t_start
    loss_acc, loss_n = 0.0, 0
    scale = 1.0 / args.target_scale
    try:
        while True:
            now = time.perf_counter()
            total = elapsed + now - t_start
            if interrupted or total >= args.minutes * 60.0 or \
                    (args.max_chunks is not None and chunk >= args.max_chunks):
                break
            feats, cards, targets, kinds, tricks, n_deals, _sec = source.get()
            chunk += 1
            labelled += len(targets)
            deals += n_deals
            win_labels += len(targets)
            replay.add(feats, cards, targets)
            if replay.size >= min(args.min_buffer, args.buffer_size):
                for _ in range(args.updates_per_chunk):
                    # ---- one update: centred Huber regression on the legal cards
                    idx = rng.integers(0, replay.size, args.batch_size)
                    x = torch.from_numpy(replay.feats[idx].astype(np.float32))
                    m = torch.from_numpy(replay.cards[idx])
                    t = torch.from_numpy(replay.targets[idx]) * scale
                    lr = _lr_at(args, updates)
                    for g in optim.param_groups:
                        g["lr"] = lr
                    loss, loss_rel = play_loss(model(x), m, t, args)
                    optim.zero_grad(set_to_none=True)
                    loss.backward()
                    optim.step()
                    updates += 1
                    win_updates += 1
                    loss_acc += float(loss_rel.detach())
                    loss_n += 1
            now = time.perf_counter()
            if now - last_log >= args.log_seconds:
                dt = now - win_t
                row = {"charts/minutes": (elapsed + now - t_start) / 60.0,
                       "charts/labelled_decisions": labelled, "charts/deals": deals,
                       "charts/labels_per_s": win_labels / dt,
                       "charts/updates_per_s": win_updates / dt,
                       "charts/lr": _lr_at(args, updates), "charts/buffer": replay.size,
                       "charts/chunks": chunk}
                if loss_n:
                    row["losses/relative_huber"] = loss_acc / loss_n
                logger.log(updates, row)
                progress.update(elapsed + now - t_start,
                                f"upd {updates} lab {labelled / 1e6:.2f}M "
                                f"loss {loss_acc / max(1, loss_n):.4f} "
                                f"{win_labels / dt:.0f} lab/s {win_updates / dt:.0f} upd/s"
                                + (f" eval {history[-1]['margin']:+.1f}±{history[-1]['ci95']:.1f}"
                                   if history else ""))
                win_labels = win_updates = 0
                win_t = now
                loss_acc, loss_n = 0.0, 0
                last_log = now
            if args.eval_minutes > 0 and now - last_eval >= args.eval_minutes * 60.0 and updates:
                export_weights(model, rules, weights_path, training_info())
                ev = evaluate_weights(weights_path, args.rules, args.eval_pairs, args.eval_seed)
                ev.update(updates=updates, minutes=(elapsed + time.perf_counter() - t_start) / 60.0,
                          labelled=labelled)
                history.append(ev)
                logger.log(updates, {"eval/margin_vs_heuristic": ev["margin"],
                                     "eval/ci95": ev["ci95"], "eval/win_rate": ev["win_rate"],
                                     "eval/minutes": ev["minutes"]})
                last_eval = time.perf_counter()
            if now - last_ckpt >= args.checkpoint_minutes * 60.0:
                save_checkpoint()
                last_ckpt = time.perf_counter()
    finally:
        signal.signal(signal.SIGINT, old_handler)
        source.close()
        progress.close()
    save_checkpoint()
    info = training_info()
    final = {"charts/minutes": info["minutes"], "charts/labelled_decisions": labelled,
             "charts/deals": deals, "charts/chunks": chunk, "charts/buffer": replay.size}
    if loss_n:
        final["losses/relative_huber"] = loss_acc / loss_n
    logger.log(updates, final)
    export_weights(model, rules, weights_path, info,
                   {"history": history, "final": history[-1] if history else None})
    logger.close()
    return {"updates": updates, "chunks": chunk, "labelled": labelled, "deals": deals,
            "minutes": info["minutes"], "history": history, "interrupted": bool(interrupted),
            "weights": weights_path}


def export_run(run: str, path: str, float32: bool = False) -> str:
    """Write the torch-free weights of the checkpoint in the run folder ``run`` to
    ``path``, with the run's training facts and evaluation history in the manifest."""
    import torch
    from ...rules import get_rules
    from .net import make_manifest, save_weights
    from .torch_net import PlayNet, to_numpy
    ckpt = os.path.join(run, "checkpoint.pt")
    if not os.path.isfile(ckpt):
        raise FileNotFoundError(f"no checkpoint.pt in {run!r}: not a training run folder")
    ck = torch.load(ckpt, weights_only=True)
    args = json.loads(ck["args"])
    model = PlayNet(args["hidden"])
    model.load_state_dict(ck["model"])
    history = json.loads(ck["history"])
    training = _training_facts(run, float(ck["elapsed"]), int(ck["updates"]), int(ck["chunk"]),
                               int(ck["labelled"]), int(ck["deals"]), args,
                               json.loads(ck.get("init", "null")))
    mlp = to_numpy(model)
    save_weights(path, mlp, make_manifest(mlp, get_rules(args["rules"]), training,
                                          {"history": history,
                                           "final": history[-1] if history else None}),
                 dtype=np.float32 if float32 else np.float16)
    return path


def main(argv=None) -> int:
    args = parse_args(argv)
    res = train(args)
    print(json.dumps({k: v for k, v in res.items() if k != "history"}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
