"""The action encoding: one integer space for every phase of every rule set.

======================  ==========  ==================================================
ids                     count       action
======================  ==========  ==================================================
``0``                   1           pass
``1 .. 66``             11 x 6      bid ``value`` in ``strain``: ``1 + 6*(value-80)//10 + strain``
                                    (values 80..180; a rule set allows a sub-range)
``67 .. 72``            6           capot in ``strain``: ``67 + strain``
``73``                  1           coinche
``74``                  1           surcoinche
``75 .. 106``           32          play ``card``: ``75 + card``
``107``                 1           take (classic prise, round 1)
``108 .. 113``          6           name ``strain`` as trump (classic prise, round 2)
``114`` / ``115``       2           declare / do not declare (``optional_declare``)
``116`` / ``117``       2           announce belote / do not (``optional_belote``)
``118`` / ``119``       2           exchange the 7 of trump for the retourne / keep it
                                    (belote for two players, RULES.md §12)
======================  ==========  ==================================================

Strains are 0..3 = S H D C, 4 = NT, 5 = AT (``coinche_rl.rules``).

Text notation (records, the command line): ``pass``, ``80H``, ``110NT``, ``capotS``,
``coinche``, ``surcoinche``, a card (``JH``), ``take``, ``nameD``, ``declare``,
``no-declare``, ``belote``, ``no-belote``, ``exchange``, ``no-exchange``. Input is
case-insensitive.

>>> action_to_str(bid_action(100, 1)), parse_action("100h")
('100H', 14)
>>> action_to_str(parse_action("capot NT"))
'capotNT'
"""

from __future__ import annotations

from .cards import InvalidNotationError, format_card, parse_card
from .rules import MAX_BID_VALUE, MIN_BID_VALUE, N_BID_VALUES, N_STRAINS, STRAIN_NAMES

PASS = 0
BID_BASE = 1
CAPOT_BASE = BID_BASE + N_BID_VALUES * N_STRAINS       # 67
COINCHE = CAPOT_BASE + N_STRAINS                        # 73
SURCOINCHE = COINCHE + 1                                # 74
CARD_BASE = SURCOINCHE + 1                              # 75
TAKE = CARD_BASE + 32                                   # 107
NAME_BASE = TAKE + 1                                    # 108
DECLARE = NAME_BASE + N_STRAINS                         # 114
NO_DECLARE = DECLARE + 1                                # 115
BELOTE = NO_DECLARE + 1                                 # 116
NO_BELOTE = BELOTE + 1                                  # 117
EXCHANGE = NO_BELOTE + 1                                # 118
NO_EXCHANGE = EXCHANGE + 1                              # 119
N_ACTIONS = NO_EXCHANGE + 1                             # 120


