#!/usr/bin/env python3
"""close.py A B [rtol] [atol]: the outputs printed by two runs of a test
program agree: the same lines and tokens; integers equal; floating-point
numbers within atol + rtol * |a|. Prints the count and the largest relative
error; exits 1 on the first mismatch."""
import math
import sys


def number(tok):
    try:
        return int(tok), True
    except ValueError:
        pass
    try:
        return float(tok), False
    except ValueError:
        return None, False


def main():
    a_path, b_path = sys.argv[1], sys.argv[2]
    rtol = float(sys.argv[3]) if len(sys.argv) > 3 else 1e-4
    atol = float(sys.argv[4]) if len(sys.argv) > 4 else 1e-5
    a_lines = open(a_path).read().split("\n")
    b_lines = open(b_path).read().split("\n")
    if len(a_lines) != len(b_lines):
        print("close: %d lines vs %d" % (len(a_lines), len(b_lines)))
        return 1
    count, worst, differ = 0, 0.0, 0
    for n, (la, lb) in enumerate(zip(a_lines, b_lines), 1):
        ta, tb = la.split(), lb.split()
        if len(ta) != len(tb):
            print("close: line %d: '%s' vs '%s'" % (n, la, lb))
            return 1
        for x, y in zip(ta, tb):
            vx, ix = number(x)
            vy, iy = number(y)
            if vx is None or vy is None or ix or iy:
                if x != y:
                    print("close: line %d: '%s' vs '%s'" % (n, x, y))
                    return 1
                continue
            count += 1
            if math.isnan(vx) or math.isnan(vy) or abs(vx - vy) > atol + rtol * abs(vx):
                print("close: line %d: %s vs %s" % (n, x, y))
                return 1
            if vx != vy:
                differ += 1
            if vx != 0:
                worst = max(worst, abs(vx - vy) / abs(vx))
    print("close: %d floating-point values within rtol %g atol %g (%d not bitwise equal, max rel err %.2e)"
          % (count, rtol, atol, differ, worst))
    return 0


if __name__ == "__main__":
    sys.exit(main())
