"""Information sets (``coinche_rl.envs.infoset``).

1. Soundness: in random deals of several presets, at every step and for every seat, the
   true hands satisfy the information set (known ⊆ hand ⊆ possible, voids, ceilings,
   hand sizes, ``is_consistent``).
2. No leak: a second deal that shares the observer's cards and every public event but
   holds other cards elsewhere gives the same information set, step by step.
3. Hand-built positions for each inference of RULES.md §5-§6 and §11. Dealer seat 3, so
   seat 0 leads; the contract is set with ``with_contract``.
"""

import doctest

import numpy as np
import pytest

from coinche_rl import actions as A
from coinche_rl import engine as E
from coinche_rl.cards import parse_card, parse_hand, popcount
from coinche_rl.envs import infoset as I
from coinche_rl.envs.infoset import NO_CEILING, SUIT_MASK, InformationSet, information_set
from coinche_rl.game import Deal
from coinche_rl.rules import CARD_ORDER, get_rules
from scripted import AT, NT, D, H, S, deal_with, play

PRESETS = ["ffb", "ffb_sa_ta", "funbelote", "classic", "classic_declarations", "coinche_x3",
           "ludiclub_coinche"]
CHOICES = (A.DECLARE, A.NO_DECLARE, A.BELOTE, A.NO_BELOTE)


# ------------------------------------------------------------------ helpers
def kq(suit):
    return (1 << (8 * suit + 5)) | (1 << (8 * suit + 6))


def random_trace(rules, rng, random_dealer=False):
    """A random deal played to the end: the deal after 0, 1, ... actions, and the actions.
    The auction passes often once a bid is made, so that most deals reach the play. With
    ``random_dealer`` the dealer is drawn too (after the deal's seed)."""
    seed = int(rng.integers(2 ** 31))
    kw = {"dealer": int(rng.integers(4))} if random_dealer else {}
    d = Deal(rules, seed=seed, **kw)
    trace = [d.clone()]
    while not d.is_terminal:
        legal = d.legal_actions()
        if d.phase == "auction" and A.PASS in legal and len(legal) > 1:
            p_pass = 0.75 if d.highest_bid is not None else 0.35
            if d.rules.family == "classic":
                p_pass = 0.6
            if rng.random() < p_pass:
                a = A.PASS
            else:
                others = [x for x in legal if x != A.PASS]
                a = others[rng.integers(len(others))]
        else:
            a = legal[rng.integers(len(legal))]
        d.apply(a)
        trace.append(d.clone())
    return trace, d.history


def actors(deal_final, actions):
    """Seat of each action, from the public record (auction order, card order; a
    declare / belote choice belongs to the seat whose card comes next)."""
    out = []
    plays = deal_final.plays
    n_auction = sum(1 for a in actions if not A.is_card(a) and a not in CHOICES)
    k = 0
    for i, a in enumerate(actions):
        if i < n_auction:
            out.append((deal_final.dealer + 1 + i) % 4)
        elif A.is_card(a):
            out.append(plays[k][0])
            k += 1
        else:
            out.append(plays[k][0] if k < len(plays) else deal_final.current_player)
    return out


def expected_public_history(actions, who, seat):
    return tuple(a for a, p in zip(actions, who) if a not in CHOICES or p == seat)


def above(strain, suit, k):
    return sum(1 << c for c in range(8 * suit, 8 * suit + 8) if CARD_ORDER[strain, c] >= k)


def public_events(d):
    """Every public fact of a deal, read from the engine (the test's own definition of
    "public", RULES.md §4-§6, §11): auction, cards and their seats, phase and turn,
    contract, retourne, the declarations' resolution and shown cards, announced
    belotes."""
    st = d.state
    played = int(st[E.S_PLAYED])
    bc = int(st[E.S_BELOTE_CARDS])
    belotes = tuple(s for s in range(4) if bc & kq(s) == kq(s) and played & kq(s))
    w = d.declaration_winner
    shown = ()
    if w is not None:
        shown = tuple(d.seat_declarations(p)[1] if d.declared[p] else 0 for p in (w, w + 2))
    return (tuple(d.auction), tuple(d.plays), d.phase, d.current_player, d.contract,
            d.retourne, d.declarations_resolved, w, shown, belotes)




def m(text):
    return parse_hand(text)


