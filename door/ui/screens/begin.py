"""Begin a game: choose the kind, its options (as the rules offer them), the number of
players and each opponent — anyone, a named user, or the computer at a bot level.

Where the rules list the values an option may take (``option_choices``), its letter steps
to the next one (Backgammon's match length: Money, 1, 3, 5, …) and an option that cannot
apply beside the others (no Crawford rule in money play) is not shown; the player's picks
are kept apart from the options they fit to (``fit_options``), so going to a 1-point match
and back keeps the cube. Other number options open a line that takes digits only.

S)tart asks, on one line, for the player's optional dice word (mixed into every roll of
the game's provable dice, door/games/fairdice.py); Enter alone gives none.
"""

from __future__ import annotations

import textwrap
from dataclasses import dataclass
from functools import partial
from typing import Any, Literal

from door.games import fairdice
from door.games.base import Refusal
from door.services.timecontrol import ClockOptions
from door.ui.canvas import CYAN, Canvas, Style, clip_text
from door.ui.screen import (
    HEADING_STYLE,
    Context,
    Pop,
    Replace,
    Screen,
    Transition,
    clean,
    draw_chrome,
)
from door.ui.terminal import InputEvent, Key
from door.ui.widgets import LineEditor, Menu, MenuItem

DEADLINES = (24, 48, 72, 168, 336)
BANK_DAYS = (0, 1, 3, 5, 10, 30, 60)
"""The time banks (days) the Begin screen offers, in the order R steps through them."""
DICE_WORD_PROMPT = "Dice word (optional, Enter for none): "
NOTE_STYLE = Style(fg=CYAN)


@dataclass
class Opponent:
    """What one other seat will be: ``open`` (anyone may join), ``user`` (a named
    player, who must join), ``bot`` (the computer at ``name`` level)."""

    kind: Literal["open", "user", "bot"] = "open"
    name: str | None = None

    def label(self) -> str:
        if self.kind == "open":
            return "Anyone who joins"
        if self.kind == "user":
            return f"Player {clean(self.name or '?', 20)}"
        return f"Computer ({clean(self.name or '?', 24)})"


def option_label(key: str) -> str:
    """``"match_length"`` → ``"Match length"``."""
    return key.replace("_", " ").replace("-", " ").capitalize()


def option_value(value: Any, key: str = "") -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if key == "match_length" and isinstance(value, int):
        if value == 0:
            return "Money game (one game, no match)"
        if value == 1:
            return "1 point (one game, so no cube)"
        return f"{value} points"
    return clean(value, 20)


OPTION_LETTERS = "ABCEFJKLMOTUVWXZ"
"""The letters of the option lines, in the rules' order (an option keeps its letter when
another one is hidden)."""


