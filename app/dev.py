"""``python -m app.dev``: developer tools that must never be part of the user's ``vpd-redact``.

``video`` and ``stream`` here are the user commands plus ``--fake-detector``: the colour-key test
oracle of ``app.media.video_synthetic`` replaces every model, so only synthetic clips (whose PII is
drawn in key colours) come out redacted. Use it for tests, demos of the tracking and export
machinery and benchmarks, never on real footage. The user CLI has no way to select the oracle.
"""

from __future__ import annotations

import argparse
import logging
import sys

from app.commands import stream, video
from app.commands.video import DetectorList
from app.media.video_synthetic import ColourKeyDetector

ORACLE_PROVIDER = "oracle (fake detector, developer tool)"


def oracle_detectors(args: argparse.Namespace) -> DetectorList:
    """The colour-key oracle instead of the configured models; no warnings."""
    return (ColourKeyDetector(),), ORACLE_PROVIDER, ()


def build_parser() -> argparse.ArgumentParser:
    """``video`` and ``stream`` with the user's options plus ``--fake-detector``."""
    parser = argparse.ArgumentParser(prog="python -m app.dev", description=__doc__)
    parser.add_argument("-v", "--verbose", action="store_true", help="log details")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)
    for module in (video, stream):
        p = module.add_parser(sub)
        p.add_argument("--fake-detector", action="store_true",
                       help="find the key-coloured PII of synthetic clips instead of running a model")  # fmt: skip
    return parser


def main(argv: list[str] | None = None) -> int:
    """Parse ``argv`` and run the developer command; returns the exit code."""
    args = build_parser().parse_args(argv)
    logging.basicConfig(level=logging.INFO if args.verbose else logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
    if args.fake_detector:
        print("note: developer oracle detector in use; output is NOT redacted by a model", file=sys.stderr)
        return int(args.run(args, build=oracle_detectors))
    return int(args.run(args))


if __name__ == "__main__":
    sys.exit(main())
