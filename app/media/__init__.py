"""Frame sources and sinks: images, video files, cameras, screens."""
