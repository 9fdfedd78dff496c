"""The ASGI application of ``coinche-rl serve`` (``coinche_rl.web.app``; Starlette).

HTTP (JSON in, JSON out; a refused request is a 400 whose ``error`` says why):

==========================================  =================================================
``GET /``                                   the page (``static/index.html``)
``GET /api/meta``                           cards, suits, strains, presets (their families),
                                            agents (by family), defaults
``GET /api/library``                        records of the records folder, results files
``GET /api/records/NAME``                   one record of the records folder
``POST /api/replay``                        ``{record}`` -> the record's deals and their moves
``POST /api/position``                      ``{record, deal, step, show}`` -> the table there
``POST /api/analyse``                       ``{record, deal, step, worlds, seed, agents}``
                                            -> a row per legal action (a search)
``POST /api/branch``                        ``{record, deal, step, action, agents, seed}``
                                            -> a new deal record played on by the agents
``GET /api/results/NAME``                   a results file's tables and deal pairs
``GET /api/results/NAME/RUN/I``             deal pair I played again (two deal records)
==========================================  =================================================

Every rule family is served by the same endpoints and messages: four players (coinche,
the classic family) and belote for two players (``belote_a_deux``,
``belote_decouverte``); a view says its ``n_players``. ``show`` is ``"all"`` or a list
of the seats whose hands to send. The searches
(analysis, branch, deal pairs) run in worker threads, at most ``searches`` at once
(:class:`anyio.CapacityLimiter`), each with its own :class:`~coinche_rl.web.analysis.Analyser`.
The games' bots and record writes run in worker threads of their own (at most
``searches`` at once too), so that a game never waits behind an analysis
(``benchmarks/bench_web.py --load``).

The socket ``/ws`` plays games (one per connection), JSON messages both ways:

* ``{"type": "new", "seat", "partner", "opponents", "rules", "seed", "deals" | "match",
  "pace"}`` starts a game (:func:`coinche_rl.web.play.parse_settings`; ``pace``: seconds
  between two bot actions, for the eye, 0 by default);
* ``{"type": "act", "action": ID or TEXT}`` the person's action;
* ``{"type": "next"}`` the next deal once one is over; ``{"type": "state"}`` the view
  again; ``{"type": "record"}`` the record of the finished deals.

The server answers ``{"type": "state", "view": ...}`` after every action (the bots' one
by one), ``{"type": "record", "record", "name"}``, or ``{"type": "error", "message",
"reply_to"}``: a malformed, unknown, out-of-turn or illegal message changes nothing and
the connection stays open (binary data, JSON nested too deep and messages over
:data:`MAX_MESSAGE` bytes included; a request body too, with a 400). An error quotes
the refused value, cut to :data:`MAX_ERROR` characters. ``tests/test_web_fuzz.py``
fuzzes both. The view is :meth:`coinche_rl.web.play.PlaySession.view`:
what the person's seat may see, nothing more. The record of a game is written to the
records folder after each of its deals.
"""

from __future__ import annotations

import asyncio
import json
import logging
import os
from typing import Any, Dict, Optional, Sequence

import anyio
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route, WebSocketRoute
from starlette.staticfiles import StaticFiles
from starlette.websockets import WebSocket, WebSocketDisconnect

from ..agents import available_agents
from ..engine.family import FAMILIES, family_of
from ..game import IllegalActionError
from ..records import RecordError
from ..rules import RuleSet, get_rules, rules_label
from . import analysis as AN
from .library import Library, LibraryError
from .play import PlaySession, ProtocolError, parse_settings
from .views import meta, table_view

__all__ = ["create_app", "STATIC"]

logger = logging.getLogger(__name__)

#: the page's files (package data)
STATIC = os.path.join(os.path.dirname(os.path.abspath(__file__)), "static")

#: the longest pause between two bot actions a game may ask for (seconds)
MAX_PACE = 3.0

#: the largest request body or socket message read (bytes; a match record of a thousand
#: deals is about 2 MB)
MAX_MESSAGE = 8 * 2 ** 20

#: the longest error message sent (a refused value is quoted in it, cut to fit)
MAX_ERROR = 500


class BadRequest(ValueError):
    """A request body that is not the JSON object an endpoint expects."""


def _clip(message: str) -> str:
    return message if len(message) <= MAX_ERROR else message[:MAX_ERROR - 3] + "..."


def _error(message: str, status: int = 400) -> JSONResponse:
    return JSONResponse({"error": _clip(message)}, status_code=status)


def _json(raw, what: str, not_json: str) -> Any:
    """``raw`` (text or bytes: ``what``) parsed. :raises BadRequest: too large, or not
    JSON (``not_json``: the error's start), nested too deep included."""
    if len(raw) > MAX_MESSAGE:
        raise BadRequest(f"{what} is too large: more than {MAX_MESSAGE} bytes")
    try:
        return json.loads(raw)
    except ValueError as e:
        raise BadRequest(f"{not_json}: {e}") from None
    except RecursionError:
        raise BadRequest(f"{not_json}: nested too deep to read") from None


