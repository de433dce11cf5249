"""``malta-sim im``: analyses of the printed Invasion: Malta rules.

Subcommands: ``activation`` (activation order: exact chain, closed forms,
Monte Carlo), ``er`` (ER-check pass probabilities and Lead-unit choice),
``disruption`` (expected losses of repeated Disruption), ``reach`` (movement
reach / turns-to-objective map), ``supply`` (supply status map), ``weather``
(Weather Table chances).  Every subcommand prints readable text, or JSON with
``--json``; bad arguments give one error line and exit status 2.
"""

from __future__ import annotations

import json

import click
import numpy as np

from ..errors import OptionError


def _emit(obj, as_json: bool, text):
    if as_json:
        click.echo(json.dumps(obj, indent=2, sort_keys=False, default=lambda x: x.item() if hasattr(x, "item") else str(x)))
    else:
        click.echo(text(obj))


def _formation(arg: str, opt: str):
    from ..games.invasion_malta.analysis import parse_side

    if ":" not in arg:
        raise OptionError(f"{opt} must be SIDE:FORMATION (e.g. axis:L or allied:Central), got {arg!r}")
    s, c = arg.split(":", 1)
    return parse_side(s), c


@click.group(name="im")
def command():
    """Invasion: Malta analyses from the printed rules (1.3-8.4)."""


@command.command("activation")
@click.option("--data-dir", type=click.Path(), default=None, help="Game-data directory replacing the packaged data.")
@click.option("--night", is_flag=True, help="Night turn: 'Night Turns' AMs in, air units out (2.25, 8.43).")
@click.option("--axis", "axis_codes", default=None, help="Axis AMs, comma-separated codes (default: scenario formations).")
@click.option("--allied", "allied_codes", default=None, help="Allied AMs, comma-separated sectors (default: scenario).")
@click.option("--axis-air", type=int, default=None, help="Axis CAS air units in the cup (default: scenario).")
@click.option("--a", "fa", default=None, help="Formation A as SIDE:CODE for P(A acts before B).")
@click.option("--b", "fb", default=None, help="Formation B as SIDE:CODE.")
@click.option("--hold-axis", default="", help="Axis formations the Axis player passes on (7.14 B).")
@click.option("--hold-allied", default="", help="Allied sectors the Allied player passes on.")
@click.option("--mc", type=int, default=0, show_default=True, help="Monte Carlo segments (0: none).")
@click.option("--seed", type=int, default=0, show_default=True, help="Master seed of the Monte Carlo runs.")
@click.option("--no-exact", is_flag=True, help="Skip the exact Markov chain.")
@click.option("--json", "as_json", is_flag=True, help="JSON output.")
def activation_cmd(data_dir, night, axis_codes, allied_codes, axis_air, fa, fb, hold_axis, hold_allied, mc, seed, no_exact, as_json):
    """Distribution of the activation order in one Operations Segment (rules 7.11-7.17)."""
    from ..games.invasion_malta import activation as ac
    from ..games.invasion_malta.analysis import activation_report, make_cup

    if mc < 0:
        raise OptionError("--mc must be >= 0")
    if (fa is None) != (fb is None):
        raise OptionError("--a and --b go together")
    if axis_codes is None or allied_codes is None or axis_air is None:
        from ..games.invasion_malta.data import load_formations, load_scenario
        forms = load_formations(data_dir)
        if axis_air is None:
            axis_air = 0 if night else load_scenario("c3", data_dir).setting("axis_cas_air_units", int)
    ax = [c for c in axis_codes.split(",") if c] if axis_codes is not None else \
        [f.code for f in forms if f.side == 0 for _ in range(f.markers + (f.night_markers if night else 0))]
    al = [c for c in allied_codes.split(",") if c] if allied_codes is not None else \
        [f.code for f in forms if f.side == 1 for _ in range(f.markers + (f.night_markers if night else 0))]
    cup = make_cup(ax, al, axis_air)
    a = _formation(fa, "--a") if fa else None
    b = _formation(fb, "--b") if fb else None
    for f, opt in ((a, "--a"), (b, "--b")):
        if f is not None and f[1] not in (ax if f[0] == 0 else al):
            side, codes = ("axis", ax) if f[0] == 0 else ("allied", al)
            raise OptionError(f"{opt} formation {f[1]!r} has no AM in the cup; {side} formations with an AM: "
                              f"{', '.join(dict.fromkeys(codes)) or '(none)'}")
    pol = (ac.HoldPolicy(frozenset(x for x in hold_axis.split(",") if x)),
           ac.HoldPolicy(frozenset(x for x in hold_allied.split(",") if x)))
    if no_exact and mc == 0:
        raise OptionError("nothing to compute: give --mc N or drop --no-exact")
    rep = activation_report(cup, a, b, pol, mc=mc, seed=seed, exact=not no_exact)
    rep["cup"] = {"axis": ax, "allied": al, "axis_air": axis_air}

    def text(r):
        lines = [f"cup: {len(ax)} Axis AMs, {len(al)} Allied AMs, {axis_air} Axis air units ({r['pieces']} pieces)"]
        for kind in ("exact", "monte_carlo"):
            if kind not in r:
                continue
            x = r[kind]
            lines.append(f"{kind.replace('_', ' ')}{' (n=%d)' % x['n'] if 'n' in x else ''}:")
            if "a_before_b" in x:
                lines.append(f"  P({fa} acts before {fb}) = {x['a_before_b']['p']:.4f}")
            lines.append(f"  expected draws until the Axis first acts:  {x['first_act_axis']['mean']:.3f}")
            lines.append(f"  expected draws until the Allies first act: {x['first_act_allied']['mean']:.3f}")
            lines.append(f"  expected runs of one side's activations:   {x['runs']['mean']:.3f}")
            lines.append(f"  expected longest run:                      {x['longest_run']['mean']:.3f}")
        if "closed_form" in r:
            cf = r["closed_form"]
            lines.append("closed form (no passes): " + ", ".join(f"{k}={v:.4f}" for k, v in cf.items() if v is not None))
        return "\n".join(lines)

    _emit(rep, as_json, text)


