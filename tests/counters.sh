#!/usr/bin/env bash
# tests/counters.sh — the speed labs measured by their lessons without a GPU
# (docs/harness.md section 7.1): every lesson of the catalog names counters
# the emulator has (tutor/emu/emu_count.h); on the CPU tier lab 01's kernel
# fails lab 02 by its divergent branches and lab 02's fails lab 03 by its
# wavefronts, each told beside the reference solution's figure; lab 03's
# passes, and `check --counters` reports the emulator's counts of the
# lesson's call, which follow from the kernel by hand.  The checks run with
# no GPU visible, so the same holds on a GPU machine.  Each solution's own
# figure against the catalog's is tests/gpu.sh's.
. "$(dirname "$0")/lib.sh"
cd "$ROOT"
unset CUDATUTOR_NO_EMULATOR
export CUDA_VISIBLE_DEVICES=

# the counters' names, from the table
names=" n $(sed -n 's/^ *X([a-z_]*, "\([a-z_]*\)",.*/\1/p' tutor/emu/emu_count.h | tr '\n' ' ')"
check "the table names the counters the lessons use (shared_load_wavefronts, divergent_branches, threads)" \
    grep -q " shared_load_wavefronts .* divergent_branches \| divergent_branches .* shared_load_wavefronts " <<<"$names"
unknown=""
for name in $(jq -r '.labs[].lesson // empty | .counter, (.over // empty)' data/labs.json | tr '+' '\n'); do
    grep -q " $name " <<<"$names" || unknown="$unknown $name"
done
check "every lesson's counter is one the emulator counts${unknown:+ (unknown:$unknown)}" test -z "$unknown"
check "labs 02 to 07 and 09 have a lesson" \
    test "$(jq -r '[.labs[] | select(.lesson) | .id] | join(" ")' data/labs.json)" = "02 03 04 05 06 07 09"

if [ ! -x build/harness/judge_cpu_reduce_int ]; then
    for t in "lab 01's kernel fails lab 02 on the CPU" "lab 02's kernel fails lab 03 on the CPU" \
             "lab 03's solution passes with its counters"; do
        skip "$t" "skipped: no CPU judge (build without the emulator)"
    done
    exit 0
fi
sol() { ls solutions/"$1"-*/kernel.cu; }
# lab 02's solution, but a fault at exactly the lesson's size, which no
# trial uses: the profile is where it shows
sed 's/^    unsigned tid = threadIdx.x;$/&\n    if (n == 65536u) __trap();/' "$(sol 02)" > "$TMP/dodge.cu"
par_check "$TMP/dodge.json" 02 --file "$TMP/dodge.cu" --work-dir "$TMP/w0"
par_check "$TMP/01on02.json" 02 --file "$(sol 01)" --work-dir "$TMP/w1"
par_check "$TMP/02on03.json" 03 --file "$(sol 02)" --work-dir "$TMP/w2"
par_check "$TMP/03.json" 03 --file "$(sol 03)" --counters --work-dir "$TMP/w3"
par_wait

j() { jq -r "$1" "$2"; }
missing() { j '[.messages[] | select(startswith("technique missing: '"$1"'"))][0] // ""' "$2"; }
m=$(missing "contiguous working threads" "$TMP/01on02.json")
check "lab 01's kernel fails lab 02 on the CPU: technique missing, its divergent branches beside the solution's" \
    test "$(j .status "$TMP/01on02.json")" = fail -a -n "$(grep -F "divergent branches per element: yours 0.1893, the reference solution's 0.04735, at most 0.1" <<<"$m")"
check "it is correct there all the same: every trial passed" \
    test "$(j '[.tests[] | select(.pass | not)] | length' "$TMP/01on02.json")" = 0
check "a kernel that faults only at the lesson's size passes its trials but not the lesson: technique missing" \
    test "$(grep -c '__trap' "$TMP/dodge.cu") $(j .status "$TMP/dodge.json")" = "1 fail" -a \
         "$(j '[.tests[] | select(.pass | not)] | length' "$TMP/dodge.json")" = 0 -a \
         -n "$(missing "contiguous working threads" "$TMP/dodge.json" | grep -F "its call at n=65536 ended runtime_error")"
m=$(missing "conflict-free shared memory" "$TMP/02on03.json")
check "lab 02's kernel fails lab 03 on the CPU: 2.552 wavefronts a shared request against 1" \
    test "$(j .status "$TMP/02on03.json")" = fail -a -n "$(grep -F "yours 2.552, the reference solution's 1, at most 1.2" <<<"$m")"

