// Reference harness for the benchmark suite: a plain C program that calls
// simple_mul_workgroup (linked from the same object the module embeds) over
// buffers of n floats, tile by tile, as the runtime's workgroup loop does.
//
//   harness large N THREADS PASSES   split the tiles of one pass across
//                                    THREADS pthreads; print the median
//                                    nanoseconds of a pass
//   harness small N CALLS ROUNDS     time CALLS calls over the first tile
//                                    per round; print the median
//                                    nanoseconds of one call
//
// Output: one line "ns=<value> check=<z[n-1]>" (check keeps the stores).
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define TILE 64

void simple_mul_workgroup(const float* x, const float* xa, size_t xo, size_t xn, size_t xs,
                          const float* y, const float* ya, size_t yo, size_t yn, size_t ys,
                          float* z, float* za, size_t zo, size_t zn, size_t zs,
                          size_t n, size_t tile_start);

static float *gx, *gy, *gz;
static size_t gn;

typedef struct { size_t first, last; } span_t;  // tiles [first, last)

static void run_tiles(size_t first, size_t last) {
  for (size_t t = first; t < last; ++t)
    simple_mul_workgroup(gx, gx, 0, gn, 1, gy, gy, 0, gn, 1, gz, gz, 0, gn, 1, gn, t * TILE);
}

static void* worker(void* arg) {
  span_t* s = (span_t*)arg;
  run_tiles(s->first, s->last);
  return NULL;
}

static int64_t now_ns(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp_i64(const void* a, const void* b) {
  int64_t x = *(const int64_t*)a, y = *(const int64_t*)b;
  return x < y ? -1 : x > y;
}

static float* alloc_floats(size_t n, float v) {
  float* p = NULL;
  if (posix_memalign((void**)&p, 64, n * sizeof(float) + 64) != 0) return NULL;
  for (size_t i = 0; i < n; ++i) p[i] = v;
  return p;
}

int main(int argc, char** argv) {
  if (argc != 5) {
    fprintf(stderr, "usage: %s large|small N THREADS|CALLS PASSES|ROUNDS\n", argv[0]);
    return 2;
  }
  const char* mode = argv[1];
  gn = (size_t)strtoull(argv[2], NULL, 10);
  long a = strtol(argv[3], NULL, 10), rounds = strtol(argv[4], NULL, 10);
  if (gn == 0 || a < 1 || rounds < 1 || rounds > 100000) {
    fprintf(stderr, "bad arguments\n");
    return 2;
  }
  gx = alloc_floats(gn, 2.0f);
  gy = alloc_floats(gn, 4.0f);
  gz = alloc_floats(gn, 0.0f);
  int64_t* samples = calloc((size_t)rounds, sizeof(int64_t));
  if (!gx || !gy || !gz || !samples) {
    fprintf(stderr, "out of memory\n");
    return 1;
  }
  size_t tiles = (gn + TILE - 1) / TILE;
  if (strcmp(mode, "large") == 0) {
    long threads = a;
    pthread_t* ids = calloc((size_t)threads, sizeof(pthread_t));
    span_t* spans = calloc((size_t)threads, sizeof(span_t));
    if (!ids || !spans) return 1;
    run_tiles(0, tiles);  // warm up: touch every page once
    for (long r = 0; r < rounds; ++r) {
      int64_t t0 = now_ns();
      for (long i = 0; i < threads; ++i) {
        spans[i].first = tiles * (size_t)i / (size_t)threads;
        spans[i].last = tiles * (size_t)(i + 1) / (size_t)threads;
        if (i > 0 && pthread_create(&ids[i], NULL, worker, &spans[i]) != 0) {
          fprintf(stderr, "pthread_create failed\n");
          return 1;
        }
      }
      run_tiles(spans[0].first, spans[0].last);  // the main thread is one of them
      for (long i = 1; i < threads; ++i) pthread_join(ids[i], NULL);
      samples[r] = now_ns() - t0;
    }
  } else if (strcmp(mode, "small") == 0) {
    long calls = a;
    for (long r = 0; r < rounds; ++r) {
      int64_t t0 = now_ns();
      for (long i = 0; i < calls; ++i) {
        run_tiles(0, 1);
        __asm__ volatile("" ::: "memory");  // one real call per iteration
      }
      samples[r] = (now_ns() - t0) / calls;
    }
  } else {
    fprintf(stderr, "unknown mode %s\n", mode);
    return 2;
  }
  qsort(samples, (size_t)rounds, sizeof(int64_t), cmp_i64);
  printf("ns=%lld check=%g\n", (long long)samples[rounds / 2], (double)gz[gn - 1]);
  return 0;
}
