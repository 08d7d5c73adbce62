"""Train a small GPT-style transformer on a corpus (PyTorch, CPU) and export it for the NumPy forward.

    pip install -e '.[train]'
    python scripts/train_transformer.py ../shared/corpus --threads 2 --no-bf16 --budget 1200  # the bundled model

The model: token + learned position embeddings, pre-LayerNorm blocks (causal multi-head
self-attention, then a 4x GELU MLP), a final LayerNorm, and an output head tied to the
token embedding. GELU is the tanh approximation, which the NumPy forward can compute
without erf. It uses the bigram's word vocabulary, so both models read the same tokens.

The held-out part of the corpus (the last 10% of each file) is never trained on: it
decides early stopping, and the best weights by held-out loss are the ones exported.
Matmuls run in bfloat16 autocast (fast on CPUs with AMX or AVX-512 BF16); the weights,
the exported files and the golden logits are float32.

Writes webapp/models/austen-transformer/{config.json,weights.npz,vocab.json} and the
test fixtures tests/unit/fixtures/transformer_golden.npz (PyTorch logits for fixed prompts) and
transformer_inside_golden.npz (PyTorch's residual stream after each block and attention weights
of each head, for one prompt). `--golden-only` writes the fixtures from the exported weights,
without training.
A run is repeatable: same corpus, seed and --steps give the same weights on the same machine.
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import shutil
import time
from pathlib import Path

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

from webapp.inference.machinery.corpus import load_split
from webapp.inference.machinery.registry import MODELS_DIR
from webapp.inference.tokenizer import WordTokenizer

ROOT = Path(__file__).resolve().parent.parent
FIXTURE = ROOT / "tests" / "unit" / "fixtures" / "transformer_golden.npz"
INSIDE_FIXTURE = FIXTURE.with_name("transformer_inside_golden.npz")
INSIDE_PROMPT = "Mr. Darcy said that Elizabeth was not handsome enough to tempt him"
GOLDEN_PROMPTS = (
    "It is a truth universally acknowledged, that a single man in possession of a good fortune,",
    "Mr. Darcy said",
    '"My dear Mr. Bennet," said his lady to him one day,',
    "",  # an empty context reads as a single <p>, as the NumPy model does
)


class Attention(nn.Module):
    """Causal multi-head self-attention."""

    def __init__(self, n_embd: int, n_head: int, dropout: float):
        super().__init__()
        self.n_head, self.dropout = n_head, dropout
        self.c_attn = nn.Linear(n_embd, 3 * n_embd)
        self.c_proj = nn.Linear(n_embd, n_embd)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        b, t, c = x.shape
        q, k, v = self.c_attn(x).split(c, dim=2)  # [b, t, c] each
        q, k, v = (a.view(b, t, self.n_head, c // self.n_head).transpose(1, 2) for a in (q, k, v))  # [b, h, t, hd]
        p = self.dropout if self.training else 0.0
        y = F.scaled_dot_product_attention(q, k, v, is_causal=True, dropout_p=p)  # [b, h, t, hd]
        return self.c_proj(y.transpose(1, 2).reshape(b, t, c))  # [b, t, c]


class Block(nn.Module):
    """x + attn(ln_1(x)), then x + mlp(ln_2(x))."""

    def __init__(self, n_embd: int, n_head: int, dropout: float):
        super().__init__()
        self.ln_1 = nn.LayerNorm(n_embd)
        self.attn = Attention(n_embd, n_head, dropout)
        self.ln_2 = nn.LayerNorm(n_embd)
        self.mlp = nn.Sequential()
        self.mlp.c_fc = nn.Linear(n_embd, 4 * n_embd)
        self.mlp.gelu = nn.GELU(approximate="tanh")
        self.mlp.c_proj = nn.Linear(4 * n_embd, n_embd)
        self.drop = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = x + self.drop(self.attn(self.ln_1(x)))
        return x + self.drop(self.mlp(self.ln_2(x)))


class GPT(nn.Module):
    """A GPT-2-style decoder with the head tied to the token embedding."""

    def __init__(self, n_vocab: int, n_ctx: int, n_embd: int, n_head: int, n_layer: int, dropout: float):
        super().__init__()
        self.wte = nn.Embedding(n_vocab, n_embd)
        self.wpe = nn.Embedding(n_ctx, n_embd)
        self.drop = nn.Dropout(dropout)
        self.blocks = nn.ModuleList(Block(n_embd, n_head, dropout) for _ in range(n_layer))
        self.ln_f = nn.LayerNorm(n_embd)
        for name, p in self.named_parameters():
            if name.endswith("bias"):
                nn.init.zeros_(p)
            elif p.dim() == 2:  # std 0.02; residual projections scaled down by depth, as in GPT-2
                std = 0.02 / math.sqrt(2 * n_layer) if name.endswith("c_proj.weight") else 0.02
                nn.init.normal_(p, std=std)

    def forward(self, idx: torch.Tensor) -> torch.Tensor:
        """Token ids [b, t] -> logits [b, t, n_vocab]."""
        x = self.drop(self.wte(idx) + self.wpe(torch.arange(idx.shape[1])))  # [b, t, c]
        for block in self.blocks:
            x = block(x)
        return self.ln_f(x) @ self.wte.weight.T  # [b, t, n_vocab]


def stream(tokenizer: WordTokenizer, texts: list[str]) -> torch.Tensor:
    """Every text as ids, each starting with a paragraph token, as build_bigram.py does: [n_tokens]."""
    ids: list[int] = []
    for text in texts:
        ids.append(tokenizer.paragraph_id)
        ids.extend(tokenizer.encode_ids(text.replace("_", "")))
    return torch.tensor(ids, dtype=torch.long)


def batch(data: torch.Tensor, n_ctx: int, size: int, gen: torch.Generator) -> tuple[torch.Tensor, torch.Tensor]:
    """Random windows: inputs [size, n_ctx] and the next tokens [size, n_ctx]."""
    starts = torch.randint(0, len(data) - n_ctx - 1, (size,), generator=gen)  # [size]
    rows = data[starts[:, None] + torch.arange(n_ctx + 1)]  # [size, n_ctx + 1]
    return rows[:, :-1], rows[:, 1:]


@torch.no_grad()
def heldout_loss(model: GPT, data: torch.Tensor, n_ctx: int, bf16: bool, size: int = 64) -> float:
    """Mean next-token loss over non-overlapping windows of n_ctx (so a mean context of n_ctx / 2)."""
    model.eval()
    n = (len(data) - 1) // n_ctx
    x = data[: n * n_ctx].view(n, n_ctx)  # [n, n_ctx]
    y = data[1 : n * n_ctx + 1].view(n, n_ctx)  # [n, n_ctx]
    total = 0.0
    for i in range(0, n, size):
        with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
            logits = model(x[i : i + size])  # [size, n_ctx, n_vocab]
        total += F.cross_entropy(logits.float().flatten(0, 1), y[i : i + size].flatten(), reduction="sum").item()
    model.train()
    return total / (n * n_ctx)


def lr_at(step: int, steps: int, peak: float, warmup: int) -> float:
    """Linear warmup, then cosine decay to a tenth of the peak at the last step."""
    if step < warmup:
        return peak * (step + 1) / warmup
    progress = min(1.0, (step - warmup) / max(1, steps - warmup))
    return peak * (0.1 + 0.9 * 0.5 * (1 + math.cos(math.pi * progress)))


def make_optimizer(model: GPT, lr: float, weight_decay: float) -> torch.optim.AdamW:
    """AdamW with weight decay on the matrices only (not on biases or LayerNorm gains)."""
    decay = [p for p in model.parameters() if p.dim() >= 2]
    rest = [p for p in model.parameters() if p.dim() < 2]
    groups = [{"params": decay, "weight_decay": weight_decay}, {"params": rest, "weight_decay": 0.0}]
    return torch.optim.AdamW(groups, lr=lr, betas=(0.9, 0.95))


def train_step(model, opt, x, y, lr: float, bf16: bool) -> float:
    for group in opt.param_groups:
        group["lr"] = lr
    with torch.autocast("cpu", dtype=torch.bfloat16, enabled=bf16):
        logits = model(x)  # [b, t, n_vocab]
    loss = F.cross_entropy(logits.float().flatten(0, 1), y.flatten())
    opt.zero_grad(set_to_none=True)
    loss.backward()
    nn.utils.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()
    return loss.item()


class EMA:
    """An exponential moving average of the weights: what is evaluated, kept and exported.

    Averaging the last few hundred steps does part of what a decaying learning rate does and
    needs no horizon, so a run that the time budget cuts short (a busy machine) still ends well.
    """

    def __init__(self, model: GPT, decay: float):
        self.model = copy.deepcopy(model).eval()
        self.decay = decay
        self.params = list(self.model.parameters())

    @torch.no_grad()
    def update(self, model: GPT, step: int) -> None:
        d = min(self.decay, (1 + step) / (10 + step))
        torch._foreach_lerp_(self.params, list(model.parameters()), 1 - d)


def train(model: GPT, train_ids, held_ids, args) -> tuple[dict, dict]:
    """Train until --steps, the budget, or early stopping; return the best state and what happened."""
    gen = torch.Generator().manual_seed(args.seed)
    opt = make_optimizer(model, args.lr, args.weight_decay)
    ema = EMA(model, args.ema)
    best = (math.inf, 0, copy.deepcopy(ema.model.state_dict()))
    bad_evals, running, start = 0, None, time.monotonic()
    steps = args.steps
    for step in range(1, 10**9):
        x, y = batch(train_ids, args.n_ctx, args.batch_size, gen)
        loss = train_step(model, opt, x, y, lr_at(step - 1, steps or 10**9, args.lr, args.warmup), args.bf16)
        ema.update(model, step)
        running = loss if running is None else 0.98 * running + 0.02 * loss
        elapsed = time.monotonic() - start
        if not steps and step == args.calibrate:  # plan the schedule to end inside the budget
            steps = max(step + 1, int(args.budget * 0.85 / (elapsed / step)))
            print(f"{elapsed / step * 1000:.0f} ms per step: planning {steps} steps "
                  f"(pass --steps {steps} to repeat this schedule)", flush=True)
        done = bool(steps) and step >= steps
        out_of_time = elapsed > args.budget
        if step % args.eval_every == 0 or done or out_of_time:
            held = heldout_loss(ema.model, held_ids, args.n_ctx, args.bf16)
            mark = ""
            if held < best[0]:
                best, bad_evals, mark = (held, step, copy.deepcopy(ema.model.state_dict())), 0, " *"
            else:
                bad_evals += 1
            print(f"step {step:5d}  {time.monotonic() - start:6.0f} s  lr {opt.param_groups[0]['lr']:.1e}  "
                  f"train {running:.3f}  held-out (averaged weights) {held:.3f} (ppl {math.exp(held):6.1f}){mark}",
                  flush=True)
            if bad_evals >= args.patience:
                print(f"early stop: no better held-out loss in {args.patience} evaluations", flush=True)
                break
        if done or out_of_time:
            if out_of_time and not done:
                print(f"stopped by the {args.budget:.0f} s budget", flush=True)
            break
    facts = {"steps_planned": steps, "steps_run": step, "step_kept": best[1],
             "seconds": round(time.monotonic() - start)}
    return best[2], facts


def numpy_weights(model: GPT) -> dict[str, np.ndarray]:
    """The weights under picoGPT's names, Linear weights as [n_in, n_out] so that y = x @ w + b."""
    out = {}
    for name, p in model.state_dict().items():
        a = p.detach().float().numpy()
        if name in ("wte.weight", "wpe.weight"):
            out[name.removesuffix(".weight")] = a
        elif name.endswith(".weight"):
            is_linear = a.ndim == 2
            out[name.removesuffix(".weight") + (".w" if is_linear else ".g")] = a.T.copy() if is_linear else a
        else:
            out[name.removesuffix(".bias") + ".b"] = a
    return out


