"""``vpd-redact gui`` (also the default): open the desktop app."""

from __future__ import annotations

import argparse


def add_parser(sub) -> None:
    """Register the ``gui`` sub-command."""
    p = sub.add_parser("gui", help="open the desktop app (default)")
    p.add_argument("files", nargs="*", help="images to open")
    p.add_argument("--smoke", nargs=2, metavar=("IMAGE", "OUT"),
                   help="scripted check (used by the bundle test): open IMAGE, redact with every detector, "
                        "save to OUT, quit; exit 0 only if all detectors loaded and OUT was written")  # fmt: skip
    p.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    """Start the Qt application; imported lazily so the CLI never loads Qt otherwise."""
    from app.ui.app import run_gui

    return run_gui(args.files, smoke=tuple(args.smoke) if args.smoke else None)
