"""The PIMC agent (agents/pimc.py): exact world states, card play against the solver,
legality in every preset family, determinism, tie-breaks, bidding, and the harnesses."""

import sys
import zlib
from pathlib import Path

import numpy as np
import pytest

from coinche_rl import engine as E
from coinche_rl.actions import (N_ACTIONS, BELOTE, BID_BASE, CARD_BASE, COINCHE, DECLARE, NO_BELOTE,
                                NO_DECLARE, PASS, bid_action, parse_action)
from coinche_rl.agents import PlayerView, make_agent, play_deal
from coinche_rl.agents.base import PRIVATE_ACTIONS
from coinche_rl.agents.pimc import (PIMCAgent, PIMCError, _belote_pairs, _played_by,
                                    choose_action, world_state)
from coinche_rl.agents.sampler import WorldSampler
from coinche_rl.cards import parse_card, parse_hand
from coinche_rl.engine import public_view
from coinche_rl.game import Deal
from coinche_rl.rules import FOUR_PLAYER_PRESETS
from coinche_rl.rules import PRESETS, get_rules
from coinche_rl.solver import Solver

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "benchmarks"))

#: every preset, and rule sets with both private choices (and their declaration options)
RULESETS = [get_rules(p) for p in FOUR_PLAYER_PRESETS] + [
    get_rules("ffb_sa_ta", optional_declare=True, optional_belote=True, name="ffb_sa_ta"),
    get_rules("ffb", optional_declare=True, optional_belote=True, carre_low_cancels=True,
              declarations_share_cards=True),
    get_rules("classic_declarations", optional_declare=True, optional_belote=True),
]
RULE_IDS = [f"{r.name}{'-opt' if r.optional_declare and r.optional_belote else ''}"
            f"{'-cancel' if r.carre_low_cancels else ''}" for r in RULESETS]
RULE_IDS[-1] += "-classic"


# ------------------------------------------------------------------ random games
def random_action(deal, rng, pass_prob=0.75):
    legal = deal.legal_actions()
    if deal.phase == "auction" and PASS in legal and len(legal) > 1 and rng.random() < pass_prob:
        return PASS
    return int(legal[rng.integers(len(legal))])


def _random_play_position(rules, rng, max_tries=50):
    """A deal in the card play after a random auction and a random number of random
    actions (random private choices included)."""
    for _ in range(max_tries):
        deal = Deal(rules, seed=int(rng.integers(2 ** 31)), dealer=int(rng.integers(4)))
        while deal.phase == "auction":
            deal.apply(random_action(deal, rng))
        if deal.is_terminal:
            continue
        # bias toward the first trick, where the declarations and belotes are unresolved
        k = int(rng.integers(12)) if rng.random() < 0.6 else int(rng.integers(40))
        for _ in range(k):
            if deal.is_terminal:
                break
            deal.apply(random_action(deal, rng))
        if not deal.is_terminal:
            return deal
    raise AssertionError("no play position found")


def _undisclosed(deal, observer):
    """Private choices of the other seats that the public record does not reveal yet:
    ``{(seat, kind)}``, kind 0 declare, 1 belote."""
    S = deal.state
    P = deal.params
    out = set()
    pub = public_view(S, P, observer)
    unresolved = S[E.S_DECL_WINNER] == -2
    for p in range(4):
        if p == observer:
            continue
        bit = 1 << p
        if unresolved and S[E.S_DECL_DECIDED] & bit:
            out.add((p, 0))
        if S[E.S_BELOTE_DECIDED] & bit and not pub[E.S_BELOTE_ON] & bit:
            pairs, _ = _belote_pairs(S[E.S_INIT_HAND + p], S[E.S_BID_STRAIN])
            if not _played_by(S, p) & pairs:
                out.add((p, 1))
    return out


