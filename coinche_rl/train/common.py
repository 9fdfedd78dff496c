"""What the trainers share (``coinche_rl.train.common``): their settings on the command
line, the label source, the runs (checkpoint, ``--resume``, ``--init``, export), the
schedule and loss, the plumbing of the training loop (seeding, the optimiser step,
Ctrl-C, the clock of logs, evaluations and checkpoints), the progress display and the
messages."""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import math
import os
import signal
import sys
import time
import typing
from abc import ABC, abstractmethod
from dataclasses import dataclass, field
from typing import List, Optional

import numpy as np

from ..agents.neural.net import load_weights, make_manifest, save_weights
from ..files import atomic_write
from ..progress import Progress
from ..rules import get_rules

__all__ = ["setting", "shared", "RunSettings", "WorkerSettings", "SharedSettings", "parse_args",
           "bad_setting", "check_common", "ignore_sigint", "init_label_worker",
           "run_with_one_blas_thread", "LabelSource", "RunProgress",
           "start_run", "check_run_folder", "restore", "init_from_weights", "save_run",
           "training_state", "write_npz", "lr_at", "play_loss", "training_facts", "run_facts",
           "PATH_SETTINGS", "portable_path", "portable_args",
           "evaluation_entry", "atomic_write", "Logger", "TrainingProgress", "check_output_path",
           "budget_spent", "eval_text", "megabytes", "replay_text", "start_text",
           "record_evaluation", "final_evaluation_due", "end_text", "run_result",
           "new_training", "optimise", "interruptible", "RunClock", "train_on_labels",
           "export_weights",
           "export_checkpoint", "main_of", "run_kind", "RUN_KINDS"]


def setting(default, help: str):
    """A setting: its default and its ``--help`` text (a list default is copied for each
    instance)."""
    if isinstance(default, list):
        return field(default_factory=lambda: list(default), metadata={"help": help})
    return field(default=default, metadata={"help": help})


@dataclass
class RunSettings:
    """The settings every trainer has: the run (preset, seed, budget, folder, resume)
    and how it runs (label workers, logging, checkpoints, torch threads, progress). A
    trainer's settings extend it, overriding ``minutes`` and ``out``."""
    rules: str = setting("ffb", 'the preset the net is trained for')
    seed: int = setting(0, 'the one seed of the run (its data, sampling, initialisation)')
    minutes: float = setting(60.0, 'training time budget (cumulative over resumes)')
    out: str = setting("runs/train", 'the run folder')
    resume: bool = setting(False, 'continue the run in --out exactly')
    log_seconds: float = setting(10.0, 'metrics interval')
    checkpoint_minutes: float = setting(5.0, 'checkpoint interval')
    torch_threads: int = setting(1, 'torch threads of the trainer')
    progress: bool = setting(True, 'a progress bar on a terminal (rich); plain lines to a file '
                             'or a pipe, or with --no-progress')
    max_chunks: Optional[int] = setting(None, 'stop after this many chunks (tests)')


@dataclass
class WorkerSettings(RunSettings):
    """:class:`RunSettings` with label worker processes (the card-play and bidding
    trainers)."""
    workers: int = setting(1, 'label worker processes (0: in this process)')
    backend: str = setting("pool", 'pool | ray (workers > 0)')
    address: Optional[str] = setting(None, 'ray cluster address')
    prefetch: int = setting(4, 'chunks in flight per worker')


@dataclass
class SharedSettings:
    """The network, optimisation and evaluation settings that several trainers have,
    each declared here once: its default and its ``--help`` text. A trainer's settings
    take the ones they have with :func:`shared`, each where the trainer's ``--help``
    lists it, with the trainer's own default (or text) where it differs."""
    hidden: List[int] = field(default_factory=lambda: [256, 256],
                              metadata={"help": "hidden layer widths"})
    chunk_deals: int = setting(64, 'deals per label chunk')
    updates_per_chunk: int = setting(16, 'updates after each chunk of labels')
    lr: float = setting(1e-3, 'initial learning rate (AdamW)')
    lr_end: float = setting(5e-5, 'final learning rate')
    anneal_updates: int = setting(400_000, 'cosine decay from lr to lr_end over these updates')
    weight_decay: float = setting(1e-5, 'AdamW weight decay')
    huber_delta: float = setting(1.0, 'Huber threshold, in units of --target-scale points')
    mean_loss_weight: float = setting(0.1, 'weight of the decision-mean loss')
    target_scale: float = setting(100.0, 'points per network output unit')
    eval_minutes: float = setting(10.0, 'evaluation interval (0: none)')
    eval_seed: int = setting(20261201, 'the evaluation deal set')


_SHARED = {f.name: f for cls in (RunSettings, WorkerSettings, SharedSettings)
           for f in dataclasses.fields(cls)}


def shared(name: str, default=dataclasses.MISSING, help: Optional[str] = None):
    """The setting ``name`` of :class:`SharedSettings` (or of :class:`RunSettings`, such
    as ``minutes``, to give it the trainer's default) for a trainer's settings: its
    default and help there, unless ``default`` or ``help`` is given."""
    f = _SHARED[name]
    help = f.metadata["help"] if help is None else help
    if default is dataclasses.MISSING:
        default = f.default if f.default_factory is dataclasses.MISSING else f.default_factory()
    if isinstance(default, list):
        return field(default_factory=lambda: list(default), metadata={"help": help})
    return setting(default, help)


