"""A small cache of request shapes on disk, so a new request of a known shape (`check +3
vs 12` after `check +5 vs 15`) starts without pyparsing.

The cache of parsed requests (d20cli.store.request_cache) serves a text seen before; at
the table most texts are new, but of a few shapes: the same words with other numbers.
This file maps a shape (the text with its numbers as slots, d20cli.language.shapes) to a
template of its request. A new text of a known shape is read from the template filled
with its numbers and checked as the grammar would check them; whenever the grammar might
read it otherwise or refuse it, the text is parsed (errors and carets come from the
grammar only). A shape is learnt from a text the grammar has just parsed, by parsing a
few probes of it (one parse, for most shapes): the first MAX_BUILDS new shapes of a run,
and after them a shape the run meets a second time (AGAIN templates of it at most,
MAX_LEARNT in all), so a batch of new lines learns the shapes it repeats and does not
pay for probing a shape it meets once. The first few are learnt at once because a batch
of new lines meets most of its shapes again: learnt at their second line, each cost one
parse more (bench_new_lines.py's 10,000 never-seen lines, of 16 shapes: 32 parses with
all of them learnt at once, one parse more for each learnt at its second line), while a
shape met only once costs its probes, about one parse, for nothing (100 lines of 100
shapes: 107 parses with 4, 123 with 32).

The shapes of common requests are shipped with d20 (d20cli.language.common_shapes,
generated from the grammar by scripts/make_common_shapes.py): a text whose shape the file
has no template of that fills is read from a shipped one, imported at the first such text,
through the same fill and `ready` memo (a run's cache: `ShapeCache(path, common=True)`).
Those are trusted as code (no MAC) and still walked by `plain` before their first fill;
one that is Refused leaves the text to the grammar (and the file learns its shape as it
learns any), one that is not a template of its shape is passed over (the debug log), the
file kept. A text a shipped template serves teaches the file nothing, so a new user's
batch of common forms is read without pyparsing and writes no file. With the cache off
(`D20_NO_CACHE=1`) neither is used.

A shape holds up to MAX_VARIANTS templates, one for each set of numbers it keeps fixed
(`check +# vs # adv expertise=d#` with expertise=d6 and with expertise=d8: the die is
part of the meaning, so each is a template of its own), so requests that alternate such
words do not evict each other's template (issue 43 item 4). A new variant of a full shape
empties the shape's variants first (d20cli.bounded's policy: `VARIANTS`).

Where: $XDG_CACHE_HOME/d20cli/shapes.cache (default ~/.cache/d20cli/shapes.cache);
`D20_NO_CACHE=1` turns it off with the request cache. Stored as the request cache is
(marshal's data under a MAC; an older d20's `shapes.json` is removed when this file is
first written). Bounded like the request cache:
at most MAX_CACHE_ENTRIES shapes (the most recently learnt) of MAX_VARIANTS templates
each, MAX_CACHE_FILE_BYTES in all and MAX_ENTRY_BYTES a template, trimmed in one linear
pass, written atomically; keyed by the modules that wrote it (the grammar's,
d20cli/language/shapes.py, the probes' and this one), so any change to them empties it.

The file is not trusted: it is used only under the MAC of this user's key, as the request
cache is (a template's slots swapped in a file copied from elsewhere or edited would read
`check +2 vs 18` as +18 vs 2); a file that is too big, fails the MAC, is not marshal's
data or not a cache of shapes (plain data: each template's tree is walked before its
first fill), or holds an entry that is not a template of its own shape, is dropped as a
whole and rebuilt, told to the debug log only (`D20_DEBUG=1`); a template filled is
checked as strictly as a cached request (parse_cache.decode) and by the grammar's own
limits, and anything doubtful is parsed.
"""

from __future__ import annotations

from collections.abc import Callable

from d20cli.bounded import Bounded, declare
from d20cli.language import shapes
from d20cli.store.request_cache import MAX_ENTRY_BYTES, CacheFile, debug, entry_bytes, plain
from d20cli.store.request_cache import shape_path as shape_path

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

MAX_BUILDS = 32  # new shapes learnt in one run at their first sight (after: at the second)
MAX_LEARNT = 64  # shapes (or templates of one) learnt in one run
AGAIN = 2  # templates of one shape learnt in a run once it has been met a second time
MAX_VARIANTS = 8  # templates of one shape, each with its own fixed numbers
#: The templates of one shape, by the numbers they keep fixed (`variant`).
VARIANTS = declare(
    "ShapeCache.variants",
    MAX_VARIANTS,
    holds="a shape's fixed numbers (`expertise=d6`'s 6) → its template, per shape, on disk",
    buys="requests alternating `expertise=d6` and `expertise=d8` read from their shape: "
    "one template a shape missed every other one and fell back to the grammar",
)
_MET = declare(
    "shape_cache.met",
    holds="a shape this run has met and not learnt at once -> its templates learnt since",
    buys="3,000 new lines in one run: 7.3 s -> 1.9 s of CPU (the shapes they repeat learnt)",
)
_READY = declare(
    "shape_cache.ready",
    256,
    holds="a template filled this run -> it compiled into one function (shapes.Ready) at its "
    "second fill (a command fills it once), by identity",
    buys="10,000 new lines in one run (benchmarks/bench_new_lines.py): a line of a known "
    "shape built by one generated function of its constructors, not walked and decoded: "
    "Ready.fill 28 µs a line (38 µs as nested closures; see docs/performance.md)",
)
_KEYS = frozenset({"shape", "fixed", "tree"})


def variant(template: dict[str, Any]) -> str:
    """The key of a template among its shape's: the numbers it keeps fixed, slot by slot
    (`2=6` for expertise=d6 in `check +# vs # adv expertise=d#`; "" for none)."""
    return ",".join(f"{i}={digits}" for i, digits in template["fixed"])


