"""``python -m training <command>``: synth | train | ablation | export | evaluate | presidio-compare | choose-base | text-classifier | calibrate | merge | branch | candidate | soup."""

from __future__ import annotations

import importlib
import sys

# command -> module whose ``main(argv)`` runs it; imported lazily so `synth` needs no torch.
COMMANDS = {
    "synth": "training.synth.cli",
    "train": "training.train",
    "ablation": "training.ablation",
    "export": "training.export",
    "evaluate": "training.evaluate",
    "presidio-compare": "training.presidio_compare",
    "choose-base": "training.base_choice",
    "text-classifier": "training.text.cli",
    "calibrate": "training.calibrate",
    "merge": "training.merge",
    "branch": "training.branch",
    "candidate": "training.candidate",
    "soup": "training.soup",
}


def main(argv: list[str] | None = None) -> int:
    """Dispatch to a sub-command's ``main``; return its exit code."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] not in COMMANDS:
        print(f"usage: python -m training {{{'|'.join(COMMANDS)}}} [options]", file=sys.stderr)
        return 2
    module = importlib.import_module(COMMANDS[argv[0]])
    return int(module.main(argv[1:]) or 0)


if __name__ == "__main__":
    sys.exit(main())
