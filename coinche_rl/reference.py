"""A slow, readable reference implementation of one deal, coinche and classic families.

This module is a test oracle: it is written directly from ``RULES.md`` (sections 2 and
4-9, and section 11 for the classic family) and deliberately shares no table or logic
with the numba engine (``coinche_rl.engine``) nor with the precomputed tables of
``coinche_rl.rules``. Only the conventions are imported: the card numbering
(``coinche_rl.cards``, with the deck's ``N_SUITS`` and ``N_RANKS`` and the
:class:`~coinche_rl.cards.Declaration` record), the action ids
(``coinche_rl.actions``), the table's dimensions and seats (``N_SEATS``, ``N_TRICKS``,
``CARDS_PER_HAND``, ``team``, ``partner``, ``seat_after`` of ``coinche_rl.rules``) and the
:class:`~coinche_rl.rules.RuleSet` parameters.

Everything here favours obviousness over speed: card orders are strings, points are
dicts, declarations are found by brute force.

Decisions taken where RULES.md leaves room (see also the project brief):

* ``tricks`` holds the completed tricks plus the current trick once its first card is
  played (never an empty list).
* Automatic belote (``optional_belote`` False) is credited when its holder plays his
  first card; automatic declarations are made at the same moment. Declarations are
  resolved when the first card of the second trick is played (§5).
* At AT, ``overtrump_partner=False`` also lets a player follow suit without beating his
  partner's winning card (at AT every lead is a trump lead).

Classic family (§11), decisions of the project:

* Dealt from a deck (32 cards in dealing order), dealer ``d``: a packet of 3 to each
  seat from ``d+1`` around, then a packet of 2 each (``deck[0:20]``); ``deck[20]`` is
  the retourne. During the prise the hands (and ``initial_hands``) hold 5 cards.
* Prise round 1 from ``d+1``: TAKE (the retourne's suit is trump) or PASS. Four passes:
  round 2 from ``d+1``: NAME a suit other than the retourne's (plus NT and AT when the
  rule set has them) or PASS. Four passes again: void deal.
* After the prise the taker receives the retourne, then ``deck[21:32]`` is dealt from
  ``d+1`` around, one packet per seat: 2 cards to the taker, 3 to every other seat.
* Contract ``{"value": 0, "strain", "capot": False, "coinche": 0, "taker"}``; play,
  declarations and belote exactly as in the coinche family.
* Scoring replaces §8: see :func:`score_classic`. A team that won no trick loses its
  declarations (``team_declaration_points`` shows 0 for it) before anything is counted.
  Litige (docs/presets.md §8.4 item 5): the takers keep their belote; only their cards
  and declarations are held aside (``result["litige_points"]``, never rounded).
"""

from __future__ import annotations

from .actions import (BELOTE, COINCHE, DECLARE, NAME_BASE, NO_BELOTE, NO_DECLARE, PASS,
                      SURCOINCHE, TAKE, action_card, bid_action, bid_strain, bid_value,
                      capot_action, card_action, is_bid, is_capot)
from .cards import N_CARDS, N_RANKS, N_SUITS, RANKS, Declaration, card_suit, cards_of
from .rules import (AT, CARDS_PER_HAND, N_SEATS, N_TRICKS, NT, RuleSet, partner, seat_after,
                    team)

__all__ = ["card_points", "card_strength", "trick_winner", "legal_cards", "Declaration",
           "hand_declarations", "declaration_rank", "has_low_carre", "belote_pairs",
           "ReferenceDeal", "score_deal", "score_classic", "match_winner", "round_score",
           "deal_packets"]

# ----------------------------------------------------------------- §2 cards and points
# Rank letters follow coinche_rl.cards: rank index 0..7 is "789TJQKA"[index].
TRUMP_ORDER = "J9ATKQ87"      # strongest first: trump suit, and every suit at AT
PLAIN_ORDER = "ATKQJ987"      # strongest first: other suits, and every suit at NT

TRUMP_POINTS = {"J": 20, "9": 14, "A": 11, "T": 10, "K": 4, "Q": 3, "8": 0, "7": 0}
PLAIN_POINTS = {"A": 11, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}
NT_POINTS = {"A": 19, "T": 10, "K": 4, "Q": 3, "J": 2, "9": 0, "8": 0, "7": 0}
AT_POINTS = {
    "ffb": {"J": 13, "9": 9, "A": 6, "T": 5, "K": 3, "Q": 2, "8": 0, "7": 0},
    "vip": {"J": 14, "9": 9, "A": 6, "T": 5, "K": 3, "Q": 1, "8": 0, "7": 0},
    "scaled": TRUMP_POINTS,   # 258 in all; the deal is rescaled to 162 at scoring
}
DIX_DE_DER = 10
CAPOT_DIX_DE_DER = 100
CAPOT_VALUE = 250
BELOTE_POINTS = 20


