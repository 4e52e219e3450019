#!/usr/bin/env bash
# grade.sh — grades a class of workbook submissions against the instructor's
# pristine workbook (the folder this script is in, or --workbook).
#
# A submission is a workbook folder, or a .tar.gz/.tgz/.tar/.zip of one.
# Only each lab's kernel.cu is taken from it, into a fresh copy of the
# pristine workbook; kernels are compiled in parallel and run several at a
# time per GPU (their timed sections one at a time, through a lock file),
# each with a fresh secret seed, inside a bubblewrap sandbox where one works; data/rubric.json turns the verdicts into points; the reports go
# to the output folder.  docs/instructor-guide.md is the manual.
#
#   grade.sh [options] SUBMISSION...      grade (finished students are skipped)
#   grade.sh --merge --out DIR SHARD...   combine the output folders of shards
#   grade.sh --rescore --out DIR          apply the rubric again, no GPU needed
#   grade.sh --selftest [options]         solutions and the bank of bad kernels
#
# Exit codes (also in --help):
#   0  every lab of every submission graded
#   1  --selftest: some submission was judged wrong
#   2  usage: a bad option, roster, rubric or submission path; the output
#      folder in use by another grade.sh
#   3  some labs were not graded because there is no CUDA device (no_gpu);
#      grade again with --force on a GPU machine
#   4  internal error: the workbook is not built or the grader failed on
#      some lab (internal_error); the other students were still graded
#   5  --sandbox bwrap was asked for but bubblewrap does not work here
#   130  interrupted; run the same command again to resume
set -euo pipefail
shopt -s nullglob

readonly EXIT_OK=0 EXIT_WRONG=1 EXIT_USAGE=2 EXIT_NO_GPU=3 EXIT_INTERNAL=4 EXIT_SANDBOX=5
readonly NOBODY=65534

# ---- options -----------------------------------------------------------------

MODE=grade
OUT=""
JOBS=""
LABS_OPT=""
BANK_GLOB="*"           # --selftest: the bank kernels to judge (a glob of names)
ROSTER=""
SEED=""
SHARD=""
SHARD_I=0
SHARD_N=1
FORCE=0
QUICK=1
SANITIZE=1
TIMEOUT_SCALE=1
SANDBOX_WANT=auto
RUBRIC=""
WORKBOOK=""
KEEP_WORK=0
GPUS_OPT=""
CHECK_RUNS=""
TIME_BUDGET=100
CALIBRATE=1
declare -A TARGET_MIN=()        # "GPU/LAB" -> the threshold calibrate lowered it to
QUIET=0
HIDE_EXTRA=()
SUBMISSIONS=()
MAX_FILE_KB=256
MAX_UNPACKED_MB=64
MAX_MEMBERS=10000
MAX_PROCS=1024

