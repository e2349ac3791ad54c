"""Simulated participants for the web tests: they talk to the server's HTTP API as the page does."""

from __future__ import annotations

import numpy as np


def start(client, params=None) -> str:
    response = client.post("/api/start", json={"consent": True, "params": params or {}})
    assert response.status_code == 200, response.text
    return response.json()["token"]


def stimulus_rows(study, trial) -> list[dict]:
    """What the server knows about the stimuli of a trial payload (the test's oracle, never the page's)."""
    by_opaque = study.stimuli.set_index("opaque")
    return [by_opaque.loc[url.rsplit("/", 1)[1]].to_dict() for url in trial["stimuli"]]


def answer_all(client, token, choose, limit=None) -> list[dict]:
    """Answer trials with ``choose(trial) -> response`` until done (or ``limit`` answers); returns
    [{"trial": payload, "response": r}] in order."""
    answered = []
    state = client.get(f"/api/p/{token}/state").json()
    while not state["done"] and (limit is None or len(answered) < limit):
        trial = state["trial"]
        response = choose(trial)
        reply = client.post(f"/api/p/{token}/response",
                            json={"trial": trial["id"], "response": response, "rt_ms": 400.0 + len(answered),
                                  "stimulus_ms": 200.0, "frames": 12, "refresh_hz": 60.0, "window_w": 1280,
                                  "window_h": 800})
        assert reply.status_code == 200, reply.text
        answered.append({"trial": trial, "response": response})
        state = reply.json()["state"]
    return answered


def catch_answer(trial) -> str:
    """The label an attention check asks for (quoted in its prompt)."""
    return trial["prompt"].split("\u201c")[1].split("\u201d")[0]


def classifier(study, accuracy_seed: int = 0, p_correct: float = 0.7):
    """A participant who is right with probability ``p_correct`` and passes every attention check."""
    rng = np.random.default_rng(accuracy_seed)
    labels = list(study.config.labels)

    def choose(trial):
        if trial["kind"] == "catch":
            return catch_answer(trial)
        label = stimulus_rows(study, trial)[0]["label"]
        return label if rng.random() < p_correct else rng.choice([x for x in labels if x != label])

    return choose


def item_classifier(study, chance, seed: int = 0):
    """A participant right on a trial with probability ``chance(row)`` (``row``: the stimulus's row, with its
    item, condition and label), else answering the next label of the study's; passes every attention check."""
    rng = np.random.default_rng(seed)
    labels = list(study.config.labels)

    def choose(trial):
        if trial["kind"] == "catch":
            return catch_answer(trial)
        row = stimulus_rows(study, trial)[0]
        right = rng.random() < chance(row)
        return row["label"] if right else labels[(labels.index(row["label"]) + 1) % len(labels)]

    return choose


def scale_judge(study, scale=lambda alpha: alpha ** 2, sigma: float = 0.0, seed: int = 0):
    """A participant judging pairs by a known scale of the blend level: the pair whose scale values differ
    more (plus Gaussian noise of ``sigma`` on the decision variable)."""
    rng = np.random.default_rng(seed)

    def choose(trial):
        rows = stimulus_rows(study, trial)
        values = [scale(float(r["alpha"])) for r in rows]
        left, right = abs(values[1] - values[0]), abs(values[3] - values[2])
        return "right" if right - left + sigma * rng.normal() > 0 else "left"

    return choose
