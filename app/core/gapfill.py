"""Offline gap filling: with every detection of a clip known, mask each track on every frame
between its hits (both directions), plus a hold before its first and after its last hit.

Boxes are moved with the *measured* motion of the picture when it is given (``ClipMotion``: the
cumulative global shift of each frame, e.g. a pan or a scroll), so interpolation, extrapolation
and the speed corridor all work in scene coordinates, where a pan is no motion at all. A filled
box grows only by the measured motion error accumulated since the nearer hit (``error_sigmas``
× root of summed squared per-frame errors) plus the object's own measured speed where it is
extrapolated, capped at ``max_dilate_px``; never by a fixed amount per frame. Tracks are linked
with the same ``PrivacyTracker`` as live mode (motion model only, no pixels needed). With a hold
earned per hit, a track is bridged only across gaps its hold from both sides would cover
(``bridged_segments``): a weak box seen now and then does not hold the frame for seconds.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Mapping

import numpy as np

from app.core.detections import Detections, Source, concat
from app.core.geometry import clip_xyxy
from app.core.tracking import PrivacyTracker, TrackerSettings, cut_sides, grow_xyxy, object_velocity


@dataclass(frozen=True)
class GapFillSettings:
    """``max_gap_frames``: hits further apart start a new track. ``hold_frames``: frames masked
    before a track's first and after its last hit. ``error_sigmas``/``max_dilate_px``: growth from
    the measured motion error and its cap. ``coast_speed``: extra growth per frame held, as a
    fraction of the object's own measured speed (it may turn or stop). ``speed_margin`` and
    ``min_speed`` bound the object's speed between hits for the corridor. ``hold_per_hit`` (0 =
    off): a track's hold is at most this many frames per hit it has, so one stray detection is
    held briefly while an object the detector kept seeing is held the full ``hold_frames``: the
    hold protects what the detector loses, and it had never been seeing a one-off box. With it,
    a gap is bridged only where the track's hold from both of its sides would reach across it,
    unless a hit of the track scored ``sure_score`` or more (``bridged_segments``).
    ``link_growth``: how far (in box short sides per frame unseen) a hit may lie from a track's
    predicted scene position and still join it (0: only overlapping or within one short side).
    ``speed_baseline``: velocities and speed bounds are measured between hits at least this many
    frames apart where there are such (1: neighbouring hits)."""

    max_gap_frames: int = 90
    hold_frames: int = 30
    hold_per_hit: int = 0
    error_sigmas: float = 3.0
    max_dilate_px: float = 48.0
    coast_speed: float = 0.5
    motion_pad: float = 2.0
    speed_margin: float = 1.5
    min_speed: float = 0.0
    link_growth: float = 0.25
    speed_baseline: int = 1
    sure_score: float = 0.5


@dataclass(frozen=True)
class ClipMotion:
    """Measured motion of every frame of a clip: ``offsets`` (N, 2) cumulative global shift in
    source px (content at (x, y) on frame 0 is at (x, y) + offsets[f] on frame f) and
    ``variance`` (N,) cumulative sum of squared per-frame errors, px²."""

    offsets: np.ndarray
    variance: np.ndarray

    @classmethod
    def still(cls, n_frames: int) -> "ClipMotion":
        """No measured motion (every offset 0, no error)."""
        return cls(np.zeros((n_frames, 2), np.float32), np.zeros(n_frames, np.float64))

    def error(self, a: int, b: int, sigmas: float) -> float:
        """Measured error (px, ``sigmas`` × root of the summed variances) between frames a and b."""
        n = len(self.variance) - 1
        va, vb = self.variance[min(max(a, 0), n)], self.variance[min(max(b, 0), n)]
        return sigmas * float(np.sqrt(abs(vb - va)))

    def shift4(self, f: int) -> np.ndarray:
        """(4,) xyxy offset of frame ``f`` (clamped to the clip)."""
        o = self.offsets[min(max(f, 0), len(self.offsets) - 1)]
        return np.array([o[0], o[1], o[0], o[1]], np.float32)


@dataclass(frozen=True)
class TrackHits:
    """The hits of one track: frame indices (K,) ascending and their boxes (K, 4) xyxy; ``cut``
    (K, 4) bool: the sides of each box that the frame's border cuts (None: none known)."""

    track_id: int
    class_id: int
    score: float
    frames: np.ndarray
    xyxy: np.ndarray
    cut: np.ndarray | None = None

    def part(self, a: int, b: int) -> "TrackHits":
        """The hits ``a`` up to, not including, ``b``."""
        return replace(self, frames=self.frames[a:b], xyxy=self.xyxy[a:b],
                       cut=None if self.cut is None else self.cut[a:b])  # fmt: skip

    def displacement(self, a: int, b: int) -> np.ndarray:
        """(dx, dy) px the object moved from hit ``a`` to hit ``b``: its centre's motion, except on
        an axis where the frame's border cuts a side of either box. That side stands still while
        the object goes out of view (or comes in), so only the other side moves with the object
        (``tracking.object_velocity``): the centre of an avatar scrolled half out of view moves
        at half the scroll while the avatar stands still in the scrolled page."""
        cut = None if self.cut is None else self.cut[a] | self.cut[b]
        return object_velocity(self.xyxy[b] - self.xyxy[a], cut)


