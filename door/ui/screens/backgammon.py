"""The Backgammon game screen: the board from your own side, and moving by cursor or notation.

Keys (the bottom line shows the ones that apply now):

* arrows, or the numeric keypad's digits as with NUM LOCK on (4/6 left/right, 8/2 up/down,
  7/9/1/3 diagonally, 5 = Enter), move the cursor between the points, the bar and the
  tray;
* Enter picks up the top checker under the cursor and Enter drops it on a highlighted
  point (one die or several); R removes (bears off) the picked-up checker; U takes back
  the last step of this turn; when the play is complete, Enter or Y sends it, N keeps
  editing;
* ``:`` or M opens a line to type the play in notation (``13/7 8/7``, ``bar/22*``), or
  any action word (``roll``, ``double``, ``take``, ``drop``);
* R rolls and D doubles at the start of a turn; T takes and D drops a double (B beavers
  where allowed); A accepts and R rejects a resignation; X, on your turn, offers to lose
  this game as a single, gammon or backgammon (the opponent accepts or rejects it) or
  resigns the whole match (at other times it resigns the match; never once it is over);
* V plays the opponent's last turn back by itself ("in action": the dice, then each
  checker step, at the player's Animation setting; any key pauses, the arrows step),
  and moves that arrive while you look are played the same way; I shows the gnubg
  Position ID and Match ID; H asks the computer for hints (when the table allows);
  Q goes back to the menu.

Spectators see the board from White's side with no controls; ``replay=True`` opens the
whole game in the step-by-step viewer.
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Any

from door.games.backgammon import movegen
from door.games.backgammon.moves import NO_PLAY
from door.games.backgammon.notation import from_viewpoint
from door.games.backgammon.partial import PartialPlay
from door.games.backgammon.phases import seat_name, to_act
from door.games.backgammon.position import (
    DECIDE,
    DOUBLED,
    MOVING,
    OVER,
    RESIGN_WORDS,
    RESIGNING,
    BackgammonState,
    Side,
    pips,
)
from door.games.backgammon.rules import can_double
from door.games.base import Refusal
from door.ui.bindings import Binding, Keyset
from door.ui.boards.backgammon import (
    BAR,
    BIG,
    BLACK_SIDE,
    OFF,
    SMALL,
    WHITE_SIDE,
    BoardPicture,
    Geometry,
    checker_glyph,
    checker_style,
    draw_cursor,
    draw_ground,
    draw_pieces,
    move_cursor,
    point_column,
    spot_label_cell,
)
from door.ui.boards.common import (
    GameScreenBase,
    LoggedMove,
    clock_text,
    last_turn_of_others,
)
from door.ui.caches import RenderCaches
from door.ui.canvas import CYAN, GREEN, WHITE, YELLOW, Canvas, Style, clip_text, text_width
from door.ui.glyphs import glyphs
from door.ui.mouse import Pick
from door.ui.screen import HEADING_STYLE, Context, Push, Transition, draw_chrome, word_lines
from door.ui.screens.overlays import Cover, ResignChoice
from door.ui.screens.playback import Playback
from door.ui.screens.talk import report_in_game
from door.ui.terminal import Key
from door.ui.widgets import short_names

if TYPE_CHECKING:
    from door.services.notify import Notice

log = logging.getLogger(__name__)

BOARD_X = 1
BOARD_Y = 1
PANEL_X = 50
INFO_Y = 16  # first line under the board
PANEL_MIN_WIDTH = 29
"""Columns the side panel needs: a terminal that shows fewer of it gets its news of the
turn under the board instead."""
BIG_MIN_SIZE = (100, 28)  # a terminal at least this big gets the bigger board (59 × 17)


def layout(width: int, height: int) -> tuple[Geometry, int, int]:
    """(board geometry, panel column, first row under the board) for a canvas size."""
    if width >= BIG_MIN_SIZE[0] and height >= BIG_MIN_SIZE[1]:
        return BIG, BOARD_X + BIG.width + 2, BOARD_Y + BIG.height
    return SMALL, PANEL_X, INFO_Y


ARROWS: dict[str, tuple[str, ...]] = {
    "up": ("up",),
    "down": ("down",),
    "left": ("left",),
    "right": ("right",),
    # The keypad with NUM LOCK off sends these for 7, 9, 1 and 3.
    "home": ("up", "left"),
    "pgup": ("up", "right"),
    "end": ("down", "left"),
    "pgdn": ("down", "right"),
}
KEYPAD = {
    "8": ("up",),
    "2": ("down",),
    "4": ("left",),
    "6": ("right",),
    "7": ("up", "left"),
    "9": ("up", "right"),
    "1": ("down", "left"),
    "3": ("down", "right"),
}

TEXT = Style(fg=WHITE)
DIM = Style(fg=CYAN)
GOOD = Style(fg=GREEN, bold=True)
LOUD = Style(fg=YELLOW, bold=True)


def colour_of_seat(seat: int) -> str:
    """Seat 0 plays White, seat 1 Black."""
    return WHITE_SIDE if seat == 0 else BLACK_SIDE


@dataclass(frozen=True)
class Lift:
    """The checker picked up (at ``spot``) and the spots it may go to."""

    spot: int
    targets: frozenset[int]


@dataclass(frozen=True)
class Frame:
    """One picture of the step-by-step viewer."""

    caption: str
    mine: Side
    theirs: Side
    dice: tuple[int, ...]
    dice_mine: bool
    marks: frozenset[int]
    flying: tuple[int, bool] | None = None


BoardKey = tuple[
    int, Geometry, str, int, tuple[int, ...], tuple[int, ...], str, "int | None",
    frozenset[int], frozenset[int], tuple[int, ...], tuple[bool, ...], bool,
    "tuple[int, str] | None", "tuple[int, bool] | None",
]  # fmt: skip


def board_drawing(key: BoardKey, caches: RenderCaches) -> Canvas:
    """The board (no cursor) for ``key`` = (canvas width, geometry, encoding, colours,
    then BoardPicture's fields but the cursor), drawn once into ``caches.boards`` and
    shared by every screen: a player reopening a game, or the spectators of one, find it
    made. A drawing is never changed after it is made (screens copy its rows)."""

    def draw() -> Canvas:
        width, geo, encoding, colors, mine, theirs, colour, lifted, targets, marks = key[:10]
        dice, used, dice_mine, cube, flying = key[10:]
        pic = BoardPicture(
            mine, theirs, colour, None, lifted, targets, marks, dice, used, dice_mine, cube,
            flying,
        )  # fmt: skip
        board = caches.canvas(width, BOARD_Y + geo.height)
        ground = board_ground((width, geo, encoding, colors, colour), caches)
        board.copy_rows(ground, 0, board.height)
        draw_pieces(board, BOARD_X, BOARD_Y, pic, glyphs(encoding), colors, geo)
        return board

    return caches.boards.get(key, draw)


GroundKey = tuple[int, Geometry, str, int, str]


def board_ground(key: GroundKey, caches: RenderCaches) -> Canvas:
    """The board without anything on it for ``key`` = (canvas width, geometry, encoding,
    colours, the viewer's colour), drawn once into ``caches.board_grounds``: every new
    position's drawing starts as a copy of it (``draw_ground`` is about two thirds of
    ``draw_board``, and each move makes a new drawing for each of its viewers)."""

    def draw() -> Canvas:
        width, geo, encoding, colors, colour = key
        ground = caches.canvas(width, BOARD_Y + geo.height)
        draw_ground(ground, BOARD_X, BOARD_Y, colour, glyphs(encoding), colors, geo)
        return ground

    return caches.board_grounds.get(key, draw)


class BackgammonScreen(GameScreenBase):
    """Play (or watch, or replay) one Backgammon match."""

    kind = "backgammon"
    editor_prompt = "Play: "
    resign_question = "Resign the whole match? Your opponent wins it. (Y/N)"
    resigned_text = "You resigned the match."
    editor_hint = "Type a play: 13/7 8/7, bar/22*, roll, double, take, drop"

    def __init__(self, game_id: int, *, spectator: bool = False, replay: bool = False) -> None:
        super().__init__(game_id, spectator=spectator, replay=replay)
        self.title = "Backgammon"
        self.pp: PartialPlay | None = None
        self.cursor = 24
        self.cursor_top = True
        self.lift: Lift | None = None
        self.show_ids = False
        self.hints: list[tuple[str, str]] = []
        self.busy: asyncio.Task[None] | None = None
        """A hint being worked out (the session redraws when it is done)."""
        self._arrived: list[LoggedMove] = []
        self._live: Playback | None = None
        self._live_moves: list[LoggedMove] = []
        """The playback of moves that arrived while the player looks, and its moves."""
        self.marks: frozenset[int] = frozenset()
        # The last board drawn and what it was drawn from: most keys (typing a play, the
        # IDs toggle, a status message) leave the board as it was, and drawing it is most
        # of a frame's cost, so an unchanged board is copied in rather than redrawn.
        self._board: tuple[BoardKey, Canvas] | None = None

    # --- who is who --------------------------------------------------------------------------
    @property
    def bg(self) -> BackgammonState:
        state: BackgammonState = self.state
        return state

    @property
    def viewer(self) -> int:
        """The seat whose side the board is drawn from (White for spectators)."""
        seat = self.my_seat
        return seat if seat is not None else 0

    @property
    def colour(self) -> str:
        return colour_of_seat(self.viewer)

    def sides(self) -> tuple[Side, Side]:
        """(viewer's side, other side), including the steps of a play in progress."""
        state = self.bg
        if self.pp is not None and self.pp.steps:
            me, opp = self.pp.sides()
            return me, opp  # the viewer is the mover while a partial play exists
        return state.board[self.viewer], state.board[1 - self.viewer]

    def shown_text(self, move: LoggedMove) -> str:
        """A play in the viewer's point numbers (the log keeps the mover's)."""
        return from_viewpoint(move.text, move.seat, self.viewer)

    def _mark_last_play(self, moves: list[LoggedMove]) -> None:
        """Mark the points the opponent's last play moved from and to."""
        assert self.rules is not None
        for m in reversed(moves):
            before: BackgammonState = m.before
            if m.text.startswith("(") or before.phase != MOVING:
                continue
            try:
                move = self.rules.parse_move(before, m.text)
            except Refusal:
                return
            spots = {self._viewer_spot(p, before.turn) for s in move.steps for p in s[:2]}
            self.marks = frozenset(spots)
            return

    def on_loaded(self, ctx: Context) -> None:
        self.marks = frozenset()
        self.lift = None
        self.hints = []
        state = self.bg
        if self.can_act and state.phase == MOVING:
            self.pp = PartialPlay.start(state)
            self._cursor_to_first_source()
        else:
            self.pp = None

    def _cursor_to_first_source(self) -> None:
        if self.pp is None:
            return
        sources = sorted({s[0] for s in self.pp.next_steps()}, reverse=True)
        if sources:
            self._set_cursor(sources[0])

    def _set_cursor(self, spot: int) -> None:
        self.cursor = spot
        if 1 <= spot <= 24:
            self.cursor_top = point_column(spot, self.colour)[1]

    # --- what applies now (the key table's ``when``s) ---------------------------------------
    def is_watching(self) -> bool:
        return self.my_seat is None

    def is_seated(self) -> bool:
        return self.my_seat is not None

    def _acting_in(self, phase: str) -> bool:
        return self.can_act and self.bg.phase == phase

    def is_pass_only(self) -> bool:
        """The player rolled and no checker can move: Enter passes the turn."""
        pp = self.pp
        # (with no step made yet, a roll that allows none has plays of length 0)
        return self._acting_in(MOVING) and pp is not None and not pp.steps and not pp.plan.length

    def is_moving(self) -> bool:
        """The player moves checkers with the cursor."""
        return self._acting_in(MOVING) and self.pp is not None and not self.is_pass_only()

    def is_deciding(self) -> bool:
        return self._acting_in(DECIDE)

    def is_doubled(self) -> bool:
        return self._acting_in(DOUBLED)

    def is_resigning(self) -> bool:
        return self._acting_in(RESIGNING)

    def may_offer_resignation(self) -> bool:
        """On the player's own turn (before or after rolling) a game may be offered."""
        return self.can_act and self.bg.phase in (DECIDE, MOVING)

    def may_resign(self) -> bool:
        """X applies to a seated player while the match is being played."""
        return self.is_seated() and self.is_running() and not self.replay

    def may_beaver(self) -> bool:
        assert self.rules is not None
        words = {self.rules.format_move(self.bg, m) for m in self.rules.legal_moves(self.bg)}
        return "beaver" in words

    def hints_shown(self) -> bool:
        return self.can_act and self.snap is not None and self.snap.info.hints_allowed

    # --- what the keys do (the key table's handlers) ---------------------------------------
    def bar_is_a_stop(self) -> bool:
        """The cursor stops on the bar only while the mover has a checker there."""
        if self.pp is None:
            return False
        me, _ = self.pp.sides()
        return me[24] > 0 or (self.lift is not None and self.lift.spot == BAR)

    def move_cursor(self, ctx: Context, key: str) -> None:
        bar = self.bar_is_a_stop()
        for direction in ARROWS.get(key) or KEYPAD[key]:
            self.cursor, self.cursor_top = move_cursor(
                self.cursor, direction, self.colour, self.cursor_top, bar_stop=bar
            )

    def put_back(self, ctx: Context, key: str) -> None:
        self._undo(ctx)  # Esc first puts the picked-up checker back

    async def view_last_turn(self, ctx: Context, key: str) -> Transition | None:
        await self.say_last_turn_notes(ctx)
        return await self._start_view(ctx, whole=False)

    def toggle_ids(self, ctx: Context, key: str) -> None:
        self.show_ids = not self.show_ids

    def hint(self, ctx: Context, key: str) -> None:
        self._hint(ctx)

    async def pass_turn(self, ctx: Context, key: str) -> None:
        await self._send_and_say(ctx, NO_PLAY, "You could not move; the turn passes.")

    def pick_or_drop(self, ctx: Context, key: str) -> Transition | None:
        return self._enter(ctx)

    def bear_off(self, ctx: Context, key: str) -> Transition | None:
        return self._bear_off(ctx)

    def take_back(self, ctx: Context, key: str) -> None:
        self._undo(ctx)

    async def roll(self, ctx: Context, key: str) -> None:
        if await self.send(ctx, "roll"):
            ctx.bell()
            self._say_roll(ctx)

    def double(self, ctx: Context, key: str) -> Transition | None:
        if not can_double(self.bg):
            ctx.status("You cannot double now.")
            return None
        return self._ask_to_send("double", f"Double the stake to {self.bg.cube * 2}? (Y/N)")

    async def take(self, ctx: Context, key: str) -> None:
        await self._send_and_say(ctx, "take", "You took the double.")

    def drop(self, ctx: Context, key: str) -> Transition:
        return self._ask_to_send("drop", "Drop the double and lose this game? (Y/N)")

    async def beaver(self, ctx: Context, key: str) -> None:
        await self._send_and_say(ctx, "beaver", "Beaver!")

    async def accept(self, ctx: Context, key: str) -> None:
        await self._send_and_say(ctx, "accept", "You accepted the resignation.")

    async def reject(self, ctx: Context, key: str) -> None:
        await self._send_and_say(ctx, "reject", "You rejected the resignation.")

    def choose_resign(self, ctx: Context, key: str) -> Transition | None:
        """X: on the player's turn, the choice of a game offer or the whole match;
        otherwise the whole-match question."""
        if not self.may_offer_resignation():
            return self.ask_resign(ctx)
        return Push(
            ResignChoice(
                self, self._offer_resignation, self.ask_resign,
                valid=self.may_offer_resignation,
            )
        )  # fmt: skip

    async def _offer_resignation(self, ctx: Context, level: str) -> None:
        if self.snap is None or ctx.user is None:
            return
        call = ctx.services.games.offer_resignation(
            self.game_id, ctx.user.id, level, self.snap.info.version
        )
        if await self._act(ctx, call) is None:
            return
        self.pp = None
        self.lift = None
        await self.refresh_record(ctx)
        other = self.name_of(1 - self.viewer)
        ctx.status(f"You offered to resign a {level}; {other} accepts or rejects it.")

    def no_such_key(self, ctx: Context, key: str) -> None:
        """A key no row of the table took: say what does work now."""
        if key != "enter" and len(key) != 1:
            return
        if self.my_seat is None:
            ctx.status("You are watching this game: V)iew, I)Ds and Q)uit work here.")
        elif not self.can_act:
            ctx.status(self._waiting_text())
        elif self.is_pass_only():
            ctx.status("No move is possible with this roll. Enter passes the turn.")
        elif self.pp is not None or self.bg.phase != MOVING:
            ctx.status("That key does nothing now; the keys are on the bottom line.")

    # fmt: off
    keys = Keyset(
        [
            Binding((*ARROWS, *KEYPAD), "Arrows/keypad",
                    "Arrows or keypad 4 6 8 2 (7 9 1 3 diagonally): move the cursor",
                    move_cursor, shown=is_moving),
            Binding(("enter", "5"), "Enter pick/drop",
                    "Enter or keypad 5: pick up the checker / drop it on a lit point",
                    pick_or_drop, when=is_moving),
            Binding(("enter", "5"), "Enter pass the turn",
                    "Enter: pass the turn when no checker can move", pass_turn,
                    when=is_pass_only),
            Binding(("r",), "R)emove", "R: remove (bear off) the picked-up checker", bear_off,
                    when=is_moving),
            Binding(("u", "backspace"), "U)ndo",
                    "U or Backspace: take back the last step of this turn", take_back,
                    when=is_moving),
            Binding(("r",), "R)oll", "R: roll", roll, when=is_deciding),
            Binding(("d",), "D)ouble", "D: double", double, when=is_deciding,
                    shown=lambda s: s.is_deciding() and can_double(s.bg)),
            Binding(("t",), "T)ake", "T: take", take, when=is_doubled),
            Binding(("d",), "D)rop", "D: drop", drop, when=is_doubled),
            Binding(("b",), "B)eaver", "B: beaver", beaver, when=is_doubled,
                    shown=lambda s: s.is_doubled() and s.may_beaver()),
            Binding(("a",), "A)ccept", "A: accept a resignation", accept, when=is_resigning),
            Binding(("r",), "R)eject", "R: reject it", reject, when=is_resigning),
            Binding((":", "/", "m"), ":type",
                    ": or M: type the play, e.g. 13/7 8/7, bar/22*, 6/off, or roll, take",
                    GameScreenBase.type_move, when=lambda s: s.can_act),
            Binding(("h",), "H)int", "H: hints from the computer", hint,
                    when=lambda s: s.can_act, shown=hints_shown),
            Binding(("escape",), "", "", put_back, when=lambda s: s.lift is not None),
            Binding(("c",), "C)hat", "C: say a line in this game (spectators: kibitz)",
                    GameScreenBase.chat, when=GameScreenBase.may_chat,
                    shown=lambda s: s.my_seat is None),
            Binding(("k",), "K)ibitz", "K: open the spectators' kibitz to the players, or close it",
                    GameScreenBase.toggle_kibitz, when=lambda s: s.my_seat is not None,
                    shown=lambda s: False),
            Binding(("n",), "N)ote", "N: a note (up to 200 characters) sent with your move",
                    GameScreenBase.write_note, when=GameScreenBase.may_write_note,
                    shown=lambda s: False),  # in the ? list only: the bottom line is full
            Binding(("!",), "", "!: report a line or a note of this game to the sysop",
                    report_in_game, when=GameScreenBase.may_chat),
            Binding(("v",), "V)iew", "V: the opponent's last turn, played back",
                    view_last_turn, shown=lambda s: s.can_act),
            Binding(("v",), "V)iew last turn", "V: the opponent's last turn, played back",
                    view_last_turn, shown=lambda s: not s.can_act),
            Binding(("i",), "I)D", "I: the gnubg Position ID and Match ID, and the dice proof",
                    toggle_ids),
            Binding(("x",), "X)resign",
                    "X: resign: offer this game (single, gammon, backgammon) or the match",
                    choose_resign, when=may_resign,
                    shown=lambda s: s.may_resign() and not s.is_moving()),
            Binding(("?", "f1"), "?)help", "?: this list of keys", GameScreenBase.open_help,
                    shown=lambda s: s.can_act),
            Binding(("q", "escape"), "Q)uit",
                    "Q or Esc: back to the menu (Esc first puts a lifted checker back)",
                    GameScreenBase.leave),
            Binding((), "(watching)", "", when=is_watching),
        ],
        fallback=no_such_key,
    )
    # fmt: on

    # --- acting -----------------------------------------------------------------------------
    def _ask_to_send(self, text: str, question: str, *, undo: bool = False) -> Transition:
        """Ask ``question``; Y sends ``text`` (a play, or an action word)."""

        async def send(ctx: Context) -> None:
            if await self.send(ctx, text):
                ctx.status(f"You played {text}." if "/" in text else f"You chose to {text}.")
                self._say_roll(ctx)

        def not_done(ctx: Context) -> None:
            ctx.status("Not done.")

        if undo:
            return self.ask(question, send, on_undo=self._undo)
        return self.ask(question, send, on_no=not_done)

    async def _send_and_say(self, ctx: Context, text: str, said: str) -> None:
        if await self.send(ctx, text):
            ctx.status(said)

    def _say_roll(self, ctx: Context) -> None:
        state = self.bg
        if state.phase == MOVING and state.dice is not None and self.can_act:
            d1, d2 = state.dice
            if self.pp is not None and not self.pp.next_steps():
                ctx.status(f"You rolled {d1}-{d2}: no move is possible. Enter passes the turn.")
            else:
                ctx.status(f"You rolled {d1}-{d2}.")

    def _waiting_text(self) -> str:
        assert self.snap is not None
        info = self.snap.info
        if info.status != "active":
            return "The game is over. V)iew replays the last turn."
        if info.to_act is None:
            return "Waiting for the dice."
        return f"It is {self.name_of(info.to_act)}'s turn."

    def _enter(self, ctx: Context) -> Transition | None:
        pp = self.pp
        assert pp is not None
        spot = self.cursor
        if self.lift is None:
            me, _ = pp.sides()
            count = me[24] if spot == BAR else (me[spot - 1] if 1 <= spot <= 24 else 0)
            if count == 0:
                ctx.status("None of your checkers is there.")
                return None
            dests = pp.destinations(spot)
            if not dests:
                if me[24] and spot != BAR:
                    ctx.status("You must bring your checker in from the bar first.")
                else:
                    ctx.status("That checker cannot move with the dice left.")
                return None
            self.lift = Lift(spot, frozenset(d for d, _ in dests))
            return None
        if spot == self.lift.spot:
            self.lift = None
            return None
        if spot not in self.lift.targets:
            ctx.status("It cannot go there; the highlighted points can take it.")
            return None
        return self._drop(ctx, spot)

    def _drop(self, ctx: Context, spot: int) -> Transition | None:
        assert self.pp is not None and self.lift is not None
        self.pp = self.pp.move_checker(self.lift.spot, spot)
        self.lift = None
        if self.pp.is_complete():
            text = self.pp.notation()
            question = f"Play {text}? Enter/Y sends it, N or U takes back."
            return self._ask_to_send(text, question, undo=True)
        return None

    def _bear_off(self, ctx: Context) -> Transition | None:
        pp = self.pp
        assert pp is not None
        lift = self.lift
        if lift is None:
            # Pick up the checker under the cursor first, if it can go off.
            dests = dict(pp.destinations(self.cursor)) if self.cursor != OFF else {}
            if OFF not in dests:
                ctx.status("Pick up a checker that can bear off, then R)emove it.")
                return None
            lift = self.lift = Lift(self.cursor, frozenset(dests))
        if OFF not in lift.targets:
            ctx.status("That checker cannot bear off now.")
            return None
        return self._drop(ctx, OFF)

    async def on_pick(self, pick: Pick, ctx: Context) -> Transition | None:
        """A click on a point, the bar or the tray: the cursor moved there and Enter
        pressed (pick up, drop, put back), while the player moves checkers."""
        if pick.kind != "spot" or self.snap is None or not self.is_moving():
            return None
        self._set_cursor(pick.value)
        return await self.on_event(Key("enter"), ctx)

    def _undo(self, ctx: Context) -> None:
        if self.lift is not None:
            self.lift = None
            return
        if self.pp is None or not self.pp.steps:
            ctx.status("Nothing to take back.")
            return
        last = self.pp.steps[-1]
        self.pp = self.pp.undo()
        self._set_cursor(last[0])

    def after_typed_move(self, ctx: Context) -> None:
        self._say_roll(ctx)

    def _hint(self, ctx: Context) -> None:
        """Ask the computer in the background: "Thinking…" shows at once, the hints when
        they come (the session redraws when ``busy`` finishes)."""
        assert self.snap is not None
        if not self.snap.info.hints_allowed:
            ctx.status("This table plays without hints.")
            return
        bots = ctx.services.bots
        if bots is None:
            ctx.status("No computer player is running on this server to give hints.")
            return
        if self.bg.phase not in (MOVING, DECIDE, DOUBLED):
            ctx.status("There is nothing to choose now.")
            return
        if self.thinking:
            return
        asked = self.bg

        async def think() -> None:
            try:
                found = await bots.hint("backgammon", asked, 3)
            except Exception:
                log.exception("hint for game %d failed", self.game_id)
                ctx.status("Sorry, no hint: the computer failed on our side.")
                return
            if self.snap is None or self.bg is not asked:
                return  # the game moved on while it thought
            self.hints = [(str(m), str(e)) for m, e in found]
            if not self.hints:
                ctx.status("No hint: there is nothing to choose.")

        self.busy = asyncio.create_task(think(), name=f"door-hint-{self.game_id}")

    @property
    def thinking(self) -> bool:
        """True while a hint is being worked out."""
        return self.busy is not None and not self.busy.done()

    # --- the step-by-step viewer -------------------------------------------------------------
    async def on_enter(self, ctx: Context) -> None:
        await super().on_enter(ctx)
        bots = ctx.services.bots
        if self.hints_shown() and bots is not None:
            # load the engine now, in a worker thread, so the first H answers at once
            prepare = getattr(bots, "prepare_hints", None)
            if prepare is not None:
                prepare("backgammon")
        if self.replay:
            opened = await self._start_view(ctx, whole=True)
            if isinstance(opened, Push):
                self.follow_up = opened.screen

    async def _start_view(self, ctx: Context, *, whole: bool) -> Transition | None:
        moves = await self.history(ctx)
        chosen = moves if whole else last_turn_of_others(moves, self.my_seat)
        frames = self._frames(chosen)
        if not frames:
            ctx.status("There is no turn to show yet.")
            return None
        # the last turn plays by itself; a whole game waits for Space (or the arrows)
        return Push(
            Playback(
                self, len(frames), partial(self._draw_frame, frames), whole=whole,
                delay=self.step_delay(ctx), playing=not whole,
            )
        )  # fmt: skip

    def step_delay(self, ctx: Context) -> float:
        """Seconds between the pictures of a playback (the player's setting)."""
        return ctx.user.settings.step_delay if ctx.user is not None else 0.6

    def on_moves_seen(self, moves: list[LoggedMove]) -> None:
        self._arrived = moves
        self._mark_last_play(moves)

    async def on_notice(self, notice: Notice, ctx: Context) -> Transition | None:
        """As every game screen (reload, "Meanwhile ..."), and the moves that arrived
        are played on the board as V)iew plays them, joining a playback still running."""
        self._arrived = []
        transition = await super().on_notice(notice, ctx)
        arrived, self._arrived = self._arrived, []
        delay = self.step_delay(ctx)
        if transition is not None or not arrived or delay <= 0:
            return transition
        live = self._live
        if live is not None and not live.done:
            arrived = self._live_moves + arrived  # the playback shown plays on
        frames = self._frames(arrived)
        if len(frames) < 2:
            return None  # a word (double, take) needs no playing: the line says it
        playback = Playback(
            self, len(frames), partial(self._draw_frame, frames), delay=delay, live=True
        )
        if live is not None and not live.done:
            playback = live
            live.add(len(frames), partial(self._draw_frame, frames))
            self._live_moves = arrived
            return None
        self._live, self._live_moves = playback, arrived
        return Push(playback)

    async def on_resume(self, result: Any, ctx: Context) -> Transition | None:
        self._live = None
        return await super().on_resume(result, ctx)

    def _frames(self, moves: list[LoggedMove]) -> list[Frame]:
        assert self.rules is not None
        frames: list[Frame] = []
        v = self.viewer
        for m in moves:
            before: BackgammonState = m.before
            who = self.name_of(m.seat) if m.seat is not None else "The server"
            mover = before.turn
            dice = tuple(before.dice) if before.dice else ()
            dice_mine = mover == v
            try:
                move = self.rules.parse_move(before, m.text) if not m.text.startswith("(") else None
            except Refusal:
                move = None
            if move is not None and move.action == "play" and move.steps:
                me = before.board[mover]
                opp = before.board[1 - mover]
                start = self._oriented(me, opp, mover)
                frames.append(
                    Frame(f"{who} rolled {dice[0]}-{dice[1]}", *start, dice, dice_mine, frozenset())
                )
                for i, step in enumerate(move.steps):
                    after_me, after_opp = movegen.play_result(me, opp, move.steps[: i + 1])
                    src, dst = step[0], step[1]
                    vsrc, vdst = (self._viewer_spot(p, mover) for p in (src, dst))
                    marks = frozenset((vsrc, vdst))
                    caption = (
                        f"{who} plays {from_viewpoint(m.text, mover, v)}: step {i + 1} of "
                        f"{len(move.steps)}, "
                        f"{_spot_name(vsrc)}/{_spot_name(vdst)}{'*' if step[3] else ''}"
                    )
                    if step[3]:
                        # the hit checker in the air first, then on the bar
                        air = list(after_opp)
                        air[24] -= 1
                        mine, theirs = self._oriented(after_me, tuple(air), mover)
                        flying = (vdst, mover != v)
                        frames.append(
                            Frame(f"{caption}: hit!", mine, theirs, dice, dice_mine, marks, flying)
                        )
                        marks = frozenset((vdst, BAR))
                        caption += ": to the bar"
                    mine, theirs = self._oriented(after_me, after_opp, mover)
                    frames.append(Frame(caption, mine, theirs, dice, dice_mine, marks))
                continue
            if m.text == "roll":
                continue  # the next picture shows the dice
            after: BackgammonState = m.after
            mine, theirs = after.board[v], after.board[1 - v]
            word = _ACTION_WORDS.get(m.text.split()[0], m.text)
            if m.text == "double":
                word = f"doubles to {before.cube * 2}"
            elif m.text.startswith("resign"):
                word = f"offers to {m.text}"
            elif m.text == NO_PLAY:
                word = "could not move"
                if dice:
                    word = f"rolled {dice[0]}-{dice[1]} and could not move"
            elif m.text.startswith("("):
                word = m.text.strip("()")  # a system event: resigned, ran out of time
            frames.append(Frame(f"{who} {word}", mine, theirs, dice, dice_mine, frozenset()))
        return frames

    def _oriented(self, me: Side, opp: Side, mover: int) -> tuple[Side, Side]:
        return (me, opp) if mover == self.viewer else (opp, me)

    def _viewer_spot(self, point: int, mover: int) -> int:
        """A point of ``mover`` as the viewer numbers it (bar and off stay)."""
        if point in (BAR, OFF) or mover == self.viewer:
            return point
        return 25 - point

    # --- drawing ------------------------------------------------------------------------------
    def cube_picture(self, state: BackgammonState) -> tuple[int, str] | None:
        """The cube as the board draws it (see BoardPicture.cube): its owner's side from
        this viewer's seat, or the offered value on the side of the player offered it."""
        if not state.options.cube:
            return None
        v = self.viewer
        if state.phase == DOUBLED:
            taker = to_act(state)  # who must take or drop (the doubler, after a beaver)
            return state.cube * 2, "offer_mine" if taker == v else "offer_theirs"
        if state.cube_owner is None:
            return state.cube, "centre"
        return state.cube, "mine" if state.cube_owner == v else "theirs"

    def cube_text(self, state: BackgammonState) -> str:
        """The panel's cube line: its value and owner, or the double that waits."""
        v = self.viewer
        if state.phase == DOUBLED:
            doubler = 1 - (to_act(state) or 0)  # the one who offered
            who = "You offer" if doubler == v and self.my_seat is not None else (
                f"{self.name_of(doubler)} offers"
            )
            return f"{who} {state.cube * 2} (cube {state.cube} now)"
        owner = (
            "centred" if state.cube_owner is None
            else ("yours" if state.cube_owner == v and self.my_seat is not None
                  else self.name_of(state.cube_owner) + "'s")
        )  # fmt: skip
        return f"Cube {state.cube}, {owner}"

    def prompt_row(self, canvas: Canvas) -> int:
        return layout(canvas.width, canvas.height)[2] + 1

    def _draw_frame(self, frames: list[Frame], canvas: Canvas, ctx: Context, i: int) -> None:
        """Picture ``i`` of the step-by-step viewer (under the viewer's own chrome)."""
        fr = frames[i]
        pic = BoardPicture(
            fr.mine, fr.theirs, self.colour, dice=fr.dice, dice_mine=fr.dice_mine,
            marks=fr.marks, cube=self.cube_picture(self.bg), flying=fr.flying,
        )  # fmt: skip
        geo, _, info_y = layout(canvas.width, canvas.height)
        self._draw_board(canvas, ctx, pic, geo)
        self._render_panel(canvas, ctx, fr.mine, fr.theirs)
        line = f"{i + 1}/{len(frames)}  {fr.caption}"
        canvas.put(1, info_y, clip_text(line, canvas.width - 2), LOUD)

    def draw(self, canvas: Canvas, ctx: Context, cover: Cover, key_help: str) -> None:
        draw_chrome(canvas, ctx, self.title, key_help)
        if self.snap is None:
            canvas.put(2, 2, "Loading the game...", TEXT)
            return
        mine, theirs = self.sides()
        state = self.bg
        dice: tuple[int, ...] = ()
        used: tuple[bool, ...] = ()
        if state.phase == MOVING and state.dice is not None:
            if self.pp is not None:
                dice = self.pp.plan.dice
                left = list(self.pp.dice_left())
                flags = []
                for d in dice:
                    if d in left:
                        left.remove(d)
                        flags.append(False)
                    else:
                        flags.append(True)
                used = tuple(flags)
            else:
                d1, d2 = state.dice
                dice = (d1, d2) if d1 != d2 else (d1,) * 4
        show_cursor = self.pp is not None and cover is not Cover.CONFIRM
        lift = self.lift
        pic = BoardPicture(
            mine, theirs, self.colour,
            cursor=self.cursor if show_cursor else None,
            lifted=lift.spot if lift else None, targets=lift.targets if lift else frozenset(),
            marks=self.marks,
            dice=dice, dice_used=used, dice_mine=state.turn == self.viewer,
            cube=self.cube_picture(state),
        )  # fmt: skip
        geo, _, info_y = layout(canvas.width, canvas.height)
        self._draw_board(canvas, ctx, pic, geo)
        self._render_panel(canvas, ctx, mine, theirs)
        self._render_bottom(canvas, ctx)
        self.draw_record(canvas, ctx, info_y + 6, canvas.width - 2)

    def _draw_board(self, canvas: Canvas, ctx: Context, pic: BoardPicture, geo: Geometry) -> None:
        """``draw_board`` at the board's place, from the last drawing when nothing it
        depends on changed. Must be called while the board's rows are still blank (the
        chrome is drawn first, on rows the board never reaches)."""
        colors = ctx.caps.colors
        key: BoardKey = (
            canvas.width, geo, ctx.glyphs.encoding, colors, tuple(pic.mine),
            tuple(pic.theirs), pic.my_colour, pic.lifted, pic.targets, pic.marks, pic.dice,
            pic.dice_used, pic.dice_mine, pic.cube, pic.flying,
        )  # fmt: skip
        last = self._board
        if last is not None and last[0] == key:
            board = last[1]
        else:
            # Without the cursor: it is the last thing draw_board paints (a restyle of one
            # label), done below, so moving it alone does not redraw the board.
            board = board_drawing(key, ctx.caches)
            self._board = (key, board)
        canvas.copy_rows(board, BOARD_Y, geo.height)
        if pic.cursor is not None:
            draw_cursor(
                canvas, BOARD_X, BOARD_Y, pic.cursor, pic.my_colour, pic.targets,
                ctx.glyphs, self.cursor_top, geo,
            )  # fmt: skip
            _, ly, _ = spot_label_cell(pic.cursor, pic.my_colour, g=geo)
            canvas.focus = BOARD_Y + ly  # a short terminal scrolls to keep it shown

    def _render_panel(self, canvas: Canvas, ctx: Context, mine: Side, theirs: Side) -> None:
        assert self.snap is not None
        info = self.snap.info
        state = self.bg
        geo, x, _ = layout(canvas.width, canvas.height)
        bottom = BOARD_Y + geo.bottom_label  # the viewer's line sits level with their points
        w = canvas.width - x - 1
        colors = ctx.caps.colors
        v = self.viewer
        me_c, them_c = colour_of_seat(v), colour_of_seat(1 - v)

        # Names take what the score and pip count leave (whole up to 20 letters from 31
        # columns on); a name too long for that is abbreviated, never two alike.
        both = [self.name_of(seat) for seat in (0, 1)]
        nw = max(12, min(max(len(n) for n in both), w - 14))
        shown = short_names(both, nw)

        def player_line(y: int, seat: int, colour: str, side: Side) -> None:
            glyph = checker_glyph(colour, ctx.glyphs, colors)
            canvas.put(x, y, glyph, checker_style(colour, colors))
            marker = ctx.glyphs.selector if info.to_act == seat else " "
            style = LOUD if info.to_act == seat else TEXT
            canvas.put(x + 1, y, f"{marker}{shown[seat]:<{nw}}", style)
            px = x + 2 + nw
            if not state.is_money:  # match points, right after the name
                canvas.put(px, y, f"{state.score[seat]:>2}", LOUD)
            room = w - (px + 3 - x)
            pip_text = f"pips {pips(side):>3}" if room >= 8 else f"{pips(side):>3}"
            canvas.put(px + 3, y, clip_text(pip_text, max(room, 0)), DIM)

        player_line(1, 1 - v, them_c, theirs)
        if state.is_money:
            match = "Money game"
        else:
            match = f"{state.match_length}-point match"
            if state.crawford_game:
                match += "  Crawford"
        canvas.put(x, 3, clip_text(match, w), TEXT)
        if state.options.cube:
            style = LOUD if state.phase == DOUBLED else TEXT
            canvas.put(x, 4, clip_text(self.cube_text(state), w), style)
        else:
            canvas.put(x, 4, "No doubling cube", DIM)
        last = state.last_game
        if last is not None and state.phase != OVER:
            pts = f"{last.points} point{'s' if last.points != 1 else ''}"
            line = f"Last game: {self.name_of(last.winner)} won {pts}"
            canvas.put(x, 5, clip_text(line, w), DIM)
        turn, asks, result = self.turn_lines(ctx)
        for i, part in enumerate(word_lines(result, w)[:3] if result else []):
            canvas.put(x, 6 + i, part, LOUD)
        for i, (line, style) in enumerate(turn):
            canvas.put(x, 6 + i, clip_text(line, w), style)
        for i, (line, style) in enumerate(asks):
            canvas.put(x, 9 + i, clip_text(line, w), style)
        if self.thinking:
            canvas.put(x, 11, clip_text("Thinking...", w), DIM)
        elif self.hints:
            canvas.put(x, 11, "Hints:", HEADING_STYLE)
            for i, (text, eq) in enumerate(self.hints[:3]):
                canvas.put(x, 12 + i, clip_text(f"{i + 1}. {text} {eq}", w), TEXT)
        player_line(bottom, v, me_c, mine)

    def outcome_text(self) -> str:
        """How the match ended, with the winner named ("bob wins the money game …")."""
        outcome = self.rules.outcome(self.bg) if self.rules is not None else None
        detail = outcome.detail if outcome is not None else "The match is over."
        if outcome is not None and outcome.winners:
            colour_word = seat_name(outcome.winners[0])  # "White wins ..." → a name
            if detail.startswith(colour_word):
                detail = self.name_of(outcome.winners[0], 16) + detail[len(colour_word):]
        return detail

    def turn_lines(
        self, ctx: Context
    ) -> tuple[list[tuple[str, Style]], list[tuple[str, Style]], str]:
        """The panel's news of the turn: (whose turn and how long is left; what the
        viewer is asked now: the dice, a double or an offer to answer; the result, or
        "" while the match goes on)."""
        assert self.snap is not None
        info, state = self.snap.info, self.bg
        turn: list[tuple[str, Style]] = []
        if info.status == "active" and info.to_act is not None:
            who = "your" if self.can_act else f"{self.name_of(info.to_act)}'s"
            turn.append((f"It is {who} turn.", LOUD))
            turn.append((clock_text(info, ctx.services.clock.now(), self.snap.my_seat), DIM))
        elif info.status == "open":
            turn.append(("Waiting for a player to join.", LOUD))
        result = ""
        if not turn and (state.phase == OVER or info.status == "finished"):
            result = self.outcome_text()
        asks: list[tuple[str, Style]] = []
        if self.can_act:
            phase = state.phase
            if phase == MOVING and state.dice is not None:
                asks.append((f"You rolled {state.dice[0]}-{state.dice[1]}.", TEXT))
                if self.pp is not None and self.pp.steps:
                    asks.append((f"So far: {self.pp.notation()}", GOOD))
            elif phase == DECIDE:
                asks.append(("Roll, or double first?", TEXT))
            elif phase == DOUBLED:
                word = "Beavered" if getattr(state, "beavered", False) else "Doubled"
                asks.append((f"{word} to {state.cube * 2}: take or drop?", LOUD))
            elif phase == RESIGNING:
                level = RESIGN_WORDS.get(state.resign_level, "single")
                asks.append((f"Offered: resign a {level}.", LOUD))
                asks.append((f"by {self.name_of(1 - self.viewer, 12)} (this game)", TEXT))
                asks.append(("A)ccept or R)eject?", TEXT))
        elif self.my_seat is not None and state.phase == RESIGNING and info.status == "active":
            level = RESIGN_WORDS.get(state.resign_level, "single")
            asks.append((f"You offered a {level};", LOUD))
            asks.append(("waiting for the answer.", TEXT))
        return turn, asks, result

    def _narrow_lines(self, ctx: Context, width: int) -> list[tuple[str, Style]]:
        """The turn's news for a terminal too narrow for the panel, packed into lines of
        ``width`` columns for the rows under the board: what is asked first, then the
        result or whose turn it is."""
        turn, asks, result = self.turn_lines(ctx)
        lines: list[tuple[str, Style]] = []
        for part, style in [*asks, *turn, *([(result, LOUD)] if result else [])]:
            if lines and text_width(lines[-1][0]) + 3 + text_width(part) <= width:
                lines[-1] = (f"{lines[-1][0]} · {part}", lines[-1][1])
            else:
                lines.extend((chunk, style) for chunk in word_lines(part, width))
        return lines

    def _render_bottom(self, canvas: Canvas, ctx: Context) -> None:
        w = canvas.width - 2
        _, panel_x, y = layout(canvas.width, canvas.height)
        if ctx.caps.width < panel_x + PANEL_MIN_WIDTH and self.snap is not None:
            # The panel is cut off on this terminal: its news of the turn goes under the
            # board, where a short terminal still shows it, before the other news.
            room = max(ctx.caps.width - 2, 10)
            lines = self._narrow_lines(ctx, room)
            for line, style in lines:
                canvas.put(1, y, clip_text(line, room), style)
                y += 1
            if lines and canvas.focus is None:  # no board cursor to follow: show the news
                canvas.focus = y - 1
            w = room
        if self.notice_line:
            canvas.put(1, y, clip_text(self.notice_line, w), DIM)
        over = self.snap is not None and self.snap.info.status in ("finished", "abandoned")
        if self.show_ids and self.rules is not None:
            parts = self.rules.to_id(self.bg).split(":")
            canvas.put(1, y + 3, f"Position ID: {parts[0]}", TEXT)
            if len(parts) > 1:
                canvas.put(1, y + 4, f"Match ID:    {parts[1]}", TEXT)
        if (self.show_ids or over) and self.snap is not None:
            self._render_dice_proof(canvas, y, w, over)

    def _render_dice_proof(self, canvas: Canvas, y: int, w: int, over: bool) -> None:
        """The dice proof (the commitment from the start, the seed once it is over) beside
        the IDs where there is room (row ``y`` is the first under the board), else under
        them."""
        assert self.snap is not None
        proof = self.snap.info.dice
        x, room = ID_COLUMNS, w - ID_COLUMNS + 1
        if room < 40:  # too narrow to stand beside the IDs
            x, room = 1, w
        top = y + 1 if over else y + 3  # once over no question takes the row under the board
        if x == 1 and self.show_ids:
            top = y + 5
        lines = proof.lines(room) if proof is not None else []
        for i, text in enumerate(lines[: max(canvas.height - 2 - top, 0)]):
            canvas.put(x, top + i, clip_text(text, room), TEXT)


ID_COLUMNS = 29
"""The dice proof's column beside the Position and Match IDs (each 27 columns wide)."""

_ACTION_WORDS = {
    "take": "takes the double",
    "drop": "drops the double",
    "beaver": "beavers",
    "accept": "accepts the resignation",
    "reject": "rejects the resignation",
}


def _spot_name(p: int) -> str:
    return "bar" if p == BAR else ("off" if p == OFF else str(p))
