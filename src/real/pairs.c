/* The pairwise test of X-Ray Sec. 3.5 on the real machine: a kernel that saturates a core's
 * floating-point adders runs on CPU a alone, then on a and b at once.  Two
 * hardware threads of one core share the adders, so each runs at about half
 * speed; two cores do not slow each other.
 *
 * On a shared machine the other CPU may be busy with someone else's work,
 * so a sample of thread A counts only if thread B made progress all through
 * it (B ran at the same time) and it was not itself preempted, and speeds
 * are the best samples, not averages: time-slicing makes a thread slower on
 * average but never faster while it runs. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "real/real.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#ifdef __linux__
#include <pthread.h>
#include <sched.h>

/* A timing thread's stack: its loops and their callers need a few KB,
 * and the default (8 MB of address space a thread) would keep a team
 * from starting under a limit such as ulimit -v. */
#define THREAD_STACK ((size_t) 256 << 10)

int
xray__real_pin(int cpu)
{
  cpu_set_t set;

  CPU_ZERO(&set);
  CPU_SET(cpu, &set);
  return sched_setaffinity(0, sizeof set, &set);
}

int
xray__real_thread(pthread_t *t, void *(*fn)(void *), void *arg)
{
  pthread_attr_t at;
  int rc;

  if (pthread_attr_init(&at))
    return pthread_create(t, NULL, fn, arg);
  rc = pthread_create(t, pthread_attr_setstacksize(&at, THREAD_STACK) ? NULL : &at, fn, arg);
  pthread_attr_destroy(&at);
  return rc;
}

/* Eight independent chains of double adds: bound by the adders' throughput
 * on every core we know, and immune to reassociation (no -ffast-math). */
static double
saturate(long n, double x)
{
  double a0 = 0, a1 = 0, a2 = 0, a3 = 0, a4 = 0, a5 = 0, a6 = 0, a7 = 0;
  long i;

  for (i = 0; i < n; i++) {
    a0 += x;
    a1 += x;
    a2 += x;
    a3 += x;
    a4 += x;
    a5 += x;
    a6 += x;
    a7 += x;
  }
  return a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
}

#define CHUNK 2000              /* iterations between progress marks (~5 us) */
#define PER_SAMPLE 4            /* chunks per sample */
#define SAMPLES 40

struct worker {
  int cpu;
  volatile long progress;       /* chunks done */
  struct worker *other;         /* NULL: alone */
  volatile int *go, *stop;
  double best[2];               /* the two fastest valid samples, in ticks */
  double limit;                 /* longer samples were preempted (0: no limit) */
  int valid;
  double sink;
};

static volatile double sat_x = 1e-9;

static void *
work(void *arg)
{
  struct worker *w = arg;
  double x = sat_x;
  int s;

  xray__real_pin(w->cpu);
  while (!*w->go)
    ;
  for (s = 0; !*w->stop; s++) {
    long before = w->other ? w->other->progress : 0;
    int cpu = sched_getcpu();
    uint64_t t0 = xray__isa_ticks(), t1;
    int c;

    for (c = 0; c < PER_SAMPLE; c++) {
      w->sink += saturate(CHUNK, x);
      w->progress++;
    }
    t1 = xray__isa_ticks();
    /* Valid: still on our CPU and, in the pair, the other thread ran for
     * at least three quarters of the sample. */
    if (sched_getcpu() == cpu && cpu == w->cpu && t1 > t0
        && (!w->limit || (double) (t1 - t0) <= w->limit)
        && (!w->other || w->other->progress - before >= PER_SAMPLE * 3 / 4)) {
      double t = (double) (t1 - t0);
      xray__keep_fastest(w->best, t);
      w->valid++;
    }
    if (!w->other && w->valid >= SAMPLES)
      break;
  }
  return NULL;
}

/* Run workers on their CPUs until each has SAMPLES valid samples or 0.3 s
 * pass; 0, or -1 if a thread could not start. */
static int
run(struct worker *w, int n)
{
  pthread_t th[2];
  volatile int go = 0, stop = 0;
  double t0;
  int i, started = 0, rc = 0;

  for (i = 0; i < n; i++) {
    w[i].progress = 0;
    w[i].valid = 0;
    w[i].best[0] = w[i].best[1] = HUGE_VAL;
    w[i].go = &go;
    w[i].stop = &stop;
    if (xray__real_thread(&th[i], work, &w[i]) != 0) {
      rc = -1;
      break;
    }
    started++;
  }
  go = 1;
  t0 = xray__now();
  while (xray__now() - t0 < 0.3) {
    int done = 1;
    for (i = 0; i < started; i++)
      done &= w[i].valid >= SAMPLES;
    if (done)
      break;
    sched_yield();
  }
  stop = 1;
  for (i = 0; i < started; i++)
    pthread_join(th[i], NULL);
  return rc;
}

static double
fastest(const struct worker *w)
{
  return w->valid >= 2 ? w->best[1] : HUGE_VAL;
}

double
xray__pair_speed(int a, int b, char *err, size_t errlen)
{
  struct worker solo[2], pair[2];
  double r[2];
  int i;

  memset(solo, 0, sizeof solo);
  memset(pair, 0, sizeof pair);
  solo[0].cpu = pair[0].cpu = a;
  solo[1].cpu = pair[1].cpu = b;
  pair[0].other = &pair[1];
  pair[1].other = &pair[0];
  if (run(&solo[0], 1) || run(&solo[1], 1)) {
    snprintf(err, errlen, "cannot start threads");
    return NAN;
  }
  /* A pair sample more than 4x slower than alone was preempted (two
   * threads of a core slow each other about 2x). */
  pair[0].limit = 4 * fastest(&solo[0]);
  pair[1].limit = 4 * fastest(&solo[1]);
  if (run(pair, 2)) {
    snprintf(err, errlen, "cannot start threads");
    return NAN;
  }
  for (i = 0; i < 2; i++) {
    if (fastest(&solo[i]) == HUGE_VAL || fastest(&pair[i]) == HUGE_VAL) {
      snprintf(err, errlen, "CPUs %d and %d never ran the test at the same time", a, b);
      return NAN;
    }
    r[i] = fastest(&solo[i]) / fastest(&pair[i]);
  }
  return r[0] < r[1] ? r[0] : r[1];
}

#else

double
xray__pair_speed(int a, int b, char *err, size_t errlen)
{
  (void) a;
  (void) b;
  snprintf(err, errlen, "the pairwise test needs Linux thread affinity");
  return NAN;
}

#endif
