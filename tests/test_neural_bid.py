"""Neural bidding (``coinche_rl.agents.neural``: ``bid_labels``, the bidding half of
``agent``, ``coinche_rl.train.bid``; ``evaluate_hand(method="nn")``; ``pimc:bid_method=nn``).

1. Labels: every legal auction action's final contract is the heuristic's continuation
   (replayed through the ``Deal`` API and the Python heuristic agent), and its target is
   the score of that contract played out by the card player (checked against deals
   played at the contract's own level); the contract values (``ev``, ``made``) likewise;
   the legal mask is the engine's in the canonical order; a chunk is a pure function of
   its seed and game indices.
2. Equivariance by construction: for random auction positions of every coinche preset
   (and the classic prise), each of the 24 suit renamings gives the renamed decision
   (0 flips; ties only between suits the seat cannot tell apart).
3. The agent bids legal actions on every preset, through ``play_deal`` and the batched
   ``play_states``; both paths make the same choices; no leak (the decision depends only
   on what the seat knows).
4. Weights: a bidding manifest is checked on load (players, heads, outputs, kind).
5. The hand evaluation by the network, the suggested bid (best, not highest), PIMC with
   the network's auction, the vector env's opponents.
6. The trainer: a smoke run, exact resume, export, and its settings checks.
"""

import json
import os

import numpy as np
import pytest

from coinche_rl import actions as A
from coinche_rl import engine as E
from coinche_rl.agents import make_agent, play_deal
from coinche_rl.agents.base import PlayerView
from coinche_rl.agents.evaluation import EvaluationError, evaluate_hand, suggest_bid
from coinche_rl.agents.neural import bid_actions as BA
from coinche_rl.agents.neural import bid_labels as B
from coinche_rl.agents.neural import canonical as C
from coinche_rl.agents.neural.agent import NeuralAgent, load_bid_net
from coinche_rl.agents.neural.batch_play import BidNet, NetInputs, play_states
from coinche_rl.agents.neural.net import (MLP, NeuralError, WeightsError, default_weights_path,
                                          load_weights, make_manifest, save_weights)
from coinche_rl.agents.numba_bots import BOT_HEURISTIC, deal_states
from coinche_rl.game import Deal
from coinche_rl.rules import FOUR_PLAYER_PRESETS
from coinche_rl.rules import PRESETS, get_rules, params_vector

from test_infoset import actors, compare_in_other_worlds, random_trace
from test_neural_canonical import (ALL_PI, action_suit, inverse, random_actions, random_start,
                                   rename_action, rename_obs, replay, transposition)

ALL_PRESETS = sorted(FOUR_PLAYER_PRESETS)
COINCHE_PRESETS = [p for p in ALL_PRESETS if get_rules(p).family != "classic"]
FFB = get_rules("ffb")


# ===================================================================== helpers
def small_bid_net(seed=1, hidden=(24,), players=("nn", "heuristic")) -> MLP:
    """A random bidding net with non-zero biases and a bidding manifest."""
    net = MLP.random(hidden=hidden, seed=seed, outputs=len(players) * 3 * BA.N_BID)
    rng = np.random.default_rng(seed + 100)
    net.layers = [(w, rng.normal(0, 0.3, b.shape).astype(np.float32)) for w, b in net.layers]
    net.manifest = make_manifest(net, FFB, {"args": {"target_scale": 100.0}}, kind="bid",
                                 players=list(players))
    return net


def write_bid(path, net=None, rules=FFB, players=("nn", "heuristic")):
    net = net or small_bid_net(players=players)
    save_weights(path, net, make_manifest(net, rules, {"args": {"target_scale": 100.0}},
                                          kind="bid", players=list(players)), dtype=np.float32)
    return str(path)


@pytest.fixture(scope="module")
def bid_file(tmp_path_factory):
    return write_bid(tmp_path_factory.mktemp("bid") / "bid.npz")


def heuristic_until_play(d: Deal) -> None:
    """The Python heuristic agent at every seat until the auction ends."""
    agents = [make_agent("heuristic") for _ in range(4)]
    for s, a in enumerate(agents):
        a.reset(s, d.rules, 0)
    while d.phase == "auction":
        d.apply(agents[d.current_player].act(PlayerView.from_deal(d)))


def play_out(d: Deal) -> Deal:
    agents = [make_agent("heuristic") for _ in range(4)]
    play_deal(d, agents, seeds=[0, 0, 0, 0])
    return d


def team_diff(d: Deal, seat: int) -> int:
    sc = d.scores
    return sc[seat & 1] - sc[1 - (seat & 1)]


# =========================================================== 1. the labels
@pytest.mark.parametrize("preset", ["ffb", "ffb_sa_ta", "classic"])
def test_q_targets_are_the_continuation_played_out(preset):
    rules = get_rules(preset)
    ch = B.label_bid_chunk(rules, 3, 10, 3, epsilon=0.3, players=("heuristic",))
    assert len(ch) >= 6
    checked = same_play = 0
    for k in range(len(ch)):
        S = ch.states[k]
        seat = int(ch.seats[k])
        assert S[E.S_CUR] == seat and S[E.S_PHASE] == E.AUCTION
        # the legal mask is the engine's, in the canonical order
        d = Deal.from_state(rules, S)
        legal = set(d.legal_actions())
        enc_p = int(C.suit_order(_obs(rules, S, seat)))
        assert {int(C.ACT_SRC[enc_p, BA.BID_ACTIONS[j]]) for j in np.flatnonzero(ch.legal[k])} \
            == legal
        start = Deal.from_state(rules, ch.starts[ch.games[k] - 10])
        for j in np.flatnonzero(ch.legal[k])[::3]:
            a = int(C.ACT_SRC[enc_p, BA.BID_ACTIONS[j]])
            t = Deal.from_state(rules, S)
            t.apply(a)
            heuristic_until_play(t)
            if t.contract is None:
                assert ch.q[k, 0, j] == 0
                continue
            c = t.contract
            real = play_out(start.clone().with_contract(c.value, c.strain, taker=c.taker,
                                                        coinche=c.coinche))
            low = play_out(start.clone().with_contract(
                rules.bid_values[0] if rules.family != "classic" else 0, c.strain,
                taker=c.taker))
            checked += 1
            if real.plays == low.plays:
                same_play += 1
                assert ch.q[k, 0, j] == team_diff(real, seat), (k, A.action_to_str(a))
    assert checked >= 5 and same_play >= 0.8 * checked, (checked, same_play)


