"""A recorded game as an animation: a GIF (Pillow, the `gif` extra) drawn by the RGB
rasteriser `ludo_flow.adapters.raster`, or an animated SVG (no dependency) made of the SVG
boards, one frame per position from the start (before the opening) to the end."""
from html import escape

from ludo_flow.adapters.raster import board_rgb

from agents.records import RecordError, printable, start_state

MAX_FPS = 50.0


class AnimationError(RecordError):
    """An animation cannot be made (no Pillow, a bad frame rate)."""


def check_fps(fps):
    """Return `fps` as a float in (0, MAX_FPS] (AnimationError otherwise)."""
    try:
        fps = float(fps)
    except (TypeError, ValueError):
        raise AnimationError(f"--fps must be a number, got {fps!r}") from None
    if not 0 < fps <= MAX_FPS:
        raise AnimationError(f"--fps must be in (0, {MAX_FPS:g}], got {fps:g}")
    return fps


def game_states(record):
    """Yield every position of a record from its start position: the opening's, then the agents'."""
    state = start_state(dict(record, opening=[]))
    yield state.clone()
    for number, word in enumerate(list(record.get("opening", [])) + list(record.get("moves", [])), 1):
        try:
            state.apply(state.parse_action(word))
        except ValueError as err:
            raise RecordError(f"record {printable(str(record.get('id')))!r}, move {number}: {err}") from None
        yield state.clone()


def write_gif(record, path, fps=2.0, hold=3):
    """Write the game as a looping GIF, one frame per position (the last held `hold` frames
    longer); return the number of frames written. Needs Pillow (`pip install 'ludo_flow[gif]'`)."""
    fps = check_fps(fps)
    try:
        from PIL import Image
    except ImportError:
        raise AnimationError("--gif needs Pillow, the 'gif' extra: pip install 'ludo_flow[gif]'") from None
    frames = [Image.fromarray(board_rgb(s)) for s in game_states(record)]
    step = max(20, int(round(1000 / fps)))  # GIF delays are in 10 ms; browsers raise < 20 ms
    durations = [step] * len(frames)
    durations[-1] = step * (1 + hold)
    frames[0].save(path, format="GIF", save_all=True, append_images=frames[1:], duration=durations,
                   loop=0, optimize=False, disposal=1)
    return len(frames)


def animated_svg(record, fps=2.0):
    """Return an SVG that plays the game (SMIL: each position's board shown in turn, looping):
    the SVG boards with their captions, no script."""
    fps = check_fps(fps)
    boards = [s._repr_svg_() for s in game_states(record)]
    sizes = []
    for svg in boards:
        head = svg[:svg.index(">")]
        sizes.append((float(head.split('width="')[1].split('"')[0]), float(head.split('height="')[1].split('"')[0])))
    width, height = max(w for w, _ in sizes), max(h for _, h in sizes)
    n = len(boards)
    total = n / fps
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:g}" height="{height:g}" '
           f'viewBox="0 0 {width:g} {height:g}">',
           f'<title>{escape(printable(str(record.get("white"))))} - {escape(printable(str(record.get("black"))))}'
           f' {escape(printable(str(record.get("result", ""))))}</title>',
           f'<rect width="{width:g}" height="{height:g}" fill="#fff"/>']
    for i, svg in enumerate(boards):
        start, end = i / n, (i + 1) / n
        if i == n - 1:
            values, times = "hidden;visible", f"0;{start:.6f}"
        elif i == 0:
            values, times = "visible;hidden", f"0;{end:.6f}"
        else:
            values, times = "hidden;visible;hidden", f"0;{start:.6f};{end:.6f}"
        out.append(f'<g class="frame" visibility="{"visible" if i == 0 else "hidden"}">'
                   f'<animate attributeName="visibility" calcMode="discrete" values="{values}" '
                   f'keyTimes="{times}" dur="{total:.3f}s" repeatCount="indefinite"/>{svg}</g>')
    out.append("</svg>")
    return "\n".join(out)


def write_svg(record, path, fps=2.0):
    """Write the animated SVG of a game; return the number of frames."""
    text = animated_svg(record, fps)
    with open(path, "w", encoding="utf-8") as fh:
        fh.write(text)
    return text.count('<g class="frame"')
