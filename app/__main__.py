"""``python -m app`` runs the ``vpd-redact`` command line."""

import sys

from app.cli import main

sys.exit(main())
