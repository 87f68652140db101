"""Proof certificates of solved Flow positions, and their checker over the reference engine.

A certificate (gzip JSON) holds one or two *claims*, each a strategy for one side:
- `"target": "win"`: the side wins whatever the opponent does;
- `"target": "not_lose"`: the side wins or draws whatever the opponent does.
The certificate's `value` is for the side to move: a won position needs one claim (that side,
win), a lost one one claim (the other side, win), a draw two (each side, not_lose). Two
values claim less than a value of the game: `not win` (the side to move cannot force a win
under `max_turns`: one claim, the other side, not_lose) and `not loss` (the side to move, not_lose).
A `not win` certificate at N - 1 turns beside a `win` one at N proves that the shortest forced
win takes N turns.

A claim lists positions by a text key (`position_key`): for each position where the claimed
side decides, the one action it plays (`strategy`); for each position where the opponent
decides, every legal reply (`replies`). The checker walks the game from the root with the
reference engine (`ludo_flow.flow.reference`), never with the kernels: at the side's positions
it plays the listed action (it must be legal), at the opponent's it tries every legal action
(the list given must be exactly those), and every finished game reached must be one the claim
allows. The game is finite (the turn counter is part of a position and bounded by
`max_turns`), so the walk ends and a passed claim is a proof.

Keys: the position string of RULES.md (`board side step first turns`); in a choose phase,
which has no position string, the same fields followed by `choose` and the arrangements of
the current so far (each a board field, dames as R/r), sorted.
"""
import gzip
import json

from ..flow import reference as ref
from ..render import board_field

FORMAT = "ludo-flow-flow-proof"
VERSION = 1
COLOURS = ("white", "black")


class CertificateError(ValueError):
    """A certificate file is malformed or its proof fails."""


def _arrangement_field(width, height, arrangement):
    """Return the board field of a loop-rule arrangement (dames as R / r)."""
    letters = {}
    for square, colour, dame in arrangement:
        letter = "R" if dame else "P"
        letters[square] = letter if colour == ref.WHITE else letter.lower()
    return board_field(width, height, letters)


def position_key(position):
    """Return the text key of a reference position (see the module's docstring)."""
    first = "-" if position.first is None or (position.step == 1 and not position.choosing) \
        else ref.square_name(position.first)
    key = (f"{board_field(position.width, position.height, position.pieces)} "
           f"{'wb'[position.side]} {position.step} {first} {position.turns}")
    if position.choosing:
        fields = sorted(_arrangement_field(position.width, position.height, a) for a in position.seen)
        key += " choose " + ",".join(fields)
    return key


def parse_position(text, max_turns):
    """Return the reference position of a position string (RULES.md), for `max_turns`."""
    fields = str(text).split()
    if len(fields) != 5:
        raise CertificateError(f"a position string has 5 fields, got {text!r}")
    board, side, step, first, turns = fields
    ranks = board.split("/")
    pieces, width = {}, None
    for row, rank_text in enumerate(ranks):
        rank = len(ranks) - 1 - row
        file_index = 0
        for char in rank_text:
            if char.isdigit():
                file_index += int(char)
            elif char in ref.PIECE_LETTERS:
                pieces[rank * 8 + file_index] = char
                file_index += 1
            else:
                raise CertificateError(f"bad board character {char!r} in {text!r}")
        if width is None:
            width = file_index
        elif file_index != width:
            raise CertificateError(f"ranks of different widths in {text!r}")
    if side not in ("w", "b") or step not in ("1", "2") or not turns.isdigit():
        raise CertificateError(f"bad side, step or turns in {text!r}")
    try:
        return ref.FlowRef.from_pieces(width, len(ranks), pieces, side="wb".index(side), step=int(step),
                                       first=None if first == "-" else first, turns=int(turns),
                                       max_turns=int(max_turns))
    except (ValueError, KeyError) as err:
        raise CertificateError(f"bad position {text!r}: {err}") from None


def parse_action(text):
    """Return the action id of a move in notation ('b2-b4' or '~d4')."""
    text = str(text)
    try:
        if text.startswith("~"):
            return ref.WASH_BASE + ref.square_index(text[1:])
        frm, to = text.split("-")
        return ref.square_index(frm) * 64 + ref.square_index(to)
    except ValueError:
        raise CertificateError(f"bad action {text!r}") from None


def root_position(cert):
    """Return the reference position a certificate starts from (its position, then `after`)."""
    position = parse_position(cert["position"], cert["max_turns"])
    for text in cert.get("after", []):
        action = parse_action(text)
        if action not in position.legal_actions():
            raise CertificateError(f"the root's action {text} is not legal")
        position = position.apply(action)
    return position