def _obs(rules, S, seat):
    from coinche_rl.envs.kernels import ObservationEncoder
    return ObservationEncoder(rules).encode(S, seat)


@pytest.mark.parametrize("preset", ["ffb", "ffb_sa_ta", "classic"])
def test_contract_values_are_the_seat_taking_now(preset):
    rules = get_rules(preset)
    ch = B.label_bid_chunk(rules, 5, 0, 2, players=("heuristic",))
    classic = rules.family == "classic"
    checked = 0
    for k in range(0, len(ch), 2):
        seat = int(ch.seats[k])
        p = int(C.suit_order(_obs(rules, ch.states[k], seat)))
        start = Deal.from_state(rules, ch.starts[ch.games[k]])
        valid = np.flatnonzero(ch.ev_valid[k])
        if classic:
            assert len(valid) == 4                     # take + the three other suits
        else:
            n_strains = 6 if preset == "ffb_sa_ta" else 4
            assert len(valid) == n_strains * (len(rules.bid_values) + 1)
        for j in valid[::1 if classic else 5]:
            a = int(C.ACT_SRC[p, BA.BID_ACTIONS[j]])
            if classic:
                strain = (start.state[E.S_RETOURNE] >> 3) if a == A.TAKE else a - A.NAME_BASE
                value = 0
            else:
                strain = A.bid_strain(a)
                value = E.CAPOT_VALUE if A.is_capot(a) else A.bid_value(a)
            real = play_out(start.clone().with_contract(value, strain, taker=seat))
            low = play_out(start.clone().with_contract(
                rules.bid_values[0] if not classic else 0, strain, taker=seat))
            if real.plays == low.plays:
                assert ch.ev[k, 0, j] == team_diff(real, seat)
                assert ch.made[k, 0, j] == (real.result.made is True)
                checked += 1
    assert checked >= 5


def test_a_chunk_is_a_pure_function_of_its_games():
    a = B.label_bid_chunk(FFB, 9, 100, 4, players=("heuristic",))
    b = B.label_bid_chunk(FFB, 9, 100, 4, players=("heuristic",))
    for name in ("feats", "legal", "q", "ev", "made", "ev_valid", "states"):
        assert np.array_equal(getattr(a, name), getattr(b, name)), name
    # games 100..103 = games 100..101 + 102..103
    c1 = B.label_bid_chunk(FFB, 9, 100, 2, players=("heuristic",))
    c2 = B.label_bid_chunk(FFB, 9, 102, 2, players=("heuristic",))
    assert np.array_equal(np.concatenate([c1.q, c2.q]), a.q)
    assert np.array_equal(np.concatenate([c1.games, c2.games]), a.games)
    other = B.label_bid_chunk(FFB, 10, 100, 4, players=("heuristic",))
    assert not np.array_equal(other.starts, a.starts)


def test_random_opponents_bid_and_play_at_random_and_are_never_labelled():
    """The opponent pool of the auction labels: with ``random_share`` 1 one team of every
    deal is the random bot; only the other team's decisions are labelled, both teams are
    drawn, and against random bidding and card play the best action is worth far more
    than against the heuristic (the random team's contracts fail, its defence is weak)."""
    heur = B.label_bid_chunk(FFB, 4, 0, 60, epsilon=0.0, players=("heuristic",))
    rand = B.label_bid_chunk(FFB, 4, 0, 60, epsilon=0.0, players=("heuristic",),
                             random_share=1.0)
    teams = {}
    for g, s in zip(rand.games, rand.seats):
        teams.setdefault(int(g), set()).add(int(s) & 1)
    assert len(teams) >= 50 and all(len(t) == 1 for t in teams.values())
    assert {next(iter(t)) for t in teams.values()} == {0, 1}
    # the same deals: the labelled seats see the random team's actions in their auctions
    assert np.array_equal(rand.starts, heur.starts)

    def best(ch):
        return np.where(ch.legal, ch.q[:, 0], -np.inf).max(1).mean()
    assert best(rand) > 1000 > 400 > best(heur)
    again = B.label_bid_chunk(FFB, 4, 0, 60, epsilon=0.0, players=("heuristic",),
                              random_share=1.0)
    assert np.array_equal(again.q, rand.q) and np.array_equal(again.feats, rand.feats)


def test_strong_deals_give_a_seat_a_long_suit_with_its_jack_and_nine():
    ch = B.label_bid_chunk(FFB, 4, 0, 80, epsilon=0.0, players=("heuristic",),
                           strong_share=1.0)
    lengths = []
    for S in ch.starts:
        hands = [int(E.hand_of(S, s)) for s in range(4)]
        assert all(bin(h).count("1") == 8 for h in hands)
        assert hands[0] | hands[1] | hands[2] | hands[3] == (1 << 32) - 1
        long = [(bin((h >> (8 * t)) & 0xFF).count("1"), h, t) for h in hands for t in range(4)]
        n, h, t = max(long)
        assert 5 <= n <= 8
        assert any(k >= 5 and (hh >> (8 * tt + 4)) & 1 and (hh >> (8 * tt + 2)) & 1
                   for k, hh, tt in long)                 # the jack and the nine held
        lengths.append(n)
    assert set(lengths) == {5, 6, 7, 8}
    # a share of 0 is the plain random deal
    plain = B.label_bid_chunk(FFB, 4, 0, 6, epsilon=0.0, players=("heuristic",))
    zero = B.label_bid_chunk(FFB, 4, 0, 6, epsilon=0.0, players=("heuristic",),
                             strong_share=0.0)
    assert np.array_equal(plain.starts, zero.starts) and np.array_equal(plain.q, zero.q)


