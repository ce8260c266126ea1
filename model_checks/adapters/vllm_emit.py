"""`conform --emit-pytest` for the vLLM adapters: each failure as a pytest file in vLLM's own
calls, importing torch and vLLM only (nothing of this project), so that it runs under plain
pytest where vLLM's CPU packages are installed and can be pasted into vLLM's tests/.

The file builds P0's `LruKeyReplicatedSenderCache` and P1's `LruKeyReplicatedReceiverCache`
over a budget of BUDGET bytes and spells each adapter call through four small helpers, each
standing for the vLLM caller named in its docstring (`probe`: the processor's cache lookup,
`update`: `_merge_mm_kwargs`, `receive`: the engine core's `preprocess_add_request`,
`invalidate`: the offline engine's miss handling). On a release whose sender tags its
entries (`get_and_update_tagged`, the tag patch), `update` and `receive` pass the tags as the
patched callers do, so one file fails on the release that breaks the property and passes on
one that keeps it. A request the spec's P0 failed is delivered if this P0 accepts it
(`deliver`: S1 on what is served, the miss reply handled), and the S1 check settles the
checked request (`settle`: after a miss, the reply and the client's resend with every
item's media) and asserts every item served, each tensor of the content its placeholders
say: a file whose engine serves nothing fails. The harness's processor is embedded
(`codec`'s layout).

Not expressible here (no file, the reason printed): D6's item-at-a-time update, and checks
on the shadow's or the receiver's contents (the adapter's views read cachetools' internals).
"""

from __future__ import annotations

from model_checks.conform.emit import Unsupported
from model_checks.conform.lru_lockstep.calls import Calls, Settle
from spec import Config

HEADER = '''"""{title}

Written by `python -m model_checks conform --emit-pytest` from the shrunk trace of
{where}, in vLLM's own calls: each line is one call, the spec step as a comment.
It fails while the caches {how}.
"""

from dataclasses import dataclass

import torch
from vllm.config import MultiModalConfig
from vllm.multimodal.cache.base import MultiModalCacheMissError
from vllm.multimodal.cache.lru import (
    LruKeyReplicatedReceiverCache,
    LruKeyReplicatedSenderCache,
)
from vllm.multimodal.inputs import (
    MultiModalBatchedField,
    MultiModalFeatureSpec,
    MultiModalFieldElem,
    MultiModalKwargsItem,
    PlaceholderRange,
)

BUDGET = {budget}  # bytes, for both caches


@dataclass(frozen=True)
class ModelConfig:
    """What the caches read of `vllm.config.ModelConfig`."""

    multimodal: MultiModalConfig

    def get_multimodal_config(self):
        return self.multimodal


CONFIG = ModelConfig(MultiModalConfig(mm_processor_cache_gb=BUDGET / (1 << 30)))


def sender():
    return LruKeyReplicatedSenderCache(CONFIG)


def receiver():
    return LruKeyReplicatedReceiverCache(CONFIG)


def layout(nbytes):
    floats, rest = divmod(nbytes, 4)
    shorts, single = divmod(rest, 2)
    return [part for part in ((\"pixel_values\", torch.float32, (floats, 1)),
                              (\"patch_ids\", torch.int16, (shorts,)),
                              (\"image_grid\", torch.uint8, (single,))) if part[2][0]]


def kwargs(value, size):
    """A processed item of `size` bytes whose every element is `value`."""
    return MultiModalKwargsItem({{
        name: MultiModalFieldElem(data=torch.full(shape, value, dtype=dtype),
                                  field=MultiModalBatchedField())
        for name, dtype, shape in layout(size)}})


def processed(value, size):
    """The processor's output for media (value, size): the item and its prompt updates (a
    placeholder range here; the caches store them without reading them)."""
    return kwargs(value, size), [PlaceholderRange(offset=value, length=2 * size + 1)]


def item(identity, value, size):
    return identity, (value, size)


def uuid_only(identity):
    return identity, None


def code(data):
    values = {{int(v) for t in data.get_data().values() for v in t.reshape(-1).tolist()}}
    return values.pop() if len(values) == 1 else None


def probe(p0, request):
    """The processor's lookup (`_get_cache_missing_items`): `is_cached` (no reordering), then
    the processor on each miss; a miss sent without media is the client's error (None)."""
    hits = p0.is_cached([identity for identity, _ in request])
    if any(not hit and media is None for (_, media), hit in zip(request, hits)):
        return None
    return [(identity, None if hit else processed(*media))
            for (identity, media), hit in zip(request, hits)]


def update(p0, probed):
    """`BaseMultiModalProcessor._merge_mm_kwargs`: touch every identity, update the items,
    release the touches; the message is (identity, data or None, prompt updates, tag) per
    item. The sender's AssertionError (a hit evicted before its update) fails this request
    only (None)."""
    identities = [identity for identity, _ in probed]
    for identity in identities:
        p0.touch_sender_cache_item(identity)
    try:
        if hasattr(p0, "get_and_update_tagged"):  # a sender that tags its entries
            out = p0.get_and_update_tagged([p for _, p in probed], identities)
        else:
            out = [(*p0.get_and_update_item(p, i), None) for i, p in probed]
    except AssertionError:
        return None
    finally:
        p0.release_sender_touches()
    return [(identity, *result) for identity, result in zip(identities, out)]


def on_the_wire(message, sizes):
    """The channel re-encodes each payload to the bytes P1 accounts for it."""
    return [(i, kwargs(code(data), sizes[i]) if data is not None and i in sizes else data,
             updates, tag) for i, data, updates, tag in message]


def feature(identity, data, updates, tag):
    tagged = {{}} if tag is None else {{"mm_tag": tag}}
    return MultiModalFeatureSpec(data=data, modality="image", identifier=identity,
                                 mm_position=updates[0], mm_hash=identity, **tagged)


def receive(p1, message):
    """`EngineCore.preprocess_add_request`: `get_and_update_features` over one feature per
    item; the served features, or the miss error listing every missed identity."""
    try:
        return p1.get_and_update_features([feature(*w) for w in message])
    except MultiModalCacheMissError as error:
        return error


def missed(delivered):
    return tuple(delivered.mm_hashes) if isinstance(delivered, MultiModalCacheMissError) else ()


def served(delivered):
    return [] if isinstance(delivered, MultiModalCacheMissError) else delivered


def invalidate(p0, identities):
    """`LLMEngine`'s output handling: drop every identity the miss reply lists."""
    for identity in identities:
        p0.invalidate(identity)


def check_s1(delivered):
    """S1 on what a delivery served: each tensor of the content its placeholders say."""
    assert [(f.mm_hash, code(f.data)) for f in served(delivered)] == [
        (f.mm_hash, f.mm_position.offset) for f in served(delivered)]


def deliver(p0, p1, message):
    """A request the spec's P0 failed, if this P0 accepted it (a message): it reaches the
    engine, what is served keeps S1, and the miss reply is handled."""
    if message is None:
        return
    delivered = receive(p1, message)
    check_s1(delivered)
    invalidate(p0, missed(delivered))


def settle(p0, p1, delivered, resend):
    """A delivery as the client ends up with it: served as it is, or, after a miss, the
    reply handled and the request resent with every item's media (`resend`), once."""
    if not missed(delivered):
        return delivered
    invalidate(p0, missed(delivered))
    probed = probe(p0, resend)
    message = None if probed is None else update(p0, probed)
    return [] if message is None else receive(p1, message)


def test_{name}():
    {front_ends_line}
    engine = receiver()
'''


