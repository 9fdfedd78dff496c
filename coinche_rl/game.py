"""The game API: one deal (:class:`Deal`) and a match of deals (:class:`Match`).

A :class:`Deal` is a thin Python object over the engine's fixed-size state vector
(``coinche_rl.engine``): legality, play and scoring all run in the numba kernels; this
module validates input, raises clear errors and translates to game terms.

>>> deal = Deal("ffb", hands=["JH 9H AH TH KS QS 7D 8D", "JS 9S AS TS KH QH 7C 8C",
...                           "JD 9D AD TD KC QC 7H 8H", "JC 9C AC TC KD QD 7S 8S"], dealer=3)
>>> deal.current_player, deal.phase
(0, 'auction')
>>> for a in ["100H", "pass", "pass", "pass"]:
...     deal.apply(a)
>>> str(deal.contract)
'100H by seat 0'
>>> deal.apply("7C")
Traceback (most recent call last):
...
coinche_rl.game.IllegalPlayError: illegal card '7C' for seat 0: the card is not in the hand (hand: KS QS AH TH JH 9H 8D 7D); legal: QS, KS, 9H, TH, JH, AH, 7D, 8D
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple, Union

import numpy as np

from . import actions as A
from . import engine as E
from .cards import (FULL_DECK, N_CARDS, SUIT_MASKS, SUIT_NAMES, cards_of, format_card, format_hand,
                    parse_card, parse_hand, popcount)
from .engine.bits import seed_int64
from .rules import (CAPOT_VALUE, CARDS_PER_HAND, N_SEATS, N_TEAMS, N_TRICKS,
                    STRAIN_LONG_NAMES, STRAIN_NAMES, RuleSet, seat_after, team,
                    check_int, four_player_rules, params_vector)

__all__ = ["Deal", "Match", "Contract", "TeamScore", "DealResult", "IllegalActionError",
           "IllegalBidError", "IllegalPlayError", "deal_hands", "deal_deck", "deal_stream"]

ActionLike = Union[int, str]
PHASE_NAMES = ("auction", "play", "done")


class IllegalActionError(ValueError):
    """An action that is not legal in the current state (the state is left unchanged)."""


class IllegalBidError(IllegalActionError):
    """An auction action (pass, bid, capot, coinche, surcoinche) that is not legal now."""


class IllegalPlayError(IllegalActionError):
    """A card (or declare / belote choice) that is not legal now."""


@dataclass(frozen=True)
class Contract:
    """The contract at the end of the auction (RULES.md §4).

    ``value`` is 250 for a capot bid; ``coinche`` is 0, 1 (coinched) or 2 (surcoinched).
    """
    value: int
    strain: int
    capot: bool
    coinche: int
    taker: int

    @property
    def taker_team(self) -> int:
        return team(self.taker)

    @property
    def bid_text(self) -> str:
        if self.value == 0:          # classic prise: a trump, no value
            return STRAIN_NAMES[self.strain]
        return f"capot{STRAIN_NAMES[self.strain]}" if self.capot else f"{self.value}{STRAIN_NAMES[self.strain]}"

    def __str__(self) -> str:
        s = f"{self.bid_text} by seat {self.taker}"
        if self.coinche == E.COINCHED:
            s += " coinched"
        elif self.coinche == E.SURCOINCHED:
            s += " surcoinched"
        return s


@dataclass(frozen=True)
class TeamScore:
    """One team's side of a deal's scoring breakdown (RULES.md §7-§8)."""
    card_points: int      #: card points won, dix de der included (252 with capot)
    dix_de_der: int       #: 10, 100 for capot, or 0
    belote: int           #: belote points announced by the team
    declarations: int     #: declaration points the team scored (0 if it lost them)
    total: int            #: the total used for the made conditions
    raw_score: int        #: deal score before rounding
    score: int            #: deal score (rounded per the rule set)


@dataclass(frozen=True)
class DealResult:
    """Outcome of a finished deal. ``contract`` is None and ``void`` True when all passed.

    Classic family: ``litige`` is True on a tie (``made`` is then False) and
    ``litige_points`` the takers' total held aside for the winner of the next deal.
    """
    contract: Optional[Contract]
    void: bool
    made: Optional[bool]
    multiplier: int
    teams: Tuple[TeamScore, TeamScore]
    generale: Optional[int]
    litige: bool = False
    litige_points: int = 0

    @property
    def scores(self) -> Tuple[int, int]:
        return (self.teams[0].score, self.teams[1].score)

    def table(self) -> str:
        """A readable scoring breakdown."""
        if self.void:
            return "void deal: all four passed, no points"
        rows = [("card points", "card_points"), ("  of which dix de der", "dix_de_der"),
                ("belote", "belote"), ("declarations", "declarations"),
                ("total for the contract", "total"), ("deal score (raw)", "raw_score"),
                ("deal score", "score")]
        outcome = "litige" if self.litige else ("made" if self.made else "failed")
        out = [f"contract: {self.contract}   {outcome}"
               f"   multiplier x{self.multiplier}"
               + (f"   générale by seat {self.generale}" if self.generale is not None else "")]
        out += side_table([(label, [getattr(t, attr) for t in self.teams]) for label, attr in rows],
                          ("team 0", "team 1"))
        if self.litige:
            out.append(f"litige: {self.litige_points} points of the takers held aside for the "
                       f"winner of the next deal")
        return "\n".join(out)


def side_table(rows, sides: Sequence[str]) -> List[str]:
    """The lines of a scoring table, one column per side (``sides``: their names), one row
    per ``(label, values)``: every family's result table (:meth:`DealResult.table`, the
    two-player result's)."""
    w = max(8, 2 + max(len(s) for s in sides))
    return [" " * 26 + "".join(f"{s:>{w}s}" for s in sides)] + [
        f"{label:26s}" + "".join(f"{v:{w}d}" for v in values) for label, values in rows]


