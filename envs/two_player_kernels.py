"""The former name of :mod:`coinche_rl.envs.encoder_two` (the numba encoder of belote for
two players' observation), kept working: this module *is* that one."""

import sys

from . import encoder_two

sys.modules[__name__] = encoder_two
