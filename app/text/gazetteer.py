"""Name gazetteer from the ``names-dataset`` wheel (MIT): first and last names of 105 countries.

The wheel's tables (``v3/first_names.pkl.gz``, ``v3/last_names.pkl.gz``) take ≈20 s of CPU and
1.2 GB of memory to unpickle, far too much for every start. A compact table — every name ranked in
the top ``MAX_RANK`` of some country, with its best rank bucket — is 1.8 MB and loads in about a
second. ``python -m training text-classifier`` writes it beside the classifier
(``models/text-names.tsv.gz``) so the app reads exactly the table the model was trained with;
without that file the first call builds it from the installed wheel into the user's cache folder.
Without the package either, Faker's name lists (``app.text.names``) stand in, unranked.
"""

from __future__ import annotations

import gc
import gzip
import importlib.metadata
import importlib.util
import logging
import os
import pickle
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from app.model_files import model_path

log = logging.getLogger(__name__)

MAX_RANK = 5000  # names ranked beyond this in every country are too rare to tell anything
UNRANKED = MAX_RANK + 1
# Stored and returned ranks are bucketed to these upper bounds (the features only use buckets).
RANK_BUCKETS = (100, 1000, 2000, MAX_RANK)


@dataclass(frozen=True)
class NameTable:
    """Lower-cased first and last names → best rank, rounded up to a ``RANK_BUCKETS`` bound (a name
    ranked 1–100 in some country reads 100)."""

    first: dict[str, int]
    last: dict[str, int]
    source: str

    def first_rank(self, word: str) -> int | None:
        """Best rank of ``word`` as a first name, or None."""
        return self.first.get(word.lower())

    def last_rank(self, word: str) -> int | None:
        """Best rank of ``word`` as a last name, or None."""
        return self.last.get(word.lower())


def cache_dir() -> Path:
    """Per-user cache folder (``$XDG_CACHE_HOME`` or ``~/.cache``)/vpd-redactor."""
    base = os.environ.get("VPD_CACHE_DIR") or os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "vpd-redactor"


def _wheel_tables() -> Path | None:
    spec = importlib.util.find_spec("names_dataset")
    if spec is None or not spec.submodule_search_locations:
        return None
    folder = Path(list(spec.submodule_search_locations)[0]) / "v3"
    return folder if (folder / "first_names.pkl.gz").is_file() and (folder / "last_names.pkl.gz").is_file() else None


def _compact(path: Path) -> dict[str, int]:
    with gzip.open(path, "rb") as fh:
        table = pickle.load(fh)  # the package's own data file, shipped in its wheel
    out: dict[str, int] = {}
    for name, info in table.items():
        if not isinstance(name, str) or " " in name or len(name) < 2:
            continue
        ranks = (info or {}).get("rank") or {}
        best = min(ranks.values()) if ranks else UNRANKED
        if best <= MAX_RANK:
            key = name.lower()
            out[key] = min(best, out.get(key, UNRANKED))
    del table
    gc.collect()
    return out


def _bucket(rank: int) -> int:
    return next((b for b in RANK_BUCKETS if rank <= b), UNRANKED)


def _write(path: Path, first: dict[str, int], last: dict[str, int]) -> None:
    """One line per (kind, bucket): ``kind<TAB>bucket<TAB>name<US>name…`` — loads with one split."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    with gzip.open(tmp, "wt", encoding="utf-8") as fh:
        for kind, table in (("f", first), ("l", last)):
            groups: dict[int, list[str]] = {}
            for name, rank in table.items():
                groups.setdefault(_bucket(rank), []).append(name)
            fh.writelines(f"{kind}\t{bucket}\t{chr(31).join(sorted(names))}\n" for bucket, names in sorted(groups.items()))
    tmp.replace(path)


def _read(path: Path) -> tuple[dict[str, int], dict[str, int]]:
    first: dict[str, int] = {}
    last: dict[str, int] = {}
    with gzip.open(path, "rt", encoding="utf-8") as fh:
        rows = [row.rstrip("\n").split("\t") for row in fh]
    for kind, bucket, names in sorted(rows, key=lambda r: -int(r[1])):  # best bucket applied last wins
        (first if kind == "f" else last).update(dict.fromkeys(names.split(chr(31)), int(bucket)))
    return first, last


SHIPPED = model_path("text-names.tsv.gz")  # models/ of a checkout, or the copy in the wheel/bundle


def compact_path() -> Path | None:
    """Where the compact table of the installed ``names-dataset`` lives (None without it)."""
    if _wheel_tables() is None:
        return None
    version = importlib.metadata.version("names-dataset")
    return cache_dir() / f"names-dataset-{version}-r{MAX_RANK}-v2.tsv.gz"


def build_compact() -> Path | None:
    """Build (once) and return the compact table file; None when ``names-dataset`` is absent."""
    folder, path = _wheel_tables(), compact_path()
    if folder is None or path is None:
        return None
    if not path.is_file():
        log.warning("building the name table from names-dataset once (about a minute): %s", path)
        first = _compact(folder / "first_names.pkl.gz")
        last = _compact(folder / "last_names.pkl.gz")
        _write(path, first, last)
    return path


@lru_cache(maxsize=1)
def name_table() -> NameTable:
    """The gazetteer, loaded once per process (see the module docstring for cost)."""
    try:
        path = SHIPPED if SHIPPED.is_file() else build_compact()
    except (OSError, pickle.UnpicklingError, EOFError, ValueError) as exc:
        log.warning("names-dataset could not be read (%s); using Faker's name lists", exc)
        path = None
    if path is not None:
        first, last = _read(path)
        return NameTable(first, last, f"names-dataset ({len(first)} first, {len(last)} last names)")
    from app.text.names import name_lists

    first_set, last_set = name_lists()
    return NameTable({n: UNRANKED for n in first_set}, {n: UNRANKED for n in last_set}, "Faker name lists")