def link_tracks(hits: Mapping[int, Detections], max_gap_frames: int, growth: float = 0.25) -> list[TrackHits]:
    """Group per-frame detections into tracks (same class, overlapping after motion prediction,
    or near it in units of the box's short side, ``growth`` more per frame unseen: neighbouring
    text lines stay apart)."""
    tracker = PrivacyTracker(TrackerSettings(hold=max_gap_frames, optical_flow=False, gate_short_side=True,
                                             gate_growth=growth))  # fmt: skip
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


def _partner(frames: np.ndarray, k: int, step: int, baseline: int) -> int:
    """The hit on the ``step`` (±1) side of hit ``k`` nearest to ``baseline`` frames away or
    beyond it (the farthest one when all are nearer); ``k`` itself when there is none."""
    j = k
    while 0 <= j + step < len(frames):
        j += step
        if abs(int(frames[j]) - int(frames[k])) >= baseline:
            break
    return j


def _velocity(track: TrackHits, k: int, forward: bool, baseline: int = 1) -> np.ndarray:
    """Object velocity (px/frame, (4,) as xyxy) at hit ``k``, measured over at least ``baseline``
    frames on the side it came from (a box that jitters by a few px between hits two frames apart
    is not moving), sides cut by the frame's border left out (``TrackHits.displacement``)."""
    frames = track.frames
    j = _partner(frames, k, -1 if forward else 1, baseline)
    if j == k:
        return np.zeros(4, np.float32)
    a, b = (j, k) if forward else (k, j)
    vx, vy = track.displacement(a, b) / max(1, frames[b] - frames[a])
    return np.array([vx, vy, vx, vy], np.float32)


def _extrapolate(track: TrackHits, k: int, forward: bool, stop: int, s: GapFillSettings, motion: ClipMotion,
                 out: dict[int, list[np.ndarray]], hold: int | None = None) -> None:  # fmt: skip
    """Hold boxes from hit ``k`` forward (or backward) up to, not including, frame ``stop``."""
    f, b = track.frames, track.xyxy
    v = _velocity(track, k, forward, s.speed_baseline)
    # The largest nearby size: a box clipped by the frame edge understates the object.
    near = b[max(0, k - 2) : k + 3]
    half = np.array([(near[:, 2] - near[:, 0]).max(), (near[:, 3] - near[:, 1]).max()], np.float32) / 2
    c = np.array([(b[k, 0] + b[k, 2]) / 2, (b[k, 1] + b[k, 3]) / 2], np.float32)
    anchor = np.concatenate([c - half, c + half]).astype(np.float32)
    vx, vy = abs(float(v[0])), abs(float(v[1]))
    for age in range(1, (s.hold_frames if hold is None else hold) + 1):
        g = int(f[k]) + (age if forward else -age)
        if (g >= stop) if forward else (g <= stop):
            break
        err = motion.error(int(f[k]), g, s.error_sigmas)
        gx = min(err + s.coast_speed * vx * age, s.max_dilate_px) + s.motion_pad * vx
        gy = min(err + s.coast_speed * vy * age, s.max_dilate_px) + s.motion_pad * vy
        out.setdefault(g, []).append(grow_xyxy(anchor + v * (age if forward else -age), 0.0, gx, gy)[0])