@command.command("er")
@click.option("--er", "ers", default="1-10", show_default=True, help="ERs: a range '1-10' or a list '5,6,7'.")
@click.option("--drm", "drms", default="-3-3", show_default=True, help="DRMs: a range '-3-3' or a list.")
@click.option("--lead", "leads", multiple=True, help="Lead candidate ID:ER[:d][:o][:x] (d Disrupted, o OoS, x over-stacked); repeat.")
@click.option("--json", "as_json", is_flag=True)
def er_cmd(ers, drms, leads, as_json):
    """ER-check pass probabilities (rule 3.71) and the Lead-unit choice (3.72-3.75)."""
    from ..games.invasion_malta.analysis import er_table, lead_choice

    def parse(spec, opt):
        try:
            if "," in spec or spec.lstrip("-").isdigit():
                return [int(x) for x in spec.split(",")]
            lo, hi = spec[0] + spec[1:].split("-", 1)[0], spec[1:].split("-", 1)[1]
            return list(range(int(lo), int(hi) + 1))
        except (ValueError, IndexError):
            raise OptionError(f"{opt} must be a range like 1-10 or a list like 5,6,7; got {spec!r}") from None

    out = {"table": er_table(parse(ers, "--er"), parse(drms, "--drm"))}
    for e in out["table"]["er"]:
        if not 1 <= e <= 10:
            raise OptionError(f"--er values must be 1..10, got {e}")
    if leads:
        cands = []
        for spec in leads:
            parts = spec.split(":")
            if len(parts) < 2 or not parts[1].isdigit():
                raise OptionError(f"--lead must be ID:ER[:d][:o][:x], got {spec!r}")
            flags = set(parts[2:])
            if flags - {"d", "o", "x"}:
                raise OptionError(f"--lead flags are d, o, x; got {spec!r}")
            cands.append(dict(id=parts[0], er=int(parts[1]), disrupted="d" in flags, oos="o" in flags, overstacked="x" in flags))
        out["lead"] = {str(d): lead_choice(cands, d) for d in out["table"]["drm"]}

    def text(o):
        t = o["table"]
        lines = ["P(pass ER check), d10 (0 = 10): rows ER, columns DRM",
                 "ER  " + "".join(f"{d:>7d}" for d in t["drm"])]
        for e, row in zip(t["er"], t["p"]):
            lines.append(f"{e:>2d}  " + "".join(f"{p:7.1f}" for p in row))
        if "lead" in o:
            lines.append("Lead unit choice (best pass chance per DRM):")
            for d, r in o["lead"].items():
                lines.append(f"  DRM {d:>3}: best {r['best']} ({r['p_best']:.1f}); " +
                             ", ".join(f"{k} {v:.1f}" for k, v in r["by_lead"].items()))
        return "\n".join(lines)

    _emit(out, as_json, text)