def test_two_card_players_label_the_same_positions(tmp_path):
    from coinche_rl.agents.neural.agent import load_play_net
    net = load_play_net()
    both = B.label_bid_chunk(FFB, 2, 0, 3, players=("nn", "heuristic"), play_net=net)
    heur = B.label_bid_chunk(FFB, 2, 0, 3, players=("heuristic",))
    assert np.array_equal(both.feats, heur.feats) and np.array_equal(both.legal, heur.legal)
    assert np.array_equal(both.q[:, 1], heur.q[:, 0])
    assert not np.array_equal(both.q[:, 0], both.q[:, 1])      # the nn plays differently
    with pytest.raises(ValueError, match="play_net"):
        B.label_bid_chunk(FFB, 2, 0, 1, players=("nn",))
    with pytest.raises(ValueError, match="unknown card player 'dd'"):
        B.label_bid_chunk(FFB, 2, 0, 1, players=("dd",))


def nn_until_play(d: Deal, agents) -> None:
    """The Python ``nn`` agents at every seat until the auction ends."""
    for s, a in enumerate(agents):
        a.reset(s, d.rules, 0)
    while d.phase == "auction":
        d.apply(agents[d.current_player].act(PlayerView.from_deal(d)))


def contract_tuple(d: Deal):
    """``(strain, taker, value, coinche)`` as ``BidChunk.finals`` writes it (-1: none)."""
    c = d.contract
    if c is None or d.phase != "play":
        return -1
    return (c.strain, c.taker, E.CAPOT_VALUE if c.capot else c.value, c.coinche)


@pytest.mark.parametrize("preset, margin", [("ffb", 0.0), ("ffb", 40.0), ("classic", 0.0)])
def test_self_play_labels_are_the_nets_auctions_and_continuations(preset, margin, bid_file):
    """``bid_net``: the labelled auctions are the ones the Python ``nn`` agents bid (every
    position with two or more choices, in order), and every legal action's final
    contract is the rest of the auction bid by the ``nn`` agents (trust region
    included) at every seat; the heuristic path is another auction."""
    rules = get_rules(preset)
    spec = f"nn:bid_weights={bid_file},any_rules=true,bid_margin={margin}"
    bid = load_bid_net(bid_file, rules, "nn", check_rules=False, margin=margin)
    ch = B.label_bid_chunk(rules, 6, 20, 3, epsilon=0.0, players=("heuristic",), bid_net=bid)
    agents = [make_agent(spec) for _ in range(4)]
    checked = passed = 0
    for g in range(3):
        # the labelled positions: the agents' own auction, decision by decision
        d = Deal.from_state(rules, ch.starts[g])
        for a, s in enumerate(agents):
            s.reset(a, rules, 0)
        mine = [k for k in range(len(ch)) if ch.games[k] == 20 + g]
        seen = []
        while d.phase == "auction":
            if len(d.legal_actions()) >= 2:
                seen.append(d.state.copy())
            d.apply(agents[d.current_player].act(PlayerView.from_deal(d)))
        assert len(seen) == len(mine) >= 1
        assert all(np.array_equal(x, ch.states[k]) for x, k in zip(seen, mine))
        for k in mine:
            S = ch.states[k]
            p = int(C.suit_order(_obs(rules, S, int(ch.seats[k]))))
            for j in np.flatnonzero(ch.legal[k])[::4]:
                t = Deal.from_state(rules, S)
                t.apply(int(C.ACT_SRC[p, BA.BID_ACTIONS[j]]))
                nn_until_play(t, agents)
                want = contract_tuple(t)
                if want == -1:
                    assert ch.finals[k, j, 0] == -1 and ch.q[k, 0, j] == 0
                    passed += 1
                else:
                    assert tuple(int(x) for x in ch.finals[k, j]) == want, (k, j)
                checked += 1
    assert checked >= 10, checked
    assert (ch.finals[~ch.legal][:, 0] == -1).all()
    again = B.label_bid_chunk(rules, 6, 20, 3, epsilon=0.0, players=("heuristic",),
                              bid_net=bid)
    for name in ("feats", "legal", "q", "ev", "made", "finals", "states"):
        assert np.array_equal(getattr(again, name), getattr(ch, name)), name
    heur = B.label_bid_chunk(rules, 6, 20, 3, epsilon=0.0, players=("heuristic",))
    assert np.array_equal(heur.starts, ch.starts)
    assert not np.array_equal(heur.finals[:, :, 0], ch.finals[:, :, 0]) or \
        len(heur) != len(ch)


def test_self_play_labels_with_random_opponents_and_exploration(bid_file):
    """The opponent pool and ``epsilon`` in self-play: the random team is never labelled,
    a seat is not labelled after another seat's random action, and the chunk is a pure
    function of its arguments."""
    bid = load_bid_net(bid_file, FFB, "nn", check_rules=False, margin=0.0)
    ch = B.label_bid_chunk(FFB, 8, 0, 24, epsilon=0.3, players=("heuristic",),
                           random_share=1.0, bid_net=bid)
    teams = {}
    for g, s in zip(ch.games, ch.seats):
        teams.setdefault(int(g), set()).add(int(s) & 1)
    assert len(teams) >= 15 and all(len(t) == 1 for t in teams.values())
    assert {next(iter(t)) for t in teams.values()} == {0, 1}
    assert ch.rollout_steps > 0 and ch.agent_steps > len(ch)
    again = B.label_bid_chunk(FFB, 8, 0, 24, epsilon=0.3, players=("heuristic",),
                              random_share=1.0, bid_net=bid)
    assert np.array_equal(again.q, ch.q) and np.array_equal(again.feats, ch.feats)
    other = B.label_bid_chunk(FFB, 9, 0, 24, epsilon=0.3, players=("heuristic",),
                              random_share=1.0, bid_net=bid)
    assert not np.array_equal(other.starts, ch.starts)


