/* grade.h — `cudatutor grade`: the instructor's grader (./grade.sh runs
 * it).  Takes a class's submissions in, builds each kernel in a sandbox,
 * runs the builds several at a time per GPU, scores the verdicts by the
 * rubric and writes the reports; also merges shards, rescores without a
 * GPU, and tests itself on the solutions and the bank of bad kernels.
 * docs/instructor-guide.md is the manual; grade_opts.h the command line. */
#ifndef GRADE_H
#define GRADE_H

/* The grader's exit codes (also in its --help and the instructor guide). */
enum grade_exit {
    GRADE_EXIT_OK = 0,              /* every lab of every submission graded */
    GRADE_EXIT_WRONG = 1,           /* --selftest: some submission was judged wrong */
    GRADE_EXIT_USAGE = 2,           /* a bad option, roster, rubric or submission path; the
                                       output folder in use by another grading */
    GRADE_EXIT_NO_GPU = 3,          /* labs not graded for want of a CUDA device (no_gpu) */
    GRADE_EXIT_INTERNAL = 4,        /* the workbook is not built, or the grader failed on a lab */
    GRADE_EXIT_SANDBOX = 5,         /* --sandbox bwrap, but bubblewrap does not work here */
    GRADE_EXIT_INTERRUPTED = 130    /* interrupted: the same command again resumes */
};

/* Runs `cudatutor grade` with argv[0] "grade" and its arguments after it;
 * prog is the program as it was started (main's argv[0]): without
 * --workbook, the workbook is the folder it was started from (./grade.sh
 * runs the cudatutor beside it), else the one around the current folder.
 * Returns the exit code.  Prints what it does on stderr (unless --quiet),
 * the summary table on stdout. */
int grade_main(const char *prog, int argc, char **argv);

#endif /* GRADE_H */
