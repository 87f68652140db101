"""`ludo-flow serve`: a local web page where a person plays an agent (standard library only).

Every browser tab gets its own game (a session). The page sends moves in notation; the server
turns a request into an action only through `State.parse_action` and checks it is legal. A
malformed or illegal request gets a 4xx answer with a JSON message; an unexpected failure a
500 with a one-line message (never a traceback). The agent searches in a worker process of its
session, so a search can be stopped at any time: undo, new game, swap colours, or the page
closing (it says so when it is hidden) terminate the worker, and the next search starts a new one. An open page says it is there
every `idle / 6` seconds (`/api/ping`) however long the person thinks; a session not heard from
for `PlayConfig.idle` seconds (its page gone without saying so) is dropped. A finished game is
appended to the records file as one record (`agents.records`) with an id of its own, which
`ludo-flow replay` opens.

An agent that reports its search (`select_action(state, on_progress=...)`: alpha-beta after
each finished depth, MCTS every `PROGRESS_INTERVAL` seconds) sends each report from the worker
through the pipe its move comes by; the view carries the latest, so the page shows the search
as it goes.

API (JSON in and out; POST bodies must be `application/json`):
    GET  /                   the page
    POST /api/new            {"session"?, "human"?: "white"|"black", "agent"?: SPEC} -> view
    GET  /api/state?s=ID     -> view (the page polls it while the agent thinks; its
                                `progress` is the search's latest report, `progress_figures`)
    POST /api/move           {"session", "move": "b2-b4"} -> view
    POST /api/undo | /api/swap | /api/close    {"session"} -> view ({} for close)
    POST /api/ping           {"session"} -> {"open": whether the server still has the game}
Every error is a JSON {"error": message}, those of the HTTP parsing included; a method other
than GET and POST gets 405.
"""
import json
import multiprocessing
import secrets
import signal
import sys
import threading
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import NamedTuple
from urllib.parse import parse_qs, urlsplit

import ludo_flow

from agents.records import RecordsAppender, check_record, is_gzip, record_line

from .page import asset, drawing_config, script_json

MAX_BODY = 8192
IDLE_SECONDS = 120.0      # a session whose page stopped asking for this long is dropped
HEARTBEATS = 6            # an open page pings this many times an idle period (a hidden tab's
                          # timers may be held to one a minute: still well inside 120 s)
MAX_SESSIONS = 64
SIDES = ("white", "black")
LOOPBACK = ("127.0.0.1", "localhost", "::1")  # the addresses that keep the server on this machine


class PlayConfig(NamedTuple):
    """What `serve` plays: the Game, the default agent spec, the start (position string or
    None, then `after` actions in notation), the records file, where to listen, and the
    seconds after which a session whose page stopped pinging is dropped."""
    game: object
    agent: str
    position: str = None
    after: str = ""
    out: str = "played.jsonl"
    host: str = "127.0.0.1"
    port: int = 8765
    idle: float = IDLE_SECONDS


class RequestError(Exception):
    """A request the server refuses: its HTTP status and a message for the page."""

    def __init__(self, status, message):
        super().__init__(message)
        self.status = status


# ---- the search, in a worker process ------------------------------------------------------------
def _search_worker(conn, game_name, variant, params, spec):
    """Answer (start, words, seed) requests on `conn` with ("ok", move in notation, stats) or
    ("error", message, {}) until closed; while an agent that reports its search (alpha-beta,
    MCTS: `agents.base.report_progress`) thinks, send ("progress", figures) messages first."""
    from agents.base import report_progress
    from agents.registry import make_agent
    from agents.warmup import warm_up
    game = ludo_flow.load_game(game_name, variant, **params)
    agent = make_agent(spec, game)
    # compile (or load) the search before the first request: else a first search from a cold
    # cache spends its time budget compiling and plays after a slice of search
    warm_up(game, game.new_initial_state().to_string(), [spec])
    reports = report_progress(agent)
    seeded = None
    while True:
        try:
            start, words, seed = conn.recv()
        except (EOFError, OSError):
            return
        try:
            if seed != seeded:
                agent.reset(seed)
                seeded = seed
            state = game.from_string(start) if start else game.new_initial_state()
            for w in words:
                state.apply(state.parse_action(w))
            if reports:
                action = agent.select_action(state.clone(), on_progress=_progress_sender(conn, state))
            else:
                action = agent.select_action(state.clone())
            conn.send(("ok", state.action_to_string(action), _plain_stats(state, agent.last_stats)))
        except Exception as err:  # noqa: BLE001 - the page is told, the server goes on
            conn.send(("error", f"{type(err).__name__}: {err}", {}))


