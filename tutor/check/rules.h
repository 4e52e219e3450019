/* rules.h — the static checks a kernel passes before it may run: its object's
 * host symbols against the catalog's allow-list, the headers it was compiled
 * from against forbidden libraries, and its PTX against the techniques its
 * lab teaches.  They explain early what the judge would refuse anyway: the
 * runner's sandbox and the judge's plan checks are what enforce the rules. */
#ifndef RULES_H
#define RULES_H

#include "model/catalog.h"

struct violation {
    char *symbol;
    char *rule;
    int generic;                /* no specific rule named it: listed after those that did */
    int defined;                /* the file defines the symbol (else it calls it) */
};

struct rules_report {
    struct violation *v;
    int nv;
    int entry_defined;          /* the lab's entry point is defined with C linkage */
};

/* Checks `nm -P` output of the kernel's object.  Returns 0 (violations, if
 * any, in rep) or -1 when out of memory. */
int rules_check_symbols(const struct catalog *cat, const char *entry, const char *nm_output,
                        struct rules_report *rep);

/* Checks the files the compiler read for the kernel (its make rule, from
 * nvcc -MD) for the libraries that would do the lab's work: any file in a
 * cub/ or thrust/ folder, by its real path.  The compiler's own list, not
 * the source's text: a macro, a wrapper header or a relative path cannot
 * hide an include from it.  Appends to rep; -1 when out of memory. */
int rules_check_includes(const char *deps, struct rules_report *rep);

/* The catalog's reason a host call is not allowed (host_symbols.deny), or
 * NULL when no rule names it. */
const char *rules_deny_rule(const struct catalog *cat, const char *sym);

/* Orders the violations so that those a specific rule names come first:
 * "cudaMemcpy: no copies" says more than "InitializeInjection: not allowed". */
void rules_sort(struct rules_report *rep);

/* found[i] = 1 when the PTX holds technique i of the lab. */
void rules_check_ptx(const struct lab *lab, const char *ptx, int *found);

void rules_report_free(struct rules_report *rep);

#endif /* RULES_H */
