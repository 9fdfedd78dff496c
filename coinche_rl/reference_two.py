"""A slow, readable reference implementation of one deal of belote for two players.

This module is a test oracle for the ``two`` family (RULES.md §12, and the project's
conventions and decisions in ``docs/two_player.md``). Like :mod:`coinche_rl.reference`
it is written directly from the rule text and shares no table or logic with the numba
engine (``coinche_rl.engine``), with the precomputed tables of ``coinche_rl.rules``, nor
with :mod:`coinche_rl.reference`. Only conventions are imported: the card numbering
(``coinche_rl.cards``: ``card = suit * 8 + rank``, rank 0..7 = 7 8 9 T J Q K A, suit
0..3 = S H D C; sets of cards as int bit masks; the
:class:`~coinche_rl.cards.Declaration` record), the action ids (``coinche_rl.actions``)
and the :class:`~coinche_rl.rules.RuleSet` fields of the family (``family == "two"``,
``hand_cards``, ``declarations``, ``belote``, ``litige``, ``target``).

Everything favours obviousness over speed: card orders are strings, points are dicts,
declarations are found by looking at every rank and every run.

Decisions (docs/two_player.md states the rules; these are the reference's readings):

* Seats 0 and 1; ``n = 1 - dealer`` speaks first in both prise rounds and leads trick 1.
* The deal follows docs/two_player.md "The deal, from a deck" exactly. During the prise
  (and the exchange) of ``belote_a_deux`` the hands hold their first six cards and the
  table is empty; the rest of the deal (the retourne or the 7 to the taker, three more
  cards each, the stacks, the bergère) is laid out when the prise, or the exchange, ends.
  In ``belote_decouverte`` every card lies on the table from the start.
* ``stacks[p][i] == (up, down)``: ``up`` is the stack's face-up card (-1 once played),
  ``down`` the face-down card under it (-1 when there is none, the bergère's stack, or
  once it has been turned up). When the face-up card is played the stack reads
  ``(-1, down)`` until the trick is collected; then the face-down card is turned up
  and becomes the stack's face-up card: ``(down, -1)``. ``table_up`` / ``table_down``
  are the masks of those face-up / face-down cards still on the table.
* The exchange (phase ``"exchange"``) follows every round-1 take in ``belote_a_deux``:
  the non-taker chooses, ``exchange`` legal only when one of his six hand cards is the
  7 of trump (a retourne that is itself the 7 of trump offers nothing), ``no-exchange``
  always (so that his turn does not tell whether he holds it). The taker is never asked.
* Declarations (``rules.declarations``) are fixed when the play begins, from each
  player's hand and face-up table cards (the bergère included; face-down cards never),
  and resolved when the first trick is complete (:attr:`declaration_winner`). Only each
  player's best single declaration (:func:`best_declaration`) counts.
* Belote (``rules.belote``): the owner of the K and Q of trump (hand, face-up or
  face-down, after the deal is complete, exchange included) scores 20, added to
  :attr:`belote_points` when he plays the second of them.
* ``tricks`` holds the completed tricks plus the current one once its first card is
  played; a trick is collected (the winner appended to ``trick_winners``, face-down
  cards turned up) as soon as its second card is played.
* The result (``result``) once the deal is done; both shapes have the same keys:

  - played deal: ``{"void": False, "card_points": [p0, p1]`` (with dix de der; a capot
    is ``252`` for its winner and ``0`` for the other), ``"capot"`` (the player who won
    all 16 tricks, or None), ``"tricks_won": [t0, t1]``, ``"declarations": [d0, d1]``
    (each player's best single declaration's points, 0 if none, whoever wins),
    ``"declaration_winner"`` (player or None: nobody declared, or equal),
    ``"belote": [b0, b1]``, ``"made"`` (taker's card points >= 82), ``"litige"``
    (``rules.litige`` and taker's card points == 81), ``"litige_points"`` (what the
    taker holds aside in a litige, else 0), ``"scores": [s0, s1]}``;
  - void deal (both pass twice): ``{"void": True, "card_points": [0, 0], "capot": None,
    "tricks_won": [0, 0], "declarations": [0, 0], "declaration_winner": None,
    "belote": [0, 0], "made": False, "litige": False, "litige_points": 0,
    "scores": [0, 0]}``.

  Scores (:func:`score_two`), ``P`` the taker, ``O`` the other, ``D`` the winning
  declaration's points, ``B`` the belote: made, each scores his card points + ``D`` if
  his + ``B`` if his (a capot player's opponent keeps his own declaration and belote);
  failed, ``P`` scores his ``B``, ``O`` 162 (252 for his capot) + ``D`` (whoever held
  it) + his ``B``; litige, ``O`` scores his card points + ``D`` if his + his ``B``,
  ``P`` his ``B``, and ``litige_points`` = 81 + ``D`` if his. No rounding.
"""

