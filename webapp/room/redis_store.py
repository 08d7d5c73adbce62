"""The room store in Redis, for a class served by several machines behind a load balancer.

Keys, for a room with code C (every one expires idle_seconds after the teacher's last change):

    tbt:room:C            hash: the Room's fields
    tbt:room:C:students   hash: student id -> nickname
    tbt:room:C:votes      hash: "round:student" -> token id
    tbt:room:C:changes    hash: "round:student" -> how often the vote was changed
    tbt:room:C:results    hash: round -> JSON
    tbt:room:C:closing    the round being counted, for CLOSING_MS only: votes on it are refused meanwhile
    tbt:room:C:sentences  hash: n -> a sentence the class wrote (n counted by the room's field sentences_n)
    tbt:room:C:authors    hash: n -> the student who wrote it
    tbt:rooms             sorted set: code -> last change, to bound the open rooms
    tbt:hit:KEY:WINDOW    rate-limit counters
    tbt:bucket:KEY        hash: a token bucket's tokens and when they were counted; expires once full again
    tbt:secret            the signing secret (no expiry)
    tbt:lesson:ID         hash: a kept lesson's file and when it expires, `seconds` after it was last kept or read
    tbt:lessons           sorted set: lesson id -> when it expires, to bound the lessons kept
    tbt:text:ID, tbt:texts  the same for the sentences class models are counted from

The compare-and-set update, the vote (only while its round is open), the bounded join and closing a
round with its result are Lua scripts, so each is atomic whichever process on whichever machine runs it.

Every call waits at most TIMEOUT_SECONDS for Redis and is never retried; a call that fails so opens
the breaker (breaker.py), and the calls after it fail at once with StoreUnavailable until Redis
answers again.
"""

from __future__ import annotations

import functools
import secrets
from collections.abc import Callable
from urllib.parse import urlsplit, urlunsplit

import redis
from redis.backoff import NoBackoff
from redis.retry import Retry

from ..inference.class_bigram import MAX_SENTENCES, MAX_SENTENCES_PER_STUDENT
from .breaker import Breaker
from .store import MAX_VOTE_CHANGES, ROOM_FIELDS, Room, RoomsFull, RoomStore, Sent, Vote

PREFIX = "tbt:room:"
ROOMS = "tbt:rooms"
# A healthy Redis answers these calls in a fraction of a millisecond (a whole room request takes about
# one, bench/room.py), so half a second is hundreds of times that, yet keeps what a hung Redis costs a
# request small; connecting gets the same. A lost answer is not asked again: the breaker decides.
TIMEOUT_SECONDS = 0.5
CLOSING_MS = 2000  # how long a round being counted refuses votes: counting takes milliseconds
MAX_COUNTS = 3  # counts of a round whose votes changed meanwhile (only after CLOSING_MS, or from an older server)
FAILURES = (redis.ConnectionError, redis.TimeoutError)  # Redis not answering, as opposed to refusing a command
BUCKET = "tbt:bucket:"
LESSON, LESSONS = "tbt:lesson:", "tbt:lessons"
TEXT, TEXTS = "tbt:text:", "tbt:texts"
# KEYS: the file (a lesson or a text), its shelf's index; ARGV: now, max_files, seconds, id, text
KEEP_LESSON = """
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
if not redis.call('ZSCORE', KEYS[2], ARGV[4]) and redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[2]) then return 0 end
redis.call('HSET', KEYS[1], 'text', ARGV[5], 'expires', ARGV[1] + ARGV[3])
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[1] + ARGV[3], ARGV[4])
return 1
"""
# KEYS: the file, its shelf's index; ARGV: now, seconds, id. The text if it has not expired, kept at least `seconds`
# more (never less than it was).
READ_LESSON = """
local text, expires = unpack(redis.call('HMGET', KEYS[1], 'text', 'expires'))
if not text or tonumber(expires) <= tonumber(ARGV[1]) then return false end
local later = math.max(tonumber(expires), ARGV[1] + ARGV[2])
redis.call('HSET', KEYS[1], 'expires', later)
redis.call('EXPIRE', KEYS[1], math.ceil(later - ARGV[1]))
redis.call('ZADD', KEYS[2], later, ARGV[3])
return text
"""
SECRET = "tbt:secret"

