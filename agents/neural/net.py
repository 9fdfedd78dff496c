"""The networks without torch (``coinche_rl.agents.neural.net``): weights files, their
manifest, and a numpy forward pass.

A weights file is a ``.npz`` archive with the layers ``w0, b0, w1, b1, ...`` (float16 or
float32; ``w`` is ``[inputs, outputs]``) and a ``manifest`` entry, a JSON text that says
what the numbers mean:

``format``           ``"coinche-rl-weights"`` and ``format_version`` (1)
``kind``             ``"play"`` (card play), ``"bid"`` (bidding) or ``"belief"`` (card
                     inference, :mod:`.belief`)
``observation``      ``family`` (the input's family, :data:`INPUTS`: ``four``, or ``two``
                     for belote for two players; absent: ``four``), version and
                     ``feature_hash`` of the network input: the observation
                     layout, the canonical order and the derived features
                     (:func:`coinche_rl.agents.neural.canonical.feature_layout_hash`)
``canonical``        the canonical order's version
``action_map``       what the outputs are: ``"canonical-cards-32"`` (play),
                     ``"canonical-auction-82"`` (bid; ``"canonical-prise-8"`` for belote
                     for two players' prise), ``"canonical-cards-32x3-seats"``
                     (belief: the holder of each card, relative to the observer)
``architecture``     ``{"type": "mlp", "inputs", "hidden": [...], "outputs",
                     "activation": "relu"}``
``rules``            the preset the net was trained for (and its parameters' hash)
``training``         the run: name, minutes, updates, labelled decisions, seed, arguments
``code_version``     the coinche-rl version that wrote it
``evaluation``       the evaluations measured on it (margins vs the heuristic, ...)

:func:`load_weights` checks every field against this code and refuses a mismatch with a
:class:`WeightsError` naming the field, what the file says and what was expected: an
input of another size or layout, another canonical order, another architecture than the
arrays hold, or a file that is not a weights file at all.

>>> import numpy as np
>>> net = MLP.random(hidden=(8,), seed=0)
>>> x = np.zeros((2, net.inputs), dtype=np.float32)
>>> net.forward(x).shape
(2, 32)
"""

from __future__ import annotations

import hashlib
import json
import os
from typing import Optional, Sequence

import numpy as np

from ... import __version__
from ...files import atomic_write
from ...envs.family import env_family
from . import canonical as C
from . import canonical_two as C2
from .bid_actions import BID_SPACES, PLAYERS

__all__ = ["WeightsError", "NeuralError", "MLP", "make_manifest", "save_weights", "load_weights",
           "INPUTS", "input_module", "input_key",
           "rules_hash", "trained_for", "FORMAT", "FORMAT_VERSION", "ACTION_MAP", "default_weights_path"]

FORMAT = "coinche-rl-weights"
FORMAT_VERSION = 1
ACTION_MAP = "canonical-cards-32"
N_OUT = 32
#: the bidding net's outputs: for each card player of ``manifest["bid"]["players"]``,
#: the heads ``q``, ``ev``, ``made`` over its family's actions
#: (:data:`.bid_actions.BID_SPACES`: the 82 auction actions, the 8 of the prise)
BID_ACTION_MAP = BID_SPACES["four"].action_map
BID_HEADS = ("q", "ev", "made")
#: the belief net's outputs: 32 canonical cards x the 3 other seats (left, partner, right)
BELIEF_ACTION_MAP = "canonical-cards-32x3-seats"
N_BELIEF_OUT = 96
#: the belief net's outputs of each input family: ``(action map, places per card)``: the
#: three other seats; belote for two players' two places of a hidden card, the other hand
#: or face down (:mod:`.labels_two`)
BELIEF_OUTPUTS = {"four": (BELIEF_ACTION_MAP, 3), "two": ("canonical-cards-32x2-places", 2)}