def deal_stream(seed: Optional[int] = None) -> np.ndarray:
    """The engine's random stream (``uint64[1]``, splitmix64) for ``seed``: sub-stream 0
    of ``engine.rng_seed``, from which a deal draws its cards (:func:`deal_deck`) and
    then its dealer, as the kernels' ``engine.deal_into`` does. ``seed=None`` draws a
    fresh seed from the operating system.

    :raises ValueError: unless ``seed`` is None or an int >= 0.
    """
    if seed is None:
        seed = int(np.random.SeedSequence().entropy) % (1 << 64)
    seed = check_int(seed, "seed", 0, message="seed must be a non-negative integer, not {value!r}")
    rng = np.zeros(1, dtype=np.uint64)
    E.rng_seed(rng, np.int64(seed_int64(seed)), np.int64(0))
    return rng


def _check_stream(rng) -> None:
    if not (isinstance(rng, np.ndarray) and rng.dtype == np.uint64 and rng.shape == (1,)):
        raise TypeError(f"expected the engine's random stream (a uint64[1] array from "
                        f"deal_stream(seed)), not {type(rng).__name__}")


def deal_deck(rng: np.ndarray) -> List[int]:
    """A random dealing order of the 32 cards from the engine's stream ``rng``
    (:func:`deal_stream`): ``engine.random_deck``, the package's one seed -> deck map."""
    _check_stream(rng)
    deck = np.empty(N_CARDS, dtype=np.int64)
    E.random_deck(rng, deck)
    return [int(c) for c in deck]


def deal_hands(rng: np.ndarray) -> List[int]:
    """Four random 8-card hands (masks) from the engine's stream ``rng``: a
    :func:`deal_deck` dealt in packets from seat 0 (``engine.random_deal``)."""
    _check_stream(rng)
    hands = np.empty(N_SEATS, dtype=np.int64)
    E.random_deal(rng, hands, np.empty(N_CARDS, dtype=np.int64))
    return [int(h) for h in hands]


def draw_below(rng: np.ndarray, n: int) -> int:
    """An int ``0..n-1`` drawn from the engine's stream ``rng`` (``engine.rng_below``)."""
    return int(E.rng_below(rng, np.int64(n)))


def deck_from(deck) -> List[int]:
    """A dealing order from 32 card ints or their text (``"JH 9H ..."``).

    :raises ValueError: unless it holds each of the 32 cards once.
    """
    if isinstance(deck, str):
        cards = [parse_card(t) for t in deck.replace(",", " ").split()]
    else:
        cards = [int(c) for c in deck]
    if sorted(cards) != list(range(N_CARDS)):
        missing = sorted(set(range(N_CARDS)) - set(cards))
        raise ValueError(f"a deck must hold each of the 32 cards once (got {len(cards)} cards"
                         + (f"; missing {format_hand(sum(1 << c for c in missing))}" if missing else "") + ")")
    return cards


def hands_from_deck(deck: Sequence[int], dealer: int) -> List[int]:
    """Deal 3-2-3 from the seat after ``dealer`` (coinche family):
    :func:`engine.hands_from_deck_into`."""
    hands = np.zeros(N_SEATS, dtype=np.int64)
    E.hands_from_deck_into(np.asarray(deck, dtype=np.int64), int(dealer), hands)
    return [int(h) for h in hands]


def _to_mask(h) -> int:
    if isinstance(h, str):
        return parse_hand(h)
    return int(h)


def _check_hands(hands: Sequence) -> List[int]:
    if len(hands) != N_SEATS:
        raise ValueError(f"expected {N_SEATS} hands, got {len(hands)}")
    masks = [_to_mask(h) for h in hands]
    seen = 0
    for s, m in enumerate(masks):
        if m < 0 or m > FULL_DECK:
            raise ValueError(f"hand of seat {s} is not a 32-bit card mask: {m!r}")
        n = bin(m).count("1")
        if n != CARDS_PER_HAND:
            raise ValueError(f"hand of seat {s} has {n} cards, expected {CARDS_PER_HAND}: "
                             f"{format_hand(m)!r}")
        if seen & m:
            raise ValueError(f"card(s) {format_hand(seen & m)!r} dealt twice (seat {s})")
        seen |= m
    return masks


