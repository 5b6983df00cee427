"""``Detections``: a frozen struct of arrays, the one currency between detect, track and redact."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from enum import IntEnum
from typing import Iterable, Sequence

import numpy as np


class Source(IntEnum):
    """Where a box came from; shown in the GUI and used for per-source evaluation."""

    DETECTOR = 0
    FACE = 1
    OCR = 2
    MANUAL = 3
    TRACKER = 4  # coasted or gap-filled by the tracker, no detection on this frame


@dataclass(frozen=True)
class Detections:
    """N boxes in source-frame pixels.

    xyxy: float32 (N, 4); scores: float32 (N,); class_ids: int32 (N,) indexing ``class_names``;
    track_ids: int32 (N,), -1 when untracked; sources: int8 (N,) of ``Source``.
    """

    xyxy: np.ndarray
    scores: np.ndarray
    class_ids: np.ndarray
    class_names: tuple[str, ...]
    track_ids: np.ndarray = field(default=None)  # type: ignore[assignment]
    sources: np.ndarray = field(default=None)  # type: ignore[assignment]

    def __post_init__(self) -> None:
        xyxy = np.asarray(self.xyxy, dtype=np.float32).reshape(-1, 4)
        n = len(xyxy)
        scores = np.asarray(self.scores, dtype=np.float32).reshape(-1)
        class_ids = np.asarray(self.class_ids, dtype=np.int32).reshape(-1)
        track_ids = (
            np.full(n, -1, np.int32) if self.track_ids is None else np.asarray(self.track_ids, np.int32).reshape(-1)
        )
        sources = (
            np.full(n, Source.DETECTOR, np.int8) if self.sources is None else np.asarray(self.sources, np.int8).reshape(-1)
        )
        for name, arr in (("scores", scores), ("class_ids", class_ids), ("track_ids", track_ids), ("sources", sources)):
            if len(arr) != n:
                raise ValueError(f"Detections.{name} has {len(arr)} entries, xyxy has {n}")
        if n and (class_ids.min() < 0 or class_ids.max() >= len(self.class_names)):
            raise ValueError(f"class id out of range for {len(self.class_names)} class names")
        if n and not np.all(np.isfinite(xyxy)):
            raise ValueError("Detections.xyxy contains non-finite values")
        for arr in (xyxy, scores, class_ids, track_ids, sources):
            arr.setflags(write=False)
        object.__setattr__(self, "xyxy", xyxy)
        object.__setattr__(self, "scores", scores)
        object.__setattr__(self, "class_ids", class_ids)
        object.__setattr__(self, "track_ids", track_ids)
        object.__setattr__(self, "sources", sources)
        object.__setattr__(self, "class_names", tuple(self.class_names))

    @classmethod
    def empty(cls, class_names: Sequence[str]) -> "Detections":
        """Zero boxes over the given class table."""
        return cls(np.zeros((0, 4), np.float32), np.zeros(0, np.float32), np.zeros(0, np.int32), tuple(class_names))

    @classmethod
    def from_lists(cls, class_names: Sequence[str], source: int, boxes: Sequence[np.ndarray], scores: Sequence[float],
                   class_ids: Sequence[int] | None = None) -> "Detections":  # fmt: skip
        """Boxes ((4,) xyxy each) and their scores, all found by ``source``, as ``Detections`` over
        ``class_names``; every box is class 0 when ``class_ids`` is None. No boxes give ``empty``."""
        n = len(boxes)
        if not n:
            return cls.empty(class_names)
        ids = np.zeros(n, np.int32) if class_ids is None else class_ids
        return cls(np.stack(boxes), scores, ids, tuple(class_names), sources=np.full(n, int(source), np.int8))

    def __len__(self) -> int:
        return len(self.xyxy)

    @property
    def labels(self) -> list[str]:
        """Class name of each box."""
        return [self.class_names[i] for i in self.class_ids]

    def take(self, index: np.ndarray) -> "Detections":
        """Subset by boolean mask or integer index array."""
        return replace(
            self,
            xyxy=self.xyxy[index],
            scores=self.scores[index],
            class_ids=self.class_ids[index],
            track_ids=self.track_ids[index],
            sources=self.sources[index],
        )

    def with_boxes(self, xyxy: np.ndarray) -> "Detections":
        """Same detections with replaced boxes, e.g. after padding or unletterboxing."""
        return replace(self, xyxy=np.asarray(xyxy, np.float32))

    def remap(self, class_names: Sequence[str]) -> "Detections":
        """Re-express class ids against another class table that contains all used names."""
        class_names = tuple(class_names)
        if class_names == self.class_names:
            return self
        index = {n: i for i, n in enumerate(class_names)}
        missing = sorted({n for n in self.labels if n not in index})
        if missing:
            raise ValueError(f"class table lacks {missing}")
        ids = np.array([index[n] for n in self.labels], np.int32)
        return replace(self, class_ids=ids, class_names=class_names)

    def to_records(self) -> list[dict]:
        """JSON-friendly list: class name, score, xyxy, source and track id per box."""
        return [
            {
                "class": self.class_names[int(c)],
                "score": round(float(s), 4),
                "xyxy": [round(float(v), 1) for v in box],
                "source": Source(int(src)).name.lower(),
                "track_id": int(t),
            }
            for box, s, c, src, t in zip(self.xyxy, self.scores, self.class_ids, self.sources, self.track_ids)
        ]


def union_class_names(parts: Iterable[Detections], base: Sequence[str] = ()) -> tuple[str, ...]:
    """Ordered union of class tables: ``base`` first, then new names in order of appearance."""
    names = list(base)
    seen = set(names)
    for part in parts:
        for name in part.class_names:
            if name not in seen:
                seen.add(name)
                names.append(name)
    return tuple(names)


def concat(parts: Sequence[Detections], class_names: Sequence[str] | None = None) -> Detections:
    """Concatenate detections from several detectors into one table (union of class names)."""
    names = tuple(class_names) if class_names is not None else union_class_names(parts)
    parts = [p.remap(names) for p in parts if len(p)]
    if not parts:
        return Detections.empty(names)
    return Detections(
        np.concatenate([p.xyxy for p in parts]),
        np.concatenate([p.scores for p in parts]),
        np.concatenate([p.class_ids for p in parts]),
        names,
        np.concatenate([p.track_ids for p in parts]),
        np.concatenate([p.sources for p in parts]),
    )
