#!/usr/bin/env bash
# tests/device/result-diff.sh — the check's report before and after a change
# to how it is made: every stub, solution and bank kernel checked by two
# builds of the workbook, and the two `check --json` reports compared key
# for key, timing aside.  A refactoring of the check must leave every
# verdict, message, summary and exit code as it was.
#
#   bash tests/device/result-diff.sh A B
#       A and B: each a workbook folder with its build (./cudatutor and
#       build/harness), or a git revision, which is checked out in a
#       temporary worktree and built there (make build).
#   RESULT_DIFF_BANK='argmax_* host_sum'   bank kernels matching these
#                                 globs only (default all; '' none)
#   RESULT_DIFF_LABS=0            no stubs and solutions
#   RESULT_DIFF_ARGS='...'        more options for every check (e.g. --quick)
#   OUT=DIR                       where the reports go (default a fresh
#                                 folder under /tmp); A's in DIR/a, B's in DIR/b
#   RESULT_DIFF_NOISE=1           check every kernel with A twice: a kernel
#                                 whose two A reports differ (the judge draws
#                                 fresh poison bits and addresses each run)
#                                 is told as "noise" when B gives its status
#                                 and exit code, not as a difference
#   RESULT_DIFF_ONLY_A=1          collect A's reports and stop (B then later)
#   RESULT_DIFF_REUSE_A=1         take A's reports from OUT/a, as collected
#                                 before (A is then only named)
#
# Each check runs from its own workbook's root with the same relative
# --file, --seed 1 and --unlock-all, so that both reports name the same
# file; the checks share one compile cache (the key is the bytes, not the
# path), so the second build's compiles are the first's.  What a GPU's
# clocks decide is left out of the comparison: every key that holds a time
# or a rate (timing, run_s, harness_s, hazard_pass_s, phases, the compile's,
# sanitizer's and counters' seconds, perf's figures, the target's value and
# met, the device's measured bandwidth), and the numbers with a decimal
# point in the summary.  The exit code is compared too.  Without a GPU the
# CPU judges decide every verdict, as in the tutor.
#
# Prints one line per kernel ("same" or "DIFF" and the keys' diff) and
# "result-diff: N reports, N same, N differ"; exits 1 when any differs.
set -u
OUT=${OUT:-$(mktemp -d /tmp/result-diff.XXXXXX)}
export CUDATUTOR_NO_CALIBRATE=1
export CUDATUTOR_COMPILE_CACHE=${CUDATUTOR_COMPILE_CACHE:-$OUT/cache}
TOP=$(pwd)
BANK_GLOB=${RESULT_DIFF_BANK-*}
LABS=${RESULT_DIFF_LABS:-1}
read -r -a EXTRA <<< "${RESULT_DIFF_ARGS:-}"

