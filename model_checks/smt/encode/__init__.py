"""Encode: the spec's transition system as Z3 formulas over a bounded configuration.

Owns the symbolic state named by time step (`symbols`, with the per-request `slots` and the
byte-budget `lru`), each spec action as a relation (`front_end`, `engine`, and `actions`,
which also combines them into `transition` and gives `initial`), a step's symbolic choices
(`args`), and the state properties as predicates (`properties.BAD`). Hands those formulas to
`search/` and `prove/`; imports nothing of the later stages.
"""
