#!/usr/bin/env bash
# tests/lock.sh — the GPU lock (docs/harness.md, section 4.1) without a GPU:
# tests/lock/lockprobe takes it the way the harness does and prints when it
# got it and let go; these tests check who overlapped whom.
. "$(dirname "$0")/lib.sh"
cd "$ROOT"

PROBE=build/tests/lockprobe
LOCK="$TMP/gpu.lock"

if [ ! -x "$PROBE" ]; then
    not_ok "the lock probe is built" "missing $PROBE: run make test"
    exit 0
fi

# probe NAME MODE HOLD_MS [WAIT_S]: runs a probe in the background; its
# output goes to $TMP/NAME.
probe() { "$PROBE" "$LOCK" "$2" "$3" "${4:-20}" > "$TMP/$1" 2>/dev/null & }
got() { awk '$1 == "got" { print $2 }' "$TMP/$1"; }
released() { awk '$1 == "released" { print $2 }' "$TMP/$1"; }
# after A B: A got the lock no earlier than B let go (20 ms of slack for
# the polling).
after() { [ -n "$(got "$1")" ] && [ -n "$(released "$2")" ] && [ "$(got "$1")" -ge $(( $(released "$2") - 20 )) ]; }
# overlap A B: A got it while B still held it.
overlap() { [ -n "$(got "$1")" ] && [ "$(got "$1")" -lt "$(released "$2")" ] && [ "$(got "$1")" -ge "$(got "$2")" ]; }

# Sharers run side by side.
probe s1 share 1200; sleep 0.3; probe s2 share 100; wait
check "two sharers hold the GPU at once" overlap s2 s1

# A timed section waits for the sharer to finish.
probe s1 share 800; sleep 0.3; probe o1 own 100; wait
check "a timed section waits until the trials beside it are done" after o1 s1

# Two timed sections take turns.
probe o1 own 800; sleep 0.3; probe o2 own 100; wait
check "two timed sections never overlap" after o2 o1

# Trials wait for a timed section.
probe o1 own 800; sleep 0.3; probe s1 share 100; wait
check "trials wait while a timed section runs" after s1 o1

# A sharer that comes while a timed section queues goes after it: the
# waiting timer is not starved by new sharers.
probe s1 share 1200; sleep 0.3; probe o1 own 300; sleep 0.3; probe s2 share 100; wait
if after o1 s1 && after s2 o1; then
    ok "a waiting timed section goes before sharers that came after it"
else
    not_ok "a waiting timed section goes before sharers that came after it" \
        "s1 $(got s1)-$(released s1), o1 $(got o1)-$(released o1), s2 $(got s2)-$(released s2)"
fi

# Timed sections that queue go back to back, before sharers that came
# while they waited.
probe s1 share 1200; sleep 0.3; probe o1 own 300; sleep 0.2; probe o2 own 300; sleep 0.2
probe s2 share 100; wait
if after o1 s1 && after s2 o1 && after s2 o2; then
    ok "queued timed sections go back to back, then the sharers"
else
    not_ok "queued timed sections go back to back, then the sharers" \
        "s1 $(got s1)-$(released s1), o1 $(got o1)-$(released o1), o2 $(got o2)-$(released o2), s2 $(got s2)-$(released s2)"
fi

# A sharer between its trials steps aside for a timed section that waits:
# the timer waits for one trial, not the sharer's whole run, and the sharer
# holds nothing while it times.
aside() { awk -v k="$2" '$1 == "aside" { print $k; exit }' "$TMP/$1"; }
probe y1 trials 1500; sleep 0.3; probe o1 own 300; wait
if [ -n "$(aside y1 2)" ] && [ "$(got o1)" -lt $(( $(released y1) - 500 )) ] &&
   [ "$(aside y1 2)" -le "$(got o1)" ] && [ "$(aside y1 3)" -ge $(( $(released o1) - 20 )) ]; then
    ok "a sharer steps aside between trials for a waiting timed section"
else
    not_ok "a sharer steps aside between trials for a waiting timed section" \
        "y1 $(got y1)-$(released y1) aside $(aside y1 2)-$(aside y1 3), o1 $(got o1)-$(released o1)"
fi
probe y1 trials 600; sleep 0.2; probe s1 share 200; wait
check "... and not for another sharer" test -z "$(aside y1 2)"

# A holder that dies (killed, not let go) frees the GPU at once.
"$PROBE" "$LOCK" own 30000 20 > "$TMP/dead" 2>/dev/null & victim=$!
sleep 0.3
kill -9 "$victim"; wait "$victim" 2>/dev/null
t0=$(date +%s%3N)
"$PROBE" "$LOCK" own 10 20 > "$TMP/o3" 2>/dev/null
check "a killed holder's lock is gone at once" test $(( $(got o3) - t0 )) -lt 1000

# A wait has an end: the run goes on and says so.
probe o1 own 3000; sleep 0.3
"$PROBE" "$LOCK" own 10 0.5 > "$TMP/o2" 2>/dev/null
wait
check "a timed section that waited too long goes on, late" grep -q '^got .* late$' "$TMP/o2"
check "... and its report says the figures may be low" grep -q 'timed anyway, the figures may be low' "$TMP/o2"
probe o1 own 3000; sleep 0.3
"$PROBE" "$LOCK" share 10 0.5 > "$TMP/s3" 2>/dev/null
wait
check "trials that waited too long run anyway and say so" grep -q 'the trials ran beside another run' "$TMP/s3"

# The tutor's lock lives in /tmp: a symbolic link put there between the
# tutor's look and the harness's open is not followed (the run goes on
# without the lock, and nothing is created where the link points).
ln -s "$TMP/victim" "$TMP/trap.lock"
"$PROBE" "$TMP/trap.lock" own 10 1 > /dev/null 2>&1; rc=$?
check "the harness does not open its lock through a symbolic link" test $rc = 1 -a ! -e "$TMP/victim"
