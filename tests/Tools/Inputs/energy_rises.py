"""Reads `sweep_csv.py columns` output of set | tokens/s | J/token (one
line per point of an energy-key sweep) and says whether the throughput is
the same at every point and J/token grows with the key's value."""
import sys

points = []
for line in sys.stdin:
    cells = [c.strip() for c in line.split(" | ")]
    if len(cells) != 3 or "=" not in cells[0]:
        continue
    key, value = cells[0].split("=", 1)
    points.append((float(value), float(cells[1]), float(cells[2])))
points.sort()
if not points:
    sys.exit("no points")
equal = all(p[1] == points[0][1] for p in points)
rises = all(a[2] < b[2] for a, b in zip(points, points[1:]))
print("throughput %s at every point; J/token %s with %s: %d points"
      % ("equal" if equal else "differs", "rises" if rises else "does not rise",
         key, len(points)))
