"""What the two game screens share: names, deadlines, the replayed log, and a base class
that loads a game, sends moves and follows notices.

The helpers are pure; :class:`GameScreenBase` is the one async piece (it talks to
``ctx.services.games``), kept here so both game screens behave the same way: a stale
version is shown as "the game changed, here it is again", a refused move as the rules'
own message, and a notice about the game reloads it and says who moved.
"""

from __future__ import annotations

import textwrap
from abc import abstractmethod
from collections.abc import Awaitable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, Any, ClassVar

from door.games.base import GameRules, Refusal
from door.games.replay import replay
from door.services.games.turns import NOTE_MAX
from door.services.safety import clean_message
from door.services.timecontrol import span_text, zone
from door.ui.bindings import Keyset, with_arrows
from door.ui.canvas import CYAN, WHITE, YELLOW, Canvas, Style, clip_text
from door.ui.screen import Context, Pop, Push, Screen, Transition, clean, help_layout
from door.ui.screens.overlays import (
    LEAVE,
    Action,
    Confirm,
    Cover,
    FrameDrawer,
    MoveEditor,
    ReplayViewer,
)
from door.ui.terminal import InputEvent, Key, Resize, Text

if TYPE_CHECKING:
    from door.services.games import GameEvent, GameInfo, GameSnapshot
    from door.services.notify import Notice

AnyRules = GameRules[Any, Any, Any]

RECORD_STYLE = Style(fg=CYAN)
HELP_BOX_STYLE = Style(fg=YELLOW, bold=True)
HELP_TEXT_STYLE = Style(fg=WHITE)
HELP_WIDTH = 64
"""The help box's widest text line (narrower when the terminal is)."""
HELP_CLOSE = "Any key closes this box."
HELP_SCROLL = "↑↓ PgUp PgDn: more; others close"
HELP_SCROLL_KEYS = {"up": -1, "down": 1, "pgup": -8, "pgdn": 8}
"""How far each key scrolls a help box too short for its lines."""


def seat_name(info: GameInfo, seat: int, limit: int | None = None) -> str:
    """The player in ``seat`` as people should see it (control characters removed)."""
    for s in info.seats:
        if s.seat == seat:
            if s.name:
                return clean(s.name, limit)
            return "(open seat)" if s.kind == "open" else f"seat {seat + 1}"
    return f"seat {seat + 1}"


