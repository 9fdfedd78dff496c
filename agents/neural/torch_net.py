"""The card-play network in torch (``coinche_rl.agents.neural.torch_net``; needs the
``nn`` extra): the same MLP as :class:`coinche_rl.agents.neural.net.MLP`, for training,
with the conversions both ways (tested equal within float tolerance)."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import torch
from torch import nn

from . import canonical as C
from .net import MLP, N_OUT

__all__ = ["PlayNet", "to_numpy", "from_numpy"]


class PlayNet(nn.Module):
    """ReLU MLP: canonical features (``FEATURE_SIZE``) -> the 32 canonical cards' values
    (deal points / 100 for the acting team)."""

    def __init__(self, hidden: Sequence[int] = (256, 256), inputs: int = C.FEATURE_SIZE,
                 outputs: int = N_OUT):
        super().__init__()
        sizes = [inputs, *hidden, outputs]
        self.hidden = list(hidden)
        self.layers = nn.ModuleList(nn.Linear(a, b) for a, b in zip(sizes[:-1], sizes[1:]))

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        h = x
        for i, layer in enumerate(self.layers):
            h = layer(h)
            if i < len(self.layers) - 1:
                h = torch.relu(h)
        return h


def to_numpy(net: PlayNet) -> MLP:
    """The numpy twin of ``net`` (float32)."""
    layers = [(layer.weight.detach().cpu().numpy().T.copy(),
               layer.bias.detach().cpu().numpy().copy()) for layer in net.layers]
    return MLP(layers)


def from_numpy(mlp: MLP) -> PlayNet:
    """A torch net with the weights of ``mlp``."""
    net = PlayNet(mlp.hidden, mlp.inputs, mlp.outputs)
    with torch.no_grad():
        for layer, (w, b) in zip(net.layers, mlp.layers):
            layer.weight.copy_(torch.from_numpy(np.ascontiguousarray(w.T)))
            layer.bias.copy_(torch.from_numpy(b))
    return net
