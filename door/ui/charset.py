"""Text to bytes for the wire, with no 8-bit control (C1) code ever sent.

Bytes 0x80–0x9F are the C1 controls on terminals that honour them (xterm's 8-bit
controls, many VT emulators): 0x9B is CSI, 0x9D OSC, 0x90 DCS. CP437 puts letters there
(0x9B ``¢``, 0x9C ``£``, 0x9D ``¥``, 0x82 ``é``…), so a player named ``¥0;PWN£¢2J`` sent
as CP437 would be an OSC and a clear-screen on such a terminal. :func:`encode_text` is
where every terminal's text becomes bytes (``BaseTerminal.write``):

* **CP437**: a character CP437 would put at 0x80–0x9F goes out as an ASCII look-alike
  (``¥``→``Y``, ``£``→``L``, ``¢``→``c``, ``é``→``e``; one column each, so the far end's
  cursor stays where the screen expects it). door's own glyphs (box lines, shades,
  blocks: 0xB0–0xDF and the rest) never come from that range and go out as they are.
* **UTF-8**: the C1 code points U+0080–U+009F themselves (which a UTF-8 terminal may
  obey) go out as ``?``; every other character is sent as it is.

Characters an encoding cannot carry become ``?``. The usual frame has nothing to change:
the only extra work is one scan of the encoded bytes.
"""

from __future__ import annotations

import re

from door.ui.terminal import Encoding

# CP437's 0x80–0x9F, in byte order, and the ASCII look-alike each goes out as.
CP437_C1_LETTERS = "ÇüéâäàåçêëèïîìÄÅÉæÆôöòûùÿÖÜ¢£¥₧ƒ"
CP437_C1_LOOKALIKES = "CueaaaaceeeiiiAAEaAooouuyOUcLYPf"

_CP437_SAFE = str.maketrans(CP437_C1_LETTERS, CP437_C1_LOOKALIKES)
_UTF8_SAFE = str.maketrans({code: "?" for code in range(0x80, 0xA0)})
_C1_BYTE = re.compile(rb"[\x80-\x9f]")
_C1_IN_UTF8 = re.compile(rb"\xc2[\x80-\x9f]")


def encode_text(text: str, encoding: Encoding) -> bytes:
    """``text`` as bytes for a terminal in ``encoding``, never with a C1 control in it
    (see the module docstring)."""
    if encoding == "utf-8":
        data = text.encode("utf-8", errors="replace")
        if _C1_IN_UTF8.search(data) is not None:
            data = text.translate(_UTF8_SAFE).encode("utf-8", errors="replace")
        return data
    data = text.encode("cp437", errors="replace")
    if _C1_BYTE.search(data) is not None:
        data = text.translate(_CP437_SAFE).encode("cp437", errors="replace")
    return data
