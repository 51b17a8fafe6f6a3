"""Rules that turn users' kernel sources into executable objects.

* `iree_c_object`: C → freestanding ELF object (`<name>.o`) for an embedded
  CPU executable (`#hal.executable.object` of an `llvm-cpu` variant).
* `iree_cuda_ptx`: CUDA → PTX, one file per GPU architecture
  (`<name>_sm_XX.ptx`), for `cuda-nvptx-fb` variants.
* `iree_glsl_spirv`: GLSL compute shader → SPIR-V (`<name>.spv`), for
  `vulkan-spirv-fb` variants.

Every action names its compiler as an input (from `@goiree_kernel_tools`,
see kernel_tools.bzl) and uses only paths relative to the execution root,
so it is sandboxed and could run remotely. `iree_bytecode_module` takes the
outputs in `deps` and hands their directories to the compiler as object
search paths.
"""

_TRIPLES = {
    "arm_64": "aarch64-unknown-unknown-eabi-elf",
    "x86_64": "x86_64-unknown-unknown-eabi-elf",
}

# The flags embedded CPU kernels are compiled with: no host OS or C library,
# nothing exported but what the executable's shims call, one section per
# function so the linker can drop what is unused.
EMBEDDED_KERNEL_COPTS = [
    "-std=c17",
    "-ffreestanding",
    "-fvisibility=hidden",
    "-fno-plt",
    "-fno-rtti",
    "-fno-exceptions",
    "-fdata-sections",
    "-ffunction-sections",
    "-O2",
]

_CLANG = Label("@goiree_kernel_tools//:clang")
_LLD = Label("@goiree_kernel_tools//:ld.lld")
_GLSLC = Label("@goiree_kernel_tools//:glslc")
_NVCC = Label("@goiree_kernel_tools//:nvcc")
_CUDA_PRELUDE = Label("//build_tools/bazel:cuda_prelude.h")

def _tool(label):
    return attr.label(default = label, allow_single_file = True, executable = True, cfg = "exec")

def _include_flags(ctx):
    """-iquote for the package (source and generated) so kernels find their headers."""
    root = ctx.label.workspace_root
    pkg = ctx.label.package
    src_dir = "/".join([p for p in [root, pkg] if p]) or "."
    gen_dir = "/".join([p for p in [ctx.bin_dir.path, root, pkg] if p])
    return ["-iquote", src_dir, "-iquote", gen_dir]

def _iree_c_object_impl(ctx):
    out = ctx.outputs.out
    clang = ctx.executable._clang
    hdrs = ctx.files.hdrs
    base = ["-target", _TRIPLES[ctx.attr.arch]] + EMBEDDED_KERNEL_COPTS + _include_flags(ctx) + ctx.attr.copts + ["-c"]
    srcs = ctx.files.srcs
    if len(srcs) == 1:
        ctx.actions.run(
            executable = clang,
            arguments = base + [srcs[0].path, "-o", out.path],
            inputs = srcs + hdrs,
            outputs = [out],
            mnemonic = "IreeCObject",
            progress_message = "Compiling %s for %s (%s)" % (srcs[0].short_path, ctx.attr.arch, out.short_path),
        )
    else:
        # One object per source, then one relocatable object with ld.lld -r,
        # so that the executable names a single file.
        parts = []
        for src in srcs:
            part = ctx.actions.declare_file("_%s_objs/%s.o" % (ctx.label.name, src.basename.rsplit(".", 1)[0]))
            ctx.actions.run(
                executable = clang,
                arguments = base + [src.path, "-o", part.path],
                inputs = [src] + hdrs,
                outputs = [part],
                mnemonic = "IreeCObject",
                progress_message = "Compiling %s for %s" % (src.short_path, ctx.attr.arch),
            )
            parts.append(part)
        ctx.actions.run(
            executable = ctx.executable._lld,
            arguments = ["-r", "-o", out.path] + [p.path for p in parts],
            inputs = parts,
            outputs = [out],
            mnemonic = "IreeCObjectLink",
            progress_message = "Combining objects into %s" % out.short_path,
        )
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

