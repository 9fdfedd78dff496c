"""Hand-built deals of belote for two players (RULES.md §12, docs/two_player.md) as data.

Each case is a plain dict, tied to no implementation:

* ``name``; ``rules``: a preset name, or ``(preset, overrides)``; ``dealer``;
* ``deck``: the 32 cards in dealing order (card texts). The decks are written as groups
  separated by ``|`` in the order docs/two_player.md deals them, split by :func:`_deck`:
  ``belote_a_deux``: n 3 | d 3 | n 3 | d 3 | retourne | n 3 | d 3 | n face-down 3 |
  d face-down 3 | n face-up 3 | d face-up 3 | bergère (n the non-dealer, d the dealer);
  ``belote_decouverte``: n face-down 8 | d face-down 8 | n face-up 8 | d face-up 8
  (stack i of a player: his i-th face-down card under his i-th face-up card);
* ``actions``: action texts (``coinche_rl.actions.parse_action``);
* ``finish`` (optional): ``"lowest"``: after the actions, play the legal action with the
  lowest id until the deal is done (only for values that do not depend on that play);
* ``checks`` (optional): ``[{"after": k, ...expectations}]``, checked after the first
  ``k`` actions; ``expect``: expectations checked at the end.

Expectations (every value worked out by hand from the rules, in the comments):
``phase``, ``current_player``, ``trump`` (suit letter or None), ``taker``, ``exchanged``,
``void``, ``retourne`` (card text); ``hands`` / ``table_up`` / ``table_down``: per player
a list of card texts (any order); ``stacks``: per player ``[[up, down], ...]`` (None for
no card); ``legal``: the legal action texts (any order); ``illegal``: action texts that
must be refused (ValueError) leaving the state unchanged; ``declarations``: each
player's best single declaration's points; ``declaration_winner``; ``belote_points``:
the belote credited so far; ``trick_winners``; ``result``: a subset of the result dict.

Trick notation in the comments: ``t5 d TD / P 7D -> d 10``: trick 5, d leads TD, P plays
7D, d wins 10 card points.
"""

from __future__ import annotations


def _deck(text: str) -> list[str]:
    """The card texts of a deck written in ``|``-separated groups."""
    cards = text.replace("|", " ").split()
    assert len(cards) == 32 and len(set(cards)) == 32, text
    return cards


def _tricks(text: str) -> list[str]:
    """Action texts of tricks written ``"AS KS; TS QS; ..."`` (leader's card first)."""
    return text.replace(";", " ").split()


# ------------------------------------------------------------------ decks
# A1, belote_a_deux, dealer 0 (n = 1).
A1 = _deck("AS KS QS | AH KH QH | AD KD QD | AC KC QC | JH | TS 9S 8S | TH 9H 8H"
           " | TD 9D 8D | TC 9C 8C | 7S JS 7D | 7H JD 7C | JC")
# A1R: A1 with the retourne and the dealer's first face-up card swapped: the retourne is 7H.
A1R = _deck("AS KS QS | AH KH QH | AD KD QD | AC KC QC | 7H | TS 9S 8S | TH 9H 8H"
            " | TD 9D 8D | TC 9C 8C | 7S JS 7D | JH JD 7C | JC")
# X, belote_a_deux, dealer 1 (n = 0): the dealer's first six cards hold 7H, retourne AH.
X = _deck("JS 9S AS | 7H 8H 9H | TS KS QS | 7C 8C 9C | AH | JD 9D AD | TD KD QD"
          " | 8S 7S 8D | 7D TH JH | QH KH TC | JC QC KC | AC")
# X2: X with 7H and TD swapped: the dealer's 7H comes with his last three cards.
X2 = _deck("JS 9S AS | TD 8H 9H | TS KS QS | 7C 8C 9C | AH | JD 9D AD | 7H KD QD"
           " | 8S 7S 8D | 7D TH JH | QH KH TC | JC QC KC | AC")
# X3: X with the first two packets of n and d swapped: the non-dealer holds 7H.
X3 = _deck("7H 8H 9H | JS 9S AS | 7C 8C 9C | TS KS QS | AH | JD 9D AD | TD KD QD"
           " | 8S 7S 8D | 7D TH JH | QH KH TC | JC QC KC | AC")
# XB: X with AH<->KH and 8H<->QH: retourne KH, the dealer holds 7H and QH.
XB = _deck("JS 9S AS | 7H QH 9H | TS KS QS | 7C 8C 9C | KH | JD 9D AD | TD KD QD"
           " | 8S 7S 8D | 7D TH JH | 8H AH TC | JC QC KC | AC")
# M1, belote_a_deux, dealer 0 (n = 1 = P the taker, O = 0): a complete deal.
M1 = _deck("JH 9H AH | KH QH 8H | AS TS 9S | KS QS JS | TH | AD 7D 9D | TD KD QD"
           " | 8S 8D 9C | 7H 7S JD | 7C 8C JC | AC TC KC | QC")

# Découverte decks, dealer 1 (n = 0 takes the retourne, d's last face-up card, spades).
# Each trick of S82 / S81 / S81B / C0 / C1 is two cards of one suit (so following is
# always legal; trump tricks are checked one by one), tricks 1-8 the face-up cards
# (stack i-1 of each player holds trick i's cards), tricks 9-16 the face-down ones.
S82 = _deck("JD 7C 8C 9C JC JS 9S AS | QD AC TC KC QC KS QS 8S"
            " | TH 9H 8H JH 7D 8D 9D TS | 7H AH KH QH AD TD KD 7S")
S82_PLAY = ["take"] + _tricks(
    "TH 7H; 9H AH; KH 8H; QH JH; AD 7D; TD 8D; KD 9D; 7S TS;"
    " JD QD; AC 7C; TC 8C; KC 9C; QC JC; KS JS; 9S QS; AS 8S")
