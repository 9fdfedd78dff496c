"""The ``nnsearch`` agent: legal on every preset it supports, leak-free, seeded, its
values the mean play-out scores, and its parameters checked."""

import numpy as np
import pytest

from coinche_rl.actions import CARD_BASE
from coinche_rl.agents import AgentSpecError, make_agent, play_deal, roster_agents
from coinche_rl.agents.base import PlayerView
from coinche_rl.agents.neural.search import SearchAgent
from coinche_rl.agents.pimc import PIMCError
from coinche_rl.agents.sampler import WorldSampler
from coinche_rl.envs.infoset import information_set
from coinche_rl.game import Deal
from coinche_rl.rules import PRESETS, get_rules

from two_player_cases import hidden_cards_permuted

COINCHE = [name for name, r in PRESETS.items() if r.family == "coinche"]


@pytest.mark.parametrize("preset", COINCHE)
def test_nnsearch_plays_whole_legal_deals(preset):
    extra = "" if preset == "ffb" else ",any_rules=true"
    spec = f"nnsearch:worlds=2,batch=2{extra}"
    deal = Deal(preset, seed=13, dealer=0)
    table = [make_agent(spec), make_agent("heuristic"), make_agent(spec), make_agent("heuristic")]
    play_deal(deal, table, seeds=[5, 6, 7, 8])        # play_deal refuses an illegal action
    assert deal.is_terminal


def _position(seed, cards):
    deal = Deal("ffb", seed=seed, dealer=3).with_contract(80, 1, taker=0)
    rng = np.random.default_rng(seed)
    n = 0
    while n < cards:
        legal = deal.legal_actions()
        deal.apply(int(legal[rng.integers(len(legal))]))
        if int(legal[0]) >= CARD_BASE:
            n += 1
    return deal


def test_nnsearch_is_seeded_and_scores_every_legal_card():
    deal = _position(3, 6)
    view = PlayerView.from_deal(deal)
    runs = []
    for _ in range(2):
        agent = SearchAgent(worlds=6, batch=4, worlds_from="uniform")
        agent.reset(view.seat, deal.rules, 9)
        runs.append(agent.card_values(view))
    (b1, a1, v1), (b2, a2, v2) = runs
    assert b1 == b2 and np.array_equal(a1, a2) and np.array_equal(v1, v2)
    assert sorted(a1.tolist()) == sorted(int(x) for x in deal.legal_actions())
    assert b1 == int(a1[np.argmax(v1)])
    assert agent.last_worlds == 6
    # the values are deal-score differences: a multiple of the scoring unit, bounded
    assert np.all(np.abs(v1) <= 2 * 4 * 500)


def test_nnsearch_does_not_see_hidden_cards():
    """Two deals with the same public history and the seat's hand, different hidden
    hands: the same values and the same card."""
    deal = _position(21, 9)
    seat = deal.current_player
    info = information_set(deal, seat)
    pub = PlayerView.from_deal(deal).public_state
    agent = SearchAgent(worlds=4, worlds_from="uniform")
    agent.reset(seat, deal.rules, 1)
    base = agent.card_values(PlayerView.from_deal(deal))
    tried = 0
    for w in WorldSampler(info).sample(20, 4):
        played = [deal.initial_hands[t] & ~deal.hands[t] for t in range(4)]
        other = Deal("ffb", hands=[int(w[t]) | played[t] for t in range(4)],
                     dealer=deal.dealer).with_contract(80, 1, taker=0)
        try:
            for a in deal.history:
                other.apply(int(a))
        except ValueError:
            continue
        if not np.array_equal(PlayerView.from_deal(other).public_state, pub) or \
                other.hands == deal.hands:
            continue
        agent.reset(seat, deal.rules, 1)
        got = agent.card_values(PlayerView.from_deal(other))
        assert got[0] == base[0] and np.array_equal(got[2], base[2])
        tried += 1
    assert tried >= 3


def test_nnsearch_time_budget_stops_after_one_batch():
    deal = _position(5, 2)
    view = PlayerView.from_deal(deal)
    agent = SearchAgent(worlds=64, batch=4, time_ms=1e-6, worlds_from="uniform")
    agent.reset(view.seat, deal.rules, 0)
    agent.card_values(view)
    assert agent.last_worlds == 4


def test_nnsearch_parameters_and_roster():
    with pytest.raises(ValueError, match="worlds"):
        SearchAgent(worlds=-1)
    with pytest.raises(ValueError, match="time_ms"):
        SearchAgent(time_ms=-1)
    with pytest.raises(PIMCError, match="worlds_from"):
        SearchAgent(worlds_from="oracle")
    with pytest.raises(AgentSpecError):
        make_agent("nnsearch:worlds=-1")
    with pytest.raises(PIMCError, match="not the classic prise"):
        SearchAgent().reset(0, get_rules("classic"), 0)
    # a slow searcher: a spec, but not in the default tournament roster
    assert "nnsearch" not in roster_agents()
    assert make_agent("nnsearch:worlds=3").worlds == 3