def deadline_text(deadline: datetime | None, now: datetime) -> str:
    """How long the player to move has left: ``"2d 4h left"``, ``"35m left"``,
    ``"overdue"``, or ``""`` when there is no deadline."""
    if deadline is None:
        return ""
    left = (deadline - now).total_seconds()
    if left <= 0:
        return "overdue"
    minutes = int(left // 60)
    days, rem = divmod(minutes, 24 * 60)
    hours, mins = divmod(rem, 60)
    if days:
        return f"{days}d {hours}h left"
    if hours:
        return f"{hours}h {mins}m left"
    return f"{mins}m left"


def clock_text(info: GameInfo, now: datetime, viewer_seat: int | None = None) -> str:
    """The mover's clock as the board shows it: ``"2d 4h left · bank 5d"`` while the
    move's own time runs, ``"bank: 3d 2h left"`` once the bank does (just
    :func:`deadline_text` in a game without banks); the viewer's own bank after it when
    the viewer is not the one to move."""
    if info.deadline is None or info.to_act is None:
        return ""
    if not info.bank_s:
        return deadline_text(info.deadline, now)
    bank = next((s.bank_s for s in info.seats if s.seat == info.to_act), 0)
    if info.move_deadline is not None and now < info.move_deadline:
        text = f"{deadline_text(info.move_deadline, now)} · bank {span_text(bank)}"
    else:
        text = f"bank: {deadline_text(info.deadline, now)}"
    if viewer_seat is not None and viewer_seat != info.to_act:
        mine = next((s.bank_s for s in info.seats if s.seat == viewer_seat), 0)
        text += f" · yours {span_text(mine)}"
    return text


@dataclass(frozen=True)
class LoggedMove:
    """One move of the log, with the states around it (for V)iew and replays)."""

    seq: int
    seat: int | None
    text: str
    before: Any
    after: Any
    note: str = ""
    """The few words the player sent with it (issue 17), or ''."""


def replay_log(rules: AnyRules, info: GameInfo, events: list[GameEvent]) -> list[LoggedMove]:
    """Replay the whole log from a new game and return every move with the state before
    and after it (chance events and timeouts are folded into the states)."""
    state = rules.new_game(len(info.seats), info.options)
    moves, _ = replay_more(rules, state, events)
    return moves


def replay_more(
    rules: AnyRules, state: Any, events: list[GameEvent]
) -> tuple[list[LoggedMove], Any]:
    """Replay ``events`` from ``state``: the moves among them (as ``replay_log``) and the
    state after the last one, so a log can be replayed a piece at a time."""
    moves: list[LoggedMove] = []
    for step in replay(rules, state, events):
        ev, state = step.event, step.after
        if ev.kind == "move":
            text = str(ev.payload.get("move", ""))
            note = clean_message(str(ev.payload.get("note") or ""), NOTE_MAX)
            moves.append(LoggedMove(ev.seq, ev.seat, text, step.before, state, note))
        elif ev.kind == "system" and ev.payload.get("action") in ("timeout", "forfeit"):
            word = "ran out of time" if ev.payload.get("action") == "timeout" else "resigned"
            moves.append(LoggedMove(ev.seq, ev.seat, f"({word})", step.before, state))
    return moves, state


def last_turn_of_others(moves: list[LoggedMove], my_seat: int | None) -> list[LoggedMove]:
    """The moves made since ``my_seat`` last moved (for a spectator: the last player's
    last run of moves), oldest first."""
    if not moves:
        return []
    if my_seat is None:
        last_seat = moves[-1].seat
        out: list[LoggedMove] = []
        for m in reversed(moves):
            if m.seat != last_seat:
                break
            out.append(m)
        return list(reversed(out))
    out = []
    for m in reversed(moves):
        if m.seat == my_seat:
            break
        out.append(m)
    return list(reversed(out))


class GameScreenBase(Screen):
    """Loading, moving and notices for a game screen; subclasses draw and name their keys.

    ``keys`` is the screen's key table (see :mod:`door.ui.bindings`): it drives the keys,
    the bottom line and the ``?`` box. The Y/N question, the typed-move line and the
    replay viewer are screens pushed over this one (:mod:`door.ui.screens.overlays`).
    ``watch_game`` tells the session to pass this game's notices (spectators included).
    """

    kind = ""
    keys: ClassVar[Keyset[Any]]
    editor_prompt = "Move: "
    editor_hint = ""
    """The typed-move line's prompt and the key-help line above it."""

    def __init__(self, game_id: int, *, spectator: bool = False, replay: bool = False) -> None:
        self.game_id = game_id
        self.spectator = spectator
        self.replay = replay
        self.watch_game: int | None = game_id
        self.snap: GameSnapshot | None = None
        self.rules: AnyRules | None = None
        self.notice_line = ""
        self.record: list[LoggedMove] = []
        self.help_open = False
        self.help_top = 0
        """The first help line shown when the box is too short for all of them."""
        self.pending_note = ""
        """The note N wrote, sent with the next move."""
        from door.ui.screens.talk import GameTalk

        self.talk = GameTalk(self)
        """Chat and kibitz (C, K)."""
        # The log replayed so far: (last event seq, state after it, its moves). The log
        # only grows, so a notice or a later look replays just the new events.
        self._replayed: tuple[int, Any, list[LoggedMove]] | None = None

    # --- input ----------------------------------------------------------------------------
    async def on_event(self, event: InputEvent, ctx: Context) -> Transition | None:
        """Ignore resizes and keys before the game loads; the help box; typed-ahead text
        one key at a time (so ":13/7 8/7" opens the line editor and fills it); any other
        key goes to the key table."""
        if isinstance(event, Resize) or self.snap is None:
            return None
        if self.help_event(event):
            return None
        if isinstance(event, Text) and len(event.text) > 1:
            for i, ch in enumerate(event.text):
                transition = await self.on_event(Text(ch), ctx)
                if transition is not None:
                    rest = event.text[i + 1 :]
                    if (
                        rest
                        and isinstance(transition, Push)
                        and isinstance(transition.screen, MoveEditor)
                    ):
                        transition.screen.editor.handle(Text(rest))
                    return transition
            return None
        return await self.keys.dispatch(self, ctx, event)

    async def on_resume(self, result: Any, ctx: Context) -> Transition | None:
        """An overlay closed; ``LEAVE`` (from the whole-game replay) leaves the game too."""
        return Pop() if result is LEAVE else None

    resign_question = "Resign and leave this game? (Y/N)"
    resigned_text = "You resigned."
    """What X asks, and what it says once done."""

    def leave(self, ctx: Context, _key: str = "") -> Transition:
        """Back to the screen below."""
        return Pop()

    def ask_resign(self, ctx: Context, _key: str = "") -> Transition | None:
        """X: ask, then resign this player's seat."""
        if not self.is_running():
            ctx.status("The game is over.")
            return None

        async def resign(ctx: Context) -> None:
            if await self.resign(ctx):
                ctx.status(self.resigned_text)

        return self.ask(self.resign_question, resign, resign=True)

    def type_move(self, ctx: Context, _key: str = "") -> Transition | None:
        """Open the line to type a move on."""
        return Push(MoveEditor(self, self.editor_prompt, self.editor_hint))

    def after_typed_move(self, ctx: Context) -> None:
        """Called when a typed move was made (e.g. to announce the dice that follow)."""

    def ask(
        self,
        question: str,
        on_yes: Action,
        *,
        on_no: Action | None = None,
        on_undo: Action | None = None,
        resign: bool = False,
    ) -> Transition:
        """A Y/N question over the board; it closes if the game moves on under it (for a
        resignation: if the game ends; for a move: if it stops being the player's turn)."""
        valid = self.is_running if resign else (lambda: self.can_act)
        return Push(Confirm(self, question, on_yes, on_no=on_no, on_undo=on_undo, valid=valid))

    def view(self, count: int, draw: FrameDrawer, *, whole: bool = False) -> Transition:
        """The step-by-step viewer over this screen."""
        return Push(ReplayViewer(self, count, draw, whole=whole))

    def is_running(self) -> bool:
        """True while the game is being played."""
        return self.snap is not None and self.snap.info.status == "active"

    @abstractmethod
    def draw(self, canvas: Canvas, ctx: Context, cover: Cover, key_help: str) -> None:
        """Draw the game, its chrome with ``key_help`` on the bottom line; ``cover`` says
        what an overlay puts over it (which then brings its own key help)."""

    @abstractmethod
    def prompt_row(self, canvas: Canvas) -> int:
        """The row under the board where a question or the typed move goes."""

    def key_help_line(self, ctx: Context) -> str:
        """The bottom line: the labels of the keys that apply now."""
        return with_arrows(self.keys.key_help(self), ctx.glyphs)

    def render(self, canvas: Canvas, ctx: Context) -> None:
        self.draw(canvas, ctx, Cover.NONE, self.key_help_line(ctx))
        self.draw_help_box(canvas, ctx)

    # --- what the subclasses ask --------------------------------------------------------
    @property
    def state(self) -> Any:
        return self.snap.state if self.snap is not None else None

    @property
    def my_seat(self) -> int | None:
        """The viewer's seat, or ``None`` when watching (spectators have no controls)."""
        if self.snap is None or self.spectator:
            return None
        return self.snap.my_seat

    @property
    def can_act(self) -> bool:
        """True when the viewer is the seat to act and the game is running."""
        if self.snap is None or self.my_seat is None or self.replay:
            return False
        info = self.snap.info
        return info.status == "active" and info.to_act == self.my_seat

    def name_of(self, seat: int, limit: int | None = None) -> str:
        assert self.snap is not None
        return seat_name(self.snap.info, seat, limit)

    def on_loaded(self, ctx: Context) -> None:
        """Called after every (re)load: reset cursors, selections, partial moves."""

    def on_moves_seen(self, moves: list[LoggedMove]) -> None:
        """The other players' moves the viewer has just been told about (to mark them)."""

    def shown_text(self, move: LoggedMove) -> str:
        """``move``'s text as this viewer should read it (Backgammon: in the viewer's own
        point numbers); every place that shows a logged move to a player asks here."""
        return move.text

    # --- loading --------------------------------------------------------------------------
    async def on_enter(self, ctx: Context) -> None:
        await self.reload(ctx)
        assert self.snap is not None
        snap = self.snap
        if self.my_seat is not None and snap.last_seen_seq < snap.info.last_seq:
            others = await self._moves_since(ctx, snap.last_seen_seq)
            if others:
                self.notice_line = "Since you last looked: " + self.describe_moves(others)
                self.on_moves_seen(others)
            await self._mark_seen(ctx)
        away = await self.vacation_note(ctx)
        if away:
            self.notice_line = f"{self.notice_line} {away}".strip()
        await self.refresh_record(ctx)
        if not self.replay:
            await self.talk.load(ctx)

    async def vacation_note(self, ctx: Context) -> str:
        """``"Bob is on vacation until 12 Dec."`` for the other players away now (the
        date in the viewer's zone); '' when nobody is."""
        assert self.snap is not None
        viewer = ctx.user.id if ctx.user is not None else None
        others = {
            s.user_id: s.seat for s in self.snap.info.seats
            if s.user_id is not None and s.user_id != viewer and s.kind == "user"
        }  # fmt: skip
        if not others:
            return ""
        away = await ctx.services.clocks.away_until(list(others))
        mine = ctx.user.time_zone if ctx.user is not None else None
        tz = zone(mine, ctx.services.clocks.default_zone)
        return " ".join(
            f"{self.name_of(others[u])} is on vacation until "
            f"{until.astimezone(tz).strftime('%d %b').lstrip('0')}."
            for u, until in sorted(away.items())
        )

    def record_rows(self, ctx: Context) -> int:
        """Rows a terminal taller than 24 lines has for the game record (0 at 80×24)."""
        return max(0, ctx.caps.height - 24)

    async def refresh_record(self, ctx: Context) -> None:
        """Keep the recent moves for the record shown on tall terminals (only then, so
        an 80×24 screen costs no extra reading)."""
        if self.record_rows(ctx) > 0 and self.snap is not None:
            self.record = await self.history(ctx)

    def draw_record(self, canvas: Canvas, ctx: Context, y: int, width: int) -> None:
        """The last moves, newest at the bottom, in the rows from ``y`` (tall terminals)."""
        rows = min(self.record_rows(ctx), canvas.height - 2 - y)
        if rows <= 0 or not self.record:
            return
        shown = [m for m in self.record if m.text != "roll"][-rows:]
        names = [self.name_of(m.seat) if m.seat is not None else "system" for m in shown]
        col = max((len(n) for n in names), default=6)
        for i, (m, who) in enumerate(zip(shown, names, strict=True)):
            line = f"{who:>{col}}  {self.shown_text(m)}"
            canvas.put(1, y + i, clip_text(line, width), RECORD_STYLE)

    # --- the help box ----------------------------------------------------------------------
    def open_help(self, ctx: Context, _key: str = "") -> None:
        self.help_open = True
        self.help_top = 0

    def help_event(self, event: InputEvent) -> bool:
        """While the help box is open ↑↓ PgUp PgDn scroll it (when it does not fit) and any
        other key closes it; True if ``event`` was the box's."""
        if not self.help_open or not isinstance(event, Key | Text):
            return False
        step = HELP_SCROLL_KEYS.get(event.name) if isinstance(event, Key) else None
        if step is None:
            self.help_open = False
        else:
            self.help_top = max(0, self.help_top + step)  # the draw clamps the bottom
        return True

    def draw_help_box(self, canvas: Canvas, ctx: Context) -> None:
        """The full list of keys in a box over the board (when open), in the part of the
        layout the terminal shows: each line wrapped to the box, and a box too short for
        them all scrolls, and says how."""
        if not self.help_open:
            return
        width = min(canvas.width, ctx.caps.width)
        height = min(canvas.height, ctx.caps.height)
        key_rows = len(help_layout(ctx, ctx.chrome[1], width)) if ctx.chrome else 1
        room = height - key_rows - 4  # text rows: not the title, status, keys, box edges
        inner = max(min(HELP_WIDTH, width - 6), 10)
        lines: list[str] = []
        for line in self.keys.help_page(inner):
            lines.extend(textwrap.wrap(clean(line), inner, subsequent_indent="  ") or [""])
        y = 2 if len(lines) + 2 <= room - 1 else 1  # a blank row under the title if it fits
        if len(lines) + 2 <= room - (y - 1):
            lines += ["", HELP_CLOSE]
        else:
            shown = max(room - 1, 1)
            self.help_top = min(self.help_top, max(len(lines) - shown, 0))
            lines = [*lines[self.help_top : self.help_top + shown], clip_text(HELP_SCROLL, inner)]
        w = min(max(len(line) for line in lines) + 4, width - 2)
        h = len(lines) + 2
        x = max((width - w) // 2, 0)
        canvas.fill(x, y, w, h, " ", HELP_TEXT_STYLE)
        if width < canvas.width:  # the board cut off beside the box is no news: no "»"
            canvas.fill(x + w, y, canvas.width - x - w, h, " ")
        canvas.box(x, y, w, h, HELP_BOX_STYLE, double=True)
        canvas.put(x + 2, y, " Keys ", HELP_BOX_STYLE)
        for i, line in enumerate(lines):
            canvas.put(x + 2, y + 1 + i, clip_text(line, w - 4), HELP_TEXT_STYLE)
        # A small terminal shows the layout from its top while the box is open: the box,
        # not the board's cursor or question under it, is what must stay in sight.
        canvas.cursor = None
        canvas.prompt = None
        canvas.focus = y

    async def reload(self, ctx: Context) -> None:
        viewer = ctx.user.id if ctx.user is not None else None
        self.set_snapshot(await ctx.services.games.get(self.game_id, viewer), ctx)

    def set_snapshot(self, snap: GameSnapshot, ctx: Context) -> None:
        self.snap = snap
        self.rules = ctx.services.games.rules_for(snap.info.kind)
        self.title = f"{snap.info.title} #{snap.info.id}"
        self.on_loaded(ctx)

    async def _mark_seen(self, ctx: Context) -> None:
        if self.snap is not None and ctx.user is not None and self.my_seat is not None:
            await ctx.services.games.mark_seen(self.game_id, ctx.user.id, self.snap.info.last_seq)

    async def history(self, ctx: Context) -> list[LoggedMove]:
        """Every move of the game so far, replayed from the log (only the events this
        screen has not replayed before are read)."""
        assert self.snap is not None and self.rules is not None
        done = self._replayed
        if done is None:
            info = self.snap.info
            seq, state = 0, self.rules.new_game(len(info.seats), info.options)
            moves: list[LoggedMove] = []
        else:
            seq, state, moves = done
        events = await ctx.services.games.events(self.game_id, seq)
        if events:
            more, state = replay_more(self.rules, state, events)
            moves = moves + more
            self._replayed = (events[-1].seq, state, moves)
        elif done is None:
            self._replayed = (0, state, moves)
        return list(moves)

    async def _moves_since(self, ctx: Context, seq: int) -> list[LoggedMove]:
        moves = await self.history(ctx)
        return [m for m in moves if m.seq > seq and m.seat != self.my_seat]

    def describe_moves(self, moves: list[LoggedMove]) -> str:
        """``"Bob: 13/7 8/7; Carol: RGY3@11:1"`` for a status line."""
        parts: list[str] = []
        shown = [m for m in moves if m.text != "roll"] or moves  # the dice speak for a roll
        for m in shown[-4:]:
            who = self.name_of(m.seat) if m.seat is not None else "system"
            parts.append(f"{who}: {self.shown_text(m)}" + (f' "{m.note}"' if m.note else ""))
        return "; ".join(parts)

    def notes_text(self, moves: list[LoggedMove]) -> str:
        """``'Bob's note: "nice"'`` for the notes sent with ``moves`` ('' if none)."""
        return "; ".join(
            f'{self.name_of(m.seat)}\'s note: "{m.note}"'
            for m in moves if m.note and m.seat is not None
        )  # fmt: skip

    async def say_last_turn_notes(self, ctx: Context) -> None:
        """V)iew: the notes sent with the last turn, on the status line."""
        notes = self.notes_text(last_turn_of_others(await self.history(ctx), self.my_seat))
        if notes:
            ctx.status(notes)

    def chat(self, ctx: Context, _key: str = "") -> Transition | None:
        """C: say a line in this game (players: chat; spectators: kibitz)."""
        return self.talk.write(ctx)

    async def toggle_kibitz(self, ctx: Context, _key: str = "") -> None:
        """K: a player opens kibitz to the players, or closes it."""
        await self.talk.toggle_kibitz(ctx)

    def may_chat(self) -> bool:
        return not self.replay and self.snap is not None

    def may_write_note(self) -> bool:
        """A seated player of a running game (not a spectator, not a replay)."""
        return self.my_seat is not None and not self.replay and self.is_running()

    def write_note(self, ctx: Context, _key: str = "") -> Transition:
        """N: the line for a note that goes with this player's next move."""

        async def keep(ctx: Context, text: str) -> bool:
            self.pending_note = clean_message(text, NOTE_MAX).strip()
            if self.pending_note:
                ctx.status("Your note goes with your move.")
            return True

        from door.ui.screens.talk import TalkPrompt

        hint = f"Up to {NOTE_MAX} characters, sent with your move. Enter: done  Esc: back"
        return Push(TalkPrompt(self, "Note with this move: ", hint, keep,
                               max_len=NOTE_MAX, text=self.pending_note))  # fmt: skip

    # --- acting ---------------------------------------------------------------------------
    async def send(self, ctx: Context, text: str) -> bool:
        """Submit ``text`` as this player's move. On success the new snapshot is shown;
        on a stale version the fresh game is shown with a note; a refused move leaves
        everything as it was and says why. Returns True if the move was made."""
        if self.snap is None or ctx.user is None:
            return False
        submit = ctx.services.games.submit
        snap = await self._act(
            ctx,
            submit(self.game_id, ctx.user.id, text, self.snap.info.version, note=self.pending_note),
        )
        if snap is None:
            return False
        self.pending_note = ""
        self.notice_line = ""  # the news is old once you have answered it
        await self._mark_seen(ctx)
        await self.refresh_record(ctx)
        if snap.info.status == "finished":
            ctx.bell()  # the game's end
        return True

    async def resign(self, ctx: Context) -> bool:
        """Resign this player's seat (as ``send``: a stale or refused one says why)."""
        if self.snap is None or ctx.user is None:
            return False
        snap = await self._act(
            ctx, ctx.services.games.resign(self.game_id, ctx.user.id, self.snap.info.version)
        )
        if snap is None:
            return False
        await self.refresh_record(ctx)
        return True

    async def _act(self, ctx: Context, call: Awaitable[GameSnapshot]) -> GameSnapshot | None:
        """Await a move or resignation and show the game it leaves; a stale version shows
        the fresh game, a refusal its reason (then ``None``)."""
        from door.services.games import StaleVersionError

        try:
            snap = await call
        except StaleVersionError as exc:
            self.set_snapshot(exc.snapshot, ctx)
            ctx.status("The game changed while you were looking; here it is again.")
            return None
        except Refusal as exc:
            ctx.status(str(exc))
            return None
        self.set_snapshot(snap, ctx)
        return snap

    # --- notices --------------------------------------------------------------------------
    async def on_notice(self, notice: Notice, ctx: Context) -> Transition | None:
        if self.snap is None:
            return None
        if notice.kind != "resync" or self.replay:
            return await self._game_notice(notice, ctx)
        said = await self.talk.catch_up(ctx)
        before = ctx.message
        transition = await self._game_notice(notice, ctx)
        if said:  # after what the game's own news says, if it said anything
            ctx.status(said if ctx.message in (None, before) else f"{ctx.message} · {said}")
        return transition

    async def _game_notice(self, notice: Notice, ctx: Context) -> Transition | None:
        assert self.snap is not None
        if notice.kind == "chat":
            if notice.game_id == self.game_id and not self.replay:
                self.talk.on_notice(notice, ctx)
            return None
        before = self.snap.info.last_seq
        if notice.kind == "resync":
            # notices may have been lost: look again (chat lines too), and say something
            # only if it moved
            await self.reload(ctx)
            if self.snap.info.last_seq == before:
                return None
        elif notice.game_id != self.game_id:
            return None
        elif notice.seq <= before:
            return None  # our own move, already shown
        else:
            await self.reload(ctx)
        moves = await self._moves_since(ctx, before)
        await self.refresh_record(ctx)
        if moves:
            ctx.status("Meanwhile " + self.describe_moves(moves))
            self.on_moves_seen(moves)
            await self._mark_seen(ctx)
        elif notice.kind in ("finished", "abandoned"):
            ctx.status(clean(notice.text))
        else:
            ctx.status("The game changed; here it is again.")
        if notice.kind in ("finished", "abandoned"):
            ctx.bell()
        return None
