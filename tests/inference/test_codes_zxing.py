"""QR/barcode decoder plug-in: exact boxes for codes that decode, nothing elsewhere."""

from __future__ import annotations

import io

import cv2
import numpy as np
import pytest

zxingcpp = pytest.importorskip("zxingcpp")
segno = pytest.importorskip("segno")

from app.inference.codes_zxing import CodeDetector, code_box_xyxy  # noqa: E402


def _qr(text: str, scale: int = 5) -> np.ndarray:
    buf = io.BytesIO()
    segno.make(text, micro=False).save(buf, kind="png", scale=scale, border=0)
    return cv2.imdecode(np.frombuffer(buf.getvalue(), np.uint8), cv2.IMREAD_COLOR)


def _ean13() -> np.ndarray:
    img = np.asarray(zxingcpp.write_barcode_to_image(zxingcpp.create_barcode("4006381333931", zxingcpp.BarcodeFormat.EAN13), scale=3))
    img = cv2.resize(img, (img.shape[1], 120), interpolation=cv2.INTER_NEAREST) if img.shape[0] < 60 else img
    return cv2.cvtColor(img, cv2.COLOR_GRAY2BGR) if img.ndim == 2 else img


def _paste(canvas, img, x, y):
    canvas[y : y + img.shape[0], x : x + img.shape[1]] = img
    return (x, y, x + img.shape[1], y + img.shape[0])


def _covers(box, truth, share=0.9):
    iw = max(0.0, min(box[2], truth[2]) - max(box[0], truth[0]))
    ih = max(0.0, min(box[3], truth[3]) - max(box[1], truth[1]))
    return iw * ih >= share * (truth[2] - truth[0]) * (truth[3] - truth[1])


def test_qr_and_barcode_are_found_and_named():
    canvas = np.full((600, 900, 3), 255, np.uint8)
    cv2.putText(canvas, "Order 12345 - thank you", (20, 40), cv2.FONT_HERSHEY_SIMPLEX, 1.0, (0, 0, 0), 2)
    qr_truth = _paste(canvas, _qr("https://example.com/u/jane.doe"), 60, 120)
    bar = _ean13()
    bar_truth = _paste(canvas, bar, 450, 300)
    det = CodeDetector().detect(canvas)
    names = [det.class_names[i] for i in det.class_ids]
    assert sorted(names) == ["barcode", "qr_code"]
    qr_box = det.xyxy[names.index("qr_code")]
    bar_box = det.xyxy[names.index("barcode")]
    assert _covers(qr_box, qr_truth)
    assert _covers(bar_box, (bar_truth[0] + 3 * 11, bar_truth[1], bar_truth[2] - 3 * 11, bar_truth[1] + 0.4 * (bar_truth[2] - bar_truth[0])), 0.8)
    assert (qr_box[2] - qr_box[0]) * (qr_box[3] - qr_box[1]) < 1.3 * (qr_truth[2] - qr_truth[0]) * (qr_truth[3] - qr_truth[1])
    assert np.all(det.scores == 1.0)


def _damage(symbol: np.ndarray, module: int, keep: int, share: float, seed: int) -> np.ndarray:
    """Invert ``share`` of the modules, leaving ``keep`` modules at every side untouched (a QR
    code's finder patterns, a Data Matrix's L and clock edges): found, but fails its checksum."""
    out = symbol.copy()
    n = out.shape[0] // module
    rng = np.random.default_rng(seed)
    for r in range(n):
        for c in range(n):
            corner = (r < keep or r >= n - keep) and (c < keep or c >= n - keep)
            edge = symbol.ndim == 2 and (r < keep or c < keep or r >= n - keep or c >= n - keep)
            if not (corner or edge) and rng.random() < share:
                cell = out[r * module : (r + 1) * module, c * module : (c + 1) * module]
                cell[...] = 255 - cell
    return out


def test_a_damaged_qr_code_is_still_boxed():
    canvas = np.full((500, 500, 3), 255, np.uint8)
    qr = _damage(_qr("https://example.com/u/jane.doe", scale=5), 5, 9, 0.2, seed=0)
    truth = _paste(canvas, qr, 120, 150)
    assert not zxingcpp.read_barcodes(canvas, try_invert=False)  # it no longer decodes
    det = CodeDetector().detect(canvas)
    names = [det.class_names[i] for i in det.class_ids]
    assert names.count("qr_code") >= 1
    assert any(_covers(box, truth) for box in det.xyxy)


