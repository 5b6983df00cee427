"""Dataset card (README.md) and contact sheet for a rendered synthetic dataset."""

from __future__ import annotations

from pathlib import Path

import cv2
import numpy as np

from ..taxonomy import CLASS_NAMES, DOMAINS, TEXT_CLASSES, class_id
from .dataset import Stats

CREDITS = """\
Real photos (train split mixed in and used as backgrounds; ~20 % per source held out as `real_test`), from
`/work/shared/data/real` (not copied into the repository):

* Contains images and annotations from the Open Images Dataset V4+ (Krasin et al., https://storage.googleapis.com/openimages/web/index.html). Annotations © Google LLC, CC BY 4.0; images by their Flickr authors, CC BY 2.0. Subset curated by Roboflow ("License Plates", samrat-sahoo/license-plates-f8vsn).
* QR-code images and boxes from "xcerno30 QR codes" by Matěj Černohous, Roboflow Universe (https://universe.roboflow.com/matej-cernohous/xcerno30-qr-codes), CC BY 4.0.
* Receipt scans from softmatic/vision-data (RoboScan, https://github.com/softmatic/vision-data), CC BY 4.0.
* Signature images and boxes from "signatures" (RF100, Roboflow Universe, https://universe.roboflow.com/roboflow-100/signatures-xc8up), originally by Pierrick Dossin, CC BY 4.0.
* Shop-sign photos and boxes from "building-facades-advertising-dataset" by the ITMO Urban Research Lab (https://github.com/Urban-Research-Lab/building-facades-advertising-dataset), CC0 1.0.
* Building-number photos and boxes from "MP Assignment" (Roboflow Universe, https://universe.roboflow.com/mp-assignment-8jzdp/mp-assignment-cdm0f), CC BY 4.0.
"""


def write_card(out: Path, stats: Stats, rate: float, command: str, workers: int) -> str:
    """Write ``out/README.md``; returns its text."""
    total = sum(stats.images[s] for s in ("train", "val", "test"))
    lines = [f"# Synthetic dataset `{out.name}`", "", f"Command: `{command}`", "",
             f"Rendered {total} synthetic crops at **{rate:.2f} images/s** with {workers} worker process(es) on this machine "
             "(2 shared CPU cores, excluding the real-pack copy).", "",
             "Synthetic crops per split: " + ", ".join(f"{s}: {stats.images[s]}" for s in ("train", "val", "test")), "",
             "Real photos added: " + ", ".join(f"{s}: {stats.real_images[s]}" for s in ("train", "real_test"))
             + (f"; real train tiles as the app reads them: {stats.real_tiles}" if stats.real_tiles else ""), "",
             f"Partially labelled images (`partial_labels.json`): {len(stats.unknown)}: real photos and composites on real "
             "backgrounds, whose sources labelled only some categories; the training loss does not teach the other "
             "categories as background there (`training/nn/partial.py`).", "",
             "**No faces or people are rendered** (we hold no licensed face or person photos; avatars are initials or abstract "
             "shapes). `face` and `person` are listed in `data.yaml` only so class indices match the taxonomy; faces are "
             "handled by a separate pretrained model.", "",
             "## Boxes per class (synthetic crops, all splits; + real train boxes)", "",
             "| id | class | domain | synthetic | real (train) |", "|---:|---|---|---:|---:|"]
    dom = {n: d for d, ns in DOMAINS.items() for n in ns}
    for n in CLASS_NAMES:
        lines.append(f"| {class_id(n)} | {n} | {dom[n]} | {stats.boxes[n]} | {stats.real_boxes[n]} |")
    n300 = sum(1 for n in CLASS_NAMES if stats.boxes[n] + stats.real_boxes[n] >= 300)
    lines += ["", f"Classes with ≥ 300 boxes: **{n300}** of {len(CLASS_NAMES)}.", "", "## Boxes per domain", "",
              "| domain | boxes |", "|---|---:|"]
    for d, ns in DOMAINS.items():
        lines.append(f"| {d} | {sum(stats.boxes[n] + stats.real_boxes[n] for n in ns)} |")
    sizes = np.array(stats.sizes or [0.0])
    edges = [0, 8, 16, 32, 64, 128, 256, 512, 10_000]
    hist, _ = np.histogram(sizes, edges)
    lines += ["", "## Box size (longer side, px in the crop)", "", "| range | boxes |", "|---|---:|"]
    lines += [f"| {a}–{b if b < 10_000 else '∞'} | {h} |" for a, b, h in zip(edges[:-1], edges[1:], hist)]
    lines += ["", "## Scenes per generator", "", "| generator | crops |", "|---|---:|"]
    lines += [f"| {g} | {k} |" for g, k in sorted(stats.generators.items())]
    lines += ["", "## How it is made", "",
              "Screens are painted offscreen with PySide6 (QPainter, QTextDocument HTML, real QWidgets grabbed); label boxes "
              "come from Qt geometry (QFontMetrics advances, QTextLayout cursor positions, widget geometry) shrunk to the "
              "drawn ink. Fake data from Faker in 11 locales; look-alike negatives (prices, order ids, versions, hashes, "
              "plain dates) stay unlabelled. Crops are 640×640 tiles at native scale plus downscaled full views.", "",
              "Photo scenes put objects where they occur (`training/synth/scenes_*.py`): new synthetic plates pasted over "
              "the labelled plates of real car photos (pose from the real plate's outline, colours transferred from it); "
              "real cars cut round their plates and shrunk to street scale (plates 14-56 px) on the pavement of real façades; "
              "street-name signs and house numbers on real façade walls (aligned to the wall's horizontal edges, with a "
              "shadow) and on poles; cards, IDs, passports, receipts, tickets, letters and labels at their real relative "
              "sizes on a table plane seen by one tilted camera, held in a hand in front of an out-of-focus real photo, "
              "or stuck on a cardboard box; phones in a hand and monitors filmed at an angle (emissive screen, optional "
              "moiré, glare, reflection). Objects on a real photo get that photo's measured blur, noise, white and black "
              "level, colour cast, local brightness and JPEG quality (`lookmatch.py`). Label boxes are the clipped "
              "bounding boxes of the warped label polygons; labels less than 40 % visible (outside the frame or under a "
              "later layer, e.g. a thumb) are dropped. See `contact_sheet_photos.png` (whole scenes).", "",
              "## Real-data credits", "", CREDITS, "![contact sheet](contact_sheet.png)", ""]
    text = "\n".join(lines)
    (out / "README.md").write_text(text)
    return text