def _letter(card: int) -> str:
    return RANKS[card % 8]


def _is_trump_suit(suit: int, strain: int) -> bool:
    """A suit whose cards beat every other suit: only the contract suit (not at NT/AT)."""
    return strain < N_SUITS and suit == strain


def card_points(card: int, strain: int, rules: RuleSet) -> int:
    """Points of ``card`` under ``strain`` (RULES.md §2; AT table from ``rules.at_points``)."""
    letter = _letter(card)
    if strain == NT:
        return NT_POINTS[letter]
    if strain == AT:
        return AT_POINTS[rules.at_points][letter]
    return TRUMP_POINTS[letter] if card_suit(card) == strain else PLAIN_POINTS[letter]


def card_strength(card: int, strain: int) -> int:
    """Strength of a card within its own suit, 0 (weakest) .. 7 (strongest), §2.

    The trump order J 9 A 10 K Q 8 7 applies to the trump suit and to every suit at AT;
    the plain order A 10 K Q J 9 8 7 elsewhere (and at NT)."""
    order = TRUMP_ORDER if (strain == AT or card_suit(card) == strain) else PLAIN_ORDER
    return 7 - order.index(_letter(card))


def trick_winner(trick: list[tuple[int, int]], strain: int) -> int:
    """The seat currently winning ``trick`` (``[(seat, card), ...]`` in play order), §6:
    the highest trump played, or if none the highest card of the led suit. At AT and NT
    there is no trump suit: only the led suit can win (AT uses the trump order)."""
    led = card_suit(trick[0][1])

    def key(entry):
        card = entry[1]
        if _is_trump_suit(card_suit(card), strain):
            return (2, card_strength(card, strain))
        if card_suit(card) == led:
            return (1, card_strength(card, strain))
        return (0, 0)

    return max(trick, key=key)[0]


def legal_cards(hand: int, trick: list[tuple[int, int]], seat: int, strain: int,
                rules: RuleSet) -> set[int]:
    """The cards of ``hand`` that ``seat`` may play on ``trick`` (RULES.md §6).

    "Partner is master" means the partner played the card currently winning the trick.
    ``rules.must_undertrump``: void, an opponent has trumped and I cannot overtrump: I
    must play a (lower) trump, instead of FFB's "any card". ``rules.overtrump_partner``:
    trump led and partner master: I must still overtrump if I can (FFB default True).
    """
    cards = set(cards_of(hand))
    if not trick:
        return cards                                 # the lead: any card
    led = card_suit(trick[0][1])
    follow = {c for c in cards if card_suit(c) == led}
    winner = trick_winner(trick, strain)
    partner_master = winner == partner(seat)
    winning_card = dict(trick)[winner]

    if strain == NT:                                 # follow suit, else any card
        return follow or cards

    if strain == AT:                                 # follow and beat the winning card
        if not follow:
            return cards
        if partner_master and not rules.overtrump_partner:
            return follow
        higher = {c for c in follow if card_strength(c, AT) > card_strength(winning_card, AT)}
        return higher or follow

    trump = strain
    my_trumps = {c for c in cards if card_suit(c) == trump}
    trick_trumps = [c for _, c in trick if card_suit(c) == trump]
    best_trump = max((card_strength(c, trump) for c in trick_trumps), default=-1)
    over = {c for c in my_trumps if card_strength(c, trump) > best_trump}

    if follow:                                       # rule 1: follow the led suit
        if led != trump:
            return follow
        if partner_master and not rules.overtrump_partner:
            return follow
        return over or follow                        # trump led: overtrump if able
    # rule 2: void in the led suit
    if partner_master or not my_trumps:
        return cards
    if over:                                         # must trump, higher if able
        return over
    # an opponent has trumped (partner is not master) and I cannot overtrump
    return my_trumps if rules.must_undertrump else cards


