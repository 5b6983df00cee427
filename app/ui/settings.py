"""What the user chose (classes, threshold, style) and where it is persisted (QSettings), plus
the lock-protected holder that live/export workers read once per frame."""

from __future__ import annotations

import json
import threading
from dataclasses import asdict, dataclass, replace
from enum import Enum
from typing import Any, Generic, TypeVar

from PySide6.QtCore import QSettings

from app.core.policy import DEFAULT_PRESET, DEFAULT_PRESETS, PRESETS, Policy
from app.core.redact import RedactionSettings, Style

CUSTOM = "custom"


class StyleChoice(str, Enum):
    """Styles offered in the UI; COLOUR is a solid fill in a chosen colour."""

    SOLID = "solid"
    COLOUR = "colour"
    PIXELATE = "pixelate"
    BLUR = "blur"


STYLE_LABELS = {
    StyleChoice.SOLID: "Solid black (safest)",
    StyleChoice.COLOUR: "Solid colour",
    StyleChoice.PIXELATE: "Pixelate (unrecoverable)",
    StyleChoice.BLUR: "Blur (unrecoverable)",
}
_CORE_STYLE = {StyleChoice.SOLID: Style.SOLID, StyleChoice.COLOUR: Style.SOLID,
               StyleChoice.PIXELATE: Style.PIXELATE, StyleChoice.BLUR: Style.BLUR}  # fmt: skip


@dataclass(frozen=True)
class RedactionChoice:
    """The side panel's state. ``classes`` None = every class; ``preset`` names where it came from."""

    preset: str = DEFAULT_PRESET
    classes: frozenset[str] | None = PRESETS[DEFAULT_PRESET]
    conf: float = 0.25
    style: StyleChoice = StyleChoice.SOLID
    colour_bgr: tuple[int, int, int] = (40, 40, 220)  # used by StyleChoice.COLOUR
    padding: float = 0.15

    @classmethod
    def from_preset(cls, name: str, base: "RedactionChoice | None" = None) -> "RedactionChoice":
        """Switch to a preset's classes, keeping threshold and style."""
        return replace(base or cls(), preset=name, classes=PRESETS[name])

    def policy(self) -> Policy:
        """Core policy for this choice."""
        return Policy(classes=self.classes, conf=self.conf)

    def redaction(self) -> RedactionSettings:
        """Core redaction settings for this choice."""
        colour = self.colour_bgr if self.style is StyleChoice.COLOUR else (0, 0, 0)
        return RedactionSettings(style=_CORE_STYLE[self.style], colour_bgr=colour, padding=self.padding)

    def to_json(self) -> str:
        """Serialised for QSettings."""
        d = asdict(self)
        d["classes"] = sorted(self.classes) if self.classes is not None else None
        d["style"] = self.style.value
        return json.dumps(d)

    @classmethod
    def from_json(cls, text: str | None) -> "RedactionChoice":
        """Parse what ``to_json`` wrote; anything unreadable gives the defaults."""
        try:
            d = json.loads(text or "")
            classes = d.get("classes")
            return cls(
                preset=str(d.get("preset", DEFAULT_PRESET)),
                classes=frozenset(classes) if classes is not None else None,
                conf=min(max(float(d.get("conf", 0.25)), 0.0), 1.0),
                style=StyleChoice(d.get("style", "solid")),
                colour_bgr=tuple(int(v) for v in d.get("colour_bgr", (40, 40, 220)))[:3],  # type: ignore[arg-type]
                padding=min(max(float(d.get("padding", 0.15)), 0.0), 1.0),
            )
        except (ValueError, TypeError, AttributeError):
            return cls()


T = TypeVar("T")


class SettingsHolder(Generic[T]):
    """A value shared with worker threads: the GUI ``set``s, a worker ``get``s once per frame."""

    def __init__(self, value: T) -> None:
        self._lock = threading.Lock()
        self._value = value

    def get(self) -> T:
        with self._lock:
            return self._value

    def set(self, value: T) -> None:
        with self._lock:
            self._value = value


class Preferences:
    """Typed access to QSettings (tests pass a QSettings on a temporary ini file)."""

    def __init__(self, qsettings: QSettings | None = None) -> None:
        self.q = qsettings if qsettings is not None else QSettings()

    def value(self, key: str, default: Any = None, type_: type | None = None) -> Any:
        v = self.q.value(key, default)
        if v is None or type_ is None:
            return v
        if type_ is bool:
            return v in (True, "true", "1", 1)
        try:
            return type_(v)
        except (TypeError, ValueError):
            return default

    def set(self, key: str, value: Any) -> None:
        self.q.setValue(key, value)

    def choice(self, scope: str = "images") -> RedactionChoice:
        """The saved choice of a view ('images', 'video', 'live'); before any, that view's default
        preset (``DEFAULT_PRESETS``, shared with the CLI)."""
        default = RedactionChoice.from_preset(DEFAULT_PRESETS.get(scope, DEFAULT_PRESET))
        text = self.value(f"{scope}/choice", "")
        return RedactionChoice.from_json(text) if text else default

    def set_choice(self, choice: RedactionChoice, scope: str = "images") -> None:
        self.set(f"{scope}/choice", choice.to_json())

    def sync(self) -> None:
        self.q.sync()
