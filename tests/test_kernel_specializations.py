"""Each kernel compiles once: no call between kernels makes numba compile a second copy.

Numba types an ``int`` constant passed from one kernel to another as a literal
(``Literal[int](1)``), and compiles the callee again for it, with every kernel it calls:
``solve_keeping(W, S, P, SCORE, team)`` beside ``move_values_into(W, S, P, objective,
team, ...)`` compiled the whole solver three times, and ``bot_action(BOT_HEURISTIC, ...)``
beside ``bot_action(BOT_RANDOM, ...)`` the heuristic three times (a quarter of the
warm-up's compile). A call site passes ``np.int64(SCORE)`` instead, which numba types as
``int64``.

This test reads the kernels' sources (nothing compiles): for every kernel, the calls made
to it from other kernels, each reduced to its pattern (for each argument, the constant
it is, or "a variable"). Two different patterns mean two compiled copies. Short leaf
kernels (a few lines, calling at most two other kernels) are let be: their copies cost
next to nothing.
"""

from __future__ import annotations

import ast
import inspect
import textwrap

import numpy as np
import pytest
from numba.core.registry import CPUDispatcher

from package_modules import import_modules

#: a kernel this short, calling at most this many other kernels, may be specialised freely
SMALL_LINES, SMALL_CALLEES = 15, 2


def _kernels():
    """Every kernel defined in the package, by its Python function (one entry each)."""
    out = {}
    for mod in import_modules():
        for obj in vars(mod).values():
            if isinstance(obj, CPUDispatcher) and obj.py_func.__module__ == mod.__name__:
                out[obj.py_func] = obj
    return list(out.values())


def _resolve(node, g):
    if isinstance(node, ast.Name):
        return g.get(node.id)
    if isinstance(node, ast.Attribute):
        base = _resolve(node.value, g)
        return getattr(base, node.attr, None) if base is not None else None
    return None


def _constant(node, g):
    """The int / bool constant numba sees in ``node``, else None: a literal, an expression
    of literals (Python folds ``-1`` and ``1 << 20`` into constants), or a module-level
    name. An expression of names (``-INF``) is computed, so typed ``int64``."""
    if all(isinstance(n, (ast.Constant, ast.UnaryOp, ast.BinOp, ast.operator, ast.unaryop))
           for n in ast.walk(node)):
        v = eval(compile(ast.Expression(node), "<call>", "eval"))
        return v if isinstance(v, (bool, int)) else None
    if isinstance(node, (ast.Name, ast.Attribute)):
        v = _resolve(node, g)
        if isinstance(v, (bool, int)) and not isinstance(v, np.generic):
            return v
    return None


def _calls(kernel):
    """``(callee, pattern, where)`` for each call of another kernel in ``kernel``'s body."""
    try:
        src = textwrap.dedent(inspect.getsource(kernel.py_func))
    except (OSError, TypeError):       # a kernel generated at import (no source file)
        return []
    g = kernel.py_func.__globals__
    out = []
    for node in ast.walk(ast.parse(src)):
        if not isinstance(node, ast.Call):
            continue
        callee = _resolve(node.func, g)
        if isinstance(callee, CPUDispatcher) and callee.targetoptions.get("inline") != "always":
            pattern = tuple(("var",) if (v := _constant(a, g)) is None else ("const", v)
                            for a in node.args)
            line = kernel.py_func.__code__.co_firstlineno + node.lineno - 1
            out.append((callee, pattern, f"{kernel.py_func.__module__}:{line}"))
    return out


@pytest.fixture(scope="module")
def call_graph():
    kernels = _kernels()
    assert len(kernels) > 300          # the package's kernels were found
    return {k: _calls(k) for k in kernels}


def _callees(kernel, graph, seen):
    for callee, _, _ in graph.get(kernel, ()):
        if callee not in seen:
            seen.add(callee)
            _callees(callee, graph, seen)
    return seen


def _small(kernel, graph) -> bool:
    lines = len(inspect.getsourcelines(kernel.py_func)[0])
    return lines <= SMALL_LINES and len(_callees(kernel, graph, set())) <= SMALL_CALLEES


def test_no_kernel_is_compiled_twice_for_a_constant_argument(call_graph):
    patterns = {}
    for calls in call_graph.values():
        for callee, pattern, where in calls:
            patterns.setdefault(callee, {}).setdefault(pattern, []).append(where)
    twice = []
    for callee, by_pattern in patterns.items():
        if len(by_pattern) > 1 and not _small(callee, call_graph):
            name = f"{callee.py_func.__module__}.{callee.py_func.__name__}"
            shown = "; ".join(f"{p} at {', '.join(w)}" for p, w in by_pattern.items())
            twice.append(f"{name} is called with {len(by_pattern)} argument patterns "
                         f"(each compiles a copy; pass np.int64(constant)): {shown}")
    assert not twice, "\n".join(twice)


def test_the_check_sees_a_constant_argument(call_graph):
    """The pattern of a call with a module constant, a literal and a variable."""
    g = {"SCORE": 1, "np": np}
    call = ast.parse("f(x, SCORE, -1, np.int64(SCORE), True, 1 << 20, -SCORE, 'a')").body[0].value
    assert [_constant(a, g) for a in call.args] == [None, 1, -1, None, True, 1 << 20, None, None]
    # and the hand evaluation's calls of the solver are among the graph's edges
    from coinche_rl import solver
    from coinche_rl.agents import evaluation
    assert solver.solve_keeping in {c for c, _, _ in call_graph[evaluation._dd_chunk]}