def _progress_sender(conn, state):
    """Return an `on_progress` callback sending a search's figures on `conn` as JSON values
    (`progress_figures`). A report that is not a `SearchProgress` of this position (an agent
    of one's own may send anything) is left out: it must not cost the agent its move."""
    def send(info):
        try:
            figures = progress_figures(state, info)
        except (AttributeError, TypeError, ValueError, IndexError, KeyError):
            return
        conn.send(("progress", figures))
    return send


def progress_figures(state, info):
    """Return a `SearchProgress` of a search from `state` as the page shows it: its fields as
    JSON values, the best move and the pv in notation."""
    figures = info._asdict()
    figures["best"] = state.action_to_string(info.best)
    figures["pv"] = list(info.pv)
    return _plain_stats(state, figures)


def _plain_stats(state, stats):
    """Return an agent's last_stats as JSON values (a pv as notation, numbers rounded)."""
    out = {}
    for key, value in stats.items():
        if key == "pv" and isinstance(value, list):
            line, words = state.clone(), []
            for a in value[:12]:
                if not line.is_legal(a):
                    break
                words.append(line.action_to_string(a))
                line.apply(a)
            out[key] = " ".join(words)
        elif isinstance(value, bool) or value is None or isinstance(value, str):
            out[key] = value
        elif isinstance(value, int):
            out[key] = value
        elif isinstance(value, float):
            out[key] = round(value, 4)
    return out


class Searcher:
    """One session's worker process: `start` a search, `poll` for its move (and `progress`,
    the latest figures the search reported), `stop` it."""

    def __init__(self, game, spec):
        self.game, self.spec = game, spec
        self.process = self.conn = None
        self.started = None
        self.progress = None

    def _ensure(self):
        if self.process is not None and self.process.is_alive():
            return
        ctx = multiprocessing.get_context("spawn")
        parent, child = ctx.Pipe()
        self.process = ctx.Process(target=_search_worker, daemon=True, args=(
            child, self.game.name, self.game.variant, dict(self.game.params), self.spec))
        self.process.start()
        child.close()
        self.conn = parent

    def start(self, start, words, seed):
        """Ask for a move in the position `start` + `words` (notation)."""
        self._ensure()
        self.conn.send((start, list(words), seed))
        self.started = time.monotonic()
        self.progress = None

    def poll(self):
        """Return None while thinking (keeping the latest progress report in `progress`), else
        ("ok", move, stats) or ("error", message, {})."""
        if self.started is None:
            return None
        try:
            while True:
                if not self.conn.poll():
                    if not self.process.is_alive():
                        self.started = None
                        return ("error", "the agent's process died", {})
                    return None
                answer = self.conn.recv()
                if answer[0] != "progress":
                    break
                self.progress = answer[1]
        except (EOFError, OSError):
            self.started = None
            self.process = None
            return ("error", "the agent's process died", {})
        self.started = None
        self.progress = None
        return answer

    def stop(self):
        """Stop a running search by ending the worker (the next search starts another)."""
        if self.process is not None:
            if self.started is not None:
                _end(self.process)
                self.process = None
            elif self.conn is not None and self.process is not None and not self.process.is_alive():
                self.process = None
        self.started = None
        self.progress = None

    def close(self):
        """End the worker."""
        if self.process is not None:
            try:
                self.conn.close()
            except OSError:
                pass
            _end(self.process)
            self.process = None
        self.started = None


def _end(process):
    """End a worker: SIGTERM, then SIGKILL if it has not gone within 5 s."""
    process.terminate()
    process.join(5)
    if process.is_alive():
        process.kill()
        process.join(5)


# ---- one game in one tab ------------------------------------------------------------------------
def _move_squares(word):
    """Return (from, to) squares of a move in notation ('b2-b4'; a wash '~a3' is (a3, a3))."""
    from ludo_flow.render import parse_square
    if word.startswith("~"):
        sq = parse_square(word[1:])
        return sq, sq
    a, _, b = word.partition("-")
    return parse_square(a), parse_square(b)


