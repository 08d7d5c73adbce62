"""The sentences a class model is counted from, as one file: a room's sentences, or a text pasted in.

The file is JSON, one sentence per line, and it is the model: the counts are made from it again
wherever it is opened, so a teacher who saves it can open the same model outside the room.

    {
      "format": "token-by-token class sentences",
      "version": 1,
      "topic": "school lunch",
      "sentences": [
        ["1", "We like lunch."],
        ["2", "Lunch is at noon."]
      ]
    }

Each sentence comes with its author as a number (the first student to write is "1"): never a nickname,
so the file can be shared. Held-out perplexity leaves out each author's last sentence. A pasted text's
"authors" are its paragraphs, and its sentences are bounded by the text's size (MAX_PASTED_BYTES) rather
than by a room's limits.

The same sentences always give the same file, and the file's id is a hash of it: the same text, the same link.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass

from .class_bigram import DEFAULT_K, MAX_SENTENCES, ClassBigram, clean_sentence, squeeze
from .errors import N_, InvalidSentence

MODEL_PREFIX = "class:"  # a class model's name in URLs: 'class:' and its file's id
MIXED_WITH = "austen-bigram"  # the model a class model may be mixed with: a bigram over words, as it is
FORMAT = "token-by-token class sentences"
VERSION = 1
MAX_PASTED_BYTES = 50_000  # a few pages: about 9,000 words, counted in milliseconds
MAX_FILE_BYTES = 60_000  # the sentences, their authors and the JSON around them
MAX_TOPIC_CHARS = 120
ID_CHARS = 10
_SENTENCE_END = re.compile(r"(?<=[.!?])\s+|(?<=[.!?][\"'\u201d\u2019)])\s+")


@dataclass(frozen=True)
class ClassText:
    """Sentences with their authors, and the topic they were written on."""

    sentences: tuple[tuple[str, str], ...]  # (author, sentence)
    topic: str = ""
    pasted: bool = False  # a pasted text: sentences of any length, bounded by the text's size

    @property
    def texts(self) -> list[str]:
        return [sentence for _, sentence in self.sentences]

    def dumps(self) -> str:
        """The file: the same sentences always give the same text."""
        head = {"format": FORMAT, "version": VERSION, "topic": self.topic, "pasted": self.pasted}
        lines = [f"  {json.dumps(key)}: {json.dumps(value, ensure_ascii=False)}," for key, value in head.items()]
        rows = [f"    {json.dumps([author, s], ensure_ascii=False)}" for author, s in self.sentences]
        return "{\n" + "\n".join(lines) + '\n  "sentences": [\n' + ",\n".join(rows) + "\n  ]\n}\n"

    @property
    def id(self) -> str:
        """ID_CHARS of the file's SHA-256 in base32, lower case: 'k3v7a2q9xm'."""
        digest = hashlib.sha256(self.dumps().encode("utf-8")).digest()
        return base64.b32encode(digest).decode("ascii")[:ID_CHARS].lower()

    def model(self, k: float = DEFAULT_K, name: str = "class-bigram") -> ClassBigram:
        return ClassBigram.build(self.texts, k, name=name, limits=not self.pasted)


def is_class_model(name: str) -> bool:
    return name.startswith(MODEL_PREFIX)


def from_room(authored: Sequence[tuple[str, str]], topic: str = "") -> ClassText:
    """A room's (student id, sentence) pairs, the students numbered in the order they first wrote.

    >>> from_room([("x9", "Hi."), ("a1", "Yo."), ("x9", "Bye.")]).sentences
    (('1', 'Hi.'), ('2', 'Yo.'), ('1', 'Bye.'))
    """
    if not authored:
        raise InvalidSentence(N_("there are no sentences yet: the model is counted from the class's sentences"))
    if len(authored) > MAX_SENTENCES:
        raise InvalidSentence(N_("the round holds at most %(limit)s sentences"), limit=MAX_SENTENCES)
    numbers: dict[str, str] = {}
    for student, _ in authored:
        numbers.setdefault(student, str(len(numbers) + 1))
    return ClassText(tuple((numbers[student], clean_sentence(s)) for student, s in authored),
                     topic=squeeze(topic)[:MAX_TOPIC_CHARS])


def from_pasted(text: str) -> ClassText:
    """A pasted text split into sentences (after . ! or ?), each paragraph (lines apart) one author.

    >>> from_pasted("It rained. We stayed in!\\n\\nThe sun came out.").sentences
    (('1', 'It rained.'), ('1', 'We stayed in!'), ('2', 'The sun came out.'))
    """
    size = len(text.encode("utf-8", "surrogatepass"))
    if size > MAX_PASTED_BYTES:
        raise InvalidSentence(N_("a text can have at most %(limit)s bytes; this one has %(n)s"),
                              limit=f"{MAX_PASTED_BYTES:,}", n=f"{size:,}")
    paragraphs = [p for p in re.split(r"\n\s*\n", text.replace("\r\n", "\n")) if squeeze(p)]
    sentences = tuple((str(n), s) for n, paragraph in enumerate(paragraphs, 1)
                      for s in map(squeeze, _SENTENCE_END.split(squeeze(paragraph))) if s)
    if not sentences:
        raise InvalidSentence(N_("the text has no words to count"))
    return ClassText(sentences, pasted=True)


def parse(data: bytes | str) -> ClassText:
    """Read a class's file back; InvalidSentence with the reason if it is not one, or breaks a limit."""
    if isinstance(data, bytes):
        if len(data) > MAX_FILE_BYTES:
            raise InvalidSentence(N_("a class's file has at most %(limit)s bytes"), limit=f"{MAX_FILE_BYTES:,}")
        try:
            data = data.decode("utf-8")
        except UnicodeDecodeError:
            raise InvalidSentence(N_("this file is not text (UTF-8)")) from None
    try:
        raw = json.loads(data)
    except (json.JSONDecodeError, RecursionError):
        raise InvalidSentence(N_("this is not a class's sentences file: it is not JSON")) from None
    if not isinstance(raw, dict) or raw.get("format") != FORMAT or raw.get("version") != VERSION:
        raise InvalidSentence(N_("this is not a class's sentences file (version %(version)s)"), version=VERSION)
    rows = raw.get("sentences")
    if not isinstance(rows, list) or not all(
            isinstance(row, list) and len(row) == 2 and all(isinstance(x, str) for x in row) for row in rows):
        raise InvalidSentence(N_("the file's sentences must be a list of [author, sentence] pairs"))
    topic = raw.get("topic", "")
    pasted = raw.get("pasted", False)
    if not isinstance(topic, str) or not isinstance(pasted, bool):
        raise InvalidSentence(N_("the file's topic must be text, and \"pasted\" true or false"))
    if pasted:
        from_pasted("\n".join(s for _, s in rows))  # the size's and the words' checks
        return ClassText(tuple((squeeze(a)[:8], squeeze(s)) for a, s in rows if squeeze(s)), pasted=True)
    authored = [(squeeze(a)[:8], s) for a, s in rows]
    return from_room(authored, topic)
