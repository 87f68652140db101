"""Adjudication: ending a decided game early from the scores the agents report, as fastchess's
`-resign`, `-draw` and `-maxmoves` do.

Rules, each written as one word (the command line's `--adjudicate` takes several):

    resign=SCORE,moves=N[,twosided]   a side whose own score is <= -SCORE on N of its moves in a
                                      row loses; with `twosided` only if the opponent's score is
                                      >= SCORE on its last N moves too (both agree)
    draw=SCORE,moves=N[,after=PLY]    a draw once both sides' scores are within +-SCORE on N
                                      moves each in a row, from ply PLY on (default 0)
    max-plies=N                       a draw after N plies of the agents (the opening not counted)
    solved[,nodes=N]                  Flow only: after every move, df-pn (`ludo_flow.solve`) tries
                                      to prove the position's value in at most N nodes a search
                                      (default 20,000); a proven win ends the game won, a draw
                                      proven under the game's max_turns ends it drawn, with
                                      termination `solved` (the result says which)

A score is what the mover's agent reported for its move (`last_stats["score"]`, from its own
view: alpha-beta's evaluation in (-1, 1), 1000 - p for a win found p plies down). A move
without a score (an agent that reports none, or a forced move) neither counts nor breaks a run.
Moves are decisions: in Flow a turn's two steps are two moves of one side. A game the score
rules end is recorded with termination `adjudicated_win` or `adjudicated_draw`, one the solved
rule ends with termination `solved` (a proof, not an agent's judgement; records written before
it existed say `adjudicated_win` / `adjudicated_draw` with rule solved, and read as before).
Either way the record's `adjudication` field is {rule, ply, scores: {white: [...], black: [...]}}
(the last scores of each side that decided it; the solved rule reads no scores, and records the
nodes df-pn spent on the proof instead).
"""
import math

from ludo_flow.errors import LudoFlowError

RULES = ("resign", "draw", "max_plies", "solved")
TERMINATIONS = ("adjudicated_win", "adjudicated_draw")  # of the score rules and max-plies
SOLVED = "solved"  # the solved rule's termination, a win or a draw as the result says
MAX_MOVES = 1000
MAX_PLIES = 10 ** 6
SOLVED_NODES = 20_000          # df-pn nodes a search of the solved rule, by default
MAX_SOLVED_NODES = 10 ** 9
SOLVED_MEMORY = 8 << 20        # the solved rule's df-pn table, one a game
SIDES = ("white", "black")


class AdjudicationError(LudoFlowError):
    """An adjudication rule is malformed, or cannot be applied (no scores to read)."""


def _number(rule, key, value, low, whole=False):
    try:
        out = int(value) if whole else float(value)
    except (TypeError, ValueError):
        kind = "a whole number" if whole else "a number"
        raise AdjudicationError(f"--adjudicate {rule}: {key} must be {kind}, got {value!r}") from None
    if isinstance(value, bool) or (not whole and not math.isfinite(out)):
        raise AdjudicationError(f"--adjudicate {rule}: {key} must be a finite number, got {value!r}")
    top = MAX_MOVES if key == "moves" else MAX_SOLVED_NODES if rule == "solved" else MAX_PLIES
    if whole and not low <= out <= top:
        raise AdjudicationError(f"--adjudicate {rule}: {key} must be in [{low}, {top}], got {out}")
    if not whole and not out >= low:
        raise AdjudicationError(f"--adjudicate {rule}: {key} must be >= {low:g}, got {value!r}")
    return out