def test_tournaments_play_nnsearch_through_its_search():
    """The arena's batched network path must not replace the search (it would play the
    nn agent's cards): a duplicate against the nn agent is not all ties."""
    from coinche_rl.arena import run_duplicate
    r = run_duplicate("nnsearch:worlds=4", "nn", 2, preset="ffb", seed=3, frozen_contract=True)
    assert r.n == 2
    assert not hasattr(make_agent("nnsearch"), "play_net")


def test_solve_from_hands_late_decisions_to_the_exact_solver():
    """With ``solve_from`` cards or fewer in hand the worlds are solved: the values and
    the card are pimc's on the same worlds; with more cards they are play-outs."""
    from coinche_rl.agents.pimc import PIMCAgent
    from coinche_rl.engine import hand_of, popcount
    deal = _position(7, 20)                     # 5 tricks played: 3 cards in hand
    view = PlayerView.from_deal(deal)
    assert popcount(hand_of(view.public_state, view.seat)) == 3
    agent = SearchAgent(worlds=8, worlds_from="uniform", solve_from=3)
    agent.reset(view.seat, deal.rules, 4)
    best, actions, values = agent.card_values(view)
    pimc = PIMCAgent(worlds=8, worlds_from="uniform")
    pimc.reset(view.seat, deal.rules, 4)
    p_actions, totals, n = pimc.card_values(view)
    assert np.array_equal(actions, p_actions) and np.allclose(values, totals / n)
    assert best in [int(a) for a, v in zip(actions, values) if v == values.max()]
    pimc.reset(view.seat, deal.rules, 4)
    assert best == pimc.card_choice(view)[0]
    agent.reset(view.seat, deal.rules, 4)
    pimc.reset(view.seat, deal.rules, 4)
    assert agent.act(view) == pimc.act(view)
    # one card more than solve_from: play-outs (values are no longer pimc's in general,
    # and the play-out path counts its worlds itself)
    early = _position(7, 16)
    v2 = PlayerView.from_deal(early)
    assert popcount(hand_of(v2.public_state, v2.seat)) == 4
    agent.reset(v2.seat, early.rules, 4)
    agent.card_values(v2)
    assert agent._decisions == 1 and agent.last_worlds == 8


@pytest.mark.parametrize("bad", [-2, 17, True, 2.0])
def test_solve_from_is_checked(bad):
    with pytest.raises(ValueError, match="solve_from"):
        SearchAgent(solve_from=bad)
    with pytest.raises(AgentSpecError):
        make_agent(f"nnsearch:solve_from={bad}")


def test_nnsearch_with_solve_from_plays_whole_legal_deals():
    deal = Deal("ffb", seed=13, dealer=0)
    spec = "nnsearch:worlds=2,batch=2,solve_from=5"
    table = [make_agent(spec), make_agent("heuristic"), make_agent(spec), make_agent("heuristic")]
    play_deal(deal, table, seeds=[5, 6, 7, 8])
    assert deal.is_terminal


# ------------------------------------------------------------ belote for two players
TWO = [name for name, r in PRESETS.items() if r.family == "two"]


def _two_position(preset, seed, cards):
    """A deal of belote for two players after its prise and ``cards`` cards played by the
    heuristic (None when the prise passed out)."""
    from coinche_rl.two_player import TwoPlayerDeal
    deal = TwoPlayerDeal(preset, seed=seed, dealer=seed % 2)
    bots = [make_agent("heuristic", "two") for _ in range(2)]
    for p, b in enumerate(bots):
        b.reset(p, deal.rules, p)
    while not deal.is_terminal and len(deal.plays) < cards:
        p = deal.current_player
        deal.apply(bots[p].act(deal.view(p)))
    return None if deal.is_terminal else deal


@pytest.mark.parametrize("preset", TWO)
def test_nnsearch_plays_whole_deals_of_belote_for_two(preset):
    from coinche_rl.two_player import TwoPlayerDeal
    for seed in (3, 4):
        deal = TwoPlayerDeal(preset, seed=seed, dealer=seed % 2)
        table = [make_agent("nnsearch:worlds=3,batch=2", "two"), make_agent("heuristic", "two")]
        play_deal(deal, table, seeds=[5, 6])          # play_deal refuses an illegal action
        assert deal.is_terminal
    agent = make_agent("nnsearch", "two")
    agent.reset(0, deal.rules, 1)
    # the family's defaults (SEARCH_FAMILIES), the parameters kept as given
    assert (agent.n_worlds, agent.n_solve, agent.worlds, agent.solve_from) == (64, 10, 0, -1)
    # a tournament of the family warms the family's solver too
    assert "coinche_rl.solver_two" in make_agent("nnsearch", "two").kernel_modules()
    assert make_agent("nnsearch").kernel_modules() == ("coinche_rl.agents.neural.search",)


