"""Results remembered by their dice: what lets a batch roll a line it has rolled before
without working its rules out again.

A plain request's result depends on nothing but its dice: a system's `resolve` is a pure
function of the request and of the faces the roller hands it, in order (d20cli.rules
holds no state and does no I/O). So a PreparedLine (d20cli.rolling.prepared) keeps the
results it has
made in a tree of the faces drawn (`DiceMemo`):

- each node (`Draw`) is a draw the resolver made: a die's range `lo..hi`, and `n` dice at
  once for a big pool (`Roller.roll_many`), else one;
- each branch is a face it got (a tuple of faces for a pool);
- each leaf is the Result, which is immutable.

Rolling the request again walks the tree: each face is drawn from the real roller by the
very call the resolver would make, in the same order, so the generator is used exactly as
without the memo (`--seed` gives the same faces and the same results) and the roller
counts the same dice. A face the tree has not seen hands the faces drawn so far to the
resolver, which rolls the rest live (`Recorder`); its result becomes a new leaf. A
request that goes over a budget is never kept: its error comes from the resolver.

A prepared line rolls its first WAIT rolls plainly: a line rolled a few times only would
fill the space and gain nothing.

Bounded: only a request of at most MAX_MEMO_TEXT characters has a memo, and only a result of
at most MAX_MEMO_DICE dice is kept; MAX_LEAVES leaves in one prepared line, and a run's
prepared lines share a `MemoSpace` of ROOM bytes (a leaf is counted as LEAF_BYTES for
each character of its JSON line: measured, a kept result takes four to six times its
JSON; with `--odds`, the noted copy kept with it, not counted, takes up to as much
again). A prepared line that keeps missing once it can keep no more (more than one roll
in MISS_SHARE, after MISSES misses) drops its tree and rolls as before; once the space
is full, a prepared line with no tree rolls as before at once.
"""

from __future__ import annotations

from collections.abc import Callable

from d20cli.dice.roller import Roller

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import TypeAlias

    from d20cli.language.requests import Request
    from d20cli.results import Result

MAX_LEAVES = 2048  # results one prepared line keeps (`roll 4d6kh3` has 1,296 ways to fall)
ROOM = 8_000_000  # bytes of results the prepared lines of one run keep together, about
LEAF_BYTES = 6  # a kept result's bytes for each character of its JSON line, about
MAX_MEMO_TEXT = 120  # characters of a request whose results are kept (a result's size grows
MAX_MEMO_DICE = 12  # with its text and its dice: a kept result is at most a few kilobytes)
WAIT = 32  # rolls of a prepared line before its memo starts
MISSES = 256  # misses of a full tree before its share of misses is judged
MISS_SHARE = 4  # ... and it is dropped when more than one roll in MISS_SHARE missed

Face: TypeAlias = "int | tuple[int, ...]"
Call: TypeAlias = "tuple[int, int, int, Face]"  # a draw: lo, hi, n (0: one die), face(s)
Node: TypeAlias = "Draw | Result"


class Draw:
    """A draw the resolver made, and where each of its faces led; the draw before it and
    the face that led here (None at the root), so a miss finds the faces drawn so far
    without a hit keeping them."""

    __slots__ = ("before", "branches", "face", "hi", "lo", "n")

    def __init__(self, lo: int, hi: int, n: int, before: Draw | None, face: Face) -> None:
        self.lo = lo
        self.hi = hi
        self.n = n  # dice drawn at once (`roll_many`); 0: one die (`roll`)
        self.branches: dict[Face, Node] = {}
        self.before = before
        self.face = face

    def path(self, face: Face) -> list[Call]:
        """The draws from the root to this one, which gave `face`."""
        calls: list[Call] = [(self.lo, self.hi, self.n, face)]
        node = self
        while node.before is not None:
            before = node.before
            calls.append((before.lo, before.hi, before.n, node.face))
            node = before
        calls.reverse()
        return calls


class MemoSpace:
    """The bytes of leaves the memos of one run may still keep, together; `full` once a
    leaf did not fit, until a memo dropped gives bytes back."""

    __slots__ = ("full", "left")

    def __init__(self, size: int | None = None) -> None:
        self.left = ROOM if size is None else size
        self.full = False


class Recorder(Roller):
    """The roller of a resolve that the tree could not answer: it hands back the faces
    already drawn from the live roller (`taken`, each with its draw), then draws the rest
    from it, and records every draw (`calls`). It counts dice against the live roller's
    budget as that roller would; `done` gives the live roller its count back."""

    def __init__(self, live: Roller, taken: list[Call]) -> None:
        super().__init__(live.run_budget, live.work)
        self.budget = live.budget
        self.spent = live.spent
        self.live = live
        self.taken = taken
        self.calls: list[Call] = []

    def roll(self, lo: int, hi: int) -> int:
        if self.count >= self.budget:
            self.charge(1)
        self.count += 1
        face = self._face(lo, hi, 0)
        if face is None:
            face = self.live._draw(lo, hi)
            self.calls.append((lo, hi, 0, face))
        return face  # type: ignore[return-value]  # (a draw of one die gave one face)

    def roll_many(self, lo: int, hi: int, n: int) -> list[int]:
        self.count += n
        face = self._face(lo, hi, n)
        if face is None:
            face = tuple(self.live._draw_many(lo, hi, n))
            self.calls.append((lo, hi, n, face))
        return list(face)  # type: ignore[arg-type]  # (a draw of n dice gave n faces)

    def _face(self, lo: int, hi: int, n: int) -> Face | None:
        """The face the tree drew for this draw (None: past the faces it drew). Raises
        Diverged when the tree drew another kind of draw here."""
        calls, taken = self.calls, self.taken
        if len(calls) >= len(taken):
            return None
        call = taken[len(calls)]
        if call[0] != lo or call[1] != hi or call[2] != n:
            raise Diverged
        calls.append(call)
        return call[3]

    def done(self) -> None:
        """The live roller counts the dice of the whole resolve."""
        self.live.count = self.count