@torch.no_grad()
def last_logits(model: GPT, ids: list[int], n_ctx: int, paragraph_id: int) -> np.ndarray:
    """Float32 logits after ids, reading the last n_ctx ids ([<p>] when ids is empty): [n_vocab]."""
    model.eval()
    window = ids[-n_ctx:] if ids else [paragraph_id]
    return model(torch.tensor([window]))[0, -1].float().numpy()  # [n_vocab]


@torch.no_grad()
def inside(model: GPT, ids: list[int]) -> tuple[np.ndarray, np.ndarray]:
    """The residual stream before and after each block, [n_layer + 1, t, c], and each head's attention
    weights, [n_layer, n_head, t, t], computed from the module's own weights with the softmax written out
    (scaled_dot_product_attention does not return its weights)."""
    model.eval()
    x = model.wte(torch.tensor(ids)) + model.wpe(torch.arange(len(ids)))  # [t, c]
    streams, weights = [x], []
    mask = torch.triu(torch.full((len(ids), len(ids)), float("-inf")), diagonal=1)  # [t, t]
    for block in model.blocks:
        attn = block.attn
        t, c = x.shape
        q, k, v = attn.c_attn(block.ln_1(x)).split(c, dim=1)  # [t, c] each
        q, k, v = (a.view(t, attn.n_head, c // attn.n_head).transpose(0, 1) for a in (q, k, v))  # [h, t, hd]
        w = torch.softmax(q @ k.transpose(1, 2) / math.sqrt(c // attn.n_head) + mask, dim=-1)  # [h, t, t]
        x = x + attn.c_proj((w @ v).transpose(0, 1).reshape(t, c))
        x = x + block.mlp(block.ln_2(x))
        streams.append(x)
        weights.append(w)
    return torch.stack(streams).numpy(), torch.stack(weights).numpy()


def load_exported(folder: Path) -> GPT:
    """The GPT module with the weights export() wrote (numpy_weights undone)."""
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    model = GPT(config["n_vocab"], config["n_ctx"], config["n_embd"], config["n_head"], config["n_layer"], 0.0)
    state = {}
    with np.load(folder / config["weights"]) as arrays:
        for name in arrays.files:
            a = torch.from_numpy(arrays[name].astype(np.float32))
            if name in ("wte", "wpe"):
                state[name + ".weight"] = a
            elif name.endswith(".w"):
                state[name.removesuffix(".w") + ".weight"] = a.T.contiguous()
            elif name.endswith(".g"):
                state[name.removesuffix(".g") + ".weight"] = a
            else:
                state[name.removesuffix(".b") + ".bias"] = a
    model.load_state_dict(state)
    return model


def write_fixtures(model: GPT, tokenizer: WordTokenizer, n_ctx: int, heldout: list[str], fixture: Path) -> None:
    """PyTorch's logits after the golden prompts, and its residual streams and attention for one prompt."""
    prompts = golden_prompts(tokenizer, heldout, n_ctx)
    arrays = {}
    for i, ids in enumerate(prompts):
        arrays[f"ids_{i}"] = np.array(ids, dtype=np.int64)
        arrays[f"logits_{i}"] = last_logits(model, ids, n_ctx, tokenizer.paragraph_id)
    fixture.parent.mkdir(parents=True, exist_ok=True)
    np.savez(fixture, n_prompts=len(prompts), **arrays)
    ids = tokenizer.encode_ids(INSIDE_PROMPT)
    residual, attention = inside(model, ids)
    np.savez(fixture.with_name(INSIDE_FIXTURE.name), ids=np.array(ids, dtype=np.int64), residual=residual,
             attention=attention)


def golden_prompts(tokenizer: WordTokenizer, heldout: list[str], n_ctx: int) -> list[list[int]]:
    """The fixed prompts' ids, plus one longer than n_ctx (from the held-out text) to test the window."""
    prompts = [tokenizer.encode_ids(p) for p in GOLDEN_PROMPTS]
    prompts.append(tokenizer.encode_ids(heldout[0].replace("_", ""))[: n_ctx + 37])
    return prompts


def export(model: GPT, tokenizer: WordTokenizer, args, held: float, facts: dict, heldout: list[str]) -> None:
    out: Path = args.out
    out.mkdir(parents=True, exist_ok=True)
    n_params = sum(p.numel() for p in model.parameters())
    config = {
        "type": "transformer", "name": args.name,
        "description": (f"Transformer: a small GPT ({args.n_layer} layers, {args.n_embd} wide, "
                        f"{n_params / 1e6:.1f} M parameters) that reads the last {args.n_ctx} words. "
                        f"Held-out perplexity about {math.exp(held):.0f}."),
        "n_layer": args.n_layer, "n_head": args.n_head, "n_embd": args.n_embd, "n_ctx": args.n_ctx,
        "n_vocab": tokenizer.n_vocab, "n_params": n_params, "weights": "weights.npz", "gelu": "tanh",
        "layer_norm_eps": 1e-5,
        "training": {
            **{k: getattr(args, k) for k in ("seed", "threads", "batch_size", "lr", "warmup", "weight_decay",
                                              "dropout", "ema", "bf16", "budget")},
            **facts, "heldout_loss": round(held, 4),
            "heldout_loss_note": "windows of n_ctx, not overlapping (a mean context of n_ctx / 2)",
        },
    }
    (out / "config.json").write_text(json.dumps(config, indent=2) + "\n", encoding="utf-8")
    np.savez(out / "weights.npz", **numpy_weights(model))
    if args.vocab.resolve() != (out / "vocab.json").resolve():
        shutil.copyfile(args.vocab, out / "vocab.json")
    write_fixtures(model, tokenizer, args.n_ctx, heldout, args.fixture)
    size = sum(f.stat().st_size for f in out.iterdir())
    print(f"wrote {out} ({size / 1e6:.2f} MB) and {args.fixture}")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("corpus", help="a folder of .txt files, or one .txt file")
    p.add_argument("--vocab", type=Path, default=MODELS_DIR / "austen-bigram" / "vocab.json")
    p.add_argument("--name", default="austen-transformer")
    p.add_argument("--out", type=Path, default=MODELS_DIR / "austen-transformer")
    p.add_argument("--fixture", type=Path, default=FIXTURE)
    p.add_argument("--n-layer", type=int, default=4)
    p.add_argument("--n-head", type=int, default=4)
    p.add_argument("--n-embd", type=int, default=128)
    p.add_argument("--n-ctx", type=int, default=128)
    p.add_argument("--dropout", type=float, default=0.0,
                   help="0: a few epochs do not overfit, and dropout costs a quarter of a CPU step")
    p.add_argument("--batch-size", type=int, default=16)
    p.add_argument("--lr", type=float, default=2e-3)
    p.add_argument("--warmup", type=int, default=100)
    p.add_argument("--weight-decay", type=float, default=0.1)
    p.add_argument("--ema", type=float, default=0.995, help="decay of the weight average that is exported")
    p.add_argument("--steps", type=int, default=0, help="0: as many as fit the budget, timed on the first steps")
    p.add_argument("--calibrate", type=int, default=30, help="steps timed to plan --steps 0")
    p.add_argument("--budget", type=float, default=660, help="wall-clock seconds of training at most")
    p.add_argument("--eval-every", type=int, default=150)
    p.add_argument("--patience", type=int, default=4, help="evaluations without a better held-out loss")
    p.add_argument("--seed", type=int, default=1234)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--no-bf16", dest="bf16", action="store_false", help="train in float32 throughout")
    p.add_argument("--golden-only", action="store_true", help="only write the test fixtures from --out")
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    args = parse_args(argv)
    torch.manual_seed(args.seed)
    torch.set_num_threads(args.threads)
    torch.set_flush_denormal(True)  # tiny softmax gradients are denormal at init: 100x slower matmuls
    tokenizer = WordTokenizer.load(args.vocab)
    train_texts, heldout = load_split(args.corpus)
    if args.golden_only:
        write_fixtures(load_exported(args.out), tokenizer, args.n_ctx, heldout, args.fixture)
        print(f"wrote {args.fixture} and {INSIDE_FIXTURE.name} from the weights in {args.out}")
        return
    train_ids, held_ids = stream(tokenizer, train_texts), stream(tokenizer, heldout)
    model = GPT(tokenizer.n_vocab, args.n_ctx, args.n_embd, args.n_head, args.n_layer, args.dropout)
    n_params = sum(p.numel() for p in model.parameters())
    print(f"vocabulary {tokenizer.n_vocab:,}; {len(train_ids):,} training and {len(held_ids):,} held-out tokens; "
          f"{args.n_layer} layers x {args.n_embd} wide, {args.n_head} heads, context {args.n_ctx}: "
          f"{n_params:,} parameters ({n_params * 4 / 1e6:.1f} MB as float32)", flush=True)
    state, facts = train(model, train_ids, held_ids, args)
    model.load_state_dict(state)
    held = heldout_loss(model, held_ids, args.n_ctx, bf16=False)  # the kept weights, measured in float32
    print(f"kept step {facts['step_kept']}: held-out loss {held:.4f} (perplexity {math.exp(held):.1f}) in float32; "
          f"trained {facts['seconds']} s", flush=True)
    export(model, tokenizer, args, held, facts, heldout)


if __name__ == "__main__":
    main()