#: the networks' input of each family of the environments (:func:`coinche_rl.envs.family.
#: env_family`): the module of its canonical order and features, with ``FEATURE_SIZE``,
#: ``feature_layout_hash()``, ``CANON_VERSION``, ``N_OBS`` and ``O`` (the observation
#: module, its ``VERSION``); a weights manifest names its key (``observation.family``;
#: none: ``four``, the files written before belote for two players had networks)
INPUTS = {"four": C, "two": C2}


def input_key(rules) -> str:
    """The key in :data:`INPUTS` of the networks' input under ``rules`` (a RuleSet or a
    preset name)."""
    return env_family(rules).key


def input_module(rules):
    """The module of the networks' input under ``rules`` (:data:`INPUTS`)."""
    return INPUTS[input_key(rules)]


class NeuralError(ValueError):
    """The ``nn`` agent cannot play here (missing weights, other rules)."""


def _outputs(kind: str, manifest: dict, path, key: str = "four") -> tuple:
    """``(action map, outputs)`` a net of ``kind`` must have (``key``: its input
    family)."""
    if kind == "belief":
        action_map, places = BELIEF_OUTPUTS[key]
        return action_map, N_OUT * places
    if kind != "bid":
        return ACTION_MAP, N_OUT
    bid = manifest.get("bid") or {}
    players = bid.get("players")
    if not isinstance(players, list) or not players or any(p not in PLAYERS for p in players):
        raise WeightsError(f"{path}: manifest field bid.players is {players!r}, expected a "
                           f"list of card players from {list(PLAYERS)}")
    _expect("bid.heads", bid.get("heads"), list(BID_HEADS), path)
    space = BID_SPACES[key]
    return space.action_map, len(players) * len(BID_HEADS) * space.n


class WeightsError(ValueError):
    """A weights file that cannot be used: unreadable, or its manifest disagrees with
    this code (the message names the field)."""


#: RuleSet fields that never change how a deal is bid, played or scored (a net trained
#: on ``ffb`` deals plays ``ffb`` matches to any target, shuffled or not)
MATCH_ONLY_FIELDS = ("name", "target", "shuffle_between_deals", "belote_cannot_win",
                     "reshuffle_after_voids", "min_cut")


def rules_hash(rules) -> str:
    """A short hash of the rules of a deal: the ``RuleSet`` fields that differ from their
    defaults, less :data:`MATCH_ONLY_FIELDS`. It reads the fields, not the kernels'
    parameter vector, so it does not move when that vector's layout does, and a new rule
    field (whose default keeps the old rules) leaves every hash as it was."""
    import dataclasses
    changed = sorted((f.name, np.asarray(getattr(rules, f.name)).tolist())
                     for f in dataclasses.fields(rules)
                     if f.name not in MATCH_ONLY_FIELDS and getattr(rules, f.name) != f.default)
    return hashlib.sha256(json.dumps(changed).encode()).hexdigest()[:16]


def trained_for(manifest: dict, rules) -> bool:
    """True when a weights manifest says the net was trained for ``rules`` (the same
    :func:`rules_hash`)."""
    return (manifest.get("rules") or {}).get("hash") == rules_hash(rules)


def default_weights_path(rules: str = "ffb", kind: str = "play") -> str:
    """The shipped weights of ``kind`` for preset ``rules`` (inside the package)."""
    return os.path.join(os.path.dirname(os.path.abspath(__file__)), "weights",
                        f"{rules}_{kind}.npz")


