"""How exact numbers are written: any fraction, however many digits it has.

The odds engine works in exact fractions, and some are astronomically small (a group of
hundreds, a long chain of explosions: 1 in 10^400). Nothing here converts a whole
fraction to a float, which overflows past 10^308, and nothing calls `str` on an integer
beyond Python's limit on digits (4,300), which raises:

- `exact_fraction` / `exact_int`: every digit, for JSON.
- `decimal`: a probability (or a mean) as the nearest float, for JSON beside its exact
  fraction (a float of a chance never overflows; one below 1e-308 is 0.0).
- `scientific`: `3.2e-130`, computed from the integers, for any magnitude.
- `short_fraction`: `193/2400` when that is short, else `≈ 3.2e-130` (for people).
- `one_in`: `1 in 400`, `1 in 12.4`, `1 in 6.1e+102`.
- `percent`: `8.04%`, and `<0.01%` / `>99.99%` rather than a rounded 0 or 100 for a
  chance that is neither.
"""

from __future__ import annotations

import math
import sys
from fractions import Fraction

SHORT_FRACTION = 20  # characters: a longer fraction is shown as ≈ scientific notation
ONE_IN_EXACT = 10**9  # "1 in N" with every digit below this, scientific notation above
_SAFE_DIGITS = 4000  # below Python's default limit for int <-> str conversion (4,300)
STR_BITS = _SAFE_DIGITS * 3  # an integer of fewer bits is written by `str` (fewer digits)


def exact_int(n: int) -> str:
    """All the digits of `n`, also beyond Python's limit for `str(int)`."""
    # a digit carries more than 3 bits, so this many bits are well inside the limit
    # (`bit_length` is that of abs(n)): the usual case, first
    if n.bit_length() < STR_BITS or not sys.get_int_max_str_digits():
        return str(n)
    if n < 0:
        return "-" + exact_int(-n)
    digits = len_digits(n)
    half = digits // 2
    high, low = divmod(n, 10**half)
    return exact_int(high) + exact_int(low).rjust(half, "0")


def exact_fraction(p: Fraction) -> str:
    """`numerator/denominator`, every digit (the JSON form of a probability)."""
    n, d = p.as_integer_ratio()
    if d.bit_length() < STR_BITS and n.bit_length() < STR_BITS:
        return f"{n}/{d}"
    return f"{exact_int(n)}/{exact_int(d)}"


def exact_ratio(n: int, d: int) -> tuple[str, float]:
    """The chance n/d (0 <= n <= d), reduced, as `exact_fraction` writes it, and as `decimal`
    gives it: what a Fraction(n, d) would give, without making the Fraction."""
    g = math.gcd(n, d)
    if g != 1:
        n, d = n // g, d // g
    if d.bit_length() < STR_BITS and n.bit_length() < STR_BITS:
        return f"{n}/{d}", n / d
    return f"{exact_int(n)}/{exact_int(d)}", n / d


def decimal(p: Fraction) -> float:
    """The float nearest to `p` (the numerator divided by the denominator as integers,
    correctly rounded whatever their size): what JSON gives beside an exact fraction, so
    that a program can do arithmetic on it (`jq '.success_decimal * 100'`)."""
    return p.numerator / p.denominator


def len_digits(n: int) -> int:
    """How many decimal digits `abs(n)` has (1 for 0), without converting it to text."""
    n = abs(n)
    if n < 10:
        return 1
    guess = int((n.bit_length() - 1) * math.log10(2)) + 1  # exact or one too few
    return guess + 1 if n >= 10**guess else guess


def _exponent(x: Fraction) -> int:
    """The e with 10^e <= x < 10^(e+1), for x > 0."""
    e = len_digits(x.numerator) - len_digits(x.denominator)  # e or e + 1
    if _pow10(e) > x:
        e -= 1
    return e


def _pow10(e: int) -> Fraction:
    return Fraction(10**e) if e >= 0 else Fraction(1, 10**-e)


def scientific(x: Fraction | int, digits: int = 2) -> str:
    """`x` in scientific notation with `digits` significant digits, as Python writes a
    float (`3.2e-130`, `6.1e+102`), for any size of `x`."""
    x = Fraction(x)
    if x == 0:
        return "0"
    sign = "-" if x < 0 else ""
    x = abs(x)
    e = _exponent(x)
    mantissa = round(x / _pow10(e - digits + 1))
    if mantissa >= 10**digits:  # 9.96 rounded up to 10.0
        mantissa //= 10
        e += 1
    text = str(mantissa)
    body = text[0] + ("." + text[1:] if len(text) > 1 else "")
    return f"{sign}{body}e{'-' if e < 0 else '+'}{abs(e):02d}"


def short_fraction(p: Fraction, limit: int = SHORT_FRACTION) -> str:
    """The exact fraction when it is at most `limit` characters, else `≈ 3.2e-130`."""
    if len_digits(p.numerator) + len_digits(p.denominator) + 1 <= limit:
        return f"{p.numerator}/{p.denominator}"
    return "\u2248 " + scientific(p)


def one_in(p: Fraction) -> str:
    """`1 in N` for a probability: every digit of a whole N below a billion, one decimal
    for a fractional one, scientific notation beyond (`1 in 6.1e+102`)."""
    if p <= 0:
        return "never"
    n = 1 / p
    if n >= ONE_IN_EXACT:
        return f"1 in {scientific(n)}"
    if n.denominator == 1:
        return f"1 in {n.numerator:,}"
    return f"1 in {float(n):,.1f}"


def percent(p: Fraction, places: int = 2, width: int = 0) -> str:
    """`p` as a percentage with `places` decimals, right-aligned in `width` characters
    (the `%` included). A chance that is not 0 but rounds to it reads `<0.01%`, one that
    is not certain but rounds to 100 reads `>99.99%`."""
    step = Fraction(1, 10**places)
    hundred = p * 100
    if 0 < hundred < step / 2:
        text = f"<{float(step):.{places}f}%"
    elif 100 - step / 2 <= hundred < 100:
        text = f">{float(100 - step):.{places}f}%"
    else:
        text = f"{float(hundred):.{places}f}%"
    return text.rjust(width)
