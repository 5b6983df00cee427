"""Speed experiments behind the README's "speed and memory steps" (issue 15), each a command that
prints what it measured. Nothing here is used by the app; quantised files go to ``--out``.

    python -m training.speed_checks face-sizes            # CenterFace recall by face height and input size
    python -m training.speed_checks vpd-batch             # tiles in one ORT call vs one by one
    python -m training.speed_checks vpd-int8 --out DIR    # static INT8 detector (then run vpd-redact eval on it)
    python -m training.speed_checks ocr-int8 --out DIR    # OCR recogniser fp32 vs static INT8, rendered lines
    python -m training.speed_checks ocr-det-size          # OCR text detection input side vs lines read

Faces come from pictures shipped inside installed wheels (matplotlib's grace_hopper, ultralytics'
zidane and bus; none is in real-dev) pasted at known sizes on held-out real_test photos; text is
rendered with PIL. CPU seconds are the process's (all threads).
"""

from __future__ import annotations

import argparse
import glob
import sys
import time
from pathlib import Path

import cv2
import numpy as np

SITE = Path(np.__file__).resolve().parents[1]
FACE_SOURCES = (("matplotlib/mpl-data/sample_data/grace_hopper.jpg", [[174, 128, 358, 334]]),
                ("ultralytics/assets/zidane.jpg", [[911, 102, 1053, 277], [552, 258, 667, 434]]),
                ("ultralytics/assets/bus.jpg", [[114, 416, 154, 470], [271, 425, 308, 475]]))  # fmt: skip
WORDS = ("Anna Smith john.doe@mail.com +44 20 7946 0958 Street Road 221B Baker Password Account Balance Username "
         "Invoice 2024-05-17 IBAN DE89370400440532013000 Hello meeting tomorrow at 10:30 Order #48213 Total $129.99").split()  # fmt: skip


def _cpu(fn):
    c0 = time.process_time()
    out = fn()
    return out, time.process_time() - c0


def face_sizes(args) -> None:
    """Recall (IoU ≥ 0.3, score ≥ 0.25) of CenterFace by face height, per input ``max_side``."""
    from app.core.geometry import iou_matrix
    from app.inference.face_centerface import CenterFaceDetector, FaceSettings

    crops = []
    for rel, boxes in FACE_SOURCES:
        img = cv2.imread(str(SITE / rel))
        for x0, y0, x1, y1 in boxes:  # one face height of context on each side
            m = y1 - y0
            cx0, cy0 = max(0, x0 - m), max(0, y0 - m)
            crop = img[cy0 : min(img.shape[0], y1 + m), cx0 : min(img.shape[1], x1 + m)]
            crops.append((crop, np.array([x0 - cx0, y0 - cy0, x1 - cx0, y1 - cy0], np.float32)))
    backs = sorted(glob.glob(str(args.data / "images/real_test/real_facade_shop_signs_*.jpg")))
    rng = np.random.default_rng(0)
    sides = (640, 800, 960, 1280, 1920)
    dets = {m: CenterFaceDetector.from_package(("CPUExecutionProvider",), FaceSettings(max_side=m, box_scale=1.0)) for m in sides}
    for w, h in ((1920, 1080), (1280, 720)):
        hits = {m: {} for m in sides if m <= max(w, h)}
        cpu = {m: [] for m in hits}
        for size in (10, 14, 18, 24, 32, 48):
            for k in range(6):
                frame = cv2.resize(cv2.imread(backs[k % len(backs)]), (w, h))
                truth = []
                for crop, box in crops:
                    s = size / (box[3] - box[1])
                    c = cv2.resize(crop, None, fx=s, fy=s, interpolation=cv2.INTER_AREA if s < 1 else cv2.INTER_LINEAR)
                    x, y = int(rng.integers(0, w - c.shape[1])), int(rng.integers(0, h - c.shape[0]))
                    frame[y : y + c.shape[0], x : x + c.shape[1]] = c
                    truth.append(box * s + [x, y, x, y])
                truth = np.array(truth, np.float32)
                for m in hits:
                    found, secs = _cpu(lambda: dets[m].detect(frame))
                    cpu[m].append(secs)
                    xy = found.xyxy[found.scores >= 0.25]
                    ok = iou_matrix(truth, xy).max(axis=1) >= 0.3 if len(xy) else np.zeros(len(truth), bool)
                    tally = hits[m].setdefault(size, [0, 0])
                    tally[0] += int(ok.sum())
                    tally[1] += len(truth)
        print(f"{w}x{h}, {len(crops)} faces x 6 frames per size: recall by face height")
        for m, by_size in hits.items():
            cells = "  ".join(f"{s}px {100 * a / b:5.1f}%" for s, (a, b) in by_size.items())
            print(f"  max_side {m:4d}: {cells}   CPU {np.median(cpu[m]):.3f} s per frame")


