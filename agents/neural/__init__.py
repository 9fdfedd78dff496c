"""Neural agents (installed as ``coinche_rl.agents.neural``).

Everything neural lives here: the canonical suit order and the network input
(:mod:`.canonical`, numba), the label generator for training (:mod:`.labels`, numba),
the torch-free network and its weights files (:mod:`.net`, numpy), the ``nn`` agent and
its batched play (:mod:`.agent`), and, with the optional ``nn`` extra (torch), the
network in torch and the card-play trainer (:mod:`.torch_net`, :mod:`.train_play`).
Only the last two import torch.
"""
