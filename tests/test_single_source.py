"""One owner for each rule (issue 16): the rule constants, the belote pair, the bit and
seed helpers and the seed -> deal map are defined once and imported everywhere else.

The source checks read the modules with ``ast`` (docstrings and comments do not count):
a literal that a named constant of ``coinche_rl.rules`` now stands for, or a second
definition of a shared helper, fails here with the file and the line.
"""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import numpy as np
import pytest

from coinche_rl import cards, engine as E, inference, rules as R
from coinche_rl.game import Deal
from coinche_rl.agents import evaluation, numba_bots, pimc, sampler
from coinche_rl.envs import infoset, kernels
from coinche_rl.cards import parse_hand
from coinche_rl.rules import FOUR_PLAYER_PRESETS
from coinche_rl.rules import PRESETS, card_points_table, get_rules, params_vector

from oracles import written_out_inference

ROOT = Path(__file__).resolve().parents[1]
#: the modules that hold numba kernels (and the Python code beside them); a folder stands
#: for its package's modules together (the engine)
KERNEL_MODULES = ["coinche_rl/engine", "coinche_rl/solver.py", "envs/kernels.py",
                  "envs/infoset.py", "agents/numba_bots.py", "agents/pimc.py",
                  "agents/sampler.py", "agents/evaluation.py"]
#: card-point totals with a name in rules.py: DEAL_POINTS, CAPOT_POINTS, SCALED_AT_DEAL_POINTS
POINT_TOTALS = {162, 252, 258}


def _tree(rel):
    path = ROOT / rel
    if path.is_dir():      # a package: its modules' statements in one tree
        trees = [ast.parse(f.read_text(encoding="utf-8"), filename=str(f))
                 for f in sorted(path.glob("*.py"))]
        return ast.Module(body=[n for t in trees for n in t.body], type_ignores=[])
    return ast.parse(path.read_text(encoding="utf-8"), filename=rel)


