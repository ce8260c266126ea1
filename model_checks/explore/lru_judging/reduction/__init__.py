"""Partial-order reduction for the explorer: stubborn sets over the spec's actions
(`stubborn.py`), from what each action class reads, writes and waits for, one table keyed
by action class (`rules.py`, in the vocabulary of `footprint.py`), and judging with
the reduced graph while keeping the unreduced search's shortest counterexamples
(`judging.py`). The argument for soundness is in `docs/explore.md`."""

from __future__ import annotations

from model_checks.explore.graph import Graph, GraphOptions, build
from model_checks.explore.lru_judging.reduction.stubborn import Reducer, check_progress
from spec import Config


def build_reduced(config: Config, *, max_states: int = 2_000_000,
                  reducer: Reducer | None = None) -> Graph:
    """`build(config)` (both state reductions) expanding only stubborn sets."""
    chooser = reducer if reducer is not None else Reducer(config)
    graph = build(config,
                  GraphOptions(max_states=max_states, expand=chooser.ample, depth_proviso=False))
    check_progress(graph)
    return graph


__all__ = ["Reducer", "build_reduced"]