# ------------------------------------------------------------ 1. soundness
@pytest.mark.parametrize("preset", PRESETS)
def test_true_hands_satisfy_the_information_set(preset):
    rng = np.random.default_rng(sum(map(ord, preset)))
    checked = 0
    for _ in range(12):
        trace, actions = random_trace(preset, rng)
        who = actors(trace[-1], actions)
        for i, d in enumerate(trace):
            hands = d.hands
            for s in range(4):
                info = information_set(d, s)
                assert info.is_consistent(hands)
                assert info == information_set(d.clone(), s) and hash(info) == hash(
                    information_set(d, s))
                assert info.hand == hands[s] and info.seat == s
                assert info.public_history == expected_public_history(actions[:i], who[:i], s)
                assert info.hand_sizes == tuple(popcount(h) for h in hands)
                assert info.unknown_cards & (info.hand | info.played) == 0
                for p in range(4):
                    assert info.known[p] & ~hands[p] == 0
                    assert hands[p] & ~info.possible[p] == 0
                    assert info.known[p] & ~info.possible[p] == 0
                    assert info.known[p] & info.played == 0
                    if popcount(info.possible[p]) == info.hand_sizes[p]:
                        assert info.known[p] == info.possible[p]
                    for suit in range(4):
                        if info.voids[p] >> suit & 1:
                            assert hands[p] & SUIT_MASK[suit] == 0
                        k = info.ceilings[p][suit]
                        if k < NO_CEILING:
                            assert hands[p] & above(info.strain, suit, k) == 0
                            assert info.no_card_above(p, suit) == above(info.strain, suit, k)
                # another seat's private choice changes nothing the seat knows
                if i and actions[i - 1] in CHOICES and who[i - 1] != s:
                    assert info == information_set(trace[i - 1], s)
                checked += 1
    assert checked > 1000


def test_from_state_gives_the_same_information_set():
    rng = np.random.default_rng(7)
    for preset in ("coinche_x3", "ludiclub_coinche", "classic"):
        trace, _ = random_trace(preset, rng)
        for d in trace[::3]:
            bare = Deal.from_state(d.rules, d.state)          # no history
            for s in range(4):
                assert information_set(bare, s) == information_set(d, s)


# --------------------------------------------------------------- 2. no leak
def other_world(a_final, a_step, seat, rng):
    """A deal that deals ``seat`` the same cards as ``a_final`` and puts every card
    played by ``a_step`` in the same hand, the other cards permuted (a random
    permutation, a swap, or a swap inside one suit). None if nothing can move."""
    classic = a_final.rules.family == "classic"
    owner = {}
    for p, h in enumerate(a_final.initial_hands):
        for c in range(32):
            if h >> c & 1:
                owner[c] = p
    fixed = int(a_step.state[E.S_PLAYED])
    if a_final.retourne is not None:
        fixed |= 1 << a_final.retourne
    movable = [c for c in range(32) if owner.get(c, -1) != seat and not fixed >> c & 1]
    if len(movable) < 2:
        return None
    sigma = {c: c for c in range(32)}
    kind = rng.integers(3)
    if kind == 0:
        perm = rng.permutation(movable)
        sigma.update({c: int(x) for c, x in zip(movable, perm)})
    else:
        pairs = [(x, y) for x in movable for y in movable
                 if x < y and owner.get(x, -1) != owner.get(y, -1)
                 and (kind == 1 or x >> 3 == y >> 3)]
        if not pairs:
            return None
        x, y = pairs[rng.integers(len(pairs))]
        sigma[x], sigma[y] = y, x
    if classic:
        return Deal(a_final.rules, deck=[sigma[c] for c in a_final.deck], dealer=a_final.dealer)
    hands = [sum(1 << sigma[c] for c in range(32) if h >> c & 1) for h in a_final.initial_hands]
    return Deal(a_final.rules, hands=hands, dealer=a_final.dealer)


def same_information_set(b, a_now, seat):
    assert information_set(b, seat) == information_set(a_now, seat)


def replay_and_compare(trace, actions, who, b, seat, rng, check=same_information_set):
    """Replay A's public actions (and the seat's own choices) on B while B agrees with A
    on every public event; at each step ``check(b, a_now, seat)`` asserts what the seat
    sees is equal (by default its information sets). Other seats' private choices are
    skipped in A and drawn at random in B. Returns the number of steps compared where
    B's hidden hands differed from A's."""
    differing = 0
    for i, a in enumerate(actions):
        if a in CHOICES and who[i] != seat:
            continue
        while (b.phase == "play" and b.current_player != seat
               and all(x in CHOICES for x in b.legal_actions())):
            legal = b.legal_actions()
            b.apply(legal[rng.integers(len(legal))])
        if not b.is_legal(a):
            break
        b.apply(a)
        a_now = trace[i + 1]
        if public_events(b) != public_events(a_now):
            break
        check(b, a_now, seat)
        if b.hands != a_now.hands:
            differing += 1
    return differing


