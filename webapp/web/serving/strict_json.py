"""JSON that every strict parser reads: a number that is not finite is written as null.

Python's json writes NaN, Infinity and -Infinity, which are not JSON: a browser's JSON.parse and
most languages' parsers refuse the whole answer. A logit can be -inf (a token the article model
gives probability 0, a token a rule removed), so every JSON answer (the twin of a step, exports,
results) writes such a number as null; the README says so where it lists the fields.
"""

from __future__ import annotations

import math
from typing import Any

from flask.json.provider import DefaultJSONProvider


def finite(value: Any) -> Any:
    """The value with every float that is not finite replaced by None, in lists, tuples and dicts too.

    >>> finite({"logits": [1.5, float("-inf")], "p": float("nan"), "n": 3})
    {'logits': [1.5, None], 'p': None, 'n': 3}
    """
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {key: finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [finite(item) for item in value]
    return value


class StrictJSONProvider(DefaultJSONProvider):
    """Flask's JSON, strict: no NaN or Infinity ever reaches an answer."""

    def dumps(self, obj: Any, **kwargs: Any) -> str:
        kwargs.setdefault("allow_nan", False)  # a value finite() missed fails here, loudly, not in a client
        return super().dumps(finite(obj), **kwargs)