#: ``Deal._bid_reason``'s words for the engine's auction refusals (``E.REFUSE_*``);
#: the strain, the bid ladder and the current bid are worded there
_REFUSALS = {
    E.REFUSE_NOT_AUCTION: "the auction is over",
    E.REFUSE_NOT_AN_ACTION: "not an action id",
    E.REFUSE_PLAY_ACTION: "the auction is not over",
    E.REFUSE_PRISE_ONLY: "take and name belong to the classic prise, not to the coinche auction",
    E.REFUSE_COINCHED: "the contract is coinched: no further bids",
    E.REFUSE_CAPOT_BID: "capot has already been bid",
    E.REFUSE_NO_BID: "there is no bid to coinche",
    E.REFUSE_ALREADY_COINCHED: "the contract is already coinched",
    E.REFUSE_OWN_TEAM: "only the opponents of the bidder may coinche",
    E.REFUSE_NOT_COINCHED: "surcoinche comes only after a coinche",
    E.REFUSE_NOT_COINCHED_TEAM: "only the coinched team may surcoinche",
    E.REFUSE_TAKE_ROUND: "take is only possible in the first round of the prise (second round: "
                         "name a suit or pass)",
    E.REFUSE_NAME_ROUND: "naming a trump is only possible in the second round (first round: take or pass)",
    E.REFUSE_NO_SEVEN: "you do not hold the 7 of trump",
    E.REFUSE_EXCHANGE_PENDING: "first choose to exchange the 7 of trump for the retourne or not",
}


