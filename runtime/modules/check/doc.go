// Package check is the "check" native VM module: the expectations that
// IREE-style test programs (the check dialect) call, and that
// iree-check-module runs. Its functions, with IREE's names and calling
// conventions:
//
//	check.expect_true(i32)                                  0i_v
//	check.expect_false(i32)                                 0i_v
//	check.expect_all_true(!hal.device, !hal.buffer_view)    0rr_v
//	check.expect_eq(!hal.device, lhs, rhs)                  0rrr_v
//	check.expect_almost_eq(!hal.device, lhs, rhs, atol, rtol f32)  0rrrff_v
//
// A failed expectation does not stop the program: as in IREE (where each
// is a gtest EXPECT), the module records a Failure with a message (and the
// source location of the call, when the program's module records
// locations) and the call returns normally, so one test function reports
// every expectation it breaks. Arguments that cannot be checked at all (a null or mistyped
// ref, an element type an expectation does not support) are errors that
// end the call instead.
//
// The buffer views the program passes usually live in device memory; the
// module reads them through the HAL (hal.Buffer.Read, which maps the
// buffer), as the tools read results, so it works on every driver.
package check
