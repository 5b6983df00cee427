"""Offline gap filling: with every detection of a clip known, mask each track on every frame
between its hits (both directions), plus a hold before its first and after its last hit.

A box missed for k frames between two hits of one track is interpolated and dilated with its
distance to the nearer hit, so it cannot flash through. Tracks are linked with the same
``PrivacyTracker`` as live mode (motion model only, no pixels needed).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np

from app.core.detections import Detections, Source, concat
from app.core.geometry import clip_xyxy
from app.core.tracking import PrivacyTracker, TrackerSettings, centre_velocity, grow_xyxy


@dataclass(frozen=True)
class GapFillSettings:
    """``max_gap_frames``: hits further apart start a new track. ``hold_frames``: frames masked
    before a track's first and after its last hit. Dilation grows with the distance to a hit."""

    max_gap_frames: int = 90
    hold_frames: int = 30
    dilate_per_frame: float = 0.03
    max_dilate: float = 1.0
    motion_pad: float = 2.0


@dataclass(frozen=True)
class TrackHits:
    """The hits of one track: frame indices (K,) ascending and their boxes (K, 4) xyxy."""

    track_id: int
    class_id: int
    score: float
    frames: np.ndarray
    xyxy: np.ndarray


def link_tracks(hits: Mapping[int, Detections], max_gap_frames: int) -> list[TrackHits]:
    """Group per-frame detections into tracks (same class, overlapping after motion prediction)."""
    tracker = PrivacyTracker(TrackerSettings(hold_frames=max_gap_frames, optical_flow=False))
    rows: dict[int, list[tuple[int, np.ndarray, int, float]]] = {}
    if not hits:
        return []
    for f in range(min(hits), max(hits) + 1):
        dets = hits.get(f)
        out = tracker.update(dets if dets is not None and len(dets) else None, None)
        if dets is None or not len(dets):
            continue
        for i in range(len(dets)):  # the first len(dets) rows are the inputs, in order
            rows.setdefault(int(out.track_ids[i]), []).append(
                (f, dets.xyxy[i], int(dets.class_ids[i]), float(dets.scores[i]))
            )
    tracks = []
    for tid, r in rows.items():
        tracks.append(TrackHits(tid, r[0][2], max(x[3] for x in r), np.array([x[0] for x in r]),
                                np.stack([x[1] for x in r]).astype(np.float32)))  # fmt: skip
    return tracks


def _velocity(frames: np.ndarray, xyxy: np.ndarray, at_end: bool) -> np.ndarray:
    if len(frames) < 2:
        return np.zeros(4, np.float32)
    a, b = (-2, -1) if at_end else (0, 1)
    return centre_velocity((xyxy[b] - xyxy[a]) / max(1, frames[b] - frames[a]))


def fill_track(track: TrackHits, n_frames: int, s: GapFillSettings) -> dict[int, np.ndarray]:
    """Boxes this track adds on frames without a hit: frame → (4,) xyxy (unclipped)."""
    out: dict[int, np.ndarray] = {}
    f, b = track.frames, track.xyxy
    for k in range(len(f) - 1):  # between consecutive hits: interpolate, dilate by distance
        fa, fb = int(f[k]), int(f[k + 1])
        if fb - fa < 2:
            continue
        step = np.abs(b[k + 1] - b[k]) / (fb - fa)
        for g in range(fa + 1, fb):
            t = (g - fa) / (fb - fa)
            age = min(g - fa, fb - g)
            box = (1 - t) * b[k] + t * b[k + 1]
            frac = min(s.dilate_per_frame * age, s.max_dilate)
            out[g] = grow_xyxy(box, frac, s.motion_pad * max(step[0], step[2]), s.motion_pad * max(step[1], step[3]))[0]
    for at_end in (False, True):  # hold before the first and after the last hit, extrapolated
        v = _velocity(f, b, at_end)
        anchor_f, anchor_b = (int(f[-1]), b[-1]) if at_end else (int(f[0]), b[0])
        # The largest recent size: a box clipped by the frame edge understates the object.
        near = b[-3:] if at_end else b[:3]
        half = np.array([(near[:, 2] - near[:, 0]).max(), (near[:, 3] - near[:, 1]).max()], np.float32) / 2
        c = np.array([(anchor_b[0] + anchor_b[2]) / 2, (anchor_b[1] + anchor_b[3]) / 2], np.float32)
        anchor_b = np.concatenate([c - half, c + half]).astype(np.float32)
        speed = np.abs(v)
        for age in range(1, s.hold_frames + 1):
            g = anchor_f + age if at_end else anchor_f - age
            if not 0 <= g < n_frames:
                break
            box = anchor_b + v * (age if at_end else -age)
            frac = min(s.dilate_per_frame * age, s.max_dilate)
            grown = grow_xyxy(box, frac, s.motion_pad * max(speed[0], speed[2]), s.motion_pad * max(speed[1], speed[3]))[0]
            prev = out.get(g)
            out[g] = grown if prev is None else np.concatenate([np.minimum(prev[:2], grown[:2]), np.maximum(prev[2:], grown[2:])])
    return out


def fill_gaps(
    hits: Mapping[int, Detections],
    n_frames: int,
    hw: tuple[int, int],
    class_names: tuple[str, ...],
    settings: GapFillSettings = GapFillSettings(),
) -> list[Detections]:
    """Boxes to hide on each of ``n_frames`` frames of size ``hw``: every hit (with its track id)
    plus gap-filled and held boxes tagged ``Source.TRACKER``."""
    tracks = link_tracks(hits, settings.max_gap_frames)
    added: dict[int, list[tuple[np.ndarray, TrackHits]]] = {}
    for tr in tracks:
        for g, box in fill_track(tr, n_frames, settings).items():
            added.setdefault(g, []).append((box, tr))
    ids: dict[tuple[int, int], int] = {}
    for tr in tracks:
        for f, box in zip(tr.frames, tr.xyxy):
            ids[(int(f), hash(box.tobytes()))] = tr.track_id
    out: list[Detections] = []
    empty = Detections.empty(class_names)
    for g in range(n_frames):
        parts = []
        dets = hits.get(g)
        if dets is not None and len(dets):
            tids = [ids.get((g, hash(box.tobytes())), -1) for box in dets.xyxy]
            parts.append(Detections(dets.xyxy, dets.scores, dets.class_ids, dets.class_names, tids, dets.sources))
        extra = added.get(g)
        if extra:
            xyxy = clip_xyxy(np.stack([e[0] for e in extra]), hw)
            parts.append(Detections(xyxy, [e[1].score for e in extra], [e[1].class_id for e in extra], class_names,
                                    [e[1].track_id for e in extra], np.full(len(extra), Source.TRACKER)))  # fmt: skip
        out.append(concat(parts, class_names) if parts else empty)
    return out
