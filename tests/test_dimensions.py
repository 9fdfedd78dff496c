"""The game's dimensions are named once (issue: one owner for each dimension): the seats,
the teams, the tricks, the cards of a hand, the suits, the ranks and the cards of the deck
are ``rules.N_SEATS``, ``N_TEAMS``, ``N_TRICKS``, ``CARDS_PER_HAND``, ``cards.N_SUITS``,
``N_RANKS`` and ``N_CARDS``, and the seat arithmetic is ``rules.seat_after``, ``partner``
and ``team``. Outside the engine package (``coinche_rl/engine/``, whose own test is
``test_single_source.py``) and the two-player family (its own dimensions,
``engine/two.py``), no module writes them as literals.

The scan reads every module with ``ast`` (docstrings and comments do not count) and
recognises these forms mechanically:

* ``(x + k) & 3``, ``(x - k) & 3``, ``(x + k) % 4``, ``(x - k) % 4``: seat arithmetic
  (``seat_after(x, k)``, ``partner(x)``);
* ``x ^ 2`` where ``x`` names a seat: ``partner(x)``;
* ``x & 1`` and ``(x ^ y) & 1`` where ``x`` names a seat: ``team(x)`` (``team(x) ==
  team(y)``);
* ``range(4)``, ``range(8)`` and ``range(32)`` (with a constant start or not):
  ``range(N_SEATS)``, ``range(N_SUITS)``, ``range(N_TRICKS)``, ``range(CARDS_PER_HAND)``,
  ``range(N_RANKS)``, ``range(N_CARDS)``;
* ``7`` or ``8`` compared with a trick (``t == 7``, ``min(n_done, 7)``): ``N_TRICKS - 1``.

A name "names a seat" when it is one of :data:`SEAT_NAMES` or contains one of
:data:`SEAT_WORDS` (``seat``, ``taker``, ``leader``, ...); a trick likewise with
:data:`TRICK_NAMES` / ``trick``. A 4 that counts suits or an 8 that counts ranks is the
deck's dimension ``cards.N_SUITS`` / ``N_RANKS``: ``range(4)`` and ``range(8)`` are
flagged whatever they count. The literals that are truly no game dimension are listed in
:data:`ALLOWED` with how many of each form the function holds (a new one in such a
function fails too).
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path
from typing import Dict, List, Tuple

import pytest

ROOT = Path(__file__).resolve().parents[1]
#: the package's source folders (``envs/`` and ``agents/`` install as ``coinche_rl.envs``
#: and ``coinche_rl.agents``)
SOURCES = ("coinche_rl", "agents", "envs")
#: where the dimensions are defined or have their own test
EXEMPT = ("coinche_rl/engine/",      # test_single_source.py::test_seat_arithmetic_is_named
          "coinche_rl/rules.py")     # N_SEATS ... and the rank / strain enumerations

#: identifiers that name a seat (besides those containing a word of SEAT_WORDS)
SEAT_NAMES = {"s", "p", "cur", "current", "me", "ws", "partner", "opener"}
SEAT_WORDS = ("seat", "taker", "leader", "bidder", "dealer", "player", "winner")
#: identifiers that name a trick (besides those containing "trick")
TRICK_NAMES = {"t", "tn", "n_done"}

#: ``(module, function) -> {form: count}``: the literals that are no game dimension.
#: ``<module>`` is the module's top level; a method is ``Class.method``.
ALLOWED: Dict[Tuple[str, str], Dict[str, int]] = {
    # the AEC plumbing of both families: a player's side (a team of four, or one of two)
    ("envs/coinche_v0.py", "raw_env._deal_rewards"): {"team & 1": 1},
    ("envs/coinche_v0.py", "raw_env._penalize"): {"team & 1": 2},
}


def _ident(node) -> str:
    """The identifier an expression is named by: ``seat``, ``self.seat`` -> ``seat``,
    ``seat_of[a]`` -> ``seat_of``, ``trick_winner(S, t)`` -> ``trick_winner``."""
    while True:
        if isinstance(node, ast.Name):
            return node.id
        if isinstance(node, ast.Attribute):
            return node.attr
        if isinstance(node, ast.Subscript):
            node = node.value
        elif isinstance(node, ast.Call):
            node = node.func
        else:
            return ""


def _is_seat(node) -> bool:
    name = _ident(node).lower().lstrip("_")
    return name in SEAT_NAMES or any(w in name for w in SEAT_WORDS)


def _is_trick(node) -> bool:
    name = _ident(node).lower().lstrip("_")
    return name in TRICK_NAMES or "trick" in name


def _const(node, *values) -> bool:
    return isinstance(node, ast.Constant) and type(node.value) is int and node.value in values


def _forms(node) -> List[str]:
    """The dimension literals ``node`` itself writes (its children are visited apart)."""
    out = []
    if isinstance(node, ast.BinOp):
        left, right = node.left, node.right
        if isinstance(left, ast.BinOp) and isinstance(left.op, (ast.Add, ast.Sub)):
            if isinstance(node.op, ast.BitAnd) and _const(right, 3):
                out.append("& 3")
            if isinstance(node.op, ast.Mod) and _const(right, 4):
                out.append("% 4")
        if isinstance(node.op, ast.BitXor) and _const(right, 2) and _is_seat(left):
            out.append("seat ^ 2")
        if isinstance(node.op, ast.BitAnd) and _const(right, 1):
            if _is_seat(left) or (isinstance(left, ast.BinOp) and isinstance(left.op, ast.BitXor)
                                  and (_is_seat(left.left) or _is_seat(left.right))):
                out.append("team & 1")
    elif isinstance(node, ast.Call):
        if isinstance(node.func, ast.Name) and node.func.id == "range" and node.args \
                and all(isinstance(a, ast.Constant) for a in node.args) \
                and _const(node.args[-1] if len(node.args) < 3 else node.args[1], 4, 8, 32):
            out.append(f"range({node.args[-1 if len(node.args) < 3 else 1].value})")
        if isinstance(node.func, ast.Name) and node.func.id in ("min", "max") \
                and any(_const(a, 7, 8) for a in node.args) and any(_is_trick(a) for a in node.args):
            out.append("trick == 7")
    elif isinstance(node, ast.Compare):
        sides = [node.left, *node.comparators]
        if any(_const(a, 7, 8) for a in sides) and any(_is_trick(a) for a in sides):
            out.append("trick == 7")
    return out


def scan_source(source: str, filename: str = "<source>") -> List[Tuple[str, str, int]]:
    """``[(function, form, line)]``: the dimension literals of a module's source."""
    found = []

    def visit(node, where):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            where = node.name if where == "<module>" else f"{where}.{node.name}"
        for form in _forms(node):
            found.append((where, form, node.lineno))
        for child in ast.iter_child_nodes(node):
            visit(child, where)

    visit(ast.parse(source, filename=filename), "<module>")
    return found


