"""The drift lattice's profiles: the instance ladder each climbs and its state limit per graph
(`LATTICE_PROFILES`, by `explore --lattice --profile`). Data only: the lattice command runs
them, and the lattice page (`model_checks.docs.lattice_page`) says them in words.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from model_checks.explore.lattice_instance import Rung
from model_checks.kernel.profiles import Profile, profile_table


@dataclass(frozen=True)
class LatticeProfile(Profile):
    """A profile, rung by rung: environments of up to `max_size` sources climb from `base`
    to `top` (one more request per rung); then every environment of up to `deep_size`
    sources containing `deep_with` climbs on to `deep` requests. `max_states` bounds each
    graph (a resource limit: the verdicts never depend on the clock)."""

    max_size: int
    base: Rung
    top: Rung
    max_states: int
    deep: int = 0
    deep_size: int = 0
    deep_with: tuple[str, ...] = ()

    def words(self) -> str:
        text = f"every environment of up to {self.max_size} sources at {self.base.words()}"
        if self.top != self.base:
            text += f", climbing to {self.top.short()}"
        if self.deep:
            text += (f"; every environment of up to {self.deep_size} sources with "
                     f"{'+'.join(self.deep_with)} on to {self.deep} requests")
        return text + f"; at most {self.max_states:,} states per graph"


BASE_RUNG = Rung(max_requests=2, max_in_flight=2, max_retries=2, identities=3, max_items=2)
"""The ladder's base: three 1-byte identities in the 2-byte budget and two items per request
in every environment, so it can evict for capacity with no drift at all."""
LATTICE_PROFILES = profile_table(
    LatticeProfile("ci", 2, BASE_RUNG, BASE_RUNG, 150_000,
                   deep=3, deep_size=2, deep_with=("D7",)),
    LatticeProfile("nightly", 3, BASE_RUNG, replace(BASE_RUNG, max_requests=3), 600_000,
                   deep=4, deep_size=2, deep_with=("D7",)),
)
"""The lattice's profiles (`LatticeProfile.words` says each rung by rung)."""
