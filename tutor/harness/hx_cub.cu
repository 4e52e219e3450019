/* hx_cub.cu — CUB's algorithms for the judges' references (hx_cub.h): the
 * one file of the harness that includes CUB. */
#include <cub/device/device_reduce.cuh>
#include <cub/device/device_scan.cuh>
#include <cub/device/device_select.cuh>

#include "../lab.h"
#include "hx_cub.h"

cudaError_t hx_cub_sum(void *d_temp, size_t &bytes, const int *d_in, int *d_out, int n, cudaStream_t s)
{
    return cub::DeviceReduce::Sum(d_temp, bytes, d_in, d_out, n, s);
}

cudaError_t hx_cub_sum(void *d_temp, size_t &bytes, const float *d_in, float *d_out, int n, cudaStream_t s)
{
    return cub::DeviceReduce::Sum(d_temp, bytes, d_in, d_out, n, s);
}

cudaError_t hx_cub_argmax(void *d_temp, size_t &bytes, const float *d_in, float *d_max, int64_t *d_index,
                          int64_t n, cudaStream_t s)
{
    return cub::DeviceReduce::ArgMax(d_temp, bytes, d_in, d_max, d_index, n, s);
}

/* CUB's predicate: the same rule as the student's. */
struct keep_op {
    __device__ bool operator()(const int &x) const { return lab_keep(x) != 0; }
};

cudaError_t hx_cub_select_kept(void *d_temp, size_t &bytes, const int *d_in, int *d_out, unsigned *d_count,
                               int64_t n, cudaStream_t s)
{
    return cub::DeviceSelect::If(d_temp, bytes, d_in, d_out, d_count, n, keep_op(), s);
}

cudaError_t hx_cub_inclusive_sum(void *d_temp, size_t &bytes, const int *d_in, int *d_out, int n, cudaStream_t s)
{
    return cub::DeviceScan::InclusiveSum(d_temp, bytes, d_in, d_out, n, s);
}
