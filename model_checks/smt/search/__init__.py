"""Search: bounded model checking with iterative deepening on one incremental solver
(`bmc`), over the formulas of `encode/`, each query bounded by rlimit units.

Takes the properties `prove/` left open (and its proved lemmas as assumptions); hands a
counterexample's model to `decode/`, which replays it on the spec, or reports the depth
reached.
"""
