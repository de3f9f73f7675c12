/* Streaming kernels on the real machine: a team of threads, each pinned to
 * a usable CPU of its own, each streaming through arrays of its own,
 * started together by a spin barrier for every sample.
 *
 * Where the team's CPUs share one memory node, the arrays lie in one
 * arena for the whole team, kept from call to call, and its new pages
 * are first touched by every usable CPU at once: a first touch is the
 * kernel's page clearing and, in a guest, the host's fault, hundreds of
 * MB for memory's footprints, which CPUs that share it finish sooner.
 * Across nodes each thread first touches an arena of its own, so that
 * its arrays lie in its own node.
 *
 * A sample's figure is every thread's bytes over the time from the first
 * thread's start to the last one's end: a thread the host deschedules
 * makes the sample slower, never faster, so the best sample is the one
 * the least disturbed.  Each sample lasts at least SAMPLE_S and covers at
 * least one whole pass over the arrays. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "real/real.h"

#include <dirent.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SAMPLES 5
/* A pass over a cache level's arrays lasts microseconds: a sample of
 * SAMPLE_S is hundreds of them, and its start and end cost nothing. */
#define SAMPLE_S 0.5e-3
/* Samples stop at two once they cover this much time: a pass over memory
 * lasts milliseconds, and more of them buy nothing the probe's rounds do
 * not.  Not less: where other tenants share what serves a pass (the
 * shared last level, memory), the best of fewer samples is lower. */
#define COVER_S 5e-3
/* Arrays start this many bytes apart beyond their length (17 lines, 64
 * vectors of no ISA's): streams that walk in step do not meet in the
 * same cache set or the same 4K alias at every step. */
#define STAGGER 1088
/* A first touch is split among at most this many CPUs, in slices of
 * whole large pages. */
#define FILLERS 8
#define FILL_ALIGN ((size_t) 2 << 20)

#ifdef __linux__
#include <pthread.h>

struct member {
  struct team *t;
  int cpu;
  struct xray__arena *arena; /* its own, kept by the machine; NULL: base is given */
  char *base;
  uint64_t t0[SAMPLES], t1[SAMPLES];
  /* The kernels' results, kept so that no pass is optimized away: sums
   * of the arrays' 64-bit words, so the total wraps (unsigned: defined). */
  unsigned long long sink;
};

struct team {
  long long (*fn)(void *a, void *b, void *c, size_t n, long reps);
  int arrays, threads;
  size_t n; /* vectors per array */
  size_t width;
  double target; /* ticks a sample lasts at least */
  long reps;
  int samples;
  int arrived, gen, failed;
  char err[200];
};

/* count threads of t arrive; unless wait is 0, the caller leaves when
 * the last of all arrives. */
static void
arrive(struct team *t, int count, int wait)
{
  int gen = __atomic_load_n(&t->gen, __ATOMIC_ACQUIRE);

  if (__atomic_add_fetch(&t->arrived, count, __ATOMIC_ACQ_REL) == t->threads) {
    __atomic_store_n(&t->arrived, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&t->gen, gen + 1, __ATOMIC_RELEASE);
  } else
    while (wait && __atomic_load_n(&t->gen, __ATOMIC_ACQUIRE) == gen)
      ;
}

static void
barrier(struct team *t)
{
  arrive(t, 1, 1);
}

/* The memory node CPU cpu belongs to (the nodeN in its sysfs folder), or
 * -1 where the OS names none (a kernel without NUMA: one node). */
static int
node_of(int cpu)
{
  char path[64];
  struct dirent *e;
  DIR *d;
  int node = -1;

  snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu%d", cpu);
  if (!(d = opendir(path)))
    return -1;
  while (node < 0 && (e = readdir(d)))
    if (strncmp(e->d_name, "node", 4) == 0 && e->d_name[4] >= '0' && e->d_name[4] <= '9')
      node = atoi(e->d_name + 4);
  closedir(d);
  return node;
}

int
xray__real_one_node(const int *cpu, int n)
{
  int i, first = node_of(cpu[0]);

  for (i = 1; i < n; i++)
    if (node_of(cpu[i]) != first)
      return 0;
  return 1;
}

/* One slice of a first touch, by one CPU. */
struct filler {
  char *from;
  size_t len;
  int cpu;
};

