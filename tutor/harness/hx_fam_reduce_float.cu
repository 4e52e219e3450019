/* hx_fam_reduce_float.cu — family reduce_float (lab 08): sums of float. */
#include "hx_reduce.cuh"

HX_REDUCE_FAMILY(float)
