"""Key tables: one table drives the keys, the key-help line and the help page."""

from __future__ import annotations

from typing import Any

from door.ui.bindings import Binding, Keyset, key_name
from door.ui.terminal import Key, Text


class Lamp:
    def __init__(self) -> None:
        self.on = False
        self.log: list[str] = []

    def switch(self, ctx: Any, key: str) -> None:
        self.on = not self.on
        self.log.append(f"switch {key}")

    def dim(self, ctx: Any, key: str) -> None:
        self.log.append("dim")

    def other(self, ctx: Any, key: str) -> None:
        self.log.append(f"other {key}")


TABLE: Keyset[Lamp] = Keyset(
    [
        Binding(("s", "enter"), "S)witch", "S or Enter: switch the lamp", Lamp.switch),
        Binding(("d",), "D)im", "D: dim it", Lamp.dim, when=lambda lamp: lamp.on),
        Binding(("d",), "", "", Lamp.other),
        Binding((), "(lit)", "", when=lambda lamp: lamp.on),
    ],
    fallback=Lamp.other,
)


def test_key_name_is_a_keys_name_or_one_typed_character_in_lower_case() -> None:
    assert key_name(Key("enter")) == "enter"
    assert key_name(Text("Q")) == "q"


async def test_a_key_runs_the_first_row_that_applies_now() -> None:
    lamp = Lamp()
    await TABLE.dispatch(lamp, None, Text("d"))  # type: ignore[arg-type]
    await TABLE.dispatch(lamp, None, Key("enter"))  # type: ignore[arg-type]
    await TABLE.dispatch(lamp, None, Text("D"))  # type: ignore[arg-type]
    assert lamp.log == ["other d", "switch enter", "dim"]


async def test_a_key_no_row_takes_goes_to_the_fallback() -> None:
    lamp = Lamp()
    await TABLE.dispatch(lamp, None, Text("z"))  # type: ignore[arg-type]
    assert lamp.log == ["other z"]


def test_the_key_help_line_shows_the_rows_that_apply_now() -> None:
    lamp = Lamp()
    assert TABLE.key_help(lamp) == "S)witch"
    lamp.on = True
    assert TABLE.key_help(lamp) == "S)witch  D)im  (lit)"


def test_the_key_help_line_is_closer_set_when_two_spaces_would_not_fit() -> None:
    lamp = Lamp()
    lamp.on = True
    assert TABLE.key_help(lamp, width=15) == "S)witch D)im (lit)"


def test_the_help_page_lists_every_row_once_short_ones_sharing_a_line() -> None:
    assert TABLE.help_page() == ["S or Enter: switch the lamp", "D: dim it"]
    short = Keyset([Binding(("a",), "", "A: one"), Binding(("b",), "", "B: two")])
    assert short.help_page() == ["A: one   B: two"]
