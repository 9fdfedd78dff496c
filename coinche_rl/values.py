"""The values of ``key=value`` texts (``coinche_rl.values``): one parser for every
parameter given as text, the rule overrides (``ffb:target=2000``,
:func:`coinche_rl.rules.parse_rules`) and the agents' spec parameters
(``heuristic:coinche=off``, :class:`coinche_rl.agents.Param`), so that both accept the
same spellings.

>>> parse_value("on", bool), parse_value("No", bool), parse_value(" 12 ", int)
(True, False, 12)
>>> parse_value("2.5", float), parse_value("x", str, choices=("x", "y"))
(2.5, 'x')
>>> parse_value("maybe", bool)
Traceback (most recent call last):
...
ValueError: expected true or false (yes/no, on/off, 1/0)
>>> format_value(True), format_value(2.5)
('true', '2.5')
"""

from __future__ import annotations

from typing import Sequence

__all__ = ["TRUE_WORDS", "FALSE_WORDS", "parse_value", "format_value", "expected_form"]

#: the words a switch accepts, any case
TRUE_WORDS = ("true", "yes", "on", "1")
FALSE_WORDS = ("false", "no", "off", "0")


def expected_form(kind: type, choices: Sequence = ()) -> str:
    """What a text of ``kind`` must look like, for error messages."""
    if choices:
        return "one of " + ", ".join(map(str, choices))
    if kind is bool:
        return "true or false (yes/no, on/off, 1/0)"
    if kind is int:
        return "an integer"
    if kind is float:
        return "a number"
    return f"a {kind.__name__}"


def parse_value(text: str, kind: type, choices: Sequence = ()):
    """The value of type ``kind`` (bool, int, float or str) written ``text`` (surrounding
    blanks ignored; a switch in :data:`TRUE_WORDS` / :data:`FALSE_WORDS`, any case).

    :raises ValueError: ``text`` is not of that form, or not one of ``choices`` (when
        given); the message says what is expected (:func:`expected_form`).
    """
    t = str(text).strip()
    try:
        if kind is bool:
            low = t.lower()
            if low in TRUE_WORDS:
                value = True
            elif low in FALSE_WORDS:
                value = False
            else:
                raise ValueError
        elif kind in (int, float, str):
            value = kind(t)
        else:
            raise TypeError(f"parse_value reads bool, int, float or str, not {kind!r}")
    except ValueError:
        raise ValueError(f"expected {expected_form(kind)}") from None
    if choices and value not in choices:
        raise ValueError(f"expected {expected_form(kind, choices)}")
    return value


def format_value(value) -> str:
    """The text :func:`parse_value` reads back as ``value`` (a switch as ``true`` /
    ``false``)."""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
