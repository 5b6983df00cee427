"""Partial labels: images whose source labelled only some classes.

A real photo of a plate source shows unlabelled faces and shop signs; a composite on such a
photo inherits them. The synthetic renderer writes ``partial_labels.json`` beside ``data.yaml``
(image stem -> class names that may appear unlabelled). For those (image, class) pairs the
classification loss is dropped on anchors where the class is a negative, so the detector is not
taught that an unlabelled plate is background. Positives of those classes still train.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

import torch

from training.taxonomy import CLASS_INDEX

PARTIAL_LABELS = "partial_labels.json"


@lru_cache(maxsize=8)
def load_partial_labels(root: str) -> dict[str, tuple[int, ...]]:
    """``{image stem: class ids}`` from ``root/partial_labels.json``; empty when the file is absent."""
    path = Path(root) / PARTIAL_LABELS
    if not path.exists():
        return {}
    raw = json.loads(path.read_text())
    return {stem: tuple(CLASS_INDEX[c] for c in names if c in CLASS_INDEX) for stem, names in raw.items()}


def dataset_root(im_file: str) -> Path:
    """``root`` of a YOLO image path ``root/images/<split>/<name>``."""
    return Path(im_file).parents[2]


def unknown_class_mask(im_files, nc: int, device) -> torch.Tensor | None:
    """``(B, nc)`` bool, True where class ``c`` may be unlabelled in image ``b``; None if none is."""
    if not im_files:
        return None
    table = load_partial_labels(str(dataset_root(im_files[0])))
    if not table:
        return None
    mask = torch.zeros((len(im_files), nc), dtype=torch.bool)
    for b, f in enumerate(im_files):
        for c in table.get(Path(f).stem, ()):
            if c < nc:
                mask[b, c] = True
    return mask.to(device) if mask.any() else None


class PartialLabelBCE(torch.nn.Module):
    """``BCEWithLogits(reduction='none')`` with negatives of unknown (image, class) pairs zeroed.

    ``unknown`` is set per batch: ``(B, nc)`` bool or None (then it is the plain loss).
    """

    def __init__(self):
        super().__init__()
        self.bce = torch.nn.BCEWithLogitsLoss(reduction="none")
        self.unknown: torch.Tensor | None = None

    def forward(self, pred_scores: torch.Tensor, target_scores: torch.Tensor) -> torch.Tensor:
        """``(B, A, nc)`` logits and targets -> ``(B, A, nc)`` per-element loss."""
        loss = self.bce(pred_scores, target_scores)
        if self.unknown is None:
            return loss
        drop = self.unknown[:, None, :] & (target_scores <= 0)
        return loss.masked_fill(drop, 0.0)
