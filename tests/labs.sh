#!/usr/bin/env bash
# tests/labs.sh — invariants of the course: every lab has a lesson, a
# pristine stub (data/stubs/) with a TODO, a solution without one, three
# hints; every stub and solution compiles, passes the symbol rules, and every
# solution shows the techniques its lab teaches (PTX, no GPU needed); no
# stray files in what the workbook ships; a GPU older than nvcc supports is
# refused by name.
# The stubs tested are the pristine ones: labs/NN-slug/kernel.cu is the
# student's copy, and whatever it holds (a solution, half a kernel, a reset's
# kernel.cu.bak-* beside it) is no business of these tests.
. "$(dirname "$0")/lib.sh"
cd "$ROOT"

ingit=0
git rev-parse --is-inside-work-tree > /dev/null 2>&1 && ingit=1

# shipped DIR: the files the workbook ships in DIR, one a line: what git
# tracks there (outside git, what is there), less a reset's backups, which
# are the student's.
shipped() {
    if [ $ingit = 1 ]; then git ls-files -- "$1" | sed "s|^$1/||"; else ls -A "$1"; fi |
        grep -vE '^kernel\.cu\.bak-[0-9]{8}-[0-9]{6}(-[0-9]+)?$'
}

# same_in_commit STUB LABFILE: STUB is what labs/ handed out.  In the last
# commit that changed STUB, LABFILE was the same file; while STUB has
# uncommitted changes, it is the same as LABFILE in the working tree (an
# author changing both).  A student's later edits or commits of LABFILE
# change neither.
same_in_commit() {
    local c
    if ! git diff --quiet HEAD -- "$1" 2>/dev/null || [ -z "$(git ls-files -- "$1")" ]; then
        cmp -s "$1" "$2"
        return
    fi
    c=$(git log -1 --format=%H -- "$1")
    [ -n "$c" ] && [ "$(git rev-parse "$c:$1")" = "$(git rev-parse "$c:$2" 2>/dev/null)" ]
}

check "lib.sh's lab_ids reads every lab of the catalog, one per pristine stub" \
    test "$(lab_ids | tr '\n' ' ')" = "$(ls data/stubs | sed -n 's/^\([0-9][0-9]\)-.*\.cu$/\1/p' | tr '\n' ' ')" -a \
         "$(lab_ids | while read -r id; do lab_dir "$id"; done | tr '\n' ' ')" = "$(ls data/stubs | sed -n 's/\.cu$//p' | tr '\n' ' ')"
# Every lab's id, slug and number of hints, read from the catalog once.
mapfile -t cat_labs < <(jq -r '.labs[] | "\(.id) \(.slug) \(.hints | length)"' data/labs.json)
# The builds first, side by side; their verdicts are read in order below.
for row in "${cat_labs[@]}"; do
    read -r id slug _ <<<"$row"
    par_check "$TMP/stub-$id.json" "$id" --file "data/stubs/$id-$slug.cu" --build-only --work-dir "$TMP/w/stub-$id"
    par_check "$TMP/sol-$id.json" "$id" --file "solutions/$id-$slug/kernel.cu" --build-only --work-dir "$TMP/w/sol-$id"
done
par_wait

for row in "${cat_labs[@]}"; do
    read -r id slug nhints <<<"$row"
    lab=labs/$id-$slug sol=solutions/$id-$slug stub=data/stubs/$id-$slug.cu
    check "$id has a lesson" test -s "$lab/README.md"
    long=$(awk 'length > 78 { print; if (++k == 3) exit }' "$lab/README.md")
    check "$id lesson lines fit 78 columns" test -z "$long"
    check "$id has a pristine stub in data/stubs" test -s "$stub"
    check "$id stub marks the work with TODO" grep -q TODO "$stub"
    check "$id solution has no TODO" test -z "$(grep -l TODO "$sol/kernel.cu")"
    check "$id has three hints" test "$nhints" = 3
    stray=$(shipped "$lab" | grep -vxE 'README.md|kernel.cu'; shipped "$sol" | grep -vxF kernel.cu)
    check "$id no stray files" test -z "$stray"
    if [ $ingit = 1 ]; then
        check "$id stub is the kernel.cu labs/ handed out" same_in_commit "$stub" "$lab/kernel.cu"
    else
        skip "$id stub is the kernel.cu labs/ handed out" "not a git checkout"
    fi

    check "$id stub compiles and follows the rules" test "$(jget "$TMP/stub-$id.json" .status)" = no_gpu
    check "$id solution compiles and follows the rules" test "$(jget "$TMP/sol-$id.json" .status)" = no_gpu
    missing=$(jq -r '[.techniques[] | select(.found | not) | .name] | join(", ")' "$TMP/sol-$id.json")
    check "$id solution shows its lab's techniques" test -z "$missing"
done

stray=$(shipped labs | cut -d/ -f1 | sort -u | grep -vE '^[0-9]{2}-[a-z0-9-]+$')
check "labs/ holds only lab folders" test -z "$stray"
want=$(jq -r '.labs[] | "\(.id)-\(.slug).cu"' data/labs.json | sort)
check "list --json names each lab's pristine stub" \
    test "$("$TUTOR" list --json | jq -r '.[].stub')" = "$(jq -r '.labs[] | "data/stubs/\(.id)-\(.slug).cu"' data/labs.json)"
check "data/stubs holds one stub per lab and its README" \
    test "$(shipped data/stubs | sort)" = "$(printf '%s\nREADME.md' "$want" | sort)"
check "lab.h and the catalog agree on the contract version" \
    test "$(grep -oE 'LAB_CONTRACT_VERSION [0-9]+' tutor/lab.h | awk '{print $2}')" = \
         "$(grep -oE 'CATALOG_CONTRACT [0-9]+' tutor/model/catalog.h | awk '{print $2}')" -a \
         "$(jq .contract data/labs.json)" = "$(grep -oE 'CATALOG_CONTRACT [0-9]+' tutor/model/catalog.h | awk '{print $2}')"

# Every lab runs its kernels on the GPU it was built for: a GPU older than
# the toolkit supports is said so plainly before anything is built.
out=$(make -s --no-print-directory CUDA_ARCH=sm_50 check-nvcc 2>&1); rc=$?
check "make for a GPU older than nvcc supports stops and says which GPUs it builds for" \
    test $rc != 0 -a -n "$(grep -E "This GPU is sm_50, and .* builds for sm_[0-9]+ to sm_[0-9]+ only" <<<"$out")"

# No test or script of the suite takes the student's files as its sources:
# a glob over labs/*/kernel.cu (or labs/*/*.cu) compiles whatever the
# student has there; the pristine stubs are data/stubs/*.cu (issue 34).
globs=$(grep -rnE 'labs/\*/(kernel\.cu|\*\.cu)' tests --include='*.sh' | grep -vE '^[^:]+:[0-9]+:[[:space:]]*#')
check "no test script globs the student's kernel files${globs:+ ($globs)}" test -z "$globs"
