"""vLLM 0.33.0's encoder cache, driven as the scheduler and the workers drive it, replaying
the encoder stage of a witness of the encoder design or of the composed path
(`spec.designs.paths`) in lockstep with the spec.

The manager is the release's own `EncoderCacheManager` (`vllm/v1/core/encoder_cache_manager.py`);
the glue does what the scheduler's `_try_schedule_encoder_inputs`, `_allocate_encoder_inputs`
and `_free_encoder_inputs` do with it, and what the workers do (drop the freed identities,
run the encoder, merge its output into the placeholders, raising on another number), as
`tests/designs/encoder_code.py` pins them. The processor cache's stage of a composed
witness runs on the spec (its own conformance is `conform`'s): what it hands the engine is
what the release's manager is driven with.

    python -m model_checks.adapters.vllm_encoder --replay WITNESS [--patched]

Exit 4 REPRODUCED (the witness's property breaks on the release), 0 NOT REPRODUCED, 1 a
step where the release and the spec disagree, 2 bad input (one line), 3 vLLM is missing, 5
NOT FOLLOWED (a property of the processor cache's stage, not judged here).

`--patched` replays on the tag patch's copy (`model_checks.adapters.vllm_patched`, built by
`scripts/setup-vllm-patched`), in a process of its own. There the processor cache serves
each item from the processing its placeholders came from (a tagged reference to another
processing misses and is resent: the processor cache's S1, which the fix check proves), so
each item reaches the engine with its tensor from its placeholders' content; and the
identifier the manager and the workers key it by is the patched
`vllm.multimodal.inputs.tagged_mm_identifier` of the identity and that processing's tag.
The spec's encoder design keys by identity, as the release does, so the patched replay is
not in lockstep with it: the property is judged after every step instead, and a replay in
which no item was consumed fails (exit 1). Exit 4 BROKEN ON THE PATCHED COPY, 0 not broken.
The tag is modelled per content version, coarser than the patch's per processing: two
processings of equal content share an entry here that the patch computes twice (an extra
encoder run, never another output).
"""

from __future__ import annotations

import argparse
import importlib
import sys
import types
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from model_checks.conform.exits import (
    EXIT_FAIL,
    EXIT_HARNESS,
    EXIT_NOT_FOLLOWED,
    EXIT_OK,
    EXIT_USAGE,
    EXIT_WEAKNESS,
)
from model_checks.designs.witness_files import BadWitness, read
from spec.config import Content
from spec.designs.compose import ComposedConfig, ComposedDesign, Local
from spec.designs.encoder.actions import Arrive, Complete, Reset, Schedule
from spec.designs.encoder.config import EncoderConfig
from spec.designs.encoder.state import EncoderState, Item

MANAGER_MODULE = "vllm.v1.core.encoder_cache_manager"
JUDGED = ("S1", "S3", "S4", "E2E")
"""The properties this adapter judges on the release (the encoder cache's own; E2E is S3 or
S1 of the encoder stage, the processor cache's faults being the spec's here)."""


def manager_class() -> Any:
    """The release's `EncoderCacheManager`. Its module imports `vllm.v1.request` for type
    names only; where that module's own imports need a package the CPU set-up leaves out
    (prometheus_client), a stand-in module with a `Request` name is put in its place first
    (the manager reads only `request_id`, `mm_features` and `get_num_encoder_embeds`)."""
    try:
        importlib.import_module("vllm.v1.request")
    except ModuleNotFoundError as error:
        if error.name == "vllm":
            raise
        stand_in = types.ModuleType("vllm.v1.request")
        stand_in.Request = object  # type: ignore[attr-defined]
        sys.modules["vllm.v1.request"] = stand_in
    return importlib.import_module(MANAGER_MODULE).EncoderCacheManager


@dataclass
class _Position:
    embeds: int

    def get_num_embeds(self) -> int:
        return self.embeds


@dataclass
class _Feature:
    identifier: str
    mm_position: _Position


@dataclass
class _Request:
    """What the manager reads of a request."""

    request_id: str
    mm_features: list[_Feature]
    items: tuple[Item, ...]
    scheduled: int = 0
    chunk: tuple[int, ...] = ()

    def get_num_encoder_embeds(self, input_id: int) -> int:
        return self.mm_features[input_id].mm_position.get_num_embeds()


def _identity(item: Item) -> str:
    return item.identity


