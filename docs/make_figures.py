"""Write the pictures of the start positions the README shows (docs/img/*.svg).

    python docs/make_figures.py

They are drawn by the library itself (`State._repr_svg_`), so after a change to the boards'
drawing this script brings them up to date; tests/arena/test_readme.py checks they are."""
from pathlib import Path

import ludo_flow

FIGURES = {"flow-start.svg": ("flow", None), "flow-fountain-start.svg": ("flow", "fountain"),
           "tolkuchka-start.svg": ("tolkuchka", None)}
FOLDER = Path(__file__).resolve().parent / "img"


def figure(name):
    """Return the SVG text of one of FIGURES."""
    game, variant = FIGURES[name]
    return ludo_flow.load_game(game, variant).new_initial_state()._repr_svg_()


if __name__ == "__main__":
    FOLDER.mkdir(exist_ok=True)
    for name in FIGURES:
        (FOLDER / name).write_text(figure(name))
        print(FOLDER / name)