class Session:
    """One tab's game: the start, the moves, which side the person plays, the agent."""

    def __init__(self, server, sid, human, spec):
        self.server, self.id, self.human, self.spec = server, sid, human, spec
        self.lock = threading.RLock()
        self.searcher = Searcher(server.config.game, spec)
        self.seen = time.monotonic()
        self.saves = 0  # records saved from this tab: each gets an id of its own
        self.new_game(human)

    def new_game(self, human=None):
        """Start again from the start position (the person plays `human`: 0 White, 1 Black)."""
        self.searcher.stop()
        if human is not None:
            self.human = human
        self.words, self.stats, self.times = [], [], [0.0, 0.0]
        self.message, self.saved, self.error = "", None, None
        self.seed = secrets.randbelow(1 << 31)
        self.state = self.server.start_state()
        self.think()

    def rebuild(self):
        """Return the state after `self.words` from the start."""
        state = self.server.start_state()
        for w in self.words:
            state.apply(state.parse_action(w))
        return state

    def think(self):
        """Start the agent's search if it is its turn."""
        if not self.state.is_terminal() and self.state.current_player() != self.human:
            self.searcher.start(self.server.start_text, self.server.after + self.words, self.seed)

    def update(self):
        """Collect the agent's move if its search has ended."""
        answer = self.searcher.poll()
        if answer is None:
            return
        kind, text, stats = answer
        if kind != "ok":
            self.error = f"the agent failed: {text}"
            return
        side = self.state.current_player()
        action = self.state.parse_action(text)  # the worker's answer goes through parsing too
        if not self.state.is_legal(action):
            self.error = f"the agent returned an illegal move {text!r}"
            return
        self.times[side] += float(stats.get("time") or 0.0)
        self.play(action, stats)

    def play(self, action, stats=None):
        """Apply a legal action, then save a finished game or let the agent think."""
        self.words.append(self.state.action_to_string(action))
        self.stats.append(stats)
        self.state.apply(action)
        if self.state.is_terminal():
            self.save()
        else:
            self.think()

    def human_move(self, word):
        """Play the person's move (notation); RequestError if it cannot be played now."""
        if self.state.is_terminal():
            raise RequestError(HTTPStatus.CONFLICT, "the game is over: start a new one")
        if self.state.current_player() != self.human:
            raise RequestError(HTTPStatus.CONFLICT, "it is the agent's turn")
        try:
            action = self.state.parse_action(word)
        except ValueError as err:
            raise RequestError(HTTPStatus.UNPROCESSABLE_ENTITY, str(err)) from None
        if not self.state.is_legal(action):
            raise RequestError(HTTPStatus.UNPROCESSABLE_ENTITY, f"{word!r} is not legal here")
        self.play(action)

    def undo(self):
        """Take back the person's last decision and the agent's replies to it. After a saved
        game its record stays; playing on to another end saves another record."""
        self.searcher.stop()
        while self.words:
            if self.rebuild_before_last() == self.human:
                break
        if self.saved is not None:
            self.message = (f"game {self.saved['id']} stays saved; a game finished from here is "
                            f"saved as another one")
        self.saved = None
        self.think()

    def rebuild_before_last(self):
        """Drop the last move; return who had made it."""
        self.words.pop()
        self.stats.pop()
        self.state = self.rebuild()
        return self.state.current_player()

    def swap(self):
        """The person takes the other side; the agent moves if it is now its turn."""
        self.searcher.stop()
        self.human = 1 - self.human
        self.think()

    def save(self):
        """Append the finished game to the records file."""
        outcome = self.state.outcome()
        game = self.server.config.game
        agent_side = 1 - self.human
        names = ["human", "human"]
        names[agent_side] = self.spec
        record = {"id": f"web-{self.id[:8]}-{self.saves + 1}", "version": ludo_flow.__version__,
                  "game": game.name, "variant": game.variant, "params": dict(game.params),
                  "start": self.server.start_text or game.new_initial_state().to_string(),
                  "opening": list(self.server.after), "white": names[0], "black": names[1],
                  "moves": list(self.words), "result": outcome.result,
                  "termination": outcome.termination.value, "forfeit": None, "plies": len(self.words),
                  "time_white": round(self.times[0], 6), "time_black": round(self.times[1], 6)}
        if agent_side == 0:
            record["seed_white"] = self.seed
        else:
            record["seed_black"] = self.seed
        check_record(record)
        try:
            self.server.append_record(record)
            self.saves += 1
            self.saved = {"file": self.server.config.out, "id": record["id"]}
        except OSError as err:
            self.error = f"the record could not be saved: {err.strerror or err}"

    def view(self):
        """Return what the page draws: board, marks, legal moves, status, history."""
        state = self.state
        picture = state.board_picture()
        over = state.is_terminal()
        to_move = None if over else state.current_player()
        legal = []
        if to_move == self.human:
            for a in state.legal_actions():
                word = state.action_to_string(a)
                src, dst = _move_squares(word)
                legal.append([word, src, dst])
        thinking = self.searcher.started is not None
        return {
            "session": self.id, "w": picture["width"], "h": picture["height"],
            "pieces": [[sq, *t] for sq, t in sorted(picture["pieces"].items())],
            "marks": {"last": list(picture["last_move"]), "changed": list(picture["changed"]),
                      "rings": list(picture["rings"]), "barred": picture["barred"]},
            "legal": legal, "human": SIDES[self.human], "to_move": None if over else SIDES[to_move],
            "status": str(state).splitlines()[-1], "over": over,
            "result": state.outcome().result if over else None,
            "moves": [[w, s] for w, s in zip(self.words, self.stats)], "agent": self.spec,
            "thinking": round(time.monotonic() - self.searcher.started, 2) if thinking else None,
            "progress": self.searcher.progress if thinking else None,
            "saved": self.saved, "error": self.error, "message": self.message,
        }


