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

M_TRIM_THRESHOLD, M_TOP_PAD, M_MMAP_THRESHOLD = -1, -2, -3  # glibc's <malloc.h> parameter numbers
KEEP_FREE_BYTES = 64 << 20  # free heap kept at its top before any of it is returned
GROW_BYTES = 16 << 20  # extra asked for whenever the heap grows, and kept when it shrinks


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
