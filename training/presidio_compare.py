"""``python -m training presidio-compare``: our OCR text-PII recogniser (alone and fused with the
detector and faces) against Microsoft Presidio's image analyser, on the same rendered screenshots.

Presidio runs in its own venv through ``training/presidio_runner.py`` (Tesseract words, pattern
recognisers only: no spaCy NER model can be downloaded here). All methods are scored by the same
code (``app.core.metrics``), on one padded redaction mask per method and image:

* recall-at-coverage: share of GT boxes ≥ ``coverage`` (90 %) covered by the mask, over
  ``PATTERN_CLASSES`` (what Presidio's recognisers can find in principle) and over all on-screen
  text-PII classes (``TEXT_PII``), plus per category;
* FP area: share of masked pixels outside every GT box of any class (as ``vpd-redact eval``);
* box precision over the predicted text boxes (unpadded; Presidio's unmapped findings such as
  URL or UUID count as text boxes), two ways: *overlap* = the box touches some text-PII GT box
  (intersection > 0); *centre* = the box's centre lies inside some text-PII GT box (a line-wide
  box whose middle is on a label, or a box one row off, fails it).
"""

from __future__ import annotations

import argparse
import json
import logging
import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from app.commands.eval import Sample, gt_to_pixels, load_yolo_dataset
from app.core.detections import Detections, Source
from app.core.metrics import CoverageTally, box_coverage, redaction_mask
from app.core.pipeline import Pipeline, detect_all_timed
from app.core.policy import TEXT_PII, Policy
from app.core.redact import RedactionSettings
from app.inference.factory import DetectorConfig, build_detectors
from app.media.image_io import read_image

log = logging.getLogger("training.presidio_compare")

ROOT = Path(__file__).resolve().parents[1]
RUNNER = Path(__file__).with_name("presidio_runner.py")
DEFAULT_PYTHON = ROOT / ".cache" / "presidio-venv" / "bin" / "python"
# Presidio entity type -> our class. NER types (PERSON, LOCATION) never fire with a blank spaCy model.
PRESIDIO_TO_CLASS = {
    "EMAIL_ADDRESS": "email", "EMAIL": "email", "PHONE_NUMBER": "phone_number", "CREDIT_CARD": "card_number",
    "IBAN_CODE": "bank_account", "US_BANK_NUMBER": "bank_account", "IP_ADDRESS": "ip_address",
    "DATE_TIME": "date_of_birth", "US_SSN": "id_number", "US_ITIN": "id_number", "US_PASSPORT": "id_number",
    "US_DRIVER_LICENSE": "id_number", "UK_NHS": "id_number", "MEDICAL_LICENSE": "id_number", "ID": "id_number",
    "CRYPTO": "secret_key", "PERSON": "person_name", "LOCATION": "postal_address",
}  # fmt: skip
OTHER = "presidio_other"  # URL, UUID, MAC_ADDRESS, AGE, …: still painted by Presidio's redactor
PRESIDIO_CLASSES = TEXT_PII + (OTHER,)
# GT classes Presidio's pattern recognisers can find in principle.
PATTERN_CLASSES = ("email", "phone_number", "card_number", "bank_account", "ip_address", "date_of_birth", "id_number")
# Synth generators whose images are photos (documents, streets, photographed screens), not screenshots.
PHOTO_GENERATORS = frozenset({"photo_documents", "photo_street", "screen_photo"})


def presidio_class(entity_type: str) -> str:
    """Our class name for a Presidio entity type (``OTHER`` when we have none)."""
    return PRESIDIO_TO_CLASS.get(entity_type, OTHER)


def presidio_detections(boxes: list[dict]) -> Detections:
    """Runner records (``entity_type``, ``score``, ``xyxy`` px) → ``Detections`` over ``PRESIDIO_CLASSES``."""
    index = {n: i for i, n in enumerate(PRESIDIO_CLASSES)}
    if not boxes:
        return Detections.empty(PRESIDIO_CLASSES)
    return Detections(np.array([b["xyxy"] for b in boxes], np.float32), np.array([b["score"] for b in boxes], np.float32),
                      np.array([index[presidio_class(b["entity_type"])] for b in boxes], np.int32), PRESIDIO_CLASSES,
                      sources=np.full(len(boxes), Source.OCR, np.int8))  # fmt: skip


