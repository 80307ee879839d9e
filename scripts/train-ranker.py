#!/usr/bin/env python3
"""Train the learned ranking's weights from dev data only, deterministically.

    scripts/train-ranker.py OUT.json FEATURES.jsonl[.gz] [...]

(scripts/train-ranker.sh writes the features of the dev sets and runs this.)
Each FEATURES file is what `toolsift eval CATALOG QUERIES --ranker hybrid
--features-out FILE` writes: per request, its candidate tools' features and
labels (1 for a right answer). Three steps, with numpy:

1. Ranking: a linear score over the features, trained listwise (softmax
   cross-entropy over each request's candidates, the right answers sharing
   the target), with L2, by full-batch gradient descent (Adam, fixed steps
   and order; the weights are rounded, so the same input gives the same
   file).
2. Calibration: a logistic fit of every candidate's label on its score
   (Platt scaling), folded into the weights so that the model's output is
   a probability.
3. The gate: a logistic regression of "a tool serves the request" on the
   best candidate's features (dev requests with and without a fitting
   tool), and its one threshold: the highest at which at most
   MAX_FALSE_NOTHING of the dev requests a tool serves are answered
   "nothing fits".

Writes OUT.json (the features' names, weights, bias, threshold, and what it
was trained on) and prints the dev figures.
"""

import gzip
import json
import sys

import numpy as np

L2 = 1e-3
STEPS = 600
RATE = 0.05
# Half a percent of the dev requests a tool serves: the encoder was trained
# on these same requests, so their best tools fit better than an unseen
# request's do; at 2 % on dev, 3.6 % of the held-out requests were
# answered "nothing fits", at 0.5 % on dev 0.3 % (docs/benchmarks.md).
MAX_FALSE_NOTHING = 0.005
GATE_L2 = 1.0


def load(paths):
    """The requests of every file, and the features' names (each file's
    first line; every file must name the same)."""
    requests, names = [], None
    for path in paths:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt", encoding="utf-8") as f:
            header = json.loads(f.readline() or "{}").get("features")
            if not header or (names is not None and header != names):
                sys.exit(f"{path}:1: not the features' names of the other files: {header}")
            names = header
            for n, line in enumerate(f, 2):
                line = line.strip()
                if not line:
                    continue
                r = json.loads(line)
                for c in r["candidates"]:
                    if len(c["x"]) != len(names):
                        sys.exit(f"{path}:{n}: {len(c['x'])} features, expected {len(names)}")
                r["source"] = path
                requests.append(r)
    return requests, names


def arrays(requests):
    """The candidates as one matrix, grouped by request (contiguous)."""
    rows, labels, starts = [], [], []
    for r in requests:
        starts.append(len(rows))
        for c in r["candidates"]:
            rows.append(c["x"])
            labels.append(float(c["label"]))
    x = np.array(rows, dtype=np.float64)
    return x, np.array(labels), np.array(starts + [len(rows)])


def train_ranking(requests):
    """Listwise softmax cross-entropy with L2, by Adam (fixed steps)."""
    lists = [r for r in requests if any(c["label"] for c in r["candidates"])]
    x, y, bounds = arrays(lists)
    starts = bounds[:-1]
    group = np.repeat(np.arange(len(lists)), np.diff(bounds))
    pos = np.add.reduceat(y, starts)[group]
    target = y / pos
    k = x.shape[1]
    w = np.zeros(k)
    m = np.zeros(k)
    v = np.zeros(k)
    for step in range(1, STEPS + 1):
        s = x @ w
        top = np.maximum.reduceat(s, starts)[group]
        e = np.exp(s - top)
        p = e / np.add.reduceat(e, starts)[group]
        g = x.T @ (p - target) / len(lists) + L2 * w
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        w = w - RATE * (m / (1 - 0.9**step)) / (np.sqrt(v / (1 - 0.999**step)) + 1e-8)
    return w


def sigmoid(z):
    return 1 / (1 + np.exp(-np.clip(z, -40, 40)))


