"""Frequency-Domain Attention Fusion (FDAF) with Adaptive Spectral Gating.

The 2-D DFT is written as matmuls with fixed cos/sin basis matrices, not ``torch.fft``:
the TorchScript ONNX exporter rejects ``aten::fft_*`` and ONNX Runtime's DFT op runs
10-50x slower than the same transform as two GEMMs (see docs/FACTS.md). The bases depend
on the feature map's H and W, so they are built for the size actually seen and cached;
at export the size is fixed and the bases become constants in the graph.
"""

from __future__ import annotations

import math

import torch
from torch import nn

__all__ = ["FDAF", "dft_bases", "dft2", "idft2_real"]


def dft_bases(n: int, device: torch.device | None = None, dtype: torch.dtype = torch.float32):
    """Return ``(cos, sin)`` DFT basis matrices of shape ``(n, n)``.

    ``cos[k, m] = cos(2*pi*k*m/n)``, ``sin[k, m] = sin(2*pi*k*m/n)``, so the DFT matrix is
    ``cos - 1j*sin``. Built in float64 then cast: ``k*m`` grows to n^2 and float32 angles
    lose ~1e-4 of phase at n=160.
    """
    k = torch.arange(n, dtype=torch.float64)
    # (k*m) mod n keeps the angle in [0, 2*pi) before the trig functions.
    angle = (2.0 * math.pi / n) * torch.remainder(torch.outer(k, k), n)
    return angle.cos().to(device=device, dtype=dtype), angle.sin().to(device=device, dtype=dtype)


def dft2(x: torch.Tensor, ch: torch.Tensor, sh: torch.Tensor, cw: torch.Tensor, sw: torch.Tensor):
    """2-D DFT over the last two dims of a real tensor, as matmuls.

    Args:
        x: real ``(..., H, W)``.
        ch, sh: ``(H, H)`` cos/sin bases; cw, sw: ``(W, W)`` cos/sin bases (see ``dft_bases``).

    Returns:
        ``(real, imag)``, each ``(..., H, W)``, equal to ``torch.fft.fft2(x)`` (unnormalised).
    """
    # F = (Ch - iSh) X (Cw - iSw) = (A - iB)(Cw - iSw) with A = Ch X, B = Sh X (both symmetric bases).
    a = torch.matmul(ch, x)
    b = torch.matmul(sh, x)
    real = torch.matmul(a, cw) - torch.matmul(b, sw)
    imag = -(torch.matmul(a, sw) + torch.matmul(b, cw))
    return real, imag


def idft2_real(real: torch.Tensor, imag: torch.Tensor, ch, sh, cw, sw) -> torch.Tensor:
    """Real part of the inverse 2-D DFT, as matmuls.

    Args:
        real, imag: ``(..., H, W)`` spectrum; bases as in ``dft2``.

    Returns:
        ``(..., H, W)`` equal to ``torch.fft.ifft2(real + 1j*imag).real``.
    """
    h, w = real.shape[-2], real.shape[-1]
    # (Ch + iSh)(R + iI) = P + iQ with P = Ch R - Sh I, Q = Sh R + Ch I; Re[(P + iQ)(Cw + iSw)] = P Cw - Q Sw.
    p = torch.matmul(ch, real) - torch.matmul(sh, imag)
    q = torch.matmul(sh, real) + torch.matmul(ch, imag)
    return (torch.matmul(p, cw) - torch.matmul(q, sw)) * (1.0 / (h * w))


class FDAF(nn.Module):
    """Frequency-Domain Attention Fusion on one neck feature map.

    ``Y = Re(IDFT2(G * DFT2(X)))``, ``out = Conv1x1(Concat(X, Y)) + X``.

    With ``gating=True`` (Adaptive Spectral Gating) ``G = sigmoid(Conv1x1(log1p|DFT2(X)|))``: an
    input-dependent soft mask over every (channel, frequency) bin. It is a 1x1 conv over channels
    applied at each frequency, so it has no H x W parameter and works at any input size.
    With ``gating=False`` (ablation) ``G`` is a learned per-channel scalar; the round trip is then
    mathematically a per-channel scale, which is exactly what that ablation isolates, and the
    transform is kept so the latency stays comparable.

    Args:
        c1: channels of X (the YAML states them: ultralytics passes custom-module args as given).
        gating: adaptive spectral gating on (True) or per-channel scalar modulation (False).

    Shapes: input ``(B, c1, H, W)`` float -> output ``(B, c1, H, W)``.
    """

    def __init__(self, c1: int, gating: bool = True):
        super().__init__()
        self.c1 = int(c1)
        self.gating = bool(gating)
        if self.gating:
            self.gate = nn.Conv2d(self.c1, self.c1, 1, bias=True)
        else:
            self.scale = nn.Parameter(torch.ones(1, self.c1, 1, 1))
        self.fuse = nn.Sequential(
            nn.Conv2d(2 * self.c1, self.c1, 1, bias=False), nn.BatchNorm2d(self.c1), nn.SiLU()
        )
        # Zero BN gain: the block starts as the identity (out = X), so inserting it does not
        # disturb the detector at initialisation; it learns how much spectrum to mix in.
        nn.init.zeros_(self.fuse[1].weight)
        self._size: tuple[int, int] | None = None
        for name in ("ch", "sh", "cw", "sw"):
            self.register_buffer(name, torch.empty(0), persistent=False)

    def _bases(self, x: torch.Tensor):
        """Return the four bases for x's (H, W), rebuilding them only when the size, device or dtype changes."""
        h, w = int(x.shape[-2]), int(x.shape[-1])
        if self._size != (h, w) or self.ch.device != x.device or self.ch.dtype != x.dtype:
            self.ch, self.sh = dft_bases(h, x.device, x.dtype)
            self.cw, self.sw = dft_bases(w, x.device, x.dtype)
            self._size = (h, w)
        return self.ch, self.sh, self.cw, self.sw

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        """``(B, C, H, W) -> (B, C, H, W)``."""
        if x.shape[1] != self.c1:
            raise ValueError(f"FDAF built for {self.c1} channels got {x.shape[1]}; fix the channel arg in the model YAML")
        bases = self._bases(x)
        real, imag = dft2(x, *bases)
        if self.gating:
            # log1p compresses the DC bin, which is H*W times larger than the mean, so the 1x1 conv sees a sane range.
            mag = torch.sqrt(real * real + imag * imag + 1e-12)
            g = torch.sigmoid(self.gate(torch.log1p(mag)))
        else:
            g = self.scale
        y = idft2_real(real * g, imag * g, *bases)
        return self.fuse(torch.cat((x, y), 1)) + x

    def extra_repr(self) -> str:
        return f"c1={self.c1}, gating={self.gating}"
