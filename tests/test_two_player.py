"""Belote for two players through the engine's API (coinche_rl.two_player): the deal of
each preset, the prise, the exchange, the reveal, the obligations, the errors, the
scoring and the match (RULES.md §12, docs/two_player.md)."""

from __future__ import annotations

import numpy as np
import pytest

from coinche_rl import actions as A
from coinche_rl.cards import format_card, format_hand, parse_card, parse_hand, popcount
from coinche_rl.engine import two as E2
from coinche_rl.rules import InvalidRulesError, get_rules, params_vector
from coinche_rl.two_player import (IllegalBidError, IllegalPlayError, TwoPlayerDeal,
                                   TwoPlayerMatch, match_winner_two)

CARDS = [format_card(c) for c in range(32)]


def hand(text):
    return parse_hand(text)


def deck_with(front, rest=None):
    """A deck starting with the cards of ``front`` (text), the others after in card
    order (or in the order of ``rest``)."""
    first = [parse_card(t) for t in front.split()]
    tail = [parse_card(t) for t in rest.split()] if rest else [c for c in range(32) if c not in first]
    deck = first + [c for c in tail if c not in first]
    assert sorted(deck) == list(range(32))
    return deck


# -------------------------------------------------------------------------- the deal
def test_belote_a_deux_deals_six_each_then_the_rest_after_the_prise():
    deck = list(range(32))          # 7S 8S 9S TS JS QS KS AS 7H ... AC
    d = TwoPlayerDeal("belote_a_deux", deck=deck, dealer=1)          # non-dealer: 0
    assert d.hands == [hand("7S 8S 9S KS AS 7H"), hand("TS JS QS 8H 9H TH")]
    assert d.retourne == parse_card("JH") and d.table_up == [0, 0] and d.table_down == [0, 0]
    assert d.current_player == 0 and d.legal_actions() == [A.PASS, A.TAKE]
    d.apply("pass")
    d.apply("take")                  # the dealer takes hearts
    # the non-taker, player 0, holds the 7 of hearts: he is offered the exchange
    assert d.phase == "exchange" and d.current_player == 0
    assert d.legal_actions() == [A.EXCHANGE, A.NO_EXCHANGE]
    d.apply("no-exchange")
    assert d.phase == "play" and d.exchanged is False and d.taker == 1 and d.trump == 1
    # taker (1) gets the retourne JH; then deck[13:16] to 0, deck[16:19] to 1
    assert d.hands[0] == hand("7S 8S 9S KS AS 7H QH KH AH")
    assert d.hands[1] == hand("TS JS QS 8H 9H TH JH 7D 8D 9D")
    # face-down: deck[19:22] to 0, deck[22:25] to 1; face-up deck[25:28] / deck[28:31]
    assert d.table_down == [hand("TD JD QD"), hand("KD AD 7C")]
    assert d.stacks[0] == [(parse_card("8C"), parse_card("TD")), (parse_card("9C"), parse_card("JD")),
                           (parse_card("TC"), parse_card("QD")), (parse_card("AC"), -1)]
    assert d.stacks[1] == [(parse_card("JC"), parse_card("KD")), (parse_card("QC"), parse_card("AD")),
                           (parse_card("KC"), parse_card("7C"))]
    # the bergère (deck[31], AC) lies in front of the non-taker, player 0
    assert d.table_up == [hand("8C 9C TC AC"), hand("JC QC KC")]
    assert [popcount(d.hands[p] | d.table_up[p] | d.table_down[p]) for p in range(2)] == [16, 16]
    assert d.current_player == 0          # the non-dealer leads


def test_exchange_gives_the_seven_to_the_taker_and_the_retourne_to_the_other():
    d = TwoPlayerDeal("belote_a_deux", deck=list(range(32)), dealer=1)
    d.apply("pass")
    d.apply("take")
    d.apply("exchange")
    assert d.exchanged is True
    assert d.hands[0] >> parse_card("JH") & 1 and not d.hands[0] >> parse_card("7H") & 1
    assert d.hands[1] >> parse_card("7H") & 1 and not d.hands[1] >> parse_card("JH") & 1
    assert popcount(d.hands[0]) == 9 and popcount(d.hands[1]) == 10


