"""``python -m training synth --out DIR --images N --seed S [--workers K] [--imgsz 640] [--classes a,b]``."""

from __future__ import annotations

import argparse
import logging
import os
import shlex
import sys
from pathlib import Path

from ..taxonomy import CLASS_NAMES

log = logging.getLogger("training.synth")


class SynthError(ValueError):
    """Bad arguments or an unusable output folder."""


def parse(argv: list[str]) -> argparse.Namespace:
    """Parse and validate arguments; raises ``SynthError`` with an actionable message."""
    ap = argparse.ArgumentParser(prog="python -m training synth", description="Render the synthetic VPD dataset.")
    ap.add_argument("--out", required=True, type=Path, help="output folder (YOLO layout + data.yaml + README.md)")
    ap.add_argument("--images", required=True, type=int, help="number of synthetic crops to render (> 0)")
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--imgsz", type=int, default=640, help="tile size (native-scale crops)")
    ap.add_argument("--classes", default="", help="comma-separated class names to keep (default: all)")
    ap.add_argument("--generators", default="",
                    help="comma-separated generator names to render (default: all), e.g. photo_documents,photo_street")
    ap.add_argument("--no-real", action="store_true", help="do not add the real photo pack")
    ap.add_argument("--real-repeat", type=int, default=1,
                    help="put each real train photo in the train split this many times (default 1)")
    ap.add_argument("--real-tiles", action="store_true",
                    help="also put the real train photos' tiles, enlarged and cut as the app's detector reads them, in train")
    ap.add_argument("--card-dir", type=Path, default=None,
                    help="also copy README.md + contact_sheet.png here and draw contact_sheet_photos.png (whole photo scenes)")
    a = ap.parse_args(argv)
    if a.images < 0 or (a.images == 0 and not a.real_tiles):
        raise SynthError(f"--images must be > 0 (0 only with --real-tiles), got {a.images}")
    if a.workers <= 0:
        raise SynthError(f"--workers must be > 0, got {a.workers}")
    if a.real_repeat <= 0:
        raise SynthError(f"--real-repeat must be > 0, got {a.real_repeat}")
    if a.imgsz < 64:
        raise SynthError(f"--imgsz must be >= 64, got {a.imgsz}")
    names = [c.strip() for c in a.classes.split(",") if c.strip()]
    unknown = [c for c in names if c not in CLASS_NAMES]
    if unknown:
        raise SynthError(f"unknown class name(s) in --classes: {', '.join(unknown)}; known: {', '.join(CLASS_NAMES)}")
    a.classes = frozenset(names) or None
    from .generators import GENERATORS

    gens = [g.strip() for g in a.generators.split(",") if g.strip()]
    unknown_gens = [g for g in gens if g not in GENERATORS]
    if unknown_gens:
        raise SynthError(f"unknown generator(s) in --generators: {', '.join(unknown_gens)}; known: {', '.join(GENERATORS)}")
    a.generators = frozenset(gens) or None
    try:
        a.out.mkdir(parents=True, exist_ok=True)
        probe = a.out / ".write_test"
        probe.write_text("ok")
        probe.unlink()
    except OSError as e:
        raise SynthError(f"cannot write to output folder {a.out}: {e.strerror or e}") from None
    return a


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns 0 on success, 2 on bad arguments."""
    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        a = parse(argv)
    except SynthError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except SystemExit as e:  # argparse already printed its message
        return int(e.code or 2)
    from .card import contact_sheet, photo_contact_sheet, write_card
    from .dataset import SynthConfig, active_generators, build

    if not active_generators(a.classes, a.generators):
        print("error: no generator renders any of the requested classes", file=sys.stderr)
        return 2
    cfg = SynthConfig(a.out, a.images, a.seed, a.workers, a.imgsz, a.classes, not a.no_real, a.generators, a.real_repeat, a.real_tiles)
    stats, rate = build(cfg)
    command = "python -m training synth " + " ".join(shlex.quote(x) for x in argv)
    write_card(a.out, stats, rate, command, a.workers)
    contact_sheet(a.out, a.out / "contact_sheet.png")
    if a.card_dir:
        a.card_dir.mkdir(parents=True, exist_ok=True)
        for f in ("README.md", "contact_sheet.png"):
            (a.card_dir / f).write_bytes((a.out / f).read_bytes())
        photo_contact_sheet(a.card_dir / "contact_sheet_photos.png", a.seed)
    log.info("wrote %s: %d crops at %.2f images/s", a.out, a.images, rate)
    return 0
