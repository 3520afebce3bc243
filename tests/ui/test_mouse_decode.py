"""The key decoder reads xterm mouse reports (SGR mode 1006, and the older X10/normal
form) as Mouse events, and no part of a report, whole, cut off or garbled, ever comes out
as typed text."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from door.ui.keys import DecodedEvent, KeyDecoder, Report
from door.ui.terminal import Key, Mouse, Text


def sgr(code: int, x: int, y: int, release: bool = False) -> bytes:
    """An SGR report for button code ``code`` at the 1-based cell (``x``, ``y``)."""
    return f"\x1b[<{code};{x};{y}{'m' if release else 'M'}".encode()


def decode(*chunks: bytes, flush: bool = True) -> list[DecodedEvent]:
    d = KeyDecoder("utf-8")
    out: list[DecodedEvent] = []
    for chunk in chunks:
        out += d.feed(chunk)
    if flush:
        out += d.flush()
    return out


def typed(events: list[DecodedEvent]) -> str:
    return "".join(e.text for e in events if isinstance(e, Text))


# --- SGR reports ------------------------------------------------------------------------


def test_a_left_press_is_a_mouse_event_with_0_based_cell() -> None:
    assert decode(sgr(0, 10, 5)) == [Mouse(9, 4, "left", "press")]


def test_a_release_ends_in_a_small_m() -> None:
    assert decode(sgr(0, 1, 1, release=True)) == [Mouse(0, 0, "left", "release")]


def test_middle_and_right_buttons_are_told_apart() -> None:
    assert decode(sgr(1, 3, 4), sgr(2, 3, 4)) == [
        Mouse(2, 3, "middle", "press"),
        Mouse(2, 3, "right", "press"),
    ]


def test_the_wheel_turns_up_and_down() -> None:
    assert decode(sgr(64, 7, 8), sgr(65, 7, 8)) == [
        Mouse(6, 7, "wheel-up", "press"),
        Mouse(6, 7, "wheel-down", "press"),
    ]


def test_motion_with_a_button_held_is_a_drag() -> None:
    assert decode(sgr(32, 2, 2)) == [Mouse(1, 1, "left", "drag")]


def test_motion_with_no_button_held_is_dropped() -> None:
    assert decode(b"a" + sgr(35, 2, 2) + b"b") == [Text("ab")]


def test_modifier_bits_are_shift_alt_and_ctrl() -> None:
    assert decode(sgr(4 | 8 | 16, 1, 1)) == [
        Mouse(0, 0, "left", "press", shift=True, alt=True, ctrl=True)
    ]
    assert decode(sgr(8, 1, 1)) == [Mouse(0, 0, "left", "press", alt=True)]


def test_coordinates_beyond_223_come_through_in_sgr_form() -> None:
    assert decode(sgr(0, 300, 250)) == [Mouse(299, 249, "left", "press")]


def test_keys_around_a_report_are_kept_in_order() -> None:
    events = decode(b"ab" + sgr(0, 4, 4) + b"\x1b[Ac\r")
    assert events == [Text("ab"), Mouse(3, 3), Key("up"), Text("c"), Key("enter")]


def test_a_report_split_at_every_byte_is_still_one_event() -> None:
    whole = b"x" + sgr(2, 12, 34) + b"y"
    for cut in range(1, len(whole)):
        assert decode(whole[:cut], whole[cut:]) == [
            Text("x"), Mouse(11, 33, "right", "press"), Text("y"),
        ], cut  # fmt: skip


# --- garbled reports are dropped whole ---------------------------------------------------


def test_a_report_with_a_missing_field_is_dropped() -> None:
    assert typed(decode(b"a\x1b[<0;5Mb")) == "ab"


def test_a_report_with_a_letter_inside_is_dropped() -> None:
    assert typed(decode(b"a\x1b[<0;x5;5Mb")) == "ab"


def test_a_report_with_zero_or_absurd_coordinates_is_dropped() -> None:
    assert decode(sgr(0, 0, 5), sgr(0, 5, 0), b"\x1b[<0;123456;1M") == []


def test_an_overlong_report_is_dropped_up_to_its_end() -> None:
    long = b"\x1b[<0;" + b"1" * 200 + b";5M"
    assert typed(decode(b"a" + long + b"b")) == "ab"


def test_a_report_broken_off_by_the_next_one_leaves_no_debris() -> None:
    events = decode(b"\x1b[<0;12" + sgr(0, 3, 3) + b"k")
    assert events == [Mouse(2, 2), Text("k")]


def test_a_report_broken_off_by_enter_keeps_the_enter() -> None:
    assert decode(b"\x1b[<0;12\rj") == [Key("enter"), Text("j")]


def test_the_rest_of_a_report_cut_off_by_a_pause_is_not_typed() -> None:
    d = KeyDecoder("utf-8")
    assert d.feed(b"n\x1b[<0;1") == [Text("n")]
    assert d.flush() == []  # the pause: the cut-off start is line noise
    assert d.feed(b"2;5Mo") == [Text("o")]  # and so is the rest when it comes


# --- the X10/normal form ---------------------------------------------------------------


def test_an_x10_report_is_read_and_its_raw_bytes_are_not_typed() -> None:
    # button 0, column 1, row 1 (each + 32), then "q" typed
    assert decode(b"\x1b[M !!q") == [Mouse(0, 0, "left", "press"), Text("q")]


def test_an_x10_release_does_not_say_which_button() -> None:
    assert decode(b"\x1b[M#%&") == [Mouse(4, 5, "none", "release")]


def test_an_x10_report_cut_off_by_a_pause_swallows_its_remaining_bytes() -> None:
    d = KeyDecoder("utf-8")
    assert d.feed(b"\x1b[M ") == []
    assert d.flush() == []
    assert d.feed(b"!!z") == [Text("z")]


# --- invariants ---------------------------------------------------------------------------

reports = st.builds(
    sgr,
    st.sampled_from([0, 1, 2, 3, 4, 8, 16, 32, 34, 64, 65]),
    st.integers(1, 400),
    st.integers(1, 200),
    st.booleans(),
)
KEYS = (b"\x1b[A", b"\x1b[B", b"\r", b"\x7f", b"\x1b[6~")
keys = st.sampled_from(KEYS)
plain = st.text(
    alphabet=st.characters(min_codepoint=0x20, max_codepoint=0x7E, exclude_characters="<"),
    min_size=1,
    max_size=8,
).map(str.encode)


def _events_only(events: list[DecodedEvent]) -> list[DecodedEvent]:
    """The events, with runs of text joined (chunking may split a run)."""
    out: list[DecodedEvent] = []
    for e in events:
        if isinstance(e, Report):
            continue
        if isinstance(e, Text) and out and isinstance(out[-1], Text):
            out[-1] = Text(out[-1].text + e.text)
        else:
            out.append(e)
    return out


@settings(max_examples=300, deadline=None)
@given(
    items=st.lists(st.one_of(reports, keys, plain), max_size=12),
    cuts=st.lists(st.integers(0, 400), max_size=6),
)
def test_whole_reports_among_keys_and_text_decode_alike_however_the_bytes_are_cut(
    items: list[bytes], cuts: list[int]
) -> None:
    stream = b"".join(items)
    at = sorted({c for c in cuts if 0 < c < len(stream)})
    chunks = [stream[a:b] for a, b in zip([0, *at], [*at, len(stream)], strict=True)]
    one = _events_only(decode(stream))
    assert _events_only(decode(*chunks)) == one
    # each item by itself gives the same events, so nothing was lost or run together
    expected = _events_only([e for item in items for e in decode(item)])
    assert one == expected
    assert typed(one) == "".join(i.decode() for i in items if i not in KEYS and b"<" not in i)


letters = st.text(alphabet="abcdefghijklmnopqrstuvwxyz ", min_size=1, max_size=6).map(str.encode)


@st.composite
def broken_report(draw: st.DrawFn) -> bytes:
    """A report cut short somewhere (it may still be whole)."""
    whole = draw(reports)
    return whole[: draw(st.integers(1, len(whole)))]


@settings(max_examples=400, deadline=None)
@given(
    items=st.lists(st.one_of(broken_report(), letters, st.sampled_from([b"\r", b"\x7f"])),
                   max_size=12),
    pauses=st.lists(st.integers(0, 200), max_size=4),
)
def test_no_piece_of_a_cut_off_report_is_ever_typed(items: list[bytes], pauses: list[int]) -> None:
    """Typed text is letters and spaces only; whatever is cut off where (by the next
    report, a key, a pause in the input), no digit, ';', '<', '[' or ESC of a report comes
    out as text."""
    stream = b"".join(items)
    at = sorted({p for p in pauses if 0 < p < len(stream)})
    d = KeyDecoder("utf-8")
    out: list[DecodedEvent] = []
    for a, b in zip([0, *at], [*at, len(stream)], strict=True):
        out += d.feed(stream[a:b])
        out += d.flush()  # a pause between the chunks
    assert set(typed(out)) <= set("abcdefghijklmnopqrstuvwxyz ")


@settings(max_examples=300, deadline=None)
@given(
    noise=st.lists(
        st.binary(max_size=10).map(lambda b: b.replace(b"\x1b", b"").replace(b"<", b"")),
        min_size=1,
        max_size=6,
    ),
    embedded=st.lists(st.one_of(reports, broken_report()), max_size=6),
)
def test_random_bytes_with_reports_inside_never_type_escape_or_report_debris(
    noise: list[bytes], embedded: list[bytes]
) -> None:
    stream = b""
    for i, chunk in enumerate(noise):
        stream += chunk + (embedded[i] if i < len(embedded) else b"")
    text = typed(decode(stream))
    assert "\x1b" not in text
    assert "<" not in text  # the one character only a report brought
