"""The inference loop in NumPy: tokenizer, models, sampling and the step. No web code here.

The lesson, in reading order:

    tokenizer.py    text -> token ids through a word vocabulary; <unk> for words outside it
    bpe.py          the pretrained model's byte-level BPE tokenizer
    model.py        what every model offers: a vocabulary, a context size, logits(ids)
    bigram.py       logits as log-counts of the word pair: checkable by hand
    transformer.py  a small GPT: forward(), top to bottom, as picoGPT writes it
    llama.py        SmolLM2's forward(): RMSNorm, rotary positions, grouped-query attention, SwiGLU
    sampling.py     temperature, softmax, top-k / top-p / min-p, the ranges on [0, 1), the pick
    chain.py        the sampler chain: penalties, temperature and truncation in any order
    settings.py     the chain's settings, each checked when they are made
    step.py         one step of the loop as a pure function (encode, forward, chain, ranges, pick),
                    and the loop built from it, as llama2.c's generate()
    article.py      the seed article's example as a model: a few tokens whose scores the teacher types
    exact.py        its typed probabilities as fractions, so that 0.1 + 0.2 ends at 0.3 exactly

machinery/ reads model files and finds models, and holds the KV cache the forward passes can use;
derived/ holds what the screens derive from a step: the logits table (derived/table.py: a row per
token, the rest summed up), worked examples, comparisons, exports, vocabulary search, perplexity,
uncertainty and surprise, sampling many times.

run_step returns a Step, the lesson's numbers; tabulate(model, step) turns it into the StepResult
a screen shows, and run_step_table does both.
"""

from .derived.table import Row, StepResult, generate_table, run_step_table, tabulate
from .errors import InferenceError, InvalidSetting, InvalidTokenIds, PromptTooLong, UnknownModel
from .machinery.registry import get_model, load_bundled, load_model
from .model import LanguageModel
from .settings import Settings
from .step import Step, generate, run_step, text_of, undo
from .tokenizer import Token, WordTokenizer

__all__ = [
    "InferenceError", "InvalidSetting", "InvalidTokenIds", "LanguageModel", "PromptTooLong", "Row",
    "Settings", "Step", "StepResult", "Token", "UnknownModel", "WordTokenizer", "generate", "generate_table",
    "get_model", "load_bundled", "load_model", "run_step", "run_step_table", "tabulate", "text_of", "undo",
]
