"""Rules that compile programs into VM bytecode modules and run them.

* `iree_bytecode_module`: `.mlir` → `.vmfb` with our `iree-compile`, the
  executable objects it needs given as `deps`.
* `iree_run_module_test`: a test that runs a function of a module with
  `iree-run-module` and checks its results with `--expected_output`.
* `iree_run_module`: the same invocation as a binary, for `bazel run`.
* `iree_compile_test`: a test that runs `iree-compile` at test time on
  objects from its runfiles (for programs whose module cannot be built by
  every build, or to check a program against freshly built kernels).

The rules resolve their default tools with `Label(...)`, so they work
unchanged when this repository is used from another workspace as
`@goiree` (see build_tools/testdata/downstream).
"""

_COMPILE_TOOL = Label("//tools:iree-compile")
_RUN_TOOL = Label("//tools:iree-run-module")
_CLANG = Label("@goiree_kernel_tools//:clang")
_LLD = Label("@goiree_kernel_tools//:ld.lld")
_GLSLC = Label("@goiree_kernel_tools//:glslc")
_RUNNER = Label("//build_tools/bazel:run_module.sh")
_COMPILE_TEST = Label("//build_tools/bazel:compile_test.sh")

def _iree_bytecode_module_impl(ctx):
    out = ctx.outputs.module
    clang = ctx.executable._clang
    lld = ctx.executable._lld
    glslc = ctx.executable._glslc

    # Each object's directory becomes a search path, in the order of deps;
    # the paths are relative to the execution root (bazel-out/... for built
    # objects, the package for checked-in ones), so the action reads only
    # its declared inputs.
    objects = []
    search_paths = []
    for dep in ctx.attr.deps:
        for f in dep.files.to_list():
            objects.append(f)
            if f.dirname not in search_paths:
                search_paths.append(f.dirname)

    flags = [ctx.expand_location(flag, ctx.attr.deps) for flag in ctx.attr.flags]
    args = ctx.actions.args()
    args.add(ctx.file.src)
    args.add("-o", out)
    args.add("--iree-llvmcpu-clang-path=" + clang.path)
    args.add("--iree-llvmcpu-embedded-linker-path=" + lld.path)
    args.add("--iree-vulkan-glslc-path=" + glslc.path)
    for path in search_paths:
        args.add("--iree-hal-executable-object-search-path=" + path)
    args.add_all(flags)

    ctx.actions.run(
        executable = ctx.executable.compile_tool,
        arguments = [args],
        inputs = [ctx.file.src] + objects,
        tools = [clang, lld, glslc],
        outputs = [out],
        mnemonic = "IreeCompile",
        progress_message = "Compiling %s into %s" % (ctx.file.src.short_path, out.short_path),
    )
    return [DefaultInfo(
        files = depset([out]),
        runfiles = ctx.runfiles(files = [out]),
    )]

_iree_bytecode_module = rule(
    implementation = _iree_bytecode_module_impl,
    attrs = {
        "src": attr.label(allow_single_file = [".mlir"], mandatory = True),
        "flags": attr.string_list(),
        "deps": attr.label_list(allow_files = True),
        "module": attr.output(mandatory = True),
        "compile_tool": attr.label(default = _COMPILE_TOOL, executable = True, cfg = "exec"),
        "_clang": attr.label(default = _CLANG, allow_single_file = True, executable = True, cfg = "exec"),
        "_lld": attr.label(default = _LLD, allow_single_file = True, executable = True, cfg = "exec"),
        "_glslc": attr.label(default = _GLSLC, allow_single_file = True, executable = True, cfg = "exec"),
    },
)

def iree_bytecode_module(
        name,
        src,
        flags = [],
        deps = [],
        module_name = None,
        compile_tool = _COMPILE_TOOL,
        **kwargs):
    """Compiles an MLIR program into a VM bytecode module.

    Runs `iree-compile <src> -o <module_name>` with clang, ld.lld and glslc
    from `@goiree_kernel_tools` (`--iree-llvmcpu-clang-path=`,
    `--iree-llvmcpu-embedded-linker-path=`, `--iree-vulkan-glslc-path=`)
    and one
    `--iree-hal-executable-object-search-path=` per directory holding a
    file of `deps`, so that `#hal.executable.object<{path = "x.o"}>` finds
    the built object inside the sandbox. All paths on the command line are
    relative to the execution root.

    Args:
      name: target name.
      src: the `.mlir` program.
      flags: extra iree-compile flags, for example the target device of a
        program that declares none (`hal.device.targets`):
        `--iree-hal-target-device=local`
        `--iree-hal-local-target-device-backends=llvm-cpu`,
        `--iree-hal-target-device=vulkan` or `--iree-hal-target-device=cuda`
        (IREE's current spelling), or the older
        `--iree-hal-target-backends=llvm-cpu`; `$(location ...)` of deps is
        expanded.
      deps: targets whose files are executable objects (`iree_c_object`,
        `iree_cuda_ptx`, `iree_glsl_spirv`, or checked-in files).
      module_name: output file name; default `<name>.vmfb`.
      compile_tool: the compiler; default our `//tools:iree-compile`.
      **kwargs: common attributes (visibility, tags, testonly, ...).
    """
    _iree_bytecode_module(
        name = name,
        src = src,
        flags = flags,
        deps = deps,
        module = module_name or (name + ".vmfb"),
        compile_tool = compile_tool,
        **kwargs
    )

