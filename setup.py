"""Build the Cython kernels in cext/ into mpitaskmap._<name> extension modules.

Every ``cext/_<topic>.pyx`` becomes ``mpitaskmap._<topic>``.  Compiler directives are set
here once (style guide): no bounds or wrap-around checks, C division.  Set
``MPITASKMAP_CYTHON_DEBUG=1`` to build with bounds checking, and ``MPITASKMAP_OPENMP=1``
to compile with OpenMP.
"""
import glob
import os
import sys

import numpy as np
from Cython.Build import cythonize
from setuptools import Extension, setup

debug = os.environ.get("MPITASKMAP_CYTHON_DEBUG") == "1"
openmp = os.environ.get("MPITASKMAP_OPENMP") == "1" and sys.platform.startswith("linux")
omp_flags = ["-fopenmp"] if openmp else []

extensions = []
for pyx in sorted(glob.glob(os.path.join("cext", "_*.pyx"))):
    name = os.path.splitext(os.path.basename(pyx))[0]
    extensions.append(
        Extension(
            f"mpitaskmap.{name}",
            [pyx],
            include_dirs=[np.get_include(), "cext"],
            define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
            extra_compile_args=(["-O0", "-g"] if debug else ["-O3"]) + omp_flags,
            extra_link_args=omp_flags,
        )
    )

setup(
    ext_modules=cythonize(
        extensions,
        compiler_directives={
            "language_level": "3",
            "boundscheck": debug,
            "wraparound": False,
            "cdivision": True,
            "initializedcheck": debug,
        },
    ),
)