# t1 P TH / d 7H -> P 10; t2 P 9H / AH -> d 11; t3 d KH / 8H -> d 4; t4 d QH / JH -> d 5;
# t5 AD/7D d 11; t6 TD/8D d 10; t7 KD/9D d 4; t8 d 7S / P TS (overtrumps) -> P 10;
# t9 P JD / QD -> d 5; t10-t13 d wins AC/7C 11, TC/8C 10, KC/9C 4, QC/JC 5;
# t14 d KS / P JS -> P 24; t15 P 9S / d QS (no higher trump: QS or 8S) -> P 17;
# t16 P AS / 8S -> P 11 + dix de der 10.  P: 10+10+24+17+11+10 = 82; d: 80.
S82_WINNERS = [0, 1, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 0, 0, 0]

S81 = _deck("JD 7C 8C 9C JC JS 9S AS | QD AC TC KC QC KS QS 8S"
            " | KH JH TH 7H 7D 8D 9D TS | QH 9H AH 8H AD TD KD 7S")
S81_PLAY = ["take"] + _tricks(
    "KH QH; JH 9H; TH AH; 8H 7H; AD 7D; TD 8D; KD 9D; 7S TS;"
    " JD QD; AC 7C; TC 8C; KC 9C; QC JC; KS JS; 9S QS; AS 8S")
# t1 P KH / QH -> P 7; t2 P JH / 9H -> P 2; t3 P TH / AH -> d 21; t4 d 8H / 7H -> d 0;
# t5-t7 d 11 + 10 + 4; t8 d 7S / P TS -> P 10; t9 P JD / QD -> d 5; t10-t13 d 30;
# t14 d KS / JS -> P 24; t15 P 9S / QS -> P 17; t16 P AS / 8S -> P 11 + 10.
# P: 7+2+10+24+17+11+10 = 81; d: 21+0+25+5+30 = 81.
S81_WINNERS = [0, 0, 1, 1, 1, 1, 1, 0, 1, 1, 1, 1, 1, 0, 0, 0]

# S81B: as S81, but P holds the trump K and Q (QS face-up, KS face-down under 8D).
S81B = _deck("JD 7C 8C 9C JC KS JS 9S | QD AC TC KC QC 8S AS TS"
             " | KH JH TH 7H 7D 8D 9D QS | QH 9H AH 8H AD TD KD 7S")
S81B_PLAY = ["take"] + _tricks(
    "KH QH; JH 9H; TH AH; 8H 7H; AD 7D; TD 8D; KD 9D; 7S QS;"
    " JD QD; AC 7C; TC 8C; KC 9C; QC JC; 8S KS; JS AS; 9S TS")
# as S81 but the trump tricks: t8 d 7S / P QS -> P 3; t14 d 8S / P KS -> P 4;
# t15 P JS / d AS (no trump above J) -> P 31; t16 P 9S / TS -> P 24 + 10.
# P: 7+2+3+4+31+24+10 = 81; d 81. P's belote: QS played t8, KS t14 (action 29).

C0 = _deck("QD AC TC KC QC JS 9S AS | 7D JC 9C 8C 7C KS QS 8S"
           " | AH TH KH QH AD TD KD TS | JH 9H 8H 7H JD 9D 8D 7S")
C0_PLAY = ["take"] + _tricks(
    "AH JH; TH 9H; KH 8H; QH 7H; AD JD; TD 9D; KD 8D; TS 7S;"
    " QD 7D; AC JC; TC 9C; KC 8C; QC 7C; JS KS; 9S QS; AS 8S")
# P (0) holds the higher card of every pair and leads all 16 tricks: capot, 252.

C1 = _deck("7D JC 9C 8C 7C KS QS 8S | QD AC TC KC QC JS 9S AS"
           " | JH 9H 8H 7H JD 9D 8D 7S | AH TH KH QH AD TD KD TS")
C1_PLAY = ["take"] + _tricks(
    "JH AH; TH 9H; KH 8H; QH 7H; AD JD; TD 9D; KD 8D; TS 7S;"
    " QD 7D; AC JC; TC 9C; KC 8C; QC 7C; JS KS; 9S QS; AS 8S")
# P (0) takes spades (the retourne TS) and d holds the higher card of every pair: d wins
# t1 (P leads JH) and leads the 15 others (t8 TS: P's 7S KS QS are all below it).

# C2: P (0) holds the higher card of every pair again, but 1 holds 7 8 9 T H face-up
# (cinquante) while P's J Q K A H is broken by his face-down JH (under AC): P's capot
# with 1's winning declaration. P leads all 16 tricks; t8 AC / JC (1's JC turned up at
# t1), t9 JH (turned up at t8) / 7H.
C2 = _deck("QD TC KC QC JS 9S AS JH | JC 9C 8C 7C 7D KS QS 8S"
           " | AH KH QH AD TD KD TS AC | TH 9H 8H 7H JD 9D 8D 7S")
C2_PLAY = ["take"] + _tricks(
    "AH TH; KH 9H; QH 8H; AD JD; TD 9D; KD 8D; TS 7S; AC JC;"
    " JH 7H; QD 7D; TC 9C; KC 8C; QC 7C; JS KS; 9S QS; AS 8S")

M1_PLAY = ["take", "no-exchange"] + _tricks(
    "7C AC; TC 8C; KC JC; QC 9C; TD 7D; KD 8D; JD 9D; QD AD;"
    " AS KS; TS QS; 8S 7S; 9S JS; 7H JH; 9H KH; AH QH; TH 8H")

DEC = ("belote_decouverte", {"declarations": True})
DEC_BEL = ("belote_decouverte", {"declarations": True, "belote": True})

CASES: list[dict] = []


def case(**c) -> None:
    CASES.append(c)