def _run_args(module, function, inputs, expected_output, device, args, runner):
    if type(expected_output) == type(""):
        expected_output = [expected_output]
    return (
        ["$(rootpath %s)" % runner, "--device=" + device, "--module=$(rootpath %s)" % module, "--function=" + function] +
        ["--input=" + i for i in inputs] +
        ["--expected_output=" + e for e in expected_output] +
        args
    )

def iree_run_module_test(
        name,
        module,
        function,
        inputs = [],
        expected_output = [],
        device = "local-task",
        args = [],
        tags = [],
        runner = _RUN_TOOL,
        **kwargs):
    """A test that runs one function of a module and checks its results.

    Runs `iree-run-module --device=<device> --module=<module>
    --function=<function> --input=... --expected_output=...` from the test's
    runfiles; the test fails when the call fails or a result differs from
    its expected value (f32 within iree-run-module's default tolerance).

    Args:
      name: test name.
      module: label of the `.vmfb` (an `iree_bytecode_module` output).
      function: exported function to call.
      inputs: `--input` values in iree-run-module's syntax (`8xf32=2`, ...).
      expected_output: one expected value per result in the same syntax
        (a string for a single result, or a list).
      device: HAL device, `local-sync`, `local-task`, `vulkan`, `cuda`, ...
      args: extra iree-run-module flags.
      tags: test tags; tests of GPU devices should carry `requires-gpu` or
        `requires-vulkan` (and `manual` where CI has no such device).
      runner: the iree-run-module binary; default our `//tools:iree-run-module`.
      **kwargs: common test attributes (size, timeout, flaky, ...).
    """
    if not expected_output:
        fail("iree_run_module_test(%s): expected_output is required (a test that checks nothing cannot fail)" % name)
    kwargs.setdefault("size", "small")
    native.sh_test(
        name = name,
        srcs = [_RUNNER],
        args = _run_args(module, function, inputs, expected_output, device, args, str(runner)),
        data = [str(runner), module],
        tags = tags,
        **kwargs
    )

def iree_run_module(
        name,
        module,
        function,
        inputs = [],
        device = "local-task",
        args = [],
        runner = _RUN_TOOL,
        **kwargs):
    """A binary that runs one function of a module and prints its results.

    `bazel run :<name>` runs `iree-run-module --device=<device>
    --module=<module> --function=<function> --input=...`; arguments after
    `--` are appended (for example `-- --device=local-sync`).

    Args:
      name: target name.
      module: label of the `.vmfb`.
      function: exported function to call.
      inputs: `--input` values.
      device: HAL device.
      args: extra iree-run-module flags.
      runner: the iree-run-module binary.
      **kwargs: common attributes.
    """
    native.sh_binary(
        name = name,
        srcs = [_RUNNER],
        args = _run_args(module, function, inputs, [], device, args, str(runner)),
        data = [str(runner), module],
        **kwargs
    )

def iree_compile_test(
        name,
        src,
        deps = [],
        flags = [],
        compile_tool = _COMPILE_TOOL,
        **kwargs):
    """A test that compiles a program against objects from its runfiles.

    At test time runs `iree-compile <src> -o $TEST_TMPDIR/... <flags>` with
    one `--iree-hal-executable-object-search-path=` per directory holding a
    file of `deps` (runfiles paths) and clang / ld.lld from
    `@goiree_kernel_tools`; the test passes when iree-compile succeeds. With
    `flags = ["--compile-to=hal"]` it checks the front end only: object
    resolution and the kernel ABI checks (ELF symbols, PTX entries and
    parameters, SPIR-V entry points, bindings and push constants) against
    the objects the build just made.

    Args:
      name: test name.
      src: the `.mlir` program.
      deps: targets whose files are executable objects.
      flags: extra iree-compile flags.
      compile_tool: the compiler; default our `//tools:iree-compile`.
      **kwargs: common test attributes (tags, size, ...).
    """
    kwargs.setdefault("size", "small")
    tool = str(compile_tool)
    clang = str(_CLANG)
    lld = str(_LLD)
    native.sh_test(
        name = name,
        srcs = [_COMPILE_TEST],
        args = [
            "$(rootpath %s)" % tool,
            "$(rootpath %s)" % src,
            "--iree-llvmcpu-clang-path=$(rootpath %s)" % clang,
            "--iree-llvmcpu-embedded-linker-path=$(rootpath %s)" % lld,
        ] + flags + ["--"] + ["$(rootpaths %s)" % d for d in deps],
        data = [tool, src, clang, lld] + deps,
        **kwargs
    )