def _word(word):
    """Return (rule, settings) of one word such as `resign=0.9,moves=4,twosided`."""
    items = []
    for part in str(word).split(","):
        part = part.strip()
        if part:
            key, sep, value = part.partition("=")
            items.append((key.strip().replace("_", "-"), value.strip() if sep else None))
    if not items:
        raise AdjudicationError("--adjudicate takes resign=SCORE,moves=N[,twosided], "
                                "draw=SCORE,moves=N[,after=PLY], max-plies=N or solved[,nodes=N]")
    rule, value = items[0]
    allowed = {"resign": ("moves", "twosided"), "draw": ("moves", "after"), "max-plies": (),
               "solved": ("nodes",)}
    if rule not in allowed:
        raise AdjudicationError(f"--adjudicate: unknown rule {rule!r}; a word starts with resign=, "
                                f"draw=, max-plies= or solved")
    if rule == "solved":
        return "solved", _solved_settings(word, items)
    if rule == "max-plies":
        if len(items) > 1:
            raise AdjudicationError(f"--adjudicate max-plies takes no settings, got {word!r}")
        return "max_plies", _number(rule, "max-plies", value, 1, whole=True)
    out = {"score": _number(rule, rule, value, 0.0)}
    if rule == "resign" and out["score"] <= 0:
        raise AdjudicationError(f"--adjudicate resign: the score must be > 0, got {value!r}")
    for key, val in items[1:]:
        if key not in allowed[rule]:
            raise AdjudicationError(f"--adjudicate {rule}: unknown setting {key!r}; allowed: "
                                    f"{', '.join(allowed[rule])}")
        if key in out:
            raise AdjudicationError(f"--adjudicate {rule}: {key} given twice")
        if key == "twosided":
            if val not in (None, "true", "1"):
                raise AdjudicationError(f"--adjudicate resign: twosided takes no value, got {val!r}")
            out[key] = True
        else:
            out[key] = _number(rule, key, val, 0 if key == "after" else 1, whole=True)
    if "moves" not in out:
        raise AdjudicationError(f"--adjudicate {rule} needs moves=N, e.g. {rule}={value},moves=4")
    if rule == "resign":
        out.setdefault("twosided", False)
    else:
        out.setdefault("after", 0)
    return rule, out


def _solved_settings(word, items):
    """Return {nodes} of a `solved[,nodes=N]` word's items."""
    if items[0][1] is not None:
        raise AdjudicationError(f"--adjudicate solved takes no value; write solved or solved,nodes=N, "
                                f"got {word!r}")
    out = {}
    for key, val in items[1:]:
        if key != "nodes":
            raise AdjudicationError(f"--adjudicate solved: unknown setting {key!r}; allowed: nodes")
        if key in out:
            raise AdjudicationError("--adjudicate solved: nodes given twice")
        out[key] = _number("solved", key, val, 1, whole=True)
    out.setdefault("nodes", SOLVED_NODES)
    return out


def parse_adjudication(words):
    """Return the rules {resign: {score, moves, twosided}, draw: {score, moves, after},
    max_plies: N, solved: {nodes}} (only those given) of words, one string, or such a dict
    (checked again)."""
    if isinstance(words, dict):
        words = [_dict_word(rule, value) for rule, value in words.items()]
    elif isinstance(words, str):
        words = [words]
    elif not isinstance(words, (list, tuple)) or not words:
        raise AdjudicationError(f"adjudicate takes words such as 'resign=0.9,moves=4', got {words!r}")
    rules = {}
    for word in words:
        rule, settings = _word(word)
        if rule in rules:
            raise AdjudicationError(f"--adjudicate: the {rule.replace('_', '-')} rule is given twice")
        rules[rule] = settings
    return rules


def _dict_word(rule, value):
    """Return the word of one rule of a parsed dict."""
    if rule == "max_plies":
        return f"max-plies={value}"
    if rule not in RULES or not isinstance(value, dict):
        raise AdjudicationError(f"unknown adjudication rule {rule!r}; allowed: {', '.join(RULES)}")
    if rule == "solved":
        return ",".join(["solved"] + [f"{k}={v}" for k, v in value.items()])
    parts = [f"{rule}={value.get('score')}"] + [f"{k}={v}" for k, v in value.items()
                                                 if k not in ("score", "twosided")]
    return ",".join(parts + (["twosided"] if value.get("twosided") else []))


def needs_scores(rules):
    """Return how many sides of a game must report scores for the rules to act: 0 (max-plies
    or solved alone), 1 (a one-sided resign) or 2 (a draw or a two-sided resign)."""
    if "draw" in rules or rules.get("resign", {}).get("twosided"):
        return 2
    return 1 if "resign" in rules else 0


