"""``malta-sim odds``: exact odds calculators for a combat (CRT), a bombardment
and an airborne drop (rules 9.3-9.4, 10.12, 19.41-19.45).

Examples::

    malta-sim odds crt --attack 29 --defense 15 --shift 5 --terrain clear --time day
    malta-sim odds bombard --strength 10 --battalions 4 --terrain town --enemy-artillery
    malta-sim odds drop --hex 1313 --aa 1 --json --out drop.png
"""

from __future__ import annotations

import json
from pathlib import Path

import click
import numpy as np

from ..errors import OptionError

TERRAIN_HELP = "clear, woods, town, city, fort, airfield, beach, coastal"


def _charts(data_dir):
    from ..loaders.iod_charts import load_charts

    return load_charts(data_dir)


#: Data files behind each calculator (their rows say whether a value is printed or reconstructed).
TABLE_FILES = {
    "crt": ("crt.csv", "crt_lines.csv"),
    "bombard": ("bombardment.csv", "bombardment_lines.csv"),
    "drop": ("drop_table.csv", "scatter.csv"),
}

#: What the result codes of each table mean.
CODE_KEY = {
    "crt": ("key: attacker/defender result; a number = hits (rule 9.43: the defender rounds hits down, "
            "the attacker up; a hit is a step lost or a hex of retreat); D = every unit of that side "
            "disorganized, Z = demoralized (rule 9.41); - = no effect"),
    "bombard": ("key: - = no effect; D = every unit in the hex disorganized; Z = demoralized (a unit "
                "already demoralized loses a step); 1 / 2 = one / two steps lost, at most what rule 10.14 "
                "allows (Bombardment Table, rules 10.12-10.14)"),
    "drop": ("key: probability that the piece lands in each hex (drop and scatter, rules 19.41-19.45); "
             "drowned = it comes down in the sea"),
}


def table_source(data_dir, which: str) -> dict:
    """Whether the table behind a calculator is printed or reconstructed.

    Returns
    -------
    dict
        ``status`` (``"reconstructed"`` when any row of its files says so,
        else ``"printed"``), ``reconstructed_rows`` (file -> rows) and
        ``note`` (one line for the text output).
    """
    from ..loaders.common import read_text, resolve_data_dir

    folder = resolve_data_dir(data_dir)
    rows = {}
    for f in TABLE_FILES[which]:
        text = read_text(folder / f)
        rows[f] = sum(1 for ln in text.split("\n") if "reconstructed" in ln and not ln.lstrip().startswith("#"))
    status = "reconstructed" if any(rows.values()) else "printed"
    if status == "reconstructed":
        counts = ", ".join(f"{f}: {n} reconstructed rows" for f, n in rows.items() if n)
        note = (f"table: RECONSTRUCTED, not the printed chart ({counts}; how it was built: "
                "docs/crt_calibration.md, docs/calibration.md); give printed charts with --data-dir")
    else:
        note = "table: printed (every row of " + ", ".join(rows) + " cites a rule)"
    return {"status": status, "reconstructed_rows": rows, "note": note}


def _non_negative(name: str, v: int) -> None:
    if v < 0:
        raise OptionError(f"--{name} must be 0 or more, got {v}")


def _terrain_row(data_dir, terrain: str) -> dict:
    """TEC row of a hex terrain (artillery halving, bombardment shift)."""
    from ..loaders.common import Col, read_csv, resolve_data_dir

    folder = resolve_data_dir(data_dir)
    rows = read_csv(folder / "terrain_effects.csv",
                    {"terrain": Col(str), "kind": Col(str), "artillery_halved": Col(int, required=False, default=0),
                     "bombard_shift": Col(int, required=False, default=0)})
    hexes = {r.terrain: r for r in rows if r.kind == "hex" and r.terrain != "ocean"}
    if terrain not in hexes:
        raise OptionError(f"--terrain {terrain!r} is not a terrain (one of: {', '.join(sorted(hexes))})")
    return hexes[terrain]


@click.group(name="odds")
def command():
    """Exact odds of a combat, a bombardment or an airborne drop.

    Each answer says whether the table it used is printed or reconstructed
    (the packaged charts are reconstructed: docs/crt_calibration.md) and ends
    with a key to the result codes.
    """


def _column_note(final_odds: str, column: str, highest: bool) -> str:
    """Why the column read differs from the final odds (rule 9.3 g): odds
    above the line's highest column use it; odds between columns use the
    lower one.  ``highest``: ``column`` is the line's highest column."""
    if final_odds == column:
        return ""
    if highest:
        return f"   (final odds {final_odds} are above the line's highest column, rule 9.3 g)"
    return f"   (final odds {final_odds} fall between columns: the lower one, rule 9.3 g)"


