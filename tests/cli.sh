#!/usr/bin/env bash
# tests/cli.sh — the command line: help, list, show, hint, usage errors, and
# check verdicts that need no GPU (compile errors, rejections, no device).
. "$(dirname "$0")/lib.sh"
cd "$ROOT"

out=$("$TUTOR" --help); rc=$?
check "help exits 0 and lists the commands" test $rc -eq 0 -a -n "$(grep -E '^  check ' <<<"$out")"

out=$("$TUTOR" list)
ids=$(awk '{print $1}' <<<"$out" | tr '\n' ' ')
check "list shows the ten labs in order" test "$ids" = "01 02 03 04 05 06 07 08 09 10 "
check "list --json has ten labs with families" \
    test "$("$TUTOR" list --json | jq -r '[.[].family] | unique | join(",")')" = "mpadd,reduce_float,reduce_int,trapezoid"

out=$("$TUTOR" check 2>&1); rc=$?
check "check without a lab is a usage error" test $rc -eq 2 -a -n "$(grep 'which lab' <<<"$out")"
out=$("$TUTOR" check 42 2>&1); rc=$?
check "check of an unknown lab names it" test $rc -eq 2 -a -n "$(grep 'no lab "42"' <<<"$out")"
out=$("$TUTOR" frobnicate 2>&1); rc=$?
check "an unknown command is a usage error" test $rc -eq 2 -a -n "$(grep 'unknown command' <<<"$out")"
out=$("$TUTOR" check 01 --seed nope 2>&1); rc=$?
check "a bad seed is a usage error" test $rc -eq 2

out=$("$TUTOR" show 01)
check "show prints the lesson" test "$(head -n1 <<<"$out")" = "$(head -n1 labs/01-*/README.md)"
want=$(jq -r '.labs[1].hints[1]' data/labs.json)
check "hint 02 2 prints the second hint" test "$("$TUTOR" hint 02 2 --json | jq -r .text)" = "$want"

out=$(cd /tmp && "$TUTOR" list 2>&1); rc=$?
check "outside a workbook: a clear error" test $rc -eq 2 -a -n "$(grep 'not inside a workbook' <<<"$out")"

# A broken catalog is refused with the JSON path of the problem.
mkdir -p "$TMP/wb/data"
jq '.labs[3].family = "x"' data/labs.json > "$TMP/wb/data/labs.json"
out=$("$TUTOR" --root "$TMP/wb" list 2>&1); rc=$?
check "a bad catalog names file, path and value" \
    test $rc -ne 0 -a "$out" = 'cudatutor: data/labs.json: labs[3].family: unknown family "x"'

# ---- checks that need no GPU --------------------------------------------
cat > "$TMP/syntax.cu" <<'CU'
#include "lab.h"
extern "C" void lab_reduce_int(const int *d_in, unsigned n, int *d_out, void *d_scratch, cudaStream_t s)
{
    int x = ;
}
CU
"$TUTOR" check 01 --file "$TMP/syntax.cu" --json > "$TMP/syntax.json"; rc=$?
check "a syntax error is compile_error, exit 1" \
    test $rc -eq 1 -a "$(jq -r .status "$TMP/syntax.json")" = compile_error
check "the diagnostic points at the student's line" \
    test "$(jq -r '.compile.diagnostics[0].line' "$TMP/syntax.json")" = 4
check "the diagnostic names the student's file" \
    test "$(jq -r '.compile.diagnostics[0].file' "$TMP/syntax.json")" = "$TMP/syntax.cu"

cat > "$TMP/noentry.cu" <<'CU'
#include <cuda_runtime.h>
void lab_reduce_int(const int *, unsigned, int *, void *, cudaStream_t) {}
CU
"$TUTOR" check 01 --file "$TMP/noentry.cu" --json > "$TMP/noentry.json"; rc=$?
check "an entry point without extern \"C\" is explained" \
    test "$(jq -r '.compile.diagnostics[0].message' "$TMP/noentry.json")" = \
         'lab_reduce_int is not defined: the file must define it with extern "C"'

"$TUTOR" check 01 --file tests/bank/host_sum.cu --json > "$TMP/host.json"; rc=$?
check "a host-side sum is rejected, naming cudaMemcpy and the rule" \
    test $rc -eq 1 -a "$(jq -r '.status + " " + ([.symbols.violations[].symbol] | join(","))' "$TMP/host.json" \
         | grep -c 'rejected .*cudaMemcpy')" = 1

"$TUTOR" check 01 --file "$TMP/missing.cu" --json > "$TMP/missing.json"; rc=$?
check "a missing kernel file is a compile_error" \
    test $rc -eq 1 -a "$(jq -r .status "$TMP/missing.json")" = compile_error

