"""The LRU design's traces in its adapter's calls, for `conform ... --emit-pytest DIR`
(`model_checks.conform.emit` checks, shrinks and writes the files).

The file builds the sides with the user's factory and makes the calls the lockstep made,
one line per adapter call with the spec step it belongs to as a comment, then asserts the
broken property (or the observation that differed) on the implementation's own
observations: S1 on the served tensors' values against their placeholders, S2 on the
recorded sizes, S3 on a returned fault, a shadow, the receiver, a delivery or the processor
calls as the spec has them at that step. It imports torch, the adapter's module and
`model_checks.conform.adapter` (its value types; no spec, no Hypothesis), and embeds the
harness's processor (`codec`'s layout), so it runs under plain pytest and can be pasted into
the implementation's suite. D9's re-encoding on the channel is a line of its own
(`on_the_wire`, not a call). What it cannot express (the client's own retry loop, two
engines, another observation) is `emit.Unsupported`.

An adapter may write the file in its implementation's own calls instead: an adapter object
with a `pytest_calls` attribute (a `Calls`) renders the header, each call and each check
itself (`model_checks.adapters.vllm_emit`: vLLM's caches, no import of this project).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from model_checks.conform import codec
from model_checks.conform.adapter import Adapter, ItemUpdates, Setup, build_front_end
from model_checks.conform.emit import Emitted, Line, Unsupported, shrunk, write
from model_checks.conform.lru_lockstep.runs import spec_trace
from model_checks.kernel import lru_notation
from spec import Config, Drift, Outcome, Stage, State, lru
from spec import transitions as t
from spec.state import ClientItem
from spec.transitions import Action

HEADER = '''"""{title}