from __future__ import annotations

from .actions import (CARD_BASE, EXCHANGE, NAME_BASE, NO_EXCHANGE, PASS, TAKE,
                      action_to_str)
from .cards import RANKS, SUITS, Declaration, card_suit, cards_of
from .rules import RuleSet

__all__ = ["card_points", "card_strength", "trick_winner", "legal_cards", "Declaration",
           "single_declarations", "declaration_key", "best_declaration",
           "compare_declarations", "belote_owner", "score_two", "match_winner_two",
           "ReferenceTwoPlayerDeal"]

# ----------------------------------------------------------------- cards and points (§2)
TRUMP_ORDER = "J9ATKQ87"      # strongest first, the trump suit
PLAIN_ORDER = "ATKQJ987"      # strongest first, the other suits
TRUMP_POINTS = {"J": 20, "9": 14, "A": 11, "T": 10, "K": 4, "Q": 3, "8": 0, "7": 0}
PLAIN_POINTS = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}
DIX_DE_DER = 10
CAPOT_POINTS = 252            # 152 in the cards + a dix de der of 100
FAIL_POINTS = 162             # what the other player scores on a failed contract
CONTRACT_POINTS = 82          # the taker's card points (with dix de der) to make it
BELOTE_POINTS = 20
N_TRICKS = 16


def _letter(card: int) -> str:
    return RANKS[card % 8]


def _text(card: int) -> str:
    return _letter(card) + SUITS[card_suit(card)]


def _mask(cards) -> int:
    m = 0
    for c in cards:
        m |= 1 << c
    return m


def card_points(card: int, trump: int) -> int:
    """Points of ``card`` when ``trump`` is the trump suit (§2).

    >>> card_points(4, 0), card_points(12, 0)    # JS, JH with spades trump
    (20, 2)
    """
    table = TRUMP_POINTS if card_suit(card) == trump else PLAIN_POINTS
    return table[_letter(card)]


def card_strength(card: int, trump: int) -> int:
    """Strength of a card within its suit, 0 (weakest) .. 7 (strongest): the trump order
    J 9 A 10 K Q 8 7 in the trump suit, A 10 K Q J 9 8 7 in the others (§2)."""
    order = TRUMP_ORDER if card_suit(card) == trump else PLAIN_ORDER
    return 7 - order.index(_letter(card))


def trick_winner(trick: list[tuple[int, int]], trump: int) -> int:
    """The player winning ``trick`` (``[(player, card), ...]`` in play order): the
    highest trump, or if none the highest card of the led suit (§6)."""
    led = card_suit(trick[0][1])

    def key(entry):
        card = entry[1]
        if card_suit(card) == trump:
            return (2, card_strength(card, trump))
        if card_suit(card) == led:
            return (1, card_strength(card, trump))
        return (0, 0)

    return max(trick, key=key)[0]


