/* Whether the processor executes some code: run it once with a SIGILL
 * handler that jumps back.  A signal's disposition is the process's, so
 * two threads that each installed a handler and put the old one back
 * could leave each other none: the trials take turns under a mutex.  The
 * handler is armed for the thread on trial alone; a SIGILL of any other
 * thread meanwhile gets the disposition that was there before (it is put
 * back, and the instruction runs again under it). */
#include "real/real.h"

#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <string.h>

static pthread_mutex_t trial = PTHREAD_MUTEX_INITIALIZER;
static struct sigaction before; /* under trial: the disposition to put back */
static XRAY__THREAD_LOCAL sigjmp_buf *armed; /* this thread's way back */

static void
on_sigill(int sig)
{
  if (armed)
    siglongjmp(*armed, 1);
  sigaction(sig, &before, NULL);
}

int
xray__real_executes(void (*fn)(void *ctx), void *ctx)
{
  struct sigaction sa;
  sigjmp_buf back;
  volatile int ok = 0;

  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_sigill;
  sigemptyset(&sa.sa_mask);
  pthread_mutex_lock(&trial);
  sigaction(SIGILL, &sa, &before);
  if (sigsetjmp(back, 1) == 0) {
    armed = &back;
    fn(ctx);
    ok = 1;
  }
  armed = NULL;
  sigaction(SIGILL, &before, NULL);
  pthread_mutex_unlock(&trial);
  return ok;
}
