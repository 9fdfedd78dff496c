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
installed, ``checkpoint.pt`` (+ ``replay.npz``, the replay buffer, compressed; its size
is printed) written atomically every ``checkpoint_minutes`` and on Ctrl-C, and
``weights.npz``: the exported torch-free weights with their manifest (refreshed at every
evaluation and at the end). A run is evaluated every ``eval_minutes`` and at its end
(unless interrupted), so that the evaluation it ends on is of the weights it writes;
every evaluation it shows says at which update it was made. On stdout: a progress bar on
a terminal, plain lines to a file or a pipe.

The helpers below the settings (the label source, the replay, the runs, the progress
display and the messages) are shared by the other trainers (:mod:`.train_bid`).
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

__all__ = ["Args", "train", "check_args", "play_loss", "export_weights", "export_run", "export_checkpoint",
           "evaluate_weights", "parse_args", "check_common", "LabelSource", "Replay",
           "RunProgress", "start_run", "save_run", "write_npz", "TrainingProgress",
           "check_output_path", "budget_spent", "eval_text", "record_evaluation",
           "final_evaluation_due", "start_text", "end_text", "replay_text", "run_result",
           "generation_path", "init_from_weights", "LABEL_SOURCES"]


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
    init: Optional[str] = _s(None, "start from the weights of this run's checkpoint, or of "
                                   "a card-play weights file (.npz, e.g. the shipped one)")
    # network
    hidden: List[int] = field(default_factory=lambda: [256, 256],
                              metadata={"help": "hidden layer widths"})
    # labels
    chunk_deals: int = _s(64, 'deals per label chunk')
    frozen: float = _s(0.5, "share of deals with the arena's frozen contract")
    epsilon: float = _s(0.1, 'random card share in the labelled trajectories')
    solver_cards: int = _s(28, 'solver targets when this many cards are left')
    labels: str = _s("heuristic", "the label source: 'heuristic' (heuristic play-outs, the "
                                   "solver from --solver-cards) or 'selfplay' (policy "
                                   "iteration: every legal card played out by the current "
                                   "generation's table, .selfplay)")
    generation_chunks: int = _s(500, "selfplay: chunks per generation (each generation's "
                                     "labels come from the weights it starts with)")
    opponents: str = _s("self=0.5,heuristic=0.3,past=0.15,random=0.05",
                        "selfplay: the opponent pool, KIND=SHARE for KIND in self, "
                        "heuristic, random, past (the earlier generations)")
    workers: int = _s(1, 'label worker processes (0: in this process)')
    backend: str = _s("pool", 'pool | ray (workers > 0)')
    address: Optional[str] = _s(None, 'ray cluster address')
    prefetch: int = _s(4, 'chunks in flight per worker')
    # optimisation
    batch_size: int = _s(512, 'decisions per update')
    updates_per_chunk: int = _s(16, 'updates after each chunk of labels')
    buffer_size: int = _s(200_000, 'replay buffer, labelled decisions (FIFO): 1.6 kB each in '
                                   'memory, saved with every checkpoint in replay.npz '
                                   '(compressed, about 0.13 kB each: 26 MB when full at the '
                                   'default; the shipped run used 500000)')
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
    progress: bool = _s(True, 'a progress bar on a terminal (rich); plain lines to a file or '
                              'a pipe, or with --no-progress')


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
    if args.labels not in LABEL_SOURCES:
        _bad(args, "labels", f"expected one of {', '.join(LABEL_SOURCES)}")
    if args.generation_chunks < 1:
        _bad(args, "generation_chunks", "must be at least 1")
    if args.labels == "selfplay":
        from .selfplay import parse_opponents
        try:
            parse_opponents(args.opponents)
        except ValueError as e:
            _bad(args, "opponents", str(e).partition(": ")[2])
        from ...rules import get_rules
        if get_rules(args.rules).family == "classic" and args.frozen > 0:
            _bad(args, "frozen", "the classic prise has no frozen contract in self-play "
                                 "labels: use --frozen 0")


