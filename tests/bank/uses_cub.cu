// bank: lab=01 expect=rejected
// why: hands the whole job to cub::DeviceReduce::Sum; the object defines CUB kernels (_ZN3cub...), which the symbol check must reject
/* The library the harness measures against, called from the lab's entry
 * point with d_scratch as its temporary storage.  Fast and correct, and
 * not the student's work. */
#include <cub/device/device_reduce.cuh>
#include "lab.h"

extern "C" void lab_reduce_int(const int *d_in, unsigned n, int *d_out,
                               void *d_scratch, cudaStream_t s)
{
    size_t bytes = 0;

    /* First call: how much temporary storage CUB wants. */
    cub::DeviceReduce::Sum(NULL, bytes, d_in, d_out, n, s);
    if (bytes > LAB_SCRATCH_BYTES(n))
        return;
    cub::DeviceReduce::Sum(d_scratch, bytes, d_in, d_out, n, s);
}
