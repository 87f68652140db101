"""Scale: ratings counted while reading equal the in-memory fit; the runner's schedule is made
slot by slot and equals an eager one; a resume streams its file instead of holding it.

The fixtures in data/ratings/ and the reports in expected.json were written by
experiments/scale/make_rating_fixtures.py with the in-memory `rate_records` (every record held
in a list), before the ratings streamed.
"""
import json
import random
import tracemalloc
from pathlib import Path

import numpy as np
import pytest

import ludo_flow
from agents import ratings
from agents.cli import main
from agents.compact import HashCodes
from agents.records import ReadReport, SeenGames, iter_records, load_records, record_line
from agents.tournament import Tournament
from agents.tournament.config import TournamentError
from agents.tournament.schedule import derive_seed, is_suite, random_opening, read_suite
from agents.tournament.suites import suite_path

DATA = Path(__file__).parent / "data" / "ratings"
EXPECTED = json.loads((DATA / "expected.json").read_text())
ANCHOR = {"many.jsonl": "c", "two.jsonl": "new", "real2.jsonl": "random", "real3.jsonl": "random"}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_streaming_ratings_print_what_the_in_memory_fit_printed(name, capsys):
    path = str(DATA / name)
    for key, extra in (("text", []), ("json", ["--json"]), ("anchored", ["--anchor", ANCHOR[name]])):
        assert main(["ratings", path, *extra]) == 0
        out = capsys.readouterr()
        assert out.out == EXPECTED[name][key] and out.err == EXPECTED[name][key + "_err"], (name, key)


def test_counts_given_out_of_order_with_ranks_equal_the_records_in_order():
    records = load_records(DATA / "two.jsonl")
    in_order = ratings.rate_records(records)
    shuffled = list(enumerate(records))
    random.Random(1).shuffle(shuffled)
    counts = ratings.RecordCounts()
    for rank, record in shuffled:
        counts.add(record, rank=rank)
    assert ratings.format_report(counts.rate()) == ratings.format_report(in_order)
    assert ratings.report_json(counts.rate()) == ratings.report_json(in_order)
    kept = ratings.rate_records(records, bootstrap=20)  # the games one by one, as before
    assert kept.match == in_order.match and kept.ratings.interval == "bootstrap"


def test_fit_on_counts_equals_the_fit_on_games_with_any_scores():
    rng = np.random.default_rng(5)
    names = ["a", "b", "c", 4]
    games = []
    for _ in range(300):
        w, b = rng.choice(4, 2, replace=False)
        games.append((names[w], names[b], float(rng.choice([0.0, 0.3, 0.5, 1.0]))))
    direct = ratings.bradley_terry(games, anchor="b", prior_draws=0.7)
    order = list(dict.fromkeys(x for g in games for x in g[:2]))
    pairs = list(dict.fromkeys(p for w, b, _ in games for p in ((w, b), (b, w))))
    played = {p: [0.0, 0.0] for p in pairs}
    for w, b, s in games:
        played[(w, b)][0] += 1
        played[(w, b)][1] += s
    counts = ratings.GameCounts(tuple(order), tuple((order.index(w), order.index(b)) for w, b in pairs),
                                np.array([played[p][0] for p in pairs]), np.array([played[p][1] for p in pairs]))
    fit = ratings.bradley_terry_counts(counts, anchor="b", prior_draws=0.7)
    assert fit.agents == direct.agents and fit.games == direct.games == 300
    for mine, theirs in zip(fit.ratings, direct.ratings):
        assert mine.elo == pytest.approx(theirs.elo, abs=1e-9) and mine.high == pytest.approx(theirs.high, abs=1e-9)
        assert mine.score == pytest.approx(theirs.score, abs=1e-12) and mine.games == theirs.games
    assert fit.log_likelihood == pytest.approx(direct.log_likelihood, rel=1e-12)
    with pytest.raises(ratings.RatingsError, match="one by one"):
        ratings.bradley_terry_counts(counts, errors="sandwich")


def test_hash_codes_and_seen_games_keep_keys_apart_and_grow():
    table = HashCodes(capacity=4)
    for k in range(5000):
        assert table.put(("pair", str(k)), 1 + k % 200) == 0
    assert len(table) == 5000 and table.get(("pair", "17")) == 18 and table.get(("pair", "x")) == 0
    assert table.put(("pair", "17"), 9) == 18 and table.get(("pair", "17")) == 9 and len(table) == 5000
    seen = SeenGames()
    seen.reading("f")
    record = {"id": "g1", "pair": "p", "white": "a", "black": "b", "result": "1-0"}
    assert seen.add(record, "f", 1) and not seen.add(dict(record), "f", 2)
    assert seen.add(dict(record, pair="q"), "f", 3)      # another tournament's game of that id