@dataclass
class ReleaseEncoderCache:
    """The release's manager and the workers' cache of encoder outputs, for one instance;
    `key` is the identifier an item reaches the engine with (the release's: its identity)."""

    config: EncoderConfig
    key: Callable[[Item], str] = _identity
    manager: Any = None
    workers: dict[str, Content] = field(default_factory=dict)
    requests: list[_Request] = field(default_factory=list)
    fault: str | None = None
    consumed: list[tuple[Content, Content, Content]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.manager = manager_class()(cache_size=self.config.cache_embeds)

    def arrive(self, items: tuple[Item, ...]) -> None:
        features = [_Feature(self.key(i), _Position(self.config.size(i.placeholders)))
                    for i in items]
        self.requests.append(_Request(str(len(self.requests)), features, items))

    def schedule(self, rid: int) -> str:
        """One scheduling step of request `rid`: "rejected", or "scheduled" (the model
        consumed the chunk, or the engine died: `fault`)."""
        request, manager = self.requests[rid], self.manager
        planned: dict[str, int] = {}
        chunk, allocate, duplicates = [], [], []
        to_schedule, budget = 0, self.config.compute_embeds
        for index in range(request.scheduled, len(request.items)):
            identity = request.mm_features[index].identifier
            wanted = request.get_num_encoder_embeds(index)
            if identity in planned:
                if planned[identity] != wanted:
                    return self._reject(request)
                duplicates.append(index)
                chunk.append(index)
                continue
            cached = manager.get_cached_num_encoder_embeds(request, index)
            if cached is not None and cached != wanted:
                return self._reject(request)
            if manager.check_and_update_cache(request, index):
                chunk.append(index)
                continue
            if not manager.can_allocate(request, index, budget, to_schedule):
                break
            to_schedule += wanted
            budget -= wanted
            planned[identity] = wanted
            chunk.append(index)
            allocate.append(index)
        for index in allocate:
            manager.allocate(request, index)
        for index in duplicates:
            manager.check_and_update_cache(request, index)
        for freed in manager.get_freed_mm_hashes():
            self.workers.pop(freed, None)
        for index in allocate:
            self.workers[request.mm_features[index].identifier] = request.items[index].tensor
        self.consumed = []
        for index in chunk:
            item = request.items[index]
            output = self.workers[request.mm_features[index].identifier]
            have, want = self.config.size(output), request.get_num_encoder_embeds(index)
            if have != want:
                self.fault = (f"request {rid} item {index} ({item.identity!r}): Attempted "
                              f"to assign {have} multimodal tokens to {want} placeholders")
                return "scheduled"
            self.consumed.append((output, item.placeholders, item.sent))
        request.chunk = tuple(chunk)
        return "scheduled"

    def _reject(self, request: _Request) -> str:
        self.manager.free(request)
        self.consumed = []
        return "rejected"

    def complete(self, rid: int) -> None:
        request = self.requests[rid]
        for index in request.chunk:
            self.manager.free_encoder_input(request, index)
        request.scheduled += len(request.chunk)
        request.chunk = ()
        self.consumed = []

    def reset(self) -> None:
        self.manager.reset()
        self.workers.clear()
        self.consumed = []

    def entries(self) -> dict[str, int]:
        return dict(self.manager.num_embeds_by_hash)


def encoder_steps(design: Any, config: Any, actions: tuple[Any, ...]
                  ) -> list[tuple[Any, EncoderState, EncoderConfig]]:
    """The encoder stage's actions a witness takes, each with the spec's encoder state after
    it: a composed witness's own encoder steps and the arrivals its link causes."""
    found: list[tuple[Any, EncoderState, EncoderConfig]] = []
    state = design.initial(config)
    for action in actions:
        after = design.step(config, state, action)
        if isinstance(design, ComposedDesign):
            assert isinstance(config, ComposedConfig) and isinstance(action, Local)
            encoder = config.configs[-1]
            if action.stage == len(design.stages) - 1:
                found.append((action.step, after.states[-1], encoder))
            else:
                link = design.links[-1]
                lru_config = config.configs[0]
                for caused in link.outputs(lru_config, state.states[0], action.step,
                                           after.states[0]):
                    found.append((caused, after.states[-1], encoder))
        else:
            found.append((action, after, config))
        state = after
    return found


def patched_key() -> Callable[[Item], str]:
    """The identifier an item reaches the patched engine with: the patched copy's
    `tagged_mm_identifier` (looked up at each call) of its identity and the tag of the
    processing served (modelled by its placeholders' content version)."""
    inputs = importlib.import_module("vllm.multimodal.inputs")

    def key(item: Item) -> str:
        return str(inputs.tagged_mm_identifier(item.identity, item.placeholders.version))
    return key


def served_by_patched_processor_cache(item: Item) -> Item:
    """The item as the patched processor cache hands it on: its tensor from the processing
    its placeholders came from."""
    return Item(item.identity, item.placeholders, item.placeholders, item.sent)


def replay(path: Path, patched: bool = False) -> int:
    try:
        witness = read(path)
    except (BadWitness, OSError) as error:
        print(f"error: {path}: {error}", file=sys.stderr)
        return EXIT_USAGE
    if witness.design.name not in ("encoder", "lru+encoder"):
        print(f"error: {path}: a witness of design {witness.design.name!r}; this adapter "
              "replays the encoder design's and the lru+encoder path's", file=sys.stderr)
        return EXIT_USAGE
    if str(witness.property_id).removeprefix("E.") not in JUDGED:
        print(f"NOT FOLLOWED: {witness.label()}: this adapter judges {', '.join(JUDGED)} of "
              "the encoder cache (E2E on the path), not this property")
        return EXIT_NOT_FOLLOWED
    if patched:
        return _replay_patched(witness)
    try:
        steps = encoder_steps(witness.design, witness.config(), witness.actions)
        release = ReleaseEncoderCache(steps[0][2] if steps else witness.config())
    except ModuleNotFoundError as error:
        print(f"error: vLLM is not installed here ({error}); run scripts/setup-vllm",
              file=sys.stderr)
        return EXIT_HARNESS
    for number, (action, spec_state, _) in enumerate(steps, start=1):
        _drive(release, action)
        wrong = _disagreement(release, spec_state)
        if wrong:
            print(f"DISAGREE at encoder step {number} ({type(action).__name__}): {wrong}")
            return EXIT_FAIL
    label = witness.label()
    said = _broken(release, str(witness.property_id).removeprefix("E."))
    if said:
        print(f"REPRODUCED on vLLM's EncoderCacheManager: {label}: {'; '.join(said)}")
        return EXIT_WEAKNESS
    print(f"NOT REPRODUCED on vLLM's EncoderCacheManager: {label}")
    return EXIT_OK


def _replay_patched(witness: Any) -> int:
    from model_checks.adapters.vllm_patched import use_patched_copy
    from model_checks.adapters.vllm_release import UnsupportedVllm

    try:
        use_patched_copy()
        steps = encoder_steps(witness.design, witness.config(), witness.actions)
        patched = ReleaseEncoderCache(steps[0][2] if steps else witness.config(),
                                      key=patched_key())
    except (ModuleNotFoundError, UnsupportedVllm) as error:
        print(f"error: the patched vLLM copy cannot be used here: {error}", file=sys.stderr)
        return EXIT_HARNESS
    prop, label = str(witness.property_id).removeprefix("E."), witness.label()
    said: list[str] = []
    consumed = 0
    for action, _, _ in steps:
        if isinstance(action, Arrive):
            action = Arrive(tuple(served_by_patched_processor_cache(i) for i in action.items))
        _drive(patched, action)
        consumed += len(patched.consumed)
        said += _broken(patched, prop)
        if patched.fault is not None:
            break
    if said:
        print(f"BROKEN ON THE PATCHED COPY: {label}: {'; '.join(dict.fromkeys(said))}")
        return EXIT_WEAKNESS
    if not consumed:
        print(f"NOTHING CONSUMED on the patched copy: {label}: {len(steps)} encoder steps, "
              "no item reached the model")
        return EXIT_FAIL
    print(f"NOT BROKEN ON THE PATCHED COPY: {label}: {len(steps)} encoder steps, {consumed} "
          "items consumed")
    return EXIT_OK


def _broken(release: ReleaseEncoderCache, prop: str) -> list[str]:
    """Why the release breaks `prop` after the last step (the encoder's S1, S3, S4, or the
    path's E2E: S3 or S1)."""
    crash = [release.fault] if release.fault is not None else []
    pairing = [f"embeddings of {_name(o)} with placeholders of {_name(p)}"
               for o, p, _ in release.consumed if o != p]
    stale = [f"embeddings of {_name(o)}, the client sent {_name(s)}"
             for o, _, s in release.consumed if o != s]
    return {"S1": pairing, "S3": crash, "S4": stale, "E2E": crash + pairing}[prop]


def _name(content: Content) -> str:
    return f"{content.identity}.v{content.version}"


def _drive(release: ReleaseEncoderCache, action: Any) -> None:
    if isinstance(action, Arrive):
        release.arrive(action.items)
    elif isinstance(action, Schedule):
        release.schedule(action.rid)
    elif isinstance(action, Complete):
        release.complete(action.rid)
    elif isinstance(action, Reset):
        release.reset()
    else:
        raise TypeError(f"not an encoder action: {action!r}")


def _disagreement(release: ReleaseEncoderCache, spec: EncoderState) -> str | None:
    mine = {e.identity: e.embeds for e in spec.entries}
    if release.entries() != mine:
        return f"the release's entries {release.entries()}, the spec's {mine}"
    if (release.fault is None) != (spec.fault is None):
        return f"the release's fault {release.fault!r}, the spec's {spec.fault!r}"
    consumed = [(c.embeddings, c.placeholders, c.sent) for c in spec.last_consumed]
    if release.fault is None and release.consumed != consumed:
        return f"the release consumed {release.consumed}, the spec {consumed}"
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m model_checks.adapters.vllm_encoder",
                                     description=__doc__.splitlines()[0] if __doc__ else "")
    parser.add_argument("--replay", type=Path, required=True, help="a witness document")
    parser.add_argument("--patched", action="store_true",
                        help="replay on the tag patch's copy (scripts/setup-vllm-patched)")
    args = parser.parse_args(argv)
    return replay(args.replay, args.patched)


if __name__ == "__main__":
    sys.exit(main())
