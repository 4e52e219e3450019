#!/usr/bin/env bash
# tests/device/bonus-c.sh — lab 15 (epilogue: beat CUB) on a GPU machine,
# after `make build`; about two minutes of GPU time:
#  1. the stub fails; the solution passes (sanitizers on), with its figures
#     against CUB at 2^22, 2^26 and 2^28 from one run, and its target;
#  2. every lab 15 kernel of tests/bank/ gets the verdict its first line
#     names, as tests/bank.sh judges it;
#  3. the lesson's other figures: labs 07 and 08 at every size, the lab
#     as the lesson teaches it (tests/device/lab15-lesson.cu: the stub's
#     TODOs done as written), and that with its counter zeroed by a memset
#     (tests/bank/epilogue_memset_counter.cu);
#  4. bit-identity: the judge itself with --repeat 20 on the solution (20
#     calls on each input, the module loaded afresh before each), then 20
#     judge processes on one seed at 2^22 for the solution, lab 08's
#     solution and the finish-order atomics (tests/bank/epilogue_finish_order.cu,
#     judged as lab 08, which does not ask for the same bits), counting
#     distinct sums;
#  5. variants of the solution at 2^22 and 2^28, each a step it takes
#     undone: no evict-first hint, the hint on every sweep,
#     __launch_bounds__ without its 1, two sweeps at 2^22, 512 threads with
#     16 loads, two blocks per SM (32 registers), the lesson's fences
#     around a plain atomicInc;
#  6. the epilogue taken apart (tests/device/lab15-variants.cu): the fence
#     as fence.acq_rel, the ticket as one atom.acq_rel, the last sum by one
#     warp, and (measurement only) no ordering at all, each run twice.
# It ends with a table: each {{H100: ...}} placeholder of
# labs/15-epilogue/README.md with its value, and the catalog's figures.
# Usage: OUT=/dir bash tests/device/bonus-c.sh     (full logs under $OUT)
#        ONLY_EPILOGUE=1 OUT=/dir bash tests/device/bonus-c.sh   (section 6 alone)
set -u
export CUDATUTOR_NO_CALIBRATE=1
OUT=${OUT:-/tmp/cudatutor-bonus-c}
L=$OUT/bonus-c
mkdir -p "$L" build/variants
T=./cudatutor
SOL=solutions/15-epilogue/kernel.cu
STUB=data/stubs/15-epilogue.cu
j() { jq -r "$1" "$2" 2>/dev/null; }
# at FILE LABEL EXPR: EXPR of the perf entry of case LABEL.
at() { jq -r --arg l "$2" "(.perf // [])[] | select(.label == \$l) | $3" "$1" 2>/dev/null; }
us() { awk -v m="$1" 'BEGIN { if (m == "") print "?"; else printf "%.1f", m * 1000 }'; }
nvidia-smi -L 2>/dev/null | head -n1
declare -A FIG

# Section 6, also alone: ONLY_EPILOGUE=1 runs it and nothing else (about
# 40 s of GPU time).
epilogue_variants() {
    echo "== 6. the epilogue's cost, taken apart (tests/device/lab15-variants.cu, 1024 threads)"
    # Each variant twice, with CUB beside it: CUB's own time at 2^22 moved by
    # 5% between runs of the first session, so compare microseconds too.
    for v in 1 2 3 4 4w 5; do
        f=build/variants/15-epilogue-v$v.cu
        # 4w: variant 4 with one block of 1024 per SM and eight loads in flight.
        sed -e "s/^#define VARIANT 1\$/#define VARIANT ${v%w}/" \
            -e "$([ "$v" = 4w ] && echo 's/^#define PER_SM 0 /#define PER_SM 1 /; s/^#define UNROLL 4$/#define UNROLL 8/')" \
            tests/device/lab15-variants.cu > "$f"
        for k in 1 2; do
            $T check 15 --file "$f" --no-sanitize --quick --json > "$L/epi-v$v-$k.json"
            printf 'v%s run %s  %-5s 2^22 %6s µs (CUB %6s) %6s x   2^28 %6s x   %s\n' "$v" "$k" \
                "$(j .status "$L/epi-v$v-$k.json")" "$(us "$(at "$L/epi-v$v-$k.json" 2^22 .time.median_ms)")" \
                "$(us "$(at "$L/epi-v$v-$k.json" 2^22 .reference.time.median_ms)")" \
                "$(at "$L/epi-v$v-$k.json" 2^22 .ratio)" "$(at "$L/epi-v$v-$k.json" 2^28 .ratio)" \
                "$(j '[.messages[] | select(startswith("technique"))] | join("")' "$L/epi-v$v-$k.json")"
        done
    done
    echo "(v5 has no fence by design: its technique check fails, its timing stands)"
}
if [ -n "${ONLY_EPILOGUE:-}" ]; then
    epilogue_variants
    exit 0
