"""The Monte Carlo hand evaluation's part of belote for two players: its worlds and its
options (:func:`coinche_rl.agents.evaluation.evaluate_view` and ``evaluate_hand`` with
two-player rules call :func:`prise_view` and :func:`play_prise`; the result is the one
:class:`~.evaluation.HandEvaluation`).

A **world** places every card the player cannot see at the prise (the cards still to be
dealt and the other player's; in belote découverte the face-down cards), uniformly over
the deck positions he does not know: which position feeds which place (his hand, a
face-up stack, the retourne) is read from the engine's own deal
(:func:`coinche_rl.engine.two.two_reset`), so the evaluation never re-types the deal.
The prise so far is replayed; then each **option** is applied in every world: take in the
retourne's suit (first round: the other player makes his exchange choice); name another
suit (during the first round "both pass, and I name it in the second round": what the
take is worth if the prise comes back to him); or pass (the deal goes on). The deal is
played out by the heuristic at both players (``agents.heuristic_two``, each deciding from
his own view only), or, ``method="nn"``, with both players' cards played by the
card-play network and the rest of the prise and the exchange by the prise network where one
ships for the preset, as the ``nn`` agent plays (:func:`~.neural.batch_play.play_states_two`;
else the heuristic decides them), scored by the engine; the same worlds and bot seeds
serve every option. The worlds' states are built in one kernel (:func:`_world_states`),
played out (:func:`_play_out`), then read (:func:`_outcomes`). The prise so far does not constrain the worlds. There is no double-dummy method:
a whole-deal solve of the two-player game takes 0.6-9 s (``benchmarks/RESULTS.md``).
"""

from __future__ import annotations

import time
from typing import List, Tuple

import numpy as np
from numba import njit

from ..actions import NAME_BASE, PASS, TAKE, action_to_str
from ..cards import N_CARDS, cards_of, format_card, parse_card
from ..engine.bits import rng_below, rng_seed, seed_int64, shuffle
from ..engine.two import (N_PLAYERS, N_STACKS, TWO_STATE_SIZE, current_player, deal_made,
                          deal_score, final_card_points, hand_of, other, prise_round, py,
                          retourne_of, taker_of, two_apply, two_reset)
from ..rules import RuleSet, params_vector
from ..two_player import TwoPlayerDeal, TwoPlayerView
from .numba_bots import BOT_HEURISTIC, play_deals

__all__ = ["play_prise", "prise_view", "deck_places", "world_deck", "PASS_OPTION", "warmup"]

#: the option "pass" (options 0..3 take or name that suit)
PASS_OPTION = 4
#: places of a deck position (:func:`deck_places`)
PLACE_LATER, PLACE_HAND, PLACE_UP, PLACE_RETOURNE = 0, 1, 2, 3
#: worlds per batch of play-outs (bounds the memory: 5 options x this many states)
_CHUNK = 2048


# ------------------------------------------------------------------------ the kernels
@njit(cache=True)
def _apply_option(T, P, player, option):
    """Apply ``option`` of ``player`` (to act in the prise): pass, take the retourne's
    suit, or name suit ``option`` (in the first round: both pass first)."""
    if option == PASS_OPTION:
        two_apply(T, P, np.int64(PASS))
        return
    if option == retourne_of(T) >> 3:
        two_apply(T, P, np.int64(TAKE))
        return
    while prise_round(T) == 1 or current_player(T) != player:
        two_apply(T, P, np.int64(PASS))
    two_apply(T, P, NAME_BASE + option)


@njit(cache=True)
def world_deck(template, unknown, rng, cards, deck):
    """``deck`` := ``template`` (int64[32], -1 where unknown) completed by the cards
    ``unknown`` in a uniformly random order from ``rng`` (``cards``: scratch as long as
    ``unknown``); returns the two players' bot seeds drawn next from the same stream."""
    for k in range(cards.shape[0]):
        cards[k] = unknown[k]
    shuffle(rng, cards, cards.shape[0])
    u = 0
    for pos in range(N_CARDS):
        if template[pos] >= 0:
            deck[pos] = template[pos]
        else:
            deck[pos] = cards[u]
            u += 1
    return np.int64(rng_below(rng, 1 << 30)), np.int64(rng_below(rng, 1 << 30))


