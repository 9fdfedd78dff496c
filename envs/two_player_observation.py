"""The former name of :mod:`coinche_rl.envs.observation_two` (the observation of belote
for two players), kept working: this module *is* that one."""

import sys

from . import observation_two

sys.modules[__name__] = observation_two