# ---- the HTTP server ----------------------------------------------------------------------------
class PlayServer(ThreadingHTTPServer):
    """The HTTP server: its sessions, the start position, the records file."""

    daemon_threads = True

    def __init__(self, config, quiet=False):
        self.config = config
        self.quiet = quiet
        self.sessions = {}
        self.lock = threading.Lock()
        self.file_lock = threading.Lock()
        game = config.game
        start = game.new_initial_state() if config.position is None else game.from_string(config.position)
        self.start_text = config.position
        self.after = [w for w in (config.after or "").split()]
        start.apply_sequence(" ".join(self.after))
        self.page = play_page(config)
        super().__init__((config.host, config.port), PlayHandler)
        self._reaper = threading.Thread(target=self._reap, daemon=True)
        self._stopping = threading.Event()
        self._reaper.start()

    def start_state(self):
        """Return the start position (the position string, then the `after` actions)."""
        game = self.config.game
        state = game.new_initial_state() if self.start_text is None else game.from_string(self.start_text)
        for w in self.after:
            state.apply(state.parse_action(w))
        return state

    def append_record(self, record):
        """Append one record line to the records file (gzip if its name ends in .gz)."""
        with self.file_lock, open(self.config.out, "ab") as fh:
            writer = RecordsAppender(fh, gz=is_gzip(self.config.out))
            writer.write([record_line(record)])
            writer.close()

    def new_session(self, human, spec):
        """Return a new session (RequestError when there are too many)."""
        with self.lock:
            if len(self.sessions) >= MAX_SESSIONS:
                raise RequestError(HTTPStatus.SERVICE_UNAVAILABLE, "too many games open: close a tab")
            sid = secrets.token_hex(12)
            self.sessions[sid] = None
        session = Session(self, sid, human, spec)
        with self.lock:
            self.sessions[sid] = session
        return session

    def session(self, sid):
        """Return the session `sid` (RequestError 404 if there is none)."""
        found = self.touch(sid)
        if found is None:
            raise RequestError(HTTPStatus.NOT_FOUND, "no such game (it may have been closed): reload the page")
        return found

    def touch(self, sid):
        """Note that the page of session `sid` is open; return the session (None if there is none)."""
        with self.lock:
            found = self.sessions.get(sid) if isinstance(sid, str) else None
        if found is not None:
            found.seen = time.monotonic()
        return found

    def close_session(self, sid):
        """Stop and forget a session."""
        with self.lock:
            found = self.sessions.pop(sid, None) if isinstance(sid, str) else None
        if found is not None:
            with found.lock:
                found.searcher.close()

    def _reap(self):
        """Every two seconds (or a quarter of the idle time): drop the sessions whose page is
        gone, and collect the others' search reports and moves (a page that stops polling must
        not leave a worker blocked on a full pipe)."""
        limit = self.config.idle
        while not self._stopping.wait(min(2.0, limit / 4)):
            now = time.monotonic()
            with self.lock:
                idle = [sid for sid, s in self.sessions.items() if s is not None and now - s.seen > limit]
                live = [s for s in self.sessions.values() if s is not None and now - s.seen <= limit]
            for sid in idle:
                self._reaping(self._drop_if_idle, sid)
            for session in live:
                self._reaping(_update, session)

    def _drop_if_idle(self, sid):
        """Close session `sid` unless a request is being answered for it (building an answer
        may compile kernels for longer than the idle time, before the page can ping)."""
        with self.lock:
            session = self.sessions.get(sid)
        if session is None or not session.lock.acquire(blocking=False):
            return
        try:
            idle = time.monotonic() - session.seen > self.config.idle
        finally:
            session.lock.release()
        if idle:
            self.close_session(sid)

    @staticmethod
    def _reaping(job, arg):
        """Run one of the reaper's jobs; an error is printed and the reaper goes on (were it to
        stop, pages gone without saying so would keep their workers)."""
        try:
            job(arg)
        except Exception as err:  # noqa: BLE001 - the reaper goes on
            sys.stderr.write(f"ludo-flow serve: {type(err).__name__}: {err}\n")

    def server_close(self):
        """Stop the reaper and every session's worker, then close the socket."""
        self._stopping.set()
        with self.lock:
            sids = list(self.sessions)
        for sid in sids:
            self.close_session(sid)
        super().server_close()


