"""A board picture as an RGB numpy array (PettingZoo's `render_mode="rgb_array"`), numpy alone.

The same picture as the SVG board (`ludo_flow.render.svg_board`), drawn from the layout and
colours `ludo_flow.render` names: squares of CELL pixels with a1 dark, rank numbers and file
letters in the label bands, pieces as outlined discs (rooks and knights lettered R and N), the
last decision's squares tinted yellow and the other squares it changed tinted blue, red rings
on Flow's wash candidates in a choose phase, and Tolkuchka's ko as a dashed red line from the
knocking move's tail to its landing square. The caption is left out (it needs a font): the
ANSI picture, `str(state)`, has the same text.
"""
import numpy as np

from .. import render as R
from ..flow.game import FlowState
from ..tolkuchka.game import TolkuchkaState

# 5 x 7 glyphs of the labels a board needs.
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


def rgb(colour):
    """Return the (r, g, b) of a '#rgb' or '#rrggbb' colour."""
    digits = colour[1:]
    if len(digits) == 3:
        digits = "".join(d * 2 for d in digits)
    return tuple(int(digits[i:i + 2], 16) for i in (0, 2, 4))


def board_picture(state):
    """Return what the board pictures of a state show (`State.board_picture`: a dict of width,
    height, pieces {square: (fill, outline, letter)}, last_move and changed squares, rings,
    and barred, a (from, to) pair of squares or None)."""
    if not isinstance(state, (FlowState, TolkuchkaState)):
        raise TypeError(f"no board picture for {type(state).__name__}")
    return state.board_picture()


def _disc(image, cx, cy, radius, colour, inner=-1.0):
    """Paint the pixels whose centres lie at a distance in (inner, radius] from (cx, cy)."""
    h, w, _ = image.shape
    x0, x1 = max(0, int(cx - radius) - 1), min(w, int(cx + radius) + 2)
    y0, y1 = max(0, int(cy - radius) - 1), min(h, int(cy + radius) + 2)
    ys, xs = np.mgrid[y0:y1, x0:x1]
    d = np.hypot(xs + 0.5 - cx, ys + 0.5 - cy)
    image[y0:y1, x0:x1][(d <= radius) & (d > inner)] = rgb(colour)


def _text(image, text, cx, cy, colour, scale=1):
    """Paint `text` in the 5 x 7 font, `scale` pixels a dot, centred on (cx, cy)."""
    x = int(round(cx - (6 * len(text) - 1) * scale / 2))
    y = int(round(cy - 3.5 * scale))
    for ch in text:
        dots = np.kron(_GLYPH_BITS[ch], np.ones((scale, scale), dtype=bool))
        region = image[y:y + dots.shape[0], x:x + dots.shape[1]]
        region[dots[:region.shape[0], :region.shape[1]]] = rgb(colour)
        x += 6 * scale


def _dashed_line(image, start, end, colour, width, dash=6.0, gap=4.0):
    """Paint a dashed line `width` px wide from `start` to `end` ((x, y) pairs)."""
    (x0, y0), (x1, y1) = start, end
    length = float(np.hypot(x1 - x0, y1 - y0))
    for t in np.arange(0.0, length + 0.5, 0.5):
        if t % (dash + gap) <= dash:
            f = t / length if length else 0.0
            _disc(image, x0 + f * (x1 - x0), y0 + f * (y1 - y0), width / 2, colour)


def board_rgb(state):
    """Return the board picture of a state as a uint8 array of shape (height, width, 3): the SVG
    board's picture without its caption."""
    p = board_picture(state)
    width, height, cell = p["width"], p["height"], R.CELL
    image = np.empty((R.PAD + height * cell + R.LABEL_BAND, R.LABEL_BAND + width * cell + R.PAD, 3), dtype=np.uint8)
    image[:] = rgb(R.BACKGROUND)

    def centre(sq):
        x, y = R.square_origin(sq, height)
        return x + cell / 2, y + cell / 2

    for sq in (r * 8 + f for r in range(height) for f in range(width)):
        x, y = R.square_origin(sq, height)
        image[y:y + cell, x:x + cell] = rgb(R.DARK_SQUARE if ((sq >> 3) + (sq & 7)) % 2 == 0 else R.LIGHT_SQUARE)
    for squares, (colour, opacity) in ((p["last_move"], R.LAST_MOVE_TINT), (p["changed"], R.CHANGED_TINT)):
        for sq in squares:
            x, y = R.square_origin(sq, height)
            square = image[y:y + cell, x:x + cell].astype(np.float64)
            tinted = (1.0 - opacity) * square + opacity * np.array(rgb(colour), dtype=np.float64)
            image[y:y + cell, x:x + cell] = np.rint(tinted).astype(np.uint8)
    board_bottom = R.PAD + height * cell
    for f in range(width):
        _text(image, R.FILES[f], R.LABEL_BAND + f * cell + cell / 2, board_bottom + R.LABEL_FONT / 2 + 3, R.TEXT_COLOUR)
    for r in range(height):
        _text(image, str(r + 1), R.LABEL_BAND / 2, centre(r * 8)[1], R.TEXT_COLOUR)
    radius = cell * R.PIECE_RADIUS
    for sq, (fill, outline, letter) in sorted(p["pieces"].items()):
        cx, cy = centre(sq)
        _disc(image, cx, cy, radius + R.PIECE_OUTLINE / 2, outline)
        _disc(image, cx, cy, radius - R.PIECE_OUTLINE / 2, fill)
        if letter:
            _text(image, letter, cx, cy, outline, scale=2)
    ring = cell * R.RING_RADIUS
    for sq in p["rings"]:
        cx, cy = centre(sq)
        _disc(image, cx, cy, ring + R.RING_WIDTH / 2, R.MARK_COLOUR, inner=ring - R.RING_WIDTH / 2)
    if p["barred"] is not None:
        _dashed_line(image, centre(p["barred"][0]), centre(p["barred"][1]), R.MARK_COLOUR, R.RING_WIDTH)
    return image
