"""PySide6 user interface. The only package that imports Qt."""