def legal_cards(playable: int, trick: list[tuple[int, int]], trump: int) -> set[int]:
    """The cards of ``playable`` (a mask: a player's hand and uncovered face-up table
    cards) that he may play on ``trick`` (the cards already in it), §12 / §6 with no
    partner: the leader plays anything; follow the led suit; trump led, a higher trump
    than the one in the trick if able, else any trump; void in a plain led suit, any
    trump if able (each beats the led card), else any card.

    >>> sorted(legal_cards(0b11 | 1 << 8, [(0, 2)], 0))   # 7S 8S 7H on 9S, spades trump
    [0, 1]
    """
    cards = set(cards_of(playable))
    if not trick:
        return cards
    led_card = trick[0][1]
    led = card_suit(led_card)
    follow = {c for c in cards if card_suit(c) == led}
    trumps = {c for c in cards if card_suit(c) == trump}
    if follow:
        if led != trump:
            return follow
        higher = {c for c in follow if card_strength(c, trump) > card_strength(led_card, trump)}
        return higher or follow
    return trumps or cards


# ----------------------------------------------------------------- declarations (§5)
CARRE_POINTS = {"J": 200, "9": 150, "A": 100, "T": 100, "K": 100, "Q": 100}  # 7, 8: none


def _run_points(length: int) -> int:
    return 20 if length == 3 else 50 if length == 4 else 100


def single_declarations(cards: int) -> list[Declaration]:
    """Every single declaration in the set ``cards``: the carrés (not of 7s or 8s) and
    the maximal runs of three or more cards of one suit (natural order 7 8 9 10 J Q K A;
    five or more is a cent, whatever the length)."""
    out = []
    for rank in range(8):
        if RANKS[rank] not in CARRE_POINTS:
            continue
        m = _mask(s * 8 + rank for s in range(4))
        if cards & m == m:
            out.append(Declaration("carre", CARRE_POINTS[RANKS[rank]], m, rank, -1, 4))
    for suit in range(4):
        rank = 0
        while rank < 8:
            if not cards >> (suit * 8 + rank) & 1:
                rank += 1
                continue
            start = rank
            while rank < 8 and cards >> (suit * 8 + rank) & 1:
                rank += 1
            length = rank - start
            if length >= 3:
                out.append(Declaration("run", _run_points(length),
                                       _mask(suit * 8 + r for r in range(start, rank)),
                                       rank - 1, suit, length))
    return out


def declaration_key(decl: Declaration, trump: int) -> tuple:
    """Comparable key (§5 ranking; equal keys are equal declarations): every carré
    above every run; carrés by points, then by rank in the plain order (A 10 K Q J 9);
    runs by kind (cent, cinquante, tierce), then length, then top card, then being in
    the trump suit."""
    if decl.kind == "carre":
        return (1, decl.points, 7 - PLAIN_ORDER.index(RANKS[decl.rank]), 0, 0)
    return (0, decl.points, decl.length, decl.rank, 1 if decl.suit == trump else 0)


def best_declaration(cards: int, trump: int) -> Declaration | None:
    """The player's best single declaration among ``cards`` (None if he has none).

    >>> best_declaration(0b111 << 8 | 0b1111 << 16, 0).points   # 789H, 789TD
    50
    """
    decls = single_declarations(cards)
    if not decls:
        return None
    return max(decls, key=lambda d: declaration_key(d, trump))


def compare_declarations(best: list[Declaration | None], trump: int) -> int | None:
    """The player whose best declaration is the better one; None when neither has one
    or both are equal."""
    if best[0] is None and best[1] is None:
        return None
    if best[1] is None:
        return 0
    if best[0] is None:
        return 1
    k0, k1 = declaration_key(best[0], trump), declaration_key(best[1], trump)
    if k0 == k1:
        return None
    return 0 if k0 > k1 else 1


def belote_owner(owned: list[int], trump: int) -> int | None:
    """The player whose cards (``owned[p]``: every card he owns, wherever it lies)
    include both the K and the Q of trump, or None."""
    kq = _mask([trump * 8 + RANKS.index("K"), trump * 8 + RANKS.index("Q")])
    for p in (0, 1):
        if owned[p] & kq == kq:
            return p
    return None