def contact_sheet(out: Path, path: Path, n: int = 16, cell: int = 400, max_bytes: int = 1_900_000) -> None:
    """A 4x4 grid of train crops with boxes and class names drawn; PNG shrunk until < ``max_bytes``."""
    while True:
        ok, buf = cv2.imencode(".png", _sheet(out, n, cell), [cv2.IMWRITE_PNG_COMPRESSION, 9])
        if len(buf) <= max_bytes or cell <= 200:
            path.write_bytes(buf.tobytes())
            return
        cell -= 40


def _sheet(out: Path, n: int, cell: int) -> np.ndarray:
    imgs = sorted((out / "images" / "train").glob("s*.jpg"))
    step = max(1, len(imgs) // n)
    tiles = []
    for p in imgs[::step][:n]:
        img = cv2.imread(str(p))
        h, w = img.shape[:2]
        for ln in (out / "labels" / "train" / f"{p.stem}.txt").read_text().splitlines():
            k, cx, cy, bw, bh = ln.split()
            cx, cy, bw, bh = float(cx) * w, float(cy) * h, float(bw) * w, float(bh) * h
            col = tuple(int(v) for v in np.random.default_rng(int(k)).integers(60, 255, 3))
            cv2.rectangle(img, (int(cx - bw / 2), int(cy - bh / 2)), (int(cx + bw / 2), int(cy + bh / 2)), col, 1)
            cv2.putText(img, CLASS_NAMES[int(k)], (int(cx - bw / 2), max(9, int(cy - bh / 2) - 2)), 0, 0.35, col, 1)
        s = cell / max(h, w)
        img = cv2.resize(img, (int(w * s), int(h * s)), interpolation=cv2.INTER_AREA)
        tiles.append(cv2.copyMakeBorder(img, 0, cell - img.shape[0], 0, cell - img.shape[1], cv2.BORDER_CONSTANT, value=(40, 40, 40)))
    while len(tiles) < n:
        tiles.append(np.full((cell, cell, 3), 40, np.uint8))
    rows = [np.hstack(tiles[r * 4 : r * 4 + 4]) for r in range(n // 4)]
    return np.vstack(rows)


def photo_contact_sheet(path: Path, seed: int = 0, n: int = 16, cell: int = 480, max_bytes: int = 1_900_000) -> None:
    """A 4x4 grid of whole photo scenes, each kind in turn (plates, wall signs, distant cars, table,
    hand, parcel, screen), with their boxes drawn; scene ``k`` uses ``np.random.default_rng([seed, 7, k])``.
    PNG shrunk until < ``max_bytes``."""
    from . import scenes_objects as so, scenes_screen as sc, scenes_street as ss

    kinds = (ss.street_plates, ss.wall_signs, ss.distant_cars, so.table_documents, so.held_document, so.parcel, sc.screen_filmed)
    scenes = [kinds[k % len(kinds)](np.random.default_rng([seed, 7, k])) for k in range(n)]
    while True:
        ok, buf = cv2.imencode(".png", _photo_sheet(scenes, cell), [cv2.IMWRITE_PNG_COMPRESSION, 9])
        if len(buf) <= max_bytes or cell <= 200:
            path.write_bytes(buf.tobytes())
            return
        cell -= 40


def _photo_sheet(scenes, cell: int) -> np.ndarray:
    tiles = []
    for img, labels in scenes:
        img = img.copy()
        h, w = img.shape[:2]
        s = cell / max(h, w)
        thick = max(1, round(1.5 / s))
        for cls, (x0, y0, x1, y1) in labels:
            col = tuple(int(v) for v in np.random.default_rng(class_id(cls)).integers(60, 255, 3))
            cv2.rectangle(img, (int(x0), int(y0)), (int(x1), int(y1)), col, thick)
            if cls not in TEXT_CLASSES:  # name the objects; field boxes stay unnamed to keep it legible
                cv2.putText(img, cls, (int(x0), max(12, int(y0) - 3)), 0, 0.33 / s, col, thick)
        img = cv2.resize(img, (max(1, int(w * s)), max(1, int(h * s))), interpolation=cv2.INTER_AREA)
        tiles.append(cv2.copyMakeBorder(img, 0, cell - img.shape[0], 0, cell - img.shape[1], cv2.BORDER_CONSTANT, value=(40, 40, 40)))
    while len(tiles) % 4:
        tiles.append(np.full((cell, cell, 3), 40, np.uint8))
    return np.vstack([np.hstack(tiles[r : r + 4]) for r in range(0, len(tiles), 4)])
