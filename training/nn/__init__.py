"""Custom network modules for the VPD detector and their registration with ultralytics.

Import-light: ``training.nn.fdaf`` needs only torch; ``register()`` imports ultralytics.
"""

from __future__ import annotations

from training.nn.fdaf import FDAF

__all__ = ["FDAF", "CUSTOM_MODULES", "register"]

# YAML name -> class. The YAML name must equal the class name: checkpoints pickle the class
# by its import path (training.nn.fdaf.FDAF), the YAML refers to it by this name.
CUSTOM_MODULES = {"FDAF": FDAF}


def register() -> None:
    """Make the custom modules resolvable by ultralytics' model-YAML parser.

    ultralytics 8.4.190 ``parse_model`` looks YAML module names up in the
    ``ultralytics.nn.tasks`` module globals and has no registration hook, so the classes are
    set there. Idempotent; call before building a model from a YAML that names them.
    """
    import ultralytics.nn.tasks as tasks

    for name, cls in CUSTOM_MODULES.items():
        existing = getattr(tasks, name, None)
        if existing is not None and existing is not cls:
            raise RuntimeError(f"ultralytics.nn.tasks already defines {name!r} as {existing!r}; refusing to shadow it")
        setattr(tasks, name, cls)