def write(path, cert):
    """Write a certificate (a dict) as gzip JSON."""
    with gzip.open(path, "wt", encoding="utf-8") as out:
        json.dump(cert, out, separators=(",", ":"), sort_keys=True)


def read(path):
    """Return the certificate (a dict) in a gzip JSON file; CertificateError if malformed."""
    try:
        with gzip.open(path, "rt", encoding="utf-8") as f:
            cert = json.load(f)
    except (OSError, ValueError, EOFError) as err:
        raise CertificateError(f"{path}: not a gzip JSON certificate ({err})") from None
    if not isinstance(cert, dict) or cert.get("format") != FORMAT or cert.get("version") != VERSION:
        raise CertificateError(f"{path}: not a {FORMAT} certificate of version {VERSION}")
    for field, kind in (("position", str), ("max_turns", int), ("claims", list), ("value", str)):
        if not isinstance(cert.get(field), kind):
            raise CertificateError(f"{path}: field {field!r} missing or not a {kind.__name__}")
    return cert


def verify_claim(root, claim):
    """Check one claim from the reference position `root`; return the number of positions
    walked. Raise CertificateError naming the first position where it fails."""
    side = COLOURS.index(claim["side"]) if claim.get("side") in COLOURS else None
    target = claim.get("target")
    strategy, replies = claim.get("strategy"), claim.get("replies")
    if side is None or target not in ("win", "not_lose") or not isinstance(strategy, dict) \
            or not isinstance(replies, dict):
        raise CertificateError("a claim needs side (white/black), target (win/not_lose), strategy, replies")
    allowed = {COLOURS[side]} | ({"draw"} if target == "not_lose" else set())
    seen = set()
    stack = [root]
    while stack:
        position = stack.pop()
        key = position_key(position)
        if key in seen:
            continue
        seen.add(key)
        if position.is_terminal():
            if position.result() not in allowed:
                raise CertificateError(f"{key}: the game ends {position.result()}, "
                                       f"not {' or '.join(sorted(allowed))}")
            continue
        legal = position.legal_actions()
        if position.current_player() == side:
            if key not in strategy:
                raise CertificateError(f"{key}: no move of {COLOURS[side]} given")
            action = parse_action(strategy[key])
            if action not in legal:
                raise CertificateError(f"{key}: {strategy[key]} is not legal")
            stack.append(position.apply(action))
        else:
            listed = replies.get(key)
            if listed is None or sorted(parse_action(a) for a in listed) != legal:
                raise CertificateError(f"{key}: the replies listed are not the legal ones")
            stack.extend(position.apply(action) for action in legal)
    return len(seen)


def claim_depth(root, claim):
    """Return the longest line of a claim, in decisions: from the reference position `root`,
    the claimed side playing its listed moves and the opponent every legal reply, to a
    finished game (every line of a checked win ends within this many decisions)."""
    side = COLOURS.index(claim["side"])
    strategy = claim["strategy"]
    depth = {}
    stack = [(root, False)]
    while stack:
        position, expanded = stack.pop()
        key = position_key(position)
        if key in depth and not expanded:
            continue
        if position.is_terminal():
            depth[key] = 0
            continue
        if position.current_player() == side:
            children = [position.apply(parse_action(strategy[key]))]
        else:
            children = [position.apply(a) for a in position.legal_actions()]
        if expanded:
            depth[key] = 1 + max(depth[position_key(c)] for c in children)
        else:
            stack.append((position, True))
            stack.extend((c, False) for c in children if position_key(c) not in depth)
    return depth[position_key(root)]


VALUES = ("win", "loss", "draw", "not win", "not loss")


def value_claims(value, mover):
    """Return [(side, target)] of the claims a certificate of `value` (one of VALUES) holds for
    the side to move `mover` (0 White, 1 Black), or None for another value."""
    other = 1 - mover
    return {"win": [(mover, "win")], "loss": [(other, "win")],
            "draw": [(0, "not_lose"), (1, "not_lose")],
            "not win": [(other, "not_lose")], "not loss": [(mover, "not_lose")]}.get(value)


def verify(cert):
    """Check every claim of a certificate and that they give its value (one of VALUES, for
    the side to move); return (value, positions walked). Raise CertificateError if anything
    fails."""
    root = root_position(cert)
    mover = COLOURS[root.current_player()]
    claims = cert["claims"]
    shape = sorted((c.get("side"), c.get("target")) for c in claims if isinstance(c, dict))
    needed = value_claims(cert["value"], root.current_player())
    expected = None if needed is None else sorted((COLOURS[side], target) for side, target in needed)
    if expected is None or shape != expected or len(claims) != len(shape):
        raise CertificateError(f"the claims do not make the value {cert['value']!r} for {mover}")
    walked = sum(verify_claim(root, claim) for claim in claims)
    return cert["value"], walked
