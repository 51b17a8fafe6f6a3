"""Second step of a WORKSPACE that uses this repository (after repositories.bzl).

`goiree_setup()` registers the host Go SDK as the Go toolchain, declares the
Go modules the project's code imports (go_deps.bzl, written by
`bazel run //:gazelle-update-repos`) and those rules_go and gazelle need
(offline_deps.bzl), and gazelle's own dependencies. It can only be loaded
once `goiree_repositories()` has declared rules_go and gazelle.
"""

load("@io_bazel_rules_go//go:deps.bzl", "go_host_sdk", "go_register_toolchains", "go_rules_dependencies")
load("@bazel_gazelle//:deps.bzl", "gazelle_dependencies")
load(":go_deps.bzl", "go_dependencies")
load(":offline_deps.bzl", "offline_go_rules_dependencies")

def goiree_setup():
    """Declares the Go toolchain and Go module repositories."""

    # The project's own Go dependencies come first: gazelle_dependencies()
    # declares older versions of some that would otherwise win.
    go_dependencies()
    offline_go_rules_dependencies()
    go_rules_dependencies()
    go_host_sdk(name = "go_sdk")
    go_register_toolchains()
    gazelle_dependencies(go_sdk = "go_sdk")
