"""Test-suite settings.

Hypothesis draws new examples on every run by default. Under CI (``CI`` set, as
``.ci/run`` runs) it is derandomized, so a submission's result does not depend on luck;
locally it keeps exploring. ``HYPOTHESIS_PROFILE=dev`` / ``ci`` chooses explicitly.
"""

import os

from hypothesis import settings

settings.register_profile("ci", derandomize=True, print_blob=True)
settings.register_profile("dev", print_blob=True)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci" if os.environ.get("CI") else "dev"))
