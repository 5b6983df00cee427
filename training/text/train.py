"""Train the text-PII token classifier (multinomial logistic regression, NumPy only) on cached OCR
reads of rendered screens (``training.text.ocr_data``), evaluate it on held-out scenes against the
rule-based recognisers alone, and write ``models/text-pii.npz``.

Optimiser: Adam on the hashed weight table, mini-batches, L2, class weights that lift the rare
private classes (the ``none`` class outnumbers them ~5:1).
"""

from __future__ import annotations

import logging
import time
from dataclasses import dataclass

import numpy as np

from app.core.policy import TEXT_PII
from app.text.classifier import OVERRIDE_SCORE, featurise
from app.text.gazetteer import NameTable
from app.text.layout import line_contexts
from app.text.model import FORMAT, NONE, TextPiiModel
from app.text.features import FEATURE_VERSION
from app.text.recognisers import find_pii
from training.text.ocr_data import ReadScene, char_labels

log = logging.getLogger(__name__)

CLASSES = (NONE,) + TEXT_PII


@dataclass
class TokenSet:
    """Hashed features (one index list per token), labels (class ids), and per token the rule-only
    prediction (class id of an overlapping rule span with score ≥ 0.25, the default policy threshold,
    else 0) for comparison."""

    features: list[list[int]]
    labels: np.ndarray
    rule_pred: np.ndarray
    strong_pred: np.ndarray  # class id of an overlapping rule span the app treats as an override
    line_of: np.ndarray  # line number of each token (global over the set)


def token_label(labels: list[str | None], start: int, end: int) -> str | None:
    """Majority class of a token's characters; None unless ≥ half of them are private."""
    chars = [c for c in labels[start:end]]
    counts: dict[str, int] = {}
    for c in chars:
        if c is not None:
            counts[c] = counts.get(c, 0) + 1
    if not counts:
        return None
    cls, n = max(counts.items(), key=lambda kv: kv[1])
    return cls if n >= 0.5 * max(1, sum(1 for ch in range(start, end))) else None


def build_tokens(scenes: list[ReadScene], names: NameTable, dim: int, version: int = FEATURE_VERSION) -> TokenSet:
    """Features (of feature ``version``) and labels of every token of every line of ``scenes``."""
    index = {c: i for i, c in enumerate(CLASSES)}
    feats: list[list[int]] = []
    labels, rule_pred, strong_pred, line_of = [], [], [], []
    line_no = 0
    for scene in scenes:
        lines = list(scene.lines)
        contexts = line_contexts(lines)
        prepared = featurise(lines, names, dim, contexts, version)
        for i, (line, ctx, (toks, tok_feats, _)) in enumerate(zip(lines, contexts, prepared)):
            chars = list(scene.char_classes[i]) if scene.char_classes else char_labels(line, scene.labels)
            rules = [r for r in find_pii(line.text, ctx.label_text) if r.score >= 0.25]  # the old default policy conf
            for tok, f in zip(toks, tok_feats):
                feats.append(f)
                labels.append(index[token_label(chars, tok.start, tok.end) or NONE])
                hit = next((r for r in rules if r.start < tok.end and tok.start < r.end), None)
                rule_pred.append(index[hit.class_name] if hit else 0)
                strong = next((r for r in rules if r.score >= OVERRIDE_SCORE and r.start < tok.end and tok.start < r.end), None)
                strong_pred.append(index[strong.class_name] if strong else 0)
                line_of.append(line_no)
            line_no += 1
    return TokenSet(feats, np.array(labels, np.int64), np.array(rule_pred, np.int64), np.array(strong_pred, np.int64),
                    np.array(line_of, np.int64))  # fmt: skip


def _logits(W: np.ndarray, b: np.ndarray, feats: list[list[int]]) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    lengths = np.array([len(f) for f in feats])
    flat = np.fromiter((j for f in feats for j in f), np.int64, int(lengths.sum()))
    starts = np.concatenate([[0], np.cumsum(lengths)[:-1]])
    return np.add.reduceat(W[flat], starts, axis=0) + b, flat, lengths


def softmax(z: np.ndarray) -> np.ndarray:
    """Row-wise softmax of (N, C) logits."""
    z = z - z.max(axis=1, keepdims=True)
    e = np.exp(z)
    return e / e.sum(axis=1, keepdims=True)