def _code_constants(tree):
    """Numeric constants outside docstrings, with their line."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and type(node.value) in (int, float):
            yield node.value, node.lineno


@pytest.mark.parametrize("rel", KERNEL_MODULES)
def test_no_card_point_totals_as_literals(rel):
    bad = [(v, line) for v, line in _code_constants(_tree(rel)) if v in POINT_TOTALS]
    assert not bad, f"{rel}: card-point totals typed as literals (use rules.DEAL_POINTS, ...): {bad}"


@pytest.mark.parametrize("rel", KERNEL_MODULES)
def test_no_belote_or_dix_de_der_increments(rel):
    """``x += 20`` (a belote) and ``x += 10`` (the dix de der) read BELOTE_POINTS and
    DIX_DE_DER."""
    bad = [node.lineno for node in ast.walk(_tree(rel))
           if isinstance(node, ast.AugAssign) and isinstance(node.op, ast.Add)
           and isinstance(node.value, ast.Constant) and node.value.value in (10, 20)]
    assert not bad, f"{rel}: += 10 / += 20 at lines {bad}"


def _is_kq_shift(node):
    """``1 << (8 * s + 5)`` / ``+ 6``: the queen or king of a suit built inline."""
    return (isinstance(node, ast.BinOp) and isinstance(node.op, ast.LShift)
            and isinstance(node.right, ast.BinOp) and isinstance(node.right.op, ast.Add)
            and isinstance(node.right.right, ast.Constant) and node.right.right.value in (5, 6)
            and isinstance(node.right.left, ast.BinOp) and isinstance(node.right.left.op, ast.Mult))


@pytest.mark.parametrize("rel", KERNEL_MODULES)
def test_belote_pair_mask_not_rebuilt(rel):
    bad = [node.lineno for node in ast.walk(_tree(rel)) if _is_kq_shift(node)]
    assert not bad, f"{rel}: K + Q mask built inline at lines {bad} (use cards.BELOTE_PAIRS)"


def test_engine_scoring_has_no_capot_bonus_literal():
    bad = [line for v, line in _code_constants(_tree("coinche_rl/engine")) if v == 90]
    assert not bad, f"engine: 90 (rules.CAPOT_BONUS) at lines {bad}"


#: helpers that had copies, and the one module that may define each (None: none of
#: these modules; they import it under that name from engine, rules or cards)
SHARED = {"_int64": None, "_check_int": None, "_popcount": None, "_beats": None, "_kq": None,
          "_belote_pairs": None, "new_deal": None, "strain_allowed": "coinche_rl/engine"}
#: not copies: the solver's ``_beats`` compares its own card ids (rank order built in)
OWN = {("coinche_rl/solver.py", "_beats")}


@pytest.mark.parametrize("rel", KERNEL_MODULES)
def test_shared_helpers_are_not_redefined(rel):
    defs = [(n.name, n.lineno) for n in ast.walk(_tree(rel))
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef)) and n.name in SHARED
            and SHARED[n.name] != rel and (rel, n.name) not in OWN]
    assert not defs, f"{rel}: second definitions of shared helpers: {defs}"


def test_shared_helpers_are_the_same_objects():
    assert not hasattr(kernels, "_beats")
    assert sampler._popcount is E.popcount
    assert numba_bots._int64 is E.seed_int64
    assert pimc._int64 is E.seed_int64
    assert pimc._belote_pairs is E.belote_pairs
    assert numba_bots.strain_allowed is E.strain_allowed
    assert kernels.NO_CEILING is infoset.NO_CEILING is inference.NO_CEILING
    assert kernels.voids_ceilings_into is infoset.voids_ceilings_into is inference.voids_ceilings_into
    assert not hasattr(kernels, "infer_play") and not hasattr(kernels, "public_state")
    for mod in (pimc, evaluation):
        assert isinstance(mod._check_int, functools.partial)
        assert mod._check_int.func is R.check_int
    assert infoset.ALL_CARDS is cards.FULL_DECK
    assert infoset.SUIT_MASK == tuple(int(m) for m in cards.SUIT_MASKS)
    assert evaluation.CAPOT is R.CAPOT_VALUE
    for name in ("DIX_DE_DER", "BELOTE_POINTS", "DEAL_POINTS", "CAPOT_POINTS", "CAPOT_BONUS",
                 "SCALED_AT_DEAL_POINTS"):
        assert getattr(E, name) is getattr(R, name)


def test_check_int_messages():
    with pytest.raises(pimc.PIMCError, match=r"^worlds=0 must be an int >= 1$"):
        pimc._check_int(0, "worlds", 1)
    with pytest.raises(pimc.PIMCError, match=r"^trick=True must be an int in 1\.\.8$"):
        pimc._check_int(True, "trick", 1, 8)
    with pytest.raises(evaluation.EvaluationError, match=r"^coinche must be an int 0\.\.2, not 3$"):
        evaluation._check_int(3, "coinche", 0, 2)
    with pytest.raises(evaluation.EvaluationError, match=r"^samples must be an int >= 1, not 'a'$"):
        evaluation._check_int("a", "samples", 1)
    assert evaluation._check_int(np.int32(5), "n", 0, 9) == 5 and pimc._check_int(7, "n", 0) == 7


def test_seed_int64():
    for s in (0, 1, -1, 2 ** 63 - 1, 2 ** 63, 2 ** 64 + 5, -(2 ** 70)):
        v = E.seed_int64(s)
        assert -(2 ** 63) <= v < 2 ** 63 and (v - s) % (1 << 64) == 0


# ------------------------------------------------------------------ the constants
def test_point_totals_follow_the_tables():
    for name in R.AT_TABLE_NAMES:
        t = R.ALL_CARD_POINTS[R.AT_TABLE_NAMES.index(name)]
        for strain in range(R.N_STRAINS):
            total = int(t[strain].sum()) + R.DIX_DE_DER
            expect = R.SCALED_AT_DEAL_POINTS if (name == "scaled" and strain == R.AT) else R.DEAL_POINTS
            assert total == expect, (name, strain)
    assert R.CAPOT_POINTS == R.DEAL_POINTS - R.DIX_DE_DER + R.CAPOT_DIX_DE_DER
    assert R.CAPOT_BONUS == R.CAPOT_POINTS - R.DEAL_POINTS
    assert int(card_points_table(get_rules("ffb"))[1].sum()) + R.DIX_DE_DER == R.DEAL_POINTS


def test_scale_at_points():
    for x in range(R.SCALED_AT_DEAL_POINTS + 1):
        assert E.scale_at_points(x) == (x * 324 + 258) // 516
    assert E.scale_at_points(R.SCALED_AT_DEAL_POINTS) == R.DEAL_POINTS


def test_belote_pairs_table_and_kernel():
    for s, suit in enumerate("SHDC"):
        assert int(cards.BELOTE_PAIRS[s]) == parse_hand(f"Q{suit} K{suit}")
    assert cards.BELOTE_PAIRS.dtype == np.int64
    rng = np.random.default_rng(0)
    for _ in range(300):
        h = int(sum(1 << int(c) for c in rng.choice(32, size=rng.integers(0, 17), replace=False)))
        for strain in range(R.N_STRAINS):
            want_mask, want_n = 0, 0
            for s in range(4):
                kq = int(cards.BELOTE_PAIRS[s])
                if strain != R.NT and (strain == R.AT or strain == s) and h & kq == kq:
                    want_mask |= kq
                    want_n += 1
            assert tuple(int(x) for x in E.belote_pairs(h, strain)) == (want_mask, want_n)
            assert numba_bots._belote_points(h, strain) == R.BELOTE_POINTS * want_n


# ------------------------------------------------------------------ the one deal kernel
def _deal_by_hand(P, seed, i, dealer):
    S = np.empty(E.STATE_SIZE, dtype=np.int64)
    rng = np.empty(1, dtype=np.uint64)
    E.rng_seed(rng, seed, i)
    E.deal_into(S, P, rng, dealer, np.empty(4, dtype=np.int64), np.empty(32, dtype=np.int64))
    return S, rng


def test_deal_into_is_the_seed_to_deal_map():
    assert kernels.game_new_deal is E.game_new_deal     # the envs deal by the engine's entry
    for preset in ("ffb", "classic"):
        P = params_vector(get_rules(preset))
        for dealer in (-1, 0, 3):
            states = numba_bots.deal_states(preset, 20, seed=9, dealer=dealer)
            for i in range(20):
                S, _ = _deal_by_hand(P, 9, i, dealer)
                assert np.array_equal(states[i], S)


def test_deal_into_is_dealt_by_reset_state_and_reset_classic():
    for preset in ("ffb", "classic"):
        P = params_vector(get_rules(preset))
        S, _ = _deal_by_hand(P, 4, 2, -1)
        rng = np.empty(1, dtype=np.uint64)
        E.rng_seed(rng, 4, 2)
        deck = np.empty(32, dtype=np.int64)
        E.random_deck(rng, deck)
        d = E.rng_below(rng, 4)
        T = np.empty(E.STATE_SIZE, dtype=np.int64)
        if preset == "classic":
            E.reset_classic(T, deck, d)
        else:
            hands = np.empty(4, dtype=np.int64)
            E.hands_from_deck_into(deck, d, hands)
            E.reset_state(T, hands, d)
        assert np.array_equal(S, T)
        # the same deal as the Python API's from the same deck and dealer
        assert np.array_equal(S, Deal(preset, deck=deck.tolist(), dealer=int(d)).state)


def _calls(rels, name):
    """``{module: {functions calling name}}`` over the modules ``rels``."""
    callers = {}
    for rel in rels:
        for fn in ast.walk(_tree(rel)):
            if isinstance(fn, ast.FunctionDef):
                for node in ast.walk(fn):
                    if isinstance(node, ast.Call) and (
                            isinstance(node.func, ast.Name) and node.func.id == name
                            or isinstance(node.func, ast.Attribute) and node.func.attr == name):
                        callers.setdefault(rel, set()).add(fn.name)
    return callers


def test_no_module_deals_but_the_engine():
    """``random_deck`` (the one seed -> deck map) is the only shuffle of a deck: the
    engine's deals, the arena's deal sets and the Python API's ``game.deal_deck`` call
    it, and nothing else shuffles 32 cards; ``random_deal`` serves the dealer-less
    play-phase benchmark only; the other kernels deal with ``deal_into``."""
    rels = [*KERNEL_MODULES, "coinche_rl/game.py", "coinche_rl/two_player.py",
            "coinche_rl/arena/dealsets.py",
            "agents/neural", "envs/encoder_two.py", "agents/heuristic_two.py"]
    assert _calls(rels, "random_deck") == {
        "coinche_rl/engine": {"random_deal", "deal_into", "two_random_deal"},
        "coinche_rl/arena/dealsets.py": {"_deal_streams"},
        "coinche_rl/game.py": {"deal_deck"}}
    shuffles = {rel: fns for rel, fns in _calls(rels, "shuffle").items()}
    assert shuffles.get("coinche_rl/engine") == {"random_deck"}
    assert _calls(rels, "permutation") == {}
    assert _calls(rels, "random_deal") == {"coinche_rl/engine": {"random_play_phase"},
                                          "coinche_rl/game.py": {"deal_hands"}}
    users = {rel for rel in KERNEL_MODULES
             if any(isinstance(n, ast.Name) and n.id == "deal_into" for n in ast.walk(_tree(rel)))}
    assert {"coinche_rl/engine", "agents/numba_bots.py"} <= users
    # the vector envs deal through the engine's entry point (deal_into for four players)
    assert any(isinstance(n, ast.Name) and n.id == "game_new_deal"
               for n in ast.walk(_tree("envs/kernels.py")))


def test_the_3_2_3_deal_has_one_copy():
    """Only ``engine.hands_from_deck_into`` deals a deck in packets (``DEAL_PACKETS``);
    ``game.hands_from_deck`` and the arena's deal sets call it, and it deals as the rule
    says: 3, 2 then 3 cards to each seat from the seat after the dealer."""
    packets = {rel for rel in [*KERNEL_MODULES, "coinche_rl/game.py", "coinche_rl/arena/dealsets.py"]
               if any(isinstance(n, ast.Attribute) and n.attr == "DEAL_PACKETS"
                      or isinstance(n, ast.Name) and n.id == "DEAL_PACKETS"
                      for n in ast.walk(_tree(rel)))}
    assert packets == {"coinche_rl/engine"}
    for rel in ("coinche_rl/game.py", "coinche_rl/arena/dealsets.py"):
        assert any(isinstance(n, ast.Attribute) and n.attr == "hands_from_deck_into"
                   for n in ast.walk(_tree(rel))), rel
    from coinche_rl.game import hands_from_deck
    deck = list(range(31, -1, -1))
    hands = hands_from_deck(deck, 2)            # seat 3 first
    seat_of = {}
    for i, (seat, n) in enumerate([(s, n) for n in R.DEAL_PACKETS for s in (3, 0, 1, 2)
                                   for _ in range(n)]):
        seat_of[deck[i]] = seat
    assert hands == [sum(1 << c for c, s in seat_of.items() if s == p) for p in range(4)]


def test_synthetic_outcomes_have_one_kernel():
    """The solver's map of ``E`` and the evaluation's outcome scoring build and score
    their finished deals with ``engine.outcome_score`` (no tricks written by hand), which
    calls ``set_outcome`` and ``score_deal``."""
    for rel, entry in (("coinche_rl/solver.py", "outcome_score"),
                       ("agents/evaluation.py", "outcome_score")):
        tree = _tree(rel)
        assert not any(isinstance(n, ast.Name) and n.id in ("S_SEAT_TRICKS", "S_TRICKS")
                       for n in ast.walk(tree)), rel
        assert any(isinstance(n, ast.Name) and n.id == entry for n in ast.walk(tree)), rel
    fn = next(n for n in ast.walk(_tree("coinche_rl/engine"))
              if isinstance(n, ast.FunctionDef) and n.name == "outcome_score")
    assert {n.func.id for n in ast.walk(fn) if isinstance(n, ast.Call)
            and isinstance(n.func, ast.Name)} == {"set_outcome", "score_deal"}
    assert (evaluation._K_CAPOT_AGAINST, evaluation._K_NORMAL, evaluation._K_CAPOT,
            evaluation._K_GENERALE) == (E.OUTCOME_CAPOT_AGAINST, E.OUTCOME_NORMAL,
                                        E.OUTCOME_CAPOT, E.OUTCOME_GENERALE)


def test_set_outcome():
    S = np.zeros(E.STATE_SIZE, dtype=np.int64)
    E.set_outcome(S, 1, E.OUTCOME_NORMAL, 100, 162, 1)
    assert list(S[E.S_POINTS:E.S_POINTS + 2]) == [62, 100]
    assert list(S[E.S_TRICKS:E.S_TRICKS + 2]) == [4, 4]
    assert list(S[E.S_SEAT_TRICKS:E.S_SEAT_TRICKS + 4]) == [2, 2, 2, 2]
    E.set_outcome(S, 0, E.OUTCOME_CAPOT_AGAINST, 0, 162, 0)
    assert list(S[E.S_POINTS:E.S_POINTS + 2]) == [0, 162]
    assert list(S[E.S_SEAT_TRICKS:E.S_SEAT_TRICKS + 4]) == [0, 4, 0, 4]
    E.set_outcome(S, 1, E.OUTCOME_CAPOT, 0, 162, 1)
    assert list(S[E.S_SEAT_TRICKS:E.S_SEAT_TRICKS + 4]) == [0, 4, 0, 4]
    E.set_outcome(S, 0, E.OUTCOME_GENERALE, 0, 162, 2)
    assert list(S[E.S_TRICKS:E.S_TRICKS + 2]) == [8, 0]
    assert list(S[E.S_SEAT_TRICKS:E.S_SEAT_TRICKS + 4]) == [0, 0, 8, 0]


# ------------------------------------------------------------ the one card-play kernel
def test_legal_cards_is_legal_cards_rule():
    """``legal_cards`` is the mask of ``legal_cards_rule``, and each ``RULE_*`` code names
    the obligation the mask is: the one copy of the card-play rules in the kernels."""
    rng = np.random.default_rng(16)
    for _ in range(3000):
        hand = int(rng.integers(1, 1 << 32))
        n, led, win = int(rng.integers(0, 4)), int(rng.integers(0, 4)), int(rng.integers(0, 32))
        pm, strain = bool(rng.integers(0, 2)), int(rng.integers(0, 6))
        play = int(rng.integers(0, 4))
        mu = play & R.PLAY_MUST_UNDERTRUMP
        mask, rule = (int(x) for x in E.legal_cards_rule(hand, n, led, win, pm, strain, play))
        assert mask == int(E.legal_cards(hand, n, led, win, pm, strain, play))
        insuit = hand & (0xFF << 8 * led)
        trumps = hand & (0xFF << 8 * strain) if strain < 4 else 0
        if rule == E.RULE_FREE:
            assert mask == hand
        elif rule == E.RULE_FOLLOW:
            assert insuit and mask == insuit
        elif rule in (E.RULE_OVERTRUMP_LED, E.RULE_BEAT):
            assert insuit and mask == insuit & int(E.ABOVE[strain, win]) != 0
            assert (rule == E.RULE_OVERTRUMP_LED) == (strain < 4 and led == strain)
            assert (rule == E.RULE_BEAT) == (strain == R.AT)
        elif rule == E.RULE_OVERTRUMP:
            assert not insuit and mask == trumps & int(E.ABOVE[strain, win]) != 0
        else:
            assert rule in (E.RULE_TRUMP, E.RULE_UNDERTRUMP) and not insuit and mask == trumps
            assert rule == E.RULE_TRUMP or mu


def test_card_reason_reads_the_kernel_rule():
    """``Deal._card_reason`` explains an illegal card from ``engine.legal_play_rule``,
    re-deriving no rule of play (no suit or trump masks of its own but the message's)."""
    src = (ROOT / "coinche_rl/game.py").read_text(encoding="utf-8")
    fn = next(n for n in ast.walk(ast.parse(src)) if isinstance(n, ast.FunctionDef)
              and n.name == "_card_reason")
    names = {n.attr for n in ast.walk(fn) if isinstance(n, ast.Attribute)}
    assert "legal_play_rule" in names and "legal_cards" not in names
    # no module but the engine (and the solver, on its own card ids; the reference, the
    # independent copy) indexes ABOVE: the "beat the winning card" rule lives in one place
    for rel in ["coinche_rl/game.py", "envs/infoset.py", "envs/kernels.py"]:
        assert not any(isinstance(n, ast.Name) and n.id == "ABOVE" for n in ast.walk(_tree(rel))), rel



def test_bid_reason_reads_the_kernel_refusal():
    """``Deal._bid_reason`` words the clause that ``engine.auction_refusal`` (the code of
    ``engine.is_legal`` in the auction) names, re-deriving no auction rule: no state slot,
    no rule-set field that decides legality."""
    src = (ROOT / "coinche_rl/game.py").read_text(encoding="utf-8")
    fn = next(n for n in ast.walk(ast.parse(src)) if isinstance(n, ast.FunctionDef)
              and n.name == "_bid_reason")
    names = {n.attr for n in ast.walk(fn) if isinstance(n, ast.Attribute)}
    assert "auction_refusal" in names
    assert not names & {"allowed_strains", "bid_values", "capot_after_coinche", "prise_round",
                        "family", "coinche_level", "contract_is_capot", "retourne", "py"}
    assert not any(n.startswith("S_") for n in names)
    play_src = (ROOT / "coinche_rl/engine/play.py").read_text(encoding="utf-8")
    fn = next(n for n in ast.walk(ast.parse(play_src)) if isinstance(n, ast.FunctionDef)
              and n.name == "is_legal")
    called = {n.func.id for n in ast.walk(fn) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
    assert called & {"auction_refusal", "_auction_refusal"} and "prise_options" not in called

def _excluded_by_legality(S, P, strain):
    """Per seat, the cards ``x`` that a card ``c`` it played rules out: ``c`` would not be
    legal (``engine.legal_cards``) in the hypothetical hand ``{c, x}``."""
    out = [0, 0, 0, 0]
    for t in range(8):
        leader = int(S[E.S_TRICK_LEADERS + t])
        c0 = int(S[E.S_PLAYS + 4 * t]) if leader >= 0 else -1
        if c0 < 0:
            break
        win_seat, win, led = leader, c0, c0 >> 3
        for i in range(1, 4):
            c = int(S[E.S_PLAYS + 4 * t + i])
            if c < 0:
                break
            p = (leader + i) & 3
            for x in range(32):
                h = (1 << c) | (1 << x)
                if not int(E.legal_cards(h, i, led, win, win_seat == (p + 2) & 3, strain,
                                         P[E.P_PLAY_RULES])) >> c & 1:
                    out[p] |= 1 << x
            if E.beats(c, win, strain):
                win_seat, win = p, c
    return out


@pytest.mark.parametrize("preset", ["ffb", "classic"])
@pytest.mark.parametrize("overrides", [{}, {"must_undertrump": True}, {"overtrump_partner": False}])
def test_infer_play_is_the_negation_of_legality(preset, overrides):
    """``inference.voids_ceilings_into`` (which the environments and the
    information set reads too) is an inference, not a copy of the rules: the cards its voids
    and ceilings rule out, among those still in the hands, are exactly the cards ``x``
    for which a played card would have been illegal in the hand ``{c, x}``."""
    rules = get_rules(preset, **overrides)
    P = params_vector(rules)
    rng = np.empty(1, dtype=np.uint64)
    buf = np.zeros(E.N_ACTIONS, dtype=np.uint8)
    voids = np.empty(4, dtype=np.int64)
    ceil = np.empty((4, 4), dtype=np.int64)
    checked = 0
    for g in range(12):
        S, rng = _deal_by_hand(P, 16, g, -1)
        while S[E.S_PHASE] != E.DONE:
            if S[E.S_PHASE] == E.PLAY:
                strain = int(S[E.S_BID_STRAIN])
                inference.voids_ceilings_into(S, P, strain, voids, ceil)
                remaining = 0
                for s in range(4):
                    remaining |= int(S[E.S_HAND + s])
                want = _excluded_by_legality(S, P, strain)
                for p in range(4):
                    got = 0
                    for suit in range(4):
                        if voids[p] >> suit & 1:
                            got |= int(cards.SUIT_MASKS[suit])
                        elif ceil[p, suit] < kernels.NO_CEILING:
                            got |= infoset._above_mask(strain, suit, int(ceil[p, suit]))
                    assert got & remaining == want[p] & remaining, (g, p)
                checked += 1
            E.apply_legal_action(S, P, E.random_action(S, P, rng, buf, 0.7))
    assert checked > 100


#: the presets whose card-play options are those the written-out inference knew
WRITTEN_OUT_OPTIONS = R.PLAY_MUST_UNDERTRUMP | R.PLAY_OVERTRUMP_PARTNER


@pytest.mark.parametrize("preset", [p for p in sorted(FOUR_PLAYER_PRESETS)
                                    if R.play_rules_word(PRESETS[p]) & ~WRITTEN_OUT_OPTIONS == 0])
@pytest.mark.parametrize("overrides", [{}, {"must_undertrump": True}, {"overtrump_partner": False},
                                       {"must_undertrump": True, "overtrump_partner": False}])
def test_derived_inference_gives_the_written_out_values(preset, overrides):
    """``inference.inferred_voids_ceilings`` derives the voids and ceilings from the legality
    kernel; they are the values the inference written out rule by rule gave
    (``oracles.written_out_inference``) at every step of random games and under every
    strain, the trick in progress included: the same voids, and the same ceilings in every
    suit the seat is not void in. (The written-out rules also gave a void in trumps a
    ceiling when trumps were led and the seat discarded, without ``must_undertrump``
    only; the derivation gives a void no new ceiling: it would say nothing more.)"""
    rules = get_rules(preset, **overrides)
    P = params_vector(rules)
    rng = np.empty(1, dtype=np.uint64)
    buf = np.zeros(E.N_ACTIONS, dtype=np.uint8)
    checked = ceilings = 0
    for g in range(8):
        S, rng = _deal_by_hand(P, 17, g, -1)
        while S[E.S_PHASE] != E.DONE:
            if S[E.S_PHASE] == E.PLAY:
                for strain in range(6):
                    v, c = (int(x) for x in inference.inferred_voids_ceilings(S, P, strain))
                    want_v, want_c = written_out_inference(S, P, strain)
                    assert [(v >> 4 * p) & 15 for p in range(4)] == want_v, (g, strain)
                    for p in range(4):
                        for s in range(4):
                            got_c = (c >> (16 * p + 4 * s)) & 15
                            if not want_v[p] >> s & 1:       # a void's ceiling is moot
                                assert got_c == want_c[p][s], (g, strain, p, s)
                                ceilings += got_c < inference.NO_CEILING
                    checked += 1
            E.apply_legal_action(S, P, E.random_action(S, P, rng, buf, 0.7))
    assert checked > 500 and ceilings > 50


def test_rule_and_action_constants_come_from_their_modules():
    """The engine imports the constants of ``rules`` and ``actions`` for its own kernels
    (``from ..rules import P_FAMILY``, ``from ..actions import PASS``, ...) and re-exports
    them; no other module takes them from it: they are imported from
    ``coinche_rl.rules`` / ``coinche_rl.actions``, their one definition."""
    aliases = {a.asname or a.name for n in ast.walk(_tree("coinche_rl/engine"))
               if isinstance(n, ast.ImportFrom) and n.level == 2
               and n.module in ("rules", "actions") for a in n.names}
    assert {"P_FAMILY", "PASS", "CARD_ORDER", "DIX_DE_DER", "N_SEATS", "team"} <= aliases
    engine_dir = ROOT / "coinche_rl" / "engine"
    found = {}
    for folder in ("coinche_rl", "envs", "agents"):
        for path in sorted((ROOT / folder).rglob("*.py")):
            if path.parent == engine_dir:
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            names = {a.name for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)
                     and (n.module or "").split(".")[-1] == "engine" for a in n.names}
            names |= {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)
                      and isinstance(n.value, ast.Name) and n.value.id == "E"}
            if names & aliases:
                found[str(path.relative_to(ROOT))] = sorted(names & aliases)
    assert found == {}


