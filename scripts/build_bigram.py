"""Build the bigram model (and the shared word vocabulary) from a corpus.

    python scripts/build_bigram.py ../shared/corpus

Writes webapp/models/austen-bigram/{config.json,vocab.json,counts.npz}. The vocabulary
and the counts come from the training part of each file only (the first 90%); the
held-out part is used to choose the smoothing k, by perplexity.
"""

from __future__ import annotations

import argparse
import math
from pathlib import Path

import numpy as np

from webapp.inference.bigram import BigramModel
from webapp.inference.derived.perplexity import perplexity
from webapp.inference.machinery.corpus import load_split
from webapp.inference.machinery.registry import MODELS_DIR
from webapp.inference.tokenizer import WordTokenizer

K_CANDIDATES = (1.0, 0.3, 0.1, 0.03, 0.01, 0.003)


def stream(tokenizer: WordTokenizer, texts: list[str]) -> np.ndarray:
    """Every text as ids, each starting with a paragraph token: [n_tokens]."""
    ids: list[int] = []
    for text in texts:
        ids.append(tokenizer.paragraph_id)
        ids.extend(tokenizer.encode_ids(text.replace("_", "")))
    return np.array(ids)


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpus", help="a folder of .txt files, or one .txt file")
    parser.add_argument("--vocab-size", type=int, default=5000)
    parser.add_argument("--name", default="austen-bigram")
    parser.add_argument("--out", type=Path, default=MODELS_DIR / "austen-bigram")
    args = parser.parse_args(argv)

    train, heldout = load_split(args.corpus)
    tokenizer = WordTokenizer.train(train, args.vocab_size)
    ids = stream(tokenizer, train)
    held = "\n\n".join(t.replace("_", "") for t in heldout)
    print(f"vocabulary {tokenizer.n_vocab:,} words; {len(ids):,} training tokens")
    best = None
    for k in K_CANDIDATES:
        model = BigramModel.from_ids(args.name, tokenizer, ids, k)
        ppl, n = perplexity(model, held)
        print(f"k = {k:<6} held-out perplexity {ppl:8.2f} over {n:,} tokens")
        if best is None or ppl < best[0]:
            best = (ppl, k)
    ppl, k = best
    description = (f"Bigram: the next word from the one before it, by counts from the training text "
                   f"(add-{k} smoothing). Held-out perplexity {ppl:.1f}.")
    model = BigramModel.from_ids(args.name, tokenizer, ids, k, description)
    model.save(args.out)
    size = sum(f.stat().st_size for f in args.out.iterdir())
    print(f"chose k = {k} (perplexity {ppl:.2f}, log {math.log(ppl):.3f}); wrote {args.out} ({size / 1e3:.0f} KB)")


if __name__ == "__main__":
    main()
