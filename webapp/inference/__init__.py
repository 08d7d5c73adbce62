"""The inference loop in NumPy: tokenizer, models, sampling and the step. No web code here."""

from .errors import InferenceError, InvalidSetting, InvalidTokenIds, PromptTooLong, UnknownModel
from .machinery.registry import get_model, load_bundled, load_model
from .model import LanguageModel
from .step import Row, Settings, StepResult, generate, run_step, text_of, undo
from .tokenizer import Token, WordTokenizer

__all__ = [
    "InferenceError", "InvalidSetting", "InvalidTokenIds", "LanguageModel", "PromptTooLong", "Row",
    "Settings", "StepResult", "Token", "UnknownModel", "WordTokenizer", "generate", "get_model",
    "load_bundled", "load_model", "run_step", "text_of", "undo",
]
