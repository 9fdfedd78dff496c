"""Training labels for the auction (``coinche_rl.agents.neural.bid_labels``).

A chunk plays the auctions of real deals and labels **every legal auction action** of
every auction decision (two or more choices) for the acting team, with counterfactual
targets on the true deal, so that rare and costly actions (capot, coinche, surcoinche,
high bids) are learned without being explored by chance:

``q``  the action is taken, the rest of the auction is played out by the numba heuristic
       at every seat (the seat's own later bids too; the random bot at the seats of a
       random team, below), and the final contract is played
       by the card player: the acting team's deal score minus the other team's (0 when
       every seat passes: the deal is dealt again). One step of policy improvement over
       the heuristic auction, averaged over the real distribution of the hidden cards;
``ev`` / ``made``
       for every contract of the preset (each strain and level, capot; the prise in the
       classic family): the same score, and whether the contract is made, if the seat
       took that contract now and the auction ended (no coinche): the hand evaluation's
       question, answered under real play instead of double dummy.

The card play behind every target is **real play, never double dummy**: for each deal,
each strain the rules allow and each of the four takers, the contract is played once
from the deal's start by the card player (the shipped ``nn`` play net at every seat, or
the numba heuristic), and the takers' outcome (card points, capot, générale) is scored
for every level and coinche state by the engine's own scoring
(:func:`coinche_rl.agents.evaluation.score_outcome`, exact: tested against the played
deals). A contract is played at the preset's lowest level and without coinche; the card
player sees the contract, so a level or a coinche could change its play slightly: that
difference is ignored. A chunk labels the same positions for several card players at
once (``players``), one output head each.

The deals: a random deal and dealer, the heuristic bids at all four seats, except that
each auction decision is a uniformly random legal action with probability ``epsilon``
(so that positions off the heuristic's path are labelled too). The network reads the
other seats' bids as the heuristic's, so once a seat has taken a random action only that
seat's later decisions are labelled: for the others, the bid would not mean what it
says. In a share ``strong_share`` of the deals (coinche family) a random
seat is dealt 5 to 8 cards of a random suit with its jack and nine (the rest shuffled to
the others): such hands, the capots among them, are too rare in random deals for the
network to learn them. In a share ``random_share`` of the deals one team (drawn) is the
numba ``random`` bot instead, in the auction and in every continuation: the other team's
decisions are labelled, so that the network learns to answer absurd contracts (coinche
them) rather than read them as the heuristic's; the random team's decisions are not
labelled, and in the playouts of those deals the random team plays its cards at random
too (the card player at the other team's seats). Every row is in the
canonical suit order (:mod:`.canonical`): the network input and the :data:`BID_ACTIONS`
outputs. A chunk depends only on ``(seed, first_game, n_games, options)``.

**Self-play** (``bid_net``, ``coinche-rl train bid --bidders nn``): a bidding network
replaces the heuristic in the labelled auctions and in every continuation, at every
seat but the random team's, deciding as the ``nn`` agent does (its trust region
included); the network then reads the other seats' bids as its own. The auctions run
in lockstep batches (one forward pass per round for every game waiting for the
network, :func:`net_auction_step`, then :func:`~.batch_play.play_states` up to the play
for the continuations); the same deals, the same exploration and the same playouts as
the heuristic's path. Self-play alone drifts: a generation learns to exploit what the
last one fails to punish (overbidding against nets that rarely coinche), so the
opponent pool also has the heuristic: in a share ``heuristic_share`` of the deals one
team (drawn) bids as the heuristic, in the auction and every continuation, and is not
labelled.
"""

from __future__ import annotations

import time
from typing import Sequence

import numpy as np
from numba import njit

from ... import actions as A
from ... import engine as E
from ...engine import (AUCTION, PLAY, STATE_SIZE, apply_legal_action, auction_length,
                       coinche_level, shuffle,
                       contract_is_capot, contract_of, current_seat, kernel, phase_of,
                       deal_into, reset_state, retourne_of, rng_below,
                       rng_seed, seat_tricks_won, set_contract, team_points_won,
                       team_tricks_won)
from ...cards import N_CARDS, N_RANKS, N_SUITS
from ...rules import (CAPOT_VALUE, CARDS_PER_HAND, MIN_BID_VALUE, N_SEATS, N_STRAINS, N_TEAMS, N_TRICKS,
                      P_FAMILY, P_GENERALE_BONUS, P_MIN_BID, RuleSet, card_points_table,
                      params_vector, partner, team)