#: the types a setting may have: each has one plain command-line form
_SETTING_TYPES = (int, float, str, bool, List[int])


def parse_args(argv, settings, prog: str, description: str):
    """Parse a trainer's command line into its settings dataclass ``settings``, with tyro:
    one option per field (``--chunk-deals`` for ``chunk_deals``), typed by the field's
    annotation (``int``, ``float``, ``str``, ``Optional`` of those, ``bool`` as
    ``--x`` / ``--no-x``, ``List[int]`` as values after the option), defaulting to the
    field's default, with the field's ``help`` (its ``metadata``, which tyro reads). A
    field of another type is refused (TypeError): it would have no plain form."""
    hints = typing.get_type_hints(settings)
    for f in dataclasses.fields(settings):
        kind = hints[f.name]
        args = typing.get_args(kind)
        if typing.get_origin(kind) is typing.Union and type(None) in args:   # Optional[X]
            (kind,) = [a for a in args if a is not type(None)]
        if kind not in _SETTING_TYPES:
            raise TypeError(f"{settings.__name__}.{f.name}: no command-line form for {kind!r}")
    import tyro                        # the nn extra, as torch: here, where it is used
    return tyro.cli(settings, args=argv, prog=prog, description=description)


def bad_setting(args, name, why):
    """Refuse setting ``name`` of ``args``: ValueError naming the option and its value."""
    raise ValueError(f"--{name.replace('_', '-')}={getattr(args, name)!r}: {why}")


def check_common(args, unit=()) -> None:
    """The checks of the settings ``args`` has among those several trainers share (the
    label workers, the network, the optimisation, the evaluation, the schedule of logs
    and checkpoints), plus the shares ``unit`` that must be in [0, 1]; a bad one raises
    ValueError naming it. The preset is the trainer's to check."""
    has = {f.name for f in dataclasses.fields(args)}
    if "backend" in has:
        if args.backend not in ("pool", "ray"):
            bad_setting(args, "backend", "expected 'pool' or 'ray'")
        if args.address and (args.backend != "ray" or args.workers < 1):
            bad_setting(args, "address", "an address is for --backend ray with --workers 1 or more")
    if not args.hidden or any(int(h) < 1 for h in args.hidden):
        bad_setting(args, "hidden", "expected one or more positive layer widths")

    def check(names, ok, why):
        for name in names:
            if name in has and not ok(getattr(args, name)):
                bad_setting(args, name, why)
    check(("chunk_deals", "chunk_games", "batch_size", "updates_per_chunk", "buffer_size",
           "prefetch", "torch_threads", "eval_pairs", "eval_games"),
          lambda v: v >= 1, "must be at least 1")
    check(("workers", "min_buffer", "anneal_updates", "seed", "eval_seed"),
          lambda v: v >= 0, "must be at least 0")
    check(unit, lambda v: 0.0 <= v <= 1.0, "must be in [0, 1]")
    check(("minutes", "lr", "target_scale", "huber_delta"), lambda v: v > 0, "must be positive")
    check(("lr_end", "weight_decay", "mean_loss_weight", "eval_minutes", "checkpoint_minutes",
           "log_seconds"), lambda v: v >= 0, "must be at least 0")
    if args.max_chunks is not None and args.max_chunks < 0:
        bad_setting(args, "max_chunks", "must be at least 0")


