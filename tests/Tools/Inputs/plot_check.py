"""Helpers for tests/Tools/plots.test.

  plot_check.py render PATH...   renders every SVG (each PATH a file or a
                                 folder, searched for *.svg) to PNG with
                                 rsvg-convert; prints one line per SVG and
                                 exits 1 if any fails to render or renders
                                 empty
  plot_check.py styles GP...     checks the layout of sweep plot scripts
                                 (Sweep/Plots.cpp): in each panel the lines
                                 differ in colour, dash pattern and point
                                 type, and number at most 8; every legend
                                 lies right of every data panel; the canvas
                                 holds them all. Prints one line per script
                                 and exits 1 on the first violation
  plot_check.py panels SVG       checks `snapflow trace --svg`: one panel
                                 per tier in use, each with its own scale,
                                 so the tier's line reaches the upper part
                                 of its panel (on one shared axis the small
                                 tiers lay flat at 0); prints one line per
                                 panel, exits 1 on the first that fails
  plot_check.py sizes PATH...    reads every SVG's height; prints "too
                                 tall" for one over 2000 px (issue 32,
                                 item 9) and the tallest, exits 1 if any
"""
import os
import re
import struct
import subprocess
import sys
import tempfile


def svgs(paths):
    for p in paths:
        if os.path.isdir(p):
            for name in sorted(os.listdir(p)):
                if name.endswith(".svg"):
                    yield os.path.join(p, name)
        else:
            yield p


def render(paths):
    bad = 0
    files = list(svgs(paths))
    if not files:
        print("no SVG found")
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        for svg in files:
            png = os.path.join(tmp, "out.png")
            p = subprocess.run(["rsvg-convert", "-o", png, svg],
                               capture_output=True, text=True)
            name = os.path.basename(svg)
            if p.returncode != 0:
                print(f"broken: {name}: {p.stderr.strip()}")
                bad += 1
                continue
            with open(png, "rb") as f:
                head = f.read(24)
            # PNG signature, then the IHDR chunk: width and height.
            width, height = struct.unpack(">II", head[16:24])
            if head[:8] != b"\x89PNG\r\n\x1a\n" or width < 100 or height < 100:
                print(f"broken: {name}: renders {width}x{height}")
                bad += 1
                continue
            print(f"rendered: {name} {width}x{height}")
    return 1 if bad else 0


def fail(gp, message):
    print(f"{os.path.basename(gp)}: {message}")
    sys.exit(1)


def styles(paths):
    for gp in paths:
        text = open(gp).read()
        size = re.search(r"set terminal svg size (\d+),(\d+)", text)
        if not size:
            fail(gp, "no svg terminal size")
        data, legends = text.split("\n# legends\n")
        # A chart whose dashes name a variant (CLA) draws the others solid.
        variants = " dt 2 " in text
        # Panels: each `plot` command with the margins set before it.
        right_of_data = 0.0
        panels = 0
        margins = {}
        for block in re.split(r"\n(?=set |plot |# )", data):
            m = re.match(r"set ([lrtb])margin at screen ([-0-9.e]+)", block)
            if m:
                margins[m.group(1)] = float(m.group(2))
                continue
            if not block.startswith("plot "):
                continue
            panels += 1
            if not all(0 <= margins.get(k, -1) <= 1 for k in "lrtb"):
                fail(gp, f"panel {panels} lies off the canvas: {margins}")
            right_of_data = max(right_of_data, margins["r"])
            lines = re.findall(r"with (?:lines)?points .*?(lc rgb '#[0-9A-Fa-f]+' "
                               r"pt \d+ lw [0-9.]+ dt (?:\d+|\([0-9,]+\)))",
                               block)
            colours = {re.search(r"'(#\w+)'", l).group(1) for l in lines}
            points = {re.search(r"pt (\d+)", l).group(1) for l in lines}
            if len(lines) > 8:
                fail(gp, f"panel {panels} draws {len(lines)} line styles")
            dashed = len({re.search(r"dt (\S+)", l).group(1)
                          for l in lines}) > 1
            # Lines differ in colour and point type; dashes differ too,
            # or name a variant (DDR, CLA) of a line of the same colour.
            if len(set(lines)) != len(lines) or \
                    len(colours) != len(points):
                fail(gp, f"panel {panels} repeats a style: {lines}")
            if len(lines) > 1 and not dashed and not variants:
                fail(gp, f"panel {panels}: every line has one dash pattern")
        left = [float(x) for x in
                re.findall(r"set lmargin at screen ([-0-9.e]+)", legends)]
        keys = legends.count("\nplot ")
        if not left or min(left) < right_of_data:
            fail(gp, "a legend overlaps the data panels")
        if "set key inside" not in legends or "unset border" not in legends:
            fail(gp, "the legend panel draws axes")
        print(f"{os.path.basename(gp)}: {panels} panels, {keys} legends, "
              f"{size.group(1)}x{size.group(2)}")
    return 0