def test_no_exchange_when_the_non_taker_lacks_the_seven_or_after_round_two():
    d = TwoPlayerDeal("belote_a_deux", deck=list(range(32)), dealer=1)
    d.apply("take")                                  # player 0 takes; 1 lacks the 7H
    # the non-taker still chooses (his turn must not tell whether he holds the 7)
    assert d.phase == "exchange" and d.current_player == 1 and d.legal_actions() == [A.NO_EXCHANGE]
    with pytest.raises(IllegalPlayError, match="you do not hold the 7 of trump"):
        d.apply("exchange")
    d.apply("no-exchange")
    assert d.phase == "play" and d.exchanged is False
    with pytest.raises(IllegalPlayError, match="belongs to the non-taker"):
        d.apply("exchange")
    d = TwoPlayerDeal("belote_a_deux", deck=list(range(32)), dealer=1)
    for a in ("pass", "pass", "pass"):
        d.apply(a)
    assert d.prise_round == 2 and d.current_player == 1
    assert d.legal_actions() == [A.PASS, A.NAME_BASE + 0, A.NAME_BASE + 2, A.NAME_BASE + 3]
    with pytest.raises(IllegalBidError, match="hearts was the retourne's suit"):
        d.apply("nameH")
    d.apply("nameS")                                 # player 0 holds 7S: no exchange after round 2
    assert d.phase == "play" and d.taker == 1 and d.trump == 0 and d.exchanged is None
    assert d.hands[1] >> parse_card("JH") & 1        # the taker still gets the retourne


def test_void_deal_after_two_rounds_of_passes():
    d = TwoPlayerDeal("belote_a_deux", seed=1, dealer=0)
    for _ in range(4):
        d.apply("pass")
    assert d.is_terminal and d.is_void and d.result.void and d.scores == (0, 0)
    assert d.current_player is None and d.legal_actions() == []


def test_belote_decouverte_lays_eight_stacks_each_and_the_dealers_last_card_proposes():
    deck = list(range(32))
    d = TwoPlayerDeal("belote_decouverte", deck=deck, dealer=0)      # non-dealer: 1
    assert d.hands == [0, 0]
    # non-dealer (1): face down deck[0:8], face up deck[16:24]; dealer: deck[8:16], deck[24:32]
    assert d.table_down == [hand("7H 8H 9H TH JH QH KH AH"), hand("7S 8S 9S TS JS QS KS AS")]
    assert d.table_up == [hand("7C 8C 9C TC JC QC KC AC"), hand("7D 8D 9D TD JD QD KD AD")]
    assert d.retourne == parse_card("AC") and d.current_player == 1
    d.apply("take")
    assert d.phase == "play" and d.trump == 3 and d.exchanged is None
    assert d.table_up[0] >> parse_card("AC") & 1    # the retourne stays where it lies
    assert d.legal_cards() == d.table_up[1]


# -------------------------------------------------------------------------- the play
def test_face_down_cards_are_revealed_when_the_trick_is_collected():
    d = TwoPlayerDeal("belote_decouverte", deck=list(range(32)), dealer=0)
    d.apply("take")                                  # clubs; player 1 leads
    d.apply("7D")                                    # covers 7S
    assert d.table_down[1] >> parse_card("7S") & 1   # not yet: the trick is not collected
    with pytest.raises(IllegalPlayError, match="neither in your hand"):
        d.apply("AH")                                # player 0's own face-down card
    d.apply("7C")                                    # player 0, void in diamonds, trumps
    assert d.trick_winners == [0]
    assert d.table_up[1] >> parse_card("7S") & 1 and not d.table_down[1] >> parse_card("7S") & 1
    assert d.table_up[0] >> parse_card("7H") & 1     # 7C covered 7H
    assert d.stacks[1][0] == (parse_card("7S"), -1)
    assert d.current_player == 0 and d.legal_cards() == d.table_up[0]


