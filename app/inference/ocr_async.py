"""Compatibility home of ``AsyncDetector``; it now lives in ``app.core.async_detector`` (the live
masker in ``app.core`` uses it, and core may not import ``app.inference``)."""

from app.core.async_detector import AsyncDetector, AsyncResult, split_slow_detectors

__all__ = ["AsyncDetector", "AsyncResult", "split_slow_detectors"]
