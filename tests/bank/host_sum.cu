// bank: lab=01 expect=rejected
// why: copies the input to the host with cudaMemcpy and adds it up on the CPU; the symbol check must reject cudaMemcpy (and malloc)
/* Gets the right answer without doing the lab: the GPU only stores the
 * result.  Rule 2 of lab.h forbids host<->device copies. */
#include <stdlib.h>
#include "lab.h"

extern "C" void lab_reduce_int(const int *d_in, unsigned n, int *d_out,
                               void *d_scratch, cudaStream_t s)
{
    int *h = (int *)malloc((size_t)n * sizeof(int));
    int sum = 0;

    (void)d_scratch;
    (void)s;
    if (!h)
        return;
    cudaMemcpy(h, d_in, (size_t)n * sizeof(int), cudaMemcpyDeviceToHost);
    for (unsigned i = 0; i < n; i++)
        sum += h[i];
    cudaMemcpy(d_out, &sum, sizeof(int), cudaMemcpyHostToDevice);
    free(h);
}