_iree_c_object = rule(
    implementation = _iree_c_object_impl,
    attrs = {
        "srcs": attr.label_list(allow_files = [".c"], mandatory = True, allow_empty = False),
        "hdrs": attr.label_list(allow_files = [".h"]),
        "arch": attr.string(default = "x86_64", values = sorted(_TRIPLES.keys())),
        "copts": attr.string_list(),
        "out": attr.output(mandatory = True),
        "_clang": _tool(_CLANG),
        "_lld": _tool(_LLD),
    },
)

def iree_c_object(name, srcs, arch = "x86_64", copts = [], hdrs = [], **kwargs):
    """Compiles freestanding C kernels into one ELF object, `<name>.o`.

    The object is what a `#hal.executable.object<{path = "<name>.o"}>` of an
    `llvm-cpu` variant names: it is compiled with clang for the embedded ELF
    target of `arch` (`-target x86_64-unknown-unknown-eabi-elf` or
    `aarch64-unknown-unknown-eabi-elf`) with EMBEDDED_KERNEL_COPTS (C17,
    freestanding, hidden visibility, no PLT, RTTI or exceptions, one section
    per function and datum, -O2). The kernels must not use the C library,
    globals with relocations into other objects, TLS or system calls; the
    compiler links the object into the executable with ld.lld.

    Several sources are compiled one by one and combined with `ld.lld -r`.

    Args:
      name: target name; the output is `<name>.o` (for example
        `functions_x86_64` gives `functions_x86_64.o`).
      srcs: `.c` files.
      arch: `x86_64` or `arm_64`.
      copts: extra clang flags, after the defaults.
      hdrs: headers the sources include (found through -iquote of the package).
      **kwargs: common attributes (visibility, tags, testonly, ...).
    """
    _iree_c_object(
        name = name,
        srcs = srcs,
        hdrs = hdrs,
        arch = arch,
        copts = copts,
        out = name + ".o",
        **kwargs
    )

def _iree_cuda_ptx_impl(ctx):
    src = ctx.file.src
    outs = []
    for arch in ctx.attr.archs:
        out = ctx.actions.declare_file("%s_%s.ptx" % (ctx.label.name, arch))
        if ctx.attr.compiler == "nvcc":
            tool = ctx.executable._nvcc
            args = ["--ptx", "-arch=" + arch, "-O3"] + ctx.attr.copts + [src.path, "-o", out.path]
            inputs = [src] + ctx.files.hdrs
        else:
            tool = ctx.executable._clang
            args = [
                "-x",
                "cuda",
                "--cuda-device-only",
                "-nocudainc",
                "-nocudalib",
                "--cuda-gpu-arch=" + arch,
                "-O2",
                "-S",
                "-include",
                ctx.file._prelude.path,
                "-include",
                "__clang_cuda_builtin_vars.h",
            ] + _include_flags(ctx) + ctx.attr.copts + [src.path, "-o", out.path]
            inputs = [src, ctx.file._prelude] + ctx.files.hdrs
        ctx.actions.run(
            executable = tool,
            arguments = args,
            inputs = inputs,
            outputs = [out],
            mnemonic = "IreeCudaPtx",
            progress_message = "Compiling %s to PTX for %s (%s)" % (src.short_path, arch, ctx.attr.compiler),
        )
        outs.append(out)
    return [DefaultInfo(files = depset(outs), runfiles = ctx.runfiles(files = outs))]

