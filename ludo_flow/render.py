"""Square names and board pictures (ASCII for terminals, SVG for notebooks) for both games."""
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


def svg_board(width, height, pieces, marks=(), caption="", cell=40):
    """Return an SVG picture of a board.

    `pieces` maps a square to (fill colour, outline colour, label); `marks` are squares drawn
    with a red ring (wash candidates, the last move); a1 is a dark square."""
    margin = 18
    w = width * cell + margin
    h = height * cell + margin + (18 if caption else 0)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{w}" height="{h}" '
           f'viewBox="0 0 {w} {h}" font-family="sans-serif">']
    for r in range(height):
        for f in range(width):
            x = margin + f * cell
            y = (height - 1 - r) * cell
            colour = "#b58863" if (r + f) % 2 == 0 else "#f0d9b5"
            out.append(f'<rect x="{x}" y="{y}" width="{cell}" height="{cell}" fill="{colour}"/>')
    for f in range(width):
        out.append(f'<text x="{margin + f * cell + cell / 2}" y="{height * cell + 14}" '
                   f'font-size="12" text-anchor="middle">{FILES[f]}</text>')
    for r in range(height):
        out.append(f'<text x="6" y="{(height - 1 - r) * cell + cell / 2 + 4}" font-size="12" '
                   f'text-anchor="middle">{r + 1}</text>')
    for sq, (fill, stroke, label) in sorted(pieces.items()):
        cx = margin + (sq & 7) * cell + cell / 2
        cy = (height - 1 - (sq >> 3)) * cell + cell / 2
        out.append(f'<circle cx="{cx}" cy="{cy}" r="{cell * 0.38}" fill="{fill}" '
                   f'stroke="{stroke}" stroke-width="2"/>')
        if label:
            out.append(f'<text x="{cx}" y="{cy + 5}" font-size="15" text-anchor="middle" '
                       f'fill="{stroke}">{label}</text>')
    for sq in marks:
        cx = margin + (sq & 7) * cell + cell / 2
        cy = (height - 1 - (sq >> 3)) * cell + cell / 2
        out.append(f'<circle cx="{cx}" cy="{cy}" r="{cell * 0.45}" fill="none" '
                   f'stroke="#d00" stroke-width="3"/>')
    if caption:
        out.append(f'<text x="{margin}" y="{height * cell + 32}" font-size="13">{caption}</text>')
    out.append("</svg>")
    return "\n".join(out)
