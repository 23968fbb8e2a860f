"""The dice of a sealed session (`d20 seal`): where the faces of each roll come from.

A session has a secret seed (32 bytes from the operating system) and a nonce (16 bytes).
Its commitment, shared before play, is SHA-256(nonce || seed) in hex. The roll at position
p (0, 1, 2, ... in the order the rolls were made) draws its faces from a `random.Random`
seeded with the integer whose big-endian bytes are SHA-256(seed || p as 8 big-endian
bytes); the roller draws from it as for any roll (d20cli.dice.roller.RandomRoller). So
anyone with the seed can roll each logged request again and get the same faces.

Receipts bind each roll's request to what the table saw, before the seed is shown. The
receipt of the roll at position p is R_p = SHA-256(R_{p-1} || body_p) in hex, with R_{-1}
= SHA-256("d20 sealed receipts " || commitment) (the commitment as its 64 hex digits) and
R_{p-1} as its 32 bytes; body_p is `receipt_body` of the roll: the canonical JSON
(`json.dumps(..., sort_keys=True, separators=(",", ":"))`, as UTF-8) of its time,
character, system, verb, request text and request as rolled (`replay`), its position, the
session's number and its commitment. A receipt commits to every roll before it; its first
RECEIPT_SHOWN hex digits (64 bits) are printed with the roll, and a receipt the table
holds binds only with at least MIN_SEEN of them (`d20 verify` refuses fewer).

Schemes. Scheme 1 (d20 before salts) is the above. Scheme 2 (every session opened since)
adds the table's salt and secret rolls:

- The salt (`d20 seal --salt TEXT`, given after the commitment is posted and before the
  first roll; "" when none was given) goes into every die: the roll at position p draws
  from the integer of SHA-256(K || p as 8 big-endian bytes), with the key
  K = SHA-256("d20 salted seed " || seed || SHA-256(salt as UTF-8)). The seed was fixed
  (committed) before the salt was known, so the player cannot have chosen a seed whose
  dice start well.
- The receipts start from R_{-1} = SHA-256("d20 sealed receipts 2 " || commitment || " " ||
  SHA-256(salt as UTF-8) in hex): every receipt binds the salt too.
- A secret roll's body has one more key, "secret": SHA-256("d20 secret roll " || seed ||
  p as 8 big-endian bytes) in hex (its blind): unknown to the table until the seed is
  shown, so its receipt hides the request (which is often one of a few guessable texts)
  until then, and binds it as any receipt does.

Pure: no I/O, no global state (the seed is drawn by the caller).
"""

from __future__ import annotations

import hashlib
import json
import random
import re
from json.encoder import encode_basestring_ascii

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

SEED_BYTES = 32
NONCE_BYTES = 16
#: The secret as `d20 unseal` prints it and `d20 verify` reads it: seed and nonce in hex.
RECEIPT_SHOWN = 16  # hex digits of a receipt printed with each roll (64 bits)
MIN_SEEN = 16  # the fewest hex digits of a receipt the table saw that verify accepts
SECRET = re.compile(r"([0-9a-f]{64}):([0-9a-f]{32})")
#: The scheme of the sessions `d20 seal` opens now (module doc); 1: d20 before salts.
SCHEME = 2
SCHEMES = (1, 2)
MAX_SALT = 200  # characters of a salt


def salt_problem(salt: str) -> str | None:
    """Why `salt` cannot be a session's salt (None: it can): any text a person types, from
    1 to MAX_SALT characters, no control or bidi character (it is shown to the table)."""
    from d20cli.visible import CONTROLS

    if not salt:
        return "it is empty"
    if len(salt) > MAX_SALT:
        return f"it is longer than {MAX_SALT} characters"
    if any(ord(c) in CONTROLS for c in salt):
        return "it holds control or bidi characters"
    return None


def salt_digest(salt: str) -> bytes:
    return hashlib.sha256(salt.encode("utf-8")).digest()


