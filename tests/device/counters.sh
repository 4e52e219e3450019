#!/usr/bin/env bash
# tests/device/counters.sh — the emulator's counters against ncu's, on a GPU
# machine after `make build`, from the workbook root: for each reference
# solution, the CPU tier's count of its launches at the lesson's size
# (`check --counters` with no GPU visible) and ncu's count of the same
# launches (`check --counters` on the GPU, its ncu run given the metrics of
# tutor/emu/emu_count.h's table and the same size through
# tests/device/counters-wrap.sh).  Prints one table per solution: counter,
# emulator, ncu metric, ncu, and whether the two must be equal ('=': the
# same events counted; '~': the emulator counts PTX, ncu SASS).  Exits 1
# when a '=' row differs.  Full JSON under $OUT/counters (default
# /tmp/cudatutor-counters).  About a minute of GPU time; LABS="01 03"
# limits it.
set -u
export CUDATUTOR_NO_CALIBRATE=1
OUT=${OUT:-/tmp/cudatutor-counters}
R="$OUT/counters"
mkdir -p "$R"
T=./cudatutor
[ -x "$T" ] && command -v jq > /dev/null || { echo "build first (make build), and install jq"; exit 2; }
nvidia-smi -L 2>/dev/null | head -1

# The table's rows: name, ncu metric ("a+b": a sum), '=' or '~'.
rows=$(sed -n 's/^ *X([a-z_]*, "\([a-z_]*\)", *"\([^"]*\)", *'"'"'\(.\)'"'"'.*/\1 \2 \3/p' tutor/emu/emu_count.h |
       awk 'NF == 3')
metrics=$(echo "$rows" | awk '{ n = split($2, m, "+"); for (i = 1; i <= n; i++) print m[i] }' | sort -u | paste -sd, -)
# resident blocks: the smallest of ncu's four occupancy limits
metrics="$metrics,launch__occupancy_limit_registers,launch__occupancy_limit_shared_mem,launch__occupancy_limit_warps"
# ncu refuses a whole list for one name it lacks: the names its chip does
# not list are left out, and said (launch__ names are not in its list)
NCU=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
known=$("$NCU" --query-metrics --chip gh100 2>/dev/null | awk '{ print $1 }')
if [ -n "$known" ]; then
    kept=""
    for m in ${metrics//,/ }; do
        if [[ $m == launch__* ]] || grep -qxF "${m%%.*}" <<<"$known"; then kept="$kept,$m"
        else echo "ncu does not list $m: left out"; fi
    done
    metrics=${kept#,}
fi

differ=0
for sol in solutions/*/kernel.cu; do
    dir=$(basename "$(dirname "$sol")") lab=${dir%%-*}
    [ -n "${LABS:-}" ] && ! echo " $LABS " | grep -q " $lab " && continue
    CUDA_VISIBLE_DEVICES= $T check "$lab" --file "$sol" --counters --no-sanitize --json \
        --work-dir "$R/w-$lab-cpu" > "$R/$lab-emu.json" 2> "$R/$lab-emu.err"
    n=$(jq -r '.counters.n // empty' "$R/$lab-emu.json")
    if [ -z "$n" ]; then
        echo "lab $lab: the emulator gave no counters ($(jq -r .summary "$R/$lab-emu.json" 2>/dev/null))"
        differ=1
        continue
    fi
    COUNTERS_N=$n COUNTERS_METRICS=$metrics $T check "$lab" --file "$sol" --counters --no-sanitize --quick \
        --json --wrap "$PWD/tests/device/counters-wrap.sh" --work-dir "$R/w-$lab-gpu" > "$R/$lab-ncu.json" 2> "$R/$lab-ncu.err"
    # the check keeps the lab's own counters of ncu's figures; every
    # metric ncu printed is read from its CSV here instead (summed over the
    # kernels, as tutor/sys/ncu.c sums them), into the same shape
    python3 - "$R/w-$lab-gpu/ncu.csv" > "$R/$lab-ncu-all.json" <<'PY'
import csv, json, sys
rows = [r for r in csv.reader(l for l in open(sys.argv[1], errors="replace") if l.startswith('"'))]
head, kernels = rows[0], rows[2:]
sums = {}
for k in kernels:
    for name, v in zip(head, k):
        try:
            x = float(v.replace(",", ""))
        except ValueError:
            continue
        sums[name] = sums.get(name, 0) + x
sums = {k: int(v) if float(v).is_integer() else v for k, v in sums.items()}
print(json.dumps({"counters": {"tool": "ncu", "kernels": len(kernels), "metrics": sums}}))
PY
    [ -s "$R/$lab-ncu-all.json" ] && jq -e '.counters.kernels > 0' "$R/$lab-ncu-all.json" > /dev/null &&
        cp "$R/$lab-ncu.json" "$R/$lab-ncu-check.json" && cp "$R/$lab-ncu-all.json" "$R/$lab-ncu.json"
    echo "== lab $lab ($dir), n=$n, $(jq -r '.counters.kernels // 0' "$R/$lab-ncu.json") kernels under ncu"
    [ "$(jq -r '.counters.tool // empty' "$R/$lab-ncu.json")" = ncu ] ||
        { echo "   no counters from ncu: $(jq -r '.counters.note // .summary' "$R/$lab-ncu.json" 2>/dev/null)"; differ=1; }
    printf '  %-28s %14s %14s  %s\n' counter emulator ncu "ncu metric"
    while read -r name ncu eq; do
        e=$(jq -r --arg k "$name" '.counters.metrics[$k] // "-"' "$R/$lab-emu.json")
        # ncu's launch__ figures are summed over the kernels (tutor/sys/ncu.h):
        # each kernel's is their mean, which a lab of one kernel keeps exact
        if [ "$name" = resident_blocks_per_sm ]; then
            g=$(jq -r '.counters.kernels as $k | [.counters.metrics // {} | to_entries[] | select(.key | startswith("launch__occupancy_limit")) | .value / $k] | min // "-"' "$R/$lab-ncu.json" 2>/dev/null)
        elif [ "$name" = registers_per_thread ]; then
            g=$(jq -r --arg m "$ncu" '.counters.kernels as $k | .counters.metrics[$m] | if . == null then "-" else . / $k end' "$R/$lab-ncu.json")
        elif [ -z "$ncu" ] || [ "$ncu" = '""' ]; then
            g=-
        else
            g=$(jq -r --arg m "$ncu" '[($m | split("+"))[] as $k | .counters.metrics[$k]] | if any(. == null) then "-" else add end' "$R/$lab-ncu.json")
        fi
        mark=" "
        if [ "$eq" = "=" ] && [ "$g" != - ] && [ "$e" != "$g" ] &&
           awk -v a="$e" -v b="$g" 'BEGIN { exit !(a + 0 != b + 0) }'; then
            mark="!"
            differ=1
        fi
        printf '%s %-28s %14s %14s  %s %s\n' "$mark" "$name" "$e" "$g" "$eq" "${ncu:--}"
    done <<< "$rows"
done
echo "rows marked ! differ where the two count the same events; JSON under $R"
exit $differ