def ignore_sigint():
    """Label workers ignore Ctrl-C (the terminal sends it to the whole process group):
    the trainer alone handles it, saving a checkpoint."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)


#: the BLAS thread limit of this label worker (kept so that it lasts the worker's life)
_WORKER_BLAS_LIMIT = None


def init_label_worker():
    """A pool's label worker: it ignores Ctrl-C (:func:`ignore_sigint`) and runs numpy's
    BLAS (the networks that label and play the self-play deals) on one thread for its
    whole life, as the tournament's workers do
    (:func:`coinche_rl.arena.executors.one_blas_thread`): one worker per core, each with
    a BLAS thread per core, oversubscribes the cores."""
    global _WORKER_BLAS_LIMIT
    from ..arena.executors import one_blas_thread
    ignore_sigint()
    _WORKER_BLAS_LIMIT = one_blas_thread()


def run_with_one_blas_thread(job, *args):
    """``job(*args)`` with one BLAS thread: a label chunk in a Ray task, whose worker
    process may serve other tasks (the limit is restored on return)."""
    from ..arena.executors import one_blas_thread
    with one_blas_thread():
        return job(*args)


class LabelSource(ABC):
    """Chunks ``c = start, start + 1, ...`` in order, generated here or by workers: chunk
    ``c`` is ``job(*self.job_args(c))``. A trainer's subclass gives ``job`` (a
    module-level function, so that workers can import it), ``warm`` (compiles the job's
    kernels, run before workers start so that they load them from the numba cache) and
    :meth:`job_args`."""

    job = None
    warm = None

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
                                            initializer=init_label_worker)
        elif args.workers > 0 and args.backend == "ray":
            try:
                import ray
            except ModuleNotFoundError:
                raise ValueError("backend 'ray' needs Ray: pip install -e '.[ray]' in the clone (or make venv)") from None
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
            self.remote = ray.remote(run_with_one_blas_thread)
        elif args.workers > 0:
            raise ValueError(f"backend must be 'pool' or 'ray', not {args.backend!r}")

    @abstractmethod
    def job_args(self, c) -> tuple:
        """The arguments of :attr:`job` for chunk ``c``."""

    def ready(self, c) -> bool:
        """Whether chunk ``c`` can be made now."""
        return True

    def _fill(self):
        depth = max(1, self.args.prefetch * max(1, self.args.workers))
        c = self.next
        while len(self.pending) < depth and self.ready(c):
            if c not in self.pending:
                if self.pool is not None:
                    self.pending[c] = self.pool.submit(self.job, *self.job_args(c))
                else:
                    self.pending[c] = self.remote.remote(self.job, *self.job_args(c))
            c += 1

    def get(self):
        """The next chunk (blocking)."""
        c = self.next
        if self.pool is None and self.ray is None:
            out = self.job(*self.job_args(c))
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


# ------------------------------------------------------------------ runs
#: what a run trains: the card-play, the bidding or the belief network (the ``kind`` of
#: its checkpoint and of its weights file)
RUN_KINDS = ("play", "bid", "belief")


def run_kind(checkpoint: dict) -> str:
    """The kind of the run whose ``checkpoint.pt`` holds ``checkpoint`` (loaded): its
    ``kind``. A checkpoint written before runs stored their kind has none; its run is
    told by what it holds: a belief run's population, a bidding run's ``players``
    setting, else card play."""
    kind = checkpoint.get("kind")
    if kind is not None:
        return str(kind)
    if "population" in checkpoint:
        return "belief"
    return "bid" if "players" in json.loads(checkpoint["args"]) else "play"


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


def start_run(args, model, optim, rng, replay, resume_keys, init_check=None,
              init_weights=None) -> RunProgress:
    """Resume the run in ``args.out`` exactly (``--resume``: weights, optimiser, both
    random streams, replay; the settings ``resume_keys`` must be the same), warm-start
    ``model`` from ``args.init``'s checkpoint (its minutes and evaluations carry over,
    each evaluation marked with ``run``: that run's name; a new optimiser and schedule;
    ``init_check(init_settings)`` may refuse it), or start a new run; refuses to
    overwrite a run. It only reads: a trainer calls it before it writes anything, so that
    a refused start leaves no folder behind."""
    import torch
    ckpt_path = os.path.join(args.out, "checkpoint.pt")
    if args.resume and os.path.exists(ckpt_path):
        ck = torch.load(ckpt_path, weights_only=True)
        restore(ck, args, model, optim, rng, resume_keys)
        with np.load(os.path.join(args.out, "replay.npz")) as z:
            replay.load(z)
        return RunProgress(int(ck["chunk"]), int(ck["updates"]), int(ck["labelled"]),
                           float(ck["elapsed"]), int(ck["deals"]), json.loads(ck["history"]),
                           json.loads(ck.get("init", "null")))
    check_run_folder(args)
    if not args.init:
        return RunProgress()
    if init_weights is not None and str(args.init).endswith(".npz"):
        return init_weights(args, model)
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
            "args": portable_args(iargs, args.init), "init": json.loads(ick.get("init", "null"))}
    history = [{"run": info["run"], **ev} for ev in json.loads(ick["history"])]
    return RunProgress(elapsed=elapsed, history=history, init=info)


def check_run_folder(args) -> str:
    """Refuse a ``--resume`` without a checkpoint in ``args.out`` (FileNotFoundError), or a
    new run where one is (FileExistsError); returns the checkpoint's path."""
    ckpt_path = os.path.join(args.out, "checkpoint.pt")
    if args.resume and not os.path.exists(ckpt_path):
        raise FileNotFoundError(f"--resume: no checkpoint at {ckpt_path}")
    if not args.resume and os.path.exists(ckpt_path):
        raise FileExistsError(f"{args.out} already holds a run (checkpoint.pt); pass --resume "
                              f"to continue it or choose another --out")
    return ckpt_path


def restore(ck: dict, args, model, optim, rng, resume_keys) -> None:
    """Restore the checkpoint ``ck`` (loaded): the weights, the optimiser and both random
    streams, once ``args`` repeats its settings ``resume_keys`` (else ValueError)."""
    import torch
    saved = json.loads(ck["args"])
    # a setting added after the checkpoint was written had its default then
    defaults = {f.name: f.default for f in dataclasses.fields(args)}
    for k in resume_keys:
        was = saved.get(k, defaults[k])
        if was != getattr(args, k):
            raise ValueError(f"--resume: {args.out} was trained with {k}={was!r}, "
                             f"not {getattr(args, k)!r}; resume with the same settings "
                             f"or use another --out")
    model.load_state_dict(ck["model"])
    optim.load_state_dict(ck["optim"])
    torch.set_rng_state(ck["torch_rng"])
    rng.bit_generator.state = json.loads(ck["np_rng"])