# ================================================================== the deal and the prise
case(name="deal_a_deux_nondealer_takes", rules="belote_a_deux", deck=A1, dealer=0,
     actions=["take", "no-exchange"],
     checks=[{"after": 0, "phase": "prise", "current_player": 1, "retourne": "JH",
              "hands": [["AH", "KH", "QH", "AC", "KC", "QC"], ["AS", "KS", "QS", "AD", "KD", "QD"]],
              "table_up": [[], []], "table_down": [[], []], "legal": ["pass", "take"]}],
     # taker 1: six + retourne JH + TS 9S 8S = 10; dealer 0: six + TH 9H 8H = 9, 0 has
     # no 7H in his six (his 7H is a face-up card) -> only no-exchange; bergère JC to 0.
     expect={"phase": "play", "current_player": 1, "trump": "H", "taker": 1,
             "exchanged": False, "retourne": "JH",
             "hands": [["AH", "KH", "QH", "AC", "KC", "QC", "TH", "9H", "8H"],
                       ["AS", "KS", "QS", "AD", "KD", "QD", "JH", "TS", "9S", "8S"]],
             "table_up": [["7H", "JD", "7C", "JC"], ["7S", "JS", "7D"]],
             "table_down": [["TC", "9C", "8C"], ["TD", "9D", "8D"]],
             "stacks": [[["7H", "TC"], ["JD", "9C"], ["7C", "8C"], ["JC", None]],
                        [["7S", "TD"], ["JS", "9D"], ["7D", "8D"]]],
             # face-down cards are not playable: hand + face-up cards only
             "legal": ["AS", "KS", "QS", "TS", "9S", "8S", "JH", "AD", "KD", "QD",
                       "7S", "JS", "7D"],
             "illegal": ["TD", "9D", "AH", "pass", "exchange"]})

case(name="deal_a_deux_dealer_takes", rules="belote_a_deux", deck=A1, dealer=0,
     actions=["pass", "take", "no-exchange"],
     # taker 0 (dealer); non-taker 1's six hold no 7H; the bergère JC goes to 1.
     expect={"phase": "play", "current_player": 1, "trump": "H", "taker": 0,
             "hands": [["AH", "KH", "QH", "AC", "KC", "QC", "JH", "TH", "9H", "8H"],
                       ["AS", "KS", "QS", "AD", "KD", "QD", "TS", "9S", "8S"]],
             "table_up": [["7H", "JD", "7C"], ["7S", "JS", "7D", "JC"]],
             "table_down": [["TC", "9C", "8C"], ["TD", "9D", "8D"]],
             "stacks": [[["7H", "TC"], ["JD", "9C"], ["7C", "8C"]],
                        [["7S", "TD"], ["JS", "9D"], ["7D", "8D"], ["JC", None]]]})

case(name="prise_rounds_and_naming", rules="belote_a_deux", deck=A1, dealer=0,
     actions=["pass", "pass", "pass", "nameS"],
     checks=[{"after": 0, "current_player": 1, "legal": ["pass", "take"],
              "illegal": ["nameS", "nameH", "exchange", "AS", "no-exchange"]},
             {"after": 1, "current_player": 0, "phase": "prise", "legal": ["pass", "take"]},
             # round 2: the three suits other than the retourne's (hearts)
             {"after": 2, "current_player": 1, "phase": "prise",
              "legal": ["pass", "nameS", "nameD", "nameC"], "illegal": ["take", "nameH"]},
             {"after": 3, "current_player": 0, "legal": ["pass", "nameS", "nameD", "nameC"]}],
     # the dealer names spades in round 2: he takes, receives the retourne JH anyway
     expect={"phase": "play", "taker": 0, "trump": "S", "exchanged": False,
             "current_player": 1,
             "hands": [["AH", "KH", "QH", "AC", "KC", "QC", "JH", "TH", "9H", "8H"],
                       ["AS", "KS", "QS", "AD", "KD", "QD", "TS", "9S", "8S"]],
             "table_up": [["7H", "JD", "7C"], ["7S", "JS", "7D", "JC"]]})

case(name="prise_round2_nondealer_names", rules="belote_a_deux", deck=A1, dealer=0,
     actions=["pass", "pass", "nameD"],
     expect={"phase": "play", "taker": 1, "trump": "D", "current_player": 1,
             "hands": [["AH", "KH", "QH", "AC", "KC", "QC", "TH", "9H", "8H"],
                       ["AS", "KS", "QS", "AD", "KD", "QD", "JH", "TS", "9S", "8S"]],
             "table_up": [["7H", "JD", "7C", "JC"], ["7S", "JS", "7D"]]})

case(name="void_deal_a_deux", rules="belote_a_deux", deck=A1, dealer=0,
     actions=["pass", "pass", "pass", "pass"],
     expect={"phase": "done", "void": True, "current_player": None, "legal": [],
             "taker": None, "trump": None, "illegal": ["pass", "take"],
             "result": {"void": True, "scores": [0, 0]}})

case(name="void_deal_decouverte", rules="belote_decouverte", deck=S82, dealer=1,
     actions=["pass", "pass", "pass", "pass"],
     checks=[{"after": 2, "current_player": 0, "legal": ["pass", "nameH", "nameD", "nameC"]}],
     expect={"phase": "done", "void": True, "current_player": None, "legal": [],
             "result": {"void": True, "scores": [0, 0]}})

case(name="deal_decouverte", rules="belote_decouverte", deck=S82, dealer=1,
     actions=["pass", "take"],
     # n = 0: face-down deck[0:8], face-up deck[16:24]; d = 1: deck[8:16], deck[24:32];
     # the retourne 7S (deck[31]) stays as the dealer's last face-up card
     checks=[{"after": 0, "retourne": "7S", "hands": [[], []], "current_player": 0,
              "table_up": [["TH", "9H", "8H", "JH", "7D", "8D", "9D", "TS"],
                           ["7H", "AH", "KH", "QH", "AD", "TD", "KD", "7S"]],
              "table_down": [["JD", "7C", "8C", "9C", "JC", "JS", "9S", "AS"],
                             ["QD", "AC", "TC", "KC", "QC", "KS", "QS", "8S"]]}],
     expect={"phase": "play", "taker": 1, "trump": "S", "current_player": 0,
             "hands": [[], []],
             "table_up": [["TH", "9H", "8H", "JH", "7D", "8D", "9D", "TS"],
                          ["7H", "AH", "KH", "QH", "AD", "TD", "KD", "7S"]],
             "stacks": [[["TH", "JD"], ["9H", "7C"], ["8H", "8C"], ["JH", "9C"],
                         ["7D", "JC"], ["8D", "JS"], ["9D", "9S"], ["TS", "AS"]],
                        [["7H", "QD"], ["AH", "AC"], ["KH", "TC"], ["QH", "KC"],
                         ["AD", "QC"], ["TD", "KS"], ["KD", "QS"], ["7S", "8S"]]],
             "legal": ["TH", "9H", "8H", "JH", "7D", "8D", "9D", "TS"],
             "illegal": ["JD", "AS", "exchange"]})

