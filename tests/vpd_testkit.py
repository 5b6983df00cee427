"""Shared test helpers: a tiny ONNX detector with fixed outputs, rendered text frames."""

from __future__ import annotations

import json
import threading
import time
from pathlib import Path
from typing import Sequence

import cv2
import numpy as np

CLASS_NAMES = ("face", "email", "license_plate")


def make_detector_onnx(
    path: Path,
    boxes: Sequence[tuple[int, float, float, float, float, float]],
    class_names: Sequence[str] = CLASS_NAMES,
    imgsz: int = 64,
    layout: str = "head",
    metadata: dict[str, str] | None = None,
) -> Path:
    """Write an ONNX model whose output is fixed: ``boxes`` = (class_id, x1, y1, x2, y2, score)
    in model-input pixels. ``layout`` 'head' → (1, 4+nc, N) cxcywh; 'e2e' → (1, K, 6).

    The output still depends on the input (``+ 0 * mean(input)``) so ORT cannot fold it away.
    """
    import onnx
    from onnx import TensorProto, helper, numpy_helper

    nc = len(class_names)
    if layout == "head":
        n = max(len(boxes), 1) + 2
        raw = np.zeros((1, 4 + nc, n), np.float32)
        for j, (c, x1, y1, x2, y2, s) in enumerate(boxes):
            raw[0, :4, j] = [(x1 + x2) / 2, (y1 + y2) / 2, x2 - x1, y2 - y1]
            raw[0, 4 + c, j] = s
    else:
        raw = np.zeros((1, 300, 6), np.float32)
        for j, (c, x1, y1, x2, y2, s) in enumerate(boxes):
            raw[0, j] = [x1, y1, x2, y2, s, c]
    const = numpy_helper.from_array(raw, "fixed")
    nodes = [
        helper.make_node("ReduceMean", ["images"], ["mean"], keepdims=0),
        helper.make_node("Mul", ["mean", "zero"], ["zeroed"]),
        helper.make_node("Add", ["fixed", "zeroed"], ["output0"]),
    ]
    graph = helper.make_graph(
        nodes,
        "tiny_detector",
        [helper.make_tensor_value_info("images", TensorProto.FLOAT, [1, 3, imgsz, imgsz])],
        [helper.make_tensor_value_info("output0", TensorProto.FLOAT, list(raw.shape))],
        initializer=[const, numpy_helper.from_array(np.zeros((), np.float32), "zero")],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    model.ir_version = 8
    meta = {
        "vpd_schema_version": "1",
        "vpd_class_names": json.dumps(list(class_names)),
        "vpd_domains": json.dumps({"test": list(class_names)}),
        "imgsz": json.dumps([imgsz, imgsz]),
        "stride": "32",
    }
    if metadata is not None:
        meta = {k: v for k, v in {**meta, **metadata}.items() if v is not None}
    for k, v in meta.items():
        entry = model.metadata_props.add()
        entry.key, entry.value = k, v
    onnx.save(model, str(path))
    return path


def text_frame(h: int = 64, w: int = 64, text: str = "a@b.io", box=(4, 20, 60, 44)) -> np.ndarray:
    """White BGR frame with dark text drawn inside ``box`` (x1, y1, x2, y2)."""
    frame = np.full((h, w, 3), 255, np.uint8)
    x1, y1, x2, y2 = box
    scale = (y2 - y1) / 30
    cv2.putText(frame, text, (x1 + 1, y2 - 4), cv2.FONT_HERSHEY_SIMPLEX, scale, (20, 20, 20), 1, cv2.LINE_AA)
    return frame


ALPHA_TEXT_BOX = (4, 20, 60, 44)  # x0, y0, x1, y1 around the glyphs ``alpha_text_png`` draws


def alpha_text_png(path: Path, size: int = 64) -> Path:
    """An RGBA PNG whose e-mail lives only in the alpha channel: black RGB everywhere, glyphs
    opaque, background transparent. Readable over white, invisible over black."""
    from PIL import Image

    alpha = np.zeros((size, size), np.uint8)
    cv2.putText(alpha, "a@b.c", (5, 40), cv2.FONT_HERSHEY_SIMPLEX, 0.6, 255, 2, cv2.LINE_AA)
    Image.fromarray(np.dstack([np.zeros((size, size, 3), np.uint8), alpha]), "RGBA").save(path)
    return path


def over(rgba: np.ndarray, background: int) -> np.ndarray:
    """What a viewer shows: an (H, W, 4) image composited over a flat grey level."""
    a = rgba[..., 3:4].astype(np.float32) / 255
    return (rgba[..., :3] * a + background * (1 - a)).round().astype(np.uint8)


def region(img: np.ndarray, box=ALPHA_TEXT_BOX) -> np.ndarray:
    """``img`` cropped to an (x0, y0, x1, y1) box."""
    x0, y0, x1, y1 = box
    return img[y0:y1, x0:x1]


def quad(x0, y0, x1, y1):
    """Four corners of an axis-aligned box, as RapidOCR returns them."""
    return [[x0, y0], [x1, y0], [x1, y1], [x0, y1]]


class FakeOcrEngine:
    """Returns fixed lines as RapidOCR would. Each line is ``(text, quad[, score[, word results]])``;
    score defaults to 0.98, word results to none."""

    def __init__(self, lines):
        self.lines = [tuple(line) + (0.98, ())[len(line) - 2 :] for line in lines]

    def __call__(self, img, return_word_box=True):
        from types import SimpleNamespace

        return SimpleNamespace(
            boxes=np.array([l[1] for l in self.lines], np.float32) if self.lines else None,
            txts=tuple(l[0] for l in self.lines) if self.lines else None,
            scores=tuple(l[2] for l in self.lines),
            word_results=tuple(l[3] for l in self.lines),
        )


class FakeClock:
    """A clock that stands still until ``advance(t)``; threads can wait on ``cond`` for it."""

    def __init__(self):
        self.t = 0.0
        self.cond = threading.Condition()

    def __call__(self):
        return self.t

    def advance(self, t):
        """Set the time to ``t`` and wake every thread waiting on ``cond``."""
        with self.cond:
            self.t = t
            self.cond.notify_all()


def settle_live_detector(masker, det, clock: FakeClock, timeout: float = 10.0) -> None:
    """Wait (real time) until the live detector thread waits for the fake clock (``det.waiting_until``,
    the fake time its call answers at, is still ahead) or for a frame (``masker.detector_idle()``),
    so what the thread does between two fake instants never depends on how the OS schedules it."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        due = det.waiting_until
        if (due is not None and due > clock.t) or masker.detector_idle():
            return
        time.sleep(0.0002)
    raise AssertionError("the live detector thread did not settle")


def photographed(frame: np.ndarray) -> np.ndarray:
    """``frame`` as a phone camera would give it: slight blur, sensor noise, JPEG at quality 85."""
    frame = cv2.GaussianBlur(frame, (3, 3), 0.8)
    frame = np.clip(frame + np.random.default_rng(1).normal(0, 5, frame.shape), 0, 255).astype(np.uint8)
    return cv2.imdecode(cv2.imencode(".jpg", frame, [cv2.IMWRITE_JPEG_QUALITY, 85])[1], cv2.IMREAD_COLOR)


def hidden_share_after_padding(found_xyxy, true_box, hw) -> float:
    """Share of ``true_box`` hidden once ``found_xyxy`` (4,) gets the app's default padding."""
    from app.core.geometry import pad_xyxy
    from app.core.metrics import box_coverage, redaction_mask
    from app.core.redact import RedactionSettings

    s = RedactionSettings()
    padded = pad_xyxy(np.asarray([found_xyxy], np.float32), s.padding, s.min_padding_px, hw)
    return float(box_coverage(np.array([true_box], np.float32), redaction_mask(padded, hw))[0])


def qr_image(scale: int, border: int = 4, text: str = "https://example.com/u/jane.doe") -> np.ndarray:
    """A real QR code (BGR, ``scale`` px a module, ``border`` modules of quiet zone); skips the test
    when segno or zxing-cpp (to read it back) is not installed."""
    import io

    import pytest

    segno = pytest.importorskip("segno")
    pytest.importorskip("zxingcpp")
    buf = io.BytesIO()
    segno.make(text, micro=False).save(buf, kind="png", scale=scale, border=border)
    return cv2.imdecode(np.frombuffer(buf.getvalue(), np.uint8), cv2.IMREAD_COLOR)
