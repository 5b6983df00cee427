"""OCR text-PII recogniser: RapidOCR (PP-OCR ONNX models shipped in the ``rapidocr`` wheel,
Apache-2.0) reads lines and word boxes; the text-PII classifier (``app.text``: learned token
classifier + validators, documents, address blocks) decides which spans are private; each span
becomes a box over just that span. Without the classifier file the rule-based recognisers
(``app.text.recognisers``) decide, with a note to the user.

The models run on our own ONNX Runtime sessions (``create_session``: CUDA → CPU), swapped into
RapidOCR's engine after it is built, so the provider in use is known and shown. Model paths are
passed explicitly so RapidOCR never tries to download anything.
"""

from __future__ import annotations

import importlib.util
import logging
import time
import unicodedata
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Sequence

import numpy as np

from app.core.detections import Detections, concat
from app.core.errors import DetectorUnavailable, ModelError
from app.core.geometry import SMALL_FRAME_LONG_SIDE, upscale_factor, upscaled
from app.core.policy import TEXT_PII
from app.text.classifier import TextPiiClassifier
from app.text.lines import TextLine
from app.text.model import TextModelError, load_model
from app.text.screen import ScreenReading, read_screen, refine
from app.inference.documents_text import DOCUMENT_REGION_CLASSES, attach_portraits, document_candidates
from app.inference.name_pictures import PICTURE_CLASS, name_pictures
from app.inference.plates_text import PLATE_CLASSES, confirm_plates, drop_road_sign_objects, plate_candidates, plate_text
from app.inference.shop_signs_text import SHOP_SIGN_CLASSES, drop_parts_of_objects, house_number_text, shop_sign_candidates
from app.inference.signatures_text import SIGNATURE_CLASSES, signature_candidates
from app.inference.signs_text import SIGN_CLASSES, sign_candidates
from app.inference.session import active_provider, create_session, pool_threads

log = logging.getLogger(__name__)

MODEL_FILES = {"Det": "PP-OCRv6_det_small.onnx", "Rec": "PP-OCRv6_rec_small.onnx", "Cls": "ch_ppocr_mobile_v2.0_cls_mobile.onnx"}
INSTALL_HINT = "pip install rapidocr (it needs no second onnxruntime: the app's onnxruntime-gpu serves it)"
# RapidOCR drops lines read with less confidence than this, and lines read as empty; where they
# are is kept (``UnreadLines``) for the layout specialists.
READ_FLOOR = 0.3


# The specialists that read the OCR's lines, by their OcrSettings switch, in the order they run.
SPECIALISTS = (("plates", plate_candidates), ("documents", document_candidates), ("signs", sign_candidates),
               ("shop_signs", shop_sign_candidates), ("signatures", signature_candidates))  # fmt: skip
READS_UNREAD = frozenset({"shop_signs", "signatures"})  # they also read lines found but not read


@dataclass(frozen=True)
class OcrSettings:
    """``min_line_score``: lines read with less confidence count as "not read" (still scanned).
    ``max_side``: frames are downscaled to this longest side before text detection.
    ``min_long_side``: frames whose longest side is shorter are read upscaled to it (at most 3×)."""

    min_line_score: float = 0.6
    max_side: int = 2560
    min_long_side: int = SMALL_FRAME_LONG_SIDE  # smaller frames are read upscaled to this longest side (``SmallFrameUpscaler``)
    use_angle_cls: bool = False  # 180°-rotated text is rare on screens; the classifier costs ~15 %
    use_classifier: bool = True  # the learned text-PII classifier; False: rule-based recognisers only
    classifier_path: Path | None = None  # None: models/text-pii.npz
    plates: bool = True  # licence-plate candidates from the lines read (app.inference.plates_text)
    documents: bool = True  # whole ID / receipt / parcel-label regions from the lines' layout (documents_text)
    signs: bool = True  # street-name signs from the lines read in photos (signs_text)
    shop_signs: bool = True  # shop signs and house numbers from the lines' layout in photos (shop_signs_text)
    signatures: bool = True  # handwritten signatures among a page's printed lines (signatures_text)
    name_pictures: bool = True  # the picture just before a name read on a screen, as an avatar (name_pictures)