# ----------------------------------------------------------------- §5 declarations
CARRE_POINTS = {   # 7s and 8s: no declaration
    "suit": {"J": 200, "9": 150, "A": 100, "T": 100, "K": 100, "Q": 100},   # suits and AT
    "NT": {"A": 200, "T": 150, "K": 100, "Q": 100, "J": 100, "9": 100},
}


def _carre_points(rank: int, strain: int) -> int:
    return CARRE_POINTS["NT" if strain == NT else "suit"].get(RANKS[rank], 0)


def _run_points(length: int) -> int:
    """Tierce 20, cinquante 50, cent (5 or more) 100."""
    return 0 if length < 3 else 20 if length == 3 else 50 if length == 4 else 100


def _rank_mask(rank: int) -> int:
    return sum(1 << (suit * 8 + rank) for suit in range(N_SUITS))


def _run_mask(suit: int, start: int, length: int) -> int:
    return sum(1 << (suit * 8 + r) for r in range(start, start + length))


def has_low_carre(hand: int) -> bool:
    """Whether the hand holds four 7s or four 8s (no declaration; see carre_low_cancels)."""
    return any(hand & _rank_mask(r) == _rank_mask(r) for r in (0, 1))


def _carres(hand: int, strain: int) -> list[Declaration]:
    return [Declaration("carre", _carre_points(r, strain), _rank_mask(r), r, -1, 4)
            for r in range(2, N_RANKS) if hand & _rank_mask(r) == _rank_mask(r)]


def declaration_rank(decl: Declaration, strain: int) -> tuple:
    """Comparable key of a declaration (§5): carrés above every sequence, by points then
    plain rank (A 10 K Q J 9); sequences by kind (points), then length, then top card,
    then being in the trump suit (there is none at NT and AT). Equal keys are a tie."""
    if decl.kind == "carre":
        return (1, _carre_points(decl.rank, strain), 7 - PLAIN_ORDER.index(RANKS[decl.rank]), 0, 0)
    in_trump = 1 if _is_trump_suit(decl.suit, strain) else 0
    return (0, _run_points(decl.length), decl.length, decl.rank, in_trump)


def hand_declarations(hand: int, strain: int, rules: RuleSet) -> tuple[int, list[Declaration]]:
    """The best combination of declarations of an 8-card hand, §5: ``(points, list)``
    with the list strongest first.

    FFB: a card counts in one declaration only; every carré (not of 7s/8s) and every
    sub-run of >= 3 cards of a suit is a candidate, and the non-overlapping set with the
    most points wins, ties broken by the strongest single declaration (then the next...).
    ``rules.declarations_share_cards``: every carré and every maximal run of >= 3 counts.
    """
    if not rules.declarations:
        return 0, []
    carres = _carres(hand, strain)
    if rules.declarations_share_cards:
        decls = list(carres)
        for suit in range(N_SUITS):
            r = 0
            while r < N_RANKS:
                start = r
                while r < N_RANKS and hand >> (suit * 8 + r) & 1:
                    r += 1
                length = r - start
                if length >= 3:
                    decls.append(Declaration("run", _run_points(length),
                                             _run_mask(suit, start, length), r - 1, suit, length))
                r = max(r, start + 1)
        decls.sort(key=lambda d: declaration_rank(d, strain), reverse=True)
        return sum(d.points for d in decls), decls

    candidates = list(carres)
    for suit in range(N_SUITS):
        for start in range(N_RANKS):
            for length in range(3, N_RANKS + 1 - start):
                m = _run_mask(suit, start, length)
                if hand & m == m:
                    candidates.append(Declaration("run", _run_points(length), m,
                                                  start + length - 1, suit, length))
    best_key, best = (0, []), []

    def search(i: int, used: int, chosen: list[Declaration]) -> None:
        nonlocal best_key, best
        if i == len(candidates):
            key = (sum(d.points for d in chosen),
                   sorted((declaration_rank(d, strain) for d in chosen), reverse=True))
            if key > best_key:
                best_key, best = key, list(chosen)
            return
        search(i + 1, used, chosen)
        d = candidates[i]
        if not used & d.mask:
            search(i + 1, used | d.mask, chosen + [d])

    search(0, 0, [])
    best.sort(key=lambda d: declaration_rank(d, strain), reverse=True)
    return best_key[0], best


