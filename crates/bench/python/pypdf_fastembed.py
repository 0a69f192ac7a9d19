"""The pipeline a user would otherwise write: pypdf extraction, a fixed-size token chunker, Python fastembed with
the same int8 all-MiniLM-L6-v2 files ragsift uses, vectors kept in memory only. `ragsift-bench ingest` runs it
beside `ragsift ingest` on the same files and prints one JSON line: wall seconds, chunks, peak RSS.

Usage: python pypdf_fastembed.py MODEL_DIR THREADS BATCH FILE...
"""

import json
import logging
import resource
import sys
import time

from fastembed import TextEmbedding
from fastembed.common.model_description import ModelSource, PoolingType
from pypdf import PdfReader
from tokenizers import Tokenizer

CHUNK_TOKENS = 254


def chunks(tokenizer, text):
    ids = tokenizer.encode(text, add_special_tokens=False)
    offsets = ids.offsets
    for start in range(0, len(offsets), CHUNK_TOKENS - 32):
        window = offsets[start : start + CHUNK_TOKENS]
        if window:
            yield text[window[0][0] : window[-1][1]]


def main():
    logging.getLogger("pypdf").setLevel(logging.ERROR)
    model_dir, threads, batch, files = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4:]
    started = time.perf_counter()
    TextEmbedding.add_custom_model(
        model="ragsift/all-minilm-l6-v2-int8",
        pooling=PoolingType.MEAN,
        normalization=True,
        sources=ModelSource(hf="ragsift/none"),
        dim=384,
        model_file="model.onnx",
    )
    model = TextEmbedding(
        "ragsift/all-minilm-l6-v2-int8", specific_model_path=model_dir, threads=threads, lazy_load=False
    )
    tokenizer = Tokenizer.from_file(f"{model_dir}/tokenizer.json")
    tokenizer.no_truncation()
    tokenizer.no_padding()
    vectors = []
    n_chunks = 0
    for path in files:
        reader = PdfReader(path)
        texts = []
        for page in reader.pages:
            texts.extend(chunks(tokenizer, page.extract_text() or ""))
        n_chunks += len(texts)
        vectors.extend(model.embed(texts, batch_size=batch))
    wall = time.perf_counter() - started
    peak_kib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    print(json.dumps({"seconds": wall, "chunks": n_chunks, "vectors": len(vectors), "peak_rss_mib": peak_kib / 1024}))


if __name__ == "__main__":
    main()
