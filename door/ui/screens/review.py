"""Review of a finished backgammon game: each player's error rate, rating words, number of
decisions and biggest mistakes, as the analysis engine (bgsage) sees them.

The analysis takes seconds (about 6 s for a 5-point match) and runs in a worker thread
(``BotRunner.review``). The screen starts it as a task in ``on_enter``, keeps it in
``busy`` (the session redraws when it finishes) and shows "Analysing…" meanwhile, so the
session stays responsive: Q leaves at once. Where the engine is missing the screen says
so instead.
"""

from __future__ import annotations

import asyncio
import logging
import textwrap
from dataclasses import dataclass
from typing import Any

from door.games.backgammon.notation import from_viewpoint
from door.games.base import Refusal
from door.services import bgengine
from door.services.bgengine import GameReview, Mistake, PlayerReview
from door.ui.bindings import (
    NEXT_PAGE_KEYS,
    PREVIOUS_PAGE_KEYS,
    Binding,
    KeyedScreen,
    Keyset,
)
from door.ui.canvas import CYAN, GREEN, RED, WHITE, YELLOW, Canvas, Style, clip_text, text_width
from door.ui.screen import (
    HEADING_STYLE,
    Context,
    Pop,
    Transition,
    clean,
    draw_chrome,
)

log = logging.getLogger(__name__)

BODY_STYLE = Style(fg=WHITE)
NOTE_STYLE = Style(fg=CYAN)
COLUMN_STYLE = Style(fg=CYAN, underline=True)
GOOD_STYLE = Style(fg=GREEN, bold=True)
BAD_STYLE = Style(fg=RED, bold=True)
WAIT_STYLE = Style(fg=YELLOW, bold=True)

NO_ENGINE = (
    "Game review needs the analysis engine (bgsage), which this server does not have. "
    "Games are still played and kept; only the review is unavailable here."
)
SEAT_COLOURS = ("White", "Black")
# Error rates below this (thousandths per decision) count as strong play: shown in green.
_STRONG_BELOW = 8.0


@dataclass(frozen=True)
class Line:
    """One line of the review text."""

    text: str
    style: Style = BODY_STYLE


Block = list[Line]
"""Lines kept on one page when they fit (a player's section)."""


def fmt_dice(mistake: Mistake) -> str:
    """``"6-4"`` for a checker play, ``"cube"`` for a cube decision."""
    if mistake.dice is None:
        return "cube"
    return f"{mistake.dice[0]}-{mistake.dice[1]}"


def seat_name(info: Any, seat: int) -> str:
    """The name of whoever sat in ``seat`` (cleaned), or ``"Seat N"``."""
    for s in info.seats:
        if s.seat == seat and s.name:
            return clean(s.name, 24)
    return f"Seat {seat + 1}"


def game_header(info: Any, width: int = 76) -> Block:
    """What game this is, how it ended and its dice proof (the seed, now that it is over)
    in lines of ``width`` columns."""
    length = int(info.options.get("match_length", 0) or 0)
    kind = f"{length}-point match" if length else "money game"
    names = " v ".join(seat_name(info, s.seat) for s in info.seats)
    lines = [Line(f"Game #{info.id}: backgammon, {kind}, {names}", HEADING_STYLE)]
    outcome = info.outcome
    ending = clean(outcome.detail) if outcome is not None and outcome.detail else ""
    if not ending:
        ending = clean(info.summary)
    if ending:
        lines.append(Line(ending, NOTE_STYLE))
    proof = getattr(info, "dice", None)
    if proof is not None:
        # the seed, revealed now that the game is over (its SHA-256 is the commitment)
        lines += [Line(text, NOTE_STYLE) for text in proof.lines(width, commitment=False)]
    return lines


def viewer_seat(info: Any, user_id: int | None) -> int:
    """The seat whose side ``user_id`` sees the board from (White's, seat 0, for anyone
    not in the game), so the plays are written in the numbers of their own board."""
    for s in info.seats:
        if user_id is not None and s.user_id == user_id:
            return int(s.seat)
    return 0


