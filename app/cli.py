"""``vpd-redact``: the command line. With no sub-command it opens the GUI."""

from __future__ import annotations

import argparse
import importlib
import logging
import sys

from app import __version__
from app.core.allocator import keep_freed_memory

# sub-command -> module with ``add_parser(subparsers)`` and ``run(args) -> int``
COMMAND_MODULES = {
    "gui": "app.commands.gui",
    "image": "app.commands.image",
    "bench": "app.commands.bench",
    "eval": "app.commands.eval",
    "video": "app.commands.video",
    "stream": "app.commands.stream",
    "bench-video": "app.commands.bench_video",
}


def build_parser() -> argparse.ArgumentParser:
    """The full argument parser with every sub-command registered."""
    parser = argparse.ArgumentParser(
        prog="vpd-redact", description="Find and hide personal information in images and video, offline."
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument("-v", "--verbose", action="store_true", help="log details, including the ONNX provider in use")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name, module in COMMAND_MODULES.items():
        importlib.import_module(module).add_parser(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv`` and run the sub-command; returns the process exit code."""
    keep_freed_memory()  # every command reads frames: reuse their memory rather than fault it in again
    parser = build_parser()
    args = parser.parse_args(argv)
    logging.basicConfig(
        level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s"
    )
    if args.command is None:
        args = parser.parse_args(["gui", *(argv or [])])
    try:
        return int(args.run(args))
    except KeyboardInterrupt:
        print("cancelled", file=sys.stderr)
        return 130
