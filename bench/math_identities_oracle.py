"""Generates the math engine's identity sets with SymPy as the oracle.

True set: identities SymPy itself proves (simplify/trigsimp/expand_trig of the difference is 0),
built from templates with seeded random coefficients. False set: perturbations of true ones and
the classic traps, each confirmed false by SymPy (the difference is non-zero at a point evaluated
with 80 digits) or, for look-alikes that differ only beyond 64 digits, by construction.

Usage (bench/math-identities.ts runs it): python3 bench/math_identities_oracle.py OUT.json [SEED]
Deterministic for a given seed and SymPy version.
"""
import json
import random
import sys

import sympy as sp
from sympy import cos, cosh, exp, expand, expand_trig, log, pi, sin, sinh, sqrt, tan, tanh

x, y, z = sp.symbols("x y z")


def text(e):
    """mathjs-compatible text: ** for powers, no E constant."""
    s = sp.sstr(e, order="lex")
    if "E" in s.replace("Eq", ""):
        raise ValueError("E constant")
    return s


def sympy_proves(l, r):
    d = l - r
    for f in (sp.expand, expand_trig, sp.trigsimp, sp.simplify):
        try:
            if sp.simplify(f(d)) == 0:
                return True
        except Exception:
            return False
    return False


def differs(l, r):
    """A point where the sides differ by more than 1e-20 (80-digit evaluation)."""
    for pt in ({x: sp.Rational(7, 10), y: sp.Rational(-13, 10), z: sp.Rational(3, 2)},
               {x: sp.Rational(-23, 10), y: sp.Rational(11, 7), z: sp.Rational(2, 9)}):
        try:
            a = sp.N(l.subs(pt), 80)
            b = sp.N(r.subs(pt), 80)
            if a.is_finite is False or b.is_finite is False:
                continue
            if abs(sp.N(a - b, 80)) > sp.Float("1e-20", 80):
                return True
        except Exception:
            continue
    return False


def rnd_poly(rng, vars_, terms=3, deg=3):
    e = 0
    for _ in range(terms):
        c = rng.choice([-3, -2, -1, 1, 2, 3, sp.Rational(1, 2), sp.Rational(-3, 4)])
        m = 1
        for v in vars_:
            m *= v ** rng.randint(0, deg)
        e += c * m
    return e


def true_candidates(rng):
    out = []
    for _ in range(260):  # polynomial expansions
        a = rnd_poly(rng, [x, y], 2, 2)
        b = rnd_poly(rng, [x, y], 2, 2)
        out.append(("polynomial", a * b, expand(a * b)))
    for _ in range(80):  # rational cancellation
        a = rnd_poly(rng, [x], 2, 2) + 1
        b = x - rng.randint(1, 5)
        out.append(("rational", sp.expand(a * b) / b, a))
    for n in range(2, 7):  # multiple angles
        for f in (sin, cos):
            out.append(("multiple_angle", f(n * x), expand_trig(f(n * x))))
        for f in (sinh, cosh):
            out.append(("hyperbolic_multiple", f(n * x), expand_trig(f(n * x))))
    for _ in range(160):  # angle sums with small integer coefficients
        a, b = rng.choice([-3, -2, -1, 1, 2, 3]), rng.choice([-2, -1, 1, 2])
        f = rng.choice([sin, cos, sinh, cosh])
        out.append(("angle_sum", f(a * x + b * y), expand_trig(f(a * x + b * y))))
    for _ in range(20):
        a, b = rng.choice([1, 2]), rng.choice([1, 2])
        out.append(("tan_sum", tan(a * x + b * y), expand_trig(tan(a * x + b * y))))
    for k in (sp.Rational(1, 2), sp.Rational(1, 3), sp.Rational(1, 4), sp.Rational(1, 6), 1, sp.Rational(3, 2), 2):
        for f in (sin, cos):
            out.append(("shift_by_pi", f(x + k * pi), expand_trig(f(x + k * pi))))
    for f, g in ((sin, cos), (cos, sin)):  # power reduction / half angle
        out.append(("power_reduction", f(x) ** 2, (1 - cos(2 * x)) / 2 if f is sin else (1 + cos(2 * x)) / 2))
    out.append(("half_angle", cos(x), 2 * cos(x / 2) ** 2 - 1))
    out.append(("half_angle", cos(x), 1 - 2 * sin(x / 2) ** 2))
    out.append(("half_angle", sin(x), 2 * sin(x / 2) * cos(x / 2)))
    out.append(("power_reduction", sin(x) ** 3, (3 * sin(x) - sin(3 * x)) / 4))
    out.append(("power_reduction", cos(x) ** 3, (3 * cos(x) + cos(3 * x)) / 4))
    out.append(("power_reduction", sin(x) ** 2 * cos(x) ** 2, (1 - cos(4 * x)) / 8))
    out.append(("pythagorean", sin(x) ** 2 + cos(x) ** 2, sp.Integer(1)))
    out.append(("pythagorean", cosh(x) ** 2 - sinh(x) ** 2, sp.Integer(1)))
    out.append(("pythagorean", 1 + tan(x) ** 2, 1 / cos(x) ** 2))
    out.append(("pythagorean", 1 - tanh(x) ** 2, 1 / cosh(x) ** 2))
    for _ in range(80):  # exponentials
        a, b = rng.choice([1, 2, 3, -1]), rng.choice([1, 2, -2])
        out.append(("exponential", exp(a * x + b * y), exp(a * x) * exp(b * y)))
    for n in range(2, 6):
        out.append(("exponential", exp(x) ** n, exp(n * x)))
    for _ in range(60):  # products of angle sums, expanded
        a, b, c = rng.choice([1, 2, 3]), rng.choice([-1, 1, 2]), rng.choice([1, 2])
        f, g = rng.choice([sin, cos]), rng.choice([sin, cos])
        l = f(a * x + b * y) * g(c * x)
        out.append(("trig_product", l, expand(expand_trig(l))))
    for _ in range(40):  # polynomials in sin and cos
        p, q = rng.choice([1, 2, -1, 3]), rng.choice([1, -2, 2, -1])
        n = rng.choice([2, 3])
        l = (p * sin(x) + q * cos(y)) ** n
        out.append(("trig_polynomial", l, expand(l)))
    for n in range(2, 5):  # product to sum
        out.append(("product_to_sum", sin(n * x) * cos(x), (sin((n + 1) * x) + sin((n - 1) * x)) / 2))
        out.append(("product_to_sum", cos(n * x) * cos(x), (cos((n + 1) * x) + cos((n - 1) * x)) / 2))
    for n in range(2, 5):
        out.append(("hyperbolic_exp", cosh(n * x), (exp(n * x) + exp(-n * x)) / 2))
        out.append(("hyperbolic_exp", sinh(n * x), (exp(n * x) - exp(-n * x)) / 2))
    return out


