"""The engine's encoder cache (vLLM 0.33.0), as a design of its own: the scheduler's
`EncoderCacheManager` (identity -> number of embeddings, a budget in embeddings, entries
freed once no running request needs them and evicted oldest first when space is needed) and
the workers' encoder outputs under the same key, with the scheduler's guard that compares a
cached entry's embeddings with a request's placeholders. `ENCODER` is the design value the
checkers take; `spec.designs.paths` composes it behind the processor cache."""

from spec.designs.encoder.config import EncoderConfig
from spec.designs.encoder.design import ENCODER
from spec.designs.encoder.state import EncoderState

__all__ = ["ENCODER", "EncoderConfig", "EncoderState"]
