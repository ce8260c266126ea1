"""Two real processes: the engine side of an adapter runs in a child process, behind a pyzmq
socket, and every message, result and cache view crosses it serialised.

Wire format (as the real system's): a msgspec msgpack header per message, with each tensor
replaced by a reference (name, dtype, shape, frame number), and the tensors' raw buffers sent
as further zmq frames of the same multipart message, without copying them into the header.
The engine receives tensors rebuilt from those bytes, so serialisation, the process boundary
and the size accounting after deserialisation are all part of what the lockstep compares.

One child serves a whole conformance run: `RemoteEngines` starts it, and each lockstep run
asks it to build a fresh engine side (`start`, naming the adapter: setting
`RemoteEngines.adapter_path` switches implementations without a new process). A P1 restart
rebuilds the engine side in the child.

Who is to blame when no reply comes: the parent waits in slices of `_SLICE` seconds and looks
at the child between them. A child that exited, or that is stopped (SIGSTOP; read from
/proc on Linux), is a `HarnessFailure`, noticed within a slice (well under a second), never
the implementation's S3. A running child that does not answer within `timeout` seconds is
the implementation's hang (S3) and is killed; the next run starts a new one. A child that
does not start within four timeouts is a harness failure. Exceptions raised by the adapter's
engine side inside the child come back as its crash (`Fault("crash", ...)`); only the wire
protocol's own errors are harness failures. The child exits when its parent dies, and
`RemoteEngines.close` (also called on failure, and at interpreter exit) always reaps it.

Bytes without numpy: a tensor's bytes are read through torch itself
(`Tensor.untyped_storage()`), so two-process mode needs only torch, pyzmq and msgspec (the
dev extra), not numpy.

Child entry point: ``python -m model_checks.conform.remote ADDRESS ADAPTER``.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import subprocess
import sys
import time
from collections.abc import Sequence
from typing import Any

import msgspec
import torch
import zmq

from model_checks.conform import adapter as api
from model_checks.conform import codec
from model_checks.conform.adapter import load_adapter

_DTYPES: dict[str, torch.dtype] = {
    str(d): d for d in (torch.uint8, torch.int8, torch.int16, torch.int32, torch.int64,
                        torch.float16, torch.bfloat16, torch.float32, torch.float64, torch.bool)
}


class TensorRef(msgspec.Struct, array_like=True):
    name: str
    dtype: str
    shape: list[int]
    frame: int


class ItemMsg(msgspec.Struct, array_like=True):
    identity: str
    payload: list[TensorRef] | None
    placeholders: tuple[int, int]
    tag: int | None


class SetupMsg(msgspec.Struct, array_like=True):
    budget: int
    variant: str
    front_ends: int


class Command(msgspec.Struct):
    op: str  # start, receive, clear, restart, receiver, close
    setup: SetupMsg | None = None
    request_id: int = 0
    items: list[ItemMsg] = []
    adapter: str = ""  # start: the adapter whose engine side to build (module:factory)


class Result(msgspec.Struct):
    kind: str  # ok, served, missed, fault, entries, error
    items: list[ItemMsg] = []  # served inputs / receiver entries (tag; size in placeholders[1])
    sizes: list[int] = []
    identities: list[str] = []
    detail: str = ""


_encoder = msgspec.msgpack.Encoder()
_command_decoder = msgspec.msgpack.Decoder(Command)
_result_decoder = msgspec.msgpack.Decoder(Result)


def tensor_bytes(tensor: torch.Tensor) -> bytes:
    """The tensor's elements as raw bytes in row-major order, read by torch itself (no numpy):
    a view, a slice or a non-contiguous tensor is first copied into a storage of its own."""
    compact = tensor.detach().contiguous()
    if compact.storage_offset() != 0 or compact.untyped_storage().nbytes() != compact.nbytes:
        compact = compact.clone()
    return bytes(compact.untyped_storage())


def _pack_payload(payload: api.Payload, frames: list[memoryview]) -> list[TensorRef]:
    refs = []
    for name, tensor in payload.items():
        frames.append(memoryview(tensor_bytes(tensor)))
        refs.append(TensorRef(name, str(tensor.dtype), list(tensor.shape), len(frames) - 1))
    return refs


def _unpack_payload(refs: Sequence[TensorRef], frames: Sequence[Any]) -> dict[str, torch.Tensor]:
    payload = {}
    for ref in refs:
        raw = bytearray(frames[ref.frame])  # a private, writable buffer the tensor owns
        tensor = (torch.frombuffer(raw, dtype=torch.uint8) if raw
                  else torch.empty(0, dtype=torch.uint8))
        payload[ref.name] = tensor.view(_DTYPES[ref.dtype]).reshape(ref.shape)
    return payload


def _send(socket: zmq.Socket[bytes], header: msgspec.Struct, frames: list[memoryview]) -> None:
    socket.send_multipart([_encoder.encode(header), *frames], copy=False)


# -- the parent's side ---------------------------------------------------------------------------


_SLICE = 0.1
"""Seconds between two looks at the child while waiting for its reply."""


def _stopped(pid: int) -> bool:
    """Whether the process is stopped (SIGSTOP, a debugger); False where /proc is missing."""
    try:
        with open(f"/proc/{pid}/stat") as stat:
            state = stat.read().rpartition(")")[2].split()[0]
    except (OSError, IndexError):
        return False
    return state in ("T", "t")


class RemoteEngines:
    """Starts and owns one child process; `__call__(setup)` gives a fresh remote engine side
    (an `EngineFactory` for the lockstep)."""

    def __init__(self, adapter_path: str, timeout: float = 20.0) -> None:
        self.adapter_path = adapter_path
        self.timeout = timeout
        self.context: zmq.Context[zmq.Socket[bytes]] = zmq.Context.instance()
        self.socket: zmq.Socket[bytes] | None = None
        self.process: subprocess.Popen[bytes] | None = None
        atexit.register(self.close)

    def _spawn(self) -> None:
        socket = self.context.socket(zmq.REQ)
        socket.setsockopt(zmq.LINGER, 0)
        port = socket.bind_to_random_port("tcp://127.0.0.1")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "model_checks.conform.remote",
             f"tcp://127.0.0.1:{port}", self.adapter_path],
            stdin=subprocess.DEVNULL,
        )
        self.socket = socket

    def request(self, command: Command, frames: list[memoryview] | None = None) -> tuple[
        Result, list[Any]
    ]:
        """Send one command and wait for its reply. No reply from a running child within the
        timeout: `Result("fault", "hang: ...")` (the child is killed). A dead or stopped child,
        or a child that never starts: `HarnessFailure`."""
        if self.socket is None or self.process is None or self.process.poll() is not None:
            self._kill()
            self._spawn()
        assert self.socket is not None
        _send(self.socket, command, frames or [])
        timeout = self.timeout * (4 if command.op == "start" else 1)  # start: child imports
        if not self._await_reply(timeout):
            self._kill()
            if command.op == "start":
                raise api.HarnessFailure(
                    f"the engine process did not start within {timeout:.0f}s")
            return Result("fault", detail=f"hang: no reply from the engine process in "
                          f"{timeout:.0f}s (op {command.op})"), []
        header, *rest = self.socket.recv_multipart(copy=False)
        return _result_decoder.decode(header.buffer), [f.buffer for f in rest]

    def _await_reply(self, timeout: float) -> bool:
        """True once a reply is ready; False after `timeout` seconds of a running child."""
        assert self.socket is not None and self.process is not None
        deadline = time.monotonic() + timeout
        while not self.socket.poll(int(_SLICE * 1000)):
            code = self.process.poll()
            if code is not None:
                self._kill()
                how = f"was killed by signal {-code}" if code < 0 else f"exited with code {code}"
                raise api.HarnessFailure(f"the engine process {how}")
            if _stopped(self.process.pid):
                self._kill()
                raise api.HarnessFailure("the engine process is stopped (SIGSTOP or a debugger)")
            if time.monotonic() >= deadline:
                return False
        return True

    def __call__(self, setup: api.Setup) -> RemoteEngine:
        start = Command("start", SetupMsg(setup.budget, setup.variant, setup.front_ends),
                        adapter=self.adapter_path)
        result, _ = self.request(start)
        if result.kind == "adapter-error":  # as in one process: a usage error, exit 2
            raise api.AdapterError(result.detail)
        if result.kind != "ok":
            raise api.HarnessFailure(f"the engine process could not start: {result.detail}")
        return RemoteEngine(self)

    def _kill(self) -> None:
        if self.socket is not None:
            self.socket.close(linger=0)
            self.socket = None
        if self.process is not None:
            if self.process.poll() is None:
                self.process.kill()
            self.process.wait(timeout=10)
            self.process = None

    def close(self) -> None:
        """Ask the child to exit, then reap it (killing it if it does not exit in time)."""
        if self.process is not None and self.process.poll() is None and self.socket is not None:
            _send(self.socket, Command("close"), [])
            if self.socket.poll(2000):
                self.socket.recv_multipart()
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=5)
        self._kill()
        atexit.unregister(self.close)


def _fault(detail: str) -> api.Fault:
    kind, _, rest = detail.partition(": ")
    return api.Fault(kind, rest) if rest else api.Fault("hang", detail)


class RemoteEngine:
    """`EngineSide` whose calls cross the process boundary."""

    def __init__(self, owner: RemoteEngines) -> None:
        self.owner = owner

    def receive(self, message: api.WireMessage) -> api.Delivered:
        frames: list[memoryview] = []
        items = [
            ItemMsg(i.identity, None if i.payload is None else _pack_payload(i.payload, frames),
                    i.placeholders, i.tag)
            for i in message.items
        ]
        result, rest = self.owner.request(Command("receive", None, message.request_id, items),
                                          frames)
        if result.kind == "served":
            return api.Served(tuple(
                api.ModelInput(i.identity, _unpack_payload(i.payload or [], rest), i.placeholders)
                for i in result.items
            ))
        if result.kind == "missed":
            return api.Missed(tuple(result.identities))
        if result.kind == "fault":
            return _fault(result.detail)
        raise api.HarnessFailure(f"the engine process answered receive with {result.kind}: "
                                 f"{result.detail}")

    def _simple(self, op: str) -> api.Fault | None:
        result, _ = self.owner.request(Command(op))
        if result.kind == "fault":
            return _fault(result.detail)
        if result.kind != "ok":
            raise api.HarnessFailure(f"the engine process answered {op} with {result.kind}: "
                                     f"{result.detail}")
        return None

    def clear(self) -> api.Fault | None:
        return self._simple("clear")

    def restart(self) -> api.Fault | None:
        return self._simple("restart")

    def receiver(self) -> tuple[api.ReceiverEntry, ...]:
        result, rest = self.owner.request(Command("receiver"))
        if result.kind == "fault":
            raise api.SideFault(_fault(result.detail))
        if result.kind != "entries":
            raise api.HarnessFailure(f"the engine process answered receiver with "
                                     f"{result.kind}: {result.detail}")
        return tuple(
            api.ReceiverEntry(i.identity, size, _unpack_payload(i.payload or [], rest), i.tag)
            for i, size in zip(result.items, result.sizes, strict=True)
        )

    def close(self) -> None:
        pass  # the process serves the next run; RemoteEngines.close reaps it


# -- the child's side --------------------------------------------------------------------------


_ADAPTERS: dict[str, api.Adapter] = {}


def _handle(engine: api.EngineSide | None, command: Command,
            frames: Sequence[Any]) -> tuple[api.EngineSide | None, Result, list[memoryview]]:
    out: list[memoryview] = []
    if command.op == "start":
        assert command.setup is not None
        if engine is not None:
            engine.close()
        s = command.setup
        try:  # the adapter's errors while building, worded as in one process
            if command.adapter not in _ADAPTERS:
                _ADAPTERS[command.adapter] = load_adapter(command.adapter)
            adapter = _ADAPTERS[command.adapter]
            built = api.build_engine(adapter.engine, api.Setup(
                s.budget, s.variant, s.front_ends, codec.process_media))
            api.check_engine(built)
        except api.AdapterError as error:
            return None, Result("adapter-error", detail=str(error)), out
        return built, Result("ok"), out
    if engine is None:
        return engine, Result("error", detail="no engine: send start first"), out
    try:
        result = _engine_op(engine, command, frames, out)
    except api.SideFault as error:
        result = Result("fault", detail=str(error))
    except Exception as error:  # the implementation's crash, not the harness's
        result = Result("fault", detail=f"crash: {type(error).__name__}: {error}")
    return engine, result, out


def _engine_op(engine: api.EngineSide, command: Command, frames: Sequence[Any],
               out: list[memoryview]) -> Result:
    """One call of the adapter's engine side; exceptions are the implementation's."""
    if command.op == "receive":
        wire = tuple(
            api.WireItem(i.identity, None if i.payload is None else _unpack_payload(i.payload,
                                                                                   frames),
                         i.placeholders, i.tag)
            for i in command.items
        )
        result = engine.receive(api.WireMessage(command.request_id, wire))
        if isinstance(result, api.Served):
            served = [ItemMsg(m.identity, _pack_payload(m.payload, out), m.placeholders, None)
                      for m in result.inputs]
            return Result("served", items=served)
        if isinstance(result, api.Missed):
            return Result("missed", identities=list(result.identities))
        return Result("fault", detail=f"{result.kind}: {result.detail}")
    if command.op in ("clear", "restart"):
        fault = engine.clear() if command.op == "clear" else engine.restart()
        if fault is not None:
            return Result("fault", detail=f"{fault.kind}: {fault.detail}")
        return Result("ok")
    if command.op == "receiver":
        entries = engine.receiver()
        items = [ItemMsg(e.identity, _pack_payload(e.payload, out), (0, 0), e.tag)
                 for e in entries]
        return Result("entries", items=items, sizes=[e.size for e in entries])
    return Result("error", detail=f"unknown op {command.op!r}")


def child_main(address: str, adapter_path: str) -> int:
    parent = os.getppid()
    with contextlib.suppress(api.AdapterError):  # reported on "start", as in one process
        _ADAPTERS[adapter_path] = load_adapter(adapter_path)
    context: zmq.Context[zmq.Socket[bytes]] = zmq.Context.instance()
    socket = context.socket(zmq.REP)
    socket.setsockopt(zmq.LINGER, 0)
    socket.connect(address)
    engine: api.EngineSide | None = None
    try:
        while True:
            if not socket.poll(1000):
                if os.getppid() != parent:
                    return 0  # the parent died: do not outlive it
                continue
            header, *frames = socket.recv_multipart(copy=False)
            command = _command_decoder.decode(header.buffer)
            if command.op == "close":
                _send(socket, Result("ok"), [])
                return 0
            try:
                engine, result, out = _handle(engine, command, [f.buffer for f in frames])
            except Exception as error:  # reported to the parent, which decides
                result, out = Result("error", detail=f"{type(error).__name__}: {error}"), []
            _send(socket, result, out)
    finally:
        socket.close(linger=0)


if __name__ == "__main__":
    sys.exit(child_main(sys.argv[1], sys.argv[2]))