fi

echo "== 1. stub and solution"
$T check 15 --file "$STUB" --no-sanitize --quick --json > "$L/stub.json"
printf 'stub:     %s — %s\n' "$(j .status "$L/stub.json")" "$(j .summary "$L/stub.json")"
$T check 15 --file "$SOL" --json --work-dir "$L/w-sol" > "$L/solution.json"
printf 'solution: %s — %s\n' "$(j .status "$L/solution.json")" "$(j .summary "$L/solution.json")"
j '.messages[]' "$L/solution.json" | sed 's/^/  note: /'
printf '  sanitizer: %s\n' "$(j '[.sanitizer.tools[]? | "\(.tool) \(if .clean then "clean" else "FOUND" end)"] | join(", ")' "$L/solution.json")"
printf '  techniques: %s\n' "$(j '[.techniques[] | "\(.name) \(.found)"] | join(", ")' "$L/solution.json")"
for c in 2^22 2^26 2^28; do
    printf '  %-5s %8s µs  %6s GB/s  %5s x CUB (CUB %s µs)\n' "$c" "$(us "$(at "$L/solution.json" $c .time.median_ms)")" \
        "$(at "$L/solution.json" $c '.gbps | floor')" "$(at "$L/solution.json" $c .ratio)" \
        "$(us "$(at "$L/solution.json" $c .reference.time.median_ms)")"
done
printf '  target: %s\n' "$(j '.target | "met \(.met): \(.value) at \(.case) (min \(.min)); " + ([.also[]? | "\(.value) at \(.case) (min \(.min))"] | join(", "))' "$L/solution.json")"
printf '  tolerance used: %s\n' "$(j .tolerance_used "$L/solution.json")"

echo "== 2. the lab 15 bank"
right=0 total=0
for f in tests/bank/epilogue_*.cu; do
    name=$(basename "$f" .cu)
    want=$(head -n1 "$f" | sed -n 's/.*expect=\([a-z_]*\).*/\1/p')
    lab=$(head -n1 "$f" | sed -n 's/.*lab=\([0-9][0-9]\).*/\1/p')
    $T check "$lab" --file "$f" --no-sanitize --quick --timeout-scale 0.25 --json > "$L/bank-$name.json"
    got=$(j .status "$L/bank-$name.json")
    total=$((total + 1))
    [ "$got" = "$want" ] && right=$((right + 1))
    printf '%-4s %-26s want %-5s got %-5s %s\n' "$([ "$got" = "$want" ] && echo ok || echo BAD)" "$name" "$want" "$got" \
        "$(j .summary "$L/bank-$name.json" | cut -c1-200)"
done
echo "bank: $right of $total judged right"

echo "== 3. labs 07 and 08, the memset variant, every size"
for lab in 07 08; do
    $T check $lab --file "solutions/$(cd solutions && ls -d "$lab"-*)/kernel.cu" --no-sanitize --json \
        --work-dir "$L/w-lab$lab" > "$L/lab$lab.json"
done
$T check 15 --file tests/device/lab15-lesson.cu --no-sanitize --json > "$L/lesson.json"
$T check 15 --file tests/bank/epilogue_memset_counter.cu --no-sanitize --json > "$L/memset.json"
for f in lab07 lab08 lesson memset; do
    for c in 2^22 2^26 2^28; do
        printf '%-7s %-5s %8s µs  %5s x CUB\n' "$f" "$c" "$(us "$(at "$L/$f.json" $c .time.median_ms)")" \
            "$(at "$L/$f.json" $c .ratio)"
    done
done

echo "== 4. the same bits: 20 calls in one judge, then 20 judges"
W=$L/w-sol
sizes=1,33,1025,65537,1048576,4194301,16777259,4194304,67108864,268435456
build/harness/judge_reduce_float --json "$L/repeat20.json" --lab 15 --family reduce_float --seed 4242 \
    --sizes $sizes --repeat 20 --runner "$W/runner" --runner-out "$L/runner20.out" \
    --fatbin "$W/keep/kernel.fatbin" --ptx "$W/keep/kernel.ptx" > "$L/repeat20.log" 2>&1