def _speed_bound(track: TrackHits, s: GapFillSettings) -> np.ndarray:
    """Per-axis speed bound (px/frame): the fastest object motion (``TrackHits.displacement``) seen
    between hits at least ``speed_baseline`` frames apart (box jitter over two frames is no speed),
    times a margin (chords between sparse hits understate speed on curves), plus a floor."""
    if len(track.frames) < 2:
        return np.full(2, s.min_speed, np.float32)
    return (_pair_speeds(track, 0, len(track.frames), s.speed_baseline) * s.speed_margin + s.min_speed).astype(np.float32)


def _corridor(ba: np.ndarray, bb: np.ndarray, fa: int, fb: int, vmax: np.ndarray, out: dict[int, list[np.ndarray]],
              error: Callable[[int], float] = lambda g: 0.0) -> None:  # fmt: skip
    """Where an object of bounded speed can be between two hits: the intersection of each hit
    box grown by the distance it could travel since (or until) then, plus the measured motion
    error ``error(g)`` px. Contains the object on every gap frame whatever its path, as long as its
    speed stays within ``vmax``."""
    size = np.maximum(ba[2:] - ba[:2], bb[2:] - bb[:2]) / 2  # clipped boxes understate size
    ca, cb = (ba[:2] + ba[2:]) / 2, (bb[:2] + bb[2:]) / 2
    for g in range(fa + 1, fb):
        ra, rb = vmax * (g - fa), vmax * (fb - g)
        lo = np.maximum(ca - size - ra, cb - size - rb)
        hi = np.minimum(ca + size + ra, cb + size + rb)
        if np.all(hi > lo):
            e = error(g)
            out.setdefault(g, []).append(np.concatenate([lo - e, hi + e]).astype(np.float32))


def _pair_speeds(track: TrackHits, lo: int, hi: int, baseline: int) -> np.ndarray:
    """Fastest per-axis object speed (px/frame) between hits ``lo`` ≤ k < ``hi`` of ``track`` (at
    least two) and their partners at least ``baseline`` frames on (``_partner``, within the range)."""
    f = track.frames[lo:hi]
    pairs = [(k, _partner(f, k, 1, baseline)) for k in range(len(f) - 1)]
    return np.array([np.abs(track.displacement(lo + k, lo + j)) / max(1, int(f[j]) - int(f[k]))
                     for k, j in pairs], np.float32).max(0)  # fmt: skip


def _side_speed(track: TrackHits, lo: int, hi: int, baseline: int) -> np.ndarray | None:
    """Per-axis speed bound (px/frame) from the hits ``lo`` ≤ k < ``hi`` on one side of a gap, over
    pairs at least ``baseline`` frames apart; None when they span less than ``baseline`` frames."""
    f = track.frames[lo:hi]
    if len(f) < 2 or int(f[-1]) - int(f[0]) < baseline:
        return None
    return _pair_speeds(track, lo, hi, baseline)


