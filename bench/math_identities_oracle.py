"""Generates the math engine's identity sets with SymPy as the oracle.

True set: identities SymPy itself proves (expand/expand_trig/trigsimp/expand_log (forced only
under a positivity assumption)/powdenest/gammasimp/combsimp/simplify of the difference is 0), built
from templates with seeded random coefficients. Identities that need assumptions use SymPy symbols
that carry them (positive=True, integer=True, ...) and record the same assumptions as the engine's
request `context` ({"domain": "positive"}, {"assumptions": {"n": ["nonnegative", "integer"]}}).
False set: perturbations of true ones and the classic traps, each confirmed false by SymPy (the
difference is non-zero at a point that satisfies the entry's assumptions, evaluated with 80 digits)
or, for traps and look-alikes that differ only beyond 64 digits, by construction.

Usage (bench/math-identities.ts runs it): python3 bench/math_identities_oracle.py OUT.json [SEED]
Deterministic for a given seed and SymPy version.
"""
import json
import random
import sys

import sympy as sp
from sympy import binomial, cos, cosh, exp, expand, expand_trig, factorial, gamma, log, pi, sin, sinh, sqrt, tan, tanh

x, y, z = sp.symbols("x y z")
# Symbols with the assumptions of the engine's contexts.
XP, YP, AP, BP = sp.symbols("x y a b", positive=True)
XN, YN = sp.symbols("x y", nonnegative=True)
XR, YR = sp.symbols("x y", real=True)
NI = sp.Symbol("n", integer=True)
NN, KN = sp.symbols("n k", integer=True, nonnegative=True)
NP = sp.Symbol("n", integer=True, positive=True)
POSITIVE = {"domain": "positive"}
NONNEGATIVE = {"domain": "nonnegative"}
REAL = {"domain": "real"}
N_INTEGER = {"assumptions": {"n": "integer"}}
N_POSITIVE_INTEGER = {"assumptions": {"n": ["positive", "integer"]}}
NK_NATURAL = {"assumptions": {"n": ["nonnegative", "integer"], "k": ["nonnegative", "integer"]}}


def text(e):
    """mathjs-compatible text: ** for powers, no E constant, abs for Abs."""
    s = sp.sstr(e, order="lex")
    if "E" in s.replace("Eq", ""):
        raise ValueError("E constant")
    return s.replace("Abs(", "abs(")


def sympy_proves(l, r, context=None):
    d = l - r
    force = context == POSITIVE  # expand_log(force=True) is valid only when every variable is positive
    steps = (sp.expand, expand_trig, sp.trigsimp, lambda e: sp.expand_log(e, force=force),
             lambda e: sp.powdenest(sp.expand_log(e, force=force), force=force), sp.gammasimp, sp.combsimp,
             lambda e: sp.combsimp(sp.expand_func(e)), sp.simplify)
    for f in steps:
        try:
            if sp.simplify(f(d)) == 0:
                return True
        except Exception:
            continue
    return False


def points_for(context):
    """Sample points (by symbol name) that satisfy the context's assumptions."""
    if context in (POSITIVE, NONNEGATIVE):
        return ({"x": sp.Rational(7, 10), "y": sp.Rational(13, 10), "z": sp.Rational(3, 2), "a": sp.Rational(5, 3), "b": sp.Rational(2, 7), "n": sp.Rational(9, 4)},
                {"x": sp.Rational(23, 10), "y": sp.Rational(11, 7), "z": sp.Rational(2, 9), "a": sp.Rational(1, 3), "b": sp.Rational(12, 5), "n": sp.Rational(3, 2)})
    if context in (N_INTEGER, N_POSITIVE_INTEGER, NK_NATURAL):
        return ({"x": sp.Rational(7, 10), "y": sp.Rational(-13, 10), "n": 7, "k": 3},
                {"x": sp.Rational(-23, 10), "y": sp.Rational(11, 7), "n": 9, "k": 4})
    return ({"x": sp.Rational(7, 10), "y": sp.Rational(-13, 10), "z": sp.Rational(3, 2), "a": sp.Rational(5, 3), "b": sp.Rational(-2, 7), "n": sp.Rational(9, 4), "k": sp.Rational(1, 3)},
            {"x": sp.Rational(-23, 10), "y": sp.Rational(11, 7), "z": sp.Rational(2, 9), "a": sp.Rational(1, 3), "b": sp.Rational(12, 5), "n": 6, "k": 2})