printf 'solution, 20 calls on each of %s sizes: %s %s\n' "$(j '.tests | length' "$L/repeat20.json")" \
    "$(j .status "$L/repeat20.json")" "$(j '[.tests[] | select(.pass | not) | "\(.name): \(.message)"] | join("; ")' "$L/repeat20.json")"
$T check 08 --file tests/bank/epilogue_finish_order.cu --no-sanitize --quick --json --work-dir "$L/w-atomic" \
    > "$L/atomic.json"
printf 'finish-order atomics as lab 08: %s — %s\n' "$(j .status "$L/atomic.json")" "$(j .summary "$L/atomic.json")"
# distinct WORKDIR NAME: 20 judge processes on one seed at 2^22; the sums
# they gave, each once, with how often.
distinct() {
    local w=$1 name=$2 k
    for k in $(seq 1 20); do
        build/harness/judge_reduce_float --json "$L/d-$name-$k.json" --family reduce_float --seed 777 \
            --sizes 4194304 --runner "$w/runner" --runner-out "$L/d-$name.out" \
            --fatbin "$(ls "$w"/keep/*.fatbin)" --ptx "$(ls "$w"/keep/*.ptx)" > /dev/null 2>&1
        j '.tests[0].got' "$L/d-$name-$k.json"
    done | sort | uniq -c | sort -rn > "$L/distinct-$name.txt"
    printf '%s: %s distinct sum(s) in 20 processes at 2^22 (%s)\n' "$name" "$(wc -l < "$L/distinct-$name.txt" | tr -d ' ')" \
        "$(awk '{printf "%s%s x%s", (NR > 1 ? ", " : ""), $2, $1}' "$L/distinct-$name.txt")"
}
distinct "$W" solution
distinct "$L/w-lab08" lab08
distinct "$L/w-atomic" finish-order

echo "== 5. variants of the solution (x CUB at 2^22 and 2^28)"
variant() {  # name sed-expression
    local f=build/variants/15-$1.cu
    sed -e "$2" "$SOL" > "$f"
    [ "$1" = base ] || ! cmp -s "$f" "$SOL" || echo "($1: the sed matched nothing: it is the solution itself)"
    $T check 15 --file "$f" --no-sanitize --quick --json > "$L/var-$1.json"
    printf '%-12s %-5s 2^22 %8s µs %5s x   2^28 %8s µs %5s x\n' "$1" "$(j .status "$L/var-$1.json")" \
        "$(us "$(at "$L/var-$1.json" 2^22 .time.median_ms)")" "$(at "$L/var-$1.json" 2^22 .ratio)" \
        "$(us "$(at "$L/var-$1.json" 2^28 .time.median_ms)")" "$(at "$L/var-$1.json" 2^28 .ratio)"
}
variant base 's/x/x/'
variant nohint 's/bool first = i == tid;/bool first = false;/'
variant allhint 's/bool first = i == tid;/bool first = true;/'
# __launch_bounds__(1024) without its 1: ptxas may then keep to 32 registers
# (as it did for lab15-variants.cu's v4w); for the solution it chose 54.
variant lb-alone 's/__launch_bounds__(BLOCK, BLOCKS_PER_SM)/__launch_bounds__(BLOCK)/'
variant u4 's/^#define UNROLL 8/#define UNROLL 4/'
variant b512u16 's/^#define BLOCK 1024/#define BLOCK 512/; s/^#define UNROLL 8/#define UNROLL 16/'
# Two blocks of 1024 per SM: __launch_bounds__(1024, 2) holds a thread to 32
# registers, four loads in flight, and this kernel spills.
variant x2 's/^#define BLOCKS_PER_SM 1/#define BLOCKS_PER_SM 2/'
# The lesson's ordering: __threadfence() before a plain atomicInc, and again
# in the last block, instead of one atom.acq_rel.
variant fences 's/last = ticket(&blocks_done, gridDim.x - 1) == gridDim.x - 1;/__threadfence(); last = atomicInc(\&blocks_done, gridDim.x - 1) == gridDim.x - 1;/; s/^    __syncwarp();$/    __syncwarp();\n    __threadfence();/'

epilogue_variants

