"""What anyone may see of a game's provable dice (door/games/fairdice.py): the proof.

From the start every viewer sees the commitment ``SHA-256(seed)`` and the seats' dice
words; the seed itself only once the game is over (finished or abandoned), when no roll is
left to predict. A game made before provable dice (no seed) says so instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from door.games import fairdice
from door.store.records import GameRecord, SeatRecord

NOT_PROVABLE = "dice not provable for this game"
OVER = ("finished", "abandoned")


@dataclass(frozen=True, slots=True)
class DiceProof:
    """A game's dice proof as it may be shown now.

    ``seed_hex`` is None until the game is over; ``commitment_hex`` is None only for a
    game without a seed (``provable`` False). ``words`` are the seats' dice words in
    seat order; ``chance_count`` the chance events logged so far (the k of the next)."""

    game_id: int
    provable: bool
    commitment_hex: str | None
    words: tuple[str, ...]
    seed_hex: str | None
    chance_count: int

    @property
    def revealed(self) -> bool:
        """True once the seed is shown (the game is over)."""
        return self.seed_hex is not None

    def lines(self, width: int, *, commitment: bool = True) -> list[str]:
        """The proof as text lines at most ``width`` columns wide (the hex cut where it
        must be): the commitment (unless ``commitment`` is False and the seed is shown:
        the seed's SHA-256 gives it back), and the seed once revealed."""
        if not self.provable or self.commitment_hex is None:
            return [NOT_PROVABLE[:width] if width > 0 else ""]
        shown = [("Dice commitment:", self.commitment_hex)]
        if self.seed_hex is not None:
            shown = [*(shown if commitment else []), ("Dice seed:", self.seed_hex)]
        pad = max(len(label) for label, _ in shown) + 1
        out: list[str] = []
        for label, hex_text in shown:
            out += _labelled(label, hex_text, width, pad)
        return out


def proof_of(game: GameRecord, seats: Sequence[SeatRecord]) -> DiceProof:
    """The proof of ``game`` with its ``seats``, the seed in it only if the game is over."""
    words = tuple(s.dice_word for s in sorted(seats, key=lambda s: s.seat))
    seed = game.dice_seed
    if seed is None:
        return DiceProof(game.id, False, None, words, None, game.chance_count)
    shown = seed.hex() if game.status in OVER else None
    return DiceProof(game.id, True, fairdice.commitment(seed), words, shown, game.chance_count)


def _labelled(label: str, hex_text: str, width: int, pad: int) -> list[str]:
    """``label`` (padded to ``pad`` columns) and ``hex_text`` in lines of at most
    ``width`` columns: on one line if it fits, else the hex cut into even pieces under
    each other beside the label, or (too narrow for that) under the label."""
    label = label.ljust(pad)
    width = max(width, 8)
    if len(label) + len(hex_text) <= width:
        return [label + hex_text]
    room = width - len(label)
    if room < 16:
        return [label.rstrip()] + [hex_text[i : i + width] for i in range(0, len(hex_text), width)]
    count = -(-len(hex_text) // room)  # as few lines as fit, as even as can be
    size = -(-len(hex_text) // count)
    pieces = [hex_text[i : i + size] for i in range(0, len(hex_text), size)]
    return [label + pieces[0], *(" " * len(label) + p for p in pieces[1:])]
