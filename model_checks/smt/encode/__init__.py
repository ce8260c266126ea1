"""Encode: the spec's transition system as Z3 formulas over a bounded configuration.

Owns the symbolic state named by time step (`symbols`, with the per-request `slots` and the
byte-budget `lru`), a step's symbolic choices (`args`), each spec action as a relation written
beside the spec step it mirrors (`client`, `front_end`, `engine`, `drift_events`) and
registered for its class (`relations`, the one table keyed by action class), their
combination into `transition` with codes derived from `spec.ACTION_TYPES`, and `initial`
(`actions`), and the state properties as predicates (`properties.BAD`). Hands those formulas
to `search/` and `prove/`; imports nothing of the later stages.
"""
