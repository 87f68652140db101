"""The schedule: every game of a tournament, computed slot by slot from the settings and the seed.

Games are numbered opening by opening (so a stopped run has played every pairing about
equally): slot `i` is opening `k = i // (2 P)`, pairing `p = (i // 2) % P` and colours `swap =
i % 2`, with P pairings; its id is `p{p}-o{k}-{swap}` and its pair (the two games of one
opening, colours swapped) `{tag}-p{p}-o{k}`, where the tag names the tournament's settings, so
files merged for rating never share a pair. Nothing is computed ahead: a slot, its opening and
its seeds come from `slot(i)` on demand, so a schedule of a billion games costs no memory.
Same settings and seed: same slots, same openings, same agent seeds.
"""
import hashlib
import json
import re

from ludo_flow.rng import new_rng, rand_below

from .config import TournamentError
from .suites import position_key, suite_name, suite_path

OPENING_UNITS = ("plies", "turns")
MAX_OPENING = {"plies": 200, "turns": 100}
MAX_OPENINGS_FILE = 64 << 20  # bytes
_SLOT_ID = re.compile(r"p(\d{1,9})-o(\d{1,12})-([01])")


def derive_seed(*parts):
    """Return a seed in [0, 2**31) derived from the parts (stable across runs and machines)."""
    digest = hashlib.blake2b(repr(parts).encode(), digest_size=8).digest()
    return int.from_bytes(digest, "little") & 0x7FFFFFFF


def random_opening(start_state, length, seed, unit="plies"):
    """Return the notation of a uniformly random opening from `start_state` that leaves the game
    going (tries further seeds derived from `seed` if a try ends the game): `length` decisions
    (unit "plies"), or `length` whole turns of each player (unit "turns": decisions until the
    player to move has changed 2 x `length` times, so both sides have had as many random turns
    and the opening ends where the starting player's turn begins)."""
    if unit not in OPENING_UNITS:
        raise TournamentError(f"an opening's length is counted in {' or '.join(OPENING_UNITS)}, "
                              f"got {unit!r}")
    target = length if unit == "plies" else 2 * length
    for attempt in range(1000):
        rng = new_rng(derive_seed(seed, attempt))
        state = start_state.clone()
        words = []
        count = 0  # decisions, or changes of the player to move
        while count < target and not state.is_terminal():
            legal = state.legal_actions()
            if not legal:
                break
            action = legal[int(rand_below(rng, len(legal)))]
            words.append(state.action_to_string(action))
            mover = state.current_player()
            state.apply(action)
            count += 1 if unit == "plies" else int(state.current_player() != mover)
        if count == target and not state.is_terminal():
            return words
    raise TournamentError(f"no random opening of {length} {unit} keeps the game going "
                          f"from this start (1000 tries)")


def read_openings_file(game, path):
    """Return the position strings of an openings file (each checked, no position twice: see
    `suites.position_key`), and the file's sha256."""
    try:
        with open(path, "rb") as fh:
            data = fh.read(MAX_OPENINGS_FILE + 1)
    except OSError as err:
        raise TournamentError(f"cannot read openings file {str(path)!r}: {err.strerror or err}") from None
    if len(data) > MAX_OPENINGS_FILE:
        raise TournamentError(f"openings file {str(path)!r} is larger than {MAX_OPENINGS_FILE >> 20} MB")
    positions = []
    seen = {}  # position key -> line number
    for number, line in enumerate(data.decode("utf-8", "replace").splitlines(), 1):
        line = line.strip()
        if not line or line.startswith("#"):
            continue
        try:
            state = game.from_string(line)
        except ValueError as err:
            raise TournamentError(f"{path}:{number}: {err}") from None
        if state.is_terminal():
            raise TournamentError(f"{path}:{number}: the game is already over in this position")
        key = position_key(game.name, state.to_string())
        if key in seen:
            raise TournamentError(f"{path}:{number}: the same position as line {seen[key]} "
                                  f"(an openings file lists each position once)")
        seen[key] = number
        positions.append(line)
    if not positions:
        raise TournamentError(f"openings file {str(path)!r} holds no position")
    return positions, hashlib.sha256(data).hexdigest()


def is_suite(text):
    """Return whether an openings setting names a shipped suite (`suite` or `suite:NAME`)."""
    return text == "suite" or text.startswith("suite:")


