"""Dice anyone can check: the ``door-dice-v1`` scheme (docs/fair-dice.md gives it in full).

When a game is created the server draws a secret 32-byte seed ``S`` and shows everyone its
commitment ``SHA-256(S)``. Each seat may add a short *dice word* as it takes its place.
The k-th chance event of the game (k = 0, 1, 2 … counting every chance event of the game
in log order: opening ties, every roll, every Spectrangle draw) comes from::

    D = HMAC-SHA256(key=S, msg="door-dice-v1" NUL <game id> NUL <k> NUL <word 0> NUL <word 1> …)

(decimal numbers, the words in UTF-8 NFC, NUL one zero byte, one word per seat in seat
order). ``D``'s bytes are a stream of uniform bytes, continued with ``SHA-256(D)``, then
the SHA-256 of that, and so on for as long as it is read. A uniform choice among ``m``
things reads bytes, drops any byte ``>= 256 - 256 % m`` and takes the first kept byte
``b`` as ``b mod m``. Backgammon's dice are two such choices among six (so bytes ``>= 252``
are dropped) plus one: ``b1 mod 6 + 1, b2 mod 6 + 1``, the first die seat 0's in the
opening roll. A Spectrangle draw takes its pieces one after another, each a uniform
choice among the pieces still in the bag in the bag's sorted order.

Pure: the seed is handed in (the service draws it with ``secrets``); nothing here keeps
state between calls.
"""

from __future__ import annotations

import hashlib
import hmac
import unicodedata
from collections.abc import Iterator, Sequence

SCHEME = "door-dice-v1"
SEED_BYTES = 32
WORD_MAX = 32
"""The longest dice word, in characters (after NFC and dropping control characters)."""


def commitment(seed: bytes) -> str:
    """The public commitment to ``seed``: ``SHA-256(seed)`` in lower-case hex."""
    return hashlib.sha256(seed).hexdigest()


def clean_word(text: str) -> str:
    """A dice word as the scheme uses it: NFC, control and format characters (C0, C1,
    DEL, bidi overrides) dropped, surrounding space stripped, at most :data:`WORD_MAX`
    characters."""
    text = unicodedata.normalize("NFC", text)
    kept = "".join(ch for ch in text if unicodedata.category(ch)[0] != "C")
    return unicodedata.normalize("NFC", kept.strip()[:WORD_MAX])


def event_message(game_id: int, k: int, words: Sequence[str]) -> bytes:
    """The HMAC message of chance event ``k`` of game ``game_id``."""
    parts = [SCHEME, str(int(game_id)), str(int(k))]
    parts += [unicodedata.normalize("NFC", w) for w in words]
    return b"\x00".join(p.encode("utf-8") for p in parts)


def event_digest(seed: bytes, game_id: int, k: int, words: Sequence[str]) -> bytes:
    """``D`` of chance event ``k``: HMAC-SHA256 keyed with the seed."""
    return hmac.new(seed, event_message(game_id, k, words), hashlib.sha256).digest()


def byte_stream(digest: bytes) -> Iterator[int]:
    """The uniform bytes of one chance event: ``D``, then ``SHA-256(D)``, then the SHA-256
    of that block, without end."""
    block = digest
    while True:
        yield from block
        block = hashlib.sha256(block).digest()


def event_stream(seed: bytes, game_id: int, k: int, words: Sequence[str]) -> Iterator[int]:
    """The byte stream chance event ``k`` of game ``game_id`` is drawn from."""
    return byte_stream(event_digest(seed, game_id, k, words))


def choose(stream: Iterator[int], m: int) -> int:
    """A uniform choice in ``range(m)`` (1 ≤ m ≤ 256): the first byte below the largest
    multiple of ``m`` that fits in a byte, modulo ``m``."""
    if not 1 <= m <= 256:
        raise ValueError(f"a choice among {m} things does not fit a byte")
    limit = 256 - 256 % m
    for b in stream:
        if b < limit:
            return b % m
    raise ValueError("the byte stream ended")  # byte_stream never does


def dice(seed: bytes, game_id: int, k: int, words: Sequence[str]) -> tuple[int, int]:
    """The two dice of chance event ``k`` (the opening roll's first die is seat 0's)."""
    stream = event_stream(seed, game_id, k, words)
    return choose(stream, 6) + 1, choose(stream, 6) + 1