def fit(data: TokenSet, dim: int, epochs: int = 12, batch: int = 512, lr: float = 0.05, l2: float = 1e-6,
        seed: int = 0) -> tuple[np.ndarray, np.ndarray]:  # fmt: skip
    """Weights (dim, C) and bias (C,) of a softmax regression fitted with Adam."""
    rng = np.random.default_rng(seed)
    C = len(CLASSES)
    W = np.zeros((dim, C), np.float32)
    b = np.zeros(C, np.float32)
    counts = np.bincount(data.labels, minlength=C).astype(np.float64)
    class_w = np.where(counts > 0, np.sqrt(counts.max() / np.maximum(counts, 1)), 0.0).astype(np.float32)
    mW, vW, mb, vb = np.zeros_like(W), np.zeros_like(W), np.zeros_like(b), np.zeros_like(b)
    step, b1, b2, eps = 0, 0.9, 0.999, 1e-8
    n = len(data.labels)
    for epoch in range(epochs):
        order = rng.permutation(n)
        loss = 0.0
        for s in range(0, n, batch):
            idx = order[s : s + batch]
            feats = [data.features[i] for i in idx]
            y = data.labels[idx]
            z, flat, lengths = _logits(W, b, feats)
            p = softmax(z)
            wy = class_w[y]
            loss += float(-(wy * np.log(p[np.arange(len(y)), y] + 1e-9)).sum())
            g = p
            g[np.arange(len(y)), y] -= 1.0
            g *= (wy / len(y))[:, None]
            rows = np.repeat(g, lengths, axis=0)
            uniq, inv = np.unique(flat, return_inverse=True)
            gW = np.zeros((len(uniq), C), np.float32)
            np.add.at(gW, inv, rows)
            gW += l2 * W[uniq]
            gb = g.sum(axis=0)
            step += 1
            # lazy Adam: only the rows this batch touched
            mW[uniq] = b1 * mW[uniq] + (1 - b1) * gW
            vW[uniq] = b2 * vW[uniq] + (1 - b2) * gW * gW
            mb[:] = b1 * mb + (1 - b1) * gb
            vb[:] = b2 * vb + (1 - b2) * gb * gb
            corr = np.sqrt(1 - b2**step) / (1 - b1**step)
            W[uniq] -= lr * corr * mW[uniq] / (np.sqrt(vW[uniq]) + eps)
            b -= lr * corr * mb / (np.sqrt(vb) + eps)
        log.warning("epoch %d/%d: weighted loss %.4f", epoch + 1, epochs, loss / n)
    return W, b


def predict(W: np.ndarray, b: np.ndarray, feats: list[list[int]]) -> np.ndarray:
    """Class probabilities (N, C)."""
    out = []
    for s in range(0, len(feats), 4096):
        out.append(softmax(_logits(W, b, feats[s : s + 4096])[0]))
    return np.concatenate(out) if out else np.zeros((0, len(CLASSES)))


def metrics(labels: np.ndarray, pred: np.ndarray, line_of: np.ndarray) -> dict:
    """Token precision/recall of private-vs-not, per-class recall (any private class counts as
    found, as on screen any black box hides it), and line-level private precision/recall."""
    truth, found = labels > 0, pred > 0
    tp = int((truth & found).sum())
    out = {"tokens": int(len(labels)), "private_tokens": int(truth.sum()),
           "token_precision": tp / max(int(found.sum()), 1), "token_recall": tp / max(int(truth.sum()), 1),
           "token_class_accuracy": float((labels[truth] == pred[truth]).mean()) if truth.any() else None}  # fmt: skip
    per_class = {}
    for c in range(1, len(CLASSES)):
        m = labels == c
        if m.any():
            per_class[CLASSES[c]] = {"tokens": int(m.sum()), "recall": float(found[m].mean())}
    out["per_class_recall"] = per_class
    n_lines = int(line_of.max()) + 1 if len(line_of) else 0
    line_truth = np.bincount(line_of, weights=truth, minlength=n_lines) > 0
    line_found = np.bincount(line_of, weights=found, minlength=n_lines) > 0
    out["lines"] = n_lines
    out["line_precision"] = float((line_truth & line_found).sum() / max(line_found.sum(), 1))
    out["line_recall"] = float((line_truth & line_found).sum() / max(line_truth.sum(), 1))
    return out