def init_from_weights(args, model, kind: str = "play", players=None) -> RunProgress:
    """Warm-start ``model`` from the weights file ``args.init`` (checked as on load:
    ``kind``, outputs, rules; the hidden widths must be ``args.hidden``, a bidding net's
    card players ``players``): its training minutes and evaluations carry over as from a
    run's checkpoint."""
    from ..agents.neural.torch_net import from_numpy    # torch: the nn extra
    if not os.path.isfile(args.init):
        raise FileNotFoundError(f"--init: no weights file {args.init}")
    mlp = load_weights(args.init, get_rules(args.rules), kind=kind)
    if list(mlp.hidden) != list(args.hidden):
        raise ValueError(f"--init: {args.init} has hidden layers {list(mlp.hidden)}, not "
                         f"{list(args.hidden)} (--hidden)")
    if players is not None:
        theirs = list((mlp.manifest.get("bid") or {}).get("players") or [])
        if theirs != list(players):
            raise ValueError(f"--init: {args.init} was trained for card players {theirs}, "
                             f"not {list(players)}")
    model.load_state_dict(from_numpy(mlp).state_dict())
    tr = mlp.manifest.get("training") or {}
    name = os.path.basename(args.init)
    info = {"run": name, "weights": portable_path(args.init, args.out),
            "minutes": float(tr.get("minutes", 0.0)), "updates": int(tr.get("updates", 0)),
            "labelled_decisions": int(tr.get("labelled_decisions", 0)),
            "deals": int(tr.get("deals", 0)), "args": tr.get("args"), "init": tr.get("init")}
    evals = (mlp.manifest.get("evaluation") or {}).get("history") or []
    history = [{"run": name, **ev} for ev in evals]
    return RunProgress(elapsed=60.0 * info["minutes"], history=history, init=info)


def save_run(args, model, optim, rng, replay, run: RunProgress, kind: str) -> int:
    """Write the checkpoint and the replay of a run of ``kind`` (:data:`RUN_KINDS`)
    atomically (``run.elapsed``: the training seconds so far, over every resume); returns
    the size of ``replay.npz`` in bytes."""
    import torch
    ck = {**training_state(args, model, optim, rng, run, kind), "labelled": run.labelled,
          "init": json.dumps(run.init)}
    replay_path = os.path.join(args.out, "replay.npz")
    atomic_write(replay_path, lambda f: write_npz(f, replay.state()))
    atomic_write(os.path.join(args.out, "checkpoint.pt"), lambda f: torch.save(ck, f))
    return os.path.getsize(replay_path)


def training_state(args, model, optim, rng, run: RunProgress, kind: str) -> dict:
    """What the checkpoint of every run of ``kind`` holds: the weights, the optimiser,
    both random streams, the settings and where the run stands (``run``, less its count
    of examples and its warm start, which the trainers store their own way)."""
    import torch
    return {"kind": kind, "model": model.state_dict(), "optim": optim.state_dict(),
            "torch_rng": torch.get_rng_state(), "np_rng": json.dumps(rng.bit_generator.state),
            "chunk": run.chunk, "updates": run.updates, "elapsed": run.elapsed,
            "deals": run.deals, "history": json.dumps(run.history),
            "args": json.dumps(dataclasses.asdict(args))}


def write_npz(path, arrays: dict, level: int = 1) -> None:
    """Write ``arrays`` to ``path`` (or a binary file) as an ``.npz`` that ``np.load``
    reads, deflated at the fast ``level``: a replay (features mostly 0, integer targets)
    shrinks 12 times and more, in about a second per 100 MB."""
    import zipfile
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED,
                         compresslevel=level) as zf:
        for name, a in arrays.items():
            with zf.open(name + ".npy", "w", force_zip64=True) as f:
                np.lib.format.write_array(f, np.asanyarray(a), allow_pickle=False)


# ------------------------------------------------------------------ helpers
def lr_at(args, update: int) -> float:
    """The learning rate at ``update``: a cosine decay from ``args.lr`` to ``args.lr_end``
    over ``args.anneal_updates`` updates."""
    t = min(1.0, update / max(1, args.anneal_updates))
    return args.lr_end + 0.5 * (args.lr - args.lr_end) * (1.0 + math.cos(math.pi * t))


def play_loss(q, legal, t, args):
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


#: the settings of the trainers that name a file or a folder
PATH_SETTINGS = ("out", "init", "play_weights", "bid_weights")


def portable_path(value, run: str):
    """``value``, a file or folder named in the settings of the run in folder ``run``, as a
    weights manifest records it, saying nothing about the machine: a file by its name and
    content hash (``"ffb_bid.npz sha256:0123456789abcdef"``), a folder (another run) by its
    path relative to ``run`` (``"../bid_partner"``). Empty values stay as they are.

    >>> portable_path("", "runs/a"), portable_path("runs/b", "runs/a")
    ('', '../b')
    """
    if not value or not isinstance(value, str) or " sha256:" in value:
        return value
    path = os.path.abspath(value)
    if os.path.isfile(path):
        h = hashlib.sha256()
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
        return f"{os.path.basename(path)} sha256:{h.hexdigest()[:16]}"
    try:
        return os.path.relpath(path, os.path.abspath(run))
    except ValueError:                      # another drive (Windows): the name alone
        return os.path.basename(path)