def read_suite(game, text, seed):
    """Return (the openings' id, the positions in play order) of `suite` (the suite of `game`'s
    variant) or `suite:NAME`: the suite's positions shuffled by a seed derived from `seed`, so
    each tournament seed plays them in its own order, every one before any comes again."""
    name = suite_name(game.name, game.variant) if text == "suite" else text[len("suite:"):].strip()
    try:
        path = suite_path(name)
    except ValueError as err:
        hint = f" for {game.name} variant {game.variant!r}" if text == "suite" else ""
        raise TournamentError(f"{err}{hint}; or use random:turns=K or an openings file") from None
    if not name.startswith(game.name + "-"):
        raise TournamentError(f"opening suite {name!r} is not a {game.name} suite")
    positions, digest = read_openings_file(game, path)
    rng = new_rng(derive_seed(seed, "suite"))
    for i in range(len(positions) - 1, 0, -1):  # Fisher-Yates
        j = int(rand_below(rng, i + 1))
        positions[i], positions[j] = positions[j], positions[i]
    return f"suite:{name} sha256:{digest}", positions


def parse_random_openings(text):
    """Return (unit, length) of `random:plies=K` or `random:turns=K`."""
    key, sep, value = text[len("random:"):].partition("=")
    unit = key.strip()
    if unit not in OPENING_UNITS or not sep:
        raise TournamentError(f"random openings are written random:plies=K or random:turns=K, got {text!r}")
    value = value.strip()
    top = MAX_OPENING[unit]
    if not (value.isascii() and value.isdigit()) or len(value) > 4 or int(value) > top:
        raise TournamentError(f"random:{unit}=K needs an integer 0 <= K <= {top}, got {value!r}")
    length = int(value)
    return unit, length


class Schedule:
    """The slots of a tournament, made on demand: `len(schedule)`, `schedule.slot(i)`,
    `schedule.index_of(slot_id)`.

    A slot is a dict: `id`, `pair`, `start` (position string), `opening` (moves in notation),
    `white`, `black` (specs), `seed_white`, `seed_black`; and `adjudicate` (the rules) when
    the settings have adjudication rules; in a clocked tournament also
    `time_control` and `time_margin` (milliseconds)."""

    def __init__(self, game, start, pairings, games, openings, seed, settings):
        self.game = game
        self.start = start
        self.pairings = list(pairings)
        self.openings_count = games // 2
        self.seed = seed
        # Pair ids name the tournament too, so files merged for rating never share one.
        self.tag = hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:8]
        self._source = openings  # ("none",) / ("random", unit, length) / ("file", positions)
        # A clocked tournament's slots carry its time control (play_slot reads it).
        self.clock = {k: settings[k] for k in ("time_control", "time_margin") if k in settings}
        self._last = (None, None)  # the opening made last: consecutive slots share it
        self.adjudicate = settings.get("adjudicate")

    def __len__(self):
        return self.openings_count * len(self.pairings) * 2

    def opening(self, k):
        """Return (start position string, opening moves) of opening `k`."""
        if self._last[0] == k:
            return self._last[1]
        kind = self._source[0]
        if kind == "none":
            made = (self.start, [])
        elif kind == "file":
            positions = self._source[1]
            made = (positions[k % len(positions)], [])
        else:
            _, unit, length = self._source
            made = (self.start, random_opening(self.game.from_string(self.start), length,
                                               derive_seed(self.seed, "opening", k), unit))
        self._last = (k, made)
        return made

    def slot(self, index):
        """Return the slot dict of game `index` (0 <= index < len(self))."""
        if not 0 <= index < len(self):
            raise IndexError(f"slot {index} is not in a schedule of {len(self)} games")
        pairing, swap = divmod(index, 2)
        k, p = divmod(pairing, len(self.pairings))
        first, second = self.pairings[p]
        white, black = (first, second) if swap == 0 else (second, first)
        slot_id = f"p{p}-o{k}-{swap}"
        start, opening = self.opening(k)
        slot = {"id": slot_id, "pair": f"{self.tag}-p{p}-o{k}", "start": start, "opening": list(opening),
                "white": white, "black": black,
                "seed_white": derive_seed(self.seed, slot_id, "white"),
                "seed_black": derive_seed(self.seed, slot_id, "black"), **self.clock}
        if self.adjudicate:
            slot["adjudicate"] = self.adjudicate
        return slot

    def index_of(self, slot_id):
        """Return the index of the slot with this id, or None if the schedule has none."""
        found = _SLOT_ID.fullmatch(slot_id) if isinstance(slot_id, str) else None
        if found is None:
            return None
        p, k, swap = (int(g) for g in found.groups())
        if p >= len(self.pairings) or k >= self.openings_count:
            return None
        return (k * len(self.pairings) + p) * 2 + swap

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self.slot(i) for i in range(*index.indices(len(self)))]
        return self.slot(index if index >= 0 else len(self) + index)

    def __iter__(self):
        return (self.slot(i) for i in range(len(self)))
