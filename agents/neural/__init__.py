"""Neural agents (installed as ``coinche_rl.agents.neural``).

Everything neural the agents play with lives here: the canonical suit order and the
network input (:mod:`.canonical`, numba), the label generators of the trainers
(:mod:`.labels`, :mod:`.selfplay`, :mod:`.bid_labels`, numba), the bidding network's
actions (:mod:`.bid_actions`), the torch-free networks and their weights files
(:mod:`.net`, numpy), the ``nn`` agent and its batched play (:mod:`.agent`), the belief
network (:mod:`.belief`), the ``nnsearch`` agent (:mod:`.search`) and, with the optional
``nn`` extra (torch), the networks in torch (:mod:`.torch_net`, the only module here that
imports torch). The trainers are :mod:`coinche_rl.train`.
"""