def test_ratings_memory_does_not_grow_with_the_records(tmp_path):
    lines = (DATA / "real2.jsonl").read_bytes().splitlines(keepends=True)

    def peak(n):
        path = tmp_path / f"r{n}.jsonl"
        with open(path, "wb") as fh:
            for k in range(n):  # new ids and pairs: every record a new game
                record = json.loads(lines[k % len(lines)])
                record["id"], record["pair"] = f"g{k}", f"q{k // 2}"
                fh.write(record_line(record).encode())
        tracemalloc.start()
        try:
            counts = ratings.RecordCounts()
            for record in iter_records(path, ReadReport(), SeenGames()):
                counts.add(record)
            counts.rate()
            return tracemalloc.get_traced_memory()[1], path.stat().st_size
        finally:
            tracemalloc.stop()

    small, _ = peak(200)
    large, size = peak(2000)
    # the records of the large file would take about ten times its size in memory; the ids'
    # and pairs' hashes take 17 bytes a slot
    assert large - small < 300_000 and large < size / 4, (small, large, size)


# ---- the runner ---------------------------------------------------------------------------------------
def eager_positions(tournament, openings):
    """The positions an openings file or a suite lists, in play order: a file's as listed, a
    suite's in the order its seed draws (checked to be an order of the suite's positions)."""
    if not is_suite(openings):
        return listed_positions(Path(openings))
    game = tournament.game
    name = f"{game.name}-{game.variant}" if openings == "suite" else openings[len("suite:"):]
    positions = read_suite(game, openings, tournament.config.seed)[1]
    assert sorted(positions) == sorted(listed_positions(suite_path(name)))
    return positions


def listed_positions(path):
    """The position lines of an openings file: blank lines and comments skipped."""
    lines = (line.strip() for line in path.read_text().splitlines())
    return [line for line in lines if line and not line.startswith("#")]


def eager_schedule(tournament, openings):
    """Every slot of a tournament made at once, as the runner did before slots were made on demand."""
    config, settings = tournament.config, tournament.settings()
    import hashlib
    tag = hashlib.sha256(json.dumps(settings, sort_keys=True).encode()).hexdigest()[:8]
    n = config.games // 2
    start = tournament.start
    if openings is None:
        made = [(start, [])] * n
    elif openings.startswith("random:"):
        unit, _, length = openings[len("random:"):].partition("=")
        made = [(start, random_opening(tournament.game.from_string(start), int(length),
                                       derive_seed(config.seed, "opening", k), unit)) for k in range(n)]
    else:  # a file or a suite: its positions in order, from the top again when they run out
        positions = eager_positions(tournament, openings)
        made = [(positions[k % len(positions)], []) for k in range(n)]
    slots = []
    for k, (begin, opening) in enumerate(made):
        for p, (first, second) in enumerate(config.pairings()):
            for swap in (0, 1):
                white, black = (first, second) if swap == 0 else (second, first)
                slot_id = f"p{p}-o{k}-{swap}"
                slots.append({"id": slot_id, "pair": f"{tag}-p{p}-o{k}", "start": begin, "opening": list(opening),
                              "white": white, "black": black,
                              "seed_white": derive_seed(config.seed, slot_id, "white"),
                              "seed_black": derive_seed(config.seed, slot_id, "black")})
    return slots


def openings_file(tmp_path, game, count):
    """Write an openings file of `count` positions reached by random openings (with a comment
    and a blank line, which the reader skips); return its path."""
    lines = ["# positions after random openings", ""]
    for k in range(count):
        state = game.new_initial_state()
        for word in random_opening(state, 2 + k % 3, derive_seed("file", k)):
            state.apply(state.parse_action(word))
        lines.append(state.to_string())
    path = tmp_path / "openings.txt"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


R3 = ["random", "random:seed=1", "random:seed=2"]
R4 = R3 + ["random:seed=3"]


