"""The room store in Redis, for a class served by several machines behind a load balancer.

Keys, for a room with code C (every one expires idle_seconds after the teacher's last change):

    tbt:room:C            hash: the Room's fields
    tbt:room:C:students   hash: student id -> nickname
    tbt:room:C:votes      hash: "round:student" -> token id
    tbt:room:C:changes    hash: "round:student" -> how often the vote was changed
    tbt:room:C:results    hash: round -> JSON
    tbt:rooms             sorted set: code -> last change, to bound the open rooms
    tbt:hit:KEY:WINDOW    rate-limit counters
    tbt:bucket:KEY        hash: a token bucket's tokens and when they were counted; expires once full again
    tbt:secret            the signing secret (no expiry)

The compare-and-set update, the vote (only while its round is open), the bounded join and closing a
round (taking its votes as it closes) are Lua scripts, so each is atomic whichever process on
whichever machine runs it.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable

import redis

from .store import MAX_VOTE_CHANGES, ROOM_FIELDS, Room, RoomsFull, RoomStore, Vote

PREFIX = "tbt:room:"
ROOMS = "tbt:rooms"
BUCKET = "tbt:bucket:"
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
redis.call('ZADD', KEYS[5], ARGV[3], redis.call('HGET', KEYS[1], 'code'))
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

CLOSE = """
if redis.call('HGET', KEYS[1], 'version') ~= ARGV[1] then return nil end
redis.call('HSET', KEYS[1], 'round_open', '0')
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

