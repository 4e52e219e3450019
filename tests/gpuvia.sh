#!/usr/bin/env bash
# tests/gpuvia.sh — a check whose GPU is elsewhere (--gpu-via), on a
# stand-in srun (tests/gpuvia/srun: records its arguments, runs the rest
# here, can queue or fail) and a stand-in GPU judge (tests/gpuvia/judge; the
# CPU tier's judge is the real one), so that it runs the same with a GPU or
# without one.  Shown: a check through the command (the CPU tier here, the
# GPU's report there, the student's text kept as text), also through a
# command that passes one string as ssh does; a GPU judge that finds no GPU
# there (the CPU tier's report, saying so); the GPU's arch
# asked once through the command and the kernel built for it; a queued wait
# shown, then cancelled by ^C and by the tutor's q (the command's whole
# process group gone); a command that fails to start (its error named, the
# CPU tier's verdict kept, shown beside it, remembered for 300 s); a wait
# past the bound; the race checkers
# started by the relay beside the judge (a stand-in compute-sanitizer:
# clean, a race, stopped when the judge fails); the settings (flag,
# environment, cudatutor.conf, a bad line); and the attack: a "kernel"
# that prints forged frames does not change the verdict through the relay,
# and does through a relay that takes the judge's stdout for its stream;
# nor does a whole run forged by the command itself, without the nonce.
. "$(dirname "$0")/lib.sh"
cd "$ROOT"
unset CUDATUTOR_NO_EMULATOR CUDATUTOR_GPU_VIA CUDATUTOR_GPU_VIA_WAIT CUDATUTOR_GPU_RELAY

LAB=07
SOL="$ROOT/solutions/$(lab_dir $LAB)/kernel.cu"
SRUN="$ROOT/tests/gpuvia/srun"
export SRUN_LOG="$TMP/srun.log" SRUN_PIDS="$TMP/srun.pids" FAKE_LOG="$TMP/judge.log"

