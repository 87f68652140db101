"""Your own agent in a tournament: py: specs, classes and factories, in this process, in worker
processes and on Ray, and the page that shows how (docs/write-your-own-agent.md)."""
import functools
import re
import sys
from pathlib import Path

import pytest

import own_agents
from agents import make_agent
from agents.cli import main
from agents.records import load_records
from agents.tournament import Tournament, TournamentError

DOC = Path(__file__).resolve().parents[2] / "docs" / "write-your-own-agent.md"


def test_a_py_spec_builds_the_agent_with_typed_settings():
    agent = make_agent("py:own_agents:Greedy,depth=2,seed=3")
    assert isinstance(agent, own_agents.Greedy) and agent.depth == 2
    assert isinstance(make_agent("py:own_agents:make_first"), own_agents.First)
    for spec, words in (("py:own_agents:Greedy,deep=2", "did you mean 'depth'"),
                        ("py:own_agents:Greedy,depth=two", "must be int"),
                        ("py:no_such_module_here:X", "cannot import module"),
                        ("py:own_agents:Nothing", "no class or function 'Nothing'"),
                        ("py:own_agents", "py:MODULE:NAME"),
                        ("py:collections:OrderedDict", "no select_action")):
        with pytest.raises(ValueError, match=words):
            make_agent(spec)


def test_own_agents_play_in_worker_processes_and_their_records_rebuild_them(tmp_path):
    out = tmp_path / "own.jsonl"
    result = Tournament("flow", [own_agents.Greedy, functools.partial(own_agents.make_first, seed=1)],
                        games=2, openings="random:plies=2", out=out, workers=2, progress=False).run()
    assert result.finished == 2
    records = load_records(out)
    assert {r["white"] for r in records} == {"py:own_agents:Greedy", "py:own_agents:make_first,seed=1"}
    assert all(r["termination"] != "forfeit" for r in records)
    greedy = next(r for r in records if r["white"] == "py:own_agents:Greedy")
    assert isinstance(make_agent(greedy["white"]), own_agents.Greedy)
    depths = greedy["search"]["depth"]  # null on the moves of make_first, which reports nothing
    assert len(depths) == greedy["plies"] and set(depths) == {1, None}


def test_an_agent_other_processes_cannot_import_is_refused_in_one_line(monkeypatch, tmp_path):
    class Local(own_agents.Greedy):
        pass
    with pytest.raises(TournamentError, match="inside a function"):
        Tournament("flow", [Local, "random"], games=2, out=tmp_path / "a.jsonl", workers=0)
    Main = type("Main", (own_agents.Greedy,), {"__module__": "__main__"})
    monkeypatch.setattr(sys.modules["__main__"], "Main", Main, raising=False)
    with pytest.raises(TournamentError, match=r"__main__.*module.*workers=0") as err:
        Tournament("flow", [Main, "random"], games=2, out=tmp_path / "b.jsonl", workers=2)
    assert "\n" not in str(err.value)
    t = Tournament("flow", [Main, "random"], games=2, out=tmp_path / "c.jsonl", workers=0, progress=False)
    assert t.run().finished == 2
    with pytest.raises(TournamentError, match="pass its class"):
        Tournament("flow", [own_agents.Greedy(), "random"], games=2, out=tmp_path / "d.jsonl")
    assert Tournament("flow", [make_agent("random:seed=4"), "random"], games=2,
                      out=tmp_path / "e.jsonl", workers=0).agents[0] == "random:seed=4"


def test_ludo_flow_agents_lists_every_kind_and_py_specs(capsys):
    assert main(["agents"]) == 0
    text = capsys.readouterr().out
    for kind in ("random:", "alphabeta:", "mcts:", "py:"):
        assert f"\n{kind}" in "\n" + text
    assert "depth=4" in text and "reports after each move" in text


def test_the_example_of_the_page_plays_a_tournament(tmp_path, monkeypatch):
    code = re.findall(r"```python\n(.*?)```", DOC.read_text(), re.S)[0]
    assert code.startswith("# my_agents.py") and len(code.splitlines()) <= 22
    (tmp_path / "my_agents.py").write_text(code)
    monkeypatch.syspath_prepend(str(tmp_path))
    result = Tournament("flow", ["py:my_agents:Greedy,seed=3", "random"], games=2,
                        out=tmp_path / "doc.jsonl", workers=0, progress=False).run()
    assert result.finished == 2
    assert all(r["search"]["score"] for r in result.records)


@pytest.mark.slow
def test_own_agents_play_on_ray(tmp_path):
    pytest.importorskip("ray")
    out = tmp_path / "ray.jsonl"
    result = Tournament("flow", ["py:own_agents:Greedy", "random"], games=2, out=out, workers=1,
                        backend="ray", progress=False).run()
    assert result.finished == 2
    assert all(r["termination"] != "forfeit" for r in load_records(out))