def portable_args(args: dict, run: str) -> dict:
    """The settings ``args`` of the run in folder ``run`` as a manifest records them:
    ``out`` is the run's folder name, the other :data:`PATH_SETTINGS` go through
    :func:`portable_path` (no absolute path of the training machine)."""
    out = dict(args)
    for k in PATH_SETTINGS:
        if k == "out" and "out" in out:
            out[k] = os.path.basename(os.path.abspath(run))
        elif k in out:
            out[k] = portable_path(out[k], run)
    return out


def training_facts(out: str, elapsed_s: float, updates: int, chunks: int, labelled: int,
                    deals: int, args: dict, init) -> dict:
    """The ``training`` entry of a weights manifest (paths as :func:`portable_args`
    records them)."""
    return {"run": os.path.basename(os.path.abspath(out)), "seed": args["seed"],
            "minutes": round(elapsed_s / 60.0, 2), "updates": updates, "chunks": chunks,
            "labelled_decisions": labelled, "deals": deals, "args": portable_args(args, out),
            "init": init}


class Logger:
    """``metrics.jsonl`` in the run folder, and TensorBoard events when it is installed."""

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


class TrainingProgress(Progress):
    """The training display on stdout: a rich bar (the seconds of the time budget spent,
    and the latest figures) when ``enabled`` and stdout is a terminal (``terminal``:
    None to ask stdout), else a plain line at every :meth:`update` (the trainers call it
    every ``--log-seconds``), which a log file or a pipe (nohup, a job scheduler) shows as
    it comes; :meth:`line` prints a message above the bar or as a line."""

    def __init__(self, enabled: bool, total_s: float, name: str = "train play",
                 terminal: Optional[bool] = None):
        if terminal is None:
            terminal = _isatty(sys.stdout)
        super().__init__(bool(enabled) and terminal, total_s, 0, name, stderr=False,
                         counts=False, info=True)

    def update(self, elapsed: float, info: str) -> None:
        if self.bar is not None:
            super().update(elapsed, info=info)
        else:
            print(f"[{elapsed / 60:6.1f} min] {info}", flush=True)

    def line(self, text: str) -> None:
        if self.bar is not None:
            self.bar.console.print(text, markup=False, highlight=False)
        else:
            print(text, flush=True)


def _isatty(f) -> bool:
    try:
        return bool(f.isatty())
    except (AttributeError, ValueError):       # no such method, or a closed file
        return False


def check_output_path(path: str, option: str = "-o") -> str:
    """Refuse a weights file name that does not end in ``.npz`` or whose folder does not
    exist (ValueError / FileNotFoundError naming ``option``); returns ``path``."""
    path = os.fspath(path)
    if not path.endswith(".npz"):
        raise ValueError(f"{option} {path}: a weights file name ends in .npz")
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise FileNotFoundError(f"{option} {path}: no folder {folder} (create it first)")
    if os.path.isdir(path):
        raise ValueError(f"{option} {path}: a folder, not a file name")
    return path


def budget_spent(args, elapsed_s: float, chunks: int) -> Optional[str]:
    """Why a run that stands at ``elapsed_s`` training seconds and ``chunks`` chunks
    would not train on under ``args`` (its ``--max-chunks`` or ``--minutes`` used up,
    and which option to raise), or None."""
    if args.max_chunks is not None and chunks >= args.max_chunks:
        return (f"the run in {args.out} has done its {chunks} chunks (--max-chunks "
                f"{args.max_chunks}): nothing to train; to train on, resume with a larger "
                f"--max-chunks")
    if elapsed_s >= args.minutes * 60.0:
        return (f"the run in {args.out} has spent its time budget ({elapsed_s / 60.0:.1f} of "
                f"--minutes {args.minutes:g}, counted over every resume): nothing to train; to "
                f"train on, resume with a larger --minutes, e.g. --resume --minutes "
                f"{2 * args.minutes:g}")
    return None


def eval_text(ev: Optional[dict], updates: int, minutes: float, end: bool = False) -> str:
    """The latest evaluation ``ev`` (a history entry) and how old it is, for a run now
    at ``updates`` and ``minutes`` training minutes (``end``: the run is over):
    ``eval +7.5±2.1 (at update 1234, end of run)``, ``... (at update 16, 9.8 min ago)``,
    ``... (run a's, at its update 800)`` for an ``--init`` run's evaluation."""
    if not ev:
        return "eval: none yet"
    head = f"eval {ev['margin']:+.1f}±{ev['ci95']:.1f}"
    if ev.get("run"):
        return f"{head} (run {ev['run']}'s, at its update {ev['updates']})"
    if ev["updates"] == updates:
        return f"{head} (at update {updates}, {'end of run' if end else 'now'})"
    return f"{head} (at update {ev['updates']}, {max(0.0, minutes - ev['minutes']):.1f} min ago)"


def megabytes(n_bytes: int) -> str:
    return f"{n_bytes / 1e6:.1f} MB"


