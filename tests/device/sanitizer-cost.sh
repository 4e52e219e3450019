#!/usr/bin/env bash
# tests/device/sanitizer-cost.sh — what each compute-sanitizer run of a check
# costs, and what its options could save: a lab's reference solution is
# checked once with a wrapper that records the judge's command lines (the
# race checkers' included), then each tool's command is run again N times as
# the check runs it and with each variant compute-sanitizer's --help offers
# (only the student's kernels instrumented, by --kernel-name; memcheck
# without the device heap check; ...), each run's seconds and exit status
# kept, with the CPU seconds of the tool and every process under it (this
# script is their subreaper) and what the judge's own report says.  The
# judge gets its progress channel (fd 3) as in a check: without it, it
# fails as it starts, and a tool around it finds nothing, quickly.  Beside
# the options, the modules loaded lazily or at once
# (CUDA_MODULE_LOADING), the tool on the first and on the last sanitize size alone,
# without --repeat, and the judge alone without a tool show what is fixed
# and what grows with the trials.  A variant that exits otherwise than the
# check's command did, or whose judge does not pass, is marked: it would
# change a verdict.  With LOAD=K,K,... each tool's command as checked is
# also run K at once (as a grader's runs share a GPU), each copy with its
# own report, with the GPU's utilization sampled meanwhile.  A table is printed last;
# every run's figures go to $OUT/sanitizer-cost.tsv (and the loads to
# $OUT/sanitizer-load.tsv) and --help to $OUT/help.txt.
#
# Usage (on the GPU machine, from a built workbook's root):
#     OUT=/some/dir [LOAD=1,2,4,8] [VLOAD=K] [TOOLS=racecheck,...] bash tests/device/sanitizer-cost.sh [-n N] [LAB...]
# VLOAD=K times every variant as K copies at once (the median copy, CPU s
# a copy): what a tool costs where a grader runs many; TOOLS= keeps those tools.
# With no GPU it says so and exits 0 (tests/device scripts run only there).
set -u
OUT=${OUT:-/tmp/cudatutor-sanitizer-cost}
. "$(dirname "$0")/args.sh"
device_args sanitizer-cost "07 13" -- "$@"
compute-sanitizer --help > "$OUT/help.txt" 2>&1
log=$(mktemp -d)
cat > "$log/wrap.sh" <<'EOF'
#!/bin/sh
# one file per command line, its words NUL-separated, then the command itself
printf '%s\0' "$@" > "$WRAP_LOG/cmd.$$"
exec "$@"
EOF
chmod +x "$log/wrap.sh"
exec python3 - "$OUT" "$n" "$log" "${LOAD:-}" "${VLOAD:-1}" "${TOOLS:-}" "${labs[@]}" <<'PY'
import ctypes, glob, json, os, re, resource, statistics, subprocess, sys, time

out, n, log, loads, vload, only_tools, labs = (sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4],
                                                int(sys.argv[5]), sys.argv[6].split(","), sys.argv[7:])
only_tools = [t for t in only_tools if t]
loads = [int(k) for k in loads.split(",") if k]
help_text = open(os.path.join(out, "help.txt")).read()
# The judge's progress channel, as a check gives it; and every process the
# tools leave behind is ours to reap, so that its CPU time is counted.
os.dup2(os.open(os.devnull, os.O_WRONLY), 3)
ctypes.CDLL(None).prctl(36, 1, 0, 0, 0)     # PR_SET_CHILD_SUBREAPER


def sol(lab):
    d = next(x for x in sorted(os.listdir("solutions")) if x.startswith(lab + "-"))
    return os.path.join("solutions", d, "kernel.cu")


def entries(lab):
    """The .entry names of the PTX the check kept."""
    ptx = open(os.path.join("build", "check", lab, "keep", "kernel.ptx")).read()
    return re.findall(r"\.entry\s+([A-Za-z_$][\w$]*)", ptx)


