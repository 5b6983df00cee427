"""Frequency-Consistency Loss (FCL) and the detection model that trains with it.

For positive anchor/GT matches, the highest-resolution neck feature map (P3, the first
entry of the Detect head's ``feats``) is cropped under the predicted box and under the GT
box (bilinear RoI sampling to ``roi_size`` x ``roi_size``), both crops are taken to the
frequency domain and compared with an L1 distance weighted by ``1 + lam * r`` (``r`` the
normalised frequency radius), so high frequencies (text strokes, edges) count more.

The crops are sampled with ``grid_sample`` rather than ``torchvision.ops.roi_align``:
``roi_align`` gives no gradient to the boxes, ``grid_sample`` does, so the loss also
pulls the predicted box onto the GT's spectrum. The FFT here is ``torch.fft``: the loss
exists only in training and is never exported.

Integration is by subclassing (no copied or patched ultralytics code): the loss subclasses
``v8DetectionLoss.loss`` and adds ``beta * L_freq`` as a fourth loss item ``freq_loss``;
``FclDetectionModel`` only overrides ``init_criterion``.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial

import torch
import torch.nn.functional as F
from ultralytics.nn.tasks import DetectionModel
from ultralytics.utils.loss import E2ELoss, v8DetectionLoss

from training.nn.partial import PartialLabelBCE, unknown_class_mask

__all__ = ["FclConfig", "FclDetectionModel", "FreqConsistencyDetectionLoss", "freq_consistency_loss", "roi_sample"]


@dataclass(frozen=True)
class FclConfig:
    """FCL settings: ``beta`` loss weight, ``lam`` radius weight, RoI cap per batch and crop size."""

    beta: float = 0.05
    lam: float = 1.0
    max_rois: int = 64
    roi_size: int = 8


def roi_sample(feat: torch.Tensor, boxes_xyxy: torch.Tensor, batch_idx: torch.Tensor, stride: float, size: int):
    """Bilinearly sample ``size`` x ``size`` crops of a feature map under boxes.

    Args:
        feat: ``(B, C, Hf, Wf)`` feature map at ``stride`` input pixels per cell.
        boxes_xyxy: ``(K, 4)`` boxes in input pixels.
        batch_idx: ``(K,)`` long, the image each box belongs to.
        stride: input pixels per feature cell.
        size: crop side.

    Returns:
        ``(K, C, size, size)`` crops, differentiable w.r.t. ``feat`` and ``boxes_xyxy``.
    """
    k = boxes_xyxy.shape[0]
    hf, wf = feat.shape[-2:]
    steps = (torch.arange(size, device=feat.device, dtype=feat.dtype) + 0.5) / size  # bin centres in [0, 1]
    x1, y1, x2, y2 = boxes_xyxy.to(feat.dtype).unbind(1)
    xs = x1[:, None] + steps[None] * (x2 - x1)[:, None]  # (K, S) input pixels
    ys = y1[:, None] + steps[None] * (y2 - y1)[:, None]
    # Feature cell i spans input pixels [i*s, (i+1)*s): normalised coord (align_corners=False) = 2*(x/s)/Wf - 1.
    gx = 2.0 * xs / (stride * wf) - 1.0
    gy = 2.0 * ys / (stride * hf) - 1.0
    grid = torch.stack(torch.broadcast_tensors(gx[:, None, :], gy[:, :, None]), -1)  # (K, S, S, 2) as (x, y)
    out = feat.new_zeros((k, feat.shape[1], size, size))
    for b in batch_idx.unique().tolist():  # one grid_sample per image: avoids K copies of the feature map
        sel = (batch_idx == b).nonzero(as_tuple=True)[0]
        g = grid[sel].reshape(1, -1, size, 2)  # (1, Kb*S, S, 2)
        crops = F.grid_sample(feat[b : b + 1], g, mode="bilinear", padding_mode="zeros", align_corners=False)
        out = out.index_copy(0, sel, crops.reshape(feat.shape[1], sel.numel(), size, size).transpose(0, 1))
    return out


def _radius_weight(size: int, lam: float, device, dtype) -> torch.Tensor:
    """``(S, S)`` weights ``1 + lam * r`` with r the frequency radius scaled to [0, 1] (fft2 bin order)."""
    f = torch.fft.fftfreq(size, device=device, dtype=dtype)
    r = torch.sqrt(f[:, None] ** 2 + f[None, :] ** 2)
    return 1.0 + lam * r / r.max()


def freq_consistency_loss(pred_crops: torch.Tensor, gt_crops: torch.Tensor, lam: float = 1.0) -> torch.Tensor:
    """Radius-weighted L1 distance between the 2-D spectra of two crop stacks.

    Args:
        pred_crops, gt_crops: ``(K, C, S, S)``.
        lam: weight of the normalised frequency radius.

    Returns:
        Scalar loss (0 when K == 0). Both crops are divided by the GT crop's RMS (detached) so the
        loss measures spectral shape, not feature magnitude.
    """
    if pred_crops.shape[0] == 0:
        return pred_crops.sum() * 0.0
    scale = gt_crops.detach().pow(2).mean(dim=(1, 2, 3), keepdim=True).sqrt() + 1e-6
    fp = torch.fft.fft2(pred_crops / scale, norm="ortho")
    fg = torch.fft.fft2(gt_crops / scale, norm="ortho")
    d = fp - fg
    dist = torch.sqrt(d.real**2 + d.imag**2 + 1e-12)  # |.| with a finite gradient at 0
    w = _radius_weight(pred_crops.shape[-1], lam, pred_crops.device, pred_crops.dtype)
    return (dist * w).mean() / w.mean()


class FreqConsistencyDetectionLoss(v8DetectionLoss):
    """``v8DetectionLoss`` plus ``beta * L_freq`` as a fourth item ``freq_loss``.

    The loss tensor becomes ``(4,)`` (box, cls, dfl/l1, freq), times batch size, as the trainer expects.
    """

    def __init__(self, model, tal_topk: int = 10, tal_topk2: int | None = None, cfg: FclConfig = FclConfig()):
        super().__init__(model, tal_topk=tal_topk, tal_topk2=tal_topk2)
        self.fcl = cfg
        self.bce = PartialLabelBCE()
        self.loss_names = (*self.loss_names, "freq_loss")

    def loss(self, preds: dict, batch: dict):
        """``preds`` is the Detect head's training dict (``boxes``, ``scores``, ``feats``)."""
        batch_size = preds["boxes"].shape[0]
        self.bce.unknown = unknown_class_mask(batch.get("im_file") or (), self.nc, self.device)
        assigned, loss, items = self.get_assigned_targets_and_loss(preds, batch)
        fg_mask, _, target_bboxes, anchor_points, stride_tensor = assigned
        # Recomputed (cheap) because get_assigned_targets_and_loss keeps pred boxes internal.
        pred_bboxes = self.bbox_decode(anchor_points, preds["boxes"].permute(0, 2, 1)) * stride_tensor  # (B, A, 4) px
        b_idx, a_idx = fg_mask.nonzero(as_tuple=True)
        if b_idx.numel() > self.fcl.max_rois:
            keep = torch.randperm(b_idx.numel(), device=b_idx.device)[: self.fcl.max_rois]
            b_idx, a_idx = b_idx[keep], a_idx[keep]
        feat = preds["feats"][0]  # P3: highest-resolution neck output
        stride = float(self.stride[0])
        pred_crops = roi_sample(feat, pred_bboxes[b_idx, a_idx], b_idx, stride, self.fcl.roi_size)
        gt_crops = roi_sample(feat, target_bboxes[b_idx, a_idx], b_idx, stride, self.fcl.roi_size)
        l_freq = self.fcl.beta * freq_consistency_loss(pred_crops, gt_crops, self.fcl.lam)
        loss = torch.cat((loss, l_freq.reshape(1)))
        items = {**items, "freq_loss": l_freq.detach()}
        return loss * batch_size, items


class FclDetectionModel(DetectionModel):
    """``DetectionModel`` whose criterion adds the Frequency-Consistency Loss.

    ``fcl_cfg`` is a plain attribute, so it travels inside checkpoints; loading one needs
    ``training.nn`` importable (the class is pickled by its module path).
    """

    fcl_cfg: FclConfig = FclConfig()

    def init_criterion(self):
        loss_fn = partial(FreqConsistencyDetectionLoss, cfg=self.fcl_cfg)
        if getattr(self.model[-1], "one2one_cv2", None) is not None:  # end-to-end head (yolo26/v10)
            return E2ELoss(self, loss_fn=loss_fn)
        return loss_fn(self)
