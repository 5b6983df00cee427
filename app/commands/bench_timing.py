"""Timing helpers for the bench commands: wall and CPU seconds side by side, time spent inside
each ONNX Runtime session, and detector caches switched off while timing.

On a shared machine wall time mostly measures how long the process waited for a core; the
process's CPU time (all threads) does not. Both are printed so a figure can be judged: on an idle
machine with ``n`` cores, wall ≈ CPU / n for work that uses every core.
"""

from __future__ import annotations

import statistics
import time
from contextlib import contextmanager
from dataclasses import dataclass, replace
from typing import Callable, Iterator, Sequence


@dataclass(frozen=True)
class Timing:
    """Median wall-clock and process CPU seconds (all threads) of repeated runs."""

    wall: float
    cpu: float
    runs: int = 1

    def text(self, unit: str = "s") -> str:
        """'1.234 s wall, 2.000 s CPU' (or ms with ``unit='ms'``)."""
        k = 1000.0 if unit == "ms" else 1.0
        digits = 1 if unit == "ms" else 3
        return f"{self.wall * k:.{digits}f} {unit} wall, {self.cpu * k:.{digits}f} {unit} CPU"


def measure(fn: Callable[[], object], repeat: int, warmup: bool = True) -> Timing:
    """Medians of wall and CPU time of ``fn`` over ``repeat`` runs (after one warm-up run)."""
    if warmup:
        fn()
    walls, cpus = [], []
    for _ in range(max(1, repeat)):
        c0, t0 = time.process_time(), time.perf_counter()
        fn()
        walls.append(time.perf_counter() - t0)
        cpus.append(time.process_time() - c0)
    return Timing(statistics.median(walls), statistics.median(cpus), len(walls))


class SessionClock:
    """Adds up wall time, CPU time and calls spent inside named ORT sessions' ``run``.

    The sessions are wrapped in place (an instance attribute shadows ``run``) until ``close``.
    CPU time is the whole process's, so it is exact only while nothing else runs in parallel.
    """

    def __init__(self, sessions: dict[str, object]) -> None:
        self.totals: dict[str, list[float]] = {name: [0.0, 0.0, 0] for name in sessions}
        self._wrapped = []
        for name, session in sessions.items():
            self._wrap(name, session)

    def _wrap(self, name: str, session) -> None:
        original = session.run
        totals = self.totals[name]

        def run(*args, **kwargs):
            c0, t0 = time.process_time(), time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                totals[0] += time.perf_counter() - t0
                totals[1] += time.process_time() - c0
                totals[2] += 1

        session.run = run
        self._wrapped.append(session)

    def reset(self) -> None:
        """Zero every total."""
        for totals in self.totals.values():
            totals[:] = [0.0, 0.0, 0]

    def summary(self, per: int = 1) -> str:
        """'name N calls a s wall / b s CPU, ...' per ``per`` repetitions."""
        return ", ".join(f"{name} {calls // per} calls {wall / per:.3f} s wall / {cpu / per:.3f} s CPU"
                         for name, (wall, cpu, calls) in self.totals.items() if calls)  # fmt: skip

    def close(self) -> None:
        """Remove the wrappers."""
        for session in self._wrapped:
            vars(session).pop("run", None)
        self._wrapped.clear()


def detector_sessions(detector) -> dict[str, object]:
    """The ORT sessions a detector plug-in runs, by a short name ('detector', 'faces', 'ocr-det',
    'ocr-rec', ...); empty for detectors without one (e.g. the zxing code reader)."""
    engine = getattr(detector, "engine", None)
    if engine is not None:  # RapidOCR: our sessions sit inside its stage objects
        stages = {"ocr-det": getattr(engine, "text_det", None), "ocr-rec": getattr(engine, "text_rec", None),
                  "ocr-cls": getattr(engine, "text_cls", None)}  # fmt: skip
        found = {name: getattr(getattr(stage, "session", None), "session", None) for name, stage in stages.items()}
        return {name: s for name, s in found.items() if s is not None and hasattr(s, "run")}
    session = getattr(detector, "session", None)
    return {detector.name: session} if session is not None and hasattr(session, "run") else {}


@contextmanager
def without_tile_reuse(detectors: Sequence[object]) -> Iterator[None]:
    """Switch off the VPD detector's unchanged-tile reuse while timing: the bench repeats one
    frame, and reused tiles would make every run after the first nearly free."""
    saved = []
    for det in detectors:
        tiling = getattr(det, "tiling", None)
        if tiling is not None and getattr(tiling, "reuse_unchanged", False):
            saved.append((det, tiling))
            det.tiling = replace(tiling, reuse_unchanged=False)
    try:
        yield
    finally:
        for det, tiling in saved:
            det.tiling = tiling
