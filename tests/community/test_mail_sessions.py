"""Mail through real sessions read as a person sees them: a message written to a player
who is not there, found after their login (summary, menu count, inbox), read, replied to
and deleted; hostile text arrives harmless."""

from __future__ import annotations

import pytest

from door.services import Services
from door.services.accounts import User
from door.services.mail import MailError
from door.services.safety import clean_message
from tests.ui.conftest import StartSession


async def write_mail(r: object, to: str, subject: str, *body: str) -> None:
    """Open M)ail, W)rite, fill the form and send it from its last line."""
    term = r.term  # type: ignore[attr-defined]
    term.type("m")
    await term.wait_for("No mail.")
    term.type("w")
    await term.wait_for("Subject:")
    term.line(to)
    term.line(subject)
    lines = list(body) + [""] * (5 - len(body))
    for line in lines:
        term.line(line)
    await term.settle()


async def test_mail_to_an_offline_player_is_seen_after_their_login(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    a = await start_session(alice)
    await write_mail(a, "bob", "Rematch?", "Good game last night.", "Same time Friday?")
    assert "Sent to bob." in a.term.display_text()
    await a.stop()

    b = await start_session(bob)  # Bob was not online when it was sent
    text = b.term.display_text()
    assert "1 new message — press M to read" in text
    assert "M)" in text or "M " in text
    assert "(1 new)" in text
    b.term.type("m")
    await b.term.wait_for("Rematch?")
    row = b.term.row(b.term.find("Rematch?")[1])  # type: ignore[index]
    assert row.lstrip().startswith("*") and "Alice" in row
    b.term.press("enter")
    await b.term.wait_for("Same time Friday?")
    shown = b.term.display_text()
    assert "From:    Alice" in shown and "Subject: Rematch?" in shown
    assert "Good game last night." in shown
    b.term.type("q")
    await b.term.settle()
    row = b.term.row(b.term.find("Rematch?")[1])  # type: ignore[index]
    assert not row.lstrip().startswith("*"), "read: the unread mark is gone"
    assert await services.mail.unread(bob.id) == 0


async def test_a_reply_goes_back_to_the_sender_with_re_subject(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    await services.mail.send(alice.id, "Bob", "Hello", "How are you?")
    b = await start_session(bob)
    b.term.type("m")
    await b.term.wait_for("Hello")
    b.term.press("enter")
    await b.term.wait_for("How are you?")
    b.term.type("r")
    await b.term.wait_for("Message:")
    assert "Re: Hello" in b.term.display_text()
    b.term.line("Fine, thanks!")
    for _ in range(4):
        b.term.line("")
    await b.term.settle()
    assert "Sent to Alice." in b.term.display_text()
    inbox = await services.mail.inbox(alice.id)
    assert [(m.sender, m.subject, m.body) for m in inbox] == [("Bob", "Re: Hello", "Fine, thanks!")]


async def test_deleting_a_message_takes_it_out_of_the_inbox(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    await services.mail.send(alice.id, "Bob", "Old news", "x")
    b = await start_session(bob)
    b.term.type("m")
    await b.term.wait_for("Old news")
    b.term.type("d")
    await b.term.settle()
    assert "Old news" not in b.term.display().__str__().replace("Deleted 'Old news'.", "")
    assert await services.mail.inbox(bob.id) == []


async def test_mail_to_nobody_is_refused_and_the_form_is_kept(
    start_session: StartSession, services: Services, alice: User
) -> None:
    a = await start_session(alice)
    await write_mail(a, "nosuchplayer", "Hi", "Anyone?")
    text = a.term.display_text()
    assert "There is no player called 'nosuchplayer'." in text
    assert "Anyone?" in text  # still on the form, nothing lost


async def test_a_player_cannot_read_or_delete_anothers_mail(
    services: Services, alice: User, bob: User
) -> None:
    mail_id = await services.mail.send(alice.id, "Bob", "Private", "for Bob only")
    assert await services.mail.read(alice.id, mail_id) is None
    assert await services.mail.delete(alice.id, mail_id) is False
    assert [m.subject for m in await services.mail.inbox(bob.id)] == ["Private"]


async def test_an_empty_message_is_refused(services: Services, alice: User) -> None:
    with pytest.raises(MailError):
        await services.mail.send(alice.id, "Bob", "  \u202e", "\x00\x7f\x9b\n\n")


HOSTILE = (
    "\x1b]52;c;cm0gLXJmIH4=\x07"  # OSC 52: set the reader's clipboard
    "\x1b[2J\x1b[H"  # clear the screen
    "\x9b31m\x9d0;title\x9c"  # C1 CSI / OSC / ST
    "\x7f\x00\x08"  # DEL, NUL, BS
    "\u202eevil\u202c\u2066x\u2069"  # bidi override, isolate
)


def test_the_mail_cleaner_leaves_no_control_format_or_bidi_character() -> None:
    cleaned = clean_message("hi " + HOSTILE + " there", 500, multiline=True)
    for ch in cleaned:
        assert ch == "\n" or (ord(ch) >= 0x20 and not 0x7F <= ord(ch) <= 0x9F), repr(ch)
        assert ch not in "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
    assert cleaned.startswith("hi ") and cleaned.endswith(" there")
    # sequences go whole: none of their parameters is left to print as text
    for leftover in ("]52", "cm0g", "[2J", "[H", "31m", "title"):
        assert leftover not in cleaned, leftover


async def test_hostile_mail_reaches_the_reader_without_any_escape_sequence(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    await services.mail.send(alice.id, "Bob", "x" + HOSTILE, "body " + HOSTILE)
    stored = (await services.mail.inbox(bob.id))[0]
    for text in (stored.subject, stored.body):
        assert "\x1b" not in text and "\x9b" not in text and "\x9d" not in text
        assert "\u202e" not in text and "\x7f" not in text
    b = await start_session(bob, encoding="cp437")
    b.term.type("m")
    await b.term.wait_for("evil")
    b.term.press("enter")
    await b.term.wait_for("body")
    shown = b.term.display_text()
    # each sequence went whole (no half of one prints as text) and the screen still shows
    # the message: nothing in it cleared the screen or moved the cursor
    assert "]52;" not in shown and "[2J" not in shown and "31m" not in shown
    assert "Mail: a message" in shown and "body" in shown


async def test_a_player_reports_a_mail_and_the_sysop_finds_a_copy(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    await services.accounts.set_sysop("Alice", True)
    await services.mail.send(alice.id, "Bob", "Cheap chips", "buy now")
    b = await start_session(bob)
    b.term.type("m")
    await b.term.wait_for("Cheap chips")
    b.term.press("enter")
    await b.term.wait_for("buy now")
    b.term.type("!")
    await b.term.wait_for("Reported to the sysop")
    (report,) = await services.sysop.reports(alice.id)
    assert report.channel == "mail" and report.about_id == alice.id
    assert "Cheap chips" in report.text and "buy now" in report.text


async def test_new_mail_is_told_at_once_to_a_recipient_who_is_online(
    start_session: StartSession, services: Services, alice: User, bob: User
) -> None:
    b = await start_session(bob, start="rank")
    before = b.term.display()
    await services.mail.send(alice.id, "Bob", "Tonight?", "8pm")
    await b.term.wait_for("New mail from Alice: Tonight?")
    after = b.term.display()
    assert after[:22] == before[:22]  # only the status line changed
    b.term.press("escape")
    await b.term.wait_for("(1 new)")
