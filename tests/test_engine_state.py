"""The engine owns its state (issue 16).

1. The layout: the ``S_*`` offsets and ``STATE_SIZE`` come from one ``(name, size)``
   table, ``engine.STATE_LAYOUT``, and are the offsets the state always had.
2. What a seat may know and back: ``determinize(public_view(S, seat), the hidden hands,
   the hidden deck, the hidden choices) == S`` at every step of random games of every
   preset, for every seat; ``public_view`` is what ``envs.kernels.public_state`` computed
   before it moved to the engine (a copy of that code below); PIMC's world state is the
   engine's ``determinize_into`` with the choices PIMC assumes.
3. No module outside the engine reads or writes ``S_*`` slots: they use its accessors.
"""

import ast
from pathlib import Path

import numpy as np
import pytest

from coinche_rl import engine as E
from coinche_rl.agents import pimc
from coinche_rl.cards import BELOTE_PAIRS
from coinche_rl.envs import kernels as K
from coinche_rl.game import Deal
from coinche_rl.rules import FOUR_PLAYER_PRESETS

ROOT = Path(__file__).resolve().parents[1]

# ------------------------------------------------------------------ 1. layout
#: the offsets as they were written out by hand before the table (bit-identical states)
OLD_OFFSETS = {
    "S_HAND": 0, "S_INIT_HAND": 4, "S_DEALER": 8, "S_PHASE": 9, "S_CUR": 10,
    "S_BID_VALUE": 11, "S_BID_STRAIN": 12, "S_BID_SEAT": 13, "S_CAPOT": 14, "S_COINCHE": 15,
    "S_COINCHE_SEAT": 16, "S_PASSES": 17, "S_N_AUCTION": 18, "S_VOID": 19, "S_TRICK_NO": 20,
    "S_LEADER": 21, "S_TRICK_N": 22, "S_WIN_CARD": 23, "S_WIN_SEAT": 24, "S_PLAYED": 25,
    "S_POINTS": 26, "S_TRICKS": 28, "S_SEAT_TRICKS": 30, "S_DECL_PTS": 34, "S_DECL_KEY": 38,
    "S_DECL_CARDS": 42, "S_DECL_LOW": 46, "S_DECLARED": 47, "S_DECL_DECIDED": 48,
    "S_DECL_WINNER": 49, "S_TEAM_DECL": 50, "S_BELOTE_CARDS": 52, "S_BELOTE_SEATS": 53,
    "S_BELOTE_DECIDED": 54, "S_BELOTE_ON": 55, "S_TEAM_BELOTE": 56, "S_SCORE": 58,
    "S_RAW_SCORE": 60, "S_MADE": 62, "S_TOTAL": 63, "S_CARD_POINTS": 65, "S_GENERALE": 67,
    "S_TRICK_LEADERS": 68, "S_TRICK_WINNERS": 76, "S_PLAYS": 84, "S_AUCTION": 116,
    "S_RETOURNE": 180, "S_PRISE_ROUND": 181, "S_LITIGE": 182, "S_DECK": 183,
}


def test_offsets_come_from_the_layout_table():
    k = 0
    for name, size in E.STATE_LAYOUT:
        assert size >= 1
        assert type(getattr(E, name)) is int and getattr(E, name) == k == E.STATE_OFFSETS[name]
        k += size
    assert E.STATE_SIZE == k == 215
    assert dict(E.STATE_OFFSETS) == OLD_OFFSETS
    assert dict(E.STATE_LAYOUT)["S_AUCTION"] == E.MAX_AUCTION
    # no S_ name of the engine outside the table
    assert {n for n in vars(E) if n.startswith("S_")} == set(OLD_OFFSETS)


def test_a_flat_layout_puts_its_blocks_back_to_back():
    """``FlatLayout``, the layout of the other flat arrays (the solver's workspace, the
    sampler's table): each block at the end of those before it."""
    flat = E.FlatLayout()
    assert tuple(flat.words(3)) == (0, 1, 2)
    assert flat.block(4) == 3
    flat.spare(2)
    assert flat.block(1) == 9 and flat.block(0) == 10 == flat.size
    with pytest.raises(ValueError):
        flat.block(-1)


