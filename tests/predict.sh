#!/usr/bin/env bash
# tests/predict.sh — the predicted time without a GPU (docs/predicted-time.md):
# every figure of data/predict.json says where it comes from; a CPU pass
# predicts the solution's time at the target's size and its ratio to CUB,
# worded as a prediction, in the verdict and its JSON; the model ranks lab
# 01's solution far behind lab 07's, as the H100 measured them; a slower
# GPU's figures (CUDATUTOR_PREDICT_GPU=H100) predict a memory-bound kernel
# slower.  No GPU is visible, so the same holds on a GPU machine.
. "$(dirname "$0")/lib.sh"
cd "$ROOT"
unset CUDATUTOR_NO_EMULATOR CUDATUTOR_PREDICT_GPU
export CUDA_VISIBLE_DEVICES=

check "every figure of every GPU in data/predict.json has a value and a source" \
    test "$(jq '[.gpus[].figures[] | select((.value | type) != "number" or (.source | length) < 10)] | length' \
            data/predict.json)" = 0
check "the default GPU is the H200 and each CUB family has its reference's bytes" \
    test "$(jq -r '.default_gpu + " " + ([.references | keys[]] | join(","))' data/predict.json)" = \
         "H200 argmax,reduce_float,reduce_int,scan,select"

if [ ! -x build/harness/judge_cpu_reduce_int ]; then
    skip "a CPU pass predicts its time" "skipped: no CPU judge (build without the emulator)"
    exit 0
fi
sol() { ls solutions/"$1"-*/kernel.cu; }
par_check "$TMP/01.json" 01 --file "$(sol 01)" --work-dir "$TMP/w1" --no-sanitize
par_check "$TMP/07.json" 07 --file "$(sol 07)" --work-dir "$TMP/w7" --no-sanitize
CUDATUTOR_PREDICT_GPU=H100 par_check "$TMP/07h100.json" 07 --file "$(sol 07)" --work-dir "$TMP/w7b" --no-sanitize
par_wait

j() { jq -r "$1" "$2"; }
line=$(j '[.messages[] | select(startswith("predicted on an H200: "))][0] // ""' "$TMP/01.json")
check "a CPU pass of lab 01 says its predicted time on an H200 and its ratio to CUB, as a prediction" \
    grep -qE '^predicted on an H200: [0-9.]+ (ms|µs) at 2\^28 \(0\.[0-9]{2}x CUB\), .*not a measurement\)$' <<<"$line"
check "its JSON holds the prediction: the H200, the target's case and size, the two sizes counted" \
    test "$(j '.predicted | "\(.gpu) \(.case) \(.n) \(.from_n | length) \(.ratio > 0 and .ratio < 1)"' "$TMP/01.json")" \
         = "NVIDIA H200 2^28 268435456 2 true"
check "the model ranks lab 01's solution at least three times slower than lab 07's (the H100 measured 6.2x)" \
    test "$(jq -n --slurpfile a "$TMP/01.json" --slurpfile b "$TMP/07.json" \
            '$a[0].predicted.seconds > 3 * $b[0].predicted.seconds')" = true
check "lab 07's solution is predicted DRAM-bound, near CUB (0.8x to 1.2x)" \
    test "$(j '.predicted | "\(.bound) \(.ratio > 0.8 and .ratio < 1.2)"' "$TMP/07.json")" = "DRAM true"
check "CUDATUTOR_PREDICT_GPU=H100 predicts the memory-bound lab 07 slower there (3.0 against 4.3 TB/s)" \
    test "$(jq -n --slurpfile a "$TMP/07h100.json" --slurpfile b "$TMP/07.json" \
            '($a[0].predicted.gpu | startswith("NVIDIA H100")) and $a[0].predicted.seconds > 1.2 * $b[0].predicted.seconds')" = true
check "no prediction is called a measurement: the verdict's messages name it predicted" \
    test "$(j '[.messages[] | select(test("predict"))] | length' "$TMP/07.json")" = 1