class BaseDeal:
    """What a deal of every family shares, over the engine's entry points
    (:mod:`coinche_rl.engine.entry`): the state and the rule vector, the phase, the seat
    to act, the legal actions, applying an action with a clear error, the public view and
    the scores. :class:`Deal` (four players) and
    :class:`~coinche_rl.two_player.TwoPlayerDeal` add the game's own terms (the auction
    or the prise, the stacks, the result) and their refusals' words (:meth:`_refused`).
    """

    __slots__ = ("rules", "_P", "_S", "_history")
    #: the family's plain-Python accessors (``engine.py``, ``engine.two.py``)
    _py = E.py

    @staticmethod
    def _check_rules(rules, **overrides) -> RuleSet:
        """The rule set, refused unless of the class's families."""
        raise NotImplementedError("BaseDeal._check_rules: each family's deal class (Deal, "
                                  "TwoPlayerDeal) checks its own rules")

    @classmethod
    def from_state(cls, rules: Union[str, RuleSet], state: np.ndarray,
                   history: Sequence[int] = ()):
        """Wrap a copy of an engine state vector (from a vector env or a search)."""
        d = cls.__new__(cls)
        d.rules = cls._check_rules(rules)
        d._P = params_vector(d.rules)
        S = np.asarray(state, dtype=np.int64)
        size = d.family.state_size
        if S.shape != (size,):
            raise ValueError(f"a {d.family.name} state has shape ({size},), not {S.shape}")
        d._S = S.copy()
        d._history = list(history)
        return d

    def _start(self, rules, deck, dealer, seed, shuffle: bool = True):
        """The start of every family's constructor: the rules (checked by the class), the
        deck (given, else shuffled from ``seed``; ``shuffle=False``: none, the hands are
        given), the dealer (given, else drawn from the same stream), an empty state and
        history. Returns ``(deck, dealer)`` for the family's reset."""
        self.rules = self._check_rules(rules)
        self._P = params_vector(self.rules)
        rng = deal_stream(seed)
        if shuffle:
            deck = deck_from(deck) if deck is not None else deal_deck(rng)
        if dealer is None:
            dealer = draw_below(rng, self.family.n_players)
        dealer = self._check_dealer(dealer, self.family)
        self._S = np.empty(self.family.state_size, dtype=np.int64)
        self._history: List[int] = []
        return deck, dealer

    @staticmethod
    def _check_dealer(dealer, family) -> int:
        """``dealer`` as an int, or ValueError naming the seats."""
        n = family.n_players
        if isinstance(dealer, bool) or not isinstance(dealer, (int, np.integer)) or not 0 <= dealer < n:
            seats = "a player 0 or 1" if n == 2 else f"a seat 0..{n - 1}"
            raise ValueError(f"dealer must be {seats}, not {dealer!r}")
        return int(dealer)

    # ------------------------------------------------------------------ state
    @property
    def state(self) -> np.ndarray:
        """The engine state vector (read it, do not write it)."""
        return self._S

    @property
    def params(self) -> np.ndarray:
        """The rule vector the kernels read (:func:`~coinche_rl.rules.params_vector`)."""
        return self._P

    @property
    def family(self) -> E.Family:
        """The rule set's :class:`~coinche_rl.engine.family.Family`."""
        return E.family_of(self._P)

    def clone(self):
        d = type(self).__new__(type(self))
        d.rules, d._P, d._S, d._history = self.rules, self._P, self._S.copy(), list(self._history)
        return d

    def __repr__(self) -> str:
        return (f"<{type(self).__name__} {self.rules.name} dealer={self.dealer} "
                f"phase={self.phase} actions={len(self._history)}>")

    @property
    def dealer(self) -> int:
        return int(E.game_dealer(self._S, self._P))

    @property
    def phase(self) -> str:
        """The phase's name (:attr:`Family.phases <coinche_rl.engine.family.Family>`)."""
        return self.family.phases[int(E.game_phase(self._S, self._P))]

    @property
    def is_terminal(self) -> bool:
        return int(E.game_phase(self._S, self._P)) == E.PHASE_DONE

    @property
    def is_void(self) -> bool:
        """True when no one took: no contract, no score."""
        return bool(self._py.deal_void(self._S))

    @property
    def current_player(self) -> Optional[int]:
        """The seat (player) to act, or None when the deal is over."""
        p = int(E.game_to_act(self._S, self._P))
        return None if p < 0 else p

    @property
    def history(self) -> List[int]:
        """Every action applied, in order."""
        return list(self._history)

    # ---------------------------------------------------------------- cards, tricks
    @property
    def hands(self) -> List[int]:
        """The cards each seat (player) still holds in hand (masks)."""
        return [int(self._py.hand_of(self._S, p)) for p in range(self.family.n_players)]

    @property
    def trick_number(self) -> int:
        """The trick being played, from 0 (``n_tricks`` once the deal is over)."""
        return int(self._py.trick_number(self._S))

    @property
    def plays(self) -> List[Tuple[int, int]]:
        """``(seat, card)`` in the order played."""
        S, n, out = self._S, self.family.n_players, []
        for t in range(self.family.n_tricks):
            leader = int(self._py.trick_leader(S, t))
            for i in range(n):
                c = int(self._py.trick_card(S, t, i))
                if c < 0:
                    return out
                out.append(((leader + i) % n, c))      # seats in turn from the leader
        return out

    @property
    def tricks(self) -> List[List[Tuple[int, int]]]:
        """The tricks so far as ``[(seat, card), ...]``, the current one last once its
        first card is played."""
        p, n = self.plays, self.family.n_players
        return [p[i:i + n] for i in range(0, len(p), n)]

    @property
    def trick_winners(self) -> List[int]:
        """The winner of each complete trick."""
        winners = (int(self._py.trick_winner(self._S, t)) for t in range(self.family.n_tricks))
        return [w for w in winners if w >= 0]

    @property
    def current_trick(self) -> List[Tuple[int, int]]:
        """The cards played to the trick in progress (empty between tricks)."""
        if self.phase != "play" or self._py.cards_in_trick(self._S) == 0:
            return []
        return self.tricks[-1]

    # ---------------------------------------------------------------- actions
    def legal_action_mask(self) -> np.ndarray:
        """Boolean mask over the whole action space (``coinche_rl.actions.N_ACTIONS``)."""
        out = np.zeros(A.N_ACTIONS, dtype=np.uint8)
        E.game_legal_mask(self._S, self._P, out)
        return out.astype(bool)

    def legal_actions(self) -> List[int]:
        """Legal action ids, increasing."""
        return [int(a) for a in np.flatnonzero(self.legal_action_mask())]

    def _action_id(self, action: ActionLike) -> int:
        a = A.parse_action(action, self.rules) if isinstance(action, str) else action
        if isinstance(a, bool) or not isinstance(a, (int, np.integer)):
            raise TypeError(f"action must be an action id or its text, not {action!r}")
        return int(a)

    def is_legal(self, action: ActionLike) -> bool:
        return bool(E.game_is_legal(self._S, self._P, self._action_id(action)))

    def apply(self, action: ActionLike) -> None:
        """Apply an action (id or text such as ``'90H'``, ``'take'``, ``'pass'``, ``'JS'``).

        :raises InvalidNotationError: for malformed text.
        :raises IllegalBidError: for an auction (prise) action that is not legal now.
        :raises IllegalPlayError: for a card or choice that is not legal now.
        """
        a = action if type(action) is int else self._action_id(action)
        code = int(E.game_step(self._S, self._P, a))
        if code != E.REFUSE_NONE:
            raise self._illegal(a, code)
        self._history.append(a)

    def _illegal(self, a: int, code: int) -> IllegalActionError:
        """The error for action ``a``, refused with ``code`` (``E.REFUSE_*``)."""
        legal = ", ".join(A.action_to_str(x) for x in self.legal_actions()) or "none"
        text = A.action_to_str(a) if 0 <= a < A.N_ACTIONS else repr(a)
        if self.is_terminal:
            return IllegalActionError(f"illegal action {text!r}: the deal is over")
        return self._refused(a, code, text, legal)

    def _match_terms(self) -> Tuple[int, int, int, int]:
        """What the match's winner rule reads of a finished deal that was not void
        (:func:`score_into_match`): the taker's side, each side's tricks and whether the
        FFB clause "the belote alone cannot win" applies."""
        raise NotImplementedError(f"{type(self).__name__}: each family's deal class (Deal, "
                                  f"TwoPlayerDeal) says its match terms")

    def _refusal_words(self, a: int, code: int) -> str:
        """The words of the engine's refusal ``code`` of action ``a``, the same in every
        family (the prise's rounds, the exchange, the auction's clauses)."""
        if code == E.REFUSE_RETOURNE_SUIT:
            return (f"{SUIT_NAMES[a - A.NAME_BASE]} was the retourne's suit, refused in the "
                    f"first round: name another")
        if code == E.REFUSE_PLAY_ACTION:
            return f"the {self.phase} is not over"
        return _REFUSALS.get(code, "not legal now")

    def _refused(self, a: int, code: int, text: str, legal: str) -> IllegalActionError:
        """The family's words for a refusal (the deal is not over)."""
        raise NotImplementedError(f"{type(self).__name__}: each family's deal class (Deal, "
                                  f"TwoPlayerDeal) words its own refusals")

    # ---------------------------------------------------------------- views, scores
    def public_state(self, seat: int) -> np.ndarray:
        """The state as ``seat`` may know it (:func:`engine.game_public_view_into`; a
        fresh array)."""
        n = self.family.n_players
        if isinstance(seat, bool) or not isinstance(seat, (int, np.integer)) or not 0 <= seat < n:
            who = "player must be 0 or 1" if n == 2 else f"seat must be 0..{n - 1}"
            raise ValueError(f"{who}, not {seat!r}")
        V = np.empty_like(self._S)
        E.game_public_view_into(self._S, self._P, int(seat), V)
        return V

    @property
    def scores(self) -> Tuple[int, int]:
        """The deal's score per side, team or player (0, 0 until it is over)."""
        return (int(E.game_score(self._S, self._P, 0)), int(E.game_score(self._S, self._P, 1)))

    def _render_play(self, lines: List[str], who: str) -> str:
        """The text of ``render``: ``lines`` (the family's table), then each trick's cards
        with who played them and the winner (``who``: ``"seat"`` or ``"player"``), and
        the result once the deal is over."""
        for i, trick in enumerate(self.tricks):
            w = self.trick_winners[i] if i < len(self.trick_winners) else None
            lines.append(f"  trick {i + 1}: " + " ".join(f"{s}:{format_card(c)}" for s, c in trick)
                         + (f"  -> {who} {w}" if w is not None else ""))
        if self.is_terminal:
            lines.append(self.result.table())
        return "\n".join(lines)


