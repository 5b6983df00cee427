"""``python -m training text-classifier``: render screens, read them with the app's OCR (cached under
``data/text_ocr``), train the text-PII classifier and write ``models/text-pii.npz`` plus a metrics
JSON beside it. Scenes already read are reused, so a second run only retrains.
"""

from __future__ import annotations

import argparse
import json
import logging
import shutil
import sys
import time
from pathlib import Path

from app.text import words
from app.text.gazetteer import SHIPPED, build_compact, name_table
from training.text.augment import varied_copies
from training.text.ocr_data import DEFAULT_DIR, generate, iter_scenes
from training.text.train import train
from training.text.variety import common_words


def parse(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="python -m training text-classifier", description=__doc__)
    p.add_argument("--scenes", type=int, default=600, help="rendered scenes to read with OCR (default %(default)s)")
    p.add_argument("--seed", type=int, default=1, help="scene seed (default %(default)s)")
    p.add_argument("--data", type=Path, default=DEFAULT_DIR, help="OCR cache folder (default %(default)s)")
    p.add_argument("--out", type=Path, default=Path("models/text-pii.npz"), help="model file (default %(default)s)")
    p.add_argument("--dim", type=int, default=1 << 17, help="hashed feature space size (default %(default)s)")
    p.add_argument("--epochs", type=int, default=12)
    p.add_argument("--test-share", type=float, default=0.15, help="last share of scenes held out for the metrics")
    p.add_argument("--threshold", type=float, default=0.5,
                   help="decision threshold on P(private), written into the model file; the app uses it (default %(default)s)")
    p.add_argument("--extra-seed", type=int, default=2, help="seed of the extra scenes (default %(default)s)")
    p.add_argument("--extra-scenes", type=int, default=0,
                   help="extra training-only scenes (credential lists, user tables, varied usernames) read "
                        "under --extra-seed; the held-out scenes stay those of --seed (default %(default)s)")
    p.add_argument("--varied-seed", type=int, default=4, help="seed of the varied scenes (default %(default)s)")
    p.add_argument("--varied-scenes", type=int, default=0,
                   help="training-only scenes with restyled people (CamelCase/dotted usernames, 'LAST, First' "
                        "names, phone and birth-date formats) and activity feeds, cached under "
                        "<data>/varied-<seed> (default %(default)s)")
    p.add_argument("--varied-test-seed", type=int, default=5, help="seed of the varied held-out scenes (default %(default)s)")
    p.add_argument("--varied-test", type=int, default=0,
                   help="a second held-out set of varied scenes, reported as 'varied_test' (default %(default)s)")
    p.add_argument("--ordinary-seed", type=int, default=8, help="seed of the ordinary-text scenes (default %(default)s)")
    p.add_argument("--ordinary-scenes", type=int, default=0,
                   help="training-only scenes of ordinary text shaped like names (title-case headlines, category "
                        "tiles, dictionary pages; training.text.ordinary) among name-bearing screens, cached under "
                        "<data>/ordinary-<seed> (default %(default)s)")
    p.add_argument("--ordinary-test-seed", type=int, default=9, help="seed of the ordinary-text held-out scenes (default %(default)s)")
    p.add_argument("--ordinary-test", type=int, default=0,
                   help="a held-out set of ordinary-text scenes, reported as 'ordinary_test' (default %(default)s)")
    p.add_argument("--varied-copies", type=int, default=0,
                   help="text-level variants of each training scene of --seed: its names, usernames, phones and "
                        "birth dates redrawn in other styles (training.text.augment; default %(default)s)")
    p.add_argument("--ordinary-lines", type=float, default=0.0, metavar="SHARE",
                   help="in the text-level variants, this share of short lines with nothing private become "
                        "harmless text shaped like a lone name ('Cafeteria', 'STOP', 'Title: Holiday Plans'; "
                        "training.text.variety.ordinary_line; default %(default)s)")
    p.add_argument("--title-lines", type=float, default=0.0, metavar="SHARE",
                   help="in the text-level variants, this share of lines of four or more words with nothing private "
                        "are put in title case as headlines print them, half of them with one common word that is also a "
                        "popular name ('Deep', 'Will'; default %(default)s)")
    p.add_argument("--spec-lines", type=float, default=0.0, metavar="SHARE",
                   help="in the text-level variants, this share of lines of four words at most with nothing private "
                        "become harmless technical text ('ISO 125 · 1/400s', '24 GB RAM', 'Laowa 58mm @ f/5.6'; "
                        "training.text.specs; default %(default)s)")
    p.add_argument("--look-alike-share", type=float, default=0.25, metavar="SHARE",
                   help="in the text-level variants, the share of lines with nothing private that get one harmless "
                        "username-shaped word ('open-source', 'com-pu-ter', 'PowerPoint'; default %(default)s)")
    p.add_argument("--cached-only", action="store_true", help="train on the scenes already read; run no OCR")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Run the command; exit code 0 on success, 2 when there is no data."""
    args = parse(list(sys.argv[1:] if argv is None else argv))
    logging.basicConfig(level=logging.WARNING, format="%(message)s")
    t0 = time.perf_counter()
    if not args.cached_only:
        generate(args.data, args.seed, args.scenes)
        if args.extra_scenes:
            generate(args.data, args.extra_seed, args.extra_scenes, extra=True)
        if args.varied_test:
            generate(args.data, args.varied_test_seed, args.varied_test, varied=True)
        if args.varied_scenes:
            generate(args.data, args.varied_seed, args.varied_scenes, varied=True)
        if args.ordinary_test:
            generate(args.data, args.ordinary_test_seed, args.ordinary_test, ordinary=True)
        if args.ordinary_scenes:
            generate(args.data, args.ordinary_seed, args.ordinary_scenes, ordinary=True)
    scenes = list(iter_scenes(args.data, args.seed))[: args.scenes]
    extra = list(iter_scenes(args.data, args.extra_seed))[: args.extra_scenes] if args.extra_scenes else []
    extra += list(iter_scenes(args.data, args.varied_seed, varied=True))[: args.varied_scenes] if args.varied_scenes else []
    extra += list(iter_scenes(args.data, args.ordinary_seed, ordinary=True))[: args.ordinary_scenes] if args.ordinary_scenes else []
    tests = {"varied_test": list(iter_scenes(args.data, args.varied_test_seed, varied=True))[: args.varied_test],
             "ordinary_test": list(iter_scenes(args.data, args.ordinary_test_seed, ordinary=True))[: args.ordinary_test]}
    if len(scenes) < 10:
        print(f"error: only {len(scenes)} scenes under {args.data / str(args.seed)}; run without --cached-only", file=sys.stderr)
        return 2
    if not SHIPPED.is_file():  # the app must read the very name table the model learns from
        source = build_compact()
        if source is not None:
            shutil.copyfile(source, SHIPPED)
    if not words.SHIPPED.is_file():  # likewise the word-frequency table (feature version 5)
        from training.text.words_table import build

        build(words.SHIPPED)
        words.word_table.cache_clear()
    n_test = max(1, int(round(len(scenes) * args.test_share)))
    t_ocr = time.perf_counter() - t0
    pool = common_words(words.word_table(), name_table()) if args.ordinary_lines > 0 or args.title_lines > 0 else None
    name_words = sorted(set(common_words(words.word_table(), name_table(), keep_names=True)) - set(pool)) if pool else None
    copies = varied_copies(scenes[:-n_test], args.varied_copies, args.seed, args.ordinary_lines, pool,
                           args.look_alike_share, args.title_lines, name_words, args.spec_lines) if args.varied_copies else []
    extra += copies
    model, result = train(scenes[:-n_test] + extra, scenes[-n_test:], name_table(), args.dim, args.epochs, args.threshold,
                          {k: v for k, v in tests.items() if v} or None)  # fmt: skip
    result["extra_scenes"] = len(extra)
    result["varied_copies"] = len(copies)
    result["words"] = words.word_table().source
    result.update({"seed": args.seed, "seconds_total": round(time.perf_counter() - t0, 1), "seconds_ocr_this_run": round(t_ocr, 1),
                   "command": "python -m training text-classifier " + " ".join(argv or sys.argv[1:])})  # fmt: skip
    model.meta["metrics"] = result
    model.save(args.out)
    args.out.with_suffix(".json").write_text(json.dumps(result, indent=1))
    print(json.dumps(result, indent=1))
    return 0