class VllmCalls(Calls):
    """The file in vLLM's calls (`HEADER`'s helpers); one `fe<i>` sender per front end."""

    def header(self, adapter_path: str, config: Config, title: str, where: str, how: str,
               name: str) -> str:
        del adapter_path  # the file imports vLLM, never the adapter
        fes = ", ".join(f"fe{i}" for i in range(config.front_ends))
        return HEADER.format(title=title, where=where, how=how, budget=config.budget,
                             name=name, front_ends_line=f"{fes}, = [sender() for _ in "
                             f"range({config.front_ends})]")

    def probe(self, rid: int, fe: int) -> str | None:
        return f"p{rid} = probe(fe{fe}, r{rid})"

    def update(self, rid: int, fe: int) -> str | None:
        return f"m{rid} = update(fe{fe}, p{rid})"

    def update_item(self, rid: int, fe: int) -> str | None:
        raise Unsupported("an item-at-a-time update (D6) has no vLLM caller to stand for")

    def abandon(self, rid: int, fe: int) -> str | None:
        return None  # rejected after the update: no call, the shadow keeps what it recorded

    def receive(self, rid: int) -> str | None:
        return f"d{rid} = receive(engine, m{rid})"

    def reply(self, rid: int, fe: int) -> str | None:
        return f"invalidate(fe{fe}, missed(d{rid}))"

    def clear(self, fe: int | None) -> str | None:
        return "engine.clear_cache()" if fe is None else f"fe{fe}.clear_cache()"

    def restart(self, fe: int | None) -> str | None:
        return "engine = receiver()" if fe is None else f"fe{fe} = sender()"

    def accepted(self, rid: int, fe: int) -> str | None:
        return f"deliver(fe{fe}, engine, m{rid})"

    def accepted_at_probe(self, rid: int, fe: int) -> str | None:
        return f"deliver(fe{fe}, engine, None if p{rid} is None else update(fe{fe}, p{rid}))"

    def s1(self, rid: int, settle: Settle) -> list[str]:
        d = f"d{rid}"
        return [f"{d} = settle(fe{settle.fe}, engine, {d}, {settle.resend})  # a miss: the "
                "reply, then the client's resend",
                f"assert [f.mm_hash for f in served({d})] == {list(settle.identities)!r}"
                "  # every item served",
                "# S1: every tensor handed to the model is of the content its placeholders say",
                f"check_s1({d})"]

    def s2(self, config: Config) -> list[str]:
        fes = ", ".join(f"fe{i}" for i in range(config.front_ends))
        return ["assert engine._cache.currsize <= BUDGET  # S2: P1",
                f"assert all(f._cache.currsize <= BUDGET for f in ({fes},))  # S2: P0"]

    def shadow(self, index: int, want: list[tuple[object, ...]]) -> list[str]:
        raise Unsupported("a check on the shadow's entries needs the adapter's view")

    def receiver(self, want: list[tuple[object, ...]]) -> list[str]:
        raise Unsupported("a check on the receiver's entries needs the adapter's view")

    def missed(self, rid: int, identities: tuple[str, ...]) -> list[str]:
        return [f"assert missed(d{rid}) == {identities!r}  # the miss the spec reports"]

    def served(self, rid: int, want: list[tuple[object, ...]]) -> list[str]:
        return [f"assert [(f.mm_hash, code(f.data), f.mm_position.offset) for f in "
                f"served(d{rid})] == {want!r}  # what the spec serves"]


VLLM_CALLS = VllmCalls()