from ...envs.kernels import apply_at, rules_vector
from ..evaluation import score_outcome, contract_levels
from ..numba_bots import BOT_HEURISTIC, BOT_RANDOM, bot_action, play_deals
from . import canonical as C
from .batch_play import BidNet, NetInputs, play_states
from .bid_actions import BID_ACTIONS, N_BID, PLAYERS, input_scratch, label_players
from .labels import deal_scratch, u01

__all__ = ["BidChunk", "label_bid_chunk", "contract_mask", "playout_outcomes", "play_contracts",
           "warmup"]

# takers' outcome kinds (as in the hand evaluation)
_K_CAPOT_AGAINST, _K_NORMAL, _K_CAPOT, _K_GENERALE = -1, 0, 1, 2


def contract_mask(rules: RuleSet) -> np.ndarray:
    """uint8[N_ACTIONS]: the numeric bids and capots that are contracts of ``rules``
    (its bid values and strains); zeros in the classic family."""
    out = np.zeros(A.N_ACTIONS, dtype=np.uint8)
    if rules.family == "classic":
        return out
    strains = range(N_STRAINS) if rules.strains == "suits_nt_at" else range(N_SUITS)
    for v in contract_levels(rules):
        for s in strains:
            out[A.capot_action(s) if v == CAPOT_VALUE else A.bid_action(int(v), s)] = 1
    return out


# ====================================================================== kernels
@kernel
def _strong_deal(rng, hands, deck):
    """A deal in which a random seat holds 5 to 8 cards of a random suit, its jack and
    nine among them, the rest of the 32 cards shuffled to the other seats (``deck``:
    scratch)."""
    seat = rng_below(rng, N_SEATS)
    suit = rng_below(rng, N_SUITS)
    k = 5 + rng_below(rng, 4)           # 5 to 8 cards of the suit
    for i in range(N_RANKS):
        deck[i] = 8 * suit + i              # the suit, then the other 24 cards
    j = N_RANKS
    for c in range(N_CARDS):
        if c // 8 != suit:
            deck[j] = c
            j += 1
    # the jack (rank 4) and the nine (rank 2) first, then k - 2 other cards of the suit
    deck[0], deck[4] = deck[4], deck[0]
    deck[1], deck[2] = deck[2], deck[1]
    shuffle(rng, deck[2:8], 6)
    held = 0
    for i in range(k):
        held |= np.int64(1) << deck[i]
    # the rest: the suit's other 8 - k cards and the 24 others, shuffled
    n = 0
    for c in range(N_CARDS):
        if (held >> c) & 1 == 0:
            deck[n] = c
            n += 1
    shuffle(rng, deck, N_CARDS - CARDS_PER_HAND)
    for s in range(N_SEATS):
        hands[s] = 0
    hands[seat] = held
    filled = k
    i = 0
    while filled < CARDS_PER_HAND:
        hands[seat] |= np.int64(1) << deck[i]
        i += 1
        filled += 1
    for s in range(N_SEATS):
        if s == seat:
            continue
        for _ in range(CARDS_PER_HAND):
            hands[s] |= np.int64(1) << deck[i]
            i += 1


@kernel
def _deal(S, P, rng, hands, deck, strong_share):
    """A random deal and dealer (in the coinche family, with probability
    ``strong_share`` a :func:`_strong_deal`)."""
    if P[P_FAMILY] == 0 and strong_share > 0.0 and u01(rng) < strong_share:
        _strong_deal(rng, hands, deck)
        reset_state(S, hands, rng_below(rng, 4))
    else:
        deal_into(S, P, rng, np.int64(-1), hands, deck)


@kernel
def _finish_auction(T, P, bots, rngb, buf, counters):
    """Numba bot ``bots[seat]`` at every seat until the auction ends."""
    while phase_of(T) == AUCTION:
        cur = current_seat(T)
        apply_legal_action(T, P, bot_action(bots[cur], T, P, cur, rngb, buf))
        counters[1] += 1


@kernel
def _deal_game(S, P, rng, hands, deck, seed, game, random_share, strong_share):
    """Deal game ``game`` of a chunk into ``S`` from sub-stream ``game`` of ``seed`` (left
    in ``rng`` for the auction's random draws); returns its random team (-1: none)."""
    rng_seed(rng, seed, game)
    _deal(S, P, rng, hands, deck, strong_share)
    random_team = -1
    if random_share > 0.0 and u01(rng) < random_share:
        random_team = rng_below(rng, N_TEAMS)
    return random_team