@command.command(name="crt")
@click.option("--attack", type=int, required=True, help="Modified attack total (strength points, rule 9.3 b).")
@click.option("--defense", type=int, required=True,
              help="Modified defense total (already doubled in a city or fort and with support, rule 9.3 c).")
@click.option("--shift", type=int, default=0, show_default=True, help="Total column shift of rule 9.92.")
@click.option("--terrain", required=True, help=f"Terrain of the defending hex ({TERRAIN_HELP}).")
@click.option("--time", "time_", type=click.Choice(["day", "night"]), required=True, help="Day or night turn (10.2).")
@click.option("--fort", is_flag=True,
              help="Defenders in a fort hex: one hit fewer (rule 9.94). A fort is its own hex terrain, "
                   "so --fort goes only with --terrain fort (which implies it).")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
@click.option("--data-dir", type=click.Path(), default=None, help="Data directory (default: packaged data).")
def crt_cmd(attack, defense, shift, terrain, time_, fort, as_json, data_dir):
    """Outcome distribution of one attack on the Combat Results Table."""
    from ..exact.combat import combat_distribution

    _non_negative("attack", attack)
    _non_negative("defense", defense)
    ch = _charts(data_dir)
    if terrain not in ch.terrain_line:
        raise OptionError(f"--terrain {terrain!r} is not a terrain (one of: {', '.join(sorted(ch.terrain_line))})")
    if defense == 0:
        raise OptionError("--defense must be at least 1 (hexes with no defense strength are not attacked, rule 9.15)")
    if attack == 0:
        raise OptionError("--attack must be at least 1")
    if fort and terrain != "fort":
        # rule 9.94: the fort modifier belongs to a fort hex, whose terrain is "fort"
        raise OptionError(f"--fort contradicts --terrain {terrain}: a fort is a hex terrain of its own "
                          "(rule 9.94); use --terrain fort, which already takes one hit off the defender")
    line = ch.line_for_terrains([terrain], night=(time_ == "night"))
    fort = fort or terrain == "fort"
    d = combat_distribution(attack, defense, shift, line, fort, ch)
    out = {
        "attack": attack, "defense": defense, "shift": shift, "terrain": terrain, "time": time_, "fort": fort,
        "basic_odds": d["basic_odds"], "final_odds": d["final_odds"], "column": d["column"], "line": d["line"],
        "line_title": ch.line_titles[line], "cancelled": d["cancelled"],
        "outcomes": [{"result": o["result"], "probability": o["probability"], "rolls": o["rolls"]} for o in d["outcomes"]],
        "expected": {
            "attacker": {"hits": d["expected"]["attacker_hits"], "steps": d["expected"]["attacker_steps"]},
            "defender": {"hits": d["expected"]["defender_hits"], "steps": d["expected"]["defender_steps"]},
        },
        "table": table_source(data_dir, "crt"),
        "key": CODE_KEY["crt"],
    }
    if as_json:
        click.echo(json.dumps(out, indent=2))
        return
    click.echo(out["table"]["note"])
    click.echo(f"{attack} vs {defense}: basic odds {out['basic_odds']}, shift {shift:+d}, final odds {out['final_odds']}")
    click.echo(f"line: {out['line_title']}")
    if d["cancelled"]:
        click.echo("attack cancelled: the odds are below the line's lowest column (rule 9.3 g)")
        return
    highest = d["column"] == ch.crt_columns[int(ch.line_cols[line, 1])]
    click.echo(f"column: {out['column']}" + _column_note(out["final_odds"], out["column"], highest)
               + ("   (fort: defender hits -1)" if fort else ""))
    click.echo(f"{'result':>8}  {'prob':>7}  rolls")
    for o in out["outcomes"]:
        click.echo(f"{o['result']:>8}  {o['probability']:7.4f}  {','.join(str(r) for r in o['rolls'])}")
    e = out["expected"]
    click.echo(f"expected hits   attacker {e['attacker']['hits']:.3f}  defender {e['defender']['hits']:.3f}")
    click.echo(f"expected steps  attacker {e['attacker']['steps']:.3f}  defender {e['defender']['steps']:.3f}")
    click.echo(out["key"])


