"""Go modules that rules_go and gazelle need, declared so nothing is downloaded.

rules_go's go_rules_dependencies() declares golang.org/x/tools and
golang.org/x/sys as GitHub archives, and gazelle needs both. Declaring them
here first as go_repository rules (fetched through the Go module proxy) makes
rules_go skip its own declarations. WORKSPACE names this file in a
`gazelle:repository_macro` directive so that gazelle resolves imports of
these modules; `gazelle update-repos` therefore runs without `-prune`, which
would delete them (the project's go.mod files do not list them).
"""

load("@bazel_gazelle//:deps.bzl", "go_repository")

def offline_go_rules_dependencies():
    """Declares x/tools and x/sys as Go modules ahead of rules_go's archives."""
    go_repository(
        name = "org_golang_x_tools",
        importpath = "golang.org/x/tools",
        sum = "h1:VveCTK38A2rkS8ZqFY25HIDFscX5X9OoEhJd3quQmXU=",
        version = "v0.1.12",
    )
    go_repository(
        name = "org_golang_x_sys",
        importpath = "golang.org/x/sys",
        sum = "h1:PuvuRMeLWqsf/ZdT1UUZz0syhioyv1mzuFZsXs4fvhw=",
        version = "v0.0.0-20220913175220-63ea55921009",
    )
