"""``python -m training candidate``: which sub-command exits stop it, and the card row it prints."""

from __future__ import annotations

import pytest

from training import candidate


def test_a_failing_step_stops_the_candidate_but_a_listed_box_does_not():
    candidate._run("real-dev", lambda argv: 1, [], ok=(0, 1))  # exit 1: oversized boxes were listed
    with pytest.raises(SystemExit, match="export failed \\(exit 2\\)"):
        candidate._run("export", lambda argv: 2, [])
    with pytest.raises(SystemExit, match="real-dev failed \\(exit 2\\)"):
        candidate._run("real-dev", lambda argv: 2, [], ok=(0, 1))


def test_card_row_reads_the_detector_and_fusion_tallies():
    def tally(source, group, name, **values):
        return {"source": source, "group": group, "name": name, **values}

    realtest = {"tallies": [tally("detector", "all", "all", recall_at_coverage=0.4, fp_area=0.5),
                            tally("fusion", "all", "all", recall_at_coverage=0.9, fp_area=0.1)]}
    realdev = {"tallies": [tally("fusion", "all", "all", recall_at_coverage=0.804, fp_area=0.341),
                           tally("fusion", "kind", "negative", negative_area_redacted=0.006)]}
    assert candidate.card_row(realtest, realdev) == "real_test 40.0 / 50.0 | real-dev fused 80.4 / 34.1 / 0.6"
