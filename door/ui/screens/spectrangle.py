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

from typing import Any

from door.games.spectrangle import aids
from door.games.spectrangle.board import fields
from door.games.spectrangle.moves import Move, why_illegal
from door.games.spectrangle.pieces import piece
from door.games.spectrangle.state import SpectrangleState
from door.ui.boards.common import GameScreenBase, LoggedMove, deadline_text, last_turn_of_others
from door.ui.boards.spectrangle import (
    BOARD_HEIGHT,
    BOARD_WIDTH,
    Tile,
    board_size,
    draw_board,
    draw_piece_label,
    draw_piece_preview,
    neighbour_in_direction,
)
from door.ui.canvas import CYAN, GREEN, WHITE, YELLOW, Canvas, Style, clip_text
from door.ui.screen import (
    HEADING_STYLE,
    Context,
    Pop,
    Transition,
    draw_chrome,
)
from door.ui.terminal import InputEvent, Key, Text

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

ARROWS = {"up": "up", "down": "down", "left": "left", "right": "right"}
KEYPAD = {"8": "up", "2": "down", "4": "left", "6": "right"}

TEXT = Style(fg=WHITE)
DIM = Style(fg=CYAN)
GOOD = Style(fg=GREEN, bold=True)
MOVER = Style(fg=YELLOW, bold=True)
PROMPT = Style(fg=YELLOW, bold=True)


def tiles_of(state: SpectrangleState) -> list[Tile | None]:
    """The board as tiles for the renderer."""
    return [
        None if p is None else Tile(p.sides, piece(p.piece).value) for p in state.board
    ]