class MLP:
    """A ReLU multilayer perceptron in numpy: ``layers`` is a list of ``(w, b)``
    (float32, ``w`` of shape ``[inputs, outputs]``)."""

    def __init__(self, layers, manifest: Optional[dict] = None):
        self.layers = [(np.ascontiguousarray(w, dtype=np.float32),
                        np.ascontiguousarray(b, dtype=np.float32)) for w, b in layers]
        self.manifest = manifest or {}
        for i in range(1, len(self.layers)):
            if self.layers[i][0].shape[0] != self.layers[i - 1][0].shape[1]:
                raise WeightsError(f"layer {i} takes {self.layers[i][0].shape[0]} inputs but "
                                   f"layer {i - 1} gives {self.layers[i - 1][0].shape[1]}")

    @classmethod
    def random(cls, hidden: Sequence[int] = (256, 256), seed: int = 0,
               inputs: int = C.FEATURE_SIZE, outputs: int = N_OUT) -> "MLP":
        """Randomly initialised (He) weights: for tests and as a starting point."""
        rng = np.random.default_rng(seed)
        sizes = [inputs, *hidden, outputs]
        layers = [(rng.normal(0, np.sqrt(2.0 / a), (a, b)).astype(np.float32),
                   np.zeros(b, dtype=np.float32)) for a, b in zip(sizes[:-1], sizes[1:])]
        return cls(layers)

    @property
    def inputs(self) -> int:
        return self.layers[0][0].shape[0]

    @property
    def outputs(self) -> int:
        return self.layers[-1][0].shape[1]

    @property
    def hidden(self):
        return [w.shape[1] for w, _ in self.layers[:-1]]

    @property
    def n_params(self) -> int:
        return int(sum(w.size + b.size for w, b in self.layers))

    def forward(self, x: np.ndarray) -> np.ndarray:
        """Outputs for a batch ``x`` (``[n, inputs]``, any float dtype): float32
        ``[n, outputs]``."""
        h = np.asarray(x, dtype=np.float32)
        last = len(self.layers) - 1
        for i, (w, b) in enumerate(self.layers):
            h = h @ w
            h += b
            if i < last:
                np.maximum(h, 0.0, out=h)
        return h

    def best(self, x: np.ndarray, legal: np.ndarray) -> np.ndarray:
        """Index of the best legal output of each row (``legal``: bool ``[n, outputs]``)."""
        q = self.forward(x)
        q[~legal] = -np.inf
        return q.argmax(axis=1)

    def architecture(self) -> dict:
        return {"type": "mlp", "inputs": self.inputs, "hidden": self.hidden,
                "outputs": self.outputs, "activation": "relu"}


def make_manifest(net: MLP, rules, training: dict, evaluation: Optional[dict] = None,
                  kind: str = "play", players: Optional[Sequence[str]] = None) -> dict:
    """The manifest of ``net`` trained for ``rules`` (a RuleSet) by ``training``
    (``kind="bid"``: a bidding net, with the card ``players`` of its heads)."""
    extra = {}
    M = input_module(rules)
    action_map = {"bid": BID_SPACES[input_key(rules)].action_map,
                  "belief": BELIEF_OUTPUTS[input_key(rules)][0]}.get(kind, ACTION_MAP)
    if kind == "bid":
        extra["bid"] = {"players": list(players), "heads": list(BID_HEADS)}
    return {**extra,
        "format": FORMAT, "format_version": FORMAT_VERSION, "kind": kind,
        "observation": {"family": input_key(rules), "version": M.O.VERSION, "size": M.N_OBS,
                        "features": M.FEATURE_SIZE, "feature_hash": M.feature_layout_hash()},
        "canonical": {"version": M.CANON_VERSION},
        "action_map": action_map,
        "architecture": net.architecture(),
        "rules": {"name": rules.name, "hash": rules_hash(rules)},
        "training": dict(training),
        "code_version": __version__,
        "evaluation": dict(evaluation or {}),
    }


def save_weights(path, net: MLP, manifest: dict, dtype=np.float16) -> None:
    """Write ``net`` and its ``manifest`` to ``path`` (``.npz``) atomically."""
    arrays = {}
    for i, (w, b) in enumerate(net.layers):
        arrays[f"w{i}"] = w.astype(dtype)
        arrays[f"b{i}"] = b.astype(dtype)
    manifest = dict(manifest)
    manifest["architecture"] = net.architecture()
    manifest["dtype"] = np.dtype(dtype).name
    arrays["manifest"] = np.array(json.dumps(manifest, sort_keys=True))
    path = os.fspath(path)
    folder = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(folder):
        raise FileNotFoundError(f"{path}: no folder {folder} to write the weights in")
    atomic_write(path, lambda f: np.savez(f, **arrays))


def _expect(field: str, got, want, path) -> None:
    if got != want:
        raise WeightsError(f"{path}: manifest field {field} is {got!r}, this code expects "
                           f"{want!r}")


