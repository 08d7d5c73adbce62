"""Token by token: a classroom stepper for how a language model writes text."""

__version__ = "0.1.0"