@dataclass(frozen=True)
class OcrRunInfo:
    """What the last ``detect`` call read: lines, lines not read (low confidence or non-Latin
    script, which the recognisers do not cover), PII spans found and seconds taken."""

    lines: int = 0
    not_read: int = 0
    non_latin: int = 0
    spans: int = 0
    seconds: float = 0.0

    def notes(self) -> tuple[str, ...]:
        """One sentence for the user when some lines were not read, else nothing."""
        if not self.not_read:
            return ()
        why = [f"{self.non_latin} in a script it does not cover" if self.non_latin else "",
               f"{self.not_read - self.non_latin} too unclear" if self.not_read > self.non_latin else ""]
        return (f"OCR could not read {self.not_read} of {self.lines} text line(s) ({', '.join(w for w in why if w)}); "
                "PII in them is not hidden automatically, check them by eye",)


def rapidocr_model_dir() -> Path:
    """Folder holding RapidOCR's bundled models; ``DetectorUnavailable`` when not installed."""
    spec = importlib.util.find_spec("rapidocr")
    if spec is None or not spec.submodule_search_locations:
        raise DetectorUnavailable(f"OCR is off: the rapidocr package is not installed ({INSTALL_HINT})")
    folder = Path(list(spec.submodule_search_locations)[0]) / "models"
    missing = [name for name in MODEL_FILES.values() if not (folder / name).is_file()]
    if missing:
        raise DetectorUnavailable(f"OCR is off: rapidocr is installed but lacks its bundled models {missing} in {folder}")
    return folder


def latin_share(text: str) -> float:
    """Share of letters in ``text`` that are Latin script (digits and punctuation ignored)."""
    letters = [ch for ch in text if ch.isalpha()]
    if not letters:
        return 1.0
    return sum("LATIN" in unicodedata.name(ch, "") for ch in letters) / len(letters)


def normalise_in_float32(text_detector) -> None:
    """Make RapidOCR's text detector normalise its input in float32: its mean and std are float64
    arrays, which turn the whole image into float64 (0.29 s instead of 0.035 s for a 1080p
    screenshot, a tenth of the OCR's time) before it is cast back to float32 for the model. A
    RapidOCR without this hook is left as it is (slower, same result)."""
    make = getattr(text_detector, "get_preprocess", None)
    if make is None:
        return

    def get_preprocess():
        op = make()
        op.mean, op.std = np.asarray(op.mean, np.float32), np.asarray(op.std, np.float32)
        op.scale = np.float32(op.scale)
        return op

    text_detector.get_preprocess = get_preprocess


def _quad(box) -> np.ndarray:
    return np.asarray(box, np.float32).reshape(4, 2)