# ================================================================== the exchange
case(name="exchange_made", rules="belote_a_deux", deck=X, dealer=1,
     actions=["take", "exchange", "AS", "8H"],
     checks=[{"after": 1, "phase": "exchange", "current_player": 1, "taker": 0,
              "trump": "H", "legal": ["exchange", "no-exchange"],
              "illegal": ["pass", "take", "AS", "7H"],
              "hands": [["JS", "9S", "AS", "TS", "KS", "QS"], ["7H", "8H", "9H", "7C", "8C", "9C"]],
              "table_up": [[], []]},
             # 7H to the taker, the retourne AH to the dealer; then 3 more each
             {"after": 2, "phase": "play", "exchanged": True, "current_player": 0,
              "hands": [["JS", "9S", "AS", "TS", "KS", "QS", "7H", "JD", "9D", "AD"],
                        ["AH", "8H", "9H", "7C", "8C", "9C", "TD", "KD", "QD"]],
              "table_up": [["QH", "KH", "TC"], ["JC", "QC", "KC", "AC"]],
              "table_down": [["8S", "7S", "8D"], ["7D", "TH", "JH"]],
              "stacks": [[["QH", "8S"], ["KH", "7S"], ["TC", "8D"]],
                         [["JC", "7D"], ["QC", "TH"], ["KC", "JH"], ["AC", None]]]},
             # void in spades: must trump, any trump; his face-down TH JH do not count
             {"after": 3, "current_player": 1, "legal": ["AH", "8H", "9H"],
              "illegal": ["7C", "JC", "TH"]}],
     # declarations (face-down cards excluded): 0: spades 9 T J Q K A, a cent of 6 (100;
     # with his face-down 7S 8S it would be 8 long); 1: clubs J Q K + the bergère AC,
     # cinquante (50; without the bergère only tierces, 20)
     expect={"trick_winners": [1], "current_player": 1, "declarations": [100, 50],
             "declaration_winner": 0})

case(name="exchange_kept", rules="belote_a_deux", deck=X, dealer=1,
     actions=["take", "no-exchange"],
     expect={"phase": "play", "exchanged": False, "current_player": 0,
             "hands": [["JS", "9S", "AS", "TS", "KS", "QS", "AH", "JD", "9D", "AD"],
                       ["7H", "8H", "9H", "7C", "8C", "9C", "TD", "KD", "QD"]]})

case(name="exchange_not_offered_to_taker_with_the_seven", rules="belote_a_deux", deck=X,
     dealer=1, actions=["pass", "take", "no-exchange"],
     # the dealer takes holding 7H; the non-dealer's six hold no 7H: he still chooses
     # (his turn must not tell), no-exchange only
     checks=[{"after": 2, "phase": "exchange", "current_player": 0, "legal": ["no-exchange"],
              "illegal": ["exchange", "pass", "JS"]}],
     expect={"phase": "play", "taker": 1, "exchanged": False, "current_player": 0,
             "hands": [["JS", "9S", "AS", "TS", "KS", "QS", "JD", "9D", "AD"],
                       ["7H", "8H", "9H", "7C", "8C", "9C", "AH", "TD", "KD", "QD"]],
             "stacks": [[["QH", "8S"], ["KH", "7S"], ["TC", "8D"], ["AC", None]],
                        [["JC", "7D"], ["QC", "TH"], ["KC", "JH"]]]})

case(name="exchange_not_after_round2", rules="belote_a_deux", deck=X, dealer=1,
     actions=["pass", "pass", "nameC"],
     # clubs named in round 2: the dealer's 7C offers no exchange; the taker gets AH
     expect={"phase": "play", "taker": 0, "trump": "C", "exchanged": False,
             "hands": [["JS", "9S", "AS", "TS", "KS", "QS", "AH", "JD", "9D", "AD"],
                       ["7H", "8H", "9H", "7C", "8C", "9C", "TD", "KD", "QD"]]})

case(name="exchange_not_offered_when_retourne_is_the_seven", rules="belote_a_deux",
     deck=A1R, dealer=0, actions=["take", "no-exchange"],
     checks=[{"after": 1, "phase": "exchange", "current_player": 0, "legal": ["no-exchange"]}],
     expect={"phase": "play", "taker": 1, "trump": "H", "exchanged": False,
             "retourne": "7H",
             "hands": [["AH", "KH", "QH", "AC", "KC", "QC", "TH", "9H", "8H"],
                       ["AS", "KS", "QS", "AD", "KD", "QD", "7H", "TS", "9S", "8S"]],
             "table_up": [["JH", "JD", "7C", "JC"], ["7S", "JS", "7D"]]})

case(name="exchange_only_from_the_first_six_cards", rules="belote_a_deux", deck=X2,
     dealer=1, actions=["take", "no-exchange"],
     # the dealer's 7H comes with deck[16:19], after the choice: no-exchange only
     checks=[{"after": 1, "phase": "exchange", "legal": ["no-exchange"]}],
     expect={"phase": "play", "exchanged": False,
             "hands": [["JS", "9S", "AS", "TS", "KS", "QS", "AH", "JD", "9D", "AD"],
                       ["TD", "8H", "9H", "7C", "8C", "9C", "7H", "KD", "QD"]]})