def _with_assumed_choices(deal, observer):
    """The deal replayed with every undisclosed private choice of the other seats
    replaced by the choice a world assumes (declare when it holds declarations and no
    cancelling carré; announce the belote)."""
    hidden = _undisclosed(deal, observer)
    replay = Deal(deal.rules, deck=deal.deck, dealer=deal.dealer) if deal.rules.family == "classic" \
        else Deal(deal.rules, hands=deal.initial_hands if deal.phase != "auction" else deal.hands,
                  dealer=deal.dealer)
    P = deal.params
    for a in deal.history:
        seat = replay.current_player
        if a in (DECLARE, NO_DECLARE) and (seat, 0) in hidden:
            S = replay.state
            pts = S[E.S_DECL_PTS + seat]
            low = (S[E.S_DECL_LOW] >> seat) & 1
            a = DECLARE if (pts > 0 and not (P[E.P_CARRE_LOW_CANCELS] and low)) else NO_DECLARE
        if a in (BELOTE, NO_BELOTE) and (seat, 1) in hidden:
            a = BELOTE
        replay.apply(a)
    return replay


def _allowed_diff(deal, observer):
    """Slots (and bits) that may legitimately differ between the true state and the
    world state built from the true hands: the classic dealing order, and after the
    resolution, under optional_declare, whether a seat whose declarations were not
    shown declared (a private choice with no effect on the rest of the deal)."""
    S = deal.state
    slots = set(range(E.S_DECK, E.S_DECK + 32))
    declared_bits = 0
    w = S[E.S_DECL_WINNER]
    if deal.rules.optional_declare and w != -2:
        shown = S[E.S_DECLARED] & ((1 << w) | (1 << (w + 2))) if w >= 0 else 0
        for p in range(4):
            if p != observer and not shown >> p & 1:
                declared_bits |= 1 << p
    return slots, declared_bits


@pytest.mark.parametrize("rules", RULESETS, ids=RULE_IDS)
def test_world_state_from_the_true_hands_is_the_true_state(rules):
    rng = np.random.default_rng(zlib.crc32(repr(rules).encode()))
    solver = Solver(tt_bits=12)
    n_checked = 0
    n_hidden = 0
    for trial in range(48):
        deal = _random_play_position(rules, rng)
        P = deal.params
        for observer in range(4):
            if observer != deal.current_player and deal.history[-1] in PRIVATE_ACTIONS:
                # the seat to act made a private choice and has not played yet: another
                # seat cannot tell that it chose (worlds are built for the seat to act)
                continue
            truth = _with_assumed_choices(deal, observer)
            n_hidden += len(_undisclosed(deal, observer)) > 0
            pub = public_view(deal.state, P, observer)
            # the public state of the replayed deal is the same: the choices were private
            assert np.array_equal(pub, public_view(truth.state, P, observer))
            built = world_state(pub, P, observer, deal.hands)
            slots, declared_bits = _allowed_diff(deal, observer)
            diff = [k for k in range(E.STATE_SIZE) if built[k] != truth.state[k] and k not in slots
                    and not (k == E.S_DECLARED and ((built[k] ^ truth.state[k]) & ~declared_bits) == 0)]
            assert diff == [], (rules.name, trial, observer, deal.history,
                                [(k, built[k], truth.state[k]) for k in diff])
            # identical continuations end with identical scores
            outs = np.zeros((2, 3, 2), dtype=np.int64)
            for i, S0 in enumerate((built, truth.state)):
                E.random_playouts(S0, P, 3, 17 + trial, 0.5, outs[i])
            assert np.array_equal(outs[0], outs[1])
            n_checked += 1
        # the solver's values agree too (late positions only: cheap)
        if deal.state[E.S_TRICK_NO] >= 5:
            seat = deal.current_player
            built = world_state(public_view(deal.state, P, seat), P, seat, deal.hands)
            truth = _with_assumed_choices(deal, seat)
            assert solver.solve(built, "score", params=P, team=0) == \
                solver.solve(truth.state, "score", params=P, team=0)
    assert n_checked >= 140
    if rules.optional_declare or rules.optional_belote:
        assert n_hidden > 0          # the test met undisclosed private choices


def test_world_state_rejects_positions_outside_the_play():
    deal = Deal("ffb", seed=1, dealer=0)
    with pytest.raises(PIMCError, match="card play"):
        world_state(public_view(deal.state, deal.params, 1), deal.params, 1, deal.hands)
    deal.with_contract(80, 0, taker=1)
    with pytest.raises(PIMCError, match="own hand"):
        world_state(public_view(deal.state, deal.params, 1), deal.params, 1, [0, 0, 0, 0])


# ------------------------------------------------------------------ card play
def _cheapest_key(deal, a):
    c = a - CARD_BASE
    strain = deal.contract.strain
    return (int(E.ALL_CARD_POINTS[deal.params[E.P_AT_TABLE], strain, c]),
            int(E.CARD_ORDER[strain, c]), c)


