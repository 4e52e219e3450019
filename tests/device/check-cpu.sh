#!/usr/bin/env bash
# tests/device/check-cpu.sh — what one check costs in CPU seconds, by part,
# on a GPU machine: where a grader running many checks at once spends the
# machine's cores.  Per lab, its reference solution freshly edited (a new
# comment line: nvcc compiles again) is built (--build-only), then judged
# (--run-only) several ways: the judge alone (no hazard pass, no race
# checkers), with the emulator's hazard pass, with the race checkers, and
# whole; whole again with the judges' waits spinning (HX_SYNC=spin, the
# CUDA runtime's default); and as a grader runs it, in two runs (judged
# and timed with --sanitize-later, then the race checkers alone with
# --sanitize-from).  Each run's wall and CPU seconds (user + system of the
# check and every process it waited for) are kept; the parts are
# differences of medians.  A table is printed last; every run goes to $OUT/check-cpu.tsv.
#
# Usage (on the GPU machine, from a built workbook's root):
#     OUT=/some/dir bash tests/device/check-cpu.sh [-n N] [LAB...]
# With no GPU it says so and exits 0 (tests/device scripts run only there).
set -u
OUT=${OUT:-/tmp/cudatutor-check-cpu}
. "$(dirname "$0")/args.sh"
device_args check-cpu "01 07 13 15" -- "$@"
exec python3 - "$OUT" "$n" "${labs[@]}" <<'PY'
import json, os, resource, shutil, statistics, subprocess, sys, tempfile, time

out, n, labs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
tmp = tempfile.mkdtemp()
ways = (("judge", ["--no-sanitize"], {"CUDATUTOR_NO_EMULATOR": "1"}),
        ("judge+hazard", ["--no-sanitize"], {}),
        ("judge+sanitizers", [], {"CUDATUTOR_NO_EMULATOR": "1"}),
        ("whole", [], {}),
        ("whole, spinning", [], {"HX_SYNC": "spin"}),
        ("grader: judged", ["--sanitize-later"], {}),
        ("grader: sanitized", ["--sanitize-from"], {}))


def timed(argv, env):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.time()
    r = subprocess.run(argv, capture_output=True, text=True, env=dict(os.environ, **env))
    wall = time.time() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    sys_s = after.ru_stime - before.ru_stime
    cpu = (after.ru_utime - before.ru_utime) + sys_s
    try:
        rep = json.loads(r.stdout)
        status = rep.get("status") + (" (pending)" if (rep.get("sanitizer") or {}).get("pending") else "")
        with open(os.path.join(tmp, "last.json"), "w") as f:
            f.write(r.stdout)
    except (ValueError, TypeError):
        status = "no-report(%d)" % r.returncode
    return wall, cpu, sys_s, status


runs = {}
with open(os.path.join(out, "check-cpu.tsv"), "w") as tsv:
    tsv.write("lab\tpart\trun\twall_s\tcpu_s\tsys_s\tstatus\n")
    for lab in labs:
        d = next(x for x in sorted(os.listdir("solutions")) if x.startswith(lab + "-"))
        src = os.path.join(tmp, "k%s.cu" % lab)
        shutil.copy(os.path.join("solutions", d, "kernel.cu"), src)
        base = ["./cudatutor", "check", lab, "--file", src, "--unlock-all", "--json"]
        for i in range(n):
            with open(src, "a") as f:
                f.write("// edit %d %d\n" % (i, time.time_ns()))
            for part, args, env in (("build",  ["--build-only"], {}),) + ways:
                if args == ["--sanitize-from"]:
                    args = args + [os.path.join(tmp, "from.json")]
                    shutil.copy(os.path.join(tmp, "last.json"), os.path.join(tmp, "from.json"))
                if part != "build":
                    args = ["--run-only"] + args
                x = timed(base + args, env)
                runs.setdefault((lab, part), []).append(x)
                tsv.write("%s\t%s\t%d\t%.3f\t%.3f\t%.3f\t%s\n" % ((lab, part, i) + x))
print("\nmedians of %d; CPU s = user + system of the check and its processes, sys s the system part" % n)
print("%-4s %-18s %8s %8s %8s  %s" % ("lab", "part", "wall s", "CPU s", "sys s", "status"))
for (lab, part), xs in runs.items():
    print("%-4s %-18s %8.2f %8.2f %8.2f  %s" % (lab, part, statistics.median(x[0] for x in xs),
                                                statistics.median(x[1] for x in xs),
                                                statistics.median(x[2] for x in xs),
                                                ",".join(sorted({x[3] or "?" for x in xs}))))
PY