def load_weights(path, rules=None, kind: str = "play") -> MLP:
    """Load and check a weights file (see the module docstring); ``rules``: a RuleSet
    the net must have been trained for (None: not checked).

    :raises WeightsError: unreadable file or any manifest mismatch (named).
    """
    path = os.fspath(path)
    if not os.path.isfile(path):
        raise WeightsError(f"no weights file at {path!r}")
    try:
        with np.load(path, allow_pickle=False) as z:
            files = dict((k, z[k]) for k in z.files)
    except Exception as e:
        raise WeightsError(f"{path}: not a readable .npz weights file ({type(e).__name__}: "
                           f"{e})") from None
    if "manifest" not in files:
        raise WeightsError(f"{path}: no manifest in the file (not a coinche-rl weights file)")
    try:
        m = json.loads(str(files["manifest"]))
    except ValueError as e:
        raise WeightsError(f"{path}: the manifest is not valid JSON ({e})") from None
    _expect("format", m.get("format"), FORMAT, path)
    _expect("format_version", m.get("format_version"), FORMAT_VERSION, path)
    _expect("kind", m.get("kind"), kind, path)
    obs = m.get("observation") or {}
    key = obs.get("family", "four")
    if key not in INPUTS:
        raise WeightsError(f"{path}: manifest field observation.family is {key!r}, this code "
                           f"expects one of {sorted(INPUTS)}")
    if rules is not None:
        _expect("observation.family", key, input_key(rules), path)
    M = INPUTS[key]
    _expect("observation.version", obs.get("version"), M.O.VERSION, path)
    _expect("observation.size", obs.get("size"), M.N_OBS, path)
    _expect("observation.features", obs.get("features"), M.FEATURE_SIZE, path)
    _expect("observation.feature_hash", obs.get("feature_hash"), M.feature_layout_hash(), path)
    _expect("canonical.version", (m.get("canonical") or {}).get("version"), M.CANON_VERSION, path)
    action_map, n_out = _outputs(kind, m, path, key)
    _expect("action_map", m.get("action_map"), action_map, path)
    arch = m.get("architecture") or {}
    _expect("architecture.type", arch.get("type"), "mlp", path)
    _expect("architecture.activation", arch.get("activation"), "relu", path)
    _expect("architecture.inputs", arch.get("inputs"), M.FEATURE_SIZE, path)
    _expect("architecture.outputs", arch.get("outputs"), n_out, path)
    hidden = arch.get("hidden")
    if not isinstance(hidden, list):
        raise WeightsError(f"{path}: manifest field architecture.hidden is {hidden!r}, "
                           f"expected a list of layer widths")
    n_layers = len(hidden) + 1
    layers = []
    sizes = [M.FEATURE_SIZE, *hidden, n_out]
    for i in range(n_layers):
        if f"w{i}" not in files or f"b{i}" not in files:
            raise WeightsError(f"{path}: the manifest's architecture has {n_layers} layers "
                               f"but array w{i} / b{i} is missing")
        w, b = files[f"w{i}"], files[f"b{i}"]
        if w.shape != (sizes[i], sizes[i + 1]) or b.shape != (sizes[i + 1],):
            raise WeightsError(f"{path}: layer {i} has shapes {w.shape} / {b.shape}, the "
                               f"manifest's architecture says ({sizes[i]}, {sizes[i + 1]}) / "
                               f"({sizes[i + 1]},)")
        layers.append((w, b))
    extra = sorted(k for k in files if k != "manifest" and k not in
                   {f"{p}{i}" for i in range(n_layers) for p in "wb"})
    if extra:
        raise WeightsError(f"{path}: arrays {extra} are not in the manifest's architecture "
                           f"({n_layers} layers)")
    if rules is not None and not trained_for(m, rules):
        want = {"name": rules.name, "hash": rules_hash(rules)}
        raise WeightsError(f"{path}: manifest field rules is {m.get('rules')!r}; the net was "
                           f"not trained for the rules asked for, {want!r}")
    return MLP(layers, m)