# ----------------------------------------------------------------- scoring
def score_two(rules: RuleSet, taker: int, card_pts: list[int], capot: int | None,
              decl_points: list[int], decl_winner: int | None,
              belote: list[int]) -> dict:
    """The deal's score (docs/two_player.md "Scoring"): the ``made`` / ``litige`` /
    ``litige_points`` / ``scores`` fields of the result (see the module docstring)."""
    P, O = taker, 1 - taker
    D = decl_points[decl_winner] if decl_winner is not None else 0
    dec = [D if decl_winner == p else 0 for p in (0, 1)]
    scores = [0, 0]
    made = card_pts[P] >= CONTRACT_POINTS
    litige = False
    litige_points = 0
    if made:
        for p in (0, 1):
            scores[p] = card_pts[p] + dec[p] + belote[p]
    elif rules.litige and card_pts[P] == 81:
        litige = True
        scores[O] = card_pts[O] + dec[O] + belote[O]
        scores[P] = belote[P]
        litige_points = card_pts[P] + dec[P]
    else:
        scores[P] = belote[P]
        scores[O] = (CAPOT_POINTS if capot == O else FAIL_POINTS) + D + belote[O]
    return {"made": made, "litige": litige, "litige_points": litige_points,
            "scores": scores}


def match_winner_two(totals: list[int], target: int) -> int | None:
    """The winner of the match after a deal (§12): the only player at or past the
    target; both at or past it, the higher total; equal, or nobody there yet: None
    (another deal).

    >>> match_winner_two([1000, 990], 1000), match_winner_two([1010, 1010], 1000)
    (0, None)
    """
    reached = [p for p in (0, 1) if totals[p] >= target]
    if len(reached) == 1:
        return reached[0]
    if len(reached) == 2 and totals[0] != totals[1]:
        return 0 if totals[0] > totals[1] else 1
    return None