# Lab 03's solution at 2^16 ints: passes of 128-thread blocks over 65536,
# 512 and 4 values (the launcher's), each block loading its slice once.
c() { j ".counters.metrics.$1" "$TMP/03.json"; }
check "lab 03's solution passes on the CPU, the lesson's technique found" \
    test "$(j .status "$TMP/03.json")" = pass -a \
         "$(j '.techniques[] | select(.name == "conflict-free shared memory") | .found' "$TMP/03.json")" = true
check "--counters: the emulator's, at the lesson's size" \
    test "$(j .counters.tool "$TMP/03.json") $(j .counters.n "$TMP/03.json")" = "emulator 65536"
check "three launches of 512, 4 and 1 blocks of 128 threads" \
    test "$(c launches) $(c blocks) $(c threads)" = "3 517 66176"
# loads: each warp reads 32 consecutive ints, 4 sectors: 2048 requests for
# 65536 ints, 16 for 512; the last pass's 4 ints are one warp's request of
# one sector (its 3 other warps load nothing).  Each sector is read once.
check "global loads: 2065 requests, 8257 sectors (8192 + 64 + 1), each read once" \
    test "$(c global_load_requests) $(c global_load_sectors) $(c unique_sectors_read)" = "2065 8257 8257"
check "conflict-free: one wavefront per shared request, loads and stores" \
    test "$(c shared_load_wavefronts) $(c shared_store_wavefronts)" = "$(c shared_load_requests) $(c shared_store_requests)"
check "one block sum stored per block: 517 requests of one sector" \
    test "$(c global_store_requests) $(c global_store_sectors)" = "517 517"
check "the counters print in the verdict, a count as an integer" \
    grep -qE '^  +thread_instructions +[0-9]+$' <<<"$("$TUTOR" check 03 --file "$(sol 03)" --counters --work-dir "$TMP/w4" 2>&1)"

# The profiles run beside the trials, on the other core (check_counters.c's
# counters_ahead): a kernel that never ends keeps its profile spinning too,
# and a check that ends without a pass stops it — no judge of that check
# is left running once the command has returned.
"$TUTOR" check 03 --file tests/bank/infinite_loop.cu --timeout-scale 0.1 --work-dir "$TMP/w5" > "$TMP/loop.out" 2>&1
left=$(pgrep -f -- "$TMP/w5" || true)
check "a check that times out leaves no profile of it running (its status: $(tail -n1 "$TMP/loop.out" | cut -c1-7))" \
    test -z "$left" -a "$(tail -n1 "$TMP/loop.out" | cut -d' ' -f1)" = timeout
check "and its profile started beside the trials: its report is there" test -e "$TMP/w5/profile.json" -o -e "$TMP/w5/cpu-profile-runner.out"

# Every solution's counts against the H200's, read by ncu and kept in the
# tree (tests/emu/h200-counters.txt): equal wherever the two count the
# same events, except the rows that file says differ, and why.
fixture=tests/emu/h200-counters.txt
for lab in $(awk '$1 == "lab" { print $2 }' "$fixture"); do
    par_check "$TMP/h200-$lab.json" "$lab" --file "$(sol "$lab")" --counters --no-sanitize --work-dir "$TMP/wh$lab"
done
par_wait
for lab in $(awk '$1 == "lab" { print $2 }' "$fixture"); do
    want_n=$(awk -v l="$lab" '$1 == "lab" && $2 == l { print $4 }' "$fixture")
    bad="" same=0
    # The report's counters, read once ("-" for one it lacks, as for a
    # null or false): a jq per counter was 200 processes, 3.5 s of CPU.
    declare -A metric=()
    while read -r name value; do metric[$name]=$value; done < <(jq -r \
        '.counters.metrics // {} | to_entries[] | select(.value != null and .value != false) | "\(.key) \(.value)"' \
        "$TMP/h200-$lab.json")
    while read -r _ name value rest; do
        case $rest in differs:*) continue ;; esac
        got=${metric[$name]:--}
        if awk -v a="$got" -v b="$value" 'BEGIN { exit !(a == "-" || a + 0 != b + 0) }'; then
            bad="$bad $name=$got (H200 $value)"
        else
            same=$((same + 1))
        fi
    done < <(awk -v l="$lab" '$1 == l' "$fixture")
    check "lab $lab's solution counts as the H200 did at n=$want_n ($same counters${bad:+; differ:$bad})" \
        test -z "$bad" -a "$(jq -r .counters.n "$TMP/h200-$lab.json")" = "$want_n"
done
