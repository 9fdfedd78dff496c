"""The two-player state's slots stay the engine's business.

1. ``engine/two_accessors.py`` is what ``two_layout.TWO_ACCESSORS`` generates (with the
   four-player family's generator), and each accessor (its numba version and its
   plain-Python one, ``engine.two.py``) reads or writes exactly its slot.
2. No module outside the engine package uses a ``T_*`` slot of ``TWO_OFFSETS``: neither
   imported, nor read from an engine module, nor named by a string, nor through
   ``TWO_OFFSETS`` / ``TWO_LAYOUT`` (the scanner is shown to catch each way).
"""

from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from coinche_rl.engine import two as E2
from coinche_rl.engine import two_accessors, two_layout

ROOT = Path(__file__).resolve().parents[1]
#: the package's folders and the module names they hold
FOLDERS = (("coinche_rl", "coinche_rl"), ("agents", "coinche_rl.agents"),
           ("envs", "coinche_rl.envs"))
SLOTS = frozenset(two_layout.TWO_OFFSETS)
#: the names that reach the layout itself
LAYOUT_NAMES = frozenset(("TWO_OFFSETS", "TWO_LAYOUT"))


def package_modules():
    """``(module name, path)`` of every module of the package outside the engine."""
    for folder, pkg in FOLDERS:
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            rel = path.relative_to(ROOT / folder).with_suffix("").parts
            if rel[-1] == "__init__":
                rel = rel[:-1]
            module = ".".join((pkg,) + rel)
            if module == "coinche_rl.engine" or module.startswith("coinche_rl.engine."):
                continue
            yield module, path