def arg(words, opt):
    return words[words.index(opt) + 1] if opt in words else None


def with_arg(words, opt, value):
    w = list(words)
    w[w.index(opt) + 1] = value
    return w


def without(words, opt):
    if opt not in words:
        return None
    i = words.index(opt)
    return words[:i] + words[i + 2:]


def variants(words, at, tool, names):
    judge = next(i for i in range(at, len(words)) if os.path.basename(words[i]).startswith("judge"))
    sizes = arg(words, "--sizes").split(",")
    v = [("as checked", words)]
    if "--kernel-name" in words:
        every = list(words)
        while "--kernel-name" in every:
            every = without(every, "--kernel-name")
        v.append(("every kernel watched", every))
    elif "--kernel-name" in help_text and names:
        v.append(("student kernels only", words[:at] + sum((["--kernel-name", "kne=" + k] for k in names), [])
                  + words[at:]))
    if tool == "racecheck" and "--racecheck-num-workers" in help_text:
        v.append(("one worker thread", words[:at] + ["--racecheck-num-workers", "1"] + words[at:]))
    if tool == "memcheck" and "--check-device-heap" in help_text:
        v.append(("no device heap check", words[:at] + ["--check-device-heap", "no"] + words[at:]))
    if "--show-backtrace" in help_text:
        v.append(("no backtraces", words[:at] + ["--show-backtrace", "no"] + words[at:]))
    if tool == "racecheck" and "--racecheck-memcpy-async" in help_text:
        v.append(("no memcpy_async tracking", words[:at] + ["--racecheck-memcpy-async", "no"] + words[at:]))
    if tool == "racecheck" and "--racecheck-num-hazards" in help_text:
        v.append(("64 hazards kept", words[:at] + ["--racecheck-num-hazards", "64"] + words[at:]))
    if "--lazy-patching" in help_text:
        v.append(("lazy patching", words[:at] + ["--lazy-patching", "on"] + words[at:]))
    for mode in ("EAGER", "LAZY"):
        v.append(("CUDA_MODULE_LOADING=" + mode, ["env", "CUDA_MODULE_LOADING=" + mode] + words))
    v.append(("first size only (%s)" % sizes[0], with_arg(words, "--sizes", sizes[0])))
    v.append(("last size only (%s)" % sizes[-1], with_arg(words, "--sizes", sizes[-1])))
    if without(words, "--repeat"):
        v.append(("no --repeat", without(words, "--repeat")))
    v.append(("judge alone, no tool", words[judge:]))
    return v


def reap_all():
    while True:
        try:
            os.wait()
        except ChildProcessError:
            return


def report(path):
    try:
        h = json.load(open(path))
        return "%s/%d" % (h.get("status"), len(h.get("tests") or []))
    except (OSError, ValueError):
        return "none"


