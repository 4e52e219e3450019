#!/usr/bin/env bash
# grade.sh — grades a class of workbook submissions: runs `cudatutor grade`
# of the workbook this script is in (tutor/grade/) with the same arguments.
# The options, exit codes and outputs: ./grade.sh --help, and
# docs/instructor-guide.md, the manual.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd) || exit 4
if [ ! -x "$here/cudatutor" ]; then
    echo "grade.sh: $here/cudatutor is not built: run make in $here" >&2
    exit 4
fi
exec "$here/cudatutor" grade "$@"
