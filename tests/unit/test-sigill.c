/* xray__real_executes (real/sigill.c), how the FMA probe learns whether
 * the processor has the instruction: code that runs gives 1, code the
 * processor refuses (SIGILL) gives 0 and the process goes on; two threads
 * that try at once, over and over, each get their own answers (a trial
 * that installed its handler and put the old one back without taking
 * turns could leave the other thread's SIGILL with none, and the process
 * dies); and the SIGILL disposition is the one before afterwards. */
#include "xray-internal.h"
#include "../tap.h"

#include <pthread.h>
#include <signal.h>

#define ROUNDS 2000

static void
legal(void *ctx)
{
  ++*(volatile int *) ctx;
}

static void
illegal(void *ctx)
{
  (void) ctx;
#if defined(__x86_64__) || defined(__i386__)
  __asm__ __volatile__("ud2");
#elif defined(__aarch64__)
  __asm__ __volatile__(".inst 0x00000000"); /* udf #0 */
#endif
}

/* ROUNDS trials of each; the wrong answers. */
static void *
trials(void *arg)
{
  long wrong = 0;
  int i, n = 0;

  for (i = 0; i < ROUNDS; i++)
    wrong += !xray__real_executes(legal, &n) + xray__real_executes(illegal, NULL);
  *(long *) arg = wrong + (n != ROUNDS);
  return NULL;
}

int
main(void)
{
  pthread_t t[2];
  long wrong[2] = { -1, -1 };
  struct sigaction now;
  int n = 0, i;

#if !defined(__x86_64__) && !defined(__i386__) && !defined(__aarch64__)
  printf("1..0 # SKIP no illegal instruction known for this ISA\n");
  return 0;
#endif
  tap_plan(4);
  i = xray__real_executes(legal, &n);
  tap_ok(i == 1 && n == 1, "code that runs: %d (it ran %d time)", i, n);
  i = xray__real_executes(illegal, NULL);
  tap_ok(i == 0, "an illegal instruction: %d, and we go on", i);
  for (i = 0; i < 2; i++)
    pthread_create(&t[i], NULL, trials, &wrong[i]);
  for (i = 0; i < 2; i++)
    pthread_join(t[i], NULL);
  tap_ok(wrong[0] == 0 && wrong[1] == 0,
         "two threads, %d trials of each kind each, at once: %ld and %ld wrong answers", ROUNDS,
         wrong[0], wrong[1]);
  sigaction(SIGILL, NULL, &now);
  tap_ok(now.sa_handler == SIG_DFL, "SIGILL's disposition is the default again");
  return tap_done();
}
