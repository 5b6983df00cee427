"""FDAF module, matmul DFT, FCL pieces and ultralytics registration."""

from __future__ import annotations

from pathlib import Path

import pytest

torch = pytest.importorskip("torch")

from training.nn.fdaf import FDAF, dft2, dft_bases, idft2_real  # noqa: E402

MODELS = Path(__file__).resolve().parents[2] / "training" / "models"


def _bases(h, w):
    return (*dft_bases(h), *dft_bases(w))


@pytest.mark.parametrize("h, w", [(1, 1), (7, 9), (20, 20), (40, 24), (80, 80)])
def test_matmul_dft_matches_torch_fft(h, w):
    x = torch.randn(2, 3, h, w, generator=torch.Generator().manual_seed(h * 100 + w))
    real, imag = dft2(x, *_bases(h, w))
    ref = torch.fft.fft2(x.double())
    scale = ref.abs().max().item()
    # rtol ~1e-4 relative to the spectrum's magnitude (bins near 0 make elementwise rtol meaningless).
    assert torch.allclose(real.double(), ref.real, rtol=1e-4, atol=1e-4 * scale)
    assert torch.allclose(imag.double(), ref.imag, rtol=1e-4, atol=1e-4 * scale)


@pytest.mark.parametrize("h, w", [(8, 8), (13, 6), (40, 40)])
def test_matmul_idft_matches_torch_ifft(h, w):
    g = torch.Generator().manual_seed(1)
    real, imag = torch.randn(1, 2, h, w, generator=g), torch.randn(1, 2, h, w, generator=g)
    got = idft2_real(real, imag, *_bases(h, w))
    ref = torch.fft.ifft2(torch.complex(real.double(), imag.double())).real
    assert torch.allclose(got.double(), ref, atol=1e-5)


def test_round_trip_is_identity():
    x = torch.randn(1, 4, 12, 10)
    b = _bases(12, 10)
    assert torch.allclose(idft2_real(*dft2(x, *b), *b), x, atol=1e-5)


@pytest.mark.parametrize("gating", [True, False])
@pytest.mark.parametrize("size", [(16, 16), (10, 22)])
def test_fdaf_forward_any_size(gating, size):
    m = FDAF(8, gating=gating)
    x = torch.randn(2, 8, *size)
    y = m(x)
    assert y.shape == x.shape
    # Zero-initialised fuse BN: the block starts as the identity.
    assert torch.allclose(y, x)
    # Bases follow the size; no parameter depends on H x W.
    assert m._size == size
    assert all(p.shape[-2:] in {(1, 1), torch.Size([])} or p.dim() < 2 for p in m.parameters() if p.dim() == 4)


def test_fdaf_gate_gets_gradient():
    m = FDAF(4, gating=True)
    torch.nn.init.ones_(m.fuse[1].weight)
    m(torch.randn(2, 4, 8, 8)).sum().backward()
    assert m.gate.weight.grad is not None and m.gate.weight.grad.abs().sum() > 0


def test_fdaf_rejects_wrong_channels():
    with pytest.raises(ValueError, match="channel"):
        FDAF(8)(torch.randn(1, 4, 8, 8))


def test_freq_consistency_loss_properties():
    pytest.importorskip("ultralytics")
    from training.nn.fcl import freq_consistency_loss, roi_sample

    feat = torch.randn(2, 3, 8, 8, requires_grad=True)
    boxes = torch.tensor([[0.0, 0.0, 32.0, 32.0], [8.0, 8.0, 40.0, 60.0]], requires_grad=True)
    idx = torch.tensor([0, 1])
    crops = roi_sample(feat, boxes, idx, stride=8.0, size=4)
    assert crops.shape == (2, 3, 4, 4)
    # Box [0, 32] at stride 8 with 4 bins puts the bin centres on cell centres 0..3: exact samples.
    assert torch.allclose(crops[0], feat[0, :, :4, :4], atol=1e-6)
    assert freq_consistency_loss(crops, crops).item() == pytest.approx(0.0, abs=1e-4)
    other = roi_sample(feat, boxes + 4.0, idx, stride=8.0, size=4)
    loss = freq_consistency_loss(other, crops)
    assert loss.item() > 0
    loss.backward()
    assert boxes.grad is not None and boxes.grad.abs().sum() > 0  # grid_sample passes gradient to boxes
    assert freq_consistency_loss(crops[:0], crops[:0]).item() == 0.0


def test_register_resolves_yaml_and_builds_all_variants():
    pytest.importorskip("ultralytics")
    from training.offline import repo_root, setup_offline

    setup_offline(repo_root())
    from training.nn import register

    register()
    register()  # idempotent
    import ultralytics.nn.tasks as tasks

    assert tasks.FDAF is FDAF
    for name, n_fdaf in [("vpd-yolo26n", 0), ("vpd-yolo26n-fdaf-nogate", 3), ("vpd-yolo26n-fdaf", 3)]:
        model = tasks.DetectionModel(str(MODELS / f"{name}.yaml"), nc=5, verbose=False).eval()
        assert sum(isinstance(m, FDAF) for m in model.modules()) == n_fdaf
        with torch.no_grad():
            for s in (64, 96):
                out = model(torch.zeros(1, 3, s, s))
                pred = out[0] if isinstance(out, (tuple, list)) else out
                assert pred.shape[0] == 1 and torch.isfinite(pred).all()
