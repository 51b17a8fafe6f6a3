"""Public entry point: every rule and macro users of this repository load.

```
load("@goiree//build_tools/bazel:defs.bzl", "iree_bytecode_module", "iree_c_object", "iree_run_module_test")
```

See kernels.bzl (objects from C, CUDA and GLSL) and module.bzl (modules and
the tests and binaries that run them) for each rule's documentation.
"""

load(":kernels.bzl", _EMBEDDED_KERNEL_COPTS = "EMBEDDED_KERNEL_COPTS", _iree_c_object = "iree_c_object", _iree_cuda_ptx = "iree_cuda_ptx", _iree_glsl_spirv = "iree_glsl_spirv")
load(":module.bzl", _iree_bytecode_module = "iree_bytecode_module", _iree_compile_test = "iree_compile_test", _iree_run_module = "iree_run_module", _iree_run_module_test = "iree_run_module_test")

EMBEDDED_KERNEL_COPTS = _EMBEDDED_KERNEL_COPTS
iree_c_object = _iree_c_object
iree_cuda_ptx = _iree_cuda_ptx
iree_glsl_spirv = _iree_glsl_spirv
iree_bytecode_module = _iree_bytecode_module
iree_compile_test = _iree_compile_test
iree_run_module = _iree_run_module
iree_run_module_test = _iree_run_module_test
