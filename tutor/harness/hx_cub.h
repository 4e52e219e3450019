/* hx_cub.h — the references the judges time: CUB's device-wide algorithms
 * behind plain calls.
 *
 * CUB's headers cost nvcc about five CPU seconds in every file that
 * includes them (cudafe++ and the host compiler read all of them, whatever
 * is used), and the families' host tests include the families' sources.
 * Only hx_cub.cu includes CUB; the families and their tests call these. */
#ifndef HX_CUB_H
#define HX_CUB_H

#include <cuda_runtime.h>
#include <stddef.h>
#include <stdint.h>

/* Each is CUB's call of the same meaning, with its arguments in its order:
 * with d_temp NULL it only sets bytes to the temporary storage it needs.
 * Returns CUB's error. */
cudaError_t hx_cub_sum(void *d_temp, size_t &bytes, const int *d_in, int *d_out, int n, cudaStream_t s);
cudaError_t hx_cub_sum(void *d_temp, size_t &bytes, const float *d_in, float *d_out, int n, cudaStream_t s);
/* The largest value and its first index (DeviceReduce::ArgMax). */
cudaError_t hx_cub_argmax(void *d_temp, size_t &bytes, const float *d_in, float *d_max, int64_t *d_index,
                          int64_t n, cudaStream_t s);
/* The elements lab.h's lab_keep keeps, in order, and their count
 * (DeviceSelect::If). */
cudaError_t hx_cub_select_kept(void *d_temp, size_t &bytes, const int *d_in, int *d_out, unsigned *d_count,
                               int64_t n, cudaStream_t s);
/* Inclusive prefix sums (DeviceScan::InclusiveSum). */
cudaError_t hx_cub_inclusive_sum(void *d_temp, size_t &bytes, const int *d_in, int *d_out, int n, cudaStream_t s);

#endif /* HX_CUB_H */