if [ $# -ne 2 ]; then
    echo "usage: $0 A B   (workbook folders with their build, or git revisions)" >&2
    exit 2
fi

# The worktrees made for revisions ($OUT/worktrees lists them: tree runs
# in a subshell) go when the script ends; their reports stay under $OUT.
cleanup() {
    local d
    [ -f "$OUT/worktrees" ] || return 0
    while read -r d; do
        git -C "$TOP" worktree remove --force "$d" > /dev/null 2>&1
    done < "$OUT/worktrees"
}
trap cleanup EXIT

# tree SPEC NAME: prints a workbook folder for SPEC, building a revision's.
tree() {
    local spec=$1 name=$2
    if [ -d "$spec" ]; then
        (cd "$spec" && pwd)
        return
    fi
    local dir=$OUT/tree-$name
    if ! git -C "$TOP" worktree add --detach "$dir" "$spec" > /dev/null 2>&1; then
        echo "$spec is neither a folder nor a git revision" >&2
        return 1
    fi
    echo "$dir" >> "$OUT/worktrees"
    if ! make -C "$dir" -j"$(nproc)" build > "$OUT/build-$name.log" 2>&1; then
        echo "building $spec failed: see $OUT/build-$name.log" >&2
        return 1
    fi
    echo "$dir"
}

# kernels: "NAME LAB FILE" for every kernel, FILE relative to the workbook.
kernels() {
    if [ "$LABS" != 0 ]; then
        jq -r '.labs[] | "\(.id) \(.slug)"' "$TOP/data/labs.json" | while read -r id slug; do
            echo "stub-$id $id data/stubs/$id-$slug.cu"
            echo "solution-$id $id solutions/$id-$slug/kernel.cu"
        done
    fi
    [ -n "$BANK_GLOB" ] || return 0
    local g f lab globs
    read -r -a globs <<< "$BANK_GLOB"      # the words, not yet expanded here
    for g in "${globs[@]}"; do
        for f in "$TOP"/tests/bank/$g.cu; do
            [ -f "$f" ] || continue
            lab=$(head -n1 "$f" | sed -n 's/.*lab=\([0-9][0-9]\).*/\1/p')
            [ -n "$lab" ] && echo "bank-$(basename "$f" .cu) $lab tests/bank/$(basename "$f")"
        done
    done
}

# The report without what the clocks decide, keys sorted, the tree's own
# path as ROOT; and without what the judge draws afresh in every run: the
# poison (fresh random bits, "got N" where a result was never written) and
# where its arena put a buffer ("judge buffer + N", "N bytes before").
JQ_CLOCKLESS='
  def fresh: gsub("judge buffer \\+ [0-9]+"; "judge buffer + #")
    | gsub("at 0x[0-9a-f]{8,}"; "at 0x#")
    | gsub("[0-9]+ bytes (?<w>before|past)"; "# bytes \(.w)")
    | if test("poison") then gsub("got (?<c>count )?-?[0-9]+"; "got \(.c // "")#") else . end;
  del(.timing, .run_s, .harness_s, .hazard_pass_s, .phases, .compile.seconds,
      .sanitizer.seconds, .counters.seconds, .counters.metrics,
      .device.read_gbps, .device.copy_gbps,
      .target.value, .target.met, .target.calibration)
  | if .sanitizer.tools then .sanitizer.tools |= map(del(.seconds)) else . end
  | if .perf then .perf |= map({label: .label, input: .input, n_catalog: .n_catalog}) else . end
  | if .target.also then .target.also |= map(del(.value, .met)) else . end
  | if .tests then .tests |= map(if (.message // "" | test("poison")) then .got = "#" else . end) else . end
  | walk(if type == "string" then fresh else . end)
  | if .summary then .summary |= gsub("[0-9]+\\.[0-9]+"; "#") else . end'

# collect DIR SIDE: every kernel's report and exit code from the workbook DIR.
collect() {
    local dir=$1 side=$2
    mkdir -p "$OUT/$side"
    kernels | while read -r name lab file; do
        (cd "$dir" && ./cudatutor --unlock-all check "$lab" --file "$file" --json --seed 1 "${EXTRA[@]}" \
            > "$OUT/$side/$name.raw" 2> /dev/null
         echo $? > "$OUT/$side/$name.rc")
        sed "s#$dir/#ROOT/#g" "$OUT/$side/$name.raw" | jq -S "$JQ_CLOCKLESS" > "$OUT/$side/$name.json" 2> /dev/null ||
            cp "$OUT/$side/$name.raw" "$OUT/$side/$name.json"
    done
}

if [ "${RESULT_DIFF_REUSE_A:-0}" = 0 ]; then
    A=$(tree "$1" a) || exit 1
    collect "$A" a
    [ "${RESULT_DIFF_NOISE:-0}" = 0 ] || collect "$A" a2
fi
if [ "${RESULT_DIFF_ONLY_A:-0}" != 0 ]; then
    echo "result-diff: A's reports in $OUT/a"
    exit 0
fi
B=$(tree "$2" b) || exit 1
collect "$B" b
same=0 differ=0 noise=0
status_of() { jq -r .status "$1" 2> /dev/null; }
while read -r name _ _; do
    if cmp -s "$OUT/a/$name.json" "$OUT/b/$name.json" && cmp -s "$OUT/a/$name.rc" "$OUT/b/$name.rc"; then
        same=$((same + 1))
        echo "same $name (exit $(cat "$OUT/a/$name.rc"), $(status_of "$OUT/a/$name.json"))"
    elif [ -f "$OUT/a2/$name.json" ] && ! cmp -s "$OUT/a/$name.json" "$OUT/a2/$name.json" &&
         cmp -s "$OUT/a/$name.rc" "$OUT/b/$name.rc" &&
         [ "$(status_of "$OUT/a/$name.json")" = "$(status_of "$OUT/b/$name.json")" ]; then
        noise=$((noise + 1))
        echo "noise $name (exit $(cat "$OUT/a/$name.rc"), $(status_of "$OUT/a/$name.json"); A differs from itself:)"
        diff "$OUT/a/$name.json" "$OUT/a2/$name.json" | sed 's/^/    /' | head -n 6
    else
        differ=$((differ + 1))
        echo "DIFF $name: exit $(cat "$OUT/a/$name.rc") / $(cat "$OUT/b/$name.rc")"
        diff "$OUT/a/$name.json" "$OUT/b/$name.json" | sed 's/^/    /' | head -n 20
    fi
done < <(kernels)
echo "result-diff: $((same + differ + noise)) reports, $same same, $differ differ, $noise noise (reports in $OUT)"
[ "$differ" = 0 ]