def bid_action(value: int, strain: int) -> int:
    """Action id of a numeric bid."""
    if value % 10 or not MIN_BID_VALUE <= value <= MAX_BID_VALUE:
        raise ValueError(f"bid value {value!r} must be a multiple of 10 in {MIN_BID_VALUE}..{MAX_BID_VALUE}")
    if not 0 <= strain < N_STRAINS:
        raise ValueError(f"strain {strain!r} must be in 0..5 (S H D C NT AT)")
    return BID_BASE + N_STRAINS * ((value - MIN_BID_VALUE) // 10) + strain


def capot_action(strain: int) -> int:
    if not 0 <= strain < N_STRAINS:
        raise ValueError(f"strain {strain!r} must be in 0..5 (S H D C NT AT)")
    return CAPOT_BASE + strain


def card_action(card: int) -> int:
    return CARD_BASE + int(card)


def is_bid(a: int) -> bool:
    return BID_BASE <= a < CAPOT_BASE


def is_capot(a: int) -> bool:
    return CAPOT_BASE <= a < COINCHE


def is_card(a: int) -> bool:
    return CARD_BASE <= a < TAKE


def bid_value(a: int) -> int:
    return MIN_BID_VALUE + 10 * ((a - BID_BASE) // N_STRAINS)


def bid_strain(a: int) -> int:
    if is_capot(a):
        return a - CAPOT_BASE
    return (a - BID_BASE) % N_STRAINS


def action_card(a: int) -> int:
    return a - CARD_BASE


def _strain_id(text: str) -> int:
    """The id of a strain's text (any case; the French ``SA`` / ``TA`` too), or -1."""
    t = text.strip().upper()
    t = {"SA": "NT", "TA": "AT"}.get(t, t)
    return STRAIN_NAMES.index(t) if t in STRAIN_NAMES else -1


def _parse_strain(text: str, whole: str) -> int:
    s = _strain_id(text)
    if s < 0:
        raise InvalidNotationError(
            f"invalid strain {text!r} in {whole!r}: expected one of S H D C NT AT")
    return s


def parse_strain(strain) -> int:
    """A strain's id from its text as the notation writes it (``S H D C NT AT``, any
    case; the French ``SA`` and ``TA`` too) or from its id 0..5.

    >>> parse_strain("h"), parse_strain("SA"), parse_strain(5)
    (1, 4, 5)

    :raises InvalidNotationError: naming the bad strain and the accepted ones.
    """
    if isinstance(strain, str):
        s = _strain_id(strain)
        if s < 0:
            raise InvalidNotationError(
                f"invalid strain {strain!r}: expected one of S H D C NT AT (or its id 0..5)")
        return s
    if isinstance(strain, bool) or not hasattr(strain, "__index__") \
            or not 0 <= int(strain) < N_STRAINS:
        raise InvalidNotationError(
            f"invalid strain {strain!r}: expected one of S H D C NT AT or its id 0..5")
    return int(strain)


#: the actions written as one word: text -> id (``passe`` is read as ``pass``)
_WORDS = {"pass": PASS, "passe": PASS, "coinche": COINCHE, "surcoinche": SURCOINCHE,
          "take": TAKE, "declare": DECLARE, "no-declare": NO_DECLARE,
          "belote": BELOTE, "no-belote": NO_BELOTE, "exchange": EXCHANGE,
          "no-exchange": NO_EXCHANGE}
#: id -> the word :func:`action_to_str` writes
_WORD_OF = {a: w for w, a in _WORDS.items() if w != "passe"}


def action_to_str(a: int) -> str:
    """Text of an action id (inverse of :func:`parse_action`)."""
    a = int(a)
    word = _WORD_OF.get(a)
    if word is not None:
        return word
    if is_bid(a):
        return f"{bid_value(a)}{STRAIN_NAMES[bid_strain(a)]}"
    if is_capot(a):
        return f"capot{STRAIN_NAMES[a - CAPOT_BASE]}"
    if is_card(a):
        return format_card(a - CARD_BASE)
    if NAME_BASE <= a < DECLARE:
        return f"name{STRAIN_NAMES[a - NAME_BASE]}"
    raise ValueError(f"action id {a!r} out of range: expected 0..{N_ACTIONS - 1}")


def bid_values_text(rules) -> str:
    """The bids a rule set allows, in words (``'bid values are 80..160 by 10'``)."""
    if rules.family != "coinche":
        return f"the {rules.family} prise has no bids: take, name a trump, or pass"
    return f"bid values are {rules.min_bid}..{rules.max_bid} by {rules.bid_step}"


def parse_action(text: str, rules=None) -> int:
    """Action id of an action's text. With ``rules`` (a RuleSet), a bid value that is
    not a bid of the notation is refused with the rule set's values (``85H`` under ffb:
    80..160 by 10), not with the notation's range.

    :raises InvalidNotationError: naming the bad text and the accepted forms.
    """
    if not isinstance(text, str):
        raise InvalidNotationError(f"action text must be a string, not {text!r}")
    t = text.strip().lower().replace(" ", "")
    if t in _WORDS:
        return _WORDS[t]
    if t.startswith("capot"):
        return CAPOT_BASE + _parse_strain(t[5:], text)
    if t.startswith("name"):
        return NAME_BASE + _parse_strain(t[4:], text)
    i = 0
    while i < len(t) and t[i].isdigit():
        i += 1
    if i >= 2 and i < len(t) and not (t[:i] == "10" and len(t) == 3):
        value = int(t[:i])
        if value % 10 or not MIN_BID_VALUE <= value <= MAX_BID_VALUE:
            if rules is not None:
                raise InvalidNotationError(
                    f"invalid bid {text!r}: {bid_values_text(rules)} under rules {rules.name!r}")
            raise InvalidNotationError(
                f"invalid bid {text!r}: the value must be a multiple of 10 in {MIN_BID_VALUE}..{MAX_BID_VALUE}")
        return bid_action(value, _parse_strain(t[i:], text))
    try:
        return CARD_BASE + parse_card(t)
    except InvalidNotationError:
        raise InvalidNotationError(
            f"invalid action {text!r}: expected pass, a bid like '80H' or '110NT', 'capotS', "
            f"coinche, surcoinche, a card like 'JH', take, 'nameD', declare, no-declare, "
            f"belote, no-belote, exchange or no-exchange") from None
