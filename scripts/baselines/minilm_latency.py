#!/usr/bin/env python3
"""The reference for toolsift's query embedding: sentence-transformers
(PyTorch) embedding each bfcl-dev request on its own, one thread, as
`cargo bench --bench dense` does with candle. Prints p50 / p95 in ms.

    python3 -m venv /tmp/st && /tmp/st/bin/pip install sentence-transformers
    /tmp/st/bin/python scripts/baselines/minilm_latency.py MODEL_DIR eval/bfcl-dev/queries-dev.jsonl [THREADS]

MODEL_DIR is the sentence-transformers directory (scripts/setup-test-deps.sh
unpacks it into ~/.cache/toolsift-models/all-MiniLM-L6-v2).
"""
import json
import statistics
import sys
import time

import torch
from sentence_transformers import SentenceTransformer

threads = int(sys.argv[3]) if len(sys.argv) > 3 else 1
torch.set_num_threads(threads)
model = SentenceTransformer(sys.argv[1], device="cpu")
queries = [json.loads(line)["query"] for line in open(sys.argv[2], encoding="utf-8") if line.strip()]
short = "what time is it in Tokyo"
with torch.inference_mode():
    for q in queries[:20]:  # warm-up
        model.encode([q])
    times = []
    for q in queries:
        t = time.perf_counter()
        model.encode([q])
        times.append((time.perf_counter() - t) * 1000)
    short_times = []
    for _ in range(200):
        t = time.perf_counter()
        model.encode([short])
        short_times.append((time.perf_counter() - t) * 1000)
times.sort()
print(
    f"sentence-transformers {__import__('sentence_transformers').__version__} / torch {torch.__version__}, "
    f"{threads} thread(s): {len(times)} requests p50 {times[len(times) // 2]:.1f} ms, "
    f"p95 {times[int(len(times) * 0.95)]:.1f} ms; short query p50 {statistics.median(short_times):.1f} ms"
)
