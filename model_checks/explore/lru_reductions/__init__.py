"""The LRU design's state reductions, behind the one explorer's `Moves`: `canonical`
(processing renaming), `symmetry` (identity symmetry), `forgetting` (ended requests forgotten
in the key), `slots` (live requests' slots renumbered in it) and `lazy_media` (a request's
media flags chosen where P0 first reads them, given back to its `Submit` in a witness),
composed by `search_core.Reductions` and reached by a search only through
`search_core.moves_for`; only the LRU design's own modules import them
(`tests/architecture/test_arch_one_stack.py`)."""
