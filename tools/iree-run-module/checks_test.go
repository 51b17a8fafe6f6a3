package main

import (
	"strings"
	"testing"
)

// withChecks has a check that holds and one that fails: iree-run-module
// registers no check module, so, as in IREE, both calls are skipped at
// run time (the imports are optional and guarded) and the function's
// result is printed; iree-check-module runs the same checks.
const withChecks = `module attributes {hal.device.targets = [#hal.device.target<"local", [#hal.executable.target<"llvm-cpu", "embedded-elf-x86_64", {target_triple = "x86_64-none-elf"}>]> : !hal.device]} {
func.func @main() -> tensor<2xf32> {
  %a = util.unfoldable_constant dense<[1.0, 2.0]> : tensor<2xf32>
  %b = arith.addf %a, %a : tensor<2xf32>
  check.expect_almost_eq_const(%b, dense<[2.0, 4.0]> : tensor<2xf32>) : tensor<2xf32>
  check.expect_eq_const(%b, dense<[2.0, 5.0]> : tensor<2xf32>) : tensor<2xf32>
  %t = arith.constant 0 : i32
  check.expect_true(%t) : i32
  return %b : tensor<2xf32>
}
}
`

func TestChecksSkippedWithoutCheckModule(t *testing.T) {
	path := compileProgram(t, "checks", withChecks)
	for _, device := range []string{"local-sync", "local-task"} {
		code, stdout, stderr := runTool(t, "", "--device="+device, "--module="+path, "--function=main")
		if code != 0 || stderr != "" || !strings.Contains(stdout, "2xf32=2 4") {
			t.Errorf("%s: exit %d, stderr %q, stdout:\n%s", device, code, stderr, stdout)
		}
	}
}