async def _body(request: Request) -> Dict[str, Any]:
    raw = bytearray()
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > MAX_MESSAGE:
            break
    body = _json(bytes(raw), "the request body", "the request body is not JSON")
    if not isinstance(body, dict):
        raise BadRequest(f"the request body must be a JSON object, got {type(body).__name__}")
    return body


def _field(body: Dict[str, Any], key: str, default: Any = ...):
    if key not in body:
        if default is ...:
            raise BadRequest(f"missing field {key!r}")
        return default
    return body[key]


def _show(value: Any, n_players: int):
    if value == "all":
        return tuple(range(n_players))
    if isinstance(value, list) and all(isinstance(s, int) and not isinstance(s, bool)
                                       and 0 <= s < n_players for s in value):
        return tuple(value)
    raise BadRequest(f"show: expected \"all\" or a list of seats 0..{n_players - 1}, got "
                     f"{value!r}")


def create_app(rules: Optional[RuleSet] = None, *, records: Optional[str] = None,
               results: Sequence[str] = (), searches: int = 2,
               worlds: int = AN.DEFAULT_WORLDS) -> Starlette:
    """The application (see the module docstring).

    :param rules: the rules a new game and the page start with (default ``ffb``; a
        preset of any family).
    :param records: the records folder (games are saved there; records and results files
        there are listed), or None.
    :param results: more results files (or folders of them) to list.
    :param searches: the most searches (analysis, branch, deal pair) running at once.
    :param worlds: the PIMC worlds of an analysis unless the page asks otherwise.
    """
    rules = get_rules("ffb" if rules is None else rules)
    if searches < 1:
        raise ValueError(f"searches must be at least 1, got {searches!r}")
    library = Library(records, results)
    limiter = anyio.CapacityLimiter(searches)
    play_limiter = anyio.CapacityLimiter(searches)
    pool = AN.AnalyserPool(searches)

    async def search(fn, *args):
        return await anyio.to_thread.run_sync(fn, *args, limiter=limiter)

    async def play(fn, *args):
        return await anyio.to_thread.run_sync(fn, *args, limiter=play_limiter)

    def handle(endpoint):
        async def wrapped(request: Request) -> Response:
            try:
                return JSONResponse(await endpoint(request))
            except (BadRequest, RecordError, AN.AnalysisError, LibraryError, ProtocolError) as e:
                return _error(str(e))
        wrapped.__name__ = endpoint.__name__
        return wrapped

    async def index(request: Request) -> Response:
        return FileResponse(os.path.join(STATIC, "index.html"))

    async def api_meta(request: Request):
        out = meta()
        out.update({"agents": available_agents(rules), "rules": rules_label(rules),
                    "agents_by_family": {f: available_agents(f)
                                         for f in FAMILIES},
                    "worlds": worlds, "max_worlds": AN.MAX_WORLDS,
                    "choosers": list(AN.DEFAULT_CHOOSERS), "searches": searches,
                    "records": library.records})
        return out

    async def api_library(request: Request):
        return library.listing()

    async def api_record(request: Request):
        return library.record(request.path_params["name"])

    async def api_replay(request: Request):
        body = await _body(request)
        rec = _field(body, "record")
        rules_, deals = AN.checked_deals(rec)
        return {"kind": "match" if rec.get("format") == "coinche-rl/match" else "deal",
                "rules": rules_label(rules_), "n_players": family_of(rules_).n_players,
                "deals": AN.timeline(rec)}

    async def api_position(request: Request):
        body = await _body(request)
        deal = AN.deal_at(_field(body, "record"), _field(body, "deal", 0), _field(body, "step"))
        view = table_view(deal, _show(_field(body, "show", "all"),
                                      family_of(deal.rules).n_players))
        view["step"] = len(deal.history)
        return view

    async def api_analyse(request: Request):
        body = await _body(request)
        rec, index, step = _field(body, "record"), _field(body, "deal", 0), _field(body, "step")
        kwargs = {"worlds": _field(body, "worlds", worlds), "seed": _field(body, "seed", 0),
                  "choosers": _field(body, "agents", None)}

        def run():
            with pool.take() as an:
                return AN.analyse(an, rec, index, step, **kwargs)
        return await search(run)

    async def api_branch(request: Request):
        body = await _body(request)
        args = (_field(body, "record"), _field(body, "deal", 0), _field(body, "step"),
                _field(body, "action"), _field(body, "agents"), _field(body, "seed", 0))
        return {"record": await search(AN.branch, *args)}

    async def api_results(request: Request):
        return await search(library.tournament, request.path_params["name"])

    async def api_pair(request: Request):
        p = request.path_params
        return await search(library.pair, p["name"], p["run"], int(p["i"]))

    async def play_socket(ws: WebSocket) -> None:
        await ws.accept()
        game = _Game(ws, rules, library, play)
        try:
            while True:
                message = await ws.receive()
                if message["type"] == "websocket.disconnect":
                    return
                text = message.get("text")
                if text is None:
                    await game.error("a message must be JSON text, not binary data")
                else:
                    await game.handle(text)
        except WebSocketDisconnect:
            return

    routes = [
        Route("/", index),
        Route("/api/meta", handle(api_meta)),
        Route("/api/library", handle(api_library)),
        Route("/api/records/{name}", handle(api_record)),
        Route("/api/replay", handle(api_replay), methods=["POST"]),
        Route("/api/position", handle(api_position), methods=["POST"]),
        Route("/api/analyse", handle(api_analyse), methods=["POST"]),
        Route("/api/branch", handle(api_branch), methods=["POST"]),
        Route("/api/results/{name}", handle(api_results)),
        Route("/api/results/{name}/{run}/{i:int}", handle(api_pair)),
        WebSocketRoute("/ws", play_socket),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes)
    app.state.library = library
    app.state.pool = pool
    return app


