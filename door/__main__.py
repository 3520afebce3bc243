"""``python -m door`` runs the ``door`` command."""

from __future__ import annotations

import sys

from door.cli import main

sys.exit(main())
