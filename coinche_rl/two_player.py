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

import functools
from dataclasses import dataclass
from typing import List, Optional, Sequence, Tuple, Union

import numpy as np

from . import actions as A
from . import engine as E
from .cards import SUIT_NAMES, format_card, format_hand, popcount
from .engine import two as E2
from .engine.two import py as _py2    # the state's accessors, plain Python
from .engine.two_layout import other
from .game import (BaseDeal, IllegalActionError, IllegalBidError, IllegalPlayError, Match,
                   deal_deck, side_table)
from .rules import STRAIN_LONG_NAMES, InvalidRulesError, RuleSet, get_rules

__all__ = ["TwoPlayerDeal", "TwoPlayerMatch", "TwoPlayerResult", "TwoPlayerView", "two_player_rules",
           "match_winner_two",
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

    def table(self, sides: Optional[Sequence[str]] = None) -> str:
        """The result as a text table (:func:`~coinche_rl.game.side_table`), one column per
        player (``sides``: their names; default ``player 0``, ``player 1``)."""
        if self.void:
            return "void deal: both players passed twice, no score"
        sides = tuple(sides or (f"player {p}" for p in range(E2.N_PLAYERS)))
        outcome = "litige" if self.litige else ("made" if self.made else "failed")
        lines = [f"{sides[self.taker]} took {STRAIN_LONG_NAMES[self.trump]}: {outcome} (the "
                 f"taker needs 82 card points)" + (f"; capot by {sides[self.capot]} (all 16 "
                                                   f"tricks: 252)" if self.capot is not None else "")]
        lines += side_table([("card points", self.card_points), ("declaration", self.declarations),
                             ("belote", self.belote), ("deal score", self.scores)], sides)
        if any(self.declarations):
            w = self.declaration_winner
            lines.append("declarations equal: neither scores" if w is None
                         else f"the declaration scores for {sides[w]}")
        if self.litige:
            lines.append(f"litige: {self.litige_points} points held aside for the next deal's winner")
        return "\n".join(lines)


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
    public view vector itself; ``params``: the rule vector (``params_vector(rules)``).

    A snapshot, read-only; every value other than ``player``, ``rules``, ``legal``,
    ``state``, ``params`` and ``other_hand_size`` is read from ``state`` when first asked
    for (an agent that decides from ``state`` alone, as the numba bots do, pays for none
    of them).
    """

    def __init__(self, player: int, rules: RuleSet, state: np.ndarray, params: np.ndarray,
                 legal: np.ndarray, other_hand_size: int):
        d = self.__dict__
        d["player"], d["rules"], d["state"], d["params"] = player, rules, state, params
        d["legal"], d["other_hand_size"] = legal, other_hand_size

    def __setattr__(self, name, value):
        raise AttributeError(f"a TwoPlayerView is read-only: cannot set {name!r}")

    def __delattr__(self, name):
        raise AttributeError(f"a TwoPlayerView is read-only: cannot delete {name!r}")

    @functools.cached_property
    def _public(self) -> "TwoPlayerDeal":
        """The public view as a deal, to read the game's terms from (never shown)."""
        d = TwoPlayerDeal.__new__(TwoPlayerDeal)
        d.rules, d._P, d._S, d._history = self.rules, self.params, self.state, []
        return d

    def _read(name):
        """A value of the public view's deal, read once."""
        def get(self):
            return getattr(self._public, name)
        get.__name__ = name
        return functools.cached_property(get)

    #: the deal's phase (``prise``, ``exchange``, ``play``, ``done``)
    phase: str = _read("phase")
    current_player: Optional[int] = _read("current_player")
    dealer: int = _read("dealer")
    trump: Optional[int] = _read("trump")
    taker: Optional[int] = _read("taker")
    exchanged: Optional[bool] = _read("exchanged")
    del _read

    @functools.cached_property
    def hand(self) -> int:
        return int(_py2.hand_of(self.state, self.player))

    @functools.cached_property
    def known_other(self) -> int:
        return int(_py2.hand_of(self.state, other(self.player)))

    @functools.cached_property
    def table_up(self) -> Tuple[int, int]:
        return int(_py2.face_up_cards(self.state, 0)), int(_py2.face_up_cards(self.state, 1))

    @functools.cached_property
    def stacks(self) -> Tuple[Tuple[Tuple[int, bool], ...], Tuple[Tuple[int, bool], ...]]:
        return tuple(tuple((u, d != -1) for u, d in row) for row in _stack_rows(self.state))

    @functools.cached_property
    def face_down(self) -> Tuple[int, int]:
        return tuple(sum(1 for _, down in row if down) for row in self.stacks)

    @functools.cached_property
    def unseen(self) -> int:
        up = self.table_up
        return 0xFFFFFFFF & ~(self.hand | self.known_other | up[0] | up[1]
                              | int(_py2.played_cards(self.state)))

    @functools.cached_property
    def retourne(self) -> int:
        return int(_py2.retourne_of(self.state))

    @functools.cached_property
    def prise(self) -> Tuple[int, ...]:
        return tuple(self._public.prise)

    @functools.cached_property
    def plays(self) -> Tuple[Tuple[int, int], ...]:
        return tuple(self._public.plays)

    @functools.cached_property
    def trick_winners(self) -> Tuple[int, ...]:
        return tuple(self._public.trick_winners)

    @functools.cached_property
    def card_points_won(self) -> Tuple[int, int]:
        return (int(_py2.card_points_won(self.state, 0)),
                int(_py2.card_points_won(self.state, 1)))

    @functools.cached_property
    def declarations(self) -> Tuple[int, int]:
        return (int(_py2.declaration_points(self.state, 0)),
                int(_py2.declaration_points(self.state, 1)))

    @functools.cached_property
    def declaration_winner(self) -> Optional[int]:
        return _known(_py2.declaration_winner(self.state))

    def __repr__(self) -> str:
        return (f"<TwoPlayerView player={self.player} {self.rules.name} phase={self.phase} "
                f"hand={format_hand(self.hand) or '-'}>")

    @property
    def legal_actions(self) -> List[int]:
        return [int(a) for a in np.flatnonzero(self.legal)]

    @property
    def seat(self) -> int:
        """:attr:`player`, under the name of every family's views (``PlayerView.seat``)."""
        return self.player

    @property
    def public_state(self) -> np.ndarray:
        """:attr:`state`, under the name of every family's views."""
        return self.state

    @property
    def match(self) -> None:
        """None: the view carries no match state (``PlayerView.match``'s name)."""
        return None


#: the refusals of the prise worded as in every family (``BaseDeal._refusal_words``)
_PRISE_CODES = (E.REFUSE_PLAY_ACTION, E.REFUSE_TAKE_ROUND, E.REFUSE_NAME_ROUND,
                E.REFUSE_RETOURNE_SUIT)


def _known(v) -> Optional[int]:
    """The engine's value ``v`` as an int, None where it is -1 (not yet, or none)."""
    v = int(v)
    return None if v < 0 else v


def _stack_rows(T: np.ndarray) -> List[List[Tuple[int, int]]]:
    """Per player, per stack of the state (or public view) ``T``: ``(face-up card,
    face-down card)``, -1 where there is none, the face-down card ``HIDDEN_CARD`` in a
    public view; a revealed card shows as the stack's face-up card."""
    out = []
    for p in range(E2.N_PLAYERS):
        up, down = int(_py2.face_up_cards(T, p)), int(_py2.face_down_cards(T, p))
        row = []
        for k in range(E2.N_STACKS):
            u, d = int(_py2.stack_face_up(T, p, k)), int(_py2.stack_face_down(T, p, k))
            if u < 0:
                continue
            if d >= 0 and up >> d & 1:
                row.append((d, -1))
            else:
                row.append((u if up >> u & 1 else -1,
                            d if d == E2.HIDDEN_CARD or d >= 0 and down >> d & 1 else -1))
        out.append(row)
    return out


class TwoPlayerDeal(BaseDeal):
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

    __slots__ = ()
    _py = _py2
    _check_rules = staticmethod(two_player_rules)

    def __init__(self, rules: Union[str, RuleSet] = "belote_a_deux", *, deck=None,
                 dealer: Optional[int] = None, seed: Optional[int] = None):
        deck, dealer = self._start(rules, deck, dealer, seed)
        E2.two_reset(self._S, self._P, np.array(deck, dtype=np.int64), dealer)

    # ------------------------------------------------------------------ state
    @property
    def state(self) -> np.ndarray:
        """The engine's state vector (read-only view)."""
        v = self._S.view()
        v.flags.writeable = False
        return v

    def __eq__(self, other) -> bool:
        return isinstance(other, TwoPlayerDeal) and self.rules == other.rules \
            and bool((self._S == other._S).all())

    @property
    def deck(self) -> List[int]:
        """The 32 cards in dealing order."""
        return [int(c) for c in _py2.deck_cards(self._S)]

    @property
    def table_up(self) -> List[int]:
        """Each player's face-up table cards (masks): public, and all playable."""
        return [int(_py2.face_up_cards(self._S, p)) for p in range(E2.N_PLAYERS)]

    @property
    def table_down(self) -> List[int]:
        """Each player's face-down table cards (masks): unknown to both players."""
        return [int(_py2.face_down_cards(self._S, p)) for p in range(E2.N_PLAYERS)]

    @property
    def stacks(self) -> List[List[Tuple[int, int]]]:
        """Per player, per stack: ``(face-up card, face-down card)``, -1 where there is
        none (played, revealed, or the bergère's empty place). A revealed card shows as
        the stack's face-up card."""
        return _stack_rows(self._S)

    @property
    def retourne(self) -> int:
        """The turned-up card that proposes trump."""
        return int(_py2.retourne_of(self._S))

    @property
    def prise(self) -> List[int]:
        """The prise actions in order."""
        return [int(_py2.prise_action(self._S, k)) for k in range(_py2.prise_length(self._S))]

    @property
    def prise_round(self) -> int:
        return int(_py2.prise_round(self._S))

    @property
    def trump(self) -> Optional[int]:
        """The trump suit (None before the prise ends, or on a void deal)."""
        return _known(_py2.trump_of(self._S))

    @property
    def taker(self) -> Optional[int]:
        return _known(_py2.taker_of(self._S))

    @property
    def exchanged(self) -> Optional[bool]:
        """True / False once the exchange was offered and decided, None otherwise."""
        e = int(_py2.exchange_choice(self._S))
        return None if e < 0 else bool(e)

    @property
    def card_points_won(self) -> Tuple[int, int]:
        """Card points won so far (with the dix de der once the last trick is played)."""
        return int(_py2.card_points_won(self._S, 0)), int(_py2.card_points_won(self._S, 1))

    @property
    def declarations(self) -> Tuple[Tuple[int, int], Tuple[int, int]]:
        """Each player's ``(points, cards mask)`` of his best single declaration."""
        return tuple((int(_py2.declaration_points(self._S, p)), int(_py2.declaration_cards(self._S, p)))
                     for p in range(E2.N_PLAYERS))

    @property
    def declaration_winner(self) -> Optional[int]:
        return _known(_py2.declaration_winner(self._S))

    @property
    def belote_points(self) -> List[int]:
        """Belote points credited so far per player (20 once its owner played K and Q)."""
        return [int(_py2.belote_points(self._S, p)) for p in range(E2.N_PLAYERS)]

    # ---------------------------------------------------------------- views
    def view(self, player: int) -> TwoPlayerView:
        """What ``player`` knows now (:class:`TwoPlayerView`)."""
        legal = self.legal_action_mask() if self.current_player == player else np.zeros(A.N_ACTIONS, bool)
        return TwoPlayerView(player, self.rules, self.public_state(player), self._P, legal,
                             popcount(self.hands[other(player)]))

    # ---------------------------------------------------------------- actions
    def _match_terms(self) -> Tuple[int, int, int, int]:
        return self.taker, 1, 1, 0          # the taker's side is himself; no FFB clause

    def legal_cards(self) -> int:
        """Mask of the cards the player to act may play (0 outside the play)."""
        return int(E2.two_legal_cards(self._S))

    def _refused(self, a: int, code: int, text: str, legal: str) -> IllegalActionError:
        """The words for the engine's refusal ``code`` (``engine.game_refusal``)."""
        p = self.current_player
        if code in (E.REFUSE_NO_SEVEN, E.REFUSE_EXCHANGE_PENDING):
            return IllegalPlayError(f"illegal action {text!r} for player {p}: "
                                    f"{self._refusal_words(a, code)}; legal: {legal}")
        if a in (A.EXCHANGE, A.NO_EXCHANGE):
            return IllegalPlayError(
                f"illegal action {text!r} for player {p}: the exchange choice belongs to the "
                f"non-taker, right after a first-round take (belote_a_deux); legal: {legal}")
        if self.phase == "prise":
            reason = self._refusal_words(a, code) if code in _PRISE_CODES else \
                "belote for two players has a prise, no bids: take, name a suit, or pass"
            return IllegalBidError(f"illegal prise action {text!r} for player {p}: {reason}; legal: {legal}")
        if code != E.REFUSE_CARD:
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
        T = self._S
        made = int(_py2.deal_made(T))
        return TwoPlayerResult(
            void=False, taker=self.taker, trump=self.trump,
            card_points=(int(_py2.final_card_points(T, 0)), int(_py2.final_card_points(T, 1))),
            capot=_known(_py2.capot_player(T)),
            declarations=(int(_py2.declaration_points(T, 0)), int(_py2.declaration_points(T, 1))),
            declaration_winner=self.declaration_winner,
            belote=(int(_py2.belote_points(T, 0)), int(_py2.belote_points(T, 1))),
            made=made == E2.MADE_MADE, litige=made == E2.MADE_LITIGE,
            litige_points=int(_py2.litige_points(T)),
            scores=(int(_py2.deal_score(T, 0)), int(_py2.deal_score(T, 1))))

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
        return self._render_play(lines, "player")


class TwoPlayerMatch(Match):
    """A match of two-player deals to the rule set's target (RULES.md §12): the dealer
    alternates (void deals included), each deal from a fresh shuffle; the first player at
    or past the target wins; both past on the same deal: the higher total; equal: another
    deal. Litige points (option ``litige``) go to the next deal's winner. The play
    (``apply``, ``legal_actions``, ``clone``, ...) and the bookkeeping
    (:func:`~coinche_rl.game.score_into_match`) are :class:`~coinche_rl.game.Match`'s.

    :param rules: a two-family preset or rule set; ``target`` overrides its target.
    :param dealer: the first dealer (random from ``seed`` if omitted).
    :param seed: seeds every deal of the match.
    :param max_deals: a safety bound: raises RuntimeError past it.
    """

    SIDE = "player"
    DEAL = TwoPlayerDeal
    _check_rules = staticmethod(two_player_rules)

    def __init__(self, rules: Union[str, RuleSet] = "belote_a_deux", *, target: Optional[int] = None,
                 dealer: Optional[int] = None, seed: Optional[int] = None, max_deals: int = 1000):
        super().__init__(rules, target=target, dealer=dealer, seed=seed, max_deals=max_deals)

    def _next_deck(self, previous: TwoPlayerDeal) -> List[int]:
        return deal_deck(self._rng)


def match_winner_two(totals: Sequence[int], target: int) -> Optional[int]:
    """The match's winner from the players' totals (RULES.md §12), None to go on.

    >>> match_winner_two([1010, 700], 1000), match_winner_two([1010, 1020], 1000), match_winner_two([1010, 1010], 1000)
    (0, 1, None)
    """
    w = int(E.match_winner(np.array(totals, dtype=np.int64), target, -1, 0, 1, 1, 0))
    return None if w < 0 else w