class OcrPiiDetector:
    """``Detector`` plug-in: OCR → PII spans → span boxes, tagged ``Source.OCR``."""

    name = "ocr"

    def __init__(self, engine, providers: str, settings: OcrSettings = OcrSettings(),
                 classifier: TextPiiClassifier | None = None, warning: str = "", sessions: tuple = ()) -> None:  # fmt: skip
        self.engine = engine
        self._sessions = tuple(sessions)  # our ORT sessions inside ``engine``
        self._provider = providers
        self.settings = settings
        self.classifier = classifier
        self.warning = warning  # why the classifier is not in use, shown with every result
        self.last_run = OcrRunInfo()
        self.last_reading = ScreenReading()
        self.last_lines: list[TextLine] = []  # the lines read by the last ``detect``, in reading order
        self.last_unread: list[TextLine] = []  # lines found but not read (text ""), last ``detect``

    @property
    def last_notes(self) -> tuple[str, ...]:
        """Caveats about the last ``detect`` call (lines not read, no classifier), for the user."""
        return self.last_run.notes() + ((self.warning,) if self.warning else ())

    @staticmethod
    def load_classifier(settings: OcrSettings) -> tuple[TextPiiClassifier | None, str]:
        """The text-PII classifier of ``settings`` and a warning. A model file the user named must
        load (``TextModelError``); a missing or broken default file falls back to the rules."""
        if not settings.use_classifier:
            return None, ""
        try:
            return TextPiiClassifier(load_model(settings.classifier_path)), ""
        except TextModelError as exc:
            if settings.classifier_path is not None:
                raise
            log.warning("%s", exc)
            return None, f"text is read by rules only: {exc}"

    @classmethod
    def from_package(cls, providers: Sequence[str] | None = None, settings: OcrSettings = OcrSettings()) -> "OcrPiiDetector":
        """Build RapidOCR from its bundled models on our sessions; ``DetectorUnavailable`` if absent."""
        folder = rapidocr_model_dir()
        try:
            from rapidocr import RapidOCR
        except ImportError as exc:
            raise DetectorUnavailable(f"OCR is off: rapidocr cannot be imported ({exc}); {INSTALL_HINT}") from exc
        params = {"Global.log_level": "error", "Global.max_side_len": settings.max_side, "Global.text_score": READ_FLOOR,
                  "Global.use_cls": settings.use_angle_cls,
                  # Native scale up to max_side; RapidOCR's default upscales the short side to 736,
                  # which costs 10x on a small or very wide image and gains nothing on screen text.
                  "Det.limit_type": "max", "Det.limit_side_len": settings.max_side}  # fmt: skip
        params.update({f"{k}.model_path": str(folder / name) for k, name in MODEL_FILES.items()})
        try:
            engine = RapidOCR(params=params)
            loaders = {"Det": engine._load_det_model, "Rec": engine._load_rec_model}
            if settings.use_angle_cls:
                loaders["Cls"] = engine._load_cls_model
            used, sessions = [], []
            for key, load in loaders.items():
                stage = load()
                stage.session.session = create_session(folder / MODEL_FILES[key], providers)
                if key == "Det":
                    normalise_in_float32(stage)
                used.append(active_provider(stage.session.session))
                sessions.append(stage.session.session)
            engine.build_final_output = UnreadLines(engine.build_final_output)
            engine = SmallFrameUpscaler(engine, settings.min_long_side)
        except ModelError:
            raise
        except Exception as exc:  # RapidOCR's own config/engine errors
            raise DetectorUnavailable(f"OCR is off: rapidocr failed to start ({type(exc).__name__}: {exc})") from exc
        classifier, warning = cls.load_classifier(settings)
        return cls(engine, "/".join(sorted(set(used))), settings, classifier, warning, tuple(sessions))

    def compute_threads(self) -> tuple[int, ...]:
        """Native ids of the ORT pool threads that run part of this detector's inference (``session.pool_threads``)."""
        return pool_threads(*self._sessions)

    def specialist_lines(self, flag: str) -> list[TextLine]:
        """The lines of the last run that the specialist switched by ``flag`` reads: the lines read,
        plus for ``READS_UNREAD`` those the recogniser found and dropped (signs it cannot read,
        signatures it reads as nothing)."""
        return self.last_lines + (self.last_unread if flag in READS_UNREAD else [])

    @property
    def class_names(self) -> tuple[str, ...]:
        """The taxonomy's on-screen text PII classes, plus those of the enabled specialists that read
        the same lines: ``license_plate`` (``plates``), document regions (``documents``),
        ``street_sign`` (``signs``), ``shop_sign`` / ``house_number`` (``shop_signs``) and
        ``signature`` (``signatures``), ``avatar`` (``name_pictures``)."""
        extra = ((PLATE_CLASSES if self.settings.plates else ()) + (DOCUMENT_REGION_CLASSES if self.settings.documents else ())
                 + (SIGN_CLASSES if self.settings.signs else ()) + (SHOP_SIGN_CLASSES if self.settings.shop_signs else ())
                 + (SIGNATURE_CLASSES if self.settings.signatures else ())
                 + ((PICTURE_CLASS,) if self.settings.name_pictures else ()))  # fmt: skip
        return TEXT_PII + tuple(c for c in dict.fromkeys(extra) if c not in TEXT_PII)

    @property
    def provider(self) -> str:
        """Execution provider of the OCR models ('CUDA', 'CPU')."""
        return self._provider

    def read_lines(self, frame: np.ndarray) -> list[TextLine]:
        """Recognised lines of a (H, W, 3) uint8 BGR frame, with word boxes, in frame pixels."""
        return self.read_all_lines(frame)[0]

    def read_all_lines(self, frame: np.ndarray) -> tuple[list[TextLine], list[TextLine]]:
        """The lines read (score ≥ ``READ_FLOOR``, with word boxes) and the lines the text detector
        found but the recogniser could not read (text "", e.g. a script it does not know; only
        with an engine built by ``from_package``), both in frame pixels of a (H, W, 3) uint8 BGR frame."""
        if frame.shape[0] < 8 or frame.shape[1] < 8:
            return [], []
        recorder = getattr(self.engine, "build_final_output", None)
        if isinstance(recorder, UnreadLines):
            recorder.last = []  # RapidOCR skips its last step when it finds no line
        result = self.engine(np.ascontiguousarray(frame), return_word_box=True)
        unread = [TextLine("", q, s) for q, s in recorder.last] if isinstance(recorder, UnreadLines) else []
        if result.boxes is None or result.txts is None:
            return [], unread
        words_per_line = result.word_results or ((),) * len(result.txts)
        lines = []
        for box, text, score, words in zip(result.boxes, result.txts, result.scores, words_per_line):
            word_boxes = tuple((w, _quad(b)) for w, _, b in (words or ()) if b is not None and w)
            lines.append(TextLine(str(text), _quad(box), float(score), word_boxes))
        return lines, unread

    def detect(self, frame: np.ndarray) -> Detections:
        """PII boxes for a (H, W, 3) uint8 BGR frame, in frame pixels, ``Source.OCR``."""
        t0 = time.perf_counter()
        read, unread = self.read_all_lines(frame)
        lines = self.last_lines = _reading_order(read)
        self.last_unread = _reading_order(unread)
        not_read = sum(1 for l in lines if latin_share(l.text) >= 0.5 and l.score < self.settings.min_line_score)
        non_latin = sum(1 for l in lines if latin_share(l.text) < 0.5)
        self.last_reading = read_screen(lines, frame, self.classifier)
        found = self.last_reading.detections()
        extra = [find(self.specialist_lines(flag), frame) for flag, find in SPECIALISTS if getattr(self.settings, flag)]
        if extra:
            found = concat([found, *extra], self.class_names)
        if self.settings.name_pictures:
            found = concat([found, name_pictures(found, frame, self.class_names)], self.class_names)
        seconds = time.perf_counter() - t0
        self.last_run = OcrRunInfo(len(lines), not_read + non_latin, non_latin, len(found), seconds)
        if not_read or non_latin:
            log.info("OCR: %d of %d lines not read (%d non-Latin script, %d low confidence)",
                     not_read + non_latin, len(lines), non_latin, not_read)  # fmt: skip
        return found

    def refine(self, fused: Detections) -> Detections:
        """The fused detections of all detectors on the frame last passed to ``detect``, adjusted
        by this reading: fields of detector-boxed documents added, detector text boxes cut to the
        lines the reading backs or dropped, plate candidates inside the detector's plate boxes confirmed and cut to their outline,
        ID regions read from text widened to the holder's photo beside them, house numbers on a plate
        and signs on a code dropped, the detector's plate and house-number boxes over a road sign's
        words (STOP) dropped."""
        reading, self.last_reading = self.last_reading, ScreenReading(self.last_reading.readings)
        fused = refine(fused, reading)
        if self.settings.documents:
            fused = attach_portraits(fused)
        if self.settings.shop_signs:
            fused = drop_parts_of_objects(fused)
        # Neither a plate nor a house number ever says STOP.
        fused = drop_road_sign_objects(fused, self.last_lines, {"license_plate": lambda t: plate_text(t) is not None,
                                                                "house_number": house_number_text})  # fmt: skip
        if self.settings.plates:
            fused = confirm_plates(fused, self.specialist_lines("plates"))
        return fused


