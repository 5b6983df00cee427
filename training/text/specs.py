"""Harmless technical text for the text-PII classifier: measurements, settings and model names.

Screens show many numbers with units and many product names: a photo's exposure under a post
("Laowa 58mm @ f/5.6", "ISO 125 · 1/400s"), a laptop's specification ("24 GB RAM", "Intel Core
i7-1165G7 @ 2.80GHz"), a file's size, a weather widget. A number followed by a word looks like a
house number and its street, and a capitalised word after a number like a name, so without such
lines among the training text the classifier boxed "58mm @" as an address and "RAM" as a person.
``spec_line`` draws one such line; none of it is private.
"""

from __future__ import annotations

import numpy as np

CAMERAS = {"Nikon": ("D850", "Z6 II", "Z8", "D750", "Zf"), "Canon": ("EOS R5", "EOS 5D Mark IV", "EOS R6", "EOS 90D"),
           "Sony": ("A7 IV", "A7R V", "RX100 VII", "ZV-E10"), "Fujifilm": ("X-T5", "X100V", "GFX 100S"),
           "Leica": ("Q3", "M11"), "Olympus": ("OM-D E-M1", "PEN-F"), "Panasonic": ("Lumix GH6", "Lumix S5"),
           "Pentax": ("K-3 III",), "Ricoh": ("GR IIIx",), "Apple": ("iPhone 15 Pro", "iPhone 13"),
           "Google": ("Pixel 8", "Pixel 7a"), "Samsung": ("Galaxy S24", "Galaxy A54")}  # fmt: skip
LENS_MAKERS = ("Laowa", "Sigma", "Tamron", "Zeiss", "Samyang", "Tokina", "Viltrox", "Voigtländer", "Nikkor", "Canon RF",
               "Sony FE", "Fujinon XF")  # fmt: skip
FOCAL = (14, 15, 18, 20, 24, 28, 35, 40, 50, 56, 58, 65, 85, 90, 100, 105, 135, 200, 400, 600)
APERTURE = ("1.4", "1.8", "2", "2.8", "3.5", "4", "5.6", "8", "11", "16", "22")
SHUTTER = ("1/8000", "1/4000", "1/2000", "1/1000", "1/500", "1/400", "1/250", "1/125", "1/60", "1/30", "1/15", "1/4", "2", "30")
ISO = (50, 64, 100, 125, 160, 200, 400, 800, 1600, 3200, 6400, 12800)
SEPARATORS = (" · ", " | ", "  ", ", ", " • ", " / ")
CPUS = ("Intel Core i7-1165G7 @ 2.80GHz", "Intel Core i5-12400F", "AMD Ryzen 7 5800X", "AMD Ryzen 5 7600", "Apple M2 Pro",
        "Apple M3", "Snapdragon 8 Gen 3", "Intel Celeron N4020", "Core Ultra 7 155H")  # fmt: skip
UNITS = ("GB", "MB", "KB", "TB", "GHz", "MHz", "Hz", "W", "kW", "kWh", "V", "mAh", "mm", "cm", "m", "km", "km/h", "mph",
         "kg", "g", "lb", "°C", "°F", "%", "hPa", "dB", "fps", "Mbps", "ms", "px", "dpi", "L", "ml")  # fmt: skip
QUANTITIES = ("RAM", "Storage", "Memory", "Battery", "Display", "Weight", "Wind", "Humidity", "Pressure", "Speed",
              "Resolution", "Refresh rate", "Download", "Upload", "Ping", "Capacity", "Power", "Volume", "Distance",
              "Elevation", "Temperature", "Size", "Length", "Width", "Height", "Zoom", "Brightness", "Frame rate")  # fmt: skip
NOUNS_AFTER = ("RAM", "SSD", "HDD", "storage", "battery", "LPDDR5", "DDR4", "NVMe", "VRAM", "free", "used", "left",
               "charger", "display", "sensor", "zoom", "lens", "panel", "download", "upload")  # fmt: skip


