"""Square names and board pictures (ASCII for terminals, SVG for notebooks) for both games."""
from html import escape  # not xml.sax.saxutils: that imports urllib and http (50 ms at start)

from .errors import ActionError, PositionError

FILES = "abcdefgh"


def square_name(sq):
    """Return the name of square index `sq` ('a1' for 0, 'h8' for 63)."""
    return FILES[sq & 7] + str((sq >> 3) + 1)


def parse_square(text, width=8, height=8):
    """Return the index of a square name inside a width x height board (ActionError if not)."""
    if (len(text) != 2 or text[0] not in FILES[:width] or not text[1].isdigit()
            or not 1 <= int(text[1]) <= height):
        raise ActionError(f"{text!r} is not a square of a {width}x{height} board")
    return FILES.index(text[0]) + 8 * (int(text[1]) - 1)


def board_field(width, height, chars):
    """Return the board field of a position string: ranks from the top, '/'-separated, digits for gaps."""
    ranks = []
    for r in range(height - 1, -1, -1):
        text, empty = "", 0
        for f in range(width):
            c = chars.get(r * 8 + f)
            if c is None:
                empty += 1
                continue
            if empty:
                text += str(empty)
                empty = 0
            text += c
        ranks.append(text + (str(empty) if empty else ""))
    return "/".join(ranks)


def parse_board_field(text, letters, heights=range(4, 9), widths=range(4, 9)):
    """Return (width, height, {square: letter}) of a board field (PositionError if malformed)."""
    ranks = text.split("/")
    height = len(ranks)
    if height not in heights:
        raise PositionError(f"the board must have {heights[0]} to {heights[-1]} ranks, got {height}"
                            if len(heights) > 1 else f"the board must have {heights[0]} ranks, got {height}")
    chars = {}
    width = None
    for i, rank_text in enumerate(ranks):
        r = height - 1 - i
        f = 0
        for ch in rank_text:
            if ch in "12345678":
                f += int(ch)
            elif ch in letters:
                if f < 8:
                    chars[r * 8 + f] = ch
                f += 1
            else:
                raise PositionError(f"unexpected character {ch!r} in rank {r + 1} of {text!r}")
        if width is None:
            width = f
        elif f != width:
            raise PositionError(f"rank {r + 1} has {f} squares but rank {height} has {width}")
    if width not in widths:
        raise PositionError(f"the board must have {widths[0]} to {widths[-1]} files, got {width}"
                            if len(widths) > 1 else f"the board must have {widths[0]} files, got {width}")
    return width, height, chars


def ascii_board(width, height, chars, footer=""):
    """Return a text picture: rank labels, one char per square from `chars` (sq -> char), files."""
    lines = []
    for r in range(height - 1, -1, -1):
        row = " ".join(chars.get(r * 8 + f, ".") for f in range(width))
        lines.append(f"{r + 1}  {row}")
    lines.append("   " + " ".join(FILES[:width]))
    if footer:
        lines.append(footer)
    return "\n".join(lines)


# ---- board pictures -----------------------------------------------------------------------
# The layout of a board picture in px (the SVG's user units), named so that another renderer
# (an RGB raster) can draw the same picture. Square (file f, rank r) of an H-rank board has its
# top-left corner at (LABEL_BAND + f * CELL, PAD + (H - 1 - r) * CELL); a1 is a dark square.
CELL = 40                # side of a square
LABEL_BAND = 18          # the band left of the board (rank labels) and below it (file labels)
PAD = 6                  # blank border above and right of the board, and around the caption
LABEL_FONT = 12          # rank and file labels
PIECE_RADIUS = 0.38      # of a cell
PIECE_OUTLINE = 2
PIECE_FONT = 15          # a piece's letter (Flow's R and N)
RING_RADIUS = 0.45       # of a cell: the red ring around a marked piece
RING_WIDTH = 3
CAPTION_FONT = 12
CAPTION_LEADING = 16     # from one caption baseline to the next
GLYPH_EM = 0.62          # a glyph's advance in em, on the wide side for sans-serif fonts: a caption
                         # wrapped by it fits even in a wide font (DejaVu Sans averages about 0.55)

BACKGROUND = "#ffffff"              # opaque, so labels and captions show on a dark notebook theme
DARK_SQUARE = "#b58863"
LIGHT_SQUARE = "#f0d9b5"
WHITE_PIECE = ("#fafafa", "#222")   # (fill, outline and letter)
BLACK_PIECE = ("#222", "#fafafa")
LAST_MOVE_TINT = ("#f5d000", 0.55)  # (colour, opacity) over the squares of the last decision
CHANGED_TINT = ("#1a6fe8", 0.55)    # over the other squares it changed (Flow's current, knocks)
TEXT_COLOUR = "#222"                # labels and caption
MARK_COLOUR = "#d00"                # rings (wash candidates) and the barred line (Tolkuchka's ko)


def square_origin(sq, height):
    """Return (x, y) of the top-left corner of square `sq` in a picture of an H-rank board."""
    return LABEL_BAND + (sq & 7) * CELL, PAD + (height - 1 - (sq >> 3)) * CELL


def _centre(sq, height):
    x, y = square_origin(sq, height)
    return x + CELL / 2, y + CELL / 2


