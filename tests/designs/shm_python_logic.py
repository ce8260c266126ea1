"""The shared-memory design's abstract model (`model_checks.designs.shm_proofs`) evaluated on
Python values: the connectives of its `Logic` over values (`PyLogic`, as `Z3Logic` is over z3
terms) and the arrays they read (`Table`, `Stored`, `Lazy`, as z3's arrays, stores and
lambdas), so that the certificates and the actions the proof checks run on a spec state's
abstraction (`shm_abstraction`, `shm_restricted_abstraction`)."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any


class PyLogic:
    """The same connectives over Python values (a spec state's abstraction)."""

    @staticmethod
    def all(*xs: Any) -> Any:
        return all(xs)

    @staticmethod
    def any(*xs: Any) -> Any:
        return any(xs)

    @staticmethod
    def not_(x: Any) -> Any:
        return not x

    @staticmethod
    def implies(a: Any, b: Any) -> Any:
        return (not a) or b

    @staticmethod
    def ite(c: Any, a: Any, b: Any) -> Any:
        return a if c else b

    @staticmethod
    def store(array: Any, index: Any, value: Any) -> Any:
        return Stored(array, index, value)

    @staticmethod
    def lam(body: Callable[[Any], Any]) -> Any:
        return Lazy(body)


class Table(dict[int, Any]):
    """A Python stand-in for a z3 array: a default for every index not listed."""

    def __init__(self, default: Any, items: Iterable[tuple[int, Any]] = ()) -> None:
        super().__init__(items)
        self.default = default

    def __missing__(self, key: int) -> Any:
        return self.default


class Stored:
    """A Python array after one store (z3.Store's reading)."""

    def __init__(self, base: Any, index: int, value: Any) -> None:
        self.base, self.index, self.value = base, index, value

    def __getitem__(self, key: int) -> Any:
        return self.value if key == self.index else self.base[key]


class Lazy:
    """A Python array given by a function (z3.Lambda's reading)."""

    def __init__(self, body: Callable[[Any], Any]) -> None:
        self.body = body

    def __getitem__(self, key: int) -> Any:
        return self.body(key)
