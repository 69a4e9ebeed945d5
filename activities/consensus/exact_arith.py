# The Python engine of /verify/consensus: evaluates an arithmetic tree with exact rationals
# (fractions.Fraction), falling back to 50-digit decimal.Decimal only where a result is
# irrational (square roots, fractional powers). Runs inside the sandbox.
#
# The tree arrives on stdin as JSON, built in TypeScript (activities/consensus/arith.ts)
# from the math engine's parse; the caller's text is never executed. Input:
#   {"shape": "expression" | "equation", "sides": [tree, ...], "variables": [...],
#    "samples": [{"x": "2/3", ...}, ...]}
# Output (one JSON object): {"ok": true, "exact": bool, ...} with "num"/"den" or "decimal" for a
# closed expression, "equal" for a closed equation, and "equal", "points", "counterexample" for
# an equation with variables (checked at rational sample points: evidence, not a proof);
# or {"ok": false, "message": str}.
import json
import math
import sys
from decimal import Decimal, InvalidOperation, localcontext
from fractions import Fraction

PRECISION = 50
MAX_EXPONENT = 10000
# Decimal comparison: relative agreement this close counts as equal (inexact results only).
AGREEMENT = Decimal("1e-30")


class EvalError(Exception):
    pass


def to_decimal(x):
    if isinstance(x, Decimal):
        return x
    with localcontext() as ctx:
        ctx.prec = PRECISION
        return Decimal(x.numerator) / Decimal(x.denominator)


def iroot(x, n):
    """The integer n-th root of x >= 0, rounded down (Newton's method on integers)."""
    if x < 2:
        return x
    r = 1 << ((x.bit_length() + n - 1) // n)
    while True:
        s = ((n - 1) * r + x // r ** (n - 1)) // n
        if s >= r:
            return r
        r = s


def exact_sqrt(f):
    if f < 0:
        raise EvalError("square root of a negative number (real arithmetic)")
    n, d = f.numerator, f.denominator
    rn, rd = math.isqrt(n), math.isqrt(d)
    if rn * rn == n and rd * rd == d:
        return Fraction(rn, rd)
    return None


def ev(node, env):
    op = node["op"]
    if op == "num":
        return Fraction(node["value"])
    if op == "var":
        return env[node["name"]]
    if op == "neg":
        return -ev(node["arg"], env)
    if op == "abs":
        return abs(ev(node["arg"], env))
    if op == "sqrt":
        x = ev(node["arg"], env)
        if isinstance(x, Fraction):
            r = exact_sqrt(x)
            if r is not None:
                return r
        x = to_decimal(x)
        if x < 0:
            raise EvalError("square root of a negative number (real arithmetic)")
        with localcontext() as ctx:
            ctx.prec = PRECISION
            return x.sqrt()
    a = ev(node["args"][0], env)
    b = ev(node["args"][1], env)
    exact = isinstance(a, Fraction) and isinstance(b, Fraction)
    if op == "div" and b == 0:
        raise EvalError("division by zero")
    if op == "pow":
        if exact and b.denominator == 1:
            if abs(b.numerator) > MAX_EXPONENT:
                raise EvalError("exponent too large")
            if a == 0 and b < 0:
                raise EvalError("division by zero")
            return a ** b.numerator
        if exact and a >= 0 and b.denominator <= 100 and abs(b.numerator) <= MAX_EXPONENT:
            # A rational power of a perfect power stays exact: (p/q)^(m/n) = (p^(1/n) / q^(1/n))^m.
            n = b.denominator
            rn, rd = iroot(a.numerator, n), iroot(a.denominator, n)
            if rn**n == a.numerator and rd**n == a.denominator:
                if rn == 0 and b < 0:
                    raise EvalError("division by zero")
                return Fraction(rn, rd) ** b.numerator
        x, y = to_decimal(a), to_decimal(b)
        if x < 0:
            raise EvalError("fractional power of a negative number (real arithmetic)")
        if x == 0 and y < 0:
            raise EvalError("division by zero")
        with localcontext() as ctx:
            ctx.prec = PRECISION
            return x ** y
    if not exact:
        a, b = to_decimal(a), to_decimal(b)
        with localcontext() as ctx:
            ctx.prec = PRECISION
            return binary(op, a, b)
    return binary(op, a, b)


def binary(op, a, b):
    if op == "add":
        return a + b
    if op == "sub":
        return a - b
    if op == "mul":
        return a * b
    if op == "div":
        return a / b
    raise EvalError("unknown operation %s" % op)


def equal(l, r):
    """(equal, exact) for two values."""
    if isinstance(l, Fraction) and isinstance(r, Fraction):
        return l == r, True
    x, y = to_decimal(l), to_decimal(r)
    scale = max(Decimal(1), abs(x), abs(y))
    return abs(x - y) <= AGREEMENT * scale, False


def text_of(x):
    return x.numerator, x.denominator


def finish(obj):
    sys.stdout.write(json.dumps(obj))
    sys.stdout.flush()
    sys.exit(0)


def main():
    spec = json.load(sys.stdin)
    sides = spec["sides"]
    variables = spec["variables"]
    try:
        if spec["shape"] == "expression":
            v = ev(sides[0], {})
            if isinstance(v, Fraction):
                finish({"ok": True, "exact": True, "num": str(v.numerator), "den": str(v.denominator)})
            finish({"ok": True, "exact": False, "decimal": format(v, "f") if abs(v.adjusted()) < 40 else str(v)})
        if not variables:
            eq, exact = equal(ev(sides[0], {}), ev(sides[1], {}))
            finish({"ok": True, "exact": exact, "equal": bool(eq)})
    except (EvalError, ZeroDivisionError, InvalidOperation, OverflowError) as exc:
        finish({"ok": False, "message": str(exc) or type(exc).__name__})
    points = 0
    all_exact = True
    for sample in spec["samples"]:
        env = {name: Fraction(sample[name]) for name in variables}
        try:
            l = ev(sides[0], env)
            r = ev(sides[1], env)
        except (EvalError, ZeroDivisionError, InvalidOperation, OverflowError):
            continue  # undefined at this point (e.g. a divisor is 0): try the next one
        eq, exact = equal(l, r)
        all_exact = all_exact and exact
        points += 1
        if not eq:
            finish({"ok": True, "exact": exact, "equal": False, "points": points, "counterexample": sample})
    if points == 0:
        finish({"ok": False, "message": "the equation is undefined at every sample point"})
    finish({"ok": True, "exact": all_exact, "equal": True, "points": points})


main()
