"""Sub-commands of ``vpd-redact``; each module has ``add_parser`` and ``run``."""
