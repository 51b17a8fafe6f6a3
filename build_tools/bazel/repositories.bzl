"""The external repositories this project needs, for any WORKSPACE.

A WORKSPACE that uses this repository (as `@goiree`, or this repository's
own) declares everything with two calls:

```
load("@goiree//build_tools/bazel:repositories.bzl", "goiree_repositories")

goiree_repositories()

load("@goiree//build_tools/bazel:setup.bzl", "goiree_setup")

goiree_setup()
```

`goiree_repositories()` declares the repositories that must exist before
their .bzl files can be loaded; `goiree_setup()` (setup.bzl) then loads
rules_go and gazelle and registers the Go toolchain and the Go modules.
Nothing is downloaded with http_archive: Debian's bazel-skylib and
bazel-platforms are local repositories, rules_cc / rules_java /
remote_coverage_tools are the stand-ins under third_party/bazel, rules_go
and gazelle are Go modules fetched through the Go module proxy and patched
from third_party/, and the kernel compilers come from the host
(`@goiree_kernel_tools`, kernel_tools.bzl).

A repository the calling WORKSPACE declared before the call is left alone,
so a downstream project can substitute its own.
"""

load(":go_module_archive.bzl", "go_module_archive")
load(":kernel_tools.bzl", "goiree_kernel_tools")

# A file at the root of this repository; its directory is where the
# third_party stand-ins are found, wherever this repository lives.
_ROOT_FILE = Label("//:WORKSPACE")

def _goiree_vendored_repository_impl(rctx):
    src = rctx.path(_ROOT_FILE).dirname
    for part in rctx.attr.path.split("/"):
        src = src.get_child(part)
    if not src.exists:
        fail("goiree_vendored_repository(%s): %s does not exist" % (rctx.name, src))
    for child in src.readdir():
        rctx.symlink(child, child.basename)

goiree_vendored_repository = repository_rule(
    implementation = _goiree_vendored_repository_impl,
    doc = "A repository whose files are a directory of this repository (like local_repository, but relative to @goiree rather than to the main workspace).",
    attrs = {
        "path": attr.string(mandatory = True, doc = "Directory relative to this repository's root."),
    },
    local = True,
)

def _maybe(rule, name, **kwargs):
    if not native.existing_rule(name):
        rule(name = name, **kwargs)

def goiree_repositories():
    """Declares the repositories needed before setup.bzl can be loaded."""

    # Debian's packages bazel-skylib and bazel-platforms (installed by ./bazelw).
    _maybe(native.local_repository, "bazel_skylib", path = "/usr/share/bazel/tools/skylib")
    _maybe(native.local_repository, "platforms", path = "/usr/share/bazel/tools/platforms")

    # Stand-ins for repositories Bazel's own WORKSPACE suffix would download.
    _maybe(goiree_vendored_repository, "rules_cc", path = "third_party/bazel/rules_cc")
    _maybe(goiree_vendored_repository, "rules_java", path = "third_party/bazel/rules_java")
    _maybe(goiree_vendored_repository, "remote_coverage_tools", path = "third_party/bazel/remote_coverage_tools")

    _maybe(
        go_module_archive,
        "io_bazel_rules_go",
        module = "github.com/bazelbuild/rules_go",
        patches = [
            Label("//third_party/rules_go:0001-sdk-without-prebuilt-stdlib.patch"),
            Label("//third_party/rules_go:0002-stdlib-installgoroot.patch"),
            Label("//third_party/rules_go:0003-go-tool-binary-with-go-build.patch"),
            Label("//third_party/rules_go:0004-pack-in-go.patch"),
            Label("//third_party/rules_go:0005-asm-symabis-package-path.patch"),
            Label("//third_party/rules_go:0006-host-sdk-go-env.patch"),
        ],
        sum = "h1:cmObMtgIOaEU944SqXtJ9DnlS8IPGGa7pdRnsrpQzXM=",
        version = "v0.34.0",
    )
    _maybe(
        go_module_archive,
        "bazel_gazelle",
        module = "github.com/bazelbuild/bazel-gazelle",
        patches = [Label("//third_party/bazel_gazelle:0001-disable-binary-test-suite.patch")],
        sum = "h1:+/ZhUxlDy4XnyMIGeKkbRZoIGssy1eO51GijwIvvuwE=",
        vendor = True,
        version = "v0.27.0",
    )

    # clang, ld.lld, glslc (and nvcc where present) as labels.
    _maybe(goiree_kernel_tools, "goiree_kernel_tools")
