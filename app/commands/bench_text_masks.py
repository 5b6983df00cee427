"""``python -m app.commands.bench_text_masks``: how tight the masks of text spans are, and whether
any glyph pixel leaks, on rendered screens whose every glyph pixel is known.

Screens of label/value lines are rendered with Pillow in several fonts (sans, serif, oblique, bold),
sizes, backgrounds (flat light, flat dark, tinted rows, gradients) and with descenders, accents and
underlines. The real OCR (RapidOCR) reads them; every word and every pair of adjacent words it read
exactly becomes a span, boxed by the app's span-box function and grown by the default redaction
padding. Printed per span kind:

* ``outside``: share of the masked pixels outside the span's glyph box (the tight box around its ink);
* ``height`` / ``width``: mask height / width over the glyph box's;
* ``leaked``: glyph pixels of the span (any coverage > 0) left unmasked: must be 0.

It measures the box geometry only: the text classifier is not involved (any span could be PII).
"""

from __future__ import annotations

import argparse
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from app.core.geometry import pad_xyxy
from app.core.redact import RedactionSettings, integer_boxes
from app.text.lines import TextLine, fit_rows_to_ink, span_xyxy
from app.text.screen import span_box_function

FONT_DIRS = (Path("/usr/share/fonts/truetype"), Path("/usr/share/fonts"))
FONT_NAMES = ("DejaVuSans.ttf", "DejaVuSerif.ttf", "DejaVuSans-Oblique.ttf", "LiberationSans-Regular.ttf",
              "LiberationSerif-Italic.ttf", "DejaVuSans-Bold.ttf", "NotoSans-Regular.ttf")  # fmt: skip
WORDS = ("Jürgen Åström", "Zoë Pérez-López", "gyq_jqp@example.com", "Björn Quigley", "+44 7911 123456",
         "Ólafur Jóhannsson", "typography", "@jay.pig_99", "Çağla Yılmaz", "Françoise Giroud", "12 Baker Street",
         "Agnieszka Wójcik", "pay by July", "jQuery gypsy", "Hej då, Märta!")  # fmt: skip
LABELS = ("Name:", "From", "Contact", "Sent by", "Email", "To:", "Phone", "User", "Address", "Note")


@dataclass(frozen=True)
class RenderedWord:
    """One rendered word: its text, line number, glyph box ``xyxy`` (int, frame pixels) and glyph
    coverage ``ink`` (h, w) bool inside that box (any coverage > 0)."""

    text: str
    line: int
    xyxy: tuple[int, int, int, int]
    ink: np.ndarray


def _font_paths() -> list[Path]:
    found = {}
    try:  # matplotlib, where installed, carries DejaVu
        import matplotlib

        folders = FONT_DIRS + (Path(matplotlib.__file__).parent / "mpl-data" / "fonts" / "ttf",)
    except ImportError:
        folders = FONT_DIRS
    for folder in folders:
        if folder.is_dir():
            for path in folder.rglob("*.ttf"):
                found.setdefault(path.name, path)
    return [found[n] for n in FONT_NAMES if n in found]