@njit(cache=True)
def _world_states(P, template, unknown, dealer, prise, player, options, first, n, seed,
                  states, seeds, out_deck, out_hands):
    """Worlds ``first .. first + n - 1`` of the stream ``seed``: ``template`` (int64[32],
    -1 where unknown) completed by the cards ``unknown`` (int64[k]) in a uniform order,
    dealt by ``dealer``, the prise ``prise`` replayed and each option applied.
    ``states[i * len(options) + j]``: world ``first + i`` after option ``options[j]``,
    ``seeds[...]`` its two players' bot seeds (the same for every option of a world);
    ``out_deck[i]`` the world's deck, ``out_hands[i]`` the hands it deals before the
    prise. The play-out (:func:`_play_out`) is the caller's: the heuristic, or the
    card-play network."""
    n_opt = options.shape[0]
    deck = np.empty(N_CARDS, dtype=np.int64)
    cards = np.empty(unknown.shape[0], dtype=np.int64)
    rng = np.zeros(1, dtype=np.uint64)
    for i in range(n):
        rng_seed(rng, seed, first + i)
        s0, s1 = world_deck(template, unknown, rng, cards, deck)
        out_deck[i] = deck
        for j in range(n_opt):
            T = states[i * n_opt + j]
            two_reset(T, P, deck, dealer)
            if j == 0:
                for p in range(N_PLAYERS):
                    out_hands[i, p] = hand_of(T, p)
            for a in prise:
                two_apply(T, P, a)
            _apply_option(T, P, player, options[j])
            seeds[i * n_opt + j, 0] = s0
            seeds[i * n_opt + j, 1] = s1


@njit(cache=True)
def _outcomes(states, player, n_opt, out_diff, out_made, out_taker, out_points):
    """``out_*[i, j]`` of the played-out ``states[i * n_opt + j]``: ``player``'s score
    minus the other's, ``deal_made``, the taker, ``player``'s card points."""
    for r in range(states.shape[0]):
        T = states[r]
        i, j = r // n_opt, r % n_opt
        out_diff[i, j] = deal_score(T, player) - deal_score(T, other(player))
        out_made[i, j] = deal_made(T)
        out_taker[i, j] = taker_of(T)
        out_points[i, j] = final_card_points(T, player)


def _play_out(rules: RuleSet, P, states, seeds, bot, net, bid_net=None) -> None:
    """Play ``states`` to their end in place: numba bot ``bot`` at both players for
    everything (``net`` None), or the card-play network ``net`` playing both players'
    cards in lockstep batches, the prise network ``bid_net`` (where given, else the bot)
    the rest of the prise and the exchange (:func:`~.neural.batch_play.play_states_two`)."""
    bots = np.full(N_PLAYERS, bot, dtype=np.int64)
    if net is None:
        if play_deals(P, states, bots, seeds):
            raise ValueError("the heuristic chose an illegal action")
        return
    from .neural.batch_play import play_states_two
    play_states_two(rules, states, seeds, bots, [net, net], [bid_net, bid_net])


