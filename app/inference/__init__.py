"""ONNX Runtime sessions, model metadata and the detectors that plug into the pipeline."""
