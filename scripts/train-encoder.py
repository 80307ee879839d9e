#!/usr/bin/env python3
"""Fine-tunes all-MiniLM-L6-v2 (Apache-2.0) for tool search, on dev data only.

    scripts/train-encoder.sh [OUT_DIR]     (makes the venv, then runs this)

Pairs are (request, the tool that serves it, a tool of the same server that
does not): people's requests and agents' searches of eval/people-dev and
eval/train-*, bfcl-dev's requests, and the short requests of
eval/mcp-short. A multi-step request pairs with its first step; a request no
tool serves pairs with nothing. The held-out sets (eval/people-heldout,
eval/kinds-heldout, eval/mcp-heldout, eval/usage/later.jsonl) are never
read. Each tool's text is the one toolsift embeds (examples/document_texts.rs
prints it), so training and search see the same text.

The loss is sentence-transformers' MultipleNegativesRankingLoss: the other
pairs of a batch and the same-server tool are the negatives. Seeds are
fixed; the result is written as sentence-transformers saves it, then as the
f16 safetensors toolsift ships (assets/encoder/).
"""

import argparse
import json
import os
import random
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The sets written to train on (eval/train-*/README.md says how).
TRAIN_SETS = ("train-business", "train-comms", "train-data", "train-devtools", "train-infra", "train-web")
HELD_OUT = ("people-heldout", "kinds-heldout", "mcp-heldout", "usage")


def dev_sets():
    """(catalog, [request files]) of every dev set, never a held-out one."""
    sets = [
        ("eval/people-dev/catalog.json", ["eval/people-dev/queries.jsonl", "eval/people-dev/agent.jsonl"]),
        ("eval/bfcl-dev/catalog.json", ["eval/bfcl-dev/queries-dev.jsonl"]),
        ("eval/mcp-short/catalog.json", ["eval/mcp-short/queries.jsonl", "eval/mcp-short/multi.jsonl"]),
    ]
    for name in TRAIN_SETS:
        rel = f"eval/{name}"
        d = os.path.join(ROOT, rel)
        files = [f"{rel}/{n}" for n in ("queries.jsonl", "agent.jsonl") if os.path.exists(os.path.join(d, n))]
        if os.path.exists(os.path.join(d, "catalog.json")) and files:
            sets.append((f"{rel}/catalog.json", files))
    for catalog, files in sets:
        assert not any(h in catalog for h in HELD_OUT), catalog
    return sets


def document_texts(catalogs, target):
    """{catalog: {tool name: (server, text)}} as toolsift embeds them."""
    cmd = ["cargo", "run", "--locked", "--quiet", "--example", "document_texts", "--"]
    env = dict(os.environ, CARGO_TARGET_DIR=target)
    out = subprocess.run(cmd + catalogs, cwd=ROOT, env=env, check=True, capture_output=True, text=True).stdout
    texts = {}
    for line in out.splitlines():
        row = json.loads(line)
        texts.setdefault(row["catalog"], {})[row["name"]] = (row["server"], row["text"])
    return texts


def pairs(sets, texts, rng):
    """(anchor, positive, negative) triples, and counts per file."""
    rows, counts = [], {}
    for catalog, files in sets:
        tools = texts[catalog]
        by_server = {}
        for name, (server, _) in tools.items():
            by_server.setdefault(server, []).append(name)
        names = sorted(tools)
        for f in files:
            n = 0
            for line in open(os.path.join(ROOT, f), encoding="utf-8"):
                q = json.loads(line)
                expected = q.get("expected") or []
                if not expected:
                    continue
                first = expected[0]
                if first not in tools:
                    sys.exit(f"{f}: {q['id']}: expected tool {first!r} is not in {catalog}")
                serving = set(expected)
                for group in q.get("equivalents") or []:
                    serving.update(group)
                server = tools[first][0]
                pool = [t for t in by_server.get(server, []) if t not in serving] if server else []
                if not pool:
                    pool = [t for t in names if t not in serving]
                negative = rng.choice(sorted(pool))
                rows.append((q["query"], tools[first][1], tools[negative][1]))
                n += 1
            counts[f] = n
    return rows, counts