def at_once(words, k, cwd):
    """K copies of one command at once, each with its own report: each
    one's (wall s, exit, report) and everything's CPU s; the GPU's mean
    utilization (%) while they ran."""
    smi = subprocess.Popen(["nvidia-smi", "--query-gpu=utilization.gpu", "--format=csv,noheader,nounits",
                            "-lms", "100"], stdout=subprocess.PIPE, text=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0, procs, ends = time.time(), [], {}
    for i in range(k):
        w = with_arg(words, "--json", "%s.%d" % (arg(words, "--json"), i))
        w = with_arg(w, "--runner-out", "%s.%d" % (arg(words, "--runner-out"), i))
        procs.append((subprocess.Popen(w, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                                       pass_fds=(3,)), arg(w, "--json")))
    for p, js in procs:
        p.wait()
        ends[p.pid] = (time.time() - t0, p.returncode, report(os.path.join(cwd, js)))
    smi.terminate()
    util = [int(x) for x in smi.communicate()[0].split() if x.isdigit()]
    reap_all()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return [ends[p.pid] for p, _ in procs], cpu, (statistics.mean(util) if util else -1)


rows, load_rows = [], []
with open(os.path.join(out, "sanitizer-cost.tsv"), "w") as tsv:
    tsv.write("lab\ttool\tvariant\trun\tseconds\tcpu_s\texit\treport\n")
    for lab in labs:
        for f in glob.glob(os.path.join(log, "cmd.*")):
            os.unlink(f)
        env = dict(os.environ, WRAP_LOG=log)
        t0 = time.time()
        r = subprocess.run(["./cudatutor", "check", lab, "--file", sol(lab), "--unlock-all", "--json",
                            "--wrap", os.path.join(log, "wrap.sh")], capture_output=True, text=True, env=env)
        print("lab %s: check exit %d in %.2f s" % (lab, r.returncode, time.time() - t0), flush=True)
        names = entries(lab)
        cmds = []
        for f in glob.glob(os.path.join(log, "cmd.*")):
            words = open(f, "rb").read().decode().split("\0")[:-1]
            if any(w.endswith("compute-sanitizer") for w in words):
                cmds.append(words)
        cwd = os.path.join("build", "check", lab)
        for words in cmds:
            tool = words[words.index("--tool") + 1]
            at = next(i for i, w in enumerate(words) if w.endswith("compute-sanitizer")) + 1
            if only_tools and tool not in only_tools:
                continue
            for name, cmd in variants(words, at, tool, names):
                secs, cpus, codes, reps = [], [], [], []
                for k in range(n):
                    runs, cpu, _ = at_once(cmd, vload, cwd)
                    wall, code, rep = statistics.median(r[0] for r in runs), max(r[1] for r in runs), runs[0][2]
                    cpu /= vload
                    secs.append(wall), cpus.append(cpu), codes.append(code), reps.append(rep)
                    tsv.write("%s\t%s\t%s\t%d\t%.3f\t%.3f\t%d\t%s\n" % (lab, tool, name, k, wall, cpu, code, rep))
                rows.append((lab, tool, name, statistics.median(secs), statistics.median(cpus),
                             sorted(set(codes)), sorted(set(reps))))
            for k in loads:
                runs, cpu, util = at_once(words, k, cwd)
                load_rows.append((lab, tool, k, statistics.median(r[0] for r in runs), max(r[0] for r in runs),
                                  cpu / k, util, sorted({r[1] for r in runs}), sorted({r[2] for r in runs})))
print("\nOne run at a time (medians of %d); CPU s: the tool's and every process under it" % n)
print("%-4s %-10s %-32s %7s %7s  %-5s %s" % ("lab", "tool", "variant", "wall s", "CPU s", "exit", "report (status/trials)"))
for lab, tool, name, s, c, codes, reps in rows:
    print("%-4s %-10s %-32s %7.2f %7.2f  %-5s %s" % (lab, tool, name, s, c, ",".join(map(str, codes)),
                                                      ",".join(reps)))
if load_rows:
    with open(os.path.join(out, "sanitizer-load.tsv"), "w") as f:
        f.write("lab\ttool\tat_once\twall_median_s\twall_max_s\tcpu_s_each\tgpu_util\texits\treports\n")
        for r in load_rows:
            f.write("%s\t%s\t%d\t%.3f\t%.3f\t%.3f\t%.0f\t%s\t%s\n" % (r[:7] + (",".join(map(str, r[7])),
                                                                           ",".join(r[8]))))
    print("\nK copies of a tool's run at once")
    print("%-4s %-10s %7s %8s %8s %9s %6s  %s" % ("lab", "tool", "at once", "wall s", "last s", "CPU s each",
                                                "GPU %", "exit / report"))
    for r in load_rows:
        print("%-4s %-10s %7d %8.2f %8.2f %9.2f %6.0f  %s / %s" % (r[:7] + (",".join(map(str, r[7])),
                                                                        ",".join(r[8]))))
PY
