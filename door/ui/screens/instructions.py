"""Instructions, paged: how to use door, then the rules of each game as door plays them."""

from __future__ import annotations

import textwrap

from door.ui.bindings import (
    NEXT_PAGE_KEYS,
    PREVIOUS_PAGE_KEYS,
    Binding,
    KeyedScreen,
    Keyset,
)
from door.ui.canvas import CYAN, WHITE, Canvas, Style, clip_text
from door.ui.screen import HEADING_STYLE, Context, Pop, Transition, draw_chrome
from door.ui.terminal import InputEvent

BODY_STYLE = Style(fg=WHITE)
FOOT_STYLE = Style(fg=CYAN)

# (section title, paragraphs). A paragraph starting with "  " is kept as written.
SECTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        "Using door",
        (
            "door is a games room you visit now and then. Games are played by turns and can "
            "last for days: make your move whenever you call, and your opponents make theirs "
            "when they call. Every game has a time for each move (a week, unless its creator "
            "chose otherwise); let it run out and the game's timeout rule applies.",
            "From the main menu:",
            "  V  View games in progress (watch any), or join a game that needs a player. "
            "When someone invites you by name, V opens on your invitations.",
            "  P  Play a game where it is your turn; the number shows how many wait for you.",
            "  B  Begin a new game: pick the game, its options and your opponents: anyone "
            "who joins, a player you name, or the computer.",
            "  S  Sound effects on or off: a bell on your turn, on the dice and at the end "
            "of a game. door remembers your choice.",
            "  I  These instructions.   R  Rank: the top players of each game, and your place.",
            "  Y  Your settings: character set (CP437 for BBS terminals, UTF-8 for modern "
            "ones), colour, sound, the mouse, password, and K)eys: your SSH public keys, "
            "to log in over SSH without a password.   G  Goodbye (asks Y/N).",
            "Every menu works with its letter keys, or with the arrow keys and Enter. The "
            "bottom line of each screen lists its keys. Where your terminal reports the "
            "mouse (xterm, PuTTY, SyncTERM, tmux, the web page), a click does what a key "
            "does: a menu line, a list row, a key on the bottom line; the wheel scrolls "
            "lists; on a board, click a checker, then a highlighted point. Ctrl-L redraws "
            "the screen if it gets garbled. The top of the main menu tells you what "
            "happened since your last visit: invitations, moves made against you, who "
            "joined your games, games that finished and how, games waiting for you; N "
            "shows all of it when it does not fit.",
            "In the game lists, I O A M W F switch between your Invitations, games Open to "
            "join, All in progress, Mine, Waiting on me and Finished; N and P turn the page. "
            "On an invitation, Enter accepts it and D declines it (the game is cancelled). "
            "Ratings count finished games, except backgammon money games (match length 0, "
            "as on FIBS): R)ank says so, and so does B)egin. Enter opens "
            "the highlighted game: you play it if you sit in it, watch it if you do not, and "
            "replay it if it is over. On the Finished list, R)eview has the computer "
            "analyse a finished backgammon game: each player's error rate and biggest "
            "mistakes.",
        ),
    ),
    (
        "Backgammon",
        (
            "Each player has 15 checkers. You see the board from your own side, with your "
            "home board at the bottom and the points numbered 1 to 24 for you. As in the "
            "classic door, White's home is at the bottom right and White moves "
            "counter-clockwise; Black's home is at the bottom left and Black moves "
            "clockwise: from your 24 point round to your 1 point, then off the board.",
            "On your turn you roll two dice (R) and move checkers that many points: one "
            "checker for each die, or one checker for both, each step landing on an open "
            "point. Doubles are played four times. You must use both dice if you can; if "
            "only one can be used, you must use the larger when possible.",
            "A point with two or more of your opponent's checkers is blocked. A single "
            "checker (a blot) that is hit goes to the bar and must re-enter in the "
            "opponent's home board before anything else moves.",
            "When all 15 of your checkers are in your home board you bear them off: a die "
            "removes a checker from its point, or from the highest point if none is higher.",
            "On your turn: R)oll the dice (or D)ouble first). Then the arrow keys, or the "
            "digits of the numeric keypad as with NUM LOCK on, move the cursor between "
            "points. Enter (or keypad 5) picks up a checker and the points it may go to light "
            "up; Enter again drops it there. R)emove bears off the checker you hold, U)ndo "
            "takes back a step of this turn, and when the dice are used door asks you to "
            "confirm the play before sending it.",
            "You may also type a play: press : (or /) and write it in notation, such as "
            "13/7 8/7, bar/22* or 6/off, then Enter. A play door cannot accept stays on the "
            "line with the reason, so you can correct it.",
            "The doubling cube: before rolling you may D)ouble; your opponent T)akes (and "
            "plays on for twice the stake, owning the cube) or D)rops (and loses the game at "
            "the current stake). A gammon (the loser bore off nothing) counts double, a "
            "backgammon (and a checker still in the winner's home or on the bar) triple. "
            "Matches are played to a number of points, with the Crawford rule if chosen; "
            "a money game (match length Money) is one game played for the stake.",
            "V)iew plays your opponent's last turn back, in action (Space pauses, arrows "
            "step); Y)our settings sets its speed. I)Ds shows the "
            "gnubg Position ID and Match ID, to study the position elsewhere. H)int (when "
            "the game allows it) suggests plays. X on your turn offers to give up this game "
            "as a S)ingle, G)ammon or B)ackgammon (your opponent A)ccepts or R)ejects it), "
            "or M) resigns the whole match.",
            "If your time for a move runs out, you lose the match.",
        ),
    ),
    (
        "Spectrangle",
        (
            "Spectrangle is played on a triangular board of 36 triangular fields, some "
            "marked with a bonus multiplier. The pieces are triangles too: each has three "
            "coloured edges and a value. Each player holds four pieces; the hands are open "
            "for all to see, and the rest wait in the bag.",
            "The first piece may go on any field without a bonus. After that each piece must "
            "touch at least one placed piece, and wherever it touches, the colours of the "
            "touching edges must match (white matches any colour).",
            "A placement scores the piece's value, times the number of edges it touches "
            "(when two or three), times the bonus of its field. After placing you draw from "
            "the bag.",
            "On your turn: Tab (or Space) picks the next piece of your hand, R)otate turns "
            "it, M)irror turns it over (when the table allows). The arrow keys or the keypad "
            "move the cursor over the fields: the fields where the piece fits are highlighted, "
            "with the score it would make there. Enter places it, after you confirm. You may "
            "also press : and type a placement in notation.",
            "If you cannot place any piece you P)ass, or S)wap a piece for one from the bag. "
            "H)int suggests placements and B)ag shows what is left in it, unless the game's "
            "creator turned them off. V)iew replays the last turn.",
            "The game ends when the bag is empty and nobody can place. Each player then loses "
            "the value of the pieces left in hand; the highest score wins. 2 to 4 play.",
            "If your time for a move runs out, you pass.",
        ),
    ),
)