def compare_in_other_worlds(trace, actions, who, rng, check, tries=2):
    """For each seat, ``tries`` times: a world that differs from the trace's only in
    what the seat cannot see (:func:`other_world`), replayed and checked by
    :func:`replay_and_compare`. Returns the steps compared with other hidden hands."""
    differing = 0
    for seat in range(4):
        for _ in range(tries):
            k = int(rng.integers(len(trace)))
            b = other_world(trace[-1], trace[k], seat, rng)
            if b is not None:
                differing += replay_and_compare(trace, actions, who, b, seat, rng, check=check)
    return differing


@pytest.mark.parametrize("preset", PRESETS)
def test_no_leak_between_deals_with_equal_public_histories(preset):
    rng = np.random.default_rng(1000 + sum(map(ord, preset)))
    differing = 0
    for _ in range(10):
        trace, actions = random_trace(preset, rng)
        who = actors(trace[-1], actions)
        for seat in range(4):
            for _ in range(3):
                k = int(rng.integers(len(trace)))
                b = other_world(trace[-1], trace[k], seat, rng)
                if b is None:
                    continue
                assert information_set(b, seat) == information_set(trace[0], seat)
                differing += replay_and_compare(trace, actions, who, b, seat, rng)
    assert differing >= 500, differing


def test_information_sets_differ_when_the_public_history_does():
    d = deal_with(["AS KS QS JS 7D 8D 9D TD", "9H 8H 7C 8C 9C TC JC QC",
                   "7H QH JD QD KD AD KC AC", "7S 8S 9S TS TH JH KH AH"])
    before = information_set(d, 2)
    play(d, "AS")
    assert information_set(d, 2) != before
    assert information_set(d, 2).public_history == (A.CARD_BASE + parse_card("AS"),)


# ---------------------------------------------------- 3. hand-built inferences
def test_not_following_gives_a_void_and_not_trumping_a_trump_void():
    d = deal_with(["AS KS QS JS 7H 8H 7D 8D", "7C 8C 9C TC JC QC KC AC",
                   "TS 9S 8S 7S 9H TH 9D TD", "JH QH KH AH JD QD KD AD"])
    play(d, "AS 7C")                 # seat 1: no spade; no trump in the trick, no trump
    info = information_set(d, 0)
    assert info.voids[1] == (1 << S) | (1 << H)
    assert info.possible[1] == m("8C 9C TC JC QC KC AC 9D TD JD QD KD AD")
    play(d, "7S JH")                 # seat 3: no spade, trumps as obliged
    info = information_set(d, 0)
    assert info.voids[3] == 1 << S and info.voids[2] == 0
    assert info.ceilings == ((NO_CEILING,) * 4,) * 4


# seat 1 trumps the spade lead with the 9; seat 2, void in spades, has no trump above it
FFB_DISCARD = ["AS KS QS JS 7D 8D 9D TD", "9H 8H 7C 8C 9C TC JC QC",
               "7H QH JD QD KD AD KC AC", "7S 8S 9S TS TH JH KH AH"]
# the same, seat 2 holding no trump at all
NO_TRUMP_DISCARD = ["AS KS QS JS 7H QH 9D TD", "9H 8H 7C 8C 9C TC JC QC",
                    "7D 8D JD QD KD AD KC AC", "7S 8S 9S TS TH JH KH AH"]


def test_ffb_discard_over_an_opponent_trump_gives_a_ceiling_not_a_void():
    d = play(deal_with(FFB_DISCARD), "AS 9H JD")
    info = information_set(d, 0)
    assert info.voids[2] == 1 << S                       # not void in trumps
    assert info.ceilings[2][H] == CARD_ORDER[H, parse_card("9H")] == 6
    assert info.possible[2] & m("JH") == 0               # the only trump above the 9
    assert info.possible[2] & SUIT_MASK[H] == m("7H 8H QH KH TH AH")
    assert info.is_consistent(d.hands)


def test_ffb_discard_without_trumps_is_still_only_a_ceiling():
    d = play(deal_with(NO_TRUMP_DISCARD), "AS 9H JD")
    assert information_set(d, 0).ceilings[2][H] == 6
    assert information_set(d, 0).voids[2] == 1 << S


def test_must_undertrump_discard_gives_a_trump_void():
    d = play(deal_with(NO_TRUMP_DISCARD, rules=get_rules("ffb", must_undertrump=True)),
             "AS 9H JD")
    info = information_set(d, 0)
    assert info.voids[2] == (1 << S) | (1 << H)
    assert info.possible[2] & SUIT_MASK[H] == 0
    # with trumps, the same seat must undertrump: the play is illegal there
    d2 = deal_with(FFB_DISCARD, rules=get_rules("ffb", must_undertrump=True))
    play(d2, "AS 9H")
    assert not d2.is_legal("JD") and d2.is_legal("7H")