Written by `python -m model_checks conform --emit-pytest` from the shrunk trace of
{where}: each line is one call of the adapter, the spec step as a comment.
It fails while the implementation {how}.
"""

import torch

from model_checks.conform import adapter as api
from {module} import {factory} as factory

BUDGET, VARIANT, FRONT_ENDS = {budget}, {variant!r}, {front_ends}
PROCESSED = [0]


def layout(nbytes):
    floats, rest = divmod(nbytes, 4)
    shorts, single = divmod(rest, 2)
    return [part for part in ((\"pixel_values\", torch.float32, (floats, 1)),
                              (\"patch_ids\", torch.int16, (shorts,)),
                              (\"image_grid\", torch.uint8, (single,))) if part[2][0]]


def encode(value, size):
    return {{name: torch.full(shape, value, dtype=dtype) for name, dtype, shape in layout(size)}}


def process(media):
    PROCESSED[0] += 1
    value, size = (int(v) for v in media.tolist())
    return encode(value, size), (value, 2 * size + 1)


def on_the_wire(message, sizes):
    """The channel re-encodes each payload to the bytes P1 accounts for it (D9)."""
    return api.WireMessage(message.request_id, tuple(
        w if w.payload is None or w.identity not in sizes else api.WireItem(
            w.identity, encode(code(w.payload), sizes[w.identity]), w.placeholders, w.tag)
        for w in message.items))


def item(identity, code, size):
    return api.ItemIn(identity, torch.tensor([code, size], dtype=torch.int64))


def uuid_only(identity):
    return api.ItemIn(identity, None)


def code(payload):
    values = {{int(v) for tensor in payload.values() for v in tensor.reshape(-1).tolist()}}
    return values.pop() if len(values) == 1 else None


def missed(delivered):
    return delivered.identities if isinstance(delivered, api.Missed) else ()


def test_{name}():
    adapter = factory()
    setup = api.Setup(BUDGET, VARIANT, FRONT_ENDS, process)
    {front_ends_line}
    engine = adapter.engine(setup)
'''


class Calls:
    """How a file spells its header, each call and each check: here, the adapter's calls
    (the file imports the adapter's module and `model_checks.conform.adapter`). A subclass
    may spell them in the implementation's own calls; a method that cannot raises
    `Unsupported` (no file, with the reason); `None` from a call method means no line."""

    def header(self, adapter_path: str, config: Config, title: str, where: str, how: str,
               name: str) -> str:
        """The file up to the test body's first call (the sides built)."""
        module, _, factory = adapter_path.partition(":")
        fes = ", ".join(f"fe{i}" for i in range(config.front_ends))
        return HEADER.format(title=title, where=where, how=how, module=module,
                             factory=factory, budget=config.budget,
                             variant=config.variant.name, front_ends=config.front_ends,
                             name=name, front_ends_line=f"{fes}, = [adapter.front_end(setup, "
                             "i) for i in range(FRONT_ENDS)]")

    def probe(self, rid: int, fe: int) -> str | None:
        return f"p{rid} = fe{fe}.probe(r{rid})"

    def update(self, rid: int, fe: int) -> str | None:
        return f"m{rid} = fe{fe}.update(p{rid})"

    def update_item(self, rid: int, fe: int) -> str | None:
        return f"m{rid} = fe{fe}.update_item(p{rid})"

    def abandon(self, rid: int, fe: int) -> str | None:
        return f"fe{fe}.abandon(m{rid}.request_id)"

    def receive(self, rid: int) -> str | None:
        return f"d{rid} = engine.receive(m{rid})"

    def reply(self, rid: int, fe: int) -> str | None:
        return f"fe{fe}.handle_reply(m{rid}.request_id, missed(d{rid}))"

    def clear(self, fe: int | None) -> str | None:
        """Clear front end `fe`'s shadow, or (None) the engine's cache."""
        return "engine.clear()" if fe is None else f"fe{fe}.clear()"

    def restart(self, fe: int | None) -> str | None:
        """Restart front end `fe`, or (None) the engine."""
        return "engine.restart()" if fe is None else f"fe{fe}.restart()"

    def accepted(self, rid: int, fe: int) -> str | None:
        """Request `rid`, which the spec's P0 failed (its assertion), if the
        implementation's P0 accepted it: delivered to the engine, its reply handled. None:
        no line (the adapter's calls report the failure as the spec does)."""
        del rid, fe
        return None

    def accepted_at_probe(self, rid: int, fe: int) -> str | None:
        """Request `rid`, which the spec's P0 refused at its lookup (an item sent without
        media that its shadow lacks), if the implementation's lookup found every item:
        updated and delivered, its reply handled. None: no line."""
        del rid, fe
        return None

    def s1(self, rid: int, settle: Settle) -> list[str]:
        """S1 on request `rid`'s last delivery (`settle`: the request as the client resends
        it after a miss, and what must then be served); a delivery that serves nothing (a
        miss has no `inputs`) or leaves an item out fails."""
        d = f"d{rid}"
        identities = list(settle.identities)
        return ["# S1: every tensor handed to the model is of the content its placeholders say",
                f"assert [(i.identity, code(i.payload)) for i in {d}.inputs] == "
                f"[(i.identity, i.placeholders[0]) for i in {d}.inputs]",
                f"assert [i.identity for i in {d}.inputs] == {identities!r}  # every item"]

    def s2(self, config: Config) -> list[str]:
        fes = ", ".join(f"fe{i}" for i in range(config.front_ends))
        return ["assert sum(e.size for e in engine.receiver()) <= BUDGET  # S2: P1",
                f"assert all(sum(e.size for e in f.shadow()) <= BUDGET for f in ({fes},))"
                "  # S2: every shadow"]

    def shadow(self, index: int, want: list[tuple[object, ...]]) -> list[str]:
        return [f"assert [(e.identity, e.size, e.placeholders[0]) for e in fe{index}.shadow()]"
                f" == {want!r}  # the shadow the spec has here"]

    def receiver(self, want: list[tuple[object, ...]]) -> list[str]:
        return [f"assert [(e.identity, e.size, code(e.payload)) for e in engine.receiver()] "
                f"== {want!r}  # the cache the spec has here"]

    def missed(self, rid: int, identities: tuple[str, ...]) -> list[str]:
        return [f"assert missed(d{rid}) == {identities!r}  # the miss the spec reports"]

    def served(self, rid: int, want: list[tuple[object, ...]]) -> list[str]:
        return [f"assert [(i.identity, code(i.payload), i.placeholders[0]) for i in "
                f"d{rid}.inputs] == {want!r}  # what the spec serves"]


ADAPTER_CALLS = Calls()


def calls_of(adapter: Adapter) -> Calls:
    """The adapter's own spelling (`pytest_calls`), else the adapter's calls."""
    calls = getattr(adapter, "pytest_calls", None)
    return calls if isinstance(calls, Calls) else ADAPTER_CALLS


@dataclass(frozen=True)
class Settle:
    """What an S1 check settles a request with: its front end, the request as the client
    resends it after a miss (every item with its media, in the file's spelling), and the
    identities that must then be served, in request order."""

    fe: int
    resend: str
    identities: tuple[str, ...]


@dataclass
class _Gen:
    """The calls of a trace, action by action (the mapping of `lockstep.implementation`)."""

    config: Config
    item_level: bool
    calls: Calls
    lines: list[Line]
    channel: list[int]
    replies: list[tuple[int, int]]
    last_receive: int | None = None
    sent_items: dict[int, tuple[ClientItem, ...]] = field(default_factory=dict)
    front_ends: dict[int, int] = field(default_factory=dict)

    def items(self, items: Sequence[ClientItem], *, with_media: bool = False) -> str:
        parts = [f"item({i.identity!r}, {codec.code_of(self.config, i.content)}, "
                 f"{self.config.shadow_bytes(i.content)})" if i.has_data or with_media
                 else f"uuid_only({i.identity!r})" for i in items]
        return "(" + ", ".join(parts) + ("," if len(parts) == 1 else "") + ")"

    def settle(self, rid: int) -> Settle:
        """How the check on request `rid` settles it (`Settle`)."""
        items = self.sent_items[rid]
        return Settle(self.front_ends[rid], self.items(items, with_media=True),
                      tuple(i.identity for i in items))

    def add(self, text: str | None, comment: str, call: bool = True) -> None:
        if text is not None:
            self.lines.append(Line(f"{text}  # {comment}", call))

    def step(self, action: Action, before: State, after: State, comment: str) -> None:
        """The calls of one spec step."""
        if isinstance(action, t.Submit):
            self.sent_items[len(before.requests)] = tuple(action.items)
            self.add(f"r{len(before.requests)} = {self.items(action.items)}", comment, False)
        elif isinstance(action, t.Retry):
            self.sent_items[action.rid] = tuple(after.requests[action.rid].items)
            self.add(f"r{action.rid} = {self.items(after.requests[action.rid].items)}",
                     comment, False)
        elif isinstance(action, t.P0Handle | t.P0HandleRejected | t.P0Process):
            self._handle(action, before, after, comment)
        elif isinstance(action, t.P0UpdateItem):
            self._update_item(action, before, after, comment)
        elif isinstance(action, t.P1Receive):
            rid = self.channel.pop(action.index)
            self.add(self.calls.receive(rid), comment)
            self.replies.append((rid, after.requests[rid].front_end))
            self.last_receive = rid
        elif isinstance(action, t.P0ReceiveReply):
            rid, fe = self.replies.pop(0)
            self.add(self.calls.reply(rid, fe), comment)
        else:
            self._side_event(action, comment)

    def _handle(self, action: t.P0Handle | t.P0HandleRejected | t.P0Process, before: State,
                after: State, comment: str) -> None:
        rid = action.rid
        request = after.requests[rid]
        fe = request.front_end
        self.front_ends[rid] = fe
        self.add(self.calls.probe(rid, fe), comment)
        shadow = before.shadows[fe]
        if isinstance(action, t.P0Process):
            return  # the probe's step: the update is a step of its own
        if any(not i.has_data and not lru.probe(shadow, i.identity)
               for i in before.requests[rid].items):
            # a rejection at the probe: no update, unless the implementation's P0 has
            # every item (kept when shrinking, as `accepted`)
            self.add(self.calls.accepted_at_probe(rid, fe), comment, call=False)
            return
        self.add(self.calls.update(rid, fe), comment)
        if isinstance(action, t.P0HandleRejected) and request.outcome is Outcome.REJECTED:
            self.add(self.calls.abandon(rid, fe), comment)
        elif request.stage is Stage.IN_FLIGHT:
            self._sent(rid, after, comment)
        elif request.outcome is Outcome.P0_ASSERT:
            # kept when shrinking: an implementation that accepts what the spec's P0
            # failed must not escape the check by never delivering it
            self.add(self.calls.accepted(rid, fe), comment, call=False)

    def _sent(self, rid: int, after: State, comment: str) -> None:
        """Request `rid`'s message enters the channel (D9: re-encoded to P1's sizes)."""
        self.channel.append(rid)
        if not self.config.enables(Drift.D9):
            return
        sizes = {i.identity: self.config.receiver_bytes(i.content)
                 for i in after.requests[rid].items
                 if self.config.receiver_bytes(i.content) != self.config.shadow_bytes(i.content)}
        if sizes:
            self.add(f"m{rid} = on_the_wire(m{rid}, {sizes!r})", comment, False)

    def _update_item(self, action: t.P0UpdateItem, before: State, after: State,
                     comment: str) -> None:
        rid = action.rid
        fe = after.requests[rid].front_end
        if self.item_level:
            self.add(self.calls.update_item(rid, fe), comment)
        elif before.requests[rid].stage is Stage.PROCESSED:
            self.add(self.calls.update(rid, fe), comment)
        if after.requests[rid].stage is Stage.IN_FLIGHT:
            self._sent(rid, after, comment)

    def _side_event(self, action: Action, comment: str) -> None:
        if isinstance(action, t.ClearBoth):
            for fe in range(self.config.front_ends):
                self.add(self.calls.clear(fe), comment)
            self.add(self.calls.clear(None), comment)
        elif isinstance(action, t.P0Clear | t.P0ClearForReset):
            self.add(self.calls.clear(action.front_end), comment)
        elif isinstance(action, t.P1Clear | t.P1Reset):
            self.add(self.calls.clear(None), comment)
        elif isinstance(action, t.P0Restart):
            self.add(self.calls.restart(action.front_end), comment)
        elif isinstance(action, t.P1Restart):
            self.add(self.calls.restart(None), comment)
        else:
            raise Unsupported(f"no call for {lru_notation.action(action)}")


# -- the check -------------------------------------------------------------------------------


def _code(config: Config, content: object) -> object:
    if isinstance(content, tuple):  # ("garbled", ...): no content
        raise Unsupported("the spec side names no content")
    return codec.code_of(config, content)  # type: ignore[arg-type]


def check_lines(config: Config, caught_by: str, spec_side: object, last_receive: int | None,
                calls: Calls = ADAPTER_CALLS, settle: Settle | None = None) -> list[str]:
    """The assertion of what broke, on the implementation's observations."""
    if caught_by == "S1":
        if last_receive is None or settle is None:
            raise Unsupported("S1 without a delivery")
        return calls.s1(last_receive, settle)
    if caught_by == "S2":
        return calls.s2(config)
    if caught_by.startswith("shadow "):
        index = int(caught_by.split()[1])
        return calls.shadow(index, [(e[0], e[1], _code(config, e[2]))
                                    for e in _entries(spec_side)])
    if caught_by == "receiver":
        return calls.receiver([(e[0], e[1], _code(config, e[2])) for e in _entries(spec_side)])
    if caught_by == "delivery":
        return _delivery_check(config, spec_side, calls)
    raise Unsupported(f"no assertion on the implementation's calls for {caught_by!r}")


def _entries(side: object) -> list[tuple[object, ...]]:
    entries = list(side) if isinstance(side, tuple) else []
    if any(not isinstance(e, tuple) or e[0] == "ghost" for e in entries):
        raise Unsupported("a ghost key has no expression in the adapter's views")
    return entries


def _delivery_check(config: Config, side: object, calls: Calls) -> list[str]:
    if not isinstance(side, tuple) or len(side) != 3:
        raise Unsupported("a delivery that is not a served or missed request")
    rid, kind, items = side
    if kind == "missed":
        return calls.missed(rid, tuple(items))
    return calls.served(rid, [(i[0], _code(config, i[1]), _code(config, i[2])) for i in items])


# -- the file ----------------------------------------------------------------------------------


def _body(config: Config, actions: Sequence[Action], item_level: bool, calls: Calls
          ) -> tuple[list[Line], int | None, Settle | None]:
    trace = spec_trace(config, actions)
    if trace is None:
        raise Unsupported("the actions are not a trace of the spec")
    if config.engines != 1:
        raise Unsupported("a second engine behind a router has no calls")
    gen = _Gen(config, item_level, calls, [], [], [])
    for number, (before, taken) in enumerate(zip(trace.states(), trace.steps,
                                                 strict=False), start=1):
        gen.step(taken.action, before, taken.state,
                 f"{number}. {lru_notation.action(taken.action)}")
    last = gen.last_receive
    return gen.lines, last, None if last is None else gen.settle(last)


Found = tuple[str, str, Config, Sequence[Action], str, object]
"""A failure to write a file for: the test's name, where it was found, the configuration and
actions it was found on, the property or field that caught it, and the spec's side of the
disagreement."""


def emitted(adapter: Adapter, adapter_path: str, found: Found) -> Emitted:
    """The shrunk pytest file for a failure of what caught it at the last of its actions."""
    name, where, config, actions, caught_by, spec_side = found
    setup = Setup(config.budget, config.variant.name, config.front_ends, codec.process_media)
    item_level = isinstance(build_front_end(adapter, setup, 0), ItemUpdates)
    how = f"breaks {caught_by}" if caught_by[:1] in "SLH" else f"differs in {caught_by}"
    title = f"{caught_by} on {adapter.name}, as conform found it in {where}"
    calls = calls_of(adapter)
    try:
        lines, last, settle = _body(config, actions, item_level, calls)
        check = check_lines(config, caught_by, spec_side, last, calls, settle)
        head = calls.header(adapter_path, config, title, where, how, name)
        return shrunk(head, lines, "".join(f"    {line}\n" for line in check), name)
    except Unsupported as why:
        return Emitted(None, 0, str(why))


def emit_all(directory: Path, adapter: Adapter, adapter_path: str, failures: Sequence[Found]
             ) -> list[str]:
    """One file per failure; the lines that say what was written, or why nothing was."""
    said = []
    for found in failures:
        name, where, caught_by = found[0], found[1], found[4]
        done = emitted(adapter, adapter_path, found)
        path = None if done.text is None else write(directory, name, done.text)
        said.append(f"pytest file for {caught_by} ({where}): {path} ({done.calls} "
                    "implementation calls)" if path is not None else
                    f"no pytest file for {caught_by} ({where}): {done.why}")
    return said
