"""State properties judged as the search meets each state, not in passes over a stored graph.

`build` numbers states breadth-first and hands each new one to a `StateChecks`, which runs
every state property still unbroken on it and keeps, per property, the first state that
breaks it with the property's reasons. Breadth-first numbering makes that state a shallowest
one, the very state a pass over `graph.states` in number order would stop at, so the judge
(`judge._state_property`) gives the same counterexample from `first` without reading a
state again. A property stops being checked once broken: every later state is deeper.

Which properties: every state property of the registry and every lemma (`Property.
state_check`), less those vacuous by construction on the configuration (`vacuous_reason`:
the judge calls them vacuous without checking a state). The judge uses a finding only for
the very `Property` object that was checked (`covers`), so a property declared, withdrawn or
redeclared after the search is judged by a pass, as before.
"""

from __future__ import annotations

from collections.abc import Sequence

from spec import Config, Property, State, lemmas, registry

ONE_CONTENT = tuple(p.id for p in registry() if p.compares_contents)
"""The properties that compare contents of one identity (`Property.compares_contents`):
vacuous with one content per identity (no D7 in the instance), where every processing of an
identity describes the same content."""


def vacuous_reason(config: Config, prop: Property) -> str | None:
    """Why `prop` cannot fail on `config` whatever the states (None: it can): `ONE_CONTENT`'s
    properties on an instance with one content per identity."""
    if prop.id in ONE_CONTENT and config.versions == 1:
        return ("one content per identity (versions=1, no identity reuse): a tensor and "
                "placeholders of one identity always describe the same content")
    return None


def state_properties(config: Config, with_lemmas: bool = True) -> tuple[Property, ...]:
    """The state properties the search checks on `config`: the registry's (and the lemmas',
    unless `with_lemmas` is false), in registry order, less the vacuous ones."""
    props = (*registry(), *(lemmas() if with_lemmas else ()))
    return tuple(p for p in props
                 if p.state_check is not None and vacuous_reason(config, p) is None)


class StateChecks:
    """The state properties `props` checked on states of `config` as a search numbers them
    (`see`, in number order): `first[id]` is the first state breaking property `id` and its
    reasons; a property absent from `first` held on every state seen."""

    def __init__(self, config: Config, props: Sequence[Property]) -> None:
        self.config = config
        self.checked = {p.id: p for p in props}
        self.first: dict[str, tuple[int, list[str]]] = {}
        self._pending = [(p.id, p.state_check) for p in props if p.state_check is not None]

    def see(self, index: int, state: State) -> None:
        """Check state number `index` against every property not yet broken."""
        broken = None
        for prop_id, check in self._pending:
            reasons = check(self.config, state)
            if reasons:
                self.first[prop_id] = (index, reasons)
                broken = True
        if broken:
            self._pending = [(i, c) for i, c in self._pending if i not in self.first]

    def covers(self, prop: Property) -> bool:
        """True when this very property was checked on every state the search numbered."""
        return self.checked.get(prop.id) is prop
