"""Run Microsoft Presidio's image analyser over a list of images and write its boxes as JSON.

Run it with the Python of a separate venv that holds ``presidio-image-redactor`` and
``presidio-analyzer`` (never the app's venv), plus the Debian ``tesseract-ocr`` binary::

    apt-get install -y tesseract-ocr
    python -m venv .cache/presidio-venv
    .cache/presidio-venv/bin/pip install presidio-image-redactor presidio-analyzer
    .cache/presidio-venv/bin/python training/presidio_runner.py LIST.txt OUT.json

``LIST.txt`` names one image per line. Each image goes through ``ImageAnalyzerEngine.analyze``,
the analysis ``ImageRedactorEngine.redact`` uses to decide what to paint: Tesseract word boxes
(``pytesseract.image_to_data``), the words joined with spaces into one text, Presidio's
recognisers on that text, and a box for every OCR word a finding touches.

No spaCy model can be downloaded here, so the NLP engine is a blank English pipeline saved to
disk (``spacy.blank("en")``): only pattern, regex and checksum recognisers can fire; the NER-based
PERSON, LOCATION, NRP and ORGANIZATION entities never do. Only stdlib, Presidio (and its spaCy
and tldextract dependencies), PIL and pytesseract are imported, so the app's venv is not needed.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from importlib import metadata
from pathlib import Path


def offline_tldextract() -> None:
    """Make Presidio's e-mail validator use tldextract's bundled suffix list instead of fetching it
    from GitHub (unreachable here: each fetch would fail, log a traceback and cost time)."""
    import tldextract.tldextract as tld

    tld.TLD_EXTRACTOR = tld.TLDExtract(suffix_list_urls=(), cache_dir=None)


def build_engine(blank_model_dir: Path):
    """``ImageAnalyzerEngine`` over Tesseract and an ``AnalyzerEngine`` whose spaCy pipeline is
    blank English (saved to ``blank_model_dir`` if absent), so nothing is downloaded."""
    import spacy
    from presidio_analyzer import AnalyzerEngine
    from presidio_analyzer.nlp_engine import NlpEngineProvider
    from presidio_image_redactor import ImageAnalyzerEngine, TesseractOCR

    offline_tldextract()
    if not (blank_model_dir / "config.cfg").is_file():
        spacy.blank("en").to_disk(blank_model_dir)
    config = {"nlp_engine_name": "spacy", "models": [{"lang_code": "en", "model_name": str(blank_model_dir)}]}
    nlp_engine = NlpEngineProvider(nlp_configuration=config).create_engine()
    analyzer = AnalyzerEngine(nlp_engine=nlp_engine, supported_languages=["en"])
    return ImageAnalyzerEngine(analyzer_engine=analyzer, ocr=TesseractOCR())


def result_record(r) -> dict:
    """JSON record of one ``ImageRecognizerResult``: entity, score, text span, box xyxy in pixels."""
    return {"entity_type": r.entity_type, "score": float(r.score), "start": int(r.start), "end": int(r.end),
            "xyxy": [float(r.left), float(r.top), float(r.left + r.width), float(r.top + r.height)]}  # fmt: skip


def analyze_image(engine, path: Path) -> dict:
    """Presidio's findings for one image and the seconds ``analyze`` took (OCR + recognisers)."""
    from PIL import Image

    with Image.open(path) as img:
        image = img.convert("RGB")
    t0 = time.perf_counter()
    results = engine.analyze(image)
    seconds = time.perf_counter() - t0
    return {"path": str(path), "width": image.width, "height": image.height, "seconds": seconds,
            "boxes": [result_record(r) for r in results]}  # fmt: skip


def versions() -> dict:
    """Versions of Presidio, spaCy, pytesseract and the Tesseract binary."""
    import pytesseract

    out = {p: metadata.version(p) for p in ("presidio-analyzer", "presidio-image-redactor", "spacy", "pytesseract")}
    out["tesseract"] = str(pytesseract.get_tesseract_version())
    return out


def supported_entities(engine) -> list[str]:
    """Entity types the analyser's English recognisers can emit (NER ones included, though blank)."""
    return sorted(engine.analyzer_engine.get_supported_entities(language="en"))


def main(argv: list[str] | None = None) -> int:
    """CLI: analyse every listed image and write ``{versions, entities, images: [...]}`` JSON."""
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("image_list", type=Path, help="text file, one image path per line")
    p.add_argument("out_json", type=Path)
    p.add_argument("--spacy-dir", type=Path, default=None, help="where the blank spaCy model is saved (default: temp)")
    a = p.parse_args(argv)
    paths = [Path(line.strip()) for line in a.image_list.read_text().splitlines() if line.strip()]
    with tempfile.TemporaryDirectory() as tmp:
        t0 = time.perf_counter()
        engine = build_engine(a.spacy_dir or Path(tmp) / "blank_en")
        setup_seconds = time.perf_counter() - t0
        images = []
        for i, path in enumerate(paths, 1):
            images.append(analyze_image(engine, path))
            print(f"presidio {i}/{len(paths)} {path.name}: {len(images[-1]['boxes'])} boxes, "
                  f"{images[-1]['seconds']:.2f} s", file=sys.stderr)  # fmt: skip
    out = {"versions": versions(), "entities": supported_entities(engine), "setup_seconds": setup_seconds,
           "nlp": "spacy.blank('en') - no NER model", "images": images}  # fmt: skip
    a.out_json.parent.mkdir(parents=True, exist_ok=True)
    a.out_json.write_text(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
