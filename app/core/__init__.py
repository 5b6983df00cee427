"""NumPy/OpenCV core: detections, geometry, decoding, tiling, policy, redaction, pipeline."""