def _update(session):
    """Collect a session's search reports and move under its lock."""
    with session.lock:
        session.update()


class PlayHandler(BaseHTTPRequestHandler):
    """Routes the page's requests to sessions; every answer is JSON except the page itself."""

    server_version = "ludo-flow"
    sys_version = ""

    def log_message(self, fmt, *args):
        if not self.server.quiet:
            sys.stderr.write("# %s %s\n" % (self.address_string(), fmt % args))

    def _send(self, status, body, kind="application/json", headers=()):
        data = body.encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", kind + "; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        self.send_header("X-Frame-Options", "DENY")
        for name, value in headers:
            self.send_header(name, value)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)

    def send_error(self, code, message=None, explain=None):
        """Answer an error as JSON, those http.server finds itself included (a bad request
        line 400, a too long one 414, too many headers 431, an unknown method 501)."""
        try:
            phrase = HTTPStatus(code).phrase
        except ValueError:
            phrase = ""
        self.close_connection = True
        if self.request_version == "HTTP/0.9":  # a request line it could not read: still say the status
            self.request_version = "HTTP/1.0"
        self._send(code, json.dumps({"error": message or phrase}), headers=[("Connection", "close")])

    def _json(self, status, value):
        self._send(status, json.dumps(value))

    def _body(self):
        if self.headers.get_content_type() != "application/json":
            raise RequestError(HTTPStatus.UNSUPPORTED_MEDIA_TYPE, "send JSON (Content-Type: application/json)")
        try:
            length = int(self.headers.get("Content-Length", "0"))
        except ValueError:
            raise RequestError(HTTPStatus.BAD_REQUEST, "a bad Content-Length") from None
        if not 0 <= length <= MAX_BODY:
            raise RequestError(HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"a request body is at most {MAX_BODY} bytes")
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw.decode("utf-8")) if raw else {}
        except (UnicodeDecodeError, ValueError):
            raise RequestError(HTTPStatus.BAD_REQUEST, "the body is not JSON") from None
        if not isinstance(body, dict):
            raise RequestError(HTTPStatus.BAD_REQUEST, "the body must be a JSON object")
        return body

    def _check_host(self):
        """Refuse a Host header naming another site while bound to a loopback address (a
        web page elsewhere reaching this server through DNS rebinding)."""
        if self.server.config.host not in LOOPBACK:
            return
        host = (self.headers.get("Host") or "").rsplit(":", 1)[0].strip("[]")
        if host not in LOOPBACK:
            raise RequestError(HTTPStatus.FORBIDDEN, "this server answers only local pages")

    def _handle(self, method):
        try:
            self._check_host()
            path = urlsplit(self.path)
            if method == "GET" and path.path in ("/", "/index.html"):
                self._send(HTTPStatus.OK, self.server.page, "text/html")
                return
            if method == "GET" and path.path == "/api/state":
                sid = parse_qs(path.query).get("s", [None])[0]
                session = self.server.session(sid)
                with session.lock:
                    session.update()
                    self._answer(session)
                return
            if method == "POST" and path.path.startswith("/api/"):
                self._post(path.path[5:], self._body())
                return
            raise RequestError(HTTPStatus.NOT_FOUND, f"no such page: {path.path[:80]}")
        except RequestError as err:
            self._json(err.status, {"error": str(err)})
        except (BrokenPipeError, ConnectionResetError):
            pass
        except Exception as err:  # noqa: BLE001 - one line, no traceback, the server goes on
            sys.stderr.write(f"ludo-flow serve: {type(err).__name__}: {err}\n")
            try:
                self._json(HTTPStatus.INTERNAL_SERVER_ERROR, {"error": f"internal error: {type(err).__name__}"})
            except OSError:
                pass

    def _post(self, action, body):
        server = self.server
        if action == "new":
            human = body.get("human", "white")
            if human not in SIDES:
                raise RequestError(HTTPStatus.BAD_REQUEST, "human must be 'white' or 'black'")
            spec = body.get("agent") or server.config.agent
            if not isinstance(spec, str) or len(spec) > 200:
                raise RequestError(HTTPStatus.BAD_REQUEST, "agent must be an agent spec")
            try:
                from agents.registry import make_agent
                make_agent(spec, server.config.game)
            except ValueError as err:
                raise RequestError(HTTPStatus.BAD_REQUEST, str(err)) from None
            old = body.get("session")
            if isinstance(old, str) and old:
                server.close_session(old)
            session = server.new_session(SIDES.index(human), spec)
            with session.lock:
                self._answer(session)
            return
        if action == "close":
            server.close_session(body.get("session"))
            self._json(HTTPStatus.OK, {})
            return
        if action == "ping":  # not a 404 for a game just closed: a ping may cross its new game
            self._json(HTTPStatus.OK, {"open": server.touch(body.get("session")) is not None})
            return
        session = server.session(body.get("session"))
        with session.lock:
            session.update()
            if action == "move":
                word = body.get("move")
                if not isinstance(word, str) or not 0 < len(word) <= 16:
                    raise RequestError(HTTPStatus.BAD_REQUEST, "move must be a move in notation, like 'b2-b4'")
                session.human_move(word)
            elif action == "undo":
                session.undo()
            elif action == "swap":
                session.swap()
            else:
                raise RequestError(HTTPStatus.NOT_FOUND, f"no such request: {action[:40]}")
            self._answer(session)

    def _answer(self, session):
        """Send the view of `session`; its page was answered now, so its idle time starts now."""
        self._json(HTTPStatus.OK, session.view())
        session.seen = time.monotonic()

    def do_GET(self):  # noqa: N802 - the name http.server calls
        self._handle("GET")

    def do_POST(self):  # noqa: N802
        self._handle("POST")

    def _not_allowed(self):
        self._send(HTTPStatus.METHOD_NOT_ALLOWED, json.dumps({"error": f"{self.command} is not "
                   "served here: only GET and POST"}), headers=[("Allow", "GET, POST")])

    do_HEAD = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = _not_allowed


