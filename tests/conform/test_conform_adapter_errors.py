"""Adapter errors are one line on stderr and exit 2, naming the call, the exception type and
its message, the same in one process and two; `load_adapter` checks the methods' parameters
and the interface version. Every case here is a broken adapter that the old harness let
through as a traceback, a harness failure or "kept" after 0 steps."""

from __future__ import annotations

import importlib
from dataclasses import dataclass

import pytest

from model_checks.cli import main
from model_checks.conform import adapter as api
from tests.conform.ordered_pair import OrderedPairAdapter, Receiver, Sender

HERE = "tests.conform.test_conform_adapter_errors"


def factory_raises() -> OrderedPairAdapter:
    config: dict[str, str] = {}
    return OrderedPairAdapter(config["engine_url"])


@dataclass
class _EngineRaises(OrderedPairAdapter):
    def engine(self, setup: api.Setup) -> Receiver:
        raise RuntimeError("cannot reach the engine\non two lines")


@dataclass
class _FrontEndRaises(OrderedPairAdapter):
    def front_end(self, setup: api.Setup, index: int) -> Sender:
        raise ValueError(f"no front end {index}")


@dataclass
class _SupportsRaises(OrderedPairAdapter):
    def supports(self, variant: str) -> bool:
        raise LookupError(variant)


class _WrongProbe(Sender):
    def probe(self, items: tuple[api.ItemIn, ...], extra: int) -> object:  # type: ignore[override]
        return super().probe(items)


@dataclass
class _WrongSignature(OrderedPairAdapter):
    def front_end(self, setup: api.Setup, index: int) -> Sender:
        return _WrongProbe(setup, index)


class _WrongReceive(Receiver):
    def receive(self) -> api.Delivered:  # type: ignore[override]
        raise AssertionError("never called")


@dataclass
class _WrongEngineSignature(OrderedPairAdapter):
    def engine(self, setup: api.Setup) -> Receiver:
        return _WrongReceive(setup)


@dataclass
class _OtherVersion(OrderedPairAdapter):
    api_version: int = 1


def engine_raises() -> OrderedPairAdapter:
    return _EngineRaises()


def front_end_raises() -> OrderedPairAdapter:
    return _FrontEndRaises()


def supports_raises() -> OrderedPairAdapter:
    return _SupportsRaises()


def wrong_signature() -> OrderedPairAdapter:
    return _WrongSignature()


def wrong_engine_signature() -> OrderedPairAdapter:
    return _WrongEngineSignature()


def other_version() -> OrderedPairAdapter:
    return _OtherVersion()


CASES = [
    ("factory_raises", f"{HERE}:factory_raises() raised KeyError: 'engine_url'"),
    ("engine_raises", "engine(setup) raised RuntimeError: cannot reach the engine on two lines"),
    ("front_end_raises", "front_end(setup, 0) raised ValueError: no front end 0"),
    ("supports_raises", "supports('V0') raised LookupError: V0"),
    ("wrong_signature", "has probe(items, extra), expected probe(items) (adapter interface "
     "version 2)"),
    ("wrong_engine_signature", "has receive(), expected receive(message)"),
    ("other_version", "written for adapter interface version 1, this harness has version 2"),
]


@pytest.mark.parametrize("processes", ["1", "2"])
@pytest.mark.parametrize(("name", "expected"), CASES)
def test_adapter_error_is_one_line_and_exit_2(
    name: str, expected: str, processes: str, capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["conform", "--adapter", f"{HERE}:{name}", "--processes", processes])
    captured = capsys.readouterr()
    assert code == 2, captured.out[-2000:]
    lines = captured.err.strip().splitlines()
    assert len(lines) == 1 and expected in lines[0], lines
    assert "Traceback" not in captured.err and "HARNESS" not in captured.out
    assert "kept" not in captured.out  # nothing judged


def test_adapter_interface_version_is_named_in_load_errors() -> None:
    adapter = api.load_adapter(f"{HERE}:wrong_signature")  # the adapter's own methods are fine
    with pytest.raises(api.AdapterError, match="interface version 2"):
        api.preflight(adapter, ["V2"])  # its front end's are not
    api.preflight(api.load_adapter("tests.conform.ordered_pair:factory"), ["V2"])
    assert api.ADAPTER_API == 2


MUTANT_FACTORIES = [
    ("model_checks.mutant_run.reference_mutants", "mutant_", "reference_mutants"),
    ("tests.conform.observed_mutants", "observed_mutant_", "OBSERVED_MUTANTS"),
    ("tests.conform.client_mutants", "loop_mutant_", "CLIENT_MUTANTS"),
]


@pytest.mark.parametrize(("module", "prefix", "table"), MUTANT_FACTORIES)
def test_mutant_factories_load_every_mutant_and_refuse_an_unknown_one(
    module: str, prefix: str, table: str,
) -> None:
    found = getattr(importlib.import_module(module), table)
    mutants = found() if callable(found) else found  # the registry's set is built on demand
    for mutant in mutants:
        loaded = api.load_adapter(f"{module}:{prefix}{mutant.name.replace('-', '_')}")
        assert loaded is mutant.adapter
    with pytest.raises(api.AdapterError, match=f"has no callable '{prefix}no_such'"):
        api.load_adapter(f"{module}:{prefix}no_such")
    with pytest.raises(AttributeError, match=f"expected one of {mutants[0].name}"):
        getattr(importlib.import_module(module), f"{prefix}no_such")