@kernel
def _random_legal(mask, n_legal, rng):
    """A uniformly random action of ``mask`` (``n_legal`` set), one draw from ``rng``."""
    j = rng_below(rng, n_legal)
    a = 0
    while True:
        if mask[a]:
            if j == 0:
                return a
            j -= 1
        a += 1


@kernel
def _count(mask):
    """The legal actions of an action mask (uint8[N_ACTIONS])."""
    n = 0
    for a in range(A.N_ACTIONS):
        n += mask[a]
    return n


@kernel
def _record_position(S, g, cur, p, cmask, k, legal, final, pos_game, pos_seat, pos_perm,
                     pos_state):
    """Position ``k``: deal ``g``, seat ``cur``, renaming ``p``, its legal canonical
    actions (their final contracts unknown yet: strain -1) and its state."""
    for j in range(N_BID):
        legal[k, j] = cmask[BID_ACTIONS[j]]
        final[k, j, 0] = -1
    pos_game[k] = g
    pos_seat[k] = cur
    pos_perm[k] = p
    for i in range(STATE_SIZE):
        pos_state[k, i] = S[i]


@kernel
def _final_contract(T, out):
    """``out = (strain, taker, value, coinche)`` of the auction ended in ``T`` (strain -1:
    every seat passed)."""
    if phase_of(T) == PLAY:
        value, strain, bidder = contract_of(T)
        out[0] = strain
        out[1] = bidder
        out[2] = CAPOT_VALUE if contract_is_capot(T) != 0 else value
        out[3] = coinche_level(T)
    else:
        out[0] = -1


@njit(cache=True)
def auction_positions(P, cpt, rules_vec, seed, first_game, n_games, epsilon, random_share,
                      strong_share, starts, random_teams, feats, legal, final, pos_game, pos_seat, pos_perm,
                      pos_state, counters):
    """Play the auctions of ``n_games`` deals (game ``g`` from sub-stream
    ``first_game + g`` of ``seed``; its fresh state into ``starts[g]``) and record every
    auction decision with two or more choices: the network input ``feats[k]``, the legal
    canonical actions ``legal[k]`` (uint8[N_BID]) and, for each, the final contract after
    the bots' continuation, ``final[k, j] = (strain, taker, value, coinche)``
    (strain -1: every seat passed), and the engine state ``pos_state[k]``. Returns the
    number of positions. The heuristic bids at every seat, except that in a share
    ``random_share`` of the deals one team (drawn) is the random bot, in the auction and
    its continuations (``random_teams[g]``: that team, or -1); the random team's
    decisions are not labelled. A share ``strong_share`` of the deals are
    :func:`_strong_deal` s (coinche family)."""
    S, T, hands, deck, rng, rngb, buf = deal_scratch()
    obs, cobs, mask, cmask, cards, voids, ceil, keys, order = input_scratch()
    match = np.zeros(5, dtype=np.float64)
    bots = np.zeros(N_SEATS, dtype=np.int64)
    k = 0
    for g in range(n_games):
        random_team = _deal_game(S, P, rng, hands, deck, seed, first_game + g, random_share,
                                 strong_share)
        starts[g, :] = S
        random_teams[g] = random_team
        for s in range(N_SEATS):
            bots[s] = BOT_RANDOM if team(s) == random_team else BOT_HEURISTIC
        random_by = 0                 # seats that took a random action in this auction
        while phase_of(S) == AUCTION:
            cur = current_seat(S)
            counters[0] += 1
            if team(cur) == random_team:
                # the random team: an opponent the labelled seats must answer, not a
                # labelled seat (its actions are what they are, not the heuristic's)
                apply_legal_action(S, P, bot_action(np.int64(BOT_RANDOM), S, P, cur, rngb, buf))
                continue
            p = C.play_inputs_one(S, P, cpt, rules_vec, match, obs, mask, cobs, cmask,
                                   voids, ceil, keys, order, feats[k], cards)
            n_legal = _count(mask)
            # a seat reads the other seats' bids as the heuristic's: after another seat's
            # random action its position is not the heuristic's information, and is not
            # labelled (its own random actions are its own knowledge)
            if n_legal >= 2 and (random_by & ~(1 << cur)) == 0:
                _record_position(S, g, cur, p, cmask, k, legal, final, pos_game, pos_seat,
                                 pos_perm, pos_state)
                for j in range(N_BID):
                    if legal[k, j]:
                        T[:] = S
                        apply_legal_action(T, P, C.ACT_SRC[p, BID_ACTIONS[j]])
                        _finish_auction(T, P, bots, rngb, buf, counters)
                        _final_contract(T, final[k, j])
                k += 1
            if n_legal >= 2 and u01(rng) < epsilon:
                random_by |= 1 << cur
                a = _random_legal(mask, n_legal, rng)
            else:
                a = bot_action(np.int64(BOT_HEURISTIC), S, P, cur, rngb, buf)
            apply_legal_action(S, P, a)
    return k