@command.command("disruption")
@click.option("--unit", "specs", multiple=True, required=True, help="ER/ER_REDUCED/STEPS of a Disrupted unit in the hex; repeat.")
@click.option("--results", type=int, default=1, show_default=True, help="Further Disruption results on the hex.")
@click.option("--drm", type=int, default=0, show_default=True)
@click.option("--oos", is_flag=True, help="The units are Out of Supply (ER -1).")
@click.option("--mc", type=int, default=0, show_default=True, help="Also simulate N times.")
@click.option("--seed", type=int, default=0, show_default=True)
@click.option("--json", "as_json", is_flag=True)
def disruption_cmd(specs, results, drm, oos, mc, seed, as_json):
    """Step losses of a Disrupted stack hit by more Disruption results (rule 3.84)."""
    from ..games.invasion_malta.analysis import repeated_disruption_exact, repeated_disruption_mc

    parsed = []
    for s in specs:
        try:
            er, err, st = (int(x) for x in s.split("/"))
        except ValueError:
            raise OptionError(f"--unit must be ER/ER_REDUCED/STEPS like 7/6/2, got {s!r}") from None
        if not (1 <= er <= 10 and 1 <= err <= 10 and st in (1, 2)):
            raise OptionError(f"--unit {s!r}: ERs 1..10 and steps 1 or 2 (rule 3.41)")
        parsed.append((er, err, st))
    if results < 0 or results > 12:
        raise OptionError("--results must be 0..12")
    out = {"exact": repeated_disruption_exact(parsed, results, drm, oos)}
    if mc > 0:
        out["monte_carlo"] = repeated_disruption_mc(parsed, results, mc, seed, drm, oos)

    def text(o):
        e = o["exact"]
        lines = [f"{len(parsed)} Disrupted unit(s), {results} more Disruption result(s): "
                 f"expected steps lost {e['expected_steps_lost']:.4f}, P(stack eliminated) {e['p_stack_eliminated']:.4f}",
                 "steps lost: " + ", ".join(f"{k}: {v:.4f}" for k, v in e["distribution"].items())]
        if "monte_carlo" in o:
            lines.append(f"Monte Carlo (n={o['monte_carlo']['n']}): expected {o['monte_carlo']['expected_steps_lost']:.4f}")
        return "\n".join(lines)

    _emit(out, as_json, text)


def _unit(u, uid: str, opt: str) -> int:
    """Index of unit ``uid``; an unknown id is refused listing the nearest ids and every id."""
    if uid in u.ids:
        return u.index(uid)
    import difflib

    near = difflib.get_close_matches(uid, u.ids, n=3, cutoff=0.4)
    hint = f"; did you mean {', '.join(near)}?" if near else ""
    raise OptionError(f"{opt}: unknown unit id {uid!r}{hint} Unit ids: {', '.join(u.ids)}")


def _place(m, u, pos, specs, opt):
    for s in specs:
        if "=" not in s:
            raise OptionError(f"{opt} must be UNIT_ID=HEX, got {s!r}")
        uid, h = s.rsplit("=", 1)
        pos.hex[_unit(u, uid, opt)] = m.idx(h)


def _position(data_dir, axis, allied, disrupted):
    from ..games.invasion_malta.data import load_scenario
    from ..games.invasion_malta.units import Position

    sc = load_scenario("c3", data_dir)
    m, u = sc.map, sc.units
    pos = Position.fresh(u, m.n)
    pos.hex_owner[m.land] = 1
    _place(m, u, pos, axis, "--axis")
    _place(m, u, pos, allied, "--allied")
    for uid in disrupted:
        pos.disrupted[_unit(u, uid, "--disrupted")] = True
    for k in np.flatnonzero(pos.hex >= 0):
        if not m.land[pos.hex[k]]:
            raise OptionError(f"unit {u.ids[k]} placed on sea hex {m.hid(pos.hex[k])}")
    return sc, m, u, pos


