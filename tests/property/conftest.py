"""Hypothesis profiles for tests/property, chosen with ``PAIMON_SQL_HYPOTHESIS_PROFILE``.

``ci`` (the default) is derandomized so that a CI failure reproduces anywhere; ``dev`` explores
more.
Neither keeps an example database: a failure prints the steps (and ``@reproduce_failure`` blob).
"""

from __future__ import annotations

import os

from hypothesis import HealthCheck, Phase, settings

_COMMON = {
    "deadline": None,
    "database": None,
    "print_blob": True,
    "suppress_health_check": [HealthCheck.too_slow, HealthCheck.data_too_large],
}
# ci: about 5 examples x 12 steps per table kind. A step is one statement plus the invariant's reads
# (~0.1-0.3 s on 2 busy cores), so 25 x 12 took 9 min wall (166 s CPU) for the 7 kinds, far over
# the ~90 s budget; `dev` is where the exploring happens.
settings.register_profile("ci", max_examples=5, stateful_step_count=12, derandomize=True, **_COMMON)
settings.register_profile("dev", max_examples=60, stateful_step_count=25, **_COMMON)
# A quick look while editing: few examples, no shrinking.
settings.register_profile(
    "smoke", max_examples=5, stateful_step_count=10, phases=[Phase.generate], **_COMMON
)
settings.load_profile(os.environ.get("PAIMON_SQL_HYPOTHESIS_PROFILE", "ci"))
