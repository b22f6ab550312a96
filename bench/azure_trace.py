"""Writes a trace in Azure's published form (bench/serve_week.sh,
bench/serve_cluster.sh): ROWS Poisson arrivals at COUNT / SECONDS requests
per second from START, the token counts cycling through the 15 real rows of
tests/Tools/Inputs/traces/azure-2023-conv.csv; with --offset, timestamps end
in +00:00 as the 2024 week files print them.

Usage: azure_trace.py OUT ROWS COUNT SECONDS START [--offset]
"""
import datetime
import random
import sys


def main(out, rows, count, seconds, start, offset=False):
    lengths = []
    with open("tests/Tools/Inputs/traces/azure-2023-conv.csv") as f:
        next(f)
        for line in f:
            _, ctx, gen = line.strip().split(",")
            lengths.append((int(ctx), int(gen)))
    rate = count / seconds
    begin = datetime.datetime.fromisoformat(start)
    suffix = "+00:00" if offset else ""
    rng = random.Random(1)
    t = 0.0
    with open(out, "w") as f:
        f.write("TIMESTAMP,ContextTokens,GeneratedTokens\n")
        buf = []
        for i in range(rows):
            t += rng.expovariate(rate)
            stamp = begin + datetime.timedelta(seconds=t)
            ctx, gen = lengths[i % len(lengths)]
            buf.append(f"{stamp:%Y-%m-%d %H:%M:%S.%f}{suffix},{ctx},{gen}\n")
            if len(buf) == 100000:
                f.write("".join(buf))
                buf = []
        f.write("".join(buf))


if __name__ == "__main__":
    a = sys.argv[1:]
    main(a[0], int(a[1]), float(a[2]), float(a[3]), a[4], "--offset" in a[5:])