class _Game:
    """One connection's game: reads a message, answers, plays the bots."""

    def __init__(self, ws: WebSocket, rules: RuleSet, library: Library, play):
        self.ws = ws
        self.rules = rules
        self.library = library
        self.play = play                   # runs a bot step or a write in a worker thread
        self.session: Optional[PlaySession] = None
        self.pace = 0.0
        self.name: Optional[str] = None
        self.saved_deals = 0

    async def send(self, obj: Dict[str, Any]) -> None:
        await self.ws.send_text(json.dumps(obj))

    async def error(self, message: str, reply_to: Any = None) -> None:
        await self.send({"type": "error", "message": _clip(message), "reply_to": reply_to})

    async def state(self) -> None:
        await self.send({"type": "state", "view": self.session.view(), "record_name": self.name})

    async def handle(self, text: str) -> None:
        try:
            msg = _json(text, "the message", "not a JSON message")
        except BadRequest as e:
            await self.error(str(e))
            return
        if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
            await self.error("a message must be a JSON object with a \"type\" (new, act, next, "
                             "state, record)")
            return
        kind = msg["type"]
        try:
            if kind == "new":
                await self.new(msg)
            elif kind in ("act", "next", "state", "record"):
                if self.session is None:
                    raise ProtocolError(f"no game yet: send {{\"type\": \"new\", ...}} before "
                                        f"{kind!r}")
                await getattr(self, "on_" + kind)(msg)
            else:
                raise ProtocolError(f"unknown message type {kind!r}: expected new, act, next, "
                                    f"state or record")
        except ProtocolError as e:
            await self.error(str(e), kind)
        except IllegalActionError as e:                # a bot's illegal action
            await self.error(f"a bot failed: {e}", kind)
        except WebSocketDisconnect:                    # the person left: the game ends
            raise
        except Exception as e:                         # a fault of ours: said, not fatal
            logger.exception("coinche-rl serve: %s message failed", kind)
            await self.error(f"internal error on {kind!r}: {type(e).__name__}: {e}", kind)

    async def new(self, msg: Dict[str, Any]) -> None:
        pace = msg.pop("pace", 0)
        if isinstance(pace, bool) or not isinstance(pace, (int, float)) or not 0 <= pace <= MAX_PACE:
            raise ProtocolError(f"pace: expected seconds 0..{MAX_PACE:g}, got {pace!r}")
        settings = parse_settings(msg, self.rules)
        session = await self.play(PlaySession, settings)
        self.session, self.pace = session, float(pace)
        self.name, self.saved_deals = self.library.new_name(), 0
        await self.state()
        await self.bots()

    async def bots(self) -> None:
        """The bots act until the person is to act or the deal is over, a view sent after
        each action; the record saved when a deal ends, before the view that shows its
        end (a person who leaves on seeing it leaves a saved record)."""
        s = self.session
        while s.waiting == "bots":
            if self.pace:
                await asyncio.sleep(self.pace)
            await self.play(s.bot_step)
            await self.save()
            await self.state()

    async def save(self) -> None:
        s = self.session
        if s.deals_played == self.saved_deals:
            return
        self.saved_deals = s.deals_played
        try:
            await self.play(self.library.save, self.name, s.record())
        except OSError as e:
            await self.error(f"the record could not be saved: {e}", "save")

    async def on_act(self, msg: Dict[str, Any]) -> None:
        if "action" not in msg:
            raise ProtocolError("act: missing field 'action' (an action id or its text)")
        self.session.person_act(msg["action"])
        await self.save()
        await self.state()
        await self.bots()

    async def on_next(self, msg: Dict[str, Any]) -> None:
        self.session.next_deal()
        await self.state()
        await self.bots()

    async def on_state(self, msg: Dict[str, Any]) -> None:
        await self.state()

    async def on_record(self, msg: Dict[str, Any]) -> None:
        rec = self.session.record()
        if rec is None:
            raise ProtocolError("no record yet: a record holds finished deals only")
        await self.send({"type": "record", "record": rec, "name": self.name})