VOTE = """
local room = redis.call('HMGET', KEYS[1], 'round', 'round_open')
if room[1] ~= ARGV[1] or room[2] ~= '1' then return 0 end
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


class RedisStore(RoomStore):
    def __init__(self, url: str, idle_seconds: float):
        self.idle_seconds = idle_seconds
        # redis-py's pool notices a fork and makes new connections in the child
        self.r = redis.Redis.from_url(url, decode_responses=True, socket_timeout=5, health_check_interval=30)
        self._create, self._update = self.r.register_script(CREATE), self.r.register_script(UPDATE)
        self._join, self._vote = self.r.register_script(JOIN), self.r.register_script(VOTE)
        self._close = self.r.register_script(CLOSE)
        self._take = self.r.register_script(TAKE)

    @staticmethod
    def _keys(code: str) -> list[str]:
        room = PREFIX + code
        return [room, room + ":students", room + ":votes", room + ":results", ROOMS]

    def _ttl(self) -> int:
        return max(1, int(self.idle_seconds))

    def create(self, room: Room, max_rooms: int) -> bool:
        pairs = [x for f in ROOM_FIELDS for x in (f, _encode(getattr(room, f)))]
        done = self._create(keys=[PREFIX + room.code, ROOMS],
                            args=[room.touched - self.idle_seconds, max_rooms, self._ttl(), room.touched, room.code,
                                  *pairs])
        if done == -1:
            raise RoomsFull
        return done == 1

    def get(self, code: str, now: float) -> Room | None:
        values = self.r.hgetall(PREFIX + code)
        if not values or float(values["touched"]) <= now - self.idle_seconds:
            return None
        return Room(**{f: _decode(f, values[f]) for f in ROOM_FIELDS})

    def version(self, code: str, now: float) -> int | None:
        version, touched = self.r.hmget(PREFIX + code, "version", "touched")
        if version is None or float(touched) <= now - self.idle_seconds:
            return None
        return int(version)

    def update(self, room: Room, now: float, **changes) -> Room | None:
        if {"code", "version", "key_hash"} & set(changes) or set(changes) - set(ROOM_FIELDS):
            raise ValueError(f"cannot change {sorted(changes)}")
        changes["touched"] = now
        pairs = [x for k, v in changes.items() for x in (k, _encode(v))]
        version = self._update(keys=self._keys(room.code), args=[room.version, self._ttl(), now, *pairs])
        if not version:
            return None
        return Room(**{**room.__dict__, **changes, "version": int(version)})

    def close_round(self, room: Room, now: float, round_: int, count: Callable[[dict[str, int]], str],
                    **changes) -> Room | None:
        """Close the round and take its votes in one script (a vote after it is refused), count them, then
        write the result with the other changes and the new version in one transaction: students see
        the room change only once the result is there."""
        keys = self._keys(room.code)
        taken = self._close(keys=[keys[0], keys[2]], args=[room.version, round_])
        if taken is None:
            return None
        votes = {taken[i]: int(taken[i + 1]) for i in range(1, len(taken), 2)}
        result = count(votes)
        changes["touched"] = now
        with self.r.pipeline() as pipe:  # MULTI/EXEC
            pipe.hset(keys[3], str(round_), result)
            pipe.hset(keys[0], mapping={k: _encode(v) for k, v in changes.items()})
            version = pipe.hincrby(keys[0], "version", 1)
            for key in keys[:4]:
                pipe.expire(key, self._ttl())
            pipe.zadd(ROOMS, {room.code: now})
            version = pipe.execute()[2]
        return Room(**{**room.__dict__, **changes, "version": int(version)})

    def join(self, code: str, student: str, nickname: str, max_students: int) -> bool:
        keys = self._keys(code)
        return self._join(keys=keys[:2], args=[student, nickname, max_students]) == 1

    def nickname(self, code: str, student: str) -> str | None:
        return self.r.hget(self._keys(code)[1], student)

    def students(self, code: str) -> dict[str, str]:
        return self.r.hgetall(self._keys(code)[1])

    def n_students(self, code: str) -> int:
        return self.r.hlen(self._keys(code)[1])

    def vote(self, code: str, round_: int, student: str, token: int) -> Vote:
        keys = self._keys(code)
        done = self._vote(keys=[*keys[:3], keys[0] + ":changes"], args=[round_, student, token, MAX_VOTE_CHANGES])
        return {1: Vote.COUNTED, 0: Vote.CLOSED, -1: Vote.NOT_JOINED, -2: Vote.TOO_MANY}[done]

    def _votes(self, code: str) -> dict[tuple[int, str], int]:
        every = self.r.hgetall(self._keys(code)[2])
        return {(int(k.split(":", 1)[0]), k.split(":", 1)[1]): int(v) for k, v in every.items()}

    def votes(self, code: str, round_: int) -> dict[str, int]:
        return {s: t for (r, s), t in self._votes(code).items() if r == round_}

    def votes_of(self, code: str, student: str) -> dict[int, int]:
        last = int(self.r.hget(PREFIX + code, "round") or 0)
        if not last:
            return {}
        rounds = range(1, last + 1)
        tokens = self.r.hmget(self._keys(code)[2], [f"{r}:{student}" for r in rounds])
        return {r: int(t) for r, t in zip(rounds, tokens, strict=True) if t is not None}

    def all_votes(self, code: str) -> dict[int, dict[str, int]]:
        every: dict[int, dict[str, int]] = {}
        for (r, s), t in self._votes(code).items():
            every.setdefault(r, {})[s] = t
        return every

    def save_result(self, code: str, round_: int, result: str) -> None:
        key = self._keys(code)[3]
        with self.r.pipeline() as pipe:
            pipe.hset(key, str(round_), result).expire(key, self._ttl()).execute()

    def results(self, code: str) -> dict[int, str]:
        return dict(sorted((int(k), v) for k, v in self.r.hgetall(self._keys(code)[3]).items()))

    def hit(self, key: str, limit: int, window: int, now: float) -> bool:
        name = f"tbt:hit:{key}:{int(now // window)}"
        with self.r.pipeline() as pipe:
            count, _ = pipe.incr(name).expire(name, window + 1).execute()
        return count <= limit

    def take(self, key: str, burst: float, per_second: float, now: float, n: int = 1) -> bool:
        numbers = [repr(float(x)) for x in (burst, per_second, now)]
        return self._take(keys=[BUCKET + key], args=[*numbers, n]) == 1

    def secret(self) -> str:
        with self.r.pipeline() as pipe:  # MULTI/EXEC: the first SET wins, every caller reads the winner
            return pipe.set(SECRET, secrets.token_urlsafe(32), nx=True).get(SECRET).execute()[1]

    def purge(self, now: float) -> int:
        return self.r.zremrangebyscore(ROOMS, "-inf", now - self.idle_seconds)  # the keys expire on their own

    def close(self) -> None:
        self.r.close()
