"""The project's answers: one typed answer per (variant, environment, property), computed
once from every checker's evidence and shipped as package data (`answers.json`).

    from model_checks.answers import load
    load().answer("V2", ("D7",), "S1").words()   # 'breaks, a counterexample of ... steps ...'
"""

from model_checks.answers.model import Answer, Hold, Reach, Verdict, Witness
from model_checks.answers.store import AnswerStore, AnswerStoreError, Facts, load

__all__ = ["Answer", "AnswerStore", "AnswerStoreError", "Facts", "Hold", "Reach", "Verdict",
           "Witness", "load"]
