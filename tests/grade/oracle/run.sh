#!/usr/bin/env bash
# tests/grade/oracle/run.sh — grade.sh's jq programs run the way grade.sh
# ran them (score_student, write_class_reports), as the oracle of
# tests/unit/test_report.c.  META is a JSON file the test writes:
# {"statuses": [{name, letter, meaning}...] (status.h's table),
#  "sha", "sandbox", "now", "catalog": [{id, title}...]}.
#
#   run.sh student DIR ID RUBRIC META   DIR/oracle/{report.json,results.json,junit.xml}
#   run.sh class OUT META               OUT/oracle/{grades.csv,junit.xml,summary.txt}
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
case "$1" in
student)
    dir=$2 id=$3 rubric=$4 meta=$5
    mkdir -p "$dir/oracle"
    slurp=() build='{}'
    for lab in $(jq -r '.labs | keys[]' "$dir/intake.json"); do
        if [ -f "$dir/labs/$lab.json" ]; then
            slurp+=(--slurpfile "r$lab" "$dir/labs/$lab.json")
            build="$build + {\"$lab\": \$r${lab}[0]}"
        fi
    done
    jq -n --slurpfile rubric_f "$rubric" --slurpfile meta_f "$meta" \
        --slurpfile intake_f "$dir/intake.json" ${slurp[@]+"${slurp[@]}"} --arg student "$id" \
        "\$rubric_f[0] as \$rubric | \$meta_f[0].catalog as \$catalog | \$intake_f[0] as \$intake
         | \$meta_f[0].statuses as \$statuses | \$meta_f[0].sha as \$rubric_sha
         | \$meta_f[0].sandbox as \$sandbox | \$meta_f[0].now as \$now
         | ($build) as \$reports | $(cat "$here/score.jq")" > "$dir/oracle/report.json"
    jq --slurpfile rubric_f "$rubric" "\$rubric_f[0] as \$rubric | $(cat "$here/gradescope.jq")" \
        "$dir/oracle/report.json" > "$dir/oracle/results.json"
    jq -rs "$(cat "$here/junit.jq")" "$dir/oracle/report.json" > "$dir/oracle/junit.xml"
    ;;
class)
    out=$2 meta=$3
    mkdir -p "$out/oracle"
    reports=("$out"/students/*/report.json)
    jq -rs "$(cat "$here/csv.jq")" "${reports[@]}" > "$out/oracle/grades.csv"
    jq -rs "sort_by(.student) | $(cat "$here/junit.jq")" "${reports[@]}" > "$out/oracle/junit.xml"
    jq -rs --slurpfile meta_f "$meta" "\$meta_f[0].statuses as \$statuses | $(cat "$here/summary.jq")" \
        "${reports[@]}" > "$out/oracle/summary.txt"
    ;;
*)
    echo "usage: run.sh student DIR ID RUBRIC META | run.sh class OUT META" >&2
    exit 2
    ;;
esac