def test_self_play_heuristic_opponents_bid_as_the_heuristic_and_are_never_labelled(bid_file):
    """The heuristic in the self-play opponent pool: with ``heuristic_share`` 1 one team of
    every deal bids as the heuristic, in the auction and in every continuation (checked
    against the Python agents), and only the other team's decisions are labelled."""
    bid = load_bid_net(bid_file, FFB, "nn", check_rules=False, margin=0.0)
    ch = B.label_bid_chunk(FFB, 5, 0, 12, epsilon=0.0, players=("heuristic",), bid_net=bid,
                           heuristic_share=1.0)
    teams = {}
    for g, s in zip(ch.games, ch.seats):
        teams.setdefault(int(g), set()).add(int(s) & 1)
    assert len(teams) >= 8 and all(len(t) == 1 for t in teams.values())
    assert {next(iter(t)) for t in teams.values()} == {0, 1}
    nn = make_agent(f"nn:bid_weights={bid_file},any_rules=true,bid_margin=0.0")
    heur = make_agent("heuristic")
    checked = 0
    for k in range(0, len(ch), 3):
        labelled = int(ch.seats[k]) & 1
        agents = [nn if (s & 1) == labelled else heur for s in range(4)]
        S = ch.states[k]
        p = int(C.suit_order(_obs(FFB, S, int(ch.seats[k]))))
        for j in np.flatnonzero(ch.legal[k])[::5]:
            t = Deal.from_state(FFB, S)
            t.apply(int(C.ACT_SRC[p, BA.BID_ACTIONS[j]]))
            nn_until_play(t, agents)
            want = contract_tuple(t)
            got = -1 if ch.finals[k, j, 0] < 0 else tuple(int(x) for x in ch.finals[k, j])
            assert got == want, (k, j)
            checked += 1
    assert checked >= 10
    with pytest.raises(ValueError, match="heuristic_share"):
        B.label_bid_chunk(FFB, 5, 0, 1, heuristic_share=0.5)
    with pytest.raises(ValueError, match="0..1"):
        B.label_bid_chunk(FFB, 5, 0, 1, bid_net=bid, random_share=0.6, heuristic_share=0.6)