@pytest.mark.parametrize("preset", ["ffb", "ffb_sa_ta", "classic_declarations", "colver"])
def test_with_a_single_world_pimc_plays_the_solvers_best_card(preset):
    rng = np.random.default_rng(7)
    solver = Solver(tt_bits=14)
    found = 0
    for _ in range(150):
        deal = _random_play_position(get_rules(preset), rng)
        while not deal.is_terminal and found < 12:
            view = PlayerView.from_deal(deal)
            if len(view.legal_actions) > 1 and deal.phase == "play" \
                    and WorldSampler(view.information_set).count == 1:
                agent = PIMCAgent(worlds=32, tt_bits=12)
                agent.reset(view.seat, deal.rules, 5)
                actions, totals, n = agent.card_values(view)
                if n == 1:
                    # the only world is the real deal: PIMC's values are the solver's
                    sa, sv = solver.move_values(deal, "score", team=view.seat & 1)
                    assert np.array_equal(actions, sa) and np.array_equal(totals, sv)
                    a = agent.act(view)
                    best = [int(x) for x, v in zip(sa, sv) if v == sv.max()]
                    assert a in best
                    assert _cheapest_key(deal, a) == min(_cheapest_key(deal, b) for b in best)
                    found += 1
            deal.apply(random_action(deal, rng))
        if found >= 12:
            break
    assert found >= 12


def test_the_chosen_card_is_the_cheapest_of_the_best():
    """Over many positions with several worlds: the card played has the best total and
    is the cheapest among the cards sharing it."""
    rng = np.random.default_rng(3)
    n_ties = 0
    for trial in range(40):
        deal = Deal("ffb_sa_ta", seed=trial, dealer=trial % 4).with_contract(
            90, trial % 6, taker=trial % 4)
        for _ in range(int(rng.integers(10, 27))):
            deal.apply(random_action(deal, rng))
        if len(deal.legal_actions()) < 2:
            continue
        view = PlayerView.from_deal(deal)
        agent = PIMCAgent(worlds=6, tt_bits=12)
        agent.reset(view.seat, deal.rules, trial)
        actions, totals, _ = agent.card_values(view, rng=_stream_of(agent, 1))
        a = agent.act(view)
        best = [int(x) for x, v in zip(actions, totals) if v == totals.max()]
        n_ties += len(best) > 1
        assert a in best and _cheapest_key(deal, a) == min(_cheapest_key(deal, b) for b in best)
    assert n_ties >= 8


def _stream_of(agent, k):
    rng = np.zeros(1, dtype=np.uint64)
    E.rng_seed(rng, agent._stream_seed, k)
    return rng


def test_choose_action_breaks_ties_toward_the_cheapest_card():
    sums = np.zeros(N_ACTIONS, dtype=np.int64)
    hearts = 1
    AH, TH, KH, SEVEN_S, EIGHT_D, NINE_H, JH = (parse_action(x) for x in
                                               ("AH", "TH", "KH", "7S", "8D", "9H", "JH"))
    acts = np.array(sorted([AH, TH, KH, SEVEN_S, EIGHT_D, NINE_H, JH]), dtype=np.int64)
    for a in acts:
        sums[a] = 50
    # every card ties: the 7 of spades (0 points, lowest strength) beats the 8 of diamonds
    assert choose_action(sums, acts, len(acts), hearts, 0) == SEVEN_S
    sums[SEVEN_S] = sums[EIGHT_D] = 40
    # then the king (4 points) before the ten, the ace, and the trump 9 (14) and jack (20)
    assert choose_action(sums, acts, len(acts), hearts, 0) == KH
    sums[KH] = 0
    assert choose_action(sums, acts, len(acts), hearts, 0) == TH
    # at no trump the 9 of hearts is worth 0 and is the cheapest
    assert choose_action(sums, acts, len(acts), E.NT, 0) == NINE_H
    # a strictly better total always wins
    sums[JH] = 51
    assert choose_action(sums, acts, len(acts), hearts, 0) == JH
    # declare / belote choices: announcing on a tie
    two = np.array([DECLARE, NO_DECLARE], dtype=np.int64)
    assert choose_action(sums, two, 2, hearts, 0) == DECLARE
    sums[NO_DECLARE] = 1
    assert choose_action(sums, two, 2, hearts, 0) == NO_DECLARE


