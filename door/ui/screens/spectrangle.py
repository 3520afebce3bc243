"""The Spectrangle game screen: the triangle board, every hand, the mover's controls.

Keys (the bottom line shows the ones that apply):

* arrows or keypad 8/2/4/6 move the cursor over the fields; Tab or Space picks the next
  piece of your hand; R rotates it a third of a turn clockwise; M turns it over (when the
  table allows); the fields that accept it light up with the score they would make;
* Enter places the piece on the field under the cursor (after a Y/N check);
* ``:`` types a move in notation (``RGY3@11:1``, ``pass``, ``swap RRY5``);
* P passes and S swaps the selected piece, when no placement exists;
* H shows the best placements (and moves the cursor to the best), B the pieces in the
  bag (unless the table turned the aids off);
* V replays the turns since your last one, step by step; X resigns; Q goes back.

Spectators see the same screen without the controls; ``replay=True`` opens a finished
game in the step-by-step viewer from its first move.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from door.games.base import Refusal
from door.games.spectrangle import aids
from door.games.spectrangle.board import fields
from door.games.spectrangle.moves import Move, why_illegal
from door.games.spectrangle.pieces import piece
from door.games.spectrangle.state import SpectrangleState
from door.ui.bindings import Binding, Keyset
from door.ui.boards.common import (
    GameScreenBase,
    LoggedMove,
    clock_text,
    last_turn_of_others,
)
from door.ui.boards.spectrangle import (
    BOARD_HEIGHT,
    BOARD_WIDTH,
    Tile,
    board_size,
    draw_board,
    draw_piece_label,
    draw_piece_preview,
    field_center,
    neighbour_in_direction,
)
from door.ui.canvas import CYAN, GREEN, WHITE, YELLOW, Canvas, Style, clip_text
from door.ui.mouse import Pick
from door.ui.screen import (
    HEADING_STYLE,
    Context,
    Push,
    Transition,
    draw_chrome,
)
from door.ui.screens.overlays import Cover, ReplayViewer
from door.ui.screens.talk import report_in_game
from door.ui.terminal import Key
from door.ui.widgets import short_names

BOARD_X = 1
BOARD_Y = 2
PANEL_X = 38
BIG_MIN_SIZE = (92, 30)  # a terminal at least this big gets the larger board (47 × 24)


def layout(width: int, height: int) -> tuple[int, int, int]:
    """(board scale, first row under the board, panel column) for a canvas size."""
    if width >= BIG_MIN_SIZE[0] and height >= BIG_MIN_SIZE[1]:
        bw, bh = board_size(4)
        return 4, BOARD_Y + bh, BOARD_X + bw + 2
    return 3, BOARD_Y + BOARD_HEIGHT, PANEL_X


HAND_WIDTH = 19
"""Columns a hand of 4 pieces takes (``RRY5`` and a space each)."""

ARROWS = {"up": "up", "down": "down", "left": "left", "right": "right"}
KEYPAD = {"8": "up", "2": "down", "4": "left", "6": "right"}

TEXT = Style(fg=WHITE)
DIM = Style(fg=CYAN)
GOOD = Style(fg=GREEN, bold=True)
MOVER = Style(fg=YELLOW, bold=True)
PROMPT = Style(fg=YELLOW, bold=True)


def tiles_of(state: SpectrangleState) -> list[Tile | None]:
    """The board as tiles for the renderer."""
    return [None if p is None else Tile(p.sides, piece(p.piece).value) for p in state.board]


class SpectrangleScreen(GameScreenBase):
    """Play (or watch, or replay) one Spectrangle game."""

    kind = "spectrangle"
    editor_hint = "Type a move: RGY3@11:1 (m: turned over), pass, swap RRY5"

    def __init__(self, game_id: int, *, spectator: bool = False, replay: bool = False) -> None:
        super().__init__(game_id, spectator=spectator, replay=replay)
        self.title = "Spectrangle"
        self.cursor = 12
        self.selected = 0
        self.rotation = 0
        self.mirror = False
        self.hints: list[tuple[str, int]] = []
        self.bag_shown = False
        self.show_ids = False
        self.marks: frozenset[int] = frozenset()
        self.last_hand: tuple[int, ...] = ()
        self._can_place: tuple[SpectrangleState, bool] | None = None

    # --- state helpers ----------------------------------------------------------------------
    @property
    def sp(self) -> SpectrangleState:
        state: SpectrangleState = self.state
        return state

    def my_hand(self) -> tuple[int, ...]:
        if self.my_seat is None or self.snap is None:
            return ()
        return self.sp.hands[self.my_seat]

    def selected_piece(self) -> int | None:
        hand = self.my_hand()
        if not hand or not self.can_act:
            return None
        return hand[min(self.selected, len(hand) - 1)]

    def accepting(self) -> dict[int, int]:
        p = self.selected_piece()
        if p is None:
            return {}
        return aids.accepting_fields(self.sp, p, self.rotation, self.mirror)

    def can_place_any(self) -> bool:
        """Whether the player to move has a placement (asked by several rows of the key
        table on every frame, so worked out once per state shown)."""
        state = self.sp
        known = self._can_place
        if known is None or known[0] is not state:
            known = self._can_place = (state, any(m.kind == "place" for m, _ in self.sp_moves()))
        return known[1]

    def sp_moves(self) -> list[tuple[Move, int]]:
        assert self.rules is not None
        moves: list[tuple[Move, int]] = self.rules.scored_moves(self.sp)  # type: ignore[attr-defined]
        return moves

    def aids_allowed(self) -> bool:
        return self.snap is not None and self.snap.info.hints_allowed

    def on_moves_seen(self, moves: list[LoggedMove]) -> None:
        """Mark the fields the other players just placed on."""
        assert self.rules is not None
        fields_: set[int] = set()
        for m in moves:
            try:
                move = self.rules.parse_move(m.before, m.text)
            except Refusal:
                continue
            if move.kind == "place" and move.field is not None:
                fields_.add(move.field)
        self.marks = frozenset(fields_)

    def on_loaded(self, ctx: Context) -> None:
        self.marks = frozenset()
        hand = self.my_hand()
        if hand != self.last_hand:
            # A new hand (after a placement, a swap or a draw): start from its first
            # piece, unturned.
            self.selected, self.rotation, self.mirror = 0, 0, False
            self.last_hand = hand
        self.hints = []

    async def on_enter(self, ctx: Context) -> None:
        await super().on_enter(ctx)
        if self.replay:
            steps = await self.history(ctx)
            if steps:
                self.follow_up = self._viewer(steps, whole=True)
            else:
                ctx.status("No moves were made in this game.")

    # --- what applies now (the key table's ``when``s) ---------------------------------------
    def is_watching(self) -> bool:
        return self.spectator or self.my_seat is None

    def is_seated(self) -> bool:
        return not self.is_watching()

    def is_placing(self) -> bool:
        """The player to act has a piece that fits somewhere."""
        return self.can_act and self.can_place_any()

    def is_stuck(self) -> bool:
        """The player to act can only pass or swap."""
        return self.can_act and not self.can_place_any()

    # --- what the keys do (the key table's handlers) ---------------------------------------
    def move_cursor(self, ctx: Context, key: str) -> None:
        self.cursor = neighbour_in_direction(self.cursor, ARROWS.get(key) or KEYPAD[key])

    async def view_last_turn(self, ctx: Context, key: str) -> Transition | None:
        await self.say_last_turn_notes(ctx)
        return await self._start_view(ctx)

    def toggle_ids(self, ctx: Context, key: str) -> None:
        self.show_ids = not self.show_ids

    def toggle_bag(self, ctx: Context, key: str) -> None:
        if not self.aids_allowed():
            ctx.status("This table plays without HINT and SHOW BAG.")
            return
        self.bag_shown = not self.bag_shown
        self.hints = []

    def next_piece(self, ctx: Context, key: str) -> None:
        hand = self.my_hand()
        if hand:
            self.selected = (self.selected + 1) % len(hand)

    def rotate(self, ctx: Context, key: str) -> None:
        self.rotation = (self.rotation + 1) % 3

    def turn_over(self, ctx: Context, key: str) -> None:
        if not self.sp.mirror:
            ctx.status("Pieces may not be turned over at this table.")
        else:
            self.mirror = not self.mirror

    def place(self, ctx: Context, key: str) -> Transition | None:
        return self._ask_place(ctx)

    def hint(self, ctx: Context, key: str) -> None:
        self._hint(ctx)

    def pass_turn(self, ctx: Context, key: str) -> Transition | None:
        return self._ask_pass(ctx)

    def swap(self, ctx: Context, key: str) -> Transition | None:
        return self._ask_swap(ctx)

    async def on_pick(self, pick: Pick, ctx: Context) -> Transition | None:
        """A click on a field: the cursor moved there and Enter (place the piece); on a
        piece of the hand: that piece chosen (as Tab would, to it)."""
        if self.snap is None or not self.can_act:
            return None
        if pick.kind == "piece" and 0 <= pick.value < len(self.my_hand()):
            self.selected = pick.value
            return None
        if pick.kind == "field" and 0 <= pick.value < 36:
            self.cursor = pick.value
            return await self.on_event(Key("enter"), ctx)
        return None

    def no_such_key(self, ctx: Context, key: str) -> None:
        """A key no row of the table took: say what does work now."""
        if key != "enter" and len(key) != 1:
            return
        if self.is_watching():
            ctx.status("You are watching this game.")
        elif not self.can_act:
            ctx.status(self._waiting_text())
        elif key != "enter":
            ctx.status(f"{key!r} does nothing here; the keys are on the bottom line.")

    # fmt: off
    keys = Keyset(
        [
            Binding((*ARROWS, *KEYPAD), "",
                    "Arrows or keypad 4 6 8 2: move the cursor over the fields", move_cursor),
            Binding(("tab", " "), "Tab piece", "Tab or Space: take the next piece of your hand",
                    next_piece, when=lambda s: s.can_act),
            Binding(("r",), "R)otate", "R: rotate the piece a third of a turn clockwise", rotate,
                    when=lambda s: s.can_act, shown=is_placing),
            Binding(("m",), "M)irror", "M: turn the piece over (mirror), where the table allows",
                    turn_over, when=lambda s: s.can_act, shown=is_placing),
            Binding(("enter", "5"), "Enter place",
                    "Enter: place the piece on the field under the cursor (then Y)", place,
                    when=lambda s: s.can_act, shown=is_placing),
            Binding(("p",), "P)ass", "P: pass, when nothing can be placed", pass_turn,
                    when=lambda s: s.can_act, shown=is_stuck),
            Binding(("s",), "S)wap", "S: swap a piece, when nothing can be placed", swap,
                    when=lambda s: s.can_act, shown=is_stuck),
            Binding((":", "/"), ":type",
                    ": type a move: RGY3@11:1 (m = turned over), pass, swap RRY5",
                    GameScreenBase.type_move, when=lambda s: s.can_act),
            Binding(("h",), "H)int", "H: the best placements", hint, when=lambda s: s.can_act,
                    shown=lambda s: s.can_act and s.aids_allowed()),
            Binding(("i",), "I)D", "I: the dice proof (the seed's commitment; the seed "
                    "once the game is over)", toggle_ids),
            Binding(("b",), "B)ag", "B: the pieces left in the bag", toggle_bag,
                    shown=lambda s: s.aids_allowed()),
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
            Binding(("v",), "V)iew", "V: the turns since your last one, step by step",
                    view_last_turn, shown=lambda s: s.can_act),
            Binding(("v",), "V)iew last turn", "V: the turns since your last one, step by step",
                    view_last_turn, shown=lambda s: not s.can_act),
            Binding(("x",), "X)resign", "X: resign and leave the game", GameScreenBase.ask_resign,
                    when=lambda s: s.is_seated() and s.is_running() and not s.replay,
                    shown=lambda s: s.is_seated() and s.is_running() and not s.is_placing()
                    and not s.replay),
            Binding(("?", "f1"), "?)help", "?: this list of keys", GameScreenBase.open_help,
                    shown=lambda s: s.can_act),
            Binding(("q", "escape"), "Q)uit", "Q or Esc: back to the menu", GameScreenBase.leave),
            Binding((), "(watching)", "", when=is_watching),
        ],
        fallback=no_such_key,
    )
    # fmt: on

    def _waiting_text(self) -> str:
        info = self.snap.info if self.snap else None
        if info is None or info.status != "active":
            return "This game is over. V)iew replays the last turn."
        if info.to_act is None:
            return "Waiting for pieces to be drawn."
        return f"It is {self.name_of(info.to_act)}'s turn."

    def _ask_place(self, ctx: Context) -> Transition | None:
        p = self.selected_piece()
        if p is None:
            ctx.status("You have no piece to place.")
            return None
        reason = why_illegal(self.sp, p, self.cursor, self.rotation, self.mirror)
        if reason is not None:
            ctx.status(f"Not there: {reason}.")
            return None
        assert self.rules is not None
        move = Move.place(p, self.cursor, self.rotation, self.mirror)
        text = self.rules.format_move(self.sp, move)
        score = self.accepting().get(self.cursor, 0)
        return self._ask_to_send(
            text, f"Place {piece(p).name} on field {self.cursor} for {score}? (Y/N)"
        )

    def _ask_pass(self, ctx: Context) -> Transition | None:
        if self.can_place_any():
            ctx.status("You can place a piece, so you must: pass and swap are for when you cannot.")
            return None
        return self._ask_to_send("pass", "Pass this turn? (Y/N)")

    def _ask_swap(self, ctx: Context) -> Transition | None:
        if self.can_place_any():
            ctx.status("You can place a piece, so you must: pass and swap are for when you cannot.")
            return None
        if not self.sp.bag:
            ctx.status("The bag is empty: you can only pass.")
            return None
        p = self.selected_piece()
        if p is None:
            return None
        name = piece(p).name
        question = f"Give back {name} for a piece from the bag? (Y/N)"
        return self._ask_to_send(f"swap {name}", question)

    def _ask_to_send(self, text: str, question: str) -> Transition:
        """Ask ``question``; Y sends ``text``."""

        async def send(ctx: Context) -> None:
            if await self.send(ctx, text):
                ctx.status(f"You played {text}.")

        def not_played(ctx: Context) -> None:
            ctx.status("Not played.")

        return self.ask(question, send, on_no=not_played)

    def _hint(self, ctx: Context) -> None:
        if not self.aids_allowed():
            ctx.status("This table plays without HINT and SHOW BAG.")
            return
        assert self.rules is not None
        found = aids.hint(self.sp, 3)
        self.hints = [(self.rules.format_move(self.sp, m), s) for m, s in found]
        self.bag_shown = False
        if found and found[0][0].kind == "place":
            best = found[0][0]
            hand = self.my_hand()
            if best.piece in hand and best.field is not None:
                self.selected = hand.index(best.piece)
                self.rotation = best.rotation
                self.mirror = best.mirror
                self.cursor = best.field

    # --- the step-by-step viewer ------------------------------------------------------------
    async def _start_view(self, ctx: Context) -> Transition | None:
        moves = await self.history(ctx)
        steps = last_turn_of_others(moves, self.my_seat)
        if not steps:
            ctx.status("There is no turn to show yet.")
            return None
        return Push(self._viewer(steps))

    def _viewer(self, steps: list[LoggedMove], *, whole: bool = False) -> ReplayViewer:
        return ReplayViewer(self, len(steps), partial(self._render_view, steps), whole=whole)

    def prompt_row(self, canvas: Canvas) -> int:
        return layout(canvas.width, canvas.height)[1] + 1

    def draw(self, canvas: Canvas, ctx: Context, cover: Cover, key_help: str) -> None:
        draw_chrome(canvas, ctx, self.title, key_help)
        if self.snap is None:
            canvas.put(2, 2, "Loading the game...", TEXT)
            return
        colors = ctx.caps.colors
        state = self.sp
        accept = self.accepting()
        p = self.selected_piece()
        preview = None
        if p is not None and self.cursor in accept:
            sides = aids.piece_sides(p, fields()[self.cursor].up, self.rotation, self.mirror)
            preview = Tile("".join(sides), piece(p).value)
        draw_board(
            canvas, BOARD_X, BOARD_Y, tiles_of(state), ctx.glyphs, colors,
            bonuses=[f.bonus for f in fields()], accept=accept,
            cursor=self.cursor if self.can_act else None, preview=preview, marked=self.marks,
            scale=layout(canvas.width, canvas.height)[0], right="r",
        )  # fmt: skip
        if self.can_act:
            canvas.wheel = ("r", ("r", "r"))  # a third of a turn clockwise / back
            # A terminal shorter than the layout scrolls to keep the cursor's field shown.
            scale = layout(canvas.width, canvas.height)[0]
            canvas.focus = BOARD_Y + field_center(self.cursor, scale)[1]
        self._render_panel(canvas, ctx, state)
        self._render_bottom(canvas, ctx, accept, cover)
        if layout(canvas.width, canvas.height)[0] == 3:
            self.draw_record(canvas, ctx, 22, canvas.width - 2)

    def _render_panel(self, canvas: Canvas, ctx: Context, state: SpectrangleState) -> None:
        assert self.snap is not None
        info = self.snap.info
        x = layout(canvas.width, canvas.height)[2]
        w = canvas.width - x - 1
        # A terminal narrower than the layout sees only ``seen`` columns of the panel:
        # when the hands would be cut off, the panel is drawn narrow (names and scores,
        # then the player's own hand on a line of its own, the piece section stacked).
        seen = min(canvas.width, ctx.caps.width) - x - 1
        narrow = HAND_WIDTH <= seen < 2 + 6 + 7 + HAND_WIDTH
        if narrow:
            w = seen
        colors = ctx.caps.colors
        flags = [f"bag {len(state.bag)}"]
        top_row = 1
        if not state.mirror:
            flags.append("no turning over")
        if state.teams:
            flags.append("teams 1+3 v 2+4")
        if info.status == "active" and info.to_act is not None:
            left = clock_text(info, ctx.services.clock.now(), self.snap.my_seat)
            who = "your" if self.can_act else f"{self.name_of(info.to_act)}'s"
            turn = f"It is {who} turn."
            if len(turn) + 1 + len(left) <= w:
                turn = f"{turn} {left}"
            elif left:
                flags.append(left)  # a long name: the time left goes on the line above
            canvas.put(x, 2, clip_text(turn, w), MOVER)
        elif info.status == "finished":
            canvas.put(x, 2, clip_text(self._result_text(), w), MOVER)
        elif info.status == "open":
            canvas.put(x, 2, "Waiting for players to join.", MOVER)
        canvas.put(x, top_row, clip_text("  ".join(flags), w), DIM)
        # The name column takes what the hands (4 pieces, 20 columns) leave, up to the
        # longest name; a name too long for it is abbreviated, never two alike.
        seats = range(state.players)
        full = [self.name_of(seat) + ("*" if seat == self.my_seat else "") for seat in seats]
        hand_room = 0 if narrow else 7 + HAND_WIDTH
        nw = max(6, min(max((len(n) for n in full), default=6), w - 2 - 5 - hand_room))
        shown = short_names(full, nw)
        heading = f"  {'Player':<{nw}} Score" + ("" if narrow else "  Hand")
        canvas.put(x, 3, heading, HEADING_STYLE)
        for seat in seats:
            y = 4 + seat
            marker = ctx.glyphs.selector if info.to_act == seat else " "
            style = MOVER if info.to_act == seat else TEXT
            canvas.put(x, y, marker, style)
            canvas.put(x + 2, y, f"{shown[seat]:<{nw}}", style)
            canvas.put(x + 2 + nw, y, f"{state.scores[seat]:>5}", style)
            hx = x + 2 + nw + 7
            if narrow:
                if seat in state.out:
                    canvas.put(x + 2 + nw, y, "  out", DIM)
                continue
            if seat in state.out:
                canvas.put(hx, y, "(left the game)", DIM)
                continue
            self._draw_hand(canvas, hx, y, state, seat, colors)
        y = 9
        if narrow:
            y = 4 + state.players
            if self.my_seat is not None and self.my_seat not in state.out:
                canvas.put(x, y, "Your hand:", HEADING_STYLE)
                self._draw_hand(canvas, x, y + 1, state, self.my_seat, colors)
                y += 2
        self._draw_piece(canvas, x, y, w, colors, narrow)
        y = y + 6 if narrow else 14
        if self.hints:
            canvas.put(x, y, "Best moves:", HEADING_STYLE)
            for i, (text, score) in enumerate(self.hints):
                canvas.put(x + 2, y + 1 + i, clip_text(f"{i + 1}. {text}  {score} points", w), TEXT)
        elif self.show_ids or self.snap.info.status in ("finished", "abandoned"):
            # the dice proof: the commitment from the start, the seed once it is over
            proof = self.snap.info.dice
            lines = proof.lines(w) if proof is not None else []
            for i, line in enumerate(lines[: max(canvas.height - 3 - y, 0)]):
                canvas.put(x, y + i, clip_text(line, w), DIM)
        elif self.bag_shown:
            bag = aids.show_bag(state)
            canvas.put(x, y, f"In the bag ({len(bag)}):", HEADING_STYLE)
            per_row = max(1, (w + 1) // 5)
            for i, pc in enumerate(bag[: per_row * 5]):
                row, col = divmod(i, per_row)
                draw_piece_label(canvas, x + 5 * col, y + 1 + row, pc.name, colors)

    def _draw_hand(
        self, canvas: Canvas, x: int, y: int, state: SpectrangleState, seat: int, colors: int
    ) -> None:
        """``seat``'s hand from column ``x``: 5 columns a piece, the chosen one marked."""
        for i, pi in enumerate(state.hands[seat]):
            sel = (
                seat == self.my_seat
                and self.can_act
                and i == min(self.selected, len(state.hands[seat]) - 1)
            )
            end = draw_piece_label(canvas, x + 5 * i, y, piece(pi).name, colors, selected=sel)
            if seat == self.my_seat:
                canvas.clickable(x + 5 * i, y, end - x - 5 * i, 1, Pick("piece", i), "r")

    def _draw_piece(
        self, canvas: Canvas, x: int, y: int, w: int, colors: int, narrow: bool
    ) -> None:
        """The chosen piece, its rotation, how it lies and how many fields take it (5
        rows; 6, stacked, when ``narrow``)."""
        p = self.selected_piece()
        if p is None:
            return
        turned = ", turned over" if self.mirror else ""
        canvas.put(x, y, "Your piece: ", TEXT)
        nx = draw_piece_label(canvas, x + 12, y, piece(p).name, colors)
        rotation = f"rotation {self.rotation}{turned}"
        if narrow:
            canvas.put(x, y + 4, clip_text(rotation, w), TEXT)
        else:
            canvas.put(nx, y, f"  {rotation}", TEXT)
        up = "".join(aids.piece_sides(p, True, self.rotation, self.mirror))
        down = "".join(aids.piece_sides(p, False, self.rotation, self.mirror))
        draw_piece_preview(canvas, x + 2, y + 1, up, down, piece(p).value, colors)
        n = len(self.accepting())
        fits = f"fits {n} field{'s' if n != 1 else ''}" if n else "fits nowhere this way"
        if narrow:
            canvas.put(x, y + 5, clip_text(fits, w), GOOD if n else DIM)
        else:
            canvas.put(x + 14, y + 2, fits, GOOD if n else DIM)

    def _result_text(self) -> str:
        assert self.rules is not None and self.snap is not None
        outcome = self.rules.outcome(self.sp) or self.snap.info.outcome
        if outcome is None:
            return "The game is over."
        names = " and ".join(self.name_of(s) for s in outcome.winners)
        verb = "won" if len(outcome.winners) == 1 else "tied"
        return f"Game over: {names} {verb}."

    def _render_bottom(
        self, canvas: Canvas, ctx: Context, accept: dict[int, int], cover: Cover
    ) -> None:
        y = layout(canvas.width, canvas.height)[1]  # 20 at 80×24
        w = canvas.width - 2
        if self.can_act and cover is Cover.NONE:
            f = fields()[self.cursor]
            bonus = f" x{f.bonus}" if f.bonus > 1 else ""
            if self.cursor in accept:
                line = f"Field {self.cursor}{bonus}: scores {accept[self.cursor]}. Enter places it."
                canvas.put(1, y, clip_text(line, w), GOOD)
            else:
                canvas.put(1, y, clip_text(f"Field {self.cursor}{bonus}", w), DIM)
        elif self.notice_line:
            canvas.put(1, y, clip_text(self.notice_line, w), DIM)
        if self.notice_line and self.can_act and cover is Cover.NONE:
            canvas.put(1, y + 1, clip_text(self.notice_line, w), DIM)

    def _render_view(self, steps: list[LoggedMove], canvas: Canvas, ctx: Context, i: int) -> None:
        """Move ``i`` of ``steps`` in the step-by-step viewer (under its own chrome)."""
        step = steps[i]
        state: SpectrangleState = step.after
        marked: frozenset[int] = frozenset()
        assert self.rules is not None
        move: Any = None
        try:
            move = self.rules.parse_move(step.before, step.text)
        except Refusal:
            move = None
        if move is not None and move.kind == "place" and move.field is not None:
            marked = frozenset({move.field})
        draw_board(
            canvas, BOARD_X, BOARD_Y, tiles_of(state), ctx.glyphs, ctx.caps.colors,
            bonuses=[f.bonus for f in fields()], cursor=None, marked=marked,
            scale=layout(canvas.width, canvas.height)[0],
        )  # fmt: skip
        self._render_panel(canvas, ctx, state)
        who = self.name_of(step.seat) if step.seat is not None else "The server"
        what = step.text
        if move is not None and move.kind == "place" and move.field is not None:
            assert move.piece is not None
            pts = self.rules.move_score(step.before, move)  # type: ignore[attr-defined]
            what = f"placed {piece(move.piece).name} on field {move.field} for {pts}"
        elif move is not None and move.kind == "pass":
            what = "passed"
        elif move is not None and move.kind == "swap" and move.piece is not None:
            what = f"swapped {piece(move.piece).name}"
        elif what.startswith("("):
            what = what.strip("()")  # a system event: resigned, ran out of time
        y = layout(canvas.width, canvas.height)[1]
        line = f"Move {i + 1} of {len(steps)}: {who} {what}."
        canvas.put(1, y, clip_text(line, canvas.width - 2), MOVER)


__all__ = ["BOARD_WIDTH", "SpectrangleScreen"]
