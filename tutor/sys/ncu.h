/* ncu.h — reads the raw page of Nsight Compute's CSV output (ncu --csv --page
 * raw --print-units base) into one number per metric over every kernel a call
 * launched.  Text in, numbers out: no JSON, no files, no process. */
#ifndef NCU_H
#define NCU_H

/* Parses ncu's raw CSV page.  Only lines that start with a double quote are
 * CSV (==PROF==, ==WARNING== and any other lines are ignored); the first is
 * the header, the second the units row (skipped), each later one a kernel.
 * Fields are RFC 4180 ("" is a quote inside a quoted field), in any number;
 * a line ends at LF or CRLF, the last one may lack it, and a quote left open
 * ends with its line.  Numbers may group digits ("2,229,952").
 *
 * For each of names[0..n-1], matched whole against the first header field
 * equal to it: values[i] is the sum over the kernels or, for a percentage or
 * ratio (".pct" or ".ratio" in the name), the mean weighted by each kernel's
 * gpu__time_duration.sum (unweighted when that column is absent or all zero);
 * found[i] is 1 when the column exists and at least one kernel holds a number
 * in it ("n/a" or text is not one), else 0 with values[i] = 0.  A kernel
 * without a number in a column is left out of that column's sum or mean.
 *
 * Returns the number of kernel rows, or -1 (every found[i] = 0) when csv is
 * NULL, has no header row, or memory ran out. */
int ncu_parse(const char *csv, const char *const *names, int n, double *values, int *found);

#endif /* NCU_H */