static void *
fill_run(void *arg)
{
  struct filler *f = arg;

  xray__real_pin(f->cpu);
  memset(f->from, 1, f->len);
  return NULL;
}

/* Arena a's bytes up to len written (faulted in): those not yet written,
 * in slices among CPUs cpu[0..n-1] at once, the caller (which runs on
 * cpu[0]) taking the first.  The bytes are doubles of 7.8e-304: normal. */
static void
fill(struct xray__arena *a, size_t len, const int *cpu, int n)
{
  struct filler f[FILLERS];
  pthread_t th[FILLERS];
  int started[FILLERS] = { 0 }, i;
  size_t from = a->filled, slice;

  if (from >= len)
    return;
  n = n < 1 ? 1 : n > FILLERS ? FILLERS : n;
  slice = ((len - from) / (size_t) n + FILL_ALIGN - 1) / FILL_ALIGN * FILL_ALIGN;
  for (i = 0; i < n; i++) {
    size_t at = from + (size_t) i * slice;
    f[i].from = a->base + (at < len ? at : 0);
    f[i].len = at >= len ? 0 : len - at < slice ? len - at : slice;
    f[i].cpu = cpu[i];
  }
  for (i = 1; i < n; i++)
    if (f[i].len)
      started[i] = xray__real_thread(&th[i], fill_run, &f[i]) == 0;
  memset(f[0].from, 1, f[0].len);
  for (i = 1; i < n; i++)
    if (started[i])
      pthread_join(th[i], NULL);
    else
      memset(f[i].from, 1, f[i].len);
  a->filled = len;
}