class Deal(BaseDeal):
    """One deal: auction, declarations, card play and scoring.

    :param rules: a preset name or a :class:`~coinche_rl.rules.RuleSet`.
    :param hands: four hands (masks or text such as ``"JH 9H ..."``), coinche family only.
    :param deck: the 32 cards in dealing order (ints or text): dealt 3-2-3 in the coinche
        family; 3+2, the retourne, and the rest after the prise in the classic family.
    :param dealer: the dealer seat (0..3); random if omitted.
    :param seed: seeds the random deal / dealer when neither hands nor deck is given
        (same seed, same deal).
    :raises ValueError: for malformed hands or deck, or a bad dealer.
    """

    __slots__ = ()
    _check_rules = staticmethod(four_player_rules)

    def __init__(self, rules: Union[str, RuleSet] = "ffb", *, hands: Optional[Sequence] = None,
                 deck=None, dealer: Optional[int] = None, seed: Optional[int] = None):
        if hands is not None and deck is not None:
            raise ValueError("give either hands or deck, not both")
        deck, dealer = self._start(rules, deck, dealer, seed, shuffle=hands is None)
        classic = self.rules.family == "classic"
        if hands is not None and classic:
            raise ValueError("a classic-family deal starts from a deck (deck=32 cards in dealing "
                             "order): its hands depend on who takes the retourne")
        if classic:
            E.reset_classic(self._S, np.array(deck, dtype=np.int64), int(dealer))
        else:
            masks = _check_hands(hands) if hands is not None else hands_from_deck(deck, dealer)
            E.reset_state(self._S, np.array(masks, dtype=np.int64), dealer)

    def with_contract(self, value: int, strain: Union[int, str], *, taker: int,
                      coinche: int = 0) -> "Deal":
        """Skip the auction: play this contract (value 250 = capot). Returns ``self``.
        The strain is its id (0..5) or its text, as everywhere else (``"H"``, ``"NT"``).

        :raises ValueError: if the auction has started or the contract is not allowed.
        """
        if self._history or self.phase != "auction":
            raise ValueError("with_contract() needs a fresh deal (no action applied yet)")
        given = strain
        strain = A.parse_strain(strain)             # InvalidNotationError is a ValueError
        if strain not in self.rules.allowed_strains:
            raise ValueError(
                f"strain {given!r} not allowed by rules {self.rules.name!r}: the strains are "
                f"{' '.join(STRAIN_NAMES[s] for s in self.rules.allowed_strains)}")
        if self.rules.family == "classic":
            if value not in (0, None) or coinche:
                raise ValueError("a classic-family contract has no value and no coinche: "
                                 "use with_contract(0, strain, taker=seat)")
            if not 0 <= taker < N_SEATS:
                raise ValueError(f"taker must be a seat 0..3, not {taker!r}")
            E.set_contract(self._S, self._P, 0, strain, 0, taker)
            return self
        if value != CAPOT_VALUE and value not in self.rules.bid_values:
            raise ValueError(f"contract value {value!r} not in {self.rules.bid_values} (or 250 for capot)")
        if coinche not in (0, 1, 2) or not 0 <= taker < N_SEATS:
            raise ValueError(f"coinche must be 0, 1 or 2 and taker a seat 0..3 (got {coinche!r}, {taker!r})")
        E.set_contract(self._S, self._P, value, strain, coinche, taker)
        return self

    # ------------------------------------------------------------------ state
    def __eq__(self, other) -> bool:
        return (isinstance(other, Deal) and self.rules == other.rules
                and np.array_equal(self._S, other._S) and self._history == other._history)

    @property
    def initial_hands(self) -> List[int]:
        """Hands as dealt (classic family: 5 cards during the prise, then the 8 after)."""
        return [int(E.py.initial_hand(self._S, s)) for s in range(N_SEATS)]

    @property
    def retourne(self) -> Optional[int]:
        """Classic family: the turned-up card (None in the coinche family)."""
        c = int(E.py.retourne_of(self._S))
        return c if c >= 0 else None

    @property
    def deck(self) -> Optional[List[int]]:
        """Classic family: the 32 cards in dealing order (None in the coinche family)."""
        if int(E.py.deck_card(self._S, 0)) < 0:
            return None
        return [int(E.py.deck_card(self._S, i)) for i in range(N_CARDS)]

    @property
    def prise_round(self) -> Optional[int]:
        """Classic family: the round of the prise (1 or 2), None in the coinche family."""
        return int(E.py.prise_round(self._S)) if self.rules.family == "classic" else None

    @property
    def auction(self) -> List[int]:
        n = int(E.py.auction_length(self._S))
        return [int(E.py.auction_action(self._S, i)) for i in range(n)]

    @property
    def contract(self) -> Optional[Contract]:
        """The contract once the auction is over (None before, and for a void deal)."""
        if self.phase == "auction" or self.is_void:
            return None
        S = self._S
        value, strain, taker = (int(x) for x in E.py.contract_of(S))
        return Contract(value, strain, bool(E.py.contract_is_capot(S)),
                        int(E.py.coinche_level(S)), taker)

    @property
    def highest_bid(self) -> Optional[Tuple[int, int, int]]:
        """``(value, strain, seat)`` of the highest bid so far, or None."""
        value, strain, seat = (int(x) for x in E.py.contract_of(self._S))
        if seat < 0:
            return None
        return value, strain, seat

    @property
    def card_points_won(self) -> Tuple[int, int]:
        """Card points won so far per team (dix de der included once the deal is over)."""
        return int(E.py.team_points_won(self._S, 0)), int(E.py.team_points_won(self._S, 1))

    @property
    def tricks_won(self) -> Tuple[int, int]:
        return int(E.py.team_tricks_won(self._S, 0)), int(E.py.team_tricks_won(self._S, 1))

    # ------------------------------------------------------- declarations, belote
    def seat_declarations(self, seat: int) -> Tuple[int, int]:
        """``(points, cards)`` of the seat's best combination of declarations (known from
        the start of play; cards as a mask)."""
        return (int(E.py.seat_declaration_points(self._S, seat)),
                int(E.py.declaration_cards(self._S, seat)))

    @property
    def declared(self) -> List[bool]:
        d = int(E.py.declared_seats(self._S))
        return [bool(d >> s & 1) for s in range(N_SEATS)]

    @property
    def declarations_resolved(self) -> bool:
        return int(E.py.declaration_winner(self._S)) != E.DECL_UNRESOLVED

    @property
    def declaration_winner(self) -> Optional[int]:
        """Team scoring its declarations once resolved (None: unresolved, tie or none)."""
        w = int(E.py.declaration_winner(self._S))
        return w if w >= 0 else None

    @property
    def team_declarations(self) -> Tuple[int, int]:
        return (int(E.py.team_declaration_points(self._S, 0)),
                int(E.py.team_declaration_points(self._S, 1)))

    @property
    def belote_cards(self) -> int:
        """Mask of the K and Q of every belote announced (automatic ones from the start
        of play)."""
        return int(E.py.belote_cards(self._S))

    @property
    def team_belote(self) -> Tuple[int, int]:
        return int(E.py.team_belote_points(self._S, 0)), int(E.py.team_belote_points(self._S, 1))

    # ---------------------------------------------------------------- actions
    def _match_terms(self) -> Tuple[int, int, int, int]:
        t = self.tricks_won
        return self.contract.taker_team, t[0], t[1], int(self.rules.belote_cannot_win)

    def legal_cards(self) -> int:
        """Mask of the cards the seat to act may play (0 outside the play phase)."""
        return int(E.legal_play_mask(self._S, self._P))

    def _refused(self, a: int, code: int, text: str, legal: str) -> IllegalActionError:
        seat = self.current_player
        if self.phase == "auction":
            return IllegalBidError(
                f"illegal auction action {text!r} for seat {seat}: {self._bid_reason(a)}; legal: {legal}")
        if A.is_card(a):
            return IllegalPlayError(
                f"illegal card {text!r} for seat {seat}: {self._card_reason(a - A.CARD_BASE)} "
                f"(hand: {format_hand(self.hands[seat])}); legal: {legal}")
        return IllegalPlayError(f"illegal action {text!r} for seat {seat} in the play phase; legal: {legal}")

    def _bid_reason(self, a: int) -> str:
        """Why auction action ``a`` is illegal: the ``REFUSE_*`` clause that the engine's
        legality kernel (:func:`engine.auction_refusal`, the code of ``is_legal``)
        applied, in words."""
        code = int(E.auction_refusal(self._S, self._P, a))
        if code == E.REFUSE_STRAIN:
            if A.NAME_BASE <= a < A.DECLARE:
                return f"{STRAIN_LONG_NAMES[a - A.NAME_BASE]} is not allowed by rules {self.rules.name!r}"
            return f"{STRAIN_LONG_NAMES[A.bid_strain(a)]} contracts are not allowed by rules {self.rules.name!r}"
        if code == E.REFUSE_NOT_HIGHER:
            return f"a bid must be higher than the current {self.highest_bid[0]}"
        if code in (E.REFUSE_OFF_LADDER, E.REFUSE_NOT_PRISE):
            return A.bid_values_text(self.rules)
        return self._refusal_words(a, code)

    def _card_reason(self, c: int) -> str:
        """Why card ``c`` is illegal: the rule that the engine's legality kernel
        (:func:`engine.legal_play_rule`, the code of ``legal_cards``) applied."""
        seat = self.current_player
        hand = self.hands[seat]
        if not hand >> c & 1:
            return "the card is not in the hand"
        legal, rule = (int(x) for x in E.legal_play_rule(self._S, self._P))
        if legal == 0:
            return "a declare / belote choice must be made first"
        led = self.current_trick[0][1] >> 3
        strain = int(E.py.contract_strain(self._S))
        if rule in (E.RULE_FOLLOW, E.RULE_OVERTRUMP_LED, E.RULE_BEAT):
            if (c >> 3) != led:
                return f"must follow {SUIT_NAMES[led]}"
            return f"must play higher in {SUIT_NAMES[led]} (overtrump)" if rule == E.RULE_OVERTRUMP_LED else \
                f"must beat the winning card in {SUIT_NAMES[led]}"
        if rule in (E.RULE_TRUMP, E.RULE_OVERTRUMP, E.RULE_UNDERTRUMP):
            return f"void in {SUIT_NAMES[led]}: must trump ({SUIT_NAMES[strain]})" + \
                (" higher than the trump in the trick" if legal != hand & int(SUIT_MASKS[strain]) else "")
        return "not legal now"

    # ---------------------------------------------------------------- result
    @property
    def result(self) -> Optional[DealResult]:
        """The scoring breakdown once the deal is over (None before)."""
        if not self.is_terminal:
            return None
        S = self._S
        if self.is_void:
            zero = TeamScore(0, 0, 0, 0, 0, 0, 0)
            return DealResult(None, True, None, 1, (zero, zero), None)
        c = self.contract
        mult = (1, self.rules.multipliers[0], self.rules.multipliers[1])[c.coinche]
        if self.rules.family == "classic":
            mult = 1
        last = team(int(E.py.trick_winner(S, N_TRICKS - 1)))
        capot = int(E.py.team_tricks_won(S, last)) == N_TRICKS
        teams = []
        for t in range(N_TEAMS):
            teams.append(TeamScore(
                card_points=int(E.py.team_card_points(S, t)),
                dix_de_der=(100 if capot else 10) if t == last else 0,
                belote=int(E.py.team_belote_points(S, t)),
                declarations=int(E.py.team_declaration_points(S, t)),
                total=int(E.py.team_total(S, t)),
                raw_score=int(E.py.team_raw_score(S, t)),
                score=int(E.py.team_score(S, t))))
        g = int(E.py.generale_seat(S))
        made = int(E.py.deal_made(S))
        return DealResult(c, False, made == E.MADE_MADE, mult, (teams[0], teams[1]), g if g >= 0 else None,
                          litige=made == E.MADE_LITIGE, litige_points=int(E.py.litige_points(S)))

    def render(self, viewer: Optional[int] = None) -> str:
        """A readable text view of the deal so far. With ``viewer`` (a seat), only what
        that seat sees: its own hand, the other hands as counts.

        >>> print(Deal("ffb", seed=2, dealer=3).render(viewer=0).splitlines()[2])
          seat 1 (team 1): 8 cards
        """
        lines = [f"rules {self.rules.name}, dealer seat {self.dealer}, phase {self.phase}"]
        shown = self.initial_hands if self.is_terminal else self.hands
        for s in range(N_SEATS):
            hand = (format_hand(shown[s]) if viewer is None or viewer == s
                    else f"{popcount(self.hands[s])} cards")
            lines.append(f"  seat {s} (team {team(s)}): {hand}")
        if self.retourne is not None:
            lines.append(f"  retourne: {format_card(self.retourne)}")
        if self.auction:
            lines.append("  auction: " + " ".join(
                f"{seat_after(self.dealer, 1 + i)}:{A.action_to_str(a)}" for i, a in enumerate(self.auction)))
        if self.contract:
            lines.append(f"  contract: {self.contract}")
        return self._render_play(lines, "seat")


