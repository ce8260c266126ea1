"""The LRU design's state reductions, behind the one explorer's `Moves`: `canonical`
(processing renaming), `symmetry` (identity symmetry), `forgetting` (ended requests forgotten
in the key) and `slots` (live requests' slots renumbered in it), composed by
`search_core.Reductions` and reached by a search only through `search_core.moves_for`; only
the LRU design's own modules import them (`tests/architecture/test_arch_one_stack.py`)."""
