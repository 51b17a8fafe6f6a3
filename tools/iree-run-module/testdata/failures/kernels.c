// Kernels for the failure tests (failures_test.go). Each is a plain C
// function called once per workgroup (goiree.cpu_function, bare pointers),
// with the workgroup id last. The faulting ones fault only in workgroup 2,
// so the tests can check that the report names that workgroup; the values
// that make them fault come from the input, so the compiler cannot see the
// fault coming and turn it into something else.
#include <stddef.h>
#include <stdint.h>

// Counts the workgroups that ran: one atomic increment each.
void count_workgroups(int32_t* counter, size_t x, size_t y, size_t z) {
  __atomic_fetch_add(counter, 1, __ATOMIC_RELAXED);
}

// Copies in to out; workgroup 2 stores through the pointer whose bits are
// in[0] (0 in the tests: a write through NULL).
void write_null(const int64_t* in, int64_t* out, size_t x, size_t y, size_t z) {
  if (x == 2) {
    volatile int64_t* p = (volatile int64_t*)(uintptr_t)in[0];
    *p = 42;
  }
  out[x] = in[x];
}

// out[x] = 1000 / in[x]: an integer division by zero where in[x] is 0.
void divide(const int32_t* in, int32_t* out, size_t x, size_t y, size_t z) {
  out[x] = 1000 / in[x];
}

// Workgroup 2 executes an undefined instruction when in[2] is not 0.
void trap(const int32_t* in, int32_t* out, size_t x, size_t y, size_t z) {
  if (x == 2 && in[2] != 0) __builtin_trap();
  out[x] = in[x];
}