@pytest.mark.parametrize("game, variant, agents, games, openings, seed, gauntlet", [
    ("flow", None, ["random", "random:seed=1"], 2, None, 0, None),
    ("flow", None, R3, 6, "random:plies=3", 7, None),
    ("flow", None, ["random:seed=1", "random:seed=2", "random:seed=3"], 4, "random:turns=1", 11, "random"),
    ("flow", None, ["random", "random:seed=1"], 10, "random:plies=0", 2, None),
    ("flow", None, R4, 6, "random:turns=2", 3, None),               # 6 pairings, an odd number of openings
    ("tolkuchka", None, R3, 10, "random:plies=2", 4, "random:seed=9"),
    ("flow", "fountain", R3, 2 * 203, "suite", 5, None),           # the suite once, then 3 again
    ("flow", None, R4[1:], 14, "suite:flow-stones", 8, "random"),  # a suite named, a gauntlet
    ("tolkuchka", None, ["random", "random:seed=1"], 2 * 3, "suite", 6, None),
    ("flow", None, R3, 2 * 7, "file:5", 1, None),                   # 7 openings from 5 positions
    ("tolkuchka", None, R4, 2 * 2, "file:3", 9, "random:seed=5"),   # fewer openings than positions
])
def test_the_lazy_schedule_equals_an_eager_one_slot_by_slot(tmp_path, game, variant, agents, games, openings,
                                                            seed, gauntlet):
    if openings is not None and openings.startswith("file:"):
        openings = openings_file(tmp_path, ludo_flow.load_game(game), int(openings[len("file:"):]))
    t = Tournament(game, agents=agents, games=games, openings=openings, seed=seed, gauntlet=gauntlet,
                   out=str(tmp_path / "s.jsonl"), **({"variant": variant} if variant else {}))
    eager = eager_schedule(t, openings)
    lazy = t.schedule()
    assert len(lazy) == len(eager) == len(t.pairings()) * games
    for i in [*range(len(eager)), *reversed(range(len(eager)))]:  # in any order, not only in turn
        assert lazy.slot(i) == eager[i] and lazy.index_of(eager[i]["id"]) == i
    assert list(lazy) == eager and lazy[-1] == eager[-1]


@pytest.mark.parametrize("games", [1, 7, 0])
def test_a_schedule_of_an_odd_or_no_number_of_games_per_pairing_is_refused(tmp_path, games):
    with pytest.raises(TournamentError, match=f"an even number >= 2 .*got {games}"):
        Tournament("flow", agents=["random", "random:seed=1"], games=games, out=str(tmp_path / "s.jsonl"))


RESUME_LIMIT = 512 << 10  # bytes: the most a resume may allocate in Python at once (tracemalloc's peak)


@pytest.mark.slow  # a few seconds, but tracemalloc slows a run of thousands of records
def test_a_resume_streams_a_records_file_several_times_larger_than_its_memory_limit(tmp_path):
    """A resume of a finished file of 5,000 games (4.7 MB, about nine times RESUME_LIMIT; held
    whole, its records would take about ten times its size) allocates at most RESUME_LIMIT."""
    template = [json.loads(line) for line in (DATA / "real2.jsonl").read_text().splitlines()]

    def resume(games):
        """Resume a tournament whose file holds every game (and one twice); return the result,
        the peak of memory allocated while it ran and the file's size."""
        out = tmp_path / f"done{games}.jsonl"
        t = Tournament("flow", agents=["random", "random:seed=1"], games=games, seed=5, out=str(out),
                       workers=0, progress=False, resume=True)
        schedule, settings = t.schedule(), t.settings()
        with open(out, "w") as fh:  # every game of the schedule finished, with the moves of real games
            for i in range(games):
                record = dict(template[i % len(template)], **schedule.slot(i), settings=settings)
                fh.write(record_line(record))
            fh.write(record_line(record))  # one game twice: counted once
        tracemalloc.start()
        try:
            result = t.run()
            peak = tracemalloc.get_traced_memory()[1]
        finally:
            tracemalloc.stop()
        assert result.finished == games and result.ratings.games == games
        assert ratings.format_report(result.ratings) == ratings.format_report(
            ratings.rate_records(sorted(load_records(out), key=lambda r: schedule.index_of(r["id"]))))
        return peak, out.stat().st_size

    resume(50)  # a first resume imports the modules it uses: not what the file costs
    peak, size = resume(5000)
    assert size > 8 * RESUME_LIMIT and peak < RESUME_LIMIT, (peak, size)
