"""ORT's pool threads are known per session, so live mode can give them its tiers' priorities."""

import os
import sys

import pytest

from vpd_testkit import make_detector_onnx

linux_only = pytest.mark.skipif(not sys.platform.startswith("linux"), reason="/proc/self/task is Linux's")


def _threads() -> set[int]:
    return {int(t) for t in os.listdir("/proc/self/task")}


@linux_only
def test_a_sessions_pool_threads_are_the_ones_its_creation_started(tmp_path):
    from app.inference.session import create_session, pool_threads

    path = make_detector_onnx(tmp_path / "m.onnx", [(1, 2, 10, 30, 22, 0.9)])
    before = _threads()
    first = create_session(path, ["CPUExecutionProvider"])
    started = _threads() - before
    second = create_session(path, ["CPUExecutionProvider"])
    assert set(pool_threads(first)) == started
    assert not set(pool_threads(first)) & set(pool_threads(second))
    assert set(pool_threads(first, second)) <= _threads()
    if (os.cpu_count() or 1) >= 2:
        assert pool_threads(first), "ORT runs one pool thread per extra core"


@linux_only
def test_detectors_report_their_sessions_pool_threads(tmp_path):
    from app.inference.session import pool_threads
    from app.inference.vpd_detector import VpdDetector

    det = VpdDetector.from_path(make_detector_onnx(tmp_path / "m.onnx", [(1, 2, 10, 30, 22, 0.9)]), ["CPUExecutionProvider"])
    assert det.compute_threads() == pool_threads(det.session)
