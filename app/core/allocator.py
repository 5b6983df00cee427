"""Let the C heap keep the memory it frees, so the many small per-frame buffers are reused instead
of the heap top being handed back to the system and faulted in again on the next frame.

Video export and the live loop allocate and free thousands of small arrays every frame (grey
copies, masks, box lists, OpenCV temporaries under 128 KiB). With glibc's defaults the heap top is
trimmed as soon as 128 KiB of it is free, so every frame pays page faults and system calls.
Blocks of 128 KiB and more still get their own mapping and go back when freed
(``app.inference.session.limit_heap_retention``), so this keeps at most ``KEEP_FREE_BYTES``
more resident. Measured on the live pan clips (2-core CPU): see README "forty-second session".
glibc on Linux only; elsewhere a no-op.
"""

from __future__ import annotations

import ctypes
import sys
import threading

M_TRIM_THRESHOLD, M_TOP_PAD, M_MMAP_THRESHOLD = -1, -2, -3  # glibc's <malloc.h> parameter numbers
KEEP_FREE_BYTES = 64 << 20  # free heap kept at its top before any of it is returned
GROW_BYTES = 16 << 20  # extra asked for whenever the heap grows, and kept when it shrinks
# Blocks from this size up get their own mapping, returned to the system when freed: export and
# stills keep only the model that runs resident (``app.inference.session.limit_heap_retention``).
MMAP_THRESHOLD_BYTES = 128 << 10
# While a live session runs, a 720p frame (2.7 MB) and the tiers' mid-sized buffers come from the
# heap and are reused: mapped afresh, every frame's copies fault their pages in again (on the live
# pan clips 5.4 million page faults and a third of the process's CPU time in the kernel; README
# "forty-fifth session").
LIVE_MMAP_THRESHOLD_BYTES = 4 << 20
_live_sessions = 0
_lock = threading.Lock()


def glibc_mallopt(param: int, value: int) -> bool:
    """Set one of glibc's ``mallopt`` parameters (process-wide); True when set, False where the C
    library is not glibc (musl's ``mallopt`` does nothing) or refuses the value."""
    if not sys.platform.startswith("linux"):
        return False
    try:
        libc = ctypes.CDLL(None)
        libc.gnu_get_libc_version  # noqa: B018 - only glibc has it
        mallopt = libc.mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = (ctypes.c_int, ctypes.c_int), ctypes.c_int
    return mallopt(param, value) == 1


def keep_freed_memory() -> bool:
    """Tune glibc's heap for frame-by-frame work (process-wide); True when applied, False where
    the C library is not glibc or refuses a setting."""
    return all([glibc_mallopt(M_TRIM_THRESHOLD, KEEP_FREE_BYTES), glibc_mallopt(M_TOP_PAD, GROW_BYTES)])


def fix_mmap_threshold() -> bool:
    """Fix glibc's mmap threshold (process-wide, turning off its self-raising): the live one while a
    live session runs (``live_heap``), else ``MMAP_THRESHOLD_BYTES``. True when set."""
    with _lock:
        return glibc_mallopt(M_MMAP_THRESHOLD, LIVE_MMAP_THRESHOLD_BYTES if _live_sessions else MMAP_THRESHOLD_BYTES)


def live_heap(start: bool) -> bool:
    """Count a live session in (``start``) or out, and fix the mmap threshold for the sessions left
    (``fix_mmap_threshold``). True when set."""
    global _live_sessions
    with _lock:
        _live_sessions = _live_sessions + 1 if start else max(0, _live_sessions - 1)
    return fix_mmap_threshold()
