"""A history: one record per call of an implementation's sides, and its JSON-lines log.

A call has the client that made it (a thread's or an asyncio task's name), the side it was
made on (`fe0`, `fe1`: a front end; `engine`), the operation (`OPS`), the items of a request
(identity, content, bytes, whether media came with it), its invocation and response times
(any monotonic integer clock: nanoseconds, or a logical counter under a controlled schedule)
and what it returned (`Result`). Contents are labels: the one notation's `a`, `a@1` when the
harness made them, a digest of the media when a server logs its own; two items carry the same
content exactly when their labels are equal.

The log is JSON lines: a header (`Header`, whose `schema` is `SCHEMA`), then one call per
line. docs/history.md documents every field; `read_log` refuses a file that breaks the
schema with one line saying where and what (`LogError`), and reading changes nothing.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from model_checks.kernel import lru_notation
from spec import DRIFT_IDS, VARIANT_NAMES

SCHEMA = "paired-caches-history/1"
"""The log format's name and version; a reader refuses any other."""

OPS = ("serve", "clear", "restart")
"""Operations a history holds: `serve` (one request, end to end: the front end's probe and
update, the engine's receive, the front end's handling of the reply), `clear` and `restart`
(of the side named)."""

RESULT_KINDS = ("served", "missed", "rejected", "refused", "fault", "done")
"""`served` (the inputs handed to the model), `missed` (the retryable miss error, its
identities), `rejected` (a client error, its identities), `refused` (the engine refused the
request after P0's update, D2), `fault` (an assertion, a crash, a hang: `fault` names the
kind), `done` (a clear or a restart that returned)."""


class LogError(ValueError):
    """A log that does not follow the schema: one line, `line N: got X, expected Y`."""


@dataclass(frozen=True, slots=True)
class Item:
    """One item of a request: `identity`, its `content` label, the `bytes` the processed
    item takes, and whether the client attached its media (`media`; False: UUID only)."""

    identity: str
    content: str
    bytes: int
    media: bool = True


@dataclass(frozen=True, slots=True)
class Input:
    """One item handed to the model: its identity, the content its tensor decodes to and the
    content its placeholders describe (equal contents: a consistent pairing, S1)."""

    identity: str
    tensor: str
    placeholders: str


@dataclass(frozen=True, slots=True)
class Result:
    """What a call returned (`kind` among `RESULT_KINDS`). `evicted_p0`/`evicted_p1`: the
    identities the call evicted from the shadow/receiver, where the implementation reports
    evictions (None: not observed). `shadow_after`, of a `refused` call: the identities the
    front end's shadow held once it handled the refusal, where no other call began or
    ended during the call (None: not observed)."""

    kind: str
    identities: tuple[str, ...] = ()
    inputs: tuple[Input, ...] = ()
    fault: str = ""
    detail: str = ""
    evicted_p0: tuple[str, ...] | None = None
    evicted_p1: tuple[str, ...] | None = None
    shadow_after: tuple[str, ...] | None = None


HINTS = ("p0", "p1", "reply")
"""The parts of a serve call a hint may time (docs/history.md)."""


@dataclass(frozen=True, slots=True)
class Call:
    """One call: `number` (its position in the log), `client`, `side`, `op`, `items`,
    `invoked` < `returned` (the client's clock), `result`; `hints`: when, on the same clock,
    the call last accessed P0's cache before the engine, the engine's cache, and P0's cache
    after it (the reply), where the yield hook saw it (a search order, never a constraint;
    None: not seen)."""

    number: int
    client: str
    side: str
    op: str
    items: tuple[Item, ...]
    invoked: int
    returned: int
    result: Result
    hints: tuple[int | None, int | None, int | None] = (None, None, None)

    @property
    def front_end(self) -> int:
        """The front end's index (`fe1` -> 1); -1 for the engine."""
        return int(self.side[2:]) if self.side.startswith("fe") else -1


@dataclass(frozen=True, slots=True)
class Header:
    """The log's first line: `variant`, `budget`, `front_ends`, the `environment` the
    deployment has (drift ids; None: not stated), and `source` (who wrote it)."""

    variant: str
    budget: int
    front_ends: int = 1
    environment: tuple[str, ...] | None = None
    source: str = ""
    final: tuple[tuple[str, tuple[str, ...]], ...] | None = None
    """The caches as the run left them, read once every call had returned: per side
    (`fe0`, `fe1`, `engine`) its identities, least recent first; None: not read (a log
    may leave it out; a history stopped at a fault has none)."""