def test_trumping_below_an_opponent_trump_gives_a_ceiling():
    # seat 2 void in spades, trumps with the 7 below seat 1's 9: no trump above the 9
    hands = ["AS KS QS JS 7D 8D 9D TD", "9H 8H 7C 8C 9C TC JC QC",
             "7H QH JD QD KD AD KC AC", "7S 8S 9S TS TH JH KH AH"]
    d = play(deal_with(hands), "AS 9H 7H")
    info = information_set(d, 0)
    assert info.ceilings[2][H] == 6 and info.voids[2] == 1 << S


# trump led by seat 0; seat 1 plays the 9; seat 2 and seat 3 cannot overtrump it
TRUMP_LEAD = ["7H JH AS KS QS 7D 8D 9D", "9H 7C 8C 9C TC JC QC KC",
              "QH TH JD QD KD AD AC 7S", "8H AH KH 8S 9S TS JS TD"]


def test_undertrumping_on_a_trump_lead_gives_a_ceiling():
    d = play(deal_with(TRUMP_LEAD), "7H 9H QH 8H")
    info = information_set(d, 1)
    assert info.ceilings[2][H] == 6                      # partner not master
    assert info.ceilings[3][H] == 6                      # overtrump_partner: obliged too
    assert info.ceilings[0][H] == NO_CEILING and info.ceilings[1][H] == NO_CEILING
    jh = m("JH")
    assert info.possible[2] & jh == 0 and info.possible[3] & jh == 0
    assert info.known[0] == jh                           # by elimination: nobody else


def test_no_ceiling_over_a_master_partner_without_overtrump_partner():
    d = play(deal_with(TRUMP_LEAD, rules="funbelote"), "7H 9H QH 8H")
    info = information_set(d, 0)
    assert info.ceilings[2][H] == 6                      # seat 2's partner was not master
    assert info.ceilings[3][H] == NO_CEILING             # seat 3's partner was master
    assert info.possible[3] & m("JH") == 0               # JH is in seat 0's hand
    info1 = information_set(d, 1)
    assert info1.possible[3] & m("JH")                   # seat 1 cannot rule it out
    assert info1.possible[2] & m("JH") == 0


AT_HANDS = ["AS 7H 8H 9H TH 7D 8D 9D", "KS 8S KH QD 7C 8C 9C TC",
            "QS 7S JH AH TD JD JC QC", "9S JS TS QH KD AD KC AC"]


def test_all_trump_not_beating_the_winning_card_gives_a_ceiling():
    d = play(deal_with(AT_HANDS, strain=AT, rules="ffb_sa_ta"), "AS KS QS JS")
    info = information_set(d, 0)
    strength_ace = CARD_ORDER[AT, parse_card("AS")]
    assert info.ceilings[1][S] == strength_ace           # could not beat the ace
    assert info.ceilings[2][S] == strength_ace           # nor his partner's (obliged)
    assert info.ceilings[3][S] == NO_CEILING             # beat it
    assert info.possible[1] & SUIT_MASK[S] == m("7S 8S TS")   # 9S is above the ace at AT
    assert info.voids == (0, 0, 0, 0)


def test_no_trump_gives_only_voids():
    d = play(deal_with(TRUMP_LEAD, strain=NT, rules="ffb_sa_ta"), "7D 7C")
    info = information_set(d, 0)
    assert info.voids[1] == 1 << D
    assert info.ceilings == ((NO_CEILING,) * 4,) * 4


BELOTE_HANDS = ["7H 8H AS KS QS JS 7D 8D", "KH QH 7C 8C 9C TC JC QC",
                "9H TH 9D TD JD QD KD AD", "JH AH 7S 8S 9S TS KC AC"]


def test_belote_announced_makes_the_other_card_known():
    d = play(deal_with(BELOTE_HANDS), "7H")
    for s in (0, 2, 3):
        info = information_set(d, s)
        assert info.known[1] == 0 and info.belotes == ()
    play(d, "KH")
    for s in (0, 2, 3):
        info = information_set(d, s)
        assert info.known[1] == m("QH") and info.belotes == ((1, H),)
        assert all(info.possible[p] & m("QH") == 0 for p in (0, 2, 3))
        assert info.is_consistent(d.hands)
    play(d, "9H JH 7S AS QH")        # rebelote: the queen is played, nothing left to know
    assert information_set(d, 0).known[1] == 0
    assert information_set(d, 0).belotes == ((1, H),)


