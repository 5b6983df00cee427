"""The heap keeps what it frees: small per-frame buffers stop faulting in fresh pages."""

import subprocess
import sys
import textwrap

import pytest

from app.core import allocator

# Frame-like churn: many arrays under 128 KiB, half freed out of order, then all of them.
WORKLOAD = textwrap.dedent(
    """
    import resource, sys
    import numpy as np
    from app.core.allocator import keep_freed_memory
    from app.inference.session import limit_heap_retention
    limit_heap_retention()
    if sys.argv[1] == "tuned":
        assert keep_freed_memory()
    rng = np.random.default_rng(0)
    for frame in range(110):
        if frame == 10:  # counted once the heap has grown to its working size: what each frame costs
            start = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        small = [np.ones(int(rng.integers(1000, 30000)), np.float32) for _ in range(300)]
        del small[::2]
        more = [np.ones(int(rng.integers(1000, 30000)), np.float32) for _ in range(100)]
        del small, more
    print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - start)
    """
)


def _faults(mode: str) -> int:
    out = subprocess.run([sys.executable, "-c", WORKLOAD, mode], capture_output=True, text=True, check=True)
    return int(out.stdout.strip())


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc tuning")
def test_a_tuned_heap_reuses_freed_frame_buffers_instead_of_faulting_in_new_pages():
    default, tuned = _faults("default"), _faults("tuned")
    assert tuned * 4 < default, (default, tuned)


def test_other_systems_are_left_alone(monkeypatch):
    monkeypatch.setattr(allocator.sys, "platform", "win32")
    assert allocator.keep_freed_memory() is False


# Frame-sized churn (a 720p frame and its copies), counted under the batch and the live threshold.
FRAME_WORKLOAD = textwrap.dedent(
    """
    import resource, sys
    import numpy as np
    from app.core.allocator import keep_freed_memory, live_heap
    from app.inference.session import limit_heap_retention
    limit_heap_retention()
    keep_freed_memory()
    if sys.argv[1] == "live":
        assert live_heap(start=True)
    for frame in range(60):
        if frame == 10:
            start = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
        copies = [np.ones((720, 1280, 3), np.uint8) for _ in range(3)]
        del copies
    print(resource.getrusage(resource.RUSAGE_SELF).ru_minflt - start)
    """
)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="glibc tuning")
def test_a_live_session_reuses_frame_sized_buffers():
    def faults(mode):
        out = subprocess.run([sys.executable, "-c", FRAME_WORKLOAD, mode], capture_output=True, text=True, check=True)
        return int(out.stdout.strip())

    batch, live = faults("batch"), faults("live")
    assert live * 10 < batch, (batch, live)


def test_live_sessions_raise_the_mmap_threshold_until_the_last_one_closes(monkeypatch):
    calls = []
    monkeypatch.setattr(allocator, "glibc_mallopt", lambda param, value: calls.append((param, value)) or True)
    monkeypatch.setattr(allocator, "_live_sessions", 0)
    live, batch = allocator.LIVE_MMAP_THRESHOLD_BYTES, allocator.MMAP_THRESHOLD_BYTES
    assert allocator.live_heap(start=True) and allocator.live_heap(start=True)
    assert allocator.live_heap(start=False) and allocator.fix_mmap_threshold()
    assert allocator.live_heap(start=False)
    assert [v for _, v in calls] == [live, live, live, live, batch]
    assert {p for p, _ in calls} == {allocator.M_MMAP_THRESHOLD}


def test_a_live_masker_holds_the_live_threshold_while_it_runs(monkeypatch):
    from app.core.live import LiveMasker
    from app.core.pipeline import Pipeline

    calls = []
    monkeypatch.setattr(allocator, "glibc_mallopt", lambda param, value: calls.append(value) or True)
    monkeypatch.setattr(allocator, "_live_sessions", 0)
    masker = LiveMasker(Pipeline([]))
    assert calls == [allocator.LIVE_MMAP_THRESHOLD_BYTES]
    masker.close()
    masker.close()  # a second close counts nothing out
    assert calls == [allocator.LIVE_MMAP_THRESHOLD_BYTES, allocator.MMAP_THRESHOLD_BYTES]
