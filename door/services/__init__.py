"""Use-cases on top of the store: accounts, games, ratings, notifications, bots.

:func:`build_services` is the one place they are put together (the composition root
calls it); :meth:`Services.close` stops the background tasks and closes the database.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from door.config import CommunityConfig
from door.services import timecontrol as tc
from door.services.accounts import Accounts
from door.services.archive import Archive
from door.services.bans import BanWatch
from door.services.blocks import Blocks
from door.services.chat import Chat
from door.services.clock import Clock, SystemClock
from door.services.export import Exporter
from door.services.games import GameCache, GameService
from door.services.mail import Mail
from door.services.names import NameRules
from door.services.notify import Hub, LocalHub, PgHub
from door.services.outage import DatabaseOutage
from door.services.outbox import Outbox
from door.services.presence import Presence
from door.services.ratings import Ratings
from door.services.sender import Sender
from door.services.signups import SIGNUP_MODES, SignupPolicy
from door.services.sysop import Sysop
from door.services.tournaments.service import Tournaments
from door.services.vacations import PlayerClocks
from door.store.db import Database, DatabaseFailure
from door.store.files import database_files, tighten, wide_modes
from door.store.retry import Backoff

if TYPE_CHECKING:
    from door.config import Config

log = logging.getLogger(__name__)


@dataclass
class Services:
    """Everything a session needs, built once per process."""

    db: Database
    accounts: Accounts
    games: GameService
    ratings: Ratings
    hub: Hub
    clock: Clock
    bots: Any | None = None
    sweep_interval_s: float = 60.0
    sweep_backoff: Backoff = field(default_factory=lambda: Backoff(first_s=0.5, max_s=10.0))
    """How soon a sweep the database could not save is tried again (at most every
    ``sweep_interval_s``); at once when a write succeeds again."""
    bans: BanWatch | None = None
    """Ends banned users' live sessions (built by build_services; see door/services/bans.py)."""
    tournaments: Tournaments | None = None
    """Tournaments that run themselves (door/services/tournaments)."""
    tournament_sweep_s: float = 30.0
    public_finished: bool = True
    """``[games] public_finished``: who may open finished games (see ``archive``)."""
    _tasks: list[asyncio.Task[Any]] = field(default_factory=list)
    outage: DatabaseOutage = field(init=False)
    """What the sessions say when the database is out of reach (door/services/outage.py)."""
    archive: Archive = field(init=False)
    """Finished games, searched (door/services/archive.py)."""
    vacation_days_per_year: int = 14
    """``[games] vacation_days_per_year``."""
    clocks: PlayerClocks = field(init=False)
    """Players' time zones and vacations (door/services/vacations.py)."""
    exporter: Exporter = field(init=False)
    """Games' records: door export, the SSH export command, the web's /games/N.mat
    (door/services/export)."""
    mail: Mail = field(init=False)
    """Private messages between players (door/services/mail.py)."""
    presence: Presence = field(init=False)
    """Who is signed in on this process, and pages (door/services/presence.py)."""
    sysop: Sysop = field(init=False)
    """The sysop's console: users, reports, broadcast, games, health, audit log."""
    outbox: Outbox | None = None
    """Notices outside door (issue 18): preferences and the outbox (always built;
    written to only when ``[mail]`` or ``[push]`` is configured)."""
    sender: Sender | None = None
    """The outbox's sender task (door/services/sender.py), when configured."""
    blocks: Blocks = field(init=False)
    """Who blocks whom (door/services/blocks.py)."""
    chat: Chat = field(init=False)
    """Players' chat and spectators' kibitz in games (door/services/chat.py)."""
    community: CommunityConfig = field(default_factory=CommunityConfig)
    """``[community]``: the rate limits of chat, mail and pages, presence's interval."""

    def __post_init__(self) -> None:
        self.outage = DatabaseOutage(self.db.health)
        self.archive = Archive(self.games, public=self.public_finished)
        self.clocks = PlayerClocks(self.games.core, self.clock, self.vacation_days_per_year)
        self.exporter = Exporter(self.games, public_finished=self.public_finished)
        c = self.community
        self.mail = Mail(
            self.db, self.clock, hub=self.hub, per_minute=c.mail_per_minute, burst=c.mail_burst
        )
        self.presence = Presence(
            self.hub, self.clock, self.db, interval_s=c.presence_interval_s,
            per_minute=c.page_per_minute, burst=c.page_burst,
        )  # fmt: skip
        self.sysop = Sysop(
            self.db, self.clock, self.accounts, self.presence, self.hub, self.games
        )
        if self.outbox is None:
            self.outbox = Outbox(self.db, self.clock)
        if self.outbox.mail_enabled or self.outbox.push_enabled:
            self.games.notices.outbox = self.outbox
            self.mail.outbox = self.outbox
        self.blocks = Blocks(self.db, self.clock)
        self.chat = Chat(
            self.db, self.clock, self.hub, per_minute=c.chat_per_minute, burst=c.chat_burst
        )

    def start_sweeper(self) -> None:
        """Run ``games.sweep_deadlines`` every ``sweep_interval_s`` seconds in the background
        (every process may: each timeout transaction claims its game first, so processes
        sharing a database never try the same one; see ``Deadlines``)."""
        self._tasks.append(asyncio.create_task(self._sweep_loop(), name="door-deadline-sweeper"))
        if self.tournaments is not None:
            self._tasks.append(
                asyncio.create_task(self._tournament_loop(), name="door-tournament-sweeper")
            )

    async def _tournament_loop(self) -> None:
        """Every ``tournament_sweep_s``: advance what is due (a start time reached, a
        round a crash left unmade); each advance happens once whoever does it."""
        assert self.tournaments is not None
        loop = asyncio.get_running_loop()
        next_scan = loop.time()
        while True:
            try:
                await self.tournaments.sweep()
                scan = getattr(self.bots, "scan", None)
                if scan is not None and loop.time() >= next_scan:
                    # a bot game the runner put down (it stops after so many actions a
                    # wake) would hold its round up for ever: look for bot turns again
                    next_scan = loop.time() + 10.0
                    await scan()
            except asyncio.CancelledError:
                raise
            except Exception:  # the database out of reach, a bad event: again soon
                log.exception("tournament sweep failed")
            await asyncio.sleep(self.tournament_sweep_s)

    async def _sweep_loop(self) -> None:
        recovered = asyncio.Event()
        stop_listening = self.db.health.on_recovered(recovered.set)
        failures = 0
        try:
            while True:
                wait = self.sweep_interval_s
                try:
                    n = await self.games.sweep_deadlines()
                    failures = 0
                    if n:
                        log.info("applied %d turn timeout(s)", n)
                except asyncio.CancelledError:
                    raise
                except DatabaseFailure as exc:  # the disk full, the server gone: soon again
                    failures += 1
                    wait = min(wait, self.sweep_backoff.delay(failures))
                    log.warning("deadline sweep: %s; again in %.1f s", exc, wait)
                except Exception:  # keep sweeping: one bad game must not stop the rest
                    log.exception("deadline sweep failed")
                recovered.clear()
                if failures:
                    with contextlib.suppress(TimeoutError):
                        await asyncio.wait_for(recovered.wait(), wait)
                else:
                    await asyncio.sleep(wait)
        finally:
            stop_listening()

    async def close(self) -> None:
        """Stop the bots and the sweeper, then close the database."""
        if self.bots is not None:
            stop = getattr(self.bots, "stop", None)
            if stop is not None:
                await stop()
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        self._tasks.clear()
        await self.presence.stop()
        if self.sender is not None:
            await self.sender.stop()
        if self.bans is not None:
            await self.bans.stop()
        if isinstance(self.hub, PgHub):
            await self.hub.stop()
        self.outage.close()
        await self.db.dispose()


