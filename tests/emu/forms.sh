#!/usr/bin/env bash
# tests/emu/forms.sh — the instruction forms the PTX emulator must know: every
# kernel a check compiles (the pristine stubs data/stubs/*, never the
# student's labs/*; solutions/*, tests/bank/*) and the judge's
# own kernels (tutor/harness/*.cu; hx_cub.cu, CUB's, runs only on a GPU) to
# PTX with the check's flags, and each distinct opcode with all its suffixes
# ("shfl.sync.down.b32", "atom.global.add.f32"), with how many files use it.
# Writes build/emu/forms/forms.txt ("FORM<TAB>FILES", sorted) and the PTX
# under build/emu/forms/ptx/ (tests/emu.sh keeps its own cache in
# build/emu/ptx).  With --check, every form here must have a row in
# tests/unit/test_emu_ops's table, and every row's module must assemble
# with ptxas (the GPU must be able to run what the emulator is held to).
# Usage: bash tests/emu/forms.sh [--check]   (from the workbook root)
set -u
cd "$(dirname "$0")/../.."
NVCC=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
out=build/emu/forms
mkdir -p "$out/ptx"
jobs=$(nproc 2>/dev/null || echo 2)

# compile SRC: SRC's PTX as the check makes it (tutor/check/check_build.c:
# -arch, -std=c++17, no special functions, -O3, -lineinfo, -Itutor).
compile() {
    local src=$1 name
    name=$(echo "$src" | tr '/' '_')
    name=${name%.cu}.ptx
    [ "$out/ptx/$name" -nt "$src" ] && return 0
    "$NVCC" -ptx -arch=sm_90 -std=c++17 -D_GLIBCXX_BITS_SPECFUN_H -O3 -lineinfo -Itutor \
        -o "$out/ptx/$name" "$src" 2> "$out/ptx/$name.err" ||
        { echo "forms.sh: $src does not compile to PTX:" >&2; head -5 "$out/ptx/$name.err" >&2; return 1; }
    rm -f "$out/ptx/$name.err"
}
export -f compile
export NVCC out
srcs=$(ls data/stubs/*.cu solutions/*/kernel.cu tests/bank/*.cu tutor/harness/*.cu | grep -v '/hx_cub\.cu$')
echo "$srcs" | xargs -P "$jobs" -I{} bash -c 'compile {}' || exit 1

# Comments go first (an inline asm's /* ... */ too).  An instruction starts
# where the last one ended (';'), after a label ("$L__BB0_3:", and a call
# prototype's "prototype_0 :"), a brace or a directive, and runs to its own
# ';' (a call spreads its operands over several lines).  The opcode is its first word,
# after an optional predicate guard; vector suffixes (.v2/.v4) are kept.
for f in "$out"/ptx/*.ptx; do
    perl -0777 -pe 's{/\*.*?\*/}{}gs; s{//[^\n]*}{}g' "$f" |
        awk '{ sub(/^[ \t]+/, ""); sub(/[ \t]+$/, "") }
             $0 == "" { next }
             open { if ($0 ~ /;$/) open = 0; next }
             /^(\.|\}|\{|\(|\)|;|[A-Za-z_$][A-Za-z0-9_$]*[ \t]*:)/ { next }
             { open = ($0 !~ /;$/); if ($1 ~ /^@/) $1 = ""; sub(/^[ \t]+/, "");
               split($0, w, /[ \t;]/); print w[1] }' | sort -u
done | sort | uniq -c | awk '{ printf "%s\t%d\n", $2, $1 }' | sort > "$out/forms.txt.tmp"
mv "$out/forms.txt.tmp" "$out/forms.txt"
echo "forms.sh: $(wc -l < "$out/forms.txt") forms in $(ls "$out"/ptx/*.ptx | wc -l) files -> $out/forms.txt"

if [ "${1:-}" = --check ]; then
    bin=build/tests/test_emu_ops
    [ -x "$bin" ] || { echo "forms.sh: $bin not built (make $bin)" >&2; exit 1; }
    missing=$(cut -f1 "$out/forms.txt" | grep -vxF -f <("$bin" --list) || true)
    if [ -n "$missing" ]; then
        echo "forms.sh: forms in the corpus with no row in tests/unit/test_emu_ops.c:"
        echo "$missing" | sed 's/^/  /'
        exit 1
    fi
    echo "forms.sh: every form has a row"
    rows=$out/rows
    rm -rf "$rows"
    "$bin" --write "$rows" > /dev/null || exit 1
    PTXAS=$(dirname "$NVCC")/ptxas
    bad=$(ls "$rows"/*.ptx | xargs -P "$jobs" -I{} sh -c '"$0" -arch=sm_90 -o /dev/null "$1" 2>/dev/null || echo "$1"' "$PTXAS" {})
    if [ -n "$bad" ]; then
        echo "forms.sh: rows ptxas refuses:"
        for f in $bad; do echo "  $(head -n1 "$f" | sed 's|^// ||; s|: generated.*||')"; "$PTXAS" -arch=sm_90 -o /dev/null "$f" 2>&1 | head -2 | sed 's/^/    /'; done
        exit 1
    fi
    echo "forms.sh: all $(ls "$rows"/*.ptx | wc -l) rows assemble with ptxas -arch=sm_90"
fi
