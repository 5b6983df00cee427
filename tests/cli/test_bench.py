"""bench: wall and CPU time side by side, time inside ORT counted per session, tile reuse off while timing."""

import numpy as np

from app.cli import main
from app.commands.bench_timing import SessionClock, Timing, detector_sessions, measure, without_tile_reuse
from app.inference.vpd_detector import VpdDetector
from vpd_testkit import make_detector_onnx


def _detector(tmp_path):
    path = make_detector_onnx(tmp_path / "m.onnx", [(1, 2, 10, 30, 22, 0.9)], metadata={"vpd_tile_size": "640"})
    return path, VpdDetector.from_path(path, ["CPUExecutionProvider"])


def test_measure_reports_cpu_time_of_busy_work():
    timing = measure(lambda: sum(i * i for i in range(200_000)), repeat=3)
    assert timing.runs == 3 and timing.cpu > 0 and timing.wall > 0
    assert Timing(1.5, 0.25).text() == "1.500 s wall, 0.250 s CPU"
    assert Timing(0.0125, 0.002).text("ms") == "12.5 ms wall, 2.0 ms CPU"


def test_session_clock_counts_every_tile_when_reuse_is_off(tmp_path):
    _, det = _detector(tmp_path)
    frame = np.full((1080, 1920, 3), 200, np.uint8)
    clock = SessionClock(detector_sessions(det))
    with without_tile_reuse([det]):
        assert not det.tiling.reuse_unchanged
        det.detect(frame)
        det.detect(frame)  # same pixels: reused tiles would run nothing
    assert det.tiling.reuse_unchanged  # restored
    assert clock.totals["detector"][2] == 2 * 9  # 4x2 native tiles + one downscaled full view, twice
    clock.close()
    det.detect(frame)
    det.detect(frame)
    assert clock.totals["detector"][2] == 18 and "run" not in vars(det.session)


def test_bench_prints_wall_and_cpu_and_ort_calls(tmp_path, capsys):
    path, _ = _detector(tmp_path)
    rc = main(["bench", "--model", str(path), "--no-faces", "--no-ocr", "--no-codes", "--cpu", "--repeat", "1"])
    out = capsys.readouterr().out
    assert rc == 0
    assert "CPU cores" in out and "s CPU" in out
    assert "inside ORT: detector 9 calls" in out  # 8 tiles + the full view
    assert main(["bench", "--model", str(path), "--no-faces", "--no-ocr", "--no-codes", "--cpu", "--repeat", "1",
                 "--mirrored"]) == 0  # fmt: skip
    assert "inside ORT: detector 18 calls" in capsys.readouterr().out  # each view also mirrored


def test_run_measured_reports_cpu_and_peak_memory_of_the_child():
    import sys

    from app.commands.bench_pan import run_measured

    code = "import numpy as np; a = np.ones(150 << 20, np.uint8); s = sum(i * i for i in range(300_000)); raise SystemExit(3)"
    cost = run_measured([sys.executable, "-c", code])
    assert cost.returncode == 3
    assert cost.peak_mb >= 150 and cost.cpu > 0 and cost.wall >= cost.cpu / 4


def test_bench_size_option(tmp_path, capsys):
    path, _ = _detector(tmp_path)
    base = ["bench", "--model", str(path), "--no-faces", "--no-ocr", "--no-codes", "--cpu", "--repeat", "1"]
    assert main(base + ["--size", "1280x720"]) == 0
    out = capsys.readouterr().out
    assert "per 1280x720 screenshot" in out and "inside ORT: detector 7 calls" in out  # 3x2 tiles + full view
    assert main(base + ["--size", "720p"]) == 2
    assert "--size must look like 1280x720" in capsys.readouterr().err


def test_bench_text_row_gives_a_cost_per_ocr_line_in_ms():
    import re
    from types import SimpleNamespace

    from app.commands.bench import text_reading_row
    from app.text.classifier import TextPiiClassifier
    from app.text.gazetteer import NameTable
    from app.text.lines import TextLine
    from app.text.model import load_model

    def line(text, y):
        return TextLine(text, np.array([[20, y], [20 + 11 * len(text), y], [20 + 11 * len(text), y + 22], [20, y + 22]], np.float32), 0.98)

    lines = [line(t, 30 + 40 * i) for i, t in enumerate(["Contacts", "Anna Schmidt", "Mobile", "+49 30 1234567", "Settings"])]
    frame = np.full((300, 400, 3), 255, np.uint8)
    classifier = TextPiiClassifier(load_model(), NameTable({"anna": 100}, {"schmidt": 100}, "test"))
    for holder, kind in ((SimpleNamespace(last_lines=lines, classifier=classifier), "text-PII classifier + rules"),
                         (SimpleNamespace(last_lines=lines, classifier=None), "rules only")):  # fmt: skip
        row = text_reading_row(holder, frame, repeat=2)
        m = re.search(r"per OCR line: ([0-9.]+) ms wall, ([0-9.]+) ms CPU; per 400x300 screenshot \(5 lines\): ([0-9.]+) ms wall", row)
        assert m and kind in row, row
        wall_line, cpu_line, wall_frame = (float(v) for v in m.groups())
        assert wall_line > 0 and cpu_line >= 0 and wall_frame >= wall_line
    assert text_reading_row(SimpleNamespace(last_lines=[], classifier=None), frame, 2) is None  # nothing read: no row


def test_bench_names_pictures_row_counts_the_names_read():
    import re
    from types import SimpleNamespace

    from app.commands.bench import name_pictures_row
    from app.core.policy import TEXT_PII
    from app.text.lines import TextLine

    def line(text, y):
        return TextLine(text, np.array([[120, y], [120 + 11 * len(text), y], [120 + 11 * len(text), y + 22], [120, y + 22]], np.float32), 0.98)

    lines = [line("Name: Anna Schmidt", 30), line("E-mail: anna.schmidt@example.org", 80)]
    frame = np.full((300, 500, 3), 255, np.uint8)
    holder = SimpleNamespace(last_lines=lines, classifier=None, class_names=TEXT_PII + ("avatar",))
    row = name_pictures_row(holder, frame, repeat=2)
    m = re.search(r"before each of (\d+) names read; inside ocr\) per 500x300 screenshot: ([0-9.]+) ms wall", row)
    assert m and int(m.group(1)) == 1, row