@dataclass(frozen=True, slots=True)
class History:
    """A header and its calls, in log order (`Call.number` = position)."""

    header: Header
    calls: tuple[Call, ...] = field(default=())

    def prefix(self, count: int) -> History:
        """The first `count` calls to return, renumbered in their log order: the history as
        it stood when the `count`-th response came (calls still running then are left out)."""
        kept = sorted(sorted(self.calls, key=lambda c: c.returned)[:count],
                      key=lambda c: c.number)
        header = self.header if count >= len(self.calls) else replace(self.header, final=None)
        return History(header, renumbered(kept))

    def as_of(self, count: int) -> tuple[History, frozenset[int]]:
        """The history as it stood when the `count`-th response came: the first `count`
        calls to return and the calls open then (invoked before that response), renumbered
        in their log order, with the numbers of the open ones. An open call may have taken
        any of its parts by then, or none (`explain`'s `open_calls`): an explanation of the
        whole history, cut there, is one of this history, so a history with none has none."""
        by_return = sorted(self.calls, key=lambda c: c.returned)
        cut = by_return[count - 1].returned if count > 0 else -1
        opened = {c.number for c in by_return[count:] if c.invoked < cut}
        kept = sorted([*by_return[:count], *(c for c in self.calls if c.number in opened)],
                      key=lambda c: c.number)
        header = self.header if count >= len(self.calls) else replace(self.header, final=None)
        return (History(header, renumbered(kept)),
                frozenset(n for n, c in enumerate(kept) if c.number in opened))


def renumbered(calls: Iterable[Call]) -> tuple[Call, ...]:
    """`calls` with `number` set to their position."""
    return tuple(Call(n, c.client, c.side, c.op, c.items, c.invoked, c.returned, c.result,
                      c.hints) for n, c in enumerate(calls))


# -- writing -----------------------------------------------------------------------------------


def _result_json(result: Result) -> dict[str, Any]:
    data: dict[str, Any] = {"kind": result.kind}
    if result.identities:
        data["identities"] = list(result.identities)
    if result.inputs:
        data["inputs"] = [{"identity": i.identity, "tensor": i.tensor,
                           "placeholders": i.placeholders} for i in result.inputs]
    if result.kind == "fault":
        data["fault"], data["detail"] = result.fault, result.detail
    for name in ("evicted_p0", "evicted_p1", "shadow_after"):
        value = getattr(result, name)
        if value is not None:
            data[name] = list(value)
    return data


def call_json(call: Call) -> dict[str, Any]:
    """One call as its log line's object."""
    data = {
        "call": call.number, "client": call.client, "side": call.side, "op": call.op,
        "items": [{"identity": i.identity, "content": i.content, "bytes": i.bytes,
                   "media": i.media} for i in call.items],
        "invoked": call.invoked, "returned": call.returned,
        "result": _result_json(call.result), "text": call_text(call),
    }
    hints = {name: t for name, t in zip(HINTS, call.hints, strict=True) if t is not None}
    if hints:
        data["hints"] = hints
    return data


def header_json(header: Header) -> dict[str, Any]:
    data: dict[str, Any] = {"schema": SCHEMA, "variant": header.variant, "budget": header.budget,
            "front_ends": header.front_ends,
            "environment": None if header.environment is None else list(header.environment),
            "source": header.source}
    if header.final is not None:
        data["final"] = {side: list(ids) for side, ids in header.final}
    return data


def log_lines(history: History) -> list[str]:
    """The log, one JSON object per line (header first)."""
    return [json.dumps(header_json(history.header), sort_keys=True)] + [
        json.dumps(call_json(c), sort_keys=True) for c in history.calls]


def write_log(path: Path, history: History) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(log_lines(history)) + "\n")


# -- the one notation ---------------------------------------------------------------------------