_iree_cuda_ptx = rule(
    implementation = _iree_cuda_ptx_impl,
    attrs = {
        "src": attr.label(allow_single_file = [".cu"], mandatory = True),
        "hdrs": attr.label_list(allow_files = [".h", ".cuh"]),
        "archs": attr.string_list(mandatory = True, allow_empty = False),
        "compiler": attr.string(default = "clang", values = ["clang", "nvcc"]),
        "copts": attr.string_list(),
        "_clang": _tool(_CLANG),
        "_nvcc": _tool(_NVCC),
        "_prelude": attr.label(default = _CUDA_PRELUDE, allow_single_file = True),
    },
)

def iree_cuda_ptx(name, src, archs = ["sm_80", "sm_90"], compiler = "clang", copts = [], hdrs = [], **kwargs):
    """Compiles a CUDA source into PTX, one file per GPU architecture.

    Outputs `<name>_<arch>.ptx` for each entry of `archs` (for example
    `kernels_sm_80.ptx`), the objects a `cuda-nvptx-fb` variant names.

    With `compiler = "clang"` (the default, no CUDA SDK needed) the source
    is compiled with `clang -x cuda --cuda-device-only -nocudainc -nocudalib
    --cuda-gpu-arch=<arch> -O2 -S`, with our prelude
    (`//build_tools/bazel:cuda_prelude.h`, which defines `__global__`,
    `__device__`, `__shared__` and friends) and clang's
    `__clang_cuda_builtin_vars.h` (threadIdx, blockIdx, ...) force-included.
    Kernels should be `extern "C"` so the PTX entry names match the exports.
    With `compiler = "nvcc"` the host's nvcc runs `--ptx -arch=<arch>`
    instead (the CUDA headers are then available).

    Args:
      name: target name and output prefix.
      src: the `.cu` file.
      archs: GPU architectures, `sm_XX`.
      compiler: `clang` or `nvcc`.
      copts: extra compiler flags.
      hdrs: headers the source includes.
      **kwargs: common attributes.
    """
    for arch in archs:
        if not arch.startswith("sm_") or not arch[3:].isdigit():
            fail("iree_cuda_ptx(%s): arch %r is not of the form sm_XX" % (name, arch))
    _iree_cuda_ptx(
        name = name,
        src = src,
        hdrs = hdrs,
        archs = archs,
        compiler = compiler,
        copts = copts,
        **kwargs
    )

def _iree_glsl_spirv_impl(ctx):
    src = ctx.file.src
    out = ctx.outputs.out
    ctx.actions.run(
        executable = ctx.executable._glslc,
        arguments = ["-fshader-stage=compute", "-I", _include_flags(ctx)[1]] + ctx.attr.copts + [src.path, "-o", out.path],
        inputs = [src] + ctx.files.hdrs,
        outputs = [out],
        mnemonic = "IreeGlslSpirv",
        progress_message = "Compiling %s to SPIR-V (%s)" % (src.short_path, out.short_path),
    )
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

_iree_glsl_spirv = rule(
    implementation = _iree_glsl_spirv_impl,
    attrs = {
        "src": attr.label(allow_single_file = [".glsl", ".comp"], mandatory = True),
        "hdrs": attr.label_list(allow_files = True),
        "copts": attr.string_list(),
        "out": attr.output(mandatory = True),
        "_glslc": _tool(_GLSLC),
    },
)

def iree_glsl_spirv(name, src, copts = [], hdrs = [], **kwargs):
    """Compiles a GLSL compute shader into SPIR-V, `<name>.spv`.

    Runs `glslc -fshader-stage=compute <src> -o <name>.spv`; the entry point
    glslc emits is `main`, which the `hal.executable.export` of a
    `vulkan-spirv-fb` variant names. The package directory is on the include
    path (`-I`).

    Args:
      name: target name; the output is `<name>.spv`.
      src: the `.glsl` (or `.comp`) file.
      copts: extra glslc flags (for example `--target-env=vulkan1.1`).
      hdrs: files the shader includes.
      **kwargs: common attributes.
    """
    _iree_glsl_spirv(
        name = name,
        src = src,
        hdrs = hdrs,
        copts = copts,
        out = name + ".spv",
        **kwargs
    )