def calibrate(requests, w):
    """Platt scaling of the score on every candidate's label: Newton's
    method, each step halved until the log loss falls."""
    x, y, _ = arrays(requests)
    s = x @ w

    def loss(a, b):
        p = np.clip(sigmoid(a * s + b), 1e-12, 1 - 1e-12)
        return -(y * np.log(p) + (1 - y) * np.log(1 - p)).sum()

    a, b = 1.0, 0.0
    for _ in range(100):
        p = sigmoid(a * s + b)
        h = p * (1 - p)
        g = np.array([((p - y) * s).sum(), (p - y).sum()])
        hess = np.array([[(h * s * s).sum() + 1e-6, (h * s).sum()], [(h * s).sum(), h.sum() + 1e-6]])
        d = np.linalg.solve(hess, g)
        step, before = 1.0, loss(a, b)
        while step > 1e-6 and loss(a - step * d[0], b - step * d[1]) > before:
            step /= 2
        a, b = a - step * d[0], b - step * d[1]
        if step * abs(d).sum() < 1e-10:
            break
    return a * w, b


def best_rows(requests, w):
    """Per request with candidates: the best-ranked candidate's features,
    whether the request is served, and whether that candidate is right."""
    rows, served, right = [], [], []
    for r in requests:
        if not r["candidates"]:
            continue
        x = np.array([c["x"] for c in r["candidates"]])
        i = int(np.argmax(x @ w))
        rows.append(x[i])
        served.append(1.0 if r["expected"] else 0.0)
        right.append(bool(r["candidates"][i]["label"]))
    return np.array(rows), np.array(served), np.array(right)


def train_gate(requests, w):
    """Whether any tool fits: logistic regression (Newton, L2) of "a tool
    serves the request" on its best candidate's features."""
    x, y, _ = best_rows(requests, w)
    a = np.hstack([x, np.ones((len(x), 1))])
    g = np.zeros(a.shape[1])
    for _ in range(50):
        p = sigmoid(a @ g)
        h = p * (1 - p)
        grad = a.T @ (p - y) + GATE_L2 * g
        hess = (a * h[:, None]).T @ a + GATE_L2 * np.eye(a.shape[1])
        d = np.linalg.solve(hess, grad)
        g = g - d
        if np.abs(d).sum() < 1e-10:
            break
    return g[:-1], g[-1]


def threshold(requests, w, gw, gb):
    """The highest threshold at which at most MAX_FALSE_NOTHING of the
    served requests' best tools fall below it."""
    x, served, _ = best_rows(requests, w)
    p = sigmoid(x @ gw + gb)
    kept = np.sort(p[served == 1])
    allowed = int(MAX_FALSE_NOTHING * len(kept))
    t = float(kept[allowed]) - 1e-4 if len(kept) > allowed else 0.5
    t = max(0.01, min(0.99, t))
    caught = int((p[served == 0] < t).sum())
    return round(t, 4), caught, int((served == 0).sum())


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    out, paths = sys.argv[1], sys.argv[2:]
    requests, names = load(paths)
    w = train_ranking(requests)
    w, b = calibrate(requests, w)
    gw, gb = train_gate(requests, w)
    t, caught, unserved = threshold(requests, w, gw, gb)
    _, served, right = best_rows(requests, w)
    first = right[served == 1].mean()
    r4 = lambda v: [round(float(x), 4) for x in v]
    model = {
        "features": names,
        "weights": r4(w),
        "bias": round(float(b), 4),
        "gate": {"weights": r4(gw), "bias": round(float(gb), 4), "threshold": t},
        "trained": {
            "script": "scripts/train-ranker.py",
            "data": sorted({r["source"] for r in requests}),
            "requests": len(requests),
            "steps": STEPS,
            "l2": L2,
            "gate_l2": GATE_L2,
            "max_false_nothing": MAX_FALSE_NOTHING,
        },
    }
    with open(out, "w", encoding="utf-8") as f:
        json.dump(model, f, indent=2)
        f.write("\n")
    print(f"requests {len(requests)}: served {int(served.sum())}, none {unserved}")
    print(f"first (best candidate right, before the gate): {first:.3f}")
    print(f"gate threshold {t}: nothing fits on {caught} of {unserved} none requests")
    print(f"  {'feature':26} {'rank':>8} {'gate':>8}")
    for name, x, g in zip(names, w, gw):
        print(f"  {name:26} {float(x):+8.3f} {float(g):+8.3f}")
    print(f"  {'bias':26} {float(b):+8.3f} {float(gb):+8.3f}")


if __name__ == "__main__":
    main()
