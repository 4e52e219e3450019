/* test_elfsym.c — an object's symbols read without nm (sys/elfsym.h), the
 * list the rules judge host symbols by: the same names and classes as
 * `nm -P` for an object with every kind the rules tell apart (undefined,
 * weak undefined: 'w' for an object too, an undefined symbol having no
 * type; global function, data, bss and read-only data, weak definitions,
 * an indirect function, a unique global, locals) and for objects of the
 * build's runner and judges; what is no 64-bit ELF object (text, a
 * cut-off object, nothing) is left to nm (NULL). */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sys/elfsym.h"
#include "sys/util.h"
#include "tap.h"

/* Whether elfsym's list of obj is nm -P's (name and letter of each line,
 * both sorted), told on a line when not. */
static int same_as_nm(const char *obj)
{
    char *list = elfsym_list(obj);
    char *mine = util_format("%s.elfsym", obj), *theirs = util_format("%s.nm", obj);
    char *nm = util_format("nm -P '%s' 2>/dev/null | awk '{print $1, $2}' | LC_ALL=C sort > '%s'", obj, theirs);
    char *sorted = util_format("LC_ALL=C sort -o '%s' '%s'", mine, mine);
    char *cmp = util_format("cmp -s '%s' '%s'", mine, theirs);
    int same = list && mine && theirs && nm && sorted && cmp && util_write_file(mine, list, strlen(list)) == 0 &&
               system(nm) == 0 && system(sorted) == 0 && system(cmp) == 0;
    if (!same)
        printf("#   %s: not nm's list\n", obj);
    if (mine)
        unlink(mine);
    if (theirs)
        unlink(theirs);
    free(list), free(mine), free(theirs), free(nm), free(sorted), free(cmp);
    return same;
}

static void every_kind(void)
{
    static const char src[] =
        "extern \"C\" int ext_func(int);\n"
        "extern \"C\" __attribute__((weak)) int weak_undef(int);\n"
        "extern \"C\" __attribute__((weak)) int weak_undef_obj;\n"
        "extern \"C\" { int global_data = 3; int global_bss; extern const int global_ro; const int global_ro = 5; }\n"
        "static int local_data = 7;\n"
        "extern \"C\" __attribute__((weak)) int weak_def(int x) { return x + local_data; }\n"
        "extern \"C\" { __attribute__((weak)) int weak_def_obj = 1; }\n"
        "static int local_fn(int x) { return x * 2; }\n"
        "extern \"C\" int pick_impl(int x) { return x; }\n"
        "extern \"C\" void *pick_resolver(void) { return (void *)pick_impl; }\n"
        "extern \"C\" int picked(int) __attribute__((ifunc(\"pick_resolver\")));\n"
        "template <class T> struct holder { static inline int count = 0; };\n"
        "int use(int x)\n{\n    static thread_local int tl;\n    holder<int>::count++;\n    tl++;\n"
        "    return ext_func(x) + local_fn(x) + (weak_undef ? weak_undef(x) : 0) + weak_undef_obj + global_ro +\n"
        "           tl + picked(x) + global_bss;\n}\n";
    char dir[] = "/tmp/test_elfsym.XXXXXX";
    EXPECT(mkdtemp(dir) != NULL);
    char *cpp = util_format("%s/kinds.cpp", dir), *obj = util_format("%s/kinds.o", dir);
    char *cc = util_format("g++ -std=c++17 -O2 -c -o '%s' '%s'", obj, cpp);
    EXPECT(cpp && obj && cc && util_write_file(cpp, src, strlen(src)) == 0 && system(cc) == 0);
    EXPECT(same_as_nm(obj));
    /* each class the rules tell apart is there, so the comparison saw it */
    char *list = elfsym_list(obj);
    static const char *want[] = {"ext_func U\n", "weak_undef w\n", "weak_undef_obj w\n", "global_data D\n",
                                 "global_bss B\n", "global_ro R\n", "weak_def W\n", "weak_def_obj V\n",
                                 "picked i\n", "_ZN6holderIiE5countE u\n", "_Z3usei T\n"};
    for (size_t i = 0; i < sizeof want / sizeof *want; i++)
        EXPECT(list && strstr(list, want[i]));
    EXPECT(list && strstr(list, "local_fn") == NULL);     /* inlined away, or a local: 't' */
    free(list);

    /* not an object: text, an object cut short, no file */
    char *text = util_format("%s/text.o", dir), *cut = util_format("%s/cut.o", dir);
    size_t n = 0;
    char *bytes = util_read_file(obj, &n);
    EXPECT(text && util_write_file(text, "not an object\n", 14) == 0 && elfsym_list(text) == NULL);
    EXPECT(cut && bytes && util_write_file(cut, bytes, n / 2) == 0 && elfsym_list(cut) == NULL);
    EXPECT(elfsym_list("/nonexistent/x.o") == NULL);
    util_remove_tree(dir);
    free(cpp), free(obj), free(cc), free(text), free(cut), free(bytes);
}

/* The objects a runner is linked from and the judges' own. */
static void build_objects(void)
{
    static const char *objs[] = {"build/harness/rt.o", "build/harness/runner.o", "build/harness/hx_core.o",
                                 "build/harness/hx_fam_reduce_int.o", "build/harness/hx_emu.o"};
    for (size_t i = 0; i < sizeof objs / sizeof *objs; i++)
        EXPECT(same_as_nm(objs[i]));
}

TAP_MAIN(T(every_kind), T(build_objects))