def _fixed(number: Any) -> bool:
    """Whether a template's fixed number is one: [its slot, its digits]."""
    return (
        type(number) is list
        and len(number) == 2
        and type(number[0]) is int
        and (type(number[1]) is str)
    )


class ShapeCache(CacheFile):
    """The templates of request shapes, by shape."""

    NAME = "shape cache"
    SECTION = "shapes"
    RETIRED = "shapes.json"

    def __init__(
        self,
        path: str | None,
        debug: Callable[[str], None] = debug,
        common: bool | dict[str, dict[str, Any]] = False,
    ) -> None:
        """`common`: the shipped templates to read a text with when the file has none of
        its shape that fills: True for d20cli.language.common_shapes's, imported at the
        first such text (a run's cache: d20cli.app.context), a dict for those, False for
        none (the file alone)."""
        super().__init__(path, debug)
        self.builds = 0
        self.met: Bounded[str, int] = _MET.new()
        self.ready: Bounded[int, tuple[Any, shapes.Ready | None]] = _READY.new()
        # (None: d20cli.language.common_shapes's, not imported yet)
        self.common: dict[str, dict[str, Any]] | None = (
            None if common is True else common if isinstance(common, dict) else {}
        )

    def _bad_entries(self, entries: dict[str, Any]) -> str | None:
        for shape, held in entries.items():
            if type(held) is not dict or not 0 < len(held) <= MAX_VARIANTS:
                return "an entry is not a shape's templates"
            for name, entry in held.items():
                if not (
                    type(entry) is dict
                    and entry.keys() == _KEYS
                    and entry["shape"] == shape
                    and type(entry["fixed"]) is list
                    and all(_fixed(f) for f in entry["fixed"])
                    and type(entry["tree"]) is dict
                    and name == variant(entry)
                ):
                    return "an entry is not a template of its shape"
        return None

    def get(self, text: str) -> Any:
        """The request `text` means, from a template of its shape that fills: the user's
        file's, else one shipped with d20 (d20cli.language.common_shapes, imported at the
        first text the file has none for); None when there is none or none fits (then the
        grammar reads the text, and `put` learns its shape into the file)."""
        if self.path is None:
            return None
        parts = shapes.split(text)
        if parts is None:
            return None
        pieces, numbers = parts
        shape = shapes.key(pieces)
        held = self._load().get(shape)
        if held is not None:
            request = self._fill(held, pieces, numbers, text, True)
            if request is not None:
                return request
        if self.common is None:
            from d20cli.language.common_shapes import TEMPLATES  # (at the first need)

            self.common = TEMPLATES
        shipped = self.common.get(shape)
        if shipped is None:
            return None
        return self._fill(shipped, pieces, numbers, text, False)

    def _fill(
        self,
        held: dict[str, Any],
        pieces: tuple[str, ...],
        numbers: tuple[str, ...],
        text: str,
        own: bool,
    ) -> Any:
        """The request from the first of a shape's templates (`held`) that fills; None if
        none does. `own`: the templates are the file's, so a bad one drops the file; a
        shipped one (trusted as code, checked all the same) is only passed over."""
        for entry in held.values():  # (a template of other fixed numbers is Refused)
            try:
                ready = self.ready.get(id(entry))
                if ready is not None and ready[0] is entry:  # (filled before: it is sound)
                    made = ready[1]
                    if made is None:  # filled a second time: made ready now (once a run)
                        made = shapes.Ready(entry)
                        self.ready[id(entry)] = (entry, made)
                    return made.fill(pieces, numbers, text)
                if not plain(entry["tree"]):  # (before its first fill)
                    self._bad("a template is not plain data", own)
                    return None
                request = shapes.fill(entry, pieces, numbers, text)
                self.ready[id(entry)] = (entry, None)  # (a command fills it once: not compiled)
                return request
            except shapes.Refused:
                continue
            except (KeyError, TypeError, ValueError, AttributeError, RecursionError) as err:
                self._bad(f"an entry is not a template of its shape ({err})", own)
                return None
        return None

    def _bad(self, why: str, own: bool) -> None:
        """A template that cannot be used: the file's drops the file; a shipped one is told
        to the debug log (the grammar reads the text)."""
        if own:
            self._drop(why)
        else:
            self.debug(f"a shipped shape (d20cli.language.common_shapes) is not used: {why}")

    def put(self, text: str, request: Any, parse: Callable[[str], Any]) -> None:
        """Learn the shape of `text`, which the grammar (`parse`) read as `request`: at
        once for the first MAX_BUILDS shapes of a run (a command learns its shape); after
        those, a shape met a second time in the run (AGAIN templates of it at most),
        MAX_LEARNT in all."""
        if self.path is None or self.builds >= MAX_LEARNT:
            return
        parts = shapes.split(text)
        if parts is None:
            return
        if self.builds >= MAX_BUILDS:  # past the first few: a shape met a second time
            key = shapes.key(parts[0])
            learnt = self.met.get(key)
            if learnt is None or learnt >= AGAIN:
                if learnt is None:
                    self.met[key] = 0
                return
            self.met[key] = learnt + 1
        self.builds += 1
        from d20cli.language.shape_probes import build  # (only to learn: after a parse)

        built = build(text, request, parse)
        if built is None:
            return
        shape, entry = built
        if entry_bytes(entry) > MAX_ENTRY_BYTES:
            return
        held: Bounded[str, Any] = VARIANTS.new()
        held.update(self._load().get(shape) or {})
        held[variant(entry)] = entry  # (a full shape is emptied first)
        self._remember(shape, dict(held))  # (a plain dict: marshal writes no subclass)