def player_block(info: Any, player: PlayerReview, width: int, viewer: int = 0) -> Block:
    """One player's section: name, error rate and rating, decisions, biggest mistakes
    (the plays in ``viewer``'s point numbers)."""
    colour = SEAT_COLOURS[player.seat] if player.seat < len(SEAT_COLOURS) else ""
    name = seat_name(info, player.seat) + (f" ({colour})" if colour else "")
    rate_style = GOOD_STYLE if player.error_rate < _STRONG_BELOW else BAD_STYLE
    lines = [Line(name, HEADING_STYLE)]
    if player.decisions == 0:
        lines.append(Line("  No decisions to judge: every play was forced.", NOTE_STYLE))
        return lines
    lines.append(
        Line(
            f"  Error rate {player.error_rate:.1f} ({clean(player.rating)}): "
            f"{player.total_loss:.3f} lost over {player.decisions} "
            f"decision{'s' if player.decisions != 1 else ''}",
            rate_style,
        )
    )
    if not player.mistakes:
        lines.append(Line("  No mistakes: every decision was the engine's own choice.", BODY_STYLE))
        return lines
    # Columns: move number, dice, played, better, equity lost; the two plays share
    # whatever width the terminal gives.
    room = max(width - 2 - 5 - 6 - 7 - 4, 20)
    col = room // 2
    lines.append(
        Line(
            f"  {'Move':>4}  {'Dice':<4}  {'Played':<{col}} {'Better':<{col}} {'Lost':>6}",
            COLUMN_STYLE,
        )
    )
    for m in player.mistakes:
        played = clip_text(clean(from_viewpoint(m.played, player.seat, viewer)), col - 1)
        better = clip_text(clean(from_viewpoint(m.best, player.seat, viewer)), col - 1)
        lines.append(
            Line(
                f"  {m.move_number:>4}  {fmt_dice(m):<4}  {played:<{col}} {better:<{col}} "
                f"{m.loss:>6.3f}"
            )
        )
    return lines


def review_blocks(
    info: Any, review: GameReview, width: int, viewer: int = 0
) -> list[Block]:
    """The whole review as blocks of lines, for ``width`` columns of text, the plays
    numbered from ``viewer``'s side."""
    blocks: list[Block] = [game_header(info, width)]
    for player in review.players:
        blocks.append(player_block(info, player, width, viewer))
    blocks.append(
        [
            Line(
                f"Analysed by {clean(review.engine)}. Error rate: equity lost per decision, "
                "in thousandths (gnubg's scale: under 5 world class, under 12 advanced). "
                "Move: that player's own move number; Lost: equity given away.",
                NOTE_STYLE,
            )
        ]
    )
    return blocks


def wrap_line(line: Line, width: int) -> list[Line]:
    """``line`` folded at spaces to ``width`` columns, keeping its indent."""
    if text_width(line.text) <= width:
        return [line]
    indent = len(line.text) - len(line.text.lstrip(" "))
    parts = textwrap.wrap(
        line.text.strip(),
        width,
        initial_indent=" " * indent,
        subsequent_indent=" " * indent,
    )
    return [Line(p, line.style) for p in parts] or [line]


def paginate(blocks: list[Block], per_page: int, width: int) -> list[list[Line]]:
    """Pages of at most ``per_page`` lines, a blank line between blocks; a block that
    does not fit in what is left of a page starts the next one (a longer one is split)."""
    pages: list[list[Line]] = [[]]
    for raw in blocks:
        block = [part for line in raw for part in wrap_line(line, width)]
        page = pages[-1]
        gap = 1 if page else 0
        if page and len(page) + gap + len(block) > per_page and len(block) <= per_page:
            pages.append([])
            page = pages[-1]
            gap = 0
        if gap:
            page.append(Line(""))
        for line in block:
            if len(pages[-1]) >= per_page:
                pages.append([])
            pages[-1].append(line)
    return [p for p in pages if p] or [[]]


