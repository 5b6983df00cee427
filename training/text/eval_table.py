"""``python -m training.text.eval_table BEFORE.json AFTER.json``: a Markdown before/after table of two
``vpd-redact eval --json`` results (per text category recall, per kind recall and FP area), for the
README and the model card."""

from __future__ import annotations

import json
import sys
from pathlib import Path

TEXT_CATEGORIES = ("person_name", "username", "id_number", "address", "date_of_birth", "other_pii", "phone", "email",
                   "secret", "card_number", "account_number")  # fmt: skip


def _index(result: dict) -> dict[tuple[str, str, str], dict]:
    return {(t["source"], t["group"], t["name"]): t for t in result["tallies"]}


def _pct(v) -> str:
    return "–" if v is None else f"{100 * v:.1f}"


def table(before: dict, after: dict) -> str:
    """Markdown rows: recall (OCR alone and fused) and FP area, before → after."""
    b, a = _index(before), _index(after)
    rows = ["| | GT | OCR recall before → after | fused recall before → after |", "|---|---|---|---|"]
    for cat in TEXT_CATEGORIES:
        key_o, key_f = ("ocr", "category", cat), ("fusion", "category", cat)
        if key_f not in a:
            continue
        rows.append(f"| {cat} | {a[key_f]['gt_boxes']} | {_pct(b.get(key_o, {}).get('recall_at_coverage'))} → "
                    f"{_pct(a[key_o]['recall_at_coverage'])} | {_pct(b.get(key_f, {}).get('recall_at_coverage'))} → "
                    f"**{_pct(a[key_f]['recall_at_coverage'])}** |")  # fmt: skip
    rows += ["", "| kind | OCR R / FP before | OCR R / FP after | fused R / FP before | fused R / FP after |", "|---|---|---|---|---|"]
    for group, name in [("all", "all"), ("kind", "screenshot"), ("kind", "document"), ("kind", "photo"), ("kind", "negative")]:
        cells = []
        for src in ("ocr", "fusion"):
            for res in (b, a):
                t = res.get((src, group, name), {})
                fp = t.get("negative_area_redacted") if name == "negative" else t.get("fp_area")
                cells.append(f"{_pct(t.get('recall_at_coverage'))} / {_pct(fp)} %")
        rows.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(rows)


def main(argv: list[str] | None = None) -> int:
    """Print the table; exit 2 on a usage error."""
    argv = list(sys.argv[1:] if argv is None else argv)
    if len(argv) != 2:
        print("usage: python -m training.text.eval_table BEFORE.json AFTER.json", file=sys.stderr)
        return 2
    before, after = (json.loads(Path(p).read_text()) for p in argv)
    print(table(before, after))
    return 0


if __name__ == "__main__":
    sys.exit(main())