def _num(rng: np.random.Generator, unit: str) -> str:
    big = unit in ("MB", "KB", "mAh", "Hz", "hPa", "px", "dpi", "ms", "ml", "m", "g", "fps")
    value = int(rng.integers(1, 5000)) if big else float(rng.uniform(0.1, 120))
    if isinstance(value, float):
        value = f"{value:.{int(rng.integers(0, 3))}f}"
    return f"{value}{'' if rng.random() < 0.4 else ' '}{unit}"


def exposure(rng: np.random.Generator) -> str:
    """A photo's settings as galleries and posts print them: "ISO 125 · 1/400s · f/5.6 · 58mm"."""
    parts = [f"ISO {rng.choice(ISO)}" if rng.random() < 0.7 else f"Iso {rng.choice(ISO)}",
             f"{rng.choice(SHUTTER)}{rng.choice(['s', ' s', ' sec', ''])}",
             f"f/{rng.choice(APERTURE)}" if rng.random() < 0.8 else f"ƒ/{rng.choice(APERTURE)}",
             f"{rng.choice(FOCAL)}{rng.choice(['mm', ' mm'])}"]  # fmt: skip
    keep = [p for p in parts if rng.random() < 0.75] or parts[:1]
    return str(rng.choice(SEPARATORS)).join(keep)


def camera(rng: np.random.Generator) -> str:
    """A camera or lens line: "Nikon D850", "Laowa 58mm @ f/5.6", "Shot on Pixel 8"."""
    brand = str(rng.choice(list(CAMERAS)))
    body = f"{brand} {rng.choice(CAMERAS[brand])}"
    kind = int(rng.integers(0, 5))
    if kind == 0:
        return body
    if kind == 1:
        return f"{rng.choice(LENS_MAKERS)} {rng.choice(FOCAL)}mm{rng.choice([' @ f/', ' f/', ' F', ' 1:'])}{rng.choice(APERTURE)}"
    if kind == 2:
        return f"{rng.choice(['Shot on', 'Camera:', 'Taken with', 'Lens:'])} {body}"
    if kind == 3:
        return f"{body}{rng.choice(SEPARATORS)}{exposure(rng)}"
    lo, hi = sorted(rng.choice(FOCAL, 2, replace=False))
    return f"{rng.choice(LENS_MAKERS)} {lo}-{hi}mm f/{rng.choice(APERTURE)}"


def device(rng: np.random.Generator) -> str:
    """A device or software specification: "24 GB RAM", "Intel Core i5-12400F", "1920 x 1080"."""
    kind = int(rng.integers(0, 5))
    if kind == 0:
        return f"{rng.choice([4, 8, 12, 16, 24, 32, 64, 128, 256, 512])} {rng.choice(['GB', 'TB'])} {rng.choice(NOUNS_AFTER)}"
    if kind == 1:
        return str(rng.choice(CPUS))
    if kind == 2:
        w, h = [(1920, 1080), (2560, 1440), (3840, 2160), (1366, 768), (1280, 720), (2532, 1170)][int(rng.integers(0, 6))]
        return f"{w} {rng.choice(['x', '×', 'X'])} {h}{rng.choice(['', ' px', ' @ 60Hz', ' (16:9)'])}"
    if kind == 3:
        return f"{rng.choice(['Version', 'Build', 'Android', 'iOS', 'Firmware', 'v'])} {int(rng.integers(1, 20))}.{int(rng.integers(0, 10))}" + \
            (f".{int(rng.integers(0, 40))}" if rng.random() < 0.6 else "")
    return f"{rng.choice(QUANTITIES)}{rng.choice([': ', ' ', ' — '])}{_num(rng, str(rng.choice(UNITS)))}"


def spec_line(rng: np.random.Generator) -> str:
    """One line of harmless technical text: a photo's exposure, a camera or lens, a device's
    specification or a quantity with its unit."""
    return [exposure, camera, device, device][int(rng.integers(0, 4))](rng)
