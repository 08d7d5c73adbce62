"""The class room: the one piece of shared state, and the pure maths of the class's votes.

A room is a teacher's screen (the stepper's state as a query string, with a version number)
that students' screens follow, and the class's guesses at the next token. It lives behind one
small store interface (store.py) with two backends, which backends.py opens from a URL: SQLite
(sqlite_store.py, the default: one file shared by the server's processes on one machine) and Redis
(redis_store.py, for several machines behind a load balancer). Nothing here knows about Flask or HTML.

    codes.py   join codes, teacher keys, student ids, nicknames
    rounds.py  when a vote opens, closes and comes back (kept, never dropped), from the teacher's screen
    teacher.py the teacher's change stored with what it does to the vote, retried when changes race
    votes.py   tallies, the histogram beside the model, the class's distribution over the vocabulary, surprise
               in bits, records
    guess.py   a typed word to exactly one token of the model's vocabulary, or why not
"""