def split_at_jumps(track: TrackHits, s: GapFillSettings) -> list[TrackHits]:
    """``track`` cut where it jumps across a gap of more than ``speed_baseline`` frames faster than
    its hits on either side ever moved (``speed_margin`` × that speed, plus half the box's size
    for the jitter of its centre). On a scrolled list, two avatars of one column linked across a
    second unseen are two still objects, not one crossing the screen; interpolating between them
    masks the rows between. A side whose hits span less than ``speed_baseline`` frames gives no
    speed; with none on either side, no cut. (Speeds measured only on the runs of hits next to
    the gap cut more tracks of a scrolled contact list, and leaked 10 more frames of 150 there.)
    Speeds and the jump leave out sides cut by the frame's border (``TrackHits.displacement``):
    an avatar shrinking out of view is no speed that would excuse a jump."""
    f, b = track.frames, track.xyxy
    cuts = []
    for k in range(len(f) - 1):
        gap = int(f[k + 1]) - int(f[k])
        if gap <= s.speed_baseline:
            continue
        speeds = [v for v in (_side_speed(track, 0, k + 1, s.speed_baseline),
                              _side_speed(track, k + 1, len(f), s.speed_baseline)) if v is not None]  # fmt: skip
        if not speeds:
            continue
        jitter = np.maximum(b[k, 2:] - b[k, :2], b[k + 1, 2:] - b[k + 1, :2]) / 2
        if np.any(np.abs(track.displacement(k, k + 1)) > np.max(speeds, 0) * s.speed_margin * gap + jitter):
            cuts.append(k + 1)
    if not cuts:
        return [track]
    bounds = [0, *cuts, len(f)]
    return [track.part(a, e) for a, e in zip(bounds[:-1], bounds[1:])]


def bridged_segments(track: TrackHits, s: GapFillSettings) -> list[TrackHits]:
    """``track`` cut at the gaps its hold does not bridge, when ``hold_per_hit`` is set and no hit
    of it scored ``sure_score`` or more (else ``[track]``: a confident detection, more likely right
    than wrong, keeps every gap up to ``max_gap_frames`` bridged). The track's hold (``track_hold``,
    what ``fill_track`` extrapolates before its first and after its last hit) from both sides of a
    gap must reach across it. So a weak track is never bridged across more time than its holds
    would mask; bridging only masks that time better (interpolated, not extrapolated). The parts
    are filled like tracks of their own, each held by its own hits: a weak box seen on a few
    scattered frames is masked around those frames, not for the seconds between them.

    (Counting only the hits on each side of a gap cut more, but a track that had just begun then
    lost an object the old bridge held: ``bench-video --parts leak`` leaked 9 frames at stride 4.
    Confident tracks are not cut because the leak check's 0 at stride 4 also rests on the picture's
    motion error, which its flat synthetic background over-states: with that error measured on the
    background only, cutting every track leaked 16 frames there, bridging all of them 9.)"""
    f = track.frames
    if not s.hold_per_hit or len(f) < 2 or track.score >= s.sure_score:
        return [track]
    hold = track_hold(track, s)
    cuts = [k + 1 for k in range(len(f) - 1) if int(f[k + 1]) - int(f[k]) - 1 > 2 * hold]
    bounds = [0, *cuts, len(f)]
    return [track.part(a, b) for a, b in zip(bounds[:-1], bounds[1:])]


def track_hold(track: TrackHits, s: GapFillSettings) -> int:
    """Frames ``track`` is held before its first and after its last hit: ``hold_frames``, at most
    ``hold_per_hit`` per hit when that is set."""
    return min(s.hold_frames, s.hold_per_hit * len(track.frames)) if s.hold_per_hit else s.hold_frames


