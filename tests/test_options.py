"""The shared option table: every entry point parses options the same way."""

from __future__ import annotations

import pytest

from d20cli.app.options import OPTIONS, Options, split_options
from d20cli.errors import ParseError


def test_options_may_follow_the_words() -> None:
    words, opts = split_options(["roll", "1d20", "--seed", "3", "-n", "4", "--json"])
    assert words == ["roll", "1d20"]
    assert opts == Options(seed=3, repeat=4, json=True)


def test_negative_numbers_and_modifiers_are_words() -> None:
    words, opts = split_options(["check", "-1", "vs", "10", "-2+1d4", "-d6"])
    assert words == ["check", "-1", "vs", "10", "-2+1d4", "-d6"]
    assert opts == Options()


def test_inline_values_and_short_names() -> None:
    _, opts = split_options(["--dice=17,4", "-s", "mm", "-q", "--budget=50"])
    assert opts == Options(dice=(17, 4), system="mm", quiet=True, budget=50)


def test_double_dash_and_comments_end_options() -> None:
    words, opts = split_options(["roll", "1d6", "#", "--seed", "3"])
    assert words == ["roll", "1d6", "#", "--seed", "3"] and opts.seed is None
    words, opts = split_options(["--", "--seed"])
    assert words == ["--seed"]


@pytest.mark.parametrize(
    ("tokens", "message"),
    [
        (["--seed"], "--seed needs a value"),
        (["--seed", "x"], "--seed takes a whole number"),
        (["--repeat", "0"], "--repeat takes a number from 1"),
        (["--dice", "1,a"], "'a' is not a die face"),
        (["--frobnicate"], "unknown option --frobnicate"),
        (["--json=yes"], "--json takes no value"),
    ],
)
def test_bad_options_are_clear_errors(tokens: list[str], message: str) -> None:
    with pytest.raises(ParseError, match=message):
        split_options(tokens)


def test_merged_applies_only_what_the_line_sets() -> None:
    base = Options(json=True, system="mm")
    assert base.merged(Options(seed=4)) == Options(json=True, system="mm", seed=4)
    assert base.merged(Options(system="pendagger")).system == "pendagger"


def test_system_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("D20_SYSTEM", "mm")
    assert Options().system_id() == "mm"
    assert Options(system="levelup").system_id() == "levelup"
    monkeypatch.delenv("D20_SYSTEM")
    assert Options().system_id() == "levelup"


def test_budget_from_environment(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("D20_BUDGET", "5000")
    assert Options().dice_budget() == 5000
    assert Options(budget=7).dice_budget() == 7
    monkeypatch.setenv("D20_BUDGET", "lots")
    with pytest.raises(ParseError, match="D20_BUDGET"):
        Options().dice_budget()


def test_every_option_has_help_and_a_long_name() -> None:
    for spec in OPTIONS:
        assert spec.help
        assert spec.names[0].startswith("--")


@pytest.mark.parametrize(
    ("value", "on"),
    [
        ("1", True),
        ("true", True),
        ("YES", True),
        ("on", True),
        ("", False),
        ("0", False),
        ("false", False),
        ("No", False),
        ("off", False),
    ],
)
def test_environment_switches_read_yes_and_no(
    value: str, on: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    """D20_NO_LOG=0 means logging on; every switch reads 1/true/yes and 0/false/no."""
    from d20cli.store.files import env_flag
    from d20cli.store.request_cache import cache_path

    monkeypatch.setenv("D20_NO_LOG", value)
    monkeypatch.setenv("D20_NO_CACHE", value)
    assert env_flag("D20_NO_LOG") is on
    assert Options().logging() is not on
    assert (cache_path() is None) is on
