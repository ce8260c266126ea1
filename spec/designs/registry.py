"""The designs the project models, declared once: checkers, docs and the command line read
`designs()`; a test that adds a design by the recipe uses `register` and `withdraw`."""

from __future__ import annotations

from spec.designs.base import Design, UnknownDesign

_ADDED: dict[str, Design] = {}


def _built_in() -> tuple[Design, ...]:
    from spec.designs.encoder.design import ENCODER
    from spec.designs.lru_design import LRU
    from spec.designs.paths import PROCESSOR_THEN_ENCODER
    from spec.designs.shm.design import SHM

    return (LRU, SHM, ENCODER, PROCESSOR_THEN_ENCODER)


def designs() -> tuple[Design, ...]:
    """Every design: the built-in ones, then any registered, by name."""
    return (*_built_in(), *_ADDED.values())


def design_named(name: str) -> Design:
    for design in designs():
        if design.name == name:
            return design
    raise UnknownDesign(f"no design {name!r}; the designs are "
                        f"{', '.join(d.name for d in designs())}")


def register(design: Design) -> None:
    """Add a design; a name already taken is an error, and changes nothing."""
    if any(d.name == design.name for d in designs()):
        raise ValueError(f"a design named {design.name!r} exists; give the new one its own name")
    _ADDED[design.name] = design


def withdraw(name: str) -> None:
    """Remove a registered design (a test's fixture); a built-in one cannot be withdrawn."""
    if name not in _ADDED:
        raise KeyError(f"design {name!r} was not registered, nothing to withdraw")
    del _ADDED[name]
