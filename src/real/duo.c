/* Two CPUs at once on the real machine (machine.h: struct xray__duo).
 * Thread A, pinned to CPU a, times what it does; thread B, pinned to CPU
 * b, does its part until A is done.
 *
 * On a shared host either virtual CPU may be descheduled at any moment,
 * and then the other runs alone.  So a sample of A counts only if A stayed
 * on its CPU and B made steady progress all through it, and the figure is
 * the second fastest valid sample: a preempted partner makes A faster in a
 * chase or a write race (nothing to contend with) and slower in a ping-
 * pong (nobody answers), and in each case the check or the fastest sample
 * keeps it out.  A ping-pong has no progress of B to check while A waits,
 * so there the fastest samples alone decide: B answers at its best speed
 * only while it runs.  A hand-off waits for B's answer too, and times
 * only what A does after it. */
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

#define SAMPLES 5 /* valid samples A takes, at most */
#define TIME_LIMIT 0.4 /* seconds one measurement may take */
#define PARTNER_CHUNK 256 /* B's steps between progress marks */
#define CHUNKS 8 /* B's chunks one of A's samples spans at equal speed */
#define HANDOFFS 2000 /* round trips in a ping-pong sample */

struct duo_run {
  const struct xray__duo *d;
  void *chase[2]; /* each side's chain */
  volatile long *word[2]; /* the token (word[0]); each side's word of a race */
  volatile long progress; /* B's chunks done */
  volatile int ready, stop, failed; /* B warmed up; A done; someone failed */
  double deadline;
  double best[2]; /* A's two fastest valid samples, in ticks */
  int valid;
  uint64_t steps; /* A's steps per sample */
  char err[200];
};

static void
fail(struct duo_run *r, const char *why)
{
  if (!__atomic_exchange_n(&r->failed, 1, __ATOMIC_ACQ_REL))
    snprintf(r->err, sizeof r->err, "%s", why);
  r->stop = 1;
}

/* Spin until *w == v; 0, or -1 once the run stops or runs out of time. */
static int
await(struct duo_run *r, volatile long *w, long v)
{
  unsigned long spins = 0;

  while (*w != v) {
    if (r->stop)
      return -1;
    if (++spins % 65536 == 0 && xray__now() > r->deadline) {
      fail(r, "the other CPU never answered (is it running someone else's work?)");
      return -1;
    }
  }
  return 0;
}

/* The token, one word: A writes each odd value and waits for B to write
 * the next even one.  ask: A's side, a round trip; asked: B's, until A's
 * value is there (B then works and answers with *v).  0, or -1 once the
 * run stops. */
static int
ask(struct duo_run *r, long *v)
{
  *r->word[0] = ++*v;
  return await(r, r->word[0], ++*v);
}

static int
asked(struct duo_run *r, long *v)
{
  *v += 2;
  return await(r, r->word[0], *v - 1);
}

/* B's part: until A stops, the same steps as A, marking its progress. */
static void
partner(struct duo_run *r)
{
  const struct xray__duo *d = r->d;
  long v = 0;

  if (d->kind == XRAY__DUO_CHASE)
    r->chase[1] = xray__chase_run(r->chase[1], d->c->n / XRAY__CHASE_UNROLL + 1);
  r->ready = 1;
  while (!r->stop) {
    long i;
    switch (d->kind) {
    case XRAY__DUO_CHASE:
      r->chase[1] = xray__chase_run(r->chase[1], PARTNER_CHUNK);
      break;
    case XRAY__DUO_WRITES:
      for (i = 0; i < PARTNER_CHUNK; i++)
        __atomic_fetch_add(r->word[1], 1, __ATOMIC_RELAXED);
      break;
    case XRAY__DUO_HANDOFF:
      /* B writes a new value beside every link of the chain (a store of
       * the value a word holds may be dropped as silent), which leaves
       * each line modified in its cache, and answers. */
      if (asked(r, &v))
        return;
      {
        void *p = r->chase[1];
        size_t k;
        for (k = 0; k < d->c->n; k++) {
          ((volatile long *) p)[1] = v;
          p = *(void **) p;
        }
      }
      *r->word[0] = v;
      break;
    case XRAY__DUO_PINGPONG:
      for (i = 0; i < PARTNER_CHUNK && !r->stop; i++) {
        if (asked(r, &v))
          return;
        *r->word[0] = v;
      }
      break;
    }
    r->progress++;
  }
}

