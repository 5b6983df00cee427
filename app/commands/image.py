"""``vpd-redact image PATH… -o OUTDIR``: redact image files and folders in a batch."""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from tqdm import tqdm

from app.commands.common import (
    add_detection_args,
    check_class_names,
    load_detectors,
    policy_from_args,
    redaction_from_args,
)
from app.core.errors import OutputError, VpdError
from app.core.pipeline import Pipeline
from app.core.redact import opaque_alpha
from app.media.image_io import SUPPORTED_SUFFIXES, read_image, write_image


@dataclass(frozen=True)
class Job:
    """One input file and where its redacted copy goes."""

    source: Path
    target: Path


def add_parser(sub) -> None:
    """Register the ``image`` sub-command."""
    p = sub.add_parser("image", help="redact image files or folders", description=__doc__)
    p.add_argument("paths", nargs="+", type=Path, metavar="PATH", help="image files or folders (searched recursively)")
    p.add_argument("-o", "--output", type=Path, required=True, metavar="OUTDIR", help="folder for the redacted copies")
    p.add_argument("--suffix", default="", help="added to each output name, e.g. _redacted (required to write into an input folder)")
    p.add_argument("--report", type=Path, default=None, help="write the boxes per file to this JSON file")
    add_detection_args(p, "images")
    p.set_defaults(run=run)


def collect_jobs(paths: list[Path], outdir: Path, suffix: str) -> tuple[list[Job], list[str]]:
    """Expand files and folders into jobs; returns (jobs, one-line errors)."""
    jobs: list[Job] = []
    errors: list[str] = []
    out_resolved = outdir.resolve()
    for path in paths:
        if path.is_dir():
            root = path
            files = _walk_images(path, out_resolved, errors)
        elif path.exists() or path.is_symlink():
            root, files = path.parent, [path]
        else:
            errors.append(f"{path}: no such file or folder")
            continue
        if root.resolve() == out_resolved and not suffix:
            errors.append(f"{path}: output folder is the input folder; pass --suffix (e.g. _redacted) or another -o")
            continue
        for f in files:
            rel = f.relative_to(root)
            target = outdir / rel.parent / f"{rel.stem}{suffix}{f.suffix}"
            if target.resolve() == f.resolve():
                errors.append(f"{f}: output would overwrite the input; choose another -o or --suffix")
                continue
            jobs.append(Job(f, target))
    return jobs, errors


def _walk_images(folder: Path, skip: Path, errors: list[str]) -> list[Path]:
    found: list[Path] = []

    def on_error(exc: OSError) -> None:
        errors.append(f"{exc.filename}: cannot read folder ({exc.strerror})")

    for dirpath, dirnames, filenames in os.walk(folder, onerror=on_error):
        dirnames[:] = sorted(d for d in dirnames if Path(dirpath, d).resolve() != skip)
        found += [Path(dirpath, n) for n in sorted(filenames) if Path(n).suffix.lower() in SUPPORTED_SUFFIXES]
    return found


def run(args: argparse.Namespace) -> int:
    """Redact every image; exit 0 when all succeeded, 1 if any failed, 2 on a usage error."""
    try:
        policy = policy_from_args(args)
        redaction = redaction_from_args(args)
        if args.output.exists() and not args.output.is_dir():
            raise OutputError(f"{args.output}: exists and is not a folder")
        built = load_detectors(args)
    except (VpdError, ValueError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    for warning in built.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    pipeline = Pipeline(built.detectors, policy, redaction)
    try:
        check_class_names(args, pipeline.class_names)
    except ValueError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    if args.verbose:
        print(f"providers: {built.providers}", file=sys.stderr)
    jobs, failures = collect_jobs(args.paths, args.output, args.suffix)
    for line in failures:
        print(f"error: {line}", file=sys.stderr)
    records, failed = [], [{"input": line.split(":")[0], "error": line} for line in failures]
    for job in tqdm(jobs, desc="redacting", unit="img", file=sys.stderr, disable=None):
        try:
            records.append(_redact_one(pipeline, job))
        except Exception as exc:  # noqa: BLE001 - boundary: one bad file (or a detector crash) fails only itself
            message = _failure_message(job, exc)
            tqdm.write(f"error: {message}", file=sys.stderr)
            failed.append({"input": str(job.source), "error": message})
    if args.report:
        _write_report(args.report, records, failed, built.providers)
    done = len(records)
    print(f"{done} of {done + len(failed)} image(s) redacted into {args.output}; metadata stripped", file=sys.stderr)
    return 0 if not failed else 1


def _failure_message(job: Job, exc: Exception) -> str:
    if isinstance(exc, VpdError):
        return str(exc)
    if isinstance(exc, MemoryError):
        return f"{job.source}: out of memory"
    return f"{job.source}: detection failed ({type(exc).__name__}: {exc}); nothing written"


def _redact_one(pipeline: Pipeline, job: Job) -> dict:
    image = read_image(job.source)
    raw = pipeline.detect(image.visible)  # text drawn only in the alpha channel is found too
    result = pipeline.process(image.pixels, raw)
    notes = pipeline.notes()
    alpha = opaque_alpha(image.alpha, pipeline.padded(result.hidden, image.pixels.shape[:2]).xyxy)
    write_image(result.frame, job.target, alpha)
    for note in notes:
        tqdm.write(f"note: {job.source}: {note}", file=sys.stderr)
    h, w = image.pixels.shape[:2]
    return {"input": str(job.source), "output": str(job.target), "width": w, "height": h,
            "boxes": result.hidden.to_records(), "notes": list(notes)}  # fmt: skip


def _write_report(path: Path, records: list[dict], failed: list[dict], providers: str) -> None:
    tmp = path.with_name(f".{path.name}.part")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps({"providers": providers, "files": records, "failed": failed}, indent=1))
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        print(f"error: cannot write report {path}: {exc.strerror}", file=sys.stderr)