def decouverte_deck(up_nondealer, up_dealer):
    """A belote_decouverte deck whose face-up cards are the given ones (the non-dealer's
    then the dealer's, stacks 0..7); the face-down cards are the other 16 in card order."""
    up = [parse_card(t) for t in (up_nondealer + " " + up_dealer).split()]
    rest = [c for c in range(32) if c not in up]
    deck = rest + up
    assert sorted(deck) == list(range(32))
    return deck


@pytest.mark.parametrize("other_trumps, legal", [
    ("8H JH AH", "JH"),               # able to overtrump the 9: only the jack
    ("8H 7H AH", "7H 8H AH"),         # unable: any trump (the ace is below the 9 at trump)
])
def test_trump_led_requires_a_higher_trump_when_able(other_trumps, legal):
    deck = decouverte_deck("9H QH 7S 8S 9S TS JS QS", other_trumps + " KS AS 7D 8D 7C")
    d = TwoPlayerDeal("belote_decouverte", deck=deck, dealer=0)       # player 1 speaks first
    for a in ("pass", "pass", "nameH"):
        d.apply(a)
    assert d.trump == 1 and d.taker == 1 and d.current_player == 1
    d.apply("9H")
    assert d.legal_cards() == hand(legal)
    with pytest.raises(IllegalPlayError, match="trump led: must play a higher trump"
                       if legal == "JH" else "must follow hearts"):
        d.apply("8H" if legal == "JH" else "KS")


def test_void_in_a_plain_suit_must_trump_any_trump_else_discard():
    deck = decouverte_deck("AD QH 7S 8S 9S TS JS QS", "8H JH KS AS 7C 8C 9C TC")
    d = TwoPlayerDeal("belote_decouverte", deck=deck, dealer=0)
    for a in ("pass", "pass", "nameH"):
        d.apply(a)
    d.apply("AD")                     # player 0 is void in diamonds, holds 8H JH
    assert d.legal_cards() == hand("8H JH")
    with pytest.raises(IllegalPlayError, match="void in diamonds: must trump"):
        d.apply("KS")


def test_an_illegal_card_names_the_rule_and_leaves_the_state_unchanged():
    d = TwoPlayerDeal("belote_a_deux", deck=list(range(32)), dealer=1)
    d.apply("take")                                  # player 0 takes hearts
    d.apply("no-exchange")
    before = d.state.copy()
    with pytest.raises(IllegalPlayError, match="neither in your hand") as e:
        d.apply("TD")                                # player 0's own face-down card
    assert "TD" not in str(e.value).split("legal:")[0].split("neither")[1]   # where it is: never said
    with pytest.raises(IllegalPlayError, match="neither in your hand"):
        d.apply("TS")                                # the other player's card
    d.apply("7S")
    with pytest.raises(IllegalPlayError, match="must follow spades"):
        d.apply("8H")
    assert d.history == [A.TAKE, A.NO_EXCHANGE, A.CARD_BASE + parse_card("7S")]
    assert (before != d.state).any()
    snap = d.state.copy()
    with pytest.raises(IllegalPlayError):
        d.apply("JH")
    assert (snap == d.state).all()


def test_prise_errors_are_specific():
    d = TwoPlayerDeal("belote_a_deux", seed=3, dealer=0)
    with pytest.raises(IllegalBidError, match="only possible in the second round"):
        d.apply("nameS")
    with pytest.raises(IllegalBidError, match="no bids"):
        d.apply("80H")
    with pytest.raises(IllegalBidError, match="the prise is not over"):
        d.apply(A.CARD_BASE + 3)


def test_four_player_rules_are_refused():
    with pytest.raises(InvalidRulesError, match="four-player game"):
        TwoPlayerDeal("ffb")
    with pytest.raises(ValueError, match="dealer must be a player 0 or 1"):
        TwoPlayerDeal(dealer=2)