def perturb(rng, l, r):
    choice = rng.randint(0, 3)
    if choice == 0:
        return l, r + rng.choice([1, -1, sp.Rational(1, 2)])
    if choice == 1:
        return l, r * 2
    if choice == 2:
        return l, r.subs(x, x + 1)
    return l, r.subs({sin: cos}) if r.has(sin) else r + x


def traps():
    a, b = sp.symbols("a b")
    lines = [
        ("trap", "sqrt(x^2) = x"),
        ("trap", "log(x*y) = log(x) + log(y)"),
        ("trap", "log(x^2) = 2*log(x)"),
        ("trap", "(x^a)^b = x^(a*b)"),
        ("trap", "sqrt(x*y) = sqrt(x)*sqrt(y)"),
        ("trap", "exp(log(x)*2) = x"),
        ("trap", "asin(sin(x)) = x"),
        ("trap", "atan(tan(x)) = x"),
        ("trap", "(x^2)^(1/2) = x"),
        ("trap", "sin(x)/x = 1"),
        ("trap", "cos(x)^2 - sin(x)^2 = 1"),
        ("trap", "tan(x) = sin(x)*cos(x)"),
        ("trap", "sin(2*x) = 2*sin(x)"),
        ("trap", "cosh(x)^2 + sinh(x)^2 = 1"),
        ("trap", "exp(x + y) = exp(x) + exp(y)"),
        ("trap", "log(x + y) = log(x)*log(y)"),
        ("float_lookalike", "0.1 + 0.2 = 0.30000000000000004"),
        ("float_lookalike", "1/3 = 0.3333333333333333"),
        ("float_lookalike", "sqrt(2) = 1.4142135623730951"),
        ("float_lookalike", "pi = 3.141592653589793"),
        # Equal to 64 digits and beyond, different in the 70th-100th: never a proof.
        ("beyond_64_digits", "pi = " + sp.N(pi, 100).__str__()[:99] + "1"),
        ("beyond_64_digits", "sqrt(2) = " + sp.N(sqrt(2), 100).__str__()[:99] + "7"),
        ("beyond_64_digits", "exp(1) = " + sp.N(sp.E, 100).__str__()[:99] + "3"),
        ("beyond_64_digits", "log(2) = " + sp.N(log(2), 100).__str__()[:99] + "9"),
        ("beyond_64_digits", "1/7 = 0." + "142857" * 15 + "2"),
    ]
    return lines


def main():
    out_path = sys.argv[1]
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 20261123
    rng = random.Random(seed)
    true_set, false_set, seen = [], [], set()
    for family, l, r in true_candidates(rng):
        try:
            claim = f"{text(l)} = {text(r)}"
        except ValueError:
            continue
        if claim in seen or l == r:
            continue
        if not sympy_proves(l, r):
            continue
        seen.add(claim)
        true_set.append({"family": family, "expression": claim})
        pl, pr = perturb(rng, l, r)
        try:
            fclaim = f"{text(pl)} = {text(pr)}"
        except ValueError:
            continue
        if fclaim not in seen and differs(pl, pr):
            seen.add(fclaim)
            false_set.append({"family": f"perturbed_{family}", "expression": fclaim})
    # Extra perturbations until the false set is as large as the true one.
    pool = list(true_candidates(random.Random(seed + 1)))
    i = 0
    while len(false_set) < len(true_set) and i < 5000:
        family, l, r = pool[i % len(pool)]
        i += 1
        pl, pr = perturb(rng, l, r)
        try:
            fclaim = f"{text(pl)} = {text(pr)}"
        except ValueError:
            continue
        if fclaim not in seen and differs(pl, pr):
            seen.add(fclaim)
            false_set.append({"family": f"perturbed_{family}", "expression": fclaim})
    for family, claim in traps():
        false_set.append({"family": family, "expression": claim})
    json.dump({"generator": "bench/math_identities_oracle.py", "sympy": sp.__version__, "seed": seed,
               "true": true_set, "false": false_set}, open(out_path, "w"), indent=1)
    print(f"true {len(true_set)}, false {len(false_set)} -> {out_path}")


if __name__ == "__main__":
    main()