@command.command(name="bombard")
@click.option("--strength", type=int, required=True, help="Total offensive support bombarding the hex (rule 10.12).")
@click.option("--battalions", type=int, default=None, help="Stacking total of the target hex in battalions.")
@click.option("--companies", type=int, default=0, show_default=True,
              help="Companies and HQs in the hex (three = one battalion; added to --battalions).")
@click.option("--terrain", default="clear", show_default=True, help=f"Terrain of the target hex ({TERRAIN_HELP}).")
@click.option("--enemy-artillery", is_flag=True, help="Enemy artillery in the target hex (+1 column).")
@click.option("--not-adjacent", is_flag=True, help="Target not adjacent to any friendly unit (-1 column).")
@click.option("--only-tanks", is_flag=True, help="Only tanks in the target hex (-1 column).")
@click.option("--shift", type=int, default=0, show_default=True, help="Further column shift.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
@click.option("--data-dir", type=click.Path(), default=None, help="Data directory (default: packaged data).")
def bombard_cmd(strength, battalions, companies, terrain, enemy_artillery, not_adjacent, only_tanks, shift,
                as_json, data_dir):
    """Outcome distribution of one bombardment on the Bombardment Table."""
    from ..exact.combat import bombardment_distribution
    from ..kernels.bombard import bombard_shift, bombard_strength, stacking_total

    _non_negative("strength", strength)
    _non_negative("companies", companies)
    if battalions is None and companies == 0:
        raise OptionError("--battalions (or --companies) is required: the stacking total of the target hex")
    battalions = battalions or 0
    _non_negative("battalions", battalions)
    ch = _charts(data_dir)
    row = _terrain_row(data_dir, terrain)
    s = bombard_strength(strength, bool(row.artillery_halved))
    stack = stacking_total(battalions, 0, companies, 0)
    if stack == 0:
        raise OptionError("the target hex has no units (--battalions/--companies)")
    sh = bombard_shift(enemy_artillery, terrain == "fort" or row.bombard_shift < 0, not_adjacent, only_tanks) + shift
    d = bombardment_distribution(s, stack, sh, ch)
    out = {"strength": strength, "terrain": terrain, "modified_strength": int(s), "battalions": int(stack),
           "shift": int(sh), "column": d["column"], "ineffective": d["ineffective"],
           "outcomes": [{"result": o["result"], "probability": o["probability"], "rolls": o["rolls"]}
                        for o in d["outcomes"]],
           "expected": {"steps": d["expected"]["steps"]},
           "table": table_source(data_dir, "bombard"), "key": CODE_KEY["bombard"]}
    if as_json:
        click.echo(json.dumps(out, indent=2))
        return
    click.echo(out["table"]["note"])
    click.echo(f"strength {strength} -> {s} on {terrain}; {stack} battalion(s); shift {sh:+d}")
    if d["ineffective"]:
        click.echo("fire ineffective: strength below the row's minimum (rule 10.12)")
        return
    click.echo(f"column: {d['column']}")
    click.echo(f"{'result':>6}  {'prob':>7}  rolls")
    for o in out["outcomes"]:
        click.echo(f"{o['result']:>6}  {o['probability']:7.4f}  {','.join(str(r) for r in o['rolls'])}")
    click.echo(f"expected steps (1/2 results, before the 10.14 cap): {out['expected']['steps']:.3f}")
    click.echo(out["key"])


def render_drop_png(m, probs: dict, planned: int, title: str, out: str | Path) -> None:
    """Heat map of landing probabilities on the map (Agg backend)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.collections import PolyCollection

    from ..mapgen.geo import SQRT3, hex_centre

    g = m.grid
    centres = np.array([hex_centre(h) for h in g.hex_ids])
    r = 1.0 / SQRT3
    ang = np.radians([0, 60, 120, 180, 240, 300])
    polys = [np.stack([x + r * np.cos(ang), y + r * np.sin(ang)], axis=1) for x, y in centres]
    vals = np.zeros(g.n_hexes)
    for h, p in probs.items():
        vals[h] = p
    fig, ax = plt.subplots(figsize=(11, 8.5), dpi=100)
    base = ["#a9cfe8" if m.ocean[i] else "#eeeeee" for i in range(g.n_hexes)]
    ax.add_collection(PolyCollection(polys, facecolors=base, edgecolors="#999999", linewidths=0.3))
    hot = np.flatnonzero(vals > 0)
    cmap = plt.get_cmap("inferno_r")
    vmax = vals.max() if vals.max() > 0 else 1.0
    pc = PolyCollection([polys[i] for i in hot], array=vals[hot], cmap=cmap, edgecolors="#444444", linewidths=0.4)
    pc.set_clim(0, vmax)
    ax.add_collection(pc)
    fig.colorbar(pc, ax=ax, shrink=0.7, label="landing probability")
    for i in hot:
        if vals[i] >= 0.01:
            ax.text(centres[i, 0], centres[i, 1], f"{vals[i]:.2f}", ha="center", va="center", fontsize=6,
                    color="white" if vals[i] > 0.5 * vmax else "black")
    px, py = centres[planned]
    ax.add_patch(plt.Polygon(polys[planned], fill=False, edgecolor="#00a000", linewidth=2.0))
    ax.text(px, py - 0.45, g.hex_id(planned), ha="center", va="bottom", fontsize=7, color="#006000")
    land = centres[m.land]
    ax.set_xlim(land[:, 0].min() - 3, land[:, 0].max() + 3)
    ax.set_ylim(land[:, 1].max() + 3, land[:, 1].min() - 3)
    ax.set_aspect("equal")
    ax.set_xticks([])
    ax.set_yticks([])
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(out)
    plt.close(fig)


@command.command(name="drop")
@click.option("--hex", "hex_id", required=True, help="Planned hex XXYY.")
@click.option("--marker", is_flag=True, help="A drop zone marker (re-rolls from the ocean, 19.42) instead of a stick.")
@click.option("--german", is_flag=True, help="German marker / all-German stick (-1).")
@click.option("--aa", type=int, default=0, show_default=True, help="Allied AA units within three hexes (+1 each).")
@click.option("--solitaire", is_flag=True, help="Solitaire play (+2, rule 21.1).")
@click.option("--reroll-from", type=click.Choice(["planned", "landing"]), default="planned", show_default=True,
              help="Marker re-roll reading of 19.42: from the planned hex, or from the ocean hex where it came down.")
@click.option("--json", "as_json", is_flag=True, help="Print JSON instead of a table.")
@click.option("--out", type=click.Path(), default=None, help="Write a heat map PNG.")
@click.option("--overwrite", is_flag=True, help="Replace the --out file if it exists (without it the command refuses).")
@click.option("--data-dir", type=click.Path(), default=None, help="Data directory (default: packaged data).")
def drop_cmd(hex_id, marker, german, aa, solitaire, reroll_from, as_json, out, overwrite, data_dir):
    """Where a stick unit (or a drop zone marker) planned on a hex lands."""
    from ..exact.drop import marker_landing, stick_unit_landing
    from ..loaders.iod_map import load_map

    _non_negative("aa", aa)
    if out is not None and not str(out).lower().endswith(".png"):
        raise OptionError(f"--out {out!r} must be a .png file")
    if out is not None:
        from .common import check_new_file

        check_new_file(out, "--out", overwrite)
    ch = _charts(data_dir)
    m = load_map(data_dir)
    h = m.grid.index(hex_id)
    if m.ocean[h]:
        raise OptionError(f"--hex {hex_id} is an ocean hex; jumps are not planned on ocean (rules 19.33, 19.43)")
    if marker:
        probs = marker_landing(h, german, np.full(m.grid.n_hexes, aa, dtype=np.int32), solitaire, m.ocean,
                               m.neighbours, ch, reroll_from_landing=(reroll_from == "landing"))
        drowned = 0.0
    else:
        land, dr = stick_unit_landing(h, german, aa, solitaire, m.ocean, m.neighbours, ch)
        probs = {k: float(v) for k, v in land.items()}
        drowned = float(dr)
    landing = [{"hex": m.grid.hex_id(k), "probability": p} for k, p in sorted(probs.items(), key=lambda kv: -kv[1])]
    res = {"hex": hex_id, "kind": "marker" if marker else "stick", "german": german, "aa": aa,
           "solitaire": solitaire, "landing": landing, "drowned": drowned,
           "table": table_source(data_dir, "drop"), "key": CODE_KEY["drop"]}
    if marker:
        res["reroll_from"] = reroll_from
    if out is not None:
        what = "drop zone marker" if marker else "stick unit"
        render_drop_png(m, probs, h, f"{what} planned on {hex_id}: drowned {drowned:.3f}", out)
        res["png"] = str(out)
    if as_json:
        click.echo(json.dumps(res, indent=2))
        return
    click.echo(res["table"]["note"])
    click.echo(f"{res['kind']} planned on {hex_id}  (drowned: {drowned:.4f})")
    for row in landing:
        click.echo(f"  {row['hex']}  {row['probability']:.4f}")
    click.echo(res["key"])
    if out is not None:
        click.echo(f"heat map written to {out}")