# The APIs still written for four players only; the envs (coinche_v0.env, CoincheVectorEnv)
# and the arena's DealSet serve every family now (tests/test_env_two_player.py,
# tests/test_arena*.py play belote for two players through them).
_FOUR_PLAYER_APIS = {       # name: (module, callable, arguments before the rules, keywords)
    "simulate_deals": ("coinche_rl.simulate", "simulate_deals", (2,), "rules"),
    "random_play_phase": ("coinche_rl.simulate", "random_play_phase", (2,), "rules"),
    "Deal": ("coinche_rl.game", "Deal", (), None),
    "contract_levels": ("coinche_rl.agents.evaluation", "contract_levels", (), None),
    "hand_information_set": ("coinche_rl.agents.sampler", "hand_information_set", (), None),
}
# (the web page's create_app serves both families: tests/test_web_protocol.py; so does
# agents.numba_bots.deal_states)


@pytest.mark.parametrize("api", sorted(_FOUR_PLAYER_APIS))
def test_four_player_apis_refuse_two_player_rules(api):
    """Every four-player entry point refuses the family's rules with the API that plays
    them (it once ran the four-player engine on them and returned meaningless figures)."""
    import importlib
    module, name, before, keyword = _FOUR_PLAYER_APIS[api]
    fn = getattr(importlib.import_module(module), name)
    rules = get_rules("belote_a_deux")
    after = {"hand_information_set": (0, "AS KS QS JS TS 9S 8S 7S")}.get(api, ())
    with pytest.raises(InvalidRulesError, match="belote for two players.*TwoPlayerDeal"):
        if keyword:
            fn(*before, **{keyword: rules})
        else:
            fn(*before, rules, *after)


# ------------------------------------------------------------------------ invariants
@pytest.mark.parametrize("preset", ["belote_a_deux", "belote_decouverte"])
def test_random_deals_keep_every_invariant(preset):
    rng = np.random.default_rng(5)
    n_played = 0
    for i in range(300):
        d = TwoPlayerDeal(preset, seed=1000 + i)
        owned = None
        while not d.is_terminal:
            if d.phase == "play" and owned is None:
                owned = [d.hands[p] | d.table_up[p] | d.table_down[p] for p in range(2)]
                assert [popcount(o) for o in owned] == [16, 16]
                assert owned[0] & owned[1] == 0
            legal = d.legal_actions()
            if d.phase == "play":
                cur = d.current_player
                for a in legal:
                    c = a - A.CARD_BASE
                    assert (d.hands[cur] | d.table_up[cur]) >> c & 1       # never face down
                assert d.legal_cards() == sum(1 << (a - A.CARD_BASE) for a in legal)
            d.apply(legal[int(rng.integers(len(legal)))])
        r = d.result
        if r.void:
            continue
        n_played += 1
        for p in range(2):
            assert sum(1 << c for q, c in d.plays if q == p) == owned[p]     # his 16 cards
        assert sum(r.card_points) in (162, 252)
        assert (r.capot is not None) == (sum(r.card_points) == 252)
        taker = r.taker
        if r.made:
            assert r.card_points[taker] >= 82
            assert r.scores[taker] >= r.card_points[taker]
        else:
            assert r.card_points[taker] <= 81
            assert r.scores[taker] == r.belote[taker]
            assert r.scores[1 - taker] >= 162
        assert sum(r.scores) == (sum(r.card_points) if r.made else (252 if r.capot == 1 - taker else 162)) \
            + (r.declarations[r.declaration_winner] if r.declaration_winner is not None else 0) + sum(r.belote)
    assert n_played > 250


def test_simulation_is_reproducible_and_independent_of_chunking():
    P = params_vector(get_rules("belote_a_deux"))
    n = 500

    def run(first, count):
        sc = np.zeros((count, 2), np.int64)
        md = np.zeros(count, np.int64)
        vd = np.zeros(count, np.uint8)
        E2.two_simulate(P, count, np.int64(first), sc, md, vd)
        return sc, md, vd
    a = run(9, n)
    b = run(9, n)
    assert all((x == y).all() for x, y in zip(a, b))
    assert 0.005 < a[2].mean() < 0.04                # void: about 1/64 under random prise
    assert set(np.unique(a[1]).tolist()) <= {-1, 0, 1}


