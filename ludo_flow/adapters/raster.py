"""A board picture as an RGB numpy array (PettingZoo's `render_mode="rgb_array"`), numpy alone.

The layout and colours are those of the SVG board (`ludo_flow.render.svg_board`): squares of
`cell` pixels with a1 dark, file letters below and rank numbers to the left in a margin of 18
pixels, pieces as outlined discs (rooks and knights lettered R and N), and red rings on the
marked squares (Flow's wash candidates in a choose phase, Tolkuchka's ko landing square). The
caption (the status line) is left out: `str(state)` has it.
"""
import numpy as np

from ..flow.game import FlowState
from ..tolkuchka.game import TolkuchkaState

MARGIN = 18
DARK, LIGHT, BACKGROUND, MARK = "#b58863", "#f0d9b5", "#ffffff", "#dd0000"
WHITE_PIECE = ("#fafafa", "#222222")  # fill, outline (and letter)
BLACK_PIECE = ("#222222", "#fafafa")

# 5 x 7 glyphs of the labels the board needs.
_GLYPHS = {
    "a": ".....|.....|.###.|....#|.####|#...#|.####",
    "b": "#....|#....|####.|#...#|#...#|#...#|####.",
    "c": ".....|.....|.####|#....|#....|#....|.####",
    "d": "....#|....#|.####|#...#|#...#|#...#|.####",
    "e": ".....|.....|.###.|#...#|#####|#....|.###.",
    "f": "..##.|.#...|.#...|####.|.#...|.#...|.#...",
    "g": ".....|.####|#...#|#...#|.####|....#|.###.",
    "h": "#....|#....|####.|#...#|#...#|#...#|#...#",
    "1": "..#..|.##..|..#..|..#..|..#..|..#..|.###.",
    "2": ".###.|#...#|....#|...#.|..#..|.#...|#####",
    "3": ".###.|#...#|....#|..##.|....#|#...#|.###.",
    "4": "...#.|..##.|.#.#.|#..#.|#####|...#.|...#.",
    "5": "#####|#....|####.|....#|....#|#...#|.###.",
    "6": "..##.|.#...|#....|####.|#...#|#...#|.###.",
    "7": "#####|....#|...#.|..#..|.#...|.#...|.#...",
    "8": ".###.|#...#|#...#|.###.|#...#|#...#|.###.",
    "R": "####.|#...#|#...#|####.|#.#..|#..#.|#...#",
    "N": "#...#|##..#|#.#.#|#..##|#...#|#...#|#...#",
}
_GLYPH_BITS = {c: np.array([[ch == "#" for ch in row] for row in g.split("|")]) for c, g in _GLYPHS.items()}
FILES = "abcdefgh"


def _rgb(colour):
    """Return the (r, g, b) of a '#rrggbb' colour."""
    return tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))


def board_picture(state):
    """Return (width, height, {square: (fill, outline, letter)}, marked squares) of a state."""
    if isinstance(state, FlowState):
        pieces = {sq: (WHITE_PIECE if letter.isupper() else BLACK_PIECE)
                  + ("" if letter in "Pp" else letter.upper(),)
                  for sq, letter in state.pieces().items()}
        marks = state.wash_candidates() if state.choosing else []
        return state.width, state.height, pieces, marks
    if isinstance(state, TolkuchkaState):
        pieces = {sq: (WHITE_PIECE if c == "W" else BLACK_PIECE) + ("",) for sq, c in state.checkers().items()}
        return 8, 8, pieces, [state.ko[1]] if state.ko else []
    raise TypeError(f"no board picture for {type(state).__name__}")


def _disc(image, cx, cy, radius, colour, inner=0.0):
    """Paint the pixels whose centres lie at a distance in [inner, radius] from (cx, cy)."""
    h, w, _ = image.shape
    x0, x1 = max(0, int(cx - radius) - 1), min(w, int(cx + radius) + 2)
    y0, y1 = max(0, int(cy - radius) - 1), min(h, int(cy + radius) + 2)
    ys, xs = np.mgrid[y0:y1, x0:x1]
    d = np.hypot(xs + 0.5 - cx, ys + 0.5 - cy)
    image[y0:y1, x0:x1][(d <= radius) & (d >= inner)] = _rgb(colour)


def _text(image, text, cx, cy, colour, scale=1):
    """Paint `text` in the 5 x 7 font, `scale` pixels a dot, centred on (cx, cy)."""
    width = (6 * len(text) - 1) * scale
    x = int(round(cx - width / 2))
    y = int(round(cy - 3.5 * scale))
    for ch in text:
        dots = np.kron(_GLYPH_BITS[ch], np.ones((scale, scale), dtype=bool))
        region = image[y:y + dots.shape[0], x:x + dots.shape[1]]
        region[dots[:region.shape[0], :region.shape[1]]] = _rgb(colour)
        x += 6 * scale


def board_rgb(state, cell=40):
    """Return the board picture of a state as a uint8 array of shape (height, width, 3)."""
    if isinstance(cell, bool) or not isinstance(cell, int) or not 16 <= cell <= 200:
        raise ValueError(f"cell is a square's size in pixels, an int in [16, 200], got {cell!r}")
    width, height, pieces, marks = board_picture(state)
    image = np.empty((height * cell + MARGIN, width * cell + MARGIN, 3), dtype=np.uint8)
    image[:] = _rgb(BACKGROUND)
    for r in range(height):
        for f in range(width):
            y = (height - 1 - r) * cell
            image[y:y + cell, MARGIN + f * cell:MARGIN + (f + 1) * cell] = _rgb(DARK if (r + f) % 2 == 0 else LIGHT)
    for f in range(width):
        _text(image, FILES[f], MARGIN + f * cell + cell / 2, height * cell + 9, "#000000")
    for r in range(height):
        _text(image, str(r + 1), 6, (height - 1 - r) * cell + cell / 2, "#000000")
    for sq, (fill, outline, letter) in pieces.items():
        cx = MARGIN + (sq & 7) * cell + cell / 2
        cy = (height - 1 - (sq >> 3)) * cell + cell / 2
        _disc(image, cx, cy, cell * 0.38 + 1, outline)
        _disc(image, cx, cy, cell * 0.38 - 1, fill)
        if letter:
            _text(image, letter, cx, cy, outline, scale=max(1, cell // 20))
    for sq in marks:
        cx = MARGIN + (sq & 7) * cell + cell / 2
        cy = (height - 1 - (sq >> 3)) * cell + cell / 2
        _disc(image, cx, cy, cell * 0.45 + 1.5, MARK, inner=cell * 0.45 - 1.5)
    return image
