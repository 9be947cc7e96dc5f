"""The Celery settings the worker and the test's caller share: a broker and a result store
that need no server (kombu's filesystem transport and Celery's file system backend, in one
directory), and Celery's default serializer, JSON, for tasks and results: records travel as
their `to_dict()`, and a `SikaError` is rebuilt by Celery as `type(e)(*e.args)` (B98)."""

import os
import time
import uuid
from pathlib import Path

from kombu.transport import filesystem
from kombu.utils.encoding import str_to_bytes
from kombu.utils.json import dumps

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
        "broker_transport": f"{__name__}:AtomicFilesystemTransport",
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


class AtomicFilesystemChannel(filesystem.Channel):
    """kombu's filesystem channel, but a message appears in the folder only once it is whole.

    kombu creates a message's file and then writes it; a worker polling the folder can take the
    file in between, read it empty, and die on the JSON error (kombu issue 1551: a loaded CI
    machine lost its Celery worker this way, and every task after). Here a message is written
    under a name the reader skips (it takes only `<name>.<queue>.msg`) and renamed into place,
    which the file system does in one step."""

    def _put(self, queue, payload, **kwargs):
        name = f"{uuid.uuid4()}.{queue}.msg"
        # Older first, as kombu orders by name: its own `_put` starts the name with the time.
        final = Path(self.data_folder_out) / f"{time_ms()}_{name}"
        partial = Path(self.data_folder_out) / f"writing-{name}.partial"
        partial.write_bytes(str_to_bytes(dumps(payload)))
        os.replace(partial, final)


class AtomicFilesystemTransport(filesystem.Transport):
    Channel = AtomicFilesystemChannel


def time_ms() -> int:
    return time.monotonic_ns() // 1_000_000