case(name="exchange_by_the_nondealer", rules="belote_a_deux", deck=X3, dealer=1,
     actions=["pass", "take", "exchange"],
     checks=[{"after": 2, "phase": "exchange", "current_player": 0, "taker": 1}],
     expect={"phase": "play", "exchanged": True, "current_player": 0,
             "hands": [["AH", "8H", "9H", "7C", "8C", "9C", "JD", "9D", "AD"],
                       ["JS", "9S", "AS", "TS", "KS", "QS", "7H", "TD", "KD", "QD"]],
             "stacks": [[["QH", "8S"], ["KH", "7S"], ["TC", "8D"], ["AC", None]],
                        [["JC", "7D"], ["QC", "TH"], ["KC", "JH"]]]})

# ================================================================== play
case(name="follow_with_a_table_card_then_free_discard", rules="belote_a_deux", deck=A1,
     dealer=0, actions=["pass", "pass", "nameS", "AD", "JD", "KD"],
     checks=[  # 0's only diamond is his face-up JD: he must play it
         {"after": 4, "current_player": 0, "legal": ["JD"], "illegal": ["AH", "7C"]},
         {"after": 5, "trick_winners": [1], "current_player": 1,
          # JD covered 9C: turned up as the trick is collected
          "stacks": [[["7H", "TC"], ["9C", None], ["7C", "8C"], ["JC", None]],
                     [["7S", "TD"], ["JS", "9D"], ["7D", "8D"]]]}],
     # void in diamonds and no spade at all: any card, the uncovered 9C included
     expect={"current_player": 0,
             "legal": ["AH", "KH", "QH", "AC", "KC", "QC", "TH", "9H", "8H", "7H", "7C",
                       "JC", "9C"]})

case(name="reveal_when_collected", rules=DEC, deck=_deck(
        "KS 9H 9S AS TH JH QH 7D | 8D 9D TD QD 8C TC JC QC"
        " | 7H 8H TS QS AD 7C 9C JD | AH KH KD 8S JS KC AC 7S"),
     dealer=1, actions=["take", "8H", "AH"],
     checks=[{"after": 1, "legal": ["7H", "8H", "TS", "QS", "AD", "7C", "9C", "JD"]},
             # 8H played: 9H still face down until the trick is collected
             {"after": 2, "current_player": 1, "legal": ["AH", "KH"],
              "stacks": [[["7H", "KS"], [None, "9H"], ["TS", "9S"], ["QS", "AS"],
                          ["AD", "TH"], ["7C", "JH"], ["9C", "QH"], ["JD", "7D"]],
                         [["AH", "8D"], ["KH", "9D"], ["KD", "TD"], ["8S", "QD"],
                          ["JS", "8C"], ["KC", "TC"], ["AC", "JC"], ["7S", "QC"]]],
              "table_down": [["KS", "9H", "9S", "AS", "TH", "JH", "QH", "7D"],
                             ["8D", "9D", "TD", "QD", "8C", "TC", "JC", "QC"]]}],
     # 9H is turned up and playable; it makes no new declaration: 0's face-up 7H 8H
     # (with the face-down 9H TH JH QH: a cent) declared nothing; 1 has none either
     expect={"trick_winners": [1], "current_player": 1,
             "table_up": [["7H", "9H", "TS", "QS", "AD", "7C", "9C", "JD"],
                          ["8D", "KH", "KD", "8S", "JS", "KC", "AC", "7S"]],
             "table_down": [["KS", "9S", "AS", "TH", "JH", "QH", "7D"],
                            ["9D", "TD", "QD", "8C", "TC", "JC", "QC"]],
             "stacks": [[["7H", "KS"], ["9H", None], ["TS", "9S"], ["QS", "AS"],
                         ["AD", "TH"], ["7C", "JH"], ["9C", "QH"], ["JD", "7D"]],
                        [["8D", None], ["KH", "9D"], ["KD", "TD"], ["8S", "QD"],
                         ["JS", "8C"], ["KC", "TC"], ["AC", "JC"], ["7S", "QC"]]],
             "declarations": [0, 0], "declaration_winner": None})

case(name="trump_led_overtrump_and_belote_timing", rules="belote_a_deux", deck=XB,
     dealer=1, actions=["take", "exchange", "AS", "KH", "QH"], finish="lowest",
     checks=[{"after": 2, "hands": [["JS", "9S", "AS", "TS", "KS", "QS", "7H", "JD", "9D", "AD"],
                                    ["KH", "QH", "9H", "7C", "8C", "9C", "TD", "KD", "QD"]],
              "table_up": [["8H", "AH", "TC"], ["JC", "QC", "KC", "AC"]]},
             {"after": 3, "legal": ["KH", "QH", "9H"]},
             {"after": 4, "trick_winners": [1], "current_player": 1, "belote_points": [0, 0]},
             # QH led: 0 must overtrump: AH (his 7H, 8H are lower; TH JH are 1's)
             {"after": 5, "belote_points": [0, 20], "current_player": 0, "legal": ["AH"],
              "illegal": ["7H", "8H", "AD"]}],
     # the exchange gave the retourne KH to 1, who held QH: his belote. Declarations:
     # 0 spades 9..A cent (100), 1 clubs J Q K A cinquante (50)
     expect={"phase": "done", "result": {"belote": [0, 20], "declarations": [100, 50],
                                         "declaration_winner": 0, "void": False}})

case(name="belote_split_after_keeping", rules="belote_a_deux", deck=XB, dealer=1,
     actions=["take", "no-exchange"], finish="lowest",
     # the taker 0 receives KH, 1 keeps QH: nobody owns both
     expect={"result": {"belote": [0, 0]}})

case(name="trump_led_any_trump_when_none_higher", rules="belote_decouverte", deck=S82,
     dealer=1, actions=S82_PLAY[:30],
     # t15: 0 leads 9S; 1 holds QS 8S, neither above the 9: either
     expect={"current_player": 1, "legal": ["QS", "8S"]})

# ================================================================== declarations
case(name="declaration_best_single_only", rules=DEC, deck=_deck(
        "7S 8S 9S TS KS TH JH QH | KH TD JD QD AD JC KC AC"
        " | 7H 8H 9H 7D 8D 9D JS QC | 7C 8C 9C TC AH KD QS AS"),
     dealer=1, actions=["take", "7H", "AH"],
     # 0: two tierces (7 8 9 H, 7 8 9 D) count 20, not 40; 1: 7 8 9 T C cinquante 50
     # (0's face-down 7S..TS and TH JH QH are no declaration)
     expect={"declarations": [20, 50], "declaration_winner": 1})

