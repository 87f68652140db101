"""GIF and animated SVG of a recorded game: one frame per position, the rasteriser's size."""
import xml.etree.ElementTree as ET

import pytest
from PIL import Image

from agents.cli import main
from agents.records import record_line
from agents.viewer.animation import AnimationError, animated_svg, write_gif
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


def test_animated_svg_is_xml_with_a_frame_per_position(records):
    record = records[0]
    root = ET.fromstring(animated_svg(record, fps=4))
    frames = [g for g in root if g.get("class") == "frame"]
    assert len(frames) == len(record["opening"]) + len(record["moves"]) + 1
    assert all(g.find("{http://www.w3.org/2000/svg}animate") is not None for g in frames)


def test_fps_and_the_cli(records, tmp_path):
    with pytest.raises(AnimationError):
        write_gif(records[2], tmp_path / "x.gif", fps=0)
    path = tmp_path / "one.jsonl"
    path.write_text(record_line(records[2]))
    gif, svg = tmp_path / "a.gif", tmp_path / "a.svg"
    assert main(["replay", str(path), "--gif", str(gif), "--svg", str(svg), "--fps", "10"]) == 0
    assert gif.stat().st_size > 0 and svg.read_text().startswith("<svg")
    assert main(["replay", str(path), "--gif", str(gif), "--fps", "1000"]) == 2
