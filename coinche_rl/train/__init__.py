"""The trainers of the neural agents (``coinche-rl train play|bid|belief``), above the
arena, whose duplicate matches score their checkpoints: :mod:`.play` (the card-play
network), :mod:`.bid` (the bidding network), :mod:`.belief` (the belief network), and what
they share, :mod:`.common`. They need the optional ``nn`` extra (torch)."""