case(name="declaration_carre_beats_cent", rules=DEC, deck=_deck(
        "9S TS JS QS 7H 8H TH JH | QH AD 8C 9C TC JC QC AC"
        " | KS KH KD KC 7D 7C 8S 9H | 8D 9D TD JD QD AS AH 7S"),
     dealer=1, actions=["take", "7D", "8D"],
     expect={"declarations": [100, 100], "declaration_winner": 0})

case(name="declaration_longer_run", rules=DEC, deck=_deck(
        "8S TS JS QS AS KH AH 7D | 8D 9D 7C 9C TC JC QC KC"
        " | TD JD QD KD AD 7S 8C 9S | 7H 8H 9H TH JH QH AC KS"),
     dealer=1, actions=["take", "TD", "KS"],
     # 0: T J Q K A D (5, top A); 1: 7 8 9 T J Q H (6, top Q): the longer wins.
     # 1 has no playable diamond (his are face down): he must trump with KS
     checks=[{"after": 2, "legal": ["KS"], "illegal": ["7H", "AC", "8D"]}],
     expect={"declarations": [100, 100], "declaration_winner": 1})

case(name="declaration_higher_top", rules=DEC, deck=_deck(
        "9S TS JS KS AS 7H QH KH | AH 8D TD KD 7C JC QC AC"
        " | 9H TH JH 7D 9D JD KC 7S | 8C 9C TC QD AD 8H QS 8S"),
     dealer=1, actions=["take", "9H", "8H"],
     # 0: 9 T J H (top J); 1: 8 9 T C (top 10): both plain, J is higher
     expect={"declarations": [20, 20], "declaration_winner": 0})

DC5 = _deck("8S 9S TS AS 8H 9H TH AH | 8D JD QD KD TC JC QC KC"
            " | JS QS KS 7H 9D 7C 9C AD | JH QH KH 7D 8C TD AC 7S")
case(name="declaration_trump_breaks_tie", rules=DEC, deck=DC5, dealer=1,
     actions=["take", "7H", "JH"],
     # tierces to the K: 0's in spades (trump) beats 1's in hearts
     expect={"declarations": [20, 20], "declaration_winner": 0})

case(name="declaration_trump_breaks_tie_named_suit", rules=DEC, deck=DC5, dealer=1,
     actions=["pass", "pass", "nameH", "7C", "8C"],
     # hearts named in round 2: now 1's tierce is in trump
     expect={"trump": "H", "taker": 0, "declarations": [20, 20], "declaration_winner": 1})

DC6 = _deck("KS TS JS 8H 9H TH AH 8D | QS 9D TD AD 7C JC QC KC"
            " | JH QH KH 7S 9C 7D AS TC | JD QD KD 8S 7H 8C AC 9S")
case(name="declaration_equal_neither", rules=DEC_BEL, deck=DC6, dealer=1,
     actions=["take", "JH", "7H"], finish="lowest",
     # J Q K H against J Q K D, spades trump: equal, neither scores. Belote: KS is 0's
     # (face-down), QS 1's: no belote
     checks=[{"after": 3, "declarations": [20, 20], "declaration_winner": None}],
     expect={"result": {"declarations": [20, 20], "declaration_winner": None,
                        "belote": [0, 0]}})

case(name="belote_of_named_trump", rules=DEC_BEL, deck=DC6, dealer=1,
     actions=["pass", "pass", "nameH"], finish="lowest",
     # hearts named: 0 owns KH QH (face-up): belote; his J Q K H is now in trump
     expect={"result": {"belote": [20, 0], "declarations": [20, 20],
                        "declaration_winner": 0}})

case(name="declaration_carre_jacks_beats_nines_and_eights_nothing", rules=DEC, deck=_deck(
        "TS QS KS AS TH QH KH AH | 7D TD QD KD 7C TC QC AC"
        " | JS JH JD JC 7S 7H AD KC | 9S 9H 9D 9C 8S 8H 8D 8C"),
     dealer=1, actions=["take", "JS", "9S"],
     # 0 carré of J 200; 1 carré of 9 150 (his carré of 8 is no declaration)
     expect={"trump": "C", "declarations": [200, 150], "declaration_winner": 0})

case(name="declaration_carre_aces_beats_kings", rules=DEC, deck=_deck(
        "9S TS JS QS 9H TH JH QH | 7D TD JD QD 8C TC JC QC"
        " | AS AH AD AC 7S 8H 9D 7C | KS KH KD KC 7H 8S 8D 9C"),
     dealer=1, actions=["take", "AS", "KS"],
     expect={"declarations": [100, 100], "declaration_winner": 0})

case(name="declaration_carre_of_sevens_and_eights_is_nothing", rules=DEC, deck=_deck(
        "TS JS QS KS 9H TH AH 9D | TD QD KD AD TC JC QC KC"
        " | 8S 8H 8D 8C 7S 7H 7D 7C | JH QH KH AS 9S JD 9C AC"),
     dealer=1, actions=["take", "8S", "9S"],
     expect={"declarations": [0, 20], "declaration_winner": 1})

case(name="declaration_face_down_excluded_a_deux", rules="belote_a_deux", deck=A1,
     dealer=0, actions=["take", "no-exchange", "AS", "AH"],
     # 1 (taker): 7S JS face-up + AS KS QS TS 9S 8S in hand: 8 spades, a cent (100).
     # 0: 7H (face-up) 8H 9H TH, and J Q K A C with the bergère JC: cinquantes (50).
     # Counting 0's face-down TC 9C 8C would give him the 8 clubs, a cent of 8 equal to
     # 1's spades (hearts trump): nobody would win. (The bergère counting: exchange_made.)
     checks=[{"after": 3, "legal": ["AH", "KH", "QH", "TH", "9H", "8H", "7H"]}],
     expect={"trick_winners": [0], "declarations": [50, 100], "declaration_winner": 1})