def keep_private(path: Path) -> None:
    """Narrow the SQLite file and its side files to 0600 if others may read them (they
    hold password hashes; door is their only user), and warn of a folder that others may
    enter (not changed: it may be one the sysop shares on purpose)."""
    for wide in tighten(database_files(path)):
        log.warning(
            "%s could be read by other users (mode %04o); door made it 0600",
            wide.path, wide.mode,
        )
    for wide in wide_modes([], [path.parent]):
        log.warning("%s", wide.advice())


def name_rules(config: Config) -> NameRules:
    """The Unicode data and the reserved names of ``[accounts]``."""
    return NameRules.load(config.accounts.reserved_names)


def signup_policy(config: Config) -> SignupPolicy:
    """Who may sign up and how fast, from ``[accounts]``."""
    acc = config.accounts
    mode = acc.signup if acc.signup in SIGNUP_MODES else "open"
    return SignupPolicy(
        mode=mode,
        per_hour=acc.signups_per_address_per_hour,
        attempts_per_hour=acc.signup_attempts_per_address_per_hour,
    )


async def build_services(
    config: Config,
    *,
    clock: Clock | None = None,
    rng: random.Random | None = None,
    start_background: bool = True,
) -> Services:
    """Open the database (upgrading it if configured to), build every service, and —
    with ``start_background`` — start the deadline sweeper, the bots and the ban watch.

    The database is looked at first (:meth:`Database.verify`: SQLite's ``quick_check``,
    the schema): a damaged or unusable one raises
    :class:`~door.store.health.DatabaseUnusableError` and nothing starts. Database files
    that other users may read are made private (0600), and said so in the log.
    """
    from door.games.registry import build_registry

    clock = clock or SystemClock()
    db = Database(config.database_url, busy_timeout_ms=config.database.busy_timeout_ms)
    try:
        await db.verify(upgrading=config.database.auto_upgrade)
    except BaseException:
        await db.dispose()
        raise
    if db.path is not None:
        keep_private(db.path)
    if config.database.auto_upgrade:
        await db.upgrade()
    hub: LocalHub
    if db.is_sqlite:
        hub = LocalHub()
    else:
        # Several door processes may share a PostgreSQL database: hear their moves too.
        hub = PgHub(db)
        if start_background:
            await hub.start()
    bans = BanWatch(db, interval=config.bans.check_interval_s)
    outbox = Outbox(
        db, clock, unsubscribe_base_url=config.notices.unsubscribe_base_url,
        push_schemes=config.push.allowed_schemes, push_enabled=config.push.enabled,
        mail_enabled=bool(config.mail.host),
    )  # fmt: skip
    services = Services(
        db=db,
        accounts=Accounts(
            db, clock, names=name_rules(config), signups=signup_policy(config),
            max_keys=config.accounts.max_ssh_keys,
        ),
        # the game service's one cache: games by (id, version, snapshot), see games/core.py
        games=GameService(
            db, build_registry(), hub, clock, rng, cache=GameCache(),
            default_deadline_hours=config.games.default_deadline_hours,
        ),
        ratings=Ratings(db),
        hub=hub,
        clock=clock,
        sweep_interval_s=config.games.sweep_interval_s,
        bans=bans,
        public_finished=config.games.public_finished,
        vacation_days_per_year=config.games.vacation_days_per_year,
        outbox=outbox,
        tournament_sweep_s=config.tournaments.sweep_interval_s,
        community=config.community,
    )
    if config.mail.host or config.push.enabled:
        services.sender = Sender(
            db, clock, config.mail, config.push, config.notices,
            before_round=outbox.sweep_reminders,
        )  # fmt: skip
    # players without a zone of their own see the sysop's, else the server's
    services.games.core.default_zone = tc.known_zone(config.games.time_zone) or (
        tc.server_zone_name()
    )
    outbox.default_zone = services.games.core.default_zone
    services.tournaments = Tournaments(
        db, services.games, clock,
        players_may_create=config.tournaments.players_may_create,
    )  # fmt: skip
    # a ban made in this process ends the sessions at once (others: see BanWatch)
    services.accounts.on_banned = bans.banned
    if config.games.bots:
        try:
            from door.services.bots import BotRunner  # type: ignore[import-not-found,unused-ignore]
        except ImportError:
            log.warning("no bots in this build")
        else:
            # [bots] run = false: hints and reviews only, the turns are other processes'
            services.bots = BotRunner(
                services, plays=config.bots.run, claim_s=float(config.bots.claim_s)
            )
    if start_background:
        await bans.start()
        services.presence.start()
        services.start_sweeper()
        if services.sender is not None:
            services.sender.start()
        if services.bots is not None:
            services.bots.start()
    return services