def test_hand_built_tie_plays_the_smallest_of_equivalent_cards():
    # seat 1 leads the ace of spades; seat 2 must follow with 7S, 8S or KS: the 7 and the
    # 8 are equivalent (adjacent, same points) in every world, and PIMC gives the 7
    deal = Deal("ffb", hands=["AH KH QH JD TD 9D 8D 7D", "AS JH 9H AC KC QC JC TC",
                              "7S 8S KS AD KD QD 9C 8C", "QS JS TS 9S 7C TH 8H 7H"],
                dealer=0).with_contract(80, 1, taker=1)
    deal.apply("AS")
    view = PlayerView.from_deal(deal)
    agent = PIMCAgent(worlds=4, tt_bits=14, worlds_from="uniform")   # these 4 worlds
    agent.reset(2, deal.rules, 1)
    actions, totals, n = agent.card_values(view)
    assert n == 4 and list(actions) == [parse_action(c) for c in ("7S", "8S", "KS")]
    assert totals[0] == totals[1] > totals[2]
    assert agent.act(view) == parse_action("7S")


# ------------------------------------------------------------------ whole deals
FAST = "pimc:worlds=3,bid_method=heuristic,bid_samples=8,tt_bits=12"


@pytest.mark.parametrize("rules", RULESETS, ids=RULE_IDS)
def test_every_action_is_legal_over_whole_deals(rules):
    """Four PIMC players, auction included (play_deal raises on an illegal action)."""
    spec = FAST if rules.name != "ffb_sa_ta" or rules.optional_declare else \
        "pimc:worlds=2,bid_samples=2,tt_bits=12,coinche_length=0"      # the dd evaluation
    private = 0
    for k in range(1 if spec != FAST else 2):
        deal = Deal(rules, seed=100 + k, dealer=k)
        agents = [make_agent(spec) for _ in range(4)]
        result = play_deal(deal, agents, seeds=[k, k + 1, k + 2, k + 3])
        assert deal.is_terminal and result.scores == deal.scores
        private += sum(a in PRIVATE_ACTIONS for a in deal.history)
    if rules.optional_declare or rules.optional_belote:
        # seeds chosen so that the private choices come up
        assert private > 0 or rules.family == "classic"


def test_same_seed_same_choices_and_the_seed_parameter_changes_the_stream():
    def play(spec, seeds):
        deal = Deal("ffb", seed=9, dealer=1)
        play_deal(deal, [make_agent(spec) for _ in range(4)], seeds=seeds)
        return deal.history
    spec = "pimc:worlds=2,bid_method=heuristic,bid_samples=4,tt_bits=12"
    h = play(spec, [1, 2, 3, 4])
    assert play(spec, [1, 2, 3, 4]) == h
    agent = PIMCAgent(seed=0)
    agent.reset(0, get_rules("ffb"), 5)
    other = PIMCAgent(seed=1)
    other.reset(0, get_rules("ffb"), 5)
    assert agent._stream_seed != other._stream_seed