def fill_track(track: TrackHits, n_frames: int, s: GapFillSettings,
               motion: ClipMotion | None = None) -> dict[int, list[np.ndarray]]:  # fmt: skip
    """Boxes this track adds to its hits: frame → list of (4,) xyxy (unclipped), in the
    coordinates of ``track`` (scene coordinates when the caller compensated motion).

    On the frame of a hit between two others: their interpolation, where the hit does not hold
    it. A box that falls short of both its neighbours is the detector placing it badly on that
    frame (a hard picture half in view), not the object shrinking and growing back.

    Between two hits: the interpolated box (grown by the measured error to the nearer hit) and,
    in gaps of more than one frame, the speed-bounded corridor, which holds the object whatever
    its path (a turn, a stop) while its speed stays within what the track showed; no holds are
    extrapolated into a gap on top of them (links are gated tightly in scene coordinates, and the
    extra holds only widened the mask). Before the first and after the last hit: the hold,
    extrapolated with the track's velocity there, for ``track_hold`` frames.
    """
    motion = motion or ClipMotion.still(n_frames)
    out: dict[int, list[np.ndarray]] = {}
    f, b = track.frames, track.xyxy
    vmax = _speed_bound(track, s)
    for k in range(len(f) - 1):
        fa, fb = int(f[k]), int(f[k + 1])
        if fb - fa < 2:
            continue
        step = np.abs(b[k + 1] - b[k]) / (fb - fa)
        errors: dict[int, float] = {}
        for g in range(fa + 1, fb):
            t = (g - fa) / (fb - fa)
            err = min(motion.error(fa, g, s.error_sigmas), motion.error(g, fb, s.error_sigmas), s.max_dilate_px)
            errors[g] = err
            box = (1 - t) * b[k] + t * b[k + 1]
            out.setdefault(g, []).append(
                grow_xyxy(box, 0.0, err + s.motion_pad * max(step[0], step[2]), err + s.motion_pad * max(step[1], step[3]))[0]
            )
        if fb - fa > 2:
            _corridor(b[k], b[k + 1], fa, fb, vmax, out, errors.get)
    for k in range(1, len(f) - 1):
        fa, fk, fb = int(f[k - 1]), int(f[k]), int(f[k + 1])
        t = (fk - fa) / (fb - fa)
        between = (1 - t) * b[k - 1] + t * b[k + 1]
        if np.any(between[:2] < b[k, :2]) or np.any(between[2:] > b[k, 2:]):
            out.setdefault(fk, []).append(between.astype(np.float32))
    hold = track_hold(track, s)
    _extrapolate(track, 0, False, -1, s, motion, out, hold)
    _extrapolate(track, len(f) - 1, True, n_frames, s, motion, out, hold)
    return out


def fill_gaps(
    hits: Mapping[int, Detections],
    n_frames: int,
    hw: tuple[int, int],
    class_names: tuple[str, ...],
    settings: GapFillSettings = GapFillSettings(),
    motion: ClipMotion | None = None,
) -> list[Detections]:
    """Boxes to hide on each of ``n_frames`` frames of size ``hw``: every hit (with its track id)
    plus gap-filled and held boxes tagged ``Source.TRACKER``. With ``motion`` (measured per
    frame), boxes are carried in scene coordinates: a pan or scroll moves them with the picture."""
    motion = motion or ClipMotion.still(n_frames)
    scene = {f: d.with_boxes(d.xyxy - motion.shift4(f)) if len(d) else d for f, d in hits.items()}
    tracks = link_tracks(scene, settings.max_gap_frames, settings.link_growth)
    added: dict[int, list[tuple[np.ndarray, TrackHits]]] = {}
    for tr in tracks:
        tr = replace(tr, cut=cut_sides(tr.xyxy + np.stack([motion.shift4(int(f)) for f in tr.frames]), hw))
        for part in (p for piece in split_at_jumps(tr, settings) for p in bridged_segments(piece, settings)):
            for g, boxes in fill_track(part, n_frames, settings, motion).items():
                added.setdefault(g, []).extend((box + motion.shift4(g), tr) for box in boxes)
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
            tids = [ids.get((g, hash(box.tobytes())), -1) for box in scene[g].xyxy]
            parts.append(Detections(dets.xyxy, dets.scores, dets.class_ids, dets.class_names, tids, dets.sources))
        extra = added.get(g)
        if extra:
            xyxy = clip_xyxy(np.stack([e[0] for e in extra]), hw)
            parts.append(Detections(xyxy, [e[1].score for e in extra], [e[1].class_id for e in extra], class_names,
                                    [e[1].track_id for e in extra], np.full(len(extra), Source.TRACKER)))  # fmt: skip
        out.append(concat(parts, class_names) if parts else empty)
    return out