def _patch_batch(src: Path, dst: Path) -> int:
    """Copy an ultralytics export with a free batch dimension; Reshape targets that start with a
    fixed 1 get -1 (or 0 = copy, when they already hold a -1). Returns how many were patched."""
    import onnx
    from onnx import numpy_helper

    model = onnx.load(str(src))
    for value in list(model.graph.input) + list(model.graph.output):
        dim = value.type.tensor_type.shape.dim[0]
        dim.ClearField("dim_value")
        dim.dim_param = "N"
    inits = {i.name: i for i in model.graph.initializer}
    consts = {n.output[0]: n.attribute[0].t for n in model.graph.node if n.op_type == "Constant"}
    patched = 0
    for node in (n for n in model.graph.node if n.op_type == "Reshape"):
        tensor = inits[node.input[1]] if node.input[1] in inits else consts.get(node.input[1])
        if tensor is None:  # computed at run time
            continue
        shape = numpy_helper.to_array(tensor).copy()
        if shape.size and shape[0] == 1:
            shape[0] = 0 if (shape == -1).any() else -1
            tensor.CopyFrom(numpy_helper.from_array(shape.astype(np.int64), tensor.name))
            patched += 1
    onnx.save(model, str(dst))
    return patched


def _session(path, arena: bool = False):
    import onnxruntime as ort

    options = ort.SessionOptions()
    options.log_severity_level = 3
    options.enable_cpu_mem_arena = arena
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])


def vpd_batch(args) -> None:
    """Nine tiles (a 1080p frame) in one call vs nine calls; outputs compared."""
    patched = _patch_batch(args.model, args.out / "vpd-batch.onnx")
    one, many = _session(args.model), _session(args.out / "vpd-batch.onnx")
    h, w = one.get_inputs()[0].shape[2:]
    x = np.random.default_rng(0).random((9, 3, h, w), dtype=np.float32)
    batched = many.run(None, {"images": x})[0]
    single = np.concatenate([one.run(None, {"images": x[i : i + 1]})[0] for i in range(9)])
    print(f"{patched} Reshape targets patched; batched vs one by one: max difference {np.abs(batched - single).max():.2g}")
    for _ in range(3):
        _, a = _cpu(lambda: [one.run(None, {"images": x[i : i + 1]}) for i in range(9)])
        _, b = _cpu(lambda: many.run(None, {"images": x}))
        print(f"9 tiles one by one {a:.3f} s CPU, in one call {b:.3f} s CPU")


def vpd_int8(args) -> None:
    """Static per-channel INT8 (QDQ) detector, head kept in float, calibrated on synthetic val images."""
    import onnx
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    from app.inference.vpd_detector import preprocess

    pre, out = args.out / "vpd-pre.onnx", args.out / "vpd-n-int8.onnx"
    quant_pre_process(str(args.model), str(pre), skip_symbolic_shape=True)
    files = iter(sorted(glob.glob(str(args.data / "images/val/*")))[::20][:48])

    class Reader(CalibrationDataReader):
        def get_next(self):
            f = next(files, None)
            return None if f is None else {"images": preprocess(cv2.imread(f), (320, 320))[0]}

    head = [n.name for n in onnx.load(str(args.model)).graph.node if n.name.startswith("/model.26")]
    quantize_static(str(pre), str(out), Reader(), quant_format=QuantFormat.QDQ, per_channel=True,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8, nodes_to_exclude=head)  # fmt: skip
    x = preprocess(cv2.imread(sorted(glob.glob(str(args.data / "images/val/*")))[0]), (320, 320))[0]
    for path in (args.model, out):
        s = _session(path)
        s.run(None, {"images": x})
        secs = [_cpu(lambda: s.run(None, {"images": x}))[1] for _ in range(10)]
        print(f"{path.name}: {1000 * np.median(secs):.1f} ms CPU per 320x320 inference")
    print(f"accuracy: vpd-redact eval {args.data} --split real_test --no-faces --no-ocr --no-codes --model {out}")


