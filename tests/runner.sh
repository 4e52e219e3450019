#!/usr/bin/env bash
# tests/runner.sh — the runner and the judge's plans, without a GPU: every
# stub and solution links against the recording runtime (which pins nvcc's
# undocumented launch-stub interface for this CUDA release), and the plan
# the judge records for each trial size is what the launcher must do.
# The PTX of each check goes to tests/emu.sh (emu_ptx_keep).
. "$(dirname "$0")/lib.sh"
cd "$ROOT"

# The stub entry points nvcc's objects ask for must all be defined by the
# recording runtime: a CUDA release that renames one fails here first.
rt=build/harness/rt.o
# The stubs are the pristine ones (data/stubs/), never the student's labs/.
for kind in labs solutions; do
    for lab in $(lab_ids); do
        dir="$TMP/$kind-$lab"
        file="solutions/$(lab_dir "$lab")/kernel.cu"
        [ $kind = labs ] && file=$(stub_file "$lab")
        par_check "$dir.json" "$lab" --file "$file" --no-sanitize --quick --work-dir "$dir"
    done
done
par_wait
# Each family's number of trial sizes, and each check's plans as lines of
# text ("n=N: plan"), read once: a jq per question would cost more CPU
# than the checks did.
declare -A nsizes
while read -r fam n; do nsizes[$fam]=$n; done < <(jq -r '.families | to_entries[] | "\(.key) \(.value.sizes | length)"' data/labs.json)
for kind in labs solutions; do
    for lab in $(lab_ids); do
        jq -r '.plan.seen[]?' "$TMP/$kind-$lab.json" > "$TMP/$kind-$lab.plans"
    done
done
gpu=0
have_gpu && gpu=1
# What the recording runtime defines, listed once.
nm -P "$rt" | awk '$2 == "T" {print $1}' | sort -u > "$TMP/rt.defined"
for kind in labs solutions; do
    for lab in $(lab_ids); do
        dir="$TMP/$kind-$lab"
        file="solutions/$(lab_dir "$lab")/kernel.cu"
        [ $kind = labs ] && file=$(stub_file "$lab")
        emu_ptx_keep "$file" "$dir"
        missing=$(comm -23 <(nm -P "$dir/kernel.o" | awk '$2 == "U" && $1 ~ /^_?_?cuda/ {print $1}' | sort -u) \
                           "$TMP/rt.defined" | tr '\n' ' ')
        check "$kind $lab: every CUDA call of its object is in the recording runtime" test -z "$missing"
        [ -z "$missing" ] || echo "#   missing: $missing"
        status=$(jget "$dir.json" .status)
        sizes=$(wc -l < "$dir.plans")
        if [ $gpu = 1 ]; then
            skip "$kind $lab: plans recorded for every trial size without a GPU" "a CUDA device is present"
        else
            check "$kind $lab: plans recorded for every trial size without a GPU" \
                test "$status" = no_gpu -a "$sizes" = "${nsizes[$(lab_family "$lab")]}"
        fi
    done
done

# ---- as many kernels as a plan can name -----------------------------------
# The judge follows launches by kernel, up to lab.h's rule 7; a file with
# one kernel more is refused as a whole, in words that say why (a launch of
# a kernel past the limit would otherwise go unseen, or read as a function
# nobody registered).
limit=$(sed -n 's/^#define PLAN_MAX_KERNELS \([0-9]*\).*/\1/p' tutor/runner/plan.h)
check "lab.h's rule 7 names the plan's kernel limit ($limit)" \
    grep -q "At most $limit kernels in the file" tutor/lab.h
# with_kernels N OUT: lab 01's solution with N - 1 kernels it never launches
# before its own.
with_kernels() {
    local sol=solutions/$(lab_dir 01)/kernel.cu i
    { sed -n '1,/^#define BLOCK/p' "$sol"
      for ((i = 1; i < $1; i++)); do echo "__global__ void unused_$i(int *p) { if (p) *p = $i; }"; done
      sed '1,/^#define BLOCK/d' "$sol"; } > "$2"
}
with_kernels "$limit" "$TMP/k-limit.cu"
with_kernels $((limit + 1)) "$TMP/k-over.cu"
"$TUTOR" check 01 --file "$TMP/k-limit.cu" --no-sanitize --quick --json > "$TMP/k-limit.json" 2> /dev/null
"$TUTOR" check 01 --file "$TMP/k-over.cu" --no-sanitize --quick --json > "$TMP/k-over.json" 2> /dev/null
want=no_gpu
have_gpu && want=pass
check "$limit kernels in the file: its plans are followed ($want)" \
    test "$(jget "$TMP/k-limit.json" .status)" = $want
