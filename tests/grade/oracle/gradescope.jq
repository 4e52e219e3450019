# gradescope.jq — grade.sh's GRADESCOPE_JQ (its last version, commit 23af5fd), kept as the
# oracle tests/unit/test_report.c compares the C reports with, byte for
# byte.  Changed only where the one wording changed: a status's meaning
# comes from $statuses (status.h's table, written by the test), and a lab
# not graded reads "not graded: " and its summary.  Never run by the grader.
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
              tags: [.status], extra_data: {status: .status}} ],
  extra_data: {student: .student, submission: .submission, labs_not_graded: .labs_not_graded} }
