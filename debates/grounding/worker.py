"""The child process that parses and computes grounding tasks with SymPy, under OS limits.

Run as a script (``python -I worker.py MEMORY_BYTES CPU_SECONDS``), never imported by the
parent except for ``NAMES``. The limits are set before SymPy is imported: hostile input can at
worst exhaust this process, which the parent kills on its own deadline anyway. Protocol: one
JSON task per stdin line, one JSON reply per stdout line (``{"facts": [...]}`` or
``{"error": "..."}``); ``ready`` is printed once SymPy is loaded.
"""

import json
import resource
import sys

# The only names a screened expression may use besides one-letter symbols; each maps to the
# SymPy object of the same name unless aliased here.
FUNCTIONS: tuple[str, ...] = ("sin", "cos", "tan", "cot", "sec", "csc", "asin", "acos", "atan", "sinh", "cosh", "tanh")
FUNCTIONS += ("exp", "log", "ln", "sqrt", "abs", "Abs", "factorial", "binomial", "gcd", "lcm", "floor", "ceiling")
NAMES = frozenset((*FUNCTIONS, "pi", "E", "e", "I", "oo"))
ALIASES = {"ln": "log", "abs": "Abs", "e": "E"}
MAX_RESULT_CHARS = 400


class Uninteresting(Exception):
    """Nothing worth stating (e.g. an equation in two unknowns): no fact, no note."""


def set_limits(memory_bytes: int, cpu_seconds: int) -> None:
    resource.setrlimit(resource.RLIMIT_AS, (memory_bytes, memory_bytes))
    resource.setrlimit(resource.RLIMIT_CPU, (cpu_seconds, cpu_seconds))
    resource.setrlimit(resource.RLIMIT_FSIZE, (0, 0))  # no file is ever written
    resource.setrlimit(resource.RLIMIT_NPROC, (0, 0))  # no process is ever started


def main() -> None:
    set_limits(int(sys.argv[1]), int(sys.argv[2]))
    import sympy
    from sympy.parsing import sympy_parser as sp

    transformations = (
        sp.auto_symbol,
        sp.repeated_decimals,
        sp.auto_number,
        sp.factorial_notation,
        sp.rationalize,  # 0.1 + 0.2 is exactly 3/10, not a float
        sp.convert_xor,
        sp.implicit_multiplication_application,
    )
    namespace: dict[str, object] = {"__builtins__": {}}
    for name in ("Integer", "Float", "Rational", "Symbol", "Function"):
        namespace[name] = getattr(sympy, name)
    for name in NAMES:
        namespace[name] = getattr(sympy, ALIASES.get(name, name))

    def parse(source: str):
        # A fresh dict each time: parse_expr would otherwise leak names between tasks.
        return sp.parse_expr(source, local_dict={}, global_dict=dict(namespace), transformations=transformations)

    # Load numeric evaluation and expansion now, not on a first task between two rounds.
    exact(sympy, parse("log(2)/log(107/100)"))
    sympy.cancel(parse("(a+b)^2") - parse("a^2+2ab+b^2"))
    for shape in ("(12/100)*(250*1)", "Abs(((100*1)-(80*1))/(80*1))", "(1+(10/100))^(5)", "-(25*(1/100)+0)"):
        exact(sympy, parse(shape))  # the shapes the checks between rounds send
    print("ready", flush=True)
    for line in sys.stdin:
        reply: dict[str, object]
        try:
            reply = {"facts": compute(sympy, parse, json.loads(line))}
        except Uninteresting:
            reply = {"facts": []}
        except MemoryError:
            reply = {"error": "it needs more memory than allowed"}
        except RecursionError:
            reply = {"error": "it is nested too deeply"}
        except Exception as error:  # anything SymPy raises becomes words, never a crash
            reply = {"error": (str(error) or type(error).__name__)[:200]}
        print(json.dumps(reply), flush=True)


def text(value) -> str:
    try:
        rendered = str(value)
    except ValueError:  # Python refuses to print integers over 4300 digits
        rendered = "x" * (MAX_RESULT_CHARS + 1)
    if len(rendered) > MAX_RESULT_CHARS:
        raise ValueError(f"the result is longer than {MAX_RESULT_CHARS} characters")
    return rendered


def fact(kind: str, expression: str, result) -> dict:
    return {"kind": kind, "expression": expression, "result": text(result)}


def wrapped(source: str) -> str:
    """``source`` in parentheses unless one pair already encloses all of it."""
    depth = 0
    for index, char in enumerate(source):
        depth += {"(": 1, ")": -1}.get(char, 0)
        if depth == 0 and index < len(source) - 1:
            return f"({source})"
    return source if source.startswith("(") else f"({source})"


