"""The errors the inference core raises for bad input, so a caller can tell the user why."""


class InferenceError(ValueError):
    """A request the core cannot carry out; the message is meant for the user."""


class InvalidSetting(InferenceError):
    """A sampling setting (temperature, top-k, top-p, min-p, seed, r) is out of range."""


class InvalidTokenIds(InferenceError):
    """A token id is not in the vocabulary, or there are more than the model allows."""


class PromptTooLong(InferenceError):
    """The prompt has more characters or tokens than the model allows."""


class UnknownModel(InferenceError):
    """No model has the requested name."""