# usage prints the help text.
usage() {
    cat <<'EOF'
usage: grade.sh [options] SUBMISSION...
       grade.sh --merge --out DIR SHARD_OUT...
       grade.sh --rescore [--out DIR] [--rubric FILE]
       grade.sh --selftest [--out DIR] [--labs LIST] [--bank GLOB] [options]

A SUBMISSION is a workbook folder or a .tar.gz, .tgz, .tar or .zip of one;
the student id is its name without the extension, unless --roster says
otherwise.  Only labs/NN-slug/kernel.cu (or NN-slug/kernel.cu) is taken.

Options:
  -o, --out DIR          output folder (default: ./grade-out)
  -j, --jobs N           parallel compiles (default: the number of CPUs)
      --labs LIST        grade only these labs, e.g. 01,02,05 (default: every
                         core lab; the bonus labs 11-15 only when named)
      --bank GLOB        --selftest: judge only the bank kernels whose names
                         match GLOB, e.g. 'raw_*' (default: all)
      --roster CSV       student ids: a CSV with the columns submission and
                         student_id (a header row; other columns ignored)
      --seed S           the same seed for every run, to reproduce a grading
                         (default: a fresh secret seed per run)
      --shard I/N        grade submissions I, I+N, I+2N, ... (I from 0) of
                         the sorted list; combine the outputs with --merge
      --force            grade again students already in the output folder
      --full-timing      time every performance case, not only the target's
      --no-sanitize      skip compute-sanitizer (races then go unnoticed)
      --timeout-scale X  multiply the catalog's time limits by X
      --sandbox MODE     auto (default): bubblewrap if it works here, else a
                         loud warning; bwrap: bubblewrap or exit 5; none
      --hide PATH        also hide PATH from the sandbox (repeatable)
      --gpus LIST        GPUs to use, e.g. 0,1 (default: every visible one)
      --check-runs N     runs at once on each GPU (default: half the CPUs, at
                         most 8); their trials and race checks share the GPU,
                         their timed sections take turns with it alone
      --time-budget MS   GPU time per timed kernel and case (default 100)
      --no-calibrate     judge targets by the catalog's thresholds as they
                         are (default: run the reference solutions on each
                         GPU first, and lower a lab's threshold where its
                         solution measures more than 5% under the catalog's
                         figure; OUT/calibration.json)
      --rubric FILE      the rubric (default: the workbook's data/rubric.json)
      --workbook DIR     the pristine workbook (default: this script's folder)
      --keep-work        keep the per-student build folders
      --max-file-kb N    largest kernel.cu taken (default 256)
      --max-unpacked-mb N  largest total size an archive may unpack to (64)
      --max-members N    most members an archive may have (10000)
      --max-procs N      processes a sandboxed run may add (1024)
  -q, --quiet            no progress line, no table
  -h, --help             this text

Exit codes: 0 all graded; 1 --selftest judged something wrong; 2 usage;
3 labs not graded for want of a GPU; 4 internal error; 5 no working sandbox
with --sandbox bwrap; 130 interrupted (run again to resume).
EOF
}

# die_usage MESSAGE: a usage error, exit 2.
die_usage() {
    echo "grade.sh: $*" >&2
    echo "Run grade.sh --help for the options." >&2
    exit "$EXIT_USAGE"
}

# die_internal MESSAGE: the grader itself cannot go on, exit 4.
die_internal() {
    echo "grade.sh: $*" >&2
    exit "$EXIT_INTERNAL"
}

# say MESSAGE: a note on stderr unless --quiet.
say() {
    [ "$QUIET" = 1 ] || echo "grade.sh: $*" >&2
}

# warn MESSAGE: always shown.
warn() {
    echo "grade.sh: warning: $*" >&2
}

# need_value OPTION VALUE: the option's value must be there.
need_value() {
    [ -n "${2:-}" ] || die_usage "$1 needs a value"
}

# positive_int NAME VALUE: a whole number above 0.
positive_int() {
    if ! [[ "$2" =~ ^[0-9]+$ ]] || [ "$2" -eq 0 ]; then
        die_usage "$1 takes a whole number above 0, not '$2'"
    fi
}

# parse_args "$@": fills the option variables and SUBMISSIONS.
parse_args() {
    while [ $# -gt 0 ]; do
        case "$1" in
            -h|--help) usage; exit "$EXIT_OK" ;;
            -o|--out) need_value "$1" "${2:-}"; OUT=$2; shift ;;
            -j|--jobs) need_value "$1" "${2:-}"; positive_int "$1" "$2"; JOBS=$2; shift ;;
            -j[0-9]*) JOBS=${1#-j}; positive_int -j "$JOBS" ;;
            --labs) need_value "$1" "${2:-}"; LABS_OPT=$2; shift ;;
            --bank) need_value "$1" "${2:-}"; BANK_GLOB=$2; shift ;;
            --roster) need_value "$1" "${2:-}"; ROSTER=$2; shift ;;
            --seed) need_value "$1" "${2:-}"
                    [[ "$2" =~ ^[0-9]{1,15}$ ]] || die_usage "--seed takes a whole number below 2^48"
                    SEED=$2; shift ;;
            --shard) need_value "$1" "${2:-}"; SHARD=$2; shift ;;
            --force) FORCE=1 ;;
            --full-timing) QUICK=0 ;;
            --quick) QUICK=1 ;;
            --no-sanitize) SANITIZE=0 ;;
            --timeout-scale) need_value "$1" "${2:-}"
                    if ! [[ "$2" =~ ^[0-9]*\.?[0-9]+$ ]] || ! awk -v x="$2" 'BEGIN { exit !(x > 0) }'; then
                        die_usage "--timeout-scale takes a positive number"
                    fi
                    TIMEOUT_SCALE=$2; shift ;;
            --sandbox) need_value "$1" "${2:-}"
                    case "$2" in auto|bwrap|none) SANDBOX_WANT=$2 ;; *) die_usage "--sandbox is auto, bwrap or none" ;; esac
                    shift ;;
            --hide) need_value "$1" "${2:-}"; HIDE_EXTRA+=("$2"); shift ;;
            --gpus) need_value "$1" "${2:-}"; GPUS_OPT=$2; shift ;;
            --check-runs) need_value "$1" "${2:-}"; positive_int "$1" "$2"; CHECK_RUNS=$2; shift ;;
            --time-budget) need_value "$1" "${2:-}"; positive_int "$1" "$2"; TIME_BUDGET=$2; shift ;;
            --no-calibrate) CALIBRATE=0 ;;
            --rubric) need_value "$1" "${2:-}"; RUBRIC=$2; shift ;;
            --workbook) need_value "$1" "${2:-}"; WORKBOOK=$2; shift ;;
            --keep-work) KEEP_WORK=1 ;;
            --max-file-kb) need_value "$1" "${2:-}"; positive_int "$1" "$2"; MAX_FILE_KB=$2; shift ;;
            --max-unpacked-mb) need_value "$1" "${2:-}"; positive_int "$1" "$2"; MAX_UNPACKED_MB=$2; shift ;;
            --max-members) need_value "$1" "${2:-}"; positive_int "$1" "$2"; MAX_MEMBERS=$2; shift ;;
            --max-procs) need_value "$1" "${2:-}"; positive_int "$1" "$2"; MAX_PROCS=$2; shift ;;
            -q|--quiet) QUIET=1 ;;
            --merge) MODE=merge ;;
            --rescore) MODE=rescore ;;
            --selftest) MODE=selftest ;;
            --) shift; SUBMISSIONS+=("$@"); break ;;
            -*) die_usage "unknown option $1" ;;
            *) SUBMISSIONS+=("$1") ;;
        esac
        shift
    done
    if [ -n "$SHARD" ]; then
        [[ "$SHARD" =~ ^([0-9]+)/([0-9]+)$ ]] || die_usage "--shard takes I/N, e.g. 0/4"
        SHARD_I=$((10#${BASH_REMATCH[1]}))
        SHARD_N=$((10#${BASH_REMATCH[2]}))
        [ "$SHARD_N" -ge 1 ] || die_usage "--shard I/N needs N >= 1"
        [ "$SHARD_I" -lt "$SHARD_N" ] || die_usage "--shard I/N needs I < N (I counts from 0)"
    fi
    case "$MODE" in
        grade) [ ${#SUBMISSIONS[@]} -gt 0 ] || die_usage "no submissions given" ;;
        merge) [ ${#SUBMISSIONS[@]} -gt 0 ] || die_usage "--merge needs the shards' output folders" ;;
        rescore|selftest) [ ${#SUBMISSIONS[@]} -eq 0 ] || die_usage "--$MODE takes no submissions" ;;
    esac
    [ "$BANK_GLOB" = "*" ] || [ "$MODE" = selftest ] || die_usage "--bank goes with --selftest"
    [ -n "$JOBS" ] || JOBS=$(nproc 2>/dev/null || echo 2)
}

# ---- the workbook, the catalog and the rubric -------------------------------

# setup_workbook: PRISTINE, TUTOR and HARNESS_DIR, or exit 4.
setup_workbook() {
    local here
    here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd -P)
    PRISTINE=$(cd "${WORKBOOK:-$here}" 2>/dev/null && pwd -P) || die_usage "no workbook at ${WORKBOOK:-$here}"
    [ -f "$PRISTINE/data/labs.json" ] || die_usage "$PRISTINE is not a workbook (no data/labs.json)"
    TUTOR="$PRISTINE/cudatutor"
    [ -x "$TUTOR" ] || die_internal "$TUTOR is not built: run make in $PRISTINE"
    HARNESS_DIR=${CUDATUTOR_HARNESS_DIR:-$PRISTINE/build/harness}
    HARNESS_DIR=$(cd "$HARNESS_DIR" 2>/dev/null && pwd -P) ||
        die_internal "no harness objects at ${CUDATUTOR_HARNESS_DIR:-$PRISTINE/build/harness}: run make in $PRISTINE"
    [ -x "$HARNESS_DIR/judge_reduce_int" ] || die_internal "$HARNESS_DIR has no judges (judge_reduce_int): run make in $PRISTINE"
    # The tutor runs the judges from here for every submission's copy of
    # the workbook, inside the sandbox and out (its --run-only half).
    export CUDATUTOR_HARNESS_DIR=$HARNESS_DIR
    RUBRIC=${RUBRIC:-$PRISTINE/data/rubric.json}
    [ -f "$RUBRIC" ] || die_usage "no rubric at $RUBRIC"
    RUBRIC=$(realpath -- "$RUBRIC")
    local tool
    for tool in jq tar gzip unzip flock timeout realpath; do
        command -v "$tool" >/dev/null || die_internal "$tool is missing (apt-get install jq tar gzip unzip util-linux coreutils)"
    done
}

# load_catalog: the catalog's labs (from the tutor) and the selected LABS.
load_catalog() {
    "$TUTOR" --root "$PRISTINE" list --json > "$STATE/catalog.json" 2> "$STATE/catalog.err" ||
        die_internal "the tutor cannot read the catalog: $(cat "$STATE/catalog.err")"
    jq --slurpfile cat "$PRISTINE/data/labs.json" \
        '[.[] | . + {timeout_s: ($cat[0].families[.family].timeout_s // 60)}]' \
        "$STATE/catalog.json" > "$STATE/catalog.tmp" && mv "$STATE/catalog.tmp" "$STATE/catalog.json"
    mapfile -t ALL_LABS < <(jq -r '.[].id' "$STATE/catalog.json")
    local lid field value
    while IFS=$'\t' read -r lid field value; do
        LAB_FIELDS["$lid/$field"]=$value
    done < <(jq -r '.[] | .id as $id | (["dir", .dir], ["timeout_s", (.timeout_s | tostring)], ["title", .title])
                    | [$id] + . | @tsv' "$STATE/catalog.json")
    LABS=()
    if [ -z "$LABS_OPT" ]; then
        # The bonus labs (11-15) are graded only when --labs names them: a
        # class that was set the ten core labs is not marked down for them.
        mapfile -t LABS < <(jq -r '.[] | select(.bonus != true) | .id' "$STATE/catalog.json")
        return
    fi
    local want id found
    for want in ${LABS_OPT//,/ }; do
        [[ "$want" =~ ^[0-9]$ ]] && want="0$want"
        found=0
        for id in "${ALL_LABS[@]}"; do [ "$id" = "$want" ] && found=1; done
        [ "$found" = 1 ] || die_usage "--labs: no lab $want (the catalog has ${ALL_LABS[*]})"
        LABS+=("$want")
    done
}

# lab_field ID FIELD: one field of a lab in the catalog (dir, timeout_s, title).
declare -A LAB_FIELDS=()
lab_field() {
    printf '%s\n' "${LAB_FIELDS[$1/$2]}"
}

# load_rubric: checks the rubric's shape; exit 2 with the problem.
load_rubric() {
    local problem
    problem=$(jq -r '
        def num: type == "number" and . >= 0;
        if .schema != 1 then "schema must be 1"
        elif (.labs | type) != "object" then "labs must be an object of lab ids"
        elif ([.labs[] | (.correctness | num) and (.performance | num)] | all | not)
            then "every lab needs correctness and performance points (numbers >= 0)"
        elif (.default != null and ((.default.correctness | num) and (.default.performance | num) | not))
            then "default needs correctness and performance points"
        elif ((.performance.partial_from // 0.5) | type != "number" or . < 0 or . > 1)
            then "performance.partial_from must be between 0 and 1"
        elif ((.fail_credit // 0) | type != "number" or . < 0 or . > 1) then "fail_credit must be between 0 and 1"
        elif ((.rejected_penalty // 0) | num | not) then "rejected_penalty must be a number >= 0"
        elif ((.not_graded // []) | type != "array") then "not_graded must be a list of statuses"
        else empty end' "$RUBRIC" 2>&1) || die_usage "$RUBRIC is not valid JSON: $problem"
    [ -z "$problem" ] || die_usage "$RUBRIC: $problem"
    local id
    for id in "${LABS[@]}"; do
        jq -e --arg id "$id" '.labs[$id] != null or .default != null' "$RUBRIC" >/dev/null ||
            die_usage "$RUBRIC has no points for lab $id (and no default)"
    done
    RUBRIC_SHA=$(sha256sum "$RUBRIC" | cut -c1-16)
}

# ---- the output folder -------------------------------------------------------

# setup_out: OUT, STATE, WORK and STUDENTS; one grade.sh at a time per folder.
setup_out() {
    OUT=${OUT:-grade-out}
    mkdir -p "$OUT" || die_usage "cannot create $OUT"
    OUT=$(cd "$OUT" && pwd -P)
    case "$PRISTINE/" in "$OUT/"*) die_usage "--out $OUT contains the workbook: pick a folder of its own" ;; esac
    [ "$OUT" != / ] || die_usage "--out / is not an output folder"
    STATE="$OUT/.grader"
    WORK="$OUT/work"
    STUDENTS="$OUT/students"
    mkdir -p "$STATE" "$WORK" "$STUDENTS"
    exec 8> "$STATE/lock"
    flock -n 8 || die_usage "$OUT is in use by another grade.sh (or give each shard its own --out)"
    : > "$STATE/events"
}

# ---- submissions ------------------------------------------------------------

# derive_id NAME: a student id from a folder or archive name, safe as a path.
derive_id() {
    local name=$1 id
    shopt -s nocasematch
    case "$name" in
        *.tar.gz) name=${name:0:${#name}-7} ;;
        *.tgz|*.tar|*.zip) name=${name:0:${#name}-4} ;;
    esac
    shopt -u nocasematch
    id=$(printf '%s' "$name" | tr -c 'A-Za-z0-9._@+-' '_')
    id=${id##[.-]}
    while [[ "$id" == [.-]* ]]; do id=${id:1}; done
    printf '%s' "${id:-student}" | cut -c1-100
}

# csv_to_tsv: a CSV (quoted fields, "" for a quote, CRLF, a BOM) as TSV.
csv_to_tsv() {
    awk '
        NR == 1 { sub(/^\357\273\277/, "") }
        {
            sub(/\r$/, "")
            out = ""; field = ""; inq = 0; n = length($0)
            for (i = 1; i <= n; i++) {
                c = substr($0, i, 1)
                if (inq) {
                    if (c == "\"") { if (substr($0, i + 1, 1) == "\"") { field = field "\""; i++ } else inq = 0 }
                    else field = field c
                } else if (c == "\"") inq = 1
                else if (c == ",") { out = out field "\t"; field = "" }
                else if (c == "\t") field = field " "
                else field = field c
            }
            print out field
        }' "$1"
}

# load_roster: ROSTER_MAP[submission name or stem] = student id.
declare -A ROSTER_MAP=()
load_roster() {
    [ -n "$ROSTER" ] || return 0
    [ -r "$ROSTER" ] || die_usage "cannot read the roster $ROSTER"
    local header sub_col=-1 id_col=-1 i line
    local -a cols f
    header=$(csv_to_tsv "$ROSTER" | head -n1)
    IFS=$'\t' read -r -a cols <<< "$header"
    for i in "${!cols[@]}"; do
        case "$(echo "${cols[$i]}" | tr '[:upper:]' '[:lower:]' | tr -d ' ')" in
            submission|file|folder|archive) sub_col=$i ;;
            student_id|studentid|student|id|sid) [ "$id_col" -ge 0 ] || id_col=$i ;;
        esac
    done
    if [ "$sub_col" -lt 0 ] || [ "$id_col" -lt 0 ]; then
        die_usage "$ROSTER needs a header row with the columns submission and student_id"
    fi
    while IFS= read -r line; do
        IFS=$'\t' read -r -a f <<< "$line"
        [ -n "${f[$sub_col]:-}" ] || continue
        [ -n "${f[$id_col]:-}" ] || continue
        ROSTER_MAP["${f[$sub_col]}"]=${f[$id_col]}
    done < <(csv_to_tsv "$ROSTER" | tail -n +2)
}

# collect_submissions: SUB_IDS, SUB_NAMES, SUB_PATHS sorted by id, this
# shard's share only; exit 2 on a missing path or a duplicate id.
collect_submissions() {
    local p name abs id stem k=0
    local -a rows=()
    load_roster
    for p in "${SUBMISSIONS[@]}"; do
        [ -e "$p" ] || [ -L "$p" ] || die_usage "no such submission: $p"
        case "$p" in *$'\t'*|*$'\n'*) die_usage "a submission path with a tab or newline: $p" ;; esac
        name=$(basename -- "${p%/}")
        abs=$(realpath -s -- "$p")
        id=$(derive_id "$name")
        stem=$(derive_id "$name")
        if [ -n "$ROSTER" ]; then
            if [ -n "${ROSTER_MAP[$name]:-}" ]; then id=$(derive_id "${ROSTER_MAP[$name]}")
            elif [ -n "${ROSTER_MAP[$stem]:-}" ]; then id=$(derive_id "${ROSTER_MAP[$stem]}")
            else warn "$name is not in the roster: graded as $id"
            fi
        fi
        rows+=("$id"$'\t'"$name"$'\t'"$abs")
    done
    local dups
    dups=$(printf '%s\n' "${rows[@]}" | cut -f1 | LC_ALL=C sort | uniq -d | head -n5 | tr '\n' ' ')
    [ -z "$dups" ] || die_usage "two submissions have the same student id: $dups(rename them or fix the roster)"
    SUB_IDS=() SUB_NAMES=() SUB_PATHS=()
    while IFS=$'\t' read -r id name abs; do
        if [ $((k % SHARD_N)) -eq "$SHARD_I" ]; then
            SUB_IDS+=("$id") SUB_NAMES+=("$name") SUB_PATHS+=("$abs")
        fi
        k=$((k + 1))
    done < <(printf '%s\n' "${rows[@]}" | LC_ALL=C sort -t$'\t' -k1,1)
}

# ---- intake: the files a student may change, and nothing else ---------------

# is_escaping NAME: an absolute member name, or one with a .. component.
is_escaping() {
    local n=${1//\\//}
    [[ "$n" == /* ]] && return 0
    [[ "/$n/" == */../* ]] && return 0
    return 1
}

# list_tar TARFILE: "type<TAB>size<TAB>name" per member (f, d, l, h, o).
list_tar() {
    local perms size name
    tar -tvf "$1" --numeric-owner --full-time --quoting-style=escape 2>/dev/null |
    while read -r perms _ size _ _ name; do
        case "$perms" in
            -*) printf 'f\t%s\t%s\n' "$size" "$name" ;;
            d*) printf 'd\t0\t%s\n' "$name" ;;
            l*) printf 'l\t0\t%s\n' "${name% -> *}" ;;
            h*) printf 'h\t0\t%s\n' "${name% link to *}" ;;
            *) printf 'o\t0\t%s\n' "$name" ;;
        esac
    done
    [ "${PIPESTATUS[0]}" = 0 ]
}

# list_zip ZIPFILE: the same listing for a zip; fails when the names cannot
# be told apart from the listing (a name with a newline).
list_zip() {
    local zip=$1 count names perms size rest i=0
    count=$(unzip -Z "$zip" 2>/dev/null </dev/null | sed -n 's/.*number of entries: *\([0-9][0-9]*\).*/\1/p' | head -n1)
    [ -n "$count" ] || return 1
    mapfile -t names < <(unzip -Z1 "$zip" 2>/dev/null </dev/null)
    [ "${#names[@]}" -eq "$count" ] || [ "$count" -eq 0 ] || return 1
    while read -r perms _ _ size _ _ _ _ rest; do
        [[ "$size" =~ ^[0-9]+$ ]] || continue
        [ -n "$rest" ] || continue
        [ "$i" -lt "${#names[@]}" ] || return 1
        case "$perms" in
            l*) printf 'l\t0\t%s\n' "${names[$i]}" ;;
            d*) printf 'd\t0\t%s\n' "${names[$i]}" ;;
            -*|\?*) if [[ "${names[$i]}" == */ ]]; then printf 'd\t0\t%s\n' "${names[$i]}"
                    else printf 'f\t%s\t%s\n' "$size" "${names[$i]}"; fi ;;
            *) printf 'o\t0\t%s\n' "${names[$i]}" ;;
        esac
        i=$((i + 1))
    done < <(unzip -Z "$zip" 2>/dev/null </dev/null | tail -n +3)
    [ "$i" -eq "$count" ]
}

# check_listing LIST: why the whole archive is refused, or nothing.
check_listing() {
    local list=$1 n total name
    n=$(wc -l < "$list")
    [ "$n" -le "$MAX_MEMBERS" ] || { echo "archive bomb: $n members (the limit is $MAX_MEMBERS)"; return; }
    total=$(awk -F'\t' '{ s += $2 } END { printf "%.0f", s }' "$list")
    [ "$total" -le $((MAX_UNPACKED_MB << 20)) ] ||
        { echo "archive bomb: it unpacks to $total bytes (the limit is $MAX_UNPACKED_MB MiB)"; return; }
    while IFS=$'\t' read -r _ _ name; do
        if is_escaping "$name"; then
            echo "a member escapes the folder: $name"
            return
        fi
    done < "$list"
}

# unpack_gzip ARCHIVE DEST: gunzips at most the unpacked limit; prints why
# not on failure.
unpack_gzip() {
    local src=$1 dest=$2 rc limit=$((MAX_UNPACKED_MB << 20))
    { timeout 120 gzip -dc < "$src" 2>/dev/null; echo $? > "$dest.rc"; } | head -c $((limit + 1)) > "$dest" || true
    rc=$(cat "$dest.rc" 2>/dev/null || echo 1)
    if [ "$(stat -c %s "$dest")" -gt "$limit" ]; then
        echo "archive bomb: it unpacks to more than $MAX_UNPACKED_MB MiB"
    elif [ "$rc" != 0 ]; then
        echo "not a gzip archive (or a damaged one)"
    fi
}

# pick_member LIST BASE: the member that holds lab BASE's kernel, as
# "state<TAB>name<TAB>size<TAB>why" (state ok, missing or refused).  Looked
# for, in this order, as labs/BASE/kernel.cu, BASE/kernel.cu, then the same
# one folder down (an archive of the workbook folder).
pick_member() {
    local list=$1 base=$2 level type size name count
    IFS=$'\t' read -r level type size name < <(awk -F'\t' -v base="$base" '
        function ends(s, t) { return length(s) >= length(t) && substr(s, length(s) - length(t) + 1) == t }
        {
            n = $3; sub(/^\.\//, "", n)
            if (n ~ /^__MACOSX\//) next
            a = "labs/" base "/kernel.cu"; b = base "/kernel.cu"; lvl = 0
            if (n == a) lvl = 1
            else if (n == b) lvl = 2
            else if (ends(n, "/" a)) { top = substr(n, 1, length(n) - length(a) - 1); if (top !~ /[\/*?\[\]\\]/) lvl = 3 }
            else if (ends(n, "/" b)) { top = substr(n, 1, length(n) - length(b) - 1); if (top !~ /[\/*?\[\]\\]/) lvl = 4 }
            if (lvl) printf "%d\t%s\t%s\t%s\n", lvl, $1, $2, $3
        }' "$list" | LC_ALL=C sort -t$'\t' -k1,1n -k4,4 | head -n1)
    if [ -z "${level:-}" ]; then
        printf 'missing\t-\t0\tno labs/%s/kernel.cu in the submission\n' "$base"
        return
    fi
    count=$(awk -F'\t' -v n="${name#./}" '{ m = $3; sub(/^\.\//, "", m) } m == n' "$list" | wc -l)
    if [ "$count" -gt 1 ]; then printf 'refused\t%s\t0\t%s appears %s times in the archive\n' "$name" "$name" "$count"
    elif [ "$type" = l ] || [ "$type" = h ]; then printf 'refused\t%s\t0\t%s is a link\n' "$name" "$name"
    elif [ "$type" != f ]; then printf 'refused\t%s\t0\t%s is not a regular file\n' "$name" "$name"
    elif [ "$size" -gt $((MAX_FILE_KB << 10)) ]; then
        printf 'refused\t%s\t%s\t%s is %s bytes (the limit is %s KiB)\n' "$name" "$size" "$name" "$size" "$MAX_FILE_KB"
    else printf 'ok\t%s\t%s\t\n' "$name" "$size"
    fi
}

# pick_file FOLDER BASE: the same for a folder; every component of the path
# is checked for symbolic links.
pick_file() {
    local src=$1 base=$2 rel part sofar size top
    local -a cands=("labs/$base/kernel.cu" "$base/kernel.cu") parts
    for top in "$src"/*/; do
        top=$(basename -- "$top")
        [ "$top" = __MACOSX ] || [[ "$top" == *[][*?\\]* ]] || cands+=("$top/labs/$base/kernel.cu" "$top/$base/kernel.cu")
    done
    for rel in "${cands[@]}"; do
        [ -e "$src/$rel" ] || [ -L "$src/$rel" ] || continue
        sofar=$src
        IFS=/ read -r -a parts <<< "$rel"
        for part in "${parts[@]}"; do
            sofar="$sofar/$part"
            if [ -L "$sofar" ]; then
                printf 'refused\t%s\t0\t%s is a symbolic link\n' "$rel" "${sofar#"$src"/}"
                return
            fi
        done
        if [ ! -f "$sofar" ]; then
            printf 'refused\t%s\t0\t%s is not a regular file\n' "$rel" "$rel"
            return
        fi
        size=$(stat -c %s -- "$sofar")
        if [ "$size" -gt $((MAX_FILE_KB << 10)) ]; then
            printf 'refused\t%s\t%s\t%s is %s bytes (the limit is %s KiB)\n' "$rel" "$size" "$rel" "$size" "$MAX_FILE_KB"
        else
            printf 'ok\t%s\t%s\t\n' "$rel" "$size"
        fi
        return
    done
    printf 'missing\t-\t0\tno labs/%s/kernel.cu in the submission\n' "$base"
}

# intake_submission ID NAME PATH: WORK/ID/wb, a fresh copy of the pristine
# workbook with the student's kernels in it, and WORK/ID/intake.json saying
# what was taken, refused or missing.
intake_submission() {
    local id=$1 name=$2 src=$3 dir="$WORK/$1" kind="" refused="" lab ldir base state member size why
    rm -rf "$dir"
    mkdir -p "$dir/wb/data" "$dir/wb/tutor" "$dir/x"
    cp "$PRISTINE/data/labs.json" "$dir/wb/data/"
    cp "$PRISTINE/tutor/lab.h" "$dir/wb/tutor/"
    : > "$dir/x/labs.tsv"

    if [ -L "$src" ]; then
        refused="the submission is a symbolic link"
    elif [ -d "$src" ]; then
        kind=folder
    else
        shopt -s nocasematch
        case "$name" in
            *.tar.gz|*.tgz) kind=tar.gz ;;
            *.tar) kind=tar ;;
            *.zip) kind=zip ;;
            *) refused="not a folder or a .tar.gz, .tgz, .tar or .zip archive" ;;
        esac
        shopt -u nocasematch
    fi
    case "$kind" in
        tar.gz) refused=$(unpack_gzip "$src" "$dir/x/a.tar")
                [ -n "$refused" ] || list_tar "$dir/x/a.tar" > "$dir/x/list" || refused="not a tar archive (or a damaged one)" ;;
        tar) if [ "$(stat -c %s -- "$src")" -gt $((MAX_UNPACKED_MB << 20)) ]; then
                 refused="archive bomb: more than $MAX_UNPACKED_MB MiB"
             else
                 cp -- "$src" "$dir/x/a.tar"
                 list_tar "$dir/x/a.tar" > "$dir/x/list" || refused="not a tar archive (or a damaged one)"
             fi ;;
        zip) list_zip "$src" > "$dir/x/list" || refused="not a zip archive (or a damaged one, or a member name with a newline)" ;;
    esac
    if [ -z "$refused" ] && [ "$kind" != folder ] && [ -n "$kind" ]; then
        refused=$(check_listing "$dir/x/list")
    fi

    for lab in "${LABS[@]}"; do
        ldir=$(lab_field "$lab" dir)
        base=$(basename -- "$ldir")
        if [ -n "$refused" ]; then
            printf '%s\trefused\t\t0\t%s\n' "$lab" "$refused" >> "$dir/x/labs.tsv"
            continue
        fi
        if [ "$kind" = folder ]; then
            IFS=$'\t' read -r state member size why <<< "$(pick_file "$src" "$base")"
        else
            IFS=$'\t' read -r state member size why <<< "$(pick_member "$dir/x/list" "$base")"
        fi
        if [ "$state" = ok ]; then
            mkdir -p "$dir/wb/$ldir"
            case "$kind" in
                folder) head -c $(((MAX_FILE_KB << 10) + 1)) -- "$src/$member" > "$dir/wb/$ldir/kernel.cu" ;;
                zip) timeout 60 unzip -p -- "$src" "$member" </dev/null 2>/dev/null |
                         head -c $(((MAX_FILE_KB << 10) + 1)) > "$dir/wb/$ldir/kernel.cu" || true ;;
                *) timeout 60 tar -xOf "$dir/x/a.tar" -- "$member" 2>/dev/null |
                       head -c $(((MAX_FILE_KB << 10) + 1)) > "$dir/wb/$ldir/kernel.cu" || true ;;
            esac
            size=$(stat -c %s "$dir/wb/$ldir/kernel.cu")
            if [ "$size" -gt $((MAX_FILE_KB << 10)) ]; then
                state=refused why="$member is more than $MAX_FILE_KB KiB"
            elif cmp -s "$dir/wb/$ldir/kernel.cu" "$PRISTINE/data/stubs/$base.cu"; then
                # The stub as handed out (data/stubs/), never the grading
                # checkout's labs/, where the grader may have tried the tutor.
                state=unchanged why="kernel.cu is the stub as handed out"
            fi
            [ "$state" = ok ] || rm -f "$dir/wb/$ldir/kernel.cu"
        fi
        printf '%s\t%s\t%s\t%s\t%s\n' "$lab" "$state" "$member" "$size" "$why" >> "$dir/x/labs.tsv"
    done

    jq -Rn --arg name "$name" --arg kind "$kind" --arg refused "$refused" '
        { submission: $name, kind: (if $kind == "" then null else $kind end),
          refused: (if $refused == "" then null else $refused end),
          labs: ([inputs | split("\t") | {key: .[0], value: {state: .[1],
                  from: (if .[2] == "" or .[2] == "-" then null else .[2] end), bytes: (.[3] | tonumber? // 0),
                  why: (if (.[4] // "") == "" then null else .[4] end)}}] | from_entries) }' \
        < "$dir/x/labs.tsv" > "$dir/intake.json"
    rm -rf "$dir/x"
}

# ---- the sandbox -------------------------------------------------------------

# hidden_paths: HIDE, what the sandbox must not see: the grader's home, the
# pristine workbook (solutions, history), the output folder (other
# students), the submissions, the roster, /run, /var/tmp and --hide paths.
hidden_paths() {
    local p
    local -a cand=("${HOME:-}" "$PRISTINE" "$OUT" /run /var/tmp ${HIDE_EXTRA[@]+"${HIDE_EXTRA[@]}"})
    [ -z "$ROSTER" ] || cand+=("$ROSTER")
    [ "$RUBRIC" = "$PRISTINE/data/rubric.json" ] || cand+=("$RUBRIC")
    # The submissions' folders (or, where a folder is special, the
    # submissions themselves).
    for p in ${SUB_PATHS[@]+"${SUB_PATHS[@]}"}; do
        case "$(dirname -- "$p")" in
            /|/tmp|/usr|/usr/*|/bin|/lib|/lib64|/etc|/proc|/sys|/dev|/dev/*) cand+=("$p") ;;
            *) cand+=("$(dirname -- "$p")") ;;
        esac
    done
    HIDE=()
    for p in "${cand[@]}"; do
        [ -n "$p" ] || continue
        [ -e "$p" ] || continue
        p=$(realpath -- "$p")
        case "$p" in /|/usr|/usr/*|/bin|/lib|/lib64|/etc|/proc|/sys|/dev|/dev/*|/tmp) continue ;; esac
        HIDE+=("$p")
    done
    mapfile -t HIDE < <(printf '%s\n' "${HIDE[@]}" | awk '{ print length($0) "\t" $0 }' | sort -n -u | cut -f2-)
}

# under_hidden PATH: PATH lies in (or is) a hidden path.
under_hidden() {
    local h
    for h in "${HIDE[@]}"; do
        case "$1/" in "$h/"*) return 0 ;; esac
    done
    return 1
}

# sandbox_args USER: BW_HEAD and BW_TAIL, the bubblewrap arguments before
# and after the caller's own binds (the work folder).
sandbox_args() {
    local h d sized="" nvcc toolkit
    bwrap --help 2>&1 | grep -q -- '--size' && sized=1
    # The device nodes must exist before they can be bound: nvidia-uvm
    # appears only once something has used CUDA since boot.
    if command -v nvidia-modprobe >/dev/null && [ -e /dev/nvidiactl ]; then
        nvidia-modprobe -u -c=0 >/dev/null 2>&1 || true
    fi
    BW_HEAD=(--ro-bind / / --dev /dev)
    for d in /dev/nvidia*; do
        [ -e "$d" ] && BW_HEAD+=(--dev-bind "$d" "$d")
    done
    BW_HEAD+=(--proc /proc)
    [ -z "$sized" ] || BW_HEAD+=(--size $((512 << 20)))
    BW_HEAD+=(--tmpfs /tmp)
    [ -z "$sized" ] || BW_HEAD+=(--size $((64 << 20)))
    BW_HEAD+=(--tmpfs /dev/shm)
    BW_TAIL=()
    for h in "${HIDE[@]}"; do
        if [ -d "$h" ]; then
            [ -z "$sized" ] || BW_HEAD+=(--size $((1 << 20)))
            BW_HEAD+=(--tmpfs "$h")
            BW_TAIL+=(--remount-ro "$h")
        else
            BW_HEAD+=(--ro-bind /dev/null "$h")
        fi
    done
    # What the build needs back from hidden places, read-only.
    nvcc=$(command -v nvcc || echo "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc")
    toolkit=$(dirname "$(dirname "$(realpath -- "$nvcc" 2>/dev/null || echo /usr/local/cuda/bin/nvcc)")")
    for d in "$TUTOR" "$HARNESS_DIR" "$toolkit" /run/nvidia-persistenced; do
        if [ -e "$d" ] && under_hidden "$d"; then
            BW_HEAD+=(--ro-bind "$d" "$d")
        fi
    done
    # Libraries and programs the grader's own environment finds in places
    # the sandbox hides or replaces (a private sysroot under /tmp, say).
    local -a dirs=()
    IFS=: read -r -a dirs <<< "${LD_LIBRARY_PATH:-}:$PATH"
    for d in "${dirs[@]}"; do
        [ -n "$d" ] && [ -d "$d" ] || continue
        case $d in
            /tmp/*|/dev/shm/*) BW_HEAD+=(--ro-bind "$d" "$d") ;;
            *) if under_hidden "$d"; then BW_HEAD+=(--ro-bind "$d" "$d"); fi ;;
        esac
    done
    BW_TAIL+=(--unshare-ipc --unshare-pid --unshare-net --unshare-uts --unshare-cgroup-try
              --hostname grader --die-with-parent --new-session --clearenv)
}

# env_args: the environment a sandboxed program gets (bwrap --setenv pairs
# on one line each: NAME VALUE), nothing else of the grader's.
env_lines() {
    local v
    printf 'PATH\t%s\n' "$PATH"
    printf 'HOME\t/tmp\nTMPDIR\t/tmp\nLANG\tC.UTF-8\n'
    printf 'CUDATUTOR_HARNESS_DIR\t%s\n' "$HARNESS_DIR"
    for v in LD_LIBRARY_PATH CUDA_HOME CUDA_PATH NVCC CUDATUTOR_ARCH; do
        [ -z "${!v:-}" ] || printf '%s\t%s\n' "$v" "${!v}"
    done
}

# shellcheck disable=SC2016  # the generated scripts expand their own variables
# write_wrappers MODE DIR: DIR/run-wrapper (the --wrap program: runs the
# harness with the current folder as the only writable place) and
# DIR/build-sandbox (runs the tutor's build the same way, WB read-only).
write_wrappers() {
    local mode=$1 dir=$2 name value uid=${EUID}
    local -a setenv=() envs=() prefix=()
    mkdir -p "$dir"
    while IFS=$'\t' read -r name value; do
        setenv+=(--setenv "$name" "$value")
        envs+=("$name=$value")
    done < <(env_lines)
    if [ "$mode" = bwrap-nobody ]; then
        prefix=(setpriv "--reuid=$NOBODY" "--regid=$NOBODY" --clear-groups --)
        uid=$NOBODY
    fi
    local kind
    for kind in run build; do
        {
            echo '#!/usr/bin/env bash'
            echo "# Generated by grade.sh for $OUT (sandbox: $mode)."
            if [ "$kind" = run ]; then
                echo '# The --wrap program of cudatutor check: runs its arguments (the harness,'
                echo '# or compute-sanitizer and the harness) with the current folder, the'
                echo '# work folder, as the only writable place.'
            else
                echo '# Usage: build-sandbox WB -- COMMAND...: runs the build with the workbook'
                echo '# copy WB read-only and the current folder writable.'
            fi
            echo 'set -euo pipefail'
            if [ "$kind" = build ]; then
                echo 'wb=$1; shift; [ "${1:-}" = -- ] && shift'
            fi
            echo 'dir=$(pwd -P)'
            echo 'ulimit -c 0'
            if [ "$kind" = run ]; then echo 'ulimit -f 262144'; else echo 'ulimit -f 524288'; fi
            printf 'procs=$(ps -L -u %s --no-headers 2>/dev/null | wc -l) || procs=0\n' "$uid"
            printf 'ulimit -u $((procs + %s)) 2>/dev/null || true\n' "$MAX_PROCS"
            echo 'extra=()'
            if [ "$mode" = none ]; then
                printf 'env=('; printf '%q ' "${envs[@]}"; printf ')\n'
                echo '[ -z "${CUDA_VISIBLE_DEVICES+x}" ] || env+=("CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES")'
                echo '[ -z "${CUDATUTOR_PROGRESS+x}" ] || env+=("CUDATUTOR_PROGRESS=$CUDATUTOR_PROGRESS")'
                echo 'exec env -i "${env[@]}" "$@"'
            else
                echo '[ -z "${CUDA_VISIBLE_DEVICES+x}" ] || extra+=(--setenv CUDA_VISIBLE_DEVICES "$CUDA_VISIBLE_DEVICES")'
                echo '[ -z "${CUDATUTOR_PROGRESS+x}" ] || extra+=(--setenv CUDATUTOR_PROGRESS "$CUDATUTOR_PROGRESS")'
                printf 'head=('; printf '%q ' ${prefix[@]+"${prefix[@]}"} bwrap "${BW_HEAD[@]}"; printf ')\n'
                printf 'tail=('; printf '%q ' "${BW_TAIL[@]}" "${setenv[@]}"; printf ')\n'
                if [ "$kind" = run ]; then
                    echo '# The GPU lock files: the harness shares the GPU through them.'
                    echo 'locks=()'
                    printf 'for f in %q/*.lock; do [ ! -f "$f" ] || locks+=(--bind "$f" "$f"); done\n' "$STATE/gpu-locks"
                    echo 'exec "${head[@]}" --bind "$dir" "$dir" ${locks[@]+"${locks[@]}"} "${tail[@]}" ${extra[@]+"${extra[@]}"} --chdir "$dir" -- "$@"'
                else
                    echo 'exec "${head[@]}" --ro-bind "$wb" "$wb" --bind "$dir" "$dir" "${tail[@]}" ${extra[@]+"${extra[@]}"} --chdir "$dir" -- "$@"'
                fi
            fi
        } > "$dir/$kind-wrapper.tmp"
        chmod 755 "$dir/$kind-wrapper.tmp"
        mv "$dir/$kind-wrapper.tmp" "$dir/$kind-$([ "$kind" = run ] && echo wrapper || echo sandbox)"
        rm -f "$dir/$kind-wrapper.tmp"
    done
}

# own_for_sandbox DIR: the sandbox user may write DIR (only when it is not us).
own_for_sandbox() {
    [ "$SANDBOX" != bwrap-nobody ] || chown -R "$NOBODY:$NOBODY" "$1"
}

# probe_sandbox MODE: does MODE work here, and does it isolate?  Runs a probe
# through the generated wrappers: the work folder writable, no network, the
# output folder read-only, /tmp private, the workbook hidden; then builds the
# first lab's stub in the build sandbox.  Returns 0 when all of it holds;
# PROBE_WHY says what did not.
probe_sandbox() {
    local mode=$1 pd="$STATE/probe-$1" marker got
    PROBE_WHY=""
    PROBE_FACTS=""
    rm -rf "$pd"
    mkdir -p "$pd/run" "$pd/wb/data" "$pd/wb/tutor" "$pd/build"
    write_wrappers "$mode" "$pd"
    cp "$PRISTINE/data/labs.json" "$pd/wb/data/"
    cp "$PRISTINE/tutor/lab.h" "$pd/wb/tutor/"
    local ldir
    ldir=$(lab_field "${ALL_LABS[0]}" dir)
    mkdir -p "$pd/wb/$ldir"
    cp "$PRISTINE/data/stubs/$(basename -- "$ldir").cu" "$pd/wb/$ldir/kernel.cu"
    [ "$mode" != bwrap-nobody ] || chown -R "$NOBODY:$NOBODY" "$pd"
    marker=$(mktemp "${TMPDIR:-/tmp}/grade-probe.XXXXXX")
    rm -f "$OUT/probe-escape"
    # shellcheck disable=SC2016
    (cd "$pd/run" && exec 8>&- && timeout 60 "$pd/run-wrapper" /bin/sh -c '
        r=""
        echo ok > inside.txt && r="$r work-writable"
        [ "$(grep -c ":" /proc/net/dev)" -le 1 ] && r="$r no-network"
        (echo x > "$1/probe-escape") 2>/dev/null || r="$r output-read-only"
        [ -e "$2" ] || r="$r private-tmp"
        [ -e "$3/data/labs.json" ] || r="$r workbook-hidden"
        echo "$r" > probe.txt' probe "$OUT" "$marker" "$PRISTINE") > "$pd/run.log" 2>&1 || true
    rm -f "$marker"
    got=$(cat "$pd/run/probe.txt" 2>/dev/null || true)
    local want facts=$got
    for want in work-writable no-network output-read-only private-tmp workbook-hidden; do
        [[ " $got " == *" $want "* ]] || PROBE_WHY="$PROBE_WHY ${want}:no"
    done
    [ ! -e "$OUT/probe-escape" ] || { PROBE_WHY="$PROBE_WHY wrote-outside"; rm -f "$OUT/probe-escape"; }
    if [ "$mode" = none ]; then
        PROBE_WHY=""
    fi
    if [ -n "$PROBE_WHY" ]; then
        PROBE_WHY="isolation probe failed:$PROBE_WHY; $(tail -n 3 "$pd/run.log" | tr '\n' ' ')"
        return 1
    fi
    (cd "$pd/build" && timeout 300 "$pd/build-sandbox" "$pd/wb" -- "$TUTOR" --root "$pd/wb" check "${ALL_LABS[0]}" \
        --build-only --work-dir "$pd/build" --json --out "$pd/build/report.json") > "$pd/build.log" 2>&1 || true
    got=$(jq -r .status "$pd/build/report.json" 2>/dev/null || echo none)
    if [ "$got" != no_gpu ]; then
        PROBE_WHY="a build in the sandbox failed ($got): $(tail -n 3 "$pd/build.log" | tr '\n' ' ')"
        return 1
    fi
    # Where there is a GPU, the harness must see it from inside the sandbox
    # as well as from outside: the stub runs (and fails) instead of finding
    # no device.
    if [ "$mode" != none ] && [ -n "${GPUS[0]:-}" ]; then
        local inside outside
        inside=$(probe_gpu "$pd" --wrap "$pd/run-wrapper")
        if [ "$inside" = no_gpu ] || [ "$inside" = none ] || [ "$inside" = internal_error ]; then
            outside=$(probe_gpu "$pd")
            if [ "$outside" != "$inside" ]; then
                PROBE_WHY="the GPU cannot be used in the sandbox ($inside, outside $outside): $(jq -r \
                    '.messages // [] | join("; ")' "$pd/build/run.json" 2>/dev/null)"
                return 1
            fi
        else
            facts="$facts gpu-usable"
        fi
    fi
    PROBE_FACTS=${facts# }
    rm -rf "$pd"
    return 0
}

# probe_gpu DIR [--wrap WRAPPER]: the status of the probe's stub run on the
# first GPU, through WRAPPER if given.
probe_gpu() {
    local pd=$1
    shift
    rm -f "$pd/build/run.json"
    (cd "$pd/build" && exec 8>&- && CUDA_VISIBLE_DEVICES=${GPUS[0]} timeout 300 "$TUTOR" --root "$pd/wb" \
        check "${ALL_LABS[0]}" --run-only --work-dir "$pd/build" --no-sanitize --quick --json \
        --out "$pd/build/run.json" "$@") > /dev/null 2>> "$pd/gpu.log" || true
    jq -r .status "$pd/build/run.json" 2>/dev/null || echo none
}

# choose_sandbox: SANDBOX, the strongest mode that works (--sandbox asks),
# with its wrappers in STATE.
choose_sandbox() {
    local mode
    local -a modes=()
    hidden_paths
    sandbox_args
    SANDBOX_NOTES=""
    if [ "$SANDBOX_WANT" != none ]; then
        if ! command -v bwrap >/dev/null; then
            SANDBOX_NOTES="bubblewrap (bwrap) is not installed"
        else
            [ "$EUID" != 0 ] || ! command -v setpriv >/dev/null || modes+=(bwrap-nobody)
            modes+=(bwrap)
        fi
    fi
    SANDBOX=none
    for mode in ${modes[@]+"${modes[@]}"}; do
        if probe_sandbox "$mode"; then
            SANDBOX=$mode
            break
        fi
        SANDBOX_NOTES="${SANDBOX_NOTES:+$SANDBOX_NOTES; }$mode: $PROBE_WHY"
    done
    if [ "$SANDBOX" = none ]; then
        if [ "$SANDBOX_WANT" = bwrap ]; then
            echo "grade.sh: --sandbox bwrap, but bubblewrap does not work here: $SANDBOX_NOTES" >&2
            exit "$EXIT_SANDBOX"
        fi
        probe_sandbox none || die_internal "the workbook cannot build a kernel: $PROBE_WHY"
        {
            echo "grade.sh: ********************************************************************"
            echo "grade.sh: WARNING: NO SANDBOX.  Student code will run with your user's rights:"
            echo "grade.sh: it can read and write your files and use the network.  Only the time"
            echo "grade.sh: limit, the output cap and ulimits apply."
            [ "$SANDBOX_WANT" = none ] && echo "grade.sh: (--sandbox none was asked for)" ||
                echo "grade.sh: Why: $SANDBOX_NOTES"
            echo "grade.sh: ********************************************************************"
        } >&2
    fi
    write_wrappers "$SANDBOX" "$STATE"
    [ "$SANDBOX" != none ] || PROBE_FACTS=""
    [ "$SANDBOX" = none ] || say "sandbox: $SANDBOX (checked: $PROBE_FACTS)"
}

# ---- GPUs --------------------------------------------------------------------

# detect_gpus: GPUS, one entry per GPU worker ("" = leave CUDA_VISIBLE_DEVICES).
detect_gpus() {
    GPUS=()
    if [ -n "$GPUS_OPT" ]; then
        IFS=, read -r -a GPUS <<< "$GPUS_OPT"
    elif [ -n "${CUDA_VISIBLE_DEVICES+x}" ]; then
        IFS=, read -r -a GPUS <<< "$CUDA_VISIBLE_DEVICES"
    elif command -v nvidia-smi >/dev/null; then
        mapfile -t GPUS < <(nvidia-smi -L 2>/dev/null | sed -n 's/^GPU \([0-9][0-9]*\):.*/\1/p')
    fi
    [ ${#GPUS[@]} -gt 0 ] || GPUS=("")
}

# ---- calibration: the targets on these GPUs ----------------------------------

# The jq program that turns one GPU's calibration runs (the check reports
# of the solutions, slurped) into its entry of calibration.json; $catalog,
# $name (the GPU's) and $at in.
# shellcheck disable=SC2016
readonly CALIBRATE_JQ='
def sig3: if . <= 0 then . else pow(10; (log10 | floor) - 2) as $u
          | if $u < 1 then (. / $u | floor) / (1 / $u | round) else (. / $u | floor) * $u end end;
(group_by(.lab) | map({key: .[0].lab, value: .}) | from_entries) as $runs
| {name: $name, measured: $at, labs: ([
    $catalog[0][] | select($runs[.id]) | .id as $id | .target as $t | $runs[$id] as $reps
    | [$reps[] | select(.status == "pass") | .target.value | numbers] as $v
    # A target of several cases is scaled as one, by the case where the
    # solution falls furthest short of its figure (the first unless another
    # is strictly further): calibrate_judge_cases in tutor/calibrate.c.
    | [($t.also // []) | to_entries[] | .key as $k | .value as $c
       | [$reps[] | select(.status == "pass") | .target.also[$k].value | numbers] as $w
       | select(($c.solution // 0) > 0 and ($w | length) > 0)
       | {case: $c.case, here: ($w | min), sol: $c.solution}] as $others
    | (if ($v | length) > 0 and ($t.solution // 0) > 0 then
           reduce $others[] as $o ({share: (($v | min) / $t.solution), b: null};
               if $o.here / $o.sol < .share then {share: ($o.here / $o.sol), b: $o} else . end) | .b
       else null end) as $b
    | { key: $id,
        value: ({metric: $t.metric, case: $t.case, catalog_min: $t.min, catalog_solution: ($t.solution // null),
                 runs: ($reps | length), passed: ($v | length)}
                + (if $t.also then {catalog_also: $t.also} else {} end)
                + if ($v | length) < ($reps | length) then
                      {solution_here: null, min: $t.min,
                       why: "its solution did not pass here (\([$reps[].status] | unique | join(", ")))"}
                  elif ($t.solution // 0) <= 0 then
                      {solution_here: ($v | min), min: $t.min, why: "the catalog records no figure for its solution"}
                  elif $b != null then
                      {solution_here: ($v | min), bound_by: {case: $b.case, solution_here: $b.here, catalog_solution: $b.sol}}
                      + if $b.here < 0.95 * $b.sol then {min: ($t.min * $b.here / $b.sol | sig3), lowered: true}
                        else {min: $t.min} end
                  elif ($v | min) < 0.95 * $t.solution then
                      {solution_here: ($v | min), min: ($t.min * ($v | min) / $t.solution | sig3), lowered: true}
                  else {solution_here: ($v | min), min: $t.min} end) } ] | from_entries)}'

# gpu_name GPU: the model of one grading GPU ("" when none can be named).
gpu_name() {
    command -v nvidia-smi >/dev/null || return 0
    nvidia-smi --query-gpu=name --format=csv,noheader ${1:+-i "$1"} 2>/dev/null | head -n1
}

# calibrate: TARGET_MIN["GPU/LAB"], the threshold a lab's target is judged by
# on a grading GPU.  The catalog's thresholds were set on one GPU at 80% of
# what the reference solutions measured there (target.solution,
# docs/ladder.md), and a ratio to CUB does not carry over to every GPU: on
# an H200 lab 01's solution measures 0.109-0.111x CUB, under its 0.12x
# target.  So the solutions run on each grading GPU first, and where the
# lowest of a lab's measures is more than 5% under its catalog figure,
# the threshold is lowered in proportion; it is never raised.  Kept in
# OUT/calibration.json and reused while the GPU model and the catalog's
# targets are the same, so a resumed grading judges like the first part
# (--force measures again).
calibrate() {
    TARGET_MIN=()
    [ "$CALIBRATE" = 1 ] && [ -n "$(gpu_name "${GPUS[0]}")" ] || return 0
    local cal="$OUT/calibration.json" g
    local -a todo=()
    [ -f "$cal" ] || echo '{"schema": 1, "gpus": {}}' > "$cal"
    for g in "${GPUS[@]}"; do
        [ "$FORCE" = 0 ] && calibration_current "$g" || todo+=("$g")
    done
    if [ ${#todo[@]} -gt 0 ]; then
        say "calibrating the targets: the reference solutions on GPU ${todo[*]}"
        calibrate_build
        for g in "${todo[@]}"; do
            calibrate_gpu "$g" &
        done
        wait
        for g in "${todo[@]}"; do
            calibrate_record "$g"
        done
    fi
    for g in "${GPUS[@]}"; do
        calibrate_load "$g"
    done
}

# calibration_current GPU: whether calibration.json holds this GPU's model
# with every lab graded now, measured against the catalog's present targets.
calibration_current() {
    jq -e --arg g "${1:-any}" --arg n "$(gpu_name "$1")" --arg labs "${LABS[*]}" \
        --slurpfile catalog "$STATE/catalog.json" '
        .gpus[$g] as $c
        | $c.name == $n
          and ([$catalog[0][] | select(.id as $id | $labs | split(" ") | index($id))
                | . as $l | $c.labs[$l.id] as $e
                | $e != null and $e.catalog_min == $l.target.min and $e.catalog_solution == ($l.target.solution // null)
                  and $e.catalog_also == ($l.target.also // null)]
               | all)' "$OUT/calibration.json" >/dev/null 2>&1
}

# calibrate_build: the solutions' builds in STATE/calibration/build/, one per
# lab, listed in builds.tsv (lab, k, slug; k is always 0).
calibrate_build() {
    local dir="$STATE/calibration" lab seed wd slug
    rm -rf "$dir"
    mkdir -p "$dir"
    : > "$dir/builds.tsv"
    for lab in "${LABS[@]}"; do
        slug=$(basename -- "$(lab_field "$lab" dir)")
        [ -f "$PRISTINE/solutions/$slug/kernel.cu" ] || continue
        seed=$((RANDOM * 32768 + RANDOM))
        wd="$dir/build/$lab-0"
        mkdir -p "$wd"
        printf '%s\t0\t%s\n' "$lab" "$slug" >> "$dir/builds.tsv"
        (cd "$wd" && CUDATUTOR_PROGRESS="$dir/progress.json" timeout 600 "$TUTOR" --root "$PRISTINE" \
            check "$lab" --file "$PRISTINE/solutions/$slug/kernel.cu" --build-only --work-dir "$wd" \
            --seed "$seed" --json --out "$wd/build-report.json") > "$wd/build.log" 2>&1 8>&- &
    done
    wait
}

# calibrate_record GPU: the GPU's runs into its entry of calibration.json.
calibrate_record() {
    local g=$1 dir="$STATE/calibration" cal="$OUT/calibration.json"
    jq -s --arg name "$(gpu_name "$g")" --arg at "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
        --slurpfile catalog "$STATE/catalog.json" "$CALIBRATE_JQ" "$dir/runs-${g:-any}"/*.json \
        > "$dir/gpu.json" 2> "$dir/jq.err" ||
        die_internal "the calibration's reports do not parse: $(cat "$dir/jq.err")"
    jq --arg g "${g:-any}" --slurpfile one "$dir/gpu.json" '.gpus[$g] = $one[0]' "$cal" > "$cal.tmp"
    mv "$cal.tmp" "$cal"
}

# calibrate_load GPU: TARGET_MIN for the GPU from calibration.json, and a
# line on what it changed.
calibrate_load() {
    local g=$1 id min line
    while IFS=$'\t' read -r id min; do
        TARGET_MIN["$g/$id"]=$min
    done < <(jq -r --arg g "${g:-any}" '.gpus[$g].labs // {} | to_entries[] | select(.value.lowered) | [.key, .value.min] | @tsv' \
                "$OUT/calibration.json")
    while IFS= read -r line; do
        say "$line"
    done < <(jq -r --arg g "${g:-any}" '.gpus[$g] as $c | ($c.labs // {}) as $l
        | ([$l | to_entries[] | select(.value.lowered)
            | if .value.bound_by then
                  "\(.key) \(.value.catalog_min) -> \(.value.min), every case alike (its solution at \(.value.bound_by.case): \(.value.bound_by.solution_here * 1000 | round / 1000) here, \(.value.bound_by.catalog_solution) in the catalog)"
              else
                  "\(.key) \(.value.catalog_min) -> \(.value.min) (its solution: \(.value.solution_here * 1000 | round / 1000) here, \(.value.catalog_solution) in the catalog)"
              end]) as $low
        | ([$l | to_entries[] | select(.value.why) | "lab \(.key): \(.value.why); its catalog target stands"]) as $odd
        | "targets on GPU \($g) (\($c.name)): "
          + if ($low | length) > 0 then "lowered for " + ($low | join(", "))
            elif ($odd | length) > 0 then "as in the catalog"
            else "as in the catalog (every solution within 5% of its figure)" end,
          $odd[]' "$OUT/calibration.json")
}

# calibrate_gpu GPU: the calibration builds run on one GPU, CHECK_RUNS at a
# time through its lock; each report lands in STATE/calibration/runs-GPU/.
calibrate_gpu() {
    local g=$1 lab k slug
    mkdir -p "$STATE/calibration/runs-${g:-any}"
    while IFS=$'\t' read -r lab k slug; do
        while [ "$(jobs -rp | wc -l)" -ge "${CHECK_RUNS:-8}" ]; do wait -n || true; done
        calibrate_run "$g" "$lab" "$k" "$slug" &
    done < "$STATE/calibration/builds.tsv"
    wait
}

# calibrate_run GPU LAB K SLUG: one solution's run from its build, outside
# the sandbox (the instructor's own code), timed like a student's.
calibrate_run() {
    local g=$1 lab=$2 k=$3 slug=$4 dir="$STATE/calibration"
    local wd="$dir/gpu-${g:-any}/$lab-$k" out="$dir/runs-${g:-any}/$lab-$k.json"
    rm -rf "$wd"
    mkdir -p "$(dirname "$wd")"
    cp -r "$dir/build/$lab-$k" "$wd"
    local -a env=()
    [ -z "$g" ] || env=(CUDA_VISIBLE_DEVICES="$g")
    (cd "$wd" && env ${env[@]+"${env[@]}"} CUDATUTOR_PROGRESS="$dir/progress.json" timeout 600 "$TUTOR" \
        --root "$PRISTINE" check "$lab" --file "$PRISTINE/solutions/$slug/kernel.cu" --run-only \
        --work-dir "$wd" --no-sanitize --quick \
        --time-budget "$TIME_BUDGET" --gpu-lock "$(gpu_lock "$g")" --json --out "$out") \
        > "$wd/run.log" 2>&1 8>&- || true
    [ -s "$out" ] || jq -n --arg lab "$lab" '{lab: $lab, status: "internal_error"}' > "$out"
}

# ---- building and running ----------------------------------------------------

# run_opts: the options of every run.
run_opts() {
    RUN_OPTS=(--timeout-scale "$TIMEOUT_SCALE" --time-budget "$TIME_BUDGET")
    [ "$QUICK" = 0 ] || RUN_OPTS+=(--quick)
    [ "$SANITIZE" = 1 ] || RUN_OPTS+=(--no-sanitize)
    SEED_OPTS=()
    [ -z "$SEED" ] || SEED_OPTS=(--seed "$SEED")
}

# build_one ID LAB: compiles one kernel in the build sandbox; leaves
# build-report.json and .built (the exit code) in its work folder.
build_one() {
    local id=$1 lab=$2 wd="$WORK/$1/$2" wb="$WORK/$1/wb" rc=0
    # Niced: the builds run far ahead of the GPU runs, which must not wait
    # for a CPU (a run's trials hold the GPU shared while they last).
    (cd "$wd" && CUDATUTOR_PROGRESS="$wd/progress.json" nice -n 10 timeout -k 10 600 "$STATE/build-sandbox" "$wb" -- \
        "$TUTOR" --root "$wb" check "$lab" --build-only --work-dir "$wd" --json --out "$wd/build-report.json" \
        ${SEED_OPTS[@]+"${SEED_OPTS[@]}"}) > "$wd/build.log" 2>&1 8>&- || rc=$?
    echo "$rc" > "$wd/.built.tmp"
    mv "$wd/.built.tmp" "$wd/.built"
    echo "B $id $lab" >> "$STATE/events"
}

# verdict_or_error FILE LAB WHY LOG: FILE if it holds a verdict, else an
# internal_error verdict saying WHY with the end of LOG.
verdict_or_error() {
    local file=$1 lab=$2 why=$3 log=$4
    if jq -e '.status | type == "string"' "$file" >/dev/null 2>&1; then
        cat "$file"
    else
        jq -n --arg lab "$lab" --arg why "$why" --arg log "$(tail -c 2000 "$log" 2>/dev/null || true)" \
            '{schema: 1, tool: "grade.sh", lab: $lab, status: "internal_error", messages: [$why],
              summary: ("the workbook itself failed: " + $why), output: $log}'
    fi
}

# gpu_lock GPU: the lock file through which the runs on GPU share it.
gpu_lock() {
    echo "$STATE/gpu-locks/gpu-${1:-any}.lock"
}

# setup_gpu_runs: CHECK_RUNS (default half the CPUs, 1 to 8) and a lock file
# per GPU that the sandbox user can lock too.
setup_gpu_runs() {
    local g
    CHECK_RUNS=${CHECK_RUNS:-$(( $(nproc) / 2 > 8 ? 8 : ($(nproc) / 2 < 1 ? 1 : $(nproc) / 2) ))}
    mkdir -p "$STATE/gpu-locks"
    for g in "${GPUS[@]}"; do
        : >> "$(gpu_lock "$g")"
        chmod 666 "$(gpu_lock "$g")"
    done
}

# run_one ID LAB GPU: a built kernel's run, the harness in the sandbox.  Its
# trials and race checks share the GPU with the other runs; its timed
# section has the GPU to itself, through the GPU's lock file (the harness
# waits for it; docs/harness.md).  Leaves final.json, the lab's verdict.
run_one() {
    local id=$1 lab=$2 gpu=$3 wd="$WORK/$1/$2" wb="$WORK/$1/wb" rc=0 status limit
    local -a env=()
    status=$(jq -r '.status // ""' "$wd/build-report.json" 2>/dev/null || true)
    if [ "$status" != no_gpu ]; then
        verdict_or_error "$wd/build-report.json" "$lab" "the build ended without a verdict (exit $(cat "$wd/.built"))" \
            "$wd/build.log" > "$wd/final.tmp"
        mv "$wd/final.tmp" "$wd/final.json"
        return
    fi
    # The catalog's limit for the harness, three for the race checkers, and
    # the waits for the GPU that the check forgives (at most 250 s).
    limit=$(awk -v t="$(lab_field "$lab" timeout_s)" -v s="$TIMEOUT_SCALE" 'BEGIN { printf "%d", 5 * t * s + 370 }')
    [ -z "$gpu" ] || env=(CUDA_VISIBLE_DEVICES="$gpu")
    local -a target=()
    [ -z "${TARGET_MIN["$gpu/$lab"]:-}" ] || target=(--target-min "${TARGET_MIN["$gpu/$lab"]}")
    rm -f "$wd/report.json"
    (cd "$wd" && env ${env[@]+"${env[@]}"} CUDATUTOR_PROGRESS="$wd/progress.json" timeout -k 10 "$limit" \
        "$TUTOR" --root "$wb" check "$lab" --run-only --work-dir "$wd" --json --out "$wd/report.json" \
        --gpu-lock "$(gpu_lock "$gpu")" --wrap "$STATE/run-wrapper" "${RUN_OPTS[@]}" ${target[@]+"${target[@]}"} \
        ${SEED_OPTS[@]+"${SEED_OPTS[@]}"}) \
        > /dev/null 2>> "$wd/run.log" 8>&- || rc=$?
    if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
        echo "grade.sh: the tutor did not finish within $limit s and was stopped" >> "$wd/run.log"
        rm -f "$wd/report.json"
    fi
    verdict_or_error "$wd/report.json" "$lab" "the check ended without a verdict (exit $rc)" "$wd/run.log" > "$wd/final.tmp"
    mv "$wd/final.tmp" "$wd/final.json"
}

# claim_job QUEUE: the next job's line number in jobs.tsv from the named
# queue, or failure when none is left.
claim_job() {
    local n q="$STATE/queue-$1"
    n=$( (flock -x 9; n=$(cat "$q" 2>/dev/null || echo 0); echo $((n + 1)) > "$q"; echo $((n + 1))) 9> "$q.lock")
    [ "$n" -le "$NJOBS" ] && echo "$n"
}

# build_pool: compiles every job, at most JOBS at a time, in queue order.
build_pool() {
    local id lab
    while IFS=$'\t' read -r id lab; do
        while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || true; done
        build_one "$id" "$lab" &
    done < "$STATE/jobs.tsv"
    wait
}

# check_worker GPU: runs jobs on one GPU as their builds finish; several of
# these share a GPU.
check_worker() {
    local gpu=$1 k id lab wd waited
    while k=$(claim_job run); do
        IFS=$'\t' read -r id lab < <(sed -n "${k}p" "$STATE/jobs.tsv")
        wd="$WORK/$id/$lab"
        waited=0
        while [ ! -f "$wd/.built" ] && [ "$waited" -lt 6500 ]; do
            sleep 0.2
            waited=$((waited + 1))
        done
        [ -f "$wd/.built" ] || echo 124 > "$wd/.built"
        run_one "$id" "$lab" "$gpu" || echo "grade.sh: run $id $lab failed" >> "$STATE/errors"
        echo "C $id $lab" >> "$STATE/events"
        maybe_finish "$id"
    done
}

# maybe_finish ID: finishes the student once every lab has a verdict.
maybe_finish() {
    local id=$1 want have
    want=$(cat "$WORK/$id/.njobs")
    have=$(find "$WORK/$id" -mindepth 2 -maxdepth 2 -name final.json | wc -l)
    [ "$have" -ge "$want" ] || return 0
    mkdir "$WORK/$id/.finishing" 2>/dev/null || return 0
    finish_student "$id" || echo "grade.sh: could not write the reports of $id" >> "$STATE/errors"
}

# ---- scoring and reports -----------------------------------------------------

# The jq program that scores one student: $rubric, $catalog, $intake and
# $reports (lab id -> check report) in, the student's report out.
# shellcheck disable=SC2016
readonly SCORE_JQ='
def r2: (. * 100 | round) / 100;
def clamp01: if . < 0 then 0 elif . > 1 then 1 else . end;
def pts($id): ($rubric.labs[$id] // $rubric.default);
def meaning: {
    pass: "passed", fail: "failed", compile_error: "did not compile",
    rejected: "rejected: breaks a rule of lab.h", runtime_error: "crashed, or a CUDA call failed",
    timeout: "did not finish in time", no_gpu: "not graded: no CUDA device on the grading machine",
    internal_error: "not graded: the grader failed on this lab (your instructor will look)",
    missing: "no kernel.cu for this lab in the submission", unchanged: "kernel.cu is the stub as handed out",
    refused: "refused when the submission was taken in" }[.] // .;
def cal($t): if $t.catalog_min then " (lowered for this GPU from the catalog\u0027s \($t.catalog_min))" else "" end;
# A target of several cases (target.also): met when all are; short of it,
# the credit of the case furthest short.
def perf_cases($t; $f):
    ([{case: $t.case, value: $t.value, min: $t.min}] + [$t.also[] | {case, value, min}]
     | map(. + {share: (if (.value | type) == "number" and (.min // 0) > 0 then .value / .min else null end)})) as $cs
    | if ([$cs[] | .share == null] | any) then {credit: 0, why: "not timed"}
      else ([$cs[] | "\($t.metric) \(.value | r2) at \(.case): target \(.min)"] | join("; ")) as $said
      | if $t.met == true then {credit: 1, why: "\($said)\(cal($t)) met"}
      else {credit: (if $f >= 1 then 0 else ([$cs[] | (.share - $f) / (1 - $f) | clamp01] | min) end),
            why: "\($said)\(cal($t)) not met (credit from \($f) x the target, on the case furthest short)"}
      end end;
def perf($rep):
    ($rep.target // null) as $t
    | ($rubric.performance.partial_from // 0.5) as $f
    | if $t == null then {credit: 0, why: "not timed"}
      elif ([($rep.perf // [])[] | select(.label as $l | [$t.case] + [($t.also // [])[].case] | index([$l]))
             | .implausible == true] | any)
        then {credit: 0, why: "the timing was implausible (faster than the measured peak)"}
      elif ($t.also // []) != [] then perf_cases($t; $f)
      elif $t.met == true then {credit: 1, why: "\($t.metric) \($t.value | r2) at \($t.case): target \($t.min)\(cal($t)) met"}
      elif ($t.value | type) != "number" or ($t.min // 0) <= 0 then {credit: 0, why: "not timed"}
      else {credit: (if $f >= 1 then 0 else (($t.value / $t.min - $f) / (1 - $f)) | clamp01 end),
            why: "\($t.metric) \($t.value | r2) at \($t.case): target \($t.min)\(cal($t)) not met (credit from \($f) x the target)"}
      end;
def clean: if type == "string" then gsub("[^[:space:]:\"]*/work/[^/[:space:]]+/wb/"; "") else . end;
def text($e; $rep):
    [ if ($e.graded | not) then ($e.status | meaning) + (if $rep.summary then ": " + $rep.summary else "" end)
      elif $rep.summary then $rep.summary
      else ($e.status | meaning) end ]
    + (if $e.intake.why and $e.intake.why != ($e.status | meaning) then [$e.intake.why] else [] end)
    + (if $e.graded then ["score \($e.score) of \($e.max_score): correctness \($e.correctness.score) of \($e.correctness.max), performance \($e.performance.score) of \($e.performance.max)" + (if $e.performance.why then " (" + $e.performance.why + ")" else "" end)] else [] end)
    + [($rep.compile.diagnostics // [])[:5][] | "\(.file):\(.line): \(.severity): \(.message)"]
    + [($rep.symbols.violations // [])[:5][] | "uses \(.symbol): \(.rule)"]
    + (if $e.status == "pass" or $e.status == "fail"
       then [($rep.techniques // [])[] | select(.found == false) | "technique missing: \(.name): \(.why)"] else [] end)
    + [($rep.sanitizer.tools // [])[] | select(.clean == false)
       | "\(.tool):\n" + ((.report // "") | split("\n") | map(select(. != "")) | .[:6] | join("\n"))]
    + ([($rep.tests // [])[] | select(.pass == false)][:1]
       | map("\(.name): expected \(.expected // "?"), got \(.got // "?")" + (if .message then ": " + .message else "" end)));
def lab_entry($id):
    ($reports[$id] // null) as $rep
    | ($intake.labs[$id] // {state: "missing", why: "not taken in"}) as $in
    | (if $in.state != "ok" then $in.state else ($rep.status // "internal_error") end) as $status
    | pts($id) as $p
    | ($p.correctness + $p.performance) as $max
    | ((($rubric.not_graded // ["no_gpu", "internal_error"]) | index([$status])) != null) as $ng
    | ([($rep.tests // [])[] | select((.name // "") | startswith("n="))]) as $sizes
    | {passed: ([$sizes[] | select(.pass == true)] | length), total: ($sizes | length)} as $tc
    | (if $status == "pass" then perf($rep) else {credit: 0, why: null} end) as $pf
    | (if $ng then null
       elif $status == "pass" then $p.correctness
       elif $status == "fail" then ($rubric.fail_credit // 0) * $p.correctness
            * (if $tc.total > 0 then $tc.passed / $tc.total else 1 end)
       else 0 end) as $corr
    | (if $ng then null elif $status == "pass" then $p.performance * $pf.credit else 0 end) as $perf
    | { lab: $id,
        title: ([$catalog[] | select(.id == $id) | .title][0] // $id),
        status: $status,
        graded: ($ng | not),
        score: (if $ng then null else ($corr + $perf) | r2 end),
        max_score: $max,
        correctness: {score: (if $ng then null else $corr | r2 end), max: $p.correctness},
        performance: {score: (if $ng then null else $perf | r2 end), max: $p.performance, why: $pf.why},
        target: ($rep.target // null),
        tests: $tc,
        seed: ($rep.seed // null),
        seconds: ($rep.timing.total_s // null),
        summary: (($rep.summary | clean) // ($in.why // ($status | meaning))),
        intake: $in }
    | . + {text: (text(.; $rep) | join("\n") | clean)};
($intake.labs | keys) as $ids
| [ $ids[] | lab_entry(.) ] as $labs
| ([$labs[] | select(.status == "rejected")] | length) as $nrej
| ($labs | map(select(.graded) | .score) | add // 0) as $sum
| { schema: 1,
    student: $student,
    submission: $intake.submission,
    score: ([($sum - $nrej * ($rubric.rejected_penalty // 0)), 0] | max | r2),
    max_score: ($labs | map(.max_score) | add // 0),
    graded_max_score: ($labs | map(select(.graded) | .max_score) | add // 0),
    labs_not_graded: ([$labs[] | select(.graded | not)] | length),
    complete: ([$labs[] | select(.graded | not)] | length == 0),
    refused: $intake.refused,
    labs: $labs,
    grader: {rubric_sha256: $rubric_sha, sandbox: $sandbox, graded_at: $now} }
'

# The jq program from a student report to Gradescope's results.json.
# shellcheck disable=SC2016
readonly GRADESCOPE_JQ='
{ score: .score,
  execution_time: ([.labs[].seconds // 0] | add | floor),
  output: ("\(.student): \(.score) of \(.graded_max_score) points"
           + (if .labs_not_graded > 0 then "; \(.labs_not_graded) lab(s) not graded yet (\(.max_score) points in all)" else " (all labs graded)" end)
           + (if .refused then ".\nThe submission was refused: \(.refused)" else "" end)),
  visibility: ($rubric.gradescope.visibility // "visible"),
  stdout_visibility: ($rubric.gradescope.stdout_visibility // "hidden"),
  tests: [ .labs[] | {name: "Lab \(.lab): \(.title)", number: .lab}
           + (if .graded then {score: .score, max_score: .max_score,
                               status: (if .status == "pass" then "passed" else "failed" end)} else {} end)
           + {visibility: ($rubric.gradescope.visibility // "visible"), output: .text,
              tags: [.status], extra_data: {status: .status, seed: .seed}} ],
  extra_data: {student: .student, submission: .submission, labs_not_graded: .labs_not_graded} }
'

# The jq program from student reports (an array) to one JUnit testsuite each.
# shellcheck disable=SC2016
readonly JUNIT_JQ='
def x: tostring | gsub("[\u0000-\u0008\u000b\u000c\u000e-\u001f]"; "") | @html;
def secs: (. // 0) * 1000 | round / 1000;
def kind: if .status == "pass" then "pass"
          elif .graded | not then (if .status == "internal_error" then "error" else "skipped" end)
          else "failure" end;
def case($s):
    "    <testcase classname=\"\($s.student | x)\" name=\"\(.lab | x) \(.title | x)\" time=\"\(.seconds | secs)\">\n"
    + (kind as $k
       | if $k == "failure" then "      <failure type=\"\(.status | x)\" message=\"\(.summary | x)\">\(.text | x)</failure>\n"
         elif $k == "error" then "      <error type=\"\(.status | x)\" message=\"\(.summary | x)\">\(.text | x)</error>\n"
         elif $k == "skipped" then "      <skipped message=\"\(.summary | x)\"/>\n"
         else "" end)
    + "      <system-out>\(.text | x)</system-out>\n"
    + "    </testcase>\n";
def suite:
    . as $s
    | "  <testsuite name=\"\(.student | x)\" tests=\"\(.labs | length)\""
      + " failures=\"\([.labs[] | select(kind == "failure")] | length)\""
      + " errors=\"\([.labs[] | select(kind == "error")] | length)\""
      + " skipped=\"\([.labs[] | select(kind == "skipped")] | length)\""
      + " time=\"\([.labs[].seconds // 0] | add // 0 | secs)\">\n"
      + "    <properties>\n"
      + "      <property name=\"score\" value=\"\(.score)\"/>\n"
      + "      <property name=\"max_score\" value=\"\(.max_score)\"/>\n"
      + "      <property name=\"graded_max_score\" value=\"\(.graded_max_score)\"/>\n"
      + "      <property name=\"submission\" value=\"\(.submission | x)\"/>\n"
      + "    </properties>\n"
      + ([.labs[] | case($s)] | join(""))
      + "  </testsuite>\n";
"<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
+ "<testsuites name=\"cudatutor grade\" tests=\"\([.[].labs | length] | add // 0)\""
+ " failures=\"\([.[].labs[] | select(kind == "failure")] | length)\""
+ " errors=\"\([.[].labs[] | select(kind == "error")] | length)\""
+ " skipped=\"\([.[].labs[] | select(kind == "skipped")] | length)\">\n"
+ ([.[] | suite] | join(""))
+ "</testsuites>"
'

# score_student DIR ID: DIR holds intake.json and labs/NN.json; writes
# report.json, results.json and junit.xml there.
score_student() {
    local dir=$1 id=$2 lab
    local -a slurp=()
    for lab in $(jq -r '.labs | keys[]' "$dir/intake.json"); do
        [ -f "$dir/labs/$lab.json" ] && slurp+=(--slurpfile "r$lab" "$dir/labs/$lab.json")
    done
    # One object of the lab reports: {"01": {...}, ...} from $r01, $r02, ...
    local build='{}'
    for lab in $(jq -r '.labs | keys[]' "$dir/intake.json"); do
        [ -f "$dir/labs/$lab.json" ] && build="$build + {\"$lab\": \$r${lab}[0]}"
    done
    jq -n --slurpfile rubric_f "$RUBRIC" --slurpfile catalog_f "$STATE/catalog.json" \
        --slurpfile intake_f "$dir/intake.json" ${slurp[@]+"${slurp[@]}"} \
        --arg student "$id" --arg sandbox "${SANDBOX:-none}" --arg rubric_sha "$RUBRIC_SHA" \
        --arg now "$(date -u +%Y-%m-%dT%H:%M:%SZ)" \
        "\$rubric_f[0] as \$rubric | \$catalog_f[0] as \$catalog | \$intake_f[0] as \$intake
         | ($build) as \$reports | $SCORE_JQ" > "$dir/report.json.tmp" || return 1
    mv "$dir/report.json.tmp" "$dir/report.json"
    jq --slurpfile rubric_f "$RUBRIC" "\$rubric_f[0] as \$rubric | $GRADESCOPE_JQ" "$dir/report.json" > "$dir/results.json.tmp" &&
        mv "$dir/results.json.tmp" "$dir/results.json" || return 1
    jq -rs "$JUNIT_JQ" "$dir/report.json" > "$dir/junit.xml.tmp" && mv "$dir/junit.xml.tmp" "$dir/junit.xml"
}

# finish_student ID: the student's reports into STUDENTS/ID (atomically),
# then the work folder goes.
finish_student() {
    local id=$1 src="$WORK/$1" tmp="$STUDENTS/.tmp-$1" lab
    rm -rf "$tmp"
    mkdir -p "$tmp/labs" "$tmp/logs"
    cp "$src/intake.json" "$tmp/"
    for lab in $(jq -r '.labs | keys[]' "$src/intake.json"); do
        [ -f "$src/$lab/final.json" ] && cp "$src/$lab/final.json" "$tmp/labs/$lab.json"
        [ -f "$src/$lab/build.log" ] && cp "$src/$lab/build.log" "$tmp/logs/$lab-build.log"
        [ -f "$src/$lab/run.log" ] && cp "$src/$lab/run.log" "$tmp/logs/$lab-run.log"
    done
    score_student "$tmp" "$id" || return 1
    rm -rf "${STUDENTS:?}/$id"
    mv "$tmp" "$STUDENTS/$id"
    [ "$KEEP_WORK" = 1 ] || rm -rf "$src"
    echo "S $id" >> "$STATE/events"
}

# write_class_reports: grades.csv, junit.xml and summary.txt from every
# student report in the output folder.
write_class_reports() {
    local -a reports=("$STUDENTS"/*/report.json)
    if [ ${#reports[@]} -eq 0 ]; then
        : > "$OUT/grades.csv"
        return
    fi
    # shellcheck disable=SC2016
    jq -rs '
        sort_by(.student) as $all
        | ([$all[].labs[].lab] | unique) as $ids
        | (["student", "submission", "score", "max_score", "graded_max_score", "labs_not_graded"]
           + $ids + [$ids[] | "status_" + .] + ["refused"]) ,
          ($all[] | . as $s
           | [.student, .submission, .score, .max_score, .graded_max_score, .labs_not_graded]
             + [$ids[] as $i | ([$s.labs[] | select(.lab == $i)][0]) | if . == null or .score == null then "" else .score end]
             + [$ids[] as $i | ([$s.labs[] | select(.lab == $i)][0]) | if . == null then "" else .status end]
             + [.refused // ""])
        | @csv' "${reports[@]}" > "$OUT/grades.csv.tmp"
    mv "$OUT/grades.csv.tmp" "$OUT/grades.csv"
    jq -rs "sort_by(.student) | $JUNIT_JQ" "${reports[@]}" > "$OUT/junit.xml.tmp"
    mv "$OUT/junit.xml.tmp" "$OUT/junit.xml"
    summary_table "${reports[@]}" > "$OUT/summary.txt"
}

# summary_table REPORT...: one line per student, a letter per lab.
summary_table() {
    # shellcheck disable=SC2016
    jq -rs '
        def code: {pass: "P", fail: "F", compile_error: "C", rejected: "R", runtime_error: "E",
                   timeout: "T", no_gpu: "N", internal_error: "!", missing: "-", unchanged: "-",
                   refused: "X"}[.status] as $c
                  | if .status == "pass" and (.target.met | not) then "p" else ($c // "?") end;
        def pad($n): tostring | if length >= $n then . else . + (" " * ($n - length)) end;
        def lpad($n): tostring | if length >= $n then . else (" " * ($n - length)) + . end;
        sort_by(.student)
        | ("student" | pad(24)) + ("score" | lpad(8)) + ("of" | lpad(8)) + "  labs " + ([.[0].labs[].lab] | join(" ")),
          (.[] | (.student | pad(24)) + (.score | lpad(8)) + (.graded_max_score | lpad(8)) + "       "
                 + ([.labs[] | code + " "] | join(" "))
                 + (if .labs_not_graded > 0 then " (\(.labs_not_graded) not graded)" else "" end)),
          "",
          "P pass, target met  p pass, target not met  F fail  C compile error  R rejected",
          "E runtime error  T timeout  N not graded: no GPU  ! grader error  - missing or unchanged  X refused",
          "\(length) students; mean \(([.[].score] | add) / length | . * 100 | round / 100) of \(.[0].max_score)"
          + (if ([.[] | select(.labs_not_graded > 0)] | length) > 0
             then "; \([.[] | select(.labs_not_graded > 0)] | length) with labs not graded" else "" end)
        ' "$@"
}

# exit_status REPORT...: 4 when a lab hit an internal error, 3 when a lab
# was not graded for want of a GPU, else 0.
exit_status() {
    [ $# -gt 0 ] || { echo 0; return; }
    jq -rs '[.[].labs[].status] as $s
            | if ($s | index(["internal_error"])) != null then 4
              elif ($s | index(["no_gpu"])) != null then 3 else 0 end' "$@"
}

# ---- grading -----------------------------------------------------------------

# progress_line: one line on the terminal while grading.
progress_line() {
    local b c s
    b=$(grep -c '^B ' "$STATE/events" || true)
    c=$(grep -c '^C ' "$STATE/events" || true)
    s=$(grep -c '^S ' "$STATE/events" || true)
    printf '\r\033[K[grade] %d/%d students  built %d/%d  checked %d/%d  %ds' \
        "$s" "$NSTUDENTS" "$b" "$NJOBS" "$c" "$NJOBS" $(( $(date +%s) - T0 ))
}

# descendants PID: the processes PID started, and theirs, by parent id.
descendants() {
    ps -eo pid=,ppid= 2>/dev/null | awk -v root="$1" '
        { parent[$1] = $2 }
        END {
            for (p in parent) {
                q = p
                while ((q in parent) && q != root && q > 1) q = parent[q]
                if (q == root && p != root) print p
            }
        }'
}

# on_interrupt: stops the workers this script started and everything they
# started (builds, checks, harnesses); the output folder keeps every
# finished student for the next run.
on_interrupt() {
    trap - INT TERM
    local pid
    local -a all=()
    for pid in ${BG_PIDS[@]+"${BG_PIDS[@]}"}; do
        mapfile -t -O "${#all[@]}" all < <(descendants "$pid")
        all+=("$pid")
    done
    [ ${#all[@]} -eq 0 ] || kill -TERM "${all[@]}" 2>/dev/null || true
    sleep 1
    [ ${#all[@]} -eq 0 ] || kill -KILL "${all[@]}" 2>/dev/null || true
    wait 2>/dev/null || true
    echo "" >&2
    echo "grade.sh: interrupted; run the same command again to resume (finished students are kept)" >&2
    exit 130
}

# grade_submissions: intake, builds, runs and reports for SUB_* ; sets
# GRADED_IDS to the students of this run.
grade_submissions() {
    local i id lab n skipped=0
    T0=$(date +%s)
    run_opts
    : > "$STATE/jobs.tsv"
    : > "$STATE/errors"
    rm -f "$STATE"/queue-*
    GRADED_IDS=()
    NSTUDENTS=0
    for i in "${!SUB_IDS[@]}"; do
        id=${SUB_IDS[$i]}
        if [ "$FORCE" = 0 ] && [ -f "$STUDENTS/$id/report.json" ]; then
            skipped=$((skipped + 1))
            continue
        fi
        GRADED_IDS+=("$id")
        NSTUDENTS=$((NSTUDENTS + 1))
        intake_submission "$id" "${SUB_NAMES[$i]}" "${SUB_PATHS[$i]}"
        n=0
        for lab in $(jq -r '.labs | to_entries[] | select(.value.state == "ok") | .key' "$WORK/$id/intake.json"); do
            mkdir -p "$WORK/$id/$lab"
            printf '%s\t%s\n' "$id" "$lab" >> "$STATE/jobs.tsv"
            n=$((n + 1))
        done
        echo "$n" > "$WORK/$id/.njobs"
        own_for_sandbox "$WORK/$id"
    done
    [ "$skipped" = 0 ] || say "$skipped student(s) already graded in $OUT: skipped (--force grades them again)"
    NJOBS=$(wc -l < "$STATE/jobs.tsv")
    # Students with nothing to build are finished at once.
    for id in ${GRADED_IDS[@]+"${GRADED_IDS[@]}"}; do
        [ "$(cat "$WORK/$id/.njobs")" != 0 ] || maybe_finish "$id"
    done
    [ "$NJOBS" -gt 0 ] || return 0
    local checks=$CHECK_RUNS
    say "grading $NSTUDENTS student(s): $NJOBS kernel(s) to build (-j $JOBS), $checks run(s) at once per GPU, timed one at a time"

    BG_PIDS=()
    trap on_interrupt INT TERM
    build_pool &
    BG_PIDS+=($!)
    local g _slot
    for g in "${GPUS[@]}"; do
        for _slot in $(seq "$checks"); do
            check_worker "$g" &
            BG_PIDS+=($!)
        done
    done
    local tty=0
    [ "$QUIET" = 0 ] && [ -t 1 ] && tty=1
    while :; do
        local alive=0 pid
        for pid in "${BG_PIDS[@]}"; do
            kill -0 "$pid" 2>/dev/null && alive=1
        done
        [ "$tty" = 0 ] || progress_line
        [ "$alive" = 1 ] || break
        sleep 0.5
    done
    wait || true
    trap - INT TERM
    [ "$tty" = 0 ] || printf '\r\033[K'
    # Whoever a worker could not finish (it died) is finished here.
    for id in "${GRADED_IDS[@]}"; do
        [ -f "$STUDENTS/$id/report.json" ] && continue
        for lab in $(jq -r '.labs | to_entries[] | select(.value.state == "ok") | .key' "$WORK/$id/intake.json"); do
            [ -f "$WORK/$id/$lab/final.json" ] && continue
            verdict_or_error /dev/null "$lab" "the lab was never run" "$WORK/$id/$lab/run.log" > "$WORK/$id/$lab/final.json"
        done
        rmdir "$WORK/$id/.finishing" 2>/dev/null || true
        maybe_finish "$id"
    done
}

# write_run_json: what this run was (not compared between runs).
write_run_json() {
    jq -n --arg sandbox "$SANDBOX" --arg notes "${SANDBOX_NOTES:-}" --arg rubric "$RUBRIC" \
        --arg sha "$RUBRIC_SHA" --arg workbook "$PRISTINE" --arg started "$(date -u -d "@$T0" +%Y-%m-%dT%H:%M:%SZ)" \
        --arg seconds "$(( $(date +%s) - T0 ))" --arg shard "${SHARD:-}" --arg gpus "${GPUS[*]}" \
        --arg labs "${LABS[*]}" --arg slots "${CHECK_RUNS:-0}" --arg quick "$QUICK" --arg sanitize "$SANITIZE" --arg scale "$TIMEOUT_SCALE" --arg calibrate "$CALIBRATE" \
        --arg seed "$SEED" --arg checks "${PROBE_FACTS:-}" --argjson graded "$(printf '%s\n' ${GRADED_IDS[@]+"${GRADED_IDS[@]}"} | jq -R . | jq -s 'map(select(. != ""))')" \
        '{schema: 1, sandbox: $sandbox, sandbox_checks: ($checks | split(" ") | map(select(. != ""))), sandbox_notes: $notes, rubric: $rubric, rubric_sha256: $sha,
          workbook: $workbook, started: $started, seconds: ($seconds | tonumber), shard: $shard,
          gpus: $gpus, check_runs: ($slots | tonumber), labs: ($labs | split(" ")), quick: ($quick == "1"), sanitize: ($sanitize == "1"),
          timeout_scale: ($scale | tonumber), calibrate: ($calibrate == "1"), fixed_seed: (if $seed == "" then null else ($seed | tonumber) end),
          graded_now: $graded}' > "$OUT/run.json"
}

# finish_reports: class reports, the table, and the exit code.
finish_reports() {
    local -a reports=("$STUDENTS"/*/report.json)
    write_class_reports
    if [ "$QUIET" = 0 ] && [ ${#reports[@]} -gt 0 ]; then
        cat "$OUT/summary.txt"
        echo "reports: $OUT (grades.csv, junit.xml, students/ID/{report.json,results.json,junit.xml})"
    fi
    local code
    code=$(exit_status "${reports[@]+"${reports[@]}"}")
    if [ -s "$STATE/errors" ]; then
        cat "$STATE/errors" >&2
        code=$EXIT_INTERNAL
    fi
    return "$code"
}

# do_grade: the whole grading of the submissions on the command line.
do_grade() {
    setup_workbook
    setup_out
    load_catalog
    load_rubric
    collect_submissions
    detect_gpus
    setup_gpu_runs
    choose_sandbox
    calibrate
    grade_submissions
    write_run_json
    local code=0
    finish_reports || code=$?
    exit "$code"
}

# ---- merge and rescore -------------------------------------------------------

# do_merge: the students of every shard output folder into --out, then the
# class reports over all of them.
do_merge() {
    local shard dir id n=0
    setup_workbook
    [ -n "$OUT" ] || die_usage "--merge needs --out DIR"
    for shard in "${SUBMISSIONS[@]}"; do
        [ -d "$shard/students" ] || die_usage "$shard is not a grade.sh output folder (no students/)"
    done
    setup_out
    load_catalog
    for shard in "${SUBMISSIONS[@]}"; do
        shard=$(cd "$shard" && pwd -P)
        [ "$shard" != "$OUT" ] || continue
        for dir in "$shard"/students/*/; do
            id=$(basename -- "$dir")
            [ -f "$dir/report.json" ] || continue
            if [ -d "$STUDENTS/$id" ] && ! cmp -s "$dir/report.json" "$STUDENTS/$id/report.json"; then
                warn "$id is in more than one shard: keeping the one from $shard"
            fi
            rm -rf "$STUDENTS/.tmp-$id"
            cp -R "$dir" "$STUDENTS/.tmp-$id"
            rm -rf "${STUDENTS:?}/$id"
            mv "$STUDENTS/.tmp-$id" "$STUDENTS/$id"
            n=$((n + 1))
        done
    done
    say "merged $n student(s) into $OUT"
    local code=0
    finish_reports || code=$?
    exit "$code"
}

# do_rescore: the rubric applied again to every student's saved verdicts.
do_rescore() {
    local dir id n=0
    setup_workbook
    [ -d "${OUT:-grade-out}/students" ] || die_usage "${OUT:-grade-out} has no students/ to rescore"
    setup_out
    load_catalog
    LABS=("${ALL_LABS[@]}")
    load_rubric
    SANDBOX=$(jq -r '.sandbox // "none"' "$OUT/run.json" 2>/dev/null || echo none)
    for dir in "$STUDENTS"/*/; do
        id=$(basename -- "$dir")
        [ -f "$dir/intake.json" ] || continue
        SANDBOX=$(jq -r '.grader.sandbox // "none"' "$dir/report.json" 2>/dev/null || echo none)
        score_student "${dir%/}" "$id" || die_internal "cannot rescore $id"
        n=$((n + 1))
    done
    say "rescored $n student(s) with $RUBRIC"
    local code=0
    finish_reports || code=$?
    exit "$code"
}

# ---- self-test ---------------------------------------------------------------

# do_selftest: grades the reference solutions and every kernel of the bank
# (tests/bank/*.cu, first line "// bank: lab=NN expect=STATUS") as if they
# were students, and shows that each got its expected verdict; a bank
# kernel with an "// escape: PATH" line must also have left nothing at PATH
# (relative to its work folder).
do_selftest() {
    CALIBRATE=0         # it judges verdicts, not targets
    setup_workbook
    if [ ! -d "$PRISTINE/tests/bank" ] || [ ! -d "$PRISTINE/solutions" ]; then
        die_usage "--selftest needs the workbook's solutions/ and tests/bank/"
    fi
    OUT=${OUT:-$(mktemp -d "${TMPDIR:-/tmp}/grade-selftest.XXXXXX")}
    FORCE=1
    setup_out
    load_catalog
    load_rubric
    local subs="$STATE/selftest" f name meta lab want want_cpu escape ldir
    rm -rf "$subs"
    mkdir -p "$subs"
    : > "$STATE/expect.tsv"
    for lab in "${LABS[@]}"; do
        ldir=$(lab_field "$lab" dir)
        mkdir -p "$subs/solutions/$ldir"
        cp "$PRISTINE/solutions/$(basename -- "$ldir")/kernel.cu" "$subs/solutions/$ldir/"
        printf 'solutions\t%s\tpass\tno_gpu\t\n' "$lab" >> "$STATE/expect.tsv"
    done
    for f in "$PRISTINE"/tests/bank/*.cu; do
        name=$(basename -- "$f" .cu)
        meta=$(head -n1 "$f")
        lab=$(sed -n 's/.*lab=\([0-9][0-9]\).*/\1/p' <<< "$meta")
        want=$(sed -n 's/.*expect=\([a-z_]*\).*/\1/p' <<< "$meta")
        # Without a GPU the runner's plans are still checked: cpu= is the
        # verdict expected there (default: rejected stays, the rest no_gpu).
        want_cpu=$(sed -n 's/.*cpu=\([a-z_]*\).*/\1/p' <<< "$meta")
        [ -n "$want_cpu" ] || { [ "$want" = rejected ] && want_cpu=rejected || want_cpu=no_gpu; }
        escape=$(sed -n 's|^// escape: *||p' "$f" | head -n1)
        if [ -z "$lab" ] || [ -z "$want" ]; then
            warn "$f: no '// bank: lab=NN expect=STATUS' line"
            continue
        fi
        [[ " ${LABS[*]} " == *" $lab "* ]] || continue
        # shellcheck disable=SC2053  # a glob on purpose
        [[ $name == $BANK_GLOB ]] || continue
        ldir=$(lab_field "$lab" dir)
        mkdir -p "$subs/bank-$name/$ldir"
        cp "$f" "$subs/bank-$name/$ldir/kernel.cu"
        [ -z "$escape" ] || rm -f "$(realpath -m -- "$WORK/bank-$name/$lab/$escape")"
        printf 'bank-%s\t%s\t%s\t%s\t%s\n' "$name" "$lab" "$want" "$want_cpu" "$escape" >> "$STATE/expect.tsv"
    done
    SUBMISSIONS=("$subs"/*)
    collect_submissions
    detect_gpus
    setup_gpu_runs
    choose_sandbox
    grade_submissions
    write_run_json
    write_class_reports

    local right=0 wrong=0 notrun=0 got verdict id gotfile outlen
    printf '%-28s %-4s %-15s %-15s %s\n' submission lab expected got verdict
    while IFS=$'\t' read -r id lab want want_cpu escape; do
        gotfile="$STUDENTS/$id/report.json"
        got=$(jq -r --arg lab "$lab" '.labs[] | select(.lab == $lab) | .status' "$gotfile" 2>/dev/null || echo none)
        if [ "$got" = "$want" ]; then
            verdict=right
        elif [ "$got" = "$want_cpu" ] && [ "$got" != no_gpu ] && [ -z "${GPUS[*]}" ]; then
            verdict="right without a GPU"
        elif [ "$got" = no_gpu ]; then
            verdict="not run (no GPU)"
        else
            verdict=WRONG
        fi
        outlen=$(jq -r '.output // "" | length' "$STUDENTS/$id/labs/$lab.json" 2>/dev/null || echo 0)
        if [ "$outlen" -gt 9000 ]; then
            verdict="WRONG: $outlen bytes of output kept (the cap is 8 KiB)"
        elif [ -n "$escape" ] && [ -e "$(realpath -m -- "$WORK/$id/$lab/$escape")" ]; then
            verdict="WRONG: $escape was created outside the work folder"
        elif [ -n "$escape" ] && [ "$got" != no_gpu ]; then
            verdict="$verdict; $escape not created"
        fi
        case "$verdict" in
            right*) right=$((right + 1)) ;;
            WRONG*) wrong=$((wrong + 1)) ;;
            *) notrun=$((notrun + 1)) ;;
        esac
        printf '%-28s %-4s %-15s %-15s %s\n' "$id" "$lab" "$want" "$got" "$verdict"
    done < "$STATE/expect.tsv"
    echo "selftest: $right judged right, $wrong wrong, $notrun not run; sandbox: $SANDBOX${PROBE_FACTS:+ (checked: $PROBE_FACTS)}; reports in $OUT"
    [ "$KEEP_WORK" = 1 ] || rm -rf "$WORK"
    if [ "$wrong" -gt 0 ]; then exit "$EXIT_WRONG"; fi
    if [ "$notrun" -gt 0 ]; then exit "$EXIT_NO_GPU"; fi
    exit "$EXIT_OK"
}

# main "$@": one of grade, merge, rescore or selftest.
main() {
    parse_args "$@"
    case "$MODE" in
        grade) do_grade ;;
        merge) do_merge ;;
        rescore) do_rescore ;;
        selftest) do_selftest ;;
    esac
}

main "$@"