@command.command("reach")
@click.option("--data-dir", type=click.Path(), default=None)
@click.option("--unit", "moving", multiple=True, required=True, help="Unit id of the moving stack; repeat for a stack.")
@click.option("--hex", "start", required=True, help="Start hex XXYY.")
@click.option("--axis", multiple=True, help="Other Axis unit as ID=HEX; repeat.")
@click.option("--allied", multiple=True, help="Allied unit as ID=HEX; repeat.")
@click.option("--disrupted", multiple=True, help="Unit id that is Disrupted; repeat.")
@click.option("--night", is_flag=True)
@click.option("--weather", type=click.Choice(["good", "windy", "storm"]), default="good", show_default=True)
@click.option("--gt1", is_flag=True, help="GT 1: Allied units lose 2 MP (rule 7.12).")
@click.option("--phases", type=int, default=1, show_default=True, help=">1: phases-to-reach map over that many Movement Phases.")
@click.option("--to", "target", default=None, help="Report only this objective hex.")
@click.option("--png", type=click.Path(), default=None, help="Also draw the map into this image file.")
@click.option("--overwrite", is_flag=True, help="Replace the --png file if it exists (without it the command refuses).")
@click.option("--json", "as_json", is_flag=True)
def reach_cmd(data_dir, moving, start, axis, allied, disrupted, night, weather, gt1, phases, target, png, overwrite,
              as_json):
    """Movement reach (MP cost) or turns-to-objective map of a stack (rule 8)."""
    from ..games.invasion_malta.analysis import reach_map
    from ..games.invasion_malta.movement import MoveContext

    if phases < 1 or phases > 30:
        raise OptionError("--phases must be 1..30")
    if png:
        from .common import check_new_file

        check_new_file(png, "--png", overwrite)
    sc, m, u, pos = _position(data_dir, axis, allied, disrupted)
    stack = [_unit(u, x, "--unit") for x in moving]
    pos.hex[stack] = m.idx(start)
    if not m.land[m.idx(start)]:
        raise OptionError(f"--hex {start} is a sea hex")
    r = reach_map(m, u, pos, stack, MoveContext(night=night, weather=weather, first_turn_penalty=gt1), phases)
    out = {"stack": list(moving), "start": start, "unit": "MP" if phases == 1 else "movement phases", "map": r}
    if target is not None:
        m.idx(target)
        out["to"] = {"hex": target, "value": r.get(target)}
    if png:
        from ..games.invasion_malta.analysis import plot_hex_values
        marks = {m.hid(pos.hex[k]): ("A" if u.side[k] == 0 else "B") for k in np.flatnonzero(pos.hex >= 0)}
        plot_hex_values(m, r, png, f"{','.join(moving)} from {start}: {out['unit']}", marks=marks)
        out["png"] = png

    def text(o):
        if "to" in o:
            v = o["to"]["value"]
            return f"{','.join(moving)} from {start} to {target}: " + ("unreachable" if v is None else f"{v} {o['unit']}")
        items = sorted(o["map"].items(), key=lambda kv: (kv[1], kv[0]))
        return f"{len(items)} hexes reachable ({o['unit']}):\n" + "\n".join(f"  {h}: {v}" for h, v in items)

    _emit(out, as_json, text)