def belote_pairs(hand: int, strain: int) -> int:
    """Number of belotes (K+Q of a trump suit) in the hand, §5: the contract suit;
    every suit at AT (up to 4); none at NT."""
    suits = [] if strain == NT else range(N_SUITS) if strain == AT else [strain]
    kq = lambda s: (1 << (s * 8 + RANKS.index("K"))) | (1 << (s * 8 + RANKS.index("Q")))
    return sum(1 for s in suits if hand & kq(s) == kq(s))


# ----------------------------------------------------------------- §8-9 scoring
def round_score(x: int) -> int:
    """Nearest ten, halves up (§8): 85 -> 90, 84 -> 80."""
    return (x + 5) // 10 * 10


def match_winner(totals: list[int], target: int, taker_team: int | None, made: bool,
                 tricks: list[int], belote_cannot_win: bool = True) -> int | None:
    """The team that wins the match after a deal, or None (play on), §9.

    ``totals``: match scores after the deal; ``tricks``: tricks won by each team on this
    deal. A team that failed its contract, or won no trick (capot), on this deal cannot
    reach the target on it (FFB special case); ``taker_team`` None (void deal): no
    exception. ``belote_cannot_win`` False (colver, classic): no such exception. Both
    reach: the higher wins, equal: None.
    """
    reached = []
    for t in (0, 1):
        excluded = belote_cannot_win and taker_team is not None and (
            (t == taker_team and not made) or tricks[t] == 0)
        reached.append(totals[t] >= target and not excluded)
    if reached[0] and reached[1]:
        if totals[0] == totals[1]:
            return None
        return 0 if totals[0] > totals[1] else 1
    if reached[0]:
        return 0
    if reached[1]:
        return 1
    return None


# ----------------------------------------------------------------- one deal
def deal_packets(deck: list[int], dealer: int, packets: tuple[int, ...],
                 start: int = 0) -> tuple[list[int], int]:
    """Deal ``deck[start:]`` in rounds of packets: for each packet size, a packet to every
    seat in playing order from the seat after ``dealer``. Returns the four hand masks and
    the index of the next undealt card."""
    hands = [0] * N_SEATS
    i = start
    for size in packets:
        for k in range(1, N_SEATS + 1):
            seat = seat_after(dealer, k)
            for _ in range(size):
                hands[seat] |= 1 << deck[i]
                i += 1
    return hands, i