/* One sample of A's steps, in ticks. */
static uint64_t
sample(struct duo_run *r, long *v)
{
  const struct xray__duo *d = r->d;
  uint64_t t0 = xray__isa_ticks(), i;

  switch (d->kind) {
  case XRAY__DUO_HANDOFF:
    /* The lines are B's when A starts: only A's walk is timed.  Each line
     * A reads and then takes (a locked add, which waits for it), as a
     * ping-pong's side reads the token and writes it. */
    if (ask(r, v))
      return 0;
    t0 = xray__isa_ticks();
    {
      void *p = r->chase[0];
      for (i = 0; i < r->steps * XRAY__CHASE_UNROLL; i++) {
        void *next = *(void **) p;
        __atomic_fetch_add((long *) p + 1, 1, __ATOMIC_SEQ_CST);
        p = next;
      }
      r->chase[0] = p;
    }
    break;
  case XRAY__DUO_CHASE:
    r->chase[0] = xray__chase_run(r->chase[0], r->steps);
    break;
  case XRAY__DUO_WRITES:
    for (i = 0; i < r->steps; i++)
      __atomic_fetch_add(r->word[0], 1, __ATOMIC_RELAXED);
    break;
  case XRAY__DUO_PINGPONG:
    for (i = 0; i < r->steps; i++)
      if (ask(r, v))
        return 0;
    break;
  }
  return xray__isa_ticks() - t0;
}

static void
measure(struct duo_run *r)
{
  const struct xray__duo *d = r->d;
  long v = 0;
  int alone = d->b < 0;

  /* One traversal warms the chain into whatever holds it. */
  if (d->kind == XRAY__DUO_CHASE)
    r->chase[0] = xray__chase_run(r->chase[0], d->c->n / XRAY__CHASE_UNROLL + 1);
  while (!alone && !r->ready && !r->stop)
    if (xray__now() > r->deadline)
      fail(r, "the other CPU never started (is it running someone else's work?)");
  while (!r->stop && r->valid < SAMPLES && xray__now() < r->deadline) {
    long before = r->progress;
    int cpu = sched_getcpu();
    double t = (double) sample(r, &v);
    /* B at A's pace does CHUNKS chunks in a sample; half of them show it
     * ran all through (a ping-pong cannot go on without B at all). */
    if (t > 0 && sched_getcpu() == cpu && cpu == d->a
        && (alone || d->kind == XRAY__DUO_PINGPONG || d->kind == XRAY__DUO_HANDOFF
            || r->progress - before >= CHUNKS / 2)) {
      xray__keep_fastest(r->best, t);
      r->valid++;
    }
  }
  r->stop = 1;
}

struct side_arg {
  struct duo_run *r;
  int which;
};

static void *
side_run(void *arg)
{
  struct side_arg *s = arg;
  struct duo_run *r = s->r;

  if (xray__real_pin(s->which ? r->d->b : r->d->a)) {
    fail(r, "cannot pin a thread to the CPU asked for");
    return NULL;
  }
  if (s->which)
    partner(r);
  else
    measure(r);
  return NULL;
}