class UnreadLines:
    """RapidOCR's last step (``build_final_output``), which drops the found lines read as empty or
    below ``READ_FLOOR``, wrapped to note first where they are: ``last`` holds (quad (4, 2)
    float32 frame pixels, score) per dropped line of the last call. It reads RapidOCR internals, so
    any surprise there leaves ``last`` empty and the OCR unchanged."""

    def __init__(self, build_final_output) -> None:
        self._build = build_final_output
        self.last: list[tuple[np.ndarray, float]] = []

    def __call__(self, ori_img, det_res, cls_res, rec_res, *rest):
        self.last = []
        try:
            from rapidocr.utils.process_img import map_boxes_to_original

            dropped = [i for i, (t, s) in enumerate(zip(rec_res.txts, rec_res.scores)) if not str(t).strip() or s < READ_FLOOR]
            if dropped and det_res.boxes is not None:
                boxes = np.array(det_res.boxes, np.float32)[dropped].copy()
                boxes = map_boxes_to_original(boxes, rest[-1], *ori_img.shape[:2])
                self.last = [(_quad(b), float(rec_res.scores[i])) for b, i in zip(boxes, dropped)]
        except Exception:  # noqa: BLE001 - a RapidOCR version with other internals: no unread lines
            log.debug("unread OCR lines not available", exc_info=True)
        return self._build(ori_img, det_res, cls_res, rec_res, *rest)