@njit(cache=True)
def deal_games(P, seed, first_game, n_games, random_share, heuristic_share, strong_share, starts,
               random_teams, heuristic_teams, rngs, rngbs):
    """The deals of :func:`auction_positions` (``starts``, ``random_teams``), with each
    game's random stream after its deal (``rngs[g]``: the auction's random draws) and a
    stream for its bots (``rngbs[g]``), for the auctions of the bidding net
    (:func:`net_auction_step`). In a share ``heuristic_share`` of all the deals (drawn
    among those without a random team) one team is the heuristic (``heuristic_teams[g]``,
    or -1)."""
    S, _T, hands, deck, rng, _rngb, _buf = deal_scratch()
    for g in range(n_games):
        random_teams[g] = _deal_game(S, P, rng, hands, deck, seed, first_game + g,
                                     random_share, strong_share)
        heuristic_teams[g] = -1
        if random_teams[g] < 0 and heuristic_share > 0.0 and \
                u01(rng) * (1.0 - random_share) < heuristic_share:
            heuristic_teams[g] = rng_below(rng, N_TEAMS)
        starts[g, :] = S
        rngs[g, 0] = rng[0]
        rng_seed(rngbs[g], seed, -(first_game + g) - 1)


@njit(cache=True)
def net_auction_step(states, P, cpt, rules_vec, random_teams, heuristic_teams, rngs, rngbs,
                     epsilon, random_by, k, feats, legal, final, pos_game, pos_seat, pos_perm,
                     pos_state, counters, need):
    """Advance the auction of every game of ``states`` (the bidding net's auctions) to its
    next decision for the network: the random team's seats act (the random bot) and the
    heuristic team's (the heuristic; neither is labelled), a
    decision with two or more choices is recorded from position ``k`` on (as
    :func:`auction_positions` records; the network reads the other seats' bids as its
    own, so after another seat's random action a seat is not labelled) and is a random
    legal action with probability ``epsilon``; a single legal action is taken. The games
    waiting for the network go into ``need``. Returns ``(positions, games waiting)``."""
    obs, cobs, mask, cmask, cards, voids, ceil, keys, order = input_scratch()
    match = np.zeros(5, dtype=np.float64)
    buf = np.zeros(A.N_ACTIONS, dtype=np.uint8)
    n_need = 0
    for g in range(states.shape[0]):
        S = states[g]
        while phase_of(S) == AUCTION:
            cur = current_seat(S)
            counters[0] += 1
            if team(cur) == random_teams[g]:
                apply_legal_action(S, P, bot_action(np.int64(BOT_RANDOM), S, P, cur, rngbs[g], buf))
                continue
            if team(cur) == heuristic_teams[g]:
                apply_legal_action(S, P, bot_action(np.int64(BOT_HEURISTIC), S, P, cur, rngbs[g], buf))
                continue
            p = C.play_inputs_one(S, P, cpt, rules_vec, match, obs, mask, cobs, cmask,
                                   voids, ceil, keys, order, feats[k], cards)
            n_legal = _count(mask)
            if n_legal >= 2 and (random_by[g] & ~(1 << cur)) == 0:
                _record_position(S, g, cur, p, cmask, k, legal, final, pos_game, pos_seat,
                                 pos_perm, pos_state)
                k += 1
            if n_legal >= 2 and u01(rngs[g]) < epsilon:
                random_by[g] |= 1 << cur
                apply_legal_action(S, P, _random_legal(mask, n_legal, rngs[g]))
            elif n_legal == 1:
                apply_legal_action(S, P, _random_legal(mask, np.int64(1), rngs[g]))
            else:
                need[n_need] = g
                n_need += 1
                break
    return k, n_need


