"""Local U-Evaluator on MiniLM embeddings.

* labels known (``--label-field``): a logistic regression trained on the labelled originals of
  the batch (or a ``--train`` file); utility = its probability of the true label;
* only the label's name known (no training set with two classes): zero-shot, softmax of the
  similarity to label descriptions;
* no label: cosine similarity to the original.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from veil.agents.base import Task, UtilityEvaluator, UtilityResult
from veil.agents.batch import Batch
from veil.agents.local.world import LocalWorld, local_batch
from veil.logging import get_logger

log = get_logger(__name__)


def fit_classifier(world: LocalWorld, texts: list[str], labels: list[str]) -> tuple[Any, tuple[str, ...]]:
    """The batch's utility classifier (None with fewer than two labels: zero-shot then)."""
    classes = sorted(set(labels))
    if len(classes) < 2:
        return None, tuple(classes)
    from sklearn.linear_model import LogisticRegression

    clf = LogisticRegression(max_iter=5000, C=10.0)  # as veil.evals.utility
    clf.fit(world.embed(list(texts)), list(labels))
    log.info("utility_classifier", n=len(texts), classes=len(clf.classes_))
    return clf, tuple(clf.classes_)


class LocalUtilityEvaluator(UtilityEvaluator):
    engine = "local"

    def __init__(self, world: LocalWorld):
        self.world = world

    def _zero_shot(self, vec: np.ndarray, label: str, classes: tuple[str, ...]) -> float:
        names = list(classes) if label in classes and len(classes) > 1 else [label]
        if len(names) < 2:
            # a single label name: similarity to its description, mapped from [-1, 1] to [0, 1]
            d = self.world.embed([f"A text about a {label}."])[0]
            return float((vec @ d + 1) / 2)
        descs = self.world.embed([f"A text about a {n}." for n in names])
        logits = (descs @ vec) * 20.0
        p = np.exp(logits - logits.max())
        p /= p.sum()
        return float(p[names.index(label)])

    async def evaluate(self, text: str, task: Task, *, batch: Batch | None = None) -> UtilityResult:
        b = local_batch(batch)
        vec = await self.world.aembed(text)
        if task.label:
            if b.classifier is not None and task.label in b.classes:
                proba = b.classifier.predict_proba(vec[None, :])[0]
                score = float(proba[b.classes.index(task.label)])
                top = b.classes[int(np.argmax(proba))]
                why = f"classifier: p({task.label})={score:.2f}, top label {top}"
            else:
                score = self._zero_shot(vec, task.label, b.classes)
                why = f"zero-shot similarity to '{task.label}'"
        else:
            orig = await self.world.aembed(task.original)
            score = float(max(0.0, vec @ orig))
            why = "cosine similarity to the original"
        return UtilityResult(score=score, label=task.label, explanation=why)