def test_taper_solves_fewer_worlds_as_the_cards_run_out():
    """``taper=linear``: ceil(worlds * cards / 8) worlds at each card decision (checked
    on the worlds each decision reports), the same values as an untapered agent asked for
    that many worlds, and whole deals play legally and reproducibly."""
    agent = PIMCAgent(worlds=32, taper="linear", tt_bits=12)
    assert [agent.worlds_for((1 << c) - 1) for c in range(1, 9)] == [4, 8, 12, 16, 20, 24, 28, 32]
    assert PIMCAgent(worlds=3, taper="linear").worlds_for(1) == 1
    assert PIMCAgent(worlds=32).worlds_for(1) == 32
    rng = np.random.default_rng(3)
    deal = Deal("ffb", seed=41, dealer=2).with_contract(90, 2, taker=1)
    seen = set()
    while not deal.is_terminal:
        view = PlayerView.from_deal(deal)
        cards = bin(int(deal.hands[view.seat])).count("1")
        agent.reset(view.seat, deal.rules, 7)
        action = agent.act(view)
        if agent.last_worlds:
            exact = agent._table_count <= agent.worlds_for(deal.hands[view.seat])
            if not exact:
                assert agent.last_worlds == -(-32 * cards // 8)
                plain = PIMCAgent(worlds=agent.last_worlds, tt_bits=12)
                plain.reset(view.seat, deal.rules, 7)
                assert plain.act(view) == action
            seen.add(agent.last_worlds)
        deal.apply(action if rng.random() < 0.8 else random_action(deal, rng))
    assert len(seen) >= 3
    spec = "pimc:worlds=8,taper=linear,bid_samples=4,tt_bits=12"
    histories = []
    for _ in range(2):
        d = Deal("ffb", seed=42, dealer=0)
        play_deal(d, [make_agent(spec) for _ in range(4)], seeds=[1, 2, 3, 4])
        histories.append(d.history)
    assert histories[0] == histories[1]


def test_the_kept_table_does_not_change_the_values():
    """The agent keeps the solver's table across worlds, decisions and deals: a used
    agent and a fresh one give the same totals (so the executor cannot matter)."""
    rng = np.random.default_rng(11)
    used = PIMCAgent(worlds=5, tt_bits=12)
    for trial in range(12):
        deal = Deal("ffb_sa_ta", seed=300 + trial, dealer=trial % 4).with_contract(
            100, trial % 6, taker=(trial + 1) % 4)
        for _ in range(int(rng.integers(8, 20))):
            deal.apply(random_action(deal, rng))
        view = PlayerView.from_deal(deal)
        fresh = PIMCAgent(worlds=5, tt_bits=12)
        for agent in (used, fresh):
            agent.reset(view.seat, deal.rules, trial)
        a1, t1, _ = used.card_values(view)
        a2, t2, _ = fresh.card_values(view)
        assert np.array_equal(a1, a2) and np.array_equal(t1, t2)


def test_pimc_runs_in_the_aec_env_loop():
    from coinche_rl.envs import coinche_v0
    env = coinche_v0.env(rules="coinche_x3", mode="deal")
    env.reset(seed=3)
    game = env.unwrapped.game
    agents = [make_agent(FAST) for _ in range(4)]
    for seat, a in enumerate(agents):
        a.reset(seat, game.rules, 40 + seat)
    for name in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        if term or trunc:
            env.step(None)
            continue
        seat = int(name[-1])
        view = PlayerView.from_deal(env.unwrapped.game)
        assert view.seat == seat
        a = agents[seat].act(view)
        assert obs["action_mask"][a]
        env.step(a)
    assert env.unwrapped.game.is_terminal
    env.close()


def test_pimc_in_a_duplicate_tournament():
    from coinche_rl.arena import run_duplicate
    r = run_duplicate("pimc:worlds=2,bid_method=heuristic,bid_samples=4,tt_bits=12", "heuristic",
                      2, seed=4)
    again = run_duplicate("pimc:worlds=2,bid_method=heuristic,bid_samples=4,tt_bits=12",
                          "heuristic", 2, seed=4)
    assert r.n == 2 and np.array_equal(r.scores, again.scores)
    frozen = run_duplicate("pimc:worlds=2,tt_bits=12", "random", 1, seed=1, frozen_contract=True)
    assert frozen.n == 1


# ------------------------------------------------------------------ auction
def _auction_view(rules, hands, dealer, auction, seat_check=None):
    deal = Deal(rules, hands=hands, dealer=dealer)
    for a in auction:
        deal.apply(a)
    view = PlayerView.from_deal(deal)
    if seat_check is not None:
        assert view.seat == seat_check
    return deal, view


STRONG = "JH 9H AH TH KH QH AS AD"
WEAK = "7S 8S 7D 8D 9D 7C 8C 9S"
OTHERS = ["JS AC TC KC QC JC 9C TS", "KS QS JD TD KD QD 8H 7H", "AS"]


def _hands(seat_hand, seat):
    """Four hands with ``seat_hand`` at ``seat`` and the other cards dealt in order."""
    mine = parse_hand(seat_hand)
    rest = [c for c in range(32) if not mine >> c & 1]
    out, k = [], 0
    for s in range(4):
        if s == seat:
            out.append(mine)
        else:
            out.append(sum(1 << c for c in rest[k:k + 8]))
            k += 8
    return out


@pytest.mark.parametrize("method", ["heuristic", "dd"])
def test_a_strong_hand_bids_and_a_weak_one_passes(method):
    spec = f"pimc:bid_method={method},bid_samples={64 if method == 'heuristic' else 6}"
    _, view = _auction_view("ffb", _hands(STRONG, 0), 3, [], seat_check=0)
    agent = make_agent(spec)
    agent.reset(0, view.rules, 1)
    a = agent.act(view)
    assert BID_BASE <= a < COINCHE and (a - BID_BASE) % 6 == 1      # a hearts contract
    _, view = _auction_view("ffb", _hands(WEAK, 0), 3, [], seat_check=0)
    agent.reset(0, view.rules, 1)
    assert agent.act(view) == PASS


def test_coinche_on_a_hopeless_contract_and_not_on_a_sound_one():
    # seat 0 opens 120 hearts; seat 1 holds the four best hearts and two aces
    hands = _hands("JH 9H AH TH AS AD 7C 8C", 1)
    _, view = _auction_view("ffb", hands, 3, [bid_action(120, 1)], seat_check=1)
    agent = make_agent("pimc:bid_method=heuristic,bid_samples=32")
    agent.reset(1, view.rules, 2)
    assert agent.act(view) == COINCHE
    # the same hand against 80 spades, where it holds no trump: no coinche
    _, view = _auction_view("ffb", hands, 3, [bid_action(80, 0)], seat_check=1)
    agent.reset(1, view.rules, 2)
    assert agent.act(view) != COINCHE


def test_classic_prise_takes_with_a_strong_hand():
    # dealer 3: seat 0 receives the first 3 and the 13th-14th cards; the retourne (21st)
    # is the 10 of hearts, and seat 0 holds the jack, nine and ace of hearts
    packets = ["JH 9H AH", "7D 8D 9D", "7C 8C 9C", "TD TC 9S",
               "7S 8S", "TS QD", "QC QS", "KD KC"]
    order = [parse_card(c) for p in packets for c in p.split()]
    order.append(parse_card("TH"))
    order += [parse_card(c) for c in "AS AD AC KS KH QH JS JD JC 8H 7H".split()]
    deal = Deal("classic", deck=order, dealer=3)
    assert deal.hands[0] == parse_hand("JH 9H AH 7S 8S") and deal.retourne == parse_card("TH")
    view = PlayerView.from_deal(deal)
    agent = make_agent("pimc:bid_method=heuristic,bid_samples=32")
    agent.reset(0, deal.rules, 3)
    assert agent.act(view) == parse_action("take")


def test_bad_parameters_are_rejected_with_clear_messages():
    from coinche_rl.agents import AgentSpecError
    with pytest.raises(AgentSpecError, match="worlds"):
        make_agent("pimc:worlds=0")
    with pytest.raises(AgentSpecError, match="objective"):
        make_agent("pimc:objective=tricks")
    with pytest.raises(PIMCError, match="bid_rule"):
        PIMCAgent(bid_rule="lowest")
    with pytest.raises(PIMCError, match="worlds"):
        PIMCAgent(worlds=0)
    with pytest.raises(AgentSpecError, match="taper.*'none', 'linear'"):
        make_agent("pimc:taper=quadratic")
    with pytest.raises(PIMCError, match="taper"):
        PIMCAgent(taper="sqrt")


def test_module_doctest():
    import doctest

    import coinche_rl.agents.pimc as pimc
    assert doctest.testmod(pimc).failed == 0


def test_benchmark_helpers_time_and_count_the_search():
    """The speed helpers behind bench_solver / bench_strength: positions of the asked
    trick with a choice to make, one CPU time per position, and node counts that are the
    same on every run (the host-independent measure)."""
    from bench_lib import benchmark_positions, pimc_decision_ms, pimc_world_ms
    positions = benchmark_positions(4, "ffb", seed=3, trick=2)
    for d in positions:
        assert int(d.state[E.S_TRICK_NO]) == 1 and len(d.legal_actions()) >= 2
    nodes, again = [], []
    times = pimc_decision_ms(3, worlds=2, seed=3, nodes=nodes)
    pimc_decision_ms(3, worlds=2, seed=3, nodes=again)
    assert len(times) == 3 and all(t >= 0 for t in times)
    assert nodes == again and all(n > 0 for n in nodes)
    assert len(pimc_world_ms(3, seed=3)) == 3