# ----------------------------------------------------------------- one deal
class ReferenceTwoPlayerDeal:
    """One deal of belote for two players, from the prise to the score.

    ``deck``: the 32 cards in dealing order (docs/two_player.md); ``dealer``: 0 or 1.
    Drive it with :meth:`legal_actions` and :meth:`apply`; read the attributes (see the
    module docstring for each decision).
    """

    def __init__(self, rules: RuleSet, deck: list[int], dealer: int):
        if rules.family != "two":
            raise ValueError(f"rules {rules.name!r} are not belote for two players")
        deck = [int(c) for c in deck]
        if sorted(deck) != list(range(32)):
            raise ValueError("a deck must hold each of the 32 cards once")
        if dealer not in (0, 1):
            raise ValueError(f"dealer must be 0 or 1, not {dealer!r}")
        self.rules = rules
        self.deck = deck
        self.dealer = dealer
        self.first = 1 - dealer            # the non-dealer: speaks first, leads trick 1
        self.phase = "prise"
        self.prise_round = 1
        self.current_player: int | None = self.first
        self.trump: int | None = None
        self.taker: int | None = None
        self.exchanged = False
        self.void = False
        self.hands = [0, 0]
        self.stacks: list[list[tuple[int, int]]] = [[], []]
        n, d = self.first, dealer
        if rules.hand_cards:
            self.hands[n] = _mask(deck[0:3] + deck[6:9])
            self.hands[d] = _mask(deck[3:6] + deck[9:12])
            self.retourne = deck[12]
        else:
            self.stacks[n] = [(deck[16 + i], deck[i]) for i in range(8)]
            self.stacks[d] = [(deck[24 + i], deck[8 + i]) for i in range(8)]
            self.retourne = deck[31]
        self.history: list[int] = []
        self.tricks: list[list[tuple[int, int]]] = []
        self.trick_winners: list[int] = []
        self._to_turn_up: list[tuple[int, int]] = []   # (player, stack) to reveal at collection
        self.owned = [0, 0]                 # every card each player owns, once dealt
        self.best_declarations: list[Declaration | None] = [None, None]
        self.declarations_resolved = False
        self.declaration_winner: int | None = None
        self.belote_holder: int | None = None
        self.belote_points = [0, 0]
        self.result: dict | None = None

    # ------------------------------------------------------------ views
    @property
    def table_up(self) -> list[int]:
        return [_mask(up for up, _ in self.stacks[p] if up >= 0) for p in (0, 1)]

    @property
    def table_down(self) -> list[int]:
        return [_mask(down for _, down in self.stacks[p] if down >= 0) for p in (0, 1)]

    def playable(self, player: int) -> int:
        """The cards ``player`` could play: his hand and his uncovered face-up cards."""
        return self.hands[player] | self.table_up[player]

    def _current_trick(self) -> list[tuple[int, int]]:
        if self.tricks and len(self.tricks[-1]) < 2:
            return self.tricks[-1]
        return []

    # ------------------------------------------------------------ legal actions
    def legal_actions(self) -> list[int]:
        """Sorted legal action ids of the player to act ([] when the deal is done)."""
        if self.phase == "prise":
            if self.prise_round == 1:
                return sorted([PASS, TAKE])
            refused = card_suit(self.retourne)
            return sorted([PASS] + [NAME_BASE + s for s in range(4) if s != refused])
        if self.phase == "exchange":
            seven = self.trump * 8 + RANKS.index("7")
            holds = self.hands[self.current_player] >> seven & 1
            return sorted([EXCHANGE, NO_EXCHANGE] if holds else [NO_EXCHANGE])
        if self.phase == "play":
            p = self.current_player
            cards = legal_cards(self.playable(p), self._current_trick(), self.trump)
            return sorted(CARD_BASE + c for c in cards)
        return []

    # ------------------------------------------------------------ apply
    def apply(self, action: int) -> None:
        """Play ``action`` for the player to act. An illegal action raises ValueError
        naming it, and leaves the state unchanged."""
        action = int(action)
        legal = self.legal_actions()
        if action not in legal:
            try:
                name = action_to_str(action)
            except ValueError:
                name = "?"
            raise ValueError(
                f"illegal action {name!r} (id {action}) in phase {self.phase!r} for player "
                f"{self.current_player}: legal are {[action_to_str(a) for a in legal]}")
        self.history.append(action)
        if self.phase == "prise":
            self._apply_prise(action)
        elif self.phase == "exchange":
            self.exchanged = action == EXCHANGE
            self._complete_deal()
        else:
            self._apply_card(action - CARD_BASE)

    def _apply_prise(self, action: int) -> None:
        p = self.current_player
        if action == PASS:
            if p == self.first:
                self.current_player = self.dealer
                return
            if self.prise_round == 1:
                self.prise_round = 2
                self.current_player = self.first
                return
            self.void = True
            self.phase, self.current_player = "done", None
            self.result = {"void": True, "card_points": [0, 0], "capot": None,
                           "tricks_won": [0, 0], "declarations": [0, 0],
                           "declaration_winner": None, "belote": [0, 0], "made": False,
                           "litige": False, "litige_points": 0, "scores": [0, 0]}
            return
        self.taker = p
        self.trump = card_suit(self.retourne) if action == TAKE else action - NAME_BASE
        if self.rules.hand_cards and action == TAKE:
            self.phase, self.current_player = "exchange", 1 - p
            return
        self._complete_deal()

    def _complete_deal(self) -> None:
        """Lay out the rest of the deal (belote_a_deux) and start the play."""
        P, O, n, d, deck = self.taker, 1 - self.taker, self.first, self.dealer, self.deck
        if self.rules.hand_cards:
            seven = self.trump * 8 + RANKS.index("7")
            if self.exchanged:
                self.hands[O] = (self.hands[O] & ~(1 << seven)) | (1 << self.retourne)
                self.hands[P] |= 1 << seven
            else:
                self.hands[P] |= 1 << self.retourne
            self.hands[n] |= _mask(deck[13:16])
            self.hands[d] |= _mask(deck[16:19])
            self.stacks[n] = [(deck[25 + i], deck[19 + i]) for i in range(3)]
            self.stacks[d] = [(deck[28 + i], deck[22 + i]) for i in range(3)]
            self.stacks[O].append((deck[31], -1))          # the bergère
        for p in (0, 1):
            self.owned[p] = self.hands[p] | self.table_up[p] | self.table_down[p]
        assert self.owned[0] | self.owned[1] == 0xFFFFFFFF
        assert bin(self.owned[0]).count("1") == bin(self.owned[1]).count("1") == 16
        if self.rules.declarations:
            for p in (0, 1):
                self.best_declarations[p] = best_declaration(self.playable(p), self.trump)
        if self.rules.belote:
            self.belote_holder = belote_owner(self.owned, self.trump)
        self.phase, self.current_player = "play", self.first

    def _apply_card(self, card: int) -> None:
        p = self.current_player
        if self.hands[p] >> card & 1:
            self.hands[p] &= ~(1 << card)
        else:
            i = next(i for i, (up, _) in enumerate(self.stacks[p]) if up == card)
            down = self.stacks[p][i][1]
            self.stacks[p][i] = (-1, down)
            if down >= 0:
                self._to_turn_up.append((p, i))
        if not self._current_trick():
            self.tricks.append([])
        self.tricks[-1].append((p, card))
        if self.belote_holder == p and card_suit(card) == self.trump \
                and _letter(card) in "KQ":
            played = _mask(c for t in self.tricks for q, c in t if q == p)
            kq = _mask([self.trump * 8 + RANKS.index("K"), self.trump * 8 + RANKS.index("Q")])
            if played & kq == kq:
                self.belote_points[p] += BELOTE_POINTS
        if len(self.tricks[-1]) < 2:
            self.current_player = 1 - p
            return
        # the trick is complete: collect it
        winner = trick_winner(self.tricks[-1], self.trump)
        self.trick_winners.append(winner)
        for q, i in self._to_turn_up:
            self.stacks[q][i] = (self.stacks[q][i][1], -1)
        self._to_turn_up = []
        if len(self.trick_winners) == 1:
            self._resolve_declarations()
        self.current_player = winner
        if len(self.trick_winners) == N_TRICKS:
            self.phase, self.current_player = "done", None
            self.result = self._score()

    def _resolve_declarations(self) -> None:
        self.declarations_resolved = True
        if self.rules.declarations:
            self.declaration_winner = compare_declarations(self.best_declarations, self.trump)

    @property
    def declaration_points(self) -> list[int]:
        """Each player's best single declaration's points (0 if none)."""
        return [d.points if d is not None else 0 for d in self.best_declarations]

    # ------------------------------------------------------------ scoring
    def _score(self) -> dict:
        won = [0, 0]
        pts = [0, 0]
        for trick, w in zip(self.tricks, self.trick_winners):
            won[w] += 1
            pts[w] += sum(card_points(c, self.trump) for _, c in trick)
        capot = None
        if won[0] == N_TRICKS or won[1] == N_TRICKS:
            capot = 0 if won[0] == N_TRICKS else 1
            pts = [0, 0]
            pts[capot] = CAPOT_POINTS
        else:
            pts[self.trick_winners[-1]] += DIX_DE_DER
        decl = self.declaration_points
        res = {"void": False, "card_points": pts, "capot": capot, "tricks_won": won,
               "declarations": decl, "declaration_winner": self.declaration_winner,
               "belote": list(self.belote_points)}
        res.update(score_two(self.rules, self.taker, pts, capot, decl,
                             self.declaration_winner, self.belote_points))
        return res