# ================================================================== scoring
case(name="made_at_82", rules="belote_decouverte", deck=S82, dealer=1, actions=S82_PLAY,
     checks=[{"after": 1, "taker": 0, "trump": "S", "current_player": 0}],
     expect={"phase": "done", "current_player": None, "legal": [],
             "trick_winners": S82_WINNERS,
             "result": {"void": False, "card_points": [82, 80], "capot": None,
                        "tricks_won": [5, 11], "made": True, "litige": False,
                        "litige_points": 0, "belote": [0, 0], "declarations": [0, 0],
                        "declaration_winner": None, "scores": [82, 80]}})

case(name="made_at_82_with_declarations_and_belote", rules=DEC_BEL, deck=S82, dealer=1,
     actions=S82_PLAY,
     # 0: 8 9 T J H cinquante 50; 1: Q K A H tierce 20 -> 0's. Belote: KS QS both 1's
     # (face-down), credited when QS is played (t15, action 31).
     checks=[{"after": 30, "belote_points": [0, 0]}, {"after": 31, "belote_points": [0, 20]}],
     expect={"result": {"card_points": [82, 80], "made": True, "declarations": [50, 20],
                        "declaration_winner": 0, "belote": [0, 20],
                        "scores": [82 + 50, 80 + 20]}})

case(name="failed_at_81", rules="belote_decouverte", deck=S81, dealer=1, actions=S81_PLAY,
     expect={"trick_winners": S81_WINNERS,
             "result": {"card_points": [81, 81], "made": False, "litige": False,
                        "litige_points": 0, "capot": None, "scores": [0, 162]}})

case(name="litige_at_81", rules=("belote_decouverte", {"litige": True}), deck=S81,
     dealer=1, actions=S81_PLAY,
     expect={"result": {"card_points": [81, 81], "made": False, "litige": True,
                        "litige_points": 81, "scores": [0, 81]}})

case(name="failed_taker_declaration_goes_to_other", rules=DEC, deck=S81, dealer=1,
     actions=S81_PLAY,
     # 0 (taker): 7 8 9 D tierce 20; 1: none. Failed: 1 scores 162 + 20.
     expect={"result": {"declarations": [20, 0], "declaration_winner": 0, "made": False,
                        "scores": [0, 182]}})

case(name="litige_with_taker_declaration", rules=("belote_decouverte",
                                                  {"declarations": True, "litige": True}),
     deck=S81, dealer=1, actions=S81_PLAY,
     expect={"result": {"litige": True, "litige_points": 81 + 20, "scores": [0, 81]}})

case(name="failed_taker_keeps_belote", rules=DEC_BEL, deck=S81B, dealer=1,
     actions=S81B_PLAY,
     # belote: QS played t8, KS (face-down at the deal) t14 = action 29
     checks=[{"after": 17, "belote_points": [0, 0]}, {"after": 28, "belote_points": [0, 0]},
             {"after": 29, "belote_points": [20, 0]}],
     expect={"trick_winners": S81_WINNERS,
             "result": {"card_points": [81, 81], "made": False, "belote": [20, 0],
                        "declarations": [20, 0], "declaration_winner": 0,
                        "scores": [20, 162 + 20]}})

case(name="litige_taker_keeps_belote", rules=("belote_decouverte", {
        "declarations": True, "belote": True, "litige": True}), deck=S81B, dealer=1,
     actions=S81B_PLAY,
     expect={"result": {"litige": True, "litige_points": 81 + 20, "belote": [20, 0],
                        "scores": [20, 81]}})

case(name="belote_off_in_decouverte", rules="belote_decouverte", deck=S81B, dealer=1,
     actions=S81B_PLAY,
     expect={"belote_points": [0, 0],
             "result": {"belote": [0, 0], "declarations": [0, 0], "scores": [0, 162]}})

case(name="capot_by_taker", rules="belote_decouverte", deck=C0, dealer=1, actions=C0_PLAY,
     expect={"trick_winners": [0] * 16,
             "result": {"card_points": [252, 0], "capot": 0, "tricks_won": [16, 0],
                        "made": True, "scores": [252, 0]}})

case(name="capot_by_taker_other_keeps_belote", rules=DEC_BEL, deck=C0, dealer=1,
     actions=C0_PLAY,
     # 0: Q K A H (top A) beats 1's 7 8 9 H (top 9): 20 to 0. Belote KS QS: 1's.
     expect={"result": {"card_points": [252, 0], "capot": 0, "declarations": [20, 20],
                        "declaration_winner": 0, "belote": [0, 20],
                        "scores": [252 + 20, 20]}})

case(name="capot_by_taker_other_keeps_his_declaration", rules=DEC, deck=C2, dealer=1,
     actions=C2_PLAY,
     # 0: Q K A H tierce (20; JH face-down); 1: 7 8 9 T H cinquante (50), the better.
     # Made (a capot): each scores his card points + his winning declaration
     # (docs/two_player.md: a capot takes nothing else from the other player).
     # at t8 1's clubs JC 9C 8C are turned up (7C still lies under his 7H)
     checks=[{"after": 16, "legal": ["JC", "9C", "8C"]}, {"after": 18, "legal": ["7H"]}],
     expect={"trick_winners": [0] * 16,
             "result": {"card_points": [252, 0], "capot": 0, "made": True,
                        "declarations": [20, 50], "declaration_winner": 1,
                        "scores": [252, 50]}})

case(name="capot_by_other", rules="belote_decouverte", deck=C1, dealer=1, actions=C1_PLAY,
     expect={"trick_winners": [1] * 16, "taker": 0,
             "result": {"card_points": [0, 252], "capot": 1, "tricks_won": [0, 16],
                        "made": False, "litige": False, "scores": [0, 252]}})