def differs(l, r, context=None):
    """A point satisfying the context where the sides differ by more than 1e-20 (80-digit evaluation)."""
    for named in points_for(context):
        try:
            pt = {s: named[s.name] for s in (l - r).free_symbols if s.name in named}
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


def depth_candidates(rng):
    """Hyperbolic/exponential forms, exp/log/root rules under assumptions, gamma/factorial/binomial."""
    out = []
    for _ in range(40):  # sinh/cosh/tanh in exponential form (all complex arguments)
        a, b = rng.choice([1, 2, 3, -1, -2]), rng.choice([0, 1, -1, 2])
        u = a * x + b * y
        f = rng.choice([sinh, cosh, tanh])
        out.append(("hyperbolic_exp", f(u), f(u).rewrite(exp), None))
    for _ in range(20):
        a, b = rng.choice([1, 2, 3, -2]), rng.choice([1, -1, 2])
        u = rng.choice([1, 2, 3]) * x
        out.append(("hyperbolic_exp", a * cosh(u) + b * sinh(u), sp.expand((a * cosh(u) + b * sinh(u)).rewrite(exp)), None))
    for f, g in ((cosh, sinh), (sinh, cosh)):
        for n in (1, 2, 3):
            out.append(("hyperbolic_exp", f(n * x) + g(n * x), exp(n * x), None))
    for _ in range(45):  # log of products and quotients of positive variables
        c = rng.choice([1, 2, 3, 5, sp.Rational(1, 2), sp.Rational(3, 4)])
        a, b = rng.choice([-3, -2, -1, 1, 2, 3]), rng.choice([-2, -1, 0, 1, 2])
        l = log(c * XP ** a * YP ** b)
        out.append(("log_expand", l, sp.expand_log(l), POSITIVE))
    for e in (AP, BP, AP * BP, AP + 1, 2 * BP):
        out.append(("log_power", log(XP ** e), e * log(XP), POSITIVE))
    for _ in range(10):
        a, b = rng.choice([1, 2, 3]), rng.choice([1, 2])
        out.append(("log_expand", log(XP ** a * (YP + 1) ** b), sp.expand_log(log(XP ** a * (YP + 1) ** b), force=True), POSITIVE))
    for l, r in (((XP ** AP) ** BP, XP ** (AP * BP)), (XP ** AP * XP ** BP, XP ** (AP + BP)), ((XP * YP) ** AP, XP ** AP * YP ** AP),
                 ((XP / YP) ** AP, XP ** AP / YP ** AP), (XP ** AP / XP ** BP, XP ** (AP - BP)), ((XP ** 2) ** AP, XP ** (2 * AP))):
        out.append(("power_of_power", l, r, POSITIVE))
    for c in range(-4, 5):  # exp(c·log(x)) = x^c (all x != 0)
        if c != 0:
            out.append(("exp_log", sp.exp(c * log(x), evaluate=False), x ** c, None))
            out.append(("exp_log", sp.exp(c * log(x) + y, evaluate=False), x ** c * exp(y), None))
    for a in (1, 2, 3, -1):
        out.append(("log_exp", sp.log(sp.exp(a * XR + YR, evaluate=False), evaluate=False), a * XR + YR, REAL))
    for a, b in ((2, 4), (2, 2), (4, 2), (2, 6), (6, 4), (0, 2)):  # roots of non-negative / real monomials
        if a or b:
            out.append(("root_nonnegative", sp.Pow(XN ** a * YN ** b, sp.Rational(1, 2), evaluate=False), XN ** (a // 2) * YN ** (b // 2), NONNEGATIVE))
    for a in (2, 6, 10):
        out.append(("root_real", sp.Pow(XR ** a, sp.Rational(1, 2), evaluate=False), sp.Abs(XR) ** (a // 2), REAL))
    for a in (4, 8):
        out.append(("root_real", sp.Pow(XR ** a * YR ** 2, sp.Rational(1, 2), evaluate=False), XR ** (a // 2) * sp.Abs(YR), REAL))
    out.append(("root_nonnegative", sqrt(XP * YP), sqrt(XP) * sqrt(YP), POSITIVE))
    out.append(("root_nonnegative", sqrt(4 * XP ** 3), 2 * XP * sqrt(XP), POSITIVE))
    for a in (1, 2, 3, -1, -2):  # exp(n·u) = exp(u)^n for integer n
        out.append(("exp_integer_power", sp.Pow(exp(a * x), NI, evaluate=False), exp(a * NI * x), N_INTEGER))
    out.append(("exp_integer_power", sp.Pow(exp(x + y), NI, evaluate=False), exp(NI * x) * exp(NI * y), N_INTEGER))
    for k in list(range(-4, 0)) + list(range(1, 7)):  # gamma recurrence
        for u in (x, 2 * x, x + y, x + sp.Rational(1, 2), 3 * x - y):
            out.append(("gamma_recurrence", gamma(u + k), sp.expand_func(gamma(u + k)), None))
    for k in range(1, 6):  # factorial recurrence
        prod = 1
        for j in range(k):
            prod *= NP - j
        out.append(("factorial", factorial(NP), prod * factorial(NP - k), N_POSITIVE_INTEGER))
        out.append(("factorial", factorial(NP + k) / factorial(NP), sp.expand(sp.prod([NP + j for j in range(1, k + 1)])), N_POSITIVE_INTEGER))
    out.append(("factorial", factorial(NP), NP * factorial(NP - 1), N_POSITIVE_INTEGER))
    out.append(("factorial", factorial(x), gamma(x + 1), None))
    out.append(("binomial", binomial(NN, KN), binomial(NN, NN - KN), NK_NATURAL))
    out.append(("binomial", binomial(NN, KN), factorial(NN) / (factorial(KN) * factorial(NN - KN)), NK_NATURAL))
    out.append(("binomial", binomial(NN + 1, KN), binomial(NN, KN) + binomial(NN, KN - 1), NK_NATURAL))
    out.append(("binomial", binomial(NN, KN), binomial(NN - 1, KN - 1) + binomial(NN - 1, KN), NK_NATURAL))
    out.append(("binomial", KN * binomial(NN, KN), NN * binomial(NN - 1, KN - 1), NK_NATURAL))
    out.append(("binomial", binomial(NN + 1, KN + 1), (NN + 1) * binomial(NN, KN) / (KN + 1), NK_NATURAL))
    out.append(("binomial", binomial(NN, KN + 1), binomial(NN, KN) * (NN - KN) / (KN + 1), NK_NATURAL))
    for m in range(0, 6):
        out.append(("binomial", binomial(NN, m), sp.expand(sp.expand_func(binomial(NN, m))), NK_NATURAL))
        out.append(("binomial", binomial(NN + m, NN), binomial(NN + m, m), NK_NATURAL))
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
        ("beyond_64_digits", "gamma(1/2) = " + sp.N(sqrt(pi), 100).__str__()[:99] + "4"),
        ("beyond_64_digits", "exp(log(3)/2) = " + sp.N(sqrt(3), 100).__str__()[:99] + "1"),
        ("float_lookalike", "gamma(0.5) = 1.772453850905516"),
        ("float_lookalike", "sinh(1) = 1.1752011936438014"),
        ("float_lookalike", "binomial(50, 25) = 126410606437752.1"),
        # Assumption traps: true only under assumptions the request does not declare.
        ("trap", "log(x^n) = n*log(x)"),
        ("trap", "exp(x)^y = exp(x*y)"),
        ("trap", "log(exp(x)) = x"),
        ("trap", "(x*y)^a = x^a*y^a"),
        ("trap", "exp(n*x) = exp(x)^n"),
        ("trap", "sqrt(x)*sqrt(y) = sqrt(x*y)"),
        ("trap", "log(x/y) = log(x) - log(y)"),
        ("trap", "x^(1/2)*x^(1/2) = abs(x)"),
        # Gamma family traps (gamma(x+1) = x*gamma(x) is true; these are not).
        ("trap_gamma", "gamma(x+1) = gamma(x) + 1"),
        ("trap_gamma", "gamma(x+1) = (x+1)*gamma(x)"),
        ("trap_gamma", "gamma(2*x) = 2*gamma(x)"),
        ("trap_gamma", "gamma(x+y) = gamma(x)*gamma(y)"),
        ("trap_gamma", "gamma(x) = factorial(x)"),
        ("trap_gamma", "factorial(n+1) = factorial(n) + 1"),
        ("trap_gamma", "factorial(2*n) = 2*factorial(n)"),
        ("trap_gamma", "factorial(n) = n*factorial(n-2)"),
        ("trap_gamma", "binomial(n, k) = binomial(n, k-1)"),
        ("trap_gamma", "binomial(n, k) = factorial(n)/factorial(k)"),
        ("trap_gamma", "binomial(n+1, k) = binomial(n, k) + binomial(n, k+1)"),
        ("trap_gamma", "binomial(n, k) = binomial(n-1, k-1)*n"),
    ]
    return [(f, c, None) for f, c in lines] + [
        # Declared assumptions that are not enough.
        ("trap_assumption", "sqrt(x^2) = x", REAL),
        ("trap_assumption", "log(x*y) = log(x) + log(y)", REAL),
        ("trap_assumption", "(x^a)^b = x^(a*b)", REAL),
        ("trap_assumption", "log(x^2) = 2*log(x)", REAL),
        ("trap_assumption", "sqrt(x*y) = sqrt(x)*sqrt(y)", REAL),
        ("trap_assumption", "sqrt(x^2) = x", {"domain": "integer"}),
        ("trap_assumption", "log(x^n) = n*log(x)", N_INTEGER),
        ("trap_assumption", "sqrt(x^6) = x^3", REAL),
        ("trap_assumption", "log(x + y) = log(x) + log(y)", POSITIVE),
        ("trap_assumption", "sqrt(x + y) = sqrt(x) + sqrt(y)", POSITIVE),
        ("trap_assumption", "(x^a)^b = x^(a+b)", POSITIVE),
        ("trap_assumption", "log(x^a) = log(x)^a", POSITIVE),
        ("trap_assumption", "gamma(x+1) = x*gamma(x) + 1", POSITIVE),
        ("trap_assumption", "factorial(n) = n^2*factorial(n-1)", N_POSITIVE_INTEGER),
        ("trap_assumption", "binomial(n, k) = binomial(n, n-k+1)", NK_NATURAL),
    ]


def main():
    out_path = sys.argv[1]
    seed = int(sys.argv[2]) if len(sys.argv) > 2 else 20261123
    rng = random.Random(seed)
    true_set, false_set, seen = [], [], set()

    def entry(family, claim, context):
        return {"family": family, "expression": claim, **({"context": context} if context else {})}

    def candidates(r):
        return [(f, l, rr, None) for f, l, rr in true_candidates(r)] + depth_candidates(r)

    for family, l, r, context in candidates(rng):
        try:
            claim = f"{text(l)} = {text(r)}"
        except ValueError:
            continue
        if claim in seen or l == r:
            continue
        if not sympy_proves(l, r, context):
            continue
        seen.add(claim)
        true_set.append(entry(family, claim, context))
        pl, pr = perturb(rng, l, r)
        try:
            fclaim = f"{text(pl)} = {text(pr)}"
        except ValueError:
            continue
        if fclaim not in seen and differs(pl, pr, context):
            seen.add(fclaim)
            false_set.append(entry(f"perturbed_{family}", fclaim, context))
    # Extra perturbations until the false set is as large as the true one.
    pool = candidates(random.Random(seed + 1))
    i = 0
    while len(false_set) < len(true_set) and i < 5000:
        family, l, r, context = pool[i % len(pool)]
        i += 1
        pl, pr = perturb(rng, l, r)
        try:
            fclaim = f"{text(pl)} = {text(pr)}"
        except ValueError:
            continue
        if fclaim not in seen and differs(pl, pr, context):
            seen.add(fclaim)
            false_set.append(entry(f"perturbed_{family}", fclaim, context))
    for family, claim, context in traps():
        false_set.append(entry(family, claim, context))
    json.dump({"generator": "bench/math_identities_oracle.py", "sympy": sp.__version__, "seed": seed,
               "true": true_set, "false": false_set}, open(out_path, "w"), indent=1)
    print(f"true {len(true_set)}, false {len(false_set)} -> {out_path}")


if __name__ == "__main__":
    main()