@pytest.mark.parametrize("preset", TWO)
def test_two_player_search_is_seeded_legal_and_scores_every_card(preset):
    deal = _two_position(preset, 1, 6)
    p = deal.current_player
    view = deal.view(p)
    runs = []
    for _ in range(2):
        agent = SearchAgent(worlds=5, batch=2, solve_from=0)
        agent.reset(p, deal.rules, 9)
        runs.append(agent.card_values(view))
        assert agent.last_worlds == 5
    (b1, a1, v1), (b2, a2, v2) = runs
    assert b1 == b2 and np.array_equal(a1, a2) and np.array_equal(v1, v2)
    assert sorted(a1.tolist()) == view.legal_actions and len(a1) >= 2
    assert b1 == int(a1[np.argmax(v1)]) and b1 in view.legal_actions
    # deal-score differences of the player: bounded by a deal's points
    assert np.all(np.abs(v1) <= 2 * 500)
    agent.reset(p, deal.rules, 9)
    assert agent.act(view) == b1
    agent.reset(p, deal.rules, 10)                   # another seed, other worlds
    assert not np.array_equal(agent.card_values(view)[2], v1) or len(a1) == 1


def test_two_player_play_outs_read_only_each_players_view(monkeypatch):
    """Every position the card-play network is given in the play-outs is the public view
    of the player to act in his world: the view of itself (nothing more to hide), no
    dealing order, no card of the other hand he does not know."""
    from coinche_rl.agents.neural import batch_play
    from coinche_rl.engine import two as E2
    deal = _two_position("belote_decouverte", 2, 4)
    p = deal.current_player
    seen = []
    real = batch_play.TwoNetInputs.net_actions

    def spy(self, net, views, idx):
        for V in views[idx]:
            q = int(E2.py.current_player(V))
            again = np.zeros_like(V)
            E2.two_public_view_into(V.copy(), self.params, q, again)
            assert np.array_equal(again, V)
            assert (V[E2.T_DECK:E2.T_DECK + 32] == -1).all()
            seen.append(q)
        return real(self, net, views, idx)

    monkeypatch.setattr(batch_play.TwoNetInputs, "net_actions", spy)
    agent = SearchAgent(worlds=3, batch=3, solve_from=0)
    agent.reset(p, deal.rules, 4)
    agent.card_values(deal.view(p))
    assert set(seen) == {0, 1}


def test_two_player_search_does_not_see_hidden_cards():
    """Two deals whose hidden cards (the other hand's unknown cards, the face-down
    cards) are permuted among their places, played alike while the player's views
    agree: the same values and the same card."""
    from coinche_rl.two_player import TwoPlayerDeal
    from coinche_rl.game import IllegalPlayError
    rng = np.random.default_rng(8)
    compared = 0
    for trial in range(30):
        deck = [int(c) for c in rng.permutation(32)]
        dealer = trial % 2
        d = TwoPlayerDeal("belote_a_deux", deck=deck, dealer=dealer)
        d.apply("take")
        if d.phase == "exchange":
            d.apply(d.legal_actions()[0])
        p = d.current_player
        deck2 = hidden_cards_permuted(d, deck, dealer, rng)
        d2 = TwoPlayerDeal("belote_a_deux", deck=deck2, dealer=dealer)
        try:
            for a in d.history:
                d2.apply(a)
        except IllegalPlayError:
            continue
        v1, v2 = d.view(p), d2.view(p)
        if not np.array_equal(v1.state, v2.state) or d.hands == d2.hands or \
                len(v1.legal_actions) < 2:
            continue
        runs = []
        for view in (v1, v2):
            agent = SearchAgent(worlds=3, batch=3, solve_from=0)
            agent.reset(p, d.rules, trial)
            runs.append(agent.card_values(view))
        assert runs[0][0] == runs[1][0] and np.array_equal(runs[0][2], runs[1][2])
        compared += 1
        if compared == 3:
            break
    assert compared == 3


def test_two_player_late_decisions_are_pimcs():
    """With ``solve_from`` cards left or fewer the worlds are solved: the card and the
    values are pimc's (belote for two: the card points won, the same worlds)."""
    deal = _two_position("belote_decouverte", 1, 22)      # 11 tricks played: 5 cards left
    p = deal.current_player
    view = deal.view(p)
    agent = SearchAgent(worlds=6, solve_from=5)
    agent.reset(p, deal.rules, 3)
    best, actions, values = agent.card_values(view)
    pimc = make_agent("pimc:worlds=6,solve_from=0", "two")
    pimc.reset(p, deal.rules, 3)
    pick, cards, sums, n = pimc.card_choice(view)
    assert best == pick and actions.tolist() == list(cards)
    assert np.allclose(values, np.asarray(sums) / 6) and agent.last_worlds == 6
    agent.reset(p, deal.rules, 3)
    pimc.reset(p, deal.rules, 3)
    assert agent.act(view) == pimc.act(view)


def test_belote_decouverte_worlds_have_no_belief():
    deal = _two_position("belote_decouverte", 1, 2)
    with pytest.raises(PIMCError, match="rules 'belote_decouverte' have no belief net"):
        SearchAgent(worlds_from="belief").reset(deal.current_player, deal.rules, 0)
    with pytest.raises(PIMCError, match="no belief net"):
        make_agent("nnsearch:belief_weights=x.npz", "two").reset(0, deal.rules, 0)