def render_screen(rng: np.random.Generator, fonts: list[Path], size=(1280, 800)) -> tuple[np.ndarray, list[RenderedWord]]:
    """A (H, W, 3) uint8 BGR screen of label/value lines and the glyph coverage of every word."""
    from PIL import Image, ImageDraw, ImageFont

    w, h = size
    dark = rng.random() < 0.3
    bg = np.array([30, 32, 36] if dark else [250, 250, 252], np.float32)
    canvas = np.tile(bg, (h, w, 1))
    words: list[RenderedWord] = []
    y, line_no = 20, 0
    while True:
        px = int(rng.choice([13, 15, 18, 22, 28, 36, 48]))
        font = ImageFont.truetype(str(fonts[rng.integers(len(fonts))]), px)
        row_h = int(px * rng.uniform(1.6, 2.6))
        if y + row_h > h - 10:
            break
        row_bg = bg.copy()
        look = rng.integers(4)
        if look == 1:  # tinted (selected) row
            row_bg = bg + (rng.uniform(-40, 40, 3) if not dark else rng.uniform(10, 50, 3))
            canvas[y : y + row_h] = row_bg
        elif look == 2:  # vertical gradient (button, header)
            ramp = np.linspace(0, rng.uniform(-40, 40), row_h)[:, None, None]
            canvas[y : y + row_h] = (bg + ramp).clip(0, 255)
        ink_colour = np.array([230, 230, 230] if dark else [int(rng.integers(0, 90))] * 3, np.float32)
        if rng.random() < 0.3:
            ink_colour = np.array([200, 90, 20] if not dark else [250, 170, 90], np.float32)  # link blue (BGR)
        underline = rng.random() < 0.25
        x = int(rng.integers(16, 120))
        text_words = (str(rng.choice(LABELS)) + " " + str(rng.choice(WORDS)) + " " + str(rng.choice(WORDS))).split(" ")
        baseline_top = y + (row_h - px) // 2
        for word in text_words:
            adv = font.getlength(word)
            if x + adv > w - 16:
                break
            layer = Image.new("L", (w, h), 0)
            draw = ImageDraw.Draw(layer)
            draw.text((x, baseline_top), word, font=font, fill=255)
            if underline and word not in LABELS:
                uy = baseline_top + int(font.getmetrics()[0] + max(1, px // 12))
                draw.line([(x, uy), (x + adv, uy)], fill=255, width=max(1, px // 14))
            alpha = np.asarray(layer, np.float32)[..., None] / 255
            canvas = canvas * (1 - alpha) + ink_colour * alpha
            ys, xs = np.nonzero(alpha[..., 0])
            box = (int(xs.min()), int(ys.min()), int(xs.max()) + 1, int(ys.max()) + 1)
            words.append(RenderedWord(word, line_no, box, alpha[box[1] : box[3], box[0] : box[2], 0] > 0))
            x += int(adv + font.getlength(" "))
        y += row_h + int(rng.integers(0, px))
        line_no += 1
    frame = canvas.round().clip(0, 255).astype(np.uint8)
    if rng.random() < 0.3:  # screenshots are often shared as JPEG
        import cv2

        frame = cv2.imdecode(cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 80])[1], cv2.IMREAD_COLOR)
    return frame, words


def union(parts: list[RenderedWord]) -> tuple[np.ndarray, np.ndarray]:
    """Glyph box (4,) int and coverage (h, w) bool of several words together."""
    boxes = np.array([p.xyxy for p in parts])
    box = np.concatenate([boxes[:, :2].min(axis=0), boxes[:, 2:].max(axis=0)])
    ink = np.zeros((box[3] - box[1], box[2] - box[0]), bool)
    for p in parts:
        x0, y0, x1, y1 = p.xyxy
        ink[y0 - box[1] : y1 - box[1], x0 - box[0] : x1 - box[0]] |= p.ink
    return box, ink


def _find(line: TextLine, text: str) -> int:
    """Offset of ``text`` in the line as a whole-word match, else -1."""
    at = line.text.find(text)
    ok = at >= 0 and (at == 0 or line.text[at - 1] == " ") and (at + len(text) == len(line.text) or line.text[at + len(text)] == " ")
    return at if ok and line.text.find(text, at + 1) < 0 else -1


@dataclass
class Tally:
    """Sums over spans of one kind."""

    spans: int = 0
    mask_px: int = 0
    outside_px: int = 0
    leaked_px: int = 0
    leaked_spans: int = 0
    height_ratio: float = 0.0
    width_ratio: float = 0.0

    def add(self, mask_box: np.ndarray, glyph: np.ndarray, ink: np.ndarray) -> None:
        """One span: its mask box (4,) int, glyph box (4,) int and glyph coverage inside it."""
        x0, y0, x1, y1 = (int(v) for v in mask_box)
        gx0, gy0, gx1, gy1 = (int(v) for v in glyph)
        covered = np.zeros_like(ink)
        covered[max(0, y0 - gy0) : max(0, y1 - gy0), max(0, x0 - gx0) : max(0, x1 - gx0)] = True
        area = max(0, x1 - x0) * max(0, y1 - y0)
        inside = max(0, min(x1, gx1) - max(x0, gx0)) * max(0, min(y1, gy1) - max(y0, gy0))
        leaked = int((ink & ~covered).sum())
        self.spans += 1
        self.mask_px += area
        self.outside_px += area - inside
        self.leaked_px += leaked
        self.leaked_spans += leaked > 0
        self.height_ratio += (y1 - y0) / max(1, gy1 - gy0)
        self.width_ratio += (x1 - x0) / max(1, gx1 - gx0)

    def row(self, name: str) -> str:
        n = max(1, self.spans)
        return (f"{name:8s} spans {self.spans:4d}  outside {100 * self.outside_px / max(1, self.mask_px):5.1f} %  "
                f"height x{self.height_ratio / n:4.2f}  width x{self.width_ratio / n:4.2f}  "
                f"leaked px {self.leaked_px} ({self.leaked_spans} spans)")  # fmt: skip


def measure(frames, span_box, settings: RedactionSettings = RedactionSettings()) -> dict[str, Tally]:
    """Tallies for single words and adjacent word pairs over ``frames`` = [(frame, words, lines)];
    ``span_box(frame)`` returns the app's ``(line, start, end) -> xyxy`` function for a frame."""
    tallies = {"word": Tally(), "pair": Tally()}
    for frame, words, lines in frames:
        box_of = span_box(frame)
        by_line: dict[int, list[RenderedWord]] = {}
        for word in words:
            by_line.setdefault(word.line, []).append(word)
        for group in by_line.values():
            spans = [("word", [w]) for w in group] + [("pair", group[i : i + 2]) for i in range(len(group) - 1)]
            for kind, parts in spans:
                text = " ".join(p.text for p in parts)
                glyph, ink = union(parts)
                hits = [(l, _find(l, text)) for l in lines if _overlaps(l, glyph)]
                hits = [(l, at) for l, at in hits if at >= 0]
                if len(hits) != 1:
                    continue
                line, at = hits[0]
                raw = np.asarray(box_of(line, at, at + len(text)), np.float32)[None]
                padded = pad_xyxy(raw, settings.padding, settings.min_padding_px, frame.shape[:2])
                tallies[kind].add(integer_boxes(padded, frame.shape[:2])[0], glyph, ink)
    return tallies


def _overlaps(line: TextLine, glyph_xyxy: np.ndarray) -> bool:
    q = line.quad
    return q[:, 1].min() < glyph_xyxy[3] and q[:, 1].max() > glyph_xyxy[1] and q[:, 0].min() < glyph_xyxy[2] and q[:, 0].max() > glyph_xyxy[0]


def _rows_only(frame: np.ndarray):
    return lambda line, start, end: fit_rows_to_ink(frame, span_xyxy(line, start, end))


SPAN_BOXES = {"app": span_box_function, "span": lambda frame: span_xyxy, "rows": _rows_only}


def main(argv: list[str] | None = None) -> int:
    """Render ``--screens`` screens, read them with RapidOCR and print the tallies."""
    from app.inference.ocr_rapid import OcrPiiDetector, OcrSettings

    p = argparse.ArgumentParser(prog="python -m app.commands.bench_text_masks", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    p.add_argument("--screens", type=int, default=12)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--box", choices=sorted(SPAN_BOXES), action="append", default=None,
                   help="span box to measure (repeatable; default: all): 'app' is what the app uses, 'span' the "
                        "character-apportioned span box alone, 'rows' that box cut to its ink rows only")  # fmt: skip
    args = p.parse_args(argv)
    fonts = _font_paths()
    if not fonts:
        print("no TrueType fonts found (Debian: fonts-dejavu-core fonts-liberation2)", file=sys.stderr)
        return 1
    ocr = OcrPiiDetector.from_package(settings=OcrSettings(use_classifier=False))
    rng = np.random.default_rng(args.seed)
    frames, t0 = [], time.perf_counter()
    for _ in range(args.screens):
        frame, words = render_screen(rng, fonts)
        frames.append((frame, words, ocr.read_lines(frame)))
    print(f"{args.screens} screens, {len(fonts)} fonts, OCR {time.perf_counter() - t0:.1f} s")
    leaked = 0
    for name in args.box or sorted(SPAN_BOXES):
        for kind, tally in measure(frames, SPAN_BOXES[name]).items():
            print(f"{name:5s} {tally.row(kind)}")
            leaked += tally.leaked_px
    return 1 if leaked else 0


if __name__ == "__main__":
    sys.exit(main())
