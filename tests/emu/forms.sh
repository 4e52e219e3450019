#!/usr/bin/env bash
# tests/emu/forms.sh — writes tests/emu/forms.txt: every instruction form
# (opcode and suffixes) in the PTX nvcc writes for the labs, the solutions,
# the bank and the judges' own kernels, with how often each occurs.  The
# emulator implements these first; the GPU differential test draws its forms
# from the list.  Run after tests/emu.sh has filled build/emu/ptx.
set -eu
cd "$(dirname "$0")/../.."
NVCC=${NVCC:-$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
FLAGS=(-ptx -arch=sm_90 -lineinfo -std=c++17 -D_GLIBCXX_BITS_SPECFUN_H -O3 -Itutor)
for f in tutor/harness/hx_core.cu tutor/harness/hx_fam_*.cu; do
    "$NVCC" "${FLAGS[@]}" -o "$tmp/$(basename "$f" .cu).ptx" "$f"
done
for f in labs/*/kernel.cu solutions/*/kernel.cu tests/bank/*.cu; do
    key=$( { { "$NVCC" --version; echo "${FLAGS[*]}"; cat tutor/lab.h tutor/status.h; } |
             sha256sum | cut -c1-64; cat "$f"; } | sha256sum | cut -c1-24)
    [ -s "build/emu/ptx/$key.ptx" ] || { echo "no PTX for $f: run tests/emu.sh first" >&2; exit 1; }
    cp "build/emu/ptx/$key.ptx" "$tmp/$(echo "$f" | tr / _).ptx"
done
{
    echo "# Instruction forms (opcode + suffixes) in the PTX nvcc 13 writes (-ptx -arch=sm_90 -lineinfo) for"
    echo "# labs/*/kernel.cu, solutions/*/kernel.cu, tests/bank/*.cu and the judges' own kernels"
    echo "# (tutor/harness/hx_core.cu, hx_fam_*.cu), with how often each occurs; one per line, a tab between."
    echo "# Written by tests/emu/forms.sh."
    cat "$tmp"/*.ptx | grep -P '^\s+(@!?%p\d+\s+)?[a-z]' |
        awk '{ f = ($1 ~ /^@/) ? $2 : $1; sub(/;$/, "", f); sub(/,$/, "", f); print f }' |
        grep -v -e '^param' -e '^vprintf' | sort | uniq -c | sort -k2 | awk '{ print $2 "\t" $1 }'
} > tests/emu/forms.txt
echo "tests/emu/forms.txt: $(grep -vc '^#' tests/emu/forms.txt) forms"