class Match:
    """Deals played to the rule set's target, the dealer moving one seat each deal (§9).

    Between deals the cards are shuffled, or, with ``shuffle_between_deals=False``,
    gathered trick by trick, cut and dealt 3-2-3 from the seat after the dealer.

    :param rules: a preset name or RuleSet; ``target`` overrides its target.
    :param dealer: first dealer (random from ``seed`` if omitted).
    :param seed: seeds every random choice of the match (deals, dealer, cuts).
    """

    #: who wins a match: a team (belote for two players: a player)
    SIDE = "team"
    #: the class of its deals
    DEAL = Deal
    _check_rules = staticmethod(four_player_rules)

    def __init__(self, rules: Union[str, RuleSet] = "ffb", *, target: Optional[int] = None,
                 dealer: Optional[int] = None, seed: Optional[int] = None, max_deals: int = 1000):
        self.rules = self._check_rules(rules) if target is None else self._check_rules(rules, target=target)
        self._rng = deal_stream(seed)
        family = E.family_of(self.rules)
        if dealer is None:
            dealer = draw_below(self._rng, family.n_players)
        self.first_dealer = BaseDeal._check_dealer(dealer, family)
        self.max_deals = max_deals
        self.scores = [0, 0]
        #: litige points held aside for the winner of the next deal (classic family, and
        #: belote for two players with ``litige``)
        self.pot = 0
        self.deals: List[BaseDeal] = []
        self.winner: Optional[int] = None
        self.deal = self.DEAL(self.rules, deck=deal_deck(self._rng), dealer=self.first_dealer)

    @property
    def target(self) -> int:
        return self.rules.target

    @property
    def is_terminal(self) -> bool:
        return self.winner is not None

    @property
    def current_player(self) -> Optional[int]:
        return None if self.is_terminal else self.deal.current_player

    def legal_actions(self) -> List[int]:
        return [] if self.is_terminal else self.deal.legal_actions()

    def legal_action_mask(self) -> np.ndarray:
        if self.is_terminal:
            return np.zeros(A.N_ACTIONS, dtype=bool)
        return self.deal.legal_action_mask()

    def apply(self, action: ActionLike) -> None:
        """Apply an action to the current deal; a finished deal is scored and the next
        one dealt. :raises IllegalActionError: as :meth:`Deal.apply`."""
        if self.is_terminal:
            raise IllegalActionError(f"illegal action {action!r}: the match is over "
                                     f"(winner: {self.SIDE} {self.winner})")
        self.deal.apply(action)
        if self.deal.is_terminal:
            self._finish_deal()

    def _finish_deal(self) -> None:
        d = self.deal
        self.deals.append(d)
        self.scores, self.pot, self.winner = self._score_into(self.scores, self.pot, d)
        if self.winner is not None:
            return
        if len(self.deals) >= self.max_deals:
            raise RuntimeError(f"match not decided after {self.max_deals} deals")
        # the next seat in turn deals (engine.game_next_dealer)
        dealer = int(E.game_next_dealer(d._S, d._P, np.int64(-2)))
        self.deal = self.DEAL(self.rules, deck=self._next_deck(d), dealer=dealer)

    @staticmethod
    def _score_into(scores: Sequence[int], pot: int, deal):
        """``(scores, pot, winner)`` after the finished ``deal``: :func:`score_into_match`."""
        return score_into_match(scores, pot, deal)

    def _next_deck(self, previous: "Deal") -> List[int]:
        """The next deal's dealing order: a fresh shuffle, or the cards gathered and cut
        (``shuffle_between_deals=False``; a reshuffle after ``reshuffle_after_voids``
        void deals)."""
        n_void = 0
        for prev in reversed(self.deals):
            if not prev.is_void:
                break
            n_void += 1
        reshuffle = self.rules.reshuffle_after_voids
        if self.rules.shuffle_between_deals or (reshuffle and n_void and n_void % reshuffle == 0):
            return deal_deck(self._rng)
        return gather_and_cut(previous, self._rng, self.rules.min_cut)

    def clone(self) -> "Match":
        m = type(self).__new__(type(self))
        m.rules, m.first_dealer, m.max_deals = self.rules, self.first_dealer, self.max_deals
        m._rng = self._rng.copy()
        m.scores = list(self.scores)
        m.pot = self.pot
        m.deals = list(self.deals)
        m.winner = self.winner
        m.deal = self.deal.clone()
        return m


