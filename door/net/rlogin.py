"""rlogin (RFC 1282) for BBS door networks, with the door-server conventions.

Handshake: ``\\0 client-user \\0 server-user \\0 terminal/speed \\0``; we answer ``\\0`` to
accept (or ``\\1`` and a reason to refuse), then the stream is 8-bit clean. Following
Synchronet, GameSrv and DoorParty: the *server-user* field is the identity, ``[TAG]alias``
or a bare ``alias``; the *client-user* field carries the secret; the terminal field
selects a door (``xtrn=backgammon``, or a bare code).

Trust is per BBS (:class:`TrustedBbs`): each tag belongs to one BBS, which may connect
only from its own addresses with its own secret, so one BBS cannot log in as another's
callers. A bare alias gets the tag of the BBS whose address and secret match.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import ipaddress
import logging
import re
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from door.games.base import Refusal
from door.net import detect
from door.net.base import BaseTerminal, StreamTerminal, describe_peer, run_terminal_session
from door.net.limits import Admission, ConnectionLimiter
from door.ui.terminal import Caps, Resize

if TYPE_CHECKING:
    from door.net.base import ConnectionSettings

log = logging.getLogger(__name__)

MAX_FIELD = 256
HANDSHAKE_TIMEOUT = 10.0
_TAGGED = re.compile(r"^\[([^\[\]]{1,32})\](.+)$")


class RloginError(Refusal):
    """A handshake we refuse; the message goes back to the client."""


@dataclass(frozen=True)
class RloginRequest:
    """What the BBS sent: the secret, the identity and the door selector."""

    client_user: str
    server_user: str
    terminal: str
    speed: str
    tag: str
    alias: str
    start: str | None


@dataclass(frozen=True)
class TrustedBbs:
    """A BBS allowed in: its tag, the addresses or networks it connects from, its secret."""

    tag: str
    addresses: tuple[str, ...]
    secret: str
    max_callers: int = 200
    """Connections at once from this BBS's addresses (instead of the per-address cap)."""


@dataclass(frozen=True)
class RloginSettings:
    """An rlogin listener's knobs: the shared ones, and the BBSs that may connect
    (``[[rlogin.bbs]]``; none means every connection is refused)."""

    connection: ConnectionSettings
    bbs: tuple[TrustedBbs, ...] = ()


def parse_identity(server_user: str, default_tag: str = "") -> tuple[str, str]:
    """``"[XA]nuskooler"`` → ``("XA", "nuskooler")``; a bare alias gets ``default_tag``."""
    text = server_user.strip()
    m = _TAGGED.match(text)
    if m:
        tag, alias = m.group(1).strip(), m.group(2).strip()
    elif text.startswith("[") and "]" in text:
        raise RloginError("no usable user name in the rlogin server-user field")
    else:
        tag, alias = default_tag, text
    if not alias or any(not ch.isprintable() for ch in alias + tag):
        raise RloginError("no usable user name in the rlogin server-user field")
    return tag, alias


def parse_door_code(terminal_field: str) -> tuple[str, str | None]:
    """Split the terminal field into (terminal type, door code or None).

    ``"xtrn=backgammon"`` and ``"xtrn=backgammon/38400"`` name a door; a bare word that
    is not a terminal type we know (``"spectrangle"``) is taken as a door code too.
    """
    field = terminal_field.strip()
    term = field.split("/", 1)[0].strip()
    low = term.lower()
    if low.startswith("xtrn="):
        return "", low[5:].strip() or None
    if not low or detect.encoding_from_term(low) is not None:
        return low, None
    return low, low


def is_trusted(address: str, trusted: Iterable[str]) -> bool:
    """Whether ``address`` matches one of ``trusted`` (addresses or CIDR networks)."""
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    for entry in trusted:
        try:
            if ip in ipaddress.ip_network(entry, strict=False):
                return True
        except ValueError:
            continue
    return False


class RloginTerminal(StreamTerminal):
    """A :class:`~door.ui.terminal.Terminal` over an accepted rlogin stream."""

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        request: RloginRequest,
        settings: ConnectionSettings,
    ) -> None:
        term, _ = parse_door_code(request.terminal)
        super().__init__(
            writer,
            caps=Caps(
                encoding=detect.decide_encoding(term=term),
                term=term or "ansi",
                transport="rlogin",
            ),
            settings=settings,
        )
        self.request = request
        self._reader = reader

    async def detect(self) -> None:
        """Probe size and UTF-8: BBS callers come through with whatever terminal they use."""
        probed, width, height = await self.detect_by_probe()
        if probed is not None:
            self.set_encoding(probed)
        if width is not None and height is not None:
            # The initial size is not news to the session: no Resize event for it.
            self.set_caps(self.caps.resized(*detect.clamp_size(width, height)))

    async def _receive(self) -> bytes | Resize | None:
        try:
            data = await self._reader.read(4096)
        except (ConnectionError, OSError):
            return None
        return data or None