class BeginScreen(Screen):
    """Two steps: pick the game, then set it up and S)tart it."""

    title = "door — Begin a new game"

    def __init__(self, kind: str | None = None) -> None:
        self.kind = kind
        self.phase: Literal["kind", "setup", "edit", "opponent"] = (
            "kind" if kind is None else "setup"
        )
        self.opp_menu = Menu([])
        self.opp_index = 0
        self.kinds: list[tuple[str, str]] = []
        self.menu = Menu([])
        self.rules: Any = None
        self.seats = 2
        self.options: dict[str, Any] = {}
        self.wanted: dict[str, Any] = {}  # the player's picks; ``options`` is them fitted
        self.opponents: list[Opponent] = [Opponent()]
        self.deadline_hours = 168
        self.bank_days = 0
        self.weekends_off = False
        self.hints_allowed = True
        self.editor = LineEditor(max_len=40)
        self.edit_target: tuple[str, Any] = ("", None)
        self.edit_prompt = ""

    @property
    def key_help(self) -> str:  # type: ignore[override]
        if self.phase == "kind":
            return "Press the game's letter or number, or arrows and Enter · Q)uit to the menu"
        if self.phase == "edit":
            return "Type, then Enter to accept · Esc cancels"
        if self.phase == "opponent":
            return "Press a letter or number, or arrows and Enter · Esc leaves it as it was"
        return "Letter/arrows+Enter change a line · S)tart the game · Esc: other game · Q)uit"

    # --- set-up ------------------------------------------------------------------------
    async def on_enter(self, ctx: Context) -> None:
        self.kinds = ctx.services.games.kinds()
        # the sysop's [games] default_deadline_hours
        self.deadline_hours = ctx.services.games.lobby.default_deadline_hours
        if self.kind is not None:
            self.choose_kind(self.kind, ctx)
        else:
            self.menu = Menu(self._kind_items())

    def _kind_items(self) -> list[MenuItem]:
        items = []
        used: set[str] = set()
        for i, (kind, title) in enumerate(self.kinds, 1):
            key = title[:1].upper()
            if key in used or key in ("Q",):
                key = str(i)
            used.add(key)
            items.append(MenuItem(key, clean(title), kind))
        return items

    def choose_kind(self, kind: str, ctx: Context) -> None:
        games = ctx.services.games
        self.rules = games.rules_for(kind)
        self.kind = kind
        self.seats = self.rules.min_seats
        self.wanted = dict(self.rules.default_options())
        self.options = self._fitted(self.seats, self.wanted)
        self.opponents = [Opponent() for _ in range(self.seats - 1)]
        self.phase = "setup"
        self.menu = Menu(self._setup_items(ctx))

    def bot_levels(self, ctx: Context) -> list[tuple[str, str]]:
        bots = ctx.services.bots
        if bots is None or self.kind is None:
            return []
        try:
            return list(bots.levels(self.kind))
        except Exception:
            return []

    def _setup_items(self, ctx: Context) -> list[MenuItem]:
        items: list[MenuItem] = []
        if self.rules.max_seats > self.rules.min_seats:
            items.append(MenuItem("N", f"Number of players: {self.seats}", BeginScreen.more_seats))
        for i, opp in enumerate(self.opponents, 1):
            label = "Opponent" if len(self.opponents) == 1 else f"Opponent {i}"
            pick = partial(BeginScreen.pick_opponent, index=i - 1)
            items.append(MenuItem(str(i), f"{label}: {opp.label()}", pick))
        choices = self._choices()
        for letter, (key, value) in zip(OPTION_LETTERS, self.options.items(), strict=False):
            if key in choices and len(choices[key]) <= 1:
                continue  # it cannot apply beside the others
            items.append(
                MenuItem(letter, f"{option_label(key)}: {option_value(value, key)}",
                         partial(BeginScreen.change_option, key=key))
            )  # fmt: skip
        days = self.deadline_hours / 24
        span = f"{self.deadline_hours} hours" if self.deadline_hours < 72 else f"{days:g} days"
        items.append(MenuItem("D", f"Time for each move: {span}", BeginScreen.next_deadline))
        bank = "none" if not self.bank_days else f"{self.bank_days} day" + (
            "s" if self.bank_days != 1 else ""
        )
        items.append(MenuItem("R", f"Time bank (reserve): {bank}", BeginScreen.next_bank))
        items.append(
            MenuItem("P", f"Pause the clock at weekends: {'yes' if self.weekends_off else 'no'}",
                     BeginScreen.toggle_weekends)
        )  # fmt: skip
        items.append(
            MenuItem("H", f"Hints allowed: {'yes' if self.hints_allowed else 'no'}",
                     BeginScreen.toggle_hints)
        )  # fmt: skip
        items.append(MenuItem("S", "Start the game", BeginScreen.start))
        items.append(MenuItem("Q", "Back to the main menu", BeginScreen.back))
        return items

    def _choices(self) -> dict[str, tuple[Any, ...]]:
        """The values each option may take now (rules without ``option_choices``: none
        listed, every option shown)."""
        choose = getattr(self.rules, "option_choices", None)
        if choose is None:
            return {}
        return dict(choose(self.seats, self.options))

    def _fitted(self, seats: int, wanted: dict[str, Any]) -> dict[str, Any]:
        """``wanted`` checked, made to fit where the rules know how."""
        fit = getattr(self.rules, "fit_options", None)
        if fit is not None:
            return dict(fit(seats, wanted))
        return dict(self.rules.validate_options(seats, wanted))

    def _refresh(self, ctx: Context) -> None:
        selected = self.menu.selected
        self.menu = Menu(self._setup_items(ctx), selected)

    # --- events ------------------------------------------------------------------------
    async def on_event(self, event: InputEvent, ctx: Context) -> Transition | None:
        if self.phase == "edit":
            return await self._on_edit(event, ctx)
        if self.phase == "opponent":
            return self._on_opponent(event, ctx)
        if isinstance(event, Key) and event.name == "escape":
            if self.phase == "setup" and len(self.kinds) > 1:
                self.phase = "kind"
                self.menu = Menu(self._kind_items())
                return None
            return Pop()
        item = self.menu.handle(event)
        if item is None:
            return None
        if self.phase == "kind":
            self.choose_kind(str(item.action), ctx)
            return None
        result: Transition | None = await item.action(self, ctx)
        if result is None:
            self._refresh(ctx)
        return result

    # --- what the set-up items do (``action(self, ctx)``) --------------------------------
    async def back(self, ctx: Context) -> Transition | None:
        return Pop()

    async def more_seats(self, ctx: Context) -> None:
        n = self.seats + 1 if self.seats < self.rules.max_seats else self.rules.min_seats
        self.set_seats(n, ctx)

    async def pick_opponent(self, ctx: Context, *, index: int) -> None:
        self.choose_opponent(index, ctx)

    async def change_option(self, ctx: Context, *, key: str) -> None:
        value = self.options[key]
        values = self._choices().get(key)
        if values:
            i = values.index(value) if value in values else -1
            self.set_option(key, values[(i + 1) % len(values)], ctx)
        elif isinstance(value, bool):
            self.set_option(key, not value, ctx)
        else:
            digits = isinstance(value, int)
            self.begin_edit(("option", key), f"{option_label(key)}: ", str(value), digits=digits)

    async def next_deadline(self, ctx: Context) -> None:
        i = DEADLINES.index(self.deadline_hours) if self.deadline_hours in DEADLINES else 0
        self.deadline_hours = DEADLINES[(i + 1) % len(DEADLINES)]

    async def next_bank(self, ctx: Context) -> None:
        i = BANK_DAYS.index(self.bank_days) if self.bank_days in BANK_DAYS else 0
        self.bank_days = BANK_DAYS[(i + 1) % len(BANK_DAYS)]

    async def toggle_weekends(self, ctx: Context) -> None:
        self.weekends_off = not self.weekends_off

    async def toggle_hints(self, ctx: Context) -> None:
        self.hints_allowed = not self.hints_allowed

    def set_seats(self, n: int, ctx: Context) -> None:
        try:
            options = self._fitted(n, self.wanted)
        except ValueError as exc:
            # e.g. an option only some player counts allow: reset to the defaults.
            try:
                options = self._fitted(n, self.rules.default_options())
            except ValueError:
                raise exc from None
            self.wanted = dict(self.rules.default_options())
            ctx.status("Options reset to the defaults for that many players.")
        self.seats = n
        self.options = dict(options)
        while len(self.opponents) < n - 1:
            self.opponents.append(Opponent())
        del self.opponents[n - 1 :]

    def set_option(self, key: str, value: Any, ctx: Context) -> None:
        """Change one option; the rules check it, and a refused value changes nothing."""
        trial = dict(self.wanted)
        trial[key] = value
        self.options = self._fitted(self.seats, trial)
        self.wanted = trial

    def choose_opponent(self, index: int, ctx: Context) -> None:
        """Open the chooser for seat ``index``: anyone, a named player, or a bot level."""
        self.phase = "opponent"
        self.opp_index = index
        items = [
            MenuItem("A", "Anyone who joins", Opponent()),
            MenuItem("N", "A player I name", None),
        ]
        for i, (name, desc) in enumerate(self.bot_levels(ctx), 1):
            # "bg-beginner: plays by feel…": the level word at the description's start
            # and a "Computer:" before it pushed its end off an 80-column line (the
            # question above says the numbers are the computer).
            tail = clean(desc).split(": ", 1)[-1]
            items.append(MenuItem(str(i), f"{clean(name)}: {tail}", Opponent("bot", name)))
        self.opp_menu = Menu(items)

    def _on_opponent(self, event: InputEvent, ctx: Context) -> Transition | None:
        if isinstance(event, Key) and event.name == "escape":
            self.phase = "setup"
            return None
        item = self.opp_menu.handle(event)
        if item is None:
            return None
        if item.action is None:
            self.begin_edit(("opponent", self.opp_index), "Opponent's name: ", "")
            return None
        self.opponents[self.opp_index] = item.action
        self.phase = "setup"
        self._refresh(ctx)
        return None

    def begin_edit(
        self, target: tuple[str, Any], prompt: str, text: str, *, digits: bool = False
    ) -> None:
        """Open the line for ``target``; ``digits``: a number, so only digits go in (and
        the old value is selected away: typing starts afresh)."""
        self.phase = "edit"
        self.edit_target = target
        self.edit_prompt = prompt
        if digits:
            self.editor = LineEditor("", max_len=4, allowed=str.isdigit)
        else:
            self.editor = LineEditor(text, max_len=40)

    async def _on_edit(self, event: InputEvent, ctx: Context) -> Transition | None:
        result = self.editor.handle(event)
        what, arg = self.edit_target
        if result == "cancel":
            self.phase = "setup"
            self._refresh(ctx)
            return None
        if result != "submit":
            return None
        text = self.editor.text.strip()
        if what == "dice":
            self.phase = "setup"
            self._refresh(ctx)
            return await self.begin_game(ctx, text)
        if what == "opponent":
            if not text:
                ctx.status("Type the player's name, or Esc to leave the seat as it was.")
                return None
            else:
                user = await ctx.services.accounts.by_name(text)
                if user is None:
                    ctx.status(
                        f"There is no player called {clean(text, 20)}. Another name, or Esc."
                    )
                    return None
                if ctx.user is not None and user.id == ctx.user.id:
                    ctx.status("You cannot play against yourself; name someone else, or Esc.")
                    return None
                if user.is_bot:
                    ctx.status(f"{clean(user.name)} is a computer player: pick a computer level.")
                    return None
                self.opponents[arg] = Opponent("user", user.name)
        elif what == "option":
            old = self.options[arg]
            value: Any = text
            if isinstance(old, int):
                try:
                    value = int(text)
                except ValueError:
                    ctx.status(f"{option_label(arg)} must be a whole number.")
                    return None
            self.set_option(arg, value, ctx)
        self.phase = "setup"
        self._refresh(ctx)
        return None

    async def start(self, ctx: Context) -> Transition | None:
        """S)tart: ask for the dice word (the game is begun when it is given)."""
        if ctx.user is None or self.kind is None:
            return None
        self.begin_edit(("dice", None), DICE_WORD_PROMPT, "")
        self.editor = LineEditor("", max_len=fairdice.WORD_MAX)
        return None

    async def begin_game(self, ctx: Context, dice_word: str) -> Transition | None:
        """Begin the game as set up, with the player's dice word."""
        from door.services.games import SeatSpec
        from door.ui.screens.lists import screen_for_game

        if ctx.user is None or self.kind is None:
            return None
        seats = [SeatSpec("me")]
        for opp in self.opponents:
            if opp.kind == "open":
                seats.append(SeatSpec("open"))
            else:
                seats.append(SeatSpec(opp.kind, opp.name))
        info = await ctx.services.games.begin(
            ctx.user.id,
            self.kind,
            dict(self.options),
            seats,
            hints_allowed=self.hints_allowed,
            dice_word=dice_word,
            clock=ClockOptions(
                self.deadline_hours * 3600, self.bank_days * 86400, self.weekends_off
            ),
        )
        if info.status == "active":
            ctx.status(f"Game #{info.id} has begun. Good luck!")
            try:
                return Replace(screen_for_game(info, ctx))
            except Refusal as exc:
                ctx.status(f"Game #{info.id} has begun. {exc}")
                return Pop(info)
        waiting = [o for o in self.opponents if o.kind != "bot"]
        ctx.status(
            f"Game #{info.id} is waiting for {len(waiting)} more player"
            f"{'s' if len(waiting) != 1 else ''}. You will hear when it starts."
        )
        return Pop(info)

    # --- drawing -------------------------------------------------------------------------
    def render(self, canvas: Canvas, ctx: Context) -> None:
        draw_chrome(canvas, ctx, self.title, self.key_help)
        if self.phase == "kind":
            canvas.put(2, 2, "Which game?", HEADING_STYLE)
            self.menu.render(canvas, 2, 4, 40)
            return
        title = clean(self.rules.title) if self.rules is not None else ""
        canvas.put(2, 2, f"A new game of {title}", HEADING_STYLE)
        width = min(canvas.width, ctx.caps.width)  # what the terminal shows of the layout
        self.menu.render(canvas, 2, 4, min(width - 4, 60), clickable=self.phase == "setup")
        y = 5 + len(self.menu.items)
        if self.phase == "edit":
            canvas.put(2, y, self.edit_prompt, HEADING_STYLE)
            room = min(30, width - 4 - len(self.edit_prompt))
            self.editor.render(canvas, 2 + len(self.edit_prompt), y, max(room, 8))
            return
        if self.phase == "opponent":
            who = "your opponent" if len(self.opponents) == 1 else f"opponent {self.opp_index + 1}"
            numbers = " (a number: the computer)" if self.bot_levels(ctx) else ""
            for line in textwrap.wrap(f"Who will be {who}?{numbers}", width - 4):
                canvas.put(2, y, line, HEADING_STYLE)
                y += 1
            self.opp_menu.render(canvas, 2, y, min(width - 4, 76))
            return
        if self.kind is not None:  # rated or not (money play is not), before it starts
            from door.services.ratings import rated_note

            for line in textwrap.wrap(rated_note(self.kind, self.options), width - 4):
                canvas.put(2, y, line, NOTE_STYLE)
                y += 1
        self._draw_levels(canvas, ctx, y)

    def _draw_levels(self, canvas: Canvas, ctx: Context, y: int) -> None:
        """The computer levels with their descriptions, wrapped, from row ``y`` — all of
        them or, where they do not all fit, one line saying where they are described
        (the opponent chooser shows each whole): never a list cut short."""
        levels = self.bot_levels(ctx)
        if not levels or y >= canvas.height - 4:
            return
        width = min(canvas.width, ctx.caps.width)
        rows: list[str] = []
        for name, desc in levels:
            # Wrapped, not cut: the description is why a player picks a level.
            head = f"  {clean(name, 20)}: "
            lines = textwrap.wrap(
                clean(desc), max(width - 4 - len(head), 20),
                initial_indent="", subsequent_indent="",
            ) or [""]  # fmt: skip
            rows += [(head if i == 0 else " " * len(head)) + part for i, part in enumerate(lines)]
        if y + len(rows) >= canvas.height - 3:
            # "1) Opponent" (both games): its chooser lists every level, described whole
            hint = f"Computer levels: {len(levels)}, each described when you press 1"
            canvas.put(2, y, clip_text(hint, width - 4), NOTE_STYLE)
            return
        canvas.put(2, y, "Computer levels:", NOTE_STYLE)
        for row in rows:
            y += 1
            canvas.put(2, y, clip_text(row, width - 4), NOTE_STYLE)