echo "== the lesson's placeholders (labs/15-epilogue/README.md) and the catalog"
S=$L/solution.json
read_gbps=$(j .device.read_gbps "$S")
FIG["lab 08 2^28 ×CUB"]=$(at "$L/lab08.json" 2^28 .ratio)
FIG["read GB/s"]=$(awk -v g="$read_gbps" 'BEGIN { printf "%.0f", g }')
FIG["2^22 at peak µs"]=$(awk -v g="$read_gbps" 'BEGIN { if (g + 0 > 0) printf "%.1f", 4194304 * 4 / (g * 1e9) * 1e6 }')
FIG["CUB 2^22 µs"]=$(us "$(at "$S" 2^22 .reference.time.median_ms)")
FIG["CUB 2^28 µs"]=$(us "$(at "$S" 2^28 .reference.time.median_ms)")
FIG["lab 08 2^22 µs"]=$(us "$(at "$L/lab08.json" 2^22 .time.median_ms)")
FIG["lab 08 2^22 ×CUB"]=$(at "$L/lab08.json" 2^22 .ratio)
FIG["memset variant 2^22 µs"]=$(us "$(at "$L/memset.json" 2^22 .time.median_ms)")
FIG["lesson 2^22 µs"]=$(us "$(at "$L/lesson.json" 2^22 .time.median_ms)")
FIG["lesson 2^22 ×CUB"]=$(at "$L/lesson.json" 2^22 .ratio)
FIG["lesson 2^28 µs"]=$(us "$(at "$L/lesson.json" 2^28 .time.median_ms)")
FIG["lesson 2^28 ×CUB"]=$(at "$L/lesson.json" 2^28 .ratio)
FIG["no hint 2^22 µs"]=$(us "$(at "$L/var-nohint.json" 2^22 .time.median_ms)")
FIG["hint every sweep 2^22 µs"]=$(us "$(at "$L/var-allhint.json" 2^22 .time.median_ms)")
FIG["hint every sweep 2^28 µs"]=$(us "$(at "$L/var-allhint.json" 2^28 .time.median_ms)")
FIG["no hint 2^28 µs"]=$(us "$(at "$L/var-nohint.json" 2^28 .time.median_ms)")
FIG["launch bounds alone 2^22 µs"]=$(us "$(at "$L/var-lb-alone.json" 2^22 .time.median_ms)")
FIG["two blocks per SM 2^22 µs"]=$(us "$(at "$L/var-x2.json" 2^22 .time.median_ms)")
FIG["fences 2^22 µs"]=$(us "$(at "$L/var-fences.json" 2^22 .time.median_ms)")
eighty() { awk -v r="$1" 'BEGIN { if (r != "") printf "%.2f", int(r * 0.8 * 100) / 100 }'; }
FIG["target 2^22 ×CUB"]=$(eighty "$(at "$S" 2^22 .ratio)")
FIG["target 2^28 ×CUB"]=$(eighty "$(at "$S" 2^28 .ratio)")
FIG["lab 15 2^22 µs"]=$(us "$(at "$S" 2^22 .time.median_ms)")
FIG["lab 15 2^28 µs"]=$(us "$(at "$S" 2^28 .time.median_ms)")
FIG["lab 15 2^22 ×CUB"]=$(at "$S" 2^22 .ratio)
FIG["lab 15 2^26 ×CUB"]=$(at "$S" 2^26 .ratio)
FIG["lab 15 2^28 ×CUB"]=$(at "$S" 2^28 .ratio)
FIG["atomic distinct of 20"]=$(wc -l < "$L/distinct-lab08.txt" | tr -d ' ')
grep -o '{{H100: [^}]*}}' labs/15-epilogue/README.md | sort -u | while read -r ph; do
    key=${ph#\{\{H100: }
    key=${key%\}\}}
    printf '%-36s %s\n' "$ph" "${FIG[$key]:-?}"
done
printf 'lab 07 at 2^22: %s x CUB; lab 08: %s x CUB (docs/ladder.md had 1/1.13)\n' \
    "$(at "$L/lab07.json" 2^22 .ratio)" "$(at "$L/lab08.json" 2^22 .ratio)"
printf 'catalog: target.solution %s (2^22), target.also[0].solution %s (2^28); 80%%: %s and %s\n' \
    "$(at "$S" 2^22 .ratio)" "$(at "$S" 2^28 .ratio)" \
    "$(awk -v r="$(at "$S" 2^22 .ratio)" 'BEGIN { printf "%.2f", int(r * 0.8 * 100) / 100 }')" \
    "$(awk -v r="$(at "$S" 2^28 .ratio)" 'BEGIN { printf "%.2f", int(r * 0.8 * 100) / 100 }')"