async def read_handshake(reader: asyncio.StreamReader) -> tuple[str, str, str, str]:
    """Read the four NUL-terminated handshake fields: (client, server, terminal, speed)."""
    fields: list[str] = []
    for _ in range(4):
        try:
            raw = await reader.readuntil(b"\0")
        except asyncio.LimitOverrunError as exc:
            raise RloginError("rlogin handshake field too long") from exc
        except asyncio.IncompleteReadError as exc:
            raise RloginError("rlogin handshake cut short") from exc
        if len(raw) > MAX_FIELD:
            raise RloginError("rlogin handshake field too long")
        fields.append(raw[:-1].decode("cp437"))
    if fields[0] != "":
        raise RloginError("not an rlogin handshake")
    _, _, speed = fields[3].partition("/")
    return fields[1], fields[2], fields[3], speed


def secret_matches(sent: str, secret: str) -> bool:
    """Constant-time comparison (of digests, so the length does not show either)."""
    digest = hashlib.sha256
    return hmac.compare_digest(
        digest(sent.encode("utf-8")).digest(), digest(secret.encode("utf-8")).digest()
    )


def check_request(
    address: str, client: str, server: str, terminal: str, speed: str, settings: RloginSettings
) -> RloginRequest:
    """Apply the trust rules to a handshake; :class:`RloginError` says why it is refused.

    The address must belong to a configured BBS; a ``[TAG]`` must be the tag of a BBS
    at that address, and the secret that BBS's own. The request carries the
    configured spelling of the tag.
    """
    here = [b for b in settings.bbs if is_trusted(address, b.addresses)]
    if not here:
        raise RloginError("rlogin is not accepted from your address")
    tag, alias = parse_identity(server)
    if tag:
        entry = next((b for b in here if b.tag.casefold() == tag.casefold()), None)
        if entry is None:
            raise RloginError(f"the BBS tag [{tag}] is not accepted from your address")
        if not secret_matches(client, entry.secret):
            raise RloginError("wrong rlogin secret")
    else:
        # every secret is compared, so the time taken does not say which BBS is here
        matching = [b for b in here if secret_matches(client, b.secret)]
        if not matching:
            raise RloginError("wrong rlogin secret")
        entry = matching[0]
    _, start = parse_door_code(terminal)
    return RloginRequest(client, server, terminal, speed, entry.tag, alias, start)


RloginHandler = Callable[[RloginTerminal], Awaitable[None]]


async def start_rlogin(
    host: str,
    port: int,
    on_terminal: RloginHandler,
    *,
    settings: RloginSettings,
    limiter: ConnectionLimiter | None = None,
    sessions: set[BaseTerminal] | None = None,
    reuse_port: bool = False,
) -> asyncio.Server:
    """Listen for rlogin on ``host:port`` (0 = any free port); returns the asyncio server.
    ``reuse_port`` (SO_REUSEPORT) lets several processes listen on the same port."""

    async def handle(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        _, address = describe_peer(writer.get_extra_info("peername"))
        admission: Admission | None = None
        accepted = False

        def drop(message: str) -> None:  # the limiter ends a connection not logged in yet
            writer.write((b"\r\n" if accepted else b"\x01") + message.encode() + b"\r\n")
            writer.close()

        try:
            if limiter is not None:
                # a BBS's callers all come from its address: its own cap applies to them
                caps = [b.max_callers for b in settings.bbs if is_trusted(address, b.addresses)]
                got = limiter.admit(address, drop, per_address=max(caps) if caps else None)
                if isinstance(got, str):
                    writer.write(b"\x01" + got.encode() + b"\n")
                    # Take in the handshake the client has already sent: closing with it
                    # unread resets the connection, and the refusal would be lost.
                    with contextlib.suppress(Exception):
                        await asyncio.wait_for(reader.read(4096), 0.5)
                    return
                admission = got
            try:
                client, server, term, speed = await asyncio.wait_for(
                    read_handshake(reader), HANDSHAKE_TIMEOUT
                )
                request = check_request(address, client, server, term, speed, settings)
            except (RloginError, TimeoutError) as exc:
                message = str(exc) if isinstance(exc, RloginError) else "rlogin handshake timed out"
                log.info("rlogin from %s refused: %s", address, message)
                writer.write(b"\x01" + message.encode() + b"\n")
                return
            writer.write(b"\0")
            accepted = True
            terminal = RloginTerminal(reader, writer, request, settings.connection)
            terminal.admission = admission
            await run_terminal_session(
                terminal, lambda: on_terminal(terminal), sessions=sessions, transport="rlogin"
            )
        finally:
            if admission is not None:
                admission.release()
            if not writer.is_closing():
                writer.close()

    return await asyncio.start_server(
        handle, host, port, backlog=settings.connection.backlog, limit=MAX_FIELD * 4,
        reuse_port=reuse_port or None,
    )
