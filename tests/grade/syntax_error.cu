// A submission that does not compile: the statement on line 7 has no
// expression.  tests/grade.sh hands it in as lab 02.
#include "lab.h"

extern "C" void lab_reduce_int(const int *d_in, unsigned n, int *d_out, void *d_scratch, cudaStream_t s)
{
    int total = ;
}