class Adjudicator:
    """Follows one game's scores move by move; `add` returns the verdict once a rule ends it."""

    def __init__(self, rules):
        self.rules = rules
        self.low = [0, 0]     # moves in a row with the side's score <= -resign score
        self.high = [0, 0]    # ... >= +resign score
        self.near = [0, 0]    # ... within +-draw score
        self.recent = ([], [])
        self.keep = max([r["moves"] for r in (rules.get("resign"), rules.get("draw")) if r] or [0])

    def add(self, side, score, ply):
        """Count the move of `side` (0 White, 1 Black) with its reported score (None: none),
        the game's `ply`-th; return None or the verdict {result, termination, rule, ply, scores}."""
        if score is not None:
            resign, draw = self.rules.get("resign"), self.rules.get("draw")
            if resign is not None:
                self.low[side] = self.low[side] + 1 if score <= -resign["score"] else 0
                self.high[side] = self.high[side] + 1 if score >= resign["score"] else 0
            if draw is not None:
                self.near[side] = self.near[side] + 1 if abs(score) <= draw["score"] else 0
            self.recent[side].append(score)
            del self.recent[side][:-self.keep]
        return self.verdict(ply)

    def verdict(self, ply):
        """Return the verdict at this ply, or None while no rule ends the game."""
        resign, draw = self.rules.get("resign"), self.rules.get("draw")
        if resign is not None:
            n = resign["moves"]
            for side in (0, 1):
                if self.low[side] >= n and (not resign["twosided"] or self.high[1 - side] >= n):
                    return self._verdict("resign", ("0-1", "1-0")[side], ply, n)
        if draw is not None and ply >= draw["after"] and min(self.near) >= draw["moves"]:
            return self._verdict("draw", "1/2-1/2", ply, draw["moves"])
        if "max_plies" in self.rules and ply >= self.rules["max_plies"]:
            return self._verdict("max_plies", "1/2-1/2", ply, 0)
        return None

    def _verdict(self, rule, result, ply, n):
        scores = {name: self.recent[i][-n:] if n else [] for i, name in enumerate(SIDES)}
        return {"result": result, "termination": TERMINATIONS[result == "1/2-1/2"], "rule": rule,
                "ply": ply, "scores": scores}


class SolvedJudge:
    """The solved rule: ends a Flow game once df-pn proves the value of its position."""

    def __init__(self, settings):
        self.nodes = settings["nodes"]
        self.prover = None

    def verdict(self, state, ply):
        """Return the verdict {result, termination, rule, ply, scores, nodes} if df-pn proves
        the value of the ongoing `state` (after the game's `ply`-th move), else None."""
        from ludo_flow.solve import Prover, settle
        if self.prover is None:  # a table of the game's own, kept from move to move, so where a
            self.prover = Prover(SOLVED_MEMORY)  # game is cut depends on its moves alone
        prover = self.prover
        before = prover.nodes
        value = settle(state, self.nodes, prover)
        if value is None:
            return None
        mover = state.current_player()
        result = ("1/2-1/2" if value == "draw"
                  else ("1-0", "0-1")[mover if value == "win" else 1 - mover])
        return {"result": result, "termination": SOLVED, "rule": "solved", "ply": ply, "scores": {},
                "nodes": prover.nodes - before}


def check_solved_game(rules, game):
    """Refuse the solved rule for a game the solver does not play (only Flow's)."""
    if "solved" in rules and game != "flow":
        raise AdjudicationError(f"--adjudicate solved needs the Flow solver; {game} has none")


def adjudicate_record(record, rules):
    """Return the verdict the rules would have given in a recorded game (from its `search`
    scores, moves replayed to know each mover), or None if they let it run to its end."""
    from .records import replay_states
    rules = parse_adjudication(rules)
    check_solved_game(rules, record.get("game", "flow"))
    scores = (record.get("search") or {}).get("score") or [None] * len(record.get("moves", []))
    judge = Adjudicator(rules)
    solved = SolvedJudge(rules["solved"]) if "solved" in rules else None
    mover = None
    for ply, word, state in replay_states(record):
        if word is not None:
            if state.is_terminal():
                return None
            verdict = judge.add(mover, scores[ply - 1], ply)
            if verdict is None and solved is not None:
                verdict = solved.verdict(state, ply)
            if verdict is not None:
                return verdict
        mover = state.current_player()
    return None
