"""The one ``detect → track → redact`` pipeline shared by the GUI, CLI, live and export paths."""

from __future__ import annotations

import time

from dataclasses import dataclass, field, replace
from typing import Callable, Protocol, Sequence, runtime_checkable

import numpy as np

from app.core.box_sanity import BoxSanity
from app.core.detections import Detections, concat
from app.core.face_context import FaceContext
from app.core.geometry import pad_xyxy
from app.core.policy import Policy
from app.core.redact import RedactionSettings, padding_fractions, redact


@runtime_checkable
class Detector(Protocol):
    """A plug-in that finds boxes in a frame (the VPD model, a face model, OCR, a fake).

    Optionally it has ``last_notes``: human-readable caveats about its last ``detect`` call
    (e.g. OCR lines it could not read), which the front ends show to the user; and
    ``refine(fused) -> Detections``, called with every detector's fused boxes for the same frame
    (the OCR reader adds document fields inside detector-boxed documents and drops text boxes
    its reading contradicts); and ``compute_threads()``: native ids of helper threads that run
    part of its inference (ONNX Runtime's pools), which live mode gives its tier's priority.
    """

    name: str

    @property
    def class_names(self) -> tuple[str, ...]:
        """Names of the classes this detector can emit."""
        ...

    def detect(self, frame: np.ndarray) -> Detections:
        """Boxes for ``frame`` (H, W, 3) uint8 BGR, in source pixels, tagged with a ``Source``."""
        ...


SLOW_DETECTOR_NAMES = frozenset({"ocr"})  # ``Detector.name`` of plug-ins too slow for every tick (seconds a frame)


def fused_class_names(detectors: Sequence[Detector]) -> tuple[str, ...]:
    """Union of the detectors' class tables, in detector order."""
    names: list[str] = []
    for det in detectors:
        names += [n for n in det.class_names if n not in names]
    return tuple(names)


def detect_all(detectors: Sequence[Detector], frame: np.ndarray) -> Detections:
    """Every detector's boxes for ``frame``, fused into one table (``fused_class_names``)."""
    return detect_all_timed(detectors, frame)[0]


def detector_notes(detectors: Sequence[Detector]) -> tuple[str, ...]:
    """The caveats (``last_notes``) the detectors left about their last ``detect`` call."""
    return tuple(note for det in detectors for note in getattr(det, "last_notes", ()))


def detect_all_timed(detectors: Sequence[Detector], frame: np.ndarray,
                     on_partial: Callable[[Detections], None] | None = None) -> tuple[Detections, dict[str, float]]:  # fmt: skip
    """``detect_all`` plus the seconds each detector took, by detector name (for eval/benchmarks).
    Object boxes that the frame's confident faces contradict (``FaceContext``) are left out.
    ``on_partial``: called once with what the fast detectors found, before the slow ones (OCR,
    ``SLOW_DETECTOR_NAMES``) run, when there are both: a preliminary look for the user."""
    names = fused_class_names(detectors)
    slow = [d.name in SLOW_DETECTOR_NAMES for d in detectors]
    parts: list[Detections | None] = [None] * len(detectors)
    seconds = {}
    for i in sorted(range(len(detectors)), key=lambda i: slow[i]):  # fast ones first, otherwise in order
        if on_partial is not None and slow[i] and not all(slow):
            on_partial(FaceContext().apply(concat([p for p in parts if p is not None], names)))
            on_partial = None
        t0 = time.perf_counter()
        parts[i] = detectors[i].detect(frame)
        seconds[detectors[i].name] = time.perf_counter() - t0
    fused = concat(parts, names)
    for det in detectors:  # a detector that read the frame (OCR) may revise the others' boxes
        if callable(getattr(det, "refine", None)):
            fused = det.refine(fused)
    return FaceContext().apply(fused), seconds


class Tracker(Protocol):
    """Carries boxes across frames; its output must be a superset of its input detections."""

    def update(self, detections: Detections | None, frame: np.ndarray) -> Detections:
        """Advance one frame; ``detections`` is None on frames where no detector ran."""
        ...


@dataclass(frozen=True)
class FrameResult:
    """One processed frame: the redacted image, the boxes that were hidden, and all raw boxes."""

    frame: np.ndarray
    hidden: Detections
    raw: Detections


@dataclass
class Pipeline:
    """``process(frame)`` = detect with every detector → fuse → policy → (track) → pad → redact.

    The GUI re-renders with other settings by calling ``select`` and ``render`` on stored raw
    detections, so changing style or threshold never re-runs a model.
    """

    detectors: Sequence[Detector]
    policy: Policy = field(default_factory=Policy)
    redaction: RedactionSettings = field(default_factory=RedactionSettings)
    tracker: Tracker | None = None
    sanity: BoxSanity | None = field(default_factory=BoxSanity)

    @property
    def class_names(self) -> tuple[str, ...]:
        """Union of the detectors' class tables, in detector order."""
        return fused_class_names(self.detectors)

    def detect(self, frame: np.ndarray, on_partial: Callable[[Detections], None] | None = None) -> Detections:
        """Raw fused detections from all detectors, before policy; ``on_partial`` gets the fast
        detectors' boxes first (``detect_all_timed``)."""
        return detect_all_timed(self.detectors, frame, on_partial)[0]

    def notes(self) -> tuple[str, ...]:
        """Caveats about the last ``detect`` (e.g. text OCR could not read), for the user."""
        return detector_notes(self.detectors)

    def select(self, raw: Detections, hw: tuple[int, int] | None = None) -> Detections:
        """Boxes to hide under the current policy; with the frame size ``hw`` (video and live),
        also without weak boxes too large for their class (``BoxSanity``)."""
        hidden = self.policy.select(raw)
        if hw is not None and self.sanity is not None:
            hidden = self.sanity.apply(hidden, hw)
        return hidden

    def render(self, frame: np.ndarray, hidden: Detections) -> np.ndarray:
        """Redacted copy of ``frame`` with ``hidden`` boxes padded and styled."""
        return redact(frame, self.padded(hidden, frame.shape[:2]).xyxy, self.redaction)

    def padded(self, hidden: Detections, hw: tuple[int, int]) -> Detections:
        """Detections grown by the configured padding (``padding_fractions``), clipped to the frame."""
        s = self.redaction
        return hidden.with_boxes(pad_xyxy(hidden.xyxy, padding_fractions(s, hidden.labels), s.min_padding_px, hw))

    def process(self, frame: np.ndarray, raw: Detections | None = None) -> FrameResult:
        """Run the whole chain on one frame; pass ``raw`` to reuse detections already computed."""
        raw = self.detect(frame) if raw is None else raw
        hidden = self.select(raw, frame.shape[:2] if self.tracker is not None else None)
        if self.tracker is not None:
            hidden = self.tracker.update(hidden, frame)
        return FrameResult(self.render(frame, hidden), hidden, raw)

    def with_settings(self, policy: Policy | None = None, redaction: RedactionSettings | None = None) -> "Pipeline":
        """A copy sharing detectors and tracker with another policy or redaction style."""
        return replace(self, policy=policy or self.policy, redaction=redaction or self.redaction)