def _modules() -> List[str]:
    out = []
    for top in SOURCES:
        for path in sorted((ROOT / top).rglob("*.py")):
            rel = path.relative_to(ROOT).as_posix()
            if "two" in path.stem or rel.startswith(EXEMPT):
                continue
            out.append(rel)
    return out


@pytest.mark.parametrize("rel", _modules())
def test_no_dimension_literals(rel):
    """Seat, team and trick arithmetic by name; a 4 / 8 / 32 range only where
    :data:`ALLOWED` says it counts suits or ranks."""
    found = scan_source((ROOT / rel).read_text(encoding="utf-8"), rel)
    counts: Dict[str, Counter] = {}
    lines: Dict[str, List[str]] = {}
    for where, form, line in found:
        counts.setdefault(where, Counter())[form] += 1
        lines.setdefault(where, []).append(f"{rel}:{line}: {form}")
    bad = []
    for where in sorted(set(counts) | {w for (m, w) in ALLOWED if m == rel}):
        allowed = Counter(ALLOWED.get((rel, where), {}))
        if counts.get(where, Counter()) != allowed:
            bad.append(f"{where}: found {dict(counts.get(where, {}))}, allowed {dict(allowed)}"
                       f" ({'; '.join(lines.get(where, []))})")
    assert not bad, (
        "dimension literals (use rules.N_SEATS / N_TEAMS / N_TRICKS / CARDS_PER_HAND, "
        "cards.N_SUITS / N_RANKS / N_CARDS, seat_after / partner / team; or list what is "
        "no game dimension in ALLOWED):\n" + "\n".join(bad))


def test_allowed_names_real_modules():
    """Every entry of ALLOWED names a module that exists and is scanned, so that a renamed
    file does not leave a stale exemption behind."""
    for (rel, _where) in ALLOWED:
        assert (ROOT / rel).is_file(), rel
        assert rel in _modules(), f"{rel} has allowed entries but is not scanned"


_BAD = '''
def f(seat, leader, dealer, S, tricks_done, t):
    a = (seat + 1) & 3
    b = (leader - seat) % 4
    c = seat ^ 2
    d = dealer & 1
    e = ((seat ^ leader) & 1) == 0
    for s in range(4):
        pass
    for k in range(1, 8):
        pass
    for c in range(32):
        pass
    if t == 7 or tricks_done < 8:
        pass
    return min(trick_number(S), 7)
'''

_GOOD = '''
def f(seat, leader, m, c, suit, t):
    a = seat_after(seat, 1)
    b = seat_after(leader, -seat)
    x = (m >> 3) & 1            # a bit of a mask
    y = m ^ 2                   # not a seat
    z = (c & 7) + 8 * (c >> 3)  # card encoding
    for s in range(N_SEATS):
        pass
    for i in range(6):
        pass
    if t == N_TRICKS - 1 and suit == 7:
        pass
    return (m + 1) & 7
'''


def test_scanner_flags_a_bad_module():
    """The scanner finds each form in a synthetic module, and nothing in its named twin."""
    found = scan_source(_BAD)
    assert [(form, line) for _, form, line in found] == [
        ("& 3", 3), ("% 4", 4), ("seat ^ 2", 5), ("team & 1", 6), ("team & 1", 7),
        ("range(4)", 8), ("range(8)", 10), ("range(32)", 12), ("trick == 7", 14),
        ("trick == 7", 14), ("trick == 7", 16)]
    assert {where for where, _, _ in found} == {"f"}
    assert scan_source(_GOOD) == []
    # a method is named with its class
    assert scan_source("class A:\n    def g(self, p):\n        return p ^ 2\n") == \
        [("A.g", "seat ^ 2", 3)]
