// The other half of relocs.c: a preemptible function called through the PLT.
__attribute__((visibility("default"))) int extern_fn(int x) { return x + 1; }