def test_sentinels_are_the_values_the_engine_writes():
    S = Deal("ffb", seed=1, dealer=0).state
    assert S[E.S_DECL_WINNER] == E.DECL_UNRESOLVED == -2
    assert S[E.S_MADE] == E.MADE_UNSCORED == -1
    assert S[E.S_BID_SEAT] == S[E.S_COINCHE_SEAT] == S[E.S_GENERALE] == E.NO_SEAT == -1
    assert S[E.S_RETOURNE] == S[E.S_PLAYS] == S[E.S_DECK] == E.NO_CARD == -1
    assert S[E.S_AUCTION] == E.NO_ACTION == -1
    assert (E.DECL_NOBODY, E.MADE_FAILED, E.MADE_MADE, E.MADE_LITIGE) == (-1, 0, 1, 2)
    assert (E.NOT_COINCHED, E.COINCHED, E.SURCOINCHED) == (0, 1, 2)


# ------------------------------------------------ 2. public view and determinize
def _old_announced_belotes(S, strain):
    """A copy of ``envs.kernels._announced_belotes`` before the move (plain Python)."""
    seats = 0
    cards = 0
    if strain == E.NT:
        return seats, cards
    bel = int(S[E.S_BELOTE_CARDS])
    seen = 0
    for t in range(8):
        leader = int(S[E.S_TRICK_LEADERS + t])
        if leader < 0:
            break
        for i in range(4):
            c = int(S[E.S_PLAYS + 4 * t + i])
            if c < 0:
                break
            suit = c >> 3
            r = c & 7
            if (r == 5 or r == 6) and (strain == E.AT or strain == suit) and not (seen >> suit) & 1:
                seen |= 1 << suit
                kq = int(BELOTE_PAIRS[suit])
                if bel & kq == kq:
                    seats |= 1 << ((leader + i) & 3)
                    cards |= kq
    return seats, cards


def _old_public_state(S, seat):
    """A copy of ``envs.kernels.public_state_into`` before the move (plain Python)."""
    out = S.copy()
    bit = 1 << seat
    for p in range(4):
        if p != seat:
            out[E.S_HAND + p] = 0
            out[E.S_INIT_HAND + p] = 0
    if S[E.S_DECK] >= 0:
        out[E.S_DECK:E.S_DECK + 32] = 0
    w = int(S[E.S_DECL_WINNER])
    keep = bit
    if w >= 0:
        keep |= (int(S[E.S_DECLARED]) & ((1 << w) | (1 << (w + 2))))
    for p in range(4):
        if not (keep >> p) & 1:
            out[E.S_DECL_PTS + p] = 0
            out[E.S_DECL_KEY + p] = 0
            out[E.S_DECL_CARDS + p] = 0
    out[E.S_DECL_LOW] = S[E.S_DECL_LOW] & bit
    out[E.S_DECLARED] = S[E.S_DECLARED] & keep
    out[E.S_DECL_DECIDED] = S[E.S_DECL_DECIDED] & bit
    if w == -2:
        out[E.S_TEAM_DECL] = 0
        out[E.S_TEAM_DECL + 1] = 0
    strain = int(S[E.S_BID_STRAIN])
    ann_seats = 0
    ann_cards = 0
    if S[E.S_PHASE] != E.AUCTION and S[E.S_VOID] == 0:
        ann_seats, ann_cards = _old_announced_belotes(S, strain)
    own_cards = 0
    if (int(S[E.S_BELOTE_SEATS]) >> seat) & 1:
        own_cards = int(S[E.S_BELOTE_CARDS]) & int(S[E.S_INIT_HAND + seat])
    out[E.S_BELOTE_CARDS] = (int(S[E.S_BELOTE_CARDS]) & ann_cards) | own_cards
    seats = ann_seats | bit
    out[E.S_BELOTE_SEATS] = S[E.S_BELOTE_SEATS] & seats
    out[E.S_BELOTE_DECIDED] = S[E.S_BELOTE_DECIDED] & seats
    out[E.S_BELOTE_ON] = S[E.S_BELOTE_ON] & seats
    if S[E.S_PHASE] != E.DONE:
        b = [0, 0]
        for p in range(4):
            if ((ann_seats >> p) & 1) or (p == seat and (int(S[E.S_BELOTE_ON]) >> p) & 1):
                b[p & 1] += E.BELOTE_POINTS
        out[E.S_TEAM_BELOTE] = b[0]
        out[E.S_TEAM_BELOTE + 1] = b[1]
    return out


def _random_states(preset, n_games, seed):
    """Every state of ``n_games`` random games (random legal actions, passes favoured
    in half of the auctions so that the contracts vary)."""
    rng = np.random.default_rng(seed)
    for g in range(n_games):
        d = Deal(preset, seed=int(rng.integers(2 ** 31)), dealer=int(rng.integers(4)))
        pass_bias = g % 2 == 1
        while True:
            yield d
            if d.is_terminal:
                break
            legal = d.legal_actions()
            if pass_bias and 0 in legal and rng.random() < 0.7:
                d.apply(0)
            else:
                d.apply(int(legal[rng.integers(len(legal))]))