@njit(cache=True)
def continuation_starts(P, pos_state, pos_perm, rows_k, rows_j, out, lengths):
    """``out[r]``: position ``rows_k[r]`` after its canonical action ``rows_j[r]``
    (``lengths[r]``: its auction's length then)."""
    for r in range(rows_k.shape[0]):
        out[r, :] = pos_state[rows_k[r]]
        apply_legal_action(out[r], P, C.ACT_SRC[pos_perm[rows_k[r]], BID_ACTIONS[rows_j[r]]])
        lengths[r] = auction_length(out[r])


@njit(cache=True)
def final_contracts(states, starts_len, rows_k, rows_j, final):
    """``final[rows_k[r], rows_j[r]]``: the contract of finished auction ``states[r]``;
    returns the auction actions taken after ``starts_len[r]``."""
    steps = 0
    for r in range(states.shape[0]):
        _final_contract(states[r], final[rows_k[r], rows_j[r]])
        steps += auction_length(states[r]) - starts_len[r]
    return steps


@njit(cache=True)
def playout_starts(P, starts, n_games, strains, out):
    """``out[(g * len(strains) + i) * N_SEATS + t]``: deal ``g`` with the contract in
    ``strains[i]`` taken by seat ``t`` (the lowest level, no coinche)."""
    v0 = P[P_MIN_BID] if P[P_FAMILY] == 0 else 0
    ns = strains.shape[0]
    for g in range(n_games):
        for i in range(ns):
            for t in range(N_SEATS):
                r = (g * ns + i) * N_SEATS + t
                out[r, :] = starts[g]
                set_contract(out[r], P, v0, strains[i], np.int64(0), t)


@njit(cache=True)
def playout_outcomes(P, states, kinds, points):
    """The takers' outcome of each finished deal: ``kinds`` (-1 capot against, 0
    normal, 1 capot, 2 générale) and ``points`` (their raw card points)."""
    for i in range(states.shape[0]):
        F = states[i]
        taker = contract_of(F)[2]
        tr = team_tricks_won(F, team(taker))
        points[i] = team_points_won(F, team(taker))
        if tr == 0:
            kinds[i] = _K_CAPOT_AGAINST
        elif tr == N_TRICKS:
            kinds[i] = _K_CAPOT
            if P[P_GENERALE_BONUS] > 0 and (seat_tricks_won(F, taker) == N_TRICKS
                                               or seat_tricks_won(F, partner(taker)) == N_TRICKS):
                kinds[i] = _K_GENERALE
        else:
            kinds[i] = _K_NORMAL


@kernel
def _contract_score(T, Z, P, start, value, strain, coinche, taker, kinds, points, r):
    """``(made, score difference for the takers)`` of the contract on deal ``start``
    whose takers' outcome is playout ``r``."""
    for i in range(STATE_SIZE):
        T[i] = start[i]
    set_contract(T, P, value, strain, coinche, taker)
    made, diff = score_outcome(T, Z, P, taker, kinds[r], points[r])
    return made, diff