def sizes(paths):
    tallest, bad = 0, 0
    files = list(svgs(paths))
    if not files:
        print("no SVG found")
        return 1
    for path in files:
        with open(path) as f:
            m = re.search(r'<svg[^>]*height="([0-9.]+)', f.read())
        height = float(m.group(1)) if m else 0
        tallest = max(tallest, height)
        if height > 2000:
            print(f"{os.path.basename(path)}: too tall ({height:.0f} px)")
            bad = 1
    print(f"tallest {tallest:.0f} px of {len(files)} SVGs")
    return bad


def panels(paths):
    text = open(paths[0]).read()
    # Panel titles and the x label, top to bottom: each panel spans from its
    # title to the next title (the last to the x label).
    marks = []
    for m in re.finditer(r'translate\(([0-9.]+),([0-9.]+)\)[^>]*>\s*'
                         r'<text>([^<]*)</text>', text):
        label = m.group(3)
        if re.match(r"(SRAM|HBM|DDR|KV cache)\b", label) or \
                label.startswith("simulated time"):
            marks.append((float(m.group(2)), label))
    marks.sort()
    tiers = [m for m in marks if not m[1].startswith("simulated time")]
    if not tiers or not marks[-1][1].startswith("simulated time"):
        print("no tier panels")
        return 1
    # Each tier's line in its colour (lineStyle(k) of Gnuplot.cpp).
    colours = {"SRAM": (0, 114, 178), "HBM": (213, 94, 0),
               "DDR": (0, 158, 115), "KV cache": (204, 121, 167)}
    lines = []
    for m in re.finditer(r"<path stroke='rgb\(\s*(\d+),\s*(\d+),\s*(\d+)\)'"
                         r"\s+d='([^']*)'", text):
        ys = [float(y) for y in re.findall(r"[ML][0-9.]+,([0-9.]+)", m.group(4))]
        if len(ys) >= 2:
            lines.append((tuple(int(c) for c in m.group(1, 2, 3)), ys))
    bad = 0
    for i, (top, label) in enumerate(tiers):
        bottom = marks[marks.index((top, label)) + 1][0]
        name = label.split(" (")[0]
        inside = [ys for colour, ys in lines if colour == colours.get(name)
                  and all(top < y < bottom for y in ys)]
        if not inside:
            print(f"{label}: no line in its panel")
            bad = 1
            continue
        line = max(inside, key=len)
        share = (min(line) - top) / (bottom - top)
        ok = share < 0.5
        print(f"{name}: line reaches the {'upper' if ok else 'lower'} part "
              f"of its own panel")
        bad |= not ok
    return bad


if __name__ == "__main__":
    cmd, args = sys.argv[1], sys.argv[2:]
    sys.exit({"render": render, "styles": styles, "sizes": sizes,
              "panels": panels}[cmd](args))