def item_text(item: Item) -> str:
    """`a` (its content label), `a@1`, `a?` without media; `a=LABEL` where the label does
    not start with the identity (a digest)."""
    label = item.content if item.content.split("@")[0] == item.identity else (
        f"{item.identity}={item.content}")
    return label + ("" if item.media else "?")


def result_text(result: Result) -> str:
    """`served a:a/a b:b@1/b`, `missed a,b`, `rejected a`, `refused`, `FAULT p0-assert`,
    `done`;
    evictions as `evicted P0 a, P1 b`."""
    if result.kind == "served":
        text = "served " + " ".join(lru_notation.served_text(i.identity, i.tensor, i.placeholders)
                                    for i in result.inputs)
    elif result.kind in ("missed", "rejected"):
        text = f"{result.kind} " + ",".join(result.identities)
    elif result.kind == "fault":
        text = f"FAULT {result.fault}"
    elif result.kind == "refused":
        text = "refused"
    else:
        text = "done"
    evicted = [f"{side} {','.join(ids)}" for side, ids in
               (("P0", result.evicted_p0), ("P1", result.evicted_p1)) if ids]
    return text + (f"; evicted {', '.join(evicted)}" if evicted else "")


def call_text(call: Call) -> str:
    """`fe0 serve [a b@1] -> served a:a/a b:b@1/b@1`, `engine clear -> done`."""
    items = f" [{' '.join(item_text(i) for i in call.items)}]" if call.op == "serve" else ""
    return f"{call.side} {call.op}{items} -> {result_text(call.result)}"


# -- reading -----------------------------------------------------------------------------------


def _need(condition: bool, line: int, message: str) -> None:
    if not condition:
        raise LogError(f"line {line}: {message}")


def _strings(value: object, line: int, what: str) -> tuple[str, ...]:
    _need(isinstance(value, list) and all(isinstance(v, str) and v for v in value), line,
          f"got {what} {value!r:.60}, expected a list of non-empty strings")
    assert isinstance(value, list)
    return tuple(value)


def _int(data: Mapping[str, Any], key: str, line: int, minimum: int = 0,
         default: int | None = None) -> int:
    value = data.get(key, default)
    _need(type(value) is int and value >= minimum, line,
          f"got {key} {value!r:.40}, expected an int >= {minimum}")
    assert isinstance(value, int)
    return value


def _str(data: Mapping[str, Any], key: str, line: int, choices: Sequence[str] = ()) -> str:
    value = data.get(key)
    ok = isinstance(value, str) and bool(value) and (not choices or value in choices)
    expected = f"one of {', '.join(choices)}" if choices else "a non-empty string"
    _need(ok, line, f"got {key} {value!r:.40}, expected {expected}")
    assert isinstance(value, str)
    return value


def parse_header(data: object, line: int = 1) -> Header:
    _need(isinstance(data, dict), line, f"got {type(data).__name__}, expected the header object")
    assert isinstance(data, dict)
    _need(data.get("schema") == SCHEMA, line,
          f"got schema {data.get('schema')!r:.40}, expected {SCHEMA!r}")
    env = data.get("environment")
    environment = None if env is None else _strings(env, line, "environment")
    unknown = [d for d in environment or () if d not in DRIFT_IDS]
    _need(not unknown, line, f"got drift ids {unknown}, expected ids among "
                             f"{', '.join(DRIFT_IDS)}")
    source = data.get("source", "")
    _need(isinstance(source, str), line, f"got source {source!r:.40}, expected a string")
    return Header(_str(data, "variant", line, VARIANT_NAMES), _int(data, "budget", line, 1),
                  _int(data, "front_ends", line, 1, 1), environment, source,
                  _final(data.get("final"), line))


def _final(data: object, line: int) -> tuple[tuple[str, tuple[str, ...]], ...] | None:
    if data is None:
        return None
    _need(isinstance(data, dict), line, f"got final {data!r:.40}, expected an object")
    assert isinstance(data, dict)
    bad = [k for k in data if k != "engine" and not (k.startswith("fe") and k[2:].isdigit())]
    _need(not bad, line, f"got final sides {bad}, expected fe0, fe1, ... or engine")
    return final_order(tuple((side, _strings(ids, line, f"final {side}"))
                             for side, ids in data.items()))