def pick_variable(sympy, task: dict, *exprs):
    if task.get("var"):
        return sympy.Symbol(task["var"])
    symbols = set().union(*(e.free_symbols for e in exprs))
    if len(symbols) == 1:
        return symbols.pop()
    x = sympy.Symbol("x")
    if x in symbols or not symbols:
        return x
    raise Uninteresting


def exact(sympy, value) -> str:
    """The exact value, with a decimal approximation when it is not a plain rational."""
    if value.is_Rational or not value.is_number or not value.is_finite:
        return text(value)
    approx = sympy.N(value, 15)
    return f"{text(value)} ≈ {approx}" if approx.is_real else text(value)


def compute(sympy, parse, task: dict) -> list[dict]:
    kind, source = task["kind"], task["expr"]
    value = parse(source)
    if kind == "arithmetic":
        if value.free_symbols:
            raise Uninteresting
        return [fact(kind, source, exact(sympy, value))]
    if kind == "simplify":
        if value.free_symbols:
            return [fact(kind, f"simplify({source})", sympy.simplify(value))]
        return [fact("arithmetic", source, exact(sympy, value))]
    if kind == "isprime":
        return [fact(kind, f"isprime({source})", sympy.isprime(int(value)))]
    if kind == "factor":
        return [fact(kind, f"factor({source})", factorisation(sympy, value))]
    if kind == "identity":  # a claim that two expressions are equal for every value of their symbols
        difference = value - parse(task["rhs"])
        # A rational function is settled exactly by cancelling; anything else by SymPy's own test.
        holds = sympy.cancel(difference) == 0 if difference.is_rational_function() else difference.equals(0)
        if holds is None:
            raise ValueError("SymPy could not decide whether it holds")
        return [fact("identity_check", f"{source} = {task['rhs']}", bool(holds))]
    if kind in ("equation", "solve"):
        return equation(sympy, task, source, value, parse(task.get("rhs") or "0"))
    var = pick_variable(sympy, task, value)
    if kind == "derivative":
        return [fact(kind, f"d/d{var} {wrapped(source)}", sympy.diff(value, var))]
    if kind == "integral":
        if task.get("lower"):
            lower, upper = task["lower"], task["upper"]
            result = sympy.integrate(value, (var, parse(lower), parse(upper)))
            expression = f"∫ from {lower} to {upper} of {wrapped(source)} d{var}"
        else:
            result, expression = sympy.integrate(value, var), f"∫ {wrapped(source)} d{var}"
        if result.has(sympy.Integral):
            raise ValueError("SymPy found no closed form")
        return [fact(kind, expression, result if task.get("lower") else f"{result} + C")]
    if kind == "limit":
        point = task["point"]
        return [fact(kind, f"lim {var}->{point} {wrapped(source)}", sympy.limit(value, var, parse(point)))]
    raise ValueError(f"unknown kind {kind!r}")


def factorisation(sympy, value) -> str:
    if not value.is_Integer:
        return text(sympy.factor(value))
    n = int(value)
    if abs(n) < 2:
        raise Uninteresting
    factors = sympy.factorint(n)
    if list(factors.values()) == [1] and n > 0:
        return f"{n} (prime)"
    parts = [str(p) if e == 1 else f"{p}**{e}" for p, e in sorted(factors.items()) if p != -1]
    return ("-" if n < 0 else "") + "*".join(parts)


def equation(sympy, task: dict, left_source: str, left, right) -> list[dict]:
    right_source = task.get("rhs") or "0"
    symbols = left.free_symbols | right.free_symbols
    claim = f"{left_source} = {right_source}"
    if not symbols:
        facts = [
            fact("arithmetic", source, exact(sympy, side))
            for source, side in ((left_source, left), (right_source, right))
            if not side.is_Rational or source.strip() != str(side)
        ]
        return [*facts, fact("identity_check", claim, sympy.simplify(left - right) == 0)]
    if task["kind"] == "equation" and len(symbols) > 1:
        raise Uninteresting
    one_side_constant = not left.free_symbols or not right.free_symbols
    if task["kind"] == "solve" or one_side_constant:
        var = pick_variable(sympy, task, left, right)
        return [fact("solve", f"solve({claim}, {var})", sympy.solve(sympy.Eq(left, right), var))]
    holds = (left - right).equals(0)
    if holds is None:
        raise ValueError("SymPy could not decide whether it holds")
    return [fact("identity_check", claim, holds)]


if __name__ == "__main__":
    main()
