#!/usr/bin/env python3
"""Records reference vectors of all-MiniLM-L6-v2 with the sentence-transformers
library, for tests/external/embeddings.rs (tests/fixtures/minilm-reference.json).

    python3 -m venv /tmp/st && /tmp/st/bin/pip install sentence-transformers
    /tmp/st/bin/python scripts/record-minilm-reference.py MODEL_DIR > tests/fixtures/minilm-reference.json

MODEL_DIR is the sentence-transformers directory (scripts/setup-test-deps.sh
unpacks it into ~/.cache/toolsift-models/all-MiniLM-L6-v2). Run once by a
developer; CI only reads the fixture.
"""
import json
import sys

import sentence_transformers
from sentence_transformers import SentenceTransformer

TEXTS = [
    "open a new issue",
    "create issue: Create a new issue in a GitHub repository.",
    "What time is it in Tokyo right now?",
    "get current time: Get the current time in a specific timezone.",
    "",
    "Ünïcödé façade — naïve café, 東京の天気, emoji 🚀 and tabs\tand\nnewlines",
    "DM the on-call engineer about the failed k8s deploy in the prod env",
    # Longer than the model's 256-token maximum: truncated.
    " ".join(["The quick brown fox jumps over the lazy dog near the riverbank."] * 40),
]

model = SentenceTransformer(sys.argv[1], device="cpu")
vectors = model.encode(TEXTS, normalize_embeddings=False, convert_to_numpy=True)
json.dump(
    {
        "model": "all-MiniLM-L6-v2",
        "recorded_with": f"sentence-transformers {sentence_transformers.__version__}",
        "max_seq_length": model.max_seq_length,
        "items": [
            {"text": t, "vector": [round(float(x), 7) for x in v]}
            for t, v in zip(TEXTS, vectors)
        ],
    },
    sys.stdout,
    ensure_ascii=False,
)
sys.stdout.write("\n")