class SpectrangleScreen(GameScreenBase):
    """Play (or watch, or replay) one Spectrangle game."""

    kind = "spectrangle"
    help_lines = (
        "Arrows or keypad 4 6 8 2: move the cursor over the fields",
        "Tab or Space: take the next piece of your hand",
        "R: rotate the piece a third of a turn clockwise",
        "M: turn the piece over (mirror), where the table allows",
        "Lit fields take the piece; they show the score it would make",
        "Enter: place the piece on the field under the cursor (then Y)",
        ": type a move: RGY3@11:1 (m = turned over), pass, swap RRY5",
        "P / S: pass or swap a piece, only when nothing can be placed",
        "H: the best placements    B: the pieces left in the bag",
        "V: the turns since your last one, step by step",
        "X: resign and leave the game    Q or Esc: back to the menu",
    )

    def __init__(self, game_id: int, *, spectator: bool = False, replay: bool = False) -> None:
        super().__init__(game_id, spectator=spectator, replay=replay)
        self.title = "Spectrangle"
        self.cursor = 12
        self.selected = 0
        self.rotation = 0
        self.mirror = False
        self.confirm_text = ""
        self.confirm_question = ""
        self.confirm_resign = False
        self.hints: list[tuple[str, int]] = []
        self.bag_shown = False
        self.steps: list[LoggedMove] = []
        self.step = 0
        self.marks: frozenset[int] = frozenset()
        self.last_hand: tuple[int, ...] = ()

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
        return any(m.kind == "place" for m, _ in self.sp_moves())

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
            except ValueError:
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
        if self.mode in ("confirm", "type") and not self.can_act:
            self.mode = "play"
        if self.replay and not self.steps:
            self.mode = "view"

    async def on_enter(self, ctx: Context) -> None:
        await super().on_enter(ctx)
        if self.replay:
            self.steps = await self.history(ctx)
            self.step = 0
            self.mode = "view"
            if not self.steps:
                ctx.status("No moves were made in this game.")
                self.mode = "play"

    # --- input ------------------------------------------------------------------------------
    async def _on_key(self, event: InputEvent, ctx: Context) -> Transition | None:
        key = event.name if isinstance(event, Key) else None
        ch = event.text[:1] if isinstance(event, Text) else ""
        direction = ARROWS.get(key or "") or KEYPAD.get(ch)
        if direction is not None:
            self.cursor = neighbour_in_direction(self.cursor, direction)
            return None
        if key == "escape" or ch.lower() == "q":
            return Pop()
        if ch.lower() == "v":
            return await self._start_view(ctx)
        if ch.lower() == "b":
            if not self.aids_allowed():
                ctx.status("This table plays without HINT and SHOW BAG.")
            else:
                self.bag_shown = not self.bag_shown
                self.hints = []
            return None
        if self.spectator or self.my_seat is None:
            if key == "enter" or ch:
                ctx.status("You are watching this game.")
            return None
        if ch.lower() == "x":
            if self.snap is None or self.snap.info.status != "active":
                ctx.status("The game is over.")
                return None
            self._confirm("", "Resign and leave this game? (Y/N)")
            self.confirm_resign = True
            return None
        if not self.can_act:
            if key == "enter" or ch:
                ctx.status(self._waiting_text())
            return None
        if key == "tab" or ch == " ":
            hand = self.my_hand()
            if hand:
                self.selected = (self.selected + 1) % len(hand)
            return None
        lower = ch.lower()
        if lower == "r":
            self.rotation = (self.rotation + 1) % 3
            return None
        if lower == "m":
            if not self.sp.mirror:
                ctx.status("Pieces may not be turned over at this table.")
            else:
                self.mirror = not self.mirror
            return None
        if key == "enter" or ch == "5":
            return self._ask_place(ctx)
        if ch == ":" or ch == "/":
            self.mode = "type"
            self.editor.clear()
            return None
        if lower == "h":
            self._hint(ctx)
            return None
        if lower == "p":
            return self._ask_pass(ctx)
        if lower == "s":
            return self._ask_swap(ctx)
        if ch:
            ctx.status(f"{ch!r} does nothing here; the keys are on the bottom line.")
        return None

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
        self._confirm(text, f"Place {piece(p).name} on field {self.cursor} for {score}? (Y/N)")
        return None

    def _ask_pass(self, ctx: Context) -> Transition | None:
        if self.can_place_any():
            ctx.status("You can place a piece, so you must: pass and swap are for when you cannot.")
            return None
        self._confirm("pass", "Pass this turn? (Y/N)")
        return None

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
        self._confirm(f"swap {name}", f"Give back {name} for a piece from the bag? (Y/N)")
        return None

    def _confirm(self, text: str, question: str) -> None:
        self.confirm_resign = False
        self.mode = "confirm"
        self.confirm_text = text
        self.confirm_question = question

    async def _on_confirm(self, event: InputEvent, ctx: Context) -> Transition | None:
        ch = event.text[:1].lower() if isinstance(event, Text) else ""
        key = event.name if isinstance(event, Key) else ""
        if ch == "y" or key == "enter":
            self.mode = "play"
            if self.confirm_resign:
                if await self.resign(ctx):
                    ctx.status("You resigned.")
                return None
            text = self.confirm_text
            if await self.send(ctx, text):
                ctx.status(f"You played {text}.")
            return None
        if ch == "n" or key == "escape":
            self.mode = "play"
            ctx.status("Not played.")
        return None

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
        self.steps = steps
        self.step = 0
        self.mode = "view"
        return None

    def _on_view(self, event: InputEvent, ctx: Context) -> Transition | None:
        key = event.name if isinstance(event, Key) else ""
        ch = event.text[:1].lower() if isinstance(event, Text) else ""
        last = len(self.steps) - 1
        if key in ("right", "enter", "down") or ch in ("6", " ", "n", "2"):
            if self.step < last:
                self.step += 1
            elif not self.replay:
                self.mode = "play"
        elif key in ("left", "up") or ch in ("4", "p", "8"):
            self.step = max(self.step - 1, 0)
        elif key == "home":
            self.step = 0
        elif key == "end":
            self.step = last
        elif key == "escape" or ch in ("q", "v"):
            if self.replay:
                return Pop()
            self.mode = "play"
        return None

    # --- drawing ------------------------------------------------------------------------------
    def _key_help(self) -> str:
        if self.mode == "type":
            return "Type a move: RGY3@11:1 (m = turned over), pass, swap RRY5  Enter send  Esc back"
        if self.mode == "confirm":
            return "Y)es  N)o"
        if self.mode == "view":
            end = "Q)uit" if self.replay else "Q) back to the game"
            return f"{chr(0x2192)}/Enter next  {chr(0x2190)} back  Home/End  {end}"
        if self.can_act:
            extra = " H)int B)ag" if self.aids_allowed() else ""
            if not self.can_place_any():
                return f"Tab piece P)ass S)wap :type{extra} V)iew X)resign Q)uit"
            return f"Tab piece R)otate M)irror Enter place :type{extra} V)iew ?)help Q)uit"
        extra = " B)ag" if self.aids_allowed() else ""
        if self.my_seat is None:
            return f"V)iew last turn{extra}  Q)uit (watching)"
        return f"V)iew last turn{extra}  X) resign  Q)uit"

    def render(self, canvas: Canvas, ctx: Context) -> None:
        self._render(canvas, ctx)
        self.draw_help_box(canvas, ctx)

    def _render(self, canvas: Canvas, ctx: Context) -> None:
        help_text = self._key_help()
        if ctx.glyphs.encoding != "utf-8":
            help_text = help_text.replace(chr(0x2192), ctx.glyphs.arrow_right).replace(
                chr(0x2190), ctx.glyphs.arrow_left
            )
        draw_chrome(canvas, ctx, self.title, help_text)
        if self.snap is None:
            canvas.put(2, 2, "Loading the game...", TEXT)
            return
        colors = ctx.caps.colors
        if self.mode == "view" and self.steps:
            self._render_view(canvas, ctx)
            return
        state = self.sp
        accept = self.accepting() if self.mode != "view" else {}
        p = self.selected_piece()
        preview = None
        if p is not None and self.cursor in accept:
            sides = aids.piece_sides(p, fields()[self.cursor].up, self.rotation, self.mirror)
            preview = Tile("".join(sides), piece(p).value)
        draw_board(
            canvas, BOARD_X, BOARD_Y, tiles_of(state), ctx.glyphs, colors,
            bonuses=[f.bonus for f in fields()], accept=accept,
            cursor=self.cursor if self.can_act else None, preview=preview, marked=self.marks,
            scale=layout(canvas.width, canvas.height)[0],
        )  # fmt: skip
        self._render_panel(canvas, ctx, state)
        self._render_bottom(canvas, ctx, accept)
        if layout(canvas.width, canvas.height)[0] == 3:
            self.draw_record(canvas, ctx, 22, canvas.width - 2)

    def _render_panel(self, canvas: Canvas, ctx: Context, state: SpectrangleState) -> None:
        assert self.snap is not None
        info = self.snap.info
        x = layout(canvas.width, canvas.height)[2]
        w = canvas.width - x - 1
        colors = ctx.caps.colors
        flags = [f"bag {len(state.bag)}"]
        if not state.mirror:
            flags.append("no turning over")
        if state.teams:
            flags.append("teams 1+3 v 2+4")
        canvas.put(x, 1, clip_text("  ".join(flags), w), DIM)
        if info.status == "active" and info.to_act is not None:
            left = deadline_text(info.deadline, ctx.services.clock.now())
            who = "your" if self.can_act else f"{self.name_of(info.to_act, 12)}'s"
            canvas.put(x, 2, clip_text(f"It is {who} turn. {left}", w), MOVER)
        elif info.status == "finished":
            canvas.put(x, 2, clip_text(self._result_text(), w), MOVER)
        elif info.status == "open":
            canvas.put(x, 2, "Waiting for players to join.", MOVER)
        canvas.put(x, 3, "  Player        Score  Hand", HEADING_STYLE)
        for seat in range(state.players):
            y = 4 + seat
            marker = ctx.glyphs.selector if info.to_act == seat else " "
            name = self.name_of(seat, 12)
            if seat == self.my_seat:
                name = clip_text(name, 10) + "*"
            style = MOVER if info.to_act == seat else TEXT
            canvas.put(x, y, marker, style)
            canvas.put(x + 2, y, f"{name:<12}", style)
            canvas.put(x + 14, y, f"{state.scores[seat]:>5}", style)
            hx = x + 21
            if seat in state.out:
                canvas.put(hx, y, "(left the game)", DIM)
                continue
            for i, pi in enumerate(state.hands[seat]):
                sel = seat == self.my_seat and self.can_act and i == min(
                    self.selected, len(state.hands[seat]) - 1
                )
                draw_piece_label(canvas, hx + 5 * i, y, piece(pi).name, colors, selected=sel)
        p = self.selected_piece()
        y = 9
        if p is not None:
            turned = ", turned over" if self.mirror else ""
            canvas.put(x, y, "Your piece: ", TEXT)
            nx = draw_piece_label(canvas, x + 12, y, piece(p).name, colors)
            canvas.put(nx, y, f"  rotation {self.rotation}{turned}", TEXT)
            up = "".join(aids.piece_sides(p, True, self.rotation, self.mirror))
            down = "".join(aids.piece_sides(p, False, self.rotation, self.mirror))
            draw_piece_preview(canvas, x + 2, y + 1, up, down, piece(p).value, colors)
            n = len(self.accepting())
            fits = f"fits {n} field{'s' if n != 1 else ''}" if n else "fits nowhere this way"
            canvas.put(x + 14, y + 2, fits, GOOD if n else DIM)
        y = 14
        if self.hints:
            canvas.put(x, y, "Best moves:", HEADING_STYLE)
            for i, (text, score) in enumerate(self.hints):
                canvas.put(x + 2, y + 1 + i, clip_text(f"{i + 1}. {text}  {score} points", w), TEXT)
        elif self.bag_shown:
            bag = aids.show_bag(state)
            canvas.put(x, y, f"In the bag ({len(bag)}):", HEADING_STYLE)
            per_row = max(1, (w + 1) // 5)
            for i, pc in enumerate(bag[: per_row * 5]):
                row, col = divmod(i, per_row)
                draw_piece_label(canvas, x + 5 * col, y + 1 + row, pc.name, colors)

    def _result_text(self) -> str:
        assert self.rules is not None and self.snap is not None
        outcome = self.rules.outcome(self.sp) or self.snap.info.outcome
        if outcome is None:
            return "The game is over."
        names = " and ".join(self.name_of(s, 12) for s in outcome.winners)
        verb = "won" if len(outcome.winners) == 1 else "tied"
        return f"Game over: {names} {verb}."

    def _render_bottom(self, canvas: Canvas, ctx: Context, accept: dict[int, int]) -> None:
        y = layout(canvas.width, canvas.height)[1]  # 20 at 80×24
        w = canvas.width - 2
        if self.can_act and self.mode == "play":
            f = fields()[self.cursor]
            bonus = f" x{f.bonus}" if f.bonus > 1 else ""
            if self.cursor in accept:
                line = f"Field {self.cursor}{bonus}: scores {accept[self.cursor]}. Enter places it."
                canvas.put(1, y, clip_text(line, w), GOOD)
            else:
                canvas.put(1, y, clip_text(f"Field {self.cursor}{bonus}", w), DIM)
        elif self.notice_line:
            canvas.put(1, y, clip_text(self.notice_line, w), DIM)
        if self.mode == "type":
            canvas.put(1, y + 1, "Move: ", PROMPT)
            self.editor.render(canvas, 7, y + 1, min(40, canvas.width - 8))
        elif self.mode == "confirm":
            canvas.put(1, y + 1, clip_text(self.confirm_question, w), PROMPT)
        elif self.notice_line and self.can_act and self.mode == "play":
            canvas.put(1, y + 1, clip_text(self.notice_line, w), DIM)

    def _render_view(self, canvas: Canvas, ctx: Context) -> None:
        step = self.steps[self.step]
        state: SpectrangleState = step.after
        marked: frozenset[int] = frozenset()
        assert self.rules is not None
        move: Any = None
        try:
            move = self.rules.parse_move(step.before, step.text)
        except ValueError:
            move = None
        if move is not None and move.kind == "place" and move.field is not None:
            marked = frozenset({move.field})
        draw_board(
            canvas, BOARD_X, BOARD_Y, tiles_of(state), ctx.glyphs, ctx.caps.colors,
            bonuses=[f.bonus for f in fields()], cursor=None, marked=marked,
            scale=layout(canvas.width, canvas.height)[0],
        )  # fmt: skip
        self._render_panel(canvas, ctx, state)
        who = self.name_of(step.seat, 12) if step.seat is not None else "The server"
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
        line = f"Move {self.step + 1} of {len(self.steps)}: {who} {what}."
        canvas.put(1, y, clip_text(line, canvas.width - 2), MOVER)


__all__ = ["BOARD_WIDTH", "SpectrangleScreen"]