def slots_used(path: Path):
    """The ``T_*`` slots (and layout tables) a module names: as an identifier, an
    attribute (``E2.T_HAND``), an import (``from coinche_rl.engine.two import T_HAND``,
    ``... import T_HAND as x``) or a string (``TWO_OFFSETS["T_HAND"]``)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            found.add(node.id)
        elif isinstance(node, ast.Attribute):
            found.add(node.attr)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            found |= {a.name.rsplit(".", 1)[-1] for a in node.names}
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found.add(node.value)
    return sorted(x for x in found if x in SLOTS or x in LAYOUT_NAMES)


def test_no_module_outside_the_engine_uses_a_two_player_slot():
    """Every module outside the engine reads the two-player state through the engine's
    accessors (``engine.two``: ``hand_of``, ...; plain Python: ``engine.two.py``)."""
    users = {m: used for m, path in package_modules() for used in [slots_used(path)] if used}
    assert users == {}, f"modules using T_* slots (use an engine.two accessor): {users}"


def test_the_scan_covers_the_two_player_modules():
    modules = dict(package_modules())
    for m in ("coinche_rl.two_player", "coinche_rl.solver_two", "coinche_rl.arena.dealsets",
              "coinche_rl.agents.heuristic_two", "coinche_rl.envs.encoder_two"):
        assert m in modules, m
    assert not any(m.startswith("coinche_rl.engine") for m in modules)


@pytest.mark.parametrize("src", [
    "from coinche_rl.engine.two import T_HAND\n",
    "from coinche_rl.engine.two import T_HAND as h\n",
    "from ..engine.two import (PLAY, T_CUR)\n",
    "from coinche_rl.engine import two as E2\nx = E2.T_HAND\n",
    "import coinche_rl.engine.two\nx = coinche_rl.engine.two.T_PHASE\n",
    "from coinche_rl.engine.two import *\nx = V[T_SCORE + 1]\n",
    "x = V[E2.TWO_OFFSETS['T_DECL_CARDS'] + p]\n",
    "def f(view):\n    return view.state[_slot('T_BELOTE')]\n",
    "from coinche_rl.engine.two_layout import TWO_LAYOUT\n",
])
def test_the_scanner_sees_a_slot_use(tmp_path, src):
    path = tmp_path / "m.py"
    path.write_text(src, encoding="utf-8")
    assert slots_used(path), src


def test_the_scanner_lets_unrelated_names_pass(tmp_path):
    """``T_*`` names that are not slots (the sampler's table columns, ...) and the
    accessors themselves are not slot uses."""
    path = tmp_path / "m.py"
    path.write_text("T_N, T_H, T_NS = 0, 1, 2\nT_ROW = 3\n"
                    "from coinche_rl.engine.two import hand_of, py\n"
                    "x = hand_of(V, 0) + py.trick_card(V, 1, 0)\n"
                    "doc = 'the slot ``T_HAND`` in a sentence'\n", encoding="utf-8")
    assert slots_used(path) == []


# --------------------------------------------------------------------- the accessors
def test_the_accessors_are_generated_from_the_table():
    """``engine/two_accessors.py`` is what ``two_layout.TWO_ACCESSORS`` generates (after
    an edit of the table or the layout: ``two_layout.write_two_accessors()``)."""
    path = Path(two_accessors.__file__)
    assert path.read_text(encoding="utf-8") == two_layout.two_accessors_source(), \
        "engine/two_accessors.py is stale: run coinche_rl.engine.two_layout.write_two_accessors()"
    names = [a[0] for a in two_layout.TWO_ACCESSORS]
    assert two_accessors.__all__ == names and len(set(names)) == len(names)
    assert sorted(vars(two_accessors.py)) == sorted(names)
    with pytest.raises(ValueError, match="not in TWO_LAYOUT"):
        saved = two_layout.TWO_ACCESSORS
        try:
            two_layout.TWO_ACCESSORS = saved + (("bad", "get", "T_NOPE", (), "x"),)
            two_layout.two_accessors_source()
        finally:
            two_layout.TWO_ACCESSORS = saved


def test_the_accessors_are_reexported_by_the_engine_module():
    """Where the two-player kernels are imported from (``engine.two``): the numba
    accessors and ``py``, their plain-Python functions."""
    for name, *_ in two_layout.TWO_ACCESSORS:
        fn = getattr(E2, name)
        assert fn is getattr(two_accessors, name)
        plain = getattr(E2.py, name)
        assert plain is getattr(fn, "py_func", fn)
        assert not hasattr(plain, "py_func")          # no numba dispatch
        assert (fn.__doc__ or "").strip().endswith(".")
    assert E2.py is two_accessors.py


def _off(slot):
    return two_layout.TWO_OFFSETS[slot]


_STRIDE = {"T_STACK_UP": E2.N_STACKS, "T_STACK_DOWN": E2.N_STACKS, "T_PLAYS": E2.N_PLAYERS}


@pytest.mark.parametrize("plain", [False, True], ids=["numba", "python"])
def test_each_accessor_reads_or_writes_exactly_its_slot(plain):
    S = np.arange(E2.TWO_STATE_SIZE, dtype=np.int64) * 7 + 3
    sizes = dict(two_layout.TWO_LAYOUT)
    for name, op, slot, args, _ in two_layout.TWO_ACCESSORS:
        fn = getattr(E2.py if plain else E2, name)
        if op == "block":
            got = fn(S)
            assert list(got) == list(S[_off(slot):_off(slot) + sizes[slot]]), name
            assert np.shares_memory(got, S), name             # a view
        elif op == "column":
            states = np.stack([S, S + 1, S + 2])
            idx = (1,) * len(args)
            assert list(fn(states, *idx)) == [S[_off(slot) + sum(idx)] + j for j in range(3)], name
        elif op == "get":
            idx = (1,) * len(args)
            k = _off(slot) + (_STRIDE[slot] * idx[0] + idx[1] if len(idx) == 2 else sum(idx))
            assert fn(S, *idx) == S[k], name
        else:
            T = S.copy()
            idx = (1,) * (len(args) - 1)
            fn(T, *idx, 1 << 40)
            k = _off(slot) + (_STRIDE[slot] * idx[0] + idx[1] if len(idx) == 2 else sum(idx))
            assert list(np.flatnonzero(T != S)) == [k], name
            assert T[k] == (1 << 40 if op == "set" else S[k] | (1 << 40)), name


def test_two_index_accessors_walk_their_rows():
    """``stack_face_up(T, p, k)`` is ``[p * N_STACKS + k]``, ``trick_card(T, t, i)`` is
    ``[t * N_PLAYERS + i]``: every (row, column) reaches a distinct slot of the block."""
    S = np.arange(E2.TWO_STATE_SIZE, dtype=np.int64)
    seen = {E2.py.stack_face_up(S, p, k) for p in range(E2.N_PLAYERS) for k in range(E2.N_STACKS)}
    assert seen == set(range(_off("T_STACK_UP"), _off("T_STACK_UP") + 16))
    seen = {E2.py.trick_card(S, t, i) for t in range(E2.N_TRICKS_TWO) for i in range(E2.N_PLAYERS)}
    assert seen == set(range(_off("T_PLAYS"), _off("T_PLAYS") + 32))


def test_the_accessors_read_a_played_deal():
    """On a real deal the accessors agree with the Python API (which reads through them)
    and with the engine's own slots."""
    from coinche_rl.two_player import TwoPlayerDeal
    deal = TwoPlayerDeal("belote_a_deux", seed=5, dealer=0)
    deal.apply("take")
    while not deal.is_terminal:
        deal.apply(deal.legal_actions()[0])
    T = deal.state
    assert E2.deal_score(T, 0) == T[E2.T_SCORE] and E2.deal_score(T, 1) == T[E2.T_SCORE + 1]
    assert E2.py.deal_made(T) == T[E2.T_MADE] and E2.taker_of(T) == deal.taker == 1
    assert list(E2.py.deck_cards(T)) == deal.deck
    assert [E2.trick_winner(T, t) for t in range(E2.N_TRICKS_TWO)] == deal.trick_winners
    assert E2.other(0) == 1 and E2.other(1) == 0 and two_layout.other(1) == 0
