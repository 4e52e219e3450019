#!/usr/bin/env bash
# tests/device/counters-wrap.sh — the --wrap program of tests/device/counters.sh:
# runs what the check asks unchanged, except ncu's profile, whose metric
# list becomes $COUNTERS_METRICS and whose size becomes $COUNTERS_N (the
# size the emulator counted at), so that ncu counts the launches the
# emulator counted.
case "$(basename "${1:-}")" in
ncu*) ;;
*) exec "$@" ;;
esac
args=()
while [ $# -gt 0 ]; do
    case "$1" in
    --metrics) args+=("$1" "$COUNTERS_METRICS"); shift 2 ;;
    --profile-n) args+=("$1" "$COUNTERS_N"); shift 2 ;;
    *) args+=("$1"); shift ;;
    esac
done
exec "${args[@]}"
