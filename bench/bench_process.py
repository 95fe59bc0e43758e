"""What a bench process reports about itself: allocator, BLAS core, page faults, peak RSS.

Read from inside the process (the libraries actually mapped), so a result says what ran,
not what the driver meant to run.
"""
import ctypes
import os
import re
import resource


def mapped_libraries():
    with open("/proc/self/maps") as f:
        return set(re.findall(r"(/\S+\.so[.\d]*)\s*$", f.read(), re.M))


def allocator():
    """tcmalloc or jemalloc when one is mapped (LD_PRELOAD), else glibc."""
    libs = " ".join(mapped_libraries())
    for name in ("tcmalloc", "jemalloc"):
        if "lib" + name in libs:
            return name
    return "glibc"


def blas_core():
    """The OpenBLAS kernel family in use (openblas_get_corename), or None without OpenBLAS."""
    for lib in mapped_libraries():
        if "libopenblas" in os.path.basename(lib):
            get = ctypes.CDLL(lib).openblas_get_corename
            get.restype = ctypes.c_char_p
            return get().decode()
    return None


def minor_faults():
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt


def peak_rss_mib():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024.0  # Linux: KiB


def environment():
    """The JSON fields every bench line carries about its process."""
    return dict(allocator=allocator(), blas_core=blas_core(), openblas_coretype_env=os.environ.get("OPENBLAS_CORETYPE"))