def test_an_unannounced_trump_king_rules_out_the_queen_with_automatic_belote():
    hands = ["7H 8H AS KS QS JS 7D 8D", "KH AH 7C 8C 9C TC JC QC",
             "9H TH 9D TD JD QD KD AD", "JH QH 7S 8S 9S TS KC AC"]
    d = play(deal_with(hands), "7H KH")
    assert information_set(d, 0).possible[1] & m("QH") == 0
    assert information_set(d, 0).belotes == ()
    # optional belote: the holder may have declined, so nothing follows
    d = play(deal_with(hands, rules="ludiclub_coinche"), "7H KH")
    assert information_set(d, 0).possible[1] & m("QH")


DECL_HANDS = ["AS QS 9S 7S 7H 9H JH KH", "7C 8C 9C KS JS 7D 9D AH",
              "TS 8S 8H TH QC KC 8D TD", "QH JD QD KD AD TC JC AC"]


def test_declared_cards_are_known_after_resolution_not_before():
    d = deal_with(DECL_HANDS)
    assert [d.seat_declarations(p)[0] for p in range(4)] == [0, 20, 0, 50]
    play(d, "7S JS 8S JD")           # seat 3 discards a declared card; seat 1 wins
    for s in (0, 2, 3):
        info = information_set(d, s)
        assert not info.declarations_resolved and info.declaration_winner is None
        assert info.shown == (0, 0, 0, 0)
        assert info.known[1] == 0
        if s != 3:
            assert info.known[3] == 0
    play(d, "7C")                    # first card of trick 2: declarations resolved
    for s in (0, 2, 3):
        info = information_set(d, s)
        assert info.declarations_resolved and info.declaration_winner == 1
        assert info.shown == (0, m("7C 8C 9C"), 0, m("JD QD KD AD"))
        assert info.known[1] == m("8C 9C")
        if s != 3:
            assert info.known[3] == m("QD KD AD")
        assert info.is_consistent(d.hands)
    assert information_set(d, 1).known[1] == d.hands[1]


def test_classic_retourne_on_the_table_then_in_the_takers_hand():
    deck = list(range(32))
    d = Deal("classic", deck=deck, dealer=3)
    ret = d.retourne
    info = information_set(d, 1)
    assert info.hand_sizes == (5, 5, 5, 5) and info.retourne == ret
    assert all(info.possible[p] >> ret & 1 == 0 for p in range(4))
    assert info.unknown_cards >> ret & 1 == 0
    assert popcount(info.unknown_cards) == 32 - 5 - 1
    assert info.is_consistent(d.hands)
    d.apply("take")                  # seat 0 takes: the retourne joins its hand
    info = information_set(d, 1)
    assert info.hand_sizes == (8, 8, 8, 8) and info.contract.taker == 0
    assert info.known[0] == 1 << ret
    assert info.auction == ((0, A.TAKE),)
    assert info.is_consistent(d.hands)


def test_elimination_finds_the_last_cards():
    rng = np.random.default_rng(3)
    for _ in range(5):
        d = deal_with(FFB_DISCARD)
        trace = [d.clone()]
        while not d.is_terminal:
            legal = d.legal_actions()
            d.apply(legal[rng.integers(len(legal))])
            trace.append(d.clone())
        two_left = trace[-3]         # last trick: two cards to come, one of them unseen
        info = information_set(two_left, two_left.current_player)
        assert info.known == tuple(two_left.hands) == info.possible
        assert info.unknown_cards == 0


def test_is_consistent_rejects_wrong_worlds():
    d = play(deal_with(FFB_DISCARD), "AS 9H JD")
    info = information_set(d, 0)
    h = d.hands
    assert info.is_consistent(h)
    assert not info.is_consistent(h[:3])
    swapped = list(h)
    swapped[0], swapped[1] = h[1], h[0]
    assert not info.is_consistent(swapped)                       # own hand differs
    jh = m("JH")
    moved = list(h)                                              # JH to seat 2: above its ceiling
    c2 = parse_card("KD")
    moved[3] = (h[3] & ~jh) | (1 << c2)
    moved[2] = (h[2] & ~(1 << c2)) | jh
    assert not info.is_consistent(moved)
    played = list(h)
    played[1] |= m("AS")
    assert not info.is_consistent(played)


def test_seat_is_validated_and_the_module_doctest_passes():
    d = deal_with(FFB_DISCARD)
    with pytest.raises(ValueError):
        information_set(d, 4)
    assert isinstance(information_set(d, 0), InformationSet)
    assert doctest.testmod(I).failed == 0
