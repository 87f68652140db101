"""Compact maps for reading millions of records: each key costs a few bytes, not a Python object.

`HashCodes` maps keys (any values with a stable `repr`, such as strings, ints, tuples of them)
to small codes 1..255: each key is kept as a 128-bit hash (blake2b) in open addressing, 17 bytes
a slot, so a million keys take about 35 MB where a dict of their strings would take several times
that. Two different keys share a hash with probability about n^2 / 2^129 (for a billion keys,
below 1e-20): far below any disk's error rate.
"""
import hashlib
from array import array

_EMPTY = 0


def key_hash(key):
    """Return the 128-bit hash of a key's repr as two 64-bit ints."""
    digest = hashlib.blake2b(repr(key).encode("utf-8", "surrogatepass"), digest_size=16).digest()
    return int.from_bytes(digest[:8], "little"), int.from_bytes(digest[8:], "little")


class HashCodes:
    """A map from keys to codes in 1..255 (`get`, `put`, `len`), holding hashes of the keys only."""

    def __init__(self, capacity=1024):
        size = 1
        while size < capacity:
            size *= 2
        self._alloc(size)
        self._len = 0

    def _alloc(self, size):
        self._hi = array("Q", bytes(8 * size))
        self._lo = array("Q", bytes(8 * size))
        self._code = bytearray(size)
        self._mask = size - 1

    def __len__(self):
        return self._len

    def _find(self, hi, lo):
        """Return the slot holding (hi, lo), or the empty slot where it would go."""
        mask, his, los, codes = self._mask, self._hi, self._lo, self._code
        i = hi & mask
        while codes[i] != _EMPTY and (his[i] != hi or los[i] != lo):
            i = (i + 1) & mask
        return i

    def get(self, key, default=0):
        """Return the code of `key` (`default` if it has none)."""
        return self.get_hashed(key_hash(key), default)

    def put(self, key, code):
        """Set the code of `key` (1..255) and return its previous code (0 if it had none)."""
        return self.put_hashed(key_hash(key), code)

    def get_hashed(self, hashed, default=0):
        """As `get`, given the key's `key_hash` (a caller that reads then writes a key hashes it once)."""
        i = self._find(*hashed)
        return self._code[i] or default

    def put_hashed(self, hashed, code):
        """As `put`, given the key's `key_hash`."""
        if not 0 < code < 256:
            raise ValueError(f"a code is in 1..255, got {code!r}")
        hi, lo = hashed
        i = self._find(hi, lo)
        previous = self._code[i]
        if previous == _EMPTY:
            if 3 * (self._len + 1) > 2 * (self._mask + 1):  # keep the table at most 2/3 full
                self._grow()
                i = self._find(hi, lo)
            self._hi[i], self._lo[i] = hi, lo
            self._len += 1
        self._code[i] = code
        return previous

    def _grow(self):
        his, los, codes = self._hi, self._lo, self._code
        self._alloc(2 * (self._mask + 1))
        for j, code in enumerate(codes):
            if code != _EMPTY:
                i = self._find(his[j], los[j])
                self._hi[i], self._lo[i], self._code[i] = his[j], los[j], code
