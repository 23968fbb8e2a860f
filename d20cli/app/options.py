"""The options every request takes, parsed from words anywhere in a line.

One table (`OPTIONS`) names every option; the command line, lines on standard input and
lines in the shell all go through `split_options`, and the typer commands are checked
against the same table by a test. Negative numbers and signed modifiers (`-1`, `-2+1d4`)
are words, never options.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence

from d20cli.dice.roller import DEFAULT_BUDGET, DEFAULT_WORK
from d20cli.errors import ASCII_DIGITS, BudgetError, ParseError, foreign_digit, not_a_digit
from d20cli.frozen import fields, frozen, replace
from d20cli.language.vocabulary import CHECK_VERBS, DEFAULT_SYSTEM, SYSTEM_IDS, VERBS
from d20cli.rolling.limits import MAX_BUDGET, MAX_REPEAT, MAX_ROLLED_RUNS, MAX_WORK
from d20cli.store.files import env_flag

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# --- the values of options: whole numbers in ASCII digits, die faces, text, colour -----


def check_digits(name: str, text: str) -> None:
    """ParseError for a digit in the value that is not 0-9, with its column in the value."""
    at = foreign_digit(text)
    if at is not None:
        shown = text if len(text) <= 40 else text[:40] + "..."
        raise ParseError(f"{name}: {not_a_digit(text[at], f' at column {at + 1} of {shown!r}')}")


MAX_OPTION_DIGITS = 100  # digits in an option's number (a --seed may be long)
MAX_FACE_DIGITS = 7  # a die has at most 1,000,000 sides


def whole_number(name: str, text: str, max_digits: int) -> int | str:
    """`text` as a whole number written in ASCII digits (a sign, and `_` between digits,
    allowed), else what is wrong with it: "not a number" or "N digits" (more than
    `max_digits`: int() is not asked to read 5,000 of them). ParseError, naming the
    character and its column, for a digit that is not 0-9 (int() takes any Unicode digit:
    `--seed ٣` was 3 and `--dice ²` a traceback)."""
    check_digits(name, text)
    body = text.strip().lstrip("+-").replace("_", "")
    if not body or body.strip(ASCII_DIGITS):
        return "not a number"
    if len(body) > max_digits:
        return f"{len(body):,} digits"
    try:
        return int(text)
    except ValueError:  # a misplaced sign or `_`
        return "not a number"


def int_value(lo: int, hi: int | None = None) -> Callable[[str, str], int]:
    def parse(name: str, text: str) -> int:
        bound = f"from {lo:,} to {hi:,}" if hi is not None else f"of at least {lo:,}"
        value = whole_number(name, text, MAX_OPTION_DIGITS)
        if value == "not a number":
            raise ParseError(f"{name} takes a whole number, not {text[:40]!r}")
        if isinstance(value, str):
            raise ParseError(f"{name} takes a number {bound}, not one of {value}")
        if value < lo or (hi is not None and value > hi):
            shown = f"{value:,}" if len(text) <= 40 else f"{text[:40]}..."
            raise ParseError(f"{name} takes a number {bound}, not {shown}")
        return value

    return parse


def faces_value(name: str, text: str) -> tuple[int, ...]:
    parts = [p for p in text.replace(" ", ",").split(",") if p]
    if not parts:
        raise ParseError(f"{name} takes faces separated by commas, e.g. {name} 17,4,3")
    check_digits(name, text)
    faces: list[int] = []
    for part in parts:
        face = whole_number(name, part, MAX_FACE_DIGITS)
        if face == "not a number":
            raise ParseError(f"{name}: {part[:40]!r} is not a die face (faces are whole numbers)")
        if isinstance(face, str):
            raise ParseError(
                f"{name}: {part[:12]}... ({face}) is not a die face: "
                "a die has at most 1,000,000 sides"
            )
        faces.append(face)
    return tuple(faces)


def text_value(name: str, text: str) -> str:
    if not text:
        raise ParseError(f"{name} needs a value")
    return text


def file_value(name: str, text: str) -> str:
    """A file to write (`--svg FILE`): ParseError for an empty name or one with a NUL
    character (no file can have it); whether it can be written is found when it is."""
    if not text.strip():
        raise ParseError(f"{name} needs a file name ({name} odds.{name.lstrip('-')})")
    if "\0" in text:
        raise ParseError(f"{name}: a file name cannot hold a NUL character")
    return text


def color_value(name: str, text: str) -> str:
    choice = text.strip().lower()
    if choice not in COLOR_CHOICES:
        raise ParseError(f"{name} takes auto, always or never, not {text[:40]!r}")
    return choice


COLOR_CHOICES: tuple[str, ...] = ("auto", "always", "never")


def url_value(name: str, text: str) -> str:
    """A webhook's URL (`--post`): ParseError saying what is wrong, never repeating it
    (the URL holds the webhook's key)."""
    from d20cli.store.config import url_problem

    problem = url_problem(text)
    if problem is not None:
        raise ParseError(f"{name} takes a webhook's URL: {problem}")
    return text.strip()


@frozen
class Options:
    system: str | None = None  # None: D20_SYSTEM, else the config file's, else levelup
    json: bool = False
    seed: int | None = None
    dice: tuple[int, ...] | None = None
    repeat: int = 1
    quiet: bool = False
    no_color: bool = False
    summary: bool = False
    exit_status: bool = False
    budget: int | None = None  # None: D20_BUDGET, else 1,000,000
    odds: bool = False
    as_: str | None = None
    no_log: bool = False
    players: int | None = None
    boon: bool = False
    simulate: int | None = None
    csv: bool = False
    totals: bool = False
    work: int | None = None  # None: D20_WORK, else 20,000,000
    color: str | None = None  # --color=auto|always|never (None: auto)
    strict: bool = False  # a label word with no value is an error (Context.check_unvalued)
    post: str | None = None  # --post URL: post the rolls to this webhook (d20cli.app.posting)
    svg: str | None = None  # --svg FILE: the odds as a chart, an SVG file (d20cli.app.charts)
    png: str | None = None  # --png FILE: the same chart as a PNG image
    secret: bool = False  # --secret: a sealed session's secret roll (d20cli.app.sealed)

    def merged(self, other: Options) -> Options:
        """These options with every field that `other` sets (differs from the default) applied."""
        if other is NO_OPTIONS or other == NO_OPTIONS:
            return self
        default = NO_OPTIONS
        changes = {
            f.name: getattr(other, f.name)
            for f in fields(Options)
            if getattr(other, f.name) != getattr(default, f.name)
        }
        return replace(self, **changes)

    def color_choice(self) -> str:
        """ "always", "never" or "auto" (--color; --no-color is --color=never)."""
        if self.no_color:
            return "never"
        return self.color or "auto"

    def logging(self) -> bool:
        """Whether rolls go to the roll log (not with --no-log or D20_NO_LOG)."""
        return not (self.no_log or env_flag("D20_NO_LOG"))

    def system_id(self) -> str:
        """--system, else D20_SYSTEM, else the config file's `system`, else levelup (the
        environment beats the file, as Unix programs do)."""
        return (
            self.system
            or os.environ.get("D20_SYSTEM", "").strip()
            or _config_system()
            or DEFAULT_SYSTEM
        )

    def dice_budget(self) -> int:
        if self.budget is not None:
            return self.budget
        return _from_environment("D20_BUDGET", MAX_BUDGET, DEFAULT_BUDGET)

    def work_budget(self) -> int:
        """The dice one command may roll over all its runs (`--work`, D20_WORK)."""
        if self.work is not None:
            return self.work
        return _from_environment("D20_WORK", MAX_WORK, DEFAULT_WORK)


def _from_environment(name: str, most: int, default: int) -> int:
    env = os.environ.get(name, "").strip()
    if not env:
        return default
    value = whole_number(name, env.replace(",", ""), len(str(most)))
    if isinstance(value, str) and value == "not a number":
        raise ParseError(f"{name} must be a whole number, not {env[:40]!r}")
    if isinstance(value, str) or not 1 <= value <= most:
        raise ParseError(f"{name} must be a number from 1 to {most:,}")
    return value


NO_OPTIONS = Options()


#: The groups `d20 VERB --help` shows the options in, in this order.
OPTION_GROUPS: tuple[tuple[str, str], ...] = (
    ("output", "Output"),
    ("dice", "Dice"),
    ("system", "System and rules"),
)


@frozen
class OptionSpec:
    """One option: its field in Options, its names, help, how its value is read (None: a
    flag), the group its help is shown in, and who takes it: `verbs` None means every
    verb, else only those verbs; `odds`: whether `d20 odds` takes it too."""

    field: str
    names: tuple[str, ...]
    help: str
    value: Callable[[str, str], Any] | None = None  # None: a flag
    metavar: str = ""
    group: str = "output"
    verbs: tuple[str, ...] | None = None
    odds: bool = True

    def taken_by(self, verb: str) -> bool:
        """Whether `d20 VERB` (or `d20 odds`, verb "odds") takes this option."""
        if verb == "odds":
            return self.odds
        return self.verbs is None or verb in self.verbs


_ODDS_ONLY: tuple[str, ...] = ()
_FORTUNE_VERBS: tuple[str, ...] = (*CHECK_VERBS, "luck", "fortune")

OPTIONS: tuple[OptionSpec, ...] = (
    OptionSpec(
        "system",
        ("--system", "-s"),
        f"rule system: {', '.join(SYSTEM_IDS)} (also D20_SYSTEM)",
        text_value,
        "ID",
        group="system",
    ),
    OptionSpec("json", ("--json",), "one JSON object per result line"),
    OptionSpec(
        "quiet",
        ("--quiet", "-q"),
        "print only the fields of each result, one shape a verb (d20 help VERB)",
    ),
    OptionSpec("csv", ("--csv",), "CSV rows (total, exactly, at least, at most)", verbs=_ODDS_ONLY),
    OptionSpec("totals", ("--totals",), "the chart of totals of a check too", verbs=_ODDS_ONLY),
    OptionSpec(
        "svg",
        ("--svg",),
        "also write the odds as a chart to share: an SVG file",
        file_value,
        "FILE",
        verbs=_ODDS_ONLY,
    ),
    OptionSpec(
        "png",
        ("--png",),
        "also write the odds as a chart to share: a PNG image",
        file_value,
        "FILE",
        verbs=_ODDS_ONLY,
    ),
    OptionSpec("odds", ("--odds",), "show the chance of the outcome beside the roll", odds=False),
    OptionSpec(
        "summary",
        ("--summary",),
        "with --repeat: a tally of outcomes (and an attack's damage) instead of rolls",
        odds=False,
    ),
    OptionSpec(
        "exit_status",
        ("--exit-status",),
        "exit status 1 when the outcome is a failure (0 on success)",
        odds=False,
    ),
    OptionSpec(
        "color",
        ("--color",),
        "colour: auto (on a terminal), always or never (also FORCE_COLOR, NO_COLOR)",
        color_value,
        "WHEN",
    ),
    OptionSpec("no_color", ("--no-color",), "plain text, no colours (--color=never)"),
    OptionSpec("no_log", ("--no-log",), "do not write this roll to the roll log"),
    OptionSpec(
        "post",
        ("--post",),
        "post the roll to this webhook (Discord, or JSON to any other; also D20_POST, post.url)",
        url_value,
        "URL",
        odds=False,
    ),
    OptionSpec(
        "secret",
        ("--secret",),
        "in a sealed session: show only that a roll was made, its position and receipt "
        "(d20 reveal N shows it)",
        odds=False,
    ),
    OptionSpec("strict", ("--strict",), "a label word with no value is an error, not a note"),
    OptionSpec(
        "seed",
        ("--seed",),
        "seed the dice: the same seed gives the same rolls",
        int_value(0),
        "N",
        group="dice",
    ),
    OptionSpec(
        "dice",
        ("--dice",),
        "use these faces instead of random ones, in roll order",
        faces_value,
        "F,F,...",
        group="dice",
        odds=False,
    ),
    OptionSpec(
        "repeat",
        ("--repeat", "-n"),
        "roll the request N times (at most 1,000,000; 10,000,000 with --summary)",
        int_value(1, MAX_REPEAT),
        "N",
        group="dice",
        odds=False,
    ),
    OptionSpec(
        "simulate",
        ("--simulate",),
        "estimate from N random rolls instead of exact odds",
        int_value(1, MAX_REPEAT),
        "N",
        group="dice",
        verbs=_ODDS_ONLY,
    ),
    OptionSpec(
        "budget",
        ("--budget",),
        "the most dice one request may roll (default 1,000,000)",
        int_value(1, MAX_BUDGET),
        "N",
        group="dice",
    ),
    OptionSpec(
        "work",
        ("--work",),
        "the most dice one command may roll over all its runs (default 20,000,000)",
        int_value(1, MAX_WORK),
        "N",
        group="dice",
    ),
    OptionSpec(
        "as_",
        ("--as",),
        "resolve label words and macros through this character",
        text_value,
        "NAME",
        group="system",
    ),
    OptionSpec(
        "players",
        ("--players",),
        "how many players roll the dice",
        int_value(1, 100),
        "N",
        group="system",
        verbs=("scores",),
    ),
    OptionSpec(
        "boon",
        ("--boon",),
        "the boon option: hold up to 4 fortune dice (on until `fortune no-boon`; pendagger only)",
        group="system",
        verbs=_FORTUNE_VERBS,
        odds=False,
    ),
)

_BY_NAME: dict[str, OptionSpec] = {name: spec for spec in OPTIONS for name in spec.names}
#: The one-letter options (`-s`, `-n`, `-q`): they may be bundled (`-qn 2`) and take their
#: value joined (`-n3`, `-smm`), as in other Unix tools.
_SHORT: dict[str, OptionSpec] = {n: s for n, s in _BY_NAME.items() if len(n) == 2}
#: What asks for a verb's help instead of a roll (before `--`).
HELP_FLAGS: tuple[str, ...] = ("--help", "-h")


def looks_like_option(token: str) -> bool:
    """A token that starts like an option (and not like a negative number or modifier)."""
    if token.startswith("--"):
        return len(token) > 2
    return (
        token.startswith("-")
        and len(token) > 1
        and token[1].isalpha()
        and (
            token[:2] in _SHORT
            or token.split("=", 1)[0] in _BY_NAME
            or not any(c in ASCII_DIGITS for c in token)
        )
    )


def wants_help(tokens: Sequence[str]) -> bool:
    """Whether `--help` or `-h` is among the options of `tokens` (before `--` or `#`)."""
    if "--help" not in tokens and "-h" not in tokens:  # (most lines: one look at each)
        return False
    for token in tokens:
        if token == "--" or token.startswith("#"):
            return False
        if token in HELP_FLAGS:
            return True
    return False


def did_you_mean(name: str, known: Sequence[str]) -> str:
    """ "; did you mean --json?" for a mistyped option name (empty when nothing is close)."""
    import difflib

    close = difflib.get_close_matches(name, list(known), n=1, cutoff=0.6)
    return f"; did you mean {' or '.join(close)}?" if close else ""


def unknown_option(name: str, command: str = "") -> ParseError:
    """The error for an option no table has, with a "did you mean" when one is close and
    else where the options are listed (`command`: the verb or command it followed)."""
    known = list(_BY_NAME) if command else [*_BY_NAME, *ASKS]
    hint = did_you_mean(name, known)
    if len(name) == 2 and not hint:  # `-V`: the long names of that letter
        letter = name[1].lower()
        close = [n for n in known if n.startswith(f"--{letter}")]
        hint = f"; did you mean {' or '.join(close)}?" if close else ""
    if not hint:
        where = f"d20 {command} --help" if command else "d20 --help"
        hint = f" ({where} lists the options)"
    return ParseError(f"unknown option {name[:40]}{hint}")


class _Tokens:
    """The tokens of one line, read left to right, knowing each one's column (`prefix`:
    what the line shown under an error starts with, e.g. the program's name)."""

    def __init__(self, tokens: Sequence[str], prefix: str = "") -> None:
        self.tokens = tokens
        self.i = 0
        self.text = prefix + " ".join(tokens)
        self.columns: list[int] = []
        col = 1 + len(prefix)
        for token in tokens:
            self.columns.append(col)
            col += len(token) + 1

    def next(self) -> str | None:
        if self.i >= len(self.tokens):
            return None
        self.i += 1
        return self.tokens[self.i - 1]

    def rest(self) -> list[str]:
        """The tokens not read yet (and reads them)."""
        rest, self.i = list(self.tokens[self.i :]), len(self.tokens)
        return rest

    def located(self, err: ParseError, index: int) -> ParseError:
        """`err` placed at token `index` of the line (the caret under it)."""
        if err.column is not None or not 0 <= index < len(self.tokens):
            return err
        shown = secret_masked(self.tokens)
        if shown is self.tokens:
            return ParseError(err.message, self.text, self.columns[index])
        prefix = self.text[: len(self.text) - len(" ".join(self.tokens))]
        return ParseError(
            err.message, prefix + " ".join(shown), _Tokens(shown, prefix).columns[index]
        )


def secret_masked(tokens: Sequence[str]) -> Sequence[str]:
    """`tokens` as a line under an error shows them: a webhook's URL (`--post URL`, a
    secret) as `URL`, and any other URL (`--webhook=https://...`, mistyped) as its
    scheme and host (its path may hold a key); `tokens` itself when it holds none."""
    if not any(t.startswith("--post") or "://" in t for t in tokens):
        return tokens
    from d20cli.store.config import masked_url

    shown = list(tokens)
    for i, token in enumerate(tokens):
        if token == "--post" and i + 1 < len(tokens):
            shown[i + 1] = "URL"
        elif token.startswith("--post="):
            shown[i] = "--post=URL"
        elif "://" in token and shown[i] != "URL":
            name, eq, value = token.partition("=")
            if eq and name.startswith("-") and "://" not in name:
                shown[i] = f"{name}={masked_url(value)}"
            else:
                shown[i] = masked_url(token)
    return shown


def check_taken(verb: str, opts: Options, tokens: Sequence[str] = ()) -> None:
    """ParseError for an option in `opts` that `d20 VERB` does not take (verb "odds":
    `d20 odds`), with a caret under it in `tokens`: an option is never silently ignored.
    A word that is no verb (a character's macro) takes every option."""
    if opts is NO_OPTIONS or (verb not in VERBS and verb != "odds"):
        return
    for spec in OPTIONS:
        if spec.taken_by(verb) or getattr(opts, spec.field) == getattr(NO_OPTIONS, spec.field):
            continue
        if verb == "odds":
            takers = "a roll, not its odds"
        else:
            takers = "d20 odds" if spec.verbs == () else ", ".join(spec.verbs or ())
        message = (
            f"{spec.names[0]} is not an option of `d20 {verb}` (it is for {takers}; "
            f"d20 {verb} --help lists the options)"
        )
        reader = _Tokens(tokens)
        at = next((i for i, t in enumerate(tokens) if _names_option(t, spec)), -1)
        raise reader.located(ParseError(message), at)


def _names_option(token: str, spec: OptionSpec) -> bool:
    name = token.partition("=")[0]
    return name in spec.names or (
        not token.startswith("--") and any(n in spec.names for n in _bundled(token))
    )


def _bundled(token: str) -> list[str]:
    return [f"-{c}" for c in token[1:]] if token.startswith("-") else []


def split_line(line: str) -> list[str]:
    """A line of input as tokens: split on white space; quotes group words (`odds compare
    "check +5 vs 15" "check +6 vs 15"`); a line whose quotes do not pair up (an apostrophe
    in a comment) is split on white space alone."""
    if '"' not in line and "'" not in line:
        return line.split()
    import shlex

    try:
        return shlex.split(line)
    except ValueError:
        return line.split()


def request_text(words: list[str], opts: Options) -> str:
    """The request's text from the words `split_options` left (`scores` takes its
    --players as a word)."""
    text = " ".join(w for w in words if w)
    if opts.players is not None and words and words[0].lower() == "scores":
        text += f" {opts.players}"
    return text


#: What asks for help or the version instead of a request (read by `read_command_line`).
ASKS: tuple[str, ...] = (*HELP_FLAGS, "--version")

#: Whether a token the typer app reads is an option the program takes off the line (the
#: option's spec, the name as typed, the words kept before it): see `read_command`.
Takes = Callable[[OptionSpec, str, Sequence[str]], bool]


@frozen
class _Read:
    words: tuple[str, ...]
    values: dict[str, Any]
    asked: tuple[str, ...]  # --help, -h, --version, as typed
    rest: tuple[str, ...]  # what a stop left unread


def _read(
    tokens: Sequence[str], first_only: bool = False, takes: Takes | None = None, prefix: str = ""
) -> _Read:
    """The one reader of options. Left to right: an option of the table (and its value)
    goes into `values`; anything else is a word. A request's line (`takes` None): `--`
    ends the options, a word starting with `#` begins a comment (all after it is words),
    `--help`, `-h` and `--version` are noted, and an option the table lacks is an error.
    `first_only`: stop at the first word, leaving the rest unread. A typer command's line
    (`takes` given): only the options `takes` says are the program's are taken off; every
    other token, `--` and what follows it stay as they are, for typer."""
    words: list[str] = []
    values: dict[str, Any] = {}
    asked: list[str] = []
    reader = _Tokens(tokens, prefix)
    while (token := reader.next()) is not None:
        if token == "--" and takes is None:
            words += reader.rest()
            break
        if token == "--" or (takes is None and token.startswith("#")):
            words += [token, *reader.rest()]
            break
        if token in ASKS and takes is None:
            asked.append(token)
            continue
        if not looks_like_option(token):
            words.append(token)
            if first_only:
                return _Read(tuple(words), values, tuple(asked), tuple(reader.rest()))
            continue
        if takes is not None:
            spec = option_spec(token)
            name = token.partition("=")[0] if token.startswith("--") else token[:2]
            if spec is None or not takes(spec, name, words):
                words.append(token)
                continue
        at = reader.i - 1
        try:
            _read_option(token, reader, values, words[0] if words else "")
        except ParseError as err:
            raise reader.located(err, at) from None
    return _Read(tuple(words), values, tuple(asked), ())


def option_spec(token: str) -> OptionSpec | None:
    """The option `token` names whole (`--system`, `--system=mm`, `-s`, `-smm`), or None (a
    bundle of letters, a name the table lacks)."""
    spec = _BY_NAME.get(token.partition("=")[0])
    if spec is None and not token.startswith("--"):
        short = _SHORT.get(token[:2])
        return short if short is not None and short.value is not None else None
    return spec


def split_options(tokens: Sequence[str]) -> tuple[list[str], Options]:
    """Separate option tokens from request words. Options may come anywhere; `--` ends them;
    a word starting with `#` begins a comment (everything after it is words). One-letter
    options bundle (`-qn 2`) and take a joined value (`-n3`, `-smm`). An error names the
    option, with a caret under it."""
    if not any(t.startswith("-") for t in tokens):  # the common case: words only
        return list(tokens), NO_OPTIONS
    read = _read(tokens)
    if read.asked:  # the runner asks `wants_help` first: here they are no options
        at = list(tokens).index(read.asked[0])
        verb = read.words[0] if read.words else ""
        raise _Tokens(tokens).located(unknown_option(read.asked[0], verb), at)
    return list(read.words), Options(**read.values) if read.values else NO_OPTIONS


@frozen
class CommandLine:
    """The command line, read once (`read_command_line`). `command`: its first word ("" for
    none). A request's line (a verb, `odds`, `table NAME`, `help`, `shell`, a word that is
    no command): `words`, from the command on, with every option taken off. A command of
    the typer app: `rest`, the tokens after its name, left for it to read
    (`read_command`). `opts`: the options read; `asked`: --help, -h, --version as typed;
    `error`: what was wrong with an option (the rest of the line then unread)."""

    tokens: tuple[str, ...]
    command: str = ""
    words: tuple[str, ...] = ()
    rest: tuple[str, ...] = ()
    opts: Options = NO_OPTIONS
    asked: tuple[str, ...] = ()
    error: ParseError | None = None

    def json(self) -> bool:
        """Whether errors go out as JSON too (--json read, or typed before a bad option)."""
        return self.opts.json or "--json" in self.tokens


def read_command_line(
    tokens: Sequence[str], typer_reads: Callable[[str, bool], bool]
) -> CommandLine:
    """Read the command line once. The options before the first word are the program's
    (shown under an error as `d20 ...`); the first word is the command, and
    `typer_reads(command, asks_help)` says whether the typer app reads the rest, or the
    runner reads it here as a request's line (options anywhere, as on standard input)."""
    line = tuple(tokens)
    try:
        head = _read(line, first_only=True, prefix="d20 ")
    except ParseError as err:
        return CommandLine(line, error=err)
    opts = Options(**head.values) if head.values else NO_OPTIONS
    if not head.words:
        return CommandLine(line, opts=opts, asked=head.asked)
    command = head.words[0]
    ended = len(head.words) > 1  # `d20 -- check -1`: `--` ended the options before it
    if typer_reads(command, bool(head.asked)):
        rest = head.words[1:] if ended else head.rest
        return CommandLine(line, command, rest=rest, opts=opts, asked=head.asked)
    if ended:
        return CommandLine(line, command, words=head.words, opts=opts, asked=head.asked)
    try:
        body = _read([command, *head.rest])
    except ParseError as err:
        return CommandLine(line, command, opts=opts, asked=head.asked, error=err)
    values = {**head.values, **body.values}
    return CommandLine(
        line,
        command,
        words=body.words,
        opts=Options(**values) if values else NO_OPTIONS,
        asked=(*head.asked, *body.asked),
    )


def read_command(tokens: Sequence[str], takes: Takes) -> tuple[list[str], Options]:
    """What a command of the typer app is given after its name: the tokens for typer,
    without the program's options that `takes` picks out, and those options."""
    read = _read(tokens, takes=takes)
    return list(read.words), Options(**read.values) if read.values else NO_OPTIONS


def _read_option(token: str, reader: _Tokens, values: dict[str, Any], command: str = "") -> None:
    """Read one option token (and its value, from the token or the next one) into values
    (`command`: the word it follows, for the message of an unknown one)."""
    if (
        not token.startswith("--")
        and token[:2] in _SHORT
        and token.split("=", 1)[0] not in _BY_NAME
    ):
        _read_short(token, reader, values, command)
        return
    name, eq, inline = token.partition("=")
    spec = _BY_NAME.get(name)
    if spec is None:
        raise unknown_option(name, command)
    if spec.value is None:
        if eq:
            raise ParseError(f"{name} takes no value")
        values[spec.field] = True
        return
    raw = inline if eq else reader.next()
    if raw is None:
        raise ParseError(f"{name} needs a value ({spec.metavar})")
    values[spec.field] = spec.value(name, raw)


def _read_short(token: str, reader: _Tokens, values: dict[str, Any], command: str) -> None:
    """`-qn 2`, `-n3`, `-smm`, `-s=mm`: flags bundled, the last letter may take a value."""
    rest = token[1:]
    while rest:
        name = "-" + rest[0]
        spec = _SHORT.get(name)
        if spec is None:
            raise unknown_option(name if rest == token[1:] else token, command)
        rest = rest[1:]
        if spec.value is None:
            values[spec.field] = True
            continue
        raw = rest.removeprefix("=") if rest else reader.next()
        if raw is None:
            raise ParseError(f"{name} needs a value ({spec.metavar})")
        values[spec.field] = spec.value(name, raw)
        return


def _config_system() -> str | None:
    """The config file's default system (d20cli.store.config, imported only when neither
    --system nor D20_SYSTEM gives one)."""
    from d20cli.store.config import config_system

    return config_system()


def check_rolled_runs(runs: int, option: str, remedy: str) -> None:
    """BudgetError when a command would roll more than MAX_ROLLED_RUNS runs one by one
    (`option` names what asked for them, `remedy` says what to do instead): such a run
    takes about 20 microseconds each, so the limit keeps any command to seconds."""
    if runs > MAX_ROLLED_RUNS:
        raise BudgetError(
            f"{option} {runs:,} rolls each run one by one: at most {MAX_ROLLED_RUNS:,} "
            f"(about 20 s); {remedy}"
        )
