/* hx_cub_emu.cu — hx_cub.h for the CPU judges: the same calls computed on
 * the host.  CUB is not emulated (its PTX is large and the families need its
 * result, not its speed); under the emulating runtime a device pointer is a
 * host pointer and every call has finished when it returns, so the CPU can
 * compute the reference in place.  The timed cases, the only place CUB is
 * timed, do not run on the CPU. */
#include "../lab.h"
#include "hx_cub.h"

/* What the families allocate for CUB's temporary storage: any nonzero size. */
static const size_t temp_bytes = 16;

/* CUB's two calls: one without temporary storage asks its size, one with
 * it computes the result (here compute, on the host). */
template <typename F> static cudaError_t cub_answer(const void *d_temp, size_t &bytes, F compute)
{
    if (!d_temp)
        bytes = temp_bytes;
    else
        compute();
    return cudaSuccess;
}

cudaError_t hx_cub_sum(void *d_temp, size_t &bytes, const int *d_in, int *d_out, int n, cudaStream_t)
{
    return cub_answer(d_temp, bytes, [&] {
        /* Two's complement, as the device adds. */
        uint32_t s = 0;
        for (int i = 0; i < n; i++)
            s += (uint32_t)d_in[i];
        *d_out = (int)s;
    });
}

cudaError_t hx_cub_sum(void *d_temp, size_t &bytes, const float *d_in, float *d_out, int n, cudaStream_t)
{
    return cub_answer(d_temp, bytes, [&] {
        double s = 0;
        for (int i = 0; i < n; i++)
            s += d_in[i];
        *d_out = (float)s;
    });
}

cudaError_t hx_cub_argmax(void *d_temp, size_t &bytes, const float *d_in, float *d_max, int64_t *d_index,
                          int64_t n, cudaStream_t)
{
    return cub_answer(d_temp, bytes, [&] {
        int64_t best = 0;
        for (int64_t i = 1; i < n; i++)
            if (d_in[i] > d_in[best])
                best = i;
        *d_max = n > 0 ? d_in[best] : 0.0f;
        *d_index = n > 0 ? best : 0;
    });
}

cudaError_t hx_cub_select_kept(void *d_temp, size_t &bytes, const int *d_in, int *d_out, unsigned *d_count,
                               int64_t n, cudaStream_t)
{
    return cub_answer(d_temp, bytes, [&] {
        unsigned kept = 0;
        for (int64_t i = 0; i < n; i++)
            if (lab_keep(d_in[i]))
                d_out[kept++] = d_in[i];
        *d_count = kept;
    });
}

cudaError_t hx_cub_inclusive_sum(void *d_temp, size_t &bytes, const int *d_in, int *d_out, int n, cudaStream_t)
{
    return cub_answer(d_temp, bytes, [&] {
        uint32_t s = 0;
        for (int i = 0; i < n; i++) {
            s += (uint32_t)d_in[i];
            d_out[i] = (int)s;
        }
    });
}