@njit(cache=True)
def bid_targets(P, starts, strain_slot, n_strains, contracts, pos_game, pos_seat, pos_perm,
                legal, final, kinds, points, q, ev, made, ev_valid):
    """The targets of every position (see the module docstring) for each card player
    ``pl`` whose playout outcomes are ``kinds[pl]`` / ``points[pl]``: ``q[k, pl, j]``
    (legal actions), ``ev[k, pl, j]`` and ``made[k, pl, j]`` (``ev_valid[k, j]``: the
    contracts of the preset, ``contracts`` uint8[N_ACTIONS] in the coinche family, the
    prise in the classic family)."""
    T = np.empty(STATE_SIZE, dtype=np.int64)
    Z = np.empty(STATE_SIZE, dtype=np.int64)
    classic = P[P_FAMILY] != 0
    n_pl = kinds.shape[0]
    for k in range(pos_game.shape[0]):
        g = pos_game[k]
        seat = pos_seat[k]
        p = pos_perm[k]
        start = starts[g]
        for j in range(N_BID):
            for pl in range(n_pl):
                q[k, pl, j] = 0.0
                ev[k, pl, j] = 0.0
                made[k, pl, j] = 0
            ev_valid[k, j] = 0
            if legal[k, j] and final[k, j, 0] >= 0:
                st = final[k, j, 0]
                tk = final[k, j, 1]
                r = (g * n_strains + strain_slot[st]) * N_SEATS + tk
                sign = 1.0 if team(tk) == team(seat) else -1.0
                for pl in range(n_pl):
                    _m, d = _contract_score(T, Z, P, start, final[k, j, 2], st, final[k, j, 3],
                                            tk, kinds[pl], points[pl], r)
                    q[k, pl, j] = sign * d
            a = C.ACT_SRC[p, BID_ACTIONS[j]]
            value = -1
            st = -1
            if not classic and contracts[a]:
                value = CAPOT_VALUE if a >= A.CAPOT_BASE else MIN_BID_VALUE + 10 * ((a - A.BID_BASE) // 6)
                st = (a - A.CAPOT_BASE) if a >= A.CAPOT_BASE else (a - A.BID_BASE) % 6
            elif classic and a == A.TAKE:
                value = 0
                st = retourne_of(start) >> 3
            elif classic and A.NAME_BASE <= a < A.NAME_BASE + 4 and \
                    a - A.NAME_BASE != retourne_of(start) >> 3:
                value = 0
                st = a - A.NAME_BASE
            if st < 0:
                continue
            ev_valid[k, j] = 1
            r = (g * n_strains + strain_slot[st]) * N_SEATS + seat
            for pl in range(n_pl):
                m, d = _contract_score(T, Z, P, start, value, st, np.int64(0), seat, kinds[pl],
                                       points[pl], r)
                ev[k, pl, j] = d
                made[k, pl, j] = 1 if m == 1 else 0


# ====================================================================== chunks
class BidChunk:
    """Labelled auction positions: ``feats`` (float16 [n, FEATURE_SIZE]), ``legal``
    (bool [n, N_BID]), ``q`` / ``ev`` (float32 [n, players, N_BID], deal-score points
    for the acting team), ``made`` (bool [n, players, N_BID]), ``ev_valid`` (bool
    [n, N_BID]), ``seats`` and ``games`` (int [n]), ``states`` (the engine state of
    each position), ``finals`` (int [n, N_BID, 4]: each action's final contract
    ``(strain, taker, value, coinche)``, strain -1 when every seat passed or the action
    is illegal) and ``starts`` (of each deal, before the auction); ``deals``, ``seconds``,
    ``agent_steps`` (auction decisions of the deals), ``rollout_steps`` (the bids of the
    continuations) and ``playouts`` (contracts played)."""

    __slots__ = ("feats", "legal", "q", "ev", "made", "ev_valid", "seats", "games", "states",
                 "finals", "starts", "deals", "seconds", "agent_steps", "rollout_steps",
                 "playouts")

    def __init__(self, **kw):
        for k in self.__slots__:
            setattr(self, k, kw[k])

    def __len__(self):
        return len(self.q)


def _strains(rules: RuleSet) -> np.ndarray:
    return np.arange(6 if rules.family != "classic" and rules.strains == "suits_nt_at" else 4, dtype=np.int64)


def play_contracts(rules: RuleSet, states: np.ndarray, player: str, play_net=None,
                   seed: int = 0, random_team: int = -1) -> None:
    """Play ``states`` (fresh contracts) to their end in place with ``player`` at every
    seat: ``"heuristic"`` (numba) or ``"nn"`` (``play_net``, batched lockstep); the
    numba random bot at the seats of ``random_team`` (0 or 1; -1: none)."""
    n = len(states)
    seeds = (np.int64(seed) * 1_000_003
             + np.arange(N_SEATS * n, dtype=np.int64)).reshape(n, N_SEATS)
    bots = np.array([BOT_RANDOM if team(s) == random_team else BOT_HEURISTIC
                     for s in range(N_SEATS)], dtype=np.int64)
    if player == "heuristic":
        r = play_deals(params_vector(rules), states, bots, seeds)
        if r:
            raise RuntimeError(f"a numba bot chose an illegal action in playout {r - 1}")
    elif player == "nn":
        play_states(rules, states, seeds, bots,
                    [None if team(s) == random_team else play_net for s in range(N_SEATS)])
    else:
        raise ValueError(f"unknown card player {player!r}: expected one of {', '.join(PLAYERS)}")


def _net_auctions(rules: RuleSet, bid_net: BidNet, seed: int, first_game: int, n_games: int,
                  epsilon: float, random_share: float, heuristic_share: float,
                  strong_share: float, arrays) -> int:
    """The chunk's auctions and their continuations with ``bid_net`` at every seat (the
    random or heuristic team's seats excepted), into ``arrays`` (those of
    :func:`auction_positions`); returns the number of positions."""
    (P, cpt, rv, starts, random_teams, feats, legal, final, pos_game, pos_seat, pos_perm,
     pos_state, counters) = arrays
    rngs = np.zeros((n_games, 1), dtype=np.uint64)
    rngbs = np.zeros((n_games, 1), dtype=np.uint64)
    heuristic_teams = np.zeros(n_games, dtype=np.int64)
    deal_games(P, np.int64(seed), np.int64(first_game), np.int64(n_games), float(random_share),
               float(heuristic_share), float(strong_share), starts, random_teams,
               heuristic_teams, rngs, rngbs)
    states = starts.copy()
    inputs = NetInputs(rules, n_games)
    random_by = np.zeros(n_games, dtype=np.int64)
    need = np.zeros(n_games, dtype=np.int64)
    k = 0
    while True:           # the labelled auctions, in lockstep: one forward pass per round
        k, n = net_auction_step(states, P, cpt, rv, random_teams, heuristic_teams, rngs, rngbs,
                                float(epsilon), random_by, np.int64(k), feats, legal, final,
                                pos_game, pos_seat, pos_perm, pos_state, counters, need)
        if n == 0:
            break
        idx = need[:n].copy()
        apply_at(states, P, idx, n, bid_net.actions(inputs, states, idx))
    # every legal action of every position, the rest of its auction bid by the net (and
    # by the deal's random or heuristic team)
    rows_k, rows_j = np.nonzero(legal[:k])
    rows_k = rows_k.astype(np.int64)
    rows_j = rows_j.astype(np.int64)
    cont = np.empty((len(rows_k), STATE_SIZE), dtype=np.int64)
    before = np.empty(len(rows_k), dtype=np.int64)
    continuation_starts(P, pos_state, pos_perm, rows_k, rows_j, cont, before)
    games = pos_game[rows_k]
    for bot, teams in ((BOT_RANDOM, random_teams), (BOT_HEURISTIC, heuristic_teams)):
        for side in (-1, 0, 1) if bot == BOT_RANDOM else (0, 1):
            sel = np.flatnonzero((teams[games] == side) & (heuristic_teams[games] < 0)
                                 if bot == BOT_RANDOM else teams[games] == side)
            if len(sel) == 0:
                continue
            part = cont[sel]
            seeds = (np.int64(seed) * 1_000_003 + first_game * N_SEATS * MAX_CONTINUATIONS
                     + N_SEATS * sel[:, None] + np.arange(N_SEATS)).astype(np.int64)
            seats = range(N_SEATS)
            play_states(rules, part, seeds,
                        [bot if team(s) == side else BOT_HEURISTIC for s in seats],
                        [None] * N_SEATS,
                        [None if team(s) == side else bid_net for s in seats], until=PLAY)
            cont[sel] = part
    counters[1] += final_contracts(cont, before, rows_k, rows_j, final)
    return int(k)


#: a bound on the continuations of one game: the chunk from game ``g`` on seeds its
#: continuations' random bots from ``N_SEATS * MAX_CONTINUATIONS * g`` on
MAX_CONTINUATIONS = E.MAX_AUCTION * N_BID


def label_bid_chunk(rules: RuleSet, seed: int, first_game: int, n_games: int,
                    epsilon: float = 0.1, players: Sequence[str] = ("heuristic",),
                    play_net=None, random_share: float = 0.0,
                    strong_share: float = 0.0, bid_net: "BidNet | None" = None,
                    heuristic_share: float = 0.0) -> BidChunk:
    """One chunk of auction labels (see the module docstring); a pure function of its
    arguments (``play_net``: the card-play net of the ``"nn"`` player; ``random_share``:
    the share of deals in which one team bids at random; ``strong_share``: the share of
    deals dealt with a long suit to one seat; ``bid_net``: the bidding net that bids in
    the auctions and their continuations instead of the heuristic, as the ``nn`` agent
    bids, its trust region included: self-play; ``heuristic_share``, with ``bid_net``:
    the share of deals in which one team bids as the heuristic)."""
    players = label_players(players, play_net)
    if heuristic_share > 0.0 and bid_net is None:
        raise ValueError("heuristic_share is a share of self-play deals (bid_net): without a "
                         "bidding net every seat bids as the heuristic")
    if not 0.0 <= random_share + heuristic_share <= 1.0:
        raise ValueError(f"random_share + heuristic_share must be in 0..1, not "
                         f"{random_share} + {heuristic_share}")
    t0 = time.perf_counter()
    P = params_vector(rules)
    cpt = np.ascontiguousarray(card_points_table(rules), dtype=np.int64)
    rv = rules_vector(rules)
    cap = E.MAX_AUCTION * n_games          # an auction has at most MAX_AUCTION actions
    starts = np.zeros((n_games, STATE_SIZE), dtype=np.int64)
    random_teams = np.zeros(n_games, dtype=np.int64)
    feats = np.zeros((cap, C.FEATURE_SIZE), dtype=np.float32)
    legal = np.zeros((cap, N_BID), dtype=np.uint8)
    final = np.zeros((cap, N_BID, 4), dtype=np.int64)
    pos_game = np.zeros(cap, dtype=np.int64)
    pos_seat = np.zeros(cap, dtype=np.int64)
    pos_perm = np.zeros(cap, dtype=np.int64)
    pos_state = np.zeros((cap, STATE_SIZE), dtype=np.int64)
    counters = np.zeros(2, dtype=np.int64)
    if bid_net is None:
        k = auction_positions(P, cpt, rv, np.int64(seed), np.int64(first_game),
                              np.int64(n_games), float(epsilon), float(random_share),
                              float(strong_share), starts, random_teams, feats, legal, final,
                              pos_game, pos_seat, pos_perm, pos_state, counters)
    else:
        k = _net_auctions(rules, bid_net, seed, first_game, n_games, epsilon, random_share,
                          heuristic_share, strong_share, (P, cpt, rv, starts, random_teams, feats, legal, final,
                                         pos_game, pos_seat, pos_perm, pos_state, counters))
    strains = _strains(rules)
    slot = np.full(6, 0, dtype=np.int64)
    slot[strains] = np.arange(len(strains))
    base = np.zeros((n_games * len(strains) * N_SEATS, STATE_SIZE), dtype=np.int64)
    playout_starts(P, starts, np.int64(n_games), strains, base)
    kinds = np.zeros((len(players), len(base)), dtype=np.int64)
    points = np.zeros((len(players), len(base)), dtype=np.int64)
    # the playouts of deal g are rows g * len(strains) * N_SEATS ... ; a deal with a
    # random team is played with that team's cards at random
    deal_of = np.arange(len(base)) // (len(strains) * N_SEATS)
    for i, pl in enumerate(players):
        states = base.copy()
        for side in (-1, 0, 1):
            rows = np.flatnonzero(random_teams[deal_of] == side)
            if len(rows) == 0:
                continue
            part = states[rows]
            play_contracts(rules, part, pl, play_net,
                           seed=seed * 7919 + first_game + 1_000_000_007 * (side + 1),
                           random_team=side)
            states[rows] = part
        playout_outcomes(P, states, kinds[i], points[i])
    q = np.zeros((k, len(players), N_BID), dtype=np.float32)
    ev = np.zeros((k, len(players), N_BID), dtype=np.float32)
    made = np.zeros((k, len(players), N_BID), dtype=np.uint8)
    ev_valid = np.zeros((k, N_BID), dtype=np.uint8)
    bid_targets(P, starts, slot, np.int64(len(strains)), contract_mask(rules), pos_game[:k],
                pos_seat[:k], pos_perm[:k], legal[:k], final[:k], kinds, points, q, ev, made,
                ev_valid)
    return BidChunk(feats=feats[:k].astype(np.float16), legal=legal[:k].astype(bool), q=q, ev=ev,
                    made=made.astype(bool), ev_valid=ev_valid.astype(bool),
                    seats=pos_seat[:k].copy(), games=pos_game[:k] + first_game,
                    states=pos_state[:k].copy(), finals=final[:k].copy(), starts=starts,
                    deals=n_games,
                    seconds=time.perf_counter() - t0, agent_steps=int(counters[0]),
                    rollout_steps=int(counters[1]), playouts=len(base) * len(players))


#: its place in ``coinche-rl warmup`` (:mod:`coinche_rl.cli.warmup`): the networks' chain
WARMUP_CHAIN = "networks"


def warmup() -> None:
    """Compile the auction label kernels (cached on disk), the self-play path's with a
    small random bidding net."""
    from ...rules import get_rules
    from .net import MLP
    net = MLP.random(hidden=(8,), outputs=3 * N_BID)
    net.manifest = {"bid": {"players": ["nn"]}}
    for name in ("ffb", "classic"):
        label_bid_chunk(get_rules(name), 0, 0, 1)
        label_bid_chunk(get_rules(name), 0, 0, 1, bid_net=BidNet(net, "nn", margin=0.0))
