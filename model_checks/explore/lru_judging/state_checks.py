"""Which state properties the search judges on the LRU design's states as it meets each one
(`moves.StateChecks`), not in passes over a stored graph.

Which properties: every state property of the registry and every lemma (`Property.
state_check`), less those vacuous by construction on the configuration (`vacuous_reason`:
the judge calls them vacuous without checking a state).
"""

from __future__ import annotations

from spec import Config, Property, lemmas, registry

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
