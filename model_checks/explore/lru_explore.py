"""The LRU design's searches of its own, declared as its `design_explorer.DesignExplorer`,
and the one table of such declarations (`explorer_for`).

The LRU design's: its options (`command.add_arguments`), its expected matrix's cells
searched and judged by its judge (`command.run_cells`, over `cell_tasks`), the instances a
user names in its keys (`named_instance`), searched as one cell whose family is the named one
(`cell_tasks.explore_cell`: its properties and lemmas judged, `--property P` alone and
stopping at its break where P can), and its lattice (`lattice_lru.LRU_LATTICE`). Every other
design is explored by `design_search` and its lattice by the design-generic one.
"""

from __future__ import annotations

import argparse

from model_checks.explore import command
from model_checks.explore.cell_tasks import CellTask, explore_cell
from model_checks.explore.design_explorer import DesignExplorer, NamedSearch
from model_checks.explore.design_search import DEFAULT_MAX_STATES, InstanceSearch, judged
from model_checks.explore.instance import Shape, describe
from model_checks.explore.lattice_lru import LRU_LATTICE
from model_checks.explore.named_instance import parse
from model_checks.kernel.environment_arg import MATRIX_SOURCES
from spec import lemmas, registry, variant_named
from spec.designs.lru_design import LRU
from spec.drift import Environment


def named(args: argparse.Namespace) -> NamedSearch:
    """The one cell's search over the instance `--instance` names (one `--variant`, one
    `--environment`: `instance_command` has checked them); `ValueError` (an
    `InstanceTextError` for bad text) naming the fix for bad options."""
    known = [p.id for p in (*registry(), *lemmas())]
    if args.property is not None and args.property not in known:
        raise ValueError(f"--property {args.property!r}: not a property or lemma; one of "
                         f"{', '.join(known)}")
    if args.symmetric_requests and not args.forget_ended:
        raise ValueError("--symmetric-requests needs --forget-ended (it renumbers the slots "
                         "of the requests that key keeps)")
    if args.forget_ended and args.por:
        raise ValueError("--forget-ended and --por are separate searches; drop one")
    if args.max_states is not None and args.max_states < 1:
        raise ValueError(f"--max-states must be >= 1, got {args.max_states}")
    instance = parse(args.instance)
    variant = variant_named(args.variant[0])
    env = args.environment[0].sources
    instance.config(variant, env)  # refuses what the spec refuses, and sizes it has not
    family = instance.family()
    only = None if args.property is None or args.por else frozenset({args.property})
    task = CellTask(variant, env, args.out, args.max_states or DEFAULT_MAX_STATES,
                    (Shape(family.max_requests),), por=args.por, family=family, only=only,
                    forget=args.forget_ended, slots=args.symmetric_requests,
                    stop_at_break=not args.whole_graph)
    keyed = (" (deduplicated with ended requests forgotten"
             + (", request slots renumbered)" if task.slots else ")")) if task.forget else ""

    text = instance.text()

    def search() -> InstanceSearch:
        outcome = explore_cell(task)
        return judged(text,
                      tuple(r for r in outcome.records if args.property in (None, r.property)),
                      outcome.states, outcome.diameter, outcome.complete, outcome.stopped_at)

    return NamedSearch(text, describe(task.config(task.shapes[0])),
                       f"{variant.name} {Environment.of(env).text}", task.max_states, keyed,
                       search)


LRU_EXPLORER = DesignExplorer(MATRIX_SOURCES, command.add_arguments, command.run_cells, named,
                              LRU_LATTICE)
"""The LRU design's searches of its own (module docstring)."""

_EXPLORERS = {LRU.name: LRU_EXPLORER}


def explorer_for(design: str) -> DesignExplorer | None:
    """The one table of the designs' searches of their own: the design's, None for a design
    that declares none (`design_search` explores it)."""
    return _EXPLORERS.get(design)
