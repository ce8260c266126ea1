"""The LRU design's state reductions, declared behind the one explorer's `Moves`: the
successor function `search_core.Reductions` composes them, and `search_core.moves_for` is the
one table a search reaches them through (every other design is searched through
`moves.DesignMoves`, without reductions).

- `canonical`: processing renaming (processing ids renamed in order of first appearance).
- `symmetry`: identity symmetry (interchangeable identities permuted to a canonical form),
  and its renamings undone along a path.
- `forgetting`: the deduplication key with ended requests and unread media flags forgotten.
- `slots`: that key with the live requests' slots renumbered and the last delivery
  forgotten, and the rid maps that undo it along a path.

They read the LRU design's own state, so only the table, the LRU design's other per-design
modules and its own judge (which undoes their renamings to replay a path on the spec) import
them: a design-generic module moves through `Moves` (`tests/architecture/
test_arch_one_stack.py` checks the importers).
"""
