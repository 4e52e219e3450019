# junit.jq — grade.sh's JUNIT_JQ (its last version, commit 23af5fd), kept as the
# oracle tests/unit/test_report.c compares the C reports with, byte for
# byte.  Changed only where the one wording changed: a status's meaning
# comes from $statuses (status.h's table, written by the test), and a lab
# not graded reads "not graded: " and its summary.  Never run by the grader.
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
