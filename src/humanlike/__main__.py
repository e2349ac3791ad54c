"""``python -m humanlike``: the same command line as the ``humanlike`` script (docs/getting-started.md).

Useful where the script's folder is not on ``PATH`` (a notebook's kernel, a virtual environment not activated).
"""

from __future__ import annotations

import sys

from .app.cli import main

if __name__ == "__main__":
    sys.exit(main())
