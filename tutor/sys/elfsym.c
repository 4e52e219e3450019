/* elfsym.c — the symbols of an ELF object as `nm -P` lists them, read in
 * this process: nm's start (libbfd's) costs a tenth of a CPU second, the
 * table a few hundred microseconds.  64-bit little-endian objects only;
 * anything else is left to nm. */
#include "sys/elfsym.h"

#include <elf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sys/util.h"

struct sym {
    const char *name;
    char type;
};

/* nm's letter for a symbol of section sh (NULL: a special index). */
static char letter(const Elf64_Sym *s, const Elf64_Shdr *sh)
{
    int bind = ELF64_ST_BIND(s->st_info), type = ELF64_ST_TYPE(s->st_info);
    char c;
    if (s->st_shndx == SHN_UNDEF)
        return bind == STB_WEAK ? (type == STT_OBJECT ? 'v' : 'w') : 'U';
    if (type == STT_GNU_IFUNC)
        return 'i';
    if (bind == STB_GNU_UNIQUE)
        return 'u';
    if (bind == STB_WEAK)
        return type == STT_OBJECT ? 'V' : 'W';
    if (s->st_shndx == SHN_COMMON)
        c = 'C';
    else if (s->st_shndx == SHN_ABS)
        c = 'A';
    else if (!sh || !(sh->sh_flags & SHF_ALLOC))
        c = 'N';
    else if (sh->sh_flags & SHF_EXECINSTR)
        c = 'T';
    else if (sh->sh_type == SHT_NOBITS)
        c = 'B';
    else if (sh->sh_flags & SHF_WRITE)
        c = 'D';
    else
        c = 'R';
    return bind == STB_LOCAL ? (char)(c - 'A' + 'a') : c;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(((const struct sym *)a)->name, ((const struct sym *)b)->name);
}

/* Whether [off, off + len) lies inside a file of size n. */
static int inside(size_t n, uint64_t off, uint64_t len)
{
    return off <= n && len <= n - off;
}

char *elfsym_list(const char *path)
{
    size_t n = 0, cap = 0, used = 0, nsyms = 0;
    char *bytes = util_read_file(path, &n), *out = NULL;
    struct sym *syms = NULL;
    const Elf64_Ehdr *eh = (const Elf64_Ehdr *)bytes;

    if (!bytes || n < sizeof *eh || memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
        eh->e_ident[EI_DATA] != ELFDATA2LSB || eh->e_shentsize != sizeof(Elf64_Shdr) ||
        !inside(n, eh->e_shoff, (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr)) || eh->e_shoff % 8)
        goto out;
    const Elf64_Shdr *sh = (const Elf64_Shdr *)(bytes + eh->e_shoff);
    for (int i = 0; i < eh->e_shnum; i++) {
        if (sh[i].sh_type != SHT_SYMTAB)
            continue;
        const Elf64_Shdr *st = &sh[i], *str = st->sh_link < eh->e_shnum ? &sh[st->sh_link] : NULL;
        if (!str || st->sh_entsize != sizeof(Elf64_Sym) || !inside(n, st->sh_offset, st->sh_size) ||
            st->sh_offset % 8 || !inside(n, str->sh_offset, str->sh_size) || !str->sh_size ||
            bytes[str->sh_offset + str->sh_size - 1] != '\0')
            goto out;
        const Elf64_Sym *s = (const Elf64_Sym *)(bytes + st->sh_offset);
        size_t count = st->sh_size / sizeof *s;
        if (!(syms = calloc(count ? count : 1, sizeof *syms)))
            goto out;
        for (size_t k = 1; k < count; k++) {
            int type = ELF64_ST_TYPE(s[k].st_info);
            if (type == STT_SECTION || type == STT_FILE || s[k].st_name >= str->sh_size ||
                !bytes[str->sh_offset + s[k].st_name])
                continue;
            int sec = s[k].st_shndx;
            syms[nsyms].name = bytes + str->sh_offset + s[k].st_name;
            syms[nsyms++].type = letter(&s[k], sec > 0 && sec < eh->e_shnum && sec < SHN_LORESERVE ? &sh[sec] : NULL);
        }
        break;
    }
    qsort(syms, nsyms, sizeof *syms, by_name);
    if (!(out = util_grow(NULL, &cap, 1, 1)))
        goto out;
    out[0] = '\0';
    for (size_t k = 0; k < nsyms; k++) {
        size_t len = strlen(syms[k].name);
        char *grown = util_grow(out, &cap, used + len + 4, 1);
        if (!grown) {
            free(out);
            out = NULL;
            goto out;
        }
        out = grown;
        used += (size_t)sprintf(out + used, "%s %c\n", syms[k].name, syms[k].type);
    }
out:
    free(syms);
    free(bytes);
    return out;
}