CREATE = """
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', ARGV[1])
if redis.call('ZCARD', KEYS[2]) >= tonumber(ARGV[2]) then return -1 end
if redis.call('EXISTS', KEYS[1]) == 1 then return 0 end
for i = 6, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
redis.call('EXPIRE', KEYS[1], ARGV[3])
redis.call('ZADD', KEYS[2], ARGV[4], ARGV[5])
return 1
"""

UPDATE = """
if redis.call('HGET', KEYS[1], 'version') ~= ARGV[1] then return 0 end
for i = 4, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
local v = redis.call('HINCRBY', KEYS[1], 'version', 1)
for i = 1, 4 do redis.call('EXPIRE', KEYS[i], ARGV[2]) end
for i = 7, #KEYS do redis.call('EXPIRE', KEYS[i], ARGV[2]) end
redis.call('ZADD', KEYS[5], ARGV[3], redis.call('HGET', KEYS[1], 'code'))
redis.call('DEL', KEYS[6])
return v
"""

JOIN = """
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 0 and redis.call('HLEN', KEYS[2]) >= tonumber(ARGV[3]) then
  return 0
end
redis.call('HSET', KEYS[2], ARGV[1], ARGV[2])
redis.call('EXPIRE', KEYS[2], redis.call('TTL', KEYS[1]))
return 1
"""

HOLD = """
if redis.call('HGET', KEYS[1], 'version') ~= ARGV[1] then return nil end
redis.call('SET', KEYS[3], ARGV[2], 'PX', ARGV[3])
local taken = {'ok'}
local prefix = ARGV[2] .. ':'
local all = redis.call('HGETALL', KEYS[2])
for i = 1, #all, 2 do
  if string.sub(all[i], 1, #prefix) == prefix then
    table.insert(taken, string.sub(all[i], #prefix + 1))
    table.insert(taken, all[i + 1])
  end
end
return taken
"""

CLOSE = """
if redis.call('HGET', KEYS[1], 'version') ~= ARGV[1] then return 0 end
local prefix = ARGV[4] .. ':'
local n = tonumber(ARGV[6])
local found = 0
for _, field in ipairs(redis.call('HKEYS', KEYS[3])) do
  if string.sub(field, 1, #prefix) == prefix then found = found + 1 end
end
if found ~= n then return -1 end
for i = 7, 6 + 2 * n, 2 do
  if redis.call('HGET', KEYS[3], prefix .. ARGV[i]) ~= ARGV[i + 1] then return -1 end
end
redis.call('HSET', KEYS[4], ARGV[4], ARGV[5])
for i = 7 + 2 * n, #ARGV, 2 do redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
local v = redis.call('HINCRBY', KEYS[1], 'version', 1)
for i = 1, 4 do redis.call('EXPIRE', KEYS[i], ARGV[2]) end
for i = 7, #KEYS do redis.call('EXPIRE', KEYS[i], ARGV[2]) end
redis.call('ZADD', KEYS[5], ARGV[3], redis.call('HGET', KEYS[1], 'code'))
redis.call('DEL', KEYS[6])
return v
"""