def _functions_where(rel, match):
    """Names of the functions of ``rel`` (a module, or a package's folder) holding a node
    for which ``match(node)`` is true."""
    return {fn.name for fn in ast.walk(_tree(rel)) if isinstance(fn, ast.FunctionDef)
            and any(match(n) for n in ast.walk(fn) if n is not fn)} - {
        inner.name for fn in ast.walk(_tree(rel)) if isinstance(fn, ast.FunctionDef)
        for inner in ast.walk(fn) if isinstance(inner, ast.FunctionDef) and inner is not fn}


def test_rule_clauses_have_one_kernel():
    """"Has something to declare" is ``engine.has_declaration`` (the declaration points
    of a seat compared with 0 nowhere else in the engine or the solver), the solver's step
    of a trick after a card (the card beats the winning one?) is ``_trick_after``, and the
    engine collects a complete trick in ``collect_trick`` only."""
    def decl_points_test(n):
        return (isinstance(n, ast.Compare) and isinstance(n.ops[0], ast.Gt)
                and any(isinstance(x, ast.Name) and x.id == "S_DECL_PTS"
                        or isinstance(x, ast.Name) and x.id == "seat_declaration_points"
                        for x in ast.walk(n.left)))
    for rel in ("coinche_rl/engine", "coinche_rl/solver.py"):
        found = _functions_where(rel, decl_points_test)
        assert found <= {"has_declaration"}, (rel, found)
    assert _functions_where("coinche_rl/engine", decl_points_test) == {"has_declaration"}

    def trick_step(n):      # ``if _beats(c, win, strain):`` (the card played, the winner)
        return (isinstance(n, ast.If) and isinstance(n.test, ast.Call)
                and isinstance(n.test.func, ast.Name) and n.test.func.id == "_beats"
                and [ast.unparse(a) for a in n.test.args] == ["c", "win", "strain"])
    assert _functions_where("coinche_rl/solver.py", trick_step) == {"_trick_after"}
    assert E.has_declaration is E.declarations.has_declaration

    def trick_won(n):       # ``S[S_TRICKS + t] += 1``: a trick credited to a team
        return (isinstance(n, ast.AugAssign) and isinstance(n.target, ast.Subscript)
                and "S_TRICKS" in ast.unparse(n.target.slice))
    assert _functions_where("coinche_rl/engine", trick_won) == {"collect_trick"}


