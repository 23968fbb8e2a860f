"""Exact odds: the probability of every outcome of a request, from the same rules code
that rolls it. No rule is written twice: a d20 check is graded pair by pair by the
system's own grading (`System.check_plan`, d20cli.probability.checks); any other request
is decided path by path by the resolver itself, exactly as at the table
(d20cli.probability.walk replays it over every face; the odds are kept in
d20cli.probability.model).

Verbs whose walks would be too long (large group checks, ability scores) are computed
from their members' odds and the system's own hooks (`System.grade_group`,
`System.verb_odds`); `odds roll` is the expression's exact distribution.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable
from fractions import Fraction

from d20cli.bounded import Bounded, declare, memo
from d20cli.dice import weights
from d20cli.dice.roller import DEFAULT_BUDGET, Roller, make_roller
from d20cli.dice.weights import Budget, TooCostly
from d20cli.errors import D20Error
from d20cli.frozen import replace
from d20cli.language.requests import CheckRequest, ContestRequest, GroupRequest, Request
from d20cli.number_format import percent
from d20cli.probability import walk
from d20cli.probability.chances import chance_of as chance_of
from d20cli.probability.chances import chance_words as chance_words
from d20cli.probability.checks import check_odds, contest_odds
from d20cli.probability.memo import OddsMemo
from d20cli.probability.model import (
    NO_OUTCOME,
    Accumulator,
    Case,
    Joint,
    Odds,
    Spread,
    fractions_over,
)
from d20cli.probability.walk import MAX_PATHS, Branches, odds_budget, paths
from d20cli.records import NamedTuple
from d20cli.results import Result
from d20cli.rules.common import VerbOdds

TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Any

# The kept face of 2d20 keep-highest: P(k) = (2k - 1) / 400; keep-lowest: (41 - 2k) / 400.


# --- computing the odds of a request ----------------------------------------------------


TOTALS = declare(
    "engine._totals_provider",
    holds="an expression of one odds request → its totals",
    buys="each distinct expression of one request is worked out once",
)


def _totals_provider(budget: Budget) -> Callable[[object], Branches | None]:
    """Whole-expression answers for the replay roller, from d20cli.dice.distribution, cached
    per expression for one odds request. Each distribution may take at most the usual
    `DEFAULT_MAX_STATES` steps, and all of them together what `budget` has left: past
    that the request is refused (replaying such an expression die by die would take
    longer still). An expression that can fail (a possible division by zero) gets None:
    the walk rolls it die by die and the failing path raises the error."""
    cache: Bounded[object, Branches | None] = TOTALS.new()  # (one request's expressions)

    def totals(expr: object) -> Branches | None:
        if expr not in cache:
            from d20cli.dice import distribution  # (when an expression is asked for: a
            # check whose modifier is a number asks for none)

            limit = min(weights.DEFAULT_MAX_STATES, budget.left)
            share = Budget(limit, budget.text, within=budget)
            try:
                cache[expr] = distribution.branches(expr, budget=share)
            except TooCostly:
                raise
            except D20Error:
                cache[expr] = None
        return cache[expr]

    return totals


def _outcome_order(system: Any, verb: str) -> tuple[list[str], dict[str, str]]:
    """The system's tiers worst to best, and their names in a result of `verb`, the names
    its rolls give them (`System.outcome_names`)."""
    order = [oid for oid, _ in system.outcomes]
    return order, system.outcome_names(verb)


def odds_of(
    text: str,
    system_name: str,
    max_paths: int = MAX_PATHS,
    parse: Callable[[str], Request] | None = None,
    within: Budget | None = None,
) -> Odds:
    """The exact odds of the request `text` (verb first) under the named system.

    `parse`: how to turn the text into a request; the caller may pass one that remembers
    parsed requests (`d20cli.app.run.Context.parse`). By default the grammar parses it.
    Odds computed before are remembered by value (`MEMO`), keyed by the parsed request: a
    request asked again is not walked again. The odds are sealed (`Odds.sealed`): every
    caller gets the remembered odds themselves, read-only. `within`: the budget of a
    command that computes many odds (`walk.command_budget`), charged with this request's
    steps too."""

    if parse is None:
        from d20cli.language.grammar import parse_request

        parse = parse_request
    return odds_of_request(parse(text), system_name, max_paths, within)


def odds_of_request(
    request: Request,
    system_name: str,
    max_paths: int = MAX_PATHS,
    within: Budget | None = None,
) -> Odds:
    """The exact odds of a parsed request (`odds_of` with the text parsed already: the
    Python API's requests read once, d20cli.api._READY), from `MEMO` or computed."""

    def compute() -> Odds:
        from d20cli.rules import get_system

        return _compute_odds(request, get_system(system_name), max_paths, within)

    rest = _memo_rest(system_name, max_paths)
    return MEMO.get_or_compute((request, rest), compute, (request, rest))


MEMO = OddsMemo()  # odds already computed, by value (d20cli.probability.memo)


def _memo_rest(system_name: str, max_paths: int) -> Hashable:
    """What the odds of a request depend on besides the request as parsed (so the same
    text read through a character, or with house defaults, is another key): the system
    (by the name given: an alias is one more key for the same odds) and every limit of
    the work (read now, so a lower limit refuses what it refuses)."""
    return (
        system_name,
        max_paths,
        walk.ODDS_STEPS,
        walk.ODDS_DEADLINE,
        walk.MAX_PATH_DICE,
        walk.PATH_STEPS,
        weights.DEFAULT_MAX_STATES,
        weights.DEFAULT_EXPLODE_DEPTH,
    )


def _compute_odds(
    request: Request, system: Any, max_paths: int, within: Budget | None = None
) -> Odds:
    """The odds of a parsed request (`odds_of` without the memo)."""
    verb = request.verb
    order, labels = _outcome_order(system, verb)
    if verb == "roll":
        return _roll_odds(request, system.id, within)
    own = system.verb_odds.get(verb)
    if own is not None:  # pendagger's `scores` and `fortune`
        return _verb_odds(request, system.id, own)
    if isinstance(request, GroupRequest):
        grade_group = system.grade_group
        if grade_group is not None:  # else the walk below gets the system's own error
            return _group_odds(request, system, grade_group, order, labels, max_paths, within)
    budget = odds_budget(request.text, within)
    plan_of = system.check_plan
    plan = plan_of(request) if plan_of is not None else None
    if plan is not None:
        done = check_odds(
            request,
            system.id,
            verb,
            plan,
            order,
            labels,
            _totals_provider(budget),
            budget,
            max_paths,
        )
        if done is not None:
            odds = done.odds
            if isinstance(request, CheckRequest) and request.damage is not None and done.critical:
                odds.extra["damage_mean_by_crit_dmg"] = _damage_by_mode(
                    request.damage, done.normal, done.critical
                )
            return odds
        budget = odds_budget(request.text, within)  # the walk starts afresh
    contest_of = system.contest_plan
    contest = contest_of(request) if contest_of is not None else None
    if contest is not None:
        found = contest_odds(
            request,
            system.id,
            verb,
            contest,
            order,
            labels,
            _totals_provider(budget),
            budget,
            max_paths,
        )
        if found is not None:
            _name_sides(found, request)
            return found
        budget = odds_budget(request.text, within)
    acc = Accumulator()
    hits = [Fraction(0), Fraction(0)]  # the chance of a damage roll: [normal, critical]
    for weight, den, result, damage in paths(
        lambda roller: system.resolve(request, roller),
        _totals_provider(budget),
        max_paths,
        budget,
        convolve_damage=True,
    ):
        acc.add(weight, den, result, damage)
        if result.damage is not None:
            hits[result.damage.critical] += Fraction(weight, den)
    odds = acc.odds(request.text, system.id, verb, order)
    odds.labels = {**odds.labels, **{k: v for k, v in labels.items() if k in odds.outcomes}}
    _name_sides(odds, request)
    if isinstance(request, CheckRequest) and request.damage is not None and hits[1]:
        odds.extra["damage_mean_by_crit_dmg"] = _damage_by_mode(request.damage, *hits)
    return odds


def _damage_by_mode(damage: Any, normal: Fraction, critical: Fraction) -> dict[str, Fraction]:
    """The expected damage per attack under each crit-dmg mode (`rules.common.
    critical_damage`), from the chances of a normal and of a critical damage roll: a
    mode changes only what a critical hit rolls, never whether it hits. A mode whose
    damage cannot be computed (crit-dmg=max of an endless explosion) is left out."""
    from d20cli.language.vocabulary import CRIT_DMG_MODES
    from d20cli.rules.common import critical_damage

    base = normal * _mean(damage)
    out: dict[str, Fraction] = {}
    for mode in CRIT_DMG_MODES:
        try:
            out[mode] = base + critical * _mean(critical_damage(damage, mode))
        except D20Error:
            continue
    return out


@memo(
    1024,
    holds="a damage expression → the mean of its exact distribution",
    buys="odds lines of 2,000 new attacks with 4 damages x1.26 (the table session's odds "
    "lines x1.03): a new attack's mean damage under each crit-dmg mode is not worked out "
    "again (0.55 ms instead of 0.82 ms an attack)",
)
def _mean(expr: Any) -> Fraction:
    """The mean of a damage expression (its exact distribution's): pure, so remembered."""
    from d20cli.dice import distribution

    dist = distribution.distribution(expr)
    return Fraction(sum(t * w for t, w in dist.counts.items()), dist.denominator)


def _name_sides(odds: Odds, request: Request) -> None:
    """Name the sides of a contest whose odds list each side's chance to win, by their
    words as typed (label, modifier, options): `+3`, `carol +2 adv`; of two sides, the
    label word of each in its outcome's label, as its roll names it ("Second side wins
    (orc)")."""

    if not isinstance(request, ContestRequest):
        return
    if odds.winners is None:
        for key, side in zip(("first_wins", "second_wins"), request.sides, strict=False):
            if side.name and key in odds.labels:
                odds.labels[key] = f"{odds.labels[key]} ({side.name})"
        return
    names = []
    for side in request.sides:
        words = [side.name] if side.name else []
        if side.modifier is not None:
            text = str(side.modifier)
            words.append(text if text.startswith("-") else f"+{text}")
        words += ["adv"] * side.adv + ["dis"] * side.dis + list(side.circumstances)
        names.append(" ".join(words))
    odds.side_names = names


def _roll_odds(request: Any, system_id: str, within: Budget | None = None) -> Odds:
    from d20cli.dice import distribution
    from d20cli.rules.roll import with_advantage

    if request.parts:
        raise D20Error(
            "odds take one roll: ask for each of the line's rolls on its own "
            f"(`odds {request.parts[0].text}`)"
        )
    expr, _ = with_advantage(request.expr, request.adv) if request.adv else (request.expr, None)
    end = odds_budget(request.text).deadline  # the odds' deadline
    budget = Budget(weights.DEFAULT_MAX_STATES, str(expr), end, within)
    dist = distribution.distribution(expr, budget=budget)
    den = dist.denominator
    odds = Odds(request.text, system_id, "roll")
    odds.distribution = fractions_over(dist.counts, den)
    if dist.truncated:
        odds.notes = [
            f"explosions counted to a depth of {weights.DEFAULT_EXPLODE_DEPTH}; "
            f"the cap leaves out {percent(dist.truncated, 6)}"
        ]
        odds.extra["truncated"] = dist.truncated
    goal = request.target
    if goal is not None:  # `3d6 vs 12`: the chance of success, directly
        won = sum((p for t, p in odds.distribution.items() if goal.matches(t)), Fraction(0))
        odds.order = ["failure", "success"]
        odds.outcomes = {k: p for k, p in (("failure", 1 - won), ("success", won)) if p}
        odds.labels = {"failure": "Failure", "success": "Success"}
        odds.success = won
    return odds


def _verb_odds(request: Any, system_id: str, own: VerbOdds) -> Odds:
    """The odds a system states for a verb (`System.verb_odds`): refused, or the
    distribution of its expression (pendagger's ability score, 4d6 with the lowest
    dropped) and of each total's rank."""
    from d20cli.dice import distribution
    from d20cli.language.dice_grammar import parse_expression

    if own.refused is not None or own.expression is None:
        raise D20Error(own.refused or f"{request.verb} has no odds")
    dist = distribution.distribution(parse_expression(own.expression))
    den = dist.denominator
    odds = Odds(request.text, system_id, request.verb)
    odds.distribution = fractions_over(dist.counts, den)
    if own.rank is not None:
        ranks: dict[str, Fraction] = {}
        for total, p in odds.distribution.items():
            rank = str(own.rank(total))
            ranks[rank] = ranks.get(rank, Fraction(0)) + p
        odds.extra["ranks"] = ranks
    if own.note:
        odds.notes = [own.note]
    return odds


def _group_odds(
    request: Any,
    system: Any,
    grade_group: Callable[[list[bool], str | None], Any],
    order: list[str],
    labels: dict[str, str],
    max_paths: int,
    within: Budget | None = None,
) -> Odds:
    """A group check: each member's chance of success from its own check plan (else its
    resolver walk), the number of successes by convolution, and the system's own group
    grading on each count.

    Identical members (the same words anywhere in the line) are computed once, and all
    the members share the one limit of `max_paths` cases."""
    chance: dict[Any, Fraction] = {}  # by member, its place in the line left out
    ways = [1]  # ways[k] / scale: the probability that k members succeed so far
    scale = 1
    left = max_paths
    budget = odds_budget(request.text, within)
    totals = _totals_provider(budget)
    for member in request.members:
        single = replace(member, target=request.target, text=request.text)
        key = replace(single, columns=()) if hasattr(single, "columns") else single
        p_success = chance.get(key)
        if p_success is None:
            p_success = Fraction(0)

            def run(roller: Roller, m: Any = single) -> Result:
                return system.resolve(m, roller)  # type: ignore[no-any-return]

            try:
                plan = system.check_plan(single) if system.check_plan is not None else None
                done = None
                if plan is not None:  # graded pair by pair, as a check alone is
                    done = check_odds(
                        single, system.id, single.verb, plan, order, labels, totals, budget, left
                    )
                if done is not None:
                    left -= done.cases
                    p_success = done.odds.success or Fraction(0)
                else:
                    for weight, den, result, _ in paths(run, totals, left, budget, True):
                        left -= 1
                        if result.success:
                            p_success += Fraction(weight, den)
            except TooCostly as err:
                if not str(err).startswith("the exact odds need more than"):
                    raise  # over the steps of the budget, not over the cases
                raise TooCostly(
                    f"the exact odds need more than {max_paths:,} cases over the group's "
                    "members; estimate them with --simulate N"
                ) from None
            chance[key] = p_success
        hit, den = p_success.numerator, p_success.denominator
        nxt = [0] * (len(ways) + 1)
        for k, w in enumerate(ways):
            nxt[k] += w * (den - hit)
            nxt[k + 1] += w * hit
        ways, scale = nxt, scale * den
    count = [Fraction(w, scale) for w in ways]
    n = len(request.members)
    odds = Odds(request.text, system.id, request.verb, order=order)
    successes: dict[int, Fraction] = {}
    won: Fraction | None = None  # the chance the group succeeds, as its grade says
    for k, p in enumerate(count):
        if not p:
            continue
        grade = grade_group([True] * k + [False] * (n - k), request.rule)
        key = grade.outcome or NO_OUTCOME
        odds.outcomes[key] = odds.outcomes.get(key, Fraction(0)) + p
        odds.labels.setdefault(key, labels.get(key, key))
        successes[k] = p
        if grade.success is not None:
            won = (won or Fraction(0)) + (p if grade.success else 0)
    odds.success = won
    odds.extra["successes"] = {str(k): p for k, p in successes.items()}
    return odds


class JointOutcomes(NamedTuple):
    """What `joint_outcomes` gives: the probability of each case (outcome, total, winning
    side), and of the cases that roll damage, the probability of each distribution of
    damage they roll it from (a case that sometimes rolls none has less than its own)."""

    cases: Joint
    damage: dict[Case, dict[Spread, Fraction]]


def joint_outcomes(request: Any, system: Any, max_paths: int = 20_000) -> JointOutcomes | None:
    """The exact probability of each (outcome, total, winning side) of a request, from a
    walk over its resolver (the side only of a contest of three or more sides, else None),
    and the damage each rolls (`JointOutcomes`); None when the walk would be long, or the
    verb's odds are not a walk's (`System.verb_odds`): the caller then rolls instead."""
    if request.verb in system.verb_odds:
        return None
    joint: Joint = {}
    damage_of: dict[Case, dict[Spread, Fraction]] = {}
    budget = odds_budget(request.text)
    try:
        for weight, den, result, damage in paths(
            lambda roller: system.resolve(request, roller),
            _totals_provider(budget),
            max_paths,
            budget,
            convolve_damage=True,  # the damage's distribution, apart from the dice
        ):
            p = Fraction(weight, den)
            key = (result.outcome, result.total, _many_sides_winner(result))
            joint[key] = joint.get(key, Fraction(0)) + p
            if result.damage is not None:  # (its total a placeholder when `damage` is given)
                spread = damage or ((result.damage.total, 1),)
                mix = damage_of.setdefault(key, {})
                mix[spread] = mix.get(spread, Fraction(0)) + p
    except TooCostly:
        return None
    return JointOutcomes(joint, damage_of)


def _many_sides_winner(result: Result) -> int | None:
    """The winning side of a contest of three or more sides (None for any other result)."""
    return result.winner if result.sides is not None and len(result.sides) > 2 else None


def simulate(
    text: str,
    system_name: str,
    rolls: int,
    seed: int | None,
    budget: int = DEFAULT_BUDGET,
    work: int | None = None,
    parse: Callable[[str], Request] | None = None,
    step: Callable[[], None] | None = None,
) -> Odds:
    """An estimate from `rolls` random rolls (labelled as an estimate): each roll has the
    dice `budget`, and all of them together at most `work` dice (None: no limit).
    `parse`: as for `odds_of`. `step`: called after each roll (a progress bar counts
    them)."""
    from d20cli.dice.evaluate import fewest_dice
    from d20cli.rules import get_system

    if parse is None:
        from d20cli.language.grammar import parse_request

        parse = parse_request
    system = get_system(system_name)
    request = parse(text)
    roller = make_roller(seed, None, budget=budget)
    expr = getattr(request, "expr", None) if request.verb == "roll" else None
    least = fewest_dice(expr) if expr is not None else 0
    roller.start_command(work, least, rolls, f"'{request.text}' --simulate {rolls:,}")
    order, labels = _outcome_order(system, request.verb)
    acc = Accumulator()
    for run in range(rolls):
        if run:
            roller.next_run()
        acc.add(1, rolls, system.resolve(request, roller))
        if step is not None:
            step()
    odds = acc.odds(request.text, system.id, request.verb, order)
    odds.labels = {**odds.labels, **{k: v for k, v in labels.items() if k in odds.outcomes}}
    odds.estimate = rolls
    _name_sides(odds, request)
    return odds.sealed()