@command.command("supply")
@click.option("--data-dir", type=click.Path(), default=None)
@click.option("--axis", multiple=True, help="Axis unit as ID=HEX; repeat.")
@click.option("--allied", multiple=True, help="Allied unit as ID=HEX; repeat.")
@click.option("--disrupted", multiple=True, help="Unit id that is Disrupted; repeat.")
@click.option("--beachhead", multiple=True, help="Beachhead marker hex; repeat.")
@click.option("--airhead", multiple=True, help="Airhead marker as HEX[:G|I]; repeat.")
@click.option("--nationality", type=click.Choice(["G", "I"]), default="G", show_default=True)
@click.option("--paradropped", is_flag=True, help="Map for a paradropped unit (may use any Airhead, 6.31).")
@click.option("--png", type=click.Path(), default=None, help="Also draw the supply map into this image file.")
@click.option("--overwrite", is_flag=True, help="Replace the --png file if it exists (without it the command refuses).")
@click.option("--json", "as_json", is_flag=True)
def supply_cmd(data_dir, axis, allied, disrupted, beachhead, airhead, nationality, paradropped, png, overwrite,
               as_json):
    """Supply status map for Axis units (rule 6) and the status of the units given."""
    if png:
        from .common import check_new_file

        check_new_file(png, "--png", overwrite)
    from ..games.invasion_malta.analysis import supply_status_map
    from ..games.invasion_malta.supply import supplied_units

    sc, m, u, pos = _position(data_dir, axis, allied, disrupted)
    for h in beachhead:
        pos.beachheads.add(m.idx(h))
    for s in airhead:
        h, _, nat = s.partition(":")
        if nat not in ("", "G", "I"):
            raise OptionError(f"--airhead nationality must be G or I, got {s!r}")
        pos.airheads[m.idx(h)] = nat or "G"
    if not beachhead and not airhead:
        raise OptionError("give at least one --beachhead or --airhead (the Axis Supply Sources, rule 6.31)")
    for s in axis:
        if paradropped:
            pos.paradropped[_unit(u, s.rsplit("=", 1)[0], "--paradropped")] = True
    out = supply_status_map(m, u, pos, nationality, paradropped)
    ok = supplied_units(m, u, pos)
    out["units"] = {u.ids[k]: bool(ok[k]) for k in np.flatnonzero((pos.hex >= 0) & (u.side == 0))}
    if png:
        from ..games.invasion_malta.analysis import plot_hex_values
        vals = {h: 1 for h in out["supplied"]}
        vals.update({h: 0 for h in out["out_of_supply"]})
        marks = {m.hid(pos.hex[k]): ("A" if u.side[k] == 0 else "B") for k in np.flatnonzero(pos.hex >= 0)}
        marks.update({h: "BH" for h in beachhead})
        plot_hex_values(m, vals, png, "Axis supply (1 = Supply Route to a source)", cmap="RdYlGn", marks=marks)
        out["png"] = png

    def text(o):
        lines = [f"supplied land hexes: {len(o['supplied'])}; out of supply: {len(o['out_of_supply'])}"]
        for k, v in o["units"].items():
            lines.append(f"  {k}: {'Supplied' if v else 'cannot trace a Supply Route'}")
        return "\n".join(lines)

    _emit(out, as_json, text)


@command.command("weather")
@click.option("--data-dir", type=click.Path(), default=None)
@click.option("--json", "as_json", is_flag=True)
def weather_cmd(data_dir, as_json):
    """Chances of Good, Windy and Storm weather from one d10 (rule 5.1)."""
    from ..games.invasion_malta.weather import load_weather_table, weather_probabilities

    p = weather_probabilities(load_weather_table(data_dir))
    _emit(p, as_json, lambda o: "\n".join(f"{k:>6}: {v:.1f}" for k, v in o.items()))


@command.command("check-data")
@click.option("--data-dir", type=click.Path(), default=None, help="Game-data directory replacing the packaged data.")
@click.option("--json", "as_json", is_flag=True)
def check_data_cmd(data_dir, as_json):
    """Load and validate every Invasion: Malta data file (map, counters, formations, weather, scenario).

    Prints counts and how many rows are printed values vs reconstructed; a bad
    file gives one error line naming file, line and field (exit status 2).
    """
    import csv as _csv
    from pathlib import Path

    from ..games.invasion_malta import csvio
    from ..games.invasion_malta.data import load_scenario

    sc = load_scenario("c3", data_dir)
    m, u = sc.map, sc.units
    base = Path(data_dir) if data_dir else csvio.DATA_DIR
    prov = {}
    for p in sorted(base.glob("*.csv")):
        with open(p, newline="", encoding="utf-8") as f:
            rows = [r for r in _csv.DictReader(f) if r.get("source")]
        prov[p.name] = {"rows": len(rows), "printed": sum(r["source"].startswith("rule ") for r in rows),
                        "reconstructed": sum(r["source"].startswith("reconstructed") for r in rows)}
    out = {"land_hexes": int(m.land.sum()), "airfields": int(m.airfield.sum()), "forts": int(m.fort.sum()),
           "beaches": int(m.beach.sum()), "road_hexsides": int((m.road > 0).sum() // 2), "units": u.n,
           "formations": len(sc.formations), "scenario": sc.settings.get("name", "c3"), "files": prov}

    def text(o):
        lines = [f"ok: {o['land_hexes']} land hexes, {o['airfields']} airfield, {o['forts']} fort, {o['beaches']} beach hexes, "
                 f"{o['road_hexsides']} road hexsides; {o['units']} units, {o['formations']} formations; scenario {o['scenario']}"]
        for k, v in o["files"].items():
            lines.append(f"  {k}: {v['rows']} rows ({v['printed']} printed, {v['reconstructed']} reconstructed)")
        return "\n".join(lines)

    _emit(out, as_json, text)
