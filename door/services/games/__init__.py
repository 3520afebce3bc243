"""The game use-cases: lobby, seating (join, leave, decline), turns, deadlines, history,
the sysop's abandon, and the notices they send.

Each use-case is a small class with one job, sharing :class:`~door.services.games.core.
GameCore` (the database, the rules, the clock, the dice, the state cache, and the steps of
a game transaction: ``core.py`` says how a transaction goes). :class:`GameService` puts
them together and offers their actions under one roof, which is what the screens, the
bots and the command line call.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Mapping, Sequence

from door.services.clock import Clock
from door.services.games.abandon import Abandonment
from door.services.games.cache import GameCache
from door.services.games.core import AfterCommit, GameCore
from door.services.games.deadlines import TIMEOUTS_TO_FORFEIT, Deadlines
from door.services.games.history import History
from door.services.games.lobby import (
    DEADLINE_MAX_HOURS,
    DEADLINE_MIN_HOURS,
    DEFAULT_DEADLINE_HOURS,
    Lobby,
)
from door.services.games.model import (
    AnyRules,
    BannedError,
    GameClosedError,
    GameEvent,
    GameInfo,
    GameNews,
    GameSnapshot,
    ListWhich,
    LobbyError,
    NotYourTurnError,
    SeatInfo,
    SeatSpec,
    StaleVersionError,
    Status,
    VisitSummary,
    dump_state,
    load_state,
    outcome_from_json,
    outcome_to_json,
)
from door.services.games.notices import GameNotices
from door.services.games.seating import Seating
from door.services.games.turns import MAX_MOVE_TEXT, Turns
from door.services.notify import Hub
from door.store.db import Database

__all__ = [
    "DEADLINE_MAX_HOURS",
    "DEADLINE_MIN_HOURS",
    "DEFAULT_DEADLINE_HOURS",
    "MAX_MOVE_TEXT",
    "TIMEOUTS_TO_FORFEIT",
    "AnyRules",
    "BannedError",
    "GameCache",
    "GameClosedError",
    "GameEvent",
    "GameInfo",
    "GameNews",
    "GameService",
    "GameSnapshot",
    "ListWhich",
    "LobbyError",
    "NotYourTurnError",
    "SeatInfo",
    "SeatSpec",
    "StaleVersionError",
    "Status",
    "VisitSummary",
    "dump_state",
    "load_state",
    "outcome_from_json",
    "outcome_to_json",
]  # fmt: skip


class GameService:
    """Every game use-case, built once per process (``door.services.build_services``).

    The actions are the use-cases' own methods: ``begin``/``join``/``leave``/``decline``/
    ``list_games``/``get`` (:class:`Lobby`), ``submit``/``resign`` (:class:`Turns`),
    ``sweep_deadlines`` (:class:`Deadlines`), ``events``/``mark_seen``/
    ``since_last_visit``/``replay_check``/``game_ids`` (:class:`History`), ``dice_proof``
    (:class:`GameCore`: the commitment, the words and, once over, the seed),
    ``abandon`` (:class:`Abandonment`: the sysop's, checked by door/services/sysop.py).
    ``notices.on_after_commit`` is the hook the bot runner sets. ``bot_levels`` are the
    computer players a game may seat, by kind (default: door's own bots,
    ``door.services.bots.level_names``); no other name is ever made a bot's account.
    """

    def __init__(
        self,
        db: Database,
        registry: Mapping[str, AnyRules],
        hub: Hub,
        clock: Clock,
        rng: random.Random | None = None,
        *,
        cache: GameCache | None = None,
        default_deadline_hours: int = DEFAULT_DEADLINE_HOURS,
        bot_levels: Mapping[str, Sequence[str]] | None = None,
    ) -> None:
        self.db = db
        self.hub = hub
        self.clock = clock
        self.core = GameCore(
            db,
            registry,
            clock,
            rng if rng is not None else secrets.SystemRandom(),
            cache if cache is not None else GameCache(),
            # the dice seeds: from secrets, or from a test's seeded RNG (reproducible)
            secrets.token_bytes if rng is None else rng.randbytes,
        )
        self.registry = self.core.registry
        self.notices = GameNotices(hub)
        self.core.tell = self.notices.in_transaction
        if bot_levels is None:
            from door.services.bots import level_names

            bot_levels = level_names()
        self.lobby = Lobby(self.core, self.notices, default_deadline_hours, bot_levels)
        self.seating = Seating(self.core, self.notices)
        self.turns = Turns(self.core, self.notices, self.lobby, self.seating)
        self.deadlines = Deadlines(self.core, self.notices)
        self.history = History(self.core)
        self.abandonment = Abandonment(self.core, self.notices)
        # the actions, under the names every caller knows
        self.kinds = self.lobby.kinds
        self.rules_for = self.core.rules_for
        self.begin = self.lobby.begin
        self.join = self.seating.join
        self.leave = self.seating.leave
        self.decline = self.seating.decline
        self.list_games = self.lobby.list_games
        self.get = self.lobby.get
        self.submit = self.turns.submit
        self.resign = self.turns.resign
        self.offer_resignation = self.turns.offer_resignation
        self.sweep_deadlines = self.deadlines.sweep_deadlines
        self.events = self.history.events
        self.mark_seen = self.history.mark_seen
        self.since_last_visit = self.history.since_last_visit
        self.replay_check = self.history.replay_check
        self.game_ids = self.history.game_ids
        self.dice_proof = self.core.dice_proof
        self.abandon = self.abandonment.abandon

    @property
    def on_after_commit(self) -> AfterCommit | None:
        """Called on the event loop with the new snapshot after each committed change
        (the bot runner's hook; see :class:`GameNotices`)."""
        return self.notices.on_after_commit

    @on_after_commit.setter
    def on_after_commit(self, hook: AfterCommit | None) -> None:
        self.notices.on_after_commit = hook