class Diverged(Exception):
    """The resolver asked for another kind of draw than the tree made at that point: it is
    not a function of its dice alone. The memo is dropped and the request rolled afresh
    (no rule of d20cli does this: the tests roll every verb with and without the memo
    and compare)."""


class DiceMemo:
    """The results of one prepared line by their faces (see the module's text)."""

    __slots__ = ("budget", "bytes", "hits", "leaves", "misses", "on", "root", "space", "wait")

    LEAVES = MAX_LEAVES  # results it keeps at most

    def __init__(self, space: MemoSpace) -> None:
        self.root: Node | None = None
        self.budget = -1  # the roller's budget the results were made with
        self.leaves = 0
        self.bytes = 0  # of the leaves, counted as the space counts them
        self.hits = 0
        self.misses = 0  # results not kept (the tree full, or the result too big)
        self.space = space
        self.on = True
        self.wait = WAIT  # rolls before the first result is kept

    def roll(
        self, request: Request, resolve: Callable[[Request, Roller], Result], roller: Roller
    ) -> Result:
        """The result of `request` rolled with `roller`: the one the tree holds for the
        faces drawn, else the resolver's (then kept)."""
        node = self.root
        if node is None or roller.budget != self.budget:
            if not self.on or (node is None and (self.space.full or self._waits())):
                return resolve(request, roller)
            return self._resolve(request, resolve, roller, [])
        while type(node) is Draw:
            face: Face
            if node.n:
                face = tuple(roller.roll_many(node.lo, node.hi, node.n))
            else:
                face = roller.roll(node.lo, node.hi)
            found = node.branches.get(face)
            if found is None:
                return self._resolve(request, resolve, roller, node.path(face))
            node = found
        self.hits += 1
        return node  # type: ignore[return-value]  # (a leaf: not a Draw)

    def _waits(self) -> bool:
        """Whether the line still rolls plainly: its first WAIT rolls do (a line rolled a
        few times would only fill the space)."""
        if self.wait:
            self.wait -= 1
            return True
        return False

    def _resolve(
        self,
        request: Request,
        resolve: Callable[[Request, Roller], Result],
        roller: Roller,
        taken: list[Call],
    ) -> Result:
        """The resolver's result, given the faces already drawn; kept if there is space."""
        if self.root is None:
            self.budget = roller.budget
        elif roller.budget != self.budget:  # (not a prepared line's own roller: no tree for it)
            return resolve(request, roller)
        recorder = Recorder(roller, taken)
        try:
            result = resolve(request, recorder)
        except Diverged:  # (the faces drawn are spent: the request is rolled afresh)
            self.drop()
            roller.count = 0
            return resolve(request, roller)
        except BaseException:
            recorder.done()
            raise
        recorder.done()
        if len(recorder.calls) < len(taken):
            self.drop()  # the resolver used fewer faces than the tree made it draw
            return result
        space = self.space
        if recorder.count <= MAX_MEMO_DICE and self.leaves < self.LEAVES and not space.full:
            size = LEAF_BYTES * len(result.json_text())
            if size <= space.left:
                self._keep(recorder.calls, result, size)
                return result
            space.full = True  # (no JSON is written again only to learn that)
        self.misses += 1
        if self.misses >= MISSES and self.misses * MISS_SHARE > self.hits + self.misses:
            self.drop()
        return result

    def _keep(self, calls: list[Call], result: Result, size: int) -> None:
        """A new leaf of `size` bytes at the end of the path of `calls` (the tree is
        dropped if the path disagrees with it)."""
        if not calls:  # a roll of no dice: always this result
            if self.root is None:
                self.root = result
                self._count(size)
            return
        node = self.root
        if node is None:
            lo, hi, n, _ = calls[0]
            node = self.root = Draw(lo, hi, n, None, 0)
        last = len(calls) - 1
        for i, (lo, hi, n, face) in enumerate(calls):
            if type(node) is not Draw or node.lo != lo or node.hi != hi or node.n != n:
                self.drop()
                return
            found = node.branches.get(face)
            if i == last:
                if found is not None:  # the tree had the path: it cannot be a miss
                    self.drop()
                    return
                node.branches[face] = result
            else:
                if found is None:
                    lo, hi, n, _ = calls[i + 1]
                    found = node.branches[face] = Draw(lo, hi, n, node, face)
                node = found
        self._count(size)

    def _count(self, size: int) -> None:
        self.leaves += 1
        self.bytes += size
        self.space.left -= size

    def drop(self) -> None:
        """No tree from now on: its leaves go back to the space (also when its line is let
        go: PreparedLines.keep)."""
        self.space.left += self.bytes
        self.space.full = False
        self.leaves = self.bytes = 0
        self.root = None
        self.on = False
