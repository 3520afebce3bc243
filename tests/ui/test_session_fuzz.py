"""Invariants of a session under any keys: it never dies, never logs a failure, and every
screen it shows keeps its key help on the bottom row. Widgets keep their own invariants."""

from __future__ import annotations

import asyncio
import logging
import random
import unicodedata

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from door.services import Services
from door.services.accounts import User
from door.session import run_session
from door.ui.terminal import InputEvent, Key, Resize, Text
from door.ui.widgets import LineEditor, ListView, Menu, MenuItem
from tests.ui.conftest import started_game
from tests.ui.faketerm import FakeTerminal

KEYS = st.sampled_from(
    ["up", "down", "left", "right", "enter", "escape", "pgup", "pgdn", "home", "end",
     "backspace", "tab", "ctrl-l", "ctrl-u"]
).map(Key)  # fmt: skip
# Every letter but G (goodbye, tested elsewhere), plus digits and a few signs.
LETTERS = st.sampled_from(list("abcdefhijklmnopqrstuvwxyz0123456789 :/-")).map(Text)
CONTROL = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}
EVENTS = st.lists(st.one_of(KEYS, LETTERS, LETTERS), min_size=1, max_size=40)


KEY_NAMES = ["up", "down", "left", "right", "enter", "escape", "pgup", "pgdn", "home", "end",
             "backspace", "tab", "ctrl-l", "ctrl-u"]  # fmt: skip
TYPED = list("abcdefhijklmnopqrstuvwxyz0123456789 :/-")


def random_events(rng: random.Random, n: int) -> list[InputEvent]:
    return [Key(rng.choice(KEY_NAMES)) if rng.random() < 0.4 else Text(rng.choice(TYPED))
            for _ in range(n)]  # fmt: skip


@pytest.mark.parametrize("seed", range(6))
async def test_any_keys_leave_the_session_alive_with_key_help(
    services: Services,
    alice: User,
    bob: User,
    caplog: pytest.LogCaptureFixture,
    seed: int,
) -> None:
    # Seeded random key sequences (Hypothesis does not mix with async fixtures here).
    await started_game(services, alice, bob, kind="backgammon" if seed % 2 else "spectrangle")
    events = random_events(random.Random(seed), 50)
    term = FakeTerminal()
    task = asyncio.create_task(run_session(term, services, alice))
    with caplog.at_level(logging.ERROR):
        for event in events:
            term.send(event)
            await term.settle()
            if task.done():
                # Only G)oodbye (reachable with the arrows too) ends a session.
                assert term.closed and "Goodbye" in (term.close_message or ""), event
                break
            assert term.row(23).strip(), f"no key help after {event}"
    if not task.done():
        term.hangup()
    await asyncio.wait_for(task, 5)
    assert not [r for r in caplog.records if r.levelno >= logging.ERROR]


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(KEYS, LETTERS, st.builds(Resize, st.just(80), st.just(24)))))
def test_menu_selection_always_on_an_enabled_item(events: list[InputEvent]) -> None:
    menu = Menu([
        MenuItem("A", "one", 1),
        MenuItem("B", "two", 2, enabled=False),
        MenuItem("C", "three", 3),
    ])  # fmt: skip
    for event in events:
        chosen = menu.handle(event)
        assert chosen is None or chosen.enabled
        assert menu.items[menu.selected].enabled


@settings(max_examples=100, deadline=None)
@given(st.lists(st.one_of(KEYS, st.text(max_size=5).map(Text))))
def test_line_editor_holds_only_printable_text_within_its_limit(
    events: list[InputEvent],
) -> None:
    editor = LineEditor(max_len=12)
    for event in events:
        editor.handle(event)
        assert len(editor.text) <= 12
        assert 0 <= editor.pos <= len(editor.text)
        assert not [c for c in editor.text if unicodedata.category(c) in CONTROL]


@settings(max_examples=100, deadline=None)
@given(st.integers(0, 60), st.lists(KEYS))
def test_list_view_selection_stays_on_the_page(total: int, events: list[InputEvent]) -> None:
    view: ListView[int] = ListView(page_size=7)
    view.set_page(list(range(min(total, 7))), total, 0)
    for event in events:
        action = view.handle(event)
        if action is not None and action.kind == "page":
            assert 0 <= action.offset < max(total, 1)
            view.set_page(list(range(action.offset, min(action.offset + 7, total))), total,
                          action.offset)  # fmt: skip
        assert 0 <= view.selected < max(len(view.items), 1)
