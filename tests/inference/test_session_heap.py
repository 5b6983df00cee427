"""ORT sessions return freed activation memory to the OS (glibc mmap threshold fixed)."""

import platform
import subprocess
import sys

import pytest

PROBE = """
import sys, numpy as np
from app.inference import session
def rss_mb():
    return int([l for l in open("/proc/self/status") if l.startswith("VmRSS")][0].split()[1]) // 1024
if sys.argv[1] == "limited":
    assert session.limit_heap_retention() and session.limit_heap_retention()  # once per process, idempotent
big = np.ones(24 << 20, np.uint8)  # freed mmap chunk: glibc would raise its threshold to 24 MB
del big
base = rss_mb()
blocks = [np.ones(2 << 20, np.uint8) for _ in range(16)]  # 32 MB, like one model run's activations
tail = np.ones(1000, np.uint8)  # something allocated after them, as in a running app
del blocks
print(rss_mb() - base)
"""


def _retained_mb(mode: str) -> int:
    out = subprocess.run([sys.executable, "-c", PROBE, mode], capture_output=True, text=True, check=True)
    return int(out.stdout.strip())


@pytest.mark.skipif(not (sys.platform.startswith("linux") and platform.libc_ver()[0] == "glibc"), reason="glibc only")
def test_freed_buffers_go_back_to_the_os():
    assert _retained_mb("default") >= 16  # glibc's own behaviour, which the setting exists to change
    assert _retained_mb("limited") <= 4


def test_only_fixed_size_models_keep_an_arena(tmp_path):
    from app.inference.session import create_session
    from app.inference.vpd_detector import VpdDetector
    from vpd_testkit import make_detector_onnx

    path = make_detector_onnx(tmp_path / "m.onnx", [(1, 2, 10, 30, 22, 0.9)])
    assert not create_session(path, ["CPUExecutionProvider"]).get_session_options().enable_cpu_mem_arena
    assert VpdDetector.from_path(path, ["CPUExecutionProvider"]).session.get_session_options().enable_cpu_mem_arena
