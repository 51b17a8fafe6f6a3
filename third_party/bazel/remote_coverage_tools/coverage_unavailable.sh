#!/bin/sh
echo "coverage tools are not available in this offline build (see third_party/bazel/README.md)" >&2
exit 1
