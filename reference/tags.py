"""Tags (V3): a 64-bit name for one processing of one item, unique across front ends and time.

``tag = nonce << 32 | counter``: the nonce is a random 32-bit number drawn per sender (and
again when the counter wraps), the counter counts the sender's payloads. Tags of one nonce never
repeat; after 2**32 tags a fresh nonce is drawn. Tags of different senders (D5), of a restarted
sender (D10) or of two nonces of one sender collide only if their nonces are equal
(probability 2**-32 per pair of nonces). Wire cost: 8 bytes per item, on
payloads and references alike.

Not thread-safe by itself: the sender cache draws tags under its lock.
"""

from __future__ import annotations

import secrets

from reference.errors import BadInputTypeError, BadInputValueError, describe

__all__ = ["TagSource"]

_COUNTER_BITS = 32
_COUNTER_LIMIT = 1 << _COUNTER_BITS


class TagSource:
    """Mints tags for one sender. ``nonce`` fixes the first nonce (tests); default: random."""

    def __init__(self, nonce: int | None = None) -> None:
        if nonce is None:
            nonce = secrets.randbits(_COUNTER_BITS)
        if isinstance(nonce, bool) or not isinstance(nonce, int):
            raise BadInputTypeError(f"got nonce {describe(nonce)}, expected an int")
        if not 0 <= nonce < _COUNTER_LIMIT:
            raise BadInputValueError(f"got nonce {nonce}, expected an int in [0, 2**32)")
        self._nonce = nonce
        self._counter = 0

    @property
    def nonce(self) -> int:
        return self._nonce

    def next(self) -> int:
        """A tag never returned before by this source."""
        if self._counter == _COUNTER_LIMIT:
            self._renew_nonce()
        tag = self._nonce << _COUNTER_BITS | self._counter
        self._counter += 1
        return tag

    def _renew_nonce(self) -> None:
        old = self._nonce
        while self._nonce == old:
            self._nonce = secrets.randbits(_COUNTER_BITS)
        self._counter = 0
