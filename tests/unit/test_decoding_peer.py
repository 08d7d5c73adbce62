"""Our beam search against Hugging Face's own, `generate(num_beams=k)`, on the same SmolLM2-135M GGUF file.

transformers dequantises the file's weights to float32 and runs its LlamaForCausalLM in torch; our model runs
the same weights in NumPy. Both are given the same ids (the app's tokenizer, after its start token) and the
same end-of-sequence token, and must finish the same beams with the same scores. Skipped without transformers
(`pip install -e .[peer]`) or without the model (python -m webapp fetch-model smollm2-135m).
"""

from __future__ import annotations

import json
import warnings

import pytest

from webapp.inference.decoding import beam_search
from webapp.inference.machinery.registry import load_model
from webapp.inference.machinery.user_models import user_models_dir

transformers = pytest.importorskip("transformers")
torch = pytest.importorskip("torch")
pytest.importorskip("accelerate")  # transformers needs it to read a GGUF file

FOLDER = user_models_dir() / "smollm2-135m"
N_NEW = 5  # 8 takes about 160 s on two cores; 5 about half as long, with texts that end still among them
TOLERANCE = 1e-4  # float32 logits in two orders of summation differ by about 4e-5
PROMPTS = [
    "The capital of France is",
    "Once upon a time, there was a little",
    "def fibonacci(n):",
    "The best way to learn a language is",
    "Water boils at",
    "My favourite colour is",
    "In 1492, Columbus",
    "The cat sat on the",
    "Photosynthesis is the process by which",
    "Hello, my name is",
    "<|im_start|>user\nSay hi.<|im_end|>\n<|im_start|>assistant\n",
    "<|im_start|>user\nWhat is 2 + 2?<|im_end|>\n<|im_start|>assistant\n",
    "<|im_start|>user\nName a colour.<|im_end|>\n<|im_start|>assistant\n",
    "Q: What is the largest planet?\nA:",
    "1, 2, 3, 4,",
    "import numpy as np\n",
    "The quick brown fox",
    "It is a truth universally acknowledged",
    "To be or not to be,",
    "The recipe needs two eggs and",
    "Yes or no?",
    ".",
]


@pytest.fixture(scope="module")
def ours():
    if not (FOLDER / "config.json").is_file():
        pytest.skip("smollm2-135m is not fetched (python -m webapp fetch-model smollm2-135m)")
    return load_model(FOLDER)


@pytest.fixture(scope="module")
def peer(ours):
    file = json.loads((FOLDER / "config.json").read_text(encoding="utf-8"))["file"]
    with warnings.catch_warnings():  # its own deprecations are not ours to fix
        warnings.simplefilter("ignore")
        model = transformers.AutoModelForCausalLM.from_pretrained(FOLDER, gguf_file=file, dtype=torch.float32)
    return model.eval()


def peer_beams(peer, prompt_ids: list[int], width: int, eos_id: int) -> list[tuple[tuple[int, ...], float]]:
    """Hugging Face's finished beams, best first: (generated ids, score), with every default processor off."""
    with warnings.catch_warnings(), torch.no_grad():
        warnings.simplefilter("ignore")
        out = peer.generate(
            torch.tensor([prompt_ids]), attention_mask=torch.ones(1, len(prompt_ids), dtype=torch.long),
            num_beams=width, num_return_sequences=width, length_penalty=1.0, early_stopping=True, do_sample=False,
            max_new_tokens=N_NEW, eos_token_id=eos_id, pad_token_id=eos_id, output_scores=True,
            return_dict_in_generate=True, repetition_penalty=1.0, no_repeat_ngram_size=0, temperature=None,
            top_k=None, top_p=None)
    beams = []
    for row, score in zip(out.sequences[:, len(prompt_ids):].tolist(), out.sequences_scores.tolist(), strict=True):
        ids = row[: row.index(eos_id) + 1] if eos_id in row else row  # padded with eos_id after the end
        beams.append((tuple(ids), score))
    return beams


@pytest.mark.parametrize("width", [2, 4, 8])
@pytest.mark.parametrize("prompt", PROMPTS)
def test_beam_search_finishes_the_beams_hugging_face_finishes(ours, peer, prompt, width):
    prompt_ids = [ours.start_id, *ours.tokenizer.encode_ids(prompt)]
    search = beam_search(ours, prompt_ids, width, N_NEW, length_penalty=1.0, eos_id=ours.eos_id)
    expected = peer_beams(peer, prompt_ids, width, ours.eos_id)
    assert [b.ids for b in search.finished] == [ids for ids, _ in expected]
    for beam, (_, score) in zip(search.finished, expected, strict=True):
        assert beam.score(1.0) == pytest.approx(score, abs=TOLERANCE)