def render_screen(seed: int, size=(1280, 720), px=(12, 22)):
    """A BGR screen of text lines (PIL fonts) and its truth: [(text, centre y)]."""
    from PIL import Image, ImageDraw, ImageFont

    fonts = sorted(glob.glob("/usr/share/fonts/truetype/*/*.ttf"))[:40:4] + sorted(glob.glob(str(SITE / "matplotlib/mpl-data/fonts/ttf/DejaVuSans*.ttf")))
    rng = np.random.default_rng(seed)
    img = Image.new("RGB", size, tuple(int(v) for v in rng.integers(225, 256, 3)))
    draw, lines, y = ImageDraw.Draw(img), [], 12
    while y < size[1] - 30:
        h = int(rng.integers(*px))
        text = " ".join(rng.choice(WORDS, int(rng.integers(2, 7))))
        draw.text((int(rng.integers(8, size[0] // 3)), y), text, fill=tuple(int(v) for v in rng.integers(0, 80, 3)),
                  font=ImageFont.truetype(fonts[int(rng.integers(len(fonts)))], h))  # fmt: skip
        lines.append((text, y + h / 2))
        y += int(h * rng.uniform(1.6, 2.4))
    return cv2.cvtColor(np.array(img), cv2.COLOR_RGB2BGR), lines


def edit_distance(a: str, b: str) -> int:
    """Levenshtein distance."""
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def score_reading(ocr, seeds, size, px) -> tuple[float, float, float]:
    """(character error rate, share of lines read exactly, CPU s per screen) of ``ocr.read_lines``."""
    errors = chars = exact = n = 0
    cpu = 0.0
    for seed in seeds:
        img, truth = render_screen(seed, size, px)
        lines, secs = _cpu(lambda: ocr.read_lines(img))
        cpu += secs
        for text, yc in truth:
            near = sorted((l for l in lines if abs(float(l.quad[:, 1].mean()) - yc) < 6), key=lambda l: float(l.quad[:, 0].min()))
            e = edit_distance("".join(l.text for l in near).replace(" ", ""), text.replace(" ", ""))
            errors, chars, exact, n = errors + e, chars + len(text.replace(" ", "")), exact + (e == 0), n + 1
    return errors / chars, exact / n, cpu / len(seeds)


def ocr_int8(args) -> None:
    """RapidOCR's recogniser in float vs static INT8 calibrated on other rendered screens."""
    import onnx
    from onnx import version_converter
    from onnxruntime.quantization import CalibrationDataReader, QuantFormat, QuantType, quantize_static
    from onnxruntime.quantization.shape_inference import quant_pre_process

    from app.inference.ocr_rapid import MODEL_FILES, OcrPiiDetector, rapidocr_model_dir
    from app.inference.session import create_session

    ocr = OcrPiiDetector.from_package(("CPUExecutionProvider",))
    session = ocr.engine.text_rec.session.session
    fp32, feeds, run = session, [], session.run
    session.run = lambda names, feed, *a: (feeds.append(feed), run(names, feed, *a))[1]
    for seed in range(1000, 1012):  # calibration screens, never scored
        ocr.read_lines(render_screen(seed)[0])
    del session.run
    pre, out = args.out / "rec-pre.onnx", args.out / "rec-int8.onnx"
    quant_pre_process(str(rapidocr_model_dir() / MODEL_FILES["Rec"]), str(pre), skip_symbolic_shape=True)
    onnx.save(version_converter.convert_version(onnx.load(str(pre)), 13), str(pre))  # per-channel needs opset 13
    batches = iter(feeds)

    class Reader(CalibrationDataReader):
        def get_next(self):
            return next(batches, None)

    quantize_static(str(pre), str(out), Reader(), quant_format=QuantFormat.QDQ, per_channel=True,
                    activation_type=QuantType.QUInt8, weight_type=QuantType.QInt8)  # fmt: skip
    for name, s in (("float", fp32), ("int8", create_session(out, ("CPUExecutionProvider",))), ("float", fp32)):
        ocr.engine.text_rec.session.session = s
        ocr.read_lines(render_screen(0)[0])
        cer, exact, cpu = score_reading(ocr, range(1, 9), (1280, 720), (12, 22))
        print(f"recogniser {name}: CER {100 * cer:.2f} %, exact lines {100 * exact:.1f} %, {cpu:.3f} s CPU per 1280x720 screen")


def ocr_det_size(args) -> None:
    """Lines read on rendered 1920×1080 screens with the text detector's input capped at 1920
    (native), 1440 or 1280 px; recognition always reads native-resolution crops."""
    from app.inference.ocr_rapid import OcrPiiDetector

    ocr = OcrPiiDetector.from_package(("CPUExecutionProvider",))
    for px in ((8, 13), (11, 20)):
        for side in (1920, 1440, 1280):
            ocr.engine.text_det.limit_side_len = side
            cer, exact, cpu = score_reading(ocr, range(1, 7), (1920, 1080), px)
            print(f"text {px[0]}-{px[1] - 1} px, detector input {side}: CER {100 * cer:.2f} %, exact lines "
                  f"{100 * exact:.1f} %, {cpu:.2f} s CPU per screen")  # fmt: skip


COMMANDS = {"face-sizes": face_sizes, "vpd-batch": vpd_batch, "vpd-int8": vpd_int8, "ocr-int8": ocr_int8,
            "ocr-det-size": ocr_det_size}  # fmt: skip


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m training.speed_checks", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
    p.add_argument("check", choices=list(COMMANDS))
    p.add_argument("--model", type=Path, default=Path("models/vpd-n.onnx"))
    p.add_argument("--data", type=Path, default=Path("data/synth-10k"), help="YOLO data set (val and real_test splits)")
    p.add_argument("--out", type=Path, default=Path("/tmp/vpd-speed-checks"), help="where derived models go")
    args = p.parse_args(argv)
    args.out.mkdir(parents=True, exist_ok=True)
    COMMANDS[args.check](args)
    return 0


if __name__ == "__main__":
    sys.exit(main())
