"""Inside the forward pass of one step: embeddings and their neighbours, attention by layer and head, the logit lens.

Everything comes from one uncached run of the model's own forward pass over the window the step
read, with `Inside` asking it to hand back its residual streams, queries, keys and attention
weights; nothing here recomputes a layer. The logit lens applies the model's own head (the final
norm, then the output matrix: `model.unembed`) to each layer's residual stream at the predicted
position, so the last layer's lens is the step's logits.

The bigram model has no layers: its view is the row of its count table that the step read.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..model import Inside, LanguageModel
from ..sampling import softmax
from .table import StepResult

N_NEIGHBOURS = 10
N_LENS = 5  # top tokens per layer of the lens
N_FOLLOWERS = 12  # rows of the bigram's count row


@dataclass(frozen=True)
class Neighbour:
    id: int
    token: str
    similarity: float  # cosine similarity of the two embeddings, in [-1, 1]


@dataclass(frozen=True)
class LensRow:
    """One layer's guess at the next token: softmax(unembed(h_l)) at the predicted position, at T = 1."""

    layer: int  # 0: the embeddings, before any block; n_layer: after the last block (the step's logits)
    ids: tuple[int, ...]  # the top N_LENS tokens, most probable first
    probs: tuple[float, ...]
    logits: tuple[float, ...]  # their logits at this layer: W_out[id] . norm(h_l)
    total: float  # sum over the vocabulary of e^(z - z_top), the softmax's denominator
    picked_rank: int  # the rank of the step's token at this layer (1 = top)
    picked_prob: float


@dataclass(frozen=True)
class AttentionExample:
    """One attention weight written out: w = e^(s - s_max) / sum_j e^(s_j - s_max), with s = q.k / sqrt(d)."""

    layer: int  # 1-based
    head: int  # 0-based
    kv_head: int  # the key/value head it reads (grouped-query attention shares them)
    key: int  # the position it weighs most, counted within the window
    dot: float  # q . k
    head_dim: int
    score: float  # q . k / sqrt(d)
    top_score: float  # the largest score over the keys read, subtracted first as the softmax does
    exp: float  # e^(score - top_score)
    total: float  # the sum of those over the keys read
    weight: float  # the model's own weight, as the panel shows it


@dataclass(frozen=True)
class LayersView:
    """What a transformer's forward pass computed for the step; n is the number of positions it read."""

    model: str
    ids: tuple[int, ...]  # the ids read, [n]
    window_start: int  # how many earlier tokens of the text the window leaves out
    n_layer: int
    n_head: int
    n_head_kv: int
    head_dim: int
    embeddings: np.ndarray  # [n, n_embd]: each token's row of the embedding matrix
    queries: tuple[np.ndarray, ...]  # per layer: [n_head, n, head_dim]
    keys: tuple[np.ndarray, ...]  # per layer: [n_head_kv, n, head_dim]
    attention: tuple[np.ndarray, ...]  # per layer: [n_head, n, n]; row q is query position q over the keys
    lens: tuple[LensRow, ...]  # per layer, 0 .. n_layer
    picked_id: int  # the step's token, marked in every layer of the lens

    def kv_head(self, head: int) -> int:
        """The key/value head a query head reads: 9 query heads over 3 -> heads 0-2 read 0, 3-5 read 1."""
        return head // (self.n_head // self.n_head_kv)


@dataclass(frozen=True)
class BigramView:
    """The count row the bigram read: how often each word followed the previous one."""

    model: str
    prev_id: int
    row_total: int  # how often prev was followed by anything
    k: float  # the add-k smoothing
    n_vocab: int
    ids: tuple[int, ...]  # the most frequent next words, most first (ties: smaller id)
    counts: tuple[int, ...]
    n_seen: int  # how many different words followed prev

    @property
    def made_up(self) -> float:
        """The counts the smoothing adds to the row: k for each word of the vocabulary (0.01 x 5,000 = 50)."""
        return self.k * self.n_vocab

    @property
    def probs(self) -> tuple[float, ...]:
        """Each shown word's probability at T = 1: (count + k) / (row total + k x n_vocab); (18 + 0.01) / 82."""
        return tuple((c + self.k) / (self.row_total + self.made_up) for c in self.counts)

    @property
    def n_more(self) -> int:
        """The words that followed prev but are not shown (fewer times than the shown ones)."""
        return self.n_seen - len(self.ids)

    @property
    def more_count(self) -> int:
        """How many times those words followed it, together: the row total less the shown counts."""
        return self.row_total - sum(self.counts)


def has_layers(model: LanguageModel) -> bool:
    """Whether the model's forward pass has layers to look inside; the bigram's is a row of its count table."""
    return not (hasattr(model, "pair_count") or hasattr(model, "class_model"))  # a class's mix: its class's counts