def words_per_finding(boxes: list[dict]) -> list[int]:
    """Boxes Presidio drew per finding (same entity and text span): 1 word box each, so > 1 means
    a finding spread over several OCR words — boxes are word-level, never line- or span-level."""
    counts: dict[tuple, int] = {}
    for b in boxes:
        key = (b["entity_type"], b["start"], b["end"])
        counts[key] = counts.get(key, 0) + 1
    return list(counts.values())


def synth_generator(seed: int, index: int) -> str | None:
    """Name of the synth generator that drew sample ``index`` of a ``--seed`` run; None when the
    synth package cannot be imported."""
    try:
        from training.synth.dataset import generator_of
    except ImportError:
        return None
    return generator_of(seed, index)


def is_screenshot(sample: Sample, seed: int) -> bool:
    """True for a synthetic screen render with ≥ 1 text-PII box. The dataset has no manifest: the
    generator is recomputed from the file name ``s<index>`` and the seed; labels decide otherwise."""
    if not set(sample.categories) & set(TEXT_PII):
        return False
    m = re.fullmatch(r"s(\d+)", sample.path.stem)
    return m is None or synth_generator(seed, int(m.group(1))) not in PHOTO_GENERATORS


def select_screenshots(samples: list[Sample], n: int, seed: int = 0) -> list[Sample]:
    """Up to ``n`` screenshot samples spread evenly over the sorted candidates (every generator)."""
    pool = [s for s in sorted(samples, key=lambda s: s.path.name) if is_screenshot(s, seed)]
    if len(pool) <= n:
        return pool
    return [pool[i] for i in np.unique(np.linspace(0, len(pool) - 1, n).round().astype(int))]


def run_presidio(python: Path, paths: list[Path], out_json: Path) -> dict:
    """Run ``presidio_runner.py`` with the Presidio venv's ``python``; returns its JSON."""
    if not Path(python).is_file():
        raise SystemExit(f"error: no Presidio Python at {python}. Set it up with:\n  apt-get install -y tesseract-ocr\n"
                         f"  python -m venv .cache/presidio-venv && .cache/presidio-venv/bin/pip install "
                         "presidio-image-redactor presidio-analyzer\nor pass --presidio-python")  # fmt: skip
    out_json.parent.mkdir(parents=True, exist_ok=True)
    listing = out_json.with_suffix(".txt")
    listing.write_text("".join(f"{p.resolve()}\n" for p in paths))
    subprocess.run([str(python), str(RUNNER), str(listing), str(out_json)], check=True)
    return json.loads(out_json.read_text())


def _member(names, allowed) -> np.ndarray:
    allowed = set(allowed)
    return np.array([n in allowed for n in names], bool)


@dataclass
class MethodTally:
    """Running totals of one method at one padding (see the module docstring for definitions)."""

    coverage: float = 0.9
    recall: dict[str, CoverageTally] = field(default_factory=dict)  # GT class set -> tally
    categories: dict[str, CoverageTally] = field(default_factory=dict)
    fp: CoverageTally = field(default_factory=CoverageTally)
    text_boxes: int = 0
    touching_pii: int = 0
    centred_on_pii: int = 0
    seconds: list[float] = field(default_factory=list)

    def add(self, boxes: Detections, padded_xyxy: np.ndarray, gt_xyxy: np.ndarray, categories: tuple[str, ...],
            hw: tuple[int, int], seconds: float) -> None:  # fmt: skip
        """One image: ``boxes`` hidden (unpadded), ``padded_xyxy`` as painted, GT xyxy px + class names."""
        cats = np.array(categories, dtype=object)
        mask = redaction_mask(padded_xyxy, hw)
        is_text = _member(categories, TEXT_PII)
        cov = box_coverage(gt_xyxy[is_text], mask)
        for name, classes in (("pattern", PATTERN_CLASSES), ("text_pii", TEXT_PII)):
            self.recall.setdefault(name, CoverageTally(self.coverage)).add_boxes(cov[_member(cats[is_text], classes)])
        for cat in sorted(set(cats[is_text])):
            self.categories.setdefault(cat, CoverageTally(self.coverage)).add_boxes(cov[cats[is_text] == cat])
        self.fp.add(gt_xyxy, mask)
        text = boxes.take(_member(boxes.labels, PRESIDIO_CLASSES))
        gt_mask = redaction_mask(gt_xyxy[is_text], hw)
        centres = (text.xyxy[:, :2] + text.xyxy[:, 2:]) / 2
        self.text_boxes += len(text)
        self.touching_pii += int((box_coverage(text.xyxy, gt_mask) > 0).sum())
        self.centred_on_pii += int((box_coverage(np.hstack([centres - 0.5, centres + 0.5]), gt_mask) >= 0.5).sum())
        self.seconds.append(seconds)

    def summary(self) -> dict:
        """JSON-able figures: recall per GT set and category, FP area, box precision, seconds/image."""
        return {
            "recall": {k: t.as_dict() for k, t in self.recall.items()},
            "recall_per_category": {k: t.as_dict() for k, t in sorted(self.categories.items())},
            "fp_area": self.fp.fp_area,
            "text_boxes": self.text_boxes,
            "box_precision_overlap": self.touching_pii / self.text_boxes if self.text_boxes else None,
            "box_precision_centre": self.centred_on_pii / self.text_boxes if self.text_boxes else None,
            "seconds_mean": float(np.mean(self.seconds)) if self.seconds else None,
            "seconds_median": float(np.median(self.seconds)) if self.seconds else None,
        }


