# summary.jq — grade.sh's summary_table (its last version, commit 23af5fd),
# the oracle tests/unit/test_report.c compares report_summary with.
# Changed where the one wording changed: the letters and the legend come
# from $statuses (status.h's table, written by the test): a line per
# letter, its statuses' meanings joined by "; or ", the pass's letter
# twice (target met, and in lower case not met).  Run with jq -rs.
def code: ($statuses | map({key: .name, value: .letter}) | from_entries)[.status] as $c
          | if .status == "pass" and (.target.met | not) then ($c | ascii_downcase) else ($c // "?") end;
def pad($n): tostring | if length >= $n then . else . + (" " * ($n - length)) end;
def lpad($n): tostring | if length >= $n then . else (" " * ($n - length)) + . end;
def legend:
    ($statuses | map(.letter) | reduce .[] as $l ([]; if index([$l]) then . else . + [$l] end)) as $letters
    | [ $letters[] as $l
        | [$statuses[] | select(.letter == $l)] as $s
        | ($l + " " + ([$s[].meaning] | join("; or ")))
          + (if $s[0].name == "pass"
             then ", target met\n" + ($l | ascii_downcase) + " " + $s[0].meaning + ", target not met" else "" end) ]
    | join("\n");
sort_by(.student)
| ("student" | pad(24)) + ("score" | lpad(8)) + ("of" | lpad(8)) + "  labs " + ([.[0].labs[].lab] | join(" ")),
  (.[] | (.student | pad(24)) + (.score | lpad(8)) + (.graded_max_score | lpad(8)) + "       "
         + ([.labs[] | code + " "] | join(" "))
         + (if .labs_not_graded > 0 then " (\(.labs_not_graded) not graded)" else "" end)),
  "",
  legend,
  "\(length) students; mean \(([.[].score] | add) / length | . * 100 | round / 100) of \(.[0].max_score)"
  + (if ([.[] | select(.labs_not_graded > 0)] | length) > 0
     then "; \([.[] | select(.labs_not_graded > 0)] | length) with labs not graded" else "" end)
