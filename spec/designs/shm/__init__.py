"""The shared-memory object store design (vLLM's `--mm-processor-cache-type shm`), as a
design of its own: one ring buffer shared by P0 (its single writer, which owns eviction) and
every worker of P1 (its readers), signed handles, reference counts as pins, and inline items
where the ring cannot take an object. `SHM` is the design value the checkers take."""

from spec.designs.shm.config import ShmConfig
from spec.designs.shm.design import SHM
from spec.designs.shm.state import ShmState

__all__ = ["SHM", "ShmConfig", "ShmState"]
