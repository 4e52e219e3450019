/* elfsym.h — an object's symbols as `nm -P` names and classes them, read
 * without running nm (elfsym.c). */
#ifndef ELFSYM_H
#define ELFSYM_H

/* The symbol table of the ELF object at path, one "NAME TYPE" line per
 * symbol nm -P would list, sorted by name as nm sorts them, with nm's
 * letter for its class: U, w and v undefined, i an indirect function, u
 * unique, a capital for any other global, a small letter for a local.
 * Heap text ("" when the object has no symbols); NULL when the file cannot
 * be read or is not a 64-bit little-endian ELF object this reads. */
char *elfsym_list(const char *path);

#endif /* ELFSYM_H */