def play_page(config):
    """Return the play page (self-contained: style, drawing code and page code inline)."""
    settings = {"config": drawing_config(), "game": config.game.name, "agent": config.agent,
                "out": config.out, "heartbeat_ms": round(1000 * config.idle / HEARTBEATS)}
    return PLAY_PAGE.format(css=asset("viewer.css"), js=asset("viewer.js"), play=asset("play.js"),
                            settings=script_json(settings))


def exposure_warning(config):
    """Return the line `serve` prints when it listens beyond this machine (None on loopback):
    the page has no login, so whoever reaches the port plays the agent on this machine's cores
    and adds games to the records file."""
    if config.host in LOOPBACK:
        return None
    return (f"# warning: listening on {config.host}, not only this machine: anyone who can reach "
            f"port {config.port} can play here (this machine's cores) and add games to "
            f"{config.out}; --host 127.0.0.1 keeps it local")


def make_server(config, quiet=False):
    """Return a PlayServer bound to config.host:config.port (port 0: any free port)."""
    return PlayServer(config, quiet=quiet)


def _stop(signum, frame):
    raise KeyboardInterrupt


def serve(config):
    """Serve the play page until Ctrl-C or SIGTERM (both end every worker before returning)."""
    server = make_server(config)
    if threading.current_thread() is threading.main_thread():
        signal.signal(signal.SIGTERM, _stop)
    host, port = server.server_address[:2]
    print(f"# playing {config.agent} at {config.game.name}: open http://{host}:{port}/ "
          f"(Ctrl-C stops; finished games go to {config.out})", file=sys.stderr, flush=True)
    warning = exposure_warning(config)
    if warning:
        print(warning, file=sys.stderr, flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


PLAY_PAGE = """<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src 'self'; img-src data:">
<title>ludo_flow: play</title>
<style>body {{ margin: 0; background: #fff; }} {css}</style></head>
<body><div id="play" class="lfv"></div>
<script type="application/json" id="play-settings">{settings}</script>
<script>{js}
{play}</script></body></html>
"""