static void *
member_run(void *arg)
{
  struct member *me = arg;
  struct team *t = me->t;
  size_t len = t->n * t->width, stride = len + STAGGER, need = stride * (size_t) t->arrays;
  char *base = me->base, err[200];
  int s;

  xray__real_pin(me->cpu);
  /* An arena of its own that this thread's CPU first touched in an
   * earlier call is used again as it is: mapping and touching hundreds of
   * MB each call would cost more than the streaming. */
  if (me->arena) {
    if (xray__arena_reserve(me->arena, need, XRAY__ARENA_HUGE, err, sizeof err)) {
      if (!__atomic_exchange_n(&t->failed, 1, __ATOMIC_ACQ_REL))
        snprintf(t->err, sizeof t->err, "%s", err);
    } else
      fill(me->arena, need, &me->cpu, 1);
    base = me->arena->base;
  }
  barrier(t);
  if (__atomic_load_n(&t->failed, __ATOMIC_ACQUIRE))
    return NULL;
  /* One pass warms the arrays into whatever level holds them; the first
   * thread to finish it sets how many passes a sample takes and how many
   * samples there are, which the barrier after it publishes. */
  {
    uint64_t w0, w1;
    long reps, zero = 0;
    int pass;
    /* A cold pass (the arrays' first lines, the TLB, the loop's first
     * branches) is slow: where one is short, a second, warm one says what
     * a pass costs, so that a sample lasts the SAMPLE_S it should. */
    for (pass = 0; pass < 2; pass++) {
      w0 = xray__isa_ticks();
      me->sink += (unsigned long long) t->fn(base, base + stride, base + 2 * stride, t->n, 1);
      w1 = xray__isa_ticks();
      if ((double) (w1 - w0) >= t->target / 4)
        break;
    }
    reps = w1 > w0 ? (long) ceil(t->target / (double) (w1 - w0)) : 1;
    reps = reps > 0 ? reps : 1;
    if (__atomic_compare_exchange_n(&t->reps, &zero, reps, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
      double cover = (double) reps * (double) (w1 - w0) / t->target * SAMPLE_S;
      int n = (int) ceil(COVER_S / cover);
      __atomic_store_n(&t->samples, n < 2 ? 2 : n > SAMPLES ? SAMPLES : n, __ATOMIC_RELEASE);
    }
  }
  barrier(t);
  for (s = 0; s < t->samples; s++) {
    barrier(t);
    me->t0[s] = xray__isa_ticks();
    me->sink += (unsigned long long) t->fn(base, base + stride, base + 2 * stride, t->n, t->reps);
    me->t1[s] = xray__isa_ticks();
  }
  return NULL;
}

/* The team's arenas, one a thread, grown to `threads` (the new ones
 * empty): 0, or -1. */
static int
grow(struct xray__arena **team, int *nteam, int threads)
{
  struct xray__arena *a;

  if (threads <= *nteam)
    return 0;
  if (!(a = realloc(*team, (size_t) threads * sizeof *a)))
    return -1;
  memset(a + *nteam, 0, (size_t) (threads - *nteam) * sizeof *a);
  *team = a;
  *nteam = threads;
  return 0;
}

double
xray__real_stream(const struct xray__stream_set *set, size_t k, double bytes, int threads,
                  const int *cpu, int ncpu, int shared, struct xray__arena **team, int *nteam,
                  double tick_hz, char *err, size_t errlen)
{
  struct team t;
  struct member *mem;
  pthread_t *th;
  double best = NAN;
  size_t per;
  int i, started = 0, s;

  memset(&t, 0, sizeof t);
  t.fn = set->fn[k];
  t.arrays = xray__skernels[k].arrays;
  t.threads = threads;
  t.width = (size_t) set->width;
  t.n = (size_t) (bytes / t.arrays / (double) t.width) / XRAY__STREAM_UNIT * XRAY__STREAM_UNIT;
  t.target = SAMPLE_S * tick_hz;
  if (t.n == 0 || threads < 1) {
    snprintf(err, errlen, "%.0f bytes are too few for %d arrays of %zu-byte vectors", bytes,
             t.arrays, t.width * XRAY__STREAM_UNIT);
    return NAN;
  }
  /* A thread's part of a shared arena: its arrays, to a whole line. */
  per = ((t.n * t.width + STAGGER) * (size_t) t.arrays + 63) / 64 * 64;
  mem = calloc((size_t) threads, sizeof *mem);
  th = calloc((size_t) threads, sizeof *th);
  if (!mem || !th || grow(team, nteam, shared ? 1 : threads)) {
    free(mem);
    free(th);
    snprintf(err, errlen, "out of memory");
    return NAN;
  }
  if (shared) {
    if (xray__arena_reserve(&(*team)[0], per * (size_t) threads, XRAY__ARENA_HUGE, err, errlen)) {
      free(mem);
      free(th);
      return NAN;
    }
    fill(&(*team)[0], per * (size_t) threads, cpu, ncpu);
  }
  for (i = 0; i < threads; i++) {
    mem[i].t = &t;
    mem[i].cpu = cpu[i];
    if (shared)
      mem[i].base = (*team)[0].base + (size_t) i * per;
    else
      mem[i].arena = &(*team)[i];
    if (xray__real_thread(&th[i], member_run, &mem[i]) != 0)
      break;
    started++;
  }
  if (started < threads) {
    /* The started ones wait at the first barrier for the rest: the
     * failure is set before the missing ones arrive there. */
    snprintf(t.err, sizeof t.err, "cannot start %d threads", threads);
    __atomic_store_n(&t.failed, 1, __ATOMIC_RELEASE);
    arrive(&t, threads - started, 0);
  }
  for (i = 0; i < started; i++)
    pthread_join(th[i], NULL);
  if (!t.failed)
    for (s = 0; s < t.samples; s++) {
      uint64_t first = mem[0].t0[s], last = mem[0].t1[s];
      double per;
      for (i = 1; i < threads; i++) {
        first = mem[i].t0[s] < first ? mem[i].t0[s] : first;
        last = mem[i].t1[s] > last ? mem[i].t1[s] : last;
      }
      per = (double) threads * (double) (t.n * t.width) * t.arrays * (double) t.reps
          / (double) (last - first);
      if (last > first && !(per <= best))
        best = per;
    }
  else
    snprintf(err, errlen, "%s", t.err);
  free(mem);
  free(th);
  return best;
}
#else
double
xray__real_stream(const struct xray__stream_set *set, size_t k, double bytes, int threads,
                  const int *cpu, int ncpu, int shared, struct xray__arena **team, int *nteam,
                  double tick_hz, char *err, size_t errlen)
{
  (void) set, (void) k, (void) bytes, (void) threads, (void) cpu, (void) ncpu, (void) shared;
  (void) team, (void) nteam;
  (void) tick_hz;
  snprintf(err, errlen, "streaming threads need Linux and POSIX threads");
  return NAN;
}

int
xray__real_one_node(const int *cpu, int n)
{
  (void) cpu, (void) n;
  return 1;
}
#endif
