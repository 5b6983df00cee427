"""Threshold choice and matching of ``python -m training calibrate``."""

from __future__ import annotations

import numpy as np
import pytest

from training.calibrate import T_MAX, T_MIN, f_beta_threshold, match_class


def test_threshold_sits_between_true_and_false_scores():
    scores = np.array([0.9, 0.8, 0.7, 0.3, 0.2, 0.15])
    is_tp = np.array([True, True, True, False, False, False])
    t, f, p, r = f_beta_threshold(scores, is_tp, n_gt=3)
    assert 0.3 < t <= 0.7 and p == 1.0 and r == 1.0 and f == pytest.approx(1.0)


def test_threshold_is_clipped():
    t, *_ = f_beta_threshold(np.array([0.06, 0.07]), np.array([True, True]), n_gt=2)
    assert t == T_MIN


def test_calibration_only_raises_the_default_bar():
    # every true box scores 0.15: a lower threshold would be F1-best, the floor keeps the default
    scores = np.array([0.15, 0.15, 0.15, 0.12])
    t, f, p, r = f_beta_threshold(scores, np.array([True, True, True, False]), n_gt=3)
    assert t == T_MIN == 0.25 and r == 0.0  # the figures reported are those at the chosen threshold
    t, _, p, r = f_beta_threshold(scores, np.array([True, True, True, False]), n_gt=3, floor=0.1)
    assert t == pytest.approx(0.125) and p == 1.0 and r == 1.0
    t, *_ = f_beta_threshold(np.array([0.95, 0.7, 0.7, 0.7]), np.array([True, False, False, False]), n_gt=1)
    assert t == T_MAX


def test_greedy_matching_takes_each_truth_once():
    gt = np.array([[0, 0, 10, 10]], np.float32)
    pred = np.array([[0, 0, 10, 10], [1, 1, 10, 10], [50, 50, 60, 60]], np.float32)
    assert match_class(pred, np.array([0.5, 0.9, 0.8]), gt).tolist() == [False, True, False]
    assert not match_class(pred, np.array([0.5, 0.9, 0.8]), np.zeros((0, 4), np.float32)).any()


def test_a_beta_below_one_trades_recall_for_precision():
    # two true boxes score high, two more score below a false one
    scores = np.array([0.9, 0.85, 0.58, 0.5, 0.45, 0.3])
    is_tp = np.array([True, True, False, True, True, False])
    t1, _, p1, r1 = f_beta_threshold(scores, is_tp, n_gt=4, beta=1.0)
    t05, _, p05, r05 = f_beta_threshold(scores, is_tp, n_gt=4, beta=0.3)
    assert t05 > t1 and p05 > p1 and r05 < r1
