"""The exhaustive explorer: every reachable state of a small instance, over the spec itself.

`graph` builds the state graph breadth-first with `spec.enabled` and `spec.step` (the one
reduction, `canonical`, renames processing ids and is argued sound there); `judge` decides
every property on it (`monitors` for L1-L3, `liveness` for L4); `cells` runs one job per
matrix cell and turns the outcomes into verdict records; `command` is the CLI.
"""
