"""``malta-sim map`` draws the map (with set-up stacks) to a PNG; bad options
give one-line errors with exit status 2."""

from __future__ import annotations

import shutil

from click.testing import CliRunner

from malta_sim.cli import main
from malta_sim.loaders.common import packaged_data_dir
from malta_sim.plots_map import scenario_stacks


def test_map_png_with_setup(tmp_path):
    out = tmp_path / "intro.png"
    res = CliRunner().invoke(main, ["map", "--scenario", "intro", "--out", str(out)])
    assert res.exit_code == 0, res.output
    assert out.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert out.stat().st_size > 50_000


def test_setup_stacks_are_read():
    """Rules 22.24 and 22.33: the set-up lists are drawn from the scenario files."""
    intro = {h for _, h, _ in scenario_stacks("intro")}
    herc = {h for _, h, _ in scenario_stacks("hercules")}
    assert {"1309", "1311", "1107", "1110"} <= intro
    assert {"0809", "1211", "1612"} <= herc


def test_map_bad_scenario(tmp_path):
    res = CliRunner().invoke(main, ["map", "--scenario", "nope", "--out", str(tmp_path / "x.png")])
    assert res.exit_code == 2
    assert "--scenario" in res.output and "Traceback" not in res.output


def test_map_broken_data_dir(tmp_path):
    d = tmp_path / "data"
    shutil.copytree(packaged_data_dir(), d)
    p = d / "beach_boxes.csv"
    p.write_text(p.read_text().replace(",1107,", ",1313,"))
    res = CliRunner().invoke(main, ["map", "--out", str(tmp_path / "x.png"), "--data-dir", str(d)])
    assert res.exit_code == 2
    assert "beach_boxes.csv" in res.output and "beach_hex" in res.output
    assert len(res.output.strip().splitlines()) == 1


def _texts(fig):
    return [t for ax in fig.axes for t in ax.texts]


def _boxes(fig, texts):
    r = fig.canvas.get_renderer()
    return [t.get_window_extent(r) for t in texts]


def test_place_names_are_whole_and_never_overlap():
    """Every place name is drawn whole (first name, no parenthesis, never cut), inside
    the map and clear of every other name, at the size of the map command and of
    the replay pictures."""
    import matplotlib.pyplot as plt

    from malta_sim.loaders.iod_map import load_map
    from malta_sim.plots_map import draw_map, place_label

    assert place_label("Xemxija (St Paul's Bay) beach") == "Xemxija beach"
    assert place_label("Sliema / Marsamxett") == "Sliema"
    m = load_map(None)
    wanted = {place_label(n) for n in m.place_names.values()}
    for kw in ({"scenario": "hercules"}, {"show_ids": False, "width_in": 16.0, "dpi": 100, "margin": 2.0}):
        fig = draw_map(m, **kw)
        try:
            ax = fig.axes[0]
            names = [t for t in ax.texts if t.get_text() in wanted]
            assert {t.get_text() for t in names} == wanted and fig.malta_sim_skipped_labels == []
            boxes = _boxes(fig, names)
            frame = ax.get_window_extent(fig.canvas.get_renderer())
            for i, a in enumerate(boxes):
                assert frame.x0 <= a.x0 and a.x1 <= frame.x1 and frame.y0 <= a.y0 and a.y1 <= frame.y1
                assert not any(a.overlaps(b) for b in boxes[i + 1:]), names[i].get_text()
            assert min(t.get_fontsize() for t in names) * fig.dpi / 72 >= 9       # at least 9 pixels high
        finally:
            plt.close(fig)


def test_one_colour_per_side_and_a_complete_legend():
    """Set-up stacks use the Axis and Allied colours of every picture; the legend names
    the airfield X, forts, ports, cities, towns, the numbered wave boxes and the
    Follow-up boxes as well as terrain, hexsides and beach zones; no zone colour is
    a side colour."""
    import matplotlib.pyplot as plt
    from matplotlib.colors import to_hex

    from malta_sim import plots
    from malta_sim.plots_map import ALLIED_COLOUR, AXIS_COLOUR, ZONE_COLOURS, draw_map, scenario_stacks

    fig = draw_map(scenario="intro")
    try:
        stacks = [t for t in fig.axes[0].texts if t.get_bbox_patch() is not None
                  and to_hex(t.get_bbox_patch().get_facecolor()) in (AXIS_COLOUR, ALLIED_COLOUR)]
        colours = {to_hex(t.get_bbox_patch().get_facecolor()) for t in stacks}
        sides = {side for side, _, _ in scenario_stacks("intro")}
        assert len(stacks) == len(scenario_stacks("intro")) and len(colours) == len(sides) == 2
        labels = [t.get_text() for t in fig.legends[0].get_texts()]
        for word in ("airfield", "fort", "port", "city", "town", "First / Second Wave box", "Follow-up box",
                     "road", "creek", "all-ocean hexside", "North beach zone", "hex id",
                     "Axis set-up stack", "Allied set-up stack"):
            assert any(word in lab for lab in labels), word
    finally:
        plt.close(fig)
    assert not {AXIS_COLOUR, ALLIED_COLOUR} & set(ZONE_COLOURS.values())
    assert plots.REASON_COLOURS["surrender"] == AXIS_COLOUR and plots.REASON_COLOURS["operation cancelled"] == ALLIED_COLOUR