def method_boxes(pipeline: Pipeline, raw: Detections, presidio: Detections) -> dict[str, Detections]:
    """Boxes each method hides: Presidio as its redactor would (all findings) and at our score
    threshold; ours through the app's policy (default preset), OCR alone and fused."""
    return {
        "presidio (all findings)": presidio,
        f"presidio (score ≥ {pipeline.policy.conf:g})": presidio.take(presidio.scores >= pipeline.policy.conf),
        "ours: OCR only": pipeline.select(raw.take(raw.sources == Source.OCR)),
        "ours: fusion (detector+faces+OCR)": pipeline.select(raw),
    }


def compare(pipeline: Pipeline, samples: list[Sample], presidio_images: list[dict], paddings: tuple[float, ...],
            coverage: float = 0.9) -> dict[float, dict[str, MethodTally]]:  # fmt: skip
    """Score every method on every sample at each padding; ``presidio_images`` is the runner's
    ``images`` list in the order of ``samples``."""
    tallies = {p: {} for p in paddings}
    for i, (sample, pres) in enumerate(zip(samples, presidio_images, strict=True)):
        pixels = read_image(sample.path).pixels
        hw = pixels.shape[:2]
        gt = gt_to_pixels(sample, hw, normalised=True)
        raw, seconds = detect_all_timed(pipeline.detectors, pixels)
        times = {"ours: OCR only": seconds.get("ocr", 0.0), "ours: fusion (detector+faces+OCR)": sum(seconds.values())}
        for name, boxes in method_boxes(pipeline, raw, presidio_detections(pres["boxes"])).items():
            for pad in paddings:
                s = RedactionSettings(padding=pad, min_padding_px=pipeline.redaction.min_padding_px if pad else 0.0)
                padded = pipeline.with_settings(redaction=s).padded(boxes, hw).xyxy
                tally = tallies[pad].setdefault(name, MethodTally(coverage))
                # Presidio's time is the runner's (Tesseract + recognisers, from the decoded image).
                tally.add(boxes, padded, gt, sample.categories, hw, times.get(name, pres["seconds"]))
        log.info("%d/%d %s", i + 1, len(samples), sample.path.name)
    return tallies


def _pct(v) -> str:
    return "–" if v is None else f"{100 * v:.1f} %"