# --------------------------------------------------------------------------- the match
def test_match_winner_rules():
    assert match_winner_two([990, 1000], 1000) == 1
    assert match_winner_two([1200, 1100], 1000) == 0
    assert match_winner_two([1100, 1100], 1000) is None
    assert match_winner_two([500, 900], 1000) is None


def test_a_match_alternates_the_dealer_and_ends_at_the_target():
    m = TwoPlayerMatch("belote_a_deux", target=500, seed=4, dealer=0)
    rng = np.random.default_rng(0)
    while not m.is_terminal:
        legal = m.legal_actions()
        m.apply(legal[int(rng.integers(len(legal)))])
    dealers = [d.dealer for d in m.deals]
    assert dealers == [i % 2 for i in range(len(dealers))]
    assert max(m.scores) >= 500 and m.scores[m.winner] > m.scores[1 - m.winner]
    assert m.scores == [sum(d.scores[p] for d in m.deals) for p in range(2)]


def test_litige_option_holds_the_takers_points_for_the_next_deal():
    rules = get_rules("belote_decouverte", litige=True)
    # find a random deal ending 81-81 under this seed range, played at random
    for seed in range(3000):
        d = TwoPlayerDeal(rules, seed=seed)
        rng = np.random.default_rng(seed)
        while not d.is_terminal:
            legal = d.legal_actions()
            d.apply(legal[int(rng.integers(len(legal)))])
        if not d.is_void and d.result.card_points == (81, 81):
            break
    else:
        pytest.fail("no 81-81 deal found")
    r = d.result
    assert r.litige and not r.made and r.litige_points == 81
    assert r.scores[r.taker] == r.belote[r.taker] and r.scores[1 - r.taker] == 81 + r.belote[1 - r.taker]
    d2 = TwoPlayerDeal(get_rules("belote_decouverte"), deck=d.deck, dealer=d.dealer)
    for a in d.history:
        d2.apply(a)
    assert not d2.result.litige and not d2.result.made and d2.result.scores[1 - r.taker] == 162


# ------------------------------------------------------------------------------ views
@pytest.mark.parametrize("preset", ["belote_a_deux", "belote_decouverte"])
def test_a_view_never_shows_a_face_down_card_nor_the_other_hand(preset):
    for seed in range(60):
        d = TwoPlayerDeal(preset, seed=seed)
        rng = np.random.default_rng(seed)
        while not d.is_terminal:
            for p in (0, 1):
                v = d.view(p)
                assert v.hand == d.hands[p]
                assert v.known_other & ~d.hands[1 - p] == 0
                assert v.unseen & (d.hands[p] | d.table_up[0] | d.table_up[1]) == 0
                if d.phase == "play":
                    assert v.unseen == d.table_down[0] | d.table_down[1] | (d.hands[1 - p] & ~v.known_other)
                    assert v.face_down == tuple(popcount(x) for x in d.table_down)
                # the hidden cards appear nowhere in the public vector's card slots
                hidden = d.table_down[0] | d.table_down[1] | (d.hands[1 - p] & ~v.known_other)
                for name in ("T_HAND", "T_UP", "T_DOWN", "T_DECL_CARDS"):
                    for k in range(2):
                        assert int(v.state[E2.TWO_OFFSETS[name] + k]) & hidden == 0 or \
                            (name == "T_HAND" and k == p)
                stack_cards = v.state[E2.TWO_OFFSETS["T_STACK_DOWN"]:E2.TWO_OFFSETS["T_STACK_DOWN"] + 16]
                assert not any(c >= 0 and hidden >> int(c) & 1 for c in stack_cards)
                assert (v.state[E2.TWO_OFFSETS["T_DECK"]:E2.TWO_OFFSETS["T_DECK"] + 32] == -1).all()
            legal = d.legal_actions()
            d.apply(legal[int(rng.integers(len(legal)))])


