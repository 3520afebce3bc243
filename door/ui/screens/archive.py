"""The archive: every finished game, newest first, searched by player, game and date, and
opened in a step-by-step viewer.

The list (:class:`ArchiveScreen`) shows each game's number, kind, players, result and the
day it finished (UTC), a page at a time read from the database (``door/services/
archive.py`` holds the search rules and who may see what). S)earch types one line:
names, a game, a day, a month or a range of days; a line that cannot be read is refused
with the reason and stays to be fixed.

Enter opens the highlighted game. A Spectrangle game opens in its own replay viewer (each
move, its score and the standings in the panel). A backgammon match opens in
:class:`MatchViewer`, the playback viewer (the same keys: → and ← a move, Home/End, Space
plays the moves by itself) with the match's games to jump between (PgDn/PgUp, or G and
the game's number) and the computer's review of each decision beside the board, or under
it where the terminal is too narrow for the side panel (R shows or hides it).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, replace
from datetime import datetime
from typing import TYPE_CHECKING, Any

from door.games.backgammon.notation import from_viewpoint
from door.games.backgammon.position import MOVING, BackgammonState, pips
from door.games.base import Refusal
from door.services import bgengine
from door.services.archive import SEARCH_HELP, ArchivedGame, ArchiveSearch, ArchiveSearchError
from door.services.bgengine import GameReview, Mistake
from door.ui.bindings import Binding, KeyedScreen, Keyset, event_of, with_arrows
from door.ui.boards.backgammon import BoardPicture, checker_glyph, checker_style
from door.ui.boards.common import LoggedMove
from door.ui.canvas import CYAN, GREEN, RED, WHITE, YELLOW, Canvas, Style, clip_text
from door.ui.screen import (
    Context,
    Pop,
    Push,
    Transition,
    clean,
    draw_chrome,
    word_lines,
)
from door.ui.screens.backgammon import (
    BOARD_Y,
    PANEL_MIN_WIDTH,
    BackgammonScreen,
    Frame,
    colour_of_seat,
    layout,
)
from door.ui.screens.lists import result_text, seat_names
from door.ui.screens.overlays import LEAVE
from door.ui.screens.playback import Playback
from door.ui.terminal import InputEvent, Resize, Text
from door.ui.widgets import LineEditor, ListView, short_names

if TYPE_CHECKING:
    from door.services.archive import Archive

log = logging.getLogger(__name__)

TEXT = Style(fg=WHITE)
DIM = Style(fg=CYAN)
LOUD = Style(fg=YELLOW, bold=True)
GOOD = Style(fg=GREEN, bold=True)
BAD = Style(fg=RED, bold=True)
PROMPT = Style(fg=YELLOW, bold=True)

WIDE_ROW = 70
"""Columns from which a list row has every column (kind, players, result, day)."""
KIND_SHORT = {"backgammon": "BG", "spectrangle": "SP"}
"""The kind in two letters, for rows on a narrow terminal."""
REVIEW_ALL = 10_000
"""The review is asked for every mistake (the viewer shows each move's)."""
SEARCH_HINTS = (
    SEARCH_HELP,
    "names, a game, a day 2026-11-30, a month 2026-11 or days a..b",
    "e.g. bob backgammon 2026-11-01..2026-11-30",
    "e.g. bob backgammon 2026-11",
)
"""What the search line may hold, longest first: the longest that fits is shown."""
SHORT_NO_ENGINE = "No review: this server lacks the analysis engine (bgsage)."


def day_of(when: datetime) -> str:
    """The day a game finished, as the search writes days (UTC)."""
    return when.strftime("%Y-%m-%d")


class ArchiveScreen(KeyedScreen):
    """The finished games, a page at a time; S)earch, C)lear, Enter opens one."""

    def __init__(self) -> None:
        self.search = ArchiveSearch()
        self.view: ListView[ArchivedGame] = ListView(page_size=14)
        self.editor: LineEditor | None = None
        self.private = False
        self.kind_titles: dict[str, str] = {}
        self.width = 78

    @property
    def title(self) -> str:  # type: ignore[override]
        mine = " (your games)" if self.private else ""
        return f"door — Archive of finished games{mine}"

    @property
    def key_help(self) -> str:  # type: ignore[override]
        if self.editor is not None:
            return "Enter search · Esc back · empty line: every game"
        return self.keys.key_help(self)

    def archive(self, ctx: Context) -> Archive:
        found: Archive = ctx.services.archive
        return found

    async def load(self, ctx: Context, offset: int | None = None) -> None:
        """Read the page at ``offset`` (default: the one shown) of the current search."""
        self.view.page_size = max(max(ctx.caps.height, 24) - 10, 3)
        offset = self.view.offset if offset is None else offset
        uid = ctx.user.id if ctx.user is not None else None
        size = self.view.page_size
        page = await self.archive(ctx).find(self.search, uid, offset, size)
        if not page.games and offset > 0 and page.total > 0:
            offset = (page.total - 1) // size * size  # the list shrank: its last page
            page = await self.archive(ctx).find(self.search, uid, offset, size)
        self.private = page.private
        self.view.set_page(page.games, page.total, page.offset)

    async def on_enter(self, ctx: Context) -> None:
        self.kind_titles = dict(ctx.services.games.kinds())
        await self.load(ctx, 0)

    async def on_resume(self, result: Any, ctx: Context) -> Transition | None:
        await self.load(ctx)
        return None

    async def on_event(self, event: InputEvent, ctx: Context) -> Transition | None:
        if self.editor is not None:
            if isinstance(event, Resize):
                return None
            done = self.editor.handle(event)
            if done == "cancel":
                self.editor = None
            elif done == "submit":
                await self.apply(self.editor.text, ctx)
            return None
        if isinstance(event, Text) and len(event.text) > 1 and event.text[0] in "sS/":
            # typed ahead ("salice" faster than the screen drew): the rest is the search
            self.editor = LineEditor(event.text[1:], max_len=70)
            return None
        return await self.keys.dispatch(self, ctx, event)

    async def apply(self, text: str, ctx: Context) -> None:
        """Search for ``text``: the list shows what it finds and the line closes; a line
        that cannot be read (or names nobody) says why and stays open to be fixed."""
        archive = self.archive(ctx)
        before = self.search
        try:
            self.search = archive.parse(text)
            self.view.selected = 0
            await self.load(ctx, 0)
        except ArchiveSearchError as exc:
            self.search = before
            ctx.status(str(exc))
            return
        self.editor = None
        if self.search.is_everything:
            ctx.status("Every finished game.")
        else:
            found = self.view.total
            ctx.status(f"{found} game{'s' if found != 1 else ''} found.")

    # --- what the keys do (the key table's handlers) ---------------------------------
    def start_search(self, ctx: Context, key: str) -> None:
        self.editor = LineEditor(self.search.text, max_len=70)

    async def clear_search(self, ctx: Context, key: str) -> None:
        await self.apply("", ctx)

    def has_search(self) -> bool:
        return not self.search.is_everything

    def back(self, ctx: Context, key: str) -> Transition:
        return Pop()

    async def on_list_key(self, ctx: Context, key: str) -> Transition | None:
        """The list's own keys: the bar, its pages, Enter."""
        action = self.view.handle(event_of(key))
        if action is None:
            return None
        if action.kind == "page":
            await self.load(ctx, action.offset)
            return None
        return await self.open(action.item, ctx)

    # fmt: off
    keys = Keyset(
        [
            Binding((), "Up/Down Enter: view", ""),
            Binding(("s", "/"), "S)earch", "S or /: search by player, game and date",
                    start_search),
            Binding(("c",), "C)lear", "C: every finished game again", clear_search,
                    when=has_search),
            Binding((), "N)ext P)rev", ""),
            Binding(("q", "escape"), "Q)uit", "Q or Esc: back", back),
        ],
        fallback=on_list_key,
        sep=" · ",
        roomy=False,
    )
    # fmt: on

    async def open(self, item: ArchivedGame | None, ctx: Context) -> Transition | None:
        """Enter: the highlighted game in its viewer (asked of the archive again, so a
        game the viewer may not open is refused with the reason)."""
        if item is None:
            return None
        from door.ui.screens import open_game

        uid = ctx.user.id if ctx.user is not None else None
        info = await self.archive(ctx).open(item.info.id, uid)
        seated = uid is not None and info.seat_of(uid) is not None
        if info.kind == "backgammon":
            return Push(ArchivedBackgammon(info.id, spectator=not seated))
        return Push(open_game(info.kind, info.id, spectator=not seated, replay=True))

    # --- drawing --------------------------------------------------------------------
    def columns(self) -> tuple[int, int]:
        """(players, result) column widths for a row of ``self.width`` columns."""
        rest = self.width - (6 + 1 + 11 + 1 + 1 + 1 + 10)
        players = rest * 55 // 100
        return players, rest - players

    def header(self) -> str:
        if self.width < WIDE_ROW:
            return f"{'Game':<6} {'':<2} {'Finished':<10} Players"
        players, result = self.columns()
        return f"{'Game':<6} {'Kind':<11} {'Players':<{players}} {'Result':<{result}} Finished"

    def row(self, item: ArchivedGame) -> str:
        info = item.info
        day = day_of(item.finished_at)
        if self.width < WIDE_ROW:
            kind = KIND_SHORT.get(info.kind, clean(info.title, 2))
            room = max(self.width - 6 - 1 - 2 - 1 - 10 - 1, 6)
            return f"#{info.id:<5} {kind:<2} {day:<10} {seat_names(info, room)}"
        players, result = self.columns()
        return (
            f"#{info.id:<5} {clean(info.title, 11):<11} {seat_names(info, players):<{players}} "
            f"{result_text(info, result):<{result}} {day}"
        )

    def empty_text(self) -> str:
        if self.search.is_everything:
            if self.private:
                return "You have no finished games yet (here you see only your own)."
            return "No finished games yet."
        return f"No finished games match '{clean(self.search.text)}'."

    def render(self, canvas: Canvas, ctx: Context) -> None:
        draw_chrome(canvas, ctx, self.title, self.key_help)
        # Rows fit what the terminal shows (a narrow one gets the short rows, whole).
        self.width = min(canvas.width, max(ctx.caps.width, 40)) - 2
        if self.editor is not None:
            x = canvas.put(1, 2, "Search: ", PROMPT)
            self.editor.render(canvas, x, 2, max(self.width - x, 8))
            hint = next((h for h in SEARCH_HINTS if len(h) <= self.width), SEARCH_HINTS[-1])
            canvas.put(1, 3, clip_text(hint, self.width), DIM)
        elif self.search.is_everything:
            line = "All finished games, newest first. S)earch to narrow them."
            if len(line) > self.width:
                line = "All finished games, newest first."
            canvas.put(1, 2, line, DIM)
        else:
            line = f"Search: {clean(self.search.text)}"
            canvas.put(1, 2, clip_text(line, self.width), LOUD)
        self.view.render(canvas, 1, 4, self.width, self.header(), self.row, self.empty_text())
        if self.editor is not None:
            canvas.focus = 2  # the line typed on stays in sight on a short terminal


# --- a backgammon match, step by step ----------------------------------------------------

ReviewKey = tuple[int, int, str]
"""A decision as the review numbers it: (seat, that seat's play number, ``"play"`` or
the cube action). See :func:`door.services.bgengine.review_log`: a cube decision
belongs to the seat's next checker play."""


JUDGED = frozenset({"roll", "double", "take", "drop", "beaver"})
"""The cube actions the review judges (besides checker plays); a resignation offer and
its answer are no decision it scores."""


def mistake_key(m: Mistake) -> ReviewKey:
    return (m.seat, m.move_number, "play" if m.dice is not None else m.played)


@dataclass(frozen=True)
class Step:
    """One move of the match, as the viewer shows it: the picture after it, the game of
    the match it belongs to (from 1), the states around it and the review's keys of the
    decisions it stands for (a roll's cube decision goes with the play after it)."""

    move: LoggedMove
    frame: Frame
    game: int
    before: BackgammonState
    after: BackgammonState
    keys: tuple[ReviewKey, ...]
    forced: bool
    ends_game: bool


class ArchivedBackgammon(BackgammonScreen):
    """A finished match opened from the archive: the board the :class:`MatchViewer`
    draws on (leaving the viewer leaves this too)."""

    def __init__(self, game_id: int, *, spectator: bool = False) -> None:
        super().__init__(game_id, spectator=spectator, replay=False)

    async def on_enter(self, ctx: Context) -> None:
        await super().on_enter(ctx)
        steps = self.steps(await self.history(ctx))
        if not steps:
            ctx.status("No moves were made in this game.")
            return
        self.follow_up = MatchViewer(self, steps, delay=self.step_delay(ctx))

    async def on_resume(self, result: Any, ctx: Context) -> Transition | None:
        if result is LEAVE:
            return Pop()
        return await super().on_resume(result, ctx)

    def steps(self, moves: list[LoggedMove]) -> list[Step]:
        """The match's moves as the viewer's steps (a roll is no step of its own: the
        dice show with the play)."""
        assert self.rules is not None
        rules = self.rules
        plays = {0: 0, 1: 0}
        game = 1
        waiting: dict[int, ReviewKey] = {}  # a roll's cube decision, until the play
        out: list[Step] = []
        for m in moves:
            before: BackgammonState = m.before
            after: BackgammonState = m.after
            keys: list[ReviewKey] = []
            action = ""
            if m.seat is not None and not m.text.startswith("("):
                try:
                    action = rules.parse_move(before, m.text).action
                except Refusal:
                    action = ""
                if action == "play" and before.phase == MOVING:
                    plays[m.seat] += 1
                    if m.seat in waiting:
                        keys.append(waiting.pop(m.seat))
                    keys.append((m.seat, plays[m.seat], "play"))
                elif action in JUDGED:
                    keys.append((m.seat, plays[m.seat] + 1, action))
            ends = after.score != before.score or after.last_game != before.last_game
            if m.text == "roll":
                if m.seat is not None and keys:
                    waiting[m.seat] = keys[-1]
                continue
            frames = self._frames([m])
            if not frames:
                continue
            frame = frames[-1]
            if action == "play" and len(frames) > 1:
                marks = frozenset().union(*(f.marks for f in frames[1:]))
                who = self.name_of(m.seat) if m.seat is not None else "?"
                dice = before.dice
                rolled = f" rolled {dice[0]}-{dice[1]} and" if dice else ""
                text = from_viewpoint(m.text, before.turn, self.viewer)
                frame = replace(frame, caption=f"{who}{rolled} played {text}", marks=marks,
                                flying=None)  # fmt: skip
            elif ends:
                # the board as the game ended, not the next game's opening position
                v = self.viewer
                frame = replace(frame, mine=before.board[v], theirs=before.board[1 - v])
            if ends and after.last_game is not None:
                last = after.last_game
                pts = f"{last.points} point{'s' if last.points != 1 else ''}"
                frame = replace(frame, caption=f"{frame.caption}; {self.name_of(last.winner)} "
                                f"wins {pts}")  # fmt: skip
            forced = action == "play" and len(rules.legal_moves(before)) <= 1
            # a roll's cube decision whose play never came (the roller resigned, or the
            # game ended first) is shown with what came instead
            if ends:
                keys[:0] = waiting.values()
                waiting.clear()
            elif m.seat is not None and action != "play" and m.seat in waiting:
                keys.insert(0, waiting.pop(m.seat))
            out.append(Step(m, frame, game, before, after, tuple(keys), forced, ends))
            if ends:
                game += 1
        if waiting and out:  # the log ends on a roll: its decision goes with the last step
            final = out[-1]
            out[-1] = replace(final, keys=(*final.keys, *waiting.values()))
        return out

    def draw_step(self, canvas: Canvas, ctx: Context, step: Step) -> None:
        """The board and a panel of the match as it stood at ``step``."""
        fr = step.frame
        shown = step.before if step.ends_game else step.after
        pic = BoardPicture(
            fr.mine, fr.theirs, self.colour, dice=fr.dice, dice_mine=fr.dice_mine,
            marks=fr.marks, cube=self.cube_picture(shown),
        )  # fmt: skip
        geo, x, _ = layout(canvas.width, canvas.height)
        self._draw_board(canvas, ctx, pic, geo)
        w = canvas.width - x - 1
        v = self.viewer
        state = step.before
        names = short_names([self.name_of(0), self.name_of(1)], max(min(w - 14, 20), 8))
        nw = max(len(n) for n in names)
        colors = ctx.caps.colors

        def player_line(y: int, seat: int, side: Any) -> None:
            colour = colour_of_seat(seat)
            glyph = checker_glyph(colour, ctx.glyphs, colors)
            canvas.put(x, y, glyph, checker_style(colour, colors))
            canvas.put(x + 2, y, f"{names[seat]:<{nw}}", TEXT)
            if not state.is_money:
                canvas.put(x + 3 + nw, y, f"{state.score[seat]:>2}", LOUD)
            canvas.put(x + 6 + nw, y, clip_text(f"pips {pips(side):>3}", max(w - 6 - nw, 0)), DIM)

        player_line(1, 1 - v, fr.theirs)
        match = "Money game" if state.is_money else f"{state.match_length}-point match"
        if state.crawford_game:
            match += ", Crawford"
        canvas.put(x, 3, clip_text(match, w), TEXT)
        if shown.options.cube:
            canvas.put(x, 4, clip_text(self.cube_text(shown), w), TEXT)
        player_line(BOARD_Y + geo.bottom_label, v, fr.mine)


class MatchViewer(Playback):
    """A finished backgammon match a move at a time, with the review (see the module
    docstring). ``steps``: :meth:`ArchivedBackgammon.steps`."""

    def __init__(self, under: ArchivedBackgammon, steps: list[Step], *, delay: float) -> None:
        super().__init__(under, len(steps), _no_frame, whole=True, delay=delay, playing=False)
        self.board = under
        self.steps = steps
        self.games = steps[-1].game if steps else 1
        self.show_review = True
        self.review: GameReview | None = None
        self.review_error: str | None = None
        self.mistakes: dict[ReviewKey, Mistake] = {}
        self.review_task: asyncio.Task[None] | None = None
        self.asking: LineEditor | None = None

    # --- the review -----------------------------------------------------------------
    async def on_enter(self, ctx: Context) -> None:
        bots = ctx.services.bots
        if bots is None or not bgengine.has_bgsage():
            self.review_error = SHORT_NO_ENGINE
            return
        self.review_task = asyncio.create_task(
            self._analyse(bots), name=f"door-archive-review-{self.board.game_id}"
        )

    async def _analyse(self, bots: Any) -> None:
        try:
            review: GameReview = await bots.review(self.board.game_id, worst=REVIEW_ALL)
        except Refusal as exc:
            self.review_error = f"No review: {clean(str(exc))}."
            return
        except Exception:
            log.exception("review of game %d failed", self.board.game_id)
            self.review_error = "No review: the analysis failed on our side."
            return
        self.review = review
        self.mistakes = {mistake_key(m): m for p in review.players for m in p.mistakes}

    @property
    def analysing(self) -> bool:
        return self.review_task is not None and not self.review_task.done()

    @property
    def busy(self) -> asyncio.Task[None] | None:
        """The next picture's timer while playing, else the analysis while it runs (the
        session redraws when either is done)."""
        timer = super().busy
        if timer is not None:
            return timer
        return self.review_task if self.analysing else None

    def review_lines(self, step: Step, ellipsis: str = "…") -> list[tuple[str, Style]]:
        """What the review says of ``step``'s decisions (the plays in the viewer's
        point numbers)."""
        if self.review_error is not None:
            return [(self.review_error, DIM)]
        if self.review is None:
            return [(f"Review: analysing{ellipsis} (a few seconds)", LOUD)]
        found = [self.mistakes[k] for k in step.keys if k in self.mistakes]
        if not step.keys:
            return [("Review: nothing to judge here.", DIM)]
        if not found:
            if step.forced:
                return [("Review: forced, there was no choice.", DIM)]
            return [("Review: good, as the engine plays.", GOOD)]
        lines: list[tuple[str, Style]] = []
        v = self.board.viewer
        for m in found:
            played = clean(from_viewpoint(m.played, m.seat, v))
            best = clean(from_viewpoint(m.best, m.seat, v))
            lines.append((f"Review: lost {m.loss:.3f}", BAD))
            lines.append((f"  played {played}", TEXT))
            lines.append((f"  better {best}", TEXT))
        return lines

    def summary_lines(self) -> list[tuple[str, Style]]:
        """Each player's error rate and rating over the whole match."""
        if self.review is None:
            return []
        out: list[tuple[str, Style]] = []
        for p in self.review.players:
            name = self.board.name_of(p.seat, 20)
            if p.decisions == 0:
                out.append((f"{name}: no decisions to judge.", DIM))
                continue
            n = len(p.mistakes)
            out.append((
                f"{name}: error rate {p.error_rate:.1f} ({clean(p.rating)}), "
                f"{n} mistake{'s' if n != 1 else ''}",
                DIM,
            ))  # fmt: skip
        return out

    # --- the keys -----------------------------------------------------------------------
    def is_match(self) -> bool:
        return self.games > 1

    def first_of_game(self, game: int) -> int:
        return next(i for i, s in enumerate(self.steps) if s.game == game)

    def go_to_game(self, game: int, ctx: Context) -> None:
        self.pause()
        self.index = self.first_of_game(game)
        ctx.status(f"Game {game} of {self.games}.")

    def next_game(self, ctx: Context, key: str) -> None:
        game = self.steps[self.index].game
        if game >= self.games:
            ctx.status(f"Game {game} is the match's last.")
            return
        self.go_to_game(game + 1, ctx)

    def previous_game(self, ctx: Context, key: str) -> None:
        game = self.steps[self.index].game
        here = self.first_of_game(game)
        if self.index > here:
            self.go_to_game(game, ctx)  # to the start of this game first
        elif game > 1:
            self.go_to_game(game - 1, ctx)
        else:
            ctx.status("This is the match's first game.")

    def ask_game(self, ctx: Context, key: str) -> None:
        self.pause()
        self.asking = LineEditor(max_len=4, allowed=str.isdigit)

    def toggle_review(self, ctx: Context, key: str) -> None:
        self.show_review = not self.show_review
        ctx.status("The review is shown." if self.show_review else "The review is hidden.")

    def close_it(self, ctx: Context, key: str) -> Transition | None:
        if self.review_task is not None and not self.review_task.done():
            # only this viewer stops waiting: the runner keeps the analysis it finishes
            self.review_task.cancel()
        return super().close_it(ctx, key)

    async def on_event(self, event: InputEvent, ctx: Context) -> Transition | None:
        if self.asking is None:
            return await super().on_event(event, ctx)
        if isinstance(event, Resize):
            return None
        done = self.asking.handle(event)
        if done == "cancel":
            self.asking = None
        elif done == "submit":
            text = self.asking.text
            if text.isdigit() and 1 <= int(text) <= self.games:
                self.asking = None
                self.go_to_game(int(text), ctx)
            else:
                ctx.status(f"There is no game {clean(text) or '?'}: give 1 to {self.games}.")
        return None

    # fmt: off
    keys = Keyset(
        [
            Binding((" ",), "Space play", "Space: play the moves on / pause", Playback.toggle),
            Binding(("right", "enter", "down", "6", "n", "2", "5"), "Enter/→ next",
                    "Enter, → or 6: the next move", Playback.step_next),
            Binding(("left", "up", "4", "p", "8"), "← back", "← or 4: the move before",
                    Playback.step_back),
            Binding(("home",), "Home/End", "Home/End: the match's first/last move",
                    Playback.to_first),
            Binding(("end",), "", "", Playback.to_last),
            Binding(("pgdn", "]"), "PgUp/PgDn game", "PgDn or ]: the next game of the match",
                    next_game, when=is_match),
            Binding(("pgup", "["), "", "PgUp or [: back a game", previous_game, when=is_match),
            Binding(("g",), "G)ame N", "G: go to a game of the match by its number", ask_game,
                    when=is_match),
            Binding(("r",), "R)eview", "R: show or hide the review", toggle_review),
            Binding(("escape", "q", "v"), "Q)uit", "Q or Esc: back to the archive", close_it),
        ],
        fallback=Playback.any_key,
    )
    # fmt: on

    # --- drawing --------------------------------------------------------------------
    def render(self, canvas: Canvas, ctx: Context) -> None:
        if self.asking is not None:
            help_text = "Enter go · Esc back"
        else:
            help_text = with_arrows(self.keys.key_help(self, canvas.width - 2), ctx.glyphs)
        step = self.steps[self.index]
        draw_chrome(canvas, ctx, self.board.title, help_text)
        self.board.draw_step(canvas, ctx, step)
        geo, panel_x, info_y = layout(canvas.width, canvas.height)
        # the lines under the board fit what the terminal shows (a narrow one: wrapped)
        width = min(canvas.width, max(ctx.caps.width, 40)) - 2
        of_game = f"Game {step.game}/{self.games} · " if self.games > 1 else ""
        head = f"{of_game}move {self.index + 1}/{self.count}  {step.frame.caption}"
        y = info_y
        for part in word_lines(head, width)[:2]:
            canvas.put(1, y, clip_text(part, width), LOUD)
            y += 1
        last = y - 1
        if self.asking is not None:
            x = canvas.put(1, y, f"Go to game (1-{self.games}): ", PROMPT)
            self.asking.render(canvas, x, y, 5)
            canvas.prompt = y
            return
        if not self.show_review:
            canvas.focus = last
            return
        review = self.review_lines(step, ctx.glyphs.ellipsis)
        summary = self.summary_lines()
        bottom = canvas.height - 3  # the last row above the status line
        if ctx.caps.width >= panel_x + PANEL_MIN_WIDTH:
            # beside the board, in the panel's free rows
            pw = canvas.width - panel_x - 1
            py = 6
            rows = [(p, s) for text, s in review for p in word_lines(text, pw)]
            for text, style in rows[: BOARD_Y + geo.bottom_label - 1 - py]:
                canvas.put(panel_x, py, clip_text(text, pw), style)
                py += 1
        else:
            # under the board, where a narrow terminal still shows it
            for text, style in review:
                for part in word_lines(text, width):
                    if y <= bottom:
                        canvas.put(1, y, clip_text(part, width), style)
                        last = y
                        y += 1
        for text, style in summary:
            if y <= bottom:
                canvas.put(1, y, clip_text(text, width), style)
                y += 1
        canvas.focus = last  # a short terminal scrolls to keep the move and its review


def _no_frame(canvas: Canvas, ctx: Context, index: int) -> None:
    """The viewer draws its own pictures (:meth:`MatchViewer.render`)."""


__all__ = ["ArchiveScreen", "ArchivedBackgammon", "MatchViewer"]
