import io

import numpy as np
import pytest
from PIL import Image, PngImagePlugin

from app.core.errors import ImageReadError, OutputError
from app.media.image_io import read_image, write_image


def jpeg_with_gps_and_thumbnail(path):
    img = Image.new("RGB", (64, 48), (200, 10, 10))
    exif = Image.Exif()
    exif[0x010F] = "SpyCam Inc"  # Make
    gps = exif.get_ifd(0x8825)
    gps[2] = (52.0, 31.0, 12.0)  # GPSLatitude
    gps[1] = "N"
    thumb = io.BytesIO()
    Image.new("RGB", (16, 12), (0, 255, 0)).save(thumb, "JPEG")
    # The thumbnail rides inside the EXIF APP1 segment, as cameras store it.
    img.save(path, "JPEG", exif=exif.tobytes() + thumb.getvalue())
    data = path.read_bytes()
    assert b"SpyCam" in data and thumb.getvalue()[:64] in data
    return path, thumb.getvalue()


def test_jpeg_exif_gps_and_thumbnail_are_stripped(tmp_path):
    src, thumb = jpeg_with_gps_and_thumbnail(tmp_path / "in.jpg")
    img = read_image(src)
    out = write_image(img.pixels, tmp_path / "out" / "in.jpg")
    data = out.read_bytes()
    assert b"Exif" not in data and b"SpyCam" not in data and thumb[20:84] not in data
    reread = Image.open(out)
    assert not reread.getexif() and "icc_profile" not in reread.info


def test_png_text_chunks_are_stripped(tmp_path):
    info = PngImagePlugin.PngInfo()
    info.add_text("Author", "Jane Secret")
    info.add_itxt("Comment", "home address", zip=True)
    Image.new("RGB", (32, 32), "white").save(tmp_path / "in.png", pnginfo=info)
    img = read_image(tmp_path / "in.png")
    out = write_image(img.pixels, tmp_path / "o" / "in.png")
    data = out.read_bytes()
    for chunk in (b"tEXt", b"iTXt", b"zTXt", b"eXIf", b"Jane"):
        assert chunk not in data


def test_exif_orientation_is_applied(tmp_path):
    arr = np.zeros((20, 40, 3), np.uint8)
    arr[:, :20] = 255  # left half white
    exif = Image.Exif()
    exif[0x0112] = 6  # rotate 90° CW on display
    Image.fromarray(arr).save(tmp_path / "r.jpg", exif=exif.tobytes(), quality=100)
    img = read_image(tmp_path / "r.jpg")
    assert img.pixels.shape[:2] == (40, 20)
    assert img.pixels[:15].mean() > 200 and img.pixels[25:].mean() < 50  # top half white


@pytest.mark.parametrize("fmt, suffix", [("PNG", ".png"), ("JPEG", ".jpg"), ("WEBP", ".webp"), ("BMP", ".bmp"), ("TIFF", ".tif")])
def test_round_trip_each_format(tmp_path, fmt, suffix):
    Image.new("RGB", (30, 20), (10, 200, 30)).save(tmp_path / f"a{suffix}", fmt)
    img = read_image(tmp_path / f"a{suffix}")
    out = write_image(img.pixels, tmp_path / "o" / f"a{suffix}")
    assert Image.open(out).format == fmt


def test_alpha_is_kept_for_png(tmp_path):
    Image.new("RGBA", (16, 16), (255, 0, 0, 100)).save(tmp_path / "a.png")
    img = read_image(tmp_path / "a.png")
    assert img.alpha is not None and img.alpha[0, 0] == 100
    out = write_image(img.pixels, tmp_path / "o.png", img.alpha)
    assert Image.open(out).mode == "RGBA"


BAD = {
    "empty": (b"", "empty"),
    "text": (b"hello, not an image\n", "not a recognised image"),
}


@pytest.mark.parametrize("name", BAD)
def test_bad_bytes_give_clear_errors(tmp_path, name):
    content, message = BAD[name]
    path = tmp_path / "x.png"
    path.write_bytes(content)
    with pytest.raises(ImageReadError, match=message):
        read_image(path)


def test_truncated_jpeg(tmp_path):
    Image.fromarray(np.random.default_rng(0).integers(0, 255, (200, 200, 3), np.uint8)).save(tmp_path / "t.jpg")
    data = (tmp_path / "t.jpg").read_bytes()
    (tmp_path / "t.jpg").write_bytes(data[: len(data) // 3])
    with pytest.raises(ImageReadError, match="truncated or corrupt"):
        read_image(tmp_path / "t.jpg")


def test_tiny_and_huge_images_are_refused_without_decoding(tmp_path):
    Image.new("RGB", (1, 1)).save(tmp_path / "one.png")
    with pytest.raises(ImageReadError, match="too small"):
        read_image(tmp_path / "one.png")
    # A 16k×16k PNG compresses to a few hundred KB; it must be refused from its header alone.
    Image.new("L", (16000, 16000)).save(tmp_path / "huge.png")
    with pytest.raises(ImageReadError, match="limit"):
        read_image(tmp_path / "huge.png")


def test_write_never_overwrites_and_leaves_no_partial(tmp_path):
    pixels = np.zeros((10, 10, 3), np.uint8)
    target = write_image(pixels, tmp_path / "a.png")
    before = target.read_bytes()
    with pytest.raises(OutputError, match="already exists"):
        write_image(np.full((10, 10, 3), 255, np.uint8), target)
    assert target.read_bytes() == before
    with pytest.raises(OutputError):
        write_image(pixels, tmp_path / "a.xyz")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.png"]