def dice_key(seed: bytes, scheme: int = 1, salt: str | None = None) -> bytes:
    """What the dice of each position are drawn from: the seed (scheme 1), or the seed and
    the table's salt (scheme 2; None: no salt was given, as "")."""
    if scheme == 1:
        return seed
    return hashlib.sha256(b"d20 salted seed " + seed + salt_digest(salt or "")).digest()


def commitment(seed: bytes, nonce: bytes) -> str:
    """SHA-256(nonce || seed), in hex: what the group is shown before play."""
    return hashlib.sha256(nonce + seed).hexdigest()


def position_seed(seed: bytes, position: int) -> int:
    """The integer that seeds the generator of the roll at `position` (`seed`: the
    session's `dice_key`, which is its seed in scheme 1)."""
    digest = hashlib.sha256(seed + position.to_bytes(8, "big")).digest()
    return int.from_bytes(digest, "big")


def position_random(seed: bytes, position: int) -> random.Random:
    """The generator of the roll at `position` of the session with this seed."""
    return random.Random(position_seed(seed, position))


def secret_text(seed: bytes, nonce: bytes) -> str:
    """The seed and nonce as one word: `SEEDHEX:NONCEHEX`."""
    return f"{seed.hex()}:{nonce.hex()}"


def read_secret(text: str) -> tuple[bytes, bytes] | None:
    """The seed and nonce of `secret_text`'s word (None: not one)."""
    found = SECRET.fullmatch(text.strip().lower())
    if found is None:
        return None
    return bytes.fromhex(found.group(1)), bytes.fromhex(found.group(2))


def receipts_start(promise: str, scheme: int = 1, salt: str | None = None) -> str:
    """R_{-1}: the receipt before a session's first roll, from its commitment (and in
    scheme 2 its salt: None, no salt was given, as "")."""
    if scheme == 1:
        return hashlib.sha256(b"d20 sealed receipts " + promise.encode("ascii")).hexdigest()
    salted = f"d20 sealed receipts 2 {promise} {salt_digest(salt or '').hex()}"
    return hashlib.sha256(salted.encode("ascii")).hexdigest()


def secret_blind(seed: bytes, position: int) -> str:
    """The blind of a secret roll at `position` (module doc), in hex."""
    data = b"d20 secret roll " + seed + position.to_bytes(8, "big")
    return hashlib.sha256(data).hexdigest()


def canonical(value: Any) -> str:
    """`value` as canonical JSON: keys sorted, separators `,` and `:`, non-ASCII escaped."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def receipt_body(
    promise: str,
    position: int,
    session: int | None,
    at: str,
    character: str | None,
    system: str,
    verb: str,
    request: str,
    replay: str,
    secret: str | None = None,
) -> bytes:
    """The bytes of a roll that its receipt is taken of (`replay`: the request as rolled,
    as `canonical` JSON): the canonical JSON of {"at", "character", "commitment",
    "position", "replay", "request", "session", "system", "verb"}, written out here (the
    replay's text is made once per request, not once per roll). `session` None: the body
    of d20 0.1.0, which had no "session" (`d20 verify` reads such a receipt only when no
    receipts of the table are compared). `secret`: a secret roll's blind (`secret_blind`),
    which puts "secret" into the body."""
    q = encode_basestring_ascii  # a string as json.dumps writes it (a fifth of the time)
    who = "null" if character is None else q(character)
    number = "" if session is None else f'"session":{int(session)},'
    if secret is not None:
        number = f'"secret":{q(secret)},' + number
    return (
        f'{{"at":{q(at)},"character":{who},"commitment":{q(promise)},'
        f'"position":{int(position)},"replay":{replay},"request":{q(request)},'
        f'{number}"system":{q(system)},"verb":{q(verb)}}}'
    ).encode()


def next_receipt(prev: str, body: bytes) -> str:
    """R_p from R_{p-1} (hex) and the roll's `receipt_body`."""
    return hashlib.sha256(bytes.fromhex(prev) + body).hexdigest()