#: the label sources of ``--labels``
LABEL_SOURCES = ("heuristic", "selfplay")


def generation_path(out: str, g: int) -> str:
    """The weights file of generation ``g`` of a self-play run in ``out``."""
    return os.path.join(out, "generations", f"gen_{g:03d}.npz")


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


_TABLES = {}


def _selfplay_job(rules_name, seed, c, chunk_deals, frozen, epsilon, opponents, generations):
    """Chunk ``c`` of self-play labels: the last of ``generations`` (weights files) is
    the learner, the others the past generations; the shipped bidding net bids for them
    (the heuristic where none ships)."""
    from ...rules import get_rules
    from .agent import load_bid_net
    from .net import load_weights
    from .selfplay import SelfPlayTable, parse_opponents, selfplay_chunk
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


def _warm_selfplay():
    from .labels import warmup as warm_labels
    from .selfplay import warmup
    warm_labels()
    warmup()


class LabelSource:
    """Chunks ``c = start, start + 1, ...`` in order, generated here or by workers
    (``job(*self._job(c))``: a module-level function, so that workers can import it)."""

    job = staticmethod(_chunk_job)
    warm = staticmethod(_warm_labels)

    def __init__(self, args, start: int):
        self.args = args
        self.next = start
        self.selfplay = getattr(args, "labels", "heuristic") == "selfplay"
        if self.selfplay:
            self.job, self.warm = _selfplay_job, _warm_selfplay
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
            self.remote = ray.remote(self.job)
        elif args.workers > 0:
            raise ValueError(f"backend must be 'pool' or 'ray', not {args.backend!r}")

    def _job(self, c):
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

    def _fill(self):
        depth = max(1, self.args.prefetch * max(1, self.args.workers))
        c = self.next
        while len(self.pending) < depth and self.ready(c):
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
            "args": iargs, "init": json.loads(ick.get("init", "null"))}
    history = [{"run": info["run"], **ev} for ev in json.loads(ick["history"])]
    return RunProgress(elapsed=elapsed, history=history, init=info)


def init_from_weights(args, model, kind: str = "play", players=None) -> RunProgress:
    """Warm-start ``model`` from the weights file ``args.init`` (checked as on load:
    ``kind``, outputs, rules; the hidden widths must be ``args.hidden``, a bidding net's
    card players ``players``): its training minutes and evaluations carry over as from a
    run's checkpoint."""
    from ...rules import get_rules
    from .net import load_weights
    from .torch_net import from_numpy
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
    info = {"run": name, "weights": os.path.abspath(args.init),
            "minutes": float(tr.get("minutes", 0.0)), "updates": int(tr.get("updates", 0)),
            "labelled_decisions": int(tr.get("labelled_decisions", 0)),
            "deals": int(tr.get("deals", 0)), "args": tr.get("args"), "init": tr.get("init")}
    evals = (mlp.manifest.get("evaluation") or {}).get("history") or []
    history = [{"run": name, **ev} for ev in evals]
    return RunProgress(elapsed=60.0 * info["minutes"], history=history, init=info)


def save_run(args, model, optim, rng, replay, run: RunProgress) -> int:
    """Write the checkpoint and the replay of a run atomically (``run.elapsed``: the
    training seconds so far, over every resume); returns the size of ``replay.npz`` in
    bytes."""
    import torch
    ck = {"model": model.state_dict(), "optim": optim.state_dict(),
          "torch_rng": torch.get_rng_state(), "np_rng": json.dumps(rng.bit_generator.state),
          "chunk": run.chunk, "updates": run.updates, "labelled": run.labelled,
          "elapsed": run.elapsed, "deals": run.deals, "history": json.dumps(run.history),
          "args": json.dumps(dataclasses.asdict(args)), "init": json.dumps(run.init)}

    replay_path = os.path.join(args.out, "replay.npz")
    _atomic_write(replay_path, lambda p: write_npz(p, replay.state()))
    _atomic_write(os.path.join(args.out, "checkpoint.pt"), lambda p: torch.save(ck, p))
    return os.path.getsize(replay_path)


