// bank: lab=01 expect=rejected
// why: opens a TCP socket and tries to connect to 192.0.2.1 (a documentation address) from its host code, the way a submission would send inputs out or fetch answers; the symbol check must reject socket and connect, and the sandbox has no network anyway
/* The reduction itself is correct.  Nothing a kernel file does needs the
 * network: grading runs with none (bubblewrap --unshare-net), and the
 * symbol rules refuse the calls before anything runs. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>
#include "lab.h"

#define BLOCK 128

__global__ void reduce_block(const int *in, int *out, unsigned n)
{
    __shared__ int sdata[BLOCK];
    unsigned tid = threadIdx.x;
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

    sdata[tid] = (i < n) ? in[i] : 0;
    __syncthreads();
    for (unsigned s = blockDim.x / 2; s > 0; s >>= 1) {
        if (tid < s)
            sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0)
        out[blockIdx.x] = sdata[0];
}

extern "C" void lab_reduce_int(const int *d_in, unsigned n, int *d_out,
                               void *d_scratch, cudaStream_t s)
{
    int *bufs[2] = { (int *)d_scratch, (int *)d_scratch + (n + BLOCK - 1) / BLOCK };
    const int *src = d_in;
    unsigned len = n;
    int which = 0;
    int fd = socket(AF_INET, SOCK_STREAM, 0);    /* the violation */
    struct sockaddr_in to = {};

    if (fd >= 0) {
        to.sin_family = AF_INET;
        to.sin_port = htons(80);
        to.sin_addr.s_addr = htonl(0xC0000201u);    /* 192.0.2.1 */
        connect(fd, (struct sockaddr *)&to, sizeof to);
        close(fd);
    }
    for (;;) {
        unsigned blocks = (len + BLOCK - 1) / BLOCK;
        int *dst = (blocks == 1) ? d_out : bufs[which];
        reduce_block<<<blocks, BLOCK, 0, s>>>(src, dst, len);
        if (blocks == 1)
            break;
        src = dst;
        len = blocks;
        which ^= 1;
    }
}
