"""The Celery settings the worker and the test's caller share: a broker and a result store
that need no server (kombu's filesystem transport and Celery's file system backend, in one
directory), and Celery's default serializer, JSON, for tasks and results: records travel as
their `to_dict()`, and a `SikaError` is rebuilt by Celery as `type(e)(*e.args)` (B98)."""

import os
from pathlib import Path

# Set by test_deployments.py: the directory of the broker's messages and of the results.
DIRECTORY = "SIKA_SHOP_CELERY_DIR"


def settings(directory: str) -> dict:
    root = Path(directory)
    messages, processed, results = root / "messages", root / "processed", root / "results"
    control = root / "control"
    for folder in (messages, processed, results, control):
        folder.mkdir(parents=True, exist_ok=True)
    return {
        "broker_url": "filesystem://",
        "broker_transport_options": {
            "data_folder_in": str(messages),
            "data_folder_out": str(messages),
            "processed_folder": str(processed),
            "store_processed": False,
            # Its broadcast exchanges (else under the working directory).
            "control_folder": str(control),
            # Seconds between looks for new messages: short, so the tests stay quick.
            "polling_interval": 0.05,
        },
        "result_backend": f"file://{results}",
        # No serializer setting: Celery's defaults (JSON everywhere), as most merchants run it.
        # The filesystem transport has no broadcast: no remote control, mingle or gossip.
        "worker_enable_remote_control": False,
        "worker_hijack_root_logger": False,
    }


def settings_from_environment() -> dict:
    return settings(os.environ[DIRECTORY])
