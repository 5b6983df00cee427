"""Training package: synthetic data, the frequency-enhanced detector, training, export, evaluation.

Never imported by ``app``.
"""
