#!/usr/bin/env python3
"""The other encoders benches/encoders.rs compares toolsift's with: the same
sentence-transformers model run by sentence-transformers (PyTorch), and by
onnxruntime in f32 and with dynamic int8 weights (an ONNX export made here,
once, beside the venv).

    PYTHON scripts/bench-encoders.py MODEL_DIR TEXTS_JSON THREADS VECTORS_OUT

TEXTS_JSON is a list of strings (the tool texts toolsift embeds). Each
runtime embeds them all on THREADS threads after a warm-up, in batches of
32 sorted by length (as sentence-transformers batches), tokenizing
included. Prints one JSON object: per runtime its wall and CPU seconds and
the lowest cosine of its vectors to PyTorch's. VECTORS_OUT receives
PyTorch's vectors (a JSON list of lists), which the bench holds toolsift's
against. Run by benches/encoders.rs; the venv is scripts/bench-encoders-venv.sh.
"""
import json
import os
import sys
import time

import numpy as np

BATCH = 32


def timed(run):
    wall, cpu = time.perf_counter(), time.process_time()
    out = run()
    return out, time.perf_counter() - wall, time.process_time() - cpu


def lowest_cosine(a, b):
    a = a / np.linalg.norm(a, axis=1, keepdims=True)
    b = b / np.linalg.norm(b, axis=1, keepdims=True)
    return float(np.min(np.sum(a * b, axis=1)))


def export_onnx(model_dir, out_dir):
    """model.onnx (f32) and model-int8.onnx (dynamic int8 weights)."""
    import torch
    from onnxruntime.quantization import QuantType, quantize_dynamic
    from transformers import AutoModel

    f32 = os.path.join(out_dir, "model.onnx")
    int8 = os.path.join(out_dir, "model-int8.onnx")
    if os.path.exists(f32) and os.path.exists(int8):
        return f32, int8
    os.makedirs(out_dir, exist_ok=True)
    class Hidden(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.bert = AutoModel.from_pretrained(model_dir)

        def forward(self, input_ids, attention_mask, token_type_ids):
            return self.bert(
                input_ids=input_ids,
                attention_mask=attention_mask,
                token_type_ids=token_type_ids,
            ).last_hidden_state

    model = Hidden().eval()
    ids = torch.ones((2, 8), dtype=torch.long)
    axes = {0: "batch", 1: "len"}
    torch.onnx.export(
        model,
        (ids, torch.ones_like(ids), torch.zeros_like(ids)),
        f32,
        input_names=["input_ids", "attention_mask", "token_type_ids"],
        output_names=["last_hidden_state"],
        dynamic_axes={
            "input_ids": axes,
            "attention_mask": axes,
            "token_type_ids": axes,
            "last_hidden_state": axes,
        },
        opset_version=17,
        dynamo=False,
    )
    quantize_dynamic(f32, int8, weight_type=QuantType.QInt8)
    return f32, int8


def onnx_encoder(path, tokenizer, threads, max_len):
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = threads
    opts.inter_op_num_threads = 1
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    session = ort.InferenceSession(path, opts, providers=["CPUExecutionProvider"])

    def encode(texts):
        order = sorted(range(len(texts)), key=lambda i: -len(texts[i]))
        out = [None] * len(texts)
        for start in range(0, len(order), BATCH):
            part = order[start : start + BATCH]
            enc = tokenizer(
                [texts[i] for i in part],
                padding=True,
                truncation=True,
                max_length=max_len,
                return_tensors="np",
            )
            feed = {
                "input_ids": enc["input_ids"].astype(np.int64),
                "attention_mask": enc["attention_mask"].astype(np.int64),
                "token_type_ids": enc["token_type_ids"].astype(np.int64),
            }
            hidden = session.run(None, feed)[0]
            mask = feed["attention_mask"][:, :, None].astype(np.float32)
            pooled = (hidden * mask).sum(1) / np.clip(mask.sum(1), 1e-9, None)
            pooled /= np.linalg.norm(pooled, axis=1, keepdims=True)
            for i, v in zip(part, pooled):
                out[i] = v
        return np.stack(out)

    return encode


def main():
    model_dir, texts_path, threads, vectors_out = sys.argv[1:5]
    threads = int(threads)
    with open(texts_path) as f:
        texts = json.load(f)

    import onnxruntime
    import sentence_transformers
    import torch
    from sentence_transformers import SentenceTransformer

    torch.set_num_threads(threads)
    model = SentenceTransformer(model_dir, device="cpu")
    max_len = model.max_seq_length

    def st(xs):
        return model.encode(
            xs, batch_size=BATCH, normalize_embeddings=True, convert_to_numpy=True
        )

    st(texts[:BATCH])
    with torch.inference_mode():
        reference, wall, cpu = timed(lambda: st(texts))
    runtimes = [
        {
            "name": f"sentence-transformers {sentence_transformers.__version__} (PyTorch {torch.__version__.split('+')[0]}, f32)",
            "wall_s": wall,
            "cpu_s": cpu,
            "lowest_cosine": 1.0,
        }
    ]
    with open(vectors_out, "w") as f:
        json.dump(reference.tolist(), f)

    onnx_dir = os.path.join(os.path.dirname(os.path.dirname(sys.executable)), "onnx")
    f32, int8 = export_onnx(model_dir, onnx_dir)
    for path, what in [(f32, "f32"), (int8, "dynamic int8")]:
        encode = onnx_encoder(path, model.tokenizer, threads, max_len)
        encode(texts[:BATCH])
        vectors, wall, cpu = timed(lambda: encode(texts))
        runtimes.append(
            {
                "name": f"onnxruntime {onnxruntime.__version__} ({what})",
                "wall_s": wall,
                "cpu_s": cpu,
                "lowest_cosine": lowest_cosine(vectors, reference),
            }
        )
    tokens = [len(model.tokenizer(t, truncation=True, max_length=max_len)["input_ids"]) for t in texts]
    json.dump(
        {"runtimes": runtimes, "mean_tokens": sum(tokens) / len(tokens)},
        sys.stdout,
    )
    sys.stdout.write("\n")


if __name__ == "__main__":
    main()
