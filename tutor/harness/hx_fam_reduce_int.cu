/* hx_fam_reduce_int.cu — family reduce_int (labs 01-07): sums of int. */
#include "hx_reduce.cuh"

HX_REDUCE_FAMILY(int)
