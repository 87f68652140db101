"""Write tour.ipynb, the notebook tour of ludo_flow, from the cells below (outputs cleared).

Edit the tour here and run `python experiments/notebooks/make_tour.py`; the test suite runs the
notebook headless (tests/test_notebook.py) and checks the file is what this script writes."""
import sys
from pathlib import Path

import nbformat
from nbformat.v4 import new_code_cell, new_markdown_cell, new_notebook

HERE = Path(__file__).resolve().parent
NOTEBOOK = HERE / "tour.ipynb"

CELLS = [
    ("md", """# A tour of ludo_flow

This notebook walks through the library as a researcher would use it: load a game, look at a
position, play moves, ask an agent for its move, run a small tournament, rate it, and read the
recorded games back. It runs in about ten seconds once numba has compiled the engines and
agents; the first run on a machine compiles them first (one to two minutes on two cores), and
later runs load the compiled code from disk.

The games and their exact rules are described in `RULES.md`; the agents in
`docs/agents-guide.md`; tournaments in `docs/tournaments.md`."""),
    ("md", """## Load a game and show a position

`ludo_flow.load_game(name, variant, **params)` returns a `Game`; its states are plain Python
objects. In a notebook a state draws itself as an SVG board, with a caption saying who is to
move. Flow's white pieces start at the bottom; `R` and `N` are rooks and knights (they move
alike), the plain discs are pawns."""),
    ("code", """import ludo_flow

game = ludo_flow.load_game("flow")          # variant "standard"; also "stones" and "fountain"
state = game.new_initial_state()
state"""),
    ("md", """`print(state)` gives the same position as text, and `to_string()` the position string that
`game.from_string` reads back."""),
    ("code", """print(state)
state.to_string()"""),
    ("md", """## Legal actions

Actions are ints; `action_to_string` writes one in the game's notation and `parse_action` reads
it back. A Flow turn is two steps by different pieces, each written `from-to`."""),
    ("code", """actions = state.legal_actions()
print(len(actions), "legal first steps:")
print(" ".join(state.action_to_string(a) for a in actions))
b2b3 = state.parse_action("b2-b3")
b2b3, state.action_to_string(b2b3)"""),
    ("md", """## Play step by step

`apply` plays an action on the state in place (`child` returns a new state instead). The board
is drawn after each decision: the last move's squares are tinted yellow, and the pieces a
current moved are tinted blue.

`b2-b3` makes a wall of three pieces against the left edge (a3 b3 c3), which sets off a current:
with two candidates the player who stepped chooses which piece is washed (the ringed pieces, the
actions `~a3` and `~b3`). Washing `a3` floats it down to `a2`; then White makes the turn's second
step with another piece, and Black replies."""),
    ("code", """from IPython.display import display

for move in ["b2-b3", "~a3", "e1-e2", "e7-e5", "f6-f5"]:
    state.apply(state.parse_action(move))
    print("after", move, "->", [state.action_to_string(a) for a in state.legal_actions()][:8], "...")
    display(state)"""),
    ("md", """## Ask an agent for its move

Agents are made from spec strings (`random`, `mcts:simulations=...`, `alphabeta:depth=...`, each
with more settings; see `describe_agents()`). `select_action` never changes the state it is given,
and `last_stats` holds the statistics of the search that chose the move. Budgets in simulations
or depth are deterministic for a seed."""),
    ("code", """from agents import make_agent

mcts = make_agent("mcts:simulations=300,seed=1", game)
action = mcts.select_action(state)
print("MCTS plays", state.action_to_string(action))
mcts.last_stats"""),
    ("md", """`visits` lists the most visited root actions as (action, visits, mean value for the mover);
in notation:"""),
    ("code", """[(state.action_to_string(a), n, round(value, 2)) for a, n, value in mcts.last_stats["visits"][:5]]"""),
    ("code", """alphabeta = make_agent("alphabeta:depth=3", game)
action = alphabeta.select_action(state)
print("alpha-beta plays", state.action_to_string(action))
alphabeta.last_stats"""),
    ("md", """Its principal variation `pv` is a line of actions, each in the position the one before it
leads to. Walking it with `child` writes it in notation and shows where it leads:"""),
    ("code", """line, position = [], state
for a in alphabeta.last_stats["pv"]:
    line.append(position.action_to_string(a))
    position = position.child(a)
print(" ".join(line))
position"""),
    ("md", """## A small tournament

`Tournament` plays a round robin (or a gauntlet) and appends every finished game to a JSON Lines
records file the moment it ends; `run()` returns the records, the ratings and a report. Here:
three cheap agents on the small `fountain` variant, four games a pairing (two openings, each
played with both colours), in this process (`workers=0`; by default one worker process per
core). The progress bar shows the games done and the current leader."""),
    ("code", """import tempfile
from pathlib import Path

from agents.tournament import Tournament

workdir = Path(tempfile.mkdtemp(prefix="ludo_flow_tour_"))
tournament = Tournament("flow", ["random", "mcts:simulations=30", "alphabeta:depth=2"], variant="fountain",
                        games=4, openings="random:plies=2", seed=1, workers=0, out=workdir / "tour.jsonl")
result = tournament.run()
print(result.report())"""),
    ("md", """The ratings are a joint Bradley–Terry fit over all games, with 95 % intervals (with four
games a pairing they are wide). `agents.plots` draws them with matplotlib (the `plots` extra)."""),
    ("code", """from IPython.display import Image

from agents import plots

Image(filename=plots.plot_ratings(result.ratings, workdir / "ratings.png"))"""),
    ("md", """## Read a recorded game back

`agents.records.load_records` reads records files (from any number of runs); each record holds
the start position, the opening and the moves in notation, so `replay_states` turns it back into
states, one after each ply. Here is the first game's opening move, its middle and its end."""),
    ("code", """from agents.records import load_records, replay_states

records = load_records(workdir / "tour.jsonl")
record = records[0]
print(record["white"], "vs", record["black"], record["result"], record["termination"], f"{record['plies']} plies")
print("opening:", " ".join(record["opening"]), "| moves:", " ".join(record["moves"]))
replay = list(replay_states(record))
for ply, move, position in (replay[1], replay[len(replay) // 2], replay[-1]):
    print(f"after ply {ply}: {move}")
    display(position)"""),
    ("md", """## Watch the games

`agents.viewer.view` shows records inline as a replay (HTML and JavaScript, no widgets): the
game list, the board at every ply with the same marks as the pictures above, the move list,
a slider and the arrow keys (click the viewer first). `view(record)` shows one game;
`.save("games.html")` writes the same replay as one self-contained page, as
`ludo-flow replay FILE --html OUT.html` does."""),
    ("code", """from agents.viewer import view

view(records)"""),
    ("md", """## Tolkuchka

The other game works through the same calls. A Tolkuchka move advances a whole row; here the
row b4-c5 steps up-right and its tail lands on d6, knocking Black's checker over e7 to f8. The
knock back along that line is barred for one ply (the ko, drawn dashed)."""),
    ("code", """tk = ludo_flow.load_game("tolkuchka").new_initial_state()
tk.apply(tk.parse_action("b4-d6"))
tk"""),
    ("md", """That's the tour. The folder with the records and the plot can go:"""),
    ("code", """import shutil

shutil.rmtree(workdir)"""),
]


def notebook_of(cells):
    """Return the notebook of `cells` ((kind "md" or "code", source) pairs), outputs empty (the
    other notebooks' generators use it too)."""
    nb = new_notebook(cells=[new_markdown_cell(source) if kind == "md" else new_code_cell(source)
                             for kind, source in cells])
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.metadata["language_info"] = {"name": "python"}
    for i, cell in enumerate(nb.cells):
        cell["id"] = f"cell-{i:02d}"   # stable ids, so unchanged cells write an unchanged file
    return nb


def build():
    """Return the tour as a notebook node, outputs empty."""
    return notebook_of(CELLS)


def write(path, notebook):
    """Write `notebook` to `path` as the committed file holds it."""
    path.write_text(nbformat.writes(notebook) + "\n")
    print(f"wrote {path}", file=sys.stderr)


if __name__ == "__main__":
    write(NOTEBOOK, build())
