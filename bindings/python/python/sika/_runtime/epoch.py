"""1970-01-01 UTC, made once: the epoch the timestamps' `lift` in uniffi.toml adds to (ADR 0022).

The generated module imports this module (`imports` of the custom type `Timestamp`), so the
configuration names nothing that only Sika's runtime defines. A leaf module: importing it
imports nothing of the package.
"""

import datetime

UTC = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc)
