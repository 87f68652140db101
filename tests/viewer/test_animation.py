"""GIF and animated SVG of a recorded game: one frame per position, the rasteriser's size."""
import sys
import xml.etree.ElementTree as ET

import pytest
from PIL import Image

from agents.cli import main
from agents.records import record_line
from agents.viewer.animation import AnimationError, animated_svg, game_states, write_gif
from ludo_flow import render as R
from ludo_flow.adapters.raster import board_rgb
from agents.records import start_state


@pytest.mark.parametrize("index", [2, 3])  # Flow's 5x5 fountain, Tolkuchka's 8x8
def test_gif_has_a_frame_per_position_at_the_board_size(records, index, tmp_path):
    record = records[index]
    path = tmp_path / "game.gif"
    frames = write_gif(record, path, fps=5)
    positions = len(record["opening"]) + len(record["moves"]) + 1
    assert frames == positions
    height, width, _ = board_rgb(start_state(record)).shape
    with Image.open(path) as image:
        assert image.n_frames == positions
        assert image.size == (width, height)
        assert image.info["duration"] == 200


@pytest.mark.parametrize("index", [0, 2])  # Flow's 8x8 standard, its 5x5 fountain
def test_animated_svg_is_xml_with_a_frame_per_position_at_the_board_size(records, index):
    record = records[index]
    root = ET.fromstring(animated_svg(record, fps=4))
    frames = [g for g in root if g.get("class") == "frame"]
    assert len(frames) == len(record["opening"]) + len(record["moves"]) + 1
    assert all(g.find("{http://www.w3.org/2000/svg}animate") is not None for g in frames)
    # each frame is its position's SVG board (its caption may take more lines at the end);
    # the animation is as large as the largest
    boards = [ET.fromstring(state._repr_svg_()) for state in game_states(record)]
    sizes = [(b.get("width"), b.get("height")) for b in boards]
    assert [(g[1].get("width"), g[1].get("height")) for g in frames] == sizes
    width, height = (f"{max(float(s[k]) for s in sizes):g}" for k in (0, 1))
    assert (root.get("width"), root.get("height"), root.get("viewBox")) == (width, height, f"0 0 {width} {height}")
    files = start_state(record).board_picture()["width"]
    assert float(width) == R.LABEL_BAND + files * R.CELL + R.PAD


def test_gif_without_pillow_is_one_line_naming_the_extra(records, tmp_path, monkeypatch, capsys):
    path = tmp_path / "one.jsonl"
    path.write_text(record_line(records[2]))
    monkeypatch.setitem(sys.modules, "PIL", None)  # `from PIL import Image` raises ImportError
    assert main(["replay", str(path), "--gif", str(tmp_path / "a.gif")]) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert captured.err.startswith("ludo-flow: error: --gif needs Pillow, the 'gif' extra")
    assert not (tmp_path / "a.gif").exists()


def test_fps_and_the_cli(records, tmp_path):
    with pytest.raises(AnimationError):
        write_gif(records[2], tmp_path / "x.gif", fps=0)
    path = tmp_path / "one.jsonl"
    path.write_text(record_line(records[2]))
    gif, svg = tmp_path / "a.gif", tmp_path / "a.svg"
    assert main(["replay", str(path), "--gif", str(gif), "--svg", str(svg), "--fps", "10"]) == 0
    assert gif.stat().st_size > 0 and svg.read_text().startswith("<svg")
    assert main(["replay", str(path), "--gif", str(gif), "--fps", "1000"]) == 2
