"""Local U-Evaluator on MiniLM embeddings.

* labels known (``--label-field``): a logistic regression trained on the labelled originals of
  the batch (or a ``--train`` file); utility = its probability of the true label;
* only the label's name known (no training set with two classes): zero-shot, softmax of the
  similarity to label descriptions;
* no label: cosine similarity to the original.
"""

from __future__ import annotations

import numpy as np

from veil.agents.base import Task, UtilityEvaluator, UtilityResult
from veil.agents.local.world import LocalWorld
from veil.logging import get_logger

log = get_logger(__name__)


class LocalUtilityEvaluator(UtilityEvaluator):
    engine = "local"

    def __init__(self, world: LocalWorld):
        self.world = world
        self.classifier = None
        self.classes: list[str] = []

    async def prepare(self, documents: list) -> None:
        self.fit()  # the world (an engine resource) has collected the training set by now

    def fit(self) -> None:
        w = self.world
        labels = sorted(set(w.train_labels))
        if len(labels) < 2:
            self.classifier = None
            self.classes = labels
            return
        from sklearn.linear_model import LogisticRegression

        x = w.embed(w.train_texts)
        clf = LogisticRegression(max_iter=5000, C=10.0)  # as veil.evals.utility
        clf.fit(x, w.train_labels)
        self.classifier = clf
        self.classes = list(clf.classes_)
        log.info("utility_classifier", n=len(w.train_texts), classes=len(self.classes))

    def _zero_shot(self, vec: np.ndarray, label: str) -> float:
        names = self.classes if label in self.classes and len(self.classes) > 1 else [label]
        if len(names) < 2:
            # a single label name: similarity to its description, mapped from [-1, 1] to [0, 1]
            d = self.world.embed([f"A text about a {label}."])[0]
            return float((vec @ d + 1) / 2)
        descs = self.world.embed([f"A text about a {n}." for n in names])
        logits = (descs @ vec) * 20.0
        p = np.exp(logits - logits.max())
        p /= p.sum()
        return float(p[names.index(label)])

    async def evaluate(self, text: str, task: Task) -> UtilityResult:
        vec = await self.world.aembed(text)
        if task.label:
            if self.classifier is not None and task.label in self.classes:
                proba = self.classifier.predict_proba(vec[None, :])[0]
                score = float(proba[self.classes.index(task.label)])
                top = self.classes[int(np.argmax(proba))]
                why = f"classifier: p({task.label})={score:.2f}, top label {top}"
            else:
                score = self._zero_shot(vec, task.label)
                why = f"zero-shot similarity to '{task.label}'"
        else:
            orig = await self.world.aembed(task.original)
            score = float(max(0.0, vec @ orig))
            why = "cosine similarity to the original"
        return UtilityResult(score=score, label=task.label, explanation=why)