# --------------------------------------------------------------------- the deal's places
def deck_places(rules: RuleSet, dealer: int) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Where each deck position goes before the prise, read from the engine's deal of
    the identity deck: ``(place, owner, stack)`` per position, ``place`` one of
    ``PLACE_LATER`` (dealt after the prise, or face down), ``PLACE_HAND``, ``PLACE_UP``
    (a face-up stack card), ``PLACE_RETOURNE``; ``owner`` the player (-1), ``stack`` the
    stack index (-1)."""
    P = params_vector(rules)
    T = np.empty(TWO_STATE_SIZE, dtype=np.int64)
    two_reset(T, P, np.arange(N_CARDS, dtype=np.int64), int(dealer))
    place = np.full(N_CARDS, PLACE_LATER, dtype=np.int64)
    owner = np.full(N_CARDS, -1, dtype=np.int64)
    stack = np.full(N_CARDS, -1, dtype=np.int64)
    for p in range(N_PLAYERS):
        for c in range(N_CARDS):
            if (int(py.hand_of(T, p)) >> c) & 1:
                place[c], owner[c] = PLACE_HAND, p
        for k in range(N_STACKS):
            c = int(py.stack_face_up(T, p, k))
            if c >= 0:
                place[c], owner[c], stack[c] = PLACE_UP, p, k
    r = int(py.retourne_of(T))
    if place[r] == PLACE_LATER:
        place[r] = PLACE_RETOURNE
    return place, owner, stack


def _template(view: TwoPlayerView) -> Tuple[np.ndarray, np.ndarray]:
    """The deck as ``view.player`` knows it at the prise (-1 where unknown) and the
    cards he does not see."""
    place, owner, stack = deck_places(view.rules, view.dealer)
    V = view.state
    template = np.full(N_CARDS, -1, dtype=np.int64)
    own = [c for c in range(N_CARDS) if (view.hand >> c) & 1]
    for pos in range(N_CARDS):
        if place[pos] == PLACE_HAND and owner[pos] == view.player:
            template[pos] = own.pop(0)           # his hand: any order deals the same hand
        elif place[pos] == PLACE_UP:
            template[pos] = int(py.stack_face_up(V, owner[pos], stack[pos]))
        elif place[pos] == PLACE_RETOURNE:
            template[pos] = view.retourne
    known = 0
    for c in template:
        if c >= 0:
            known |= 1 << int(c)
    unknown = np.array([c for c in range(N_CARDS) if not (known >> c) & 1], dtype=np.int64)
    return template, unknown


# ------------------------------------------------------------------------ the options
def play_prise(view: TwoPlayerView, samples: int, seed: int, bot=None, net=None,
               bid_net=None):
    """Play ``view.player``'s options at his turn in the prise out in ``samples`` worlds
    (module docstring): the suits he may take or name (the retourne's first in the first
    round, where a named suit is legal only later: "if the prise comes back to me"), then
    the pass. Returns ``(strains, legal, diff, made, taker, points, decks, hands,
    seconds)``: ``legal`` per strain, the int64[N, options] figures of
    :func:`_outcomes`, each world's deck and hands; :func:`~.evaluation.evaluate_view`
    makes them the one ``HandEvaluation``.

    :param bot: the heuristic's bot id (:func:`~.numba_bots.heuristic_two_bot`; default
        the heuristic's).
    :param net: the card-play network (an ``MLP`` of the rules): it plays both players'
        cards in every world, the bot the rest (default None: the bot plays everything).
    :param bid_net: with ``net``, the prise network (a ``BidNet`` of the rules): it
        decides the rest of the prise and the exchange for both players, as the ``nn``
        agent does (default None: the bot).
    :raises ValueError: not the prise, or not his turn.
    """
    if view.phase != "prise" or view.current_player != view.player:
        raise ValueError(f"the evaluation is for a player at his turn in the prise; this "
                         f"view is player {view.player}'s in the {view.phase} (player to "
                         f"act: {view.current_player})")
    rs = view.retourne >> 3
    round1 = int(py.prise_round(view.state)) == 1
    strains = ([rs] if round1 else []) + [s for s in range(4) if s != rs]
    options = np.array(strains + [PASS_OPTION], dtype=np.int64)
    template, unknown = _template(view)
    n = int(samples)
    diff, made, taker, pts = (np.zeros((n, len(options)), dtype=np.int64) for _ in range(4))
    decks = np.zeros((n, N_CARDS), dtype=np.int64)
    hands = np.zeros((n, N_PLAYERS), dtype=np.int64)
    P = params_vector(view.rules)
    args = (P, template, unknown, int(view.dealer), np.array(view.prise, dtype=np.int64),
            int(view.player), options)
    n_opt = len(options)
    t0 = time.perf_counter()
    for a in range(0, n, _CHUNK):
        b = min(a + _CHUNK, n)
        states = np.empty(((b - a) * n_opt, TWO_STATE_SIZE), dtype=np.int64)
        seeds = np.empty(((b - a) * n_opt, N_PLAYERS), dtype=np.int64)
        _world_states(*args, a, b - a, seed_int64(seed), states, seeds, decks[a:b], hands[a:b])
        _play_out(view.rules, P, states, seeds, BOT_HEURISTIC if bot is None else bot, net,
                  bid_net)
        _outcomes(states, int(view.player), n_opt, diff[a:b], made[a:b], taker[a:b], pts[a:b])
    legal = [s == rs or not round1 for s in strains]
    return strains, legal, diff, made, taker, pts, decks, hands, time.perf_counter() - t0


def _cards(text, what: str) -> List[int]:
    """The cards of ``text`` in the order given (text or card ids)."""
    items = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    out = []
    for c in items:
        try:
            v = parse_card(c) if isinstance(c, str) else int(c)
        except (ValueError, TypeError) as e:
            raise ValueError(f"{what}: {e}") from None
        if not 0 <= v < N_CARDS:
            raise ValueError(f"{what}: card ids are 0..31, not {c!r}")
        out.append(int(v))
    return out


def _retourne(retourne) -> List[int]:
    """The retourne as a list of card ids (one card, as text or id, or a sequence)."""
    return _cards([retourne] if isinstance(retourne, (str, int, np.integer)) else retourne,
                  "retourne")


def prise_view(rules: RuleSet, player: int, cards, dealer: int, retourne=None, other_up=None,
               prise=()) -> TwoPlayerView:
    """The view of ``player`` at his turn in the prise, from his cards (``evaluate_hand``
    with two-player rules).

    :param cards: ``belote_a_deux``: the player's 6 cards in hand (text such as
        ``"JH 9H AH 7S 8D KC"`` or card ids); ``belote_decouverte``: his 8 face-up table
        cards, in stack order.
    :param retourne: the turned-up card (``belote_a_deux``: required; ``belote_decouverte``:
        the dealer's last face-up card, which it must be if given).
    :param other_up: ``belote_decouverte``: the other player's 8 face-up cards.
    :param prise: the prise actions so far (``"pass"``), from the non-dealer.
    :raises ValueError: malformed or inconsistent cards, a bad player or dealer, a prise
        that is not legal or not at the player's turn (``evaluate_hand`` says it as an
        ``EvaluationError``).
    """
    for name, v in (("player", player), ("dealer", dealer)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v not in (0, 1):
            raise ValueError(f"{name} must be 0 or 1, not {v!r}")
    place, owner, stack = deck_places(rules, dealer)
    own = _cards(cards_of(cards) if isinstance(cards, (int, np.integer)) else cards, "cards")
    deck = np.full(N_CARDS, -1, dtype=np.int64)
    if rules.hand_cards:
        if retourne is None:
            raise ValueError("belote_a_deux: give the retourne (the turned-up card)")
        ret = _retourne(retourne)
        if len(ret) != 1:
            raise ValueError("retourne: give one card")
        if other_up is not None:
            raise ValueError("other_up is for belote_decouverte (the table cards); "
                                  "belote_a_deux has none before the prise")
        n_hand = int(((place == PLACE_HAND) & (owner == player)).sum())
        if len(own) != n_hand:
            raise ValueError(f"cards: belote_a_deux deals {n_hand} cards to each hand "
                                  f"before the prise, got {len(own)}")
        deck[(place == PLACE_HAND) & (owner == player)] = own      # positions in deck order
        deck[place == PLACE_RETOURNE] = ret[0]
    else:
        theirs = _cards(other_up if other_up is not None else [], "other_up")
        for what, got in (("cards", own), ("other_up", theirs)):
            if len(got) != N_STACKS:
                raise ValueError(f"{what}: belote_decouverte lays {N_STACKS} face-up "
                                      f"cards per player, got {len(got)}")
        dealer_up = own if player == dealer else theirs
        if retourne is not None:
            rc = _retourne(retourne)
            if len(rc) != 1 or rc[0] != dealer_up[-1]:
                raise ValueError("retourne: in belote_decouverte it is the dealer's last "
                                      f"face-up card ({format_card(dealer_up[-1])})")
        for pos in range(N_CARDS):
            if place[pos] == PLACE_UP:
                deck[pos] = (own if owner[pos] == player else theirs)[stack[pos]]
    known = [int(c) for c in deck if c >= 0]
    if len(set(known)) != len(known):
        raise ValueError("the same card is given twice: "
                              + " ".join(format_card(c) for c in sorted(set(known))
                                         if known.count(c) > 1))
    rest = [c for c in range(N_CARDS) if c not in set(known)]
    deck[deck < 0] = rest                       # any completion: the view hides them
    d = TwoPlayerDeal(rules, deck=[int(c) for c in deck], dealer=int(dealer))
    for a in prise:
        try:
            d.apply(a)
        except Exception as e:
            raise ValueError(f"prise: {e}") from None
    if d.phase != "prise" or d.current_player != player:
        raise ValueError(f"after the prise {[action_to_str(a) for a in d.history]} it is "
                              f"not player {player}'s turn in the prise "
                              f"(phase {d.phase}, player to act {d.current_player})")
    return d.view(player)


#: its place in ``coinche-rl warmup`` (:mod:`coinche_rl.cli.warmup`): after the family's
#: engine, in its chain
WARMUP_AFTER = ("coinche_rl.engine.two",)


def warmup() -> None:
    """Compile the family's bots (:func:`~.numba_bots.warmup_two`: their play loop,
    batched actions and deals), then the evaluation's kernels (two worlds of each preset)."""
    from ..rules import get_rules
    from .numba_bots import warmup_two
    warmup_two()
    play_prise(prise_view(get_rules("belote_a_deux"), 1, "JH 9H AH 7S 8D KC", 0, "TH"), 2, 0)
    play_prise(prise_view(get_rules("belote_decouverte"), 1, "JH 9H AH 7S 8D KC QC 7C", 0,
                          other_up="8H 7H KH 8S 9D AC 8C TH"), 2, 0)