def write_npz(path: str, arrays: dict, level: int = 1) -> None:
    """Write ``arrays`` to ``path`` as an ``.npz`` that ``np.load`` reads, deflated at the
    fast ``level``: a replay (features mostly 0, integer targets) shrinks 12 times and
    more, in about a second per 100 MB."""
    import zipfile
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED,
                         compresslevel=level) as zf:
        for name, a in arrays.items():
            with zf.open(name + ".npy", "w", force_zip64=True) as f:
                np.lib.format.write_array(f, np.asanyarray(a), allow_pickle=False)


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
def train(args: Args) -> dict:
    """Run (or resume) a training run; returns the final figures (``evaluation``: the
    latest evaluation, made at the end of the run unless it was interrupted or
    ``eval_minutes`` is 0; ``budget_spent``: why a ``--resume`` had nothing to do)."""
    import torch
    from ...rules import get_rules
    from . import canonical as C
    from .torch_net import PlayNet

    check_args(args)
    torch.set_num_threads(args.torch_threads)
    rules = get_rules(args.rules)
    weights_path = os.path.join(args.out, "weights.npz")

    # ---- seeding: one seed for everything
    torch.manual_seed(args.seed)
    rng = np.random.default_rng(args.seed)
    model = PlayNet(args.hidden)
    optim = torch.optim.AdamW(model.parameters(), lr=args.lr, weight_decay=args.weight_decay)
    replay = Replay(args.buffer_size, C.FEATURE_SIZE)
    run = start_run(args, model, optim, rng, replay, RESUME_KEYS,
                    init_weights=init_from_weights)                 # reads only
    chunk, updates, labelled, elapsed, deals = (run.chunk, run.updates, run.labelled,
                                                run.elapsed, run.deals)
    history, init_info = run.history, run.init
    progress = TrainingProgress(args.progress, args.minutes * 60.0, "train play")
    spent = budget_spent(args, elapsed, chunk) if args.resume else None
    if spent:
        progress.close()
        progress.line(spent)
        return run_result(run, weights_path, interrupted=False, budget=spent)
    os.makedirs(args.out, exist_ok=True)
    progress.line(start_text("train play", args, run, "decisions", replay.nbytes))

    def minutes_now():
        return (elapsed + time.perf_counter() - t_start) / 60.0

    def save_checkpoint(total_s=None):
        if total_s is None:
            total_s = elapsed + time.perf_counter() - t_start
        return save_run(args, model, optim, rng, replay, RunProgress(
            chunk, updates, labelled, total_s, deals, history, init_info))

    def training_info(total_s=None):
        if total_s is None:
            total_s = elapsed + time.perf_counter() - t_start
        return _training_facts(args.out, total_s, updates, chunk, labelled, deals,
                               dataclasses.asdict(args), init_info)

    def evaluate(generation=None):
        export_weights(model, rules, weights_path, training_info())
        ev = evaluate_weights(weights_path, args.rules, args.eval_pairs, args.eval_seed)
        ev.update(updates=updates, minutes=minutes_now(), labelled=labelled)
        if generation is not None:
            ev["generation"] = generation
        record_evaluation(history, logger, ev)

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
            if args.labels == "selfplay" and chunk % args.generation_chunks == 0:
                g = chunk // args.generation_chunks
                path = generation_path(args.out, g)
                if not os.path.exists(path):
                    # generation g: the weights as they are now label its chunks; each
                    # generation after the first is evaluated (the learning curve)
                    os.makedirs(os.path.dirname(path), exist_ok=True)
                    export_weights(model, rules, path, training_info())   # atomic
                    if g > 0 and args.eval_minutes > 0 and updates:
                        evaluate(generation=g)
                        last_eval = time.perf_counter()
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
                                + (" " + eval_text(history[-1], updates, minutes_now())
                                   if history else ""))
                win_labels = win_updates = 0
                win_t = now
                loss_acc, loss_n = 0.0, 0
                last_log = now
            if args.eval_minutes > 0 and now - last_eval >= args.eval_minutes * 60.0 and updates:
                evaluate()
                last_eval = time.perf_counter()
            if now - last_ckpt >= args.checkpoint_minutes * 60.0:
                progress.line(replay_text(save_checkpoint(), replay.size, "decisions"))
                last_ckpt = time.perf_counter()
        source.close()
        # ---- the end: the weights as they are now are what the last evaluation measures
        if final_evaluation_due(args, history, updates, interrupted):
            evaluate()
    finally:
        signal.signal(signal.SIGINT, old_handler)
        source.close()
        progress.close()
    total_s = elapsed + time.perf_counter() - t_start     # the run's time, everywhere
    replay_bytes = save_checkpoint(total_s)
    info = training_info(total_s)
    final = {"charts/minutes": info["minutes"], "charts/labelled_decisions": labelled,
             "charts/deals": deals, "charts/chunks": chunk, "charts/buffer": replay.size}
    if loss_n:
        final["losses/relative_huber"] = loss_acc / loss_n
    logger.log(updates, final)
    export_weights(model, rules, weights_path, info,
                   {"history": history, "final": history[-1] if history else None})
    logger.close()
    run = RunProgress(chunk, updates, labelled, total_s, deals, history, init_info)
    progress.line(replay_text(replay_bytes, replay.size, "decisions"))
    progress.line(end_text("train play", args, run, bool(interrupted)))
    return run_result(run, weights_path, bool(interrupted))


