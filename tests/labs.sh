#!/usr/bin/env bash
# tests/labs.sh — invariants of the course: every lab has a lesson, a stub
# with a TODO, a solution without one, three hints; every stub and solution
# compiles, passes the symbol rules, and every solution shows the techniques
# its lab teaches (PTX, no GPU needed); no stray files.
. "$(dirname "$0")/lib.sh"
cd "$ROOT"

n=$(jq '.labs | length' data/labs.json)
for i in $(seq 0 $((n - 1))); do
    id=$(jq -r ".labs[$i].id" data/labs.json)
    slug=$(jq -r ".labs[$i].slug" data/labs.json)
    lab=labs/$id-$slug sol=solutions/$id-$slug
    check "$id has a lesson" test -s "$lab/README.md"
    long=$(awk 'length > 78' "$lab/README.md" | head -3)
    check "$id lesson lines fit 78 columns" test -z "$long"
    check "$id stub marks the work with TODO" grep -q TODO "$lab/kernel.cu"
    check "$id solution has no TODO" test -z "$(grep -l TODO "$sol/kernel.cu")"
    check "$id has three hints" test "$(jq ".labs[$i].hints | length" data/labs.json)" = 3
    stray=$(ls "$lab" "$sol" | grep -vE '^(README.md|kernel.cu|)$|:$')
    check "$id no stray files" test -z "$stray"

    "$TUTOR" check "$id" --build-only --json > "$TMP/stub.json"
    check "$id stub compiles and follows the rules" test "$(jq -r .status "$TMP/stub.json")" = no_gpu
    "$TUTOR" check "$id" --file "$sol/kernel.cu" --build-only --json > "$TMP/sol.json"
    check "$id solution compiles and follows the rules" test "$(jq -r .status "$TMP/sol.json")" = no_gpu
    missing=$(jq -r '[.techniques[] | select(.found | not) | .name] | join(", ")' "$TMP/sol.json")
    check "$id solution shows its lab's techniques" test -z "$missing"
done

stray=$(ls labs | grep -vE '^[0-9]{2}-[a-z0-9-]+$')
check "labs/ holds only lab folders" test -z "$stray"
check "lab.h and check.c agree on the number of integrands" \
    test "$(grep -oE 'LAB_INTEGRAND_COUNT [0-9]+' tutor/lab.h | awk '{print $2}')" = \
         "$(grep -oE 'TRAPEZOID_INTEGRANDS [0-9]+' tutor/check.c | awk '{print $2}')"
check "lab.h and the catalog agree on the contract version" \
    test "$(grep -oE 'LAB_CONTRACT_VERSION [0-9]+' tutor/lab.h | awk '{print $2}')" = \
         "$(grep -oE 'CATALOG_CONTRACT [0-9]+' tutor/catalog.h | awk '{print $2}')" -a \
         "$(jq .contract data/labs.json)" = "$(grep -oE 'CATALOG_CONTRACT [0-9]+' tutor/catalog.h | awk '{print $2}')"