def inside_step(model: LanguageModel, result: StepResult) -> LayersView | BigramView:
    """Run the step's window once more, asking the forward pass for its intermediates, and read them off."""
    if not has_layers(model):
        return bigram_view(getattr(model, "class_model", model), result)
    inside = Inside()
    window = model.context(result.context_ids)
    model.logits(result.context_ids, inside=inside)
    last = np.stack([x[-1] for x in inside.residual])  # [n_layer + 1, n_embd]: the predicted position
    picked = result.chosen.id
    lens = tuple(lens_row(layer, z, picked) for layer, z in enumerate(model.unembed(last)))
    return LayersView(
        model=model.name, ids=tuple(window), window_start=result.window_start, n_layer=len(inside.attention),
        n_head=inside.queries[0].shape[0], n_head_kv=inside.keys[0].shape[0], head_dim=inside.queries[0].shape[-1],
        embeddings=model.embeddings[window], queries=tuple(inside.queries), keys=tuple(inside.keys),
        attention=tuple(inside.attention), lens=lens, picked_id=picked,
    )


def lens_row(layer: int, logits: np.ndarray, picked: int, n: int = N_LENS) -> LensRow:
    """The top n tokens of softmax(logits) at T = 1, and the picked token's rank and probability."""
    z = logits.astype(np.float64)  # [n_vocab]
    probs = softmax(z)  # [n_vocab]
    top = np.lexsort((np.arange(len(z)), -z))[:n]  # [n]: largest logit first, ties by smaller id
    return LensRow(layer=layer, ids=tuple(int(i) for i in top), probs=tuple(float(probs[i]) for i in top),
                   logits=tuple(float(z[i]) for i in top), total=float(np.exp(z - z.max()).sum()),
                   picked_rank=int((z > z[picked]).sum()) + 1, picked_prob=float(probs[picked]))


def neighbours(model: LanguageModel, token_id: int, n: int = N_NEIGHBOURS) -> list[Neighbour]:
    """The n tokens whose embeddings point most the same way as token_id's (cosine similarity), itself left out.

    cos(a, b) = a . b / (|a| |b|); a token with a zero embedding is similar to nothing (0).
    """
    e = model.embeddings  # [n_vocab, n_embd]
    norms = np.sqrt(np.einsum("ij,ij->i", e, e, dtype=np.float64))  # [n_vocab]
    dots = e @ e[token_id]  # [n_vocab]
    scale = norms * norms[token_id]  # [n_vocab]
    sims = np.divide(dots, scale, out=np.zeros(len(e)), where=scale > 0)  # [n_vocab]
    sims[token_id] = -np.inf  # not its own neighbour
    best = np.lexsort((np.arange(len(e)), -sims))[:n]  # most similar first, ties by smaller id
    return [Neighbour(int(i), model.tokenizer.token_text(int(i)), float(sims[i])) for i in best]


def attention_example(view: LayersView, layer: int, head: int) -> AttentionExample:
    """The largest weight of one head at the predicted position, written out from its query and keys."""
    weights = view.attention[layer - 1][head, -1]  # [n]: the predicted position over the keys it read
    key = int(np.argmax(weights))
    q = view.queries[layer - 1][head, -1].astype(np.float64)  # [head_dim]
    keys = view.keys[layer - 1][view.kv_head(head)].astype(np.float64)  # [n, head_dim]
    scores = keys @ q / math.sqrt(view.head_dim)  # [n]
    top = float(scores.max())
    exps = np.exp(scores - top)  # [n]
    return AttentionExample(layer=layer, head=head, kv_head=view.kv_head(head), key=key, dot=float(keys[key] @ q),
                            head_dim=view.head_dim, score=float(scores[key]), top_score=top, exp=float(exps[key]),
                            total=float(exps.sum()), weight=float(weights[key]))


def bigram_view(model, result: StepResult, n: int = N_FOLLOWERS) -> BigramView:
    """The bigram's count row for the previous token: its most frequent followers."""
    ids = result.context_ids
    prev = ids[-1] if ids else model.start_id
    lo, hi = model.indptr[prev], model.indptr[prev + 1]
    followers, counts = model.indices[lo:hi], model.counts[lo:hi]  # [n_seen] each
    order = np.lexsort((followers, -counts))[:n]
    return BigramView(model=model.name, prev_id=int(prev), row_total=int(model.row_totals[prev]), k=model.k,
                      n_vocab=model.n_vocab, ids=tuple(int(followers[j]) for j in order),
                      counts=tuple(int(counts[j]) for j in order), n_seen=int(hi - lo))
