"""VPD Redactor: find and hide personal information in images and video, locally."""

__version__ = "0.1.0"
