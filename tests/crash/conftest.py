"""The crash test drives bench/crash.py's scenario; bench/ is not a package, so its
directory goes on the path here."""

from __future__ import annotations

import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "bench"
if str(BENCH) not in sys.path:
    sys.path.insert(0, str(BENCH))
