"""The one-colour panel round a sign's text: its edges are found on a textured wall, a growth
wider than a tight plate is cut back to the plate, a narrower one is widened to it, a plate cut
by the frame ends at the frame, and text on a plain wall (no edge) keeps the caller's growth."""

import numpy as np

from app.inference.sign_panel import fit_to_panel, panel_bounds

GREEN = (40, 110, 30)  # BGR of a street-name plate
TEXT_H = 20.0


def wall(h=300, w=500, seed=0):
    """A brick-like wall: coarse random blotches that never form one flat colour."""
    rng = np.random.default_rng(seed)
    blotches = rng.integers(60, 200, (h // 10 + 1, w // 10 + 1, 3)).astype(np.uint8)
    return np.ascontiguousarray(np.kron(blotches, np.ones((10, 10, 1), np.uint8))[:h, :w])


def sign_on(frame, plate, text):
    """``frame`` with a green ``plate`` (xyxy) and a white text bar ``text`` (xyxy) on it."""
    out = frame.copy()
    x0, y0, x1, y1 = plate
    out[y0:y1, x0:x1] = GREEN
    tx0, ty0, tx1, ty1 = text
    for x in range(tx0, tx1, 12):  # letters with gaps between them
        out[ty0:ty1, x : min(x + 8, tx1)] = 255
    return out


def grown_by(span, gx, gy, h=TEXT_H):
    """The caller's fixed growth of ``span``: ``gx`` / ``gy`` text heights per side."""
    return np.array(span, np.float32) + np.array([-gx * h, -gy * h, gx * h, gy * h], np.float32)


def test_edges_of_a_plate_on_a_textured_wall_are_found():
    plate, span = (150, 110, 350, 170), (180, 130, 320, 150)
    edges = panel_bounds(sign_on(wall(), plate, span), np.array(span, np.float32), TEXT_H)
    rim = 0.15 * TEXT_H
    assert np.allclose(edges, np.array(plate, np.float32) + [-rim, -rim, rim, rim], atol=2.5)


def test_a_growth_wider_than_a_tight_plate_is_cut_back_to_the_plate():
    plate, span = (170, 120, 330, 160), (180, 130, 320, 150)  # 10 px margins: half a letter height
    frame = sign_on(wall(), plate, span)
    grown = grown_by(span, 0.6 * 3, 0.4 * 3)  # far beyond the plate on every side
    fitted = fit_to_panel(frame, np.array(span, np.float32), grown, TEXT_H)
    assert np.all(np.abs(fitted - np.array(plate, np.float32)) <= 0.15 * TEXT_H + 2.5)
    assert (fitted[2] - fitted[0]) < (grown[2] - grown[0]) - 2 * TEXT_H


def test_a_growth_narrower_than_a_wide_plate_is_widened_to_the_plate():
    plate, span = (140, 100, 360, 180), (180, 130, 320, 150)  # 2 letter heights each side
    frame = sign_on(wall(), plate, span)
    grown = grown_by(span, 0.6, 0.4)
    fitted = fit_to_panel(frame, np.array(span, np.float32), grown, TEXT_H)
    assert fitted[0] <= plate[0] and fitted[1] <= plate[1] and fitted[2] >= plate[2] and fitted[3] >= plate[3]
    assert np.all(np.abs(fitted - np.array(plate, np.float32)) <= 0.15 * TEXT_H + 2.5)


def test_a_plate_cut_by_the_frame_ends_at_the_frame():
    plate, span = (0, 110, 200, 170), (20, 130, 160, 150)  # runs off the left edge
    fitted = fit_to_panel(sign_on(wall(), plate, span), np.array(span, np.float32), grown_by(span, 0.6, 0.4), TEXT_H)
    assert fitted[0] == 0.0
    assert abs(fitted[2] - (plate[2] + 0.15 * TEXT_H)) <= 2.5


def test_text_on_a_plain_wall_keeps_the_callers_growth():
    frame = np.full((300, 500, 3), GREEN, np.uint8)  # the "plate" colour runs past every search
    span = (180, 130, 320, 150)
    frame[130:150, 180:320:12] = 255
    grown = grown_by(span, 0.6, 0.4)
    assert np.isnan(panel_bounds(frame, np.array(span, np.float32), TEXT_H)).all()
    assert np.array_equal(fit_to_panel(frame, np.array(span, np.float32), grown, TEXT_H), grown)