def score_into_match(scores: Sequence[int], pot: int, deal: BaseDeal):
    """Add a finished deal of any family to the match: returns ``(scores, pot, winner)``
    (the one copy of the match's bookkeeping: :class:`Match`, the replay of match
    records, the arena; the vector env's kernel is ``envs.kernels.match_score_deal``).

    A litige (classic family, belote for two players with ``litige``) puts the takers'
    points in the pot; the next deal that is not a litige nor void gives the pot to its
    winner (the takers if made, else the other side). Then RULES.md §9
    (:func:`coinche_rl.engine.match_winner`, with the deal's :meth:`~BaseDeal._match_terms`)
    decides.
    """
    s = deal.scores
    scores = [scores[0] + s[0], scores[1] + s[1]]
    if deal.is_void:
        return scores, pot, None
    res = deal.result
    side, tricks0, tricks1, belote_cannot_win = deal._match_terms()
    if res.litige:
        pot += res.litige_points
    elif pot:
        scores[side if res.made else 1 - side] += pot
        pot = 0
    made = 2 if res.litige else int(res.made)
    w = int(E.match_winner(np.array(scores, dtype=np.int64), deal.rules.target, side, made,
                           tricks0, tricks1, belote_cannot_win))
    return scores, pot, (w if w >= 0 else None)


def gather_and_cut(previous: Deal, rng: np.ndarray, min_cut: int = 3) -> List[int]:
    """No shuffle between deals: the previous deal's cards gathered (tricks in the order
    played; a void deal's cards seat by seat as dealt) and cut (each part at least
    ``min_cut`` cards). Returns the dealing order of the next deal."""
    if previous.is_void or not previous.plays:
        if previous.deck is not None:
            pack = list(previous.deck)
        else:
            pack = [c for s in range(N_SEATS) for c in cards_of(previous.initial_hands[s])]
    else:
        pack = [c for _, c in previous.plays]
    cut = min_cut + draw_below(rng, N_CARDS + 1 - 2 * min_cut)
    return pack[cut:] + pack[:cut]