# The harness folder: the real one, but the GPU judge of lab 07's family is
# the stand-in.
mkdir -p "$TMP/hx" "$TMP/bin"
for f in "$ROOT"/build/harness/*; do ln -s "$f" "$TMP/hx/"; done
rm -f "$TMP/hx/judge_reduce_int"
ln -s "$ROOT/tests/gpuvia/judge" "$TMP/hx/judge_reduce_int"
export CUDATUTOR_HARNESS_DIR="$TMP/hx"
# The far end's nvidia-smi: FAKE_CC is the compute capability it names.
cat > "$TMP/bin/nvidia-smi" <<'EOF'
#!/bin/sh
echo "${FAKE_NAME:-NVIDIA A100-SXM4-80GB}, ${FAKE_CC:-8.0}"
EOF
# The login node's scancel: it logs the job it was asked to cancel.
printf '#!/bin/sh\necho "$*" >> "%s/scancel.log"\n' "$TMP" > "$TMP/bin/scancel"
chmod +x "$TMP/bin/nvidia-smi" "$TMP/bin/scancel"
export PATH="$TMP/bin:$PATH"

# via ARGS...: a check of lab 07's solution; its JSON in $TMP/out.json, its
# stderr in $TMP/err, its exit code in $rc.  A failure of the GPU side
# that gpu-via.json remembers is forgotten first ($KEEP_FAILURE keeps it),
# so that each section asks the command.
via() {
    if [ -z "${KEEP_FAILURE:-}" ] && [ -f "$TMP/gpu-via.json" ]; then
        jq 'del(.failure)' "$TMP/gpu-via.json" > "$TMP/gv.json" && mv "$TMP/gv.json" "$TMP/gpu-via.json"
    fi
    "$TUTOR" check $LAB --file "$SOL" --work-dir "$TMP/w" --json "$@" > "$TMP/out.json" 2> "$TMP/err"
    rc=$?
}
field() { jq -r "$1" "$TMP/out.json" 2>/dev/null; }
# gone PIDFILE: no process of those pids is alive (a zombie that no init
# reaps, as in a container, is dead).
gone() {
    local p st
    for p in $(cat "$1" 2>/dev/null); do
        st=$(sed 's/^.*) //' "/proc/$p/stat" 2>/dev/null | cut -c1)
        [ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ] && return 1
    done
    return 0
}

# ---- a check through the command ---------------------------------------------
rm -f "$SRUN_LOG"
via --gpu-via "$SRUN -p gpu --gres=gpu:1 -t 2"
if [ "$rc" = 0 ] && [ "$(field .status)" = pass ] && [ "$(field .gpu_via.ran)" = true ] &&
   [ "$(field .device.name)" = "NVIDIA H100 80GB HBM3" ] && [ "$(field .gpu_via.cpu_status)" = pass ] &&
   [ "$(field 'has("emulator")')" = false ]; then
    ok "a check through the command: the CPU tier passed here, the GPU's report came back"
else
    not_ok "a check through the command" "rc=$rc" "$(cat "$TMP/out.json" "$TMP/err" | head -40)"
fi
check "the command got srun's words, then the relay" \
    grep -qx -- "-p gpu --gres=gpu:1 -t 2 $TUTOR gpu-relay" "$SRUN_LOG"
check "the student's text came back as output: the kernel's and the launcher's" \
    bash -c "jq -r .output '$TMP/out.json' | grep -q 'kernel printf: hello' &&
             jq -r .output '$TMP/out.json' | grep -q 'launcher printf: hello'"
# With no compute-sanitizer beside nvcc (CI), nothing runs the checkers at
# the far end, and the report says the emulator's pass checked races; with
# one (a GPU machine), the relay runs it there, as the next section shows.
NVCC_DIR=$(dirname "$(command -v nvcc 2>/dev/null || echo /usr/local/cuda/bin/nvcc)")
if [ -x "$NVCC_DIR/compute-sanitizer" ] || [ -x "$NVCC_DIR/../compute-sanitizer/compute-sanitizer" ]; then
    skip "the race checkers are not run here: the report says the emulator checked" \
        "a compute-sanitizer is installed beside nvcc: the relay runs it at the far end"
else
    check "the race checkers are not run here: the report says the emulator checked" \
        bash -c "jq -r .sanitizer.note '$TMP/out.json' | grep -q 'gpu-via'"
fi

# ---- the race checkers, beside the judge at the far end -----------------
# A stand-in compute-sanitizer on PATH (here and there: one machine) logs
# which process started it.
mkdir -p "$TMP/sanbin"
ln -s "$ROOT/tests/gpuvia/compute-sanitizer" "$TMP/sanbin/compute-sanitizer"
export SAN_LOG="$TMP/san.log"
PATH="$TMP/sanbin:$PATH" via --gpu-via "$SRUN -p gpu --gres=gpu:1 -t 2"
if [ "$(field .status)" = pass ] && [ "$(field .sanitizer.ran)" = true ] &&
   [ "$(field '[.sanitizer.tools[] | select(.clean)] | length')" = 3 ] &&
   [ "$(grep -c "gpu-relay" "$SAN_LOG")" = 3 ]; then
    ok "racecheck, synccheck and memcheck ran beside the judge at the far end (started by the relay), clean"
else
    not_ok "the race checkers at the far end" "$(field .sanitizer)" "$(cat "$SAN_LOG" 2>&1)"
fi
# Each tool watches the student's kernels, by name, and only them.
entries=$(grep -o '\.entry [A-Za-z_$][A-Za-z0-9_$]*' "$TMP/w/keep/kernel.ptx" | sed 's/^\.entry /kne=/' | tr '\n' ' ')
watched=0
for tool in racecheck synccheck memcheck; do
    grep -qxF "$tool [${entries% }] $(grep -m1 "^$tool" "$SAN_LOG" | cut -d] -f2- | cut -c2-)" "$SAN_LOG" &&
        watched=$((watched + 1))
done
if [ -n "$entries" ] && [ "$watched" = 3 ]; then
    ok "racecheck, synccheck and memcheck are each told the student's kernels by name (${entries% })"
else
    not_ok "the tools' kernel filter" "entries: $entries" "$(cat "$SAN_LOG" 2>&1)"
fi
FAKE_SAN=dirty PATH="$TMP/sanbin:$PATH" via --gpu-via "$SRUN -p gpu --gres=gpu:1 -t 2"
if [ "$rc" = 1 ] && [ "$(field .status)" = fail ] &&
   [[ "$(field '.messages | join(" ")')" == *"racecheck found"* ]] &&
   [[ "$(field '.sanitizer.tools[0].report')" == *"Race reported"* ]]; then
    ok "a race that racecheck reports there fails the kernel here, its report kept"
else
    not_ok "a race found at the far end" "$(field .status)" "$(field .messages)"
fi

t0=$(date +%s)
FAKE_JUDGE=latefail FAKE_SAN=slow PATH="$TMP/sanbin:$PATH" via --gpu-via "$SRUN -p gpu --gres=gpu:1 -t 2"
t1=$(date +%s)
if [ "$(field .status)" = fail ] && [ $((t1 - t0)) -lt 45 ] && [ "$(field 'has("sanitizer")')" = false ]; then
    ok "a judge that fails after its trials: the race checkers there are stopped, not waited for ($((t1 - t0)) s)"
else
    not_ok "the race checkers stopped" "$(field .status) after $((t1 - t0)) s" "$(field .sanitizer)"
fi

SRUN_KILL_AFTER=4 FAKE_SAN=slow PATH="$TMP/sanbin:$PATH" via --gpu-via "$SRUN -p gpu --gres=gpu:1 -t 2"
if [ "$(field .status)" = pass ] &&
   [[ "$(field '.messages | join(" ")')" == *"racecheck could not start: the GPU command"*"ended before it did"* ]]; then
    ok "the step lost while the race checkers ran: they could not judge, the judge's pass stands"
else
    not_ok "a lost step" "$(field .status)" "$(field .messages)"
fi

# ---- the arch, asked once ----------------------------------------------------
if [ "$(grep -c -- '--query-gpu=name,compute_cap --format=csv,noheader' "$SRUN_LOG")" = 1 ] &&
   [ "$(jq -r .arch "$TMP/gpu-via.json")" = sm_80 ] && [ "$(field .gpu_via.arch)" = sm_80 ] &&
   [ "$(field .gpu_via.gpu)" = "NVIDIA A100-SXM4-80GB" ]; then
    ok "the GPU's model and compute capability asked through the command, kept in gpu-via.json"
else
    not_ok "the arch query" "$(cat "$SRUN_LOG" "$TMP/gpu-via.json" 2>&1)"
fi
if ls "$TMP"/w/keep/*sm_80* > /dev/null 2>&1 && ! ls "$TMP"/w/keep/*sm_90* > /dev/null 2>&1; then
    ok "the kernel was built for the GPU at the other end (sm_80)"
else
    not_ok "the kernel built for sm_80" "$(ls "$TMP/w/keep")"
fi
via --gpu-via "$SRUN -p gpu --gres=gpu:1 -t 2"
check "a second check asks no more" \
    test "$(grep -c -- '--query-gpu' "$SRUN_LOG")" = 1

# ---- a command that passes one command string, as ssh does ----------------
printf '#!/bin/sh\n# a stand-in ssh: the host, then the remote command as one string\nshift; [ "$1" = -- ] && shift\nexec sh -c "$*"\n' > "$TMP/bin/ssh"
chmod +x "$TMP/bin/ssh"
via --gpu-via "ssh gpuhost --"
check "through ssh's one string: the GPU's report came back" \
    test "$(field .status) $(field .gpu_via.ran) $(field .device.name)" = "pass true NVIDIA H100 80GB HBM3"

# ---- no GPU at the other end ---------------------------------------------
FAKE_JUDGE=nogpu via --gpu-via "$SRUN -p gpu --gres=gpu:1 -t 2"
if [ "$rc" = 0 ] && [ "$(field .status)" = pass ] && [ "$(field .gpu_via.ran)" = false ] &&
   [[ "$(field .gpu_via.failed)" == *"found no CUDA device at the other end"*"no NVIDIA driver is loaded"* ]] &&
   [ "$(field .device.name)" = "PTX emulator on the CPU (no GPU; an H100's limits)" ]; then
    ok "a GPU judge that finds no GPU there: the CPU tier's report, saying so"
else
    not_ok "no GPU at the other end" "$(field .status)" "$(field .gpu_via)"
fi

# ---- a machine that does not see the folder ----------------------------------
# The stand-in moves the work folder away before it runs the relay.
printf '#!/bin/sh\nrm -rf "$ELSEWHERE.away"; mv "$ELSEWHERE" "$ELSEWHERE.away" 2>/dev/null\nexec "$@"\n' > "$TMP/bin/elsewhere"
chmod +x "$TMP/bin/elsewhere"
ELSEWHERE=$TMP/w via --gpu-via "elsewhere"
if [ "$(field .status)" = pass ] && [ "$(field .gpu_via.ran)" = false ] &&
   [[ "$(field .gpu_via.failed)" == *"the judge could not start at the other end of \`elsewhere\`"*"same path"* ]]; then
    ok "a machine where the work folder is not: the judge did not start there, said so, the CPU tier's pass kept"
else
    not_ok "a machine without the folder" "$(field .status)" "$(field .gpu_via)"
fi

# ---- a command that fails to start -----------------------------------------
SRUN_FAIL="Requested node configuration is not available" via --gpu-via "$SRUN -p gpu --gres=gpu:1 -t 2"
msg=$(field .gpu_via.failed)
if [ "$rc" = 0 ] && [ "$(field .status)" = pass ] && [ "$(field .gpu_via.ran)" = false ] &&
   [[ $msg == *"failed (exit 1): srun: error: Unable to allocate resources: Requested node configuration is not available" ]] &&
   [[ "$(field .summary)" == *"passed on the CPU"* ]]; then
    ok "srun refused: its error named, the CPU tier's pass kept"
else
    not_ok "srun refused" "rc=$rc" "$msg" "$(field .summary)"
fi
via --gpu-via "srun-nowhere -p gpu"
msg=$(field .gpu_via.failed)$(cat "$TMP/err")
if [ "$(field .status)" = pass ] && [[ $msg == *"srun-nowhere"*"not found"* ]]; then
    ok "a command that is not there: the shell's words, the CPU tier's pass kept"
else
    not_ok "a command that is not there" "$msg"
fi

# ---- a failure beside the verdict, remembered (issue 34) ---------------------
# The command fails: the line just above the verdict says why, what judged
# instead and when the GPU is tried again.  The next check within
# VIA_RETRY_S (300 s) does not run the command, and says how long ago it
# failed; once the failure is older, or after a GPU run, it is asked again.
rm -f "$SRUN_LOG" "$TMP/gpu-via.json"
out=$(SRUN_FAIL="Requested node configuration is not available" "$TUTOR" check $LAB --file "$SOL" --work-dir "$TMP/w" \
      --no-sanitize --gpu-via "$SRUN -p gpu" --out "$TMP/failed.json" 2>/dev/null)
beside=$(sed -n '/^  GPU /,$p' <<<"$out" | sed '$d' | tr '\n' ' ' | tr -s ' ')
if [[ $beside == " GPU the GPU command \`$SRUN -p gpu\` failed (exit 1): srun: error: Unable to allocate resources:"*"; judged on this computer's CPU; retrying in 300 s " ]] &&
   [[ "$(tail -n 1 <<<"$out")" == pass* ]]; then
    ok "a failed GPU command: why, what judged and when it is retried, just above the verdict"
else
    not_ok "a failed GPU command beside the verdict" "$out"
fi
page=$("$TUTOR" --dump --size 80x24 view-result "$TMP/failed.json" 2>/dev/null | sed -n 2,10p | tr '\n' ' ' | tr -s ' ')
if [[ $page == *"PASS"*"Unable to allocate resources"*"judged on this computer's CPU; retrying in 300 s"* ]]; then
    ok "the tutor's result screen: the failed GPU command under the verdict's headline"
else
    not_ok "the failed GPU command on the tutor's result screen" "$page"
fi
n0=$(wc -l < "$SRUN_LOG")
# A second later at least: the failure's time is kept in whole seconds, and
# a check now takes well under one, so without it the wait left could still
# read a whole 300 s.
sleep 1
KEEP_FAILURE=1 SRUN_FAIL="still down" via --gpu-via "$SRUN -p gpu"
if [ "$(wc -l < "$SRUN_LOG")" = "$n0" ] && [ "$(field .status)" = pass ] && [ "$(field .gpu_via.ran)" = false ] &&
   [[ "$(field .gpu_via.failed)" =~ ^"the GPU side failed "[0-9]+" s ago (the GPU command".*"Requested node configuration" ]] &&
   [ "$(field '.gpu_via.retry_s | floor')" -gt 200 ] && [ "$(field '.gpu_via.retry_s')" != 300 ]; then
    ok "the next check remembers the failure: the command not run, failed N s ago, retrying in $(field '.gpu_via.retry_s | floor') s"
else
    not_ok "a failure remembered" "$(wc -l < "$SRUN_LOG") commands, $n0 before" "$(field .gpu_via)"
fi
jq '.failure.at -= 301' "$TMP/gpu-via.json" > "$TMP/gv.json" && mv "$TMP/gv.json" "$TMP/gpu-via.json"
KEEP_FAILURE=1 via --gpu-via "$SRUN -p gpu"
if [ "$(wc -l < "$SRUN_LOG")" -gt "$n0" ] && [ "$(field .gpu_via.ran)" = true ] &&
   [ "$(jq 'has("failure")' "$TMP/gpu-via.json")" = false ]; then
    ok "a failure older than 300 s: the command is asked again; the GPU's run forgets the failure"
else
    not_ok "a failure that has aged" "$(field .gpu_via)" "$(cat "$TMP/gpu-via.json")"
fi

# ---- a wait past the bound -------------------------------------------------
: > "$SRUN_PIDS"
t0=$(date +%s)
SRUN_DELAY=60 via --gpu-via "$SRUN -p gpu --gres=gpu:1 -t 2" --gpu-via-wait 3
t1=$(date +%s)
if [ "$(field .status)" = pass ] && [[ "$(field .gpu_via.failed)" == *"the GPU run did not start in 3 s"* ]] &&
   [ $((t1 - t0)) -lt 50 ] && gone "$SRUN_PIDS"; then
    ok "a wait past --gpu-via-wait 3: the CPU tier's verdict, the queued command stopped ($((t1 - t0)) s)"
else
    not_ok "a wait past the bound" "$((t1 - t0)) s" "$(field .gpu_via)" "$(cat "$SRUN_PIDS")"
fi

# ---- the attack --------------------------------------------------------------
# The "kernel" prints a pass report and an ending as frames, bare and under
# every nonce it can find; the judge's own report is a fail.
FAKE_JUDGE=attack via --gpu-via "$SRUN -p gpu"
if [ "$(field .status)" = fail ] && [ "$(field .gpu_via.ran)" = true ] &&
   [[ "$(field .output)" == *"file 0 7b22"* ]]; then
    ok "forged frames printed by the kernel and the launcher: the judge's fail stands (printed as output)"
else
    not_ok "the attack through the relay" "$(field .status)" "$(field .summary)"
fi
# The command's side forges a whole run's frames (a pass report and its
# ending) before the relay starts: without the tutor's nonce they are the
# command's own text, and the judge's fail stands.
FAKE_JUDGE=latefail SRUN_FORGE=1 via --gpu-via "$SRUN -p gpu"
if [ "$(field .status)" = fail ] && [ "$(field .gpu_via.ran)" = true ]; then
    ok "frames forged by the GPU command itself, under a nonce not the tutor's: the judge's fail stands"
else
    not_ok "the attack from the command's side" "$(field .status)" "$(field .summary)"
fi
FAKE_JUDGE=attack CUDATUTOR_GPU_RELAY="$ROOT/tests/gpuvia/naive-relay" via --gpu-via "$SRUN -p gpu"
if [ "$(field .status)" = pass ] && [ "$(field .gpu_via.ran)" = true ]; then
    ok "the same attack passes through a relay that takes the judge's stdout for its stream (the defence matters)"
else
    not_ok "the attack against the naive relay" "$(field .status)" "$(field .summary)"
fi

# ---- the queued wait shown, and ^C -----------------------------------------
# A terminal (script) so that progress is drawn; ^C is SIGINT to cudatutor.
: > "$SRUN_PIDS"
rm -f "$TMP/pid"
SRUN_DELAY=120 script -qfec "sh -c 'echo \$\$ > $TMP/pid; exec $TUTOR check $LAB --file $SOL --work-dir $TMP/w --gpu-via \"$SRUN -p gpu\"'" \
    "$TMP/typescript" > /dev/null 2>&1 &
spid=$!
t=0
until grep -q 'queued on the cluster ([1-9]' "$TMP/typescript" 2>/dev/null || [ $t -ge 1200 ]; do sleep 0.1; t=$((t + 1)); done
if grep -q 'queued on the cluster ([1-9]' "$TMP/typescript"; then
    ok "the wait is shown: $(grep -ao 'queued on the cluster ([0-9]* s)' "$TMP/typescript" | tail -1)"
else
    not_ok "the queued wait shown" "$(tr '\r' '\n' < "$TMP/typescript" | tail -5)"
fi
kill -INT "$(cat "$TMP/pid")" 2>/dev/null
t=0
while kill -0 "$spid" 2>/dev/null && [ $t -lt 100 ]; do sleep 0.1; t=$((t + 1)); done
sleep 0.3
if ! kill -0 "$spid" 2>/dev/null && [ -s "$SRUN_PIDS" ] && gone "$SRUN_PIDS" &&
   grep -qx 4242 "$TMP/scancel.log"; then
    ok "^C ends the check and the queued command's whole group, and scancels the job srun named"
else
    not_ok "^C cancels" "still running: $(cat "$SRUN_PIDS" | xargs ps -o pid,args -p 2>/dev/null)"
    kill "$spid" 2>/dev/null
fi
wait "$spid" 2>/dev/null

# ---- the tutor: the wait on the check screen, q cancels --------------------
if command -v tmux > /dev/null; then
    SOCK="cudatutor-gpuvia-$$"
    tm() { tmux -L "$SOCK" -f /dev/null "$@"; }
    : > "$SRUN_PIDS"
    WB=$TMP/wb
    make_workbook "$WB"
    cp "$SOL" "$WB/labs/$(lab_dir $LAB)/kernel.cu"
    printf '# where the GPU is\ngpu-via = %s -p gpu\n' "$SRUN" > "$WB/cudatutor.conf"
    cmd=$(printf '%q ' env TERM=screen-256color SRUN_DELAY=120 "$TUTOR" --root "$WB" --unlock-all)
    tm new-session -d -x 100 -y 30 "$cmd; sleep 600" 2>/dev/null
    sleep 1
    for k in $(seq 2 $LAB); do tm send-keys j; done
    tm send-keys c
    t=0
    until tm capture-pane -p 2>/dev/null | grep -q 'queued on the cluster ([1-9]' || [ $t -ge 1200 ]; do
        sleep 0.1; t=$((t + 1))
    done
    shown=$(tm capture-pane -p 2>/dev/null | grep -o 'queued on the cluster ([0-9]* s)')
    tm send-keys q
    sleep 2
    if [ -n "$shown" ] && [ -s "$SRUN_PIDS" ] && gone "$SRUN_PIDS" &&
       tm capture-pane -p | grep -q 'check cancelled'; then
        ok "the tutor: cudatutor.conf's command, \"$shown\" on the check screen, q stops its group"
    else
        not_ok "the tutor's cancel" "shown: $shown" "$(tm capture-pane -p)" "$(cat "$SRUN_PIDS" "$TMP/gpu-via.json")"
    fi
    tm kill-server 2> /dev/null
else
    skip "the tutor's cancel" "tmux is not installed"
fi

# ---- settings ---------------------------------------------------------------
rm -f "$SRUN_LOG"
CUDATUTOR_GPU_VIA="$SRUN --reservation=course" via
check "\$CUDATUTOR_GPU_VIA sets the command" grep -q -- "^--reservation=course .*gpu-relay" "$SRUN_LOG"
printf 'gpu-via = %s -p gpu\ngpu-via-wiat = 3\n' "$SRUN" > "$TMP/wb/cudatutor.conf"
"$TUTOR" --root "$TMP/wb" --unlock-all check $LAB > /dev/null 2> "$TMP/err"
rc=$?
if [ "$rc" = 2 ] && grep -q 'cudatutor.conf:2: unknown setting "gpu-via-wiat"' "$TMP/err"; then
    ok "a misspelt setting in cudatutor.conf: exit 2, the file and line named"
else
    not_ok "a bad cudatutor.conf" "rc=$rc" "$(cat "$TMP/err")"
fi
"$TUTOR" check $LAB --file "$SOL" --counters --gpu-via "$SRUN" > /dev/null 2> "$TMP/err"
rc=$?
check "--counters with --gpu-via is a usage error" test "$rc" = 2
"$TUTOR" gpu-relay < /dev/null > /dev/null 2> "$TMP/err"
rc=$?
check "the relay refuses to run without a tutor's job" \
    bash -c "[ $rc = 2 ] && grep -q 'never by hand' '$TMP/err'"

