#!/usr/bin/env bash
# tests/device/sanitizer-cost.sh — what each compute-sanitizer run of a check
# costs, and what its options could save: a lab's reference solution is
# checked once with a wrapper that records the judge's command lines (the
# race checkers' included), then each tool's command is run again N times as
# the check runs it and with each variant compute-sanitizer's --help offers
# (only the student's kernels instrumented, by --kernel-name; memcheck
# without the device heap check; ...), each run's seconds and exit status
# kept.  A variant that exits otherwise than the check's command did is
# marked: it would change a verdict.  A table is printed last; every run's
# figures go to $OUT/sanitizer-cost.tsv and --help to $OUT/help.txt.
#
# Usage (on the GPU machine, from a built workbook's root):
#     OUT=/some/dir bash tests/device/sanitizer-cost.sh [-n N] [LAB...]
# With no GPU it says so and exits 0 (tests/device scripts run only there).
set -u
OUT=${OUT:-/tmp/cudatutor-sanitizer-cost}
. "$(dirname "$0")/args.sh"
device_args sanitizer-cost "07 13" -- "$@"
mkdir -p "$OUT"
compute-sanitizer --help > "$OUT/help.txt" 2>&1
export CUDATUTOR_NO_CALIBRATE=1
log=$(mktemp -d)
cat > "$log/wrap.sh" <<'EOF'
#!/bin/sh
# one file per command line, its words NUL-separated, then the command itself
printf '%s\0' "$@" > "$WRAP_LOG/cmd.$$"
exec "$@"
EOF
chmod +x "$log/wrap.sh"
exec python3 - "$OUT" "$n" "$log" "${labs[@]}" <<'PY'
import glob, os, re, statistics, subprocess, sys, time

out, n, log, labs = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4:]
help_text = open(os.path.join(out, "help.txt")).read()


def sol(lab):
    d = next(x for x in sorted(os.listdir("solutions")) if x.startswith(lab + "-"))
    return os.path.join("solutions", d, "kernel.cu")


def entries(path):
    ptx = subprocess.run(["nvcc", "-arch=sm_90", "-std=c++17", "-ptx", "-o", "-", path],
                         capture_output=True, text=True).stdout
    return re.findall(r"\.entry\s+([A-Za-z_$][\w$]*)", ptx)


def variants(tool, names):
    v = [("as checked", [])]
    if "--kernel-name" in help_text and names:
        v.append(("student kernels only (kernel-name kns=)",
                  ["--kernel-name", "kns=" + names[0]] if len(names) == 1 else
                  ["--kernel-regex", "kns=" + "|".join(names)]))
    if tool == "memcheck" and "--check-device-heap" in help_text:
        v.append(("no device heap check", ["--check-device-heap", "no"]))
    if "--lazy-patching" in help_text:
        v.append(("lazy patching", ["--lazy-patching", "on"]))
    return v


rows = []
with open(os.path.join(out, "sanitizer-cost.tsv"), "w") as tsv:
    tsv.write("lab\ttool\tvariant\trun\tseconds\texit\n")
    for lab in labs:
        for f in glob.glob(os.path.join(log, "cmd.*")):
            os.unlink(f)
        env = dict(os.environ, WRAP_LOG=log)
        t0 = time.time()
        r = subprocess.run(["./cudatutor", "check", lab, "--file", sol(lab), "--unlock-all", "--json",
                            "--wrap", os.path.join(log, "wrap.sh")], capture_output=True, text=True, env=env)
        print("lab %s: check exit %d in %.2f s" % (lab, r.returncode, time.time() - t0), flush=True)
        names = entries(sol(lab))
        cmds = []
        for f in glob.glob(os.path.join(log, "cmd.*")):
            words = open(f, "rb").read().decode().split("\0")[:-1]
            if any(w.endswith("compute-sanitizer") for w in words):
                cmds.append(words)
        for words in cmds:
            tool = words[words.index("--tool") + 1]
            at = next(i for i, w in enumerate(words) if w.endswith("compute-sanitizer")) + 1
            for name, extra in variants(tool, names):
                secs, codes = [], []
                for k in range(n):
                    t = time.time()
                    p = subprocess.run(words[:at] + extra + words[at:], capture_output=True, text=True,
                                       cwd=os.path.join("build", "check", lab))
                    secs.append(time.time() - t)
                    codes.append(p.returncode)
                    tsv.write("%s\t%s\t%s\t%d\t%.3f\t%d\n" % (lab, tool, name, k, secs[-1], p.returncode))
                    if k == 0:
                        open(os.path.join(out, "%s-%s-%s.txt" % (lab, tool, re.sub(r"\W+", "_", name))),
                             "w").write(p.stdout + p.stderr)
                rows.append((lab, tool, name, statistics.median(secs), sorted(set(codes))))
print("\n%-4s %-10s %-42s %8s  %s" % ("lab", "tool", "variant", "median s", "exit"))
for lab, tool, name, s, codes in rows:
    print("%-4s %-10s %-42s %8.2f  %s" % (lab, tool, name, s, ",".join(map(str, codes))))
PY