class SmallFrameUpscaler:
    """The RapidOCR engine, reading a frame whose longest side is under ``min_long_side`` upscaled
    to it (by at most ``max_factor``), with every box mapped back to the frame's pixels. The text
    detector misses letters under about 10 px: on the real pack's small photos of cars (256–511 px
    long), reading them at 1,024 px found a text line on 57 more of their 368 train plates (text
    plates found 39.1 → 53.5 %). Larger frames (screenshots, 720p video) are read as they are.
    Other attributes are the engine's."""

    def __init__(self, engine, min_long_side: int, max_factor: float = 3.0) -> None:
        self.engine = engine
        self.min_long_side = min_long_side
        self.max_factor = max_factor

    def __getattr__(self, name):
        return getattr(self.engine, name)

    def factor(self, hw: tuple[int, int]) -> float:
        """The upscaling factor for a frame of height/width ``hw`` (1.0: read as it is)."""
        return upscale_factor(hw, self.min_long_side, self.max_factor)

    def __call__(self, img: np.ndarray, **kwargs):
        f = self.factor(img.shape[:2])
        if f == 1.0:
            return self.engine(img, **kwargs)
        out = self.engine(upscaled(img, f), **kwargs)
        recorder = getattr(self.engine, "build_final_output", None)
        if isinstance(recorder, UnreadLines):
            recorder.last = [(q / f, s) for q, s in recorder.last]
        if out.boxes is None or out.txts is None:
            return out
        words = tuple(tuple((w, s, None if b is None else np.asarray(b, np.float32) / f) for w, s, b in (line or ()))
                      for line in (out.word_results or ((),) * len(out.txts)))  # fmt: skip
        return SimpleNamespace(boxes=np.asarray(out.boxes, np.float32) / f, txts=out.txts, scores=out.scores,
                               word_results=words)


def _reading_order(lines: list[TextLine]) -> list[TextLine]:
    return sorted(lines, key=lambda l: (float(l.quad[:, 1].min()), float(l.quad[:, 0].min())))
