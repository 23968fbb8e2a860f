"""The state database's tables (d20cli.store.state), versioned with `PRAGMA user_version`:
`MIGRATIONS[n]` takes a database from version n to n + 1. A database of a higher version
than `SCHEMA_VERSION` was written by a newer d20cli: it is read, never written or
migrated down."""

from __future__ import annotations

SCHEMA_VERSION = 10

#: MIGRATIONS[n] takes the schema from version n to n + 1.
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE IF NOT EXISTS settings (
        key   TEXT PRIMARY KEY,
        value TEXT NOT NULL
    );
    CREATE TABLE IF NOT EXISTS fortune (
        holder TEXT PRIMARY KEY,
        count  INTEGER NOT NULL CHECK (count >= 0)
    );
    CREATE TABLE IF NOT EXISTS last_roll (
        holder  TEXT PRIMARY KEY,
        request TEXT NOT NULL,
        system  TEXT NOT NULL,
        result  TEXT NOT NULL,
        at      REAL NOT NULL
    );
    """,
    # 1 -> 2: the roll log (d20cli.store.rolllog). `dice` is the JSON list of the dice rolled;
    # `source` says where the faces came from: random, seed (--seed) or dice (--dice).
    """
    CREATE TABLE IF NOT EXISTS rolls (
        id        INTEGER PRIMARY KEY,
        at        TEXT NOT NULL,
        character TEXT,
        system    TEXT NOT NULL,
        verb      TEXT NOT NULL,
        request   TEXT NOT NULL,
        dice      TEXT NOT NULL,
        total     INTEGER,
        outcome   TEXT,
        source    TEXT NOT NULL DEFAULT 'random'
    );
    CREATE INDEX IF NOT EXISTS rolls_by_character ON rolls (character, id);
    """,
    # 2 -> 3: only rolls made as a character are indexed by character (`d20 log --as X`);
    # a batch of plain rolls then writes each row once, not twice.
    """
    DROP INDEX IF EXISTS rolls_by_character;
    CREATE INDEX rolls_by_character ON rolls (character, id) WHERE character IS NOT NULL;
    """,
    # 3 -> 4: the initiative order (d20cli.store.initiative): one row per combatant, and
    # one row for the round and whose turn it is. `dice` is the JSON list of the dice of
    # its roll; `rolloff` the JSON list of its roll-off d20s; `kind`: character or monster.
    """
    CREATE TABLE IF NOT EXISTS initiative (
        name     TEXT PRIMARY KEY,
        kind     TEXT NOT NULL,
        total    INTEGER NOT NULL,
        modifier INTEGER NOT NULL,
        dice     TEXT NOT NULL,
        rolloff  TEXT NOT NULL DEFAULT '[]',
        seq      INTEGER NOT NULL
    );
    CREATE TABLE IF NOT EXISTS initiative_turn (
        id    INTEGER PRIMARY KEY CHECK (id = 1),
        round INTEGER NOT NULL,
        turn  TEXT
    );
    """,
    # 4 -> 5: the house rules a logged roll was made under (`{"crit": 19, "lucky": true}`,
    # the JSON of the result's `house`; NULL for none).
    """
    ALTER TABLE rolls ADD COLUMN house TEXT;
    """,
    # 5 -> 6: sealed sessions (d20cli.store.sealing, `d20 seal`): the secret seed and
    # nonce (hex), the commitment shown before play, when it was opened and closed (NULL
    # while open: one at a time), and the next position of its stream. A roll of a session
    # keeps the session, its position and the request as rolled (`replay`, the JSON of
    # d20cli.language.parse_cache) so that `d20 verify` can roll it again.
    """
    CREATE TABLE IF NOT EXISTS sessions (
        id         INTEGER PRIMARY KEY,
        seed       TEXT NOT NULL,
        nonce      TEXT NOT NULL,
        commitment TEXT NOT NULL,
        opened     TEXT NOT NULL,
        closed     TEXT,
        next       INTEGER NOT NULL DEFAULT 0
    );
    CREATE UNIQUE INDEX IF NOT EXISTS sessions_open ON sessions ((closed IS NULL))
        WHERE closed IS NULL;
    ALTER TABLE rolls ADD COLUMN session INTEGER;
    ALTER TABLE rolls ADD COLUMN position INTEGER;
    ALTER TABLE rolls ADD COLUMN replay TEXT;
    CREATE INDEX IF NOT EXISTS rolls_by_session ON rolls (session, position)
        WHERE session IS NOT NULL;
    """,
    # 6 -> 7: receipts (d20cli.dice.sealed): each roll of a sealed session keeps its
    # receipt (64 hex digits), and the session the receipt of its last roll (`head`).
    """
    ALTER TABLE rolls ADD COLUMN receipt TEXT;
    ALTER TABLE sessions ADD COLUMN head TEXT;
    """,
    # 7 -> 8: the encounter (d20cli.store.initiative): each combatant's `extra` (the JSON of
    # its pin, reported total, initiative words and system, HP, defenses, notes and
    # conditions), whether initiative is rolled again each round (`dyn`), and the
    # encounter's history: one row a change, holding the encounter as it was before it
    # (`init undo` puts the last one back and deletes it).
    """
    ALTER TABLE initiative ADD COLUMN extra TEXT NOT NULL DEFAULT '{}';
    ALTER TABLE initiative_turn ADD COLUMN dyn INTEGER NOT NULL DEFAULT 0;
    CREATE TABLE IF NOT EXISTS initiative_history (
        id     INTEGER PRIMARY KEY,
        what   TEXT NOT NULL,
        before TEXT NOT NULL
    );
    """,
    # 8 -> 9: posts waiting to be sent to a webhook (d20cli.store.post_queue, `--post`,
    # `post.url`): one row per roll to post, written in the transaction of its roll's row
    # and deleted once the receiver took it. `url` the webhook (a secret: the database is
    # 0600), `form` discord or json, `body` the roll as JSON, `made` when it was queued,
    # `tries` and `due` (seconds since the epoch before which it is not tried again),
    # `error` why the last try failed, `claim` and `claim_until`: the process sending it
    # and until when (a process killed while sending leaves a claim that lapses).
    # Self-contained: it touches no other table.
    """
    CREATE TABLE IF NOT EXISTS posts (
        id          INTEGER PRIMARY KEY,
        url         TEXT NOT NULL,
        form        TEXT NOT NULL,
        body        TEXT NOT NULL,
        made        TEXT NOT NULL,
        tries       INTEGER NOT NULL DEFAULT 0,
        due         REAL NOT NULL DEFAULT 0,
        error       TEXT,
        claim       INTEGER,
        claim_until REAL
    );
    """,
    # 9 -> 10: salts and secret rolls (d20cli.dice.sealed, scheme 2). A session's `scheme`
    # (1: opened before salts, 2: since), the table's `salt` (`d20 seal --salt`, NULL until
    # given) and when it was given (`salted`); a roll's `secret` (`--secret`): NULL for a
    # roll shown, 1 for a secret roll not yet revealed, 2 for one revealed (`d20 reveal`,
    # `d20 unseal`): the log shows no request or result of a roll at 1.
    """
    ALTER TABLE sessions ADD COLUMN scheme INTEGER NOT NULL DEFAULT 1;
    ALTER TABLE sessions ADD COLUMN salt TEXT;
    ALTER TABLE sessions ADD COLUMN salted TEXT;
    ALTER TABLE rolls ADD COLUMN secret INTEGER;
    """,
)

__all__ = ["MIGRATIONS", "SCHEMA_VERSION"]