def test_a_damaged_data_matrix_is_not_boxed():
    symbol = np.asarray(zxingcpp.write_barcode_to_image(
        zxingcpp.create_barcode("jane.doe@example.com", zxingcpp.BarcodeFormat.DataMatrix), scale=6))
    canvas = np.full((300, 300, 3), 255, np.uint8)
    _paste(canvas, cv2.cvtColor(_damage(symbol, 6, 2, 0.15, seed=1), cv2.COLOR_GRAY2BGR), 50, 50)
    found = zxingcpp.read_barcodes(canvas, try_invert=False, return_errors=True)
    assert [c.format.name for c in found if c.error] == ["DataMatrix"]  # found only with an error
    assert len(CodeDetector().detect(canvas)) == 0


def test_text_without_codes_gives_no_box():
    canvas = np.full((400, 700, 3), 250, np.uint8)
    for k, line in enumerate(["Jane Doe", "jane@example.com", "+44 20 7946 0958", "|||| ||| | |||"]):
        cv2.putText(canvas, line, (20, 60 + 80 * k), cv2.FONT_HERSHEY_SIMPLEX, 1.2, (20, 20, 20), 2)
    assert len(CodeDetector().detect(canvas)) == 0


@pytest.mark.parametrize("points, cls, expect_h", [
    (np.array([[100, 50], [300, 50], [300, 52], [100, 52]], np.float32), "barcode", 0.45 * 200),  # a scan-line sliver
    (np.array([[100, 50], [200, 50], [200, 150], [100, 150]], np.float32), "qr_code", 100),  # squares keep their size
])
def test_code_box_geometry(points, cls, expect_h):
    box = code_box_xyxy(points, cls, 1000, 1000)
    h = box[3] - box[1]
    assert expect_h <= h <= expect_h * 1.1
    assert box[0] <= points[:, 0].min() and box[2] >= points[:, 0].max()


def test_boxes_are_clipped_to_the_frame():
    box = code_box_xyxy(np.array([[0, 0], [50, 0], [50, 1], [0, 1]], np.float32), "barcode", 60, 10)
    assert box[0] >= 0 and box[1] >= 0 and box[2] <= 60 and box[3] <= 10


def _small_blurred_photo_of_a_qr_code(px_per_module: float = 2.5, sigma: float = 1.0, quality: int = 70):
    """A 400×300 "photo": a QR code at ``px_per_module``, blurred, noisy and JPEG-compressed; and
    where the symbol is (xyxy, its white quiet zone left out)."""
    buf = io.BytesIO()
    segno.make("https://example.com/u/jane.doe", micro=False).save(buf, kind="png", scale=10, border=2)
    sharp = cv2.imdecode(np.frombuffer(buf.getvalue(), np.uint8), cv2.IMREAD_COLOR)
    small = cv2.resize(sharp, None, fx=px_per_module / 10, fy=px_per_module / 10, interpolation=cv2.INTER_AREA)
    canvas = np.full((300, 400, 3), 190, np.uint8)
    x0, y0, x1, y1 = _paste(canvas, small, 150, 100)
    quiet = 2 * px_per_module
    truth = (x0 + quiet, y0 + quiet, x1 - quiet, y1 - quiet)
    canvas = cv2.GaussianBlur(canvas, (0, 0), sigma)
    canvas = np.clip(canvas + np.random.default_rng(0).normal(0, 6, canvas.shape), 0, 255).astype(np.uint8)
    return cv2.imdecode(cv2.imencode(".jpg", canvas, [cv2.IMWRITE_JPEG_QUALITY, quality])[1], cv2.IMREAD_COLOR), truth


@pytest.mark.parametrize("quality", [50, 70, 90])
def test_a_small_photo_is_also_read_at_twice_its_size(quality):
    from app.inference.codes_zxing import found_symbols

    photo, truth = _small_blurred_photo_of_a_qr_code(quality=quality)
    assert not any(ok for _, _, ok in found_symbols(zxingcpp, photo, min_long_side=0))  # at its own size: not decoded
    symbols = found_symbols(zxingcpp, photo)
    assert len(symbols) == 1 and symbols[0][2]  # found once, decoded
    det = CodeDetector()
    found = det.detect(photo)
    assert found.labels == ["qr_code"] and _covers(found.xyxy[0], truth)
    assert len(det._last[0]) == 1  # a decoded symbol: it vouches for a detector box around it (``refine``)
    # a frame as large as the reading size is read as it is
    large = np.full((600, 1100, 3), 190, np.uint8)
    large[:300, :400] = photo
    assert not any(ok for _, _, ok in found_symbols(zxingcpp, large))
