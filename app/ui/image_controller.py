"""Owns the open images and the two workers behind the Images view: one thread detects (and owns
the detector sessions), one loads, renders previews and saves. The GUI thread only holds state."""

from __future__ import annotations

import logging
import time
from pathlib import Path
from typing import Callable, Iterable

import numpy as np
from PySide6.QtCore import QMimeData, QObject, Signal
from PySide6.QtGui import QGuiApplication, QImage

from app.core.detections import Detections
from app.core.errors import ImageReadError, VpdError
from app.core.pipeline import Pipeline
from app.media.image_io import read_image, visible_pixels
from app.ui.detectors import DetectorFactory, DetectorInfo, describe, describe_failure
from app.ui.document import DocStatus, ImageDocument
from app.ui.image_files import REDACTED_SUFFIX, expand_paths, replace_redacted, save_redacted
from app.ui.qt_image import bgr_to_qimage, qimage_to_bgr, thumbnail
from app.ui.settings import Preferences, RedactionChoice
from app.ui.tasks import TaskRunner

log = logging.getLogger(__name__)
class ImageController(QObject):
    """Images, detection, preview rendering and saving. Views call methods and listen to signals."""

    documents_changed = Signal()
    document_updated = Signal(object)  # ImageDocument whose status/boxes changed
    current_changed = Signal(object)  # ImageDocument | None
    preview_ready = Signal(object, QImage)  # document, redacted preview
    detector_changed = Signal(object)  # DetectorInfo
    choice_changed = Signal(object)  # RedactionChoice
    busy_changed = Signal(bool)
    info = Signal(str)
    warning = Signal(str)  # a result the user should check (e.g. text OCR could not read)
    error = Signal(str)
    # The same warnings and errors with what they are about, for the view's banner:
    # (document or None, "warning" | "error" | "saved", text).
    notice = Signal(object, str, str)
    save_all_finished = Signal(int, int)  # saved, failed
    _first_look = Signal(object, object)  # ImageDocument, the fast detectors' Detections (from the detect thread)

    def __init__(self, factory: DetectorFactory, prefs: Preferences, model_path: Path | None = None, parent=None) -> None:
        super().__init__(parent)
        self.prefs = prefs
        self.model_path = model_path
        self.documents: list[ImageDocument] = []
        self.current: ImageDocument | None = None
        self.choice = prefs.choice()
        self.detector_info = DetectorInfo(False, message="Loading the detector…")
        self.output_folder: Path | None = _path_or_none(prefs.value("images/output_folder", ""))
        self._pipeline: Pipeline | None = None  # touched only on the detect thread
        self._incomplete = "Loading the detector…"  # why detection is incomplete ("" = complete); detect thread
        self._render_seq = 0
        self.detect_runner = TaskRunner("vpd-detect", self)
        self.io_runner = TaskRunner("vpd-image-io", self)
        for runner in (self.detect_runner, self.io_runner):
            runner.busy_changed.connect(lambda _=None: self.busy_changed.emit(self.busy))
        self._first_look.connect(self._on_first_look)
        self.load_detectors(factory)

    @property
    def busy(self) -> bool:
        """True while any image job is queued or running."""
        return bool(self.detect_runner.pending or self.io_runner.pending)

    # ----- detectors ---------------------------------------------------------------------------
    def load_detectors(self, factory: DetectorFactory) -> None:
        """(Re)build the detectors on the detect thread; ``detector_changed`` reports the result."""

        def job() -> DetectorInfo:
            self._pipeline = None
            try:
                built = factory()
            except Exception as exc:  # noqa: BLE001 - any loading failure (cache, protobuf) blocks saving
                info = describe_failure(exc, self.model_path)
                self._incomplete = info.message
                return info
            self._pipeline = Pipeline(built.detectors)
            self._incomplete = "; ".join(built.warnings)
            return describe(built, self.model_path)

        self.detect_runner.submit(job, self._on_detectors)
        for doc in self.documents:  # queued after the reload: re-run what failed with the old detectors
            if doc.status is DocStatus.INCOMPLETE:
                self.detect(doc)

    def _on_detectors(self, info: DetectorInfo) -> None:
        self.detector_info = info
        if info.ok:
            log.info("detectors ready on %s: %d classes", info.provider, len(info.class_names))
        else:
            log.warning(info.message)
        self.detector_changed.emit(info)

    # ----- opening -----------------------------------------------------------------------------
    def open_paths(self, paths: Iterable[str | Path]) -> list[ImageDocument]:
        """Open image files and folders; each loads and detects in the background."""
        files = expand_paths(paths)
        if not files:
            self._tell("error", "No images found there (PNG, JPEG, WebP, BMP or TIFF).")
        docs = []
        for f in files:
            doc = self._add(ImageDocument(f.name, f))
            self.io_runner.submit(lambda f=f: _load_file(f), lambda r, d=doc: self._on_loaded(d, r),
                                  lambda e, d=doc: self._on_load_failed(d, e))  # fmt: skip
            docs.append(doc)
        return docs

    def open_qimage(self, image: QImage, name: str | None = None) -> ImageDocument:
        """Open an in-memory image (a pasted screenshot); it has no file until saved."""
        doc = self._add(ImageDocument(name or time.strftime("Pasted %H-%M-%S")))
        image = QImage(image)  # shallow copy; converted to pixels in the worker
        self.io_runner.submit(lambda: _load_pixels(qimage_to_bgr(image), None), lambda r: self._on_loaded(doc, r),
                              lambda e: self._on_load_failed(doc, e))  # fmt: skip
        return doc

    def paste(self, mime: QMimeData | None = None) -> ImageDocument | None:
        """Open the clipboard's image (or copied image files)."""
        mime = mime if mime is not None else QGuiApplication.clipboard().mimeData()
        if mime is not None and mime.hasImage():
            image = QImage(mime.imageData())
            if not image.isNull():
                return self.open_qimage(image)
        if mime is not None and mime.hasUrls():
            local = [u.toLocalFile() for u in mime.urls() if u.isLocalFile()]
            if local:
                docs = self.open_paths(local)
                return docs[0] if docs else None
        self._tell("error", "The clipboard holds no image. Take a screenshot (PrtSc) or copy an image first.")
        return None

    def _add(self, doc: ImageDocument) -> ImageDocument:
        doc.setParent(self)
        doc.boxes_changed.connect(lambda d=doc: self._on_boxes_changed(d))
        self.documents.append(doc)
        self.documents_changed.emit()
        if self.current is None:
            self.set_current(doc)
        return doc

    def _on_loaded(self, doc: ImageDocument, loaded: tuple) -> None:
        doc.set_loaded(*loaded)
        doc.set_status(DocStatus.DETECTING)
        self.document_updated.emit(doc)
        if doc is self.current:
            self.current_changed.emit(doc)
            self.request_render()
        self.detect(doc)

    def _on_load_failed(self, doc: ImageDocument, exc: Exception) -> None:
        message = str(exc) if isinstance(exc, VpdError) else f"{doc.name}: cannot open ({exc})"
        doc.set_status(DocStatus.ERROR, message)
        self.document_updated.emit(doc)
        if doc is self.current:
            self.current_changed.emit(doc)
        self._tell("error", message, doc)

    # ----- detection ---------------------------------------------------------------------------
    def detect(self, doc: ImageDocument) -> None:
        """Run the detectors on ``doc`` (again); manual boxes are kept."""
        if doc.pixels is None:
            return
        pixels, alpha = doc.pixels, doc.alpha
        doc.set_status(DocStatus.DETECTING)
        self.document_updated.emit(doc)

        def job() -> tuple[Detections | None, tuple[str, ...], str]:
            if self._pipeline is None:
                return None, (), self._incomplete or "no detector loaded"
            # Text only in alpha is found too. The fast detectors' boxes are shown while OCR reads.
            found = self._pipeline.detect(visible_pixels(pixels, alpha), lambda first: self._first_look.emit(doc, first))
            return found, self._pipeline.notes(), self._incomplete

        self.detect_runner.submit(job, lambda d: self._on_detected(doc, d), lambda e: self._on_detect_failed(doc, e))

    def _on_first_look(self, doc: ImageDocument, first: Detections) -> None:
        """Show the fast detectors' boxes while the slower ones (OCR) still read; the image stays
        'detecting' (not saved or copied) until all have answered."""
        if doc in self.documents and doc.status is DocStatus.DETECTING:
            doc.set_detections(first, preliminary=True)
            self.document_updated.emit(doc)

    def _on_detected(self, doc: ImageDocument, found: tuple[Detections | None, tuple[str, ...], str]) -> None:
        if doc not in self.documents:
            return
        detections, notes, incomplete = found
        if detections is not None:
            doc.set_detections(detections)
        for note in notes:
            self._tell("warning", f"{doc.name}: {note}", doc)
        if incomplete:
            doc.set_status(DocStatus.INCOMPLETE, incomplete)
        else:
            doc.set_status(DocStatus.READY)
        self.document_updated.emit(doc)

    def _on_detect_failed(self, doc: ImageDocument, exc: Exception) -> None:
        doc.set_status(DocStatus.INCOMPLETE, f"detection failed: {exc}")
        self.document_updated.emit(doc)
        self._tell("error", f"{doc.name}: detection failed ({exc}); it is not saved or copied until detection works "
                   "or you draw its boxes and mark it as checked by hand.", doc)  # fmt: skip

    def mark_checked_by_hand(self, doc: ImageDocument | None = None) -> bool:
        """The user's explicit opt-in: an image whose detection is incomplete may be saved and
        copied with the boxes it has (e.g. drawn by hand). Returns False if there was nothing to mark."""
        doc = doc or self.current
        if doc is None or doc.status is not DocStatus.INCOMPLETE:
            return False
        doc.set_status(DocStatus.READY)
        self.document_updated.emit(doc)
        self.info.emit(f"{doc.name}: marked as checked by hand; it is saved with the {len(doc.boxes)} box(es) it has.")
        return True

    def _blocked(self, doc: ImageDocument, action: str) -> bool:
        """Report and return True when ``doc`` may not be saved or copied yet."""
        if doc.status in (DocStatus.DETECTING, DocStatus.LOADING):
            self._tell("error", f"{doc.name} is still being analysed; {action} when its boxes are shown.", doc)
            return True
        if doc.status is DocStatus.INCOMPLETE:
            self._tell("error", f"{doc.name}: {action} refused — detection incomplete ({doc.error}). Fix the detector, "
                       "or check the image, draw any missing boxes and use Edit → Mark as checked by hand.", doc)  # fmt: skip
            return True
        if not doc.status.can_output:
            self._tell("error", f"{doc.name}: cannot {action} ({doc.error or doc.status.value}).", doc)
            return True
        return False

    # ----- selection and settings --------------------------------------------------------------
    def set_current(self, doc: ImageDocument | None) -> None:
        """Show ``doc`` in the canvas."""
        if doc is self.current:
            return
        self.current = doc
        self.current_changed.emit(doc)
        self.request_render()

    def close_document(self, doc: ImageDocument) -> None:
        """Forget an image (nothing is written)."""
        if doc not in self.documents:
            return
        i = self.documents.index(doc)
        self.documents.remove(doc)
        self.documents_changed.emit()
        if doc is self.current:
            self.current = None
            self.set_current(self.documents[min(i, len(self.documents) - 1)] if self.documents else None)
            if self.current is None:
                self.current_changed.emit(None)
        doc.deleteLater()

    def set_choice(self, choice: RedactionChoice) -> None:
        """New classes/threshold/style: re-render from stored boxes, never re-detect."""
        if choice == self.choice:
            return
        self.choice = choice
        self.prefs.set_choice(choice)
        self.choice_changed.emit(choice)
        for doc in self.documents:  # a saved copy no longer matches what the new choice hides
            if self._mark_unsaved(doc):
                self.document_updated.emit(doc)
        if self.current is not None:
            self.document_updated.emit(self.current)
        self.request_render()

    def set_output_folder(self, folder: Path | None) -> None:
        """Where Save writes; None = next to each original."""
        self.output_folder = folder
        self.prefs.set("images/output_folder", str(folder) if folder else "")

    def _on_boxes_changed(self, doc: ImageDocument) -> None:
        self._mark_unsaved(doc)
        self.document_updated.emit(doc)
        if doc is self.current:
            self.request_render()

    def render_pipeline(self) -> Pipeline:
        """A detector-less pipeline carrying the current policy and style (select + render only)."""
        return Pipeline((), self.choice.policy(), self.choice.redaction())

    def request_render(self) -> None:
        """Re-render the current image's preview in the worker; only the newest request runs."""
        doc = self.current
        if doc is None or doc.pixels is None:
            return
        pipeline, pixels = self.render_pipeline(), doc.pixels
        hidden = doc.hidden(pipeline.policy)
        self._render_seq += 1
        seq = self._render_seq

        def done(image: QImage) -> None:
            if seq == self._render_seq and doc is self.current:
                self.preview_ready.emit(doc, image)

        self.io_runner.submit(lambda: bgr_to_qimage(pipeline.render(pixels, hidden)), done, self._report, key="preview")

    # ----- output ------------------------------------------------------------------------------
    def save(self, doc: ImageDocument | None = None, folder: Path | None = None,
             on_saved: Callable[[Path], None] | None = None, target: Path | None = None,
             on_failed: Callable[[str], None] | None = None) -> bool:  # fmt: skip
        """Write ``doc`` redacted: to ``target`` (a path the user chose), else next to its original
        or into ``folder``/the output folder. Saving the same image again replaces its own earlier
        output there; any other existing file is kept (the new name is reported)."""
        doc = doc or self.current
        if doc is None or doc.pixels is None:
            self._tell("error", "Nothing to save yet: open or paste an image first.")
            return False
        if self._blocked(doc, "save"):
            return False
        folder = folder or self.output_folder or (doc.path.parent if doc.path else None)
        if target is None and folder is None:
            self._tell("error", "A pasted image has no folder: use File → Save to choose where to save it.", doc)
            return False
        if target is not None and doc.path is not None and target.resolve() == doc.path.resolve():
            self._tell("error", f"{target.name} is the original: choose another name (originals are never overwritten).", doc)
            return False
        pipeline, pixels, alpha = self.render_pipeline(), doc.pixels, doc.alpha
        hidden = doc.hidden(pipeline.policy)
        stem, suffix = (doc.path.stem, doc.path.suffix) if doc.path else (doc.name.replace(" ", "_"), ".png")
        previous = doc.saved_path
        if target is None and previous is not None and previous.parent == Path(folder) and previous.exists():
            target = previous  # saving again after edits updates this image's own copy

        def job() -> Path:
            if target is not None:
                return replace_redacted(pixels, alpha, hidden, pipeline, target)
            return save_redacted(pixels, alpha, hidden, pipeline, Path(folder), stem, suffix)

        def done(path: Path) -> None:
            doc.saved_path = path
            doc.set_status(DocStatus.SAVED)
            self.document_updated.emit(doc)
            self.notice.emit(doc, "saved", "")  # the banner's errors about this image are over
            what = "Updated" if path == previous else "Saved"
            usual = f"{stem}{REDACTED_SUFFIX}"
            taken = f" ({usual}{path.suffix} already exists and was kept)" if target is None and path.stem != usual else ""
            self.info.emit(f"{what} {path}{taken} — {len(hidden)} area(s) hidden; metadata stripped (EXIF, GPS, text chunks).")
            if on_saved:
                on_saved(path)

        def failed(exc: Exception) -> None:
            message = str(exc) if isinstance(exc, VpdError) else f"{doc.name}: could not save ({exc!r})"
            self._tell("error", message, doc)
            if on_failed:
                on_failed(message)

        self.io_runner.submit(job, done, failed)
        return True

    def save_all(self, folder: Path | None = None) -> int:
        """Save every analysed image; returns how many were queued. When they have all finished,
        one summary says how many were saved, where, and what was not."""
        ready = [d for d in self.documents if d.status.can_output]
        incomplete = [d.name for d in self.documents if d.status is DocStatus.INCOMPLETE]
        if incomplete:
            self._tell("error", f"Not saved — detection incomplete: {', '.join(incomplete)}. Fix the detector, or check "
                       "each image and use Edit → Mark as checked by hand.")  # fmt: skip
        elif not ready:
            self._tell("error", "No analysed images to save yet.")
        if not ready:
            return 0
        saved: list[Path] = []
        failed: list[str] = []

        def one_done() -> None:
            if len(saved) + len(failed) == len(ready):
                self._summarise_save_all(saved, failed, len(self.documents) - len(ready))

        for d in ready:
            if not self.save(d, folder, on_saved=lambda p: (saved.append(p), one_done()),
                             on_failed=lambda m: (failed.append(m), one_done())):  # fmt: skip
                failed.append(d.name)
                one_done()
        return len(ready) - len(failed)

    def _summarise_save_all(self, saved: list[Path], failed: list[str], not_ready: int) -> None:
        where = {p.parent for p in saved}
        text = f"Save all: {len(saved)} of {len(saved) + len(failed)} image(s) saved"
        text += f" to {next(iter(where))}" if len(where) == 1 else " next to their originals" if where else ""
        if not_ready:
            text += f"; {not_ready} not ready (still analysing, incomplete or unreadable) and not saved"
        if failed:
            self._tell("error", text + f"; {len(failed)} failed: " + " · ".join(failed))
        else:
            self.info.emit(text + ".")
        self.save_all_finished.emit(len(saved), len(failed))

    def copy_to_clipboard(self, doc: ImageDocument | None = None) -> None:
        """Put the redacted image on the clipboard (pixels only, no metadata)."""
        doc = doc or self.current
        if doc is None or doc.pixels is None:
            self._tell("error", "Nothing to copy yet.")
            return
        if self._blocked(doc, "copy"):
            return
        pipeline, pixels = self.render_pipeline(), doc.pixels
        hidden = doc.hidden(pipeline.policy)

        def done(image: QImage) -> None:
            QGuiApplication.clipboard().setImage(image)
            self.info.emit(f"Copied the redacted image to the clipboard ({len(hidden)} area(s) hidden; no metadata).")

        self.io_runner.submit(lambda: bgr_to_qimage(pipeline.render(pixels, hidden)), done, self._report)

    def _tell(self, level: str, text: str, doc: ImageDocument | None = None) -> None:
        """A warning or error: to the log and status bar (``warning``/``error``) and, with what it
        is about, to the view's banner (``notice``)."""
        (self.warning if level == "warning" else self.error).emit(text)
        self.notice.emit(doc, level, text)

    @staticmethod
    def _mark_unsaved(doc: ImageDocument) -> bool:
        """A saved image that changed is no longer saved; True when its status changed."""
        if doc.status is DocStatus.SAVED:
            doc.set_status(DocStatus.READY)
            return True
        return False

    def _report(self, exc: Exception) -> None:
        self._tell("error", str(exc) if isinstance(exc, VpdError) else f"Unexpected error: {exc!r}")

    def shutdown(self) -> None:
        """Stop and join both worker threads."""
        self.detect_runner.stop()
        self.io_runner.stop()


def _load_file(path: Path) -> tuple:
    image = read_image(path)
    return _load_pixels(image.pixels, image.alpha)


def _load_pixels(pixels: np.ndarray, alpha) -> tuple:
    if pixels.ndim != 3 or min(pixels.shape[:2]) < 1:
        raise ImageReadError("the image is empty")
    pixels.setflags(write=False)
    return pixels, alpha, bgr_to_qimage(pixels), thumbnail(pixels)


def _path_or_none(value) -> Path | None:
    return Path(value) if value else None
