#!/usr/bin/env bash
# tests/gpu.sh — on a GPU: every pristine stub (data/stubs/) fails its check,
# every solution passes it (correct at every size, clean under the
# sanitizers) and meets its lab's target.  Without a GPU each test is
# skipped, visibly.
. "$(dirname "$0")/lib.sh"
cd "$ROOT"

n=$(jq '.labs | length' data/labs.json)
if ! have_gpu; then
    for i in $(seq 0 $((n - 1))); do
        id=$(jq -r ".labs[$i].id" data/labs.json)
        skip "$id stub fails on the GPU" "$NO_GPU_REASON"
        skip "$id solution passes on the GPU" "$NO_GPU_REASON"
        skip "$id solution meets its target" "$NO_GPU_REASON"
    done
    exit 0
fi

results=${GPU_RESULTS:-$TMP}
mkdir -p "$results"
for i in $(seq 0 $((n - 1))); do
    id=$(jq -r ".labs[$i].id" data/labs.json)
    slug=$(jq -r ".labs[$i].slug" data/labs.json)
    sol=solutions/$id-$slug/kernel.cu stub=data/stubs/$id-$slug.cu

    "$TUTOR" check "$id" --file "$stub" --no-sanitize --quick --json > "$results/stub-$id.json"
    st=$(jq -r .status "$results/stub-$id.json")
    if [ "$st" = fail ]; then ok "$id stub fails on the GPU"
    else not_ok "$id stub fails on the GPU" "status $st: $(jq -r .summary "$results/stub-$id.json")"; fi

    "$TUTOR" check "$id" --file "$sol" --json > "$results/solution-$id.json"
    st=$(jq -r .status "$results/solution-$id.json")
    if [ "$st" = pass ]; then ok "$id solution passes on the GPU"
    else not_ok "$id solution passes on the GPU" "status $st: $(jq -r .summary "$results/solution-$id.json")" \
             "$(jq -r '.messages[]' "$results/solution-$id.json")"; fi
    met=$(jq -r '.target.met' "$results/solution-$id.json")
    if [ "$met" = true ]; then ok "$id solution meets its target"
    else not_ok "$id solution meets its target" "$(jq -c .target "$results/solution-$id.json")"; fi
    echo "# $id $(jq -r .summary "$results/solution-$id.json")"
done
