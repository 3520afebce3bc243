"""The standing ladder: challenge up to `reach` places above; the winner takes the higher place."""

from __future__ import annotations


class Ladder:
    """Ladder moves over `positions`, a tuple of user ids, top first."""

    def __init__(self, reach: int) -> None:
        if reach < 1:
            raise ValueError("a ladder's reach is at least 1")
        self.reach = reach

    def may_challenge(self, positions: tuple[int, ...], challenger: int, target: int) -> bool:
        """True when both are on the ladder and target is 1..reach places above challenger."""
        if challenger not in positions or target not in positions:
            return False
        gap = positions.index(challenger) - positions.index(target)
        return 1 <= gap <= self.reach

    def after_result(
        self, positions: tuple[int, ...], challenger: int, target: int, winner: int
    ) -> tuple[int, ...]:
        """The winner takes the higher place: a winning challenger moves into target's place
        and those between move down one; if the target wins nothing changes. A challenge not
        answered in time is a win for the challenger (the caller passes winner=challenger).
        """
        if winner not in (challenger, target):
            raise ValueError("the winner must be the challenger or the target")
        if challenger not in positions or target not in positions:
            raise ValueError("both players must be on the ladder")
        ci, ti = positions.index(challenger), positions.index(target)
        if winner == target or ci < ti:
            return positions
        rest = [u for u in positions if u != challenger]
        rest.insert(ti, challenger)
        return tuple(rest)

    def join(self, positions: tuple[int, ...], user_id: int) -> tuple[int, ...]:
        """New players enter at the bottom (joining twice changes nothing)."""
        return positions if user_id in positions else (*positions, user_id)

    def leave(self, positions: tuple[int, ...], user_id: int) -> tuple[int, ...]:
        """The player is removed; those below move up one."""
        return tuple(u for u in positions if u != user_id)