check "$((limit + 1)) kernels: rejected, saying the file defines more than $limit" \
    test "$(jget "$TMP/k-over.json" .status)" = rejected -a \
         -n "$(grep -F "the file defines more than $limit kernels" "$TMP/k-over.json")"

have_gpu && { echo "# the plan checks below need the CPU path"; exit 0; }

plan_at() {     # plan_at KIND LAB N: the plan recorded for size N
    local line
    while IFS= read -r line; do
        [[ $line == "n=$3: "* ]] && { printf '%s\n' "${line#"n=$3: "}"; return; }
    done < "$TMP/$1-$2.plans"
}

# Labs 01-05: passes of ceil(len / (threads * per_thread)) blocks until one
# is left, every pass the same kernel of 128 threads.
multipass() {   # multipass N PER_THREAD KERNEL
    local len=$1 per=$2 k=$3 out="" blocks
    while :; do
        blocks=$(( (len + 128 * per - 1) / (128 * per) ))
        out="$out $k<<<$blocks,128,0>>>"
        [ "$blocks" = 1 ] && break
        len=$blocks
    done
    echo "${out# }"
}
k=_Z12reduce_blockPKiPij
reduce_sizes=$(jq -r '.families.reduce_int.sizes[]' data/labs.json)
for lab in 01 02 03 04 05; do
    per=1; [ "$lab" -ge 4 ] && per=2
    bad=""
    for n in $reduce_sizes; do
        want=$(multipass "$n" $per $k)
        for kind in labs solutions; do
            [ "$(plan_at $kind $lab "$n")" = "$want" ] || bad="$bad $kind:n=$n"
        done
    done
    check "lab $lab: stub and solution plan ceil(len / $((128 * per))) blocks of 128 per pass, at every trial size" test -z "$bad"
    [ -z "$bad" ] || echo "#   differs at:$bad"
done

# Labs 06-10: the solutions' launchers, at a small, a middling and the
# largest trial size, against a stand-in H100 (132 SMs; occupancy 64 warps
# per SM): templated passes (06), one memset and a grid the size of the GPU
# (07-09), one warp per number (10).
expect() {      # expect LAB N PLAN
    check "solution $1 at n=$2: $3" test "$(plan_at solutions "$1" "$2")" = "$3"
}
u=_Z15reduce_unrolledILj
expect 06 1 "${u}64EEvPKiPij<<<1,64,0>>>"
expect 06 999983 "${u}256EEvPKiPij<<<1954,256,0>>> ${u}1024EEvPKiPij<<<1,1024,0>>>"
expect 06 16777259 "${u}256EEvPKiPij<<<32769,256,0>>> ${u}256EEvPKiPij<<<65,256,0>>> ${u}64EEvPKiPij<<<1,64,0>>>"
for lab in 07 08; do
    kern=$(plan_at solutions $lab 1 | sed 's/.*\(_Z[^<]*\)<<<.*/\1/')
    expect $lab 1 "memset(out+0,0,4) $kern<<<1,1024,0>>>"
    expect $lab 999983 "memset(out+0,0,4) $kern<<<245,1024,0>>>"
    expect $lab 16777259 "memset(out+0,0,4) $kern<<<264,1024,0>>>"
done
kern=$(plan_at solutions 09 1 | sed 's/.*\(_Z[^<]*\)<<<.*/\1/')
expect 09 1 "memset(out+0,0,4) $kern<<<1,256,0>>>"
expect 09 16777259 "memset(out+0,0,4) $kern<<<1056,256,0>>>"
kern=$(plan_at solutions 10 1 | sed 's/.*\(_Z[^<]*\)<<<.*/\1/')
expect 10 1 "$kern<<<1,256,0>>>"
expect 10 33 "$kern<<<5,256,0>>>"
expect 10 65537 "$kern<<<1056,256,0>>>"


