"""``python -m coinche_rl.cli``: the ``coinche-rl`` command."""

import sys

from . import main

sys.exit(main())