class ReviewScreen(KeyedScreen):
    """The review of finished backgammon game ``game_id`` (see the module docstring).

    ``worst`` is how many of each player's biggest mistakes to list. ``on_enter`` raises
    a :class:`~door.games.base.Refusal` (shown on the screen below) for a game that is
    not backgammon or is not over; a refused analysis is shown on this screen, any
    other failure is logged as a bug.
    """

    def __init__(self, game_id: int, *, worst: int = 10) -> None:
        self.game_id = game_id
        self.worst = worst
        self.info: Any = None
        self.viewer = 0
        """The seat whose point numbers the plays are written in."""
        self.review: GameReview | None = None
        self.error: str | None = None
        self.busy: asyncio.Task[None] | None = None
        """The analysis while it runs (the session redraws when it finishes)."""
        self.page = 0
        self.pages: list[list[Line]] = [[]]
        self._layout_key: tuple[int, int] | None = None

    @property
    def title(self) -> str:  # type: ignore[override]
        return f"door — Review of game #{self.game_id}"

    @property
    def analysing(self) -> bool:
        """True while the engine is still at work."""
        return self.busy is not None and not self.busy.done()

    @property
    def key_help(self) -> str:  # type: ignore[override]
        keys = self.keys.key_help(self)
        if self.review is None:
            return keys
        return f"Page {self.page + 1}/{len(self.pages)} · {keys}"

    async def on_enter(self, ctx: Context) -> None:
        snap = await ctx.services.games.get(self.game_id)
        info = snap.info
        if info.kind != "backgammon":
            raise Refusal("Only backgammon games can be reviewed.")
        if info.status not in ("finished", "abandoned"):
            raise Refusal(f"Game #{info.id} can be reviewed once it is over.")
        self.info = info
        self.viewer = viewer_seat(info, ctx.user.id if ctx.user is not None else None)
        bots = ctx.services.bots
        if bots is None or not bgengine.has_bgsage():
            self.error = NO_ENGINE
            return
        self.busy = asyncio.create_task(self._analyse(bots), name=f"door-review-{self.game_id}")

    async def _analyse(self, bots: Any) -> None:
        try:
            self.review = await bots.review(self.game_id, worst=self.worst)
        except Refusal as exc:
            self.error = clean(str(exc))
        except Exception:
            log.exception("review of game %d failed", self.game_id)
            self.error = "Sorry, the analysis failed on our side. Nothing was lost; try again."

    def _leave(self) -> Transition:
        if self.busy is not None and not self.busy.done():
            # Only this screen stops waiting: the runner finishes the analysis and keeps
            # it, so asking again later shows it at once.
            self.busy.cancel()
        return Pop()

    # --- what the keys do (the key table's handlers) ---------------------------------
    def is_shown(self) -> bool:
        return self.review is not None

    def leave(self, ctx: Context, key: str) -> Transition:
        return self._leave()

    def next_page(self, ctx: Context, key: str) -> None:
        self._turn(1, ctx)

    def previous_page(self, ctx: Context, key: str) -> None:
        self._turn(-1, ctx)

    def first_page(self, ctx: Context, key: str) -> None:
        self.page = 0

    def last_page(self, ctx: Context, key: str) -> None:
        self.page = len(self.pages) - 1

    def not_yet(self, ctx: Context, key: str) -> None:
        """Any key but Q while there is no review to page through."""
        if self.review is None and self.analysing:
            ctx.status("Still analysing; the review appears by itself. Q leaves.")

    def _turn(self, step: int, ctx: Context) -> None:
        target = self.page + step
        if target < 0:
            ctx.status("This is the first page.")
        elif target >= len(self.pages):
            ctx.status("That was the last page. Q returns to the list.")
        else:
            self.page = target

    # fmt: off
    keys = Keyset(
        [
            Binding(NEXT_PAGE_KEYS, "Space/N)ext P)rev", "Space, N, PgDn: the next page",
                    next_page, when=is_shown),
            Binding(PREVIOUS_PAGE_KEYS, "", "P, PgUp: the page before", previous_page,
                    when=is_shown),
            Binding(("home",), "", "Home/End: the first/last page", first_page, when=is_shown),
            Binding(("end",), "", "", last_page, when=is_shown),
            Binding(("q", "escape"), "Q)uit to the list", "Q or Esc: back to the list", leave),
        ],
        fallback=not_yet,
        sep=" · ",
        roomy=False,
    )
    # fmt: on

    def _layout(self, canvas: Canvas) -> None:
        """Page the review for this canvas (again after a resize, keeping the place)."""
        assert self.review is not None
        key = (canvas.width, canvas.height)
        if key == self._layout_key:
            return
        width = canvas.width - 4
        per_page = max(canvas.height - 5, 1)
        first = sum(len(p) for p in self.pages[: self.page])
        self.pages = paginate(
            review_blocks(self.info, self.review, width, self.viewer), per_page, width
        )
        self._layout_key = key
        seen = 0
        self.page = 0
        for i, page in enumerate(self.pages):
            if seen + len(page) > first:
                self.page = i
                break
            seen += len(page)
        else:
            self.page = len(self.pages) - 1

    def render(self, canvas: Canvas, ctx: Context) -> None:
        if self.review is not None:
            self._layout(canvas)
        draw_chrome(canvas, ctx, self.title, self.key_help)
        width = canvas.width - 4
        if self.review is not None:
            for i, line in enumerate(self.pages[self.page]):
                canvas.put(2, 2 + i, clip_text(line.text, width), line.style)
            return
        y = 2
        if self.info is not None:
            for line in game_header(self.info, width):
                for part in wrap_line(line, width):
                    canvas.put(2, y, clip_text(part.text, width), part.style)
                    y += 1
            y += 1
        if self.error is not None:
            for part in wrap_line(Line(self.error, WAIT_STYLE), width):
                canvas.put(2, y, clip_text(part.text, width), part.style)
                y += 1
        elif self.analysing:
            dots = "…" if ctx.caps.encoding == "utf-8" else "..."
            canvas.put(2, y, f"Analysing{dots} every decision of the game.", WAIT_STYLE)
            canvas.put(2, y + 1, "This takes a few seconds; Q leaves at any time.", NOTE_STYLE)