def replay_text(n_bytes: int, size: int, unit: str) -> str:
    """The line that reports a written replay."""
    return f"checkpoint written: replay.npz {megabytes(n_bytes)} ({size:,} {unit})"


def start_text(name: str, args, run: RunProgress, unit: str, memory_bytes: int = 0) -> str:
    """The first line of a run: where, what budget is left, what the replay will hold."""
    if args.resume:
        what = (f"resuming the run in {args.out} at update {run.updates} "
                f"({run.elapsed / 60.0:.1f} of {args.minutes:g} min spent)")
    elif run.init:
        what = (f"a new run in {args.out}, warm-started from {args.init} "
                f"({run.elapsed / 60.0:.1f} of {args.minutes:g} min spent there)")
    else:
        what = f"a new run in {args.out} ({args.minutes:g} min)"
    mem = f", {megabytes(memory_bytes)} in memory" if memory_bytes else ""
    return (f"{name}: {what}; replay of up to {args.buffer_size:,} {unit}{mem} (--buffer-size; "
            f"saved compressed with each checkpoint in replay.npz)")


def record_evaluation(history: list, logger, ev: dict) -> None:
    """Append evaluation ``ev`` (with ``updates`` and ``minutes``) to the learning curve
    and log it."""
    history.append(ev)
    logger.log(ev["updates"], {"eval/margin_vs_heuristic": ev["margin"], "eval/ci95": ev["ci95"],
                               "eval/win_rate": ev["win_rate"], "eval/minutes": ev["minutes"]})


def final_evaluation_due(args, history: list, updates: int, interrupted) -> bool:
    """Evaluate at the end of a run: unless it was interrupted, evaluations are off
    (``--eval-minutes 0``), it made no update, or the latest evaluation is of these very
    weights."""
    if interrupted or args.eval_minutes <= 0 or updates == 0:
        return False
    last = history[-1] if history else None
    return not (last and not last.get("run") and last["updates"] == updates)


def end_text(name: str, args, run: RunProgress, interrupted: bool) -> str:
    """The last line of a run: what it did, its latest evaluation and how old it is,
    where the weights are and how to go on."""
    ev = run.history[-1] if run.history else None
    if args.eval_minutes <= 0:
        evaluation = "not evaluated (--eval-minutes 0)"
    elif ev is None:
        evaluation = "not evaluated (no update yet)"
    else:
        evaluation = eval_text(ev, run.updates, run.elapsed / 60.0, end=True) + " vs heuristic"
    if interrupted:
        head, then = "interrupted", "the same command with --resume continues"
    elif args.max_chunks is not None and run.chunk >= args.max_chunks:
        head, then = "end of run", "to train on: --resume with a larger --max-chunks"
    else:
        head, then = "end of run", "to train on: --resume with a larger --minutes"
    return (f"{name}: {head}: {run.updates} updates, {run.chunk} chunks, "
            f"{run.elapsed / 60.0:.1f} training min; {evaluation}; weights in "
            f"{os.path.join(args.out, 'weights.npz')}; {then}")


def run_result(run: RunProgress, weights_path: str, interrupted: bool,
               budget: Optional[str] = None, **extra) -> dict:
    """What ``train`` returns (the command line prints it as JSON, less ``history``)."""
    return {"updates": run.updates, "chunks": run.chunk, "labelled": run.labelled,
            "deals": run.deals, "minutes": round(run.elapsed / 60.0, 2), "history": run.history,
            "evaluation": run.history[-1] if run.history else None,
            "interrupted": interrupted, "budget_spent": budget, "weights": weights_path, **extra}


# ==================================================================== the loop
def new_training(args, make_model):
    """The model ``make_model()`` (built once torch is seeded with ``args.seed``), its
    AdamW optimiser (``lr``, ``weight_decay``) and the run's numpy generator (seeded with
    ``args.seed``): what every run starts from."""
    import torch
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    model = make_model()
    optim = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    return model, optim, rng


def optimise(optim, loss, lr: float) -> None:
    """One optimiser step on ``loss`` at learning rate ``lr``."""
    for g in optim.param_groups:
        g["lr"] = lr
    optim.zero_grad(set_to_none=True)
    loss.backward()
    optim.step()


@contextlib.contextmanager
def interruptible():
    """While the block runs, Ctrl-C does not raise: it appends True to the list the
    block gets, and the loop stops at its next chunk."""
    interrupted = []
    old_handler = signal.getsignal(signal.SIGINT)
    signal.signal(signal.SIGINT, lambda signum, frame: interrupted.append(True))
    try:
        yield interrupted
    finally:
        signal.signal(signal.SIGINT, old_handler)


