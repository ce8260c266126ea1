"""Design-generic checkers: each reads only `spec.designs.base.Design`, so every design (the
key-replicated LRU, the shared-memory object store, one added by the recipe) is judged by
them with no edit here. `explore`: exhaustive breadth-first search of one instance;
`simulate`: Hypothesis's stateful testing over the design's actions; `prove`: Z3 over the
explored transition relation (bounded reachability and k-induction); `lattice`: every
environment of the design's sources, with minimal breaking sets."""
