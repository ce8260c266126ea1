"""The LRU design's judging, as `judging.judging_for` gives it: one search of an instance
by the one explorer under the design's reductions (`search_core`), its state properties
checked as the search numbers states, and every property of the registry judged on the
graph by the design's judge (`judge.judge_all`)."""

from __future__ import annotations

from dataclasses import dataclass

from model_checks.explore.graph import GraphOptions, build
from model_checks.explore.judgement import JudgedInstance
from model_checks.explore.lru_judging.judge import judge_all
from model_checks.explore.lru_judging.state_checks import state_properties
from spec import Config
from spec.designs.lru_design import LRU_NAME


@dataclass(frozen=True)
class LruJudging:
    """`judging.Judging` for the LRU design (`design`): the registry's properties, without
    the lemmas, judged on the reduced graph of the instance."""

    design: str = LRU_NAME

    def judge(self, config: Config, *, max_states: int) -> JudgedInstance:
        graph = build(config, GraphOptions(max_states=max_states,
                                           checks=state_properties(config, False)),
                      self.design)
        return JudgedInstance(len(graph.states), graph.steps_taken, graph.diameter, graph.complete,
                      tuple(judge_all(graph, with_lemmas=False)))


LRU_JUDGING = LruJudging()
"""The LRU design's entry in `judging.judging_for`."""
