"""The web page's files: an xterm.js terminal joined to ``/ws`` (served by door.net.web).

``static/`` holds ``index.html``, ``door.js``, ``door.css`` and ``vendor/`` (xterm.js and
its fit addon, copied from the npm registry by ``tools/vendor_xterm.sh``; see
``vendor/VENDOR.md``). They ship inside the package, so an installed door serves them
with nothing fetched at run time.
"""

from __future__ import annotations

from importlib import resources
from importlib.resources.abc import Traversable


def static_files() -> Traversable:
    """The ``static/`` directory, wherever the package is installed."""
    return resources.files(__name__) / "static"
