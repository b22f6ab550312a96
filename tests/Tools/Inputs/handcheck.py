"""Prints each figure a test derived by hand against the one the run gave:
`ok` or `MISMATCH` per figure (relative tolerance 1e-9), then `all ok` or
`FAILED`, for FileCheck (serve_check.py, schedule_check.py)."""


def report(expect):
    """`expect`: {name: (got, want)}."""
    ok = True
    for name, (got, want) in expect.items():
        good = abs(got - want) <= 1e-9 * max(1.0, abs(want))
        ok &= good
        print(("ok" if good else "MISMATCH"), name, got, want)
    print("all ok" if ok else "FAILED")
