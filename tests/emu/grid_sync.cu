/* grid_sync.cu — tests/emu.sh's kernel for a cooperative launch: each block
 * sums its grid-stride share into part[blockIdx.x]; then, after the grid
 * barrier when `sync` is set, the grid's first thread adds the parts into
 * *out.  Without the barrier it reads parts no block has written yet. */
#include <cooperative_groups.h>

namespace cg = cooperative_groups;

__global__ void grid_sum(const float *in, float *part, float *out, unsigned n, int sync)
{
    __shared__ float s[256];
    cg::grid_group grid = cg::this_grid();
    float v = 0.0f;
    for (unsigned long long i = grid.thread_rank(); i < n; i += grid.size())
        v += in[i];
    s[threadIdx.x] = v;
    __syncthreads();
    for (unsigned d = blockDim.x / 2; d > 0; d /= 2) {
        if (threadIdx.x < d)
            s[threadIdx.x] += s[threadIdx.x + d];
        __syncthreads();
    }
    if (threadIdx.x == 0)
        part[blockIdx.x] = s[0];
    if (sync)
        grid.sync();
    if (grid.thread_rank() == 0) {
        float t = 0.0f;
        for (unsigned b = 0; b < gridDim.x; b++)
            t += part[b];
        *out = t;
    }
}