# The trials have their own limit (the catalog's trials_timeout_s, scaled):
# a harness stuck in them is stopped then, not at the whole run's limit.
# A wrapper in place of the harness plays the stuck run, GPU or not.
sol01="$ROOT/solutions/$(lab_dir 01)/kernel.cu"
printf '#!/bin/sh\necho "@stage correctness 3/32 n=31" >&2\nexec sleep 60\n' > "$TMP/stuck-in-trials"
printf '#!/bin/sh\n{ echo "@stage correctness 32/32 n=16777259"; echo "@passed correctness"; echo "@stage timing 1/1 2^28"; } >&2\nexec sleep 60\n' \
    > "$TMP/stuck-in-timing"
chmod +x "$TMP/stuck-in-trials" "$TMP/stuck-in-timing"
# stuck_verdict WRAPPER: the check's status, its run time in whole seconds
# and its first message with the time left out, the harness being WRAPPER.
stuck_verdict() {
    "$TUTOR" check 01 --file "$sol01" --json --no-sanitize --timeout-scale 0.05 --wrap "$1" |
        jq -r '.status + " " + (.run_s | floor | tostring) + " s " + (.messages[0] | sub("after [0-9]+ s"; "after N s"))'
}
check "a run stuck in its trials stops at the trials' limit, and says so" \
    test "$(stuck_verdict "$TMP/stuck-in-trials" | sed 's/^timeout [01] s /timeout /')" = \
         "timeout timed out after N s: the correctness trials ran past their 0.5 s limit during correctness 3/32 n=31: the whole process group was killed"
check "past its trials a run has the whole limit" \
    test "$(stuck_verdict "$TMP/stuck-in-timing" | sed 's/^timeout [3-9] s /timeout /')" = \
         "timeout timed out after N s during timing 1/1 2^28: the whole process group was killed"

# --target-min: the threshold a grader calibrated for its GPU replaces the
# catalog's; the report keeps both.  A stand-in harness reports a passing
# run at 0.10x CUB (lab 01's catalog target is 0.12x).
cat > "$TMP/fake-harness" <<'EOF'
#!/bin/sh
while [ $# -gt 0 ]; do [ "$1" = --json ] && out=$2; shift; done
printf '%s' '{"schema": 1, "status": "pass", "tests": [{"name": "n=1", "n": 1, "pass": true}],
  "perf": [{"label": "2^28", "n": 268435456, "bytes": 1073741824, "gbps": 300, "pct_peak": 10,
            "time": {"samples": 10, "median_ms": 3.5, "min_ms": 3.5, "max_ms": 3.6},
            "ratio": 0.10, "implausible": false}], "messages": []}' > "$out"
EOF
chmod +x "$TMP/fake-harness"
"$TUTOR" check 01 --file "$sol01" --json --no-sanitize --quick --wrap "$TMP/fake-harness" > "$TMP/tmin1.json"
"$TUTOR" check 01 --file "$sol01" --json --no-sanitize --quick --wrap "$TMP/fake-harness" --target-min 0.09 \
    > "$TMP/tmin2.json"
check "the catalog's target judges a run by default" \
    test "$(jq -c '.target | [.min, .met, .catalog_min]' "$TMP/tmin1.json")" = "[0.12,false,null]"
check "--target-min replaces it and the report keeps the catalog's" \
    test "$(jq -c '.target | [.min, .met, .catalog_min]' "$TMP/tmin2.json")" = "[0.09,true,0.12]"
"$TUTOR" check 01 --target-min 0 > /dev/null 2>&1; rc=$?
check "--target-min 0 is a usage error" test $rc -eq 2

# A lab's own kernel.cu is checked in a fresh workbook: the student's copy
# in labs/ may hold anything.
WB=$TMP/wb-pristine
make_workbook "$WB"
export CUDATUTOR_HARNESS_DIR="$ROOT/build/harness"
if have_gpu; then
    skip "check without a GPU says so and exits 3" "a CUDA device is present"
else
    out=$("$TUTOR" --root "$WB" check 01); rc=$?
    check "check without a GPU says so and exits 3" \
        test $rc -eq 3 -a -n "$(grep -F 'compiled; not run: no CUDA device' <<<"$out")"
    check "check --json without a GPU: status no_gpu, techniques judged" \
        test "$("$TUTOR" --root "$WB" check 01 --json | jq -r '.status + " " + (.techniques[0].found|tostring)')" = "no_gpu true"
fi

if have_gpu; then
    skip "ladder without a GPU writes nothing and exits 3" "a CUDA device is present"
else
    "$TUTOR" ladder --out "$TMP/ladder.md" > /dev/null 2>&1; rc=$?
    check "ladder without a GPU writes nothing and exits 3" test $rc -eq 3 -a ! -e "$TMP/ladder.md"
fi