@pytest.mark.parametrize("preset", sorted(FOUR_PLAYER_PRESETS))
def test_determinize_inverts_the_public_view(preset):
    n = 0
    phases = set()
    for d in _random_states(preset, 12, sum(map(ord, preset)) + 7):
        S = d.state
        P = d.params
        hands, deck, choices = E.private_info(S)
        phases.add(int(S[E.S_PHASE]))
        for seat in range(4):
            pub = E.public_view(S, P, seat)
            assert np.array_equal(pub, _old_public_state(S, seat))
            back = E.determinize(pub, P, seat, hands, deck, choices)
            bad = np.flatnonzero(back != S)
            assert not len(bad), [n for n, k in E.STATE_OFFSETS.items()
                                  if any(k <= b < k + dict(E.STATE_LAYOUT)[n] for b in bad)]
            n += 1
    assert phases == {E.AUCTION, E.PLAY, E.DONE}
    assert n > 12 * 4 * 20


def test_the_old_names_are_the_engine_kernels():
    # the environments' former aliases of the engine's views are gone: one name each
    assert not any(hasattr(K, n) for n in ("public_state", "public_state_into",
                                           "_announced_belotes", "infer_play"))
    assert pimc._played_by is E.played_by
    assert pimc._played_first_trick is E.played_first_trick


@pytest.mark.parametrize("preset", ["ffb", "coinche_x3", "classic_declarations", "funbelote"])
def test_pimc_world_is_determinize_with_the_assumed_choices(preset):
    rng = np.random.default_rng(3)
    n = 0
    for d in _random_states(preset, 8, 11):
        if d.is_terminal or int(d.state[E.S_PHASE]) != E.PLAY:
            continue
        seat = d.current_player
        pub = E.public_view(d.state, d.params, seat)
        hands = np.array(d.hands, dtype=np.int64)
        if rng.random() < 0.5:        # another world: two other seats swap a card
            a, b = [p for p in range(4) if p != seat][:2]
            ca, cb = hands[a] & -hands[a], hands[b] & -hands[b]
            if ca and cb:
                hands[a] ^= ca | cb
                hands[b] ^= ca | cb
        choices = pimc.assumed_choices(pub, d.params, seat, hands)
        got = pimc.world_state(pub, d.params, seat, hands)
        assert np.array_equal(got, E.determinize(pub, d.params, seat, hands, None, choices))
        n += 1
    assert n > 50


# ----------------------------------------- 3. no module but the engine reads the slots
#: source folder -> package (pyproject's package-dir)
PACKAGE_DIRS = {"coinche_rl": "coinche_rl", "envs": "coinche_rl.envs",
                "agents": "coinche_rl.agents"}
#: the engine (the package and its modules) owns the state
OWNERS = {"coinche_rl.engine"} | {
    f"coinche_rl.engine.{p.stem}" for p in (Path(__file__).resolve().parents[1]
                                            / "coinche_rl" / "engine").glob("*.py")}


