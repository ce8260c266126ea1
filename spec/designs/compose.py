"""Composition: designs along a request's path, as one design. The recipe: name the stages
(each a design and its variant), a link between each stage and the next, how an instance
of the whole is built, and the end-to-end properties; `ComposedDesign` is then a
`spec.designs.base.Design` that every design-generic checker judges with no edit to them.

- The stages share identities: the instance builder gives every stage the same identities
  and contents (what the path's requests name).
- A link is a synchronisation on shared actions: `Link.outputs` says which actions of the
  next stage a step of this one causes (a request the processor cache hands to the engine
  is a request arriving at the encoder cache); they happen in the same composed step, in
  order, and cascade down the path. The next stage's actions a link drives
  (`Link.driven`) are not its own to take: it has no client of its own.
- The environment is one set of source ids; each stage sees the sources it has
  (`project`). A source every stage refuses is refused, with each stage's reason.
- The properties: the end-to-end ones, over the composed state, then the stages' own
  (every one, or those `carried`), named `PREFIX.ID` (`P.S1`: the processor cache's S1). A
  stage's quiescent property is asked of states where every stage is quiescent.
- A step is one stage's own action (`Local`); a stage's action a link's outputs make
  impossible raises, as an action not enabled does (a composed instance gives the next
  stage room for every request the previous one can hand it).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from spec.designs.base import (
    Design,
    DesignProperty,
    DriftSource,
    check_environment,
    check_variant,
    source_order,
)
from spec.transitions import InvalidAction


@dataclass(frozen=True)
class Stage:
    """One design on the path: its variant, the prefix of its property ids, and how its
    configuration takes another environment (`rebind`; by default the configuration's own
    `environment` field, a set of source ids)."""

    design: Design
    variant: str
    prefix: str
    rebind: Callable[[Any, frozenset[str]], Any] = field(
        default=lambda config, ids: dataclasses.replace(config, environment=ids))


@dataclass(frozen=True)
class Link:
    """From one stage to the next: `outputs(config, before, action, after)`, the next
    stage's actions that a step of this stage causes; `driven(action)`, whether an action of
    the next stage is one only this link takes."""

    outputs: Callable[[Any, Any, Any, Any], tuple[Any, ...]]
    driven: Callable[[Any], bool]


_COMPOSITIONS: dict[str, ComposedDesign] = {}
"""Every composition built so far, by name: what a `ComposedConfig` names."""


@dataclass(frozen=True, slots=True)
class ComposedConfig:
    """An instance of a composition: the composition's name, each stage's configuration, and
    the environment (each stage's configuration is rebound to its part of it, so that
    `dataclasses.replace(config, environment=...)` gives the instance in another one)."""

    design: str
    configs: tuple[Any, ...]
    environment: frozenset[str] = frozenset()

    def __post_init__(self) -> None:
        composed = _COMPOSITIONS.get(self.design)
        if composed is None:
            raise ValueError(f"design {self.design!r} is not a composition; the compositions "
                             f"are {', '.join(sorted(_COMPOSITIONS)) or 'none'}")
        object.__setattr__(self, "configs", composed.rebound(self.configs, self.environment))


@dataclass(frozen=True, slots=True)
class ComposedState:
    """Every stage's state, in path order."""

    states: tuple[Any, ...]


@dataclass(frozen=True, slots=True)
class Local:
    """One stage's own action, `step` (`kind`: its name, as the stage's `action_to_json`
    says it); what its links cause downstream happens in the same composed step."""

    stage: int
    kind: str
    step: Any


def stage_property(index: int, stage: Stage, prop: DesignProperty) -> DesignProperty:
    """A stage's property over the composed state."""

    def check(config: ComposedConfig, state: ComposedState) -> list[str]:
        return prop.check(config.configs[index], state.states[index])

    return DesignProperty(f"{stage.prefix}.{prop.id}", f"{stage.design.name}: {prop.title}",
                          prop.statement, prop.scope, check)


