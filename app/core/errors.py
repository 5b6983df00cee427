"""Typed errors with messages a person can act on. Third-party exceptions are caught at
boundaries and re-raised as one of these."""

from __future__ import annotations


class VpdError(Exception):
    """Base class of all errors the app reports to the user."""


class ModelError(VpdError):
    """The model file is missing, unreadable or not a VPD detector."""


class ImageReadError(VpdError):
    """An input image could not be read (missing, corrupt, unsupported, too large)."""


class OutputError(VpdError):
    """An output could not be written (bad folder, would overwrite input, disk full)."""


class SourceError(VpdError):
    """A video or live source could not be opened or stopped delivering frames."""


class DetectorUnavailable(VpdError):
    """An optional detector (face, OCR) cannot run because its package or model is absent."""


class DetectionIncomplete(VpdError):
    """A configured detector is missing or failed, so an output would not hide everything the
    user asked for. Nothing is written unless the user explicitly accepts it."""


class Cancelled(VpdError):
    """The user cancelled a long-running job."""