class ReferenceDeal:
    """One deal, from the auction (§4) or the prise (§11) to the score (§8 / §11).

    Coinche family: ``hands`` (four 8-card masks, seat order), or ``deck`` (the 32 cards
    in dealing order, dealt 3-2-3 from the seat after the dealer). Classic family:
    ``ReferenceDeal(rules, None, dealer, deck=deck)``. ``dealer``: the dealer's seat.
    Drive it with :meth:`legal_actions` and :meth:`apply`; read the public attributes.
    """

    def __init__(self, rules: RuleSet, hands: list[int] | None, dealer: int, *,
                 deck: list[int] | None = None):
        self.rules = rules
        self.dealer = dealer
        self.classic = rules.family == "classic"
        self.deck: list[int] | None = None
        self.retourne: int | None = None       # classic: the turned-up card
        self.prise_round: int | None = None    # classic: 1 or 2 (the round of the prise)
        if deck is not None:
            if hands is not None:
                raise ValueError("give hands or deck, not both")
            deck = [int(c) for c in deck]
            if sorted(deck) != list(range(N_CARDS)):
                raise ValueError("a deck must hold each of the 32 cards once")
            self.deck = deck
        if self.classic:
            if deck is None:
                raise ValueError("a classic-family deal is built from a deck")
            hands, _ = deal_packets(deck, dealer, (3, 2))
            self.retourne = deck[20]
            self.prise_round = 1
        else:
            if deck is not None:
                hands, _ = deal_packets(deck, dealer, (3, 2, 3))
            if hands is None:
                raise ValueError("give hands or deck")
            if len(hands) != N_SEATS or any(len(cards_of(h)) != CARDS_PER_HAND for h in hands):
                raise ValueError("hands must be four masks of 8 cards")
            if hands[0] | hands[1] | hands[2] | hands[3] != 0xFFFFFFFF:
                raise ValueError("the four hands must hold the 32 cards")
        self.initial_hands = [int(h) for h in hands]
        self.hands = list(self.initial_hands)
        self.phase = "auction"
        self.current_player: int | None = seat_after(dealer, 1)
        self.void = False
        self.history: list[int] = []
        # auction state
        self.bid: dict | None = None       # {"value", "strain", "capot", "seat"}
        self.coinche = 0
        self.passes_in_row = 0
        self.contract: dict | None = None
        # play state
        self.tricks: list[list[tuple[int, int]]] = []
        self.trick_winners: list[int] = []
        self.seat_declaration_points = [0, 0, 0, 0]
        self.seat_declarations: list[list[Declaration]] = [[], [], [], []]
        self.declared = [False] * N_SEATS
        self.declaration_winner: int | None = None
        self.declarations_resolved = False
        self.team_declaration_points = [0, 0]
        self.team_belote_points = [0, 0]
        self._declare_decided = [False] * N_SEATS
        self._belote_decided = [False] * N_SEATS
        self.result: dict | None = None

    # ------------------------------------------------------------ legal actions
    def legal_actions(self) -> list[int]:
        """Sorted legal action ids of the seat to act ([] when the deal is done)."""
        if self.phase == "auction":
            if self.classic:
                return sorted(self._prise_actions())
            return sorted(self._auction_actions())
        if self.phase == "play":
            choice = self._pending_choice(self.current_player)
            if choice == "declare":
                return [DECLARE, NO_DECLARE]
            if choice == "belote":
                return [BELOTE, NO_BELOTE]
            seat = self.current_player
            cards = legal_cards(self.hands[seat], self._current_trick(), seat,
                                self.contract["strain"], self.rules)
            return sorted(card_action(c) for c in cards)
        return []

    def _auction_actions(self) -> set[int]:
        """§4: pass; higher bids and capot unless coinched; coinche of an opposing bid;
        surcoinche by the coinched team; capot after a coinche if the rule set allows."""
        rules, seat, bid = self.rules, self.current_player, self.bid
        actions = {PASS}
        strains = rules.allowed_strains
        current_is_capot = bid is not None and bid["capot"]
        if self.coinche == 0:
            current_value = bid["value"] if bid else 0
            for v in range(rules.min_bid, rules.max_bid + 1, rules.bid_step):
                if v > current_value and not current_is_capot:
                    actions.update(bid_action(v, s) for s in strains)
            if not current_is_capot:
                actions.update(capot_action(s) for s in strains)
            if bid is not None and team(bid["seat"]) != team(seat):
                actions.add(COINCHE)
        elif self.coinche == 1:
            if team(seat) == team(bid["seat"]):
                actions.add(SURCOINCHE)
            if rules.capot_after_coinche and not current_is_capot:
                actions.update(capot_action(s) for s in strains)
        return actions

    def _prise_actions(self) -> set[int]:
        """§11: round 1, take the retourne's suit or pass; round 2, name another strain
        (the other suits, plus NT and AT when the rule set has them) or pass."""
        if self.prise_round == 1:
            return {PASS, TAKE}
        refused = card_suit(self.retourne)
        return {PASS} | {NAME_BASE + s for s in self.rules.allowed_strains if s != refused}

    def _pending_choice(self, seat: int) -> str | None:
        """The optional declare / belote choice owed before the seat's first card."""
        if self.phase != "play" or len(cards_of(self.hands[seat])) != CARDS_PER_HAND:
            return None
        if (self.rules.declarations and self.rules.optional_declare
                and self._has_something_to_declare(seat) and not self._declare_decided[seat]):
            return "declare"
        if (self.rules.optional_belote and self._belotes(seat) > 0
                and not self._belote_decided[seat]):
            return "belote"
        return None

    def _has_something_to_declare(self, seat: int) -> bool:
        return self.seat_declaration_points[seat] > 0 or (
            self.rules.carre_low_cancels and has_low_carre(self.initial_hands[seat]))

    def _belotes(self, seat: int) -> int:
        return belote_pairs(self.initial_hands[seat], self.contract["strain"])

    def _current_trick(self) -> list[tuple[int, int]]:
        if self.tricks and len(self.tricks[-1]) < N_SEATS:
            return self.tricks[-1]
        return []

    # ------------------------------------------------------------ apply
    def apply(self, action: int, *, check: bool = True) -> None:
        """Play ``action`` for the seat to act; ValueError (state unchanged) if illegal.
        ``check=False`` skips that check, for a caller that has just taken ``action``
        from :meth:`legal_actions` (the differential tests: a sixth of their time)."""
        if check and action not in self.legal_actions():
            raise ValueError(f"illegal action {action!r} in phase {self.phase!r}")
        self.history.append(action)
        if self.phase == "auction":
            if self.classic:
                self._apply_prise(action)
            else:
                self._apply_auction(action)
        else:
            self._apply_play(action)

    def _apply_auction(self, action: int) -> None:
        seat = self.current_player
        if action == PASS:
            self.passes_in_row += 1
            if self.bid is None and self.passes_in_row == N_SEATS:
                self.void, self.phase, self.current_player = True, "done", None
                return
            if self.bid is not None and self.passes_in_row == N_SEATS - 1:
                self._start_play()
                return
        elif is_bid(action) or is_capot(action):
            capot = is_capot(action)
            self.bid = {"value": CAPOT_VALUE if capot else bid_value(action),
                        "strain": bid_strain(action), "capot": capot, "seat": seat}
            self.coinche = 0                       # a capot after a coinche cancels it
            self.passes_in_row = 0
        elif action == COINCHE:
            self.coinche = 1
            self.passes_in_row = 0
        elif action == SURCOINCHE:
            self.coinche = 2
            self._start_play()                     # surcoinche ends the auction at once
            return
        self.current_player = seat_after(seat, 1)

    def _apply_prise(self, action: int) -> None:
        seat = self.current_player
        if action == PASS:
            self.passes_in_row += 1
            if self.passes_in_row == N_SEATS:
                self.passes_in_row = 0
                if self.prise_round == 2:
                    self.void, self.phase, self.current_player = True, "done", None
                    return
                self.prise_round = 2
                self.current_player = seat_after(self.dealer, 1)
                return
            self.current_player = seat_after(seat, 1)
            return
        strain = card_suit(self.retourne) if action == TAKE else action - NAME_BASE
        # distribution: the retourne to the taker, then one packet per seat from the
        # seat after the dealer: 2 cards to the taker, 3 to each other seat
        hands = list(self.hands)
        hands[seat] |= 1 << self.retourne
        i = 21
        for k in range(1, N_SEATS + 1):
            s = seat_after(self.dealer, k)
            for _ in range(2 if s == seat else 3):
                hands[s] |= 1 << self.deck[i]
                i += 1
        assert i == N_CARDS and all(len(cards_of(h)) == CARDS_PER_HAND for h in hands)
        self.initial_hands = list(hands)
        self.hands = list(hands)
        self._start_play({"value": 0, "strain": strain, "capot": False, "coinche": 0,
                          "taker": seat})

    def _start_play(self, contract: dict | None = None) -> None:
        if contract is None:
            b = self.bid
            contract = {"value": b["value"], "strain": b["strain"], "capot": b["capot"],
                        "coinche": self.coinche, "taker": b["seat"]}
        self.contract = contract
        self.phase = "play"
        self.current_player = seat_after(self.dealer, 1)
        for seat in range(N_SEATS):
            pts, decls = hand_declarations(self.initial_hands[seat], contract["strain"],
                                           self.rules)
            self.seat_declaration_points[seat] = pts
            self.seat_declarations[seat] = decls

    def _apply_play(self, action: int) -> None:
        seat = self.current_player
        if action in (DECLARE, NO_DECLARE):
            self.declared[seat] = action == DECLARE
            self._declare_decided[seat] = True
            return
        if action in (BELOTE, NO_BELOTE):
            if action == BELOTE:
                self.team_belote_points[team(seat)] += BELOTE_POINTS * self._belotes(seat)
            self._belote_decided[seat] = True
            return
        card = action_card(action)
        if len(cards_of(self.hands[seat])) == CARDS_PER_HAND:   # first card: automatic announcements
            if self.rules.declarations and not self.rules.optional_declare:
                self.declared[seat] = self._has_something_to_declare(seat)
            if not self.rules.optional_belote:
                self.team_belote_points[team(seat)] += BELOTE_POINTS * self._belotes(seat)
        if len(self.trick_winners) == 1 and not self._current_trick():
            self._resolve_declarations()           # first card of the second trick
        if not self._current_trick():
            self.tricks.append([])
        self.tricks[-1].append((seat, card))
        self.hands[seat] &= ~(1 << card)
        if len(self.tricks[-1]) < N_SEATS:
            self.current_player = seat_after(seat, 1)
            return
        winner = trick_winner(self.tricks[-1], self.contract["strain"])
        self.trick_winners.append(winner)
        self.current_player = winner
        if len(self.trick_winners) == N_TRICKS:
            self._resolve_declarations()
            if self.classic:                       # §11: a capot team loses its declarations
                for t in (0, 1):
                    if not any(team(w) == t for w in self.trick_winners):
                        self.team_declaration_points[t] = 0
            self.phase, self.current_player = "done", None
            self.result = self._score()

    def _resolve_declarations(self) -> None:
        """§5: only the team with the best single declared declaration scores, all of
        its declaring seats' combinations; a tie scores nothing for anyone;
        ``carre_low_cancels``: a declared carré of 7s/8s cancels everything."""
        if self.declarations_resolved:
            return
        self.declarations_resolved = True
        if not self.rules.declarations:
            return
        declaring = [s for s in range(N_SEATS) if self.declared[s]]
        if self.rules.carre_low_cancels and any(
                has_low_carre(self.initial_hands[s]) for s in declaring):
            return
        strain = self.contract["strain"]
        best = [None, None]
        for s in declaring:
            for d in self.seat_declarations[s]:
                key = declaration_rank(d, strain)
                if best[team(s)] is None or key > best[team(s)]:
                    best[team(s)] = key
        if best[0] is None and best[1] is None:
            return
        if best[0] is not None and best[1] is not None:
            if best[0] == best[1]:
                return
            winner = 0 if best[0] > best[1] else 1
        else:
            winner = 0 if best[0] is not None else 1
        self.declaration_winner = winner
        self.team_declaration_points[winner] = sum(
            self.seat_declaration_points[s] for s in declaring if team(s) == winner)

    # ------------------------------------------------------------ scoring
    def _card_points(self) -> list[int]:
        """Card points with dix de der (§2, §7); capot 252/0; AT ``scaled`` to 162."""
        strain, rules = self.contract["strain"], self.rules
        cp = [0, 0]
        for trick, winner in zip(self.tricks, self.trick_winners):
            cp[team(winner)] += sum(card_points(c, strain, rules) for _, c in trick)
        last_team = team(self.trick_winners[-1])
        if all(team(w) == last_team for w in self.trick_winners):
            # capot: 252 / 0 (152 + dix de der 100), whatever the AT table; a générale
            # (one taker won every trick) counts rules.generale_bonus instead (docs/presets.md §2.3)
            cp = [0, 0]
            cp[last_team] = 152 + CAPOT_DIX_DE_DER
            one_seat = len(set(self.trick_winners)) == 1
            if (rules.generale_bonus and one_seat
                    and last_team == team(self.contract["taker"])):
                cp[last_team] = rules.generale_bonus
            return cp
        cp[last_team] += DIX_DE_DER
        if strain == AT and rules.at_points == "scaled":
            taker_team = team(self.contract["taker"])
            t = cp[taker_team]
            takers = (t * 162 * 2 + 258) // (2 * 258)      # nearest, halves up
            cp[taker_team], cp[1 - taker_team] = takers, 162 - takers
        return cp

    def _score(self) -> dict:
        if self.classic:
            return score_classic(self.rules, self.contract, self.trick_winners,
                                 self._card_points(), self.team_belote_points,
                                 self.team_declaration_points)
        return score_deal(self.rules, self.contract, self.trick_winners, self._card_points(),
                          self.team_belote_points, self.team_declaration_points)


