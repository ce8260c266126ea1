"""What both distributed searches share (`distributed`'s stateless workers, `partitioned`'s
partitions held by the workers), beyond what every search shares (`moves`): what a search
moves through (`Searched`, which each worker builds its `Moves` from), their error, their
progress callback, the workers' check of their sources and the pickling of the spec's
states. Their waits on the cluster are bounded, as every wait on a cluster is
(`model_checks.executor.waits`)."""

from __future__ import annotations

import io
import operator
import pickle
from collections.abc import Callable
from dataclasses import dataclass, fields, is_dataclass
from functools import partial
from typing import Any

from model_checks.explore.moves import Moves
from model_checks.explore.search_core import moves_for

LevelProgress = Callable[[int, int, int], None]
"""`progress(level, tasks done, tasks of the level)`, called on the client as tasks finish."""


@dataclass(frozen=True)
class Searched:
    """What a search moves through, as it crosses to the workers: `design`'s `config` under
    the reductions `reduce` and `symmetry` ask for."""

    design: str
    config: Any
    reduce: bool
    symmetry: bool | None

    def moves(self) -> Moves:
        """The design's `Moves` for these (`search_core.moves_for`, the one table)."""
        return moves_for(self.design, self.config, self.reduce, self.symmetry)


class DistributedSearchFailed(RuntimeError):
    """The cluster could not finish the search (a task failed on every worker it was given,
    a worker runs other sources, no worker is left): no graph, hence no verdict."""


def check_sources(source: str | None) -> None:
    """Refuse a task (`DistributedSearchFailed`) on a worker whose sources differ from the
    submitter's, whose digest is `source` (None: no check)."""
    if source is None:
        return
    from model_checks.executor.sources import source_digest

    if source_digest() != source:
        raise DistributedSearchFailed(
            f"a worker runs other sources (digest {source_digest()[:12]}, expected "
            f"{source[:12]}): restart it from this checkout")


class _Pickler(pickle.Pickler):
    """Pickles the spec's frozen dataclasses as their class called on their field values,
    not through the slotted dataclasses' `__getstate__`/`__setstate__`, which look the fields
    up per object: states cross the client twice per search, and this halves their cost.
    (Every state crosses in the cluster tests, which compare whole graphs.)"""

    def reducer_override(self, obj: Any) -> Any:
        values = field_values(type(obj))
        if values is None:
            return NotImplemented
        return type(obj), values(obj)


def dumps(value: object) -> bytes:
    """`value` pickled by `_Pickler` (read back with `pickle.loads`)."""
    out = io.BytesIO()
    _Pickler(out, protocol=pickle.HIGHEST_PROTOCOL).dump(value)
    return out.getvalue()


_VALUES: dict[type, Callable[[Any], tuple[Any, ...]] | None] = {}


def field_values(kind: type) -> Callable[[Any], tuple[Any, ...]] | None:
    """For a frozen dataclass of the spec whose generated `__init__` takes every field and
    runs nothing after (no `__post_init__`), so that calling the class on the field values
    rebuilds an equal object: the function giving those values in order. None otherwise."""
    try:
        return _VALUES[kind]
    except KeyError:
        pass
    values: Callable[[Any], tuple[Any, ...]] | None = None
    if (kind.__module__.split(".")[0] == "spec" and is_dataclass(kind)
            and kind.__dataclass_params__.frozen  # type: ignore[attr-defined]
            and not hasattr(kind, "__post_init__") and all(f.init for f in fields(kind))):
        values = values_of(tuple(f.name for f in fields(kind)))
    _VALUES[kind] = values
    return values


def values_of(names: tuple[str, ...]) -> Callable[[Any], tuple[Any, ...]]:
    """The function giving an object's attributes `names`, in order, as a tuple."""
    # attrgetter of one name gives the value itself, not a 1-tuple
    return operator.attrgetter(*names) if len(names) > 1 else partial(_few_values, names)


def _few_values(names: tuple[str, ...], obj: object) -> tuple[Any, ...]:
    return tuple(getattr(obj, name) for name in names)