/* Each side's chain in its own arena, placed by the main thread. */
static int
place(struct duo_run *r, struct xray__arena *arena)
{
  int i;

  for (i = 0; i < (r->d->b < 0 || r->d->kind == XRAY__DUO_HANDOFF ? 1 : 2); i++)
    if (!(r->chase[i] = xray__chase_place(&arena[i], r->d->c, r->err, sizeof r->err)))
      return -1;
  /* The chain is in random order: a stretch of it costs what the whole
   * does.  A handoff takes the whole chain once, each line once. */
  r->steps =
      r->d->kind == XRAY__DUO_HANDOFF ? r->d->c->n / XRAY__CHASE_UNROLL : CHUNKS * PARTNER_CHUNK;
  return 0;
}

double
xray__real_duo(const struct xray__duo *d, struct xray__arena *arena, double ticks_per_cycle,
               char *err, size_t errlen)
{
  struct duo_run r;
  struct side_arg s[2];
  pthread_t th[2];
  long *words = NULL;
  double per;
  int i, started = 0;

  memset(&r, 0, sizeof r);
  r.d = d;
  r.best[0] = r.best[1] = HUGE_VAL;
  if (d->a < 0 || d->a == d->b) {
    snprintf(err, errlen, "two distinct CPUs are needed");
    return NAN;
  }
  if (d->kind == XRAY__DUO_HANDOFF && d->b < 0) {
    snprintf(err, errlen, "a handoff needs a second CPU");
    return NAN;
  }
  if (d->kind == XRAY__DUO_CHASE || d->kind == XRAY__DUO_HANDOFF) {
    if (!d->c || d->c->n < XRAY__CHASE_UNROLL || place(&r, arena)) {
      snprintf(err, errlen, "%s", r.err[0] ? r.err : "a chase too short");
      return NAN;
    }
    /* B walks the one chain from its start: n steps bring it back. */
    if (d->kind == XRAY__DUO_HANDOFF)
      r.chase[1] = r.chase[0];
  }
  if (d->kind != XRAY__DUO_CHASE) {
    /* Words at the start of a page and dist bytes on, away from anything
     * else this process writes. */
    if ((d->kind == XRAY__DUO_WRITES && d->dist < sizeof(long)) || d->dist % sizeof(long)
        || d->dist > 65536 || posix_memalign((void **) &words, 4096, 65536 + 4096)) {
      snprintf(err, errlen, "words %zu bytes apart cannot be raced", d->dist);
      return NAN;
    }
    memset(words, 0, 65536 + 4096);
    r.word[0] = words;
    r.word[1] = words + d->dist / sizeof(long);
    if (d->kind != XRAY__DUO_HANDOFF)
      r.steps = d->kind == XRAY__DUO_WRITES ? CHUNKS * PARTNER_CHUNK : HANDOFFS;
  }
  r.deadline = xray__now() + TIME_LIMIT;
  for (i = d->b < 0 ? 0 : 1; i >= 0; i--) {
    s[i].r = &r;
    s[i].which = i;
    if (xray__real_thread(&th[i], side_run, &s[i]) != 0) {
      fail(&r, "cannot start a thread");
      break;
    }
    started |= 1 << i;
  }
  for (i = 0; i < 2; i++)
    if (started & (1 << i))
      pthread_join(th[i], NULL);
  free(words);
  if (r.failed) {
    snprintf(err, errlen, "%s", r.err);
    return NAN;
  }
  if (r.valid < 2) {
    snprintf(err, errlen, "CPUs %d and %d never ran the test at the same time", d->a, d->b);
    return NAN;
  }
  per = d->kind == XRAY__DUO_CHASE || d->kind == XRAY__DUO_HANDOFF
      ? (double) r.steps * XRAY__CHASE_UNROLL
      : (double) r.steps;
  return r.best[1] / per / ticks_per_cycle;
}

#else

double
xray__real_duo(const struct xray__duo *d, struct xray__arena *arena, double ticks_per_cycle,
               char *err, size_t errlen)
{
  (void) d, (void) arena, (void) ticks_per_cycle;
  snprintf(err, errlen, "two CPUs at once need Linux thread affinity");
  return NAN;
}

#endif
