// emu-diff.cu — the GPU's half of the emulator's differential test: runs
// each row that `test_emu_ops --write DIR` wrote (DIR/rows.tsv, and per row
// NNN.ptx, NNN.in, NNN.param) on the GPU, loading the very PTX text the
// emulator runs with cuModuleLoadData, and writes the results to NNN.gpu
// (or why it could not to NNN.gpuerr).  tests/device/emu-diff.sh compares.
// Usage: emu-diff DIR
#include <cuda.h>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

// read_all: the whole file at PATH, or false.
static bool read_all(const std::string &path, std::vector<char> &out)
{
    FILE *f = fopen(path.c_str(), "rb");
    if (!f) return false;
    out.clear();
    char buf[65536];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, f)) > 0) out.insert(out.end(), buf, buf + n);
    bool ok = !ferror(f);
    fclose(f);
    return ok;
}

static bool write_all(const std::string &path, const void *p, size_t n)
{
    FILE *f = fopen(path.c_str(), "wb");
    if (!f) return false;
    bool ok = fwrite(p, 1, n, f) == n;
    return fclose(f) == 0 && ok;
}

static std::string cu_error(CUresult r)
{
    const char *name = nullptr, *text = nullptr;
    cuGetErrorName(r, &name);
    cuGetErrorString(r, &text);
    return std::string(name ? name : "?") + ": " + (text ? text : "");
}

// run_row: one row on the GPU; an empty string, or what went wrong.  A
// kernel that faults leaves the context unusable (*FATAL): the caller
// makes a new one.
static std::string run_row(const std::string &base, int threads, int block, int slots, bool *fatal)
{
    std::vector<char> ptx, in, param;
    if (!read_all(base + ".ptx", ptx) || !read_all(base + ".in", in) || !read_all(base + ".param", param))
        return "its files cannot be read";
    size_t bytes = (size_t)threads * slots * 8;
    if (in.size() != bytes || param.size() != 8) return "its operand files have the wrong size";
    ptx.push_back('\0');

    CUmodule mod = nullptr;
    CUfunction fn = nullptr;
    CUdeviceptr din = 0, dout = 0;
    std::string why;
    std::vector<uint64_t> out(bytes / 8);
    char log[4096] = "";
    CUjit_option opts[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
    void *vals[] = {log, (void *)(uintptr_t)sizeof log};
    CUresult r = cuModuleLoadDataEx(&mod, ptx.data(), 2, opts, vals);
    if (r != CUDA_SUCCESS) return "cuModuleLoadData: " + cu_error(r) + " " + log;
    uint64_t p;
    memcpy(&p, param.data(), 8);
    void *args[] = {&din, &dout, &p};
    if ((r = cuModuleGetFunction(&fn, mod, "t")) != CUDA_SUCCESS) why = "cuModuleGetFunction: ";
    else if ((r = cuMemAlloc(&din, bytes)) != CUDA_SUCCESS) why = "cuMemAlloc: ";
    else if ((r = cuMemAlloc(&dout, bytes)) != CUDA_SUCCESS) why = "cuMemAlloc: ";
    else if ((r = cuMemcpyHtoD(din, in.data(), bytes)) != CUDA_SUCCESS) why = "cuMemcpyHtoD: ";
    else if ((r = cuMemsetD8(dout, 0, bytes)) != CUDA_SUCCESS) why = "cuMemsetD8: ";
    else if ((r = cuLaunchKernel(fn, threads / block, 1, 1, block, 1, 1, 0, nullptr, args, nullptr)) !=
             CUDA_SUCCESS)
        why = "cuLaunchKernel: ";
    else if ((r = cuCtxSynchronize()) != CUDA_SUCCESS) {
        why = "the kernel: ";
        *fatal = true;
    } else if ((r = cuMemcpyDtoH(out.data(), dout, bytes)) != CUDA_SUCCESS)
        why = "cuMemcpyDtoH: ";
    else if (!write_all(base + ".gpu", out.data(), bytes))
        why = "cannot write " + base + ".gpu";
    if (r != CUDA_SUCCESS) why += cu_error(r);
    if (!*fatal) {
        if (din) cuMemFree(din);
        if (dout) cuMemFree(dout);
        cuModuleUnload(mod);
    }
    return why;
}

static CUresult open_context(CUdevice dev, CUcontext *ctx)
{
    CUresult r = cuDevicePrimaryCtxRetain(ctx, dev);
    return r == CUDA_SUCCESS ? cuCtxSetCurrent(*ctx) : r;
}

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: emu-diff DIR (after test_emu_ops --write DIR)\n");
        return 2;
    }
    std::string dir = argv[1];
    FILE *list = fopen((dir + "/rows.tsv").c_str(), "r");
    if (!list) {
        fprintf(stderr, "emu-diff: no %s/rows.tsv\n", dir.c_str());
        return 2;
    }
    int threads = 0, block = 0, slots = 0;
    char line[512];
    if (!fgets(line, sizeof line, list) || sscanf(line, "# threads %d block %d slots %d", &threads, &block,
                                                 &slots) != 3 || threads <= 0 || block <= 0 ||
        threads % block || slots <= 0) {
        fprintf(stderr, "emu-diff: %s/rows.tsv does not start with its shape\n", dir.c_str());
        fclose(list);
        return 2;
    }
    CUdevice dev;
    CUcontext ctx;
    CUresult r = cuInit(0);
    if (r == CUDA_SUCCESS) r = cuDeviceGet(&dev, 0);
    if (r == CUDA_SUCCESS) r = open_context(dev, &ctx);
    if (r != CUDA_SUCCESS) {
        fprintf(stderr, "emu-diff: no GPU: %s\n", cu_error(r).c_str());
        fclose(list);
        return 2;
    }
    char name[256] = "";
    cuDeviceGetName(name, sizeof name, dev);
    int rows = 0, failed = 0;
    while (fgets(line, sizeof line, list)) {
        int index;
        if (sscanf(line, "%d", &index) != 1) continue;
        char base[4096];
        snprintf(base, sizeof base, "%s/%03d", dir.c_str(), index);
        bool fatal = false;
        std::string why = run_row(base, threads, block, slots, &fatal);
        rows++;
        if (!why.empty()) {
            failed++;
            line[strcspn(line, "\n")] = 0;
            fprintf(stderr, "emu-diff: %s: %s\n", line, why.c_str());
            write_all(std::string(base) + ".gpuerr", why.data(), why.size());
        }
        if (fatal) {
            // The primary context is reset and made again for the next row.
            cuDevicePrimaryCtxRelease(dev);
            cuDevicePrimaryCtxReset(dev);
            if ((r = open_context(dev, &ctx)) != CUDA_SUCCESS) {
                fprintf(stderr, "emu-diff: no new context after a fault (%s): the rest is not run\n",
                        cu_error(r).c_str());
                break;
            }
        }
    }
    fclose(list);
    printf("emu-diff: %d rows run on %s, %d could not be\n", rows, name, failed);
    return failed ? 1 : 0;
}
