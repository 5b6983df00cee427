"""Video export (progress, cancel, before/after) and live masking (start/stop, fail-closed banner)."""

from __future__ import annotations

import threading

import pytest

from app.media.video_synthetic import SyntheticSource, write_synthetic_clip
from app.ui.live_worker import LiveConfig
from app.ui.tasks import running_threads

from conftest import CountingDetector, factory_for


class GatedDetector(CountingDetector):
    """Blocks inside ``detect`` until ``release`` is set, so a test can cancel mid-export."""

    def __init__(self) -> None:
        super().__init__([(10, 10, 40, 30, 0.9, 0)])
        self.release = threading.Event()
        self.entered = threading.Event()

    def detect(self, frame):
        self.entered.set()
        self.release.wait(10)
        return super().detect(frame)


@pytest.fixture(scope="module")
def clip(tmp_path_factory):
    path = tmp_path_factory.mktemp("video") / "clip.mp4"
    write_synthetic_clip(path, SyntheticSource(160, 96, 15.0, n_frames=30), 30, tone_hz=440)
    return path


def test_export_with_progress_and_before_after(make_window, clip, qtbot, tmp_path):
    w = make_window(factory_for(CountingDetector([(10, 10, 60, 40, 0.9, 0)])))
    c, view = w.controller.video, w.views["Video"]
    target = tmp_path / "out.mp4"
    c.set_input(clip)
    c.set_target(target)
    progress = []
    c.progress.connect(lambda done, total: progress.append((done, total)))
    with qtbot.waitSignal(c.previews_ready, timeout=30000) as blocker:
        view.start_button.click()
    assert target.exists() and target.stat().st_size > 0
    assert progress and progress[-1][0] == progress[-1][1] == 60  # two passes over 30 frames
    assert len(blocker.args[0]) == 3 and not view.preview_box.isHidden() and not view.open_folder.isHidden()
    assert "metadata stripped" in w.statusBar().currentMessage()
    assert "Done" in view.eta.text()


def test_cancel_export_leaves_no_file(make_window, clip, qtbot, tmp_path):
    det = GatedDetector()
    w = make_window(factory_for(det))
    c, view = w.controller.video, w.views["Video"]
    target = tmp_path / "cancelled.mp4"
    c.set_input(clip)
    c.set_target(target)
    view.start_button.click()
    assert view.cancel_button.isEnabled() and not view.start_button.isEnabled()
    qtbot.waitUntil(det.entered.is_set)
    with qtbot.waitSignal(c.running_changed, timeout=10000):
        view.cancel_button.click()
        det.release.set()
    assert not target.exists() and list(tmp_path.iterdir()) == []
    assert "cancelled" in w.statusBar().currentMessage()
    assert view.start_button.isEnabled()


def test_export_of_a_corrupt_video_reports_and_writes_nothing(make_window, tmp_path, qtbot):
    bad = tmp_path / "bad.mp4"
    bad.write_bytes(b"\x00\x00\x00\x18ftypmp42" + b"junk" * 50)
    w = make_window(factory_for(CountingDetector([])))
    c = w.controller.video
    w.controller.open_dropped([bad])
    assert w.tabs.currentWidget() is w.views["Video"] and c.source == bad
    with qtbot.waitSignal(c.running_changed, timeout=10000, check_params_cb=lambda on: not on):
        c.start()
    assert "bad.mp4" in w.message_bar.text
    assert not [p for p in tmp_path.iterdir() if "redacted" in p.name or p.suffix == ".part"]


def synthetic_opener(spec):
    return SyntheticSource(160, 96, 30.0, n_frames=None, realtime=True)


def live_window(make_window, detector):
    w = make_window(factory_for(detector))
    w.controller.live.opener = synthetic_opener
    return w, w.controller.live, w.views["Live"]


def test_live_start_stop_with_synthetic_source(make_window, qtbot):
    w, c, view = live_window(make_window, CountingDetector([(10, 10, 60, 40, 0.9, 0)]))
    c.start(LiveConfig("synthetic"))
    assert "Stop" in view.start_button.text()
    qtbot.waitUntil(lambda: c.last_status is not None and c.last_status.protected, timeout=10000)
    assert view.banner.isHidden()
    assert "fps" in view.telemetry.text() and "CPU" in view.telemetry.text()
    view.toggle()  # Stop
    assert not c.running and "Start" in view.start_button.text()
    assert "vpd-live" not in running_threads()
    # a quick restart is not stopped by the previous session's late "ended" signal
    c.last_status = None
    c.start(LiveConfig("synthetic"))
    qtbot.waitUntil(lambda: c.last_status is not None and c.last_status.frames > 3, timeout=10000)
    assert c.running
    c.stop()


def test_live_detector_error_masks_preview_and_shows_banner(make_window, qtbot):
    w, c, view = live_window(make_window, CountingDetector([], fail=True))
    frames = []
    c.preview.connect(lambda img, status: frames.append((img, status)))
    c.start(LiveConfig("synthetic"))
    qtbot.waitUntil(lambda: any(s.reason and s.reason.startswith("error") for _, s in frames), timeout=10000)
    img, status = next((i, s) for i, s in frames if s.reason and s.reason.startswith("error"))
    assert not status.protected
    assert not view.banner.isHidden() and "PROTECTION PAUSED" in view.banner.text()
    # below the stamped banner, every pixel is the fail-closed fill
    ptr = img.convertToFormat(img.Format.Format_RGB888)
    rows = [ptr.pixelColor(x, y).rgb() & 0xFFFFFF for y in range(ptr.height() // 2, ptr.height(), 7) for x in range(0, ptr.width(), 7)]
    assert set(rows) == {0}
    c.stop()


def test_live_missing_source_reports_error(make_window, qtbot):
    from app.core.errors import SourceError

    w = make_window(factory_for(CountingDetector([])))
    c = w.controller.live

    def no_camera(spec):
        raise SourceError("camera 3: no such camera or it is in use by another program")

    c.opener = no_camera
    with qtbot.waitSignal(c.running_changed, timeout=10000, check_params_cb=lambda on: not on):
        c.start(LiveConfig("camera:3"))
    assert "camera 3" in w.views["Live"].message_bar.text  # on the Live tab's own banner
    assert w.views["Images"].message_bar.text == ""  # and not carried over to another tab


def test_no_ui_thread_survives_window_close(make_window, clip, qtbot):
    w, c, view = live_window(make_window, CountingDetector([]))
    c.start(LiveConfig("synthetic"))
    qtbot.waitUntil(lambda: c.last_status is not None, timeout=10000)
    w.controller.video.set_input(clip)
    w.controller.video.start()
    w.close()
    assert running_threads() == []
    assert not any(t.name == "live-detector" and t.is_alive() for t in threading.enumerate())
