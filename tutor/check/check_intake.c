/* check_intake.c — see check_intake.h. */
#define _GNU_SOURCE     /* AT_FDCWD */
#include "check/check_intake.h"

#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>

#include "check/check_stage.h"
#include "model/intake_rule.h"

int check_intake(struct check_state *r, const char *file)
{
    struct stat st;
    char *why = NULL;
    if (lstat(r->src, &st) != 0)
        return 0;
    int rc = intake_rule_read(AT_FDCWD, r->src, file, INTAKE_RULE_MAX_KB, NULL, NULL, &why);
    if (rc == 1) {
        check_set_status(r, STATUS_REFUSED);
        check_message(r, "%s", why);
    }
    free(why);
    return rc;
}
