"""Create ONNX Runtime sessions: CUDA first when it really works, then CPU; report what runs."""

from __future__ import annotations

import logging
import os
import weakref
from pathlib import Path
from typing import Sequence

import onnxruntime as ort

from app.core.allocator import fix_mmap_threshold
from app.core.errors import ModelError

log = logging.getLogger(__name__)

PREFERRED_PROVIDERS = ("CUDAExecutionProvider", "CPUExecutionProvider")
_heap_limited: bool | None = None
# Native ids of the threads ORT started while building each session (its intra-op pool).
_pool_threads: "weakref.WeakKeyDictionary[ort.InferenceSession, tuple[int, ...]]" = weakref.WeakKeyDictionary()


def limit_heap_retention() -> bool:
    """On glibc, serve every allocation of 128 KiB or more from its own mmap (returned to the OS
    when freed) by fixing glibc's mmap threshold (``app.core.allocator.fix_mmap_threshold``: 4 MiB
    while a live session runs); True if set. Once per process.

    Without the arena, ORT mallocs and frees each run's activations. glibc raises its mmap
    threshold after such frees (up to 32 MB), so later activation buffers come from the heap and
    stay resident after they are freed: the process keeps the peak of every model it ran, on top
    of the one running now. Measured at 1280x720 with all default detectors (VPD, CenterFace,
    OCR): resident after a round 502 -> 310 MB, peak 676 -> 487 MB.
    """
    global _heap_limited
    if _heap_limited is None:
        _heap_limited = fix_mmap_threshold()
        if not _heap_limited:
            log.debug("mallopt unavailable; heap retention not limited")
    return _heap_limited


def requested_providers(preferred: Sequence[str] | None = None) -> list[str]:
    """Providers to ask for, in order: the preferred ones this onnxruntime build offers."""
    available = set(ort.get_available_providers())
    wanted = [p for p in (preferred or PREFERRED_PROVIDERS) if p in available]
    return wanted or ["CPUExecutionProvider"]


def create_session(path: str | Path, providers: Sequence[str] | None = None,
                   memory_arena: bool = False) -> ort.InferenceSession:  # fmt: skip
    """Open ``path`` as an ORT session, raising ``ModelError`` with the file name and the reason.

    ``memory_arena``: keep ORT's CPU memory arena, for models with a fixed input size only (their
    arena stays small and saves allocating and page-faulting the activations on every run).
    ``session.get_providers()`` afterwards is the truth about what runs (CUDA listed as available
    does not mean its libraries load).
    """
    path = Path(path)
    if not path.exists():
        raise ModelError(f"model file not found: {path}")
    if path.is_dir():
        raise ModelError(f"model path is a folder, not an .onnx file: {path}")
    if path.stat().st_size == 0:
        raise ModelError(f"model file is empty: {path}")
    limit_heap_retention()
    options = ort.SessionOptions()
    # A missing CUDA runtime is expected on CPU machines; don't flood stderr with it (we report
    # what actually runs below instead).
    options.log_severity_level = 3
    ort.set_default_logger_severity(4)
    # No spin-waiting between ops: on a laptop CPU the live loop, the fast detectors and OCR share
    # two or four cores, and spinning threads take them from each other. Measured on 2 busy
    # cores (720p VPD detect, one competing thread): 2.4 s with spinning, 1.3 s without.
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.add_session_config_entry("session.inter_op.allow_spinning", "0")
    # No memory arena by default: ORT's arena keeps every session's peak activations (CenterFace
    # at 1280 px, OCR at any size) for the process's life. Detecting 720p frames with all default
    # detectors, measured alternately: peak RSS 920-925 MB with the arena, 609-687 MB without.
    options.enable_cpu_mem_arena = memory_arena
    wanted = requested_providers(providers)
    before = _native_thread_ids()
    try:
        session = ort.InferenceSession(str(path), sess_options=options, providers=wanted)
    except Exception as exc:  # ORT raises its own Fail/InvalidProtobuf/... types
        reason = str(exc).strip().splitlines()[0][:300] if str(exc).strip() else type(exc).__name__
        raise ModelError(f"cannot load model {path}: not a valid ONNX model (truncated or corrupt?): {reason}") from exc
    _pool_threads[session] = tuple(sorted(_native_thread_ids() - before))
    if "CUDAExecutionProvider" in wanted and "CUDAExecutionProvider" not in session.get_providers():
        log.info("CUDA requested but unavailable (no GPU or CUDA/cuDNN libraries); using the CPU")
    log.info("model %s runs on %s", path.name, ", ".join(session.get_providers()))
    return session


def _native_thread_ids() -> set[int]:
    try:
        return {int(t) for t in os.listdir("/proc/self/task")}  # Linux
    except (OSError, ValueError):
        return set()


def pool_threads(*sessions: ort.InferenceSession) -> tuple[int, ...]:
    """Native ids of the threads ORT started for these sessions (their intra-op pools; Linux, else
    empty). They run part of every inference but keep the priority of the thread that created the
    session, not of the one that runs it: live mode gives them its tiers' priorities. A thread
    another part of the program started while a session was being built may be among them."""
    return tuple(t for s in sessions for t in _pool_threads.get(s, ()))


def active_provider(session: ort.InferenceSession) -> str:
    """Short name of the provider that runs the session, e.g. 'CUDA' or 'CPU'."""
    return session.get_providers()[0].replace("ExecutionProvider", "")
