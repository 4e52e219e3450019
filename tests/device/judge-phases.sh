#!/usr/bin/env bash
# tests/device/judge-phases.sh — where a GPU judge's time goes, per lab, for
# its reference solution: built once (--build-only), then judged N times
# (--run-only, a fresh seed each) without the race checkers and N times
# with them, alternately, so that what compute-sanitizer's start costs the
# timed section beside it shows.  From the judge's own report (harness.json
# in the work folder): its phases (init, trials, timing, of it the peak,
# and the wait for its CPU references), and per timed case the student's
# and the reference's loops, their seconds and samples.  Medians of N (3
# unless -n says otherwise); a table is printed last, every run's figures go
# to $OUT/judge-phases.tsv.
#
# Usage (on the GPU machine, from a built workbook's root):
#     OUT=/some/dir bash tests/device/judge-phases.sh [-n N] [LAB...]
# With no GPU it says so and exits 0 (tests/device scripts run only there).
set -u
OUT=${OUT:-/tmp/cudatutor-judge-phases}
. "$(dirname "$0")/args.sh"
device_args judge-phases "13" -- "$@"
exec python3 - "$OUT" "$n" "${labs[@]}" <<'EOF'
import json, os, random, statistics, subprocess, sys

out, n, labs = sys.argv[1], int(sys.argv[2]), sys.argv[3:]


def sol(lab):
    d = next(x for x in sorted(os.listdir("solutions")) if x.startswith(lab + "-"))
    return os.path.join("solutions", d, "kernel.cu")


def check(lab, *args):
    r = subprocess.run(["./cudatutor", "check", lab, "--file", sol(lab), "--unlock-all", "--json"] + list(args),
                       capture_output=True, text=True)
    try:
        return json.loads(r.stdout)
    except ValueError:
        return {"status": "no-report (exit %d): %s" % (r.returncode, r.stderr.strip()[-200:])}


def figures(rep, lab):
    x = {"status": rep.get("status"), "judge": rep.get("run_s")}
    try:
        h = json.load(open(os.path.join("build", "check", lab, "harness.json")))
    except (OSError, ValueError):
        return x
    for k, v in (h.get("phases") or {}).items():
        x[k] = v
    for p in h.get("perf") or []:
        st, rt = p.get("time") or {}, (p.get("reference") or {}).get("time") or {}
        x["s:" + p["label"]], x["sn:" + p["label"]] = st.get("seconds"), st.get("samples")
        x["r:" + p["label"]], x["rn:" + p["label"]] = rt.get("seconds"), rt.get("samples")
        x["ratio:" + p["label"]] = p.get("ratio")
    return x


def med(xs, k):
    v = [x[k] for x in xs if x.get(k) is not None]
    return statistics.median(v) if v else None


def cell(v, fmt="%.2f"):
    return "-" if v is None else fmt % v


runs = {}
with open(os.path.join(out, "judge-phases.tsv"), "w") as tsv:
    for lab in labs:
        b = check(lab, "--build-only")
        if not b.get("built"):
            print("%s: the build failed: %s" % (lab, b.get("status")))
            continue
        for i in range(n):
            for mode, args in (("alone", ["--no-sanitize"]), ("sanitized", [])):
                seed = str(random.randrange(1, 1 << 47))
                x = figures(check(lab, "--run-only", "--seed", seed, *args), lab)
                runs.setdefault((lab, mode), []).append(x)
                tsv.write("%s\t%s\t%d\t%s\t%s\n" % (lab, mode, i, seed, json.dumps(x, sort_keys=True)))
                tsv.flush()

print("\nmedians of %d run(s) each, seconds; the judge's phases, then per case: student s/samples, reference "
      "s/samples, ratio" % n)
for (lab, mode), xs in runs.items():
    status = ",".join(sorted(set(str(x["status"]) for x in xs)))
    cases = [k[2:] for k in xs[0] if k.startswith("s:")]
    per = "  ".join("%s %s/%s %s/%s %s" % (c, cell(med(xs, "s:" + c)), cell(med(xs, "sn:" + c), "%.0f"),
                                           cell(med(xs, "r:" + c)), cell(med(xs, "rn:" + c), "%.0f"),
                                           cell(med(xs, "ratio:" + c), "%.3f")) for c in cases)
    print("%s %-9s %-5s judge %s init %s trials %s timing %s peak %s expect %s | %s" % (
        lab, mode, status[:5], cell(med(xs, "judge")), cell(med(xs, "init_s")), cell(med(xs, "correctness_s")),
        cell(med(xs, "timing_s")), cell(med(xs, "peak_s")), cell(med(xs, "expect_s")), per))
EOF
