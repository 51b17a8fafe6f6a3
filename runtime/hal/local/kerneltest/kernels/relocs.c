// Exercises the loader's relocations: hidden pointers in data become
// R_X86_64_RELATIVE, pointers to a default-visibility (preemptible) symbol
// become R_X86_64_64, reading it from code goes through a GOT entry
// (R_X86_64_GLOB_DAT) and calling a preemptible function goes through the
// PLT (R_X86_64_JUMP_SLOT).
__attribute__((visibility("default"))) int exported_value = 42;
__attribute__((visibility("default"))) int exported_fn(int x) { return x + exported_value; }

static int local_a = 1, local_b = 2, local_c = 3;
__attribute__((visibility("default"))) int* relative_table[3] = {&local_a, &local_b, &local_c};
__attribute__((visibility("default"))) int* absolute_ptr = &exported_value;
__attribute__((visibility("default"))) const char* message = "hello from the loader";

__attribute__((visibility("default"))) int read_through_got(void) { return exported_value; }
// Defined in relocs_extern.c; the call goes through the PLT.
extern __attribute__((visibility("default"))) int extern_fn(int x);
__attribute__((visibility("default"))) int call_through_plt(int x) { return extern_fn(x) * 2; }