def test_playout_outcomes_rescore_to_the_played_score():
    """The takers' outcome of a played deal, scored again for its own contract by the
    labels' scoring, is the engine's score of that deal (every preset family)."""
    for preset in ("ffb", "ffb_sa_ta", "coinche_x3", "classic", "vip_classic"):
        rules = get_rules(preset)
        P = params_vector(rules)
        starts = deal_states(preset, 6, seed=4)
        strains = B._strains(rules)
        base = np.zeros((6 * len(strains) * 4, E.STATE_SIZE), dtype=np.int64)
        B.playout_starts(P, starts, np.int64(6), strains, base)
        played = base.copy()
        B.play_contracts(rules, played, "heuristic")
        kinds = np.zeros(len(base), dtype=np.int64)
        pts = np.zeros(len(base), dtype=np.int64)
        B.playout_outcomes(P, played, kinds, pts)
        T = np.zeros(E.STATE_SIZE, dtype=np.int64)
        Z = np.zeros(E.STATE_SIZE, dtype=np.int64)
        for r in range(len(base)):
            taker = int(base[r, E.S_BID_SEAT])
            made, diff = B._contract_score(T, Z, P, starts[r // (4 * len(strains))],
                                           base[r, E.S_BID_VALUE], base[r, E.S_BID_STRAIN], 0,
                                           taker, kinds, pts, r)
            want = played[r, E.S_SCORE + (taker & 1)] - played[r, E.S_SCORE + 1 - (taker & 1)]
            assert diff == want and made == played[r, E.S_MADE], (preset, r)


# ===================================================== 2. equivariance
def auction_positions(preset, seed, n=6):
    rng = np.random.default_rng(seed)
    out = []
    for _ in range(n):
        start = random_start(preset, rng)
        actions = random_actions(start, rng, long_auction=True)
        out.append((start, actions))
    return out


@pytest.mark.parametrize("preset", ALL_PRESETS)
@pytest.mark.parametrize("margin", [0.0, 40.0])
def test_every_renaming_gives_the_renamed_bid(preset, margin, bid_file):
    """With a margin the heuristic's action anchors the decision: it is taken on the
    canonical public state, so the decision stays equivariant."""
    rules = get_rules(preset)
    net = load_bid_net(bid_file, rules, "nn", check_rules=False, margin=margin)
    inputs = NetInputs(rules, 1)
    idx = np.zeros(1, dtype=np.int64)
    stats = {"decisions": 0, "flips": 0, "ties": 0}
    for start, actions in auction_positions(preset, 31 + len(preset), n=3):
        for pi in ALL_PI[:: 1 if preset in ("ffb", "ffb_sa_ta") else 5]:
            for d, rd in zip(replay(start, actions), replay(start, actions, pi)):
                if d.phase != "auction":
                    break
                a = int(net.actions(inputs, d.state[None, :], idx)[0])
                feats = inputs.bid_compute(d.state[None, :], idx)[0].copy()
                ra = int(net.actions(inputs, rd.state[None, :], idx)[0])
                rfeats = inputs.bid_compute(rd.state[None, :], idx)[0]
                assert np.array_equal(feats, rfeats)      # the same canonical input
                stats["decisions"] += 1
                if ra == rename_action(a, pi):
                    continue
                back = rename_action(ra, inverse(pi))
                s1, s2 = action_suit(a), action_suit(back)
                obs = _obs(rules, d.state, d.current_player)
                if s1 is not None and s2 is not None and s1 != s2 and \
                        np.array_equal(rename_obs(obs, transposition(s1, s2)), obs):
                    stats["ties"] += 1                    # two suits it cannot tell apart
                else:
                    stats["flips"] += 1
    assert stats["flips"] == 0, stats
    assert stats["decisions"] >= 30, stats


def test_the_anchor_reads_the_same_canonical_state_for_every_renaming():
    from coinche_rl.agents.neural.batch_play import anchor_actions, canonical_auction_state
    P = params_vector(FFB)
    pub = np.zeros(E.STATE_SIZE, dtype=np.int64)
    T = np.zeros(E.STATE_SIZE, dtype=np.int64)
    RT = np.zeros(E.STATE_SIZE, dtype=np.int64)
    checked = differs = 0
    for start, actions in auction_positions("ffb", 5, n=4):
        for pi in ALL_PI:
            for d, rd in zip(replay(start, actions), replay(start, actions, pi)):
                if d.phase != "auction":
                    break
                seat = d.current_player
                p = int(C.suit_order(_obs(FFB, d.state, seat)))
                rp = int(C.suit_order(_obs(FFB, rd.state, seat)))
                canonical_auction_state(d.state, P, p, pub, T)
                canonical_auction_state(rd.state, P, rp, pub, RT)
                assert np.array_equal(T, RT)
                differs += not np.array_equal(d.state, rd.state)
                checked += 1
                out = np.zeros(1, dtype=np.int64)
                anchor_actions(d.state[None, :], P, np.zeros(1, dtype=np.int64),
                               np.array([p]), BOT_HEURISTIC, out)
                assert d.legal_action_mask()[C.ACT_SRC[p, out[0]]]      # a legal action
    assert checked >= 100 and differs >= 50


# ============================================= 3. legal play, both paths, no leak
@pytest.mark.parametrize("preset", ALL_PRESETS)
def test_the_agent_bids_legally_on_every_preset(preset, bid_file):
    rules = get_rules(preset)
    # margin 0: every decision is the network's own (the default margin mostly keeps a
    # random net on the heuristic's action)
    specs = [f"nn:bid_weights={bid_file},any_rules=true,bid_margin=0", "heuristic",
             f"nn:bid_weights={bid_file},any_rules=true,play=heuristic,bid_margin=0", "random"]
    agents = [make_agent(s) for s in specs]
    states = deal_states(preset, 16, seed=8)
    seeds = np.random.default_rng(9).integers(0, 2 ** 31, (16, 4))
    slow = states.copy()
    seen = set()
    for i in range(len(slow)):
        d = Deal.from_state(rules, slow[i])
        play_deal(d, agents, [int(s) for s in seeds[i]])      # refuses an illegal action
        slow[i] = d.state
        seen.update(a for a in d.history if not A.is_card(a))
    heur = make_agent("heuristic").numba_bot
    bid = load_bid_net(bid_file, rules, "nn", check_rules=False, margin=0.0)
    bid_h = load_bid_net(bid_file, rules, "heuristic", check_rules=False, margin=0.0)
    from coinche_rl.agents.neural.agent import load_play_net
    net = load_play_net(rules=rules, check_rules=False)
    fast = states.copy()
    play_states(rules, fast, seeds, [heur, heur, heur, make_agent("random").numba_bot],
                [net, None, None, None], [bid, None, bid_h, None])
    assert (fast[:, E.S_PHASE] == E.DONE).all()
    assert np.array_equal(fast, slow)
    assert len(seen) >= (2 if rules.family == "classic" else 3), seen


def test_run_duplicate_fast_equals_the_python_path_with_bidding(bid_file):
    kw = dict(seed=6)
    spec = f"nn:bid_weights={bid_file}"
    fast = run_dup(spec, 10, **kw)
    slow = run_dup(spec, 10, fast=False, **kw)
    assert np.array_equal(fast.scores, slow.scores)
    assert np.array_equal(fast.contracts, slow.contracts)


def run_dup(spec, n, **kw):
    from coinche_rl.arena import run_duplicate
    return run_duplicate(spec, "heuristic", n, **kw)


@pytest.mark.parametrize("preset", ["ffb", "ffb_sa_ta", "classic"])
def test_no_leak_the_bid_depends_only_on_what_the_seat_knows(preset, bid_file):
    rules = get_rules(preset)
    agent = make_agent(f"nn:bid_weights={bid_file},any_rules=true")
    rng = np.random.default_rng(900 + len(preset))
    compared = {"auction": 0}

    def same_bids(b, a_now, seat):
        if a_now.is_terminal or a_now.current_player != seat or a_now.phase != "auction":
            return
        agent.reset(seat, rules, 17)
        x = agent.act(PlayerView.from_deal(b))
        agent.reset(seat, rules, 17)
        assert x == agent.act(PlayerView.from_deal(a_now))
        compared["auction"] += 1

    for _ in range(4):
        trace, actions = random_trace(preset, rng)
        who = actors(trace[-1], actions)
        compare_in_other_worlds(trace, actions, who, rng, same_bids)
    assert compared["auction"] >= 10, compared


# ===================================================== 4. bidding weights files
def test_bidding_weights_round_trip_and_manifest_checks(tmp_path):
    net = small_bid_net(players=("heuristic",))
    path = write_bid(tmp_path / "b.npz", net, players=("heuristic",))
    back = load_weights(path, kind="bid")
    x = np.random.default_rng(0).random((5, C.FEATURE_SIZE)).astype(np.float32)
    assert np.allclose(back.forward(x), net.forward(x), atol=1e-5)
    assert back.manifest["bid"] == {"players": ["heuristic"], "heads": ["q", "ev", "made"]}
    assert back.manifest["action_map"] == "canonical-auction-82"
    with pytest.raises(WeightsError, match="kind"):
        load_weights(path)                                   # not a card-play net
    with pytest.raises(NeuralError, match="card players \\['heuristic'\\], not for 'nn'"):
        load_bid_net(path, FFB, "nn")
    # a manifest whose players disagree with the outputs
    with np.load(path) as z:
        arrays = {k: z[k] for k in z.files}
    m = json.loads(str(arrays["manifest"]))
    for field, value, match in (("players", ["nn", "heuristic"], "architecture.outputs"),
                                ("players", ["dd"], "bid.players"),
                                ("heads", ["q"], "bid.heads")):
        m2 = json.loads(json.dumps(m))
        m2["bid"][field] = value
        arrays["manifest"] = np.array(json.dumps(m2))
        bad = tmp_path / f"bad_{field}.npz"
        np.savez(bad, **arrays)
        with pytest.raises(WeightsError, match=match):
            load_weights(str(bad), kind="bid")


def test_agent_settings_are_checked_and_named(bid_file):
    with pytest.raises(ValueError, match="bidding='neural'.*auto, net, heuristic"):
        NeuralAgent(bidding="neural")
    with pytest.raises(ValueError, match="play='dd'"):
        NeuralAgent(play="dd")
    with pytest.raises(ValueError, match="bid_weights is for bidding=net or auto"):
        NeuralAgent(bid_weights=bid_file, bidding="heuristic")
    with pytest.raises(NeuralError, match="/nonexistent_bid.npz"):
        make_agent("nn:bid_weights=/nonexistent_bid.npz").reset(0, FFB, 0)
    # another preset: refused unless any_rules
    with pytest.raises(NeuralError, match="bidding net.*'ffb'.*'ffb_sa_ta'"):
        make_agent(f"nn:bid_weights={bid_file},weights={default_weights_path('ffb')}") \
            .bid_net(get_rules("ffb_sa_ta"))
    # no bidding weights shipped for a preset: auto bids with the heuristic, net refuses
    assert make_agent("nn:any_rules=true").bid_net(get_rules("vip_classic")) is None
    with pytest.raises(NeuralError, match="no shipped bidding weights for preset 'vip_classic'"):
        make_agent("nn:any_rules=true,bidding=net").bid_net(get_rules("vip_classic"))
    assert make_agent("nn:bidding=heuristic").bid_net(FFB) is None
    assert make_agent("nn:play=heuristic").play_net(FFB) is None
    from coinche_rl.agents import AgentSpecError
    for spec, match in (("nn:bidding=neural", "bidding"), ("nn:play=dd", "play"),
                        ("nn:bid_margin=-5", "bid_margin")):
        with pytest.raises(AgentSpecError, match=match):
            make_agent(spec)


def test_the_shipped_bidder_is_the_default_under_ffb_and_borrowed_with_any_rules():
    assert os.path.isfile(default_weights_path("ffb", "bid"))
    net = make_agent("nn").bid_net(FFB)
    assert net is not None and net.player == "nn"
    assert net.net.manifest["rules"]["name"] == "ffb" and net.net.manifest["kind"] == "bid"
    assert make_agent("nn:play=heuristic").bid_net(FFB).player == "heuristic"
    # another coinche preset: the ffb bidder only with any_rules (the heuristic otherwise)
    colver = get_rules("colver")
    assert make_agent("nn:any_rules=true").bid_net(colver) is not None
    with pytest.raises(NeuralError, match="any_rules"):
        load_bid_net("", colver, required=True)
    ev = evaluate_hand("ffb", 0, "JH 9H AH TH 7S 8D KC QC", dealer=3, method="nn")
    assert ev.p_make.shape == (4, 10)


# ============================== 5. evaluation, suggested bid, PIMC, vector env
def test_the_suggested_bid_is_the_best_not_the_highest():
    levels = np.array([80, 90, 100, 110, 120, 130, 140, 150, 160, 250])
    expected = np.array([[200, 250, 290, 300, 308, 150, 90, 60, 30, 45.6]])
    legal = np.ones_like(expected, dtype=bool)
    legal[0, :2] = False
    assert suggest_bid(levels, (1,), expected, legal) == (120, 1)
    assert suggest_bid(levels, (1,), expected, legal, rule="highest") == (250, 1)
    assert suggest_bid(levels, (1,), -expected, legal) is None
    # a tie: the lower level, then the first strain
    tie = np.array([[10.0, 10.0], [10.0, 5.0]])
    assert suggest_bid(np.array([80, 90]), (0, 1), tie, np.ones((2, 2), bool)) == (80, 0)
    with pytest.raises(ValueError, match="rule 'top'"):
        suggest_bid(levels, (1,), expected, legal, rule="top")


def test_the_issue_example_suggests_the_best_contract():
    ev = evaluate_hand("ffb", 0, "JH 9H AH TH 7S 8D KC QC", dealer=3, samples=60,
                       auction="pass 100S", holds={2: "AS"}, strains="H", method="heuristic")
    best = ev.best_bid
    assert ev.suggested_bid == best
    hi = ev.highest_positive_bid
    assert hi is not None and hi[0] >= best[0]
    text = ev.table()
    assert "the best expected score" in text
    if hi != best:
        assert "highest contract with a positive expected score" in text
    d = ev.to_dict()
    assert d["suggested_bid"]["value"] == best[0] and d["highest_positive_bid"]["value"] == hi[0]


def test_the_network_evaluates_a_hand(bid_file):
    ev = evaluate_hand("ffb", 0, "JH 9H AH TH 7S 8D KC QC", dealer=3, method="nn",
                       bid_weights=bid_file)
    assert ev.primary == "nn" and ev.samples == 0 and ev.nn_player == "nn"
    assert ev.p_make.shape == (4, 10) and ((ev.p_make >= 0) & (ev.p_make <= 1)).all()
    assert np.array_equal(ev.p_make, ev.p_make_nn)
    # the values are the network's heads at the seat's decision, mapped to physical contracts
    d = Deal("ffb", hands=_hands_with("JH 9H AH TH 7S 8D KC QC"), dealer=3)
    net = load_bid_net(bid_file, FFB, "nn")
    inputs = NetInputs(FFB, 1)
    feats, _legal, perms = inputs.bid_compute(d.state[None, :], np.zeros(1, dtype=np.int64))
    _q, evh, pm = net.heads(feats)
    for s in range(4):
        for k, v in enumerate(ev.levels):
            a = A.capot_action(s) if v == 250 else A.bid_action(int(v), s)
            i = BA.BID_INDEX[C.ACT_DST[perms[0], a]]
            assert ev.expected_score[s, k] == pytest.approx(evh[0, i], abs=1e-3)
            assert ev.p_make[s, k] == pytest.approx(pm[0, i], abs=1e-6)
    assert "bidding network, card player nn" in ev.table()
    h = evaluate_hand("ffb", 0, "JH 9H AH TH 7S 8D KC QC", dealer=3, method="nn",
                      bid_weights=bid_file, nn_player="heuristic")
    assert not np.array_equal(h.expected_score, ev.expected_score)
    for kw, match in ((dict(auction="pass 100S"), "seat 2's turn"),
                      (dict(coinche=1), "uncoinched"),
                      (dict(holds={2: "AS"}), "draws no worlds"),
                      (dict(nn_player="pimc"), "nn_player 'pimc'")):
        with pytest.raises(EvaluationError, match=match):
            evaluate_hand("ffb", 0, "JH 9H AH TH 7S 8D KC QC", dealer=3, method="nn",
                          bid_weights=bid_file, **kw)
    with pytest.raises(EvaluationError, match="no shipped bidding weights|vip_classic"):
        evaluate_hand("vip_classic", 0, "JH 9H AH TH 7S", dealer=3, method="nn", retourne="8D")


def _hands_with(text):
    from coinche_rl.cards import parse_hand
    h0 = parse_hand(text)
    rest = [c for c in range(32) if not h0 >> c & 1]
    return [h0] + [sum(1 << c for c in rest[8 * i:8 * i + 8]) for i in range(3)]


def test_the_cli_evaluates_with_the_network(bid_file, capsys):
    from coinche_rl.cli import main
    rc = main(["evaluate", "JH 9H AH TH 7S 8D KC QC", "--method", "nn", "--bid-weights",
               bid_file])
    out = capsys.readouterr().out
    assert rc == 0 and "bidding network" in out and "suggested bid" in out
    rc = main(["evaluate", "JH 9H AH TH 7S 8D KC QC", "--method", "nn", "--bid-weights",
               bid_file, "--json"])
    d = json.loads(capsys.readouterr().out)
    assert rc == 0 and d["method"] == "nn" and len(d["p_make_nn"]) == 4
    rc = main(["evaluate", "JH 9H AH TH 7S 8D KC QC", "--method", "nn", "--bid-weights",
               bid_file, "--auction", "pass"])
    assert rc == 2 and "seat 1's turn" in capsys.readouterr().err


def test_pimc_bids_with_the_network(bid_file):
    deal = Deal("ffb", seed=12, dealer=0)
    pimc = make_agent(f"pimc:bid_method=nn,worlds=2,bid_weights={bid_file}")
    net_agent = make_agent(f"nn:bid_weights={bid_file}")
    table = [pimc, make_agent("heuristic"), make_agent("heuristic"), make_agent("heuristic")]
    for s, a in enumerate(table):
        a.reset(s, deal.rules, s)
    net_agent.reset(0, deal.rules, 0)
    while deal.phase == "auction":
        view = PlayerView.from_deal(deal)
        a = table[deal.current_player].act(view)
        if deal.current_player == 0:
            assert a == net_agent.act(view)
        deal.apply(a)
    with pytest.raises(ValueError, match="bid_method"):
        make_agent("pimc:bid_method=neural")
    with pytest.raises(ValueError, match="bid_weights is for bid_method=nn"):
        make_agent(f"pimc:bid_method=heuristic,bid_weights={bid_file}")
    # the default: the network where bidding weights ship, else the hand evaluation
    auto = make_agent("pimc")
    assert auto.bid_method == "auto" and auto._method(FFB) == "nn"
    assert auto._method(get_rules("classic")) == "heuristic"
    assert auto._method(get_rules("ffb_sa_ta")) == "heuristic"


def test_the_vector_env_opponents_bid_with_the_network(bid_file):
    from coinche_rl.envs.vector import CoincheVectorEnv
    agent = make_agent(f"nn:bid_weights={bid_file}")
    policy = agent.batch_policy(FFB)
    assert policy.bid_net is not None
    calls = []

    def spy(states, params, seats):
        out = policy(states, params, seats)
        calls.append(int((states[:, E.S_PHASE] == E.AUCTION).sum()))
        return out

    env = CoincheVectorEnv(16, seat=0, rules=FFB, opponents=spy, seed=3)
    env.reset()
    done = 0
    for _ in range(40):
        obs, rew, term, trunc, infos = env.step(env.action_masks().argmax(axis=1))
        done += int(term.sum())
    assert done > 0 and sum(calls) > 16          # the opponents' auction went through it


# ============================================================= 6. the trainer
torch = pytest.importorskip("torch")


def small_args(tmp_path, **kw):
    from coinche_rl.train.bid import Args
    base = dict(out=str(tmp_path / "run"), workers=0, chunk_deals=8, hidden=[16],
                batch_size=32, updates_per_chunk=2, min_buffer=50, buffer_size=2000,
                max_chunks=4, eval_minutes=0, progress=False, log_seconds=0.0,
                checkpoint_minutes=1000.0, players="heuristic")
    base.update(kw)
    return Args(**base)


def test_a_training_run_exports_loadable_weights(tmp_path):
    from coinche_rl.train.bid import export_run, train
    res = train(small_args(tmp_path))
    assert res["chunks"] == 4 and res["updates"] > 0 and res["players"] == ["heuristic"]
    net = load_weights(res["weights"], FFB, kind="bid")
    assert net.manifest["training"]["players"] == ["heuristic"]
    out = export_run(str(tmp_path / "run"), str(tmp_path / "exported.npz"), float32=True)
    again = load_weights(out, FFB, kind="bid")
    x = np.random.default_rng(1).random((3, C.FEATURE_SIZE)).astype(np.float32)
    assert np.allclose(again.forward(x), net.forward(x), atol=2e-2)
    spec = f"nn:bid_weights={out},play=heuristic"
    d = Deal("ffb", seed=3)
    play_deal(d, [make_agent(spec), make_agent("heuristic"), make_agent(spec),
                  make_agent("heuristic")], seeds=[1, 2, 3, 4])
    assert d.is_terminal
    metrics = [json.loads(line) for line in open(tmp_path / "run" / "metrics.jsonl")]
    assert any("losses/q_relative_huber" in m for m in metrics)


def test_resume_gives_the_same_weights_as_one_run(tmp_path):
    from coinche_rl.train.bid import train
    one = train(small_args(tmp_path / "a", max_chunks=6))
    train(small_args(tmp_path / "b", max_chunks=3))
    two = train(small_args(tmp_path / "b", max_chunks=6, resume=True))
    a = load_weights(one["weights"], kind="bid")
    b = load_weights(two["weights"], kind="bid")
    assert all(np.array_equal(x[0], y[0]) and np.array_equal(x[1], y[1])
               for x, y in zip(a.layers, b.layers))
    with pytest.raises(ValueError, match="epsilon"):
        train(small_args(tmp_path / "b", max_chunks=7, resume=True, epsilon=0.5))
    with pytest.raises(FileExistsError, match="--resume"):
        train(small_args(tmp_path / "b"))


def test_a_self_play_bidding_run_trains_and_resumes_with_its_bidders(tmp_path, bid_file):
    from coinche_rl.train.bid import train
    kw = dict(bidders="nn", bid_weights=bid_file, bid_margin=0.0)
    res = train(small_args(tmp_path, max_chunks=2, **kw))
    assert res["chunks"] == 2 and res["updates"] > 0
    net = load_weights(res["weights"], FFB, kind="bid")
    assert net.manifest["training"]["args"]["bidders"] == "nn"
    with pytest.raises(ValueError, match="bidders"):
        train(small_args(tmp_path, max_chunks=3, resume=True))
    with pytest.raises(ValueError, match="bid_margin"):
        train(small_args(tmp_path, max_chunks=3, resume=True, **{**kw, "bid_margin": 10.0}))


@pytest.mark.parametrize("kw, match", [
    (dict(players="nn,dd"), "unknown card player 'dd'"),
    (dict(players="nn,nn"), "distinct"),
    (dict(epsilon=1.5), "--epsilon"),
    (dict(hidden=[]), "--hidden"),
    (dict(ev_loss_weight=-1.0), "--ev-loss-weight"),
    (dict(play_weights="/nonexistent.npz"), "--play-weights"),
    (dict(bidders="pimc"), "--bidders"),
    (dict(bidders="nn", bid_weights="/nonexistent.npz"), "--bid-weights"),
    (dict(bid_weights=__file__), "--bid-weights"),
    (dict(bidders="nn", bid_margin=-1.0), "--bid-margin"),
    (dict(heuristic_opponents=0.3), "--heuristic-opponents"),
    (dict(bidders="nn", random_opponents=0.6, heuristic_opponents=0.6), "--heuristic-opponents"),
    (dict(rules="nope"), "nope"),
])
def test_bad_settings_are_refused_before_anything_is_written(tmp_path, kw, match):
    from coinche_rl.train.bid import train
    args = small_args(tmp_path, **kw)
    with pytest.raises(Exception, match=match):
        train(args)
    assert not os.path.exists(tmp_path / "run")


def test_the_cli_trains_and_exports_a_bidding_run(tmp_path, capsys):
    from coinche_rl.cli import main
    out = str(tmp_path / "cli_run")
    rc = main(["train", "bid", "--out", out, "--workers", "0", "--chunk-deals", "4",
               "--hidden", "8", "--batch-size", "16", "--min-buffer", "10", "--max-chunks", "2",
               "--eval-minutes", "0", "--no-progress", "--players", "heuristic"])
    assert rc == 0, capsys.readouterr().err
    rc = main(["train", "export", out, "-o", str(tmp_path / "w.npz")])
    assert rc == 0
    assert load_weights(str(tmp_path / "w.npz"), kind="bid").manifest["kind"] == "bid"
    rc = main(["train", "bid", "--out", out, "--epsilon", "2"])
    assert rc == 2 and "--epsilon" in capsys.readouterr().err


def test_a_bidding_run_ends_evaluated_and_says_so(tmp_path, capsys):
    """As the card-play trainer: the run ends with an evaluation of its final weights
    (the first one, at the first update, is the untrained net's), shown with its age; its
    replay is written compressed and its size said; a refused start leaves no folder; a
    ``--resume`` with the budget spent says which option to raise."""
    from coinche_rl.train.bid import Args, train
    res = train(small_args(tmp_path, eval_minutes=1000.0, eval_pairs=4, log_seconds=1e9))
    assert [h["updates"] for h in res["history"]][-1] == res["updates"]
    assert len(res["history"]) == 2 and res["history"][0]["updates"] < res["updates"]
    out = capsys.readouterr().out
    assert f"(at update {res['updates']}, end of run) vs heuristic" in out
    path = tmp_path / "run" / "replay.npz"
    with np.load(path) as z:
        n = int(z["size"])
    assert f"replay.npz {os.path.getsize(path) / 1e6:.1f} MB ({n:,} positions)" in out
    assert Args().buffer_size * os.path.getsize(path) / n < 40e6
    again = train(small_args(tmp_path, resume=True))
    assert "--max-chunks" in again["budget_spent"] and again["updates"] == res["updates"]
    assert "nothing to train" in capsys.readouterr().out
    with pytest.raises(FileNotFoundError, match="--init"):
        train(small_args(tmp_path / "x", init=str(tmp_path / "nothere")))
    with pytest.raises(FileNotFoundError, match="--resume"):
        train(small_args(tmp_path / "y", resume=True))
    assert not (tmp_path / "x").exists() and not (tmp_path / "y").exists()
    with pytest.raises(FileNotFoundError, match="no folder"):
        from coinche_rl.train.bid import export_run
        export_run(str(tmp_path / "run"), str(tmp_path / "nothere" / "w.npz"))
    assert not (tmp_path / "nothere").exists()
