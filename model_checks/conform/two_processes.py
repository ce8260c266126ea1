"""The way into two-process conformance (`remote`) that needs nothing it does not use: the
child process, its socket and its wire format need pyzmq and msgspec (the ``processes``
extra), so `remote` is imported only here, when a run asks for two processes. A plain install
(without the extra) runs every other command and gets one line saying what to install when it
asks for two processes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from model_checks.conform.remote import RemoteEngines

EXTRA_MODULES = ("msgspec", "zmq")
"""The modules only two-process conformance imports (from the ``processes`` extra)."""


class ExtraMissing(RuntimeError):
    """Two processes were asked for but the ``processes`` extra is not installed (one line)."""


def remote_engines(adapter_path: str) -> RemoteEngines:
    """A child process serving `adapter_path`'s engine side (`remote.RemoteEngines`);
    `ExtraMissing` when pyzmq or msgspec is not installed."""
    try:
        from model_checks.conform.remote import RemoteEngines
    except ModuleNotFoundError as error:
        if error.name not in EXTRA_MODULES:
            raise
        raise ExtraMissing(
            f"two processes need pyzmq and msgspec ({error.name} is not installed): "
            "pip install 'paired-caches[processes]'") from None
    return RemoteEngines(adapter_path)