case(name="capot_by_other_with_declaration_and_taker_belote", rules=DEC_BEL, deck=C1,
     dealer=1, actions=C1_PLAY,
     # 1's Q K A H beats 0's 7 8 9 H; 0 (taker) owns KS QS (face-down)
     expect={"result": {"capot": 1, "declarations": [20, 20], "declaration_winner": 1,
                        "belote": [20, 0], "scores": [20, 252 + 20]}})

case(name="made_a_deux_other_wins_declarations", rules="belote_a_deux", deck=M1, dealer=0,
     actions=M1_PLAY,
     # P = 1 takes hearts (retourne TH); O = 0 has no 7H in his six (his 7H lies face down).
     # t1 P 7C / O AC 11 (O's clubs are all table cards: any of them);
     # t2 O TC / P 8C 10; t3 O KC / P JC 6 (9C is under JC); t4 O QC / P 9C 3;
     # t5 TD/7D 10; t6 KD/8D 4; t7 JD/9D 2 (all O); t8 O QD / P AD -> P 14;
     # t9 AS/KS 15; t10 TS/QS 13; t11 8S/7S 0 (P); t12 P 9S / O JS -> O 2;
     # t13 O 7H / P JH 20; t14 P 9H / O KH 18; t15 AH/QH 14; t16 TH/8H 10 + 10 (P).
     # P: 14+15+13+20+18+14+10+10 = 114; O: 11+10+6+3+10+4+2+2 = 48.
     # Declarations: O carrés of K and Q (QC the bergère): 100; P 9 T J H tierce 20 (his
     # 9C is face-down: no carré of 9s). O's belote KH QH, QH played t15 (action 32).
     checks=[{"after": 0, "hands": [["KH", "QH", "8H", "KS", "QS", "JS"],
                                    ["JH", "9H", "AH", "AS", "TS", "9S"]]},
             {"after": 2, "phase": "play", "current_player": 1,
              "hands": [["KH", "QH", "8H", "KS", "QS", "JS", "TD", "KD", "QD"],
                        ["JH", "9H", "AH", "AS", "TS", "9S", "TH", "AD", "7D", "9D"]],
              "stacks": [[["AC", "7H"], ["TC", "7S"], ["KC", "JD"], ["QC", None]],
                         [["7C", "8S"], ["8C", "8D"], ["JC", "9C"]]]},
             {"after": 3, "legal": ["AC", "TC", "KC", "QC"]},
             {"after": 4, "declarations": [100, 20], "declaration_winner": 0},
             {"after": 5, "legal": ["8C", "JC"]},
             {"after": 7, "legal": ["JC"]},
             {"after": 31, "belote_points": [0, 0]}, {"after": 32, "belote_points": [20, 0]}],
     expect={"trick_winners": [0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 0, 1, 1, 1, 1],
             "result": {"card_points": [48, 114], "tricks_won": [8, 8], "made": True,
                        "declarations": [100, 20], "declaration_winner": 0,
                        "belote": [20, 0], "scores": [48 + 100 + 20, 114]}})

# ================================================================== the match
MATCH_CASES: list[dict] = [
    {"name": "nobody_there", "totals": [999, 500], "target": 1000, "winner": None},
    {"name": "at_the_target_wins", "totals": [1000, 500], "target": 1000, "winner": 0},
    {"name": "past_the_target", "totals": [500, 1001], "target": 1000, "winner": 1},
    {"name": "both_past_higher_wins", "totals": [1010, 1005], "target": 1000, "winner": 0},
    {"name": "both_past_higher_wins_1", "totals": [1005, 1130], "target": 1000, "winner": 1},
    {"name": "both_past_equal_go_on", "totals": [1010, 1010], "target": 1000, "winner": None},
    {"name": "other_target", "totals": [1499, 1500], "target": 1500, "winner": 1},
]


# ------------------------------------------------------------------ deck helpers
def hidden_cards_permuted(d, deck: list, dealer: int, rng) -> list:
    """``deck`` (belote à deux, in dealing order) with the cards the player to act in
    ``d`` cannot see (the other hand's unknown cards and every face-down card) permuted
    among their deck places: a deal that player cannot tell from ``d``."""
    p = d.current_player
    o = 1 - p
    hidden = d.table_down[0] | d.table_down[1] | (d.hands[o] & ~d.view(p).known_other)
    other_pos = (list(range(0, 3)) + list(range(6, 9)) + list(range(13, 16))) \
        if o == 1 - dealer else (list(range(3, 6)) + list(range(9, 12)) + list(range(16, 19)))
    places = [i for i in other_pos + list(range(19, 25)) if hidden >> deck[i] & 1]
    perm = [places[k] for k in rng.permutation(len(places))]
    out = list(deck)
    for i, j in zip(places, perm):
        out[i] = deck[j]
    return out


def renamed_deck(deck, slot_of) -> list:
    """``deck`` with suit ``s`` renamed ``slot_of[s]`` (ranks kept)."""
    return [int(slot_of[c >> 3]) * 8 + (c & 7) for c in deck]


def renamed_deals(preset: str, n: int, rng):
    """``(deal, renamed, slot_of)`` for seeds ``0..n-1``: the seeded deal (dealer ``seed %
    2``) and the same deal with its suits renamed by a permutation ``slot_of`` drawn from
    ``rng``."""
    from coinche_rl.two_player import TwoPlayerDeal
    for seed in range(n):
        deal = TwoPlayerDeal(preset, seed=seed, dealer=seed % 2)
        slot_of = rng.permutation(4)
        yield deal, TwoPlayerDeal(preset, deck=renamed_deck(deal.deck, slot_of),
                                  dealer=seed % 2), slot_of


def renamed_action(a: int, slot_of) -> int:
    """Action ``a`` with suit ``s`` renamed ``slot_of[s]`` (a card, or naming a suit)."""
    from coinche_rl import actions as A
    if A.is_card(a):
        c = a - A.CARD_BASE
        return A.CARD_BASE + int(slot_of[c >> 3]) * 8 + (c & 7)
    if A.NAME_BASE <= a < A.NAME_BASE + 4:
        return A.NAME_BASE + int(slot_of[a - A.NAME_BASE])
    return a

