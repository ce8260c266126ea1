"""The `explore` command as the command line registers it, for every design (`--design`,
default lru): one parser and one dispatch. Each instance asked for is searched by the one
explorer over the `Design` interface (`model_checks.explore.design_search`: `--variant`,
`--environment`, `--rung`, `--property`, `--max-states`, exit 4 on a break). A design that
declares searches of its own (`explore.design_explorer.DesignExplorer`, found in the one table
`explore.lru_explore.explorer_for`: the LRU design's) has them searched here: its matrix
cells (without `--rung`, `--lattice`, `--instance` or `--check`), the instance a user names
(`--instance`, printed and judged by `explore.instance_command`, with `design_search`'s exit
rule) and its lattice (`--lattice`, by `explore.lattice_command`); any other design's lattice
is the design-generic one's (`model_checks.designs.command`). `--lattice --check` re-derives
every design's committed answers.

An option of one side given to the other is a usage error naming it (one line, exit 2), before
a search starts.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from pathlib import Path

from model_checks.designs import command as designs
from model_checks.explore import design_search
from model_checks.explore.design_explorer import DesignExplorer
from model_checks.explore.instance_command import asked, run_named
from model_checks.explore.lattice_command import run_lattice
from model_checks.explore.lru_explore import LRU_EXPLORER, explorer_for
from model_checks.kernel.exits import UsageError, usage_exit
from model_checks.kernel.options import is_renamed
from spec.designs.base import DEFAULT_DESIGN
from spec.drift import BadEnvironment

LRU = DEFAULT_DESIGN
"""The design whose searches of its own (`LRU_EXPLORER`) declare the parser's options beside
the design-generic explorer's (the key-replicated LRU of V0-V4)."""


def _options(add: Callable[[argparse.ArgumentParser], None]) -> dict[str, argparse.Action]:
    """Option string -> its action, of the options `add` declares (a former spelling, which
    refuses itself, aside)."""
    parser = argparse.ArgumentParser(add_help=False)
    add(parser)
    return {option: action for action in parser._actions if not is_renamed(action)
            for option in action.option_strings}


def _only(mine: dict[str, argparse.Action], theirs: dict[str, argparse.Action]
          ) -> tuple[tuple[str, str], ...]:
    return tuple((option, action.dest) for option, action in mine.items()
                 if option not in theirs)


LRU_OPTIONS = _options(LRU_EXPLORER.add_arguments)
OTHER_OPTIONS = _options(designs.add_arguments)
LRU_ONLY = _only(LRU_OPTIONS, OTHER_OPTIONS)
"""The LRU explorer's options (flag, destination) the design-generic one does not read:
the options its parser declares that the generic explorer's does not."""
OTHER_ONLY = _only(OTHER_OPTIONS, LRU_OPTIONS)
"""The design-generic explorer's options the LRU explorer does not read (its rungs are its
bounds)."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """Both explorers' options on one parser, `--design` and `--check` with them. An option
    of one explorer only has no default here (None): given to the other design's, it is
    refused; not given, `run` sets the default of the explorer that runs."""
    LRU_EXPLORER.add_arguments(parser)
    designs.add_design_arguments(parser)
    parser.add_argument("--design", default=None, help="the design (lru, shm, encoder, ...; "
                        "default lru; with --lattice --check: every design with committed "
                        "answers)")
    parser.add_argument("--check", action="store_true",
                        help="with --lattice: re-derive the committed answers of every design "
                        "that has them (--design: of one) and fail where one is contradicted")
    parser.set_defaults(**{dest: None for _, dest in (*LRU_ONLY, *OTHER_ONLY)})


def run(args: argparse.Namespace) -> int:
    """The design's searches of its own where it declares them (the LRU design, the default)
    and `--rung` is not given, else the one search of `design_search`, or the design-generic
    lattice; `--lattice --check` for every design with committed answers."""
    if args.check and not args.lattice:
        raise UsageError("--check re-derives the lattice's committed answers: write "
                         "explore --lattice --check")
    design = args.design or LRU
    own = explorer_for(design)
    if own is not None and not args.check and (args.lattice or args.rung is None):
        _refuse(f"--design {design}", "another design's options", OTHER_ONLY, args)
        _default(LRU_OPTIONS, LRU_ONLY, args)
        for environment in args.environment or []:
            try:
                environment.within(own.sources)
            except BadEnvironment as error:
                raise UsageError(f"{error} (design {design})") from None
        return _own(own, args)
    _refuse(f"--design {design}" + (" --rung" if design == LRU else ""),
            "the LRU design's matrix explorer's options" if design == LRU
            else "the LRU design's options", LRU_ONLY, args)
    _default(OTHER_OPTIONS, OTHER_ONLY, args)
    if args.check or args.lattice:
        if args.property is not None:
            raise UsageError("--property reports one property of a search; --lattice "
                             "answers every property")
        return designs.run(args)
    args.design = design
    return design_search.run(args)


def _own(own: DesignExplorer, args: argparse.Namespace) -> int:
    """The design's own search `args` ask for: the named instance's, its lattice, or its
    matrix cells (with where they write by default)."""
    if args.out is None:
        args.out = Path("build/explore/lattice" if args.lattice
                        else "build/explore/counterexamples")
    if asked(args):
        if args.json is None:
            args.json = Path("build/explore/records.json")
        return run_named(args, own.named)
    if args.lattice and args.por:
        return usage_exit("--por applies to matrix cells, not to --lattice")
    if args.lattice:
        if args.distributed:
            return usage_exit("--distributed applies to the matrix cells, not --lattice")
        return run_lattice(args, own.lattice)
    lattice_only = (args.sources, args.max_size, args.evidence, args.resume, args.items,
                    args.reused_bytes)
    if any(o is not None for o in lattice_only) or args.parametric or args.no_explore or (
            args.duplicates):
        return usage_exit("--sources, --max-size, --evidence, --parametric, --resume, --items, "
                      "--reused-bytes, --duplicates and --no-explore need --lattice")
    return own.cells(args)



def _refuse(where: str, whose: str, options: tuple[tuple[str, str], ...],
            args: argparse.Namespace) -> None:
    given = [flag for flag, dest in options if getattr(args, dest) is not None]
    if given:
        raise UsageError(f"{where}: {whose} only: {', '.join(given)}")


def _default(declared: dict[str, argparse.Action], options: tuple[tuple[str, str], ...],
             args: argparse.Namespace) -> None:
    """Each of `options` not given: its default as the explorer that runs declares it."""
    for flag, dest in options:
        if getattr(args, dest) is None:
            setattr(args, dest, declared[flag].default)