def export_checkpoint(run: str, path: str, make_model, float32: bool = False,
                      kind: str = "play", counted: str = "labelled", players=None) -> str:
    """Write the torch-free weights of the checkpoint in the run folder ``run`` to
    ``path``, with the run's training facts and evaluation history in the manifest: the
    one exporter of every trainer. ``make_model(settings)`` builds the torch net the
    checkpoint holds, ``counted`` names the checkpoint's count of training examples,
    ``players(settings)`` gives a bidding net's card players."""
    import torch
    from ...rules import get_rules
    from .net import make_manifest, save_weights
    from .torch_net import to_numpy
    check_output_path(path)
    ckpt = os.path.join(run, "checkpoint.pt")
    if not os.path.isfile(ckpt):
        raise FileNotFoundError(f"no checkpoint.pt in {run!r}: not a training run folder")
    ck = torch.load(ckpt, weights_only=True)
    args = json.loads(ck["args"])
    model = make_model(args)
    model.load_state_dict(ck["model"])
    history = json.loads(ck["history"])
    training = _training_facts(run, float(ck["elapsed"]), int(ck["updates"]), int(ck["chunk"]),
                               int(ck[counted]), int(ck["deals"]), args,
                               json.loads(ck.get("init", "null")))
    heads = None
    if players is not None:
        heads = training["players"] = players(args)
    mlp = to_numpy(model)
    save_weights(path, mlp, make_manifest(mlp, get_rules(args["rules"]), training,
                                          {"history": history,
                                           "final": history[-1] if history else None},
                                          kind=kind, players=heads),
                 dtype=np.float32 if float32 else np.float16)
    return path


def export_run(run: str, path: str, float32: bool = False) -> str:
    """Write the torch-free card-play weights of the checkpoint in the run folder ``run``
    to ``path`` (:func:`export_checkpoint`)."""
    from .torch_net import PlayNet
    return export_checkpoint(run, path, lambda args: PlayNet(args["hidden"]), float32)


def main(argv=None) -> int:
    args = parse_args(argv)
    res = train(args)
    print(json.dumps({k: v for k, v in res.items() if k != "history"}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
