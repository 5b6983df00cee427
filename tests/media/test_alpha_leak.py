"""Transparent PNGs whose text lives only in the alpha channel: detectors must see the text, and
inside every hidden box the output must be opaque and filled, whatever the viewer's background."""

import numpy as np
import pytest
from PIL import Image

from app.core.detections import Detections, Source
from app.core.pipeline import Pipeline
from app.core.policy import Policy
from app.core.redact import opaque_alpha
from app.media.image_io import read_image, visible_pixels, write_image
from vpd_testkit import ALPHA_TEXT_BOX as TEXT_BOX, alpha_text_png, over, region


def test_the_fixture_text_is_readable_over_white_only_through_alpha(tmp_path):
    rgba = np.asarray(Image.open(alpha_text_png(tmp_path / "a.png")).convert("RGBA"))
    assert (rgba[..., :3] == 0).all()
    assert region(over(rgba, 255)).std() > 40  # readable over white: this is what leaked
    assert region(over(rgba, 0)).std() == 0  # invisible over black


def test_detectors_see_the_alpha_text(tmp_path):
    img = read_image(alpha_text_png(tmp_path / "a.png"))
    assert img.pixels.std() == 0  # the colour layer alone shows nothing
    seen = img.visible
    assert region(seen).std() > 40 and seen[0, 0].tolist() == [255, 255, 255]  # dark ink over white
    light = visible_pixels(np.full_like(img.pixels, 255), img.alpha)
    assert region(light).std() > 40 and light[0, 0].tolist() == [0, 0, 0]  # light ink over black
    opaque = np.full(img.alpha.shape, 255, np.uint8)
    assert visible_pixels(img.pixels, opaque) is not img.pixels and (visible_pixels(img.pixels, opaque) == img.pixels).all()
    assert visible_pixels(img.pixels, None) is img.pixels


@pytest.mark.parametrize("fmt", ["png", "webp", "tif"])
def test_hidden_boxes_are_opaque_and_filled_over_white_and_black(tmp_path, fmt):
    img = read_image(alpha_text_png(tmp_path / "a.png"))
    box = Detections(np.array([TEXT_BOX], np.float32), np.array([0.9], np.float32), np.array([0]), ("email",),
                     sources=np.array([Source.OCR]))  # fmt: skip
    pipeline = Pipeline((), Policy(classes=None))
    alpha = opaque_alpha(img.alpha, pipeline.padded(box, img.alpha.shape).xyxy)
    out_path = write_image(pipeline.render(img.pixels, box), tmp_path / f"o.{fmt}", alpha)
    out = np.asarray(Image.open(out_path).convert("RGBA"))
    for background in (255, 0):
        shown = region(over(out, background))
        assert (shown == 0).all(), f"text readable over {background}"
    assert (region(out)[..., 3] == 255).all()
    assert out[0, 0, 3] == 0 and out[-1, -1, 3] == 0  # transparency outside the boxes is kept