def score_deal(rules: RuleSet, contract: dict, trick_winners: list[int], cp: list[int],
               bel: list[int], dec: list[int]) -> dict:
    """§8 deal scoring, as parameterised by the rule set.

    ``contract`` as :attr:`ReferenceDeal.contract`; ``trick_winners``: the 8 winning
    seats; ``cp``: final card points per team (with dix de der, capot and AT scaling
    applied); ``bel`` / ``dec``: belote and resolved declaration points per team.
    Returns the ``result`` dict of :class:`ReferenceDeal`.
    """
    c = contract
    T = team(c["taker"])
    D = 1 - T
    counted = [cp[t] + (bel[t] if "belote" in rules.contract_counts else 0)
               + (dec[t] if "declarations" in rules.contract_counts else 0) for t in (0, 1)]
    generale = trick_winners[0] if len(set(trick_winners)) == 1 else None
    all_T = all(team(w) == T for w in trick_winners)
    # a générale by the takers: its value replaces the capot's wherever the deal's cards
    # are counted (docs/presets.md §2.3); a capot *bid* stays worth 250
    gen_T = rules.generale_bonus > 0 and generale is not None and team(generale) == T
    cond1 = all_T if c["capot"] else counted[T] >= c["value"]
    made = cond1 and (rules.made_conditions == "bid_only" or counted[T] > counted[D])
    bid_val = CAPOT_VALUE if c["capot"] else c["value"]
    m = 1 if c["coinche"] == 0 else rules.multipliers[c["coinche"] - 1]
    base = rules.fail_base
    raw = [0, 0]
    if made and (m == 1 or rules.coinche_scoring == "cards_plus_bid"):
        raw[T] = cp[T] + bel[T] + dec[T] + bid_val * m + (dec[D] if all_T else 0)
        raw[D] = cp[D] + bel[D] + (0 if all_T else dec[D])
    elif made and rules.coinche_scoring == "ffb":   # coinched, FFB scoring
        b = rules.generale_bonus if gen_T else (CAPOT_VALUE if all_T else base)
        raw[T] = (b + dec[T] + bel[T] + dec[D] + bid_val) * m
        raw[D] = bel[D]
    elif made:                                      # coinched, all_plus_bid (colver)
        b = rules.generale_bonus if gen_T else (152 + CAPOT_DIX_DE_DER if all_T else base)
        raw[T] = b + bid_val * m + bel[T] + dec[T] + dec[D]
        raw[D] = bel[D]
        if rules.belote_takeable:                   # every belote goes to the winners
            raw[T] += bel[D]
            raw[D] = 0
    else:                                           # chute
        extra = bel[T] if rules.belote_takeable else 0
        raw[T] = 0 if rules.belote_takeable else bel[T]
        if rules.coinche_scoring in ("cards_plus_bid", "all_plus_bid"):
            raw[D] = base + bid_val * m + bel[D] + dec[D] + dec[T] + extra
        else:
            raw[D] = (base + dec[D] + bel[D] + dec[T] + bid_val + extra) * m
    score = [round_score(x) for x in raw] if rules.rounding == "nearest10" else list(raw)
    return {"made": made, "card_points": list(cp), "totals": counted, "raw": raw,
            "score": score, "multiplier": m, "generale": generale,
            "litige": False, "litige_points": 0}