def to_model(W: np.ndarray, b: np.ndarray, meta: dict) -> TextPiiModel:
    """Package weights with the metadata the app checks."""
    return TextPiiModel(W, b, CLASSES, {"format": FORMAT, "feature_version": FEATURE_VERSION, "dim": int(W.shape[0]), **meta})


def train(train_scenes: list[ReadScene], test_scenes: list[ReadScene], names: NameTable, dim: int, epochs: int,
          threshold: float = 0.5, other_tests: dict[str, list[ReadScene]] | None = None) -> tuple[TextPiiModel, dict]:  # fmt: skip
    """Fit on ``train_scenes``, measure on ``test_scenes`` (and on each named set of
    ``other_tests``, reported under its name); returns the model and its metrics."""
    t0 = time.perf_counter()
    tr = build_tokens(train_scenes, names, dim)
    te = build_tokens(test_scenes, names, dim)
    t_feat = time.perf_counter() - t0
    W, b = fit(tr, dim, epochs=epochs)
    t_fit = time.perf_counter() - t0 - t_feat
    p = predict(W, b, te.features)
    private = 1 + np.argmax(p[:, 1:], axis=1)
    model_pred = np.where(1 - p[:, 0] >= threshold, private, 0)
    pred = np.where(te.strong_pred > 0, te.strong_pred, model_pred)  # as the app reads: validators override
    result = {"train_scenes": len(train_scenes), "test_scenes": len(test_scenes), "train_tokens": int(len(tr.labels)),
              "threshold": threshold, "seconds_features": round(t_feat, 1), "seconds_fit": round(t_fit, 1),
              "classifier": metrics(te.labels, pred, te.line_of), "model_alone": metrics(te.labels, model_pred, te.line_of),
              "rules_only": metrics(te.labels, te.rule_pred, te.line_of),
              "names": names.source}  # fmt: skip
    for name, scenes in (other_tests or {}).items():
        result[name] = evaluate(W, b, build_tokens(scenes, names, dim), threshold)
        result[name]["scenes"] = len(scenes)
    model = to_model(W, b, {"metrics": result})
    result["cost"] = reading_cost(model, names, test_scenes)
    return model, result


def evaluate(W: np.ndarray, b: np.ndarray, data: TokenSet, threshold: float = 0.5) -> dict:
    """Metrics of the classifier with validator overrides, the model alone and the rules alone on
    ``data`` (as ``train`` reports them for the held-out scenes)."""
    p = predict(W, b, data.features)
    private = 1 + np.argmax(p[:, 1:], axis=1)
    model_pred = np.where(1 - p[:, 0] >= threshold, private, 0)
    pred = np.where(data.strong_pred > 0, data.strong_pred, model_pred)
    return {"classifier": metrics(data.labels, pred, data.line_of), "model_alone": metrics(data.labels, model_pred, data.line_of),
            "rules_only": metrics(data.labels, data.rule_pred, data.line_of)}  # fmt: skip


def reading_cost(model: TextPiiModel, names: NameTable, scenes: list[ReadScene]) -> dict:
    """Milliseconds per line and per screen of ``TextPiiClassifier.read`` (features, context,
    rules and model together) over ``scenes``, best of three passes."""
    from app.text.classifier import TextPiiClassifier

    reader = TextPiiClassifier(model, names)
    best = float("inf")
    for _ in range(3):
        t0 = time.perf_counter()
        for scene in scenes:
            reader.read(list(scene.lines))
        best = min(best, time.perf_counter() - t0)
    rules = float("inf")  # the rule-based path it replaces, timed in the same run
    for _ in range(3):
        t0 = time.perf_counter()
        for scene in scenes:
            lines = list(scene.lines)
            for line, ctx in zip(lines, line_contexts(lines)):
                find_pii(line.text, ctx.label_text)
        rules = min(rules, time.perf_counter() - t0)
    n_lines = sum(len(s.lines) for s in scenes)
    per = 1000 / max(n_lines, 1)
    return {"ms_per_line": round(best * per, 3), "ms_per_screen": round(1000 * best / max(len(scenes), 1), 2),
            "rules_only_ms_per_line": round(rules * per, 3), "lines_per_screen": round(n_lines / max(len(scenes), 1), 1)}  # fmt: skip
