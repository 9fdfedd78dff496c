"""Belote for two players: one deal (:class:`TwoPlayerDeal`) and a match
(:class:`TwoPlayerMatch`), RULES.md §12 with the decisions of ``docs/two_player.md``.

A thin Python object over the engine's fixed-size state (``coinche_rl.engine.two``), as
:class:`coinche_rl.game.Deal` is for four players: legality, play and scoring run in
the numba kernels; this module validates input, raises clear errors and speaks the
game's terms (hand, face-up and face-down table cards, stacks, retourne, bergère).

>>> deal = TwoPlayerDeal("belote_a_deux", seed=7, dealer=1)
>>> deal.phase, deal.current_player, format_card(deal.retourne)
('prise', 0, 'TS')
>>> deal.apply("take")                       # spades are trump
>>> deal.legal_actions() == [A.NO_EXCHANGE]  # player 1 has no 7 of spades to exchange
True
>>> deal.apply("no-exchange")                # the rest is dealt
>>> deal.phase, [popcount(h) for h in deal.hands], [popcount(u) for u in deal.table_up]
('play', [10, 9], [3, 4])
>>> while not deal.is_terminal:
...     deal.apply(deal.legal_actions()[0])
>>> deal.result.made, sum(deal.result.card_points)
(True, 162)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple, Union

import numpy as np

from . import actions as A
from .cards import SUIT_NAMES, format_card, format_hand, popcount
from .engine import two as E2
from .engine.two import py as _S    # the state's accessors, plain Python
from .engine.two_layout import other
from .game import (IllegalActionError, IllegalBidError, IllegalPlayError, Match, deal_deck,
                   deal_stream, deck_from, draw_below)
from .rules import STRAIN_LONG_NAMES, InvalidRulesError, RuleSet, get_rules, params_vector

__all__ = ["TwoPlayerDeal", "TwoPlayerMatch", "TwoPlayerResult", "TwoPlayerView", "two_player_rules",
           "score_into_two_match", "match_winner_two",
           "IllegalActionError", "IllegalBidError", "IllegalPlayError"]

ActionLike = Union[int, str]
PHASE_NAMES = {E2.PRISE: "prise", E2.PLAY: "play", E2.DONE: "done", E2.EXCHANGE_PHASE: "exchange"}


def two_player_rules(rules="belote_a_deux", **overrides) -> RuleSet:
    """:func:`~coinche_rl.rules.get_rules` for belote for two players: a four-player rule
    set is refused.

    >>> two_player_rules("ffb")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    coinche_rl.rules.InvalidRulesError: rules 'ffb' are a four-player game (family 'coinche'): ...
    """
    r = get_rules(rules, **overrides)
    if r.family != "two":
        raise InvalidRulesError(
            f"rules {r.name!r} are a four-player game (family {r.family!r}): belote for two "
            f"players needs belote_a_deux or belote_decouverte (family='two'); play "
            f"four-player rules with coinche_rl.game.Deal / Match")
    return r


@dataclass(frozen=True)
class TwoPlayerResult:
    """The scoring of a finished two-player deal (docs/two_player.md, Scoring).

    ``card_points``: with the dix de der, 252 for the capot; ``declarations``: each
    player's best single declaration; ``declaration_winner``: the player it scores for
    (None: none, or equal); ``belote``: points credited per player; ``made``: the taker
    reached 82; ``litige``: a tie at 81 under ``litige=True`` (``litige_points`` held
    aside for the next deal's winner); ``scores``: the deal's score per player.
    A void deal has ``void`` True, no taker and zero everywhere.
    """
    void: bool
    taker: Optional[int]
    trump: Optional[int]
    card_points: Tuple[int, int]
    capot: Optional[int]
    declarations: Tuple[int, int]
    declaration_winner: Optional[int]
    belote: Tuple[int, int]
    made: Optional[bool]
    litige: bool
    litige_points: int
    scores: Tuple[int, int]

    def table(self) -> str:
        """The result as a short text table."""
        if self.void:
            return "void deal: both players passed twice, no score"
        outcome = "litige" if self.litige else ("made" if self.made else "failed")
        lines = [f"player {self.taker} took {STRAIN_LONG_NAMES[self.trump]}: {outcome}"
                 + (f", capot by player {self.capot}" if self.capot is not None else "")]
        for p in range(E2.N_PLAYERS):
            lines.append(f"  player {p}: card points {self.card_points[p]:3d}  declaration "
                         f"{self.declarations[p]:3d}{' (scores)' if self.declaration_winner == p else ''}"
                         f"  belote {self.belote[p]:2d}  score {self.scores[p]:3d}")
        if self.litige:
            lines.append(f"  litige: {self.litige_points} points held aside for the next deal's winner")
        return "\n".join(lines)


@dataclass(frozen=True, eq=False)
class TwoPlayerView:
    """What one player knows of a deal (RULES.md §12 item 7): built from the engine's
    public view (:func:`coinche_rl.engine.two.two_public_view_into`), so it cannot hold
    a face-down card nor the other player's hand beyond what was shown.

    ``hand``: his own hand; ``known_other``: the cards of the other hand he knows (the
    retourne the taker took, the 7 of trump after an exchange, a winning declaration);
    ``other_hand_size``; ``table_up``: both players' face-up cards; ``stacks``: per
    player, per stack, ``(face-up card or -1, True when a face-down card lies under it)``;
    ``face_down``: how many face-down cards each player has; ``unseen``: the cards whose
    place he does not know (the other hand's unknown part and every face-down card);
    ``declarations``: the points each player has declared (0 before he declares);
    ``legal``: the legal-action mask when he is to act (else all False); ``state``: the
    public view vector itself.
    """
    player: int
    rules: RuleSet
    phase: str
    current_player: Optional[int]
    dealer: int
    hand: int
    known_other: int
    other_hand_size: int
    table_up: Tuple[int, int]
    stacks: Tuple[Tuple[Tuple[int, bool], ...], Tuple[Tuple[int, bool], ...]]
    face_down: Tuple[int, int]
    unseen: int
    retourne: int
    prise: Tuple[int, ...]
    trump: Optional[int]
    taker: Optional[int]
    exchanged: Optional[bool]
    plays: Tuple[Tuple[int, int], ...]
    trick_winners: Tuple[int, ...]
    card_points_won: Tuple[int, int]
    declarations: Tuple[int, int]
    declaration_winner: Optional[int]
    legal: np.ndarray
    state: np.ndarray

    @property
    def legal_actions(self) -> List[int]:
        return [int(a) for a in np.flatnonzero(self.legal)]


class TwoPlayerDeal:
    """One deal of belote for two players: prise, exchange, 16 tricks, scoring.

    :param rules: ``belote_a_deux`` (default), ``belote_decouverte``, or a two-family
        :class:`~coinche_rl.rules.RuleSet`.
    :param deck: the 32 cards in dealing order (ints or text), dealt as
        docs/two_player.md says; random from ``seed`` if omitted.
    :param dealer: 0 or 1; random from ``seed`` if omitted.
    :param seed: seeds the deck and the dealer (same seed, same deal).
    :raises InvalidRulesError: for four-player rules.
    :raises ValueError: for a malformed deck or a bad dealer.
    """

    __slots__ = ("rules", "_P", "_T", "_history")

    def __init__(self, rules: Union[str, RuleSet] = "belote_a_deux", *, deck=None,
                 dealer: Optional[int] = None, seed: Optional[int] = None):
        self.rules = two_player_rules(rules)
        self._P = params_vector(self.rules)
        rng = deal_stream(seed)
        deck = deck_from(deck) if deck is not None else deal_deck(rng)
        if dealer is None:
            dealer = draw_below(rng, E2.N_PLAYERS)
        if isinstance(dealer, bool) or not isinstance(dealer, (int, np.integer)) or dealer not in (0, 1):
            raise ValueError(f"dealer must be a player 0 or 1, not {dealer!r}")
        self._T = np.empty(E2.TWO_STATE_SIZE, dtype=np.int64)
        E2.two_reset(self._T, self._P, np.array(deck, dtype=np.int64), int(dealer))
        self._history: List[int] = []

    @classmethod
    def from_state(cls, rules: Union[str, RuleSet], state: np.ndarray,
                   history: Sequence[int] = ()) -> "TwoPlayerDeal":
        """Wrap a copy of an engine state vector (from a vector env or a search)."""
        d = cls.__new__(cls)
        d.rules = two_player_rules(rules)
        d._P = params_vector(d.rules)
        T = np.asarray(state, dtype=np.int64)
        if T.shape != (E2.TWO_STATE_SIZE,):
            raise ValueError(f"a two-player state has shape ({E2.TWO_STATE_SIZE},), not {T.shape}")
        d._T = T.copy()
        d._history = list(history)
        return d

    # ------------------------------------------------------------------ state
    @property
    def state(self) -> np.ndarray:
        """The engine's state vector (read-only view)."""
        v = self._T.view()
        v.flags.writeable = False
        return v

    def clone(self) -> "TwoPlayerDeal":
        d = TwoPlayerDeal.__new__(TwoPlayerDeal)
        d.rules, d._P, d._T, d._history = self.rules, self._P, self._T.copy(), list(self._history)
        return d

    def __eq__(self, other) -> bool:
        return isinstance(other, TwoPlayerDeal) and self.rules == other.rules \
            and bool((self._T == other._T).all())

    def __repr__(self) -> str:
        return f"<TwoPlayerDeal {self.rules.name} dealer={self.dealer} phase={self.phase}>"

    @property
    def dealer(self) -> int:
        return int(_S.dealer_of(self._T))

    @property
    def phase(self) -> str:
        """``prise``, ``exchange``, ``play`` or ``done``."""
        return PHASE_NAMES[int(_S.phase_of(self._T))]

    @property
    def is_terminal(self) -> bool:
        return _S.phase_of(self._T) == E2.DONE

    @property
    def is_void(self) -> bool:
        """True when both players passed twice."""
        return _S.deal_void(self._T) == 1

    @property
    def current_player(self) -> Optional[int]:
        """The player to act (None when the deal is over)."""
        p = int(_S.current_player(self._T))
        return None if p < 0 else p

    @property
    def history(self) -> List[int]:
        """The actions applied so far."""
        return list(self._history)

    @property
    def deck(self) -> List[int]:
        """The 32 cards in dealing order."""
        return [int(c) for c in _S.deck_cards(self._T)]

    @property
    def hands(self) -> List[int]:
        """Each player's hand (cards still held, masks)."""
        return [int(_S.hand_of(self._T, p)) for p in range(E2.N_PLAYERS)]

    @property
    def table_up(self) -> List[int]:
        """Each player's face-up table cards (masks): public, and all playable."""
        return [int(_S.face_up_cards(self._T, p)) for p in range(E2.N_PLAYERS)]

    @property
    def table_down(self) -> List[int]:
        """Each player's face-down table cards (masks): unknown to both players."""
        return [int(_S.face_down_cards(self._T, p)) for p in range(E2.N_PLAYERS)]

    @property
    def stacks(self) -> List[List[Tuple[int, int]]]:
        """Per player, per stack: ``(face-up card, face-down card)``, -1 where there is
        none (played, revealed, or the bergère's empty place). A revealed card shows as
        the stack's face-up card."""
        out = []
        T = self._T
        for p in range(E2.N_PLAYERS):
            up, down = int(_S.face_up_cards(T, p)), int(_S.face_down_cards(T, p))
            row = []
            for k in range(E2.N_STACKS):
                u = int(_S.stack_face_up(T, p, k))
                d = int(_S.stack_face_down(T, p, k))
                if u < 0:
                    continue
                if d >= 0 and up >> d & 1:
                    row.append((d, -1))
                else:
                    row.append((u if up >> u & 1 else -1, d if d >= 0 and down >> d & 1 else -1))
            out.append(row)
        return out

    @property
    def retourne(self) -> int:
        """The turned-up card that proposes trump."""
        return int(_S.retourne_of(self._T))

    @property
    def prise(self) -> List[int]:
        """The prise actions in order."""
        return [int(_S.prise_action(self._T, k)) for k in range(_S.prise_length(self._T))]

    @property
    def prise_round(self) -> int:
        return int(_S.prise_round(self._T))

    @property
    def trump(self) -> Optional[int]:
        """The trump suit (None before the prise ends, or on a void deal)."""
        t = int(_S.trump_of(self._T))
        return None if t < 0 else t

    @property
    def taker(self) -> Optional[int]:
        t = int(_S.taker_of(self._T))
        return None if t < 0 else t

    @property
    def exchanged(self) -> Optional[bool]:
        """True / False once the exchange was offered and decided, None otherwise."""
        e = int(_S.exchange_choice(self._T))
        return None if e < 0 else bool(e)

    @property
    def trick_number(self) -> int:
        return int(_S.trick_number(self._T))

    @property
    def plays(self) -> List[Tuple[int, int]]:
        """``(player, card)`` in the order played."""
        out = []
        T = self._T
        for t in range(E2.N_TRICKS_TWO):
            leader = int(_S.trick_leader(T, t))
            for i in range(E2.N_PLAYERS):
                c = int(_S.trick_card(T, t, i))
                if c < 0:
                    return out
                out.append((leader if i == 0 else other(leader), c))
        return out

    @property
    def tricks(self) -> List[List[Tuple[int, int]]]:
        """The completed tricks plus the current one once its first card is played."""
        p = self.plays
        return [p[i:i + E2.N_PLAYERS] for i in range(0, len(p), E2.N_PLAYERS)]

    @property
    def trick_winners(self) -> List[int]:
        winners = (int(_S.trick_winner(self._T, t)) for t in range(E2.N_TRICKS_TWO))
        return [w for w in winners if w >= 0]

    @property
    def current_trick(self) -> List[Tuple[int, int]]:
        if self.phase != "play" or _S.cards_in_trick(self._T) == 0:
            return []
        return self.tricks[-1]

    @property
    def card_points_won(self) -> Tuple[int, int]:
        """Card points won so far (with the dix de der once the last trick is played)."""
        return int(_S.card_points_won(self._T, 0)), int(_S.card_points_won(self._T, 1))

    @property
    def declarations(self) -> Tuple[Tuple[int, int], Tuple[int, int]]:
        """Each player's ``(points, cards mask)`` of his best single declaration."""
        return tuple((int(_S.declaration_points(self._T, p)), int(_S.declaration_cards(self._T, p)))
                     for p in range(E2.N_PLAYERS))

    @property
    def declaration_winner(self) -> Optional[int]:
        w = int(_S.declaration_winner(self._T))
        return None if w < 0 else w

    @property
    def belote_points(self) -> List[int]:
        """Belote points credited so far per player (20 once its owner played K and Q)."""
        return [int(_S.belote_points(self._T, p)) for p in range(E2.N_PLAYERS)]

    # ---------------------------------------------------------------- views
    def public_state(self, player: int) -> np.ndarray:
        """The state as ``player`` may know it (hidden parts masked; a fresh array)."""
        if player not in (0, 1):
            raise ValueError(f"player must be 0 or 1, not {player!r}")
        V = np.empty_like(self._T)
        E2.two_public_view_into(self._T, self._P, int(player), V)
        return V

    def view(self, player: int) -> TwoPlayerView:
        """What ``player`` knows now (:class:`TwoPlayerView`)."""
        V = self.public_state(player)
        o = other(player)
        stacks = []
        for p in range(E2.N_PLAYERS):
            row = []
            for k in range(E2.N_STACKS):
                u = int(_S.stack_face_up(V, p, k))
                d = int(_S.stack_face_down(V, p, k))
                if u < 0:
                    continue
                up = int(_S.face_up_cards(V, p))
                if d >= 0 and up >> d & 1:
                    row.append((d, False))
                else:
                    row.append((u if up >> u & 1 else -1, d == E2.HIDDEN_CARD))
            stacks.append(tuple(row))
        face_down = tuple(sum(1 for _, down in stacks[p] if down) for p in range(E2.N_PLAYERS))
        hand, known = int(_S.hand_of(V, player)), int(_S.hand_of(V, o))
        up = (int(_S.face_up_cards(V, 0)), int(_S.face_up_cards(V, 1)))
        played = int(_S.played_cards(V))
        unseen = 0xFFFFFFFF & ~(hand | known | up[0] | up[1] | played)
        legal = self.legal_action_mask() if self.current_player == player else np.zeros(A.N_ACTIONS, bool)
        w = int(_S.declaration_winner(V))
        ex = int(_S.exchange_choice(V))
        return TwoPlayerView(
            player=player, rules=self.rules, phase=self.phase, current_player=self.current_player,
            dealer=self.dealer, hand=hand, known_other=known,
            other_hand_size=popcount(self.hands[o]), table_up=up, stacks=tuple(stacks),
            face_down=face_down, unseen=unseen, retourne=int(_S.retourne_of(V)),
            prise=tuple(self.prise), trump=self.trump, taker=self.taker,
            exchanged=None if ex < 0 else bool(ex), plays=tuple(self.plays),
            trick_winners=tuple(self.trick_winners),
            card_points_won=(int(_S.card_points_won(V, 0)), int(_S.card_points_won(V, 1))),
            declarations=(int(_S.declaration_points(V, 0)), int(_S.declaration_points(V, 1))),
            declaration_winner=None if w < 0 else w, legal=legal, state=V)

    # ---------------------------------------------------------------- actions
    def legal_action_mask(self) -> np.ndarray:
        """Boolean mask over the whole action space (``coinche_rl.actions.N_ACTIONS``)."""
        out = np.zeros(A.N_ACTIONS, dtype=np.uint8)
        E2.two_legal_mask(self._T, self._P, out)
        return out.astype(bool)

    def legal_actions(self) -> List[int]:
        """Legal action ids, increasing."""
        return [int(a) for a in np.flatnonzero(self.legal_action_mask())]

    def legal_cards(self) -> int:
        """Mask of the cards the player to act may play (0 outside the play)."""
        return int(E2.two_legal_cards(self._T))

    def is_legal(self, action: ActionLike) -> bool:
        a = A.parse_action(action, self.rules) if isinstance(action, str) else int(action)
        return 0 <= a < A.N_ACTIONS and bool(E2.two_is_legal(self._T, self._P, a))

    def apply(self, action: ActionLike) -> None:
        """Apply an action (id or text: ``'take'``, ``'nameD'``, ``'pass'``,
        ``'exchange'``, ``'JS'``).

        :raises InvalidNotationError: for malformed text.
        :raises IllegalBidError: for a prise action that is not legal now.
        :raises IllegalPlayError: for a card or an exchange choice that is not legal now.
        """
        a = A.parse_action(action, self.rules) if isinstance(action, str) else action
        if isinstance(a, bool) or not isinstance(a, (int, np.integer)):
            raise TypeError(f"action must be an action id or its text, not {action!r}")
        a = int(a)
        if not (0 <= a < A.N_ACTIONS and E2.two_is_legal(self._T, self._P, a)):
            raise self._illegal(a)
        E2.two_apply(self._T, self._P, a)
        self._history.append(a)

    def _illegal(self, a: int) -> IllegalActionError:
        legal = ", ".join(A.action_to_str(x) for x in self.legal_actions()) or "none"
        text = A.action_to_str(a) if 0 <= a < A.N_ACTIONS else repr(a)
        if self.is_terminal:
            return IllegalActionError(f"illegal action {text!r}: the deal is over")
        p = self.current_player
        phase = self.phase
        if a in (A.EXCHANGE, A.NO_EXCHANGE) and phase != "exchange":
            return IllegalPlayError(
                f"illegal action {text!r} for player {p}: the exchange choice belongs to the "
                f"non-taker, right after a first-round take (belote_a_deux); legal: {legal}")
        if phase == "prise":
            if A.is_card(a):
                reason = "the prise is not over"
            elif a == A.TAKE:
                reason = "take is only possible in the first round (second round: name a suit or pass)"
            elif A.NAME_BASE <= a < A.NAME_BASE + 4:
                reason = "naming a trump is only possible in the second round (first round: take or pass)" \
                    if self.prise_round == 1 else \
                    f"{SUIT_NAMES[a - A.NAME_BASE]} was the retourne's suit, refused in the first round: name another"
            else:
                reason = "belote for two players has a prise, no bids: take, name a suit, or pass"
            return IllegalBidError(f"illegal prise action {text!r} for player {p}: {reason}; legal: {legal}")
        if phase == "exchange":
            why = "you do not hold the 7 of trump" if a == A.EXCHANGE else \
                "first choose to exchange the 7 of trump for the retourne or not"
            return IllegalPlayError(f"illegal action {text!r} for player {p}: {why}; legal: {legal}")
        if not A.is_card(a):
            return IllegalPlayError(f"illegal action {text!r} for player {p} in the play; legal: {legal}")
        return IllegalPlayError(f"illegal card {text!r} for player {p}: {self._card_reason(a - A.CARD_BASE)}; "
                                f"legal: {legal}")

    def _card_reason(self, c: int) -> str:
        p = self.current_player
        mine = self.hands[p] | self.table_up[p]
        if not mine >> c & 1:
            # never says where the card is: a face-down card is unknown to its owner too
            return (f"it is neither in your hand ({format_hand(self.hands[p]) or 'empty'}) nor "
                    f"face up on your side of the table ({format_hand(self.table_up[p]) or 'none'}); "
                    f"face-down cards become playable once the card covering them has been "
                    f"played and the trick collected")
        led = self.current_trick[0][1] >> 3
        trump = self.trump
        if (c >> 3) != led and mine & (0xFF << 8 * led):
            return f"must follow {SUIT_NAMES[led]}"
        if led == trump:
            return "trump led: must play a higher trump"
        return f"void in {SUIT_NAMES[led]}: must trump ({SUIT_NAMES[trump]})"

    # ---------------------------------------------------------------- result
    @property
    def result(self) -> Optional[TwoPlayerResult]:
        """The scoring once the deal is over (None before)."""
        if not self.is_terminal:
            return None
        if self.is_void:
            return TwoPlayerResult(True, None, None, (0, 0), None, (0, 0), None, (0, 0), None,
                                   False, 0, (0, 0))
        T = self._T
        made = int(_S.deal_made(T))
        capot = int(_S.capot_player(T))
        return TwoPlayerResult(
            void=False, taker=self.taker, trump=self.trump,
            card_points=(int(_S.final_card_points(T, 0)), int(_S.final_card_points(T, 1))),
            capot=None if capot < 0 else capot,
            declarations=(int(_S.declaration_points(T, 0)), int(_S.declaration_points(T, 1))),
            declaration_winner=self.declaration_winner,
            belote=(int(_S.belote_points(T, 0)), int(_S.belote_points(T, 1))),
            made=made == E2.MADE_MADE, litige=made == E2.MADE_LITIGE,
            litige_points=int(_S.litige_points(T)),
            scores=(int(_S.deal_score(T, 0)), int(_S.deal_score(T, 1))))

    @property
    def scores(self) -> Tuple[int, int]:
        """The deal's score per player (0, 0 until it is over)."""
        return int(_S.deal_score(self._T, 0)), int(_S.deal_score(self._T, 1))

    def render(self, viewer: Optional[int] = None) -> str:
        """The table as text. With ``viewer`` (0 or 1), only what that player sees: his
        hand, both players' face-up cards, ``[?]`` for every face-down card and the
        other player's hand as a count."""
        lines = [f"rules {self.rules.name}, dealer player {self.dealer}, phase {self.phase}"]
        ret = format_card(self.retourne)
        if self.trump is not None:
            lines.append(f"  trump: {SUIT_NAMES[self.trump]} (player {self.taker} took; retourne {ret}"
                         + (", exchanged for the 7" if self.exchanged else "") + ")")
        elif not self.is_void:
            lines.append(f"  retourne: {ret}, prise round {self.prise_round}")
        for p in range(E2.N_PLAYERS):
            hand = self.hands[p]
            if viewer is None or viewer == p:
                h = format_hand(hand) or "-"
            else:
                h = f"{popcount(hand)} cards"
            stacks = " ".join(
                "[" + (format_card(u) if u >= 0 else "  ") + ("/" + ("??" if viewer is not None else format_card(d))
                                                            if d >= 0 else "") + "]"
                for u, d in self.stacks[p])
            lines.append(f"  player {p}: hand {h}; table {stacks or '-'}")
        for i, trick in enumerate(self.tricks):
            w = self.trick_winners[i] if i < len(self.trick_winners) else None
            lines.append(f"  trick {i + 1}: " + " ".join(f"{p}:{format_card(c)}" for p, c in trick)
                         + (f"  -> player {w}" if w is not None else ""))
        if self.is_terminal:
            lines.append(self.result.table())
        return "\n".join(lines)


class TwoPlayerMatch(Match):
    """A match of two-player deals to the rule set's target (RULES.md §12): the dealer
    alternates (void deals included), each deal from a fresh shuffle; the first player at
    or past the target wins; both past on the same deal: the higher total; equal: another
    deal. Litige points (option ``litige``) go to the next deal's winner. The play
    (``apply``, ``legal_actions``, ``clone``, ...) is :class:`~coinche_rl.game.Match`'s.

    :param rules: a two-family preset or rule set; ``target`` overrides its target.
    :param dealer: the first dealer (random from ``seed`` if omitted).
    :param seed: seeds every deal of the match.
    :param max_deals: a safety bound: raises RuntimeError past it.
    """

    SIDE = "player"

    def __init__(self, rules: Union[str, RuleSet] = "belote_a_deux", *, target: Optional[int] = None,
                 dealer: Optional[int] = None, seed: Optional[int] = None, max_deals: int = 1000):
        self.rules = two_player_rules(rules) if target is None else two_player_rules(rules, target=target)
        self._rng = deal_stream(seed)
        if dealer is None:
            dealer = draw_below(self._rng, E2.N_PLAYERS)
        if isinstance(dealer, bool) or dealer not in (0, 1):
            raise ValueError(f"dealer must be a player 0 or 1, not {dealer!r}")
        self.first_dealer = int(dealer)
        self.max_deals = max_deals
        self.scores = [0, 0]
        #: litige points held aside for the winner of the next deal
        self.pot = 0
        self.deals: List[TwoPlayerDeal] = []
        self.winner: Optional[int] = None
        self.deal = TwoPlayerDeal(self.rules, deck=deal_deck(self._rng), dealer=self.first_dealer)

    def _finish_deal(self) -> None:
        d = self.deal
        self.deals.append(d)
        self.scores, self.pot, self.winner = score_into_two_match(self.scores, self.pot, d)
        if self.winner is None:
            if len(self.deals) >= self.max_deals:
                raise RuntimeError(f"the match did not end within {self.max_deals} deals")
            self.deal = TwoPlayerDeal(self.rules, deck=deal_deck(self._rng), dealer=other(d.dealer))


def score_into_two_match(scores: Sequence[int], pot: int, deal: TwoPlayerDeal):
    """``(scores, pot, winner)`` of a match after the finished ``deal``: its scores
    added, a litige's points put in the pot, the pot given to the winner of the next
    deal that is neither void nor a litige (the taker if made, else the other player),
    and the match's winner (:func:`match_winner_two`, None to go on). The one copy of the
    match's bookkeeping (:class:`TwoPlayerMatch`, the replay of match records)."""
    res = deal.result
    scores = [int(x) for x in scores]
    if res.void:
        return scores, pot, None
    s = list(res.scores)
    if res.litige:
        pot += res.litige_points
    elif pot:
        s[deal.taker if res.made else other(deal.taker)] += pot
        pot = 0
    scores = [scores[p] + s[p] for p in range(E2.N_PLAYERS)]
    return scores, pot, match_winner_two(scores, deal.rules.target)


def match_winner_two(totals: Sequence[int], target: int) -> Optional[int]:
    """The match's winner from the players' totals (RULES.md §12), None to go on.

    >>> match_winner_two([1010, 700], 1000), match_winner_two([1010, 1020], 1000), match_winner_two([1010, 1010], 1000)
    (0, 1, None)
    """
    a, b = int(totals[0]), int(totals[1])
    if a < target and b < target:
        return None
    if a == b:
        return None
    return 0 if a > b else 1