VOTE = """
local room = redis.call('HMGET', KEYS[1], 'round', 'round_open')
if room[1] ~= ARGV[1] or room[2] ~= '1' or redis.call('GET', KEYS[5]) == ARGV[1] then return 0 end
if redis.call('HEXISTS', KEYS[2], ARGV[2]) == 0 then return -1 end
local field = ARGV[1] .. ':' .. ARGV[2]
if redis.call('HEXISTS', KEYS[3], field) == 1 then
  if redis.call('HINCRBY', KEYS[4], field, 1) > tonumber(ARGV[4]) then return -2 end
  redis.call('EXPIRE', KEYS[4], redis.call('TTL', KEYS[1]))
end
redis.call('HSET', KEYS[3], field, ARGV[3])
redis.call('EXPIRE', KEYS[3], redis.call('TTL', KEYS[1]))
return 1
"""

REMOVE = """
local removed = redis.call('HDEL', KEYS[1], ARGV[1])
local suffix = ':' .. ARGV[1]
for _, field in ipairs(redis.call('HKEYS', KEYS[2])) do
  if string.sub(field, -#suffix) == suffix then
    local round = string.sub(field, 1, #field - #suffix)
    if redis.call('HEXISTS', KEYS[3], round) == 0 then redis.call('HDEL', KEYS[2], field) end
  end
end
return removed
"""

CLEAR = """
local prefix = ARGV[1] .. ':'
local n = 0
for _, field in ipairs(redis.call('HKEYS', KEYS[1])) do
  if string.sub(field, 1, #prefix) == prefix then
    redis.call('HDEL', KEYS[1], field)
    redis.call('HDEL', KEYS[2], field)
    n = n + 1
  end
end
return n
"""

# KEYS: the room, its students, sentences, authors; ARGV: student, sentence, the oldest `touched` still open,
# per_student, most. 1 added; 0 not writing; -1 not in the room; -2 the student's limit; -3 the room's.
ADD_SENTENCE = """
local room = redis.call('HMGET', KEYS[1], 'writing', 'touched')
if room[1] ~= '1' or tonumber(room[2]) <= tonumber(ARGV[3]) then return 0 end
if redis.call('HEXISTS', KEYS[2], ARGV[1]) == 0 then return -1 end
local authors = redis.call('HVALS', KEYS[4])
local mine = 0
for _, author in ipairs(authors) do if author == ARGV[1] then mine = mine + 1 end end
if mine >= tonumber(ARGV[4]) then return -2 end
if #authors >= tonumber(ARGV[5]) then return -3 end
local n = redis.call('HINCRBY', KEYS[1], 'sentences_n', 1)
redis.call('HSET', KEYS[3], n, ARGV[2])
redis.call('HSET', KEYS[4], n, ARGV[1])
local ttl = redis.call('TTL', KEYS[1])
redis.call('EXPIRE', KEYS[3], ttl)
redis.call('EXPIRE', KEYS[4], ttl)
return 1
"""

TAKE = """
local burst, per_second, now, n = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), tonumber(ARGV[4])
local kept = redis.call('HMGET', KEYS[1], 'tokens', 'stamp')
local tokens, stamp = burst, now
if kept[1] then
  local last = tonumber(kept[2])
  stamp = math.max(last, now)
  tokens = math.min(burst, tonumber(kept[1]) + (stamp - last) * per_second)
end
local taken = tokens >= n
if taken then tokens = math.min(burst, tokens - n) end
redis.call('HSET', KEYS[1], 'tokens', string.format('%.17g', tokens), 'stamp', string.format('%.17g', stamp))
redis.call('EXPIRE', KEYS[1], math.ceil((burst - tokens) / per_second) + 1)
if taken then return 1 end
return 0
"""


def _encode(value) -> str:
    if isinstance(value, bool):
        return "1" if value else "0"
    return repr(value) if isinstance(value, float) else str(value)


def _decode(name: str, text: str):
    kind = Room.__dataclass_fields__[name].type
    if kind == "bool":
        return text == "1"
    if kind == "int":
        return int(text)
    if kind == "float":
        return float(text)
    return text


