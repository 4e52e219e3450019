#!/usr/bin/env bash
# tests/device/bench-check.sh — what a check costs on a GPU machine, per lab,
# for its reference solution and its stub: each run a fresh edit (a new
# comment line, so nvcc compiles again) checked as a student's terminal
# checks it (a terminal: the progress and the early verdict are drawn),
# timed from the command to the verdict shown (the "[verdict]" line where
# the check says one before compute-sanitizer ends, else its exit) and to
# its exit; the report's compile, judge, hazard pass and sanitizer seconds;
# the timed samples of the target's case and the spread of its ratio
# (max - min over the median) across the runs; from the judge's own report
# (harness.json, left in the work folder), its timed section's parts: the
# peak, the wait for its CPU references and each case's two loops, the
# student's and the reference's, in seconds, samples and median.  Medians of N runs (5
# unless -n says fewer or more).  Workbooks given with --roots (built
# trees: main's and a branch's, say) are run in turn, lab by lab and run by
# run, so that their figures are measured alike.  A table is printed last;
# every run's figures go to $OUT/bench-runs.tsv.  --seconds S starts no run
# after S seconds (a lease's end), and the table covers what ran.
#
# Usage (on the GPU machine, from a built workbook's root):
#     OUT=/some/dir bash tests/device/bench-check.sh [-n N] [--roots DIR,DIR] [--kinds solution,stub]
#         [--seconds S] [LAB...]
# With no GPU it says so and exits 0 (tests/device scripts run only there).
set -u
here=$(cd "$(dirname "$0")/../.." && pwd)
OUT=${OUT:-/tmp/cudatutor-bench}
n=5 roots=$here kinds=solution,stub seconds=0 labs=()
while [ $# -gt 0 ]; do
    case $1 in
        -n) n=$2; shift 2 ;;
        --roots) roots=$2; shift 2 ;;
        --kinds) kinds=$2; shift 2 ;;
        --seconds) seconds=$2; shift 2 ;;
        *) labs+=("$1"); shift ;;
    esac
done
if ! nvidia-smi -L >/dev/null 2>&1; then
    echo "bench-check: no GPU here (nvidia-smi lists none): nothing measured"
    exit 0
fi
mkdir -p "$OUT"
# The checks are judged by the catalog's targets: a first check on a new GPU
# model would time every reference solution first.
export CUDATUTOR_NO_CALIBRATE=1
exec python3 - "$OUT" "$n" "$roots" "$kinds" "$seconds" "${labs[@]}" <<'EOF'
import json, os, pty, shutil, statistics, subprocess, sys, tempfile, time

out, n, roots, kinds = sys.argv[1], int(sys.argv[2]), sys.argv[3].split(","), sys.argv[4].split(",")
stop = time.monotonic() + float(sys.argv[5]) if float(sys.argv[5]) > 0 else None
want = sys.argv[6:]
def root_env(spec):
    """DIR or DIR:NAME=VALUE: the folder, and the environment its checks get."""
    d, _, var = spec.partition(":")
    env = dict(os.environ)
    if var:
        k, _, v = var.partition("=")
        env[k] = v
    return d, env


def label(spec):
    """A root's name in the table: its folder's, and the variable set."""
    d, _, var = spec.partition(":")
    return os.path.basename(d)[:6] + (":" + var.rsplit("_", 1)[-1] if var else "")


catalog = json.loads(subprocess.run(["./cudatutor", "list", "--json"], cwd=root_env(roots[0])[0],
                                    capture_output=True, text=True, check=True).stdout)
labs = [l for l in catalog if not want or l["id"] in want]
tmp = tempfile.mkdtemp(prefix="bench-check-")


def source(root, lab, kind):
    if kind == "stub":
        return os.path.join(root, lab["stub"])
    return os.path.join(root, "solutions", os.path.basename(lab["dir"]), "kernel.cu")


def once(root, lab, kind, i):
    """One check of a fresh edit under a terminal: its figures, or None."""
    root, env = root_env(root)
    src = source(root, lab, kind)
    if not os.path.isfile(src):
        return None
    k = os.path.join(tmp, "k%s-%s-%d.cu" % (lab["id"], kind, i))
    shutil.copyfile(src, k)
    with open(k, "a") as f:
        f.write("// bench %d\n" % time.time_ns())
    rep = os.path.join(tmp, "report.json")
    if os.path.exists(rep):
        os.unlink(rep)
    t0 = time.monotonic()
    pid, fd = pty.fork()
    if pid == 0:
        os.chdir(root)
        os.execve("./cudatutor", ["./cudatutor", "check", lab["id"], "--file", k, "--out", rep], env)
    seen, verdict = b"", None
    while True:
        try:
            data = os.read(fd, 65536)
        except OSError:
            break
        if not data:
            break
        seen = (seen + data)[-4096:]
        if verdict is None and b"[verdict]" in seen:
            verdict = time.monotonic() - t0
    os.waitpid(pid, 0)
    wall = time.monotonic() - t0
    os.close(fd)
    try:
        r = json.load(open(rep))
    except (OSError, ValueError):
        return {"status": "no-report", "verdict": wall, "wall": wall}
    tcase = (r.get("target") or {}).get("case")
    perf = next((p for p in r.get("perf") or [] if p.get("label") == tcase), None)
    x = {"status": r.get("status"), "verdict": verdict if verdict is not None else wall, "wall": wall,
         "compile": (r.get("compile") or {}).get("seconds"), "judge": r.get("run_s"),
         "hazard": r.get("hazard_pass_s"), "san": (r.get("sanitizer") or {}).get("seconds"),
         "samples": perf["time"]["samples"] if perf else None, "ratio": perf.get("ratio") if perf else None,
         "phases": " ".join("%s=%s" % kv for kv in (r.get("phases") or {}).items())}
    x.update(judge_detail(os.path.join(root, "build", "check", lab["id"], "harness.json")))
    return x


