"""Synthetic data engine: renders screens, documents and street objects with exact labels.

Entry point: ``python -m training synth`` (see :mod:`training.synth.cli`).
"""