def score_classic(rules: RuleSet, contract: dict, trick_winners: list[int], cp: list[int],
                  bel: list[int], dec: list[int]) -> dict:
    """§11 deal scoring of the classic family (arguments as :func:`score_deal`; ``dec``
    already without the declarations of a team that won no trick).

    The takers' total (cards + dix de der, plus belote / declarations as
    ``rules.contract_counts`` says) greater than the defenders': each team scores its own
    full total (cards + belote + declarations). Smaller (*dedans*): the takers keep their
    belote (unless ``belote_takeable``: it goes to the defenders), the defenders score
    ``fail_base`` (+ 90 when the takers won no trick: 252 for 162) plus every declaration
    and their own belote. Equal (*litige*): the defenders score their full total, the
    takers their belote only (imprenable, as when dedans); the takers' other points
    (cards and declarations) are held aside for the next deal (``litige_points``).
    """
    T = team(contract["taker"])
    D = 1 - T
    counted = [cp[t] + (bel[t] if "belote" in rules.contract_counts else 0)
               + (dec[t] if "declarations" in rules.contract_counts else 0) for t in (0, 1)]
    full = [cp[t] + bel[t] + dec[t] for t in (0, 1)]
    generale = trick_winners[0] if len(set(trick_winners)) == 1 else None
    takers_won_none = not any(team(w) == T for w in trick_winners)
    raw = [0, 0]
    litige = False
    litige_points = 0
    if counted[T] > counted[D]:
        made = True
        raw = list(full)
    elif counted[T] < counted[D]:
        made = False
        extra = bel[T] if rules.belote_takeable else 0
        raw[T] = 0 if rules.belote_takeable else bel[T]
        raw[D] = (rules.fail_base + (90 if takers_won_none else 0)
                  + dec[T] + dec[D] + bel[D] + extra)
    else:
        made, litige = False, True
        raw[D] = full[D]
        raw[T] = bel[T]                     # the belote is never held aside
        litige_points = cp[T] + dec[T]
    score = [round_score(x) for x in raw] if rules.rounding == "nearest10" else list(raw)
    return {"made": made, "card_points": list(cp), "totals": counted, "raw": raw,
            "score": score, "multiplier": 1, "generale": generale,
            "litige": litige, "litige_points": litige_points}
