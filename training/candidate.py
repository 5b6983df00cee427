"""``python -m training candidate``: judge a trained checkpoint the way the model card does.

One command for what each session ran by hand on every epoch: export the checkpoint to ONNX
(``training export``, 640-px tiles read at 320 px, or at 640 px with ``--imgsz 640``), calibrate its per-class thresholds on the
synthetic validation split and ``real_test`` (``training calibrate --beta 0.5 --write``, never on
real-dev), then two evaluations with the app's own ``vpd-redact eval``:

* ``real_test`` with the detector alone (``--no-faces --no-ocr --no-codes``): the real pack's
  held-back photos, per category;
* real-dev with every default detector (``--max-box-share 0.25``): the shipping gate's fused
  recall, FP area and negatives, measured only.

Everything lands in ``--out-dir`` (the ONNX file, ``calibration.json``, ``realtest.json``,
``realdev.json`` and their printed tables), and the last line printed is the model card's row:
val is left to the training log. The gate itself (fused recall up and FP area not up against the
shipped model on the same tree) is the reader's call, with both rows side by side.
"""

from __future__ import annotations

import argparse
import json
import logging
from pathlib import Path

from training.offline import repo_root

log = logging.getLogger("training.candidate")


def _run(what: str, main, argv: list[str], ok: tuple[int, ...] = (0,)) -> None:
    """Run a sub-command's ``main``; an exit status outside ``ok`` stops the candidate with ``what`` named."""
    log.info("%s: %s", what, " ".join(argv))
    code = int(main(argv) or 0)
    if code not in ok:
        raise SystemExit(f"candidate: {what} failed (exit {code})")


def _figure(result: dict, group: str, name: str, key: str, source: str = "fusion") -> float | None:
    """One tally of a ``vpd-redact eval --json`` result, as a percentage (None when absent)."""
    for row in result.get("tallies", []):
        if row["source"] == source and row["group"] == group and row["name"] == name and row.get(key) is not None:
            return 100.0 * row[key]
    return None


def card_row(realtest: dict, realdev: dict) -> str:
    """The model card's figures: real_test recall / FP area (detector alone) and real-dev fused
    recall / FP area / negatives, in percent."""

    def pct(value: float | None) -> str:
        return "–" if value is None else f"{value:.1f}"

    rt = (_figure(realtest, "all", "all", "recall_at_coverage", "detector"), _figure(realtest, "all", "all", "fp_area", "detector"))
    dev = (_figure(realdev, "all", "all", "recall_at_coverage"), _figure(realdev, "all", "all", "fp_area"),
           _figure(realdev, "kind", "negative", "negative_area_redacted"))  # fmt: skip
    return f"real_test {' / '.join(map(pct, rt))} | real-dev fused {' / '.join(map(pct, dev))}"


def main(argv: list[str] | None = None) -> int:
    """Export, calibrate and evaluate one checkpoint; print the card row."""
    p = argparse.ArgumentParser(prog="python -m training candidate", description=__doc__.split("\n\n")[0])
    p.add_argument("--weights", type=Path, required=True, help="a training checkpoint (.pt)")
    p.add_argument("--data", type=Path, required=True, help="the render with the val and real_test splits")
    p.add_argument("--out-dir", type=Path, required=True)
    p.add_argument("--real-dev", type=Path, default=repo_root().parent / "shared" / "data" / "real-dev")
    p.add_argument("--name", default="vpd-n", help="ONNX file stem in --out-dir")
    p.add_argument("--imgsz", type=int, default=320, choices=(320, 640),
                   help="network input size of the exported model: 320 (640-px tiles read at half scale, the "
                        "shipped setting) or 640 (native scale, for a checkpoint trained at 640)")
    args = p.parse_args(argv)
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(name)s %(levelname)s %(message)s")
    if not args.weights.is_file():
        raise SystemExit(f"candidate: no checkpoint at {args.weights}")
    if not (args.data / "data.yaml").is_file():
        raise SystemExit(f"candidate: {args.data} has no data.yaml (a `python -m training synth` render)")
    if not (args.real_dev / "annotations.json").is_file():
        raise SystemExit(f"candidate: {args.real_dev} has no annotations.json")
    out = args.out_dir
    out.mkdir(parents=True, exist_ok=True)
    model = out / f"{args.name}.onnx"

    from app.cli import main as app_main  # the app's own evaluation, not a copy of it
    from training import calibrate, export

    _run("export", export.main, ["--weights", str(args.weights), "--name", args.name, "--imgsz", str(args.imgsz),
                                 "--tile-size", "640", "--out-dir", str(out), "--no-parity"])  # fmt: skip
    _run("calibrate", calibrate.main, ["--model", str(model), "--data", str(args.data), "--beta", "0.5", "--write",
                                       "--json", str(out / "calibration.json")])  # fmt: skip
    _run("real_test", app_main, ["eval", str(args.data), "--split", "real_test", "--no-faces", "--no-ocr", "--no-codes",
                                 "--model", str(model), "--json", str(out / "realtest.json")])  # fmt: skip
    # Exit 1 here only says that boxes over a quarter of the frame were listed (in the JSON too).
    _run("real-dev", app_main, ["eval", str(args.real_dev), "--max-box-share", "0.25", "--per-image", "--model",
                                str(model), "--json", str(out / "realdev.json")], ok=(0, 1))  # fmt: skip
    row = card_row(json.loads((out / "realtest.json").read_text()), json.loads((out / "realdev.json").read_text()))
    print(row)
    return 0