@dataclass(frozen=True)
class ComposedDesign:
    """Designs along a request's path, as one design (the module docstring has the recipe).
    `build(environment, rung)` gives each stage's configuration (each stage's environment
    is set from `environment` afterwards)."""

    name: str
    title: str
    stages: tuple[Stage, ...]
    links: tuple[Link, ...]
    build: Callable[[frozenset[str], int], tuple[Any, ...]]
    end_to_end: tuple[DesignProperty, ...]
    rungs: tuple[str, ...] = ("the base instance",)
    carried: tuple[str, ...] | None = None
    """The stage properties the composition checks (`PREFIX.ID`), else every one."""

    def __post_init__(self) -> None:
        if len(self.links) != len(self.stages) - 1:
            raise ValueError(f"{len(self.stages)} stages need {len(self.stages) - 1} links, "
                             f"got {len(self.links)}")
        # Its instances find it by name here, not through the registry, which imports the
        # built-in compositions (the registry -> paths -> compose import would close a cycle).
        _COMPOSITIONS[self.name] = self

    @property
    def variants(self) -> tuple[str, ...]:
        return ("+".join(s.variant for s in self.stages),)

    @property
    def sources(self) -> tuple[DriftSource, ...]:
        ids = sorted({s.id for st in self.stages for s in st.design.sources}, key=source_order)
        return tuple(self._source(i) for i in ids)

    def _source(self, source_id: str) -> DriftSource:
        found = [(st, next(s for s in st.design.sources if s.id == source_id))
                 for st in self.stages if any(s.id == source_id for s in st.design.sources)]
        title = found[0][1].title
        effect = "; ".join(f"{st.design.name}: {s.effect}" for st, s in found)
        return DriftSource(source_id, title, effect)

    @property
    def refused(self) -> Mapping[str, str]:
        have = {s.id for st in self.stages for s in st.design.sources}
        every = {k for st in self.stages for k in st.design.refused} - have
        return {k: "; ".join(f"{st.design.name}: {st.design.refused[k]}" for st in self.stages
                             if k in st.design.refused)
                for k in sorted(every, key=source_order)}

    @property
    def trace_tags(self) -> tuple[type, ...]:
        """Every stage's, each once, in stage order."""
        return tuple(dict.fromkeys(t for st in self.stages for t in st.design.trace_tags))

    @property
    def properties(self) -> tuple[DesignProperty, ...]:
        staged = (stage_property(i, st, p) for i, st in enumerate(self.stages)
                  for p in st.design.properties)
        return (*self.end_to_end, *(p for p in staged
                                    if self.carried is None or p.id in self.carried))

    def project(self, index: int, environment: frozenset[str]) -> frozenset[str]:
        """The part of `environment` stage `index` has."""
        return environment & {s.id for s in self.stages[index].design.sources}

    def rebound(self, configs: tuple[Any, ...], environment: frozenset[str]
                ) -> tuple[Any, ...]:
        if len(configs) != len(self.stages):
            raise ValueError(f"{self.name} has {len(self.stages)} stages, got "
                             f"{len(configs)} configurations")
        return tuple(st.rebind(c, self.project(i, environment))
                     for i, (st, c) in enumerate(zip(self.stages, configs, strict=True)))

    def instance(self, variant: str, environment: frozenset[str], rung: int = 0
                 ) -> ComposedConfig:
        check_variant(self, variant)
        check_environment(self, environment)
        if not 0 <= rung < len(self.rungs):
            raise ValueError(f"rung {rung}: the {self.name} design's rungs are "
                             f"0..{len(self.rungs) - 1}")
        return ComposedConfig(self.name, self.build(environment, rung), environment)

    def initial(self, config: ComposedConfig) -> ComposedState:
        return ComposedState(tuple(st.design.initial(c)
                                   for st, c in zip(self.stages, config.configs, strict=True)))

    def enabled(self, config: ComposedConfig, state: ComposedState) -> list[Local]:
        found: list[Local] = []
        for index, (st, cfg, sub) in enumerate(zip(self.stages, config.configs, state.states,
                                                   strict=True)):
            driven = self.links[index - 1].driven if index else None
            for action in st.design.enabled(cfg, sub):
                if driven is None or not driven(action):
                    found.append(Local(index, self._kind(index, action), action))
        return found

    def _kind(self, index: int, action: Any) -> str:
        return str(self.stages[index].design.action_to_json(action)["action"])

    def step(self, config: ComposedConfig, state: ComposedState, action: Local
             ) -> ComposedState:
        """The stage's step, then what its links cause downstream; InvalidAction (changing
        nothing) for an action not enabled or a link's action the next stage cannot take."""
        if not 0 <= action.stage < len(self.stages):
            raise InvalidAction(f"{action!r}: no stage {action.stage}")
        if action.stage and self.links[action.stage - 1].driven(action.step):
            raise InvalidAction(f"{action!r} is driven by the link before stage "
                                f"{action.stage}, not a step of its own")
        states = list(state.states)
        pending = [(action.stage, action.step)]
        while pending:
            index, taken = pending.pop(0)
            stage, cfg = self.stages[index], config.configs[index]
            before = states[index]
            try:
                states[index] = stage.design.step(cfg, before, taken)
            except InvalidAction:
                if index and not stage.design.enabled(cfg, before):
                    continue  # a dead stage (its engine died: nothing enabled) takes nothing
                raise
            if index + 1 < len(self.stages):
                caused = self.links[index].outputs(cfg, before, taken, states[index])
                pending += [(index + 1, a) for a in caused]
        return ComposedState(tuple(states))

    def is_quiescent(self, config: ComposedConfig, state: ComposedState) -> bool:
        return all(st.design.is_quiescent(c, s) for st, c, s in zip(
            self.stages, config.configs, state.states, strict=True))

    def config_from_json(self, data: Mapping[str, Any], variant: str,
                         environment: frozenset[str]) -> ComposedConfig:
        check_variant(self, variant)
        stated = data["stages"]
        configs = tuple(st.design.config_from_json(d, st.variant, self.project(i, environment))
                        for i, (st, d) in enumerate(zip(self.stages, stated, strict=True)))
        return ComposedConfig(self.name, configs, environment)

    def action_to_json(self, action: Local) -> dict[str, Any]:
        inner = self.stages[action.stage].design.action_to_json(action.step)
        return {"action": "Local", "stage": action.stage, "kind": action.kind,
                "step": {k: v for k, v in inner.items() if k != "action"}}

    def action_from_json(self, data: Mapping[str, Any]) -> Local:
        if data.get("action") != "Local":
            raise InvalidAction(f"no {self.name} action {data.get('action')!r}; one of "
                                "['Local']")
        index = int(data["stage"])
        if not 0 <= index < len(self.stages):
            raise InvalidAction(f"no stage {index} in {self.name}")
        kind, inner = str(data["kind"]), data["step"]
        action = self.stages[index].design.action_from_json({"action": kind, **inner})
        return Local(index, kind, action)
