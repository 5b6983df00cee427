"""Entry point of the desktop bundle: the same ``vpd-redact`` command line; no sub-command opens
the app. Offline by construction: every model is inside the bundle."""

import sys

from app.cli import main

if __name__ == "__main__":
    sys.exit(main())