def final_order(views: tuple[tuple[str, tuple[str, ...]], ...]
                ) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Views in one order: the front ends by index, then the engine."""
    return tuple(sorted(views, key=lambda v: (v[0] == "engine", len(v[0]), v[0])))


def _item(data: object, line: int) -> Item:
    _need(isinstance(data, dict), line, f"got item {data!r:.40}, expected an object")
    assert isinstance(data, dict)
    media = data.get("media", True)
    _need(isinstance(media, bool), line, f"got media {media!r}, expected true or false")
    return Item(_str(data, "identity", line), _str(data, "content", line),
                _int(data, "bytes", line, 1), media)


def _input(data: object, line: int) -> Input:
    _need(isinstance(data, dict), line, f"got input {data!r:.40}, expected an object")
    assert isinstance(data, dict)
    return Input(_str(data, "identity", line), _str(data, "tensor", line),
                 _str(data, "placeholders", line))


def parse_result(data: object, line: int) -> Result:
    _need(isinstance(data, dict), line, f"got result {data!r:.40}, expected an object")
    assert isinstance(data, dict)
    kind = _str(data, "kind", line, RESULT_KINDS)
    inputs = data.get("inputs", [])
    _need(isinstance(inputs, list), line, f"got inputs {inputs!r:.40}, expected a list")
    evicted = {name: None if data.get(name) is None else _strings(data[name], line, name)
               for name in ("evicted_p0", "evicted_p1", "shadow_after")}
    fault = _str(data, "fault", line) if kind == "fault" else ""
    detail = data.get("detail", "")
    _need(isinstance(detail, str), line, f"got detail {detail!r:.40}, expected a string")
    return Result(kind, _strings(data.get("identities", []), line, "identities"),
                  tuple(_input(i, line) for i in inputs), fault, detail,
                  evicted["evicted_p0"], evicted["evicted_p1"], evicted["shadow_after"])


def parse_call(data: object, line: int, number: int, front_ends: int) -> Call:
    _need(isinstance(data, dict), line, f"got {type(data).__name__}, expected a call object")
    assert isinstance(data, dict)
    sides = ("engine", *(f"fe{i}" for i in range(front_ends)))
    side, op = _str(data, "side", line, sides), _str(data, "op", line, OPS)
    items = data.get("items", [])
    _need(isinstance(items, list), line, f"got items {items!r:.40}, expected a list")
    _need(op != "serve" or (bool(items) and side != "engine"), line,
          "got a serve without items or on the engine, expected a front end's request")
    invoked, returned = _int(data, "invoked", line), _int(data, "returned", line)
    _need(invoked < returned, line,
          f"got invoked {invoked} and returned {returned}, expected invoked < returned")
    return Call(number, _str(data, "client", line), side, op,
                tuple(_item(i, line) for i in items), invoked, returned,
                parse_result(data.get("result"), line), _hints(data.get("hints", {}), line))


def _hints(data: object, line: int) -> tuple[int | None, int | None, int | None]:
    _need(isinstance(data, dict) and set(data) <= set(HINTS), line,
          f"got hints {data!r:.60}, expected an object with keys among {', '.join(HINTS)}")
    assert isinstance(data, dict)
    values = tuple(None if data.get(n) is None else _int(data, n, line) for n in HINTS)
    return values  # type: ignore[return-value]


def parse_log(text: str) -> History:
    """The history a log's text holds; `LogError` on the first line that breaks the schema."""
    rows = [(n, line) for n, line in enumerate(text.splitlines(), start=1) if line.strip()]
    if not rows:
        raise LogError("line 1: got an empty log, expected a header line")
    objects = []
    for n, line in rows:
        try:
            objects.append((n, json.loads(line)))
        except json.JSONDecodeError as error:
            raise LogError(f"line {n}: got invalid JSON ({error.msg}), expected one JSON "
                           "object per line") from None
    header = parse_header(objects[0][1], objects[0][0])
    calls = tuple(parse_call(data, n, number, header.front_ends)
                  for number, (n, data) in enumerate(objects[1:]))
    return History(header, calls)


def read_log(path: Path) -> History:
    """`parse_log` of a file; an unreadable file is a `LogError` too."""
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as error:
        raise LogError(f"cannot read {path}: {error}") from None
    return parse_log(text)
