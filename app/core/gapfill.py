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
    speed_margin: float = 1.5
    min_speed: float = 1.0


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


def _velocity(frames: np.ndarray, xyxy: np.ndarray, k: int, forward: bool) -> np.ndarray:
    """Centre velocity (px/frame) at hit ``k`` from its neighbour on the side it came from."""
    j = k - 1 if forward else k + 1
    if not 0 <= j < len(frames):
        return np.zeros(4, np.float32)
    a, b = (j, k) if forward else (k, j)
    return centre_velocity((xyxy[b] - xyxy[a]) / max(1, frames[b] - frames[a]))


def _extrapolate(track: TrackHits, k: int, forward: bool, stop: int, s: GapFillSettings,
                 out: dict[int, list[np.ndarray]]) -> None:  # fmt: skip
    """Hold boxes from hit ``k`` forward (or backward) up to, not including, frame ``stop``."""
    f, b = track.frames, track.xyxy
    v = _velocity(f, b, k, forward)
    # The largest nearby size: a box clipped by the frame edge understates the object.
    near = b[max(0, k - 2) : k + 3]
    half = np.array([(near[:, 2] - near[:, 0]).max(), (near[:, 3] - near[:, 1]).max()], np.float32) / 2
    c = np.array([(b[k, 0] + b[k, 2]) / 2, (b[k, 1] + b[k, 3]) / 2], np.float32)
    anchor = np.concatenate([c - half, c + half]).astype(np.float32)
    pad_x, pad_y = s.motion_pad * abs(float(v[0])), s.motion_pad * abs(float(v[1]))
    for age in range(1, s.hold_frames + 1):
        g = int(f[k]) + (age if forward else -age)
        if (g >= stop) if forward else (g <= stop):
            break
        frac = min(s.dilate_per_frame * age, s.max_dilate)
        out.setdefault(g, []).append(grow_xyxy(anchor + v * (age if forward else -age), frac, pad_x, pad_y)[0])


def _speed_bound(track: TrackHits, s: GapFillSettings) -> np.ndarray:
    """Per-axis speed bound (px/frame): the fastest centre motion seen between hits, times a
    margin (chords between sparse hits understate speed on curves), plus a floor."""
    f, b = track.frames, track.xyxy
    c = np.stack([(b[:, 0] + b[:, 2]) / 2, (b[:, 1] + b[:, 3]) / 2], 1)
    if len(f) < 2:
        return np.full(2, s.min_speed, np.float32)
    v = np.abs(np.diff(c, axis=0)) / np.maximum(np.diff(f), 1)[:, None]
    return (v.max(0) * s.speed_margin + s.min_speed).astype(np.float32)


def _corridor(ba: np.ndarray, bb: np.ndarray, fa: int, fb: int, vmax: np.ndarray,
              out: dict[int, list[np.ndarray]]) -> None:  # fmt: skip
    """Where an object of bounded speed can be between two hits: the intersection of each hit
    box grown by the distance it could travel since (or until) then. Contains the object on every
    gap frame whatever its path, as long as its speed stays within ``vmax``."""
    size = np.maximum(ba[2:] - ba[:2], bb[2:] - bb[:2]) / 2  # clipped boxes understate size
    ca, cb = (ba[:2] + ba[2:]) / 2, (bb[:2] + bb[2:]) / 2
    for g in range(fa + 1, fb):
        ra, rb = vmax * (g - fa), vmax * (fb - g)
        lo = np.maximum(ca - size - ra, cb - size - rb)
        hi = np.minimum(ca + size + ra, cb + size + rb)
        if np.all(hi > lo):
            out.setdefault(g, []).append(np.concatenate([lo, hi]).astype(np.float32))


def fill_track(track: TrackHits, n_frames: int, s: GapFillSettings) -> dict[int, list[np.ndarray]]:
    """Boxes this track adds on frames without a hit: frame → list of (4,) xyxy (unclipped).

    Between two hits: the interpolated box (dilated by distance to the nearer hit) plus a hold
    extrapolated forward from the earlier and backward from the later hit, so a wrong link or
    non-linear motion in a long gap is still covered by one of the three. Before the first and
    after the last hit: the hold, extrapolated with the track's velocity there.
    """
    out: dict[int, list[np.ndarray]] = {}
    f, b = track.frames, track.xyxy
    vmax = _speed_bound(track, s)
    for k in range(len(f) - 1):
        fa, fb = int(f[k]), int(f[k + 1])
        if fb - fa < 2:
            continue
        step = np.abs(b[k + 1] - b[k]) / (fb - fa)
        for g in range(fa + 1, fb):
            t = (g - fa) / (fb - fa)
            frac = min(s.dilate_per_frame * min(g - fa, fb - g), s.max_dilate)
            box = (1 - t) * b[k] + t * b[k + 1]
            out.setdefault(g, []).append(
                grow_xyxy(box, frac, s.motion_pad * max(step[0], step[2]), s.motion_pad * max(step[1], step[3]))[0]
            )
        if fb - fa > 2:
            _extrapolate(track, k, True, fb, s, out)
            _extrapolate(track, k + 1, False, fa, s, out)
            _corridor(b[k], b[k + 1], fa, fb, vmax, out)
    _extrapolate(track, 0, False, -1, s, out)
    _extrapolate(track, len(f) - 1, True, n_frames, s, out)
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
        for g, boxes in fill_track(tr, n_frames, settings).items():
            added.setdefault(g, []).extend((box, tr) for box in boxes)
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