def without_password(url: str) -> str:
    """The URL as the log may show it: 'redis://:secret@10.0.0.5:6379/0' -> 'redis://10.0.0.5:6379/0'."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rpartition("@")[2]))


def answering(method):
    """Run a call of the store through its breaker: StoreUnavailable, at once while Redis is not answering."""

    @functools.wraps(method)
    def guarded(self, *args, **kwargs):
        with self.breaker.call():
            return method(self, *args, **kwargs)

    return guarded


class RedisStore(RoomStore):
    def __init__(self, url: str, idle_seconds: float, breaker: Breaker | None = None):
        self.idle_seconds = idle_seconds
        self.breaker = breaker or Breaker(FAILURES, name=f"room store at {without_password(url)}")
        # redis-py's pool notices a fork and makes new connections in the child; a pooled connection
        # that Redis closed (a restart) is found as it is taken from the pool and made again
        self.r = redis.Redis.from_url(url, decode_responses=True, socket_timeout=TIMEOUT_SECONDS,
                                      socket_connect_timeout=TIMEOUT_SECONDS, retry=Retry(NoBackoff(), 0),
                                      health_check_interval=30)
        self._create, self._update = self.r.register_script(CREATE), self.r.register_script(UPDATE)
        self._join, self._vote = self.r.register_script(JOIN), self.r.register_script(VOTE)
        self._hold, self._close = self.r.register_script(HOLD), self.r.register_script(CLOSE)
        self._take, self._add_sentence = self.r.register_script(TAKE), self.r.register_script(ADD_SENTENCE)
        self._remove, self._clear = self.r.register_script(REMOVE), self.r.register_script(CLEAR)
        self._keep_lesson, self._read_lesson = self.r.register_script(KEEP_LESSON), self.r.register_script(READ_LESSON)

    @staticmethod
    def _keys(code: str) -> list[str]:
        room = PREFIX + code
        return [room, room + ":students", room + ":votes", room + ":results", ROOMS, room + ":closing",
                room + ":sentences", room + ":authors"]

    def _ttl(self) -> int:
        return max(1, int(self.idle_seconds))

    @answering
    def create(self, room: Room, max_rooms: int) -> bool:
        pairs = [x for f in ROOM_FIELDS for x in (f, _encode(getattr(room, f)))]
        done = self._create(keys=[PREFIX + room.code, ROOMS],
                            args=[room.touched - self.idle_seconds, max_rooms, self._ttl(), room.touched, room.code,
                                  *pairs])
        if done == -1:
            raise RoomsFull
        return done == 1

    @answering
    def get(self, code: str, now: float) -> Room | None:
        values = self.r.hgetall(PREFIX + code)
        if not values or float(values["touched"]) <= now - self.idle_seconds:
            return None
        # a field an older server did not write reads as its default (Room.rounds_opened covers n_rounds)
        return Room(**{f: _decode(f, values[f]) for f in ROOM_FIELDS if f in values})

    @answering
    def version(self, code: str, now: float) -> int | None:
        version, touched = self.r.hmget(PREFIX + code, "version", "touched")
        if version is None or float(touched) <= now - self.idle_seconds:
            return None
        return int(version)

    @staticmethod
    def _changes(changes: dict, now: float) -> dict:
        if {"code", "version", "key_hash"} & set(changes) or set(changes) - set(ROOM_FIELDS):
            raise ValueError(f"cannot change {sorted(changes)}")
        return {**changes, "touched": now}

    @answering
    def update(self, room: Room, now: float, **changes) -> Room | None:
        changes = self._changes(changes, now)
        pairs = [x for k, v in changes.items() for x in (k, _encode(v))]
        version = self._update(keys=self._keys(room.code), args=[room.version, self._ttl(), now, *pairs])
        if not version:
            return None
        return Room(**{**room.__dict__, **changes, "version": int(version)})

    @answering
    def close_round(self, room: Room, now: float, round_: int, count: Callable[[dict[str, int]], str],
                    **changes) -> Room | None:
        """Take the round's votes, count them here, and close the round with its result in one script.

        HOLD reads the votes and holds off new ones on that round for CLOSING_MS (refused, as after the
        reveal); CLOSE then writes the result, the other changes and the new version at once, if the
        version and the round's votes are still those counted. A failure between the two leaves the room
        as it was (its votes refused for CLOSING_MS at most); a vote that landed meanwhile anyway (after
        CLOSING_MS, or from a server running an older HOLD-less version) sends the count round again.
        """
        changes = self._changes(changes, now)
        pairs = [x for k, v in changes.items() for x in (k, _encode(v))]
        keys = self._keys(room.code)
        for _count in range(MAX_COUNTS):
            taken = self._hold(keys=[keys[0], keys[2], keys[5]], args=[room.version, round_, CLOSING_MS])
            if taken is None:
                return None
            votes = {taken[i]: int(taken[i + 1]) for i in range(1, len(taken), 2)}
            counted = [x for student, token in votes.items() for x in (student, token)]
            version = self._close(keys=keys, args=[room.version, self._ttl(), now, round_, count(votes), len(votes),
                                                   *counted, *pairs])
            if version == 0:
                return None
            if version > 0:
                return Room(**{**room.__dict__, **changes, "version": int(version)})
        return None

    @answering
    def join(self, code: str, student: str, nickname: str, max_students: int) -> bool:
        keys = self._keys(code)
        return self._join(keys=keys[:2], args=[student, nickname, max_students]) == 1

    @answering
    def nickname(self, code: str, student: str) -> str | None:
        return self.r.hget(self._keys(code)[1], student)

    @answering
    def students(self, code: str) -> dict[str, str]:
        return self.r.hgetall(self._keys(code)[1])

    @answering
    def n_students(self, code: str) -> int:
        return self.r.hlen(self._keys(code)[1])

    @answering
    def remove(self, code: str, student: str) -> bool:
        keys = self._keys(code)
        return self._remove(keys=[keys[1], keys[2], keys[3]], args=[student]) == 1

    @answering
    def clear_votes(self, code: str, round_: int) -> int:
        votes = self._keys(code)[2]
        return int(self._clear(keys=[votes, PREFIX + code + ":changes"], args=[round_]))

    @answering
    def vote(self, code: str, round_: int, student: str, token: int) -> Vote:
        keys = self._keys(code)
        done = self._vote(keys=[*keys[:3], keys[0] + ":changes", keys[5]],
                          args=[round_, student, token, MAX_VOTE_CHANGES])
        return {1: Vote.COUNTED, 0: Vote.CLOSED, -1: Vote.NOT_JOINED, -2: Vote.TOO_MANY}[done]

    def _votes(self, code: str) -> dict[tuple[int, str], int]:
        every = self.r.hgetall(self._keys(code)[2])
        return {(int(k.split(":", 1)[0]), k.split(":", 1)[1]): int(v) for k, v in every.items()}

    @answering
    def votes(self, code: str, round_: int) -> dict[str, int]:
        return {s: t for (r, s), t in self._votes(code).items() if r == round_}

    @answering
    def votes_of(self, code: str, student: str) -> dict[int, int]:
        last = max(int(n or 0) for n in self.r.hmget(PREFIX + code, "round", "n_rounds"))  # a round may open again
        if not last:
            return {}
        rounds = range(1, last + 1)
        tokens = self.r.hmget(self._keys(code)[2], [f"{r}:{student}" for r in rounds])
        return {r: int(t) for r, t in zip(rounds, tokens, strict=True) if t is not None}

    @answering
    def all_votes(self, code: str) -> dict[int, dict[str, int]]:
        every: dict[int, dict[str, int]] = {}
        for (r, s), t in self._votes(code).items():
            every.setdefault(r, {})[s] = t
        return every

    @answering
    def save_result(self, code: str, round_: int, result: str) -> None:
        key = self._keys(code)[3]
        with self.r.pipeline() as pipe:
            pipe.hset(key, str(round_), result).expire(key, self._ttl()).execute()

    @answering
    def results(self, code: str) -> dict[int, str]:
        return dict(sorted((int(k), v) for k, v in self.r.hgetall(self._keys(code)[3]).items()))

    @answering
    def hit(self, key: str, limit: int, window: int, now: float) -> bool:
        name = f"tbt:hit:{key}:{int(now // window)}"
        with self.r.pipeline() as pipe:
            count, _ = pipe.incr(name).expire(name, window + 1).execute()
        return count <= limit

    @answering
    def take(self, key: str, burst: float, per_second: float, now: float, n: int = 1) -> bool:
        numbers = [repr(float(x)) for x in (burst, per_second, now)]
        return self._take(keys=[BUCKET + key], args=[*numbers, n]) == 1

    @answering
    def secret(self) -> str:
        with self.r.pipeline() as pipe:  # MULTI/EXEC: the first SET wins, every caller reads the winner
            return pipe.set(SECRET, secrets.token_urlsafe(32), nx=True).get(SECRET).execute()[1]

    @answering
    def keep_lesson(self, lesson_id: str, text: str, now: float, max_lessons: int, seconds: float) -> bool:
        ttl = max(1, int(seconds))
        kept = self._keep_lesson(keys=[LESSON + lesson_id, LESSONS], args=[now, max_lessons, ttl, lesson_id, text])
        return bool(kept)

    @answering
    def kept_lesson(self, lesson_id: str, now: float, seconds: float) -> str | None:
        return self._read_lesson(keys=[LESSON + lesson_id, LESSONS], args=[now, max(1, int(seconds)), lesson_id])

    @answering
    def keep_text(self, text_id: str, text: str, now: float, max_texts: int, seconds: float) -> bool:
        ttl = max(1, int(seconds))
        return bool(self._keep_lesson(keys=[TEXT + text_id, TEXTS], args=[now, max_texts, ttl, text_id, text]))

    @answering
    def kept_text(self, text_id: str, now: float, seconds: float) -> str | None:
        return self._read_lesson(keys=[TEXT + text_id, TEXTS], args=[now, max(1, int(seconds)), text_id])

    @answering
    def add_sentence(self, code: str, student: str, text: str, now: float,
                     per_student: int = MAX_SENTENCES_PER_STUDENT, most: int = MAX_SENTENCES) -> Sent:
        keys = self._keys(code)
        done = self._add_sentence(keys=[*keys[:2], *keys[6:8]],
                                  args=[student, text, repr(float(now - self.idle_seconds)), per_student, most])
        return {1: Sent.ADDED, 0: Sent.CLOSED, -1: Sent.NOT_JOINED, -2: Sent.STUDENT_FULL, -3: Sent.ROOM_FULL}[done]

    @answering
    def sentences(self, code: str) -> list[tuple[int, str, str]]:
        keys = self._keys(code)
        with self.r.pipeline() as pipe:  # MULTI/EXEC: the two hashes as one
            texts, authors = pipe.hgetall(keys[6]).hgetall(keys[7]).execute()
        return sorted((int(n), authors.get(n, ""), text) for n, text in texts.items())

    @answering
    def remove_sentence(self, code: str, n: int) -> bool:
        keys = self._keys(code)
        with self.r.pipeline() as pipe:
            removed, _ = pipe.hdel(keys[6], str(n)).hdel(keys[7], str(n)).execute()
        return removed == 1

    @answering
    def clear_sentences(self, code: str) -> int:
        keys = self._keys(code)
        with self.r.pipeline() as pipe:
            n, _, _ = pipe.hlen(keys[6]).delete(keys[6]).delete(keys[7]).execute()
        return n

    @answering
    def purge(self, now: float) -> int:
        return self.r.zremrangebyscore(ROOMS, "-inf", now - self.idle_seconds)  # the keys expire on their own

    def close(self) -> None:
        self.r.close()
