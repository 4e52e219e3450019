/* rt.h — the recording runtime's side that runner.c drives: the socket to
 * the judge and the start and end of one recorded call.  The CUDA entry
 * points rt.c defines are declared by CUDA's own headers, and those
 * nvcc's stubs call by stubrt.h. */
#ifndef RT_H
#define RT_H

#include <cuda_runtime_api.h>
#include <stddef.h>
#include <stdint.h>

#include "plan.h"

/* One message to or from the judge on PLAN_FD; 0, or -1 when the socket
 * failed or (rt_recv) the message is not of the type expected. */
int rt_send(const void *msg, size_t len);
int rt_recv(void *msg, size_t len, uint32_t type);

/* Tells the judge which kernels were registered and takes their parameter
 * sizes; -1 when the judge is gone. */
int rt_hello(void);

/* Brackets one call of the lab's entry point: steps recorded in between
 * make its plan, and rt_end sends the END that closes it. */
void rt_begin(void);
int rt_end(void);

#endif /* RT_H */
