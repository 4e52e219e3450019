# score.jq — grade.sh's SCORE_JQ (its last version, commit 23af5fd), kept as the
# oracle tests/unit/test_report.c compares the C reports with, byte for
# byte.  Changed only where the one wording changed: a status's meaning
# comes from $statuses (status.h's table, written by the test), and a lab
# not graded reads "not graded: " and its summary.  Never run by the grader.
def r2: (. * 100 | round) / 100;
def clamp01: if . < 0 then 0 elif . > 1 then 1 else . end;
def pts($id): ($rubric.labs[$id] // $rubric.default);
def meaning: ($statuses | map({key: .name, value: .meaning}) | from_entries)[.] // .;
def cal($t): if $t.catalog_min then " (lowered for this GPU from the catalog\u0027s \($t.catalog_min))" else "" end;
def perf($rep):
    ($rep.target // null) as $t
    | ($rubric.performance.partial_from // 0.5) as $f
    | if $t == null then {credit: 0, why: "not timed"}
      elif ([($rep.perf // [])[] | select(.label == $t.case) | .implausible == true] | any)
        then {credit: 0, why: "the timing was implausible (faster than the measured peak)"}
      elif $t.met == true then {credit: 1, why: "\($t.metric) \($t.value | r2) at \($t.case): target \($t.min)\(cal($t)) met"}
      elif ($t.value | type) != "number" or ($t.min // 0) <= 0 then {credit: 0, why: "not timed"}
      else {credit: (if $f >= 1 then 0 else (($t.value / $t.min - $f) / (1 - $f)) | clamp01 end),
            why: "\($t.metric) \($t.value | r2) at \($t.case): target \($t.min)\(cal($t)) not met (credit from \($f) x the target)"}
      end;
def clean: if type == "string" then gsub("[^[:space:]:\"]*/work/[^/[:space:]]+/wb/"; "") else . end;
def text($e; $rep):
    ($rep.summary // $e.intake.why // ($e.status | meaning)) as $head
    | [ if ($e.graded | not) then "not graded: " + $head else $head end ]
    + (if $e.intake.why and $e.intake.why != $head and $e.intake.why != ($e.status | meaning) then [$e.intake.why] else [] end)
    + (if $e.graded then ["score \($e.score) of \($e.max_score): correctness \($e.correctness.score) of \($e.correctness.max), performance \($e.performance.score) of \($e.performance.max)" + (if $e.performance.why then " (" + $e.performance.why + ")" else "" end)] else [] end)
    + [($rep.compile.diagnostics // [])[:5][] | "\(.file):\(.line): \(.severity): \(.message)"]
    + [($rep.symbols.violations // [])[:5][] | "\(if .defined then "defines" else "uses" end) \(.symbol): \(.rule)"]
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
