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