class RunClock:
    """The time of a run from this session on: its training seconds over every resume
    (``elapsed`` before the session, plus the session's), whether its budget is spent,
    and when to log (every ``--log-seconds``), evaluate (every ``--eval-minutes``, at
    once when the run has no evaluation yet and ``evaluate_now``) and checkpoint (every
    ``--checkpoint-minutes``)."""

    def __init__(self, args, elapsed: float, evaluate_now: bool = False):
        self.args = args
        self.elapsed = elapsed
        self.start = time.perf_counter()
        self.last_log = self.last_ckpt = self.start
        self.last_eval = self.start - 1e9 if evaluate_now else self.start

    def total(self, now: Optional[float] = None) -> float:
        """The run's training seconds at ``now`` (``time.perf_counter()``; None: now)."""
        return self.elapsed + (time.perf_counter() if now is None else now) - self.start

    def minutes(self) -> float:
        return self.total() / 60.0

    def over(self, now: float, chunk: int) -> bool:
        """Whether the run has spent its ``--minutes`` or done its ``--max-chunks``."""
        return self.total(now) >= self.args.minutes * 60.0 or \
            (self.args.max_chunks is not None and chunk >= self.args.max_chunks)

    def log_due(self, now: float) -> bool:
        return now - self.last_log >= self.args.log_seconds

    def eval_due(self, now: float, updates: int) -> bool:
        return self.args.eval_minutes > 0 and \
            now - self.last_eval >= self.args.eval_minutes * 60.0 and updates > 0

    def checkpoint_due(self, now: float) -> bool:
        return now - self.last_ckpt >= self.args.checkpoint_minutes * 60.0


def run_facts(args, run: RunProgress, total_s: float) -> dict:
    """The ``training`` entry of the weights manifest of ``run`` at ``total_s`` training
    seconds (:func:`training_facts`)."""
    return training_facts(args.out, total_s, run.updates, run.chunk, run.labelled, run.deals,
                          dataclasses.asdict(args), run.init)


def evaluation_entry(history: list) -> dict:
    """The ``evaluation`` entry of a weights manifest: the learning curve and its last
    point."""
    return {"history": history, "final": history[-1] if history else None}


def export_weights(model, rules, path: str, training: dict, evaluation: Optional[dict] = None,
                   kind: str = "play", players=None):
    """Write the torch-free weights file (float16) of ``model``, a network of ``kind``
    (:data:`RUN_KINDS`; a bidding net's card players ``players``), with its manifest."""
    from ..agents.neural.torch_net import to_numpy      # torch: the nn extra
    mlp = to_numpy(model)
    save_weights(path, mlp, make_manifest(mlp, rules, training, evaluation, kind=kind,
                                          players=players))
    return mlp