def judge_detail(path):
    """From the judge's own report (the check keeps it in its work folder):
    its timed section's parts, the peak and the wait for the CPU references,
    and per case each kernel's samples and the seconds its loop took."""
    try:
        h = json.load(open(path))
    except (OSError, ValueError):
        return {}
    ph = h.get("phases") or {}
    d = {"timing": ph.get("timing_s"), "peak": ph.get("peak_s"), "expect": ph.get("expect_s"),
         "hold_late": ph.get("hold_late")}
    cases = []
    for p in h.get("perf") or []:
        st, rt = p.get("time") or {}, (p.get("reference") or {}).get("time") or {}
        d["s:" + p["label"]], d["r:" + p["label"]] = st.get("seconds"), rt.get("seconds")
        d["sn:" + p["label"]], d["rn:" + p["label"]] = st.get("samples"), rt.get("samples")
        cases.append("%s=%s/%s@%s,%s/%s@%s" % (p["label"], st.get("seconds"), st.get("samples"),
                                                st.get("median_ms"), rt.get("seconds"), rt.get("samples"),
                                                rt.get("median_ms")))
    d["cases"] = " ".join(cases)
    return d


runs = {}
with open(os.path.join(out, "bench-runs.tsv"), "w") as tsv:
    tsv.write("root\tlab\tkind\trun\tstatus\tverdict_s\twall_s\tcompile_s\tjudge_s\thazard_s\tsanitize_s\tsamples\tratio\tphases"
              "\tcases (label=student s/samples@median ms,reference s/samples@median ms)\thold_late\n")
    for lab in labs:
        for kind in kinds:
            for i in range(n):
                for root in roots:
                    if stop and time.monotonic() > stop:
                        break
                    x = once(root, lab, kind, i)
                    if x is None:
                        continue
                    runs.setdefault((root, lab["id"], kind), []).append(x)
                    tsv.write("\t".join(str(v) for v in [label(root), lab["id"], kind, i, x["status"],
                              x["verdict"], x["wall"], x.get("compile"), x.get("judge"), x.get("hazard"),
                              x.get("san"), x.get("samples"), x.get("ratio"), x.get("phases"),
                              x.get("cases"), x.get("hold_late")]) + "\n")
                    tsv.flush()
shutil.rmtree(tmp, ignore_errors=True)


def med(xs, key):
    v = [x[key] for x in xs if x.get(key) is not None]
    return statistics.median(v) if v else None


def cell(v, fmt="%.2f"):
    return "-" if v is None else fmt % v


print("\nmedians of n run(s), seconds; verdict: from the command to the verdict shown; cmd: to its exit")
print("%-14s %-3s %-8s %2s %-14s %7s %7s %7s %7s %7s %7s %7s %8s" % (
    "root", "lab", "kind", "n", "status", "verdict", "cmd", "compile", "judge", "hazard", "sanitiz", "samples",
    "ratio±%"))
for (root, lab, kind), xs in runs.items():
    status = ",".join(sorted(set(str(x["status"]) for x in xs)))
    ratios = [x["ratio"] for x in xs if x.get("ratio")]
    spread = 100 * (max(ratios) - min(ratios)) / statistics.median(ratios) if len(ratios) > 1 else None
    print("%-14s %-3s %-8s %2d %-14s %7s %7s %7s %7s %7s %7s %7s %8s" % (
        label(root)[:14], lab, kind, len(xs), status[:14], cell(med(xs, "verdict")), cell(med(xs, "wall")),
        cell(med(xs, "compile")), cell(med(xs, "judge")), cell(med(xs, "hazard")), cell(med(xs, "san")),
        cell(med(xs, "samples"), "%.0f"), cell(spread, "%.2f")))
print("\nthe judge's timed section (its own report), medians: timing, of it the peak; the wait for the CPU")
print("references; per case, seconds and samples of the student's loop / the reference's")
for (root, lab, kind), xs in runs.items():
    labels = [k[2:] for k in xs[0] if k.startswith("s:")] if xs else []
    per = "  ".join("%s %s/%s %s/%s" % (c, cell(med(xs, "s:" + c)), cell(med(xs, "sn:" + c), "%.0f"),
                                       cell(med(xs, "r:" + c)), cell(med(xs, "rn:" + c), "%.0f")) for c in labels)
    print("%-14s %-3s %-8s timing %s peak %s expect %s  %s" % (
        label(root)[:14], lab, kind, cell(med(xs, "timing")), cell(med(xs, "peak")), cell(med(xs, "expect")), per))
for root in roots:
    for kind in kinds:
        v = [med(xs, "verdict") for (r, _, k), xs in runs.items() if r == root and k == kind]
        if v:
            print("%s %s: verdict median over labs %.2f s, slowest lab %.2f s" % (
                label(root), kind, statistics.median(v), max(v)))
EOF