def wrap_text(paragraph, width, font_size=CAPTION_FONT):
    """Return a paragraph broken into lines whose estimated width is at most `width` px.

    A paragraph is a str (broken at any space) or a list of phrases, kept whole on a line when
    they fit (then broken at their spaces; a word too long for a line is cut)."""
    per_line = max(1, int(width // (font_size * GLYPH_EM)))
    phrases = paragraph.split() if isinstance(paragraph, str) else paragraph
    lines = []
    for phrase in phrases:
        for word in [phrase] if len(phrase) <= per_line else phrase.split():
            for chunk in (word[i:i + per_line] for i in range(0, len(word), per_line)):
                if lines and len(lines[-1]) + 1 + len(chunk) <= per_line:
                    lines[-1] += " " + chunk
                else:
                    lines.append(chunk)
    return lines


def changed_squares(before, after):
    """Return the squares, ascending, whose content differs between two {square: piece} maps."""
    return sorted(sq for sq in set(before) | set(after) if before.get(sq) != after.get(sq))


def last_move_caption(move, changed, legend):
    """Return the caption paragraph naming the last move, with the legend of the squares it
    changed besides its own (tinted blue) when there are any."""
    return [f"Last move {move}" + (";" if changed else "")] + ([f"blue: {legend}"] if changed else [])


def svg_board(width, height, pieces, caption=(), last_move=(), changed=(), rings=(), barred=None):
    """Return an SVG picture of a width x height board with its caption below it.

    `pieces` maps a square to (fill colour, outline colour, letter or ""). `last_move` are the
    squares of the last decision (tinted yellow: its from and to squares), `changed` the other
    squares that decision changed (tinted blue), `rings` squares ringed in red (Flow's wash
    candidates), `barred` a (from, to) pair of squares joined by a dashed red line (Tolkuchka's
    ko). `caption` is a list of paragraphs (see `wrap_text`), each wrapped to the picture's width."""
    board_w, board_h = width * CELL, height * CELL
    w = LABEL_BAND + board_w + PAD
    lines = [line for paragraph in caption for line in wrap_text(paragraph, w - 2 * PAD)]
    h = PAD + board_h + LABEL_BAND + len(lines) * CAPTION_LEADING + (PAD if lines else 0)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
           f'viewBox="0 0 {w} {h}" font-family="sans-serif">',
           f'<rect x="0" y="0" width="{w}" height="{h}" fill="{BACKGROUND}"/>']
    for sq in (r * 8 + f for r in range(height) for f in range(width)):
        x, y = square_origin(sq, height)
        colour = DARK_SQUARE if ((sq >> 3) + (sq & 7)) % 2 == 0 else LIGHT_SQUARE
        out.append(f'<rect x="{x}" y="{y}" width="{CELL}" height="{CELL}" fill="{colour}"/>')
    for kind, squares, (colour, opacity) in (("last-move", last_move, LAST_MOVE_TINT),
                                             ("changed", changed, CHANGED_TINT)):
        for sq in squares:
            x, y = square_origin(sq, height)
            out.append(f'<rect class="{kind}" data-square="{square_name(sq)}" x="{x}" y="{y}" '
                       f'width="{CELL}" height="{CELL}" fill="{colour}" fill-opacity="{opacity}"/>')
    label_y = PAD + board_h + LABEL_FONT + 2
    for f in range(width):
        out.append(f'<text x="{LABEL_BAND + f * CELL + CELL / 2}" y="{label_y}" '
                   f'font-size="{LABEL_FONT}" text-anchor="middle" fill="{TEXT_COLOUR}">{FILES[f]}</text>')
    for r in range(height):
        _, y = _centre(r * 8, height)
        out.append(f'<text x="{LABEL_BAND / 2}" y="{y + LABEL_FONT / 3}" font-size="{LABEL_FONT}" '
                   f'text-anchor="middle" fill="{TEXT_COLOUR}">{r + 1}</text>')
    for sq, (fill, stroke, letter) in sorted(pieces.items()):
        cx, cy = _centre(sq, height)
        out.append(f'<circle cx="{cx}" cy="{cy}" r="{CELL * PIECE_RADIUS}" fill="{fill}" '
                   f'stroke="{stroke}" stroke-width="{PIECE_OUTLINE}"/>')
        if letter:
            out.append(f'<text x="{cx}" y="{cy + PIECE_FONT / 3}" font-size="{PIECE_FONT}" '
                       f'text-anchor="middle" fill="{stroke}">{escape(letter)}</text>')
    for sq in rings:
        cx, cy = _centre(sq, height)
        out.append(f'<circle class="ring" data-square="{square_name(sq)}" cx="{cx}" cy="{cy}" '
                   f'r="{CELL * RING_RADIUS}" fill="none" stroke="{MARK_COLOUR}" stroke-width="{RING_WIDTH}"/>')
    if barred is not None:
        (x1, y1), (x2, y2) = _centre(barred[0], height), _centre(barred[1], height)
        out.append(f'<line class="barred" x1="{x1}" y1="{y1}" x2="{x2}" y2="{y2}" stroke="{MARK_COLOUR}" '
                   f'stroke-width="{RING_WIDTH}" stroke-dasharray="6 4" stroke-linecap="round"/>')
    for i, line in enumerate(lines):
        y = PAD + board_h + LABEL_BAND + CAPTION_FONT + i * CAPTION_LEADING
        out.append(f'<text x="{PAD}" y="{y}" font-size="{CAPTION_FONT}" fill="{TEXT_COLOUR}">'
                   f'{escape(line)}</text>')
    out.append("</svg>")
    return "\n".join(out)
