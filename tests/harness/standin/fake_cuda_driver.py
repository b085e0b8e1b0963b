"""A stand-in for kernels/harness/cuda_kernel.CudaDriver: the same methods, no GPU. It records
what the launch code asked for, so tests can check the arguments cuLaunchKernel would get."""
import ctypes
import struct

import cuda_kernel


def elf_symbol_bytes(image, name):
    """The initial bytes of a symbol of an ELF64 image (a cubin's __device__ variable), or None."""
    shoff, = struct.unpack_from("<Q", image, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", image, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", image, shoff + i * shentsize) for i in range(shnum)]
    for sec in sections:
        if sec[1] != 2:  # SHT_SYMTAB
            continue
        strtab = sections[sec[6]][4]
        for off in range(sec[4], sec[4] + sec[5], 24):
            st_name, _, _, st_shndx, st_value, st_size = struct.unpack_from("<IBBHQQ", image, off)
            end = image.index(b"\0", strtab + st_name)
            if image[strtab + st_name:end].decode() == name:
                base = sections[st_shndx][4]
                return image[base + st_value:base + st_value + st_size]
    return None


class FakeDriver:
    REGS = 18
    name = "stand-in"
    version = "0.0"

    def __init__(self, fault=None, max_threads=1024, static_shared=0):
        self.fault = fault
        self.max_threads, self.static_shared = max_threads, static_shared
        self.loaded, self.functions, self.launches, self.freed = [], [], [], []
        self.allocations = {}
        self.unloaded = 0
        self._next = 0x10000

    def load_module(self, image):
        if not image:
            raise cuda_kernel.CudaError("CUDA_ERROR_INVALID_IMAGE: device kernel image is invalid")
        self.loaded.append(bytes(image))
        return len(self.loaded)

    def get_function(self, module, symbol):
        self.functions.append(symbol)
        return symbol

    def read_global(self, module, name, nbytes):
        # What the device would hold at load: the variable's initial value in the cubin.
        found = elf_symbol_bytes(self.loaded[module - 1], name)
        if found is None:
            raise cuda_kernel.CudaError("CUDA_ERROR_NOT_FOUND: named symbol not found (cuModuleGetGlobal returned 500)")
        return found[:nbytes]

    def function_attribute(self, fn, attribute):
        return {cuda_kernel.CU_FUNC_ATTRIBUTE_NUM_REGS: self.REGS,
                cuda_kernel.CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK: self.max_threads,
                cuda_kernel.CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES: self.static_shared}.get(attribute, 0)

    def mem_alloc(self, nbytes):
        ptr = self._next
        self._next += nbytes
        self.allocations[ptr] = nbytes
        return ptr

    def mem_free(self, ptr):
        self.freed.append(ptr)

    def launch(self, fn, grid, block, shared_bytes, params):
        # What the device would read: each value behind its pointer (a struct's bytes).
        self.launches.append((fn, list(grid), list(block), shared_bytes,
                              [p.value if hasattr(p, "value") else bytes(p) for p in params]))

    def synchronize(self):
        if self.fault and self.launches:
            raise cuda_kernel.CudaError(self.fault)

    def unload(self, module):
        self.unloaded += 1