def build_lines(width: int) -> list[tuple[str, bool]]:
    """The whole text wrapped to ``width``: (line, is_heading)."""
    lines: list[tuple[str, bool]] = []
    for title, paragraphs in SECTIONS:
        if lines:
            lines.append(("", False))
        lines.append((title.upper(), True))
        lines.append(("", False))
        for para in paragraphs:
            if para.startswith("  "):
                # A key line: "  V  text", continuation lines indented under the text.
                wrapped = textwrap.wrap(para.strip(), width - 2, subsequent_indent="   ")
                lines.extend(("  " + w, False) for w in wrapped)
            else:
                lines.extend((w, False) for w in textwrap.wrap(para, width))
                lines.append(("", False))
        if lines and lines[-1] == ("", False):
            lines.pop()
    return lines


class InstructionsScreen(KeyedScreen):
    """The instructions, a page at a time."""

    title = "door — Instructions"

    def __init__(self) -> None:
        self.page = 0
        self.width = 0
        self.lines: list[tuple[str, bool]] = []
        self.per_page = 18

    def _layout(self, ctx: Context) -> None:
        width = max(ctx.caps.width, 40) - 4
        per_page = max(ctx.caps.height - 5, 5)
        if width != self.width or per_page != self.per_page or not self.lines:
            first_line = self.page * self.per_page
            self.width = width
            self.per_page = per_page
            self.lines = build_lines(min(width, 96))
            self.page = min(first_line // per_page, self.pages - 1)

    @property
    def pages(self) -> int:
        return max((len(self.lines) + self.per_page - 1) // self.per_page, 1)

    def section_page(self, index: int) -> int:
        count = -1
        for i, (_, heading) in enumerate(self.lines):
            if heading:
                count += 1
                if count == index:
                    return i // self.per_page
        return self.page

    async def on_enter(self, ctx: Context) -> None:
        self._layout(ctx)

    async def on_event(self, event: InputEvent, ctx: Context) -> Transition | None:
        self._layout(ctx)
        return await self.keys.dispatch(self, ctx, event)

    # --- what the keys do (the key table's handlers) ---------------------------------
    def next_page(self, ctx: Context, key: str) -> Transition | None:
        return self._turn(1, ctx)

    def previous_page(self, ctx: Context, key: str) -> Transition | None:
        return self._turn(-1, ctx)

    def first_page(self, ctx: Context, key: str) -> None:
        self.page = 0

    def last_page(self, ctx: Context, key: str) -> None:
        self.page = self.pages - 1

    def jump(self, ctx: Context, key: str) -> None:
        if 1 <= int(key) <= len(SECTIONS):
            self.page = self.section_page(int(key) - 1)

    def back(self, ctx: Context, key: str) -> Transition:
        return Pop()

    # fmt: off
    keys = Keyset(
        [
            Binding(NEXT_PAGE_KEYS, "Space/N)ext", "Space, N, PgDn: the next page", next_page),
            Binding(PREVIOUS_PAGE_KEYS, "P)revious", "P, PgUp: the page before", previous_page),
            Binding(("home",), "", "Home/End: the first/last page", first_page),
            Binding(("end",), "", "", last_page),
            Binding(tuple("123456789"), "1 2 3: jump to a section", "1 2 3: a section", jump),
            Binding(("q", "escape"), "Q)uit to the menu", "Q or Esc: back to the menu", back),
        ]
    )
    # fmt: on

    def _turn(self, step: int, ctx: Context) -> Transition | None:
        target = self.page + step
        if target < 0:
            ctx.status("This is the first page.")
        elif target >= self.pages:
            ctx.status("That was the last page. Q returns to the menu.")
        else:
            self.page = target
        return None

    def render(self, canvas: Canvas, ctx: Context) -> None:
        self._layout(ctx)
        draw_chrome(canvas, ctx, self.title, self.key_help)
        canvas.wheel = ("pgup", "pgdn")  # the wheel turns the pages
        start = self.page * self.per_page
        for i, (line, heading) in enumerate(self.lines[start : start + self.per_page]):
            style = HEADING_STYLE if heading else BODY_STYLE
            canvas.put(2, 2 + i, clip_text(line, canvas.width - 4), style)
        sections = "  ".join(f"{i}) {t}" for i, (t, _) in enumerate(SECTIONS, 1))
        foot = f"Page {self.page + 1} of {self.pages}   {sections}"
        canvas.put(2, canvas.height - 3, clip_text(foot, canvas.width - 4), FOOT_STYLE)
