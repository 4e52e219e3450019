# csv.jq — grade.sh's grades.csv program (write_class_reports, its last
# version, commit 23af5fd), unchanged: the oracle tests/unit/test_report.c
# compares report_csv with.  Run with jq -rs over the report.json files.
sort_by(.student) as $all
| ([$all[].labs[].lab] | unique) as $ids
| (["student", "submission", "score", "max_score", "graded_max_score", "labs_not_graded"]
   + $ids + [$ids[] | "status_" + .] + ["refused"]) ,
  ($all[] | . as $s
   | [.student, .submission, .score, .max_score, .graded_max_score, .labs_not_graded]
     + [$ids[] as $i | ([$s.labs[] | select(.lab == $i)][0]) | if . == null or .score == null then "" else .score end]
     + [$ids[] as $i | ([$s.labs[] | select(.lab == $i)][0]) | if . == null then "" else .status end]
     + [.refused // ""])
| @csv