@pytest.mark.parametrize("preset", ["belote_a_deux", "belote_decouverte"])
def test_a_view_says_the_public_game_as_the_deal_does(preset):
    """The view reads its values from the public view vector when asked: each equals the
    deal's own at every step of random deals (the prise, the exchange, the play, the end)."""
    for seed in range(25):
        d = TwoPlayerDeal(preset, seed=seed)
        rng = np.random.default_rng(seed)
        while True:
            for p in (0, 1):
                v = d.view(p)
                assert (v.phase, v.current_player, v.dealer, v.trump, v.taker, v.exchanged) == \
                    (d.phase, d.current_player, d.dealer, d.trump, d.taker, d.exchanged)
                assert (v.prise, v.plays, v.trick_winners) == \
                    (tuple(d.prise), tuple(d.plays), tuple(d.trick_winners))
                assert (v.retourne, v.card_points_won, v.table_up) == \
                    (d.retourne, d.card_points_won, tuple(d.table_up))
                assert v.other_hand_size == popcount(d.hands[1 - p])
                assert v.stacks == tuple(tuple((u, dn != -1) for u, dn in row) for row in d.stacks)
                assert v.legal_actions == (d.legal_actions() if d.current_player == p else [])
            if d.is_terminal:
                break
            legal = d.legal_actions()
            d.apply(legal[int(rng.integers(len(legal)))])
    with pytest.raises(AttributeError, match="read-only"):
        v.hand = 0


def _start_of_play(preset, deck, dealer, prise):
    d = TwoPlayerDeal(preset, deck=deck, dealer=dealer)
    for a in prise:
        d.apply(a if a != "name" else d.legal_actions()[1])      # the first suit allowed
    return d


@pytest.mark.parametrize("prise", [["take", "no-exchange"], ["pass", "take", "no-exchange"],
                                   ["pass", "pass", "name"]])
def test_worlds_that_differ_only_in_hidden_cards_give_the_same_view(prise):
    """The no-leak test: permute the cards ``p`` cannot see among their places (the
    other player's unknown hand cards and every face-down card); ``p``'s view at the
    start of the play is identical."""
    rng = np.random.default_rng(1)
    for trial in range(40):
        deck = [int(c) for c in rng.permutation(32)]
        dealer = trial % 2
        n = 1 - dealer
        d = _start_of_play("belote_a_deux", deck, dealer, prise)
        if d.trump is None:
            continue
        taker = d.taker
        for p in (0, 1):
            o = 1 - p
            known = d.view(p).known_other
            hidden = d.table_down[0] | d.table_down[1] | (d.hands[o] & ~known)
            # deck positions of the cards of the other hand and of the face-down cards
            other_hand_pos = (list(range(0, 3)) + list(range(6, 9)) + list(range(13, 16))) if o == n \
                else (list(range(3, 6)) + list(range(9, 12)) + list(range(16, 19)))
            places = [i for i in other_hand_pos + list(range(19, 25)) if hidden >> deck[i] & 1]
            perm = [places[k] for k in rng.permutation(len(places))]
            deck2 = list(deck)
            for i, j in zip(places, perm):
                deck2[i] = deck[j]
            try:
                d2 = _start_of_play("belote_a_deux", deck2, dealer, prise)
            except IllegalPlayError:
                continue          # the moved 7 of trump: not this prise in that world
            assert (d2.view(p).state == d.view(p).state).all()
            assert d2.view(p).legal_actions == d.view(p).legal_actions
            assert d2.taker == taker


def test_belote_decouverte_views_hide_only_the_face_down_cards():
    rng = np.random.default_rng(2)
    for trial in range(30):
        deck = [int(c) for c in rng.permutation(32)]
        deck2 = [deck[i] for i in rng.permutation(16)] + deck[16:]     # face-down cards moved
        d = _start_of_play("belote_decouverte", deck, trial % 2, ["take"])
        d2 = _start_of_play("belote_decouverte", deck2, trial % 2, ["take"])
        for a in d.legal_actions()[:1]:
            d.apply(a)
            d2.apply(a)
        for p in (0, 1):
            assert (d.view(p).state == d2.view(p).state).all()