def package_modules():
    """``(module name, path)`` of every module of the package."""
    for folder, pkg in PACKAGE_DIRS.items():
        for path in sorted((ROOT / folder).rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            rel = path.relative_to(ROOT / folder).with_suffix("").parts
            if rel[-1] == "__init__":
                rel = rel[:-1]
            yield ".".join((pkg,) + rel), path


def engine_slots_used(module, path):
    """The ``S_*`` names of the engine that ``module`` uses: imported from
    ``coinche_rl.engine`` (absolute or relative), or read as attributes of the engine
    module imported under some name."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    used, aliases = set(), set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[:len(package) - (node.level - 1)]
                src = ".".join(base + ([node.module] if node.module else []))
            else:
                src = node.module or ""
            for a in node.names:
                if src == "coinche_rl.engine" and a.name.startswith("S_"):
                    used.add(a.name)
                if f"{src}.{a.name}" == "coinche_rl.engine":
                    aliases.add(a.asname or a.name)
        elif isinstance(node, ast.Import):
            for a in node.names:
                if a.name == "coinche_rl.engine":
                    aliases.add(a.asname or a.name)
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr.startswith("S_"):
            if ast.unparse(node.value) in aliases:
                used.add(node.attr)
    return used


def slot_users():
    return {m: used for m, path in package_modules() if m not in OWNERS
            for used in [engine_slots_used(m, path)] if used}


def slot_identifiers(path):
    """Every identifier of the file at ``path`` that names a slot (``S_NAME``): a name, an
    attribute or an imported name (an ``import *`` or an alias would otherwise hide one)."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}
    found |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
    found |= {a.asname or a.name for n in ast.walk(tree)
              if isinstance(n, (ast.Import, ast.ImportFrom)) for a in n.names}
    return sorted(x for x in found if x in E.STATE_OFFSETS)


def test_the_scanner_sees_a_module_s_use():
    """The scanners see the slots of a real file (this one: ``E.S_*`` through ``from
    coinche_rl import engine as E``; the engine's own modules read them from ``.layout``)."""
    here = Path(__file__)
    assert len(engine_slots_used("tests.test_engine_state", here)) > 20
    assert len(slot_identifiers(here)) > 20


def test_no_module_outside_the_engine_uses_a_slot():
    """No module but the engine's uses an ``S_*`` slot (``game.py``, its Python face,
    included): neither imported from the engine nor read from the engine module, and no
    identifier of the form ``S_NAME`` at all (an ``import *`` or an alias would otherwise
    hide one). Everything else goes through the engine's named accessors."""
    assert slot_users() == {}
    names = {}
    for module, path in package_modules():
        if module in OWNERS:
            continue
        slots = slot_identifiers(path)
        if slots:
            names[module] = slots
    assert names == {}, f"modules using S_* slots (use an engine accessor): {names}"


def test_no_benchmark_uses_a_slot():
    """The benchmark scripts read the state through the accessors too (``E.py.*`` in
    their Python loops)."""
    paths = sorted((ROOT / "benchmarks").glob("*.py"))
    assert len(paths) > 3
    names = {p.name: found for p in paths
             for found in [sorted(set(slot_identifiers(p))
                                  | engine_slots_used(f"benchmarks.{p.stem}", p))] if found}
    assert names == {}, f"benchmarks using S_* slots (use an engine accessor): {names}"


def test_the_slot_scanner_sees_a_slot_use(tmp_path):
    """The scanner catches each way of reaching a slot (so that the test above can fail)."""
    for src in ("from coinche_rl.engine import S_CUR\nx = S_CUR",
                "from coinche_rl import engine as E\nx = E.S_HAND",
                "from ..engine import S_PHASE"):
        path = tmp_path / "m.py"
        path.write_text(src, encoding="utf-8")
        assert engine_slots_used("coinche_rl.envs.m", path), src


def test_the_accessors_are_generated_from_the_table():
    """``engine/accessors.py`` is what ``layout.ACCESSORS`` generates (after an edit of the
    table or the layout: ``layout.write_accessors()``), every name is re-exported by the
    engine, and each accessor reads or writes exactly its slot."""
    from coinche_rl.engine import accessors, layout
    path = Path(accessors.__file__)
    assert path.read_text(encoding="utf-8") == layout.accessors_source(), \
        "engine/accessors.py is stale: run coinche_rl.engine.layout.write_accessors()"
    names = [a[0] for a in layout.ACCESSORS]
    assert accessors.__all__ == names and len(set(names)) == len(names)
    S = np.arange(E.STATE_SIZE, dtype=np.int64) * 7 + 3
    assert E.py is accessors.py and sorted(vars(E.py)) == sorted(names)
    for name, op, slot, args, _ in layout.ACCESSORS:
        fn = getattr(E, name)
        assert fn is getattr(accessors, name)
        assert getattr(E.py, name) is fn.py_func, name     # the same code, in Python
        off = lambda x: E.STATE_OFFSETS[x]          # noqa: E731
        if op == "rows":
            states = np.stack([S, S + 1])
            assert list(fn(states, np.array([1, 0]))) == [S[off(slot)] + 1, S[off(slot)]]
        elif op == "get" and not isinstance(slot, str):
            assert fn(S) == tuple(S[off(x)] for x in slot)
        elif op == "get":
            idx = (2, 1)[:len(args)]
            k = off(slot) + (E.N_SEATS * idx[0] + idx[1] if len(idx) == 2 else sum(idx))
            assert fn(S, *idx) == S[k] == getattr(E.py, name)(S, *idx), name
        else:
            T = S.copy()
            idx = (1,) * (len(args) - 1)
            fn(T, *idx, 1 << 40)
            k = off(slot) + sum(idx)
            changed = np.flatnonzero(T != S)
            assert list(changed) == [k], name
            assert T[k] == (1 << 40 if op == "set" else S[k] | (1 << 40)), name
    with pytest.raises(ValueError, match="not in STATE_LAYOUT"):
        saved = layout.ACCESSORS
        try:
            layout.ACCESSORS = saved + (("bad", "get", "S_NOPE", (), "x"),)
            layout.accessors_source()
        finally:
            layout.ACCESSORS = saved
