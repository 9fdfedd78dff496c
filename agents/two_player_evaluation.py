"""Monte Carlo hand evaluation for belote for two players: what taking (in each suit)
and passing are worth to a player at his turn in the prise, from what he knows.

A **world** places every card the player cannot see at the prise (the cards still to be
dealt and the other player's; in belote découverte the face-down cards), uniformly over
the deck positions he does not know: which position feeds which place (his hand, a
face-up stack, the retourne) is read from the engine's own deal
(:func:`coinche_rl.engine.two.two_reset`), so the evaluation never re-types the deal.
The prise so far is replayed; then each **option** is applied in every world:

* ``take`` in the retourne's suit (first round: the other player makes his exchange
  choice);
* ``name`` another suit: during the first round this is "both pass, and I name it in the
  second round" (what the take is worth if the prise comes back to him), during the
  second round his naming now;
* ``pass``: he passes now and the deal goes on.

and the deal is played out by the heuristic at both players (``agents.heuristic_two``,
each deciding from his own view only: the prise after a pass, the exchange, the cards),
scored by the engine. The same worlds and the same bot seeds serve every option, so
their differences carry little noise. Per option: the mean score difference (his score
minus the other's) with a 95% interval, and for a take the share of worlds where his
contract is made (a litige is not made).

The prise so far does not constrain the worlds (as the four-player evaluation's
auction by default): a pass is replayed in every world, whatever the other player's
cards there.

There is no double-dummy method: a whole-deal solve of the two-player game takes
0.6-9 s (``benchmarks/RESULTS.md``), hours for a few hundred worlds.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
from numba import njit

from ..actions import N_ACTIONS, NAME_BASE, PASS, TAKE, action_to_str
from ..cards import N_CARDS, SUIT_NAMES, format_card, parse_card
from ..engine.bits import rng_below, rng_seed, seed_int64, shuffle
from ..engine.two import (MADE_MADE, N_PLAYERS, N_STACKS, TWO_STATE_SIZE, current_player,
                          deal_made, deal_score, other, prise_round, py, retourne_of, taker_of,
                          two_apply, two_reset)
from ..engine.two_layout import other as other_player
from ..rules import RuleSet, params_vector
from ..two_player import TwoPlayerDeal, TwoPlayerView, two_player_rules
from .evaluation import EvaluationError
from .numba_bots import BOT_HEURISTIC, play_deals_two

__all__ = ["TwoPlayerHandEvaluation", "evaluate_two_player_view", "evaluate_two_player_hand",
           "deck_places", "world_deck", "PASS_OPTION", "warmup"]

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
def _evaluate_worlds(P, template, unknown, dealer, prise, player, options, first, n, seed,
                     bots, out_diff, out_made, out_taker):
    """Worlds ``first .. first + n - 1`` of the stream ``seed``: ``template`` (int64[32],
    -1 where unknown) completed by the cards ``unknown`` (int64[k]) in a uniform order,
    dealt by ``dealer``, the prise ``prise`` replayed, each option applied and the deal
    played out by the bots ``bots`` (the heuristic) at both players. ``out_*[i, j]``: world ``first + i``,
    option ``options[j]``: ``player``'s score minus the other's, ``deal_made``, the taker."""
    n_opt = options.shape[0]
    deck = np.empty(N_CARDS, dtype=np.int64)
    cards = np.empty(unknown.shape[0], dtype=np.int64)
    states = np.empty((n_opt, TWO_STATE_SIZE), dtype=np.int64)
    seeds = np.empty((n_opt, 2), dtype=np.int64)
    rng = np.zeros(1, dtype=np.uint64)
    rngs = np.zeros((N_PLAYERS, 1), dtype=np.uint64)        # the play loop's scratch
    buf = np.zeros(N_ACTIONS, dtype=np.uint8)
    V = np.zeros(TWO_STATE_SIZE, dtype=np.int64)
    for i in range(n):
        rng_seed(rng, seed, first + i)
        s0, s1 = world_deck(template, unknown, rng, cards, deck)
        for j in range(n_opt):
            T = states[j]
            two_reset(T, P, deck, dealer)
            for a in prise:
                two_apply(T, P, a)
            _apply_option(T, P, player, options[j])
            seeds[j, 0] = s0                 # the same bot seeds for every option
            seeds[j, 1] = s1
        bad = play_deals_two(P, states, bots, seeds, rngs, buf, V)
        if bad:
            raise ValueError("the heuristic chose an illegal action")
        for j in range(n_opt):
            T = states[j]
            out_diff[i, j] = deal_score(T, player) - deal_score(T, other(player))
            out_made[i, j] = deal_made(T)
            out_taker[i, j] = taker_of(T)


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


# ---------------------------------------------------------------------------- result
@dataclass(frozen=True, eq=False)
class TwoPlayerHandEvaluation:
    """The evaluation of each option (:func:`evaluate_two_player_view`).

    ``options``: their names (``take H``, ``name S``, ``pass``); ``legal``: whether it
    is a legal action now (a suit named in the first round is the conditional "if the
    prise comes back to me"); ``expected_score``: mean score difference for the player
    (his deal score minus the other's); ``ci95``: its 95% interval's half-width;
    ``p_make``: share of worlds where his contract is made (NaN for pass); ``p_taken``:
    for pass, the shares ``(he takes later, the other takes, nobody)``.
    """
    # the position, its options and their values, then how they were computed
    rules: RuleSet
    player: int
    dealer: int
    options: Tuple[str, ...]
    actions: Tuple[int, ...]
    legal: Tuple[bool, ...]
    expected_score: np.ndarray
    ci95: np.ndarray
    p_make: np.ndarray
    p_taken: Tuple[float, float, float]
    samples: int
    seed: int
    seconds: float

    @property
    def suggested(self) -> str:
        """The legal option with the best expected score."""
        best = max((j for j in range(len(self.options)) if self.legal[j]),
                   key=lambda j: self.expected_score[j])
        return self.options[best]

    def table(self) -> str:
        lines = [f"player {self.player} (dealer {self.dealer}), {self.rules.name}, "
                 f"{self.samples} worlds, heuristic play at both players",
                 f"{'option':14s} {'legal':>5s} {'expected':>9s} {'+/- 95%':>8s} {'P(made)':>8s}"]
        for j, name in enumerate(self.options):
            pm = "" if np.isnan(self.p_make[j]) else f"{self.p_make[j]:8.3f}"
            lines.append(f"{name:14s} {'yes' if self.legal[j] else 'later':>5s} "
                         f"{self.expected_score[j]:+9.1f} {self.ci95[j]:8.1f} {pm:>8s}")
        me, other, nobody = self.p_taken
        lines.append(f"after a pass: he takes later {me:.3f}, the other takes {other:.3f}, "
                     f"nobody {nobody:.3f}")
        lines.append(f"suggested: {self.suggested}")
        return "\n".join(lines)

    def to_dict(self) -> Dict[str, object]:
        return {"rules": self.rules.name, "player": self.player, "dealer": self.dealer,
                "samples": self.samples, "seed": self.seed,
                "options": [{"option": o, "action": a, "legal": lg,
                             "expected_score": round(float(e), 3), "ci95": round(float(c), 3),
                             "p_make": None if np.isnan(m) else round(float(m), 4)}
                            for o, a, lg, e, c, m in zip(self.options, self.actions, self.legal,
                                                         self.expected_score, self.ci95,
                                                         self.p_make)],
                "p_taken_after_pass": [round(x, 4) for x in self.p_taken],
                "suggested": self.suggested, "seconds": round(self.seconds, 3)}


# ------------------------------------------------------------------------------- API
def evaluate_two_player_view(view: TwoPlayerView, samples: int = 500, seed: int = 0,
                             bot: Optional[int] = None) -> TwoPlayerHandEvaluation:
    """Evaluate every option of ``view.player`` at his turn in the prise (module
    docstring), from his view only.

    :param samples: worlds (the same for every option).
    :param bot: the heuristic's bot id (:func:`~.numba_bots.heuristic_two_bot`; default
        the heuristic's).
    :raises EvaluationError: not the prise, or not his turn, or ``samples`` < 1.
    """
    if not isinstance(view, TwoPlayerView):
        raise EvaluationError(f"expected a TwoPlayerView, not {type(view).__name__}")
    if view.phase != "prise" or view.current_player != view.player:
        raise EvaluationError(f"the evaluation is for a player at his turn in the prise; "
                              f"this view is player {view.player}'s in the {view.phase} "
                              f"(player to act: {view.current_player})")
    if isinstance(samples, bool) or not isinstance(samples, (int, np.integer)) or samples < 1:
        raise EvaluationError(f"samples must be a positive int, not {samples!r}")
    V = view.state
    rs = view.retourne >> 3
    round1 = int(py.prise_round(V)) == 1
    options: List[int] = [rs] if round1 else []
    options += [s for s in range(4) if s != rs] + [PASS_OPTION]
    names, acts, legal = [], [], []
    for o in options:
        if o == PASS_OPTION:
            names.append("pass"); acts.append(PASS); legal.append(True)
        elif o == rs:
            names.append(f"take {SUIT_NAMES[o]}"); acts.append(TAKE); legal.append(True)
        else:
            names.append(f"name {SUIT_NAMES[o]}"); acts.append(NAME_BASE + o)
            legal.append(not round1)
    template, unknown = _template(view)
    prise = np.array(view.prise, dtype=np.int64)
    P = params_vector(view.rules)
    bots = np.full(2, BOT_HEURISTIC if bot is None else bot, dtype=np.int64)
    n = int(samples)
    diff = np.zeros((n, len(options)), dtype=np.int64)
    made = np.zeros_like(diff)
    taker = np.zeros_like(diff)
    opts = np.array(options, dtype=np.int64)
    t0 = time.perf_counter()
    for first in range(0, n, _CHUNK):
        k = min(_CHUNK, n - first)
        _evaluate_worlds(P, template, unknown, int(view.dealer), prise, int(view.player), opts,
                         first, k, seed_int64(seed), bots, diff[first:first + k],
                         made[first:first + k], taker[first:first + k])
    seconds = time.perf_counter() - t0
    mean = diff.mean(axis=0)
    sd = diff.std(axis=0, ddof=1) if n > 1 else np.zeros(len(options))
    ci = 1.96 * sd / np.sqrt(n)
    p_make = np.array([np.nan if o == PASS_OPTION else float((made[:, j] == MADE_MADE).mean())
                       for j, o in enumerate(options)])
    jp = options.index(PASS_OPTION)
    after = taker[:, jp]
    p_taken = (float((after == view.player).mean()),
               float((after == other_player(view.player)).mean()), float((after < 0).mean()))
    return TwoPlayerHandEvaluation(
        rules=view.rules, player=int(view.player), dealer=int(view.dealer), options=tuple(names),
        actions=tuple(acts), legal=tuple(legal), expected_score=mean, ci95=ci, p_make=p_make,
        p_taken=p_taken, samples=n, seed=int(seed), seconds=seconds)


def _cards(text, what: str) -> List[int]:
    """The cards of ``text`` in the order given (text or card ids)."""
    items = text.replace(",", " ").split() if isinstance(text, str) else list(text)
    out = []
    for c in items:
        try:
            v = parse_card(c) if isinstance(c, str) else int(c)
        except (ValueError, TypeError) as e:
            raise EvaluationError(f"{what}: {e}") from None
        if not 0 <= v < N_CARDS:
            raise EvaluationError(f"{what}: card ids are 0..31, not {c!r}")
        out.append(int(v))
    return out


def _retourne(retourne) -> List[int]:
    """The retourne as a list of card ids (one card, as text or id, or a sequence)."""
    return _cards([retourne] if isinstance(retourne, (str, int, np.integer)) else retourne,
                  "retourne")


def evaluate_two_player_hand(rules: Union[str, RuleSet], player: int, cards, dealer: int,
                             retourne=None, other_up=None, prise: Sequence = (),
                             samples: int = 500, seed: int = 0) -> TwoPlayerHandEvaluation:
    """Evaluate a prise position given by its cards (:func:`evaluate_two_player_view`).

    :param cards: ``belote_a_deux``: the player's 6 cards in hand (text such as
        ``"JH 9H AH 7S 8D KC"`` or card ids); ``belote_decouverte``: his 8 face-up table
        cards, in stack order.
    :param retourne: the turned-up card (``belote_a_deux``: required; ``belote_decouverte``:
        the dealer's last face-up card, which it must be if given).
    :param other_up: ``belote_decouverte``: the other player's 8 face-up cards.
    :param prise: the prise actions so far (``"pass"``), from the non-dealer.
    :raises EvaluationError: malformed or inconsistent cards, a bad player or dealer, a
        prise that is not legal or not at the player's turn.
    """
    try:
        r = two_player_rules(rules)
    except Exception as e:
        raise EvaluationError(str(e)) from None
    for name, v in (("player", player), ("dealer", dealer)):
        if isinstance(v, bool) or not isinstance(v, (int, np.integer)) or v not in (0, 1):
            raise EvaluationError(f"{name} must be 0 or 1, not {v!r}")
    place, owner, stack = deck_places(r, dealer)
    own = _cards(cards, "cards")
    deck = np.full(N_CARDS, -1, dtype=np.int64)
    if r.hand_cards:
        if retourne is None:
            raise EvaluationError("belote_a_deux: give the retourne (the turned-up card)")
        ret = _retourne(retourne)
        if len(ret) != 1:
            raise EvaluationError("retourne: give one card")
        if other_up is not None:
            raise EvaluationError("other_up is for belote_decouverte (the table cards); "
                                  "belote_a_deux has none before the prise")
        n_hand = int(((place == PLACE_HAND) & (owner == player)).sum())
        if len(own) != n_hand:
            raise EvaluationError(f"cards: belote_a_deux deals {n_hand} cards to each hand "
                                  f"before the prise, got {len(own)}")
        deck[(place == PLACE_HAND) & (owner == player)] = own      # positions in deck order
        deck[place == PLACE_RETOURNE] = ret[0]
    else:
        theirs = _cards(other_up if other_up is not None else [], "other_up")
        for what, got in (("cards", own), ("other_up", theirs)):
            if len(got) != N_STACKS:
                raise EvaluationError(f"{what}: belote_decouverte lays {N_STACKS} face-up "
                                      f"cards per player, got {len(got)}")
        dealer_up = own if player == dealer else theirs
        if retourne is not None:
            rc = _retourne(retourne)
            if len(rc) != 1 or rc[0] != dealer_up[-1]:
                raise EvaluationError("retourne: in belote_decouverte it is the dealer's last "
                                      f"face-up card ({format_card(dealer_up[-1])})")
        for pos in range(N_CARDS):
            if place[pos] == PLACE_UP:
                deck[pos] = (own if owner[pos] == player else theirs)[stack[pos]]
    known = [int(c) for c in deck if c >= 0]
    if len(set(known)) != len(known):
        raise EvaluationError("the same card is given twice: "
                              + " ".join(format_card(c) for c in sorted(set(known))
                                         if known.count(c) > 1))
    rest = [c for c in range(N_CARDS) if c not in set(known)]
    deck[deck < 0] = rest                       # any completion: the view hides them
    d = TwoPlayerDeal(r, deck=[int(c) for c in deck], dealer=int(dealer))
    for a in prise:
        try:
            d.apply(a)
        except Exception as e:
            raise EvaluationError(f"prise: {e}") from None
    if d.phase != "prise" or d.current_player != player:
        raise EvaluationError(f"after the prise {[action_to_str(a) for a in d.history]} it is "
                              f"not player {player}'s turn in the prise "
                              f"(phase {d.phase}, player to act {d.current_player})")
    return evaluate_two_player_view(d.view(player), samples=samples, seed=seed)


#: its place in ``coinche-rl warmup`` (:mod:`coinche_rl.cli.warmup`): after the bots,
#: whose kernels its kernels call (in their chain)
WARMUP_AFTER = ("coinche_rl.agents.two_player_bots",)


def warmup() -> None:
    """Compile the evaluation's kernels (two worlds of each preset)."""
    evaluate_two_player_hand("belote_a_deux", 1, "JH 9H AH 7S 8D KC", 0, retourne="TH",
                             samples=2)
    evaluate_two_player_hand("belote_decouverte", 1, "JH 9H AH 7S 8D KC QC 7C", 0,
                             other_up="8H 7H KH 8S 9D AC 8C TH", samples=2)
