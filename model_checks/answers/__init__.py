"""The project's answers: one typed answer per (variant, environment, property), computed
once from every checker's evidence and shipped as package data (`answers.json`).

    from model_checks.answers import load
    load().answer("V2", ("D7",), "S1").words()   # 'breaks, a counterexample of ... steps ...'

- `model`: the typed answer (`Answer`: a verdict, how far a hold reaches, a break's shortest
  replayed witness);
- `store`: the facts per variant and property and the one rule that turns them into an
  answer (`AnswerStore`, `load`), serialised as `answers.json`;
- `build`: the store built from every source of evidence (the drift lattice's witnesses,
  proofs and kept outcomes, the results snapshot's verdict records);
- `render`: an answer as a page's table cell shows it, and read back from one;
- `beside`: the answer shown beside a checker's weaker result on its own instance (explore's
  and prove's lines name the break and its witness);
- `summary`: the main job's summary, every checker's verdict records merged into one table
  and one file, read against the expected matrix.

`designs.json` beside them: the other designs' committed answers, generated with the pages
(`model_checks.docs`) and read by the doctor.
"""

from model_checks.answers.model import Answer, Hold, Reach, Verdict, Witness
from model_checks.answers.store import AnswerStore, AnswerStoreError, Facts, load

__all__ = ["Answer", "AnswerStore", "AnswerStoreError", "Facts", "Hold", "Reach", "Verdict",
           "Witness", "load"]