def test_seat_arithmetic_is_named():
    """The engine and the solver write no seat arithmetic as ``(seat + k) & 3`` or
    ``(seat + k) % 4``: they call ``rules.seat_after``, ``partner`` and ``team`` (one
    definition each, re-exported by the engine)."""
    for rel in ("coinche_rl/engine", "coinche_rl/solver.py"):
        bad = [n.lineno for n in ast.walk(_tree(rel)) if isinstance(n, ast.BinOp)
               and isinstance(n.left, ast.BinOp) and isinstance(n.left.op, (ast.Add, ast.Sub))
               and isinstance(n.right, ast.Constant)
               and ((isinstance(n.op, ast.BitAnd) and n.right.value == 3)
                    or (isinstance(n.op, ast.Mod) and n.right.value == 4))]
        assert not bad, f"{rel}: seat arithmetic at lines {bad} (rules.seat_after / partner)"
    assert E.team is R.team and E.partner is R.partner and E.seat_after is R.seat_after
    assert [R.team(s) for s in range(4)] == [0, 1, 0, 1]
    assert [R.partner(s) for s in range(4)] == [2, 3, 0, 1]
    assert [R.seat_after(s, k) for s, k in ((3, 1), (0, -1), (2, 2))] == [0, 3, 0]


def test_classic_deal_is_named():
    """The classic deal's packets, the retourne's place and the stock are named once in
    rules.py and add up to the deck; the engine's deal and the hand evaluation's decks
    (its inverse) read them, with no packet or position literal left."""
    assert sum(R.CLASSIC_PACKETS) == R.CLASSIC_FIRST_HAND
    assert R.CLASSIC_RETOURNE_AT + 1 + R.CLASSIC_STOCK == cards.N_CARDS
    assert R.CLASSIC_STOCK == (R.N_SEATS - 1) * R.CLASSIC_REST + R.CLASSIC_TAKER_REST
    deck = np.arange(32, dtype=np.int64)[::-1].copy()
    S = np.empty(E.STATE_SIZE, dtype=np.int64)
    E.reset_classic(S, deck, 3)
    assert [bin(int(h)).count("1") for h in S[E.S_HAND:E.S_HAND + 4]] == [R.CLASSIC_FIRST_HAND] * 4
    assert S[E.S_RETOURNE] == deck[R.CLASSIC_RETOURNE_AT]
    for rel, fn in (("coinche_rl/engine", "reset_classic"), ("coinche_rl/engine", "_classic_distribute"),
                    ("agents/evaluation.py", "_classic_decks")):
        body = next(f for f in ast.walk(_tree(rel)) if isinstance(f, ast.FunctionDef) and f.name == fn)
        bad = [v for v, _ in _code_constants(body) if v in (2, 3, 5, 11, 20, 21)]
        assert not bad, (rel, fn, bad)