def markdown_tables(result: dict) -> str:
    """Side-by-side markdown: one table per padding, then per-category recall at the main padding."""
    out = []
    for pad, methods in result["paddings"].items():
        any_m = next(iter(methods.values()))
        n_pat, n_all = any_m["recall"]["pattern"]["gt_boxes"], any_m["recall"]["text_pii"]["gt_boxes"]
        cov = f"recall at ≥ {100 * result['coverage']:.0f} % coverage"
        out += [f"\n**Padding {pad}** ({result['images']} images, {cov})\n",
                f"| method | recall, pattern classes ({n_pat} GT) | recall, all text PII ({n_all} GT) | precision (overlap) "
                "| precision (centre) | FP area | s/image mean | s/image median | text boxes |",
                "|---|---:|---:|---:|---:|---:|---:|---:|---:|"]  # fmt: skip
        for name, m in methods.items():
            out.append(f"| {name} | {_pct(m['recall']['pattern']['recall_at_coverage'])} | "
                       f"{_pct(m['recall']['text_pii']['recall_at_coverage'])} | {_pct(m['box_precision_overlap'])} | "
                       f"{_pct(m['box_precision_centre'])} | {_pct(m['fp_area'])} | {m['seconds_mean']:.2f} | "
                       f"{m['seconds_median']:.2f} | {m['text_boxes']} |")  # fmt: skip
    methods = result["paddings"][str(result["padding"])]
    cats = sorted({c for m in methods.values() for c in m["recall_per_category"]})
    out += [f"\n**Recall per category** (padding {result['padding']})\n",
            "| category | GT | " + " | ".join(methods) + " |",
            "|---|---:|" + "---:|" * len(methods)]  # fmt: skip
    for c in cats:
        gt = next(m["recall_per_category"][c]["gt_boxes"] for m in methods.values())
        cells = [_pct(m["recall_per_category"].get(c, {}).get("recall_at_coverage")) for m in methods.values()]
        out.append(f"| {c}{' *' if c in PATTERN_CLASSES else ''} | {gt} | " + " | ".join(cells) + " |")
    out.append("\n`*` = pattern class (Presidio can find it in principle).")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    """CLI: select screenshots, run Presidio and our detectors, print and write the comparison."""
    p = argparse.ArgumentParser(prog="python -m training presidio-compare", description=" ".join(__doc__.split("\n\n")[0].split()))
    p.add_argument("--data", type=Path, default=ROOT / "data" / "synth-10k", help="YOLO dataset folder")
    p.add_argument("--split", default="test")
    p.add_argument("-n", "--images", type=int, default=100, help="screenshots to compare (default: %(default)s)")
    p.add_argument("--synth-seed", type=int, default=0, help="seed the dataset was rendered with (picks generators)")
    p.add_argument("--presidio-python", type=Path, default=DEFAULT_PYTHON, help="python of the Presidio venv")
    p.add_argument("--presidio-json", type=Path, default=None, help="reuse this runner output instead of running it")
    p.add_argument("--padding", type=float, default=RedactionSettings().padding, help="box padding (also scored at 0)")
    p.add_argument("--coverage", type=float, default=0.9)
    p.add_argument("--out", type=Path, default=ROOT / "runs" / "presidio")
    p.add_argument("--model", type=Path, default=None, help="detector .onnx for the fusion row (default: the shipped one)")
    a = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(message)s")
    samples, _ = load_yolo_dataset(a.data, a.split)
    chosen = select_screenshots(samples, a.images, a.synth_seed)
    log.info("selected %d screenshots of %d %s images", len(chosen), len(samples), a.split)
    pres = json.loads(a.presidio_json.read_text()) if a.presidio_json else \
        run_presidio(a.presidio_python, [s.path for s in chosen], a.out / "presidio_raw.json")  # fmt: skip
    by_path = {Path(im["path"]).resolve(): im for im in pres["images"]}
    built = build_detectors(DetectorConfig(model_path=a.model) if a.model else DetectorConfig())  # detector + faces + OCR; the OCR row uses only OCR's boxes
    pipeline = Pipeline(built.detectors, Policy(), RedactionSettings(padding=a.padding))
    tallies = compare(pipeline, chosen, [by_path[s.path.resolve()] for s in chosen], (a.padding, 0.0), a.coverage)
    result = {"images": len(chosen), "coverage": a.coverage, "padding": a.padding, "providers": built.providers,
              "presidio_versions": pres["versions"], "presidio_entities": pres["entities"], "presidio_nlp": pres["nlp"],
              "presidio_words_per_finding": np.bincount(np.array([c for im in pres["images"] for c in words_per_finding(im["boxes"])],
                                                                 int), minlength=2).tolist(),
              "pattern_classes": PATTERN_CLASSES, "text_pii_classes": TEXT_PII, "image_files": [s.path.name for s in chosen],
              "paddings": {str(pad): {k: t.summary() for k, t in m.items()} for pad, m in tallies.items()}}  # fmt: skip
    table = markdown_tables(result)
    print(table)
    a.out.mkdir(parents=True, exist_ok=True)
    (a.out / "presidio_compare.json").write_text(json.dumps(result, indent=1, ensure_ascii=False))
    (a.out / "presidio_compare.md").write_text(table + "\n")
    return 0