def train_on_labels(args, kind: str, unit: str, model, optim, rng, replay, resume_keys,
                    make_source, batch_loss, loss_names, evaluate_weights, *, players=None,
                    init_check=None, init_weights=None, before_chunk=None,
                    final_losses: bool = True) -> dict:
    """The loop of the trainers on labelled chunks (card play, bidding) for a run of
    ``kind``: start, resume (``resume_keys``) or warm-start the run (:func:`start_run`,
    with ``init_check`` and ``init_weights``), then take chunk
    after chunk from ``make_source(first chunk)`` (a :class:`LabelSource`) into
    ``replay`` (``replay.add_chunk(chunk)`` returns the ``unit`` s and the deals it
    added), with ``updates_per_chunk`` updates after each once the replay holds
    ``min_buffer``: ``batch_loss(idx)`` is the loss of the replay's rows ``idx`` and its
    parts, logged as ``loss_names`` (metric, short name); log, evaluate (the weights
    exported, then ``evaluate_weights(path)``) and checkpoint on schedule, until the
    budget, ``--max-chunks`` or Ctrl-C. ``before_chunk(run, export, evaluate)`` runs
    before each chunk. ``players``: a bidding net's card players (its manifest and result
    name them). ``final_losses``: the last metrics line has the losses since the one
    before. Returns :func:`run_result`."""
    name = f"train {kind}"
    rules = get_rules(args.rules)
    weights_path = os.path.join(args.out, "weights.npz")
    run = start_run(args, model, optim, rng, replay, resume_keys, init_check,
                    init_weights=init_weights)                      # reads only
    history = run.history
    extra = {} if players is None else {"players": players}
    progress = TrainingProgress(args.progress, args.minutes * 60.0, name)
    spent = budget_spent(args, run.elapsed, run.chunk) if args.resume else None
    if spent:
        progress.close()
        progress.line(spent)
        return run_result(run, weights_path, interrupted=False, budget=spent, **extra)
    os.makedirs(args.out, exist_ok=True)
    progress.line(start_text(name, args, run, unit, replay.nbytes))

    def save_checkpoint(total_s=None):
        return save_run(args, model, optim, rng, replay, dataclasses.replace(
            run, elapsed=clock.total() if total_s is None else total_s), kind=kind)

    def export(path, total_s=None, evaluation=None):
        """Write the weights as they are now to ``path``; returns their training facts."""
        info = {**run_facts(args, run, clock.total() if total_s is None else total_s), **extra}
        export_weights(model, rules, path, info, evaluation, kind=kind, players=players)
        return info

    def evaluate(**more):
        export(weights_path)
        ev = evaluate_weights(weights_path)
        ev.update(updates=run.updates, minutes=clock.minutes(), labelled=run.labelled, **more)
        record_evaluation(history, logger, ev)
        clock.last_eval = time.perf_counter()

    logger = Logger(args.out)
    source = make_source(run.chunk)
    with interruptible() as interrupted:
        clock = RunClock(args, run.elapsed, evaluate_now=not history)
        win_labels = win_updates = 0
        win_t = clock.start
        acc, loss_n = np.zeros(len(loss_names)), 0
        try:
            while not (interrupted or clock.over(time.perf_counter(), run.chunk)):
                if before_chunk is not None:
                    before_chunk(run, export, evaluate)
                n, n_deals = replay.add_chunk(source.get())
                run.chunk += 1
                run.labelled += n
                run.deals += n_deals
                win_labels += n
                if replay.size >= min(args.min_buffer, args.buffer_size):
                    for _ in range(args.updates_per_chunk):
                        loss, parts = batch_loss(rng.integers(0, replay.size, args.batch_size))
                        optimise(optim, loss, lr_at(args, run.updates))
                        run.updates += 1
                        win_updates += 1
                        acc += parts
                        loss_n += 1
                now = time.perf_counter()
                if clock.log_due(now):
                    dt = now - win_t
                    row = {"charts/minutes": clock.total(now) / 60.0,
                           f"charts/labelled_{unit}": run.labelled, "charts/deals": run.deals,
                           "charts/labels_per_s": win_labels / dt,
                           "charts/updates_per_s": win_updates / dt,
                           "charts/lr": lr_at(args, run.updates), "charts/buffer": replay.size,
                           "charts/chunks": run.chunk}
                    if loss_n:
                        row.update({k: v / loss_n for (k, _), v in zip(loss_names, acc)})
                    logger.log(run.updates, row)
                    losses = " ".join(f"{short} {v / max(1, loss_n):.4f}"
                                      for (_, short), v in zip(loss_names, acc))
                    progress.update(clock.total(now),
                                    f"upd {run.updates} lab {run.labelled / 1e6:.2f}M {losses} "
                                    f"{win_labels / dt:.0f} lab/s {win_updates / dt:.0f} upd/s"
                                    + (" " + eval_text(history[-1], run.updates, clock.minutes())
                                       if history else ""))
                    win_labels = win_updates = 0
                    win_t = now
                    acc, loss_n = np.zeros(len(loss_names)), 0
                    clock.last_log = now
                if clock.eval_due(now, run.updates):
                    evaluate()
                if clock.checkpoint_due(now):
                    progress.line(replay_text(save_checkpoint(), replay.size, unit))
                    clock.last_ckpt = time.perf_counter()
            source.close()
            # ---- the end: the weights as they are now are what the last evaluation measures
            if final_evaluation_due(args, history, run.updates, interrupted):
                evaluate()
        finally:
            source.close()
            progress.close()
    run.elapsed = clock.total()                     # the run's time, everywhere
    replay_bytes = save_checkpoint(run.elapsed)
    info = export(weights_path, run.elapsed, evaluation_entry(history))
    final = {"charts/minutes": info["minutes"], f"charts/labelled_{unit}": run.labelled,
             "charts/deals": run.deals, "charts/chunks": run.chunk, "charts/buffer": replay.size}
    if loss_n and final_losses:
        final.update({k: v / loss_n for (k, _), v in zip(loss_names, acc)})
    logger.log(run.updates, final)
    logger.close()
    progress.line(replay_text(replay_bytes, replay.size, unit))
    progress.line(end_text(name, args, run, bool(interrupted)))
    return run_result(run, weights_path, bool(interrupted), **extra)


def main_of(parse_args, train, argv=None) -> int:
    """A trainer's ``main``: parse ``argv``, train, print the result as JSON (less the
    learning curve)."""
    res = train(parse_args(argv))
    print(json.dumps({k: v for k, v in res.items() if k != "history"}))
    return 0


def export_checkpoint(run: str, path: str, make_model, float32: bool = False,
                      kind: str = "play", counted: str = "labelled", players=None,
                      extra=None) -> str:
    """Write the torch-free weights of the checkpoint in the run folder ``run`` to
    ``path``, with the run's training facts and evaluation history in the manifest: the
    one exporter of every trainer. ``make_model(settings)`` builds the torch net the
    checkpoint holds, ``counted`` names the checkpoint's count of training examples,
    ``players(settings)`` gives a bidding net's card players, ``extra(checkpoint)`` more
    entries of the manifest's ``training``."""
    import torch
    from ..agents.neural.torch_net import to_numpy      # torch: the nn extra
    check_output_path(path)
    ckpt = os.path.join(run, "checkpoint.pt")
    if not os.path.isfile(ckpt):
        raise FileNotFoundError(f"no checkpoint.pt in {run!r}: not a training run folder")
    ck = torch.load(ckpt, weights_only=True)
    args = json.loads(ck["args"])
    model = make_model(args)
    model.load_state_dict(ck["model"])
    history = json.loads(ck["history"])
    training = training_facts(run, float(ck["elapsed"]), int(ck["updates"]), int(ck["chunk"]),
                               int(ck[counted]), int(ck["deals"]), args,
                               json.loads(ck.get("init", "null")))
    if extra is not None:
        training.update(extra(ck))
    heads = None
    if players is not None:
        heads = training["players"] = players(args)
    mlp = to_numpy(model)
    save_weights(path, mlp, make_manifest(mlp, get_rules(args["rules"]), training,
                                          evaluation_entry(history), kind=kind, players=heads),
                 dtype=np.float32 if float32 else np.float16)
    return path