def save_f16(model_dir, out, max_seq):
    """The shipped form: f16 weights, the tokenizer and the sentence-transformers configs."""
    import shutil

    import torch
    from safetensors.torch import load_file, save_file

    os.makedirs(os.path.join(out, "1_Pooling"), exist_ok=True)
    weights = load_file(os.path.join(model_dir, "model.safetensors"))
    save_file({k: v.to(torch.float16).contiguous() for k, v in sorted(weights.items())}, os.path.join(out, "model.safetensors"))
    for name in ("config.json", "tokenizer.json", "modules.json", "1_Pooling/config.json"):
        shutil.copyfile(os.path.join(model_dir, name), os.path.join(out, name))
    # The longest input, where every sentence-transformers version reads
    # it (newer ones keep it elsewhere).
    with open(os.path.join(out, "sentence_bert_config.json"), "w", encoding="utf-8") as f:
        json.dump({"max_seq_length": max_seq, "do_lower_case": False}, f, indent=2)
        f.write("\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default=os.path.join(ROOT, "target/encoder"))
    ap.add_argument("--ship", default=None, help="write the f16 model here too (assets/encoder)")
    ap.add_argument("--base", default=os.path.expanduser("~/.cache/toolsift-models/all-MiniLM-L6-v2"), help="the base model directory (scripts/setup-test-deps.sh puts it here)")
    ap.add_argument("--epochs", type=float, default=1)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--lr", type=float, default=5e-5)
    ap.add_argument("--max-seq", type=int, default=128)
    ap.add_argument("--seed", type=int, default=20261207)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()

    import torch

    torch.set_num_threads(args.threads)
    random.seed(args.seed)
    torch.manual_seed(args.seed)
    from datasets import Dataset
    from sentence_transformers import SentenceTransformer, SentenceTransformerTrainer, SentenceTransformerTrainingArguments
    from sentence_transformers.losses import MultipleNegativesRankingLoss
    from sentence_transformers.training_args import BatchSamplers

    sets = dev_sets()
    target = os.environ.get("CARGO_TARGET_DIR", os.path.expanduser("~/.cache/toolsift-target"))
    texts = document_texts([c for c, _ in sets], target)
    rng = random.Random(args.seed)
    rows, counts = pairs(sets, texts, rng)
    for f, n in counts.items():
        print(f"{n:6d} pairs  {f}")
    print(f"{len(rows):6d} pairs in all", flush=True)
    rng.shuffle(rows)
    data = Dataset.from_dict({
        "anchor": [r[0] for r in rows],
        "positive": [r[1] for r in rows],
        "negative": [r[2] for r in rows],
    })
    model = SentenceTransformer(args.base, device="cpu")
    # Trained on the first max_seq tokens (the name and the description's
    # start); run with the base model's own maximum.
    full_len = model.max_seq_length
    model.max_seq_length = args.max_seq
    training = SentenceTransformerTrainingArguments(
        output_dir=os.path.join(args.out, "checkpoints"),
        num_train_epochs=args.epochs,
        per_device_train_batch_size=args.batch,
        learning_rate=args.lr,
        warmup_steps=0.1,
        seed=args.seed,
        data_seed=args.seed,
        batch_sampler=BatchSamplers.NO_DUPLICATES,
        save_strategy="no",
        logging_steps=20,
        report_to=[],
        use_cpu=True,
        dataloader_num_workers=0,
    )
    trainer = SentenceTransformerTrainer(
        model=model,
        args=training,
        train_dataset=data,
        loss=MultipleNegativesRankingLoss(model),
    )
    start = time.time()
    trainer.train()
    print(f"trained in {time.time() - start:.0f} s", flush=True)
    model.max_seq_length = full_len
    final = os.path.join(args.out, "model")
    model.save(final, safe_serialization=True)
    if args.ship:
        save_f16(final, args.ship, full_len)
        print(f"shipped form written to {args.ship}")


if __name__ == "__main__":
    main()
