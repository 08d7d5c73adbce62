"""A class model's files for a spreadsheet: its sentences, and the counts of its word pairs.

Both are CSV in UTF-8 with a byte order mark, so that a spreadsheet opened by a double click reads the
accents right; a cell a spreadsheet would run as a formula starts with an apostrophe (export._cells).

>>> from webapp.inference.class_text import from_pasted
>>> text = from_pasted("We like lunch. We like school!")
>>> print(sentences_csv(text).lstrip(BOM), end="")
n,author,sentence
1,1,We like lunch.
2,1,We like school!
>>> print(counts_csv(text.model()).lstrip(BOM), end="")
previous,next,count
<s>,We,2
We,like,2
like,lunch,1
like,school,1
lunch,.,1
.,<s>,1
school,!,1
!,<s>,1
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterator

from ..class_bigram import ClassBigram
from ..class_text import ClassText
from .export import _cells

BOM = "\ufeff"


def _csv(header: tuple[str, ...], rows) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(header)
    writer.writerows(_cells(row) for row in rows)
    return BOM + out.getvalue()


def sentences_csv(text: ClassText) -> str:
    """n, author, sentence: one line per sentence, in the file's order."""
    return _csv(("n", "author", "sentence"), ((n, int(a) if a.isdigit() else a, s)
                                              for n, (a, s) in enumerate(text.sentences, 1)))


def pairs(model: ClassBigram) -> Iterator[tuple[str, str, int]]:
    """(previous, next, count) for every pair of tokens written one after the other, by the previous token's id."""
    vocab = model.tokenizer.vocab
    for prev in range(model.n_vocab):
        for j in range(model.indptr[prev], model.indptr[prev + 1]):
            yield vocab[prev], vocab[int(model.indices[j])], int(model.counts[j])


def counts_csv(model: ClassBigram) -> str:
    """previous, next, count: every pair counted at least once (the others are 0)."""
    return _csv(("previous", "next", "count"), pairs(model))
